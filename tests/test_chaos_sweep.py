#!/usr/bin/python3
"""[refine] classes = chaos in a sweep (docs/refine.md): the class reads
lyapunov_max and lyapunov_max_error back from the file. A 2 x 2 grid over
(drag_w, drag_v) through 0 under a sine torque: the drag-free corner
accelerates (no exponent: NaN), the three others are damped cycles whose
largest exponent is negative far beyond 3 times its error (class -1).
So the two edges from the corner are listed unresolved, indicator
lyapunov_max, reason end_without_class, their other end's class -1; no
crossing is located (no edge has both ends separated on either side of
zero), and the edges between cycles are not listed at all.
Usage: test_chaos_sweep.py SLEIGHSWEEP"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = sys.argv[1]
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
torque_amp = 0.3
[grid]
theta = 60deg
a = 0.2
A = 0.5
B = 0.3
forcing_freq = 2
drag_w = 0, 0.3
drag_v = 0, 0.5
[ensemble]
trajectories = 2
[output]
file = {out}
[refine]
classes = chaos
"""


def names(ds):
    a = ds.attrs
    m = a["flag_meanings"]
    m = m.decode() if isinstance(m, bytes) else str(m)
    return dict(zip([int(v) for v in a["flag_values"]], m.split()))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "chaos.h5")
        cfg = os.path.join(tmp, "chaos.ini")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(out=out))
        r = subprocess.run([EXE, "run", "--quiet", cfg], env=ENV,
                           capture_output=True, text=True)
        check(r.returncode == 0, f"run: {r.returncode} {r.stderr}")
        if r.returncode != 0:
            return exit_status()
        with h5py.File(out, "r") as f:
            lam = f["lyapunov_max"][...].reshape(-1)
            err = f["lyapunov_max_error"][...].reshape(-1)
            att = names(f["attractor"])
            kind = [att[int(v)] for v in f["attractor"][...].reshape(-1)]
            g = f["boundaries"]
            ind = names(g["unresolved_indicator"])
            why = names(g["unresolved_reason"])
            unres = [(int(lo), ind[int(i)], why[int(w)], int(c))
                     for lo, i, w, c in zip(g["unresolved_point_lo"][...],
                                            g["unresolved_indicator"][...],
                                            g["unresolved_reason"][...],
                                            g["unresolved_class_hi"][...])]
            ncross = g["crossing"].size
    check(kind == ["accelerating", "periodic", "periodic", "periodic"],
          f"attractors {kind}")
    check(np.isnan(lam[0]) and all(lam[1:] < -3 * err[1:]),
          f"exponents {lam} +- {err}")
    check(unres == [(0, "lyapunov_max", "end_without_class", -1)] * 2,
          f"unresolved edges {unres}")
    check(ncross == 0, f"{ncross} crossings located")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
