"""Contact-point paths of sleigh trajectories, drawn like the papers'
figures: the path, the two limit circles (radius |L1/Z|) and their centres
(past: open dot, unstable; future: filled dot, stable), the spacing d,
direction arrows, the start point and the heading (body outlines: ellipse,
blade, centre of mass; or heading marks when the body is unknown).

Inputs (mixable):
  CSV   `sleighsweep point ... --trajectory P.csv > P.json`: the JSON beside
        the CSV (same name, .json) or given with --json supplies the tensor
        (J M L1 L2 Z) and the body; without it the circles come from the end
        states (radius |v/omega|) and the heading is marked by arrowheads.
  HDF5  a sweep file with sample trajectories (/samples/...); --at picks the
        grid point (nearest values), --sample the stored trajectory.

Circle centres: the material point at body coordinates (0, -L1/Z), i.e.
(x + (L1/Z) sin phi, y - (L1/Z) cos phi) at the first node (past) and the
last node (future). With circulation (kappa = rho Gamma r != 0) the two
limit circles differ: the JSON's centres and radii, or the end states'
(the point (0, v/omega)). Below the critical energy the motion is
periodic: the stored path covers a period or more, and the plot continues
it by the period's rigid motion (--periods N), marks the period points and
draws the circle they lie on (radius orbit_radius). With drag the path
ends at rest (a node, or a spiral for a focus): no limit circles, and an X
marks the rest point (the JSON's, or the last stored node). Reads the
files only;
exit status 2 on bad arguments or an unusable file.
"""
import argparse
import math
import os
import sys
from dataclasses import dataclass, field


import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Circle, Ellipse, Polygon  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.transforms import IdentityTransform  # noqa: E402

from . import style as sswplot  # noqa: E402
from .sweep import (ALL_AXES, DRAG_AXES,  # noqa: E402
                    SAMPLE_QUANTITIES, TITLE_SYMBOLS, Sweep, UsageError,
                    fmt_value, group_equal, normalize_fix,
                    parse_assignments, read_csv, read_point_json, say)

TENSOR = ("J", "M", "L1", "L2", "Z")
DRAG = ("drag_w", "drag_v", "drag_wv")  # [body] keys: nonzero, it stops
# The periodic motion's measured quantities (JSON keys, dataset names).
PERIODIC = ("period", "heading_per_period", "drift_per_period",
            "orbit_radius")
PERIODS = 4  # periods drawn beyond the stored path by default (--periods)
# An orbit circle larger than ORBIT_VIEW times the drawn path is drawn but
# left out of the view (near a drift resonance it would dwarf the path);
# one larger than ORBIT_DRAWN times it is not drawn at all.
ORBIT_VIEW = 3.0
ORBIT_DRAWN = 1e3
CONTINUED_ALPHA = 0.45  # the continued path: the path's colour, lighter
UNIFORM = ("uniform motion (L1 = Z = 0): every state turns on one circle of "
           "radius |v/omega| forever, with no transition between limit "
           "motions, so the engine stores only the initial state; nothing "
           "to draw")
PALETTE = ["#1f5fa8", "#c8323c", "#2a9d5c", "#e08a1e", "#7b4ea3", "#555555",
           "#1aa3b8", "#b5546b"]
# Body outlines: at most BODY_MAX of the view (larger bodies are drawn
# smaller) and at least BODY_MIN of it (smaller ones, e.g. next to the
# large circles near theta = 90 deg, are drawn larger, so that they do not
# vanish), but never enlarged past BODY_MAX of their own path's extent.
BODY_MAX = 0.12
BODY_MIN = 0.06


@dataclass
class Trajectory:
    """One path: the stored nodes (NaN padding removed, file order), the
    tensor and body (None when unknown) and what the plot derives."""
    source: str
    t: np.ndarray
    phi: np.ndarray
    x: np.ndarray
    y: np.ndarray
    omega: np.ndarray
    v: np.ndarray
    H: np.ndarray
    tensor: dict = None
    body: dict = None  # theta a b r s A B (+ m I0 rho ...) when known
    label: str = ""
    color: str = None
    # filled in by plot_trajectories
    radius: float = None
    centre_past: np.ndarray = None
    centre_future: np.ndarray = None
    circles_from: str = ""  # 'tensor', 'end states' or '' (none)
    curve: np.ndarray = None  # the drawn (smoothed) curve, N x 2
    curve_t: np.ndarray = None  # times of the curve's points
    marks: list = field(default_factory=list)  # node indices with outlines
    arrows: list = field(default_factory=list)  # (x, y, dx, dy) drawn
    body_scale: float = 1.0
    sample: int = None  # index of a sweep file's stored sample
    units: str = None  # the file's length units of x and y ('m'), if known
    exact: np.ndarray = None  # N x 2 exact contact point (point CSV), if any
    spacing_label: object = None  # the 'd = ...' label (ClearLabel), if any
    # circulation: kappa = rho Gamma r (0 without), the arc (sign of
    # L1 omega + Z v - kappa; +-1, None when unknown), the JSON's limit
    # circles ((r_past, r_future, centre_past, centre_future)) when given
    kappa: float = 0.0
    arc: int = None
    circles: tuple = None
    radius_past: float = None  # the past circle's (= radius without kappa)
    periodic: dict = None  # PERIODIC -> value, below the critical energy
    orbit: object = None  # the drawn continuation (Orbit), if periodic
    # drag (docs/theory/drag.md): the path ends at rest, at `rest` (x, y):
    # the JSON's (with the tail) or the last node's; no limit circles
    rest: np.ndarray = None


@dataclass
class Orbit:
    """A periodic motion continued by its period's rigid motion G: the
    configuration after one period is G applied to the configuration, so
    a contact point z (complex) moves to G(z) = rot z + shift, rot =
    exp(i heading_per_period). `section` is the start of the period drawn
    again (the first peak of |L1 omega + Z v - kappa|, the engine's
    Poincare section), `base` the stored path over [section, section + T]
    (M x 2), copies[k - 1] = G^k(base) (k = 1 .. periods, each composed
    from the previous one), points[k] = G^k(z(section)) (k = 0 ..
    periods + 1, the period points), centre the fixed point of G (None at
    a drift resonance, rot = 1) and radius the circle drawn through the
    period points (orbit_radius, None when infinite or not drawn)."""
    period: float
    heading: float
    section: float
    rot: complex
    shift: complex
    base: np.ndarray
    copies: list
    points: np.ndarray
    centre: np.ndarray = None
    radius: float = None
    measured_radius: float = None  # the engine's orbit_radius
    geometric_radius: float = None  # |z(section) - centre|


@dataclass
class TrajectoryPlot:
    fig: object
    ax: object
    trajectories: list
    blank: int = 0  # requested sweep points not done (nothing drawn)
    out: str = None
    axes: list = None  # one per panel (plot_panels), else [ax]
    skipped: list = field(default_factory=list)  # (source, why) not drawn
    handles: list = field(default_factory=list)  # the legend's entries
    legend: object = None  # the Legend drawn (below the panels), if any


