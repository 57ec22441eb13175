"""Shared helpers of the Python end-to-end tests: the MPI environment,
assertions that record failures, and bit-exact dataset comparison."""
import glob
import os
import sys

import h5py
import numpy as np

# Open MPI refuses root without these; one thread unless a test says so.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
failures = []
# Set by CMake in a sanitized build (SSW_SANITIZE): the engine runs ~10x
# slower there, so the end-to-end tests whose run must last a while (to be
# killed, stopped or watched mid-run) divide their trajectories by
# SANITIZED_DIVISOR (light()): the run lasts about as long as the plain
# build's, every check of the test stays, and the plain build keeps the
# full workload (scripts/sanitize.sh, docs/reliability-fuzzing.md).
SANITIZED = os.environ.get("SSW_TEST_SANITIZED") == "1"
SANITIZED_DIVISOR = 8


def light(trajectories):
    """The trajectories per point of a timed end-to-end run: as given, or
    divided by SANITIZED_DIVISOR (at least 1) in a sanitized build."""
    return max(1, trajectories // SANITIZED_DIVISOR) if SANITIZED \
        else trajectories


def check(cond, msg):
    """Records a failure (the test goes on, and exits 1 at the end)."""
    if not cond:
        failures.append(msg)
        print("FAILED:", msg, file=sys.stderr)


def ranks_of(cfg):
    """PIDs of the sleighsweep processes running this config, sorted (Open
    MPI puts each rank in its own process group)."""
    pids = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            cmd = open(d + "/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"sleighsweep") and cfg.encode() in cmd:
            pids.append(int(d[6:]))
    return sorted(pids)


def datasets(path):
    """Every dataset's raw bytes, for NaN-safe bit-exact comparison; not
    /segments (run provenance like the attributes: times, ranks; a group
    of datasets, a compound table in format 3)."""
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()].tobytes())
                     if isinstance(o, h5py.Dataset) and
                     n.split("/")[0] != "segments" else None)
    return out


def differing(a, b):
    """Names of the datasets of file a that differ in file b (or lack)."""
    da, db = datasets(a), datasets(b)
    return sorted(set(da) ^ set(db)) + [k for k in da if k in db and
                                        da[k] != db[k]]


def exit_status():
    return 1 if failures else 0


def recorded(out):
    """Flat indices of the grid points in the journals' records
    (src/sweep/journal.c: a 64-byte header with the record size at byte
    16, the sample doubles at 20 and the config text's length at 24, the
    text, then records: an 8-byte magic, the point, index first, its
    samples, a checksum) and in the output's done mask: what a run killed
    mid-sweep has kept."""
    have = set()
    for name in os.listdir(os.path.dirname(out)):
        if not name.startswith(os.path.basename(out) + ".journal."):
            continue
        data = open(os.path.join(os.path.dirname(out), name), "rb").read()
        if len(data) < 64:
            continue
        rb, sd, text = np.frombuffer(data[16:28], np.uint32)
        rec = 8 + int(rb) + 8 * int(sd) + 8
        for off in range(64 + int(text), len(data) - rec + 1, rec):
            have.add(int(np.frombuffer(data[off + 8:off + 16], np.uint64)[0]))
    try:
        with h5py.File(out, "r") as f:
            have |= set(np.flatnonzero(f["done"][()]).tolist())
    except OSError:
        pass
    return have
