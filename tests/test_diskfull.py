#!/usr/bin/python3
"""Disk full. In a tmpfs 150 KiB larger than the HDF5 file as the engine
estimates it (allocated whole at creation) the file fits and the
journals then fill the disk mid-sweep: the run must
stop with exit status 1 and a message naming the directory and the space
the run needs there; moved to a roomy disk, the same command resumes from
what was durable and ends byte-identical to an uninterrupted run. In a 300
KiB tmpfs the file itself does not fit: refused before anything is written
(exit 2). A disk that fills while the file is created (a stale
"<output>.creating" the run counts as free space and removes, but that the
test holds open, so its space stays taken) ends the run within the test's
timeout, exit 1, every rank gone, one message naming the path and the space
needed (it once left both ranks waiting in collectives). A disk filled
during a [refine] sweep's refinement (once its journals hold a crossing)
ends it the same way, the journals kept; moved, the same command ends
identical to an uninterrupted run. Exit 77 (skipped) when tmpfs cannot be
mounted (not root).

Usage: test_diskfull.py SLEIGHSWEEP CONFIG [mpiexec]
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, datasets, differing, exit_status, ranks_of  # noqa: E402,E501

EXE, SMALL_CONFIG = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"
# A [refine] sweep whose refinement lasts long enough to be caught (about
# 250 edges).
REFINE = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = linspace(5deg, 175deg, 16)
a = linspace(-0.3, 0.5, 5)
A = 0.5
B = 0.3, 0.35
[ensemble]
trajectories = 3
initial = lattice
[output]
file = unused.h5
[refine]
classes = regime, loops, sense
tol = 1e-7
"""


def every_point_samples(tmp):
    """The test config with samples at every grid point: journal records
    of 7 KiB each, so the journals fill the disk mid-sweep."""
    with open(SMALL_CONFIG) as f:
        lines = [ln for ln in f.read().splitlines()
                 if not ln.startswith("sample_points")]
    path = os.path.join(tmp, "every_point_samples.ini")
    with open(path, "w") as f:
        f.write("\n".join(lines).replace(
            "[output]", "[output]\nsample_points = all") + "\n")
    return path


def file_kib(cfg):
    """The output file's size in KiB as the engine estimates it (the dry
    run's "output size"; its pre-check refuses a disk with less free): the
    tmpfs sizes below follow the layout instead of a fixed figure."""
    p = subprocess.run([EXE, "run", "--dry-run", cfg], env=ENV,
                       capture_output=True, text=True)
    m = re.search(r"output size: +([0-9.e+-]+) MB", p.stdout)
    check(m is not None, f"dry run: no output size: {p.stdout[-800:]}")
    return int(float(m.group(1)) * 1e6 / 1024) + 8 if m else 1150


def run(cfg, out):
    return subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                           "--output", out, cfg], env=ENV, capture_output=True,
                          text=True, timeout=300)


def mount(path, size):
    os.makedirs(path, exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}",
                           "tmpfs", path], capture_output=True).returncode == 0


def check_full(p, where, what):
    """Exit status 1 and the note naming the directory and the space."""
    t = time.monotonic() - p.t0 if hasattr(p, "t0") else None
    check(p.returncode == 1, f"{what}: exit {p.returncode}, not 1")
    check(re.search(rf"the disk holding '{re.escape(where)}' is full: "
                    r"[0-9.e+-]+ MB free, the run needs about [0-9.e+-]+ MB "
                    r"there", p.stderr),
          f"{what}: no message naming the disk and the space needed: "
          f"{p.stderr[-1500:]}")
    if t is not None:
        print(f"{what}: ended in {t:.1f} s", file=sys.stderr)


def full_at_creation(tmp, cfg):
    """A stale creating file, held open: counted free, but not freed."""
    d = os.path.join(tmp, "create")
    kib = file_kib(cfg)  # counted free: the disk; writable: 200 KiB
    if not mount(d, f"{kib + 200}k"):
        return
    try:
        out = os.path.join(d, "sweep.h5")
        stale = out + ".creating"
        with open(stale, "wb") as f:
            f.write(b"\0" * (kib * 1024))
        held = open(stale, "rb")
        t0 = time.monotonic()
        p = run(cfg, out)
        p.t0 = t0
        held.close()
        check_full(p, d, "full at creation")
        check(p.stderr.count("is full:") == 1 or "rank 1" not in p.stderr,
              f"full at creation: one message expected: {p.stderr[-1500:]}")
        check(not ranks_of(cfg), "full at creation: ranks left running")
    finally:
        unmount(d)


def refine_config(tmp):
    path = os.path.join(tmp, "refine.ini")
    with open(path, "w") as f:
        f.write(REFINE)
    return path


def full_in_refinement(tmp):
    """The disk filled once the journals hold a crossing."""
    cfg = refine_config(tmp)
    ref = os.path.join(tmp, "refine_ref.h5")
    p = run(cfg, ref)
    check(p.returncode == 0, f"refine reference: {p.stderr[-800:]}")
    d = os.path.join(tmp, "refine")
    # room for the file and the grid's journals with a wide margin (4 MB
    # was too little once the census made every record larger: the grid
    # itself filled it, before the refinement), the filler takes the rest
    if not mount(d, f"{4 * file_kib(cfg) + 8192}k"):
        return
    moved = os.path.join(tmp, "refine_moved")
    os.mkdir(moved)
    try:
        out = os.path.join(d, "sweep.h5")
        t0 = time.monotonic()
        q = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", EXE,
                              "run", "--output", out, cfg], env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        while q.poll() is None and not any(
                b"SSWEDGE1" in open(j, "rb").read()
                for j in glob.glob(out + ".journal.*")):
            time.sleep(0.002)
        try:  # full already (the run's own writes): the open fails too
            with open(os.path.join(d, "filler"), "wb") as f:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
        except OSError:
            pass
        _, err = q.communicate(timeout=300)
        q.stderr = err
        q.t0 = t0
        check_full(q, d, "full in the refinement")
        check("refin" in err or "journal" in err or "boundaries" in err,
              f"full in the refinement: not in the refinement? {err[-800:]}")
        check(glob.glob(out + ".journal.*"), "refinement: journals removed")
        for f in glob.glob(out + "*"):
            shutil.copy(f, moved)
    finally:
        unmount(d)
    p = run(cfg, os.path.join(moved, "sweep.h5"))
    check(p.returncode == 0, f"refinement resumed: {p.stderr[-800:]}")
    bad = differing(ref, os.path.join(moved, "sweep.h5"))
    check(not bad, f"refinement resumed: differs: {bad}")


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
    # the file and 150 KiB: the journals' 7 KiB records fill it mid-grid
    size = f"size={file_kib(CONFIG) + 150}k"
    if subprocess.run(["mount", "-t", "tmpfs", "-o", size, "tmpfs",
                       full], capture_output=True).returncode != 0:
        print("skipped: cannot mount a tmpfs (needs root)")
        sys.exit(77)
    try:
        ref = os.path.join(tmp, "ref.h5")
        p = run(CONFIG, ref)
        check(p.returncode == 0, f"reference run: {p.stderr}")
        out = os.path.join(full, "sweep.h5")
        p = run(CONFIG, out)
        check("No space left on device" in p.stderr,
              f"no clear disk-full message: {p.stderr[-2000:]}")
        check_full(p, full, "full mid-grid")
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
    full_at_creation(tmp, CONFIG)
    full_in_refinement(tmp)
sys.exit(exit_status())