# ---- loading --------------------------------------------------------------

def _trim(cols):
    keep = np.all([np.isfinite(cols[q]) for q in ("t", "x", "y", "phi")],
                  axis=0)
    return {q: np.asarray(cols[q])[keep] for q in SAMPLE_QUANTITIES}


class Skip(Exception):
    """An input with nothing to draw (uniform motion): said, not fatal."""


def load_csv(path, json_path=None):
    """A `sleighsweep point --trajectory` CSV with its JSON (given, or the
    file beside it with suffix .json, if any). A uniform-motion point
    raises Skip (there is no path to draw)."""
    if json_path is None:
        guess = os.path.splitext(path)[0] + ".json"
        json_path = guess if os.path.exists(guess) else None
    j = read_point_json(json_path) if json_path else None
    if j and j.get("regime") == "uniform":
        raise Skip(f"{path}: {UNIFORM}")
    cols = read_csv(path)
    tensor = body = None
    if j:
        tensor = {k: float(j["tensor"][k]) for k in TENSOR}
        body = {k: float(v) for k, v in j["params"].items()
                if isinstance(v, (int, float))}
    tr = Trajectory(source=path, tensor=tensor, body=body, **_trim(cols))
    if j:
        circulation_from_json(tr, j)
        if j.get("motion") == "damped":
            tr.rest = np.array([float(j["rest_x"]), float(j["rest_y"])])
    if "x_exact" in cols:
        keep = np.all([np.isfinite(cols[q]) for q in ("t", "x", "y", "phi")],
                      axis=0)
        tr.exact = np.column_stack([cols["x_exact"][keep],
                                    cols["y_exact"][keep]])
    if len(tr.t) < 2:
        raise UsageError(f"{path}: fewer than two finite rows")
    return tr


def circulation_from_json(tr, j):
    """kappa, the arc, the limit circles above the critical energy and the
    periodic motion's quantities below it, from a point JSON."""
    tr.kappa = float(j["tensor"].get("kappa") or 0.0)
    if j.get("arc") in (1, -1):
        tr.arc = int(j["arc"])
    if tr.kappa and all(j.get(k) is not None for k in (
            "r_past", "r_future", "center_past", "center_future")):
        tr.circles = (float(j["r_past"]), float(j["r_future"]),
                      np.asarray(j["center_past"], dtype=float),
                      np.asarray(j["center_future"], dtype=float))
    if j.get("regime") == "periodic":
        # null: infinite (the orbit radius at a drift resonance) or unknown
        tr.periodic = {k: float(j[k]) if j.get(k) is not None else
                       math.inf if k == "orbit_radius" else math.nan
                       for k in PERIODIC}
        err = (j.get("error_estimate") or {}).get("heading_per_period")
        tr.periodic["heading_error"] = float(err) if err is not None else 0.0
    if tr.kappa and tr.body is not None:
        tr.body["H"] = float(tr.H[0])  # the energy matters (H against H_c)


def load_samples(path, at=None, samples=(0,), angles="deg", quiet=False):
    """The stored sample trajectories of the grid point nearest to `at`
    (dict axis -> value; unfixed axes with several values take their first
    value, with a note). Returns (trajectories, blank) where blank is 1 when
    the point is not done (nothing to draw)."""
    at = normalize_fix(at, "--at")
    with Sweep(path, required=TENSOR, need_samples=True) as s:
        index, chosen = s.select((), at, angles=angles, quiet=quiet,
                                 option="--at")
        if not s.done(index):
            say(f"{path}: point {fixed_text(chosen)} is not done: nothing "
                "drawn (blank)")
            return [], 1
        slot = sample_slot(s, index, chosen, path)
        n = s.f["samples/x"].shape[1]
        want = range(n) if samples in ("all", None) else samples
        for k in want:
            if not 0 <= k < n:
                raise UsageError(f"--sample {k}: {path} keeps samples 0 to "
                                 f"{n - 1}")
        if "regime" in s.f and int(s.f["regime"][index]) == 0:
            raise Skip(f"{path}: point {fixed_text(chosen)}: {UNIFORM}")
        tensor = {k: float(s.f[k][index]) for k in TENSOR}
        units = s.units("samples/x")
        body = {a: v for a, (v, _) in chosen.items()}
        body.update(s.body())
        body.pop("swept", None)
        if body.get("Gamma") == 0:  # a swept Gamma fixed at 0
            body.pop("Gamma")
            body.pop("energy", None)
        kappa = float(s.attr("rho") or 0) * float(body.get("Gamma") or 0) \
            * body["r"]
        periodic = None
        if "regime" in s.f and int(s.f["regime"][index]) == 4 and all(
                k in s.f for k in PERIODIC):  # 'periodic' (sswfile.REGIMES)
            periodic = {k: float(s.f[k][index]) for k in PERIODIC}
            if "heading_per_period_error" in s.f:
                periodic["heading_error"] = float(
                    s.f["heading_per_period_error"][index])
        # the point among the file's: its swept axes' values
        where = "".join(f"{a} = {fmt_value(a, v)}, " for a, (v, _) in
                        chosen.items() if len(s.coords.get(a, ())) > 1)
        out = []
        for k in want:
            cols = {q: np.asarray(s.f["samples/" + q][slot, k],
                                  dtype=float) for q in SAMPLE_QUANTITIES}
            cols = _trim(cols)
            if len(cols["t"]) < 2:
                say(f"{path}: sample {k} at {fixed_text(chosen)} has "
                    f"{len(cols['t'])} node(s): skipped")
                continue
            tr = Trajectory(source=f"{path}[{where}sample {k}]",
                            tensor=tensor,
                            body=dict(body), units=units, kappa=kappa,
                            periodic=periodic, **cols)
            tr.sample = k
            if any(float(s.attr(key) or 0) for key in DRAG):
                tr.rest = np.array([tr.x[-1], tr.y[-1]])
            if kappa:
                g = tensor["L1"] * tr.omega[0] + tensor["Z"] * tr.v[0] - kappa
                tr.arc = 1 if g > 0 else -1 if g < 0 else None
                tr.body["H"] = float(tr.body.pop("energy", tr.H[0]))
            out.append(tr)
        return out, 0


def sample_slot(s, index, chosen, path):
    """Position along /samples/point of the grid point `index` (a tuple of
    axis indices), or a UsageError naming the points that keep samples."""
    shape = s.shape  # over s.axes: the flat index counts the swept ones
    flat = int(np.ravel_multi_index(index, shape))
    points = np.asarray(s.f["samples/point"].values, dtype=np.int64)
    hit = np.flatnonzero(points == flat)
    if len(hit):
        return int(hit[0])
    near = ", ".join(
        "(" + ", ".join(f"{a} = {fmt_value(a, float(s.f[a][i]))}"
                        for a, i in zip(s.axes, np.unravel_index(p, shape))
                        if len(s.f[a]) > 1) + ")" for p in points[:5])
    more = f" and {len(points) - 5} more" if len(points) > 5 else ""
    raise UsageError(f"{path}: point {fixed_text(chosen)} keeps no sample "
                     f"trajectories ([output] sample_points chose "
                     f"{len(points)} point(s): {near}{more})")


