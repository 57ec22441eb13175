#!/usr/bin/python3
"""Circulation's figures on a small sweep and point runs made here: the
curve H = H_c that phase_diagram.py --critical draws lies where
critical_energy / energy crosses 1 (every drawn vertex on a grid edge,
where the linear interpolation of the file's datasets is 1, and one
vertex on every edge that crosses 1); a regime map's legend lists only the
categories shown (with --shade period, the periodic cells show the
period); the continued periodic path of trajectory.py is the stored period
moved by the powers of the period's rigid motion (an identity: checked
against powers of its 3 x 3 matrix), its period points on the drawn circle
of radius orbit_radius, none at a drift resonance; both arcs above H_c
with the JSON's circles; sweep samples; and the three gallery figures
built from these outputs.

Usage: test_circulation_figures.py SLEIGHSWEEP [MPIEXEC]
"""
import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.join(HERE, "..", "..", "analysis")
sys.path.insert(0, os.path.join(ANALYSIS, "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))

import h5py  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.patches import Circle, Patch  # noqa: E402

from sleighsweep import gallery  # noqa: E402
from sleighsweep import phase_diagram  # noqa: E402
from sleighsweep import sweep as sswfile  # noqa: E402
from sleighsweep import trajectory  # noqa: E402
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
BODY = ["--b", "0.1", "--r", "0.3", "--s", "-0.2", "--Gamma", "2"]
# The gallery's circulation sweep, smaller: r crosses H = H_c on both
# sides at H = 0.5; samples at a periodic point and one above H_c.
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
Gamma = 2
[grid]
theta = 0deg, 30deg, 60deg, 90deg, 120deg
a = 0.2
b = 0.1
r = linspace(-0.6, 0.6, 13)
s = -0.2
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
energy = 0.5
[integrator]
eta = 0.8
tol = 1e-5
[output]
file = {out}
samples = 1
sample_nodes = 96
sample_points = r = 0.3, theta = 60deg | r = 0.1, theta = 60deg
"""
# one file without circulation: no curve, and no entry in the legend
PLAIN = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 30deg, 60deg
a = 0.2
r = 0, 0.3
A = 0.5
B = 0.3
[ensemble]
trajectories = 1
[output]
file = {out}
"""


def quiet(fn, *a, **k):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        return fn(*a, **k)


def sweep(tmp, name, text, np_=2):
    out = os.path.join(tmp, name + ".h5")
    cfg = os.path.join(tmp, name + ".ini")
    with open(cfg, "w") as fh:
        fh.write(text.format(out=out))
    cmd = ([MPIEXEC, "--oversubscribe", "-np", str(np_)] if np_ > 1 else
           []) + [EXE, "run", "--quiet", cfg]
    p = subprocess.run(cmd, env=ENV, capture_output=True, text=True,
                       timeout=300)
    check(p.returncode == 0, f"{name}: run {p.returncode} {p.stderr}")
    return out


def point(data, name, *args):
    csv = os.path.join(data, name + ".csv")
    p = subprocess.run([EXE, "point", *BODY, *map(str, args),
                        "--trajectory", csv], env=ENV, capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0, f"point {name}: {p.returncode} {p.stderr}")
    with open(os.path.join(data, name + ".json"), "w") as fh:
        fh.write(p.stdout)
    return json.loads(p.stdout)


# ---- H = H_c ------------------------------------------------------------

def drawn_curve(ax):
    """The vertices of the H = H_c LineCollection drawn in `ax`."""
    colls = [c for c in ax.collections if isinstance(c, LineCollection) and
             np.allclose(c.get_colors()[0][:3], (0.839, 0.153, 0.157),
                         atol=2e-3)]
    return [np.asarray(seg) for c in colls for seg in c.get_segments()]


def check_curve(path, res):
    """Every vertex of the drawn curve lies on a grid edge, where the
    linear interpolation of critical_energy / energy (read here from the
    file) is 1; every edge where that ratio crosses 1 holds one."""
    with h5py.File(path, "r") as f:
        ratio = (f["critical_energy"][:, 0, 0, :, 0, 0, 0] /
                 float(f.attrs["energy"]))  # (theta, r): y, x
        x, y = f["r"][()], f["theta"][()]
    segs = drawn_curve(res.axes[0])
    check(len(segs) >= 2, f"H = H_c: {len(segs)} drawn polylines, expected "
          "one on either side of r = 0")
    verts = np.vstack(segs) if segs else np.zeros((0, 2))
    hit, worst = set(), 0.0
    for vx, vy in verts:
        i = np.flatnonzero(np.abs(x - vx) <= 1e-12)
        j = np.flatnonzero(np.abs(y - vy) <= 1e-12)
        if len(j):  # on a horizontal edge: between x[i] and x[i + 1]
            j = j[0]
            i = min(int(np.searchsorted(x, vx)) - 1, len(x) - 2)
            u = (vx - x[i]) / (x[i + 1] - x[i])
            val = (1 - u) * ratio[j, i] + u * ratio[j, i + 1]
            hit.add(("h", j, i))
        elif len(i):  # on a vertical edge
            i = i[0]
            j = min(int(np.searchsorted(y, vy)) - 1, len(y) - 2)
            u = (vy - y[j]) / (y[j + 1] - y[j])
            val = (1 - u) * ratio[j, i] + u * ratio[j + 1, i]
            hit.add(("v", j, i))
        else:
            check(False, f"H = H_c: vertex ({vx}, {vy}) on no grid edge")
            continue
        worst = max(worst, abs(val - 1))
    check(worst <= 1e-12, f"H = H_c: the interpolated ratio at the drawn "
          f"vertices is off 1 by up to {worst:.3g}")
    s = ratio > 1
    want = {("h", j, i) for j, i in zip(*np.nonzero(s[:, :-1] != s[:, 1:]))}
    want |= {("v", j, i) for j, i in zip(*np.nonzero(s[:-1, :] != s[1:, :]))}
    check(hit == want, f"H = H_c: vertices on {len(hit)} edges, the ratio "
          f"crosses 1 on {len(want)} (missing {sorted(want - hit)[:4]}, "
          f"extra {sorted(hit - want)[:4]})")
    lines = res.panels[0].boundaries["H=Hc"]
    check(len(lines) == len(segs) and all(
        np.array_equal(a, b) for a, b in zip(lines, segs)),
        "H = H_c: the drawn curve differs from panel.boundaries['H=Hc']")
    print(f"H = H_c: {len(verts)} vertices on {len(want)} crossing edges, "
          f"ratio within {worst:.2g} of 1")


def legend_labels(res):
    return [h.get_label() for h in res.handles]


def check_legend(path, res, shaded):
    """The legend's categories are exactly those shown: with --shade
    period, regimes whose cells are not all shaded; H = H_c listed."""
    with h5py.File(path, "r") as f:
        reg = f["regime"][:, 0, 0, :, 0, 0, 0].astype(int)
        per = f["period"][:, 0, 0, :, 0, 0, 0]
    shown = sorted(set(reg[np.isnan(per)].ravel()) if shaded else
                   set(reg.ravel()))
    style = phase_diagram.CATEGORY_STYLE["regime"]
    want = [style[sswfile.REGIMES[v]][1] for v in shown]
    got = [h.get_label() for h in res.handles if isinstance(h, Patch)]
    check(got == want, f"legend categories {got}, expected {want} "
          f"({'shaded' if shaded else 'plain'} regime map)")
    check(phase_diagram.CRITICAL_LABEL in legend_labels(res),
          f"legend lacks H = H_c: {legend_labels(res)}")
    if shaded:
        check(not any("periodic" in t for t in got),
              "a shaded map lists 'periodic' though no cell shows it")


def test_phase(path, plain, tmp):
    out = os.path.join(tmp, "regime.png")
    res = quiet(phase_diagram.plot_phase_diagram, path, x="r", y="theta",
                quantity="regime", critical=True, shade="period", out=out)
    check(os.path.getsize(out) > 2000, "regime map with --shade: no PNG")
    with h5py.File(path, "r") as f:
        want = f["period"][:, 0, 0, :, 0, 0, 0]
    check(np.array_equal(res.panels[0].shade, want, equal_nan=True),
          "--shade period: the shaded values are not the file's")
    check(res.colorbar is not None and "period" in res.label,
          f"--shade period: colour bar {res.label!r}")
    check_curve(path, res)
    check_legend(path, res, True)
    res = quiet(phase_diagram.plot_phase_diagram, path, x="r", y="theta",
                quantity="regime", critical=True)
    check_legend(path, res, False)
    check_curve(path, res)
    # a continuous map takes the overlay too
    res = quiet(phase_diagram.plot_phase_diagram, path, x="r", y="theta",
                quantity="period", critical=True)
    check(res.scale == "log" and drawn_curve(res.axes[0]),
          f"period map: scale {res.scale}, H = H_c drawn")
    # without circulation: no curve, no legend entry, said
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        res = phase_diagram.plot_phase_diagram(plain, x="r", y="theta",
                                               quantity="regime",
                                               critical=True)
    check(not drawn_curve(res.axes[0]) and phase_diagram.CRITICAL_LABEL not
          in legend_labels(res) and "no circulation" in buf.getvalue(),
          f"no circulation: curve drawn or unsaid ({buf.getvalue()!r})")
    # the command line
    png = os.path.join(tmp, "cli.png")
    p = subprocess.run([sys.executable, os.path.join(
        ANALYSIS, "phase_diagram.py"), path, "--x", "r", "--y", "theta",
        "--quantity", "regime", "--shade", "period", "--critical", "--out",
        png], env=ENV, capture_output=True, text=True)
    check(p.returncode == 0 and os.path.getsize(png) > 2000,
          f"phase_diagram.py --shade --critical: {p.returncode} {p.stderr}")
    p = subprocess.run([sys.executable, os.path.join(
        ANALYSIS, "phase_diagram.py"), path, "--x", "r", "--y", "theta",
        "--quantity", "period", "--shade", "period", "--out", png],
        env=ENV, capture_output=True, text=True)
    check(p.returncode == 2 and "--shade" in p.stderr,
          f"--shade on a continuous map: exit {p.returncode} {p.stderr}")
    # the new quantities draw, with units
    for q in ("heading_per_period", "orbit_radius", "drift_per_period",
              "transition_angle_lower", "loops_lower", "upper_fraction",
              "critical_energy"):
        res = quiet(phase_diagram.plot_phase_diagram, path, x="r", y="theta",
                    quantity=q)
        check(res.panels[0].z.shape == (5, 13), f"{q}: map not drawn")
        if q == "upper_fraction":
            check(res.norm.vmin == 0 and res.norm.vmax == 1,
                  f"upper_fraction: colour range {res.norm.vmin} .. "
                  f"{res.norm.vmax}, expected 0 .. 1")
        if q == "heading_per_period":
            check(res.scale in ("symlog", "diverging") and "resonances" in
                  res.panels[0].boundaries,
                  f"heading_per_period: scale {res.scale}, resonances "
                  f"{list(res.panels[0].boundaries)}")
        phase_diagram.sswplot.plt.close("all")


# ---- periodic paths -----------------------------------------------------

def se2(rot, shift):
    """The 3 x 3 matrix of z -> rot z + shift (rot = exp(i phi))."""
    c, s = rot.real, rot.imag
    return np.array([[c, -s, shift.real], [s, c, shift.imag], [0, 0, 1]])


def check_orbit(tr, j, what, bounded):
    o = tr.orbit
    check(o is not None, f"{what}: not continued")
    if o is None:
        return
    # At a drift resonance the heading is 2 pi n within its error estimate
    # and the continuation uses 2 pi n (a translation).
    h, err = j["heading_per_period"], j["error_estimate"]["heading_per_period"]
    n = round(h / (2 * np.pi))
    snapped = abs(h - 2 * np.pi * n) <= err and o.heading == 2 * np.pi * n
    check((o.heading == h or snapped) and o.period == j["period"],
          f"{what}: the rigid motion's rotation is not the JSON's heading "
          "per period")
    m = se2(o.rot, o.shift)
    base = np.column_stack([o.base, np.ones(len(o.base))]).T
    scale = max(np.ptp(o.points[:, 0]), np.ptp(o.points[:, 1]), 1.0)
    worst = 0.0
    for k, copy in enumerate(o.copies, 1):
        want = (np.linalg.matrix_power(m, k) @ base)[:2].T
        worst = max(worst, float(np.abs(copy - want).max()))
        pk = (np.linalg.matrix_power(m, k) @ base[:, 0])[:2]
        worst = max(worst, float(np.abs(o.points[k] - pk).max()))
    check(worst <= 1e-12 * scale, f"{what}: copies and period points differ "
          f"from the powers of the period's rigid motion by {worst:.3g}")
    # the drawn copies are those
    ax = trajectory_axes[id(tr)]
    drawn = [np.column_stack(ln.get_data()) for ln in ax.get_lines()
             if abs((ln.get_alpha() or 1) - trajectory.CONTINUED_ALPHA)
             < 1e-12]
    check(len(drawn) == len(o.copies) and all(
        np.array_equal(a, b) for a, b in zip(drawn, o.copies)),
        f"{what}: the drawn continuation is not the orbit's copies")
    # G(z(section)) is z one period later, exactly; the displacement per
    # period and the section against the engine's
    check(np.abs(o.points[1] - o.base[-1]).max() <= 1e-12 * scale and
          np.abs(o.copies[0][0] - o.base[-1]).max() <= 1e-12 * scale,
          f"{what}: the first copy does not start where the period ends")
    zt = float(np.hypot(*(o.points[1] - o.points[0])))
    check(abs(zt - j["drift_per_period"]) <= 1e-4 * j["drift_per_period"],
          f"{what}: displacement per period {zt} vs the JSON's "
          f"{j['drift_per_period']}")
    circles = [p for p in ax.patches if isinstance(p, Circle)] + \
        [a for a in ax.artists if isinstance(a, Circle)]
    if bounded:
        d = np.hypot(*(o.points - o.centre).T)
        check(np.abs(d - o.geometric_radius).max() <= 1e-12 * scale,
              f"{what}: period points off their circle by "
              f"{np.abs(d - o.geometric_radius).max():.3g}")
        check(o.radius == j["orbit_radius"] and
              abs(o.geometric_radius / o.radius - 1) <= 1e-4,
              f"{what}: drawn radius {o.radius}, through the points "
              f"{o.geometric_radius}, the JSON's {j['orbit_radius']}")
        check(any(abs(c.get_radius() - o.radius) <= 1e-12 * o.radius and
                  np.allclose(c.center, o.centre) for c in circles),
              f"{what}: no orbit circle of radius {o.radius} drawn")
    else:
        check(o.radius is None or not any(
            abs(c.get_radius() - o.radius) <= 1e-9 * o.radius
            for c in ax.patches if isinstance(c, Circle)),
            f"{what}: an orbit circle sets the view at a drift resonance")
        steps = np.diff(o.points, axis=0)
        check(np.abs(steps - steps[0]).max() <= 1e-6 * scale,
              f"{what}: the period points of a drift are not equally "
              "spaced along a line")
    print(f"{what}: {len(o.copies)} periods continued, identity to "
          f"{worst:.2g}; |z_T| {zt:.6g} (JSON {j['drift_per_period']:.6g})")


trajectory_axes = {}


def plot(trajs, **kw):
    res = quiet(trajectory.plot_trajectories, trajs, **kw)
    for t in trajs:
        trajectory_axes[id(t)] = res.ax
    return res


def test_paths(data, swp, tmp):
    jb = gallery.read_point_json(os.path.join(data, "circ_bounded.json"))
    jd = gallery.read_point_json(os.path.join(data, "circ_drift.json"))
    tb = trajectory.load_csv(os.path.join(data, "circ_bounded.csv"))
    plot([tb], periods=3, out=os.path.join(tmp, "bounded.png"))
    check_orbit(tb, jb, "bounded periodic path", True)
    check(len(tb.orbit.copies) == 3 and len(tb.orbit.points) == 5,
          "--periods 3: three copies, five period points")
    td = trajectory.load_csv(os.path.join(data, "circ_drift.csv"))
    plot([td], periods=4)
    check(td.orbit is not None and td.orbit.centre is None,
          "a drift resonance: the rigid motion is a translation")
    check_orbit(td, jd, "drift resonance", False)
    # both arcs: the JSON's circles, one label each
    up = trajectory.load_csv(os.path.join(data, "circ_arc_up.csv"))
    lo = trajectory.load_csv(os.path.join(data, "circ_arc_down.csv"))
    trajectory.auto_labels([up, lo])
    plot([up, lo])
    for t, name in ((up, "circ_arc_up"), (lo, "circ_arc_down")):
        j = gallery.read_point_json(os.path.join(data, name + ".json"))
        check(t.radius_past == j["r_past"] and t.radius == j["r_future"] and
              np.array_equal(t.centre_past, j["center_past"]) and
              np.array_equal(t.centre_future, j["center_future"]) and
              t.circles_from == "JSON",
              f"{name}: circles {t.radius_past} {t.radius} {t.centre_past} "
              f"{t.centre_future} from {t.circles_from}")
    check(up.label.endswith("arc g > 0") and lo.label.endswith("arc g < 0"),
          f"arc labels {up.label!r} {lo.label!r}")
    # the command line: two JSON/CSV pairs, --periods
    png = os.path.join(tmp, "arcs.png")
    p = subprocess.run([sys.executable, os.path.join(
        ANALYSIS, "trajectory.py"), os.path.join(data, "circ_arc_up.csv"),
        os.path.join(data, "circ_arc_down.csv"), "--panels", "--out", png],
        env=ENV, capture_output=True, text=True)
    check(p.returncode == 0 and "from the JSON" in p.stdout,
          f"trajectory.py on both arcs: {p.returncode} {p.stderr}")
    p = subprocess.run([sys.executable, os.path.join(
        ANALYSIS, "trajectory.py"), os.path.join(data, "circ_bounded.csv"),
        "--periods", "2", "--out", png], env=ENV, capture_output=True,
        text=True)
    check(p.returncode == 0 and "continued 2 periods" in p.stdout,
          f"trajectory.py --periods 2: {p.returncode} {p.stdout}")
    # sweep samples: a periodic point and one above H_c
    (ts,), _ = quiet(trajectory.load_samples, swp, {"r": 0.3,
                                                    "theta": "60deg"})
    with h5py.File(swp, "r") as f:
        want = {k: float(f[k][2, 0, 0, 9, 0, 0, 0]) for k in
                trajectory.PERIODIC}
        rf = float(f["radius_future"][2, 0, 0, 7, 0, 0, 0])
    got = {k: ts.periodic[k] for k in trajectory.PERIODIC}
    check(got == want and abs(ts.kappa - 0.6) < 1e-15,
          f"sample at r = 0.3: periodic {ts.periodic} vs {want}, kappa "
          f"{ts.kappa}")
    plot([ts])
    o = ts.orbit
    check(o is not None and abs(o.geometric_radius / o.radius - 1) < 1e-3,
          f"sample at r = 0.3: orbit {o and o.geometric_radius} vs "
          f"{o and o.radius}")
    (ta,), _ = quiet(trajectory.load_samples, swp, {"r": 0.1,
                                                    "theta": "60deg"})
    plot([ta])
    check(ta.orbit is None and ta.circles_from == "end states" and
          abs(ta.radius / rf - 1) < 1e-3 and ta.radius_past != ta.radius,
          f"sample at r = 0.1: circles from {ta.circles_from}, radii "
          f"{ta.radius_past} {ta.radius} (file's future {rf})")
    trajectory.sswplot.plt.close("all")


# ---- the gallery's figures -------------------------------------------------

def test_gallery(data, tmp):
    out = os.path.join(tmp, "gallery")
    os.makedirs(out)
    g = gallery.Gallery(data, out, ["png"])
    with contextlib.redirect_stdout(io.StringIO()):
        m = gallery.fig_circ_map(g)
        per = gallery.fig_circ_periodic(g)
        arcs = gallery.fig_circ_arcs(g)
    for name in ("circulation_regimes", "circulation_periodic",
                 "circulation_arcs"):
        f = os.path.join(out, name + ".png")
        check(os.path.exists(f) and os.path.getsize(f) > 2000,
              f"gallery {name}: no figure")
    check(m["periodic"] > 0 and m["wrong_side"] == 0,
          f"circulation_regimes: {m['periodic']} periodic points, "
          f"{m['wrong_side']} on the wrong side of H = H_c")
    check(per[0].trajectories[0].orbit.centre is not None and
          per[1].trajectories[0].orbit.radius > 10 *
          per[0].trajectories[0].orbit.radius,
          "circulation_periodic: (a) bounded, (b) far larger orbit")
    caption = dict((n, c) for n, _, c in g.entries)["circulation_arcs"]
    ju = gallery.read_point_json(os.path.join(data, "circ_arc_up.json"))
    jl = gallery.read_point_json(os.path.join(data, "circ_arc_down.json"))
    _, _, c1, _ = gallery.kappa_constants(ju)
    gap = ju["dphi"] - jl["dphi"]
    check(abs(gap - 2 * math.pi * c1) <= 1e-8 * abs(gap) and
          "2 pi c1" in caption and len(arcs) == 2,
          f"circulation_arcs: dphi difference {gap} vs 2 pi c1 "
          f"{2 * math.pi * c1}")
    for n, _, c in g.entries:
        check("Integrator" in c or "Drawn by" in c,
              f"gallery {n}: caption {c[:60]!r}...")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        os.makedirs(data)
        swp = sweep(tmp, "circ", CONFIG)
        os.replace(swp, os.path.join(data, gallery.SWEEPC))
        swp = os.path.join(data, gallery.SWEEPC)
        plain = sweep(tmp, "plain", PLAIN, np_=1)
        probe = point(data, "probe", "--no-error-estimate")
        w, v = gallery.state_at_energy(os.path.join(data, "probe.json"), 0.5)
        jb = point(data, "circ_bounded", "--omega0", repr(w), "--v0", repr(v))
        check(jb["regime"] == "periodic" and probe["regime"] !=
              "periodic", f"regimes {jb['regime']} {probe['regime']}")
        # at the drift energy itself: a translation per period
        w, v = gallery.drift_state(os.path.join(data, "circ_bounded.json"),
                                   1.0)
        point(data, "circ_drift", "--omega0", repr(w), "--v0", repr(v))
        point(data, "circ_arc_up")
        point(data, "circ_arc_down", "--omega0", "-1.5", "--v0", "-1")
        test_phase(swp, plain, tmp)
        test_paths(data, swp, tmp)
        # the gallery's drift figure is near the drift energy, not at it
        w, v = gallery.drift_state(os.path.join(data, "circ_bounded.json"),
                                   0.999)
        point(data, "circ_drift", "--omega0", repr(w), "--v0", repr(v))
        test_gallery(data, tmp)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
