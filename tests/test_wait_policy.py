"""OpenMP's idle threads wait passively unless the user chose
(src/cli/main.c): with OMP_WAIT_POLICY and GOMP_SPINCOUNT unset the engine
runs with OMP_WAIT_POLICY=passive, and a user's setting of either is kept.
The effect is read from the OpenMP runtime itself: libgomp's
OMP_DISPLAY_ENV=verbose prints the spin count it took when it was loaded
(0 passive, 30000000000 active, 300000 its default), the last print
being the process that runs the command. `--version` prints the setting
the engine runs with. Usage: test_wait_policy.py ENGINE"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

ENGINE = sys.argv[1]
BASE = {k: v for k, v in ENV.items()
        if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}


def run(extra, *args):
    env = dict(BASE, OMP_DISPLAY_ENV="verbose", **extra)
    return subprocess.run([ENGINE, *args], env=env, capture_output=True,
                          text=True, timeout=60)


# (user's variables, the engine's --version line, libgomp's spin count)
CASES = [
    ({}, "OpenMP wait: OMP_WAIT_POLICY=passive", "0"),
    ({"OMP_WAIT_POLICY": "active"}, "OpenMP wait: OMP_WAIT_POLICY=active",
     "30000000000"),
    ({"OMP_WAIT_POLICY": "passive"}, "OpenMP wait: OMP_WAIT_POLICY=passive",
     "0"),
    ({"GOMP_SPINCOUNT": "1000"}, "OpenMP wait: GOMP_SPINCOUNT=1000", "1000"),
]
for extra, line, spin in CASES:
    p = run(extra, "--version")
    check(p.returncode == 0, f"{extra}: --version exit {p.returncode}")
    check(line in p.stdout.splitlines(),
          f"{extra}: expected '{line}' in --version, got {p.stdout!r}")
    counts = re.findall(r"GOMP_SPINCOUNT = '(\d+)'", p.stderr)
    if counts:  # libgomp: its own ICV, after the engine's set-up
        check(counts[-1] == spin,
              f"{extra}: libgomp's spin count {counts[-1]}, expected {spin}")
    else:
        print(f"{extra}: not libgomp (no GOMP_SPINCOUNT in OMP_DISPLAY_ENV);"
              " checked the engine's line only")

# The command runs whole after the engine executes itself again: same
# arguments, same output as with the user's own policy.
a = run({}, "methods")
b = run({"OMP_WAIT_POLICY": "active"}, "methods")
check(a.returncode == 0 and a.stdout == b.stdout and a.stdout.strip(),
      f"methods differs after the re-execution: {a.stdout!r} / {b.stdout!r}")
sys.exit(exit_status())
