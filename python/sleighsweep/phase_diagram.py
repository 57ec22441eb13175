"""2-D slice of a sleighsweep map: heat map of a continuous quantity (colour
bar with units) or categorical map (regime, sense, loops, flags: discrete
legend), with the closed-form boundaries overlaid: Z = 0 (limit circles
become limit lines; the rotation sense flips), L1 = 0 (spin reversal) and,
for loop counts and transition angles, the level sets
analytic_transition_angle = 2 pi k. Reads the file only.

Usage: phase_diagram.py FILE [FILE ...] --x theta --y a --quantity Q
           [--panels AXIS] [--fix b=0 r=0 ...] [--out fig.pdf|png|svg]
           [options]
A file with the group /boundaries (a sweep with [refine]) also shows its
refined crossings: each located crossing on an edge of the slice, at its
position along the edge (bracket as an error bar where visible), joined
per indicator and level (--no-refined: leave them out).
Several FILEs (same grid slice, e.g. rho = 0 and rho = 1), or --panels AXIS
(one panel per value of AXIS), become panels side by side sharing one
colour scale or legend. The axes are the file's: theta a b r s A B, and
Gamma and energy where the grid sweeps them (--x Gamma --y energy: a
regime map with H = H_c and the drift energies H_n under --critical).
Exit status 0, 2 on bad arguments or an unusable file.
"""
import argparse
import math
import os
import sys
from dataclasses import dataclass, field


import contourpy  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import patheffects  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.colors import (BoundaryNorm, ListedColormap,  # noqa: E402
                               LogNorm, Normalize, SymLogNorm, TwoSlopeNorm)
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from . import style as sswplot  # noqa: E402
from .sweep import (ALL_AXES, RUN_AXES, Sweep, UsageError,  # noqa: E402
                    fixed_title, join_title, normalize_fix, say,
                    title_parts)

# Integer quantities drawn as categories although they have no flag_values.
INTEGER_CATEGORIES = ("loops", "analytic_loops", "loops_lower")
# Quantities whose map shows the loop-count level sets.
LOOP_QUANTITIES = ("loops", "analytic_loops", "transition_angle",
                   "analytic_transition_angle")
# Quantities of the periodic motion (circulation below its critical
# energy) whose map shows the drift resonances |heading_per_period| =
# 2 pi n, where the orbit radius is infinite and the path drifts.
RESONANCE_QUANTITIES = ("heading_per_period", "orbit_radius",
                        "drift_per_period")
MAX_LEVELS = 12  # loop level sets drawn at most
# --xscale/--yscale auto: a plotted axis is logarithmic when its values are
# positive and span more than LOG_AXIS_DECADES decades (an energy axis from
# linspace or a list over decades; theta never)
LOG_AXIS_DECADES = 1.5
# drift resonances drawn at most: they crowd towards H = H_c, where the
# heading per period grows without bound
MAX_RESONANCES = 4
# With circulation (a file whose Gamma != 0) these hold the arc g > 0's
# values (the *_lower datasets the arc g < 0's): their labels say so.
UPPER_ARC = {
    "transition_angle": r"transition angle $|\Delta\phi|/\pi$, arc $g > 0$",
    "center_spacing": r"centre spacing $d$, arc $g > 0$",
    "loops": r"loops, arc $g > 0$"}
# Colour ranges of quantities with natural bounds (--vmin/--vmax override).
RANGES = {"upper_fraction": (0.0, 1.0)}
# --scale auto (log_preferred): log when no value is negative and the middle
# of the values (10th to 90th percentile) spreads over at least LOG_GAIN
# times more of a log colour bar than of a linear one
LOG_GAIN = 1.5
LOG_PERCENTILES = (10.0, 90.0)
COLOURBAR_ROOM = 0.7  # of the width, for the legend beside a colour bar
SHORT_LABEL = 36  # longest long_name used as a colour-bar label as it is

# Colour-bar / legend labels: (text, display scale, unit text override).
LABELS = {
    "center_spacing": (r"centre spacing $d$", 1.0, None),
    "analytic_center_spacing": (r"closed-form centre spacing $d$", 1.0, None),
    "radius_future": (r"future radius $r_+$", 1.0, None),
    "radius_past": (r"past radius $r_-$", 1.0, None),
    "analytic_radius": (r"closed-form radius $|L_1/Z|$", 1.0, None),
    "transition_angle": (r"transition angle $|\Delta\phi|/\pi$", math.pi, ""),
    "analytic_transition_angle": (r"closed-form $|\Delta\phi|/\pi$", math.pi,
                                  ""),
    "center_spacing_spread": (r"spread of $d$ (max $-$ min)", 1.0, None),
    "radius_future_spread": (r"spread of $r_+$ (max $-$ min)", 1.0, None),
    "radius_past_spread": (r"spread of $r_-$ (max $-$ min)", 1.0, None),
    "transition_angle_spread": (r"spread of $|\Delta\phi|$", 1.0, None),
    "converged_fraction": ("converged fraction", 1.0, None),
    "energy_error_max": (r"max $|H-H_0|/H_0$", 1.0, None),
    "steps_mean": ("mean base steps per trajectory", 1.0, None),
    "trajectories": ("trajectories per point", 1.0, None),
    "regime": ("regime", 1.0, None),
    "sense_future": ("future rotation sense", 1.0, None),
    "analytic_sense": ("closed-form future sense", 1.0, None),
    "loops": ("loops (ensemble mode)", 1.0, None),
    "analytic_loops": (r"closed-form loops $\lfloor|\Delta\phi|/2\pi\rfloor$",
                       1.0, None),
    "flags": ("trajectory flags", 1.0, None),
    "rest_distance": ("distance to the rest point", 1.0, None),
    "analytic_rest_distance": ("closed-form rest distance", 1.0, None),
    "heading_total": (r"total heading $|\Delta\phi|$ to rest", 1.0, None),
    "path_length": ("path length to rest", 1.0, None),
    "decay_rate": ("decay rate at rest", 1.0, None),
    "analytic_decay_rate": ("closed-form decay rate at rest", 1.0, None),
    "settle_time": ("time to 1% of the energy", 1.0, None),
    "focus_fraction": ("share approaching rest as a focus", 1.0, None),
    "done": ("point written", 1.0, None),
    "blade_force_max": (r"blade force $\max|F|/H$", 1.0, None),
    "analytic_blade_force_max": (r"closed-form $\max|F|/H$", 1.0, None),
    "path_error_max": ("distance from the exact path", 1.0, None),
    "center_spacing_error": (r"estimated error of $d$", 1.0, None),
    "radius_error": (r"estimated error of $r_\pm$", 1.0, None),
    "transition_angle_error": (r"estimated error of $|\Delta\phi|$", 1.0,
                               None),
    "t0_error": (r"estimated error of $t_0$ (relative)", 1.0, ""),
    # circulation (docs/output.md, "Circulation")
    "critical_energy": (r"critical energy $H_c$", 1.0, None),
    "period": (r"period $T$", 1.0, None),
    "heading_per_period": (r"turns per period $\Delta\phi_T/2\pi$",
                           2 * math.pi, ""),
    "drift_per_period": (r"displacement per period $|z_T|$", 1.0, None),
    "orbit_radius": (r"orbit radius $R$", 1.0, None),
    "period_error": (r"estimated error of $T$", 1.0, None),
    "heading_per_period_error": (r"estimated error of $\Delta\phi_T$", 1.0,
                                 None),
    "transition_angle_lower": (r"transition angle $|\Delta\phi|/\pi$, arc "
                               r"$g < 0$", math.pi, ""),
    "center_spacing_lower": (r"centre spacing $d$, arc $g < 0$", 1.0, None),
    "loops_lower": (r"loops, arc $g < 0$", 1.0, None),
    "upper_fraction": (r"share on the arc $g > 0$", 1.0, None),
}
for _t in ("J", "M", "N", "L1", "L2", "Z"):
    LABELS[_t] = ("$" + _t.replace("1", "_1").replace("2", "_2") + "$", 1.0,
                  None)

CATEGORY_STYLE = {
    "regime": {"uniform": ("#bdbdbd", r"uniform ($L_1 = Z = 0$)"),
               "line_to_line": ("#f0a03c", r"line to line ($Z = 0$)"),
               "spin_reversal": ("#9a6fb0", r"spin reversal ($L_1 = 0$)"),
               "circle_to_circle": ("#4a8cc2", "circle to circle"),
               "periodic": ("#5aae61", r"periodic ($H < H_c$)")},
    "sense": {"clockwise": ("#3b6fb6", "clockwise"),
              "none": ("#d9d9d9", "none (straight line)"),
              "counterclockwise": ("#d1495b", "counter-clockwise")},
    "done": {"pending": ("#ffffff", "pending"), "done": ("#4a8cc2", "done")},
}
NOT_DONE = ("#ffffff", "not computed")
UNDEFINED = ("#dcdcdc", "undefined")
INFINITE = ("#4d4d4d", r"$\infty$")
NONPOSITIVE = ("#f2e6c9", r"$\leq 0$ (log scale)")
# The curve H = H_c (critical_energy / energy = 1): red with a white
# halo, visible on every category colour and colour map.
CRITICAL_STYLE = dict(color="#d62728", lw=1.1, ls="-")
CRITICAL_LABEL = r"$H = H_c$"
# Level sets of a field, labelled by their level: (boundaries key, style,
# legend label).
LEVEL_SETS = (
    ("loops", dict(color="#202020", lw=0.6, ls="--"),
     r"$|\Delta\phi| = 2\pi k$"),
    ("resonances", dict(color="#202020", lw=0.6, ls=(0, (4, 1.5, 1, 1.5))),
     r"$|\Delta\phi_T| = 2\pi n$ (drift)"))
