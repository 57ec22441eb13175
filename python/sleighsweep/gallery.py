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


import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402

from . import phase_diagram  # noqa: E402
from . import portrait  # noqa: E402
from . import style as sswplot  # noqa: E402
from . import trajectory  # noqa: E402
from . import validate  # noqa: E402
from .gallery_census import fig_basins  # noqa: E402
from .gallery_chaos import (fig_chaos_attractor,  # noqa: E402
                            fig_chaos_lyapunov, fig_chaos_poincare)
from .gallery_forced import (fig_forced_floquet,  # noqa: E402
                             fig_forced_growth, fig_forced_map,
                             fig_forced_path)
from .sweep import (BODY_AXES, FileView, REGIMES, UsageError,  # noqa: E402
                    read_csv, read_point_json)

SWEEP1 = "fig_theta_a_rho1.h5"
SWEEP0 = "fig_theta_a_rho0.h5"
SWEEPC = "circ_r_theta.h5"  # the circulation sweep over r x theta
# the sweep over Gamma x energy (jobs/examples/fig_gamma_energy.ini)
SWEEPGE = "fig_gamma_energy.h5"
GE_POINT = (2.0, 0.5)  # (Gamma, H) of the bounded periodic point run
SWEEPD = "drag_r_theta.h5"  # drag with circulation over r x theta
SWEEPR = "refine_a_theta.h5"  # jobs/examples/refine_a_theta.ini ([refine])
CIRC_BODY = (0.3, math.radians(60))  # (r, theta) of the point runs
BLUES = ["#9ecae1", "#1f5fa8"]
REDS = ["#c8323c", "#f4a3a8"]


class Gallery:
    def __init__(self, data, out, formats):
        self.data, self.out, self.formats = data, out, formats
        self.entries = []  # (name, title, caption)
        self.runs = {}  # name -> (CSV columns, JSON), read once

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
        for n, ext in enumerate(self.formats):
            sswplot.save(fig, os.path.join(self.out, f"{name}.{ext}"))
            if n == 0:
                freeze_layout(fig)
        plt.close(fig)
        self.entries.append((name, title, caption))


def freeze_layout(fig):
    """Keeps the layout of the first format saved for the next ones: the
    constrained layout is in inches, the same for every format, and doing
    it again was a third of the drawing time."""
    fig.set_layout_engine("none")


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
    if i.get("eta") is None:  # adaptive steps
        return f"{i['scheme']}, rtol = {i['rtol']:g}, tol = {i['tol']:g}"
    return f"{i['scheme']}, eta = {i['eta']:g}, tol = {i['tol']:g}"


# ---- 2025 paper: the integrator comparisons (Figs. 2-4) ---------------------

PAPER_H = 0.001  # the 2025 paper's step h (Figs. 2-4)
RK45_RTOL = 1e-3  # MATLAB ode45's default RelTol (the paper's RK45)
ENERGY_FLOOR = 1e-17  # exact zeros on the log axes of Fig. 2
ENVELOPE_BINS = 200  # Fig. 2's analytic curve: its largest value per bin
HAMEL = ("#1f5fa8", "Hamel ($\\tau = 1/2$)")
RK45 = ("#c8323c", "RK45 (dopri5)")
RATTLE = ("#e08a1e", "nonholonomic RATTLE")


def energy(tensor, w, v):
    """The energy H = (J w^2 + M v^2 - 2 L2 w v) / 2 of reduced states."""
    return 0.5 * (tensor["J"] * w * w + tensor["M"] * v * v -
                  2.0 * tensor["L2"] * w * v)


def eta_for_step(json_path, h):
    """The fixed-step setting eta that gives the step h on the body and
    initial state of a `point` JSON: h = eta / max(Arate, w_max) with
    Arate the JSON's "rate" and w_max = sqrt(2 H M / D), D = M J - L2^2
    (the engine's rule, docs/theory/step-control.md)."""
    j = read_point_json(json_path)
    t, p = j["tensor"], j["params"]
    d = t["M"] * t["J"] - t["L2"] ** 2
    h0 = energy(t, p["omega0"], p["v0"])
    return h * max(j["rate"], math.sqrt(2.0 * h0 * t["M"] / d))


def run(g, name):
    """A `point` run's CSV columns (with the exact motion) and its JSON,
    plus the node t = 0 (the initial state) as k0 and the median step h
    (read once per gallery)."""
    if name not in g.runs:
        g.runs[name] = read_run(g, name)
    return g.runs[name]


def read_run(g, name):
    c = read_csv(g.path(name + ".csv"))
    if "omega_exact" not in c:
        raise UsageError(f"{name}.csv: no exact motion (an engine older "
                         "than the point CSV's omega_exact column)")
    j = g.json(name)
    c["k0"] = int(np.argmin(np.abs(c["t"])))
    c["h"] = float(np.median(np.abs(np.diff(c["t"]))))
    return c, j


def running_l2(t, e, k0):
    """sqrt(int_0^t e^2 dt') at every node (trapezoid rule from the node
    t = 0 outward in both directions): the time-weighted 2-norm of an error
    over [0, t], comparable between runs with different nodes."""
    out = np.zeros_like(e)
    for sl in (slice(k0, None), slice(k0, None, -1)):
        tt, ee = t[sl], e[sl] ** 2
        acc = np.concatenate([[0.0], np.cumsum(
            0.5 * (ee[1:] + ee[:-1]) * np.abs(np.diff(tt)))])
        out[sl] = np.sqrt(acc)
    return out


def envelope(t, e, bins):
    """The largest value of e in each of `bins` runs of consecutive nodes,
    at the time of that largest value: the upper edge of a curve that is
    round-off noise (which, drawn node by node, fills a solid band)."""
    t_out, e_out = [], []
    for idx in np.array_split(np.arange(len(e)), min(bins, len(e))):
        k = idx[np.argmax(e[idx])]
        t_out.append(t[k])
        e_out.append(e[k])
    return np.array(t_out), np.array(e_out)


def step_text(c, j):
    i = j["integrator"]
    if i["step_control"] == "fixed":
        return f"h = {c['h']:.6g} (eta = {i['eta']:.6g})"
    return (f"adaptive, rtol = atol = {i['rtol']:g}, {len(c['t'])} "
            "nodes")


def log_time_axes(ax, ylabel):
    ax.set_yscale("log")
    ax.set_xlabel("time $t$")
    ax.set_ylabel(ylabel)


