"""Checks an output file written by test_h5out as xarray (h5netcdf) and, when
installed, netCDF's ncdump see it: the seven named grid dimensions with
coordinates, the samples and segments groups, units, decoded string
attributes and NaN for the point the test never writes; the whole file
through xarray's netCDF writer and back. Usage: check_xarray.py FILE.h5"""
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
    # The grid dims and the census's slots (test_h5out.c's SLOTS): the run
    # segments have a group of their own.
    expect(list(ds.dims) == DIMS + ["attractor_slot"], f"dims {list(ds.dims)}")
    expect(dict(ds.sizes) == dict(zip(DIMS, SHAPE), attractor_slot=2),
           f"sizes {dict(ds.sizes)}")
    expect(ds["attractor_fraction"].dims == tuple(DIMS) + ("attractor_slot",)
           and list(ds["attractor_slot"].values) == [0, 1],
           f"attractor_fraction dims {ds['attractor_fraction'].dims}")
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


def check_segments(path):
    """/segments: one 1-D variable per field over `segment` (test_h5out.c
    writes an interrupted segment, then a complete one); times decode as
    CF times, the status as a flag."""
    ds = xr.open_dataset(path, engine="h5netcdf", group="segments")
    expect(list(ds.dims) == ["segment"] and ds.sizes["segment"] == 2,
           f"segments dims {dict(ds.sizes)}")
    expect(list(ds["segment"].values) == [0, 1], "segment coordinate")
    expect(list(ds["status"].values) == [0, 1] and
           ds["status"].attrs.get("flag_meanings") == "interrupted complete",
           f"segments status {ds['status'].values} {ds['status'].attrs}")
    start = np.datetime_as_string(ds["start_time"].values, unit="s")
    expect(list(start) == ["2025-01-31T12:00:00", "2025-01-31T12:01:30"],
           f"segments start_time {start}")
    expect(list(ds["mpi_ranks"].values) == [3, 2] and
           list(ds["wall_time_s"].values) == [60.0, 1.5],
           f"segments ranks, wall time {ds['mpi_ranks'].values} "
           f"{ds['wall_time_s'].values}")
    ds.close()


def same_values(a, b):
    """Arrays equal, NaN equal to NaN (and NaT to NaT)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fcmM":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def same_attrs(a, b):
    return set(a) == set(b) and all(
        same_values(a[k], b[k]) if isinstance(a[k], np.ndarray) or
        isinstance(b[k], np.ndarray) else a[k] == b[k] for k in a)


def check_roundtrip(path):
    """The whole file (root, /samples, /segments) through
    xarray's netCDF writer and back, values, dtypes and attributes equal;
    and the plain xr.open_dataset(file).to_netcdf(...) of the root."""
    out = path + ".roundtrip.nc"
    groups = [None, "samples", "segments"]
    first = {g: xr.open_dataset(path, engine="h5netcdf", group=g)
             for g in groups}
    try:
        for k, g in enumerate(groups):
            first[g].to_netcdf(out, mode="w" if k == 0 else "a", group=g,
                               engine="h5netcdf")
    except Exception as e:  # the compound /segments: "unsupported dtype"
        expect(False, f"to_netcdf failed: {e!r}")
        return
    for g in groups:
        back = xr.open_dataset(out, engine="h5netcdf", group=g)
        a = first[g]
        expect(set(back.variables) == set(a.variables),
               f"round trip {g}: variables {sorted(back.variables)}")
        for v in a.variables:
            expect(v in back.variables and
                   same_values(a[v].values, back[v].values) and
                   a[v].dims == back[v].dims and
                   same_attrs(a[v].attrs, back[v].attrs),
                   f"round trip {g}/{v}: values, dims or attributes differ")
        expect(same_attrs(back.attrs, a.attrs),
               f"round trip {g}: attributes differ")
        back.close()
        a.close()
    xr.open_dataset(path, engine="h5netcdf").to_netcdf(out, engine="h5netcdf")


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
    expect("group: segments {" in out.stdout and
           "double start_time(segment) ;" in out.stdout and
           "byte status(segment) ;" in out.stdout,
           "ncdump does not show the segments group")
    out = subprocess.run(["ncdump", "-v", "status,start_time", "-t", path],
                         capture_output=True, text=True)
    expect(out.returncode == 0 and '"2025-01-31 12:01:30"' in out.stdout,
           f"ncdump of the segments: {out.returncode} {out.stdout[-300:]}")


if __name__ == "__main__":
    check_root(sys.argv[1])
    check_samples(sys.argv[1])
    check_segments(sys.argv[1])
    check_roundtrip(sys.argv[1])
    check_ncdump(sys.argv[1])
    sys.exit(1 if failures else 0)
