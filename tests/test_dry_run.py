"""`run --dry-run`'s cost estimate against a real run:
the estimated steps per trajectory are deterministic (the same on every
invocation) and within a factor 1.5 of the run's mean `steps_mean`
(jobs/README.md states that factor), for the adaptive default and a fixed
step; the estimated output size within 10% of the file the run
writes (with all sample points, and with sample_points = none); and a
2^31-point grid's dry run is quick. Usage: test_dry_run.py SLEIGHSWEEP
MPIEXEC"""
import os
import re
import subprocess
import sys
import tempfile
import time

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


def huge_grid(tmp):
    """The dry run of a 2^31-point grid is quick (it took
    92 s checking every point): it checks a sub-grid and says so, and a bad
    point it finds is reported as the run would report it."""
    cfg = os.path.join(tmp, "huge.ini")
    grid = ("[grid]\ntheta = linspace(1deg, 179deg, 2048)\n"
            "a = linspace(0.1, 0.5, 1024)\nb = linspace(0, 0.1, 1024)\n"
            "A = 0.5\nB = 0.3\n")
    with open(cfg, "w") as f:
        f.write("[body]\nm = 1\nI0 = 0.5\nrho = 1\n" + grid)
    t0 = time.time()
    p = subprocess.run([MPIEXEC, "-np", "1", EXE, "run", "--dry-run", cfg],
                       env=ENV, text=True, capture_output=True, timeout=300)
    took = time.time() - t0
    print(f"dry run of 2^31 points: {took:.1f} s")
    # Its time is printed, not asserted (no test asserts a timing: a loaded
    # machine must not fail the suite); about 5 s alone on the test VM.
    check(p.returncode == 0 and "grid check:          " in
          p.stdout and "of 2147483648 points valid" in p.stdout,
          f"2^31-point dry run: {p.returncode} in {took:.1f} s: "
          f"{p.stdout[-600:]} {p.stderr[-300:]}")
    # I0 = 0 and rho = 0 with the centre of mass on the blade's normal
    # (a = 0.1 .. 0.5, b = 0: D = m^2 a^2 > 0 except at a = 0)
    bad = os.path.join(tmp, "huge_bad.ini")
    with open(bad, "w") as f:
        f.write("[body]\nm = 1\nI0 = 0\nrho = 0\n" +
                grid.replace("linspace(0.1, 0.5, 1024)",
                             "linspace(0, 0.5, 1024)"))
    p = subprocess.run([MPIEXEC, "-np", "1", EXE, "run", "--dry-run", bad],
                       env=ENV, text=True, capture_output=True, timeout=300)
    check(p.returncode == 2 and "grid point 0 (" in p.stderr and
          "huge_bad.ini:" in p.stderr,
          f"2^31-point dry run, bad point: {p.returncode} {p.stderr[-400:]}")


with tempfile.TemporaryDirectory() as tmp:
    huge_grid(tmp)
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