def fixed_text(chosen):
    return ", ".join(f"{a} = {fmt_value(a, v)}" for a, (v, _) in
                     chosen.items())


# ---- geometry ---------------------------------------------------------------

def limit_circles(tr):
    """(past radius, future radius, past centre, future centre, source):
    from the tensor (|L1/Z|, material point (0, -L1/Z)); with circulation
    (kappa != 0, the radii differ) from the JSON, or else, as without a
    tensor, from the end states (the point (0, v/omega)). None for a
    periodic motion (no limit circles) and for limit lines."""
    none = (None, None, None, None, "")
    if tr.periodic is not None or tr.rest is not None:
        return none
    if tr.circles is not None:
        return tr.circles + ("JSON",)
    ends = (0, len(tr.t) - 1)
    if tr.tensor is not None and not tr.kappa:
        L1, Z = tr.tensor["L1"], tr.tensor["Z"]
        if Z == 0:
            return none
        q = [L1 / Z] * 2
        how = "tensor"
    else:
        q = []
        for k in ends:
            if tr.omega[k] == 0 or not np.isfinite(tr.v[k] / tr.omega[k]):
                return none
            q.append(-tr.v[k] / tr.omega[k])  # = L1/Z on the limit line
        if max(abs(q[0]), abs(q[1])) > 1e6 * (np.ptp(tr.x) + np.ptp(tr.y)):
            return none  # straight-line limits
        how = "end states"
    centres = [np.array([tr.x[k] + qq * math.sin(tr.phi[k]),
                         tr.y[k] - qq * math.cos(tr.phi[k])])
               for k, qq in zip(ends, q)]
    return abs(q[0]), abs(q[1]), centres[0], centres[1], how


def hermite_at(tr, t):
    """The contact point (complex) at time t between the stored nodes: the
    cubic Hermite interpolant of hermite() (exact path tangent)."""
    k = int(np.clip(np.searchsorted(tr.t, t) - 1, 0, len(tr.t) - 2))
    dt = tr.t[k + 1] - tr.t[k]
    u = (t - tr.t[k]) / dt
    z0, z1 = complex(tr.x[k], tr.y[k]), complex(tr.x[k + 1], tr.y[k + 1])
    d0 = tr.v[k] * np.exp(1j * tr.phi[k])
    d1 = tr.v[k + 1] * np.exp(1j * tr.phi[k + 1])
    return complex((2 * u**3 - 3 * u**2 + 1) * z0 +
                   (u**3 - 2 * u**2 + u) * dt * d0 +
                   (-2 * u**3 + 3 * u**2) * z1 + (u**3 - u**2) * dt * d1)


def section_time(tr, period):
    """The engine's Poincare section: the time of the first peak of
    |L1 omega + Z v - kappa| (a parabola through the largest node and its
    neighbours) after which a whole period is stored; else the first node
    (when the path holds no interior peak)."""
    g = np.abs(tr.tensor["L1"] * tr.omega + tr.tensor["Z"] * tr.v -
               tr.kappa)
    for k in range(1, len(g) - 1):
        if not (g[k] >= g[k - 1] and g[k] > g[k + 1]):
            continue
        t3, g3 = tr.t[k - 1:k + 2], g[k - 1:k + 2]
        a, b, _ = np.polyfit(t3 - t3[1], g3, 2)
        ts = t3[1] + (-b / (2 * a) if a < 0 else 0.0)
        if ts + period <= tr.t[-1] + 1e-9 * period:
            return float(ts)
    return float(tr.t[0])


def periodic_orbit(tr, periods, curve, curve_t):
    """The Orbit of a periodic trajectory: the period's rigid motion G from
    the stored path (z at the section and one period later, rotation by the
    measured heading per period), the stored curve over that period
    continued by G `periods` times, and the period points. None when the
    stored path is shorter than a period."""
    T = tr.periodic["period"]
    dphi = tr.periodic["heading_per_period"]
    if not (T > 0 and np.isfinite(dphi)) or tr.t[-1] - tr.t[0] < T * (
            1 - 1e-9):
        return None
    ts = section_time(tr, T)
    z0 = hermite_at(tr, ts)
    z1 = hermite_at(tr, min(ts + T, tr.t[-1]))
    # A drift resonance within the measurement: the heading per period is
    # 2 pi n to within its error estimate, so the period's rigid motion is
    # a translation (its fixed point is not determined by the data).
    n = round(dphi / (2 * np.pi))
    err = tr.periodic.get("heading_error", 0.0)
    if not np.isfinite(err):
        err = 0.0
    if abs(dphi - 2 * np.pi * n) <= max(err, 1e-12 * max(1.0, abs(dphi))):
        dphi = 2 * np.pi * n
    rot = complex(np.exp(1j * dphi)) if dphi % (2 * np.pi) else 1.0 + 0j
    shift = z1 - rot * z0
    inside = (curve_t > ts) & (curve_t < ts + T)
    base = np.concatenate([[z0], curve[inside, 0] + 1j * curve[inside, 1],
                           [z1]])
    copies, cur = [], base
    for _ in range(periods):
        cur = rot * cur + shift  # one more period: G composed once more
        copies.append(np.column_stack([cur.real, cur.imag]))
    pts = [z0]
    for _ in range(periods + 1):
        pts.append(rot * pts[-1] + shift)
    orbit = Orbit(period=T, heading=dphi, section=ts, rot=rot, shift=shift,
                  base=np.column_stack([base.real, base.imag]),
                  copies=copies, points=np.column_stack(
                      [np.real(pts), np.imag(pts)]),
                  measured_radius=tr.periodic.get("orbit_radius"))
    if abs(1 - rot) > 1e-12:  # not a drift resonance: G has a fixed point
        c = shift / (1 - rot)
        orbit.centre = np.array([c.real, c.imag])
        orbit.geometric_radius = abs(z0 - c)
        r = orbit.measured_radius
        if r is None or np.isnan(r):
            r = orbit.geometric_radius
        orbit.radius = float(r) if np.isfinite(r) else None
    return orbit


