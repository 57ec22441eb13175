"""[refine] points (docs/refine.md, "Measurements at the crossings"): every
crossing of /boundaries gets the grid-point pipeline's full measurements
at its position, as crossing_<name> along `crossing`. Checked: a loop
crossing's measured transition angle is the closed form's at the same
point (the file's point_analytic_transition_angle) to 1e-8 relative and
lies within 1e-4 turn of its level (the position is within tol = 1e-6 of
the crossing; the slopes here are below 100 turns per unit); a drift
crossing's heading per period is within 1e-4 turn of 2 pi n and its
closed form's to 1e-8; the datasets are the same bytes on 1 and 2 ranks;
without the key none are written.
Usage: test_refine_points.py SLEIGHSWEEP MPIEXEC"""
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
LOOPS = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = linspace(5deg, 175deg, 8)
a = linspace(-0.3, 0.5, 3)
A = 0.5
B = 0.3
[refine]
classes = loops
"""
DRIFT = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 60deg
a = 0.2
r = 0.2
A = 0.5
B = 0.3
Gamma = 2, 3
energy = linspace(0.15, 0.95, 5)
[refine]
classes = drift
"""


def run(tmp, name, text, ranks):
    cfg = os.path.join(tmp, name + ".ini")
    out = os.path.join(tmp, name + ".h5")
    with open(cfg, "w") as f:
        f.write(text + f"[output]\nfile = {out}\n")
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE,
                        "run", cfg], text=True, capture_output=True, env=ENV,
                       timeout=300)
    check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr}")
    return out


def points(path):
    with h5py.File(path, "r") as f:
        g = f["boundaries"]
        return {k: g[k][()] for k in g if k.startswith("crossing_")}, \
            g["level"][()], int(g.attrs["points"])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        plain = run(tmp, "plain", LOOPS, 1)
        p, _, flag = points(plain)
        check(not p and flag == 0, f"points without the key: {sorted(p)}")
        one = run(tmp, "one", LOOPS + "points = yes\n", 1)
        two = run(tmp, "two", LOOPS + "points = yes\n", 2)
        p1, level, flag = points(one)
        p2, _, _ = points(two)
        check(flag == 1 and len(level) > 5, f"{len(level)} crossings")
        check("crossing_transition_angle" in p1 and "crossing_done" not in p1,
              f"datasets {sorted(p1)[:5]}...")
        for k in p1:
            check(p1[k].tobytes() == p2[k].tobytes(),
                  f"{k} differs between 1 and 2 ranks")
        turns = p1["crossing_transition_angle"] / (2 * math.pi)
        exact = p1["crossing_analytic_transition_angle"] / (2 * math.pi)
        check(np.all(np.abs(turns - exact) <= 1e-8 * exact),
              f"transition angle off the closed form by "
              f"{np.max(np.abs(turns - exact) / exact):.3g}")
        check(np.all(np.abs(turns - level) <= 1e-4),
              f"turns at the crossings {turns} for levels {level}")
        drift = run(tmp, "drift", DRIFT + "points = yes\n", 2)
        loops = np.max(np.abs(turns - level))
        p, level, _ = points(drift)
        n = np.abs(p["crossing_heading_per_period"]) / (2 * math.pi)
        exact = np.abs(p["crossing_analytic_heading_per_period"])
        exact /= 2 * math.pi
        check(len(level) >= 2, f"{len(level)} drift crossings")
        check(np.all(np.abs(n - exact) <= 1e-8 * exact),
              f"heading per period off the closed form: {n} vs {exact}")
        check(np.all(np.abs(n - level) <= 1e-4),
              f"heading per period {n} at drift levels {level}")
        print(f"{len(turns)} loop crossings: largest |turns - level| "
              f"{loops:.3g}; {len(level)} drift "
              f"crossings: largest |Delta_phi / 2 pi - n| "
              f"{np.max(np.abs(n - level)):.3g}")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