# The legend's order of the overlays.
BOUNDARY_ORDER = ([r"$Z = 0$", r"$L_1 = 0$"] +
                  [lab for _, _, lab in LEVEL_SETS] + [CRITICAL_LABEL])
# The refined crossings of /boundaries (a sweep with [refine]), per
# indicator (the file's flag_meanings of /boundaries/indicator): marker
# style and the legend's name. Drawn above the closed-form curves.
REFINED_STYLE = {
    "Z": (dict(marker="o", mfc="white", mec="black"), r"$Z = 0$"),
    "L1": (dict(marker="D", mfc="#ffd92f", mec="black"), r"$L_1 = 0$"),
    "turns": (dict(marker="o", mfc="#e7298a", mec="#4d0026"),
              r"$|\Delta\phi| = 2\pi k$"),
    "minus_Z": (dict(marker="s", mfc="#66c2a5", mec="black"), "sense"),
    "mu2_minus_1": (dict(marker="^", mfc="#d62728", mec="white"),
                    CRITICAL_LABEL),
    "drift_turns": (dict(marker="v", mfc="#202020", mec="white"),
                    r"$|\Delta\phi_T| = 2\pi n$ (drift)"),
    "attractor": (dict(marker="P", mfc="#1f77b4", mec="black"),
                  "attractor changes"),
    "lyapunov_max": (dict(marker="*", mfc="#ff7f0e", mec="black"),
                     r"$\lambda_1 = 0$")}
REFINED_MARKER = dict(ls="none", ms=2.6, mew=0.45, zorder=6)
REFINED_JOIN = dict(lw=0.5, alpha=0.8, zorder=5)
# a bracket is drawn as an error bar when it is at least this share of
# the plotted axis's range (narrower ones would not show)
REFINED_VISIBLE = 2e-3


@dataclass
class Panel:
    """The data behind one panel: z[j, i] is the file's value at
    (y[j], x[i]) and the fixed axes, NaN where the point is not done."""
    path: str
    x_name: str
    y_name: str
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    done: np.ndarray
    fixed: dict
    blank: int
    total: int
    title: str
    boundaries: dict = field(default_factory=dict)
    # what draw_boundaries draws of Z = 0 and L1 = 0: (contour lines between
    # grid points, mask of the grid points where the value is exactly 0,
    # whose cells are outlined rather than crossed by a line)
    drawn: dict = field(default_factory=dict)
    categories: list = None
    units: dict = field(default_factory=dict)  # axis -> file units
    # shade[j, i]: the --shade quantity's value (NaN where not done); the
    # cells where it is finite are drawn by it, over the categories
    shade: np.ndarray = None
    # critical_energy / energy at (y[j], x[i]) (NaN where not done): the
    # field whose level 1 is the drawn curve H = H_c (--critical)
    critical_ratio: np.ndarray = None
    # {'x': bool, 'y': bool}: the axis is drawn on a log scale (cells with
    # geometric edges, level sets interpolated in log10 of the coordinate)
    log: dict = field(default_factory=dict)
    # the /boundaries rows on the slice's edges (refined_crossings), None
    # without the group or with refined=False
    refined: dict = None


@dataclass
class PhaseDiagram:
    quantity: str
    kind: str  # 'continuous' or 'categorical'
    panels: list
    fig: object
    norm: object = None
    display_scale: float = 1.0
    out: str = None
    axes: list = None  # the panels' Axes, in panel order
    scale: str = None  # 'linear', 'log', 'diverging', 'symlog' (colour bar)
    label: str = None  # colour-bar (continuous) or legend title
    colorbar: object = None  # the Colorbar (continuous maps, --shade)
    shade: str = None  # the --shade quantity, if any
    handles: list = None  # the legend's entries
    # per panel, the drawn refined crossings: {(indicator, level): Line2D}
    refined_artists: list = None
    legend: object = None  # the Legend (in the row below the panels)


# ---- reading ------------------------------------------------------------

def required_datasets(quantity, boundaries, critical=False, shade=None):
    need = [quantity]
    if boundaries:
        need += ["Z", "L1"]
        if quantity in LOOP_QUANTITIES:
            need.append("analytic_transition_angle")
        if resonance_source(quantity, shade):
            need.append("heading_per_period")
    if critical:
        need.append("critical_energy")
    if shade:
        need.append(shade)
    return need


def resonance_source(quantity, shade):
    """Whether the map shows the drift resonances (a quantity of the
    periodic motion, drawn or shading the categories)."""
    return quantity in RESONANCE_QUANTITIES or shade in RESONANCE_QUANTITIES


def kind_of(sweep, quantity):
    if sweep.categories(quantity) is not None or \
            quantity in INTEGER_CATEGORIES:
        return "categorical"
    if sweep.f[quantity].dtype.kind not in "fiu":
        raise UsageError(f"{sweep.path}: dataset {quantity} is not numeric")
    return "continuous"


def xy_order(v, keep):
    """A slice read in file order (the two kept axes in storage order) with
    y first: v[j, i] at (y[j], x[i])."""
    if ALL_AXES.index(keep[0]) < ALL_AXES.index(keep[1]):  # (x, y) order
        return v.T
    return v


def slice2d(sweep, name, index, keep, done):
    """The (y, x) slice of a dataset, NaN where not done (`done` in file
    order, as read)."""
    return xy_order(sweep.read(name, index, done=done), keep)


def energy_slice(sweep, index, keep, done_xy):
    """The trajectories' energy at every point of the slice: the `energy`
    coordinate where the grid sweeps it (a plotted axis or a fixed one),
    else the root attribute `energy` (one energy for every point). NaN
    where not done."""
    if "energy" not in sweep.axes and sweep.attr("energy") is None:
        raise UsageError(f"{sweep.path}: no energy (coordinate or root "
                         "attribute): cannot compare with critical_energy")
    h = sweep.coordinate("energy", index)
    return xy_order(np.where(done_xy, h, np.nan), keep)


def critical_ratio(sweep, index, keep, done_xy):
    """critical_energy / energy on the slice, per point (the energy
    coordinate of each point when the grid sweeps it): below 1 the motion
    passes from one limit circle to another, above 1 it is periodic. NaN
    where not done; 0 without circulation."""
    hc = slice2d(sweep, "critical_energy", index, keep, done_xy)
    with np.errstate(divide="ignore", invalid="ignore"):
        return hc / energy_slice(sweep, index, keep, done_xy)


def critical_curve(ratio, x, y):
    """Polylines of critical_energy / energy = 1 (H = H_c) between grid
    points: the contour of the ratio at level 1, linear along the cell
    edges (infinite ratios, uniform motion, left out)."""
    r = np.where(np.isfinite(ratio), ratio, np.nan)
    known = r[np.isfinite(r)]
    if not (known.size and known.min() < 1 < known.max()):
        return []
    return contour_lines(r, x, y, 1.0)


def log_axis(name, values, scale="auto"):
    """Whether a plotted axis is drawn on a log scale: --xscale/--yscale
    log (every value must be positive), linear, or auto: positive values
    spanning more than LOG_AXIS_DECADES decades (theta never)."""
    v = np.asarray(values, dtype=float)
    if scale == "linear":
        return False
    positive = v.size > 1 and bool(np.all(v > 0))
    if scale == "log":
        if not positive:
            raise UsageError(f"log scale on {name}: its values must all be "
                             "positive")
        return True
    return name != "theta" and positive and \
        math.log10(v.max() / v.min()) > LOG_AXIS_DECADES


def to_axis(v, log):
    """A coordinate as the level sets interpolate it: log10 on a log axis."""
    return np.log10(v) if log else np.asarray(v, dtype=float)


def from_axis(lines, log):
    """Polylines (N x 2, columns x, y) interpolated in to_axis coordinates
    back to the file's values; {k: polylines} and 'everywhere' pass."""
    if not any(log):
        return lines
    if isinstance(lines, dict):
        return {k: from_axis(v, log) for k, v in lines.items()}
    if not isinstance(lines, list):
        return lines
    out = []
    for p in lines:
        q = np.array(p, dtype=float)
        for c in (0, 1):
            if log[c]:
                q[:, c] = 10.0 ** q[:, c]
        out.append(q)
    return out


def flag_names(dataset):
    """A categorical dataset's flag_meanings as a list of names."""
    m = dataset.attrs.get("flag_meanings", b"")
    return (m.decode() if isinstance(m, bytes) else str(m)).split()