def hermite(tr, sub):
    """The drawn curve: cubic Hermite interpolation between nodes with the
    exact path tangent v (cos phi, sin phi); passes through every node.
    Returns the points (N x 2) and their times."""
    pts = np.column_stack([tr.x, tr.y])
    if sub <= 1:
        return pts, tr.t.copy()
    d = np.column_stack([tr.v * np.cos(tr.phi), tr.v * np.sin(tr.phi)])
    s = np.linspace(0, 1, sub + 1)[:-1]
    h00 = 2 * s**3 - 3 * s**2 + 1
    h10 = s**3 - 2 * s**2 + s
    h01 = -2 * s**3 + 3 * s**2
    h11 = s**3 - s**2
    out, times = [], []
    for k in range(len(tr.t) - 1):
        dt = tr.t[k + 1] - tr.t[k]
        if not dt > 0:
            out.append(pts[k:k + 1])
            times.append(tr.t[k:k + 1])
            continue
        seg = (np.outer(h00, pts[k]) + np.outer(h10, dt * d[k]) +
               np.outer(h01, pts[k + 1]) + np.outer(h11, dt * d[k + 1]))
        out.append(seg)
        times.append(tr.t[k] + s * dt)
    out.append(pts[-1:])
    times.append(tr.t[-1:])
    return np.vstack(out), np.concatenate(times)


def arclength_points(curve, fractions):
    seg = np.hypot(*np.diff(curve, axis=0).T)
    s = np.concatenate([[0], np.cumsum(seg)])
    return [int(np.searchsorted(s, f * s[-1])) for f in fractions], s


# ---- drawing ----------------------------------------------------------------

def draw_body(ax, tr, k, color, scale):
    """Ellipse (major axis at phi - theta), blade at P along phi, centre of
    mass at body coordinates (a, b), ellipse centre at (r, s). Returns
    points on the outline (what labels should not cover)."""
    b = tr.body
    phi, px, py = tr.phi[k], tr.x[k], tr.y[k]
    c, s_ = math.cos(phi), math.sin(phi)

    def body_to_space(u, w):
        return px + scale * (c * u - s_ * w), py + scale * (s_ * u + c * w)

    cx, cy = body_to_space(b.get("r", 0.0), b.get("s", 0.0))
    ang = math.degrees(phi - b["theta"])
    ax.add_patch(Ellipse((cx, cy), 2 * b["A"] * scale, 2 * b["B"] * scale,
                         angle=ang, fc=color, ec=color, alpha=0.12, lw=0))
    ax.add_patch(Ellipse((cx, cy), 2 * b["A"] * scale, 2 * b["B"] * scale,
                         angle=ang, fc="none", ec=color, lw=0.6))
    half = 0.45 * b["B"] * scale
    ax.plot([px - half * c, px + half * c], [py - half * s_, py + half * s_],
            color="black", lw=1.6, solid_capstyle="butt", zorder=4)
    mx, my = body_to_space(b.get("a", 0.0), b.get("b", 0.0))
    # a centre of mass outside the ellipse: join it to the contact point
    du, dw = b.get("a", 0.0) - b.get("r", 0.0), b.get("b", 0.0) - b.get(
        "s", 0.0)
    ct, st = math.cos(b["theta"]), math.sin(b["theta"])
    u, w = ct * du - st * dw, st * du + ct * dw  # ellipse axes frame
    if (u / b["A"]) ** 2 + (w / b["B"]) ** 2 > 1:
        ax.plot([px, mx], [py, my], color="black", lw=0.5, zorder=4)
    ax.plot([mx], [my], "o", color="black", ms=2.2, zorder=5)
    t = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    ca, sa = math.cos(math.radians(ang)), math.sin(math.radians(ang))
    ex, ey = b["A"] * scale * np.cos(t), b["B"] * scale * np.sin(t)
    return np.vstack([np.column_stack([cx + ca * ex - sa * ey,
                                       cy + sa * ex + ca * ey]),
                      [[mx, my], [px, py]]])


class ClearLabel(Text):
    """A label for the point `anchor` (data coordinates) that finds its
    place when it is drawn, i.e. on the laid-out figure: of the offsets
    OFFSETS_PT in the directions `prefer` (display-space unit vectors,
    tried first) and the eight compass directions, the nearest whose box
    lies inside the axes and covers none of the points `avoid` (data
    coordinates; else the fewest). Left out of the layout. After a draw,
    `hits` is the number of avoided points its box covers."""
    OFFSETS_PT = (3, 7, 12, 18, 26, 36)

    def __init__(self, anchor, text, avoid, prefer=(), **kw):
        super().__init__(0, 0, text, **kw)
        self.anchor = np.asarray(anchor, dtype=float)
        self.avoid = np.asarray(avoid, dtype=float).reshape(-1, 2)
        self.prefer = [np.asarray(p, dtype=float) for p in prefer]
        self.hits = None
        self.set_in_layout(False)

    def directions(self):
        k = np.arange(8) * math.pi / 4
        return self.prefer + list(np.column_stack([np.cos(k), np.sin(k)]))

    def place(self, renderer):
        ax = self.axes
        a = ax.transData.transform(self.anchor)
        pts = ax.transData.transform(self.avoid)
        frame = ax.get_window_extent(renderer)
        px = renderer.points_to_pixels(1.0)
        self.set_transform(IdentityTransform())
        best = None
        for n, dist in enumerate(self.OFFSETS_PT):
            for m, u in enumerate(self.directions()):
                u = u / (np.hypot(*u) or 1.0)
                self.set_position(a + u * dist * px)
                self.set_ha("left" if u[0] > 0.38 else "right"
                            if u[0] < -0.38 else "center")
                self.set_va("bottom" if u[1] > 0.38 else "top"
                            if u[1] < -0.38 else "center")
                bb = self.get_window_extent(renderer)
                pad = 1.5 * px
                hits = int(np.count_nonzero(
                    (pts[:, 0] >= bb.x0 - pad) & (pts[:, 0] <= bb.x1 + pad) &
                    (pts[:, 1] >= bb.y0 - pad) & (pts[:, 1] <= bb.y1 + pad)))
                inside = (bb.x0 >= frame.x0 and bb.x1 <= frame.x1 and
                          bb.y0 >= frame.y0 and bb.y1 <= frame.y1)
                key = (not inside, hits, n, m)
                if best is None or key < best[0]:
                    best = (key, self.get_position(), self.get_ha(),
                            self.get_va())
            if best[0][:2] == (False, 0):
                break
        _, pos, ha, va = best
        self.set_position(pos)
        self.set_ha(ha)
        self.set_va(va)
        self.hits = best[0][1]

    def draw(self, renderer):
        if self.get_visible() and self.axes is not None:
            self.place(renderer)
        super().draw(renderer)


def draw_heading(ax, tr, k, color, size):
    """A small triangle at P pointing along the blade (phi)."""
    phi, px, py = tr.phi[k], tr.x[k], tr.y[k]
    c, s_ = math.cos(phi), math.sin(phi)
    tip = (px + size * c, py + size * s_)
    left = (px - 0.5 * size * c - 0.45 * size * s_,
            py - 0.5 * size * s_ + 0.45 * size * c)
    right = (px - 0.5 * size * c + 0.45 * size * s_,
             py - 0.5 * size * s_ - 0.45 * size * c)
    ax.add_patch(Polygon([tip, left, right], closed=True, fc=color,
                         ec="black", lw=0.3, zorder=4))


