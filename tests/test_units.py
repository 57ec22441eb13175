"""[body] length_unit / mass_unit reach every `units` attribute of the file
in UDUNITS form (parsed by udunits2 where installed), with time in s; the
root carries Conventions = "CF-1.8"; without the keys the generic words
stay. Usage: test_units.py SLEIGHSWEEP MPIEXEC"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
{units}
[grid]
theta = 30deg, 60deg
a = 0.2
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
[output]
file = {out}
samples = 1
sample_nodes = 8
"""
# generic unit words of the layout -> expected with m and kg
EXPECT = {"length": "m", "mass": "kg", "mass length": "kg m",
          "mass length2": "kg m2", "rad": "rad", "1": "1", "time": "s",
          "rad time-1": "rad s-1", "length time-1": "m s-1",
          "mass length2 time-2": "kg m2 s-2"}
NAMES = {"J": "mass length2", "M": "mass", "L1": "mass length",
         "center_spacing": "length", "transition_angle": "rad",
         "steps_mean": "1", "theta": "rad", "a": "length", "B": "length",
         "samples/t": "time", "samples/omega": "rad time-1",
         "samples/v": "length time-1", "samples/H": "mass length2 time-2",
         "samples/x": "length"}


def units_of(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o.attrs["units"].decode())
                     if "units" in o.attrs else None)
        conv = f.attrs.get("Conventions")
    return out, conv


def run(tmp, name, units):
    out = os.path.join(tmp, name + ".h5")
    cfg = os.path.join(tmp, name + ".ini")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(units=units, out=out))
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "1", EXE, "run",
                        "--quiet", cfg], env=ENV, capture_output=True,
                       text=True)
    return p, out


with tempfile.TemporaryDirectory() as tmp:
    p, si = run(tmp, "si", "length_unit = m\nmass_unit = kg")
    check(p.returncode == 0, f"run with units: {p.stderr}")
    got, conv = units_of(si)
    check(conv == b"CF-1.8", f"Conventions {conv!r}")
    for name, generic in NAMES.items():
        check(got.get(name) == EXPECT[generic],
              f"{name}: units {got.get(name)!r}, expected "
              f"{EXPECT[generic]!r}")
    with h5py.File(si, "r") as f:
        check(f.attrs["length_unit"] == b"m" and f.attrs["mass_unit"] ==
              b"kg", "root length_unit / mass_unit")
    udu = shutil.which("udunits2")
    for name, u in sorted(got.items()):
        if udu:
            r = subprocess.run([udu, "-H", u, "-W", ""], capture_output=True,
                               text=True, stdin=subprocess.DEVNULL)
            check(r.returncode == 0, f"udunits2 cannot parse {name}: {u!r}")
    if not udu:
        print("note: udunits2 not installed (apt install udunits-bin): "
              "unit strings checked against the table only", file=sys.stderr)

    p, plain = run(tmp, "plain", "")
    got, _ = units_of(plain)
    check(got.get("J") == "mass length2" and got.get("samples/t") == "time",
          f"without units: {got.get('J')!r} {got.get('samples/t')!r}")
    p, half = run(tmp, "half", "length_unit = cm")
    got, _ = units_of(half)
    check(got.get("J") == "mass cm2" and got.get("samples/t") == "time",
          f"length only: {got.get('J')!r} {got.get('samples/t')!r}")

    p, _ = run(tmp, "bad", "length_unit = m s")
    check(p.returncode == 2 and "[body] length_unit:" in p.stderr and
          "unit symbol" in p.stderr, f"bad unit: {p.returncode} {p.stderr}")
sys.exit(exit_status())
