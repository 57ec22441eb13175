#!/usr/bin/python3
"""SIGKILL at system-call granularity: strace injects a KILL at
the N-th write, pwrite64, fdatasync or rename of rank 0 or of a worker,
over file creation, journalling, flush epochs and the finish; after each
kill the same command is run until it completes, and the file is compared
with an uninterrupted run byte for byte.

Usage: test_syskill.py SLEIGHSWEEP CONFIG [mpiexec] [short|long]
Prints a summary line: kill points tried, runs that resumed, files
identical, durable points lost (durable after the kill but computed again).
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, datasets, exit_status  # noqa: E402

EXE, CONFIG = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"
LONG = len(sys.argv) > 4 and sys.argv[4] == "long"
CALLS = ("write", "pwrite64", "fdatasync", "rename")

if not shutil.which("strace"):
    print("strace missing (scripts/setup.sh installs it): skipped")
    sys.exit(77)


def fnv1a(data):
    h = 0xCBF29CE484222325
    for c in data:
        h = ((h ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def durable(out, npts):
    """Points in the file (if it opens) or in a valid journal record."""
    have = set()
    try:
        import h5py
        with h5py.File(out, "r") as f:
            have |= set(int(i) for i in f["done"][()].reshape(-1).nonzero()[0])
    except Exception:
        pass
    for path in glob.glob(out + ".journal.*"):
        data = open(path, "rb").read()
        if len(data) < 64:
            continue
        rb, sd = struct.unpack_from("<II", data, 16)
        rec = 8 + rb + 8 * sd + 8
        pos = 64 + struct.unpack_from("<I", data, 24)[0]  # after the text
        while pos + rec <= len(data):
            r = data[pos:pos + rec]
            if r[:8] == b"SSWREC01" and struct.unpack_from(
                    "<Q", r, rec - 8)[0] == fnv1a(r[:rec - 8]):
                if struct.unpack_from("<Q", r, 8)[0] < npts:
                    have.add(struct.unpack_from("<Q", r, 8)[0])
                pos += rec
            else:
                nxt = data.find(b"SSWREC01", pos + 1)
                pos = nxt if nxt >= 0 else len(data)
    return have


def command(cfg, ranks, victim=None, call=None, n=None):
    """The run; with a victim, that rank runs under strace (MPMD)."""
    exe = [EXE, "run", "--quiet", cfg]
    traced = ["strace", "-f", "-qq", "-o", "/dev/null", "-e",
              f"trace={call}", "-e", f"inject={call}:signal=KILL:when={n}"]
    if ranks == 1:
        return (traced if victim is not None else []) + exe
    cmd = [MPIEXEC, "--oversubscribe"]
    for r in range(ranks):
        cmd += (["-np", "1"] + (traced if r == victim else []) + exe
                + ([":"] if r + 1 < ranks else []))
    return cmd


def count_calls(cfg, ranks, out):
    """Calls of each kind per rank in one uninterrupted run (strace -c)."""
    counts = {}
    for victim in range(ranks):
        for f in glob.glob(out + "*"):
            os.remove(f)
        log = os.path.join(os.path.dirname(out), "calls.txt")
        cmd = command(cfg, ranks, victim, "write", 1)
        i = cmd.index("strace")
        cmd[i:i + 9] = ["strace", "-c", "-U", "name,calls", "-f", "-qq",
                        "-o", log, "-e", "trace=" + ",".join(CALLS)]
        subprocess.run(cmd, env=ENV, capture_output=True)
        text = open(log).read()
        for call in CALLS:
            m = re.search(rf"^\s*{call}\s+(\d+)", text, re.M)
            counts[(victim, call)] = int(m.group(1)) if m else 0
    for f in glob.glob(out + "*"):
        os.remove(f)
    return counts


with tempfile.TemporaryDirectory() as tmp:
    text = open(CONFIG).read()
    cfg = os.path.join(tmp, "k.ini")
    out = os.path.join(tmp, "k.h5")
    ref = os.path.join(tmp, "ref.h5")
    open(cfg, "w").write(text.replace("[output]", f"[output]\nfile = {out}"))
    rcfg = os.path.join(tmp, "ref.ini")
    open(rcfg, "w").write(text.replace("[output]", f"[output]\nfile = {ref}"))
    p = subprocess.run(command(rcfg, 2), env=ENV, capture_output=True,
                       text=True)
    check(p.returncode == 0, f"reference: {p.stderr[-300:]}")
    import h5py
    with h5py.File(ref, "r") as f:
        npts = f["done"].size
    tried = resumed = identical = lost = 0
    for ranks in (1, 2):
        counts = count_calls(cfg, ranks, out)
        for (victim, call), total in sorted(counts.items()):
            if total == 0:
                continue
            # Short: the first, middle and last calls; long: up to 40 each.
            step = max(1, total // 40) if LONG else max(1, total // 2)
            points = sorted(set(list(range(1, total + 1, step)) + [total]))
            for n in points:
                for f in glob.glob(out + "*"):
                    os.remove(f)
                p = subprocess.run(command(cfg, ranks, victim, call, n),
                                   env=ENV, capture_output=True, text=True)
                tried += 1
                have = durable(out, npts)
                ok = False
                for _ in range(3):
                    q = subprocess.run(command(cfg, ranks), env=ENV,
                                       capture_output=True, text=True)
                    m = re.search(r"\((\d+) computed now", q.stderr)
                    if m and q.returncode == 0:
                        # Durable points computed again were lost.
                        again = int(m.group(1)) - (npts - len(have))
                        lost += max(again, 0)
                        check(again <= 0, f"np{ranks} rank {victim} {call} "
                              f"#{n}: {again} durable point(s) recomputed")
                    if q.returncode == 0:
                        ok = True
                        break
                    have = durable(out, npts)
                resumed += ok
                check(ok, f"np{ranks} rank {victim} {call} #{n}: the same "
                      f"command did not complete: {q.stderr[-300:]}")
                if ok:
                    da, db = datasets(ref), datasets(out)
                    same = all(da[k] == db.get(k) for k in da)
                    identical += same
                    check(same, f"np{ranks} rank {victim} {call} #{n}: "
                          "file differs from the uninterrupted run")
    print(f"syscall kill test: {tried} kill points tried, {resumed} runs "
          f"resumed by the same command, {identical} files identical, "
          f"{lost} durable points lost", file=sys.stderr)

sys.exit(exit_status())
