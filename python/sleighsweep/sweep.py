"""Reading sleighsweep output: open and check a sweep file, pick a 2-D slice
or one grid point of the map (nearest grid values), mask points that are
not done, read `sleighsweep point` CSV/JSON pairs.

Shared by phase_diagram.py, trajectory.py, validate.py and gallery.py. The
layout is the one src/io/h5out.c writes: 1-D coordinate datasets of the
body's seven axes (theta in rad, the others in body length units) and of
the swept run axes, Gamma, energy and the drag entries (a run axis of
one value is a root attribute instead), one N-D dataset per quantity over
(theta, a, b, r, s, A, B[, Gamma][, energy][, drag_w, ...]), the `done`
mask (uint8, 1 = written) and optionally /samples/{t,phi,x,y,omega,v,H}
with dims (sample points, sample, node), NaN-padded.
Sweep.axes are a file's own axes.
"""
import csv
import json
import math
import os
import re
import sys

import numpy as np

from . import dataset

# The engine's names (include/sleighsweep/names.h). A file carries its own
# (flag_values / flag_masks and flag_meanings: Sweep.categories), which the
# scripts prefer; these are for the scripts' choices and style tables.
# tests/test_names.py checks them against a file the engine wrote.
SAMPLE_QUANTITIES = ("t", "phi", "x", "y", "omega", "v", "H")
REGIMES = {0: "uniform", 1: "line_to_line", 2: "spin_reversal",
           3: "circle_to_circle", 4: "periodic"}
SENSES = {-1: "clockwise", 0: "none", 1: "counterclockwise"}
DONE_STATES = {0: "pending", 1: "done"}
ATTRACTORS = {0: "unresolved", 1: "periodic", 2: "accelerating",
              3: "rest", 4: "quasiperiodic", 5: "chaotic"}
TRAJ_FLAGS = {1: "forward_step_cap", 2: "backward_step_cap", 4: "nonfinite",
              8: "equilibrium_start", 16: "no_peak", 32: "rtol_not_met",
              64: "near_critical", 128: "no_estimate", 256: "energy_drift",
              512: "cycle_not_closed", 1024: "exponents_undecided"}
# The grid axes in storage order (names.h SSW_BODY_AXES, then
# SSW_RUN_AXES): (name, TeX symbol, plain symbol for titles, description,
# axis label words, kind). kind "body": always a dimension of a file;
# "run": a dimension (after the body's) only when the config sweeps it,
# else the root attribute of its name (docs/output.md). A file's own axes
# are the dimensions of its `done` mask (Sweep.axes); this table gives
# their symbols and words, and tests/test_names.py checks it against
# names.h and a file the engine wrote.
AXIS_TABLE = (
    ("theta", r"\theta", "θ", "blade angle", "blade angle", "body"),
    ("a", "a", "a", "centre of mass along blade", "centre of mass", "body"),
    ("b", "b", "b", "centre of mass across blade",
     "centre of mass, across", "body"),
    ("r", "r", "r", "ellipse centre along blade", "ellipse centre", "body"),
    ("s", "s", "s", "ellipse centre across blade", "ellipse centre, across",
     "body"),
    ("A", "A", "A", "major semi-axis", "major semi-axis", "body"),
    ("B", "B", "B", "minor semi-axis", "minor semi-axis", "body"),
    ("Gamma", r"\Gamma", "Γ", "circulation", "circulation", "run"),
    ("energy", "H", "H", "energy of every trajectory", "energy", "run"),
    ("drag_w", r"c_\omega", "c_ω", "rotational drag", "rotational drag",
     "run"),
    ("drag_v", "c_v", "c_v", "drag along the blade", "drag along blade",
     "run"),
    ("drag_wv", r"c_{\omega v}", "c_ωv", "drag coupling", "drag coupling",
     "run"),
    ("forcing_freq", r"\Omega", "Ω", "forcing frequency",
     "forcing frequency", "run"),
    ("torque_amp", r"\tau_0", "τ₀", "torque amplitude", "torque amplitude",
     "run"),
    ("forcing_phase", r"\varphi_f", "φ_f", "forcing phase", "forcing phase",
     "run"),
    ("mass_p", r"m_p", "m_p", "moving mass", "moving mass", "run"),
    ("mass_x", r"x_p", "x_p", "mass position", "mass position along the blade",
     "run"),
    ("mass_y", r"y_p", "y_p", "mass offset", "mass offset across the blade",
     "run"),
    ("mass_amp", r"a_p", "a_p", "mass amplitude", "mass oscillation amplitude",
     "run"),
)
BODY_AXES = tuple(row[0] for row in AXIS_TABLE if row[5] == "body")
RUN_AXES = tuple(row[0] for row in AXIS_TABLE if row[5] == "run")
ALL_AXES = BODY_AXES + RUN_AXES  # storage order of a file's dimensions
AXES = BODY_AXES  # the dimensions every file has (tests/test_names.py)
DRAG_AXES = tuple(a for a in RUN_AXES if a.startswith("drag_"))
AXIS_SYMBOLS = {row[0]: row[1] for row in AXIS_TABLE}
TITLE_SYMBOLS = {row[0]: row[2] for row in AXIS_TABLE}
AXIS_NAMES = {row[0]: row[3] for row in AXIS_TABLE}
LABEL_NAMES = {row[0]: row[4] for row in AXIS_TABLE}