def draw_arrow(ax, curve, i, color):
    i = min(max(i, 1), len(curve) - 1)
    j = max(i - 2, 0)
    (x0, y0), (x1, y1) = curve[j], curve[i]
    if x0 == x1 and y0 == y1:
        return None
    ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                arrowprops=dict(arrowstyle="-|>,head_length=0.55,"
                                "head_width=0.28", color=color, lw=0.8,
                                shrinkA=0, shrinkB=0), zorder=6)
    return (float(x1), float(y1), float(x1 - x0), float(y1 - y0))


def plot_trajectories(trajs, ax=None, out=None, outlines=None, arrows=3,
                      smooth=8, circles=True, spacing=True, legend=True,
                      title=None, width=sswplot.SINGLE, height=None,
                      body_scale=None, blank=0, tspan=None, xlabel=None,
                      ylabel=None, exact=False, periods=PERIODS):
    """Draws the trajectories on `ax` (a new single-column figure when None,
    with the legend in a row below the axes, off the paths; in a given `ax`
    the legend goes where it covers the least, legend=False leaves it out
    and the result's `handles` hold its entries) and returns a
    TrajectoryPlot; each Trajectory then also holds the circle radius and
    centres, the drawn curve, the marked nodes and the body scale.
    tspan = (t1, t2) zooms the view on the part of the paths with t1 <= t
    <= t2 (arrows and outlines go there; the whole path is still drawn and
    the circles still come from the end states). exact=True overlays the
    exact path (docs/theory/exact-path.md) where the input carries it.
    periods: a periodic motion (circulation below its critical energy) is
    continued by its period's rigid motion this many periods beyond the
    stored path (the Trajectory's `orbit`: the copies, the period points
    and the orbit circle)."""
    sswplot.check_out(out)
    if tspan is not None and not tspan[0] < tspan[1]:
        raise UsageError(f"--tspan {tspan[0]:g} {tspan[1]:g}: expected "
                         "T1 < T2")
    legend_ax = None
    if ax is None and legend:
        fig, axes, legend_ax = sswplot.figure_with_legend_row(
            width, height or 0.85 * width + 0.35)
        ax = axes[0][0]
    elif ax is None:
        fig, axes = sswplot.figure(width, height or 0.85 * width)
        ax = axes[0][0]
    else:
        fig = ax.figure
    pts = [np.column_stack([t.x, t.y]) for t in trajs] or [np.zeros((1, 2))]
    for tr in trajs:
        (tr.radius_past, tr.radius, tr.centre_past, tr.centre_future,
         tr.circles_from) = limit_circles(tr)
        if tr.radius is not None and tspan is None:
            for c, r in ((tr.centre_past, tr.radius_past),
                         (tr.centre_future, tr.radius)):
                pts.append(np.array([c - r, c + r]))
    view = []
    for tr in trajs:
        tr.curve, tr.curve_t = hermite(tr, smooth)
        tr.orbit = None
        if tr.periodic is not None and tr.tensor is not None and periods:
            tr.orbit = periodic_orbit(tr, periods, tr.curve, tr.curve_t)
        if tr.orbit is not None and tspan is None:
            pts += tr.orbit.copies
            o = tr.orbit
            own = np.vstack([tr.curve] + o.copies)
            size = max(np.ptp(own[:, 0]), np.ptp(own[:, 1]), 1e-12)
            if o.radius is not None and o.radius <= ORBIT_VIEW * size:
                pts.append(np.array([o.centre - o.radius,
                                     o.centre + o.radius]))
        inside = (np.ones(len(tr.curve_t), bool) if tspan is None else
                  (tr.curve_t >= tspan[0]) & (tr.curve_t <= tspan[1]))
        if inside.sum() >= 2:
            view.append(tr.curve[inside])
    allp = np.vstack(view if tspan is not None and view else pts)
    extent = max(np.ptp(allp[:, 0]), np.ptp(allp[:, 1]), 1e-9)
    avoid = [tr.curve for tr in trajs]  # what the spacing label must not hide
    labels = []  # (trajectory, anchor, segment direction, colour)
    for n, tr in enumerate(trajs):
        color = tr.color or PALETTE[n % len(PALETTE)]
        ax.plot(tr.curve[:, 0], tr.curve[:, 1], color=color, lw=1.0,
                label=tr.label or None, zorder=3)
        if exact and tr.exact is not None:
            ax.plot(tr.exact[:, 0], tr.exact[:, 1], color="black", lw=0.6,
                    ls=(0, (1, 1.5)), zorder=4,
                    label="exact" if n == 0 else None)
        k0 = int(np.argmin(np.abs(tr.t)))
        ax.plot([tr.x[k0]], [tr.y[k0]], "s", color=color, ms=3, mec="black",
                mew=0.4, zorder=6)
        avoid.append([[tr.x[k0], tr.y[k0]]])
        if tr.orbit is not None:
            avoid += draw_orbit(ax, tr, color, circles)
        if tr.rest is not None:  # a damped path: where it stops
            ax.plot([tr.rest[0]], [tr.rest[1]], "X", color=color, ms=5,
                    mec="black", mew=0.4, zorder=6)
            avoid.append([tr.rest])
        if circles and tr.radius is not None:
            ring = np.linspace(0, 2 * math.pi, 72, endpoint=False)
            for c, fill, rad in ((tr.centre_past, "white", tr.radius_past),
                                 (tr.centre_future, color, tr.radius)):
                if rad > 0:
                    ax.add_patch(Circle(c, rad, fc="none", ec=color,
                                        lw=0.6, ls=(0, (3, 2)), alpha=0.8,
                                        zorder=2))
                    avoid.append(c + rad * np.column_stack(
                        [np.cos(ring), np.sin(ring)]))
                ax.plot([c[0]], [c[1]], "o", mfc=fill, mec=color, ms=3.5,
                        mew=0.9, zorder=6)
                avoid.append([c])
            if spacing:
                cp, cf = tr.centre_past, tr.centre_future
                ax.plot([cp[0], cf[0]], [cp[1], cf[1]], color=color, lw=0.5,
                        ls=":", zorder=2)
                avoid.append(cp + np.linspace(0, 1, 25)[:, None] * (cf - cp))
                if len(trajs) == 1:
                    labels.append((tr, 0.5 * (cp + cf), cf - cp, color))
        lo, hi = ((0, len(tr.curve)) if tspan is None else
                  (int(np.searchsorted(tr.curve_t, tspan[0])),
                   int(np.searchsorted(tr.curve_t, tspan[1], "right"))))
        part = tr.curve[lo:hi]
        if arrows > 0 and len(part) >= 3:
            idx, _ = arclength_points(part, [(k + 0.5) / arrows
                                             for k in range(arrows)])
            tr.arrows = [a for a in (draw_arrow(ax, tr.curve, lo + i, color)
                                     for i in idx) if a]
        nmarks = outlines if outlines is not None else (
            4 if tr.body and "A" in tr.body else 8)
        nodes = np.flatnonzero(np.ones(len(tr.t), bool) if tspan is None
                               else (tr.t >= tspan[0]) & (tr.t <= tspan[1]))
        if nmarks > 0 and len(nodes) >= 1:
            nodes_curve = np.column_stack([tr.x[nodes], tr.y[nodes]])
            _, s_curve = arclength_points(nodes_curve, [])
            targets = s_curve[-1] * (np.arange(nmarks) + 0.5) / nmarks
            tr.marks = sorted({int(nodes[np.argmin(np.abs(s_curve - s))])
                               for s in targets})
            if tr.body and "A" in tr.body and "theta" in tr.body:
                tr.body_scale = body_scale or auto_body_scale(
                    2 * tr.body["A"], extent, nodes_curve)
                for k in tr.marks:
                    avoid.append(draw_body(ax, tr, k, color, tr.body_scale))
            else:
                for k in tr.marks:
                    draw_heading(ax, tr, k, color, 0.025 * extent)
    avoid = np.vstack([np.asarray(a, dtype=float).reshape(-1, 2)
                       for a in avoid] + [np.zeros((0, 2))])
    for tr, anchor, seg, color in labels:
        d = float(np.hypot(*seg))
        # prefer the two sides of the centre segment (in display space the
        # aspect is equal, so the data-space normal is the display normal)
        normal = np.array([-seg[1], seg[0]]) / (d or 1.0)
        tr.spacing_label = ClearLabel(anchor, f"$d = {d:.4g}$", avoid,
                                      prefer=(normal, -normal), fontsize=7,
                                      color=color, zorder=7)
        ax.add_artist(tr.spacing_label)
    if tspan is not None and view:
        margin = 0.06 * extent
        ax.set_xlim(allp[:, 0].min() - margin, allp[:, 0].max() + margin)
        ax.set_ylim(allp[:, 1].min() - margin, allp[:, 1].max() + margin)
    ax.set_aspect("equal", adjustable="datalim")
    units = {t.units for t in trajs if t.units}
    u = sswplot.unit_text(units.pop()) if len(units) == 1 else "length"
    ax.set_xlabel(xlabel or f"$x$ ({u})")
    ax.set_ylabel(ylabel or f"$y$ ({u})")
    handles = [Line2D([], [], ls="none", marker="o", mfc="white", mec="0.3",
                      ms=3.5, label="past centre (unstable)"),
               Line2D([], [], ls="none", marker="o", mfc="0.3", mec="0.3",
                      ms=3.5, label="future centre (stable)"),
               Line2D([], [], ls="none", marker="s", mfc="0.6", mec="black",
                      mew=0.4, ms=3, label="$t = 0$")]
    if not any(t.radius is not None for t in trajs) or not circles:
        handles = handles[2:]
    handles += orbit_handles(trajs, circles)
    if any(t.rest is not None for t in trajs):
        handles.append(Line2D([], [], ls="none", marker="X", mfc="0.6",
                              mec="black", mew=0.4, ms=5, label="rest"))
    labelled = [Line2D([], [], color=t.color or PALETTE[n % 8],
                       label=t.label) for n, t in enumerate(trajs)
                if t.label]
    handles = labelled + handles
    shown = None
    if legend and legend_ax is not None:
        shown = sswplot.legend_below(legend_ax, handles, 2)
    elif legend:
        shown = ax.legend(handles=handles, loc="best", fontsize=6,
                          handlelength=1.2)
    if title:
        ax.set_title(title, fontsize=7, loc="left")
    if blank:
        ax.text(0.02, 0.02, f"{blank} requested point(s) not done",
                transform=ax.transAxes, fontsize=6, color="0.3")
    result = TrajectoryPlot(fig=fig, ax=ax, trajectories=trajs, blank=blank,
                            out=out, axes=[ax], handles=handles,
                            legend=shown)
    if out:
        sswplot.save(fig, out)
    return result


