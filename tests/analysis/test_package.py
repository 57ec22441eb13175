#!/usr/bin/python3
"""The sleighsweep package on sweeps made here (mpirun -np 2):
a drag map over (drag_v, theta) with samples and a (Gamma, energy) map
with critical and drift refinement.

- open: the Dataset's dimensions are the file's (the `done` mask's, in
  order, then the census's attractor_slot), its coordinates and every
  variable's values equal what HDF5 stores (h5py, bit for bit), units
  and long_name as stored; categories decoded to the file's
  flag_meanings point by point (done kept as codes); codes() gives the
  stored codes back; squeeze leaves the swept axes only with the others
  as scalar coordinates of the same values;
  groups (boundaries, samples, segments) open by name and through
  ds.ssw.group, with the stored values; a group that does not exist and
  a missing file are errors; ds.ssw.fixed() names drag_w.
- export (python3 -m sleighsweep export): exit 0, the copy's dimensions
  are the swept axes only (a census dataset one variable per slot),
  values bit for bit; `cdo sinfo` reads it
  (exit 0, the grid's point count) and NCO's ncks lists it.
- validate.py: on the drag map it compares the decay rate with its
  closed form at every done point and says so (exit 0); on a copy whose
  closed forms are all NaN it compares nothing and FAILS (exit 1).
- The Python examples of README.md and docs/output.md run as written.
- No second reader: no `import h5py` in python/sleighsweep or analysis/;
  the scripts run with the package found by analysis/_bootstrap.py
  (PYTHONPATH unset).
Usage: test_package.py SLEIGHSWEEP [MPIEXEC]"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PYDIR = os.path.join(ROOT, "python")
sys.path.insert(0, PYDIR)
sys.path.insert(0, os.path.join(HERE, ".."))

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

import sleighsweep  # noqa: E402
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
DRAG = """[body]
m = 1
I0 = 0.5
rho = 1
drag_w = 0.1
[grid]
theta = linspace(10deg, 170deg, 5)
a = 0.2
A = 0.5
B = 0.3
drag_v = 0.01, 0.1, 1
[ensemble]
trajectories = 2
[output]
samples = 1
"""
GE = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 60deg
a = 0.2
b = 0.1
r = 0.3
s = -0.2
A = 0.5
B = 0.3
Gamma = linspace(0.5, 3, 6)
energy = logspace(0.01, 10, 7)
[ensemble]
trajectories = 2
[integrator]
eta = 0.8
tol = 1e-5
[refine]
classes = critical, drift
tol = 1e-6
"""


def sweep(tmp, name, text):
    ini, out = (os.path.join(tmp, name + e) for e in (".ini", ".h5"))
    with open(ini, "w") as f:
        f.write(text)
    p = subprocess.run([MPIEXEC, "-np", "2", "--oversubscribe", EXE, "run",
                        "--quiet", "--output", out, ini],
                       capture_output=True, text=True, env=ENV)
    check(p.returncode == 0, f"{name}: sweep: {p.stderr[-300:]}")
    return out


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def check_open(path):
    ds = sleighsweep.open(path)
    raw = sleighsweep.open(path, categories=False, mask=False)
    with h5py.File(path, "r") as f:
        shape = f["done"].shape
        # the grid's dims, then the census's attractor_slot
        check(ds["done"].shape == shape and
              list(ds.dims) == list(raw["done"].dims) + ["attractor_slot"],
              f"dims {dict(ds.sizes)} against done {shape}")
        for name in raw.dims:
            check(same(ds[name].values, f[name][()]), f"coordinate {name}")
        for name, var in raw.data_vars.items():
            check(same(var.values, f[name][()]), f"{name}: values as stored")
            for key in ("units", "long_name"):
                check(text(f[name].attrs.get(key, "")) ==
                      str(var.attrs.get(key, "")), f"{name}: {key}")
            means = f[name].attrs.get("flag_meanings")
            if f[name].attrs.get("flag_values") is None or means is None:
                continue
            table = dict(zip(np.atleast_1d(f[name].attrs["flag_values"]),
                             text(means).split()))
            stored = f[name][()]
            if name == "done":
                check(ds[name].dtype.kind in "iu", "done keeps its codes")
                continue
            want = np.vectorize(lambda c: table.get(c, ""))(stored)
            check(np.array_equal(ds[name].values.astype(str), want),
                  f"{name}: decoded to its flag_meanings")
            back = sleighsweep.codes(ds[name]).values
            known = np.isin(stored, list(table))
            check(np.array_equal(back[known], stored[known]),
                  f"{name}: codes() round trip")
        for group in ("boundaries", "samples", "segments"):
            if group not in f:
                continue
            g = ds.ssw.group(group, categories=False, mask=False)
            for name, var in g.data_vars.items():
                if var.dtype.kind in "fiu":
                    check(same(var.values, f[group][name][()]),
                          f"/{group}/{name}: values as stored")
    sq = sleighsweep.open(path, squeeze=True)
    swept = [d for d in raw.dims if raw.sizes[d] > 1]
    check(list(sq.dims) == swept, f"squeezed dims {list(sq.dims)}")
    for d in raw.dims:
        if raw.sizes[d] == 1:
            check(sq[d].ndim == 0 and float(sq[d]) == float(raw[d][0]),
                  f"squeezed {d} kept as a scalar coordinate")
    return ds, raw