class UsageError(Exception):
    """Bad arguments or an unusable input file: the scripts exit with 2."""


def say(*args):
    """Informational line for the user (stdout, flushed)."""
    print(*args, flush=True)


def note(*args):
    """Warning or note (stderr)."""
    print("note:", *args, file=sys.stderr, flush=True)


# ---- values typed by the user -------------------------------------------

# The angle grammar of the engine (src/config/angle.c; docs/config.md,
# "Angles"):
# bare radians within [-2pi, 2pi], NUMBER deg, NUMBER rad, [k][*]pi[/n].
# tests/test_angle.py checks that parse_angle and the C parser agree.
_DEC = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_UNIT_RE = re.compile(rf"([+-]?{_DEC})[ \t]*(deg|rad)?", re.ASCII)
_PI_RE = re.compile(rf"([+-]?)(?:({_DEC})[ \t]*(?:\*[ \t]*)?)?pi"
                    rf"(?:[ \t]*/[ \t]*({_DEC}))?")
ANGLE_BARE_MAX = 2.0 * math.pi


def parse_angle(text):
    """An angle as typed by a user -> radians (float). Raises ValueError
    with the engine's message: '180' -> 'did you mean 180deg?'."""
    t = str(text).strip(" \t")
    if not t:
        raise ValueError("empty angle")
    if len(t) >= 128:
        raise ValueError(f"angle '{t[:40]}...' is too long")
    if "pi" in t:
        m = _PI_RE.fullmatch(t)
        k = float(m.group(2)) if m and m.group(2) else 1.0
        den = float(m.group(3)) if m and m.group(3) else 1.0
        if not m or not math.isfinite(k) or not math.isfinite(den) or \
                den == 0 or not math.isfinite(k * math.pi / den):
            raise ValueError(f"'{t[:40]}' is not an angle; multiples of pi are"
                             " written pi, -pi/2, 2pi/3 or 0.5*pi")
        return (-k if m.group(1) == "-" else k) * math.pi / den + 0.0
    m = _UNIT_RE.fullmatch(t)
    x = float(m.group(1)) + 0.0 if m else math.nan
    if not math.isfinite(x):
        raise ValueError(f"'{t[:40]}' is not an angle (a finite decimal number"
                         " in radians, or e.g. 60deg, 1.2rad, pi/3, 2pi/3)")
    if m.group(2) == "deg":
        return (x / 180.0) * math.pi
    if m.group(2) is None and abs(x) > ANGLE_BARE_MAX:
        raise ValueError(f"{t[:40]} is outside [-2pi, 2pi] as radians; did "
                         f"you mean {t[:40]}deg? (write deg for degrees, or "
                         "rad for a large angle in radians)")
    return x


