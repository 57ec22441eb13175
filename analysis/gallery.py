#!/usr/bin/python3
"""Draws the figure gallery from the files analysis/figures.sh wrote (point
CSV/JSON pairs and two theta x a sweeps) and writes OUT/index.md with a
caption per figure. Reads the files only; every figure function returns the
data it plotted.

Usage: gallery.py DATA_DIR OUT_DIR [--formats pdf,png]
"""
import argparse
import contextlib
import io
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import phase_diagram  # noqa: E402
import portrait  # noqa: E402
import sswplot  # noqa: E402
import trajectory  # noqa: E402
import validate  # noqa: E402
from sswfile import UsageError, read_point_json  # noqa: E402

SWEEP1 = "fig_theta_a_rho1.h5"
SWEEP0 = "fig_theta_a_rho0.h5"
BLUES = ["#9ecae1", "#1f5fa8"]
REDS = ["#c8323c", "#f4a3a8"]


class Gallery:
    def __init__(self, data, out, formats):
        self.data, self.out, self.formats = data, out, formats
        self.entries = []  # (name, title, caption)

    def path(self, name):
        p = os.path.join(self.data, name)
        if not os.path.exists(p):
            raise UsageError(f"{p}: missing (run analysis/figures.sh, which "
                             "writes it)")
        return p

    def traj(self, name, **kw):
        t = trajectory.load_csv(self.path(name + ".csv"),
                                self.path(name + ".json"))
        for k, v in kw.items():
            setattr(t, k, v)
        return t

    def json(self, name):
        return read_point_json(self.path(name + ".json"))

    def save(self, fig, name, title, caption):
        for ext in self.formats:
            sswplot.save(fig, os.path.join(self.out, f"{name}.{ext}"))
        plt.close(fig)
        self.entries.append((name, title, caption))


# ---- captions -------------------------------------------------------------

def body_text(j):
    p = j["params"]
    th = math.degrees(p["theta"])
    s = (f"m = {p['m']:g}, I0 = {p['I0']:g}, rho = {p['rho']:g}, theta = "
         f"{th:.4g} deg, (a, b) = ({p['a']:g}, {p['b']:g}), (r, s) = "
         f"({p['r']:g}, {p['s']:g}), A = {p['A']:g}, B = {p['B']:g}, "
         f"omega0 = {p['omega0']:g}, v0 = {p['v0']:g}")
    if p.get("k_rot") not in (None, 0.25):
        s += f", k_rot = {p['k_rot']:g}"
    return s


def result_text(j):
    a = j["analytic"]
    parts = []
    if j.get("r_future") is not None:
        parts.append(f"limit radius {j['r_future']:.5g} (closed form "
                     f"{a['r_future']:.5g})")
    if j.get("d") is not None:
        parts.append(f"centre spacing d = {j['d']:.6g} (closed form "
                     f"{a['d']:.6g})")
    parts.append(f"|dphi| = {abs(j['dphi']) / math.pi:.4g} pi, "
                 f"{j['loops']} loop(s)")
    return "; ".join(parts)


def integrator_text(j):
    i = j["integrator"]
    return f"{i['scheme']}, eta = {i['eta']:g}, tol = {i['tol']:g}"


# ---- 2025 paper -------------------------------------------------------------

