"""Checks an output file written by test_h5out as xarray (h5netcdf) and, when
installed, netCDF's ncdump see it: the seven named grid dimensions with
coordinates, the samples group, units, decoded string attributes and NaN
for the point the test never writes. Usage: check_xarray.py FILE.h5"""
import math
import shutil
import subprocess
import sys

import numpy as np
import xarray as xr

DIMS = ["theta", "a", "b", "r", "s", "A", "B"]
SHAPE = [3, 2, 1, 1, 1, 2, 1]
NEVER = 8  # flat index the C test leaves unwritten
UNITS = {"J": "mass length2", "M": "mass", "L1": "mass length",
         "analytic_radius": "length", "transition_angle": "rad",
         "converged_fraction": "1", "regime": "1", "done": "1"}
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)


def coords_of(i):
    return dict(zip(DIMS, np.unravel_index(i, SHAPE)))


def check_root(path):
    ds = xr.open_dataset(path, engine="h5netcdf")
    # The grid dims, then the run segments table (its own dimension).
    expect(list(ds.dims) == DIMS + ["segments"], f"dims {list(ds.dims)}")
    expect(dict(ds.sizes) == dict(zip(DIMS, SHAPE), segments=2),
           f"sizes {dict(ds.sizes)}")
    seg = ds["segments"].values
    expect([s.decode() for s in seg["status"]] == ["interrupted", "complete"],
           f"segments status {seg['status']}")
    expect(not any(d.startswith("phony") for d in ds.dims), "phony dims")
    for k, name in enumerate(DIMS):
        want = ([j * math.pi / 4 for j in range(3)] if k == 0 else
                [0.1 * (k + 1) + 0.1 * j for j in range(SHAPE[k])])
        expect(name in ds.coords and np.array_equal(ds[name].values, want),
               f"coordinate {name} = {ds[name].values}, expected {want}")
    for var, units in UNITS.items():
        expect(ds[var].dims == tuple(DIMS), f"{var} dims {ds[var].dims}")
        expect(ds[var].attrs.get("units") == units,
               f"{var} units {ds[var].attrs.get('units')!r}")
    for i in range(math.prod(SHAPE)):
        at = coords_of(i)
        j = float(ds["J"].isel(at))
        regime = float(ds["regime"].isel(at))
        if i == NEVER:
            expect(math.isnan(j) and math.isnan(regime),
                   f"point {i} not done but J={j}, regime={regime}")
            expect(int(ds["done"].isel(at)) == 0, f"done[{i}] != 0")
        else:
            expect(j == i + 0.25, f"J[{i}] = {j}")
            expect(regime == i % 4, f"regime[{i}] = {regime}")
            expect(int(ds["done"].isel(at)) == 1, f"done[{i}] != 1")
    expect(ds["done"].dtype == np.uint8, f"done dtype {ds['done'].dtype}")
    expect(ds["regime"].attrs.get("flag_meanings") ==
           "uniform line_to_line spin_reversal circle_to_circle periodic",
           "regime flag_meanings")
    for key, want in [("program", "sleighsweep"), ("status", "complete"),
                      ("initial_conditions", "lattice")]:
        got = ds.attrs.get(key)
        expect(isinstance(got, str) and got == want, f"attr {key} = {got!r}")
    expect(isinstance(ds.attrs.get("config"), str) and
           ds.attrs["config"].startswith("[body]\n"), "config attribute")
    ds.close()


def check_samples(path):
    """The chosen points (test_h5out.c: 1, 3, 8, 10) along `point`, with
    their grid coordinates as coordinates."""
    ds = xr.open_dataset(path, engine="h5netcdf", group="samples")
    want = ["point", "sample", "node"]
    expect(list(ds.dims) == want, f"samples dims {list(ds.dims)}")
    expect(ds["t"].dims == tuple(want), f"t dims {ds['t'].dims}")
    chosen = [1, 3, NEVER, 10]
    expect(np.array_equal(ds["point"].values, chosen), "point coordinate")
    expect(all(a in ds["t"].coords for a in DIMS), "grid coordinates of t")
    root = xr.open_dataset(path, engine="h5netcdf")
    for a in DIMS:
        axis = root[a].values
        idx = np.unravel_index(chosen, SHAPE)[DIMS.index(a)]
        expect(np.array_equal(ds[a].values, axis[idx]), f"samples/{a}")
    root.close()
    expect(np.array_equal(ds["sample"].values, [0, 1]), "sample coordinate")
    expect(np.array_equal(ds["node"].values, range(5)), "node coordinate")
    t = ds["t"].values
    for p, i in enumerate(chosen):
        for s in range(2):
            for k in range(5):
                ref = (math.nan if i == NEVER or (s == 1 and k == 4)
                       else i * 1000 + s * 10 + k)
                got = t[p, s, k]
                expect(got == ref or (math.isnan(got) and math.isnan(ref)),
                       f"t[{p},{s},{k}] = {got}, expected {ref}")
    expect(ds["x"].attrs.get("units") == "length", "x units")
    ds.close()


def check_ncdump(path):
    if shutil.which("ncdump") is None:
        print("ncdump not installed: skipping the netCDF-C check")
        return
    out = subprocess.run(["ncdump", "-h", path], capture_output=True,
                         text=True)
    expect(out.returncode == 0, f"ncdump failed: {out.stderr}")
    expect("phony" not in out.stdout, "ncdump shows phony dimensions")
    expect("double J(theta, a, b, r, s, A, B) ;" in out.stdout,
           "ncdump does not show J over the named dims")
    expect("double t(point, sample, node) ;" in out.stdout,
           "ncdump does not show samples/t over the named dims")
    expect("segment_t segments(segments) ;" in out.stdout,
           "ncdump does not show the segments table")


if __name__ == "__main__":
    check_root(sys.argv[1])
    check_samples(sys.argv[1])
    check_ncdump(sys.argv[1])
    sys.exit(1 if failures else 0)