def draw_orbit(ax, tr, color, circles):
    """The continuation of a periodic path (lighter, thinner), its period
    points (diamonds: the section and its images under the period's rigid
    motion) and, when finite and not far larger than the path, the orbit
    circle through them (dash-dotted) with its centre (+). Returns the
    points that labels must not cover."""
    o = tr.orbit
    for c in o.copies:
        ax.plot(c[:, 0], c[:, 1], color=color, lw=0.8,
                alpha=CONTINUED_ALPHA, zorder=3)
    ax.plot(o.points[:, 0], o.points[:, 1], ls="none", marker="D", ms=2.8,
            mfc="white", mec=color, mew=0.8, zorder=6)
    avoid = list(o.copies) + [o.points]
    own = np.vstack([tr.curve] + o.copies)
    size = max(np.ptp(own[:, 0]), np.ptp(own[:, 1]), 1e-12)
    if circles and o.radius is not None and o.radius <= ORBIT_DRAWN * size:
        ring = Circle(o.centre, o.radius, fc="none", ec=color, lw=0.6,
                      ls=(0, (5, 2, 1, 2)), alpha=0.8, zorder=2)
        if o.radius > ORBIT_VIEW * size:
            ax.add_artist(ring)  # clipped, left out of the view's limits
            return avoid
        ax.add_patch(ring)
        ax.plot([o.centre[0]], [o.centre[1]], ls="none", marker="+",
                ms=5, mec=color, mew=0.9, zorder=6)
        t = np.linspace(0, 2 * math.pi, 72, endpoint=False)
        avoid.append(o.centre + o.radius * np.column_stack([np.cos(t),
                                                            np.sin(t)]))
        avoid.append([o.centre])
    return avoid


def orbit_handles(trajs, circles):
    """Legend entries of the periodic continuation, when one is drawn."""
    orbits = [t.orbit for t in trajs if t.orbit is not None]
    if not orbits:
        return []
    n = max(len(o.copies) for o in orbits)
    out = [Line2D([], [], color="0.3", lw=0.8, alpha=CONTINUED_ALPHA,
                  label=f"{n} more period{'s' if n != 1 else ''} "
                  "(rigid motion)"),
           Line2D([], [], ls="none", marker="D", ms=2.8, mfc="white",
                  mec="0.3", mew=0.8, label="period points")]
    if circles and any(o.radius is not None for o in orbits):
        out.append(Line2D([], [], color="0.3", lw=0.6, ls=(0, (5, 2, 1, 2)),
                          marker="+", ms=5, mew=0.9,
                          label="orbit circle, centre"))
    return out