def fig_energy(g):
    """2025 Fig. 2: |H - H0|/H0 over time, Hamel step vs RK4 (same eta)."""
    out = {}
    fig, axes = sswplot.figure(sswplot.SINGLE, 4.0, nrows=2)
    (ax1,), (ax2,) = axes
    for name, label, color in (("xz2_rk4", "RK4", "#c8323c"),
                               ("xz2_hamel2", "Hamel (tau = 1/2)",
                                "#1f5fa8")):
        t = g.traj(name)
        k0 = int(np.argmin(np.abs(t.t)))
        err = np.abs(t.H - t.H[k0]) / t.H[k0]
        h = float(np.median(np.diff(t.t)))
        out[name] = {"t": t.t, "err": err, "h": h}
        ax1.semilogy(t.t, np.maximum(err, 1e-17), color=color, lw=0.9,
                     label=label)
        if name == "xz2_hamel2":
            ax2.plot(t.t, err / 1e-15, color=color, lw=0.8)
    ax1.set_ylabel(r"$|H - H_0|/H_0$")
    ax1.set_xlabel("time $t$")
    ax1.legend(loc="center right")
    ax1.set_title("(a) Hamel step vs RK4, same step", fontsize=7,
                  loc="left")
    ax2.set_ylabel(r"$|H - H_0|/H_0$ ($10^{-15}$)")
    ax2.set_xlabel("time $t$")
    ax2.set_title("(b) Hamel step, magnified", fontsize=7, loc="left")
    j = g.json("xz2_hamel2")
    jr = g.json("xz2_rk4")
    caption = (
        "Energy error |H(t) - H0|/H0 along one trajectory integrated "
        "forward and backward from t = 0 (2025 paper, Fig. 2; its RK45 is "
        "replaced by the classical RK4 at the same step). "
        f"{body_text(j)}; eta = {j['integrator']['eta']:g}, i.e. h = "
        f"{out['xz2_hamel2']['h']:.4g} for both schemes (the paper uses "
        "h = 0.001, where RK4's error would sit at round-off too). Max "
        f"error: Hamel {j['energy_error']:.2g}, RK4 {jr['energy_error']:.2g}."
        " (a) log scale, exact zeros drawn at 1e-17; (b) the Hamel curve "
        "alone in units of 1e-15 (round-off only: the step conserves the "
        "node energy exactly).")
    g.save(fig, "xz2025_fig2_energy", "2025 Fig. 2: energy error", caption)
    return out


TRANSITION = 3.0  # zoom: |t - t0| <= TRANSITION / rate


def transition(j):
    """The time window of a point's transition (zoom of straight-line
    limits): t0 +- 3 / Arate, where |L1 w + Z v| ~ sech(Arate (t - t0))
    has fallen to 0.1 of its peak."""
    return (j["t0"] - TRANSITION / j["rate"], j["t0"] + TRANSITION / j["rate"])


def trajectory_panels(g, panels, ncols, width, height, outlines=4,
                      legend_first=True, tspans=None):
    """panels: [(title, [Trajectory, ...])]; returns the TrajectoryPlots."""
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = sswplot.figure(width, height, ncols=ncols, nrows=nrows)
    flat = [a for row in axes for a in row]
    plots = []
    for k, ((title, trajs), ax) in enumerate(zip(panels, flat)):
        plots.append(trajectory.plot_trajectories(
            trajs, ax=ax, outlines=outlines, title=title,
            legend=(k == 0 or not legend_first),
            tspan=tspans[k] if tspans else None))
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    return fig, plots


def fig_com(g):
    """2025 Fig. 5: centre of mass (0.2, 0) vs (0.2, 0.1)."""
    panels = [("(a) $(a, b) = (0.2, 0)$", [g.traj("xz5_b0")]),
              ("(b) $(a, b) = (0.2, 0.1)$", [g.traj("xz5_b01")])]
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 3.1)
    j0, j1 = g.json("xz5_b0"), g.json("xz5_b01")
    caption = (
        "Contact-point paths from one limit circle to the other, in "
        "opposite senses (2025 paper, Fig. 5): (a) "
        f"{body_text(j0)}: {result_text(j0)}; (b) b = 0.1: {result_text(j1)}."
        " Open dot: past (unstable) circle centre, filled dot: future "
        "(stable) centre, square: t = 0; arrows give the direction of "
        f"motion; ellipses show the body (blade black, centre of mass dot). "
        f"Integrator {integrator_text(j0)}.")
    g.save(fig, "xz2025_fig5_com", "2025 Fig. 5: centre of mass", caption)
    return plots