def fig_energy(g):
    """2025 Fig. 2: |H - H0|/H0 along the motion, Hamel vs RK45 vs the
    analytic solution; (b) the Hamel curve magnified."""
    ch, jh = run(g, "xz2_hamel2")
    cr, jr = run(g, "xz2_dopri5")
    h0 = ch["H"][ch["k0"]]
    out = {}
    for key, c in (("xz2_hamel2", ch), ("xz2_dopri5", cr)):
        out[key] = {"t": c["t"], "err": np.abs(c["H"] - h0) / h0,
                    "h": c["h"]}
    # the closed-form state's energy at the Hamel nodes: zero in exact
    # arithmetic; what remains is the round-off of evaluating it
    ha = energy(jh["tensor"], ch["omega_exact"], ch["v_exact"])
    out["analytic"] = {"t": ch["t"], "err": np.abs(ha - h0) / h0}
    fig, axes = sswplot.figure(sswplot.SINGLE, 4.2, nrows=2)
    (ax1,), (ax2,) = axes
    d = out["xz2_dopri5"]
    ax1.plot(d["t"], np.maximum(d["err"], ENERGY_FLOOR), color=RK45[0],
             lw=0.9, label=RK45[1], marker=".", ms=3)
    # Hamel's error is round-off: node by node it drops to exact zeros
    # (drawn at the floor) between neighbours of 1e-15, a barcode of spikes
    # on the log axis; (a) draws its upper envelope, (b) every node
    d = out["xz2_hamel2"]
    d["t_env"], d["env"] = envelope(d["t"], d["err"], ENVELOPE_BINS)
    ax1.plot(d["t_env"], np.maximum(d["env"], ENERGY_FLOOR), color=HAMEL[0],
             lw=0.9, label="Hamel, upper envelope")
    d = out["analytic"]
    d["t_env"], d["env"] = envelope(d["t"], d["err"], ENVELOPE_BINS)
    ax1.plot(d["t_env"], np.maximum(d["env"], ENERGY_FLOOR), color="black",
             lw=0.7, ls=(0, (1, 1)), label="analytic (round-off)")
    log_time_axes(ax1, r"$|H - H_0|/H_0$")
    ax1.set_ylim(ENERGY_FLOOR / 3, None)
    # between the curves, left of RK45's dip at t = 0
    ax1.legend(loc="center left", fontsize=6)
    ax1.set_title("(a) Hamel, RK45 and the analytic solution", fontsize=7,
                  loc="left")
    d = out["xz2_hamel2"]
    ax2.plot(d["t"], d["err"] / 1e-15, color=HAMEL[0], lw=0.5)
    ax2.set_ylabel(r"$|H - H_0|/H_0$ ($10^{-15}$)")
    ax2.set_xlabel("time $t$")
    ax2.set_title("(b) Hamel, magnified", fontsize=7, loc="left")
    mx = {k: float(v["err"].max()) for k, v in out.items()}
    caption = (
        "Energy error |H(t) - H0|/H0 along one motion integrated forward "
        "and backward from t = 0 to both limit circles (2025 paper, "
        f"Fig. 2): {body_text(jh)}, x0 = y0 = 0. Hamel: the paper's "
        "discrete Hamel step (hamel2, tau = 1/2, "
        f"{jh['integrator']['reconstruction']} reconstruction) at the "
        f"paper's step {step_text(ch, jh)}, "
        f"{len(ch['t'])} nodes over t in [{ch['t'][0]:.3g}, "
        f"{ch['t'][-1]:.3g}]; in (a) its upper envelope, the largest "
        f"error in each of {ENVELOPE_BINS} runs of consecutive nodes "
        "(node by node, round-off falls to exact zeros between neighbours "
        "near 1e-15 and draws a barcode of spikes down to the log axis' "
        "floor), in (b) every node. RK45: Dormand-Prince 5(4) under DOPRI5's "
        f"step control ({step_text(cr, jr)}; MATLAB ode45's default "
        "RelTol 1e-3, its AbsTol 1e-6 not separately settable here, "
        "immaterial for states of size ~1), dots at its nodes. Both stop "
        f"at the same rule (|L1 w + Z v| <= {jh['integrator']['tol']:g} "
        "of its peak). Analytic: the energy of the closed-form state "
        "(omega_exact, v_exact) at the Hamel nodes, exactly H0 in exact "
        f"arithmetic; its largest value {mx['analytic']:.2g} is the "
        "round-off of evaluating the closed form, drawn as its upper "
        f"envelope (the largest value in each of {ENVELOPE_BINS} runs of "
        "consecutive nodes; node by node it fills a band between 0 and "
        "that level). Exact zeros are drawn at 1e-17 on the log axis. "
        f"Max error: Hamel {mx['xz2_hamel2']:.2g}, RK45 "
        f"{mx['xz2_dopri5']:.2g}. (b) the Hamel curve alone in units of "
        "1e-15: round-off only (the step conserves its node energy "
        "exactly).")
    g.save(fig, "xz2025_fig2_energy", "2025 Fig. 2: energy error", caption)
    return out


def fig_omega(g):
    """2025 Fig. 3: the angular-velocity error against the closed form,
    Hamel vs RK45: |omega - omega_exact| and its running 2-norm."""
    out = {}
    fig, axes = sswplot.figure(sswplot.SINGLE, 4.2, nrows=2)
    (ax1,), (ax2,) = axes
    for key, (color, label) in (("xz2_dopri5", RK45),
                                ("xz2_hamel2", HAMEL)):
        c, _ = run(g, key)
        e = np.abs(c["omega"] - c["omega_exact"])
        out[key] = {"t": c["t"], "err": e,
                    "l2": running_l2(c["t"], e, c["k0"])}
        mk = dict(marker=".", ms=3) if key == "xz2_dopri5" else {}
        ax1.plot(c["t"], np.maximum(e, ENERGY_FLOOR), color=color, lw=0.9,
                 label=label, **mk)
        ax2.plot(c["t"], out[key]["l2"], color=color, lw=0.9, label=label,
                 **mk)
    log_time_axes(ax1, r"$|\omega - \omega_{\rm exact}|$ (rad/time)")
    ax1.legend(loc="lower right", fontsize=6)
    ax1.set_title(r"(a) pointwise error $|\omega - \omega_{\rm exact}|$",
                  fontsize=7, loc="left")
    log_time_axes(ax2, r"$\Vert\omega - \omega_{\rm exact}\Vert_{2,[0,t]}$")
    ax2.set_title(r"(b) its 2-norm over $[0, t]$ (time-weighted)",
                  fontsize=7, loc="left")
    jh = g.json("xz2_hamel2")
    h, r = out["xz2_hamel2"], out["xz2_dopri5"]
    hl, rl = (sorted((d["l2"][0], d["l2"][-1]), reverse=True)
              for d in (h, r))
    caption = (
        "Angular-velocity error against the closed form omega_exact(t) "
        "(docs/theory/exact-path.md), Hamel vs RK45 (2025 paper, Fig. 3, "
        "\"the 2-norm of angular velocity\"): the runs of Fig. 2 "
        f"({body_text(jh)}; Hamel at h = {PAPER_H:g}, RK45 at rtol "
        f"{RK45_RTOL:g}). (a) |omega - omega_exact| at every node (log "
        "scale); (b) its 2-norm over [0, t], sqrt(int_0^t |omega - "
        "omega_exact|^2 dt') by the trapezoid rule over each run's nodes "
        "(time-weighted, so the two runs' very different node counts do "
        "not enter), drawn outward from t = 0 in both directions. Largest "
        f"pointwise error: Hamel {h['err'].max():.2g}, RK45 "
        f"{r['err'].max():.2g}; 2-norm over the whole motion: Hamel "
        f"{hl[0]:.2g} / {hl[1]:.2g} (larger / smaller of the two "
        f"directions), RK45 {rl[0]:.2g} / {rl[1]:.2g}. Hamel's error "
        "vanishes at the ends (its node energy is exact, so it approaches "
        "the exact equilibria of the energy level); RK45's stays at the "
        "level of its energy drift.")
    g.save(fig, "xz2025_fig3_omega", "2025 Fig. 3: angular-velocity error",
           caption)
    return out


