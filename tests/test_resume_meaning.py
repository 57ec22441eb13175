#!/usr/bin/python3
"""A resume compares what the config means, not its text
(docs/config.md, "What a resume compares"): after an interrupted run, a
config changed only in comments, blank space, number spelling and pacing
keys resumes to the uninterrupted result; a changed value is refused with
exit 2 naming the first differing key and both values, whether the output
file or (file damaged) a journal makes the comparison; a journal of the old
format is refused with a clear message.

Usage: test_resume_meaning.py SLEIGHSWEEP CONFIG [mpiexec]
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, differing, exit_status, ranks_of  # noqa: E402

EXE, CONFIG = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"


def write_config(tmp, name, text=None):
    """The test sweep, slowed down to last a few seconds, writing
    tmp/name.h5 (or `text` as given)."""
    if text is None:
        text = open(CONFIG).read().replace("trajectories = 6",
                                           "trajectories = 100")
        text += "\n[integrator]\neta = 0.05\n"
        text = text.replace("[output]", f"[output]\nfile = {name}.h5")
    path = os.path.join(tmp, name + ".ini")
    with open(path, "w") as f:
        f.write(text)
    return path, os.path.join(tmp, name + ".h5")


def run(cfg, tmp, wait=True):
    cmd = [MPIEXEC, "--oversubscribe", "-np", "1", EXE, "run", cfg]
    if not wait:
        return subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=tmp)
    return subprocess.run(cmd, env=ENV, capture_output=True, text=True,
                          cwd=tmp, timeout=300)


def interrupted(cfg, tmp, points=8):
    """Starts the sweep and stops it with SIGTERM once `points` are done."""
    p = run(cfg, tmp, wait=False)
    seen = []
    for line in p.stderr:
        seen.append(line)
        m = re.match(r"sleighsweep: (\d+)/(\d+) points", line)
        if m and int(m.group(1)) >= points:
            os.kill(ranks_of(cfg)[0], signal.SIGTERM)
            break
    _, err = p.communicate(timeout=120)
    check(p.returncode == 3, f"interrupted run: exit {p.returncode}: "
          f"{''.join(seen)[-300:]}{err[-300:]}")


def show(p):
    """Prints the refusal, for the log."""
    for line in p.stderr.splitlines():
        if "journal" in line or "configuration" in line:
            print(line, file=sys.stderr)


def cosmetic(text):
    """The same sweep, written differently."""
    text = "; resumed after an interruption\n\n" + text
    text = text.replace("m = 1\n", "m   =   1.0   ; the mass\n")
    text = text.replace("theta = 0, 30deg", "theta = 0.0, 30 deg")
    text = text.replace("flush_interval = 0.05", "flush_interval = 0.1")
    return text.replace("progress_interval = 0.2", "progress_interval = 0.3")


with tempfile.TemporaryDirectory() as tmp:
    ref_cfg, ref = write_config(tmp, "ref")
    p = run(ref_cfg, tmp)
    check(p.returncode == 0, f"reference: exit {p.returncode}: {p.stderr}")

    # Comments, blank space, number spelling, pacing: the resume goes on.
    cfg, out = write_config(tmp, "a")
    interrupted(cfg, tmp)
    text = open(cfg).read()
    write_config(tmp, "a", cosmetic(text))
    p = run(cfg, tmp)
    check(p.returncode == 0, f"cosmetic change: exit {p.returncode}: "
          f"{p.stderr[-600:]}")
    diff = differing(ref, out) if p.returncode == 0 else ["not run"]
    check(not diff, f"cosmetic change: resumed file differs: {diff}")

    # A changed value: refused by the file (journals gone) ...
    cfg, out = write_config(tmp, "b")
    interrupted(cfg, tmp)
    text = open(cfg).read()
    saved = os.path.join(tmp, "saved")
    os.mkdir(saved)
    for jn in glob.glob(out + ".journal.*"):
        shutil.move(jn, saved)
    write_config(tmp, "b", cosmetic(text).replace("seed = 7", "seed = 8"))
    p = run(cfg, tmp)
    show(p)
    want = "[ensemble] seed: 7 in the file, 8 in the config"
    check(p.returncode == 2 and want in p.stderr,
          f"value change, file: exit {p.returncode}: {p.stderr[-600:]}")

    # ... and by a journal when the file no longer opens.
    for jn in glob.glob(os.path.join(saved, "*")):
        shutil.move(jn, os.path.dirname(out))
    with open(out, "r+b") as f:
        f.truncate(1000)
    p = run(cfg, tmp)
    show(p)
    want = "[ensemble] seed: 7 in the journal, 8 in the config"
    check(p.returncode == 2 and want in p.stderr and "journal" in p.stderr,
          f"value change, journal: exit {p.returncode}: {p.stderr[-600:]}")

    # A journal of the old format (1) is refused, saying what to do.
    write_config(tmp, "b", text)
    jn = sorted(glob.glob(out + ".journal.*"))[0]
    data = bytearray(open(jn, "rb").read())
    data[:8] = b"SSWJRNL1"
    open(jn, "wb").write(bytes(data))
    p = run(cfg, tmp)
    show(p)
    check(p.returncode == 2 and "older sleighsweep" in p.stderr,
          f"old journal: exit {p.returncode}: {p.stderr[-600:]}")

sys.exit(exit_status())