def fig_theta(g):
    """2025 Fig. 6: theta < pi/2 (blue) and > pi/2 (red)."""
    colors = {30: BLUES[0], 60: BLUES[1], 120: REDS[0], 150: REDS[1]}
    trajs = {t: g.traj(f"xz6_t{t}", color=c, label=f"θ = {t}°")
             for t, c in colors.items()}
    panels = [(r"(a) $0 < \theta < \pi/2$", [trajs[30], trajs[60]]),
              (r"(b) $\pi/2 < \theta < \pi$", [trajs[120], trajs[150]])]
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 3.1,
                                   outlines=0, legend_first=False)
    js = {t: g.json(f"xz6_t{t}") for t in colors}
    senses = ", ".join(
        f"{t} deg: "
        f"{'clockwise' if js[t]['sense_future'] < 0 else 'counter-clockwise'}"
        for t in colors)
    caption = (
        "Paths for blade angles (a) theta = 30, 60 deg (final motion "
        "clockwise) and (b) 120, 150 deg (red: counter-clockwise) (2025 "
        "paper, Fig. 6; its angles are not printed). Other parameters: "
        f"{body_text(js[60]).replace('theta = 60 deg, ', '')}. Measured "
        f"future senses: {senses}. Limit circles dashed, centres as in "
        f"Fig. 5. Integrator {integrator_text(js[60])}.")
    g.save(fig, "xz2025_fig6_theta", "2025 Fig. 6: blade angle", caption)
    return plots


def fig_com7(g):
    """2025 Fig. 7: centre of mass (0.5, 0) vs (0.5, 1)."""
    panels = [("(a) $(a, b) = (0.5, 0)$", [g.traj("xz7_b0")]),
              ("(b) $(a, b) = (0.5, 1)$", [g.traj("xz7_b1")])]
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 3.1)
    j0, j1 = g.json("xz7_b0"), g.json("xz7_b1")
    caption = (
        "The spacing of the limit-circle centres depends on the mass "
        f"distribution (2025 paper, Fig. 7): (a) {body_text(j0)}: "
        f"{result_text(j0)}; (b) b = 1 as printed in the paper: "
        f"{result_text(j1)}. Integrator {integrator_text(j0)}.")
    g.save(fig, "xz2025_fig7_com", "2025 Fig. 7: centre of mass", caption)
    return plots


def fig_classical(g):
    """2025 Fig. 8: classical sleigh, a = 0.5 and a = 0.15."""
    panels = [(r"(a) $a = 0.5$: $|\Delta\phi| = "
               f"{abs(g.json('xz8_a05')['dphi']) / math.pi:.3g}\\pi$, "
               f"$n = {g.json('xz8_a05')['loops']}$",
               [g.traj("xz8_a05")]),
              (r"(b) $a = 0.15$: $|\Delta\phi| = "
               f"{abs(g.json('xz8_a015')['dphi']) / math.pi:.3g}\\pi$, "
               f"$n = {g.json('xz8_a015')['loops']}$",
               [g.traj("xz8_a015")])]
    j0, j1 = g.json("xz8_a05"), g.json("xz8_a015")
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 3.1,
                                   outlines=6,
                                   tspans=[transition(j0), transition(j1)])
    caption = (
        "Classical Chaplygin sleigh (no fluid, rho = 0, Z = 0): straight "
        "line to straight line with floor(|dphi|/2pi) loops (2025 paper, "
        f"Fig. 8: 1.73 pi, n = 0 and 4.82 pi, n = 2). (a) {body_text(j0)}: "
        f"{result_text(j0)}; (b) a = 0.15: {result_text(j1)}. The ellipse "
        "outline only marks the heading (no fluid acts on it). The view "
        "shows the transition, t0 +- 3/Arate; the straight limit lines "
        "continue beyond it. Integrator "
        f"{integrator_text(j0)}.")
    g.save(fig, "xz2025_fig8_classical", "2025 Fig. 8: classical sleigh",
           caption)
    return plots