def fig_rattle(g):
    """2025 Fig. 4: velocity and configuration errors against the closed
    form, Hamel vs nonholonomic RATTLE at a = 0.7, b = 0."""
    out = {}
    fig, axes = sswplot.figure(sswplot.SINGLE, 4.2, nrows=2)
    (ax1,), (ax2,) = axes
    runs = {}
    for key, (color, label) in (("xz4_rattle", RATTLE),
                                ("xz4_hamel2", HAMEL)):
        c, j = run(g, key)
        runs[key] = (c, j)
        ev = np.hypot(c["omega"] - c["omega_exact"], c["v"] - c["v_exact"])
        eq = np.sqrt((c["x"] - c["x_exact"]) ** 2 +
                     (c["y"] - c["y_exact"]) ** 2 +
                     (c["phi"] - c["phi_exact"]) ** 2)
        h0 = c["H"][c["k0"]]
        out[key] = {"t": c["t"], "velocity": ev, "configuration": eq,
                    "h": c["h"], "energy": np.abs(c["H"] - h0) / h0}
        ax1.plot(c["t"], np.maximum(ev, ENERGY_FLOOR), color=color, lw=0.9,
                 label=label)
        ax2.plot(c["t"], np.maximum(eq, ENERGY_FLOOR), color=color, lw=0.9,
                 label=label)
    log_time_axes(ax1, r"$\Vert(\omega, v) - {\rm exact}\Vert_2$")
    ax1.legend(loc="lower right", fontsize=6)
    ax1.set_title(r"(a) velocity error", fontsize=7, loc="left")
    log_time_axes(ax2, r"$\Vert(x, y, \phi) - {\rm exact}\Vert_2$")
    ax2.set_title(r"(b) configuration error", fontsize=7, loc="left")
    ch, jh = runs["xz4_hamel2"]
    cr, jr = runs["xz4_rattle"]
    h, r = out["xz4_hamel2"], out["xz4_rattle"]
    caption = (
        "Velocity and configuration errors against the closed form, Hamel "
        "vs the nonholonomic RATTLE of McLachlan & Perlmutter (2006) in lab "
        "coordinates (2025 paper, Fig. 4, a = 0.7, b = 0): "
        f"{body_text(jh)}, x0 = y0 = 0, both at the paper's step "
        f"{step_text(ch, jh)}, forward and backward from t = 0 to the limit "
        "circles. (a) "
        "the 2-norm of (omega, v) - (omega_exact, v_exact); (b) the 2-norm "
        "of (x, y, phi) - (x_exact, y_exact, phi_exact) (lengths in body "
        "units, the heading in rad). Hamel: hamel2 with the paper's "
        f"{jh['integrator']['reconstruction']} reconstruction. Largest "
        f"errors: velocity Hamel {h['velocity'].max():.2g}, RATTLE "
        f"{r['velocity'].max():.2g}; configuration Hamel "
        f"{h['configuration'].max():.2g}, RATTLE "
        f"{r['configuration'].max():.2g}; energy Hamel "
        f"{h['energy'].max():.2g}, RATTLE {r['energy'].max():.2g} (RATTLE "
        "does not conserve this system's energy). Hamel's velocity error "
        "vanishes at the ends: its node energy is exact, so it approaches "
        "the exact equilibria of the energy level; RATTLE's settles at the "
        "level of its energy drift (equilibria of a slightly different "
        "energy). The configuration errors keep the phase lag accumulated "
        "during the transition.")
    g.save(fig, "xz2025_fig4_rattle", "2025 Fig. 4: Hamel vs nonholonomic "
           "RATTLE", caption)
    return out


# ---- 2025 paper: trajectories --------------------------------------------

TRANSITION = 3.0  # zoom: |t - t0| <= TRANSITION / rate


def transition(j):
    """The time window of a point's transition (zoom of straight-line
    limits): t0 +- 3 / Arate, where |L1 w + Z v| ~ sech(Arate (t - t0))
    has fallen to 0.1 of its peak."""
    return (j["t0"] - TRANSITION / j["rate"], j["t0"] + TRANSITION / j["rate"])


def trajectory_panels(g, panels, ncols, width, height, outlines=4,
                      tspans=None, **kw):
    """panels: [(title, [Trajectory, ...])]; returns the figure and the
    TrajectoryPlots. One legend for all panels, in a row below them (off
    the paths): every labelled path and the markers, once each."""
    nrows = math.ceil(len(panels) / ncols)
    fig, axes, legend_ax = sswplot.figure_with_legend_row(
        width, height + 0.25, ncols=ncols, nrows=nrows)
    flat = [a for row in axes for a in row]
    plots, handles = [], {}
    for k, ((title, trajs), ax) in enumerate(zip(panels, flat)):
        plots.append(trajectory.plot_trajectories(
            trajs, ax=ax, outlines=outlines, title=title, legend=False,
            tspan=tspans[k] if tspans else None, **kw))
        for h in plots[-1].handles:
            handles.setdefault(h.get_label(), h)
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    # the labelled paths first, then the markers
    order = sorted(handles.values(), key=lambda h: h.get_marker() != "None")
    legend = sswplot.legend_below(legend_ax, order, 6)
    for p in plots:
        p.legend = legend
    return fig, plots


