#!/usr/bin/python3
"""Work handed out ahead: every rank of an oversubscribed sweep starts with a
first unit it did not ask for, and the file is byte for byte that of a
1-rank run, whether rank 0 computes too or only schedules. A run stopped by
a signal to rank 0 alone (the other ranks told at once) and resumed on
another rank count, each rank again starting with a unit cut from the done
set, computes every point exactly once (/segments: the resume computes
exactly the points the first run left) and gives the same file.

Usage: test_sweep_first_units.py SLEIGHSWEEP [mpiexec]
"""
import os
import re
import signal
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import (ENV, check, differing, exit_status,  # noqa: E402
                     light, ranks_of)

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
POINTS = 240  # theta 8 x a 3 x b 2 x s 5


def config(tmp, name):
    """A few hundred points of a few milliseconds each (fixed small steps),
    automatic units, frequent epochs; samples at the a = 0.2 points."""
    path = os.path.join(tmp, name + ".ini")
    out = os.path.join(tmp, name + ".h5")
    with open(path, "w") as f:
        f.write(f"""[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = linspace(10deg, 170deg, 8)
a = 0, 0.2, 0.5
b = 0, 0.1
s = linspace(-0.1, 0.1, 5)
A = 0.5
B = 0.3
[ensemble]
trajectories = {light(8)}
seed = 5
[integrator]
eta = 0.05
[output]
file = {out}
samples = 1
sample_nodes = 16
sample_points = a = 0.2
flush_interval = 0.2
[run]
progress_interval = 0.05
""")
    return path, out


def run(ranks, cfg, env=None, wait=True):
    cmd = [MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE, "run", cfg]
    env = dict(ENV, SSW_LOG_SCHEDULE="1", **(env or {}))
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=env, capture_output=True, text=True,
                          timeout=600)


def schedule_line(err):
    """(rank 0 computes?, first units, their length, requests, fewest and
    most points of a computing rank) from the SSW_LOG_SCHEDULE line."""
    m = re.search(r"schedule: (\d+) rank\(s\), rank 0 (computes|only "
                  r"schedules); (\d+) first unit\(s\) of (\d+) point\(s\) "
                  r"handed out ahead; (\d+) request\(s\) taken.*; (\d+) to "
                  r"(\d+) point\(s\) per computing rank", err)
    check(m is not None, f"no schedule line: {err[-600:]}")
    if not m:
        return None
    g = m.groups()
    return (g[1] == "computes", int(g[2]), int(g[3]), int(g[4]), int(g[5]),
            int(g[6]))


def rank0_pid(cfg):
    for pid in ranks_of(cfg):
        env = open(f"/proc/{pid}/environ", errors="replace").read()
        if "OMPI_COMM_WORLD_RANK=0\0" in env + "\0":
            return pid
    return None


def case_all_start(tmp, ref, ranks, env, computes):
    """Every computing rank gets a first unit and computes at least that
    many points; the file is the 1-rank file."""
    cfg, out = config(tmp, f"first_{ranks}_{int(computes)}")
    p = run(ranks, cfg, env)
    check(p.returncode == 0, f"{ranks} ranks: exit {p.returncode}: "
          f"{p.stderr[-600:]}")
    s = schedule_line(p.stderr)
    if s:
        comp, units, length, requests, fewest, most = s
        workers = ranks if computes else ranks - 1
        print(f"{ranks} ranks, rank 0 computes {comp}: {units} first units "
              f"of {length}, {requests} requests, {fewest}-{most} points "
              f"per computing rank", file=sys.stderr)
        check(comp == computes, f"{ranks} ranks: rank 0 computes = {comp}")
        check(units == workers, f"{ranks} ranks: {units} first units for "
              f"{workers} computing ranks")
        check(length == -(-POINTS // (4 * workers)),
              f"first unit of {length} points, not a quarter of each "
              f"rank's share of {POINTS}")
        check(fewest >= length, f"a computing rank computed {fewest} "
              f"points, fewer than its first unit ({length})")
    check(not differing(ref, out), f"{ranks} ranks (rank 0 computes "
          f"{computes}) differ from 1 rank in {differing(ref, out)}")


def case_resume(tmp, ref):
    """SIGTERM to rank 0 of 5 ranks mid-run, resume on 4: nothing lost,
    nothing computed twice, the same file."""
    cfg, out = config(tmp, "resumed")
    p = run(5, cfg, wait=False)
    for line in p.stderr:
        m = re.match(r"sleighsweep: (\d+)/(\d+) points", line)
        if m and int(m.group(1)) >= POINTS // 5:
            break
    pid = rank0_pid(cfg)
    check(pid is not None, "rank 0 not found")
    if pid:
        os.kill(pid, signal.SIGTERM)
    _, err = p.communicate(timeout=300)
    check(p.returncode == 3, f"stopped run: exit {p.returncode}: "
          f"{err[-600:]}")
    check("received by rank 0" in err, f"the stop not reported: {err[-600:]}")
    r = run(4, cfg)
    check(r.returncode == 0, f"resume: exit {r.returncode}: "
          f"{r.stderr[-600:]}")
    s = schedule_line(r.stderr)
    if s:
        check(s[1] == 4, f"resume: {s[1]} first units for 4 ranks")
    # /segments is a group of 1-D datasets, one row per run segment
    # (docs/output.md, "Run segments"); status 0 interrupted, 1 complete.
    with h5py.File(out, "r") as f:
        seg = [{k: f["segments"][k][i] for k in
                ("status", "points_computed", "points_done")}
               for i in range(f["segments/status"].shape[0])]
    check(len(seg) == 2, f"{len(seg)} segments")
    if len(seg) == 2:
        first, second = seg[0], seg[1]
        print(f"segments: {first['points_computed']} then "
              f"{second['points_computed']} of {POINTS}", file=sys.stderr)
        check(first["status"] == 0 and second["status"] == 1
              and 0 < first["points_computed"] < POINTS,
              f"first segment {first}, second {second}")
        check(first["points_done"] == first["points_computed"],
              f"finished points lost at the stop: {first}")
        check(second["points_computed"] == POINTS - first["points_done"]
              and second["points_done"] == POINTS,
              f"the resume computed {second['points_computed']} points, "
              f"{POINTS - first['points_done']} were left")
    check(not differing(ref, out), f"resumed file differs from 1 rank in "
          f"{differing(ref, out)}")


with tempfile.TemporaryDirectory() as tmp:
    ref_cfg, ref = config(tmp, "ref")
    p = run(1, ref_cfg)
    check(p.returncode == 0, f"1 rank: exit {p.returncode}: {p.stderr}")
    case_all_start(tmp, ref, 5, {}, True)
    case_all_start(tmp, ref, 5, {"SSW_DEDICATED_MASTER_ABOVE": "4"}, False)
    case_resume(tmp, ref)
sys.exit(exit_status())
