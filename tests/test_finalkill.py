#!/usr/bin/python3
"""Complete means readable: SIGKILL injected by strace at each
pwrite64 and fsync/fdatasync of the final phase of a 2-rank [refine] sweep
(from the first write after the refinement's last journal record: the
crossings, /boundaries, the segment record, the status, the close), in
rank 0 and in the worker. After each kill:
- a file whose status attribute says "complete" reads whole (every
  dataset, /boundaries and /segments included): the status reaches the
  disk only after everything else (src/io/h5out.c, ssw_h5out_finish);
- `sleighsweep status` says "complete" only of such a file;
- the same command, rerun, ends with exit 0 and a file identical to an
  uninterrupted run (every dataset, /boundaries too), or is refused with
  the damaged-file message (which the journals make unneeded here: none
  is expected).
Then a complete file whose /boundaries was removed is reported damaged by
`status` (exit 1) and refined again by a rerun, identical; one whose
/boundaries member header is damaged likewise (the damaged group moved to
/boundaries_damaged); one whose grid dataset header is damaged, without
journals, is refused with what is lost (exit 2), and `status` says so.

Usage: test_finalkill.py SLEIGHSWEEP MPIEXEC [short|long]
short (about 25 kills, 1.5-3 min): every fsync/fdatasync and every 12th
pwrite64 of the phase (and its last three); long: every call (about 150).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, differing, exit_status  # noqa: E402

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
LONG = len(sys.argv) > 3 and sys.argv[3] == "long"
CALLS = ("pwrite64", "fsync", "fdatasync")
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
trajectories = 3
initial = lattice
[output]
file = {out}
[refine]
classes = regime, loops, sense
tol = 1e-7
"""

if not shutil.which("strace"):
    print("strace missing (scripts/setup.sh installs it): skipped")
    sys.exit(77)


def command(cfg, victim=None, call=None, n=None):
    """A 2-rank run; with a victim, that rank runs under strace (MPMD)."""
    exe = [EXE, "run", "--quiet", cfg]
    traced = ["strace", "-f", "-qq", "-o", "/dev/null", "-e",
              f"trace={call}", "-e", f"inject={call}:signal=KILL:when={n}"]
    cmd = [MPIEXEC, "--oversubscribe"]
    for r in range(2):
        cmd += (["-np", "1"] + (traced if r == victim else []) + exe
                + ([":"] if r == 0 else []))
    return cmd


def final_calls(cfg, out, victim):
    """{call: [indices]} of the victim's calls in the final phase of one
    uninterrupted run: those after its last journal write (strace -y)."""
    log = os.path.join(os.path.dirname(out), "calls.txt")
    clean(out)
    cmd = command(cfg, victim, "write", 1)
    i = cmd.index("strace")
    cmd[i:i + 9] = ["strace", "-f", "-qq", "-y", "-o", log, "-e",
                    "trace=write," + ",".join(CALLS)]
    p = subprocess.run(cmd, env=ENV, capture_output=True, text=True,
                       timeout=300)
    check(p.returncode == 0, f"counting run: {p.stderr[-300:]}")
    lines = open(log).read().splitlines()
    last = max((k for k, ln in enumerate(lines) if ".journal." in ln
                and re.search(r"\b(write|fdatasync)\(", ln)), default=-1)
    seen = {c: 0 for c in CALLS}
    phase = {c: [] for c in CALLS}
    for k, ln in enumerate(lines):
        m = re.search(r"\b(pwrite64|fsync|fdatasync)\(", ln)
        if not m:
            continue
        seen[m.group(1)] += 1
        if k > last:
            phase[m.group(1)].append(seen[m.group(1)])
    clean(out)
    print(f"rank {victim}: final phase "
          f"{ {c: len(v) for c, v in phase.items()} }", file=sys.stderr)
    return phase


def clean(out):
    d = os.path.dirname(out)
    for f in os.listdir(d):
        if f.startswith(os.path.basename(out)):
            os.remove(os.path.join(d, f))


def look(out):
    """(status attribute, whether every dataset reads) of a file, read in
    a child process: HDF5 may abort on a damaged file (a malloc check)."""
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from sswtest import datasets\nimport h5py\n"
            "with h5py.File(%r, 'r') as f:\n"
            "    s = f.attrs.get('status')\n"
            "    print(s.decode() if isinstance(s, bytes) else s)\n"
            "datasets(%r)\nprint('readable')\n"
            % (os.path.dirname(os.path.abspath(__file__)), out, out))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=120)
    lines = p.stdout.split()
    return (lines[0] if lines else None), "readable" in lines


def status_cmd(out):
    return subprocess.run([EXE, "status", out], capture_output=True,
                          text=True, env=ENV, timeout=120)