def scale_text(plots, tags="ab"):
    """The caption's sentence on the scale of the body outlines: true size,
    or each panel's scale (shrunk where large next to the path, enlarged
    to a minimum on-screen size where small: trajectory.auto_body_scale)."""
    scales = [p.trajectories[0].body_scale for p in plots]
    if all(abs(s - 1) < 1e-9 for s in scales):
        return "Bodies drawn at their true size."
    each = ", ".join(f"{s:.2g}x" + (f" ({t})" if len(scales) > 1 else "")
                     for s, t in zip(scales, tags))
    return (f"Bodies drawn at {each} their size (trajectory.py draws a "
            f"body larger than {trajectory.BODY_MAX:g} of the view smaller, "
            f"and one smaller than {trajectory.BODY_MIN:g} of it larger, "
            "so that it stays visible).")


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
        f"{scale_text(plots)} Integrator {integrator_text(j0)}.")
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
                                   outlines=0)
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
        f"{result_text(j1)}. {scale_text(plots)} Integrator "
        f"{integrator_text(j0)}.")
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
        f"continue beyond it. {scale_text(plots)} Integrator "
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
    caption = (
        "Model I (ellipse centred at the contact point) and Model II "
        "(ellipse centre at body coordinates (r, s) from the contact point) "
        f"(2025 paper, Fig. 10). (a) {body_text(j1)}: {result_text(j1)}; "
        f"(b) (r, s) = (0.5, 1.5): {result_text(j2)}. {scale_text(plots)} "
        "(A = 2 is large next to the paths.) "
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
    t = g.traj("fg2b")
    res = trajectory.plot_trajectories([t], outlines=7, arrows=3,
                                       width=sswplot.SINGLE, height=3.4)
    j = g.json("fg2b")
    caption = (
        "The elliptic sleigh on the plane, from one limit circle to the "
        "other in the opposite sense (2010 paper, Fig. 2b); body outlines "
        "at equal arc-length intervals (black bar: blade at the contact "
        f"point, dot: centre of mass). {scale_text([res], 'a')} "
        f"{body_text(j)}: {result_text(j)}. "
        f"Integrator {integrator_text(j)}.")
    g.save(res.fig, "fgn2010_fig2b_sleigh", "2010 Fig. 2b: the sleigh",
           caption)
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


# ---- the exact path -------------------------------------------------------

# point runs of the seed body compared with the exact path in fig_exact_path:
# (name, colour, label)
PATH_RUNS = (("xzp_coarse", "#c8323c", None),
             ("xz2_dopri5", "#e08a1e", "RK45, rtol 1e-3"),
             ("xz2_hamel2", "#1f5fa8", "hamel2, h = 0.001"),
             ("xz5_b0", "#2f8f4e", "hamel8, eta 0.3 (Figs. 5-10)"))


def fig_exact_path(g):
    """Computed paths beside the exact one (trajectory.py --exact) and the
    distance between them for the seed body's runs."""
    fig, axes, legend_axes = sswplot.figure_with_legend_row(
        sswplot.DOUBLE, 3.9, ncols=2, per_column=True)
    ax1, ax2 = axes[0]
    jc = g.json("xzp_coarse")
    fine = g.traj("xz2_hamel2", color=HAMEL[0])
    fine.label = f"hamel2, h = {PAPER_H:g} ({len(fine.t)} nodes)"
    coarse = g.traj("xzp_coarse", color="#c8323c")
    coarse.label = (f"hamel2, eta {jc['integrator']['eta']:g} "
                    f"({len(coarse.t)} nodes)")
    # the coarse run's exact points are as far apart as its nodes: the
    # fine run's (the same motion) draw the exact path
    coarse.exact = None
    plot = trajectory.plot_trajectories(
        [fine, coarse], ax=ax1, outlines=0, exact=True, spacing=False,
        legend=False, title="(a) computed and exact paths")
    sswplot.legend_below(legend_axes[0], [
        Line2D([], [], color=coarse.color, label=coarse.label),
        Line2D([], [], color=fine.color, label=fine.label),
        Line2D([], [], color="black", lw=0.6, ls=(0, (1, 1.5)),
               label="exact")], 1)
    out = {"plot": plot, "runs": {}}
    for name, color, label in PATH_RUNS:
        c, j = run(g, name)
        dist = np.hypot(c["x"] - c["x_exact"], c["y"] - c["y_exact"])
        label = label or coarse.label
        out["runs"][name] = {"t": c["t"], "dist": dist,
                             "path_error_max": j["path_error_max"]}
        ax2.plot(c["t"], np.maximum(dist, ENERGY_FLOOR), color=color,
                 lw=0.9, label=f"{label}: max {dist.max():.1g}")
    log_time_axes(ax2, r"$|P - P_{\rm exact}|$ (length)")
    sswplot.legend_below(legend_axes[1],
                         ax2.get_legend_handles_labels()[0], 1)
    ax2.set_title("(b) distance from the exact contact point", fontsize=7,
                  loc="left")
    runs = out["runs"]
    caption = (
        "The exact path (docs/theory/exact-path.md; the point CSV's "
        "x_exact, y_exact at every node) beside computed ones, "
        f"{body_text(jc)}. (a) red: the base Hamel step at a deliberately "
        f"coarse fixed step (hamel2, eta = {jc['integrator']['eta']:g}, "
        f"{len(coarse.t)} nodes) so that the difference shows; blue: the "
        f"same step at h = {PAPER_H:g} (Figs. 2-3's run), which the "
        "exact path (black dotted) covers. Drawn by "
        "trajectory.plot_trajectories(..., exact=True), i.e. "
        "`analysis/trajectory.py data/xz2_hamel2.csv data/xzp_coarse.csv "
        "--exact`, except that the coarse run's own exact overlay (its "
        "exact points at its nodes joined by straight segments, a "
        "polygon) is left out: the fine run's exact points are the same "
        "motion, 0.001 apart. (b) the distance |P - P_exact| of the "
        "computed contact point from the exact one at every node, for "
        "runs of the same body: the coarse run of (a), Figs. 2-3's RK45 "
        "(ode45's default tolerance) and Hamel step (h = 0.001), and the "
        "setting of the trajectory figures (hamel8, eta = 0.3, Figs. "
        "5-10). The JSON's path_error_max is the largest of these "
        "distances: "
        + ", ".join(f"{n} {runs[n]['path_error_max']:.2g}"
                    for n, _, _ in PATH_RUNS) + ".")
    g.save(fig, "exact_path", "The exact path beside computed ones",
           caption)
    return out


# ---- phase diagrams ---------------------------------------------------------

def sweep_text(path):
    with FileView(path) as f:
        a = f.attrs
        n = int(np.prod(f["done"].shape))
        return (f"{n} grid points, {int(a['trajectories'])} trajectories "
                f"each ({a['scheme'].decode() if isinstance(a['scheme'], bytes) else a['scheme']}, "  # noqa: E501
                + (f"eta = {float(a['eta']):g}" if float(a['eta']) > 0
                   else f"rtol = {float(a['rtol']):g}")
                + f", tol = {float(a['tol']):g}), "
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


SAME = ("#c9e3f2", "identical (0)")
NO_CLOSED = ("#bdbdbd", "no closed form (uniform motion)")


def fig_blade(g):
    """The blade's largest lateral force per unit energy over theta x a
    (rho = 1): measured, with closed-form level sets, and its relative
    deviation from the closed form."""
    from matplotlib.colors import BoundaryNorm, ListedColormap, LogNorm
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator
    s1 = g.path(SWEEP1)
    fig, axes = sswplot.figure(sswplot.DOUBLE, 2.9, ncols=2)
    ax1, ax2 = axes[0]
    pd = phase_diagram.plot_phase_diagram(
        s1, quantity="blade_force_max", ax=ax1, quiet=True, x="theta",
        y="a", labels={"colorbar": r"$\max|F|/H$ (1/length)",
                       "title": r"(a) blade force $\max|F|/H$"})
    panel = pd.panels[0]
    with FileView(s1) as f:
        closed = f["analytic_blade_force_max"][:, :, 0, 0, 0, 0, 0].T
        done = f["done"][:, :, 0, 0, 0, 0, 0].T == 1
    measured = panel.z
    ok = done & np.isfinite(closed) & np.isfinite(measured) & (closed > 0)
    dev = np.full(closed.shape, np.nan)
    dev[ok] = np.abs(measured[ok] / closed[ok] - 1.0)
    finite = closed[np.isfinite(closed)]
    lo, hi = float(finite.min()), float(finite.max())
    levels = [float(v) for v in MaxNLocator(4).tick_values(lo, hi)
              if lo < v < hi]
    cs = ax1.contour(panel.x, panel.y, np.ma.masked_invalid(closed),
                     levels=levels, colors="white", linewidths=0.6,
                     linestyles="--")
    ax1.clabel(cs, fmt="%g", fontsize=6)
    pos = dev[dev > 0]
    dmin = float(pos.min()) if pos.size else 1e-17
    norm = LogNorm(dmin, max(float(np.nanmax(dev)), 10 * dmin))
    xe, ye = phase_diagram.edges(panel.x), phase_diagram.edges(panel.y)
    m = ax2.pcolormesh(xe, ye, np.ma.masked_where(~(dev > 0), dev),
                       norm=norm, cmap="magma", linewidth=0)
    # exact agreement (0) and points without a closed form: fixed colours
    special = np.zeros(dev.shape)
    special[dev == 0] = 1
    special[done & ~np.isfinite(closed)] = 2
    ax2.pcolormesh(xe, ye, np.ma.masked_equal(special, 0),
                   cmap=ListedColormap([SAME[0], NO_CLOSED[0]]),
                   norm=BoundaryNorm([0.5, 1.5, 2.5], 2), linewidth=0)
    ax2.legend(handles=[Patch(fc=c, ec="#808080", lw=0.4, label=t)
                        for c, t in (SAME, NO_CLOSED)],
               loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2,
               borderaxespad=0)
    sswplot.angle_axis(ax2.xaxis, panel.x[0], panel.x[-1])
    ax2.set_xlim(ax1.get_xlim())
    ax2.set_ylim(ax1.get_ylim())
    ax2.set_xlabel(ax1.get_xlabel())
    ax2.tick_params(labelleft=False)
    ax2.set_title(r"(b) $|$measured / closed form $- 1|$", fontsize=7,
                  loc="left")
    cb = fig.colorbar(m, ax=ax2, aspect=25, pad=0.02)
    phase_diagram.log_ticks(cb, norm)
    cb.set_label("relative deviation, log scale")
    cb.outline.set_linewidth(0.5)
    undefined = int(np.count_nonzero(done & ~np.isfinite(closed)))
    k = np.unravel_index(np.nanargmax(measured), measured.shape)
    kmin = np.unravel_index(np.nanargmin(measured), measured.shape)
    kd = np.unravel_index(np.nanargmax(dev), dev.shape)
    deg = math.degrees
    caption = (
        "The blade's largest lateral force over a motion, divided by the "
        "energy, max|F|/H (units 1/length; docs/theory/blade-force.md), "
        "over blade angle theta and centre of mass a for the 2025 paper's "
        f"ellipse in a fluid, rho = 1 ({sweep_text(s1)}; the phase-diagram "
        "sweep). Multiplied by a motion's energy H it gives the largest "
        "sideways grip the blade must supply. Why a designer wants it: the "
        "no-slip model assumes the blade (a sleigh's runner, a keel or fin) "
        "supplies any lateral force needed; where the required grip "
        "exceeds what a real blade or keel can give (friction times normal "
        "load, a keel's largest lift), the vehicle slips and the model "
        "stops describing it, so the map shows where its predictions (the "
        "limit circles, their spacing, the loops) are physically "
        "plausible. (a) measured (mean over each point's trajectories; "
        "the engine locates each trajectory's peak between nodes), with "
        "closed-form level sets (white dashed) and the Z = 0 and L1 = 0 "
        f"lines; range {np.nanmin(measured):.3g} (theta = "
        f"{deg(panel.x[kmin[1]]):.0f} deg, a = {panel.y[kmin[0]]:g}) to "
        f"{np.nanmax(measured):.3g} (theta = {deg(panel.x[k[1]]):.0f} deg, "
        f"a = {panel.y[k[0]]:g}). (b) relative deviation from the closed "
        f"form: largest {np.nanmax(dev):.2g} (theta = "
        f"{deg(panel.x[kd[1]]):.0f} deg, a = {panel.y[kd[0]]:g}), median "
        f"{np.nanmedian(dev):.2g}, {int(np.count_nonzero(dev > 1e-14))} "
        "points above 1e-14, "
        f"{int(np.count_nonzero(dev == 0))} identical (light blue). The "
        "largest |F| over a motion is the largest value of a quadratic "
        "form on its energy ellipse, so an exact search for the peak along "
        "the computed states (whose energy the Hamel step keeps exactly) "
        "should agree to round-off; what exceeds that presumably comes "
        "from locating the peak between nodes"
        + (f"; the {undefined} uniform-motion points (L1 = Z = 0, grey) "
           "have no closed form in the file, their measured value being the "
           "constant force of their own motion" if undefined else "")
        + ".")
    g.save(fig, "phase_blade_force",
           "Phase diagram: blade force over theta x a", caption)
    return {"diagram": pd, "measured": measured, "closed": closed,
            "deviation": dev, "levels": levels}


def fig_validate(g):
    s1 = g.path(SWEEP1)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rep = validate.validate(s1, tol=1e-6, quiet=False)
    rep.fig = validate.plot_report(rep, None)  # drawn; saved by g.save
    text = buf.getvalue().replace(g.data + os.sep, "")
    g.save(rep.fig, "validate_rho1", "Validation of the rho = 1 sweep",
           "Measured vs closed form for every quantity of the rho = 1 "
           "sweep that has one (radius, spacing, transition angle, blade "
           "force; validate.py, tolerance 1e-6):\n\n```\n" + text + "```")
    return rep


# ---- circulation ------------------------------------------------------------

def kappa_constants(j):
    """(D, E, c1, H_c) of a point JSON's body with its kappa
    (docs/theory/circulation.md secs. 2-4)."""
    t = j["tensor"]
    d = t["M"] * t["J"] - t["L2"] ** 2
    e = t["J"] * t["Z"] ** 2 + 2 * t["Z"] * t["L1"] * t["L2"] + \
        t["M"] * t["L1"] ** 2
    c1 = math.sqrt(d) * (t["Z"] * t["L2"] + t["M"] * t["L1"]) / e
    return d, e, c1, d * t["kappa"] ** 2 / (2 * e)


def drift_energy(j, n):
    """The drift energy H_n = H_c n (2 |c1| + n) / (|c1| + n)^2 (heading
    per period 2 pi n, circulation.md sec. 4) of a point JSON's body."""
    _, _, c1, hc = kappa_constants(j)
    return hc * n * (2 * abs(c1) + n) / (abs(c1) + n) ** 2


def state_at_energy(json_path, h):
    """(omega0, v0) of a point JSON's initial state scaled to the energy h
    (the same phase on the energy ellipse: H is quadratic in the state)."""
    j = read_point_json(json_path)
    p = j["params"]
    k = math.sqrt(h / energy(j["tensor"], p["omega0"], p["v0"]))
    return k * p["omega0"], k * p["v0"]


def drift_state(json_path, fraction):
    """(omega0, v0) at `fraction` times the drift energy H_n of the point
    JSON's nearest resonance n (its "resonance"), for a path that drifts
    (orbit radius far beyond its displacement per period)."""
    j = read_point_json(json_path)
    return state_at_energy(json_path,
                           fraction * drift_energy(j, int(j["resonance"])))


def fig_circ_map(g):
    """Regimes over r x theta of a circulation sweep, the periodic region
    coloured by the period, the curve H = H_c overlaid."""
    s = g.path(SWEEPC)
    pd = phase_diagram.plot_phase_diagram(
        s, x="r", y="theta", quantity="regime", critical=True,
        shade="period", quiet=True, height=3.0)
    ax, panel = pd.axes[0], pd.panels[0]
    ax.plot(*CIRC_BODY, ls="none", marker="*", ms=7, mfc="white", mec="black",
            mew=0.6, zorder=8)
    with FileView(s) as f:
        a = f.attrs
        gamma, h, rho = float(a["Gamma"]), float(a["energy"]), float(a["rho"])
    reg = panel.z[panel.done]
    counts = ", ".join(f"{int(np.count_nonzero(reg == v))} "
                       f"{REGIMES[v].replace('_', ' ')}"
                       for v in sorted(REGIMES) if np.any(reg == v))
    periodic = int(np.count_nonzero(reg == 4))
    per = panel.shade[np.isfinite(panel.shade)]
    ratio = panel.critical_ratio
    wrong = int(np.count_nonzero(((ratio > 1) != (panel.z == 4)) &
                                 panel.done & np.isfinite(ratio)))
    caption = (
        "Circulation: regimes over the ellipse centre's offset r along the "
        "blade and the blade angle theta, at one energy, with the periodic "
        "region coloured by the period T (log colour bar; "
        f"{sweep_text(s)}, b = 0.1, s = -0.2, a = 0.2, A = 0.5, B = 0.3, "
        f"rho = {rho:g}, Gamma = {gamma:g}, every trajectory at energy H = "
        f"{h:g}). The lift's torque kappa = rho Gamma r makes the energy "
        "matter: where the critical energy H_c = D kappa^2 / (2 E) exceeds "
        "H the reduced motion is periodic (docs/theory/circulation.md); "
        "near r = 0 (kappa small) H > H_c and the body still goes from "
        "one limit circle to another (blue, orange where Z = 0). Red: the "
        "curve H = H_c, the level critical_energy / energy = 1 of the "
        "file's datasets (phase_diagram.py --critical, linear between "
        "grid points); the period grows without bound towards it "
        f"(T from {per.min():.3g} to {per.max():.3g}). Points: {counts}; "
        f"{wrong} points lie on the other side of the curve than their "
        "regime (the regime and the curve are read independently). "
        "Black lines: Z = 0 (theta = 0, pi/2, pi, framed cells), dotted: "
        "L1 = 0. Star: the body of the next two figures (r = 0.3, theta = "
        f"60 deg). Drawn by `analysis/phase_diagram.py {SWEEPC} --x r --y "
        "theta --quantity regime --shade period --critical`.")
    g.save(pd.fig, "circulation_regimes",
           "Circulation: regimes over r x theta, H = H_c", caption)
    return {"diagram": pd, "periodic": periodic, "wrong_side": wrong}


def orbit_text(j, tr):
    o = tr.orbit
    turns = j["heading_per_period"] / (2 * math.pi)
    s = (f"period T = {j['period']:.6g}, heading per period "
         f"{j['heading_per_period']:.6g} ({turns:.6g} turns), displacement "
         f"per period |z_T| = {j['drift_per_period']:.4g}")
    r = j.get("orbit_radius")
    s += (f", orbit radius {r:.6g}" if r is not None else
          ", orbit radius infinite")
    if o is not None and o.geometric_radius is not None:
        s += (" (the drawn period points lie on a circle of radius "
              f"{o.geometric_radius:.6g} about the rigid motion's fixed "
              "point)")
    return s


def fig_circ_periodic(g):
    """Below H_c: a bounded periodic path and one near a drift energy,
    each continued by its period's rigid motion."""
    jb, jd = g.json("circ_bounded"), g.json("circ_drift")
    hb, hd = (energy(j["tensor"], j["params"]["omega0"], j["params"]["v0"])
              for j in (jb, jd))
    n = int(jd["resonance"])
    hn = drift_energy(jd, n)
    _, _, c1, hc = kappa_constants(jb)
    panels = [(f"(a) $H = {hb:.3g}$: bounded", [g.traj("circ_bounded")]),
              (f"(b) $H = {hd / hn:.4g}\\,H_{n}$: drifts",
               [g.traj("circ_drift")])]
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 3.3,
                                   outlines=2, periods=PERIODS_SHOWN)
    tb, td = plots[0].trajectories[0], plots[1].trajectories[0]
    speed = jd["drift_per_period"] / jd["period"]
    caption = (
        "Circulation below its critical energy: the reduced motion is "
        "periodic, and one period of the path is one rigid motion (a "
        "rotation by the heading change per period about a fixed point), "
        "so the path stays on a circle unless that rotation is a whole "
        "number of turns (docs/theory/circulation.md sec. 4). "
        f"{body_text(jb).split(', omega0')[0]}, Gamma = "
        f"{jb['params']['Gamma']:g} (kappa = {jb['tensor']['kappa']:g}, "
        f"critical energy H_c = {hc:.4g}, c1 = {c1:.4g}). Dark: the "
        "path the engine stored (one period after the first peak of "
        f"|L1 w + Z v - kappa|, the start of its period); light: "
        f"{PERIODS_SHOWN} more periods drawn by repeating that rigid "
        "motion (trajectory.py --periods); diamonds: the period points; "
        "dash-dotted: the circle through them (radius orbit_radius) and "
        f"its centre (+). (a) H = {hb:.4g} (omega0 = "
        f"{jb['params']['omega0']:.4g}, v0 = {jb['params']['v0']:.4g}): "
        f"{orbit_text(jb, tb)}. (b) H = {hd:.6g} = {hd / hn:.4g} H_{n}, "
        f"just below the drift energy H_{n} = H_c n (2|c1| + n) / (|c1| + "
        f"n)^2 = {hn:.6g} of the resonance n = {n} nearest to (a): "
        f"{orbit_text(jd, td)}; the circle, far larger than the path, is "
        "left out of the view, and the path drifts at a mean speed "
        f"|z_T| / T = {speed:.3g}. At H_{n} itself the rotation is exactly "
        f"{n} turns and the path drifts for ever. {scale_text(plots)} "
        f"Integrator {integrator_text(jb)}.")
    g.save(fig, "circulation_periodic",
           "Circulation below H_c: bounded and drifting periodic paths",
           caption)
    return plots


def fig_circ_arcs(g):
    """Above H_c: the two arcs of one body and energy."""
    ju, jl = g.json("circ_arc_up"), g.json("circ_arc_down")
    panels = [(f"(a) arc $g > 0$: $|\\Delta\\phi| = "
               f"{abs(ju['dphi']) / math.pi:.3g}\\pi$, $d = {ju['d']:.3g}$",
               [g.traj("circ_arc_up")]),
              (f"(b) arc $g < 0$: $|\\Delta\\phi| = "
               f"{abs(jl['dphi']) / math.pi:.3g}\\pi$, $d = {jl['d']:.3g}$",
               [g.traj("circ_arc_down")])]
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 3.3,
                                   outlines=3)
    _, _, c1, hc = kappa_constants(ju)
    h = energy(ju["tensor"], ju["params"]["omega0"], ju["params"]["v0"])
    gap = ju["dphi"] - jl["dphi"]

    def arc(j):
        return (f"omega0 = {j['params']['omega0']:g}, v0 = "
                f"{j['params']['v0']:g}, arc g {'>' if j['arc'] > 0 else '<'}"
                f" 0: transition "
                f"angle {j['dphi']:.6g} ({abs(j['dphi']) / math.pi:.4g} pi, "
                f"{j['loops']} loop(s)), centre spacing d = {j['d']:.5g}, "
                f"limit radii {j['r_past']:.5g} (past) and "
                f"{j['r_future']:.5g} (future)")
    caption = (
        "Circulation above its critical energy: from one limit circle to "
        "another, along one of two arcs of the energy level, g = L1 w + "
        "Z v - kappa > 0 or < 0 (docs/theory/circulation.md sec. 5). "
        f"{body_text(ju).split(', omega0')[0]}, Gamma = "
        f"{ju['params']['Gamma']:g} (kappa = {ju['tensor']['kappa']:g}), "
        f"H = {h:.4g} = {h / hc:.3g} H_c; the two runs start from opposite "
        f"states of one energy. (a) {arc(ju)}; (b) {arc(jl)}. Both arcs "
        "share the limit states, so their radii agree (with circulation "
        "the past and future radii differ), while the "
        "transition angles differ by 2 pi c1: measured "
        f"{gap:.10g}, 2 pi c1 = {2 * math.pi * c1:.10g}. Open dot: past "
        "(unstable) centre, filled: future (stable) centre. "
        f"{scale_text(plots)} Integrator {integrator_text(ju)}.")
    g.save(fig, "circulation_arcs", "Circulation above H_c: the two arcs",
           caption)
    return plots