def check_errors(tmp, path):
    for what, call in (
            ("missing file",
             lambda: sleighsweep.open(os.path.join(tmp, "none.h5"))),
            ("unknown group",
             lambda: sleighsweep.open(path, group="nothing"))):
        try:
            call()
            check(False, f"{what}: no error")
        except sleighsweep.FileError as e:
            check(str(e), f"{what}: {e}")


def check_export(tmp, path, raw):
    out = os.path.join(tmp, os.path.basename(path) + ".nc")
    p = subprocess.run([sys.executable, "-m", "sleighsweep", "export", path,
                        out], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=PYDIR))
    check(p.returncode == 0 and os.path.exists(out),
          f"export: {p.returncode} {p.stderr}")
    ex = xr.open_dataset(out, engine="h5netcdf", mask_and_scale=False)
    # the grid's swept axes: the census's slots become variables NAME_K
    swept = [d for d in raw.dims if raw.sizes[d] > 1 and d != "attractor_slot"]
    check(same(ex["attractor_fraction_1"].values,
               raw["attractor_fraction"].isel(attractor_slot=1).squeeze()
               .values), "exported attractor_fraction_1 bit for bit")
    check(list(ex.dims) == swept, f"exported dims {list(ex.dims)}")
    for name in ("J", "regime", "done"):
        check(same(ex[name].values, raw[name].squeeze().values),
              f"exported {name} bit for bit")
    points = int(np.prod([raw.sizes[d] for d in swept]))
    cdo = shutil.which("cdo")
    if cdo is None:
        print("cdo not installed (scripts/setup.sh installs it): skipped")
    else:
        p = subprocess.run([cdo, "sinfo", out], capture_output=True,
                           text=True)
        check(p.returncode == 0 and re.search(rf"points={points}\b",
                                              p.stdout),
              f"cdo sinfo {out}: {p.returncode} {p.stdout[-300:]} "
              f"{p.stderr[-300:]}")
    ncks = shutil.which("ncks")
    if ncks:
        p = subprocess.run([ncks, "-m", out], capture_output=True, text=True)
        check(p.returncode == 0 and "regime" in p.stdout,
              f"ncks -m {out}: {p.stderr[-200:]}")


def check_validate(tmp, path):
    script = os.path.join(ROOT, "analysis", "validate.py")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, script, path], capture_output=True,
                       text=True, env=env)
    done = int(np.count_nonzero(sleighsweep.open(path).done.values == 1))
    check(p.returncode == 0 and
          f"compared with a closed form: decay_rate ({done})" in p.stdout,
          f"validate drag: {p.returncode} {p.stdout[-500:]} {p.stderr}")
    blank = os.path.join(tmp, "no_closed_forms.h5")
    shutil.copy(path, blank)
    with h5py.File(blank, "r+") as f:
        for name in list(f):
            if name.startswith("analytic_") and f[name].dtype.kind == "f":
                f[name][...] = np.nan
    p = subprocess.run([sys.executable, script, blank], capture_output=True,
                       text=True, env=env)
    check(p.returncode == 1 and "compared with a closed form: nothing"
          in p.stdout and "FAIL" in p.stdout,
          f"validate with no closed form: {p.returncode} {p.stdout[-300:]}")


def check_docs(tmp, path):
    """The Python examples of README.md and docs/output.md that use the
    package run as written (with this test's drag file for theirs)."""
    blocks = []
    for doc in ("README.md", os.path.join("docs", "output.md")):
        text = open(os.path.join(ROOT, doc)).read()
        blocks += [(doc, b) for b in re.findall(r"```python\n(.*?)```",
                                                text, re.S)
                   if "sleighsweep" in b]
    check(len(blocks) >= 3, f"{len(blocks)} package examples in the docs")
    for doc, code in blocks:
        for name in ("sweep.h5", "drag.h5", "run.h5"):
            code = code.replace(f'"{name}"', repr(path))
        p = subprocess.run([sys.executable, "-c", code], cwd=tmp,
                           capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=PYDIR,
                                    MPLBACKEND="Agg"))
        check(p.returncode == 0, f"{doc} example failed: {code[:80]!r}: "
              f"{p.stderr[-400:]}")


def check_one_reader():
    for d in (os.path.join(PYDIR, "sleighsweep"),
              os.path.join(ROOT, "analysis")):
        for name in sorted(os.listdir(d)):
            if name.endswith(".py"):
                src = open(os.path.join(d, name)).read()
                check(not re.search(r"^\s*(import|from) h5py", src, re.M),
                      f"{name}: reads the file with h5py")


with tempfile.TemporaryDirectory() as tmp:
    drag = sweep(tmp, "drag", DRAG)
    ge = sweep(tmp, "ge", GE)
    for path in (drag, ge):
        ds, raw = check_open(path)
        check_export(tmp, path, raw)
    fixed = sleighsweep.open(drag).ssw.fixed()
    check(fixed.get("drag_w") == 0.1 and fixed.get("a") == 0.2 and
          "drag_v" not in fixed, f"ssw.fixed() {fixed}")
    check_errors(tmp, drag)
    check_validate(tmp, drag)
    check_docs(tmp, drag)
    check_one_reader()
sys.exit(exit_status())