def parse_value(axis, text):
    """A value typed for `axis`: a number; theta takes parse_angle's
    grammar (60deg, pi/3, 2pi/3, 1.2rad, bare radians within 2 pi)."""
    if axis == "theta":
        try:
            return parse_angle(text)
        except ValueError as e:
            raise UsageError(f"{axis}={text}: {e}") from None
    try:
        v = float(str(text).strip())
    except ValueError:
        raise UsageError(f"{axis}={text}: not a number") from None
    if not math.isfinite(v):
        raise UsageError(f"{axis}={text}: not a finite number")
    return v


def parse_assignments(items, what="--fix", multi=False):
    """['b=0', 'theta=60deg'] -> {'b': 0.0, 'theta': 1.047...}. With multi,
    an axis given again collects a list ('B=0.2 B=0.3' -> {'B': [0.2,
    0.3]}: one value per panel or per file)."""
    out = {}
    for item in items or ():
        for part in str(item).replace(",", " ").split():
            name, eq, value = part.partition("=")
            name = name.strip()
            if not eq or not value.strip():
                raise UsageError(f"{what} {part}: expected NAME=VALUE with "
                                 f"NAME one of {', '.join(ALL_AXES)}")
            if name not in ALL_AXES:
                raise UsageError(f"{what} {part}: unknown axis '{name}'; "
                                 f"the axes are {', '.join(ALL_AXES)}")
            v = parse_value(name, value)
            if name not in out:
                out[name] = v
            elif not multi:
                raise UsageError(f"{what}: axis {name} given twice")
            else:
                old = out[name]
                out[name] = (old if isinstance(old, list) else [old]) + [v]
    return out


def normalize_fix(fix, what="--fix", multi=False):
    """None, {'b': 0, 'theta': '60deg'} or ['b=0', 'theta=60deg'] ->
    {axis: float} (with multi, a value may be a list: {'B': [0.2, 0.3]});
    unknown axes and bad values raise UsageError."""
    if fix is None:
        return {}
    if not isinstance(fix, dict):
        return parse_assignments(fix, what, multi)
    out = {}
    for name, value in fix.items():
        if name not in ALL_AXES:
            raise UsageError(f"{what} {name}: unknown axis '{name}'; the "
                             f"axes are {', '.join(ALL_AXES)}")
        if isinstance(value, (list, tuple)):
            if not multi:
                raise UsageError(f"{what} {name}: one value expected")
            out[name] = [parse_value(name, v) if isinstance(v, str)
                         else float(v) for v in value]
        else:
            out[name] = (parse_value(name, value) if isinstance(value, str)
                         else float(value))
    return out


def fmt_value(axis, v, angles="deg"):
    """A coordinate value for titles and messages."""
    if axis == "theta":
        if angles == "pi":
            return pi_label(v)
        d = math.degrees(v)
        return f"{d:.4g}°" if abs(d - round(d)) > 1e-9 else f"{round(d)}°"
    return f"{v:.4g}"


def pi_label(v, tex=False):
    """An angle as a multiple of pi: 0, π/4, 3π/4, 2π, or 0.31π."""
    pi = r"\pi" if tex else "π"
    q = v / math.pi
    for den in (1, 2, 3, 4, 6, 8, 12):
        num = q * den
        if abs(num - round(num)) < 1e-9:
            num = int(round(num))
            if num == 0:
                return "0"
            sign = "-" if num < 0 else ""
            num = abs(num)
            top = pi if num == 1 else f"{num}{pi}"
            s = top if den == 1 else (rf"{top}/{den}")
            return sign + s
    return f"{q:.3g}{pi}"


# ---- the sweep file ------------------------------------------------------

class Var:
    """One variable of a FileView: h5py's reading idiom over an xarray
    DataArray (`v[()]`, `v[i, :, 0]` give numpy arrays; shape, ndim,
    dtype, attrs, dims)."""

    def __init__(self, da):
        self.da = da
        self.attrs = da.attrs
        self.dims = da.dims
        self.shape, self.ndim, self.dtype = da.shape, da.ndim, da.dtype

    @property
    def values(self):
        return self.da.values

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, key):
        return self.da.values if key == () else np.asarray(self.da[key])


