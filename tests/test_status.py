"""`sleighsweep status FILE [--json]` on a running 2-rank sweep and on one
killed with SIGKILL: points done/total from the file and the journals
together (checked exactly against what the resume then computes), status,
rate and ETA while running, the lock probe (an fcntl lock taken here), and
the /segments rows of a sweep interrupted once and then completed; paths
that are no output (FIFO, directory, missing) and malformed status
attributes.
Usage: test_status.py SLEIGHSWEEP MPIEXEC"""
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status, light, ranks_of  # noqa: E402

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = linspace(5deg, 175deg, 60)
a = 0.1, 0.2, 0.3, 0.4, 0.5
A = 0.5
B = 0.3
[ensemble]
trajectories = {trajectories}
[output]
file = {out}
flush_interval = 0.5
[run]
work_unit = 4
progress_interval = 0.5
"""
TOTAL = 300
# run --dry-run through mpirun: a singleton MPI start trips LeakSanitizer's
# tracer in the sanitized build (scripts/sanitize.sh), an mpirun start not
DRY = [MPIEXEC, "-np", "1", EXE, "run", "--dry-run"]


def status(out):
    """(exit status, parsed JSON or None, stderr)."""
    r = subprocess.run([EXE, "status", "--json", out], capture_output=True,
                       text=True, env=ENV)
    try:
        js = json.loads(r.stdout) if r.returncode == 0 else None
    except ValueError:
        js = None
        check(False, f"status --json printed no JSON: {r.stdout!r}")
    return r.returncode, js, r.stderr


def run_and_kill(tmp, attempt):
    """Starts the sweep, checks status while it runs, kills it; returns the
    status JSON after the kill (None if the file no longer opens)."""
    out = os.path.join(tmp, f"s{attempt}.h5")
    cfg = os.path.join(tmp, f"s{attempt}.ini")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(out=out, trajectories=light(512)))
    proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", EXE,
                             "run", cfg], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    seen = None
    t_end = time.time() + 60
    while time.time() < t_end and proc.poll() is None:
        time.sleep(0.3)
        if not os.path.exists(out):
            continue
        rc, js, _ = status(out)
        if rc == 0 and js and 0 < js["points_in_file"] and \
                js["points_done"] < TOTAL * 0.7 and \
                js["rate_points_per_s"] is not None:
            seen = js
            break
    check(seen is not None, "status never showed a running sweep with a rate")
    if seen:
        check(seen["status"] == "running", f"running: {seen['status']}")
        check(seen["points_total"] == TOTAL, f"total {seen['points_total']}")
        check(seen["points_done"] == seen["points_in_file"] +
              seen["points_in_journals_only"], "done = file + journals")
        check(seen["rate_points_per_s"] > 0 and seen["eta_s"] > 0,
              f"rate/ETA {seen['rate_points_per_s']} {seen['eta_s']}")
        check(seen["journals"] == 2, f"journals {seen['journals']}")
        # text form, same numbers
        r = subprocess.run([EXE, "status", out], capture_output=True,
                           text=True, env=ENV)
        check(r.returncode == 0 and "/300 done" in r.stdout and "ETA" in
              r.stdout, f"text status: {r.returncode} {r.stdout!r}")
    for pid in ranks_of(cfg):  # kill -9 every rank, as a node failure would
        os.kill(pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    check(not ranks_of(cfg), "a rank survived SIGKILL")
    rc, js, err = status(out)
    if rc != 0:
        check("does not open" in err, f"status after kill: {rc} {err!r}")
        return None, out, cfg
    return js, out, cfg


def interrupted_then_complete(tmp):
    """A sweep stopped by SIGTERM, then resumed to the end: status lists its
    two /segments rows (JSON and text), wall times summing to the root's."""
    out = os.path.join(tmp, "seg.h5")
    cfg = os.path.join(tmp, "seg.ini")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(out=out, trajectories=light(512)))
    cmd = [MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run", cfg]
    p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        m = re.match(r"sleighsweep: (\d+)/(\d+) points", line)
        if m and int(m.group(1)) >= 20:
            os.kill(ranks_of(cfg)[0], signal.SIGTERM)
            break
    p.communicate(timeout=120)
    check(p.returncode == 3, f"interrupted run: exit {p.returncode}")
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    check(r.returncode == 0, f"resume: {r.returncode} {r.stderr[-300:]}")
    rc, js, _ = status(out)
    seg = js["segments"] if js else None
    check(rc == 0 and seg and len(seg) == 2 and js["segments_recorded"] == 2,
          f"segments: {js}")
    if not seg or len(seg) != 2:
        return
    check([s["status"] for s in seg] == ["interrupted", "complete"],
          f"segment statuses {seg}")
    check(0 < seg[0]["points_done"] < seg[1]["points_done"] == TOTAL,
          f"segment points_done {seg}")
    check(all(s["mpi_ranks"] == 2 and s["start_time"] and s["end_time"]
              for s in seg), f"segment rows {seg}")
    import h5py
    with h5py.File(out, "r") as f:
        wall = float(f.attrs["wall_time_s"])
    total = sum(s["wall_time_s"] for s in seg)
    check(abs(total - wall) <= 1e-9 * abs(wall),
          f"segment wall times {total} != root wall_time_s {wall}")
    r = subprocess.run([EXE, "status", out], capture_output=True, text=True,
                       env=ENV)
    check("  segments  2 recorded (/segments)\n    1. " in r.stdout and
          " interrupted: " in r.stdout and "\n    2. " in r.stdout and
          " complete: " in r.stdout, f"text segments: {r.stdout!r}")


def what_paths_are(tmp):
    """Status never blocks (a FIFO as the file, or named
    like a journal) and says what a path that is no output is, instead of
    the killed-run hint."""
    os.mkfifo(os.path.join(tmp, "fifo.h5"))
    os.mkdir(os.path.join(tmp, "dir.h5"))
    open(os.path.join(tmp, "empty.h5"), "w").close()
    with open(os.path.join(tmp, "text.h5"), "w") as f:
        f.write("not HDF5\n")
    os.symlink(os.path.join(tmp, "nowhere.h5"), os.path.join(tmp, "dl.h5"))
    for name, want in (("fifo.h5", "is a FIFO (named pipe)"),
                       ("dir.h5", "is a directory"),
                       ("none.h5", "does not exist"),
                       ("empty.h5", "is not an HDF5 file (it is empty)"),
                       ("text.h5", "is not an HDF5 file"),
                       ("dl.h5", "symbolic link to a file that does not "
                        "exist")):
        try:
            r = subprocess.run([EXE, "status", os.path.join(tmp, name)],
                               capture_output=True, text=True, env=ENV,
                               timeout=20)
        except subprocess.TimeoutExpired:
            check(False, f"status {name} blocks")
            continue
        check(r.returncode == 1 and want in r.stderr and
              "killed" not in r.stderr and r.stderr.count("\n") == 1,
              f"status {name}: {r.returncode} {r.stderr!r}")


def malformed(tmp, out):
    """A status attribute that is not one of the engine's
    three words (an integer, an over-long text) is reported as malformed,
    not as running, with exit status 1; a FIFO named like a journal does
    not block."""
    import h5py
    import numpy as np
    for name, value, want in (
            ("int", np.int32(5), "its status attribute is not a string"),
            ("long", np.bytes_("complete" + "x" * 300),
             '"completexxxx')):
        bad = os.path.join(tmp, f"bad_{name}.h5")
        shutil.copy(out, bad)
        with h5py.File(bad, "r+") as f:
            f.attrs["status"] = value
        r = subprocess.run([EXE, "status", "--json", bad], capture_output=True,
                           text=True, env=ENV)
        js = json.loads(r.stdout) if r.stdout.startswith("{") else {}
        check(r.returncode == 1 and
              js.get("state", "").startswith("malformed: ") and
              want in js.get("state", "") and "malformed" in r.stderr,
              f"status attribute {name}: {r.returncode} {js.get('state')!r} "
              f"{r.stderr!r}")
    os.mkfifo(out + ".journal.7")
    try:
        r = subprocess.run([EXE, "status", out], capture_output=True,
                           text=True, env=ENV, timeout=20)
        check(r.returncode == 0 and "not a regular file" in r.stdout,
              f"FIFO journal: {r.returncode} {r.stdout!r}")
    except subprocess.TimeoutExpired:
        check(False, "status blocks on a FIFO named like a journal")
    os.remove(out + ".journal.7")


with tempfile.TemporaryDirectory() as tmp:
    what_paths_are(tmp)
    # usage
    r = subprocess.run([EXE, "status"], capture_output=True, text=True,
                       env=ENV)
    check(r.returncode == 2 and "FILE" in r.stderr, f"no FILE: {r.stderr!r}")
    r = subprocess.run([EXE, "status", os.path.join(tmp, "none.h5")],
                       capture_output=True, text=True, env=ENV)
    check(r.returncode == 1, f"missing file: {r.returncode} {r.stderr!r}")
    killed = None
    for attempt in range(3):  # a kill inside an HDF5 write may break the file
        killed, out, cfg = run_and_kill(tmp, attempt)
        if killed:
            break
    check(killed is not None, "no killed run left a readable file")
    if killed:
        check(killed["status"] == "running", "killed: status attribute")
        check(killed["lock"]["held"] is False, "killed run still locked")
        check(killed["state"].startswith("not running"),
              f"killed: state {killed['state']!r}")
        check(0 < killed["points_done"] < TOTAL, f"killed {killed}")
        check(killed["points_in_journals_only"] >= 0, "journal points")
        # run --dry-run tells what the run would do, with the same count
        r = subprocess.run(DRY + [cfg], env=ENV,
                           capture_output=True, text=True)
        # (a killed run's file is rebuilt from its journals)
        m = re.search(r"the run would:       (resume it|rebuild it from its "
                      r"journals \(.*\)): (\d+) of 300 points done", r.stdout)
        check(r.returncode == 0 and m and
              int(m.group(2)) == killed['points_done'] and
              f"output:              {out}\n" in r.stdout,
              f"dry-run of a killed sweep: {r.stdout!r} {r.stderr!r}")
        # the resume computes exactly the points status did not count
        p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE,
                            "run", cfg], env=ENV, capture_output=True,
                           text=True)
        m = re.search(r"\((\d+) computed now", p.stderr)
        check(p.returncode == 0 and m, f"resume: {p.returncode} {p.stderr}")
        if m:
            check(TOTAL - int(m.group(1)) == killed["points_done"],
                  f"status said {killed['points_done']} done; the resume "
                  f"computed {m.group(1)} of {TOTAL}")
        rc, js, _ = status(out)
        check(rc == 0 and js["status"] == "complete" and
              js["points_done"] == TOTAL and js["rate_points_per_s"] is None,
              f"complete: {js}")
        r = subprocess.run(DRY + [cfg], env=ENV,
                           capture_output=True, text=True)
        check("the run would:       find it complete (300 points): nothing "
              "to compute" in r.stdout, f"dry-run, complete: {r.stdout!r}")
        malformed(tmp, out)
        # a relative output path is shown absolute; a new file is created
        fresh = os.path.join(tmp, "fresh.ini")
        with open(fresh, "w") as f:
            f.write(CONFIG.format(out="fresh.h5", trajectories=light(512)))
        r = subprocess.run(DRY + ["fresh.ini"], env=ENV,
                           capture_output=True, text=True, cwd=tmp)
        here = os.path.realpath(tmp)
        check(f"output:              {here}/fresh.h5\nthe run would:       "
              "create it\n" in r.stdout, f"dry-run, new file: {r.stdout!r}")
        # run segments, when the file records them (CF history, /segments)
        import h5py
        import numpy as np
        hist = "2026-01-01T00:00:00Z run: interrupted\n2026-01-01T01:00:00Z " \
            "run: complete"
        with h5py.File(out, "r+") as f:
            f.attrs["history"] = hist
            if "segments" in f:  # the engine's own table (h5segments.c)
                del f["segments"]
            f["segments"] = np.zeros(2, dtype=[("start", "f8"), ("end", "f8")])
        rc, js, _ = status(out)
        check(js and js["history"] == hist and js["segments_recorded"] == 2
              and js["segments"] is None,  # not the engine's rows
              f"history/segments: {js and (js['history'], js['segments'])}")
        r = subprocess.run([EXE, "status", out], capture_output=True,
                           text=True, env=ENV)
        check("\n    2026-01-01T01:00:00Z run: complete\n" in r.stdout and
              "  segments  2 recorded" in r.stdout,
              f"text history: {r.stdout!r}")
        # the lock probe sees an fcntl lock on the output
        with open(out, "rb+") as f:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            rc, js, _ = status(out)
            check(js and js["lock"]["held"] is True and
                  js["lock"]["pid"] == os.getpid(),
                  f"lock not seen: {js and js['lock']}")
        rc, js, _ = status(out)
        check(js and js["lock"]["held"] is False, "lock seen after release")
        # the run lock: an fcntl lock on <output>.lock naming its holder
        # (src/sweep/journal.c ssw_journal_lock writes "host H, PID P")
        with open(out + ".lock", "w+") as f:
            f.write("host node7, PID 4242\n")
            f.flush()
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            rc, js, _ = status(out)
            check(js and js["lock"]["held"] is True and
                  js["lock"]["holder"] == "host node7, PID 4242" and
                  js["lock"]["path"] == out + ".lock",
                  f"run lock not seen: {js and js['lock']}")
            r = subprocess.run([EXE, "status", out], capture_output=True,
                               text=True, env=ENV)
            check("  lock      held (host node7, PID 4242) on " in r.stdout,
                  f"text status of the lock: {r.stdout!r}")
        rc, js, _ = status(out)  # a lock file left by a killed run: no lock
        check(js and js["lock"]["held"] is False, "stale lock file reported "
              "as held")
    interrupted_then_complete(tmp)
sys.exit(exit_status())