def fig_models(g):
    """2025 Fig. 10: Model I vs Model II."""
    panels = [("(a) Model I, $(r, s) = (0, 0)$", [g.traj("xz10_model1")]),
              ("(b) Model II, $(r, s) = (0.5, 1.5)$",
               [g.traj("xz10_model2")])]
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 3.1)
    j1, j2 = g.json("xz10_model1"), g.json("xz10_model2")
    scales = [p.trajectories[0].body_scale for p in plots]
    caption = (
        "Model I (ellipse centred at the contact point) and Model II "
        "(ellipse centre at body coordinates (r, s) from the contact point) "
        f"(2025 paper, Fig. 10). (a) {body_text(j1)}: {result_text(j1)}; "
        f"(b) (r, s) = (0.5, 1.5): {result_text(j2)}. Bodies drawn at "
        f"{scales[0]:.2g} (a) and {scales[1]:.2g} (b) of their size (A = 2 "
        "is large next to the paths). "
        f"Integrator {integrator_text(j1)}.")
    g.save(fig, "xz2025_fig10_models", "2025 Fig. 10: Model I and II",
           caption)
    return plots


# ---- 2010 paper -------------------------------------------------------------

def fig_portrait(g):
    """2010 Fig. 2a: reduced phase portrait."""
    trajs = []
    for k in (1, 2, 3):
        trajs.append(g.traj(f"fg2a_p{k}", color="#1f5fa8"))
        trajs.append(g.traj(f"fg2a_m{k}", color="#c8323c"))
    fig, axes = sswplot.figure(sswplot.SINGLE, 3.3)
    res = portrait.plot_portrait(trajs, ax=axes[0][0])
    j = g.json("fg2a_p1")
    t = j["tensor"]
    caption = (
        "Reduced phase portrait in (omega, v) (2010 paper, Fig. 2a, "
        "L1, Z > 0): each trajectory is an arc of its energy ellipse (grey) "
        "from an unstable equilibrium (open dot) to a stable one (filled "
        "dot) on the line of equilibria L1 omega + Z v = 0; blue and red: "
        "the two branches sigma = +-1, started at omega0 = v0 = c and "
        "-c for c = 0.5, 1, 1.5. Body: "
        f"{body_text(j).split(', omega0')[0]} (J = {t['J']:.4g}, M = "
        f"{t['M']:.4g}, L1 = {t['L1']:.4g}, L2 = {t['L2']:.4g}, Z = "
        f"{t['Z']:.4g}). Arrows at t = 0. Integrator {integrator_text(j)}.")
    g.save(fig, "fgn2010_fig2a_portrait", "2010 Fig. 2a: phase portrait",
           caption)
    return res


def fig_sleigh(g):
    """2010 Fig. 2b: the sleigh moving from circle to circle."""
    fig, axes = sswplot.figure(sswplot.SINGLE, 3.1)
    t = g.traj("fg2b")
    res = trajectory.plot_trajectories([t], ax=axes[0][0], outlines=7,
                                       arrows=3)
    j = g.json("fg2b")
    caption = (
        "The elliptic sleigh on the plane, from one limit circle to the "
        "other in the opposite sense (2010 paper, Fig. 2b); body outlines "
        "at equal arc-length intervals (black bar: blade at the contact "
        f"point, dot: centre of mass). {body_text(j)}: {result_text(j)}. "
        f"Integrator {integrator_text(j)}.")
    g.save(fig, "fgn2010_fig2b_sleigh", "2010 Fig. 2b: the sleigh", caption)
    return res