def tensor_constants(f, index):
    """(D, E, c1) of the body at `index` of an open sweep file, from its
    tensor datasets (docs/theory/circulation.md sec. 1, exact-path.md)."""
    names = ("J", "M", "L1", "L2", "Z")
    J, M, L1, L2, Z = (float(f[n][index]) for n in names)
    d = M * J - L2 ** 2
    e = J * Z ** 2 + 2 * Z * L1 * L2 + M * L1 ** 2
    return d, e, math.sqrt(d) * (Z * L2 + M * L1) / e


def fig_circ_energy(g):
    """Regimes over Gamma x energy of one body: H = H_c and the first
    drift energies H_n overlaid, the periodic region coloured by the
    period; the points' regimes against the closed-form H_c(Gamma)."""
    s = g.path(SWEEPGE)
    pd = phase_diagram.plot_phase_diagram(
        s, x="Gamma", y="energy", quantity="regime", critical=True,
        shade="period", quiet=True, height=3.0)
    ax, panel = pd.axes[0], pd.panels[0]
    ax.plot(*GE_POINT, ls="none", marker="*", ms=7, mfc="white",
            mec="black", mew=0.6, zorder=8)
    with FileView(s) as f:
        body = (0,) * len(BODY_AXES)  # the body's dimensions come first
        d, e, c1 = tensor_constants(f, body + (0, 0))
        rho_r = float(f.attrs["rho"]) * float(f["r"][0])
        gammas, hs = f["Gamma"][()], f["energy"][()]
        closed = f["analytic_period"][body].T  # (energy, Gamma)
        err = f["period_error"][body].T
    # the closed form H_c(Gamma) = D (rho Gamma r)^2 / (2 E) at every point
    hc = d * (rho_r * gammas[None, :]) ** 2 / (2 * e)
    below = hs[:, None] < hc
    reg = panel.z
    wrong = int(np.count_nonzero(((reg == 4) != below) & panel.done))
    counts = ", ".join(f"{int(np.count_nonzero(reg[panel.done] == v))} "
                       f"{REGIMES[v].replace('_', ' ')}"
                       for v in sorted(REGIMES) if np.any(reg == v))
    shown = sorted(panel.boundaries.get("resonances") or {})
    c = abs(c1)
    ratios = ", ".join(f"H_{n} = {n * (2 * c + n) / (c + n) ** 2:.3f} H_c"
                       for n in shown if n >= 1)
    gp, hp = GE_POINT
    hc_p = d * (rho_r * gp) ** 2 / (2 * e)
    per = panel.shade[np.isfinite(panel.shade)]
    # the measured period against the closed form T = 2 pi D /
    # sqrt(2 E (H_c - H)): how many points differ by more than 1e-3
    with np.errstate(invalid="ignore"):
        dev = np.abs(panel.shade / closed - 1)
    off = np.isfinite(dev) & (dev > 1e-3)
    agree = float(np.nanmax(np.where(off, np.nan, dev))) if \
        np.isfinite(dev).any() else math.nan
    ratio_off = (panel.shade / closed)[off]
    h_off = (hs[:, None] / hc)[off]
    # the engine's own error estimate there, relative to the period
    err_off = (err / panel.shade)[off]
    period_text = (
        "The measured period agrees with the closed form analytic_period "
        f"within {agree:.2g} (relative)" + (
            "." if not off.any() else
            f" except at {int(np.count_nonzero(off))} point(s) far below "
            f"H_c (H / H_c from {float(h_off.min()):.2g} to "
            f"{float(h_off.max()):.2g}), where it is up to "
            f"{float(np.max(ratio_off)):.3g} times it (brighter cells; "
            "period_error there is "
            f"{float(np.min(err_off)):.2g} to {float(np.max(err_off)):.2g} "
            "of the period): the engine's measured period, not the "
            "drawing."))
    caption = (
        "Circulation: regimes over the circulation Gamma and the energy H "
        "of one body (theta = 60 deg, a = 0.2, b = 0.1, r = 0.3, s = -0.2, "
        f"A = 0.5, B = 0.3; {sweep_text(s)}; "
        "jobs/examples/fig_gamma_energy.ini: Gamma and energy are grid "
        "axes), log energy axis, the periodic region coloured by the period "
        f"T (log colour bar, T from {per.min():.3g} to {per.max():.3g}). "
        "The lift's torque kappa = rho Gamma r gives the critical energy "
        "H_c = D kappa^2 / (2 E), a parabola in Gamma (red: the level "
        "critical_energy / energy = 1 of the file's datasets, each point "
        "divided by its own energy coordinate, linear in log H between "
        "grid points): below it the reduced motion is periodic (cells "
        "coloured by the period), above it the body goes from one limit "
        f"circle to another (blue). {period_text} Points: {counts}; {wrong} "
        "of them on the other side of "
        "the closed-form H_c(Gamma), computed here from the file's J, M, "
        "L1, L2, Z. Dash-dotted, labelled n: the drift energies H_n, where "
        "the measured heading change per period is 2 pi n and the path "
        "drifts instead of circling; the closed form H_n = H_c n (2|c1| + "
        f"n) / (|c1| + n)^2 with |c1| = {c:.4g} puts them at fixed "
        f"fractions of H_c ({ratios}), so on the log axis they run parallel "
        "to H = H_c and crowd towards it. Star: the bounded periodic path "
        f"of the next figure (Gamma = {gp:g}, H = {hp:g} = "
        f"{hp / hc_p:.3g} H_c). Drawn by `analysis/phase_diagram.py "
        f"{SWEEPGE} --x Gamma --y energy --quantity regime --shade period "
        "--critical`.")
    g.save(pd.fig, "circulation_gamma_energy",
           "Circulation: regimes over Gamma x energy, H = H_c and H_n",
           caption)
    return {"diagram": pd, "wrong_side": wrong, "c1": c1, "resonances":
            shown}


