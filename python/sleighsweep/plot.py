"""Plot functions over sweep Datasets, matplotlib style: each takes a
Dataset or DataArray from sleighsweep.open (or a file's path) and an
optional Axes, draws, and returns the Axes. Labels come from the file's
long_name and units; titles name every fixed parameter; legends name what
differs between curves.

    import sleighsweep, sleighsweep.plot as sp
    ds = sleighsweep.open("sweep.h5")
    ax = sp.phase_diagram(ds.regime.sel(b=0, r=0, s=0, A=0.5, B=0.3))
    ax.figure.savefig("regimes.pdf")

A selection made on the Dataset (a scalar coordinate left by `.sel`, or a
dimension of one value) fixes that axis of the slice; the other two
swept axes are the map's unless x and y say which. The command lines
(analysis/*.py) call these same modules."""
import xarray as xr

from . import phase_diagram as _pd
from . import portrait as _portrait
from . import style
from . import trajectory as _tr
from . import validate as _validate
from .sweep import ALL_AXES, UsageError

__all__ = ["phase_diagram", "trajectories", "portrait", "validation",
           "gallery"]


def _source(obj):
    """(path, {axis: value fixed by a selection}, variable name or None)
    of a path, Dataset or DataArray."""
    if isinstance(obj, str):
        return obj, {}, None
    if not isinstance(obj, (xr.Dataset, xr.DataArray)):
        raise TypeError("expected a path, an xarray Dataset or a DataArray "
                        f"from sleighsweep.open, not {type(obj).__name__}")
    path = obj.encoding.get("source")
    if path is None and isinstance(obj, xr.DataArray):
        raise UsageError(f"{obj.name}: no source file in its encoding; pass "
                         "the Dataset from sleighsweep.open")
    if path is None:
        raise UsageError("the Dataset has no source file; open it with "
                         "sleighsweep.open")
    fixed = {}
    for name, c in obj.coords.items():
        if name in ALL_AXES and name not in obj.dims and c.size == 1:
            fixed[name] = float(c.values.reshape(-1)[0])
    for name in obj.dims:
        if name in ALL_AXES and obj.sizes[name] == 1:
            fixed[name] = float(obj[name].values[0])
    name = obj.name if isinstance(obj, xr.DataArray) else None
    return path, fixed, name


def _map_axes(obj, x, y):
    """The map's axes: x and y as given, else the object's swept axes in
    storage order (the first two of more than one value)."""
    if x and y:
        return x, y
    swept = [d for d in obj.dims if obj.sizes[d] > 1 and d in ALL_AXES] \
        if not isinstance(obj, str) else []
    left = [d for d in swept if d not in (x, y)]
    x = x or (left.pop(0) if left else "theta")
    y = y or (left.pop(0) if left else "a")
    return x, y


def phase_diagram(data, quantity=None, x=None, y=None, ax=None, **kw):
    """A 2-D map of `quantity` (regime by default, or the DataArray's
    variable) over x and y: categories in the file's colours and names,
    continuous quantities on a colour bar named by the quantity, the
    closed-form boundaries (Z = 0, L1 = 0, H = H_c, loop and drift level
    sets), the refined crossings as points joined along one branch only.
    Keywords as phase_diagram.plot_phase_diagram (shade, critical,
    refined, scale, angles, labels, ...). Returns the Axes; the result
    with the plotted arrays is on ax.sleighsweep."""
    path, fixed, name = _source(data)
    quantity = quantity or name or "regime"
    if not isinstance(data, str):
        x, y = _map_axes(data, x, y)
    fix = dict(fixed)
    fix.update(_pd.normalize_fix(kw.pop("fix", None)))
    for a in (x, y):
        fix.pop(a, None)
    kw.setdefault("quiet", True)
    result = _pd.plot_phase_diagram(path, x=x or "theta", y=y or "a",
                                    quantity=quantity, fix=fix or None,
                                    ax=ax, **kw)
    out = result.axes[0]
    out.sleighsweep = result
    return out


def trajectories(data, at=None, samples=(0,), ax=None, **kw):
    """The kept sample trajectories of the grid points `at` (a dict, or a
    list of dicts: one point each; a selection on the Dataset fixes the
    rest), their bodies, limit circles or rest points; the legend names
    what differs between the points. Keywords as
    trajectory.plot_trajectories. Returns the Axes."""
    path, fixed, _ = _source(data)
    points = at if isinstance(at, (list, tuple)) else [at or {}]
    trajs, blank = [], 0
    for p in points:
        want = dict(fixed)
        want.update(_pd.normalize_fix(p, "--at"))
        got, b = _tr.load_samples(path, want, samples, quiet=True)
        trajs += got
        blank += b
    # labels name what differs between the points, the title the rest
    common = _tr.auto_labels(trajs)
    kw.setdefault("title", common)
    result = _tr.plot_trajectories(trajs, ax=ax, blank=blank, **kw)
    result.ax.sleighsweep = result
    return result.ax


def portrait(data, at=None, samples=(0,), ax=None, **kw):
    """The (omega, v) phase portrait of the kept samples at the grid
    point `at`, with the energy ellipse. Returns the Axes."""
    path, fixed, _ = _source(data)
    want = dict(fixed)
    want.update(_pd.normalize_fix(at, "--at"))
    trajs, _ = _tr.load_samples(path, want, samples, quiet=True)
    result = _portrait.plot_portrait(trajs, ax=ax, **kw)
    result.ax.sleighsweep = result
    return result.ax


def validation(data, tol=1e-6, out=None):
    """Measured against closed form for every quantity of the file with
    one (validate.validate) drawn as scatter and relative-error panels.
    Returns the Axes of the figure (a list)."""
    path, _, _ = _source(data)
    rep = _validate.validate(path, tol=tol, allow_nonconverged=True,
                             plot=out or "", quiet=True)
    return list(rep.fig.axes)


def gallery(data_dir, out_dir, formats=("pdf", "png")):
    """Every figure of the gallery from the files analysis/figures.sh
    wrote in data_dir, into out_dir with index.md. Returns {figure:
    plotted data}."""
    from . import gallery as _gallery
    return _gallery.build(data_dir, out_dir, formats)[0]


style.setup()
