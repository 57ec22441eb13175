#!/usr/bin/python3
"""What `status` and a rerun say of files left by runs that did not end
well, each built here to exact values:
- a points_total that does not read as a count (NaN: a file caught between
  two writes) is named as such, not printed as 9223372036854775808;
- a killed run (status "running", no lock held, start_time 100 s before
  its last write) shows the rate over those 100 s (48 points: 0.48/s),
  whatever the clock says, and no ETA ("not running: no ETA");
- a run killed mid-grid (SIGKILL to its ranks once their journals hold
  points) and rerun: every point is in some /segments row (the killed
  run's recovered points in a row with omp_threads 0, "ended without
  saving" in history), points_computed summing to the grid's 48;
- a run stopped by SIGTERM to a rank prints the lines the README quotes
  and exits 3.

Usage: test_status_cases.py SLEIGHSWEEP MPIEXEC
"""
import calendar
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status, ranks_of  # noqa: E402

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = linspace(5deg, 175deg, 8)
a = linspace(-0.3, 0.5, 3)
A = 0.5
B = 0.3, 0.35
[ensemble]
trajectories = {traj}
initial = lattice
[output]
file = {out}
[run]
work_unit = 1
"""


def status(out, *opts):
    return subprocess.run([EXE, "status", *opts, out], capture_output=True,
                          text=True, env=ENV, timeout=60)


def nan_total(ref, tmp):
    out = os.path.join(tmp, "nan.h5")
    shutil.copy(ref, out)
    with h5py.File(out, "a") as f:
        f.attrs["points_total"] = np.float64("nan")
    r = status(out)
    check(r.returncode == 1 and "is not a sleighsweep output (its "
          "points_total attribute is missing or not a count)" in r.stderr
          and "9223372036854775808" not in r.stderr,
          f"NaN points_total: {r.returncode} {r.stderr!r}")


def killed_rate(ref, tmp):
    out = os.path.join(tmp, "dead.h5")
    shutil.copy(ref, out)
    with h5py.File(out, "a") as f:
        f.attrs["status"] = np.bytes_("running")
        f.attrs["start_time"] = np.bytes_("2026-01-01T00:00:00Z")
        del f.attrs["end_time"]
    t0 = calendar.timegm(time.strptime("2026-01-01T00:00:00Z",
                                       "%Y-%m-%dT%H:%M:%SZ"))
    os.utime(out, (t0 + 100, t0 + 100))
    r = status(out, "--json")
    js = json.loads(r.stdout) if r.returncode == 0 else {}
    check(js.get("rate_points_per_s") is not None and
          abs(js["rate_points_per_s"] - 0.48) < 1e-9 and
          js.get("eta_s", 0) is None and js.get("elapsed_s") == 100,
          f"killed run: rate, ETA, elapsed: {r.stdout!r}")
    r = status(out)
    check("0.48 points/s over 1m40s, until its last write (not running: no "
          "ETA)" in r.stdout, f"killed run, text: {r.stdout!r}")


def records(out):
    return sum(open(j, "rb").read().count(b"SSWREC0")
               for j in glob.glob(out + ".journal.*"))


def lost_segment(tmp):
    out = os.path.join(tmp, "lost.h5")
    cfg = os.path.join(tmp, "lost.ini")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(out=out, traj=400))
    cmd = [MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run", cfg]
    p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    while p.poll() is None and records(out) < 6:
        time.sleep(0.005)
    for pid in ranks_of(cfg):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    p.wait(timeout=120)
    check(p.returncode != 0, "the run ended before it was killed")
    q = subprocess.run(cmd, env=ENV, capture_output=True, text=True,
                       timeout=300)
    check(q.returncode == 0, f"rerun: {q.stderr[-400:]}")
    m = re.search(r"(\d+) point\(s\) recovered", q.stderr)
    check(m and int(m[1]) >= 6, f"no points recovered: {q.stderr[-600:]}")
    with h5py.File(out, "r") as f:
        seg = f["segments"]
        computed = seg["points_computed"][()]
        threads = seg["omp_threads"][()]
        hist = f.attrs["history"]
        hist = hist.decode() if isinstance(hist, bytes) else hist
    check(int(computed.sum()) == 48, f"segments count {computed} of 48")
    check(len(threads) == 2 and threads[0] == 0 and m and
          int(computed[0]) == int(m[1]),
          f"recovered row: threads {threads}, computed {computed}")
    check(f"ended without saving, {m and m[1]} points recovered from 2 "
          "journal(s) by the next run" in hist, f"history: {hist!r}")


def stopped(tmp):
    """SIGTERM to a rank: the lines the README quotes, exit 3."""
    out = os.path.join(tmp, "stop.h5")
    cfg = os.path.join(tmp, "stop.ini")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(out=out, traj=400))
    p = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                          cfg], env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    while p.poll() is None and records(out) < 3:
        time.sleep(0.005)
    pids = ranks_of(cfg)
    if pids:
        os.kill(pids[-1], signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    check(p.returncode == 3 and re.search(
        r"signal 15 received by rank \d: no new work, saving what is "
        r"finished", err) and re.search(
        r"interrupted: \d+ of 48 points in .*; saved: run the same command "
        r"again to resume", err) and "sleighsweep run: stopped by signal 15;"
        in err, f"SIGTERM to a rank: exit {p.returncode}: {err[-800:]}")


with tempfile.TemporaryDirectory() as tmp:
    ref = os.path.join(tmp, "ref.h5")
    cfg = os.path.join(tmp, "ref.ini")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(out=ref, traj=3))
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        cfg], env=ENV, capture_output=True, text=True,
                       timeout=300)
    check(p.returncode == 0, f"reference: {p.stderr[-300:]}")
    nan_total(ref, tmp)
    killed_rate(ref, tmp)
    lost_segment(tmp)
    stopped(tmp)
sys.exit(exit_status())
