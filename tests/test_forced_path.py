#!/usr/bin/python3
"""`point --trajectory` under forcing (docs/output.md, "The forced path"):
the CSV's layout (the unforced columns, the exact ones NaN, x_avg, y_avg on
the rows closing a period; the periods ssw_forced_path_periods promises)
and exact identities between the written path and the JSON beside it:

- on a cycle (sine torque with drag; a moving mass): the heading's change
  over the last cycle / its time = mean_omega, the trapezoid sum of v
  over it / its time = mean_v, each within the JSON's error estimate plus
  what is left of the transient (transient_remainder |mu_1|^m after m more
  periods, docs/theory/forcing.md "Error estimates"); the last cycle is
  the one before it moved by one rigid motion (rotation by the heading's
  change: the body-frame motion repeats, exact up to round-off, 1e-11 of
  the cycle's displacement); the displacement over the cycle equals
  Simpson's rule of v (cos phi, sin phi) over the nodes within twice
  Simpson's own change from step 2h to h (the scheme's error is far
  below); x_avg, y_avg are the end-corrected trapezoid sums of x, y over
  their period (round-off, 1e-12 of the extent);
- kicks: two rows at each section, the impulse's work between them
  I (w- + w+) / 2 exactly (1e-13 of H);
- growth without drag: the period averages of the CSV's H (corrected
  trapezoid, dH/dt = tau w) fitted as the extractor fits them give the
  JSON's energy_growth_slope to 1e-12 (the same nodes, bit for bit);
- the first row is the initial state at the origin, the JSON's H0.

Usage: test_forced_path.py SLEIGHSWEEP"""
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from sswtest import ENV, check, exit_status  # noqa: E402
from sleighsweep.gallery_forced import growth_law  # noqa: E402
from sleighsweep.sweep import read_csv  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
DRAG = ["--drag-w", "0.3", "--drag-v", "0.5", "--drag-wv", "0.05"]
HEAD = ("t,phi,x,y,omega,v,H,phi_exact,x_exact,y_exact,omega_exact,v_exact,"
        "x_avg,y_avg")
GROWTH_PERIODS = 512  # SSW_FORCED_GROWTH_PERIODS (forced.h)
CYCLES_MIN, PATH_PERIODS = 8, 1024  # ssw_forced_path_periods (forced.h)


def run(tmp, name, *args):
    csv = os.path.join(tmp, name + ".csv")
    p = subprocess.run([EXE, "point", *args, "--trajectory", csv],
                       capture_output=True, text=True, env=ENV)
    check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr}")
    if p.returncode != 0:
        return None, None
    with open(csv) as fh:
        check(fh.readline().strip() == HEAD, f"{name}: header")
    return read_csv(csv), json.loads(p.stdout)


def layout(name, c, j, kicks):
    """Rows: the initial one, then N per period (N + 1 with kicks); the
    exact columns NaN; x_avg, y_avg finite on the section rows only."""
    N, T = j["steps_per_period"], j["forcing"]["period"]
    per = N + 1 if kicks else N
    K = (len(c["t"]) - 1) // per
    check((len(c["t"]) - 1) % per == 0, f"{name}: {len(c['t'])} rows are "
          f"not 1 + whole periods of {per}")
    for q in ("phi_exact", "x_exact", "y_exact", "omega_exact", "v_exact"):
        check(np.all(np.isnan(c[q])), f"{name}: {q} not NaN")
    sec = np.arange(1, K + 1) * per
    has = np.isfinite(c["x_avg"]) & np.isfinite(c["y_avg"])
    check(np.array_equal(np.flatnonzero(has), sec), f"{name}: x_avg, y_avg "
          "not on exactly the section rows")
    check(np.max(np.abs(c["t"][sec] / (np.arange(1, K + 1) * T) - 1))
          < 1e-14, f"{name}: section rows not at t = kT")
    first = [c[q][0] for q in ("t", "phi", "x", "y", "omega", "v")]
    p = j["params"]
    check(first == [0, 0, 0, 0, p["omega0"], p["v0"]],
          f"{name}: first row {first}")
    if "mass_p" not in j["forcing"]:  # H0 is the energy without the mass
        check(abs(c["H"][0] - j["H0"]) <= 1e-15 * j["H0"],
              f"{name}: first row's H {c['H'][0]} vs H0 {j['H0']}")
    return K, per


