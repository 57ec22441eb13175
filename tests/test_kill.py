#!/usr/bin/python3
"""kill -9 a 2-rank sweep at seeded random moments, resume each time, and
compare the final file with an uninterrupted run bit for bit.

Usage: test_kill.py SLEIGHSWEEP CONFIG [mpiexec] [kills]
Prints one line per kill: delay, victim, durable points before/after, and
the work lost (points the killed run reported as finished that were not
durable afterwards), then a summary line.
"""
import glob
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import (ENV, check, datasets, exit_status,  # noqa: E402
                     light, ranks_of)

EXE, CONFIG = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"
KILLS = int(sys.argv[4]) if len(sys.argv) > 4 else 6


def write_config(tmp, name):
    path = os.path.join(tmp, name + ".ini")
    with open(path, "w") as f:
        text = open(CONFIG).read()
        m = re.search(r"^trajectories = (\d+)$", text, re.M)
        if m:  # fewer under the sanitizers (sswtest.light)
            text = text.replace(m.group(0),
                                f"trajectories = {light(int(m.group(1)))}")
        f.write(text.replace("[output]", f"[output]\nfile = {tmp}/{name}.h5"))
    return path, os.path.join(tmp, name + ".h5")


def start(cfg):
    return subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", EXE,
                             "run", cfg], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def durable(out, npts):
    """Points in the file (if it opens) or in a journal (complete records;
    the layout is src/sweep/journal.c's: 64-byte header holding the record size
    at byte 16, the sample doubles at byte 20 and the length of the config
    text that follows it at byte 24; each record is an 8-byte magic, the
    point (index first), the samples and an 8-byte checksum)."""
    have = np.zeros(npts, bool)
    try:
        with h5py.File(out, "r") as f:
            have |= f["done"][()].reshape(-1).astype(bool)
    except Exception:
        pass
    for path in glob.glob(out + ".journal.*"):
        data = open(path, "rb").read()
        if len(data) < 64:
            continue
        rb, sd, text = np.frombuffer(data[16:28], np.uint32)
        rec = 8 + int(rb) + 8 * int(sd) + 8
        for off in range(64 + int(text), len(data) - rec + 1, rec):
            idx = int(np.frombuffer(data[off + 8:off + 16], np.uint64)[0])
            if idx < npts:
                have[idx] = True
    return int(have.sum())


with tempfile.TemporaryDirectory() as tmp:
    ref_cfg, ref = write_config(tmp, "ref")
    t0 = time.time()
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        ref_cfg], env=ENV, capture_output=True, text=True)
    ref_time = time.time() - t0
    check(p.returncode == 0, f"reference run: {p.stderr}")
    with h5py.File(ref, "r") as f:
        npts = f["done"].size

    cfg, out = write_config(tmp, "killed")
    rng = random.Random(20261122)
    lost_max, kills, reopened = 0, 0, 0
    n_before = 0
    for k in range(KILLS):
        proc = start(cfg)
        # Scaled to the work left, so a slow (sanitized) run is still
        # killed before it finishes and leaves journals to damage below.
        left = 1 - n_before / npts
        delay = rng.uniform(0.5, max(0.8, 0.2 * ref_time * left))
        time.sleep(delay)
        victims = ranks_of(cfg)
        if proc.poll() is not None or not victims:
            proc.communicate()
            break  # finished before the kill
        victim = rng.choice(victims)
        os.kill(victim, signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
        kills += 1
        counts = [int(m) for m in re.findall(r"sleighsweep: (\d+)/\d+ points",
                                             err)]
        reported = max(counts) if counts else 0
        n_after = durable(out, npts)
        gained = n_after - n_before
        lost_max = max(lost_max, reported - gained)
        print(f"kill {k}: after {delay:.2f} s, SIGKILL to rank pid {victim}: "
              f"durable points {n_before} -> {n_after}; the killed run's "
              f"progress had reported {reported}", file=sys.stderr)
        check(n_after >= n_before, "durable points went backwards")
        n_before = n_after
        if n_after >= 0.75 * npts:
            break  # leave work for the damage-and-resume step
    # Damage as a kill in the middle of a write would: truncate the HDF5
    # file to half (it no longer opens) and tear the tail of a journal.
    # The resume must rebuild the file from the journals and skip the tear.
    jn = sorted(glob.glob(out + ".journal.*"))
    damaged = bool(jn) and os.path.exists(out)
    if damaged:  # only an unfinished run has journals to rebuild from
        size = os.path.getsize(out)
        with open(out, "r+b") as f:
            f.truncate(size // 2)
        with open(jn[0], "ab") as f:
            f.write(b"SSWREC01" + b"\x07" * 100)
    # Resume until complete.
    for attempt in range(5):
        p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                            "--resume", cfg], env=ENV, capture_output=True,
                           text=True)
        if "recreating it from the journals" in p.stderr:
            reopened += 1
        if attempt == 0 and damaged:
            check("recreating it from the journals" in p.stderr,
                  f"truncated file not rebuilt from journals: {p.stderr}")
            check("1 torn record(s) skipped" in p.stderr,
                  f"torn journal record not reported: {p.stderr}")
        if p.returncode == 0:
            break
    check(p.returncode == 0, f"final resume: exit {p.returncode}: {p.stderr}")
    da, db = datasets(ref), datasets(out)
    diff = [n for n in da if da[n] != db.get(n)]
    check(not diff, f"killed+resumed differs from uninterrupted: {diff}")
    check(not glob.glob(out + ".journal.*"), "journals left after completion")
    with h5py.File(out, "r") as f:
        check(int(f.attrs["points_done"]) == npts, "points_done attribute")
        check(bool(f["done"][()].all()), "a point is missing")
    print(f"kill test: {kills} kills of a 2-rank sweep of {npts} points "
          f"(uninterrupted {ref_time:.1f} s), {reopened} file(s) recreated "
          f"from journals, largest loss (reported but not durable) "
          f"{max(lost_max, 0)} point(s); final file identical: {not diff}",
          file=sys.stderr)
    check(kills >= 3, f"only {kills} kills happened: the sweep is too short")
    check(damaged, "the run finished before the damage step")

sys.exit(exit_status())
