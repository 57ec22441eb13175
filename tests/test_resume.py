#!/usr/bin/python3
"""Nothing lost, nothing stuck: torn and
corrupt journals, a kill during file creation, journals cut short in their
header, stray and foreign files at the output's names, one run per output,
stop signals to one worker or to mpirun, a read-only directory at the end.
Each case failed before its fix.

Usage: test_resume.py SLEIGHSWEEP CONFIG [mpiexec]
"""
import glob
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, datasets, exit_status, ranks_of  # noqa: E402,E501

EXE, CONFIG = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"
REC_MAGIC = b"SSWREC01"        # a point with its samples
REC_MAGIC_PLAIN = b"SSWREC00"  # a point alone (not a sample point)


def make_config(tmp, name, slow=True, extra=""):
    """The test sweep (48 points) writing tmp/name.h5; `slow` makes it last
    a few seconds so that signals land mid-run (100 trajectories: the
    signals follow the progress, 2 to 12 of 48 points, so the run only
    needs to outlast them)."""
    text = open(CONFIG).read()
    if slow:
        text = text.replace("trajectories = 6", "trajectories = 100")
        text += "\n[integrator]\neta = 0.05\n"
    for line in extra.splitlines():  # replaces the key's line, if any
        text = re.sub(rf"^{line.split('=')[0].strip()} *=.*\n", "", text,
                      flags=re.M)
    text = text.replace("[output]", f"[output]\nfile = {tmp}/{name}.h5\n"
                        + extra)
    path = os.path.join(tmp, name + ".ini")
    with open(path, "w") as f:
        f.write(text)
    return path, os.path.join(tmp, name + ".h5")


def run(args, ranks=1, wait=True, env=ENV, outer=(), inner=()):
    """`sleighsweep run` under mpirun (also for one rank: a singleton Open
    MPI process crashes LeakSanitizer's tracer at exit in the sanitizer
    suite); `inner` wraps the rank (strace), `outer` mpirun (setpriv)."""
    cmd = (list(outer) + [MPIEXEC, "--oversubscribe", "-np", str(ranks)]
           + list(inner) + [EXE, "run", *args])
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=WORK)
    return subprocess.run(cmd, env=env, capture_output=True, text=True,
                          cwd=WORK)


def wait_for_progress(p, points):
    """Reads stderr until the progress shows `points`; returns the lines."""
    seen = []
    for line in p.stderr:
        seen.append(line)
        m = re.match(r"sleighsweep: (\d+)/(\d+) points", line)
        if m and int(m.group(1)) >= points:
            return seen
    raise RuntimeError("the run ended before the signal point: "
                       + "".join(seen))


def stop_after(p, cfg, points, sig=signal.SIGTERM):
    """Sends `sig` to rank 0 once `points` are reported."""
    lines = wait_for_progress(p, points)
    os.kill(ranks_of(cfg)[0], sig)
    _, err = p.communicate(timeout=120)
    return p.returncode, "".join(lines) + err