def want_periods(j):
    """ssw_forced_path_periods' rule for a periodic trajectory."""
    n, T = j["cycle_periods"], j["forcing"]["period"]
    mu, rem = j["floquet_abs"][0], j["transient_remainder"]
    want = math.ceil(math.log(1e-13 / rem) / math.log(mu) / n) + 1 \
        if rem > 1e-13 and 0 < mu < 1 else 1
    if j["mean_omega"] != 0:
        want = max(want, math.ceil(2 * math.pi / (abs(j["mean_omega"]) *
                                                  n * T)))
    cycles = CYCLES_MIN if want <= CYCLES_MIN else \
        min(want, PATH_PERIODS // n)
    return j["transient_periods"] + cycles * n


def corrected_sum(f, h):
    """The trapezoid sum of node values f with the Euler-Maclaurin end
    correction, f' at the ends by one-sided differences of O(h^3)."""
    d0 = (-11 * f[0] + 18 * f[1] - 9 * f[2] + 2 * f[3]) / (6 * h)
    d1 = (11 * f[-1] - 18 * f[-2] + 9 * f[-3] - 2 * f[-4]) / (6 * h)
    return h * (f.sum() - 0.5 * (f[0] + f[-1])) - h * h / 12 * (d1 - d0)


def cycle_checks(name, c, j, kicks=False):
    K, per = layout(name, c, j, kicks)
    check(K == want_periods(j), f"{name}: {K} periods, expected "
          f"{want_periods(j)}")
    n, N, T = j["cycle_periods"], j["steps_per_period"], \
        j["forcing"]["period"]
    h, err = T / N, j["error_estimate"]
    # what the transient leaves after the periods past it
    m = K - j["transient_periods"] - n
    left = j["transient_remainder"] * j["floquet_abs"][0] ** m
    H = j["H0"] if kicks else float(np.mean(c["H"][-per:]))
    wsc = max(abs(j["mean_omega"]), math.sqrt(2 * H / j["tensor"]["J"]))
    vsc = max(abs(j["mean_v"]), math.sqrt(2 * H / j["tensor"]["M"]))
    k1, k0 = K * per, (K - n) * per
    rows = slice(k0 + (1 if kicks else 0), k1 + 1)  # after the kick
    dphi = c["phi"][k1] - c["phi"][k0]
    d = abs(dphi / (n * T) - j["mean_omega"])
    check(d <= err["mean_omega"] + left * wsc, f"{name}: the path's mean "
          f"heading rate differs from mean_omega by {d:.3g} (estimate "
          f"{err['mean_omega']:.3g}, transient {left * wsc:.3g})")
    # the integral of v over the cycle's periods (v is not smooth across
    # a kick: each period's own corrected sum), at h and 2h
    q1 = q2 = 0.0
    for k in range(K - n, K):
        v = c["v"][k * per + (1 if kicks else 0):(k + 1) * per + 1]
        q1, q2 = q1 + corrected_sum(v, h), q2 + corrected_sum(v[::2], 2 * h)
    dv = abs(q1 / (n * T) - j["mean_v"])
    quad = 2 * abs(q1 - q2) / (n * T)
    check(dv <= err["mean_v"] + left * vsc + quad, f"{name}: the path's "
          f"mean speed differs from mean_v by {dv:.3g} (estimate "
          f"{err['mean_v']:.3g}, quadrature {quad:.3g})")
    # one rigid motion maps the cycle before the last onto the last
    z = c["x"] + 1j * c["y"]
    a, b = z[k0 - n * per:k0 + 1], z[k0:k1 + 1]
    rot = np.exp(1j * (c["phi"][k0] - c["phi"][k0 - n * per]))
    res = np.max(np.abs(b - rot * a - np.mean(b - rot * a)))
    chord = abs(b[-1] - b[0])
    check(res <= 1e-11 * chord, f"{name}: the last cycle is not the one "
          f"before moved rigidly ({res:.3g} of {chord:.3g})")
    if not kicks:  # Simpson over the smooth cycle
        f = c["v"][rows] * np.exp(1j * c["phi"][rows])

        def simpson(g, hh):
            return hh / 3 * (g[0] + g[-1] + 4 * g[1:-1:2].sum() +
                             2 * g[2:-1:2].sum())
        s1, s2 = simpson(f, h), simpson(f[::2], 2 * h)
        d = abs(b[-1] - b[0] - s1)
        check(d <= 2 * abs(s1 - s2), f"{name}: the displacement over the "
              f"cycle differs from Simpson's integral of v e^(i phi) by "
              f"{d:.3g} (Simpson's own change {abs(s1 - s2):.3g})")
    # x_avg, y_avg: the corrected trapezoid over each period
    ext = max(np.ptp(c["x"]), np.ptp(c["y"]))
    worst = 0.0
    for k in range(K):
        r = slice(k * per + (1 if kicks else 0), (k + 1) * per + 1)
        for q, trig in (("x", np.cos), ("y", np.sin)):
            x, dx = c[q][r], c["v"][r] * trig(c["phi"][r])
            avg = (h * (x.sum() - 0.5 * (x[0] + x[-1])) -
                   h * h / 12 * (dx[-1] - dx[0])) / T
            worst = max(worst, abs(avg - c[q + "_avg"][(k + 1) * per]))
    check(worst <= 1e-12 * ext, f"{name}: x_avg, y_avg differ from the "
          f"corrected trapezoid sums by {worst:.3g}")
    print(f"{name}: {K} periods ({j['transient_periods']} of transient, "
          f"cycle of {n}, N = {N}); mean_omega, mean_v from the path off "
          f"by {abs(dphi / (n * T) - j['mean_omega']):.2g}, {dv:.2g}; "
          f"rigid motion {res / chord:.2g} of the chord")
    return K


def growth_checks(name, c, j):
    """The CSV's period averages of H give the JSON's growth slope."""
    K, per = layout(name, c, j, False)
    check(j["attractor"] == "accelerating" and K == GROWTH_PERIODS,
          f"{name}: {j['attractor']}, {K} periods")
    # the period averages and the extractor's fit, as the gallery draws
    # them (gallery_forced.growth_law)
    slope = growth_law(c, j)["slope"]
    d = abs(slope / j["energy_growth_slope"] - 1)
    check(d <= 1e-12, f"{name}: the CSV's growth slope {slope!r} vs the "
          f"JSON's {j['energy_growth_slope']!r} ({d:.3g})")
    print(f"{name}: the CSV's growth slope {slope:.12g}, relative {d:.2g} "
          "from the JSON's")


with tempfile.TemporaryDirectory() as tmp:
    torque = ["--forcing-freq", "2", "--torque-amp", "0.3"] + DRAG
    c, j = run(tmp, "sine", *torque)
    if c is not None:
        check(j["attractor"] == "periodic", f"sine: {j['attractor']}")
        K = cycle_checks("sine", c, j)
        check(K > j["transient_periods"] + CYCLES_MIN, "sine: the path "
              "should run one turn of the mean heading, > 8 cycles")
    c, j = run(tmp, "mass", "--forcing-freq", "2", "--mass-p", "0.3",
               "--mass-x", "0.5", "--mass-amp", "0.2", *DRAG)
    if c is not None:
        cycle_checks("mass", c, j)
    c, j = run(tmp, "kicks", *torque, "--forcing-shape", "kicks")
    if c is not None:
        cycle_checks("kicks", c, j, kicks=True)
        per = j["steps_per_period"] + 1
        k = np.arange(per, len(c["t"]) - 1, per)  # the section rows
        imp = j["forcing"]["torque_amp"]
        work = imp * 0.5 * (c["omega"][k] + c["omega"][k + 1])
        d = np.max(np.abs(c["H"][k + 1] - c["H"][k] - work) / c["H"][k])
        check(np.all(c["t"][k + 1] == c["t"][k]) and d <= 1e-13,
              f"kicks: the rows around each kick ({d:.3g} from its work)")
    c, j = run(tmp, "growth", "--forcing-freq", "2", "--torque-amp", "0.2",
               "--omega0", "0", "--v0", "0")
    if c is not None:
        growth_checks("growth", c, j)

sys.exit(exit_status())