PERIODS_SHOWN = 4  # periods continued in fig_circ_periodic


# ---- drag -------------------------------------------------------------------

def fig_drag_map(g):
    """The measured decay rate at rest over r x theta with drag and
    circulation; the focus region (complex eigenvalues at rest) outlined
    where the measured focus_fraction crosses 1/2."""
    s = g.path(SWEEPD)
    pd = phase_diagram.plot_phase_diagram(
        s, x="r", y="theta", quantity="decay_rate", quiet=True,
        boundaries=False, height=3.0,
        labels={"colorbar": "decay rate at rest (time$^{-1}$)"})
    ax, panel = pd.axes[0], pd.panels[0]
    with FileView(s) as f:
        a = f.attrs
        focus = np.squeeze(f["focus_fraction"][()])
        rate = np.squeeze(f["decay_rate"][()])
        twin = np.squeeze(f["analytic_decay_rate"][()])
        cw, cv = float(a["drag_w"]), float(a["drag_v"])
        gamma = float(a["Gamma"])
    ax.contour(panel.x, panel.y, focus, levels=[0.5], colors="white",
               linewidths=1.0, zorder=5)
    worst = float(np.nanmax(np.abs(rate / twin - 1)))
    foci = int(np.count_nonzero(focus > 0.5))
    caption = (
        "Drag: the decay rate at rest, -max Re lambda, measured on each "
        "point's damped trajectories (their forward runs to rest; "
        f"{sweep_text(s)}, a = 0.2, b = 0.1, s = -0.2, A = 0.5, B = 0.3, "
        f"rho = 1, Gamma = {gamma:g}, drag_w = {cw:g}, drag_v = {cv:g}). "
        "Near rest K zeta' = -(C + kappa S) zeta, so the rates solve "
        "D lambda^2 + b lambda + det C + kappa^2 = 0 with b = M c_w + "
        "2 L2 c_wv + J c_v (docs/theory/drag.md): without circulation "
        "rest is always approached as a node, and the lift's torque kappa "
        "= rho Gamma r turns it into a focus (white outline: "
        f"focus_fraction = 1/2; {foci} of {focus.size} points spiral into "
        "rest), where the decay rate is b / (2 D). The measured rates "
        f"agree with the closed form to {worst:.1e} (relative, rtol 1e-8). "
        f"Drawn by `analysis/phase_diagram.py {SWEEPD} --x r --y theta "
        "--quantity decay_rate`, the outline by a contour of "
        "focus_fraction.")
    g.save(pd.fig, "drag_decay", "Drag: decay at rest over r x theta, "
           "nodes and foci", caption)
    return {"diagram": pd, "foci": foci, "worst": worst}


