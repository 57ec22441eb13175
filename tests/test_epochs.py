#!/usr/bin/python3
"""Flush epochs on a sweep whose points are cheap first and up to a few
hundred times dearer at the end, on 2 ranks with a short flush_interval.
Work units sized on the cheap points used to outlast several flush
intervals once they reached the dear ones, and an epoch waited for them.

Asserted in the suite: the file is bit for bit that of a 1-rank run
(scheduling never changes results), and the epochs were logged. Measured
and printed, asserted only with --assert-timing (a measurement for an idle
machine, not a test: no test asserts a timing, so a loaded machine cannot
fail the suite): no gap between two epochs exceeds 2 x flush_interval + the
dearest point.

Usage: test_epochs.py SLEIGHSWEEP [mpiexec] [--assert-timing]
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, differing, exit_status  # noqa: E402

ARGS = [a for a in sys.argv[1:] if a != "--assert-timing"]
TIMING = "--assert-timing" in sys.argv[1:]
EXE = ARGS[0]
MPIEXEC = ARGS[1] if len(ARGS) > 1 else "mpirun"
FLUSH = 0.5

# a = 0.001, B about 0.01: some 3 thousand steps per trajectory at theta =
# 20-35 deg, over 0.1 million at 89 deg (the adaptive default scheme). theta
# is the slowest axis: 4 x 240 cheap points, then 240 dear ones.
THETAS = "20deg, 25deg, 30deg, 35deg, 89deg"
BS = "linspace(0.005, 0.02, 240)"


def config(tmp, name, thetas, bs=BS):
    path = os.path.join(tmp, name + ".ini")
    with open(path, "w") as f:
        f.write(f"""[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = {thetas}
a = 0.001
b = 0
A = 1
B = {bs}
[ensemble]
trajectories = 8
seed = 3
[output]
file = {os.path.join(tmp, name + ".h5")}
flush_interval = {FLUSH}
[run]
progress_interval = 100
""")
    return path, os.path.join(tmp, name + ".h5")


def run(ranks, cfg, log_epochs=False):
    env = dict(ENV, SSW_LOG_EPOCHS="1" if log_epochs else "0")
    return subprocess.run([MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE,
                           "run", cfg], env=env, capture_output=True,
                          text=True, timeout=600)


with tempfile.TemporaryDirectory() as tmp:
    # The dearest point alone, with the start-up of a run (an upper bound).
    one, _ = config(tmp, "dearest", "89deg", "0.02")
    t0 = time.monotonic()
    r = run(1, one)
    dearest = time.monotonic() - t0
    check(r.returncode == 0, f"dearest point: {r.returncode} {r.stderr}")

    cfg, out = config(tmp, "sweep", THETAS)
    t0 = time.monotonic()
    r = run(2, cfg, log_epochs=True)
    wall = time.monotonic() - t0
    check(r.returncode == 0, f"2 ranks: {r.returncode} {r.stderr}")
    at = [float(m) for m in re.findall(r"sleighsweep: epoch \d+ at ([0-9.]+)"
                                       r" s:", r.stderr)]
    gaps = [b - a for a, b in zip([0.0] + at, at)]
    bound = 2 * FLUSH + dearest
    print(f"epochs at {at}; largest gap {max(gaps, default=0):.3f} s, "
          f"bound {bound:.3f} s; wall {wall:.1f} s", file=sys.stderr)
    check(len(at) >= 1, f"no epoch logged: {r.stderr[-500:]}")
    late = [round(g, 3) for g in gaps if g > bound]
    print(f"epoch interval: {'ok' if not late else 'late ' + str(late)} "
          f"(bound {bound:.3f} s = 2 x {FLUSH} + the dearest point)",
          file=sys.stderr)
    if TIMING:
        check(len(at) >= 3, f"too few epochs: {at}")
        check(not late, f"an epoch came late: gaps {late} > {bound:.3f} s")

    ref_cfg, ref = config(tmp, "ref", THETAS)
    r = run(1, ref_cfg)
    check(r.returncode == 0, f"1 rank: {r.returncode} {r.stderr}")
    diff = [d for d in differing(ref, out) if d not in ("segments",)]
    check(not diff, f"2 ranks differ from 1 rank in {diff}")
sys.exit(exit_status())
