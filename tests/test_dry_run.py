"""`run --dry-run`'s cost estimate against a real run:
the estimated steps per trajectory are deterministic (the same on every
invocation) and within a factor 1.5 of the run's mean `steps_mean`
(jobs/README.md states that factor), for the adaptive default and a fixed
step; and the estimated output size within 10% of the file the run
writes (with all sample points, and with sample_points = none).
Usage: test_dry_run.py SLEIGHSWEEP MPIEXEC"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTOR = 1.5
SIZE_TOL = 0.10  # the dry run's output size against the real file


def estimate(cfg):
    # Through mpirun: a singleton Open MPI process crashes LeakSanitizer's
    # tracer at exit under scripts/sanitize.sh.
    p = subprocess.run([MPIEXEC, "-np", "1", EXE, "run", "--dry-run", cfg],
                       env=ENV, text=True, capture_output=True, timeout=300)
    check(p.returncode == 0, f"dry run: {p.returncode} {p.stderr}")
    m = re.search(r"steps per traj\.:\s+([0-9.]+) \+- ([0-9.]+)", p.stdout)
    check(m is not None, f"no estimate in {p.stdout!r}")
    size = re.search(r"output size:\s+([0-9.e+]+) MB", p.stdout)
    check(size is not None, f"no output size in {p.stdout!r}")
    return ((float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0),
            float(size.group(1)) * 1e6 if size else 0.0)


with tempfile.TemporaryDirectory() as tmp:
    for name, extra, points in (("adaptive", "", "all"),
                                ("fixed", "[integrator]\neta = 0.8\n",
                                 "none")):
        cfg = os.path.join(tmp, name + ".ini")
        with open(os.path.join(ROOT, "jobs", "examples", "small_7d.ini")) as f:
            text = f.read()
        text = text.replace("[output]\n",
                            f"[output]\nsample_points = {points}\n")
        with open(cfg, "w") as f:
            f.write(text + "\n" + extra)
        (first, spread), size = estimate(cfg)
        (again, _), _ = estimate(cfg)
        check(first == again, f"{name}: estimate changed {first} -> {again}")
        p = subprocess.run([MPIEXEC, "-np", "2", EXE, "run", "--quiet", cfg],
                           env=ENV, text=True, capture_output=True,
                           timeout=600)
        check(p.returncode == 0, f"{name} run: {p.returncode} {p.stderr}")
        with h5py.File(os.path.join(tmp, name + ".h5"), "r") as f:
            measured = float(np.mean(f["steps_mean"][()]))
        ratio = first / measured
        print(f"{name}: estimated {first:.0f} +- {spread:.0f} steps per "
              f"trajectory, measured {measured:.0f} (ratio {ratio:.3f})")
        check(1 / FACTOR <= ratio <= FACTOR,
              f"{name}: estimate {first:.0f} vs measured {measured:.0f}")
        real = os.path.getsize(os.path.join(tmp, name + ".h5"))
        print(f"{name} (sample_points = {points}): estimated size "
              f"{size:.4g} B, file {real} B (ratio {size / real:.3f})")
        check(abs(size / real - 1) <= SIZE_TOL,
              f"{name}: size estimate {size:.4g} vs file {real}")
sys.exit(exit_status())
