#!/usr/bin/python3
"""Layouts that cannot collapse: every figure type of
sleighsweep.plot and of the command lines, drawn at its default size on
small sweeps made here (mpirun -np 2) -- a (Gamma, energy) map with
critical and drift refinement, the same without its refined crossings,
an (r, theta) map at fixed Gamma with refinement, a drag map over
(drag_v, theta) with a log axis, a categorical map without a colour bar,
loops with refined crossings, a long legend (every boundary kind), the
trajectories of two drag points, a portrait, the validation panels --
keeps its data panels over a third of the figure's width and height (a
panel side by side with k others over a third / k), no two texts
overlapping and none beyond the figure (matplotlib's window extents:
figcheck.layout_problems). The refined crossings' joining lines never
join two crossings more than one cell apart along their edges (one
branch). Titles name every fixed parameter (drag_w included), colour bars
the quantity, the legend of two drag points what differs between them.
Usage: test_layouts.py SLEIGHSWEEP [MPIEXEC]"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(HERE, ".."))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import sleighsweep  # noqa: E402
import sleighsweep.plot as sp  # noqa: E402
from figcheck import layout_problems  # noqa: E402
from sleighsweep import phase_diagram  # noqa: E402
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
BODY = "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
INTEGRATOR = "[integrator]\nscheme = hamel8\neta = 0.8\ntol = 1e-5\n"
CONFIGS = {
    "ge": BODY + """[grid]
theta = 60deg
a = 0.2
b = 0.1
r = 0.3
s = -0.2
A = 0.5
B = 0.3
Gamma = linspace(0.25, 3, 10)
energy = logspace(0.01, 10, 10)
[ensemble]
trajectories = 2
""" + INTEGRATOR + "[refine]\nclasses = critical, drift\ntol = 1e-6\n",
    "rt": BODY + """Gamma = 2
[grid]
theta = linspace(0deg, 180deg, 13)
a = 0.2
b = 0.1
r = linspace(-0.6, 0.6, 13)
s = -0.2
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
energy = 0.5
""" + INTEGRATOR + "[refine]\nclasses = critical, drift\ntol = 1e-6\n",
    "drag": BODY + """drag_w = 0.1
[grid]
theta = linspace(10deg, 170deg, 9)
a = 0.2
r = 0.3
A = 0.5
B = 0.3
drag_v = 0.01, 0.1, 1, 10
[ensemble]
trajectories = 2
[output]
samples = 1
""",
    "loops": BODY + """[grid]
