#!/usr/bin/python3
"""A sweep's life cycle from the command line: `run --print-output` tells
the output path without MPI or side effects; re-running a finished sweep
is a no-op that leaves the file byte for byte (and its mtime) as it was;
a changed config is refused, by the dry run first.

Usage: test_lifecycle.py SLEIGHSWEEP CONFIG [mpiexec]
"""
import glob
import hashlib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, CONFIG = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"


def engine(*args, cwd=None):
    return subprocess.run([EXE, *args], env=ENV, capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def mpi(ranks, *args):
    return subprocess.run([MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE,
                           *args], env=ENV, capture_output=True, text=True,
                          timeout=300)


def write_config(path, output=None):
    text = open(CONFIG).read()
    if output is not None:
        text = text.replace("[output]", f"[output]\nfile = {output}")
    with open(path, "w") as f:
        f.write(text)


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def print_output(tmp):
    sub = os.path.join(tmp, "sub")
    os.mkdir(sub)
    cfg = os.path.join(sub, "p.ini")
    # The config's own absolute [output] file.
    write_config(cfg, os.path.join(tmp, "abs.h5"))
    r = engine("run", "--print-output", cfg)
    check(r.returncode == 0 and r.stdout == os.path.join(tmp, "abs.h5") +
          "\n", f"--print-output, absolute file: {r.returncode} {r.stdout!r} "
          f"{r.stderr!r}")
    # --output F: relative to the current directory, printed absolute.
    r = engine("run", "--print-output", "--output", "rel.h5", "sub/p.ini",
               cwd=tmp)
    want = os.path.join(os.path.realpath(tmp), "rel.h5") + "\n"
    check(r.returncode == 0 and r.stdout == want,
          f"--print-output --output rel.h5: {r.stdout!r}, want {want!r}")
    # No [output] file: the default beside the config, absolute.
    write_config(cfg)
    r = engine("run", "--print-output", "p.ini", cwd=sub)
    check(r.returncode == 0 and r.stdout == os.path.join(
        os.path.realpath(sub), "p.h5") + "\n",
        f"--print-output default: {r.stdout!r} {r.stderr!r}")
    # A relative [output] file comes out absolute too.
    write_config(cfg, "rel_out.h5")
    r = engine("run", "--print-output", "sub/p.ini", cwd=tmp)
    check(r.returncode == 0 and os.path.isabs(r.stdout.strip()) and
          r.stdout.strip().endswith("/rel_out.h5"),
          f"--print-output relative file: {r.stdout!r} {r.stderr!r}")
    check(not glob.glob(os.path.join(tmp, "**", "*.h5*"), recursive=True),
          "--print-output created files: "
          f"{glob.glob(os.path.join(tmp, '**', '*.h5*'), recursive=True)}")
    r = engine("run", "--print-output", os.path.join(tmp, "missing.ini"))
    check(r.returncode == 2 and "cannot open config" in r.stderr,
          f"--print-output, missing config: {r.returncode} {r.stderr!r}")
    r = engine("run", "--help")
    check("--print-output" in r.stdout and "current directory" in r.stdout,
          "run --help lacks --print-output or the --output path rule")


def complete_is_noop(tmp):
    cfg, out = os.path.join(tmp, "done.ini"), os.path.join(tmp, "done.h5")
    write_config(cfg, out)
    r = mpi(2, "run", "--quiet", cfg)
    check(r.returncode == 0, f"first run: {r.returncode} {r.stderr}")
    before, mtime = digest(out), os.stat(out).st_mtime_ns
    for ranks, extra in ((2, []), (1, ["--resume"])):
        r = mpi(ranks, "run", *extra, cfg)
        check(r.returncode == 0, f"rerun {ranks} {extra}: {r.returncode}")
        check(f"sleighsweep: {out} is already complete (" in r.stderr and
              "points); nothing to do" in r.stderr,
              f"rerun {ranks} {extra}: message missing: {r.stderr!r}")
        check("resuming" not in r.stderr and "computed now" not in r.stderr,
              f"rerun {ranks} {extra} did work: {r.stderr!r}")
        check(digest(out) == before, f"rerun {ranks} {extra}: bytes changed")
        check(os.stat(out).st_mtime_ns == mtime,
              f"rerun {ranks} {extra}: mtime changed")
        left = sorted(set(glob.glob(out + "*")) - {out})
        check(not left, f"rerun {ranks} {extra} left files: {left}")
    # --overwrite still starts over.
    r = mpi(1, "run", "--quiet", "--overwrite", cfg)
    check(r.returncode == 0 and "already complete" not in r.stderr,
          f"--overwrite of a complete file: {r.returncode} {r.stderr!r}")


def changed_config(tmp):
    """A complete file and a changed config. The dry run
    says what the run will do (refuse, naming the first difference), and
    the run, under mpirun with 2 ranks, decides before saying anything: one
    message, exit status 2 on every rank through MPI_Finalize (mpirun -q
    leaves exactly that line), no "resuming", no MPI_ABORT, file kept."""
    cfg, out = os.path.join(tmp, "c.ini"), os.path.join(tmp, "c.h5")
    write_config(cfg, out)
    r = mpi(2, "run", "--quiet", cfg)
    check(r.returncode == 0, f"first run: {r.returncode} {r.stderr}")
    before = digest(out)
    text = open(cfg).read()
    for key, old, new in (("rho", "rho = 1", "rho = 2"),
                          ("seed", "seed = 7", "seed = 8")):
        changed = os.path.join(tmp, f"c_{key}.ini")
        with open(changed, "w") as f:
            f.write(text.replace(old, new))
        r = mpi(1, "run", "--dry-run", changed)
        plan = [s for s in r.stdout.splitlines() if "the run would" in s]
        check(r.returncode == 0 and len(plan) == 1 and
              "refuse to start (exit status 2)" in plan[0] and
              "first difference: [" in plan[0] and f"] {key}: " in plan[0],
              f"dry run, {key} changed: {plan} {r.stderr!r}")
        r = subprocess.run([MPIEXEC, "-q", "--oversubscribe", "-np", "2", EXE,
                            "run", changed], env=ENV, capture_output=True,
                           text=True, timeout=300)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and
              lines[0].startswith("sleighsweep run: ") and
              "different configuration" in lines[0] and
              f"] {key}: " in lines[0],
              f"run, {key} changed: exit {r.returncode}: {r.stderr!r}")
        check(digest(out) == before, f"run, {key} changed: file changed")
    r = mpi(1, "run", "--dry-run", cfg)
    check("the run would:       find it complete (" in r.stdout,
          f"dry run, same config: {r.stdout!r}")


with tempfile.TemporaryDirectory() as tmp:
    changed_config(tmp)
with tempfile.TemporaryDirectory() as tmp:
    print_output(tmp)
with tempfile.TemporaryDirectory() as tmp:
    complete_is_noop(tmp)
sys.exit(exit_status())
