"""Small things a user meets: a misspelt option gets a
did-you-mean, an option without its value says so (run --output), methods
and figures.sh answer --help, numbers in messages read as the user wrote
them (0.6, not 0.59999999999999998).
Usage: test_cli_messages.py SLEIGHSWEEP SOURCE_DIR MPIEXEC"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, ROOT, MPIEXEC = sys.argv[1], sys.argv[2], sys.argv[3]


def run(*args, cwd=None):
    return subprocess.run(list(args), capture_output=True, text=True,
                          env=ENV, cwd=cwd)


def expect(args, status, line, cwd=None):
    r = run(*args, cwd=cwd)
    got = r.stderr.strip()
    check(r.returncode == status and got == line,
          f"{' '.join(args[1:])}: exit {r.returncode}, stderr {got!r}; "
          f"expected {status}, {line!r}")
    return r


expect([EXE, "point", "--thetta", "1"], 2, "sleighsweep point: --thetta: "
       "unknown option; did you mean --theta? (see --help)")
expect([EXE, "point", "--max-stpes", "100"], 2, "sleighsweep point: "
       "--max-stpes: unknown option; did you mean --max-steps? (see --help)")
expect([EXE, "point", "--theta"], 2,
       "sleighsweep point: --theta needs a value (see --help)")
expect([EXE, "point", "--bogus"], 2,
       "sleighsweep point: --bogus: unknown option (see --help)")
expect([EXE, "run", "--output"], 2,
       "sleighsweep run: --output needs a value (see --help)")
expect([EXE, "run", "--dryrun", "x.ini"], 2, "sleighsweep run: --dryrun: "
       "unknown option; did you mean --dry-run? (see --help)")
expect([EXE, "status", "--jsn", "x.h5"], 2, "sleighsweep status: --jsn: "
       "unknown option; did you mean --json? (see --help)")
r = run(EXE, "methods", "--help")
check(r.returncode == 0
      and r.stdout.startswith("Usage: sleighsweep methods"),
      f"methods --help: {r.returncode} {r.stdout!r}")
expect([EXE, "methods", "--bogus"], 2, "sleighsweep methods: unexpected "
       "argument '--bogus' (see --help)")
r = run(EXE, "--help")
check("status" in r.stdout, "top-level --help does not list status")

with tempfile.TemporaryDirectory() as tmp:
    ini = os.path.join(tmp, "ab.ini")
    with open(ini, "w") as f:
        f.write("[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\ntheta = 0\n"
                "a = 0.2\nA = 0.6\nB = 0.1, 0.6\n")
    # through mpirun (a singleton MPI start trips LeakSanitizer's tracer in
    # the sanitized build); mpirun adds its own lines after ours
    r = run(MPIEXEC, "-np", "1", EXE, "run", "--dry-run", ini)
    want = (f"sleighsweep run: {ini}:8: [grid] A: every grid point needs "
            "A > B, but the smallest A = 0.6 (line 8) is not greater than "
            "the largest B = 0.6 (line 9)\n")
    check(r.returncode == 2 and r.stderr.startswith(want),
          f"A = B = 0.6: {r.returncode} {r.stderr!r}")
    fig = os.path.join(ROOT, "analysis", "figures.sh")
    r = run(fig, "--help", cwd=tmp)
    check(r.returncode == 0 and "Usage: analysis/figures.sh [OUT]" in
          r.stdout and os.listdir(tmp) == ["ab.ini"],
          f"figures.sh --help: {r.returncode} {r.stdout!r} {os.listdir(tmp)}")
    r = run(fig, "--out", "x", cwd=tmp)
    check(r.returncode == 2 and "unknown option '--out'" in r.stderr and
          os.listdir(tmp) == ["ab.ini"], f"figures.sh --out: {r.returncode}")
sys.exit(exit_status())