def fnv1a(data):
    h = 0xCBF29CE484222325
    for c in data:
        h = ((h ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def header_bytes(data):
    """Where a journal's records start: after its 64-byte header and the
    config's canonical text, whose length is at byte 24
    (src/sweep/journal.c)."""
    return 64 + struct.unpack_from("<I", data, 24)[0]


def valid_records(path):
    """Indices and (offset, length) of the valid records of a journal,
    resynchronising after a damaged stretch by magic and checksum (layout:
    src/sweep/journal.c: two kinds of record, by their magic)."""
    data = open(path, "rb").read()
    rb, sd = struct.unpack_from("<II", data, 16)
    size = {REC_MAGIC: 8 + rb + 8 * sd + 8, REC_MAGIC_PLAIN: 8 + rb + 8}
    out, where, pos = set(), [], header_bytes(data)
    while pos + 8 <= len(data):
        rec = size.get(bytes(data[pos:pos + 8]), 0)
        r = data[pos:pos + rec]
        if rec and len(r) == rec and struct.unpack_from(
                "<Q", r, rec - 8)[0] == fnv1a(r[:rec - 8]):
            out.add(struct.unpack_from("<Q", r, 8)[0])
            where.append((pos, rec))
            pos += rec
        else:
            nxt = [k for k in (data.find(m, pos + 1) for m in size) if k >= 0]
            pos = min(nxt) if nxt else len(data)
    return out, where


def same(a, b, what):
    da, db = datasets(a), datasets(b)
    diff = sorted(set(da) ^ set(db)) + [k for k in da if k in db
                                        and da[k] != db[k]]
    check(not diff, f"{what}: datasets differ from the reference: {diff}")


def case_torn_journal(tmp, ref):
    """A torn tail and a flipped byte mid-journal hide nothing
    appended later; every valid record is recovered."""
    cfg, out = make_config(tmp, "torn", extra="flush_interval = 1000\n")
    rc, err = stop_after(run([cfg], wait=False), cfg, 8)
    check(rc == 3, f"torn: first run exit {rc}: {err[-400:]}")
    jn = out + ".journal.0"
    _, where = valid_records(jn)
    data = bytearray(open(jn, "rb").read())
    check(len(where) >= 3, "torn: fewer than 3 records")
    at, rec = where[1]
    data[at + rec // 2] ^= 0xFF                      # corrupt record 1
    data += REC_MAGIC + b"\x07" * 100                 # torn tail
    open(jn, "wb").write(bytes(data))
    rc, err = stop_after(run([cfg], wait=False), cfg, 8)
    check(rc == 3, f"torn: second run exit {rc}: {err[-400:]}")
    check("2 torn record(s) skipped" in err,
          f"torn: the corrupt record and the tear not both reported: "
          f"{err[-600:]}")
    want, _ = valid_records(jn)
    with open(out, "r+b") as f:   # the file no longer opens: journals only
        f.truncate(1000)
    p = run([cfg])
    m = re.search(r"(\d+) point\(s\) recovered", p.stderr)
    got = int(m.group(1)) if m else -1
    check(p.returncode == 0, f"torn: final run exit {p.returncode}")
    check(got == len(want), f"torn: {got} points recovered from the "
          f"journal, {len(want)} valid records in it: {p.stderr[-600:]}")
    same(ref, out, "torn journal resumed")


def case_damaged_output(tmp, ref):
    """The HDF5 side of a resume: an interrupted file cut at seeded lengths
    or with its superblock damaged, journals intact; the same command must
    rebuild it (exit 0, identical to the reference), never crash."""
    import random
    cfg, out = make_config(tmp, "damaged")
    rc, _ = stop_after(run([cfg], wait=False), cfg, 6)
    check(rc == 3, f"damaged: first run exit {rc}")
    saved = {f: open(f, "rb").read() for f in glob.glob(out + "*")}
    rng = random.Random(13)
    size = len(saved[out])
    for k in range(3):
        for f in glob.glob(out + "*"):
            os.remove(f)
        for f, data in saved.items():
            open(f, "wb").write(data)
        data = bytearray(saved[out])
        if k < 2:
            data = data[:rng.randrange(size // 8, size)]
        else:
            for pos in rng.sample(range(8, 48), 3):  # superblock fields
                data[pos] ^= 1 << rng.randrange(8)
        open(out, "wb").write(bytes(data))
        p = run([cfg])
        check(p.returncode == 0, f"damaged output {k}: exit {p.returncode}: "
              f"{p.stderr[-300:]}")
        if p.returncode == 0:
            same(ref, out, f"damaged output {k} rebuilt")


def case_forged_done(tmp, ref):
    """A done mask that says more than the file holds (here
    a complete file whose every other point got its fill values back) is
    not believed: status reports it malformed, the dry run counts only the
    points with results, and the run computes the others again instead of
    calling the file complete; the result equals the reference."""
    import json

    import h5py
    import numpy as np
    cfg, out = make_config(tmp, "forged")
    shutil.copy(ref, out)
    with h5py.File(out, "r+") as f:
        flat = np.arange(f["done"].size) % 2 == 1
        for name, fill in (("regime", -1), ("loops", -1), ("J", np.nan)):
            v = f[name][()].reshape(-1)
            v[flat] = fill
            f[name][()] = v.reshape(f[name].shape)
        total, forged = int(f["done"].size), int(flat.sum())
    r = subprocess.run([EXE, "status", "--json", out], env=ENV,
                       capture_output=True, text=True)
    js = json.loads(r.stdout) if r.stdout.startswith("{") else {}
    check(r.returncode == 1 and js.get("state", "").startswith("malformed")
          and js.get("points_done") == total - forged and
          js.get("points_marked_done_without_results") == forged,
          f"status of a forged mask: {r.returncode} {r.stdout[:400]}")
    p = run(["--dry-run", cfg])
    check(f"resume it: {total - forged} of {total} points done" in p.stdout,
          f"dry run of a forged mask: {p.stdout}")
    p = run([cfg], ranks=2)
    check(p.returncode == 0 and "already complete" not in p.stderr and
          f"{forged} point(s) of {out} are marked done but hold no results"
          in p.stderr and f"({forged} computed now" in p.stderr,
          f"run of a forged mask: exit {p.returncode}: {p.stderr[-500:]}")
    same(ref, out, "forged done mask, computed again")


def case_short_header(tmp):
    """A journal cut inside its header is rewritten, not fatal."""
    cfg, out = make_config(tmp, "short", slow=False)
    with open(out + ".journal.0", "wb") as f:
        f.write(b"SSWJRNL1\0\0")
    p = run([cfg])
    check(p.returncode == 0, f"short header: exit {p.returncode}: "
          f"{p.stderr[-400:]}")


def case_kill_in_creation(tmp):
    """SIGKILL at write system calls while the file is created
    (strace injection); the same command must then complete."""
    if not shutil.which("strace"):
        print("strace missing: creation-kill case skipped", file=sys.stderr)
        return
    cfg, out = make_config(tmp, "create", slow=False)
    for n in (2, 5, 40):
        for f in glob.glob(out + "*"):
            os.remove(f)
        p = run(["--quiet", cfg], inner=(
            "strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64",
            "-e", f"inject=pwrite64:signal=KILL:when={n}"))
        check(p.returncode != 0, f"creation kill {n}: the run was not killed")
        p = run(["--quiet", cfg])
        check(p.returncode == 0, f"creation kill at pwrite {n}: the same "
              f"command exits {p.returncode}: {p.stderr[-400:]}")


def case_paths(tmp):
    """Defects 7 and 8: stray journal, dangling symlink, output = config,
    a foreign HDF5 file with journals present; one clean message each."""
    cfg, out = make_config(tmp, "paths", slow=False)
    with open(out + ".journal.3", "wb") as f:
        f.write(b"x" * 200)
    p = run([cfg], ranks=2)
    check(p.returncode == 2 and "journal.3" in p.stderr
          and "MPI_ABORT" not in p.stderr,
          f"stray journal: exit {p.returncode}: {p.stderr[-400:]}")
    os.remove(out + ".journal.3")
    os.symlink(os.path.join(tmp, "nowhere", "x.h5"), out)
    p = run([cfg], ranks=2)
    check(p.returncode == 2 and "symbolic link" in p.stderr,
          f"dangling symlink: exit {p.returncode}: {p.stderr[-400:]}")
    os.remove(out)
    before = open(cfg, "rb").read()
    p = run(["--overwrite", "--output", cfg, cfg])
    check(p.returncode == 2 and "config file itself" in p.stderr,
          f"output = config: exit {p.returncode}: {p.stderr[-300:]}")
    check(open(cfg, "rb").read() == before, "output = config: config changed")
    import h5py
    with h5py.File(out, "w") as f:
        f["data"] = [1, 2, 3]
    foreign = open(out, "rb").read()
    with open(out + ".journal.0", "wb") as f:
        f.write(b"SSWJ")  # a journal (cut short) is present
    p = run([cfg])
    check(p.returncode == 2 and open(out, "rb").read() == foreign,
          f"foreign HDF5 with journals: exit {p.returncode}, file kept "
          f"{open(out, 'rb').read() == foreign}: {p.stderr[-300:]}")
    os.remove(out + ".journal.0")
    with open(out, "w") as f:
        f.write("not HDF5\n")
    p = run([cfg])
    msg = p.stderr.strip()
    check(p.returncode == 2 and msg.count("is not a usable") == 1
          and msg.count("[output]") == 1 and "(output]" not in msg,
          f"unusable output message garbled: {msg!r}")


def case_lock(tmp):
    """A second run of the same output exits 2 naming the host and PID of
    the first, also through a symbolic link or a hard link."""
    cfg, out = make_config(tmp, "lock")
    first = run([cfg], wait=False)
    wait_for_progress(first, 2)
    holder = ranks_of(cfg)[0]
    os.kill(holder, signal.SIGSTOP)  # holds its locks while stopped
    p = run([cfg])
    host = socket.gethostname()
    check(p.returncode == 2 and f"PID {holder}" in p.stderr
          and host in p.stderr,
          f"second run: exit {p.returncode}: {p.stderr[-400:]}")
    # The lock goes by what the output is, not its name:
    # a symbolic link to it (here from another directory) and a hard link
    # to it are refused too, and `status` through either sees the lock.
    os.mkdir(os.path.join(tmp, "elsewhere"))
    sym = os.path.join(tmp, "elsewhere", "sym.h5")
    hard = os.path.join(tmp, "hard.h5")
    os.symlink(out, sym)
    os.link(out, hard)
    real = os.path.realpath(out)
    for other, how in ((sym, f"leads to '{real}'"), (hard, "hard link")):
        p = run(["--output", other, cfg])
        check(p.returncode == 2 and f"PID {holder}" in p.stderr
              and how in p.stderr and "in use by another" in p.stderr
              and p.stderr.count("sleighsweep run:") == 1,
              f"second run through {other}: exit {p.returncode}: "
              f"{p.stderr[-400:]}")
        st = subprocess.run([EXE, "status", "--json", other], env=ENV,
                            capture_output=True, text=True)
        check(st.returncode == 0 and '"held": true' in st.stdout,
              f"status through {other}: {st.stdout[-300:]} {st.stderr}")
    os.kill(holder, signal.SIGTERM)
    os.kill(holder, signal.SIGCONT)
    first.communicate(timeout=120)
    check(first.returncode == 3, f"lock: first run exit {first.returncode}")
    check(not os.path.exists(out + ".lock") and
          not glob.glob(os.path.join(tmp, ".sleighsweep-inode-*")),
          "lock file left by a clean stop")
    p = run([cfg])
    check(p.returncode == 0, f"lock: resume after the first: {p.returncode}")


def case_signals(tmp, ref):
    """SIGTERM to one worker stops the job
    (exit 3); Ctrl-C (SIGINT) to mpirun loses no finished point."""
    cfg, out = make_config(tmp, "worker")
    p = run([cfg], ranks=3, wait=False)
    wait_for_progress(p, 4)
    pids = ranks_of(cfg)
    worker = next((q for q in pids if "OMPI_COMM_WORLD_RANK=1" in
                   open(f"/proc/{q}/environ", errors="replace").read()
                   .replace("\0", "\n")), None) if pids else None
    check(worker is not None, "no worker rank found")
    if worker:
        os.kill(worker, signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    check(p.returncode == 3, f"SIGTERM to a worker: exit {p.returncode}: "
          f"{err[-400:]}")
    check("received by rank 1" in err, "the worker's signal is not named")
    p = run([cfg], ranks=2)
    check(p.returncode == 0, f"resume after worker signal: {p.returncode}")
    same(ref, out, "stopped by a worker's signal, resumed")

    cfg, out = make_config(tmp, "ctrlc")
    p = run([cfg], ranks=2, wait=False)
    lines = wait_for_progress(p, 12)
    reported = max(int(m.group(1)) for m in (re.match(
        r"sleighsweep: (\d+)/", s) for s in lines) if m)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    # mpirun's own status is Open MPI's (1); README says so.
    check(p.returncode in (1, 3), f"Ctrl-C: mpirun exit {p.returncode}")
    durable = set()
    for jn in glob.glob(out + ".journal.*"):
        durable |= valid_records(jn)[0]
    try:
        import h5py
        with h5py.File(out, "r") as f:
            durable |= set(int(i) for i in
                           f["done"][()].reshape(-1).nonzero()[0])
    except Exception:
        pass
    check(len(durable) >= reported, f"Ctrl-C: {reported} points reported "
          f"finished, {len(durable)} durable")
    p = run([cfg], ranks=2)
    check(p.returncode == 0, f"resume after Ctrl-C: {p.returncode}")
    same(ref, out, "Ctrl-C under mpirun, resumed")


def case_readonly(tmp):
    """Completing in a read-only directory exits 0 and says the
    journals could not be removed (run as an unprivileged user: root
    ignores directory permissions); more ranks than journals there are
    refused up front."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("not root or no setpriv: read-only case skipped",
              file=sys.stderr)
        return
    d = os.path.join(tmp, "ro")
    os.mkdir(d)
    os.chmod(tmp, 0o755)
    os.chown(d, 65534, 65534)
    cfg, out = make_config(d, "ro")
    os.chown(cfg, 65534, 65534)
    nobody = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    scratch = os.path.join(tmp, "scratch")  # Open MPI's session directory
    os.mkdir(scratch)
    os.chown(scratch, 65534, 65534)
    env = dict(ENV, HOME=scratch, TMPDIR=scratch)
    rc, err = stop_after(run([cfg], wait=False, env=env, outer=nobody), cfg,
                         4)
    check(rc == 3, f"read-only: first run exit {rc}: {err[-300:]}")
    os.chmod(d, 0o555)
    # With 2 ranks, rank 1 would need a new journal in the
    # read-only directory: refused before anything, one message, exit 2.
    p = run([cfg], ranks=2, env=env, outer=nobody)
    lines = [s for s in p.stderr.splitlines() if s.startswith("sleighsweep")]
    check(p.returncode == 2 and len(lines) == 1 and "not writable" in lines[0]
          and "journal.1" in lines[0] and "at most 1 rank" in lines[0]
          and "MPI_ABORT" not in p.stderr,
          f"read-only directory, 2 ranks: exit {p.returncode}: "
          f"{p.stderr[-600:]}")
    p = run([cfg], env=env, outer=nobody)
    os.chmod(d, 0o755)
    check(p.returncode == 0 and "remove them by hand" in p.stderr,
          f"read-only directory: exit {p.returncode}: {p.stderr[-400:]}")


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    WORK = tmp
    ref_cfg, ref = make_config(tmp, "ref")
    p = run([ref_cfg], ranks=2)
    check(p.returncode == 0, f"reference run: {p.stderr[-300:]}")
    t0 = time.time()
    for case in (lambda: case_torn_journal(tmp, ref),
                 lambda: case_short_header(tmp),
                 lambda: case_damaged_output(tmp, ref),
                 lambda: case_forged_done(tmp, ref),
                 lambda: case_kill_in_creation(tmp),
                 lambda: case_paths(tmp), lambda: case_lock(tmp),
                 lambda: case_signals(tmp, ref),
                 lambda: case_readonly(tmp)):
        case()
    print(f"test_resume: {time.time() - t0:.1f} s", file=sys.stderr)

sys.exit(exit_status())
