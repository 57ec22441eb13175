"""No silent wrong answer at the ends of the accepted ranges, through the
command line (`point`) and a sweep (`run`): energies 1e-200 and 1e200,
the lightest and heaviest bodies, huge and tiny velocities, a near
line-to-line body with hundreds of loops, the blade force at extreme
energies; every result within the promise (10 rtol) of the closed form
and within its error estimate, or flagged, or refused with a message and
exit status 2. The closed form of an extreme body is taken from the same
body at unit scale (the results do not depend on the mass scale or the
energy; docs/theory/step-control.md, "Units").
Usage: test_scales.py SLEIGHSWEEP MPIEXEC"""
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
RTOL = 1e-10
PROMISE = 10 * RTOL  # README "Accuracy"


def point(*args):
    p = subprocess.run([EXE, "point", *args], capture_output=True, text=True)
    return p, (json.loads(p.stdout) if p.returncode == 0 else None)


def judge(name, j, truth):
    """Every quantity of `truth` (d, dphi, blade_force_max) within the
    promise and within its error estimate, converged, no flags."""
    check(j is not None, f"{name}: no output")
    if j is None:
        return
    check(j["converged"] and j["flags"] == 0,
          f"{name}: converged {j['converged']} flags {j['flags']}")
    est = j["error_estimate"]
    for key, ref in truth.items():
        got = j[key]
        if got is None or est.get(key) is None:
            check(False, f"{name}: {key} {got!r}, estimate {est.get(key)!r}")
            continue
        scale = max(abs(ref), 1.0) if key == "dphi" else abs(ref)
        err = abs(got - ref)
        check(err <= PROMISE * scale,
              f"{name}: {key} {got!r} vs {ref!r}: error {err / scale:.3g}")
        check(err <= est[key], f"{name}: {key} error {err:.3g} above its "
              f"estimate {est[key]!r}")


def energy(j, w, v):
    t = j["tensor"]
    return 0.5 * (t["J"] * w * w + t["M"] * v * v - 2 * t["L2"] * w * v)


def test_energies():
    """The seed case over the accepted energies, ends included: the closed
    form does not depend on the energy."""
    _, seed = point()
    an = seed["analytic"]
    truth = {"d": an["d"], "dphi": an["dphi"],
             "blade_force_max": an["blade_force_max"]}
    h1 = energy(seed, 1.5, 1.0)
    for H in (1e-200, 1e-150, 1e14, 1e120, 1e200, 3.2e126):
        s = math.sqrt(H / h1) * (1 - 1e-15 if H == 1e200 else 1)
        s = s * (1 + 1e-15) if H == 1e-200 else s
        _, j = point("--omega0", repr(1.5 * s), "--v0", repr(s))
        judge(f"energy {H:g}", j, truth)
    for H in (1.01e200, 0.99e-200):
        s = math.sqrt(H / h1)
        p, _ = point("--omega0", repr(1.5 * s), "--v0", repr(s))
        check(p.returncode == 2 and "initial energy" in p.stderr,
              f"energy {H:g}: exit {p.returncode} {p.stderr!r}")


def test_masses():
    """The lightest and the heaviest bodies against the same body at unit
    scale; beyond the ends a refusal naming the remedy."""
    base = ["--m", "2", "--I0", "1", "--rho", "2", "--omega0", "1.5",
            "--v0", "1"]
    _, unit = point(*base)
    an = unit["analytic"]
    truth = {"d": an["d"], "dphi": an["dphi"],
             "blade_force_max": an["blade_force_max"]}
    for mu, speed in ((1e-289, 1e144), (1e-90, 1), (1e90, 1e-45),
                      (1e300, 1e-150)):
        args = ["--m", repr(2 * mu), "--I0", repr(mu), "--rho", repr(2 * mu),
                "--omega0", repr(1.5 * speed), "--v0", repr(speed)]
        _, j = point(*args)
        judge(f"mass x {mu:g}", j, truth)
    # The heaviest body: m = DBL_MAX with a = 0.2 (J = 0.04 m); the fluid
    # and I0 vanish beside it, so dphi = pi sqrt(D) / |L1| = pi.
    _, j = point("--m", "1.7976931348623157e308", "--omega0", "1.5e-150",
                 "--v0", "1e-150")
    check(j and j["regime"] == "line_to_line" and j["converged"] and
          abs(abs(j["dphi"]) - math.pi) <= PROMISE * math.pi and
          abs(abs(j["dphi"]) - math.pi) <= j["error_estimate"]["dphi"],
          f"m = DBL_MAX: {j and (j['regime'], j['dphi'], j['flags'])}")
    for args, word in ((["--m", "1e-300", "--I0", "1e-300", "--rho",
                         "1e-300"], "multiply m, I0 and rho"),
                       (["--m", "1.7976931348623157e308", "--a", "2"],
                        "overflows")):
        p, _ = point(*args)
        check(p.returncode == 2 and word in p.stderr and p.stdout == "",
              f"{args}: exit {p.returncode} {p.stderr!r}")


