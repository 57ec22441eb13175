#!/usr/bin/python3
"""A relative [output] file is relative to the config's directory, whichever
directory the command runs from (docs/config.md,
[output]): `run sub/x.ini` from the top and `run x.ini` from sub/ name and
write the same file; --output stays relative to the current directory.

Usage: test_output_paths.py SLEIGHSWEEP CONFIG [mpiexec]
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, CONFIG = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"


def run(cwd, *args):
    return subprocess.run([MPIEXEC, "--oversubscribe", "-np", "1", EXE,
                           "run", *args], env=ENV, capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def planned(cwd, *args):
    """The output a dry run names."""
    p = run(cwd, "--dry-run", *args)
    check(p.returncode == 0, f"dry run {args} from {cwd}: {p.stderr}")
    for line in p.stdout.splitlines():
        if line.startswith("output:"):
            return line.split(None, 1)[1]
    return None


with tempfile.TemporaryDirectory() as tmp:
    tmp = os.path.realpath(tmp)
    sub = os.path.join(tmp, "sub")
    os.makedirs(os.path.join(sub, "out"))
    text = open(CONFIG).read().replace("[output]",
                                       "[output]\nfile = out/p.h5")
    with open(os.path.join(sub, "p.ini"), "w") as f:
        f.write(text)
    want = os.path.join(sub, "out", "p.h5")
    a, b = planned(tmp, "sub/p.ini"), planned(sub, "p.ini")
    check(a == want and b == want, f"dry-run outputs {a}, {b}; want {want}")
    p = run(tmp, "--quiet", "sub/p.ini")
    check(p.returncode == 0 and os.path.exists(want),
          f"run from the top: exit {p.returncode}, {want} "
          f"{'exists' if os.path.exists(want) else 'missing'}: {p.stderr}")
    check(not os.path.exists(os.path.join(tmp, "out")),
          "an output directory appeared under the current directory")
    # --output is relative to the current directory.
    o = planned(sub, "--output", "elsewhere.h5", "p.ini")
    check(o == os.path.join(sub, "elsewhere.h5") or o == "elsewhere.h5",
          f"--output elsewhere.h5 from sub/: {o}")

sys.exit(exit_status())
