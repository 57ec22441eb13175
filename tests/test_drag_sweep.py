"""A sweep with drag, checked in the file against formulas written here from
docs/theory/drag.md (an independent oracle):
- one point with C = c K (K of that point's tensor, read from `point`): the
  means of abs(heading_total), rest_distance and path_length over the
  ensemble equal the file's exact twins (the undamped path up to
  tau = 1/c) within 10 rtol, decay_rate is c, every trajectory a node,
  and the largest error estimates exceed the differences;
- a grid with circulation (kappa = rho Gamma r over r) and a fixed C: the
  decay rate and the share of foci against the roots of
  D l^2 + b l + det C + kappa^2 = 0 computed here from the file's tensor;
- the limit-circle datasets NaN, the drag attributes stored.
Usage: test_drag_sweep.py SLEIGHSWEEP MPIEXEC"""
import json
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
TOL = 1e-9
C = 0.3
BODY = ["--theta", "1.1", "--a", "0.2", "--b", "0.1", "--A", "0.5",
        "--B", "0.3"]
t = json.loads(subprocess.run([EXE, "point", *BODY], capture_output=True,
                              text=True, env=ENV).stdout)["tensor"]
PROP = f"""[body]
m = 1
I0 = 0.5
rho = 1
drag_w = {C * t['J']!r}
drag_v = {C * t['M']!r}
drag_wv = {-C * t['L2']!r}
[grid]
theta = 1.1
a = 0.2
b = 0.1
A = 0.5
B = 0.3
[ensemble]
trajectories = 8
[output]
file = {{out}}
"""
CW, CV, CWV, RHO, GAMMA = 0.05, 0.08, 0.01, 1.0, 1.5
CIRC = f"""[body]
m = 1
I0 = 0.5
rho = {RHO}
Gamma = {GAMMA}
drag_w = {CW}
drag_v = {CV}
drag_wv = {CWV}
[grid]
theta = 40deg, 110deg
a = 0.2
r = -0.3, 0, 0.4
A = 0.5
B = 0.3
[ensemble]
trajectories = 4
[output]
file = {{out}}
samples = 1
"""


def run(tmp, name, text):
    cfg = os.path.join(tmp, name + ".ini")
    out = os.path.join(tmp, name + ".h5")
    with open(cfg, "w") as f:
        f.write(text.format(out=out))
    p = subprocess.run([MPIEXEC, "-np", "2", EXE, "run", "--quiet", cfg],
                       env=ENV, text=True, capture_output=True, timeout=300)
    check(p.returncode == 0, f"run {name}: {p.returncode} {p.stderr}")
    with h5py.File(out, "r") as f:
        d = {k: np.ravel(f[k][()]) for k in f
             if isinstance(f[k], h5py.Dataset)}
        d["attrs"] = dict(f.attrs)
        d["r_axis"] = f["r"][()]
    return d


def slowest(J, M, L2, kappa):
    """Decay rate -max Re lambda and whether the roots are complex."""
    D = M * J - L2 * L2
    b = M * CW + 2 * L2 * CWV + J * CV
    c0 = CW * CV - CWV * CWV + kappa * kappa
    disc = b * b - 4 * D * c0
    if disc < 0:
        return b / (2 * D), True
    return (b - math.sqrt(disc)) / (2 * D), False


with tempfile.TemporaryDirectory() as tmp:
    d = run(tmp, "prop", PROP)
    check(d["attrs"]["drag_v"] == C * t["M"], "drag_v attribute")
    check(d["converged_fraction"][0] == 1.0 and d["flags"][0] == 0,
          f"C = c K: converged {d['converged_fraction']}, flags {d['flags']}")
    for name, err in (("heading_total", "heading_total_error"),
                      ("rest_distance", "rest_distance_error"),
                      ("path_length", "path_length_error")):
        got, want = d[name][0], d["analytic_" + name][0]
        scale = max(abs(want), 1.0) if name == "heading_total" else \
            d["analytic_path_length"][0]
        check(abs(got - want) <= TOL * scale,
              f"C = c K: {name} {got!r} vs exact {want!r}")
        check(d[err][0] >= abs(got - want),
              f"C = c K: {err} {d[err][0]:.3g} below the error "
              f"{abs(got - want):.3g} of the mean")
    check(abs(d["decay_rate"][0] - C) <= 1e-9 * C
          and abs(d["analytic_decay_rate"][0] - C) <= 1e-12 * C,
          f"C = c K: decay {d['decay_rate'][0]!r}, twin "
          f"{d['analytic_decay_rate'][0]!r}, c = {C}")
    check(d["focus_fraction"][0] == 0.0, "C = c K: rest is a node")
    for name in ("center_spacing", "radius_future", "transition_angle",
                 "analytic_center_spacing", "blade_force_max"):
        check(np.all(np.isnan(d[name])), f"drag: {name} is not NaN")

    d = run(tmp, "circ", CIRC)
    foci = 0
    for i in range(len(d["J"])):
        kappa = RHO * GAMMA * d["r_axis"][i % len(d["r_axis"])]
        want, focus = slowest(d["J"][i], d["M"][i], d["L2"][i], kappa)
        foci += focus
        check(d["converged_fraction"][i] == 1.0,
              f"point {i}: converged {d['converged_fraction'][i]}")
        check(abs(d["decay_rate"][i] - want) <= TOL * want,
              f"point {i}: decay {d['decay_rate'][i]!r} vs {want!r}")
        check(abs(d["analytic_decay_rate"][i] - want) <= 1e-12 * want,
              f"point {i}: twin decay {d['analytic_decay_rate'][i]!r}")
        check(d["focus_fraction"][i] == (1.0 if focus else 0.0),
              f"point {i}: focus_fraction {d['focus_fraction'][i]}, "
              f"focus {focus}")
        check(np.isnan(d["analytic_heading_total"][i]),
              f"point {i}: no exact twin without C = c K")
    print(f"drag sweep: C = c K within {TOL} of the exact rest; "
          f"{len(d['J'])} points with circulation, {foci} foci")
    check(0 < foci < len(d["J"]), f"{foci} foci: want both kinds")
sys.exit(exit_status())
