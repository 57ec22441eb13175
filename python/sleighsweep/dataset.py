"""The one reader of a sweep file: `open` gives an xarray.Dataset (engine
h5netcdf) with the grid axes as coordinates, units and long names as the
file stores them, categories decoded from their CF flag_values /
flag_meanings, unswept axes optionally squeezed, and the groups
(boundaries, samples, segments) reachable by name or through the `ssw`
accessor. `export` writes a squeezed netCDF-4 copy that CDO and NCO read.
Everything else in the package reads files through these functions."""
import os

# A sweep still running holds the file open; HDF5's advisory lock would
# refuse a reader. Reading a flushed file without the lock is safe (only
# `done` points are trusted).
os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

GROUPS = ("boundaries", "samples", "segments")
# The census's slots (docs/output.md, "The census"): a dimension of the
# attractor_* datasets, not a grid axis (never squeezed, never swept).
SLOT_DIM = "attractor_slot"
# Categorical variables left as their codes by `categories=True`: `done`
# is the mask every reader compares with 1 (docs/output.md).
KEEP_CODES = ("done",)
NOT_DONE = ""  # the label of a category whose point holds no value yet


class FileError(Exception):
    """A path that is not a readable sleighsweep output file."""


def _check_path(path, group):
    if not os.path.exists(path):
        raise FileError(f"{path}: no such file")
    if group is not None and group not in GROUPS:
        raise FileError(f"group {group!r}: a sweep file's groups are "
                        f"{', '.join(GROUPS)}")


def flag_table(var):
    """[(code, meaning)] of a categorical variable (CF flag_values and
    flag_meanings), or None for a bit field (flag_masks) or a plain one."""
    vals = var.attrs.get("flag_values")
    means = var.attrs.get("flag_meanings")
    if vals is None or means is None:
        return None
    if isinstance(means, bytes):
        means = means.decode()
    return list(zip((int(v) for v in np.atleast_1d(vals)), means.split()))


def decode_categories(ds, keep=KEEP_CODES):
    """Each categorical variable (flag_values / flag_meanings) as its
    meanings (strings; NOT_DONE where the point holds no value); the
    attributes stay, so `codes` turns it back."""
    out = ds.copy()
    for name, var in ds.data_vars.items():
        table = flag_table(var)
        if table is None or name in keep or var.dtype.kind in "OUS":
            continue
        raw = np.asarray(var.values, dtype=float)
        labels = np.full(raw.shape, NOT_DONE, dtype=object)
        for code, meaning in table:
            labels[raw == code] = meaning
        new = var.copy(data=labels.astype(str))
        # strings now: the stored int8 and its fill value no longer apply
        # (to_netcdf writes the meanings; categories=False keeps codes)
        new.encoding = {}
        out[name] = new
    return out


def codes(var):
    """A categorical DataArray as float codes (NaN where NOT_DONE or not a
    known meaning), whether `open` decoded it or not."""
    if var.dtype.kind not in "OUS":
        return var.astype(float)
    table = flag_table(var)
    if table is None:
        raise ValueError(f"{var.name}: strings without flag_meanings")
    raw = np.asarray(var.values).astype(str)
    out = np.full(raw.shape, np.nan)
    for code, meaning in table:
        out[raw == meaning] = code
    return var.copy(data=out)


def squeeze_axes(ds):
    """Drops the size-1 grid dimensions (each stays as a scalar
    coordinate holding its one value)."""
    one = [d for d, n in ds.sizes.items()
           if n == 1 and d in ds.coords and d != SLOT_DIM]
    return ds.squeeze(one) if one else ds