theta = linspace(2deg, 178deg, 10)
a = linspace(-0.45, 0.35, 8)
r = 0.3
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
""" + INTEGRATOR + "[refine]\nclasses = regime, loops\ntol = 1e-6\n",
}


def sweep(tmp, name):
    ini, out = (os.path.join(tmp, name + e) for e in (".ini", ".h5"))
    with open(ini, "w") as f:
        f.write(CONFIGS[name])
    p = subprocess.run([MPIEXEC, "-np", "2", "--oversubscribe", EXE, "run",
                        "--quiet", "--output", out, ini],
                       capture_output=True, text=True, env=ENV)
    check(p.returncode == 0, f"{name}: sweep failed: {p.stderr[-400:]}")
    return out


def checked(fig, what):
    """The layout checks on a figure at its default size."""
    problems = layout_problems(fig)
    check(not problems, f"{what}: {problems}")
    print(f"{what}: {fig.get_figwidth():.2f} x {fig.get_figheight():.2f} "
          f"in, {len(fig.axes)} axes" + (f", {problems}" if problems
                                         else ", layout ok"))
    plt.close(fig)


def maps(files):
    """Every map kind at its default size: (name, keywords)."""
    cases = [
        ("ge regime+period, critical, refined", files["ge"],
         dict(x="Gamma", y="energy", quantity="regime", shade="period",
              critical=True)),
        ("ge without refined crossings", files["ge"],
         dict(x="Gamma", y="energy", quantity="regime", shade="period",
              critical=True, refined=False)),
        ("ge period, log axes", files["ge"],
         dict(x="Gamma", y="energy", quantity="period", yscale="log")),
        ("rt regime+period at fixed Gamma, refined", files["rt"],
         dict(x="r", y="theta", quantity="regime", shade="period",
              critical=True)),
        ("drag rest distance over (drag_v, theta)", files["drag"],
         dict(x="drag_v", y="theta", quantity="rest_distance")),
        ("drag decay rate, log drag axis", files["drag"],
         dict(x="drag_v", y="theta", quantity="decay_rate",
              xscale="log")),
        ("loops with refined crossings", files["loops"],
         dict(x="theta", y="a", quantity="loops")),
        ("regime, categorical only", files["loops"],
         dict(x="theta", y="a", quantity="regime")),
        ("drag total heading", files["drag"],
         dict(x="drag_v", y="theta", quantity="heading_total")),
    ]
    for what, path, kw in cases:
        res = phase_diagram.plot_phase_diagram(path, quiet=True, **kw)
        checked(res.fig, what)
        yield what, res


def check_titles_and_bars(files):
    res = phase_diagram.plot_phase_diagram(
        files["drag"], x="drag_v", y="theta", quantity="rest_distance",
        quiet=True)
    title = " ".join(t.get_text() for t in res.fig.texts +
                     [a.title for a in res.fig.axes] +
                     ([res.fig._suptitle] if res.fig._suptitle else []))
    check("c_ω = 0.1" in title and "c_ωv = 0" in title,
          f"drag map title names drag_w and drag_wv: {title!r}")
    label = " ".join(res.label.split())
    check(label.startswith("distance to the rest point") and
          "with drag" not in label,
          f"drag colour bar names the quantity: {res.label!r}")
    plt.close(res.fig)


def check_joins(files):
    """Every refined joining line runs along one branch: consecutive
    vertices one grid line apart and at most one cell apart."""
    for name, x, y in (("rt", "r", "theta"), ("ge", "Gamma", "energy"),
                       ("loops", "theta", "a")):
        res = phase_diagram.plot_phase_diagram(
            files[name], x=x, y=y, quantity="regime", quiet=True)
        r = res.panels[0].refined
        jumps = 0
        for key, ks in phase_diagram.refined_groups(r).items():
            for line in phase_diagram.refined_joins(r, np.array(ks)):
                idx = [int(np.flatnonzero((r["px"] == px) &
                                          (r["py"] == py))[0])
                       for px, py in line]
                cells = np.abs(np.diff([int(r["cell"][k]) for k in idx]))
                lines = np.diff([int(r["line"][k]) for k in idx])
                jumps += int(np.count_nonzero(cells > 1) +
                             np.count_nonzero(lines != 1))
        check(jumps == 0, f"{name}: {jumps} joins across branches")
        plt.close(res.fig)


def check_api(files):
    """sleighsweep.plot over Datasets: Axes returned, labels from the
    file, a selection fixing an axis, the legend of two drag points."""
    ds = sleighsweep.open(files["drag"])
    ax = sp.phase_diagram(ds.rest_distance, x="drag_v", y="theta")
    check(isinstance(ax, matplotlib.axes.Axes), "phase_diagram -> Axes")
    units = ds.drag_v.attrs["units"].split()[0]
    check(units in ax.get_xlabel(), f"x label {ax.get_xlabel()!r} has the "
          f"file's units {units}")
    checked(ax.figure, "sleighsweep.plot.phase_diagram(DataArray)")
    ax = sp.trajectories(ds, at=[dict(theta="60deg", drag_v=0.01),
                                 dict(theta="60deg", drag_v=10)])
    labels = [t.get_text() for t in ax.sleighsweep.legend.get_texts()]
    check("c_v = 0.01" in labels and "c_v = 10" in labels,
          f"two drag points labelled by what differs: {labels}")
    check(not any("[sample" in t for t in labels), f"labels {labels}")
    checked(ax.figure, "sleighsweep.plot.trajectories (two drag points)")
    ax = sp.portrait(ds, at=dict(theta="60deg", drag_v=0.1))
    checked(ax.figure, "sleighsweep.plot.portrait")
    for name in ("drag", "ge"):
        axes = sp.validation(files[name])
        checked(axes[0].figure, f"sleighsweep.plot.validation({name})")
    ge = sleighsweep.open(files["ge"])
    fig, ax = plt.subplots()
    out = sp.phase_diagram(ge, quantity="regime", ax=ax)
    check(out is ax, "phase_diagram draws on the given ax")
    plt.close(fig)


with tempfile.TemporaryDirectory() as tmp:
    files = {name: sweep(tmp, name) for name in CONFIGS}
    for _ in maps(files):
        pass
    check_titles_and_bars(files)
    check_joins(files)
    check_api(files)
    # the command lines: the newcomer's three commands, at default size
    for args in (["ge", "--x", "Gamma", "--y", "energy", "--quantity",
                  "regime", "--shade", "period", "--critical"],
                 ["rt", "--x", "r", "--y", "theta", "--quantity", "regime",
                  "--shade", "period", "--critical"],
                 ["drag", "--x", "drag_v", "--y", "theta", "--quantity",
                  "rest_distance"]):
        png = os.path.join(tmp, args[0] + ".png")
        p = subprocess.run([sys.executable,
                            os.path.join(ROOT, "analysis",
                                         "phase_diagram.py"),
                            files[args[0]], *args[1:], "--out", png],
                           capture_output=True, text=True)
        check(p.returncode == 0 and os.path.exists(png),
              f"phase_diagram.py {args}: {p.stderr[-300:]}")
        check("Warning" not in p.stderr and "collapsed" not in p.stderr,
              f"phase_diagram.py {args}: warnings {p.stderr[-300:]}")
sys.exit(exit_status())