def kills(cfg, out, ref):
    tried = identical = 0
    for victim in (0, 1):
        phase = final_calls(cfg, out, victim)
        for call, idx in phase.items():
            if not LONG and call == "pwrite64":
                idx = sorted(set(idx[::12] + idx[-3:]))
            for n in idx:
                where = f"rank {victim} {call} #{n}"
                clean(out)
                subprocess.run(command(cfg, victim, call, n), env=ENV,
                               capture_output=True, timeout=300)
                tried += 1
                attr, whole = look(out)
                check(attr != "complete" or whole, f"{where}: status "
                      "complete, but the file does not read whole")
                st = status_cmd(out)
                check(whole or "state     complete" not in st.stdout,
                      f"{where}: `status` says complete of a file that "
                      "does not read")
                for _ in range(3):
                    q = subprocess.run(command(cfg), env=ENV, timeout=300,
                                       capture_output=True, text=True)
                    if q.returncode == 0:
                        break
                check(q.returncode == 0, f"{where}: rerun: exit "
                      f"{q.returncode}: {q.stderr[-400:]}")
                bad = differing(ref, out) if q.returncode == 0 else ["?"]
                identical += not bad
                check(not bad, f"{where}: differs from the uninterrupted "
                      f"run: {bad[:5]}")
    print(f"final-phase kills: {tried} tried, {identical} rebuilt or "
          "resumed identical", file=sys.stderr)
    check(tried >= 15, f"only {tried} kill points found")


def damage(path, name):
    """Flips a byte of the object header of `name`."""
    with h5py.File(path, "r") as f:
        addr = h5py.h5o.get_info(f[name].id).addr
    with open(path, "r+b") as f:
        f.seek(addr + 12)
        b = f.read(1)
        f.seek(addr + 12)
        f.write(bytes([b[0] ^ 0xFF]))


def tampered(cfg, out, ref):
    # /boundaries removed: status says so, a rerun refines again.
    clean(out)
    shutil.copy(ref, out)
    with h5py.File(out, "a") as f:
        del f["boundaries"]
    st = status_cmd(out)
    check(st.returncode == 1 and "damaged: /boundaries is missing; the grid "
          "reads whole: a rerun of the same command refines it again"
          in st.stdout, f"status of a file without /boundaries: {st.stdout}")
    q = subprocess.run(command(cfg), env=ENV, capture_output=True, text=True,
                       timeout=300)
    check(q.returncode == 0 and "/boundaries is missing; the grid reads "
          "whole: its refinement is done again" in q.stderr,
          f"rerun without /boundaries: {q.returncode} {q.stderr[-400:]}")
    check(not differing(ref, out), "refined again: differs")
    check(status_cmd(out).returncode == 0, "refined again: status not 0")
    # A member of /boundaries damaged: the same, the group moved aside.
    shutil.copy(ref, out)
    damage(out, "boundaries/level")
    st = status_cmd(out)
    check(st.returncode == 1 and "damaged: /boundaries/level does not open"
          in st.stdout, f"status, damaged /boundaries: {st.stdout}")
    q = subprocess.run(command(cfg), env=ENV, capture_output=True, text=True,
                       timeout=300)
    check(q.returncode == 0, f"rerun, damaged /boundaries: {q.stderr[-400:]}")
    with h5py.File(out, "r") as f:
        got = {k: f["boundaries"][k][()].tobytes() for k in f["boundaries"]}
        check("boundaries_damaged" in f, "the damaged group was not kept")
    with h5py.File(ref, "r") as f:
        want = {k: f["boundaries"][k][()].tobytes() for k in f["boundaries"]}
    check(got == want, "damaged /boundaries refined again: differs")
    st = status_cmd(out)
    check(st.returncode == 0 and "state     complete" in st.stdout,
          f"status after the repair: {st.stdout}")
    # A grid dataset damaged, no journals: refused, saying what is lost.
    shutil.copy(ref, out)
    damage(out, "period")
    st = status_cmd(out)
    check(st.returncode == 1 and "damaged: /period does not open; no "
          "journals hold its points: they are lost" in st.stdout,
          f"status, damaged grid: {st.stdout}")
    q = subprocess.run(command(cfg), env=ENV, capture_output=True, text=True,
                       timeout=300)
    check(q.returncode != 0 and "is damaged (/period does not open) and no "
          "journals hold its points: the 48 points it held are lost" in
          q.stderr, f"rerun, damaged grid: {q.returncode} {q.stderr[-600:]}")


with tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "f.ini")
    out = os.path.join(tmp, "f.h5")
    open(cfg, "w").write(CONFIG.format(out=out))
    rcfg = os.path.join(tmp, "ref.ini")
    ref = os.path.join(tmp, "ref.h5")
    open(rcfg, "w").write(CONFIG.format(out=ref))
    p = subprocess.run(command(rcfg), env=ENV, capture_output=True,
                       text=True)
    check(p.returncode == 0, f"reference: {p.stderr[-300:]}")
    tampered(cfg, out, ref)
    kills(cfg, out, ref)

sys.exit(exit_status())
