#!/usr/bin/python3
"""Figures for a paper on a small sweep with units
(length_unit = m, mass_unit = kg) made here: phase_diagram --panels AXIS and
--fix with one value per panel or per FILE, the ax= API, no gap between
continuous-map panels (panel geometry measured on the figure), the log
colour scale (auto, a spacing growing without bound near Z = 0) said in
the label, units in the axis and colour-bar labels, label overrides,
titles naming m and I0; trajectory.py
--panels (one Axes per path, each on its own scale) and a uniform-motion
point refused with a message instead of an empty figure. The
colour-bar label fits along the bar and inside the figure, the automatic
log scale of a skewed 3..76 quantity, a slice of one regime lists one
category, x tick labels of one-column panels do not touch, legends and the
spacing label cover no path, small bodies keep a visible size.

Usage: test_figures.py SLEIGHSWEEP [MPIEXEC]
"""
import contextlib
import io
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.join(HERE, "..", "..", "analysis")
sys.path.insert(0, os.path.join(ANALYSIS, "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np  # noqa: E402

from sleighsweep import phase_diagram  # noqa: E402
from sleighsweep import style as sswplot  # noqa: E402
from sleighsweep import trajectory  # noqa: E402
from figcheck import covered  # noqa: E402
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
PY = sys.executable
# theta approaches 90 deg, where Z -> 0 and the spacing grows without bound
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
length_unit = m
mass_unit = kg
[grid]
theta = 30deg, 60deg, 80deg, 88deg, 89.5deg, 89.95deg, 90deg, 120deg
a = 0, 0.2, 0.4
A = 0.5
B = 0.2, 0.3
[ensemble]
trajectories = 2
[output]
file = {out}
samples = 1
sample_nodes = 64
"""
# two bodies of one regime (circle to circle) only: no Z = 0, no L1 = 0
ONE_REGIME = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 30deg, 60deg
a = 0.2, 0.4
A = 0.5
B = 0.3
[ensemble]
trajectories = 1
[output]
file = {out}
"""
GAP_IN = 0.45  # largest gap between neighbouring panels, inches (room for
# the tick labels at the panel edges; the old legend made it 1.05 in)


def script(name, *args):
    return subprocess.run([PY, os.path.join(ANALYSIS, name), *map(str, args)],
                          capture_output=True, text=True, env=ENV)


def quiet(fn, *a, **k):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        return fn(*a, **k)


def boxes(axes):
    """Positions (x0, x1, y0, y1) in figure fractions after layout."""
    fig = axes[0].figure
    fig.canvas.draw()
    return [(a.get_position().x0, a.get_position().x1,
             a.get_position().y0, a.get_position().y1) for a in axes]


def check_row(axes, what):
    """Panels in one row, equal widths, no gap between them."""
    b = boxes(axes)
    width_in = axes[0].figure.get_size_inches()[0]
    widths = [x1 - x0 for x0, x1, _, _ in b]
    gaps = [(b[k + 1][0] - b[k][1]) * width_in for k in range(len(b) - 1)]
    check(max(widths) - min(widths) < 0.01,
          f"{what}: panel widths differ: {widths}")
    check(all(0 <= g < GAP_IN for g in gaps),
          f"{what}: gaps between panels {gaps} in (limit {GAP_IN} in)")
    check(all(abs(p[2] - b[0][2]) < 1e-6 for p in b),
          f"{what}: panels not in one row")
    return b


def test_phase(path, tmp):
    out = os.path.join(tmp, "panels.png")
    res = quiet(phase_diagram.plot_phase_diagram, path, x="theta", y="a",
                quantity="center_spacing", panels="B", out=out)
    check(len(res.panels) == 2 and [p.fixed["B"][0] for p in res.panels] ==
          [0.2, 0.3], f"--panels B: {[p.fixed for p in res.panels]}")
    b = check_row(res.axes, "--panels B, continuous")
    cbar = [a for a in res.fig.axes if a.get_label() == "<colorbar>"]
    check(len(cbar) == 1, "one colour bar for all panels")
    if cbar:
        right = cbar[0].get_position().x1
        check(right - b[0][0] > 0.8,
              f"panels and colour bar fill {right - b[0][0]:.2f} of the "
              "width (expected > 0.8)")
    # spacing near Z = 0: positive values over > 2 decades -> log, said
    check(res.scale == "log" and res.label.endswith("log scale"),
          f"log scale: {res.scale}, label {res.label!r}")
    check("(m)" in res.label, f"colour-bar units: {res.label!r}")
    ax0 = res.axes[0]
    check(ax0.get_ylabel() == "centre of mass $a$ (m)",
          f"y label {ax0.get_ylabel()!r}")
    sup = res.fig._suptitle.get_text() if res.fig._suptitle else ""
    check(sup.startswith("m = 1, I₀ = 0.5, ρ = 1;"),
          f"common title lacks m and I0: {sup!r}")
    check(ax0.get_title(loc="left") == "(a) B = 0.2",
          f"panel title {ax0.get_title(loc='left')!r}")
    # the z of each panel is the file's slice at its B
    import h5py
    with h5py.File(path, "r") as f:
        want = f["center_spacing"][:, :, 0, 0, 0, 0, 1].T
    check(np.array_equal(res.panels[1].z, want, equal_nan=True),
          "panel (b) data are not the file's B = 0.3 slice")

    # categorical panels too, and --fix with one value per panel (order)
    res = quiet(phase_diagram.plot_phase_diagram, path, quantity="regime",
                panels="B", fix=["B=0.3", "B=0.2"])
    check([p.fixed["B"][0] for p in res.panels] == [0.3, 0.2],
          "--fix B=0.3 B=0.2 with --panels B: panel order")
    check_row(res.axes, "--panels B, categorical")

    # two FILEs side by side: no gap either (the old legend pushed them)
    res = quiet(phase_diagram.plot_phase_diagram, [path, path],
                quantity="center_spacing", fix={"B": [0.2, 0.3]})
    check([p.fixed["B"][0] for p in res.panels] == [0.2, 0.3],
          "--fix with one value per FILE")
    check([a.get_title(loc="left") for a in res.axes] ==
          ["(a) B = 0.2", "(b) B = 0.3"] and res.fig._suptitle.get_text() ==
          "m = 1, I₀ = 0.5, ρ = 1; b = r = s = 0, A = 0.5",
          "two FILEs: every fixed parameter named once, the common ones "
          f"above: {[a.get_title(loc='left') for a in res.axes]}")
    check_row(res.axes, "two FILEs, continuous")

    # ax=: the user's own layout
    sswplot.setup()
    fig, axs = sswplot.plt.subplots(2, 1, figsize=(3.4, 5))
    res = quiet(phase_diagram.plot_phase_diagram, path,
                quantity="center_spacing", panels="B", ax=list(axs),
                labels={"x": "angle", "colorbar": "d [m]"})
    check(res.fig is fig and res.axes == list(axs) and
          all(len(a.collections) >= 1 for a in axs),
          "ax=: not drawn into the given Axes")
    check(axs[1].get_xlabel() == "angle" and res.label == "d [m]",
          f"label overrides: {axs[1].get_xlabel()!r} {res.label!r}")
    check(axs[0].get_title(loc="left").startswith("(a) m = 1, I₀ = 0.5"),
          f"ax= titles carry every fixed parameter: "
          f"{axs[0].get_title(loc='left')!r}")
    sswplot.plt.close("all")

    # command line
    png = os.path.join(tmp, "cli.png")
    r = script("phase_diagram.py", path, "--quantity", "center_spacing",
               "--panels", "B", "--fix", "B=0.2", "B=0.3", "--xlabel",
               "blade", "--title", "thin", "thick", "--out", png)
    check(r.returncode == 0 and os.path.getsize(png) > 1000,
          f"--panels on the command line: {r.returncode} {r.stderr}")
    r = script("phase_diagram.py", path, path, "--fix", "B=0.2", "B=0.3",
               "B=0.2", "--out", png)
    check(r.returncode == 2 and "3 values for 2 FILE(s)" in r.stderr,
          f"--fix count: {r.returncode} {r.stderr!r}")
    r = script("phase_diagram.py", path, "--panels", "a", "--out", png)
    check(r.returncode == 2 and "plotted axis" in r.stderr,
          f"--panels of a plotted axis: {r.returncode} {r.stderr!r}")


def inside_figure(fig, bb):
    f = fig.bbox
    return bb.x0 >= f.x0 and bb.x1 <= f.x1 and bb.y0 >= f.y0 and \
        bb.y1 <= f.y1


def test_issue20_phase(path, tmp):
    # the colour-bar label of a quantity whose long_name is a whole
    # description: short, along the bar and inside the figure, the title
    # whole (the long label ran off the figure and cut the title)
    png = os.path.join(tmp, "blade.png")
    res = quiet(phase_diagram.plot_phase_diagram, path,
                quantity="blade_force_max", fix={"B": 0.3}, out=png)
    fig = res.fig
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    lab = res.colorbar.ax.yaxis.label.get_window_extent(r)
    bar = res.colorbar.ax.get_window_extent(r)
    check("ensemble" not in res.label and "(m⁻¹)" in res.label,
          f"blade force colour-bar label {res.label!r}")
    check(inside_figure(fig, lab) and lab.height <= bar.height + 0.5,
          f"colour-bar label {lab} not along the bar {bar} inside the "
          f"figure {fig.bbox}")
    # a single panel's title wider than the panel goes above the figure
    title = res.axes[0]._left_title
    if not title.get_text():
        title = fig._suptitle
    sup = title.get_window_extent(r)
    check(title.get_text().startswith("m = 1") and inside_figure(fig, sup),
          f"title {title.get_text()!r} {sup} cut by the figure")
    check(phase_diagram.short_label(
        "largest estimated error of the limit radii over the ensemble, "
        "relative", "radius_error") == "radius error" and
        phase_diagram.short_label("closed-form radius (units)", "x") ==
        "closed-form radius", "short_label")
    # a label given by the user that is too long is wrapped or shrunk
    res = quiet(phase_diagram.plot_phase_diagram, path,
                quantity="blade_force_max", fix={"B": 0.3}, labels={
                    "colorbar": "the largest lateral force of the blade "
                    "over a motion, per unit energy (1/m)"})
    res.fig.canvas.draw()
    r = res.fig.canvas.get_renderer()
    lab = res.colorbar.ax.yaxis.label.get_window_extent(r)
    bar = res.colorbar.ax.get_window_extent(r)
    check(inside_figure(res.fig, lab) and lab.height <= bar.height + 0.5,
          f"a long --clabel {res.label!r}: {lab} vs the bar {bar}")
    sswplot.plt.close("all")

    # --scale auto: a skewed quantity from 3 to 76 (a factor 25, below the
    # old rule's 100) is log; the same range spread evenly stays linear
    skewed = 3 / np.cos(np.linspace(0, math.acos(3 / 76), 300))
    even = np.linspace(3, 76, 300)
    log, lin_share, log_share = phase_diagram.log_preferred(skewed)
    check(log and abs(skewed.max() - 76) < 1e-9 and
          skewed.max() / skewed.min() < 100,
          f"3..76 skewed: log {log} (linear share {lin_share:.2f}, log "
          f"{log_share:.2f})")
    check(not phase_diagram.log_preferred(even)[0],
          "3..76 evenly spread: expected linear")
    check(not phase_diagram.log_preferred(np.concatenate([-skewed,
                                                          skewed]))[0],
          "values of both signs: never log")
    check(phase_diagram.log_preferred(np.concatenate([[0.0], skewed]))[0],
          "a zero among skewed values: still log (zeros get a colour)")

    # one-column figures of two panels: no x tick labels touch
    for what, kw in (("two FILEs", dict(paths=[path, path],
                                        fix={"B": [0.2, 0.3]})),
                     ("--panels B", dict(paths=path, panels="B")),
                     ("regime --panels B", dict(paths=path, panels="B",
                                                quantity="regime"))):
        kw.setdefault("quantity", "center_spacing")
        res = quiet(phase_diagram.plot_phase_diagram, width=3.4, **kw)
        touch = sswplot.touching_xticks(res.axes)
        shown = [t.get_text() for a in res.axes
                 for t in a.get_xticklabels() if t.get_text()]
        check(not touch and len(shown) >= 4,
              f"{what} at 3.4 in: tick labels touch {touch} (shown "
              f"{shown})")
        sswplot.plt.close("all")


def test_one_regime(tmp):
    """A slice of one regime lists that category only."""
    out = os.path.join(tmp, "one.h5")
    cfg = os.path.join(tmp, "one.ini")
    with open(cfg, "w") as f:
        f.write(ONE_REGIME.format(out=out))
    p = subprocess.run([EXE, "run", "--quiet", cfg], env=ENV,
                       capture_output=True, text=True)
    if not check(p.returncode == 0, f"one-regime sweep: {p.stderr}"):
        return
    res = quiet(phase_diagram.plot_phase_diagram, out, quantity="regime")
    leg = res.legend  # the row below the panel
    names = [t.get_text() for t in leg.get_texts()] if leg else []
    check(res.panels[0].categories == [(3, "circle to circle")] and
          names == ["circle to circle"],
          f"one-regime slice: categories {res.panels[0].categories}, "
          f"legend {names}")
    sswplot.plt.close("all")


def test_trajectory(path, tmp):
    out = os.path.join(tmp, "traj.png")
    r = script("trajectory.py", path, "--at", "theta=60deg", "a=0.2", "B=0.3",
               "--at", "theta=89.95deg", "a=0.4", "B=0.3", "--panels",
               "--out", out)
    check(r.returncode == 0 and os.path.getsize(out) > 1000,
          f"trajectory --panels: {r.returncode} {r.stderr}")
    # paths of very different sizes: the seed case and theta = 89 deg
    csvs = []
    for name, args in (("seed", []), ("near90", ["--theta", "89deg"])):
        csv = os.path.join(tmp, name + ".csv")
        with open(os.path.join(tmp, name + ".json"), "w") as js:
            subprocess.run([EXE, "point", "--trajectory", csv, *args],
                           stdout=js, check=True, env=ENV)
        csvs.append(csv)
    trajs = [trajectory.load_csv(c) for c in csvs]
    for t in trajs:
        t.label = f"θ = {trajectory.fmt_value('theta', t.body['theta'])}"
    res = quiet(trajectory.plot_panels, trajs)
    check(len(res.axes) == 2, f"{len(res.axes)} panels for 2 paths")
    spans = [np.ptp(a.get_xlim()) for a in res.axes]
    paths = [max(np.ptp(t.x), np.ptp(t.y)) for t in trajs]
    # each panel is scaled to its own path: its view is within a factor 4
    # of the path's extent (circles included), however different they are
    for k, (s, p) in enumerate(zip(spans, paths)):
        check(0.5 * p <= s <= 4 * max(p, 2 * (trajs[k].radius or 0)),
              f"panel {k}: view {s:.3g} for a path of {p:.3g}")
    check(paths[1] > 5 * paths[0], f"the test wants paths of different "
          f"scales: {paths}")
    check(res.axes[1].get_title(loc="left") == "(b) θ = 89°",
          f"panel title {res.axes[1].get_title(loc='left')!r}")
    # the legend below the panels, the d labels and the bodies
    paths_drawn = [(a, t.curve) for a, t in zip(res.axes, trajs)]
    n = covered(res.fig, res.legend.get_window_extent, paths_drawn)
    check(res.legend is not None and n == 0,
          f"--panels: the legend covers {n} path point(s)")
    for a, t in zip(res.axes, trajs):
        lab = t.spacing_label
        n = covered(res.fig, lab.get_window_extent, [(a, t.curve)])
        check(n == 0 and lab.hits == 0 and inside_figure(
            res.fig, lab.get_window_extent()),
            f"{t.label}: the label {lab.get_text()} covers {n} path "
            "point(s)")
        # the body (major axis 2A) at least 0.1 in on the page (at its
        # true size, 1/112 of the theta = 89 deg view: 0.03 in)
        size = 2 * t.body["A"] * t.body_scale
        inch = a.get_window_extent().width / res.fig.dpi / np.ptp(
            a.get_xlim())
        check(size * inch >= 0.1,
              f"{t.label}: body {size:.3g} drawn {size * inch:.3g} in long")
    check(trajs[0].body_scale <= 1 and trajs[1].body_scale > 2,
          f"body scales {[t.body_scale for t in trajs]}: the seed body at "
          "most at its size, the one beside the large circles at theta = "
          "89 deg enlarged")
    sswplot.plt.close("all")
    # one path in its own figure: the legend below the axes
    one = trajectory.load_csv(csvs[0])
    res = quiet(trajectory.plot_trajectories, [one])
    n = covered(res.fig, res.legend.get_window_extent, [(res.ax, one.curve)])
    check(n == 0 and res.legend.axes is not res.ax,
          f"trajectory.py: the legend covers {n} path point(s)")
    sswplot.plt.close("all")
    res = quiet(trajectory.plot_panels, quiet(
        trajectory.load_samples, path, {"theta": "60deg", "a": 0.2,
                                        "B": 0.3})[0])
    check(res.axes[0].get_xlabel() == "$x$ (m)",
          f"units on the path axes: {res.axes[0].get_xlabel()!r}")
    sswplot.plt.close("all")

    # uniform motion (theta = 90 deg, a = 0): a message, no empty figure
    uni = os.path.join(tmp, "uniform.png")
    r = script("trajectory.py", path, "--at", "theta=90deg", "a=0", "B=0.3",
               "--out", uni)
    check(r.returncode == 2 and "uniform motion" in r.stdout + r.stderr and
          not os.path.exists(uni),
          f"uniform point: {r.returncode} {r.stdout!r} {r.stderr!r}")
    csv = os.path.join(tmp, "u.csv")
    with open(os.path.join(tmp, "u.json"), "w") as js:
        subprocess.run([EXE, "point", "--theta", "90deg", "--a", "0",
                        "--trajectory", csv], stdout=js, check=True, env=ENV)
    r = script("trajectory.py", csv, "--out", uni)
    check(r.returncode == 2 and "uniform motion" in r.stderr and
          not os.path.exists(uni), f"uniform CSV: {r.returncode} {r.stderr!r}")


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "fig.h5")
    cfg = os.path.join(tmp, "fig.ini")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(out=out))
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        "--quiet", cfg], env=ENV, capture_output=True,
                       text=True)
    check(p.returncode == 0, f"sweep: {p.stderr}")
    test_phase(out, tmp)
    test_issue20_phase(out, tmp)
    test_one_regime(tmp)
    test_trajectory(out, tmp)
    # validate's plot labels lengths with the file's units too
    from sleighsweep import validate  # noqa: E402
    rep = quiet(validate.validate, out, plot=os.path.join(tmp, "v.png"),
                allow_nonconverged=True)
    labels = [a.get_xlabel() for a in rep.fig.axes]
    check(labels[:3] == ["closed form (m)", "closed form (m)",
                         "closed form (rad)"], f"validate labels {labels}")
sys.exit(exit_status())