class Group:
    """A Dataset (the grid or a group) addressed by variable name."""

    def __init__(self, ds):
        self.ds = ds
        self.attrs = ds.attrs

    def get(self, name, default=None):
        return Var(self.ds[name]) if name in self.ds.variables else default

    def __contains__(self, name):
        return name in self.ds.variables

    def __getitem__(self, name):
        return Var(self.ds[name])


class FileView(Group):
    """A sweep file as xarray reads it (sleighsweep.open: stored codes, no
    masking), addressed by name: `view["J"]`, `view["samples/x"]`,
    `"boundaries" in view`, `view.attrs`. The groups open on first use."""

    def __init__(self, path):
        self.path = path
        super().__init__(dataset.open(path, categories=False, mask=False))
        self.root = self.ds
        self._groups = {}

    def group(self, name):
        if name not in self._groups:
            try:
                self._groups[name] = dataset.open(
                    self.path, group=name, categories=False, mask=False)
            except dataset.FileError:  # the file has no such group
                self._groups[name] = None
        return self._groups[name]

    def get(self, name, default=None):
        head, _, tail = name.partition("/")
        if head in dataset.GROUPS:
            g = self.group(head)
            if g is None:
                return default
            return Group(g) if not tail else (Var(g[tail]) if tail in
                                              g.variables else default)
        return super().get(name, default)

    def __contains__(self, name):
        return self.get(name) is not None

    def __getitem__(self, name):
        v = self.get(name)
        if v is None:
            raise KeyError(name)
        return v

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for g in self._groups.values():
            if g is not None:
                g.close()
        self.root.close()