def auto_body_scale(size, extent, path):
    """The scale of a body `size` long (its major axis) in a view `extent`
    wide: 1, or smaller when the body is more than BODY_MAX of the view, or
    larger when it is less than BODY_MIN of it (a body on a path 50 times
    its size would vanish), though never past BODY_MAX of its own path
    (`path`: its points in the view)."""
    if size <= 0:
        return 1.0
    if size > BODY_MAX * extent:
        return BODY_MAX * extent / size
    own = max(np.ptp(path[:, 0]), np.ptp(path[:, 1])) if len(path) else 0
    want = min(BODY_MIN * extent, BODY_MAX * own)
    return max(1.0, want / size)


def plot_panels(trajs, ncols=None, out=None, width=sswplot.DOUBLE,
                height=None, title=None, blank=0, **kw):
    """One panel per trajectory, each on its own scale (paths of very
    different sizes stay readable), titled by its label; `title` goes above
    them all, one legend below them all (off the paths). Keyword arguments
    as plot_trajectories. Returns a TrajectoryPlot with one Axes per panel
    in `axes`."""
    sswplot.check_out(out)
    n = max(len(trajs), 1)  # blank points only: one empty panel, counted
    ncols = ncols or min(n, 3)
    nrows = math.ceil(n / ncols)
    panel_w = width / ncols
    fig, grid, legend_ax = sswplot.figure_with_legend_row(
        width, height or nrows * (0.9 * panel_w) + 0.3 +
        (0.25 if title else 0), ncols=ncols, nrows=nrows)
    axes = [a for row in grid for a in row]
    for a in axes[n:]:
        a.axis("off")
    handles = []
    for k, (tr, a) in enumerate(zip(trajs, axes)):
        label, tr.label = tr.label, ""
        tag = f"({chr(ord('a') + k)}) " if n > 1 else ""
        res = plot_trajectories([tr], ax=a, title=tag + label, legend=False,
                                **kw)
        tr.label = label
        handles += [h for h in res.handles if h.get_label() not in
                    [g.get_label() for g in handles]]
        sswplot.fewer_ticks(a.xaxis, 0.8 * panel_w)
    shown = sswplot.legend_below(legend_ax, handles, min(len(handles), 4))
    if title:
        fig.suptitle(title, fontsize=7)
    if blank:
        fig.text(0.01, 0.01, f"{blank} requested point(s) not done",
                 fontsize=6, color="0.3")
    if trajs:
        sswplot.declutter_xticks(axes[:n])
    res = TrajectoryPlot(fig=fig, ax=axes[0], trajectories=trajs,
                         blank=blank, out=out, axes=axes[:n],
                         handles=handles, legend=shown)
    if out:
        sswplot.save(fig, out)
    return res


# the axes' symbols (sswfile's table: θ, Γ, ...) and the body constants'
SYMBOLS = dict(TITLE_SYMBOLS, rho="ρ", omega0="ω₀", v0="v₀", I0="I₀")
# Gamma and the energy H are named only with circulation (Gamma != 0),
# where the energy matters (load_csv and load_samples set H then).
# every parameter a trajectory's label or title may name: the body's
# constants, every grid axis (the body's and the run's: Gamma, the drag
# entries; the energy is H), the initial state
DESCRIBED = ("m", "I0", "rho") + tuple(a for a in ALL_AXES
                                       if a != "energy") + \
    ("omega0", "v0", "H")
TITLE_LINE = 58  # characters per line of a title (param_text)


def param_value(k, v):
    return fmt_value(k, v) if k in ALL_AXES else f"{v:.4g}"


def param_text(body, keys):
    """'ρ = 1, θ = 60°, a = 0.2, b = r = s = 0, ...' (equal neighbours
    grouped), wrapped to lines of at most TITLE_LINE characters (two
    lines for the parameters of a body, three with circulation's)."""
    parts = [(SYMBOLS.get(k, k), param_value(k, body[k])) for k in keys
             if k in body]
    text, lines = group_equal(parts), []
    while len(text) > TITLE_LINE and text.rfind(", ", 0, TITLE_LINE) > 0:
        cut = text.rfind(", ", 0, TITLE_LINE)
        lines.append(text[:cut + 1])
        text = text[cut + 2:]
    return "\n".join(lines + [text])


def auto_labels(trajs):
    """Labels naming only the parameters that differ between trajectories;
    returns the common ones as a title."""
    # drag on in any of them: every fixed entry of the matrix is named
    drag = any(t.body and t.body.get(a) for t in trajs for a in DRAG_AXES)
    keys = [k for k in DESCRIBED
            if trajs and all(t.body and k in t.body for t in trajs) and
            (k != "Gamma" or any(t.body[k] for t in trajs)) and
            (k not in DRAG_AXES or drag)]
    # as printed: energies equal up to round-off do not differ
    varying = [k for k in keys
               if len({param_value(k, t.body[k]) for t in trajs}) > 1]
    arcs = {t.arc for t in trajs if t.periodic is None}
    both = arcs == {1, -1}  # above H_c, both arcs drawn
    for t in trajs:
        if t.label:
            continue
        if varying:
            t.label = param_text(t.body, varying).replace("\n", " ")
            if t.sample is not None and any(
                    u is not t and u.body == t.body for u in trajs):
                t.label += f" (sample {t.sample})"
        elif len(trajs) > 1:
            t.label = os.path.basename(t.source)
        if both and t.periodic is None and t.arc:
            t.label += f", arc g {'>' if t.arc > 0 else '<'} 0"
    common = [k for k in keys if k not in varying]
    return param_text(trajs[0].body, common) if common else ""


# ---- command line -------------------------------------------------------