def test_near_line():
    """Near line-to-line, some 258 loops: the stopping tolerance's share
    of the error is estimated and driven below rtol."""
    _, j = point("--theta", "1.5707963", "--a", "0.2", "--b", "2.5", "--A",
                 "4", "--B", "0.02", "--m", "1", "--I0", "0.5", "--rho", "1",
                 "--omega0", "-0.3", "--v0", "0.8")
    an = j["analytic"]
    check(j["loops"] == an["loops"] >= 200, f"loops {j['loops']}")
    judge("near line-to-line", j, {"d": an["d"], "dphi": an["dphi"],
                                   "blade_force_max": an["blade_force_max"]})


def test_refused_and_flagged():
    """theta at the ends of [-720deg, 720deg] and beyond; a body whose
    transition rate leaves the double range is flagged, with NaN results."""
    _, zero = point("--theta", "0")
    for t in ("720deg", "-720deg", "4pi"):
        _, j = point("--theta", t)
        check(j and j["d"] == zero["d"] and j["dphi"] == zero["dphi"],
              f"--theta {t}: {j and j['dphi']} vs {zero['dphi']}")
    for t in ("1e300deg", "720.001deg", "-12.6rad"):
        p, _ = point("--theta", t)
        check(p.returncode == 2 and "--theta" in p.stderr and
              "720deg" in p.stderr and p.stdout == "",
              f"--theta {t}: exit {p.returncode} {p.stderr!r}")
    _, j = point("--zero-tol", "0", "--theta", "0", "--a", "1e-170")
    check(j and not j["converged"] and j["flags"] & 4 and j["d"] is None and
          j["dphi"] is None, f"unresolvable rate: {j and j['flags']}")


SWEEP = """[body]
m = {m}
I0 = {I0}
rho = {rho}
[grid]
theta = 30deg, 60deg, 120deg
a = 0.2
b = 0, 0.4
A = 0.5
B = 0.3
[ensemble]
trajectories = 4
energy = {energy}
[output]
file = {out}
"""


def test_sweep():
    """A sweep of a heavy fluid at energies 1e-200 and 1e200: every point
    converged, unflagged, within the promise and its estimates; the blade
    force with its estimate (blade_force_error)."""
    with tempfile.TemporaryDirectory() as tmp:
        for energy_, rho in ((1e200, 1000), (1e-200, 1000)):
            out = os.path.join(tmp, f"s{energy_:g}.h5")
            cfg = os.path.join(tmp, f"s{energy_:g}.ini")
            with open(cfg, "w") as f:
                f.write(SWEEP.format(m=1, I0=0.5, rho=rho, energy=energy_,
                                     out=out))
            r = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "1", EXE,
                                "run", "--quiet", cfg], env=ENV,
                               capture_output=True, text=True)
            check(r.returncode == 0, f"sweep {energy_:g}: {r.stderr}")
            if r.returncode != 0:
                continue
            with h5py.File(out, "r") as f:
                g = {k: f[k][()] for k in f if k != "segments" and
                     isinstance(f[k], h5py.Dataset)}
            name = f"sweep energy {energy_:g}"
            check(np.all(g["flags"] == 0) and
                  np.all(g["converged_fraction"] == 1),
                  f"{name}: flags {g['flags'].ravel()}")
            for meas, ana, err in (
                    ("center_spacing", "analytic_center_spacing",
                     "center_spacing_error"),
                    ("transition_angle", "analytic_transition_angle",
                     "transition_angle_error"),
                    ("blade_force_max", "analytic_blade_force_max",
                     "blade_force_error")):
                e = np.abs(g[meas] - g[ana])
                scale = np.abs(g[ana])
                if meas == "transition_angle":
                    scale = np.maximum(scale, 1.0)
                check(np.all(e <= PROMISE * scale),
                      f"{name}: {meas} error {np.max(e / scale):.3g}")
                bound = g.get(err, np.full_like(e, np.nan))
                check(np.all(e <= bound), f"{name}: {meas} error above "
                      f"{err}: {np.max(e - bound):.3g}")


def main():
    test_energies()
    test_masses()
    test_near_line()
    test_refused_and_flagged()
    test_sweep()
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