class Sweep:
    """An open sleighsweep output file (read only), read through
    sleighsweep.open (FileView): selection of a slice by nearest grid
    values with what was chosen said, titles, units, samples."""

    def __init__(self, path, required=(), need_samples=False):
        self.path = path
        if not os.path.exists(path):
            raise UsageError(f"{path}: no such file")
        try:
            self.f = FileView(path)
        except dataset.FileError as e:
            raise UsageError(str(e)) from None
        if "done" not in self.f:
            self.close()
            raise UsageError(f"{path}: required dataset(s) missing: done "
                             "(not a complete sleighsweep output file)")
        # the file's axes: the dimensions of its `done` mask, in storage
        # order (the body's and the swept run axes; a run axis of one
        # value is a root attribute)
        self.axes = tuple(self.f["done"].dims)
        want = [a for a in BODY_AXES if a not in self.axes] + \
            [r for r in required if r and r not in self.f]
        if want:
            self.close()
            raise UsageError(
                f"{path}: required dataset(s) missing: {', '.join(want)} "
                "(not a complete sleighsweep output file)")
        self.coords = {a: np.asarray(self.f[a].values, dtype=float)
                       for a in self.axes}
        self.shape = tuple(len(self.coords[a]) for a in self.axes)
        for n in [r for r in required if r]:
            if self.f[n].shape != self.shape:
                raise UsageError(f"{path}: dataset {n} has shape "
                                 f"{self.f[n].shape}, the grid is "
                                 f"{self.shape}")
        if need_samples:
            g = self.f.group("samples")
            miss = ([q for q in SAMPLE_QUANTITIES if q not in g.variables]
                    if g is not None else ["samples"])
            if miss:
                raise UsageError(
                    f"{path}: no sample trajectories (missing "
                    f"{', '.join('/samples/' + q for q in miss)}); rerun the "
                    "sweep with [output] samples = N (and sample_points "
                    "choosing the grid points)")

    def close(self):
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def attr(self, name, default=None):
        v = self.f.attrs.get(name, default)
        if isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        if isinstance(v, np.generic):
            v = v.item()
        return v

    def quantities(self):
        """Names of the per-point datasets (the plottable quantities)."""
        return sorted(k for k, v in self.f.root.data_vars.items()
                      if v.shape == self.shape and k != "done")

    def dataset_attr(self, name, key, default=None):
        v = self.f[name].attrs.get(key, default)
        if isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        return v

    def categories(self, name):
        """[(value, meaning)] from flag_values/flag_meanings, or None."""
        d = self.f[name]
        vals = d.attrs.get("flag_values")
        if vals is None:
            vals = d.attrs.get("flag_masks")
        means = d.attrs.get("flag_meanings")
        if vals is None or means is None:
            return None
        if isinstance(means, bytes):
            means = means.decode()
        return list(zip([int(v) for v in np.atleast_1d(vals)], means.split()))

    # -- selection --------------------------------------------------------

    def select(self, keep, fix, angles="deg", quiet=False, option="--fix"):
        """Index tuple for the axes `keep` (left whole) with every other axis
        at one grid value: the nearest to `fix[axis]`, else the only value,
        else the first one (said on stderr). Returns (index, chosen) where
        chosen maps each fixed axis to (value, i)."""
        for name in fix:
            if name in keep:
                raise UsageError(f"{option} {name}: {name} is a plotted axis")
        for name in fix:
            if name not in self.axes:
                self._check_single(name, fix[name], option, quiet)
        index, chosen = [], {}
        for axis, n in zip(self.axes, self.shape):
            if axis in keep:
                index.append(slice(None))
                continue
            grid = self.coords[axis]
            if axis in fix:
                want = fix[axis]
                # xarray's own nearest selection (.sel(method="nearest"));
                # a grid listed out of order has no monotonic index
                idx = self.f.root.get_index(axis)
                i = (int(idx.get_indexer([want], method="nearest")[0])
                     if idx.is_monotonic_increasing or
                     idx.is_monotonic_decreasing else
                     int(np.argmin(np.abs(grid - want))))
                if not quiet:
                    exact = abs(grid[i] - want) <= 1e-12 * max(1, abs(want))
                    how = ("exact grid value" if exact else
                           f"nearest grid value to {fmt_value(axis, want)}")
                    say(f"{self.path}: fixed {axis} = "
                        f"{fmt_value(axis, grid[i], angles)} ({how}, index "
                        f"{i} of {n})")
                    spacing = (np.max(np.diff(grid)) if n > 1 else 0.0)
                    if (want < grid[0] - spacing) or (want > grid[-1] +
                                                      spacing):
                        note(f"{axis} = {fmt_value(axis, want)} is outside "
                             f"the grid [{fmt_value(axis, grid[0])}, "
                             f"{fmt_value(axis, grid[-1])}]")
            else:
                i = 0
                if n > 1 and not quiet:
                    vals = ", ".join(fmt_value(axis, g) for g in grid[:6])
                    more = ", ..." if n > 6 else ""
                    note(f"{self.path}: {axis} has {n} values ({vals}{more}) "
                         f"and is not fixed: using the first, {axis} = "
                         f"{fmt_value(axis, grid[0], angles)} (pass {option} "
                         f"{axis}=VALUE to choose)")
            index.append(i)
            chosen[axis] = (float(grid[i]), i)
        return tuple(index), chosen

    def _check_single(self, axis, want, option, quiet):
        """--fix on a run axis the file does not sweep: its one value is
        the root attribute; a different value is said (nothing to pick)."""
        have = self.run_value(axis)
        if have is None:
            raise UsageError(f"{option} {axis}: {self.path} has no {axis} "
                             "(neither a dimension nor a root attribute)")
        if not quiet and abs(have - want) > 1e-12 * max(1.0, abs(want)):
            note(f"{self.path}: {axis} is not swept: every point has {axis} "
                 f"= {fmt_value(axis, have)} (root attribute), not "
                 f"{fmt_value(axis, want)}")

    def run_value(self, axis):
        """The one value of a run axis the file does not sweep (its root
        attribute), or None (swept, or absent)."""
        if axis in self.axes:
            return None
        v = self.attr(axis)
        return None if v is None else float(v)

    def coordinate(self, axis, index):
        """The values of `axis` at every point of `index` (a tuple over
        self.axes, as select returns), shaped like the data read there:
        the coordinate broadcast over the grid, or the root attribute's one
        value for a run axis the file does not sweep."""
        shape = np.broadcast_to(0.0, self.shape)[index].shape
        if axis not in self.axes:
            v = self.run_value(axis)
            if v is None:
                raise UsageError(f"{self.path}: no {axis} (neither a "
                                 "dimension nor a root attribute)")
            return np.full(shape, v)
        k = self.axes.index(axis)
        along = self.coords[axis].reshape(
            [-1 if n == k else 1 for n in range(len(self.axes))])
        return np.array(np.broadcast_to(along, self.shape)[index],
                        dtype=float)

    def circulation(self):
        """Whether any point of the file has Gamma != 0."""
        if "Gamma" in self.axes:
            return bool(np.any(self.coords["Gamma"] != 0))
        return bool(self.attr("Gamma"))

    def read(self, name, index, done=None):
        """Dataset values at `index` as float, NaN where not done (and where
        an integer dataset holds its fill value -1 for a pending point)."""
        v = np.asarray(self.f[name][index], dtype=float)
        if done is None:
            done = self.done(index)
        return np.where(done, v, np.nan)

    def done(self, index):
        return np.asarray(self.f["done"][index]) == 1

    def units(self, name, generic="length"):
        """The `units` attribute of a dataset or coordinate ('m', 'kg m2',
        or the generic word when the run gave no units)."""
        return self.dataset_attr(name, "units", generic) if name in self.f \
            else generic

    def body(self):
        """Fixed body/fluid parameters stored as root attributes: m, I0,
        rho, k_rot, and with circulation (Gamma != 0) Gamma and the
        trajectories' energy, which then matters (H against H_c). A swept
        run axis has no root attribute: "swept" lists those (a slice's
        title takes their values from the fixed coordinates: title_parts)."""
        out = {k: self.attr(k) for k in ("m", "I0", "rho", "k_rot")
               if self.attr(k) is not None}
        if self.attr("Gamma"):
            out["Gamma"] = self.attr("Gamma")
        if (self.attr("Gamma") or "Gamma" in self.axes) and \
                self.attr("energy") is not None:
            out["energy"] = self.attr("energy")
        # drag: every entry of the matrix, the unswept ones as their root
        # attributes (a title names them all when any entry is on)
        for a in DRAG_AXES:
            if a not in self.axes and self.attr(a) is not None:
                out[a] = float(self.attr(a))
        swept = tuple(a for a in RUN_AXES if a in self.axes)
        if swept:
            out["swept"] = swept
        return out