def parser():
    p = argparse.ArgumentParser(
        prog="trajectory.py",
        description="Plot contact-point paths with limit circles, centres, "
        "direction arrows and heading (body outlines), from `sleighsweep "
        "point --trajectory` CSVs and/or the sample trajectories of a sweep "
        "file. Reads the files only.",
        epilog="Example: sleighsweep point --b 0.1 --trajectory p.csv > "
        "p.json; trajectory.py p.csv --out p.pdf (p.json is found beside "
        "p.csv). Sweep: trajectory.py sweep.h5 --at theta=60deg a=0.2 --at "
        "theta=120deg a=0.2 --out f.pdf. Exit status 2 on bad arguments or "
        "an unusable file.")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help=".csv from `sleighsweep point --trajectory`, or a "
                   "sweep .h5 with /samples")
    p.add_argument("--json", nargs="+", default=[], metavar="JSON",
                   help="`sleighsweep point` JSON for the CSVs, in order "
                   "[the CSV's name with .json, when it exists]")
    p.add_argument("--at", nargs="+", action="append", metavar="AXIS=VALUE",
                   help="grid point of the sweep inputs (nearest values); "
                   "repeat for several points")
    p.add_argument("--sample", nargs="+", default=["0"],
                   help="stored sample trajectories to draw (indices or "
                   "'all') [0]")
    p.add_argument("--label", nargs="+", default=[],
                   help="legend labels, in drawing order")
    p.add_argument("--color", nargs="+", default=[],
                   help="line colours, in drawing order")
    p.add_argument("--outlines", type=int, default=None,
                   help="body outlines (or heading marks) per path [4 with "
                   "a known body, else 8]")
    p.add_argument("--body-scale", type=float, default=None,
                   help="scale of the body outlines [1, smaller when the "
                   "body is large next to the path]")
    p.add_argument("--arrows", type=int, default=3,
                   help="direction arrows per path [3]")
    p.add_argument("--smooth", type=int, default=8,
                   help="Hermite sub-steps between stored nodes (1: "
                   "straight segments) [8]")
    p.add_argument("--tspan", nargs=2, type=float, metavar=("T1", "T2"),
                   help="zoom on the part of the paths with T1 <= t <= T2 "
                   "(e.g. the transition of a classical sleigh)")
    p.add_argument("--exact", action="store_true",
                   help="overlay the exact path (dotted black) where the "
                   "input is a point CSV with phi_exact,x_exact,y_exact")
    p.add_argument("--no-circles", action="store_true",
                   help="do not draw the limit circles and centres (nor a "
                   "periodic motion's orbit circle)")
    p.add_argument("--periods", type=int, default=PERIODS, metavar="N",
                   help="a periodic motion (circulation below its critical "
                   "energy): continue the stored path N periods by the "
                   "period's rigid motion, marking the period points "
                   "[%(default)s]")
    p.add_argument("--title", help="title [the common parameters]")
    p.add_argument("--panels", action="store_true",
                   help="one panel per trajectory, each on its own scale "
                   "(paths of very different sizes), titled by its label")
    p.add_argument("--ncols", type=int, help="panels per row with --panels "
                   "[up to 3]")
    p.add_argument("--xlabel", help="x axis label [$x$ (units of the "
                   "file)]")
    p.add_argument("--ylabel", help="y axis label")
    p.add_argument("--out", "-o", default="trajectory.pdf",
                   help="output .pdf, .png or .svg [trajectory.pdf]")
    p.add_argument("--width", type=float,
                   help="figure width in inches [3.4; 7 with --panels]")
    p.add_argument("--height", type=float, help="figure height in inches")
    return p


def load_inputs(args):
    csvs = [i for i in args.inputs if i.lower().endswith(".csv")]
    if len(args.json) > len(csvs):
        raise UsageError(f"--json: {len(args.json)} JSON file(s) for "
                         f"{len(csvs)} CSV file(s)")
    if args.sample == ["all"]:
        samples = "all"
    else:
        try:
            samples = [int(s) for s in args.sample]
        except ValueError:
            raise UsageError(f"--sample {' '.join(args.sample)}: expected "
                             "indices or 'all'") from None
    points = [parse_assignments(a, "--at") for a in (args.at or [[]])]
    trajs, blank, nj, skipped = [], 0, 0, []
    for path in args.inputs:
        if path.lower().endswith(".csv"):
            js = args.json[nj] if nj < len(args.json) else None
            nj += 1
            try:
                trajs.append(load_csv(path, js))
            except Skip as e:
                say(str(e))
                skipped.append(str(e))
        else:
            for at in points:
                try:
                    got, b = load_samples(path, at, samples)
                except Skip as e:
                    say(str(e))
                    skipped.append(str(e))
                    continue
                trajs += got
                blank += b
    if not trajs and not blank:  # a point not done is drawn blank, counted
        raise UsageError("nothing to draw" + (": " + "; ".join(skipped)
                                              if skipped else ""))
    return trajs, blank


def main(argv=None):
    ap = parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        if args.ncols is not None and not args.panels or \
                (args.ncols or 1) < 1:
            raise UsageError("--ncols takes a number >= 1, with --panels")
        if args.arrows < 0 or args.smooth < 1 or (args.outlines or 0) < 0 \
                or args.periods < 0:
            raise UsageError("--arrows, --outlines and --periods must be "
                             ">= 0, --smooth >= 1")
        sswplot.check_out(args.out)
        trajs, blank = load_inputs(args)
        if len(args.label) > len(trajs) or len(args.color) > len(trajs):
            raise UsageError(f"{len(trajs)} trajectories but "
                             f"{len(args.label)} labels / {len(args.color)} "
                             "colours")
        for t, lab in zip(trajs, args.label):
            t.label = lab
        for t, c in zip(trajs, args.color):
            t.color = c
        title = args.title if args.title is not None else auto_labels(trajs)
        common = dict(outlines=args.outlines, arrows=args.arrows,
                      smooth=args.smooth, circles=not args.no_circles,
                      body_scale=args.body_scale, tspan=args.tspan,
                      xlabel=args.xlabel, ylabel=args.ylabel,
                      exact=args.exact, periods=args.periods)
        if args.panels:
            res = plot_panels(trajs, ncols=args.ncols, out=args.out,
                              width=args.width or sswplot.DOUBLE,
                              height=args.height, title=title, blank=blank,
                              **common)
        else:
            res = plot_trajectories(trajs, out=args.out, title=title,
                                    width=args.width or sswplot.SINGLE,
                                    height=args.height,
                                    blank=blank, **common)
        for t in res.trajectories:
            msg = f"{t.source}: {len(t.t)} nodes"
            if t.radius is not None:
                d = float(np.hypot(*(t.centre_future - t.centre_past)))
                msg += (f", limit radius {t.radius:.6g}, centres "
                        f"({t.centre_past[0]:.6g}, {t.centre_past[1]:.6g}) -> "
                        f"({t.centre_future[0]:.6g}, "
                        f"{t.centre_future[1]:.6g}), d = {d:.6g} (from the "
                        f"{t.circles_from})")
            elif t.rest is not None:
                msg += (f", damped: at rest at ({t.rest[0]:.6g}, "
                        f"{t.rest[1]:.6g})")
            elif t.orbit is not None:
                o = t.orbit
                turns = o.heading / (2 * math.pi)
                msg += (f", periodic: period {o.period:.6g}, heading per "
                        f"period {o.heading:.6g} ({turns:.4g} turns), "
                        f"continued {len(o.copies)} periods")
                if o.centre is not None:
                    msg += (f"; orbit circle about ({o.centre[0]:.6g}, "
                            f"{o.centre[1]:.6g}), radius "
                            f"{o.geometric_radius:.6g} through the period "
                            f"points (orbit_radius {o.measured_radius:.6g})")
                else:
                    msg += "; drift resonance: the path drifts"
            elif t.periodic is not None:
                msg += ", periodic (not continued)"
            else:
                msg += ", no limit circles (Z = 0 or straight-line limits)"
            if t.marks and abs(t.body_scale - 1) > 1e-9:
                msg += f"; bodies drawn at {t.body_scale:.3g}x their size"
            say(msg)
        if blank:
            say(f"{blank} requested point(s) not done (blank)")
        say(f"wrote {args.out}")
    except UsageError as e:
        print(f"trajectory.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
