#!/usr/bin/python3
"""Disk full. In a 1150 KiB tmpfs the HDF5 file (allocated whole at
creation) fits and the journals then fill the disk mid-sweep: the run must
stop with a clear message and a non-zero status; moved to a roomy disk, the
same command resumes from what was durable and ends byte-identical to an
uninterrupted run. In a 300 KiB tmpfs the file itself does not fit: refused
before anything is written (exit 2). Exit 77 (skipped) when tmpfs cannot be
mounted (not root).

Usage: test_diskfull.py SLEIGHSWEEP CONFIG [mpiexec]
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, datasets, exit_status  # noqa: E402

EXE, SMALL_CONFIG = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"


def every_point_samples(tmp):
    """The test config with samples at every grid point: journal records
    of 7 KiB each, so the journals fill the 1150 KiB disk mid-sweep."""
    with open(SMALL_CONFIG) as f:
        lines = [ln for ln in f.read().splitlines()
                 if not ln.startswith("sample_points")]
    path = os.path.join(tmp, "every_point_samples.ini")
    with open(path, "w") as f:
        f.write("\n".join(lines).replace(
            "[output]", "[output]\nsample_points = all") + "\n")
    return path


def run(cfg, out):
    return subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                           "--output", out, cfg], env=ENV, capture_output=True,
                          text=True, timeout=300)


def unmount(path):
    """An aborted run's ranks may still be exiting (slowly under the
    sanitizers): retry, then detach lazily."""
    for _ in range(20):
        if subprocess.run(["umount", path], capture_output=True).returncode \
                == 0:
            return
        time.sleep(0.5)
    subprocess.run(["umount", "-l", path])


with tempfile.TemporaryDirectory() as tmp:
    CONFIG = every_point_samples(tmp)
    full = os.path.join(tmp, "full")
    os.mkdir(full)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1150k", "tmpfs",
                       full], capture_output=True).returncode != 0:
        print("skipped: cannot mount a tmpfs (needs root)")
        sys.exit(77)
    try:
        ref = os.path.join(tmp, "ref.h5")
        p = run(CONFIG, ref)
        check(p.returncode == 0, f"reference run: {p.stderr}")
        out = os.path.join(full, "sweep.h5")
        p = run(CONFIG, out)
        check(p.returncode != 0, "a full disk did not fail the run")
        check("No space left on device" in p.stderr or "disk is full" in
              p.stderr, f"no clear disk-full message: {p.stderr[-2000:]}")
        check(os.path.getsize(out + ".journal.0") > 0, "nothing journalled")
        moved = os.path.join(tmp, "moved")
        os.mkdir(moved)
        for f in glob.glob(out + "*"):
            shutil.copy(f, moved)
    finally:
        unmount(full)
    small = os.path.join(tmp, "small")
    os.mkdir(small)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs",
                       small]).returncode == 0:
        try:
            p = run(CONFIG, os.path.join(small, "sweep.h5"))
            check(p.returncode == 2 and "not enough free space" in p.stderr,
                  f"a file that cannot fit was not refused: {p.stderr[-800:]}")
            check(os.listdir(small) == [], "refused run left files")
        finally:
            unmount(small)
    out = os.path.join(moved, "sweep.h5")
    p = run(CONFIG, out)
    check(p.returncode == 0, f"resume after moving: {p.stderr[-2000:]}")
    a, b = datasets(ref), datasets(out)
    bad = [k for k in a if a[k] != b.get(k)]
    check(not bad, f"resumed file differs: {bad}")
sys.exit(exit_status())
