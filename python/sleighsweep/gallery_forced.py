"""The driven sleigh's gallery figure (gallery.FIGURES): the mean swimming
speed over the torque's frequency x amplitude, measured, with the
small-forcing closed form's contours beside the measured ones, and the
closed form's relative error. Reads the sweep analysis/figures.sh wrote."""
import math

import matplotlib.colors as mcolors
import matplotlib.patheffects as patheffects
import numpy as np

from . import dataset
from . import style as sswplot

SWEEPF = "forced_omega_tau.h5"  # forcing_freq x torque_amp (figures.sh)


def _grid(path):
    """(forcing_freq, torque_amp, mean_v, analytic_mean_v, mean_v_error,
    units, attractor classes, cycle lengths) of the sweep, the data as
    (torque_amp, forcing_freq)."""
    ds = dataset.open(path, squeeze=True)
    try:
        mv = ds["mean_v"].transpose("torque_amp", "forcing_freq")
        av = ds["analytic_mean_v"].transpose("torque_amp", "forcing_freq")
        err = ds["mean_v_error"].transpose("torque_amp", "forcing_freq")
        out = (ds["forcing_freq"].values, ds["torque_amp"].values,
               mv.values, av.values, err.values,
               {k: ds[k].attrs.get("units", "") for k in
                ("forcing_freq", "torque_amp", "mean_v")},
               [str(a) for a in np.unique(ds["attractor"].values)],
               np.unique(ds["cycle_periods"].values))
    finally:
        ds.close()
    return out


def _levels(lo, hi):
    """Whole and half decades between lo and hi (> 0)."""
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    return [m * 10.0 ** k for k in range(k0, k1 + 1) for m in (1, 3)
            if lo < m * 10.0 ** k < hi]


def _decades(levels):
    """The whole decades among levels: the ones labelled (a label on every
    half decade crowds where the contours bunch)."""
    return [v for v in levels if abs(math.log10(v) - round(math.log10(v)))
            < 1e-9]


def _label(ax, cs, levels, colour):
    """Labels the whole decades of a contour set, each with a halo of the
    opposite shade so it reads on any colour of the map."""
    halo = "black" if colour == "white" else "white"
    texts = ax.clabel(cs, levels=_decades(levels), fmt=lambda v: f"{v:g}",
                      fontsize=6, colors=colour, inline_spacing=2)
    for t in texts:
        t.set_path_effects([patheffects.withStroke(linewidth=1.5,
                                                   foreground=halo)])
    return texts


def fig_forced_map(g):
    """(a) mean_v over forcing_freq x torque_amp (log colour), measured
    contours solid, the closed form's at the same levels dashed; (b) the
    closed form's relative error, log colour with its decades."""
    from .gallery import sweep_text
    s = g.path(SWEEPF)
    om, tau, mv, av, err, units, classes, periods = _grid(s)
    rel = np.abs(mv / av - 1)
    fig, axes = sswplot.figure(sswplot.DOUBLE, 3.1, ncols=2,
                               layout="constrained")
    ax, bx = axes[0]
    levels = _levels(np.nanmin(mv), np.nanmax(mv))
    pm = ax.pcolormesh(om, tau, mv, shading="nearest",
                       norm=mcolors.LogNorm(), cmap="viridis")
    ax.contour(om, tau, mv, levels=levels, colors="white", linewidths=0.9)
    cs = ax.contour(om, tau, av, levels=levels, colors="black",
                    linewidths=0.8, linestyles="dashed")
    _label(ax, cs, levels, "black")
    cb = fig.colorbar(pm, ax=ax)
    cb.set_label("mean speed $\\langle v\\rangle$ ("
                 + sswplot.unit_text(units["mean_v"]) + ")")
    rl = _levels(np.nanmin(rel), np.nanmax(rel))
    pr = bx.pcolormesh(om, tau, rel, shading="nearest",
                       norm=mcolors.LogNorm(), cmap="magma")
    cr = bx.contour(om, tau, rel, levels=rl, colors="white", linewidths=0.8)
    _label(bx, cr, rl, "white")
    cb = fig.colorbar(pr, ax=bx)
    cb.set_label("closed form's relative error")
    for a, tag in ((ax, "(a)"), (bx, "(b)")):
        a.set_xlabel(sswplot.axis_label("forcing_freq",
                                        units=units["forcing_freq"]))
        a.set_ylabel(sswplot.axis_label("torque_amp",
                                        units=units["torque_amp"]))
        a.set_title(tag, loc="left")
    # the error's order in the amplitude: log-log slope along each
    # frequency's column (forcing.md: O(eps^2) relative)
    slopes = np.polyfit(np.log(tau), np.log(rel), 1)[0]
    worst = float(np.nanmax(rel))
    est = float(np.nanmax(err / np.abs(mv)))
    caption = (
        "The driven sleigh: the mean swimming speed <v> (the time average "
        "of v over the whole cycle, docs/theory/forcing.md) over the sine "
        "torque's angular frequency Omega and amplitude tau_0, on the seed "
        "body with drag (theta = 60 deg, a = 0.2, A = 0.5, B = 0.3, rho = "
        f"1, drag_w = 0.3, drag_v = 0.5; {sweep_text(s)}; forcing_freq and "
        "torque_amp are grid axes). The points' attractors: "
        f"{', '.join(classes)}, of cycle length(s) "
        f"{', '.join(f'{p:g}' for p in periods)} forcing period(s). (a) The "
        "measured mean_v (colour, log scale; white contours) and the "
        "small-forcing closed form analytic_mean_v (docs/theory/forcing.md, "
        "\"Closed forms beside the measurements\"; dashed) at the same "
        "levels (whole and half decades, the whole ones labelled): the "
        "speed grows as tau_0^2 and falls with Omega, and the two sets of "
        "contours part where the torque is large. (b) The closed form's "
        "relative error |mean_v / analytic_mean_v - 1|, up to "
        f"{worst:.2g}; along each frequency it grows as tau_0 to the power "
        f"{float(np.min(slopes)):.2f} to {float(np.max(slopes)):.2f} "
        "(the closed form's O(tau_0^2) relative error), while the engine's "
        f"own estimate mean_v_error stays below {est:.1g} of mean_v. Drawn "
        "from the file's mean_v and analytic_mean_v datasets.")
    g.save(fig, "forced_speed_map",
           "The driven sleigh: mean swimming speed over Omega x tau_0, "
           "measured and closed form", caption)
    return {"forcing_freq": om, "torque_amp": tau, "mean_v": mv,
            "analytic_mean_v": av, "slopes": slopes, "worst": worst,
            "classes": classes, "periods": periods}