def rest_text(j):
    return (f"total heading {j['heading_total']:.6g} rad "
            f"({j['loops']} full turn(s)), rest point "
            f"({j['rest_x']:.5g}, {j['rest_y']:.5g}), path length "
            f"{j['path_length']:.5g}, decay rate {j['decay_rate']:.5g} "
            f"(closed form {j['analytic']['decay_rate']:.5g}), 1% of the "
            f"energy at t = {j['t_settle']:.4g}")


def fig_drag_paths(g):
    """The seed body to rest as a node, and with circulation as a focus
    (a zigzag of cusps where v changes sign)."""
    jn, jf = g.json("drag_node"), g.json("drag_focus")
    panels = [("(a) node", [g.traj("drag_node")]),
              ("(b) focus (with circulation)", [g.traj("drag_focus")])]
    fig, plots = trajectory_panels(g, panels, 2, sswplot.DOUBLE, 3.3,
                                   outlines=3)
    caption = (
        "Drag: the sleigh comes to rest (docs/theory/drag.md). "
        f"{body_text(jn).split(', omega0')[0]}, drag_w = "
        f"{jn['params']['drag_w']:g}, drag_v = {jn['params']['drag_v']:g}; "
        "integrated forward until the energy is 1e-22 of its start, the "
        "linear tail to rest added. (a) Without circulation rest is a "
        f"node: {rest_text(jn)}. (b) With Gamma = "
        f"{jf['params']['Gamma']:g} (b = {jf['params']['b']:g}, r = "
        f"{jf['params']['r']:g}, s = {jf['params']['s']:g}, kappa = "
        f"{jf['tensor']['kappa']:g}) the eigenvalues at rest are complex: "
        "v changes sign again and again, and the path ends in a tightening "
        f"zigzag of cusps: {rest_text(jf)}. X: the rest point. "
        f"{scale_text(plots)}")
    g.save(fig, "drag_paths", "Drag: paths to rest, a node and a focus",
           caption)
    return plots