def run_values(chosen, attrs):
    """{run axis: value, or None when it is a plotted axis} of a slice:
    a fixed coordinate (chosen) or the root attribute (attrs, from
    Sweep.body); an axis neither swept nor in attrs is left out."""
    out = {}
    swept = (attrs or {}).get("swept", ())
    for a in RUN_AXES:
        if a in chosen:
            out[a] = chosen[a][0]
        elif a in swept:
            out[a] = None  # plotted (or a panel axis): varies
        elif attrs and attrs.get(a) is not None:
            out[a] = float(attrs[a])
    return out


def title_parts(chosen, attrs=None, angles="deg", skip=()):
    """([(symbol, text)] of the body constants, [(symbol, text)] of the
    fixed axes): every fixed parameter of a slice. k_rot is named when it
    is not the papers' 1/4, Gamma and the energy H when Gamma != 0 (or
    varies over the slice), whether a root attribute or a fixed
    coordinate of a swept run axis holds them."""
    body = [(sym, f"{attrs[k]:.4g}") for k, sym in
            (("m", "m"), ("I0", "I₀"), ("rho", "ρ"))
            if attrs and attrs.get(k) is not None]
    if attrs and attrs.get("k_rot") is not None and attrs.get("rho") and \
            abs(attrs["k_rot"] - 0.25) > 1e-15:
        body.append(("k_rot", f"{attrs['k_rot']:.4g}"))
    run = run_values(chosen, attrs)
    gamma = run.get("Gamma", 0.0)
    if "Gamma" in run and gamma != 0:  # circulation: the energy matters
        if gamma is not None and "Gamma" not in skip:
            body.append((TITLE_SYMBOLS["Gamma"], fmt_value("Gamma", gamma)))
        if run.get("energy") is not None and "energy" not in skip:
            body.append((TITLE_SYMBOLS["energy"],
                         fmt_value("energy", run["energy"])))
    # drag on anywhere in the slice (a nonzero entry, or one plotted):
    # every fixed entry of the matrix is named, zeros included
    drag = [a for a in DRAG_AXES if a in run]
    if any(run[a] is None or run[a] != 0 for a in drag):
        body += [(TITLE_SYMBOLS[a], fmt_value(a, run[a])) for a in drag
                 if run[a] is not None and a not in skip]
    axes = [(TITLE_SYMBOLS[a], fmt_value(a, chosen[a][0], angles))
            for a in BODY_AXES if a in chosen and a not in skip]
    return body, axes