def open(path, group=None, squeeze=False, categories=True,  # noqa: A001
         mask=True):
    """A sweep file (or one of its groups) as an xarray.Dataset.

    group: None (the grid), "boundaries", "samples" or "segments".
    squeeze: drop the grid axes of one value (scalar coordinates).
    categories: categorical variables (regime, sense, ...) as their
    meanings (strings) instead of codes; `done` keeps its codes.
    mask: CF decoding of _FillValue (NaN where a point is not done); False
    keeps the stored integers (what the plot functions read).
    Raises FileError for a missing file or one that is not a sweep."""
    _check_path(path, group)
    try:
        ds = xr.open_dataset(path, engine="h5netcdf", group=group,
                             mask_and_scale=mask, decode_timedelta=False)
    except (OSError, ValueError) as e:
        raise FileError(f"{path}: cannot open as a sweep file "
                        f"({group or 'root'}: {e})") from None
    program = ds.attrs.get("program")
    if group is None and program != "sleighsweep":
        ds.close()
        raise FileError(f"{path}: not a sleighsweep output file "
                        f"(program = {program!r})")
    if categories:
        ds = decode_categories(ds)
    if squeeze:
        ds = squeeze_axes(ds)
    ds.encoding.setdefault("source", os.path.abspath(path))
    ds.attrs.setdefault("_ssw_group", group or "")
    return ds


def has_group(path, group):
    """Whether the file has the group (opened through `open`)."""
    try:
        open(path, group=group, categories=False).close()
        return True
    except (FileError, OSError, ValueError):
        return False


def _split_slots(ds):
    """The census's variables over attractor_slot as one variable per
    slot (NAME_0, NAME_1, ...), the slot dimension dropped."""
    if SLOT_DIM not in ds.dims:
        return ds
    names = [n for n, v in ds.data_vars.items() if SLOT_DIM in v.dims]
    for name in names:
        for k in range(ds.sizes[SLOT_DIM]):
            v = ds[name].isel({SLOT_DIM: k}, drop=True)
            v.attrs["long_name"] = (f"{v.attrs.get('long_name', name)} "
                                    f"(attractor slot {k})")
            ds[f"{name}_{k}"] = v
    return ds.drop_vars(names + [SLOT_DIM])


def export(path, out, group=None):
    """A squeezed netCDF-4 copy of the file (or a group) at `out`: the
    unswept axes leave the dimensions (CDO takes at most four and none
    of one value as a grid axis) and stay as scalar coordinates;
    categories keep their codes and CF flag attributes; each census
    dataset over attractor_slot becomes one variable per slot, NAME_K
    (CDO reads every variable on the one grid of the swept axes, and would
    take the slot for a grid or level axis). Returns out."""
    ds = _split_slots(open(path, group=group, squeeze=True, categories=False))
    ds.attrs.pop("_ssw_group", None)
    # the squeezed axes as scalar variables (what NCO's ncwa leaves): a
    # scalar coordinate would be named in `coordinates`, which CDO cannot
    # assign to a grid
    ds = ds.reset_coords([c for c in ds.coords if ds[c].ndim == 0])
    # netCDF-4 classic tools want plain attribute types
    for k, v in list(ds.attrs.items()):
        if isinstance(v, np.generic):
            ds.attrs[k] = v.item()
    ds.to_netcdf(out, engine="h5netcdf")
    ds.close()
    return out


@xr.register_dataset_accessor("ssw")
class SweepAccessor:
    """`ds.ssw`: what a sweep Dataset knows beyond xarray's view: its
    groups, its swept axes, its fixed parameters, a category's codes."""

    def __init__(self, ds):
        self._ds = ds

    @property
    def path(self):
        return self._ds.encoding.get("source")

    def group(self, name, **kw):
        """One of the file's groups (boundaries, samples, segments)."""
        if not self.path:
            raise FileError("this Dataset was not opened from a sweep file")
        return open(self.path, group=name, **kw)

    @property
    def swept(self):
        """The grid axes with more than one value, in storage order (not
        the census's attractor_slot)."""
        return tuple(d for d in self._ds.dims
                     if self._ds.sizes[d] > 1 and d != SLOT_DIM)

    def fixed(self):
        """{name: value} of every parameter constant over the Dataset:
        the axes of one value and the root attributes of the body and of
        the run axes the file does not sweep (m, I0, rho, drag_w, ...)."""
        from .sweep import RUN_AXES
        out = {k: float(self._ds.attrs[k]) for k in ("m", "I0", "rho")
               if k in self._ds.attrs}
        for d, c in self._ds.coords.items():
            if c.size == 1 and d not in self.swept and c.dtype.kind == "f":
                out[d] = float(c.values.reshape(-1)[0])
        for a in RUN_AXES:
            if a not in out and a in self._ds.attrs:
                out[a] = float(self._ds.attrs[a])
        return out

    def codes(self, name):
        return codes(self._ds[name])