def refined_crossings(sweep, index, x, y):
    """The rows of /boundaries whose edge lies in the slice `index` (both
    grid points in it) and runs along x or y: {'indicator': names, 'level',
    'axis' (x or y), 'px', 'py' (the crossing as plotted: its position on
    its axis, the other axis's grid value), 'error' (the bracket's width),
    'line' (the grid index of the other axis), 'row' (the file's row),
    'tol', 'evaluations' (the group's attribute), 'edges'}. None without
    the group."""
    g = sweep.f.get("boundaries")
    if g is None or "position" not in g:
        return None
    axes = flag_names(g["axis"])
    inds = flag_names(g["indicator"])
    shape = sweep.shape
    lo = np.unravel_index(g["point_lo"].values.astype(np.int64), shape)
    hi = np.unravel_index(g["point_hi"].values.astype(np.int64), shape)
    axis = [axes[k] for k in g["axis"].values]
    n = len(axis)
    keep = np.zeros(n, dtype=bool)
    along = np.array(axis, dtype=object)
    for name in (x, y):
        on = along == name
        for d, (a, i) in enumerate(zip(sweep.axes, index)):
            if a in (x, y):
                continue
            on &= (lo[d] == i) & (hi[d] == i)
        keep |= on
    rows = np.nonzero(keep)[0]
    dx, dy = sweep.axes.index(x), sweep.axes.index(y)
    pos = g["position"].values[rows]
    on_x = along[rows] == x
    gx = sweep.coords[x][lo[dx][rows]]
    gy = sweep.coords[y][lo[dy][rows]]
    attrs = g.attrs
    return {"row": rows,
            "indicator": np.array([inds[k] for k in
                                   g["indicator"].values[rows]],
                                  dtype=object),
            "level": g["level"].values[rows],
            "axis": along[rows],
            "px": np.where(on_x, pos, gx), "py": np.where(on_x, gy, pos),
            "error": g["position_error"].values[rows],
            "line": np.where(on_x, lo[dy][rows], lo[dx][rows]),
            "cell": np.where(on_x, lo[dx][rows], lo[dy][rows]),
            "evaluations": g["evaluations"].values[rows],
            "tol": float(attrs["tol"]) if "tol" in attrs else None,
            "total_evaluations": int(attrs.get("evaluations", 0)),
            "edges": int(attrs.get("edges", 0))}


def load_panel(sweep, x, y, quantity, fix, angles, boundaries, quiet,
               critical=False, shade=None, scales=("auto", "auto"),
               refined=None):
    index, chosen = sweep.select((x, y), fix, angles=angles, quiet=quiet)
    done_xy = sweep.done(index)
    done = xy_order(done_xy, (x, y))
    z = slice2d(sweep, quantity, index, (x, y), done_xy)
    blank = int(np.size(done) - np.count_nonzero(done))
    panel = Panel(path=sweep.path, x_name=x, y_name=y,
                  x=sweep.coords[x].copy(), y=sweep.coords[y].copy(), z=z,
                  done=done, fixed=chosen, blank=blank, total=int(done.size),
                  title=fixed_title(chosen, sweep.body(), angles),
                  units={a: sweep.units(a) for a in (x, y)})
    panel.log = {"x": log_axis(x, panel.x, scales[0]),
                 "y": log_axis(y, panel.y, scales[1])}
    # level sets interpolate linearly in the drawn coordinates
    lg = (panel.log["x"], panel.log["y"])
    tx, ty = to_axis(panel.x, lg[0]), to_axis(panel.y, lg[1])
    if shade:
        panel.shade = slice2d(sweep, shade, index, (x, y), done_xy)
    if refined is not False:
        panel.refined = refined_crossings(sweep, index, x, y)
    if critical:
        panel.critical_ratio = critical_ratio(sweep, index, (x, y), done_xy)
        panel.boundaries["H=Hc"] = from_axis(
            critical_curve(panel.critical_ratio, tx, ty), lg)
    if boundaries:
        zf = slice2d(sweep, "Z", index, (x, y), done_xy)
        l1 = slice2d(sweep, "L1", index, (x, y), done_xy)
        for key, f in (("Z=0", zf), ("L1=0", l1)):
            panel.boundaries[key] = from_axis(zero_set(f, tx, ty), lg)
            if panel.boundaries[key] != "everywhere":
                panel.drawn[key] = (from_axis(sign_changes(f, tx, ty), lg),
                                    f == 0)
        if quantity in LOOP_QUANTITIES:
            t = slice2d(sweep, "analytic_transition_angle", index, (x, y),
                        done_xy)
            # uniform motion (L1 = Z = 0) has no transition: its 0 is not a
            # limit of the neighbours' angles (which grow without bound)
            t[(zf == 0) & (l1 == 0)] = np.nan
            panel.boundaries["loops"] = from_axis(loop_levels(t, tx, ty),
                                                  lg)
        if resonance_source(quantity, shade) or (
                critical and "heading_per_period" in sweep.f and
                (x in RUN_AXES or y in RUN_AXES)):
            h = slice2d(sweep, "heading_per_period", index, (x, y), done_xy)
            panel.boundaries["resonances"] = from_axis(
                resonance_levels(h, tx, ty), lg)
    return panel


# ---- closed-form boundaries ---------------------------------------------

def contour_lines(z, x, y, level):
    """Polylines (N x 2 arrays, columns x, y) of z = level; NaN excluded."""
    finite = np.isfinite(z)
    if np.count_nonzero(finite) < 3:
        return []
    zm = np.ma.masked_invalid(z)
    gen = contourpy.contour_generator(x, y, zm, line_type="Separate")
    return [np.asarray(p) for p in gen.lines(level) if len(p) >= 2]


def zero_set(f, x, y):
    """Where f (Z or L1 on the slice) vanishes: 'everywhere' when it is zero
    at every done point, else polylines through sign changes between grid
    points plus segments joining neighbouring grid points where f is exactly
    0 (the engine sets |f| <= tol to exactly 0, e.g. Z at theta = 90 deg)."""
    known = np.isfinite(f)
    if not known.any():
        return []
    if np.all(f[known] == 0):
        return "everywhere"
    lines = sign_changes(f, x, y)
    zero = f == 0
    for j, i in zip(*np.nonzero(zero[:, :-1] & zero[:, 1:])):
        lines.append(np.array([[x[i], y[j]], [x[i + 1], y[j]]]))
    for j, i in zip(*np.nonzero(zero[:-1, :] & zero[1:, :])):
        lines.append(np.array([[x[i], y[j]], [x[i], y[j + 1]]]))
    lone = zero.copy()
    lone[:, :-1] &= ~zero[:, 1:]
    lone[:, 1:] &= ~zero[:, :-1]
    lone[:-1, :] &= ~zero[1:, :]
    lone[1:, :] &= ~zero[:-1, :]
    for j, i in zip(*np.nonzero(lone)):
        lines.append(np.array([[x[i], y[j]]]))
    return lines


def sign_changes(f, x, y):
    """Polylines where f changes sign between grid points (contours of f = 0
    with the exact zeros left out)."""
    g = np.where(f == 0, np.nan, f)
    if np.isfinite(g).any() and np.nanmin(g) < 0 < np.nanmax(g):
        return contour_lines(g, x, y, 0.0)
    return []


def cell_outline(mask, x, y, log=(False, False)):
    """Segments (2 x 2 arrays) framing the union of the cells where `mask`
    holds (cells as pcolormesh draws them, edges halfway between grid
    values, geometric means on a log axis): each side of such a cell whose
    neighbour is not in the mask, collinear sides joined."""
    ex, ey = edges(x, log[0]), edges(y, log[1])
    ny, nx = mask.shape
    pad = np.zeros((ny + 2, nx + 2), bool)
    pad[1:-1, 1:-1] = mask
    segs = []
    # vertical sides: between columns i-1 and i (i = 0..nx)
    side = pad[1:-1, :-1] != pad[1:-1, 1:]  # (ny, nx + 1)
    for i in range(nx + 1):
        for j0, j1 in runs(side[:, i]):
            segs.append(np.array([[ex[i], ey[j0]], [ex[i], ey[j1]]]))
    side = pad[:-1, 1:-1] != pad[1:, 1:-1]  # (ny + 1, nx)
    for j in range(ny + 1):
        for i0, i1 in runs(side[j, :]):
            segs.append(np.array([[ex[i0], ey[j]], [ex[i1], ey[j]]]))
    return segs


def runs(flags):
    """(start, stop) of each run of True in a 1-D boolean array."""
    d = np.diff(np.concatenate([[0], flags.astype(int), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1)))


def resonance_levels(heading, x, y):
    """{n: polylines} of the drift resonances, where the heading change
    per period is 2 pi n: n = 0 where it changes sign (c1 = 0), n >= 1
    where its magnitude crosses 2 pi n (up to MAX_RESONANCES)."""
    out = {}
    zero = sign_changes(heading, x, y)
    if zero:
        out[0] = zero
    out.update(loop_levels(np.abs(heading), x, y, MAX_RESONANCES))
    return out