def join_title(body, axes):
    """'m = 1, I₀ = 0.5, ρ = 1; b = r = s = 0, A = 0.5'."""
    head = ", ".join(f"{a} = {b}" for a, b in body)
    tail = group_equal(axes)
    return f"{head}; {tail}" if head and tail else head or tail


def fixed_title(chosen, attrs=None, angles="deg", skip=()):
    """'m = 1, I₀ = 0.5, ρ = 1; b = r = s = 0, A = 0.5, B = 0.3': every
    fixed parameter of a slice (the body constants, then its fixed axes)."""
    return join_title(*title_parts(chosen, attrs, angles, skip))


def group_equal(parts):
    """'b = r = s = 0, A = 0.5' from [(symbol, value text), ...]: runs of
    neighbours with equal values share one '= value'."""
    out, i = [], 0
    while i < len(parts):
        j = i
        while j + 1 < len(parts) and parts[j + 1][1] == parts[i][1]:
            j += 1
        out.append(" = ".join(p[0] for p in parts[i:j + 1]) + " = " +
                   parts[i][1])
        i = j + 1
    return ", ".join(out)


# ---- `sleighsweep point` output -------------------------------------------

CSV_COLUMNS = SAMPLE_QUANTITIES  # `sleighsweep point` CSV: the same
# The exact path at the same times (written since format 2 of `point`).
CSV_EXACT = ("phi_exact", "x_exact", "y_exact", "omega_exact", "v_exact")
# Under forcing: the contact point's average over the period each section
# row closes (NaN on the other rows; docs/output.md).
CSV_FORCED = ("x_avg", "y_avg")


def read_csv(path):
    """A `sleighsweep point --trajectory` CSV: dict of float arrays (with
    the exact motion's phi_exact, x_exact, y_exact, omega_exact, v_exact
    when the file has them, and a forced path's x_avg, y_avg)."""
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    try:
        with open(path, newline="") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot read ({e})") from None
    head = [c.strip() for c in rows[0]] if rows else []
    if head not in (list(CSV_COLUMNS), list(CSV_COLUMNS + CSV_EXACT),
                    list(CSV_COLUMNS + CSV_EXACT + CSV_FORCED)):
        raise UsageError(f"{path}: not a trajectory CSV (expected the header "
                         f"{','.join(CSV_COLUMNS + CSV_EXACT)})")
    try:
        data = np.array([[float(c) for c in r] for r in rows[1:] if r],
                        dtype=float)
    except ValueError as e:
        raise UsageError(f"{path}: bad number ({e})") from None
    if data.ndim != 2 or data.shape[0] < 2 or data.shape[1] != len(head):
        raise UsageError(f"{path}: fewer than two rows of {len(head)} "
                         "columns")
    return {c: data[:, k] for k, c in enumerate(head)}


def read_point_json(path):
    """The JSON object `sleighsweep point` prints (params, tensor, ...)."""
    try:
        with open(path) as fh:
            j = json.load(fh)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, ValueError) as e:
        raise UsageError(f"{path}: not the JSON of `sleighsweep point` "
                         f"({e})") from None
    if not isinstance(j, dict) or "tensor" not in j or "params" not in j:
        raise UsageError(f"{path}: not the JSON of `sleighsweep point` (no "
                         "tensor/params)")
    return j
