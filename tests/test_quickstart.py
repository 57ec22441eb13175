"""The quick start and the README's first plotting commands, against the
built engine: seed.json lands beside seed.csv (so trajectory.py pairs them
and draws the limit circles from the tensor), and nothing is written into
the repository root or the current directory; the README's package list
is the one scripts/setup.sh installs.
Usage: test_quickstart.py SLEIGHSWEEP SOURCE_DIR"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PY = "/usr/bin/python3"


def listing():
    return sorted(os.listdir(ROOT))


with tempfile.TemporaryDirectory() as build, \
        tempfile.TemporaryDirectory() as cwd:
    os.symlink(EXE, os.path.join(build, "sleighsweep"))
    before, before_cwd = listing(), os.listdir(cwd)
    env = dict(ENV, BUILD_DIR=build, QUICKSTART_NO_BUILD="1")
    r = subprocess.run([os.path.join(ROOT, "scripts", "quickstart.sh")],
                       cwd=cwd, env=env, capture_output=True, text=True)
    check(r.returncode == 0, f"quickstart: {r.returncode} {r.stderr}")
    for name in ("tiny.h5", "seed.csv", "seed.json"):
        check(os.path.exists(os.path.join(build, name)),
              f"quickstart did not write {name} into the build directory")
    # README: plot the seed case and validate the sweep, from the root
    r = subprocess.run([PY, os.path.join(ROOT, "analysis", "trajectory.py"),
                        os.path.join(build, "seed.csv"), "--out",
                        os.path.join(build, "seed.pdf")], cwd=ROOT,
                       capture_output=True, text=True, env=ENV)
    check(r.returncode == 0 and "(from the tensor)" in r.stdout,
          f"trajectory.py did not pair seed.csv with seed.json: {r.stdout} "
          f"{r.stderr}")
    r = subprocess.run([PY, os.path.join(ROOT, "analysis", "validate.py"),
                        os.path.join(build, "tiny.h5")], cwd=ROOT,
                       capture_output=True, text=True, env=ENV)
    check(r.returncode == 0, f"validate tiny.h5: {r.returncode} {r.stdout}")
    check(listing() == before, "files appeared in the repository root: "
          f"{sorted(set(listing()) - set(before))}")
    check(os.listdir(cwd) == before_cwd, "files appeared in the current "
          f"directory: {os.listdir(cwd)}")
# The README's package list is the one scripts/setup.sh installs (both name
# netcdf-bin for the ncdump the docs use), and it says how to test without
# SLURM.
readme = open(os.path.join(ROOT, "README.md")).read()
para = readme[readme.index("Packages: "):readme.index("Analysis scripts run")]
listed = {w for chunk in re.findall(r"`([^`]*)`", para.replace("\n", " "))
          for w in chunk.split() if re.fullmatch(r"[a-z0-9.+-]+", w)}
listed.discard("ncdump")
setup = open(os.path.join(ROOT, "scripts", "setup.sh")).read()
pkgs = set(re.search(r'PKGS="([^"]*)"', setup).group(1).replace("$*", "")
           .split())
check("netcdf-bin" in listed and listed <= pkgs,
      f"README packages not installed by setup.sh: {sorted(listed - pkgs)}")
check(pkgs - listed <= {"make", "git"},
      f"setup.sh packages the README does not list: {sorted(pkgs - listed)}")
check("ctest -LE slurm" in readme, "README does not say how to test without "
      "SLURM")
sys.exit(exit_status())