def loop_levels(dphi, x, y, most=MAX_LEVELS):
    """{k: polylines} of the closed-form |dphi| = 2 pi k (the loop count
    floor(|dphi|/2pi) steps from k-1 to k across them); the same for the
    heading per period, whose levels 2 pi n are the drift resonances."""
    turns = dphi / (2 * math.pi)
    finite = turns[np.isfinite(turns)]
    if finite.size == 0:
        return {}
    top = min(int(math.floor(finite.max())), most)
    out = {}
    for k in range(1, top + 1):
        lines = contour_lines(turns, x, y, float(k))
        if lines:
            out[k] = lines
    return out


# ---- drawing ------------------------------------------------------------

def edges(v, log=False):
    """Cell edges of grid values: halfway between neighbours (geometric
    means on a log axis), the outer ones as far out as the inner."""
    v = np.asarray(v, dtype=float)
    if log:
        return 10.0 ** edges(np.log10(v))
    mid = 0.5 * (v[1:] + v[:-1])
    return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])


def panel_edges(panel):
    """(x edges, y edges) of a panel's cells, on its axes' scales."""
    return (edges(panel.x, panel.log.get("x", False)),
            edges(panel.y, panel.log.get("y", False)))


def category_visible(panel):
    """The cells drawn in their category's colour: all of them, or with
    --shade those where the shading quantity is NaN (the others show its
    value)."""
    if panel.shade is None:
        return np.ones(panel.z.shape, bool)
    return np.isnan(panel.shade)


def category_table(sweeps, quantity, panels):
    """[(value, colour, label)] for a categorical quantity: the categories
    present in the panels' data only (a slice of one regime lists one;
    with --shade, present among the cells not shaded), each in its fixed
    colour."""
    cats = sweeps[0].categories(quantity)
    present = sorted({int(v) for p in panels
                      for v in p.z[np.isfinite(p.z) & category_visible(p)]})
    if quantity == "flags":
        names = dict(cats or [])
        out = []
        colours = ["#e0e0e0", "#d1495b", "#f0a03c", "#9a6fb0", "#4a8cc2",
                   "#66a61e", "#a6761d", "#666666"]
        for n, v in enumerate(present):
            bits = [m for b, m in names.items() if b and v & b]
            out.append((v, colours[n % len(colours)],
                        "none" if v == 0 else " + ".join(bits) or str(v)))
        return out
    if cats is not None:
        style = CATEGORY_STYLE.get(
            "sense" if "sense" in quantity else quantity, {})
        default = ["#4a8cc2", "#f0a03c", "#9a6fb0", "#d1495b", "#66a61e"]
        out = []
        for n, (v, meaning) in enumerate(cats):
            colour, label = style.get(meaning, (default[n % 5], meaning))
            if v in present:
                out.append((v, colour, label))
        return out
    # integer counts (loops): a sequential palette over 0..max
    values = [v for v in present if v >= 0]
    top = max(values) if values else 0
    import matplotlib
    cmap = matplotlib.colormaps["YlGnBu"]
    return [(k, matplotlib.colors.to_hex(cmap(0.12 + 0.8 * k / max(top, 1))),
             str(k)) for k in values]


def draw_categorical(ax, panel, table):
    codes = np.full(panel.z.shape, -1.0)
    lookup = {v: n for n, (v, _, _) in enumerate(table)}
    undefined = len(table)
    visible = category_visible(panel)
    for idx, v in np.ndenumerate(panel.z):
        if not visible[idx]:
            continue
        if not np.isfinite(v):
            codes[idx] = undefined if panel.done[idx] else -1
        else:
            codes[idx] = lookup.get(int(v), undefined)
    colours = [c for _, c, _ in table] + [UNDEFINED[0]]
    cmap = ListedColormap(colours)
    norm = BoundaryNorm(np.arange(-0.5, len(colours) + 0.5), len(colours))
    ax.pcolormesh(*panel_edges(panel),
                  np.ma.masked_less(codes, 0), cmap=cmap, norm=norm,
                  rasterized=False, linewidth=0)
    return int(np.count_nonzero(codes == undefined))


def log_preferred(vals):
    """The rule of --scale auto. Returns (log?, share_linear, share_log):
    the share of a linear and of a log colour bar that the middle of the
    values (LOG_PERCENTILES: 10th to 90th percentile) spreads over. A
    skewed quantity (most values bunched at the low end, a few large: the
    spacing near Z = 0) fills a sliver of a linear bar and so is drawn in
    nearly one colour; log is chosen when no value is negative and the log
    bar spreads the middle LOG_GAIN times wider. The linear bar spans all
    finite values, the log bar the positive ones (zeros get their own
    colour)."""
    vals = np.asarray(vals, dtype=float)
    vals = vals[np.isfinite(vals)]
    pos = vals[vals > 0]
    if vals.size < 2 or vals.min() < 0 or pos.size < 2 or \
            pos.max() == pos.min():
        return False, 1.0, 0.0
    p_lo, p_hi = LOG_PERCENTILES
    lin = float(np.subtract(*np.percentile(vals, [p_hi, p_lo])) /
                (vals.max() - vals.min()))
    q_lo, q_hi = np.percentile(pos, [p_lo, p_hi])
    log = float(math.log(q_hi / q_lo) / math.log(pos.max() / pos.min()))
    return log > LOG_GAIN * lin, lin, log


def continuous_norm(arrays, scale, vmin, vmax, display):
    """The colour norm of the values in `arrays` (the panels' z, or their
    --shade values) and how it scales: 'linear', 'log', 'diverging' or
    'symlog' (diverging, with --scale auto when the magnitudes are skewed:
    the heading per period, which grows without bound near H = H_c with
    either sign)."""
    vals = np.concatenate([a[np.isfinite(a)].ravel() for a in arrays])
    vals = vals / display
    if vals.size == 0:
        return Normalize(0, 1), "linear"
    lo = vmin if vmin is not None else float(vals.min())
    hi = vmax if vmax is not None else float(vals.max())
    if scale == "auto" and lo < 0 < hi and vmin is None and vmax is None:
        mags = np.abs(vals[vals != 0])
        if log_preferred(mags)[0]:
            m = max(-lo, hi)
            # linear within the decade below the 10th percentile
            p10 = float(np.percentile(mags, LOG_PERCENTILES[0]))
            return SymLogNorm(10.0 ** math.floor(math.log10(p10)),
                              linscale=0.5, vmin=-m, vmax=m,
                              base=10), "symlog"
    if scale == "auto":
        # zeros (e.g. the spacing at spin reversal) get the '<= 0' colour
        # on a log scale; a given --vmin keeps the linear scale
        scale = ("log" if vmin is None and log_preferred(vals)[0]
                 else "linear")
    if scale == "log":
        pos = vals[vals > 0]
        if pos.size == 0:
            raise UsageError("--scale log: the quantity has no positive "
                             "values in this slice")
        lo = vmin if vmin is not None else float(pos.min())
        return LogNorm(lo, max(hi, lo * 10)), "log"
    if hi == lo:
        hi, lo = hi + 0.5 * (abs(hi) or 1), lo - 0.5 * (abs(lo) or 1)
    if lo < 0 < hi and vmin is None and vmax is None:
        m = max(-lo, hi)
        return TwoSlopeNorm(0.0, -m, m), "diverging"
    return Normalize(lo, hi), "linear"


def draw_continuous(ax, panel, norm, cmap, display, shade=False):
    """Finite values through the colour map; done points that are NaN
    (undefined), infinite, or <= 0 on a log scale in fixed colours.
    Returns the counts of those three kinds. shade: draw panel.shade over
    the categories instead, leaving its NaN cells to them."""
    z = (panel.shade if shade else panel.z) / display
    shown = np.isfinite(z)
    if isinstance(norm, LogNorm):
        shown &= z > 0
    ax.pcolormesh(*panel_edges(panel), np.ma.masked_invalid(
        np.where(shown, z, np.nan)), norm=norm, cmap=cmap, linewidth=0)
    special = np.zeros(z.shape)
    if not shade:
        special[np.isnan(z) & panel.done] = 1
    special[np.isinf(z) & panel.done] = 2
    special[np.isfinite(z) & ~shown] = 3
    if special.any():
        ax.pcolormesh(*panel_edges(panel),
                      np.ma.masked_equal(special, 0),
                      cmap=ListedColormap([UNDEFINED[0], INFINITE[0],
                                           NONPOSITIVE[0]]),
                      norm=BoundaryNorm([0.5, 1.5, 2.5, 3.5], 3),
                      linewidth=0)
    return tuple(int(np.count_nonzero(special == k)) for k in (1, 2, 3))


def log_ticks(cb, norm):
    """Readable ticks on a log colour bar: 1-2-5 steps when it spans less
    than two decades, powers of ten otherwise."""
    lo, hi = math.log10(norm.vmin), math.log10(norm.vmax)
    mult = (1, 2, 5) if hi - lo < 2 else (1,)
    ticks = [m * 10.0 ** e for e in range(math.floor(lo), math.ceil(hi) + 1)
             for m in mult if norm.vmin <= m * 10.0 ** e <= norm.vmax]
    if len(ticks) >= 2:
        cb.set_ticks(ticks)
        cb.set_ticklabels([f"{t:g}" for t in ticks])
        cb.minorticks_off()