def fig_loops(g):
    """2010 Fig. 3: Z = 0 paths for several transition angles."""
    panels, js = [], []
    for tag, k in (("a", 15), ("b", 25), ("c", 45), ("d", 65)):
        j = g.json(f"fg3_k{k}")
        js.append(j)
        panels.append((f"({tag}) $|\\Delta\\phi| = "
                       f"{abs(j['dphi']) / math.pi:.3g}\\pi$, "
                       f"{j['loops']} loop(s)", [g.traj(f"fg3_k{k}")]))
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 5.4,
                                   outlines=0,
                                   tspans=[transition(j) for j in js])
    rows = "; ".join(f"({tag}) a = {j['params']['a']:g}: "
                     f"|dphi| = {abs(j['dphi']) / math.pi:.4g} pi "
                     f"(closed form {abs(j['analytic']['dphi']) / math.pi:.4g}"
                     f" pi), {j['loops']} loop(s)"
                     for tag, j in zip("abcd", js))
    caption = (
        "Contact-point paths of the classical sleigh (Z = 0, rho = 0) for "
        "several transition angles (2010 paper, Fig. 3; omega > 0 "
        "throughout, so the sleigh turns counter-clockwise). "
        f"{body_text(js[0]).replace(', (a, b) = (0.6325, 0)', '')}, "
        f"b = 0 and {rows}. The loop count is floor(|dphi|/2pi), not the "
        "2010 paper's ceil (see README). Views zoomed on t0 +- 3/Arate. "
        "Integrator "
        f"{integrator_text(js[0])}.")
    g.save(fig, "fgn2010_fig3_loops", "2010 Fig. 3: loops of the classical "
           "sleigh", caption)
    return plots


# ---- phase diagrams ---------------------------------------------------------

def sweep_text(path):
    import h5py
    with h5py.File(path, "r") as f:
        a = f.attrs
        n = int(np.prod(f["done"].shape))
        return (f"{n} grid points, {int(a['trajectories'])} trajectories "
                f"each ({a['scheme'].decode() if isinstance(a['scheme'], bytes) else a['scheme']}, "  # noqa: E501
                f"eta = {float(a['eta']):g}, tol = {float(a['tol']):g}), "
                f"m = {float(a['m']):g}, I0 = {float(a['I0']):g}")


def fig_phase(g):
    s1 = g.path(SWEEP1)
    s0 = g.path(SWEEP0)
    out = {}
    common = dict(x="theta", y="a", quiet=True)
    fig1 = phase_diagram.plot_phase_diagram(s1, quantity="sense_future",
                                            **common)
    g.save(fig1.fig, "phase_sense",
           "Phase diagram: rotation sense over theta x a",
           "Future rotation sense (ensemble mode) over blade angle theta and "
           "centre of mass a, rho = 1, b = r = s = 0, A = 0.5, B = 0.3 "
           f"({sweep_text(s1)}; jobs/examples/fig_theta_a_rho1.ini). Black "
           "lines: Z = 0 (theta = 0, pi/2, pi), where limit circles become "
           "limit lines and the sense flips; dotted: L1 = 0 (a = 0, spin "
           "reversal). Clockwise for 0 < theta < pi/2, counter-clockwise "
           "for pi/2 < theta < pi, as the 2010 paper predicts (sign of -Z).")
    out["sense"] = fig1
    fig2 = phase_diagram.plot_phase_diagram(s1, quantity="center_spacing",
                                            scale="log", **common)
    g.save(fig2.fig, "phase_spacing",
           "Phase diagram: centre spacing over theta x a",
           "Measured distance d of the limit-circle centres over theta x a "
           f"(rho = 1, same sweep: {sweep_text(s1)}), log colour scale. "
           "Grey: undefined (Z = 0, no circles); beige: d = 0 (uniform "
           "motion, L1 = Z = 0); d grows without bound as Z -> 0 at fixed "
           "a > 0. The last section compares every value with the closed "
           "form.")
    out["spacing"] = fig2
    fig3 = phase_diagram.plot_phase_diagram([s0, s1], quantity="loops",
                                            **common)
    g.save(fig3.fig, "phase_loops",
           "Phase diagram: loop count over theta x a, rho = 0 and 1",
           "Loop count floor(|dphi|/2pi) (ensemble mode) over theta x a for "
           "(a) the classical sleigh, rho = 0 (Z = 0 everywhere: theta has "
           "no effect) and (b) rho = 1; dashed: closed-form level sets "
           "analytic_transition_angle = 2 pi k, labelled k. Both sweeps: "
           f"{sweep_text(s0)}, b = r = s = 0, A = 0.5, B = 0.3 "
           "(jobs/examples/fig_theta_a_rho0.ini and _rho1.ini).")
    out["loops"] = fig3
    return out