def l1_z(p):
    """(L1, Z) of the body p = {theta, a, r, s, A, B, m, rho} (arrays or
    numbers): docs/theory/model.md sec. 1, the body's L1 = m a, Z = 0 and
    the fluid's Z_F = rho pi (A^2 - B^2) sin(2 theta) / 2, L1_F = r N_F -
    s Z_F (the rigid change of reference point to q = (-s, r)); b, I0 and
    k_rot do not enter them."""
    th = p["theta"]
    d2 = p["A"] ** 2 - p["B"] ** 2
    nf = p["rho"] * math.pi * (p["A"] ** 2 * np.cos(th) ** 2 +
                               p["B"] ** 2 * np.sin(th) ** 2)
    zf = p["rho"] * math.pi * d2 * np.sin(2 * th) / 2
    return p["m"] * p["a"] + p["r"] * nf - p["s"] * zf, zf


def edge_zero(p, axis, which, lo, hi):
    """The zero of L1 (which = 0) or Z (1) of the body p along `axis`
    between lo and hi (a sign change), by bisection to round-off."""
    def f(v):
        return l1_z(dict(p, **{axis: v}))[which]
    flo = f(lo)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        fm = f(mid)
        if fm == 0:
            return mid
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return 0.5 * (lo + hi)


def crossing_bodies(f):
    """Per /boundaries row of an open sweep file: (the body at point_lo as
    a dict of l1_z's parameters, the edge's axis name, the axis's values
    at point_lo and point_hi)."""
    axes = list(f["done"].dims)
    shape = tuple(f[a].shape[0] for a in axes)
    g = f["boundaries"]
    names = phase_diagram.flag_names(g["axis"])
    out = []
    for lo, hi, ax in zip(g["point_lo"][()], g["point_hi"][()],
                          g["axis"][()]):
        ilo = np.unravel_index(int(lo), shape)
        ihi = np.unravel_index(int(hi), shape)
        body = {a: float(f[a][i]) for a, i in zip(axes, ilo)}
        body.update(m=float(f.attrs["m"]), rho=float(f.attrs["rho"]))
        name = names[ax]
        out.append((body, name, body[name],
                    float(f[name][ihi[axes.index(name)]])))
    return out


def refined_distances(f):
    """The largest distance of a Z = 0 or L1 = 0 crossing of /boundaries
    from the closed-form zero along its edge (edge_zero on l1_z), the
    number of such crossings, and the largest difference of l1_z from the
    file's L1 and Z datasets at the grid points (the formula's check)."""
    g = f["boundaries"]
    inds = phase_diagram.flag_names(g["indicator"])
    pos = g["position"][()]
    worst, n = 0.0, 0
    for k, (body, axis, lo, hi) in enumerate(crossing_bodies(f)):
        ind = inds[g["indicator"][k]]
        if ind not in ("L1", "Z"):
            continue
        exact = edge_zero(body, axis, ("L1", "Z").index(ind), lo, hi)
        worst = max(worst, abs(pos[k] - exact))
        n += 1
    grid = np.meshgrid(*(f[a][()] for a in ("theta", "a", "b", "r", "s",
                                            "A", "B")), indexing="ij")
    p = dict(zip(("theta", "a", "b", "r", "s", "A", "B"), grid),
             m=float(f.attrs["m"]), rho=float(f.attrs["rho"]))
    l1, z = l1_z(p)
    shape = l1.shape
    formula = max(float(np.max(np.abs(l1 - f["L1"][()].reshape(shape)))),
                  float(np.max(np.abs(z - f["Z"][()].reshape(shape)))))
    return worst, n, formula


def fig_refined(g):
    """A coarse loop-count map over theta x a with [refine]: the refined
    crossings of Z = 0, L1 = 0 and the loop levels over it, with the
    closed-form curves; each Z = 0 / L1 = 0 crossing against the exact
    zero of the tensor's formula along its edge."""
    s = g.path(SWEEPR)
    pd = phase_diagram.plot_phase_diagram(
        s, x="theta", y="a", quantity="loops", quiet=True,
        width=sswplot.DOUBLE, height=3.2)
    r = pd.panels[0].refined
    with FileView(s) as f:
        a = f.attrs
        ga = f["boundaries"].attrs
        tol = float(ga["tol"])
        evals, edges = int(ga["evaluations"]), int(ga["edges"])
        coarse = int(ga["coarse_points"])
        n_rows = f["boundaries/position"].shape[0]
        worst, n_closed, formula = refined_distances(f)
        rr, ss = float(f["r"][0]), float(f["s"][0])
        rho = float(a["rho"])
    per_ind = {k: int(np.count_nonzero(r["indicator"] == k))
               for k in ("Z", "L1", "turns")}
    caption = (
        "Refined regime and loop boundaries over blade angle theta and "
        f"centre of mass a (rho = {rho:g}, b = 0, r = {rr:g}, s = {ss:g}, "
        f"A = 0.5, B = 0.3; {sweep_text(s)}; "
        "jobs/examples/refine_a_theta.ini with [refine] classes = regime, "
        f"loops, tol = {tol:g}). Colours: the coarse grid's loop count. "
        "Lines: the closed-form boundaries drawn from the file's Z and L1 "
        "(linear between grid points): Z = 0 (theta = pi/2), L1 = 0 "
        "(dotted; a = -r N_F(theta) / m) and the level sets |dphi| = "
        "2 pi k (dashed). Markers: the engine's refined crossings "
        "(/boundaries), each at its position on its grid edge, joined "
        f"along a level: {n_rows} crossings ({per_ind['Z']} of Z = 0, "
        f"{per_ind['L1']} of L1 = 0, {per_ind['turns']} of the loop "
        f"levels) on {edges} edges, {evals} evaluations in all, "
        f"{evals / max(edges, 1):.2f} per edge ({evals / coarse:.2f} times "
        f"the {coarse} grid points). Each of the {n_closed} Z = 0 and "
        "L1 = 0 crossings lies within "
        f"{worst:.1e} of the exact zero of the closed form along its edge "
        "(L1 = m a + r N_F - s Z_F, Z = Z_F, docs/theory/model.md sec. 1, "
        "solved by bisection; the formula matches the file's L1 and Z to "
        f"{formula:.0e}); the bracket tolerance is {tol:g}. The loop "
        "crossings crowd towards L1 = 0, where |dphi| grows without bound. "
        f"Drawn by `analysis/phase_diagram.py {SWEEPR} --x theta --y a "
        "--quantity loops` (--no-refined leaves the crossings out).")
    g.save(pd.fig, "phase_refined",
           "Refined boundaries over theta x a ([refine])", caption)
    return {"diagram": pd, "worst": worst, "closed": n_closed,
            "formula": formula, "crossings": n_rows}


FIGURES = (fig_energy, fig_omega, fig_rattle, fig_com, fig_theta, fig_com7,
           fig_classical, fig_models, fig_portrait, fig_sleigh, fig_loops,
           fig_exact_path, fig_phase, fig_blade, fig_validate, fig_circ_map,
           fig_circ_energy, fig_circ_periodic, fig_circ_arcs,
           fig_drag_map, fig_drag_paths, fig_refined, fig_forced_map,
           fig_forced_path, fig_forced_floquet, fig_forced_growth,
           fig_chaos_lyapunov, fig_chaos_poincare, fig_chaos_attractor,
           fig_basins)


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