def symlog_ticks(cb, norm, most=7):
    """Ticks of a symmetric log colour bar: 0 and +-powers of ten from the
    linear range's edge up, every decade or every few, at most `most`."""
    lo = math.floor(math.log10(norm.linthresh))
    hi = math.floor(math.log10(norm.vmax))
    step = max(1, math.ceil((hi - lo + 1) / ((most - 1) // 2)))
    ups = [10.0 ** e for e in range(hi, lo - 1, -step)][::-1]
    ticks = [-t for t in ups[::-1]] + [0.0] + ups
    cb.set_ticks(ticks)
    cb.set_ticklabels(["0" if t == 0 else f"{t:g}".replace("-", "\u2212")
                       for t in ticks])
    cb.minorticks_off()


def draw_boundaries(ax, panel):
    """Z = 0 and L1 = 0 (and the loop level sets) over the map. Where the
    value is exactly 0 at grid points (a column of line-to-line points at
    theta = pi/2, the row a = 0) the cells are framed, not crossed, so
    their own colour stays visible; sign changes between grid points are
    lines."""
    handles = []
    styles = {"Z=0": dict(color="black", lw=0.8, ls="-"),
              "L1=0": dict(color="black", lw=0.8, ls=(0, (1, 1.5)))}
    labels = {"Z=0": r"$Z = 0$", "L1=0": r"$L_1 = 0$"}
    # a frame covers lw of its cells' width (half a line on each side):
    # at most a fifth of the smallest cell, 0.3 to 0.8 pt
    box = ax.get_position()
    w_in, h_in = ax.figure.get_size_inches()
    cell = 72 * min(box.width * w_in / len(panel.x),
                    box.height * h_in / len(panel.y))
    frame_lw = min(0.8, max(0.3, cell / 5))
    for key in ("Z=0", "L1=0"):
        if key not in panel.drawn:
            continue
        contours, zero = panel.drawn[key]
        frame = cell_outline(zero, panel.x, panel.y,
                             (panel.log.get("x", False),
                              panel.log.get("y", False)))
        if contours:
            ax.add_collection(LineCollection(contours, **styles[key]))
        if frame:
            ax.add_collection(LineCollection(
                frame, **dict(styles[key], lw=frame_lw)))
        if contours or frame:
            handles.append(Line2D([], [], **styles[key], label=labels[key]))
    placed = []
    for key, style, label in LEVEL_SETS:
        levels = panel.boundaries.get(key) or {}
        draw_levels(ax, panel, levels, style, placed)
        if levels:
            handles.append(Line2D([], [], **style, label=label))
    lines = panel.boundaries.get("H=Hc")
    if lines:
        halo = [patheffects.withStroke(linewidth=2.4, foreground="white")]
        ax.add_collection(LineCollection(lines, **CRITICAL_STYLE,
                                         path_effects=halo, zorder=3))
        handles.append(Line2D([], [], **CRITICAL_STYLE, path_effects=halo,
                              label=CRITICAL_LABEL))
    return handles


def refined_groups(r):
    """The crossings of one panel by (indicator, level, axis): index arrays
    into r's fields, in the order drawn."""
    groups = {}
    for k in range(len(r["row"])):
        lev = r["level"][k]
        key = (r["indicator"][k], None if np.isnan(lev) else float(lev),
               r["axis"][k])
        groups.setdefault(key, []).append(k)
    return groups


def refined_joins(r, ks):
    """Polylines joining one group's crossings (one indicator, level and
    edge axis) in the order of the grid lines they lie on, along one
    branch only: consecutive grid lines with exactly one crossing each are
    joined where the two crossings lie in the same or neighbouring cells
    along their edges (a curve through the cells between them); a jump of
    more than a cell is another branch of the level, and is not joined."""
    lines = np.array([r["line"][k] for k in ks])
    count = {int(v): int(np.count_nonzero(lines == v)) for v in lines}
    single = sorted((int(r["line"][k]), k) for k in ks
                    if count[int(r["line"][k])] == 1)
    out, cur = [], []
    for line, k in single:
        if cur and (line != cur[-1][0] + 1 or
                    abs(int(r["cell"][k]) - int(r["cell"][cur[-1][1]])) > 1):
            out.append(cur)
            cur = []
        cur.append((line, k))
    out.append(cur)
    return [np.array([[r["px"][k], r["py"][k]] for _, k in c])
            for c in out if len(c) >= 2]


def refined_colour(style):
    """The joining line's colour: the marker's face, else its edge."""
    return style["mec"] if style["mfc"] == "white" else style["mfc"]


def draw_refined(ax, panel):
    """The refined crossings over the map: one marker per crossing (the
    file's position, exactly), the bracket as an error bar where it is
    wide enough to see, joined per indicator and level where the crossings
    form one curve. Returns ({(indicator, level, axis): Line2D}, legend
    handles)."""
    r = panel.refined
    artists, handles = {}, []
    if not r or not len(r["row"]):
        return artists, handles
    span = {"x": np.ptp(panel.x) or 1.0, "y": np.ptp(panel.y) or 1.0}
    seen = []
    for key, ks in refined_groups(r).items():
        ind, level, along = key
        style, _ = REFINED_STYLE.get(ind, (dict(marker="x", mfc="black",
                                                mec="black"), ind))
        colour = refined_colour(style)
        ks = np.array(ks)
        px, py = r["px"][ks], r["py"][ks]
        for line in refined_joins(r, ks):
            ax.plot(line[:, 0], line[:, 1], color=colour, **REFINED_JOIN)
        err = r["error"][ks]
        which = "x" if along == panel.x_name else "y"
        wide = err >= REFINED_VISIBLE * span[which]
        if np.any(wide):
            # the crossing and the position both lie in the bracket of
            # width err: within err of each other either way
            bar = {f"{which}err": err[wide]}
            ax.errorbar(px[wide], py[wide], fmt="none", ecolor=colour,
                        elinewidth=0.6, capsize=1.2, zorder=5, **bar)
        artists[key] = ax.plot(px, py, gid=f"refined:{ind}", **style,
                               **REFINED_MARKER)[0]
        if ind not in seen:
            seen.append(ind)
    order = [k for k in REFINED_STYLE if k in seen] + \
        [k for k in seen if k not in REFINED_STYLE]
    tol = r["tol"]
    first = REFINED_STYLE.get(order[0], (dict(marker="x", mfc="black",
                                              mec="black"), ""))[0]
    handles.append(Line2D([], [], **dict(first, **REFINED_MARKER),
                          label=refined_label(tol)))
    if len(order) > 1:
        for ind in order[1:]:
            style, name = REFINED_STYLE.get(ind, (dict(
                marker="x", mfc="black", mec="black"), ind))
            handles.append(Line2D([], [], **dict(style, **REFINED_MARKER),
                                  label=f"refined: {name}"))
        handles[0].set_label(refined_label(tol) + ": " +
                             REFINED_STYLE.get(order[0], ({}, order[0]))[1])
    return artists, handles


def refined_label(tol):
    return "refined crossings" + ("" if tol is None else f" (tol {tol:g})")


def draw_levels(ax, panel, levels, style, placed):
    """Level sets {k: polylines} in `style`, each labelled k once, at a
    vertex clear of the labels already `placed` (a list it extends)."""
    lx, ly = panel.log.get("x", False), panel.log.get("y", False)
    xr = np.ptp(to_axis(edges(panel.x, lx), lx)) or 1.0
    yr = np.ptp(to_axis(edges(panel.y, ly), ly)) or 1.0
    for k, lines in levels.items():
        ax.add_collection(LineCollection(lines, **style))
        longest = max(lines, key=len)
        order = np.argsort(np.abs(np.arange(len(longest)) -
                                  len(longest) // 2))
        for m in order:
            px, py = longest[m]
            # distances as drawn: in decades along a log axis
            u, w = to_axis(px, lx), to_axis(py, ly)
            if all(math.hypot((u - to_axis(qx, lx)) / xr,
                              (w - to_axis(qy, ly)) / yr) > 0.07
                   for qx, qy in placed):
                placed.append((px, py))
                ax.text(px, py, str(k), fontsize=6, ha="center",
                        va="center", bbox=dict(boxstyle="round,pad=0.1",
                                               fc="white", ec="none",
                                               alpha=0.85))
                break


def format_axes(ax, panel, angles, first, labels, width_in):
    """Limits, ticks and labels; `width_in` is the panel's width in inches
    (a first guess: fit_ticks sets the x ticks again on the laid-out
    figure)."""
    for name, axis, vals, key in ((panel.x_name, ax.xaxis, panel.x, "x"),
                                  (panel.y_name, ax.yaxis, panel.y, "y")):
        log = panel.log.get(key, False)
        if log:
            (ax.set_xscale if key == "x" else ax.set_yscale)("log")
        e = edges(vals, log)
        (ax.set_xlim if axis is ax.xaxis else ax.set_ylim)(e[0], e[-1])
        if axis is ax.xaxis:
            x_ticks(ax, panel, angles, width_in)
        elif name == "theta":
            sswplot.angle_axis(axis, vals[0], vals[-1], angles)
    ax.set_xlabel(labels.get("x") or sswplot.axis_label(
        panel.x_name, angles, units=panel.units.get(panel.x_name)))
    if first:
        ax.set_ylabel(labels.get("y") or sswplot.axis_label(
            panel.y_name, angles, units=panel.units.get(panel.y_name)))


# ---- panels -------------------------------------------------------------

def x_ticks(ax, panel, angles, width_in):
    """The x ticks of a panel `width_in` inches wide: at most
    sswplot.ticks_for(width_in) intervals, so that a narrow panel (one of
    several in one column) gets fewer."""
    if panel.x_name == "theta":
        sswplot.angle_axis(ax.xaxis, panel.x[0], panel.x[-1], angles,
                           sswplot.ticks_for(width_in))
    elif panel.log.get("x"):
        pass  # matplotlib's log locator: powers of ten
    else:
        sswplot.fewer_ticks(ax.xaxis, width_in)


def fit_ticks(axes, panels, angles):
    """On the laid-out figure: x ticks for each panel's actual width, then
    any label that would still touch its neighbour (across the gap between
    panels too) is left blank (sswplot.declutter_xticks)."""
    fig = axes[0].figure
    fig.draw_without_rendering()
    for a, p in zip(axes, panels):
        x_ticks(a, p, angles, a.get_window_extent().width / fig.dpi)
    sswplot.declutter_xticks(axes)


def panel_specs(sweeps, x, y, fix, panels):
    """[(sweep, fix dict)] in panel order. `fix` maps an axis to a value or
    to a list of values: one per panel of the --panels axis, or one per
    FILE. With `panels`, every grid value of that axis (or the listed ones)
    of every file is a panel."""
    if panels is not None:
        if panels not in ALL_AXES:
            raise UsageError(f"--panels {panels}: not an axis; the axes are "
                             f"{', '.join(ALL_AXES)}")
        if panels in (x, y):
            raise UsageError(f"--panels {panels}: {panels} is a plotted axis")
    common = {k: v for k, v in fix.items() if not isinstance(v, list)}
    lists = {k: v for k, v in fix.items() if isinstance(v, list)}
    for k, v in lists.items():
        if k != panels and len(v) != len(sweeps):
            raise UsageError(
                f"--fix {k}: {len(v)} values for {len(sweeps)} FILE(s); give "
                f"one value, one per FILE, or use --panels {k}")
    specs = []
    for n, s in enumerate(sweeps):
        mine = dict(common)
        mine.update({k: v[n] for k, v in lists.items() if k != panels})
        if panels is None:
            specs.append((s, mine))
            continue
        values = lists.get(panels)
        if values is None and panels not in s.axes:
            raise UsageError(f"--panels {panels}: {s.path} does not sweep "
                             f"{panels} (its axes: {', '.join(s.axes)})")
        if values is None:
            values = [common[panels]] if panels in common else \
                [float(v) for v in s.coords[panels]]
        for v in values:
            specs.append((s, dict(mine, **{panels: v})))
    return specs


def panel_titles(panels, bodies, angles, shared):
    """Per-panel titles and a common title: every fixed parameter (body
    constants and fixed axes) is named once, those equal on all panels
    above them (when `shared`), the others on each panel."""
    if len(panels) == 1 or not shared:
        return [p.title for p in panels], None
    parts = [title_parts(p.fixed, b, angles) for p, b in zip(panels, bodies)]
    common, own = ([], []), [([], []) for _ in panels]
    for g in (0, 1):  # body constants, then axes
        n = max(len(pp[g]) for pp in parts)
        for k in range(n):
            items = [pp[g][k] if k < len(pp[g]) else None for pp in parts]
            if all(it == items[0] for it in items):
                common[g].append(items[0])
                continue
            for o, it in zip(own, items):
                if it:
                    o[g].append(it)
    return [join_title(*o) for o in own], join_title(*common)


def plot_phase_diagram(paths, x="theta", y="a", quantity="regime", fix=None,
                       out=None, angles="pi", scale="auto", vmin=None,
                       vmax=None, cmap="viridis", boundaries=True,
                       width=None, height=None, title=True, quiet=False,
                       panels=None, ax=None, labels=None, critical=False,
                       shade=None, xscale="auto", yscale="auto",
                       refined=None):
    """Draws one panel per file (or, with `panels=AXIS`, per value of that
    axis in each file) and returns a PhaseDiagram whose panels hold the
    arrays plotted (z: the file's values, NaN where not done; for
    transition angles the colour scale shows z / pi).

    fix: {axis: value} (or 'name=value' strings); a value may be a list:
    one value per panel of the `panels` axis, or one per file. ax: an Axes,
    or a sequence of one Axes per panel, to draw into (your own layout; no
    figure is made). labels: {'x', 'y', 'colorbar', 'title'} overrides
    ('title' a string for every panel or a list, one per panel). title:
    False for no titles. critical: overlay the curve H = H_c, where
    critical_energy / energy crosses 1 (a circulation sweep). shade: a
    continuous quantity that colours the cells of a categorical map where
    it is defined (e.g. quantity='regime', shade='period': the periodic
    region coloured by the period, a colour bar beside). x and y are any
    two of the file's axes (sswfile.Sweep.axes: the body's seven and the
    swept run axes Gamma, energy); with critical on a map over Gamma or
    the energy, the drift energies H = H_n (heading per period 2 pi n) are
    drawn too. xscale, yscale: 'auto' (log for positive values spanning
    more than LOG_AXIS_DECADES decades), 'linear' or 'log'. refined:
    draw the crossings of the file's /boundaries group (a sweep with
    [refine]) on the slice's edges; None (the default): where the file
    has the group; False: never. The drawn markers are in
    PhaseDiagram.refined_artists, the rows behind them in Panel.refined."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if x not in ALL_AXES or y not in ALL_AXES:
        raise UsageError(f"--x/--y must be axes: {', '.join(ALL_AXES)}")
    for sc in (xscale, yscale):
        if sc not in ("auto", "linear", "log"):
            raise UsageError(f"axis scale {sc}: use auto, linear or log")
    if x == y:
        raise UsageError(f"--x and --y are both {x}")
    if angles not in ("pi", "deg"):
        raise UsageError("--angles must be pi or deg")
    fix = normalize_fix(fix, multi=True)
    sswplot.check_out(out)
    sweeps = []
    try:
        for p in paths:
            s = Sweep(p)
            sweeps.append(s)
            check_sweep(s, p, x, y, quantity, boundaries, critical, shade)
        kind = kind_of(sweeps[0], quantity)
        if shade and (kind != "categorical" or
                      kind_of(sweeps[0], shade) != "continuous"):
            raise UsageError(f"--shade {shade}: shades a categorical map "
                             "(regime, sense, loops, ...) by a continuous "
                             f"quantity; {quantity} is {kind}" +
                             ("" if kind != "categorical" else
                              f" and {shade} is categorical"))
        specs = panel_specs(sweeps, x, y, fix, panels)
        loaded = [load_panel(s, x, y, quantity, f, angles, boundaries,
                             quiet, critical, shade, (xscale, yscale),
                             refined)
                  for s, f in specs]
        bodies = [s.body() for s, _ in specs]
        return draw(sweeps, loaded, quantity, kind, out, angles, scale, vmin,
                    vmax, cmap, width, height, title, quiet, ax,
                    dict(labels or {}), bodies, shade)
    finally:
        for s in sweeps:
            s.close()


def check_sweep(s, p, x, y, quantity, boundaries, critical=False,
                shade=None):
    if quantity not in s.f and quantity in LABELS:
        raise UsageError(f"{p}: required dataset missing: {quantity} "
                         "(not a complete sleighsweep output file)")
    if quantity not in s.f or s.f[quantity].shape != s.shape:
        raise UsageError(f"--quantity {quantity}: no such quantity in {p}; "
                         f"choose one of {', '.join(s.quantities())}")
    if shade and (shade not in s.f or s.f[shade].shape != s.shape):
        raise UsageError(f"--shade {shade}: no such quantity in {p}; "
                         f"choose one of {', '.join(s.quantities())}")
    missing = [d for d in required_datasets(quantity, boundaries, critical,
                                            shade) if d not in s.f]
    if missing:
        raise UsageError(f"{p}: required dataset(s) missing: "
                         f"{', '.join(missing)}")
    for ax_name in (x, y):
        if ax_name not in s.axes:
            one = s.run_value(ax_name)
            more = ("" if one is None else f"; every point has {ax_name} "
                    f"= {one:.6g} (root attribute)")
            raise UsageError(f"{p}: {ax_name} is not an axis of this file "
                             f"(its axes: {', '.join(s.axes)}){more}")
        n = len(s.coords[ax_name])
        if n < 2:
            raise UsageError(f"{p}: axis {ax_name} has {n} value; a plotted "
                             "axis needs at least 2")


def make_figure(n, width, height, kind):
    """Panels side by side with no gap but the tick labels (they share y),
    and for continuous maps a thin row below them for the legend, so that
    the legend never pushes the panels apart."""
    if width is None:
        width = sswplot.SINGLE if n == 1 else min(sswplot.DOUBLE,
                                                  1.2 + 2.9 * n)
    if height is None:
        height = 2.55 if n == 1 else 2.6
    sswplot.setup()
    fig = sswplot.plt.figure(figsize=(width, height))
    rows = 2  # the legend's row below the panels, whatever the kind
    gs = fig.add_gridspec(rows, n, height_ratios=[1, 0.02][:rows],
                          wspace=0.0)
    axes = []
    for k in range(n):
        axes.append(fig.add_subplot(gs[0, k],
                                    sharey=axes[0] if axes else None))
        if k:
            axes[-1].tick_params(labelleft=False)
    legend_ax = None
    if rows == 2:
        legend_ax = fig.add_subplot(gs[1, :])
        legend_ax.axis("off")
    return fig, axes, legend_ax


QUALIFIER = 12  # longest leading "with drag: " dropped from a long_name


def short_label(long_name, name):
    """A colour-bar label from a dataset's long_name (for quantities without
    an entry in LABELS): without a short leading qualifier ("with drag: "),
    its first clause (up to ', ', '; ' or ' ('), or the dataset's name
    when that is still longer than SHORT_LABEL characters. The whole
    description stays in the file and the docs."""
    text = str(long_name)
    head, sep, tail = text.partition(": ")
    if sep and len(head) <= QUALIFIER and tail:
        text = tail
    for sep in (", ", "; ", " ("):
        k = text.find(sep)
        if k > 0:
            text = text[:k]
    return text if len(text) <= SHORT_LABEL else name.replace("_", " ")


def colour_label(sweeps, quantity, labels):
    """(label, legend title, display scale, shorter labels to fall back on
    when the label does not fit along the colour bar)."""
    text, display, unit_override = LABELS.get(quantity, (short_label(
        sweeps[0].dataset_attr(quantity, "long_name", quantity), quantity),
        1.0, None))
    if quantity in UPPER_ARC and any(s.circulation() for s in sweeps):
        text = UPPER_ARC[quantity]  # the *_lower datasets hold the other
    units = sswplot.unit_text(sweeps[0].dataset_attr(quantity, "units", ""))
    if unit_override is not None:
        units = unit_override
    label = f"{text} ({units})" if units else text
    name = quantity.replace("_", " ")
    shorter = [] if "colorbar" in labels else [
        f"{name} ({units})" if units else name]
    return labels.get("colorbar") or label, text, display, shorter


def wrap_two(text):
    """The text on two lines, broken at the space nearest its middle that is
    not inside $...$ (mathtext); the text itself when there is none."""
    best, inside = None, False
    for k, ch in enumerate(text):
        if ch == "$":
            inside = not inside
        elif ch == " " and not inside and "\n" not in text:
            if best is None or abs(k - len(text) / 2) < abs(best -
                                                            len(text) / 2):
                best = k
    return text if best is None else text[:best] + "\n" + text[best + 1:]


def fit_colour_label(cb, label, shorter):
    """Sets the colour-bar label to the first form that is no longer than
    the bar (measured on the laid-out figure): the label, the label on two
    lines, the shorter forms (one line, then two), then the last at 7, 6
    and 5 pt. Returns the text set."""
    fig = cb.ax.figure
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    bar = cb.ax.get_window_extent(renderer)
    vertical = cb.orientation == "vertical"
    length = bar.height if vertical else bar.width
    tries = [(t, None) for f in [label] + shorter
             for t in (f, wrap_two(f))]
    tries += [(tries[-1][0], size) for size in (7, 6, 5)]
    for text, size in tries:
        cb.set_label(text, **({"fontsize": size} if size else {}))
        lab = cb.ax.yaxis.label if vertical else cb.ax.xaxis.label
        bb = lab.get_window_extent(renderer)
        if (bb.height if vertical else bb.width) <= length:
            break
    return text


def draw(sweeps, panels, quantity, kind, out, angles, scale, vmin, vmax,
         cmap, width, height, title, quiet, ax, labels, bodies, shade=None):
    n = len(panels)
    legend_ax = None
    # a shaded categorical map has a colour bar: the continuous layout
    layout = "continuous" if shade else kind
    if ax is None:
        fig, axes, legend_ax = make_figure(n, width, height, layout)
    else:
        axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) \
            else [ax]
        if len(axes) != n:
            raise UsageError(f"ax: {len(axes)} Axes for {n} panel(s)")
        fig = axes[0].figure
    label, text, display, shorter = colour_label(sweeps, quantity, labels)
    result = PhaseDiagram(quantity=quantity, kind=kind, panels=panels,
                          fig=fig, display_scale=display, out=out, axes=axes,
                          shade=shade)
    handles, extra = [], {}
    if kind == "categorical":
        table = category_table(sweeps, quantity, panels)
        for p in panels:
            p.categories = [(v, lab) for v, _, lab in table]
        for p, a in zip(panels, axes):
            extra["undefined"] = extra.get("undefined", 0) + \
                draw_categorical(a, p, table)
        handles += [Patch(fc=c, ec="#808080", lw=0.4, label=lab)
                    for _, c, lab in table]
        if shade:  # the colour bar is the shading quantity's
            label, _, display, shorter = colour_label(sweeps, shade, labels)
            result.display_scale = display
    if kind == "continuous" or shade:
        arrays = [p.shade if shade else p.z for p in panels]
        lo, hi = RANGES.get(shade or quantity, (None, None))
        vmin = lo if vmin is None else vmin
        vmax = hi if vmax is None else vmax
        norm, how = continuous_norm(arrays, scale, vmin, vmax, display)
        if how in ("log", "symlog") and "colorbar" not in labels:
            label += ", log scale" if how == "log" else ", symlog scale"
            shorter = [t + ", log" for t in shorter]
        result.scale = how
        cm = "RdBu_r" if how in ("diverging", "symlog") else cmap
        result.norm = norm
        for p, a in zip(panels, axes):
            u, i, z = draw_continuous(a, p, norm, cm, display,
                                      shade=bool(shade))
            extra["undefined"] = extra.get("undefined", 0) + u
            extra["infinite"] = extra.get("infinite", 0) + i
            extra["nonpositive"] = extra.get("nonpositive", 0) + z
        result.colorbar = colour_bar(fig, axes, arrays, norm, cm, display,
                                     label)
    result.label = label
    handles += special_handles(extra, sum(p.blank for p in panels))
    bhandles, drawn_titles, rhandles = {}, [], {}
    result.refined_artists = []
    titles, common = panel_titles(panels, bodies, angles, ax is None)
    given = labels.get("title")
    if given is not None:
        titles = given if isinstance(given, list) else [given] * n
        if len(titles) != n:
            raise UsageError(f"--title: {len(titles)} titles for {n} panels")
        common = None
    for k, (p, a) in enumerate(zip(panels, axes)):
        for h in draw_boundaries(a, p):
            bhandles.setdefault(h.get_label(), h)
        drawn, hs = draw_refined(a, p)
        result.refined_artists.append(drawn)
        for h in hs:
            rhandles.setdefault(h.get_label(), h)
        format_axes(a, p, angles, k == 0 or ax is not None, labels,
                    fig.get_figwidth() * a.get_position().width)
        if title:
            tag = f"({chr(ord('a') + k)}) " if n > 1 else ""
            drawn_titles.append(a.set_title(tag + titles[k], fontsize=7,
                                            loc="left"))
        report(p, quantity, quiet, shade)
    if title and common:
        drawn_titles.append(fig.suptitle(common, fontsize=7))
    handles += [bhandles[k] for k in BOUNDARY_ORDER if k in bhandles]
    handles += list(rhandles.values())
    result.handles = handles
    # a colour bar's margin is taken from the legend's row as well
    result.legend = place_legend(handles, layout, text, axes, legend_ax, n,
                                 COLOURBAR_ROOM if result.colorbar
                                 is not None else 0.96)
    if result.colorbar is not None:
        result.label = fit_colour_label(result.colorbar, label, shorter)
    if title and ax is None:  # in the caller's axes the layout is theirs
        fit_titles(fig, axes, drawn_titles)
    if ax is None:  # the data keeps its share; then the ticks for it
        sswplot.keep_share(fig, axes)
        sswplot.fit_axis_labels(fig, axes)
    fit_ticks(axes, panels, angles)
    if out:
        sswplot.save(fig, out)
        if not quiet:
            say(f"wrote {out}")
    return result


def fit_titles(fig, axes, titles):
    """A single panel's title wider than the panel (it would push the
    panel and its colour bar apart) goes above the whole figure instead;
    titles wider than the figure go on two lines (sswplot.fit_titles)."""
    if len(axes) == 1 and len(titles) == 1 and titles[0].get_text():
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        if titles[0].get_window_extent(renderer).width > \
                axes[0].get_window_extent(renderer).width:
            text = titles[0].get_text()
            titles[0].set_text("")
            titles = [fig.suptitle(text, fontsize=7)]
    sswplot.fit_titles(fig, titles)


def colour_bar(fig, axes, arrays, norm, cm, display, label):
    import matplotlib.cm as mcm
    sm = mcm.ScalarMappable(norm=norm, cmap=cm)
    vals = np.concatenate([(a[np.isfinite(a)] / display).ravel()
                           for a in arrays])
    vals = vals[vals > 0] if isinstance(norm, LogNorm) else vals
    below = vals.size and vals.min() < norm.vmin - 1e-12 * abs(norm.vmin)
    above = vals.size and vals.max() > norm.vmax + 1e-12 * abs(norm.vmax)
    extend = ("both" if below and above else "min" if below else
              "max" if above else "neither")
    cb = fig.colorbar(sm, ax=axes, shrink=1.0, aspect=25, pad=0.02,
                      extend=extend)
    if isinstance(norm, LogNorm):
        log_ticks(cb, norm)
    elif isinstance(norm, SymLogNorm):
        symlog_ticks(cb, norm)
    cb.set_label(label)
    cb.outline.set_linewidth(0.5)
    return cb


def special_handles(extra, blank):
    out = []
    for key, (colour, text) in (("undefined", UNDEFINED),
                                ("infinite", INFINITE),
                                ("nonpositive", NONPOSITIVE)):
        if extra.get(key):
            out.append(Patch(fc=colour, ec="#808080", lw=0.4, label=text))
    if blank:
        out.append(Patch(fc=NOT_DONE[0], ec="#808080", lw=0.4,
                         label=f"{NOT_DONE[1]} ({blank})"))
    return out


def report(p, quantity, quiet, shade=None):
    if quiet:
        return
    say(f"{p.path}: {quantity} over {p.x_name} x {p.y_name}: "
        f"{p.total - p.blank} of {p.total} points done, {p.blank} not done "
        "(blank)")
    if shade:
        say(f"{p.path}: {int(np.count_nonzero(~np.isnan(p.shade)))} cells "
            f"shaded by {shade}")
    if p.boundaries.get("Z=0") == "everywhere":
        say(f"{p.path}: Z = 0 at every point of the slice (limit lines "
            "everywhere): no Z = 0 boundary drawn")
    if p.critical_ratio is not None and not p.boundaries.get("H=Hc"):
        r = p.critical_ratio[np.isfinite(p.critical_ratio)]
        why = ("no circulation on the slice (critical_energy 0)"
               if r.size and not r.any() else
               "H < H_c at every point (all periodic)" if r.size and
               r.min() > 1 else "H > H_c at every point" if r.size else
               "no point done")
        say(f"{p.path}: no H = H_c curve: {why}")


def place_legend(handles, kind, text, axes, legend_ax, n, room=0.96):
    """The legend in the row below the panels (legend_ax), as many
    columns as fit the figure's width (sswplot.fitted_legend), titled with
    the categorical quantity's name when it is short; in the caller's
    axes (no legend row) below the last panel."""
    if not handles:
        return None
    title_txt = text if kind == "categorical" and len(text) < 28 else None
    if legend_ax is not None:
        return sswplot.fitted_legend(
            legend_ax, handles, room=room, loc="upper center",
            bbox_to_anchor=(0.5, 1.0), borderaxespad=0, columnspacing=1.0,
            title=title_txt, title_fontsize=7)
    # the caller's axes: below the last one
    return sswplot.fitted_legend(
        axes[-1], handles, loc="upper center", bbox_to_anchor=(0.5, -0.22),
        borderaxespad=0, columnspacing=1.0)


# ---- command line -------------------------------------------------------

def parser():
    p = argparse.ArgumentParser(
        prog="phase_diagram.py",
        description="Plot a 2-D slice of a sleighsweep map as a heat map or "
        "categorical map with the closed-form boundaries (Z = 0, L1 = 0, "
        "loop-count level sets) overlaid. Reads the file only.",
        epilog="Axes not plotted: --fix picks the nearest grid value (and "
        "prints it); an axis with one value needs no --fix; an unfixed axis "
        "with several values takes its first value (a note says so). "
        "Points not done are blank and counted. Exit status 2 on bad "
        "arguments or an unusable file.")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="sleighsweep output file(s); several give panels "
                   "side by side (e.g. rho = 0 and rho = 1)")
    p.add_argument("--x", default="theta", choices=ALL_AXES,
                   help="horizontal axis: one of the file's axes, the "
                   "body's seven or a swept Gamma or energy [theta]")
    p.add_argument("--y", default="a", choices=ALL_AXES,
                   help="vertical axis [a]")
    for k in ("x", "y"):
        p.add_argument(f"--{k}scale", choices=("auto", "linear", "log"),
                       default="auto", help=f"scale of the --{k} axis; auto "
                       "is log when its values are positive and span more "
                       f"than {LOG_AXIS_DECADES:g} decades [auto]")
    p.add_argument("--quantity", "-q", default="regime",
                   help="dataset to plot: center_spacing, radius_future, "
                   "radius_past, transition_angle, loops, regime, "
                   "sense_future, analytic_*, converged_fraction, "
                   "energy_error_max, flags, J, M, L1, L2, Z, ... [regime]")
    p.add_argument("--fix", nargs="+", action="extend", default=[],
                   metavar="AXIS=VALUE",
                   help="values of axes not plotted, e.g. b=0 r=0.1 "
                   "theta=60deg (theta takes the engine's angle grammar: "
                   "60deg, pi/3; nearest grid value). An axis given again "
                   "lists one value per panel (--panels) or per FILE, e.g. "
                   "--fix A=0.5 A=0.7 for two FILEs")
    p.add_argument("--panels", metavar="AXIS", choices=ALL_AXES,
                   help="one panel per grid value of AXIS (or per value "
                   "listed with --fix AXIS=V1 AXIS=V2 ...), side by side "
                   "with one colour scale or legend")
    p.add_argument("--xlabel", help="horizontal axis label [name, symbol "
                   "and the file's units]")
    p.add_argument("--ylabel", help="vertical axis label")
    p.add_argument("--clabel", help="colour-bar label [the quantity and "
                   "its units]")
    p.add_argument("--title", nargs="+", help="panel title(s): one for "
                   "every panel, or one per panel [every fixed parameter]")
    p.add_argument("--out", "-o", help="output .pdf, .png or .svg "
                   "[QUANTITY_X_Y.pdf]")
    p.add_argument("--angles", choices=("pi", "deg"), default="pi",
                   help="theta ticks as multiples of pi or in degrees [pi]")
    p.add_argument("--scale", choices=("auto", "linear", "log"),
                   default="auto", help="colour scale of continuous "
                   "quantities; auto is log when no value is negative and "
                   "the 10th-90th percentiles spread over 1.5 times more "
                   "of a log colour bar than of a linear one [auto]")
    p.add_argument("--vmin", type=float, help="colour scale minimum")
    p.add_argument("--vmax", type=float, help="colour scale maximum")
    p.add_argument("--cmap", default="viridis", help="colour map [viridis]")
    p.add_argument("--no-boundaries", action="store_true",
                   help="do not overlay Z = 0, L1 = 0 and the loop (or "
                   "drift-resonance) level sets")
    p.add_argument("--no-refined", action="store_true",
                   help="do not draw the refined crossings of the file's "
                   "/boundaries group (a sweep with [refine]; drawn by "
                   "default where the file has it)")
    p.add_argument("--critical", action="store_true",
                   help="overlay the curve H = H_c of a circulation sweep, "
                   "where critical_energy / energy crosses 1 (periodic "
                   "motion on its side where the ratio is above 1; the "
                   "energy of each point, a swept energy's coordinate); on "
                   "a map over Gamma or energy also the drift energies "
                   "H = H_n, where the heading per period is 2 pi n")
    p.add_argument("--shade", metavar="Q",
                   help="on a categorical map, colour the cells where the "
                   "continuous quantity Q is defined by its value (colour "
                   "bar), the others by category: e.g. --quantity regime "
                   "--shade period")
    p.add_argument("--no-title", action="store_true",
                   help="no panel title (the fixed parameters)")
    p.add_argument("--width", type=float, help="figure width in inches "
                   "[3.4 for one panel]")
    p.add_argument("--height", type=float, help="figure height in inches")
    return p


def cli_labels(args):
    labels = {k: v for k, v in (("x", args.xlabel), ("y", args.ylabel),
                                ("colorbar", args.clabel)) if v}
    if args.title:
        labels["title"] = args.title[0] if len(args.title) == 1 \
            else list(args.title)
    return labels


def main(argv=None):
    ap = parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        for v, name in ((args.width, "--width"), (args.height, "--height")):
            if v is not None and not (0.5 <= v <= 30):
                raise UsageError(f"{name} {v}: expected 0.5 to 30 inches")
        out = args.out or f"{args.quantity}_{args.x}_{args.y}.pdf"
        if args.out is None:
            say(f"no --out: writing {os.path.abspath(out)}")
        plot_phase_diagram(args.files, x=args.x, y=args.y,
                           quantity=args.quantity, fix=args.fix, out=out,
                           angles=args.angles, scale=args.scale,
                           vmin=args.vmin, vmax=args.vmax, cmap=args.cmap,
                           boundaries=not args.no_boundaries,
                           width=args.width, height=args.height,
                           title=not args.no_title, panels=args.panels,
                           labels=cli_labels(args), critical=args.critical,
                           shade=args.shade, xscale=args.xscale,
                           yscale=args.yscale,
                           refined=False if args.no_refined else None)
    except UsageError as e:
        print(f"phase_diagram.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