def fig_validate(g):
    s1 = g.path(SWEEP1)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rep = validate.validate(s1, tol=1e-6, quiet=False)
        validate.plot_report(rep, os.path.join(g.out, "validate_rho1." +
                                               g.formats[0]))
    for ext in g.formats[1:]:
        sswplot.save(rep.fig if rep.fig else plt.gcf(),
                     os.path.join(g.out, f"validate_rho1.{ext}"))
    plt.close("all")
    text = buf.getvalue().replace(g.data + os.sep, "")
    g.entries.append((
        "validate_rho1", "Validation of the rho = 1 sweep",
        "Measured vs closed-form radius, spacing and transition angle over "
        "the rho = 1 sweep (validate.py, tolerance 1e-6):\n\n```\n" + text +
        "```"))
    return rep


FIGURES = (fig_energy, fig_com, fig_theta, fig_com7, fig_classical,
           fig_models, fig_portrait, fig_sleigh, fig_loops, fig_phase,
           fig_validate)


def write_index(g, seconds):
    lines = [
        "# sleighsweep figure gallery", "",
        "Regenerate with `analysis/figures.sh [OUT]` (the engine writes "
        "`data/`: `sleighsweep point` CSV/JSON pairs and two sweeps; "
        "`analysis/gallery.py` draws every figure from those files). "
        "Parameters: the 2025 paper is Xia & Zhang, *Hamel's formalism and "
        "variational integrators of the hydrodynamic Chaplygin sleigh* "
        "(Symmetry 17, 1985); the 2010 paper is Fedorov & Garcia-Naranjo, "
        "*The hydrodynamic Chaplygin sleigh* (J. Phys. A 43, 434013). "
        "Lengths are in body units; angles in rad unless marked.",
        "", f"Figures drawn in {seconds:.1f} s.", ""]
    for name, title, caption in g.entries:
        lines += [f"## {title}", ""]
        if "png" in g.formats:
            lines += [f"![{title}]({name}.png)", ""]
        lines += ["Files: " + ", ".join(f"[{name}.{e}]({name}.{e})"
                                        for e in g.formats), ""]
        lines += [caption, ""]
    with open(os.path.join(g.out, "index.md"), "w") as fh:
        fh.write("\n".join(lines))


def build(data, out, formats=("pdf", "png")):
    """Draws every figure; returns {function name: plotted data}."""
    os.makedirs(out, exist_ok=True)
    g = Gallery(data, out, list(formats))
    t0 = time.time()
    results = {}
    for f in FIGURES:
        results[f.__name__] = f(g)
    write_index(g, time.time() - t0)
    return results, g.entries


def main(argv=None):
    ap = argparse.ArgumentParser(prog="gallery.py", description=__doc__)
    ap.add_argument("data", help="directory with the data figures.sh wrote")
    ap.add_argument("out", help="output directory")
    ap.add_argument("--formats", default="pdf,png",
                    help="comma-separated formats: pdf, png, svg [pdf,png]")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        formats = [f.strip().lower() for f in args.formats.split(",") if f]
        bad = [f for f in formats if "." + f not in sswplot.FORMATS]
        if bad or not formats:
            raise UsageError(f"--formats {args.formats}: use pdf, png, svg")
        if not os.path.isdir(args.data):
            raise UsageError(f"{args.data}: no such directory")
        _, entries = build(args.data, args.out, formats)
        print(f"gallery.py: {len(entries)} figures in {args.out}")
    except UsageError as e:
        print(f"gallery.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
