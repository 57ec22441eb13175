"""The attractor census's gallery figure (gallery.FIGURES): the basins of
the driven sleigh over two forcing parameters. A mirror-symmetric body
(theta = 0, b = 0) driven by a mass oscillating across its blade keeps
one symmetric cycle at small forcing; past a pitchfork it has two mirror
cycles turning opposite ways, and the ensemble's initial states split
between them. Reads the census sweep analysis/figures.sh wrote
(docs/output.md, "The census")."""
import matplotlib.colors as mcolors
import matplotlib.patches as mpatches
import numpy as np

from . import dataset
from . import style as sswplot

SWEEPB = "census_basins.h5"  # forcing_freq x mass_amp (figures.sh)
GRID = ("mass_amp", "forcing_freq")


def sweep_text_of(path):
    """The sweep's size and integrator for a caption (gallery.sweep_text)."""
    from .gallery import sweep_text
    return sweep_text(path)


def census(path):
    """The census of a (forcing_freq, mass_amp) sweep as arrays over
    (mass_amp, forcing_freq[, slot]): counts, the slots' fractions, classes
    and mean_omega, the other share, the unresolved share (what no slot
    and no `other` holds), slot 0's mean_omega error, the trajectories per
    point and the units."""
    ds = dataset.open(path, squeeze=True)
    try:
        def grid(name, slot=False):
            dims = GRID + (("attractor_slot",) if slot else ())
            return ds[name].transpose(*dims).values
        out = {"forcing_freq": ds["forcing_freq"].values,
               "mass_amp": ds["mass_amp"].values,
               "count": grid("attractor_count"),
               "fraction": grid("attractor_fraction", True),
               "classes": grid("attractor_class", True),
               "mean_omega": grid("attractor_mean_omega", True),
               "other": grid("attractor_other_fraction"),
               "error": grid("mean_omega_error"),
               "trajectories": int(ds.attrs["trajectories"]),
               "units": {k: ds[k].attrs.get("units", "") for k in
                         ("forcing_freq", "mass_amp", "mean_omega")}}
    finally:
        ds.close()
    f = np.nan_to_num(out["fraction"])
    # the unresolved trajectories: a slot of class `unresolved` (no
    # attractor, docs/output.md) and whatever no slot holds
    lost = np.where(out["classes"] == "unresolved", f, 0).sum(axis=-1)
    out["unresolved"] = (lost + 1 - f.sum(axis=-1)
                         - np.nan_to_num(out["other"]))
    # the share turning counter-clockwise: slots whose mean angular
    # velocity is positive beyond slot 0's estimate (the symmetric cycle's
    # is 0 to round-off)
    tol = 10 * np.nan_to_num(out["error"])[..., None]
    ccw = np.where(out["mean_omega"] > tol, f, 0).sum(axis=-1)
    cw = np.where(out["mean_omega"] < -tol, f, 0).sum(axis=-1)
    both = (ccw > 0) & (cw > 0)
    out["ccw"] = np.where(both, ccw / np.where(both, ccw + cw, 1), np.nan)
    n = out["trajectories"]
    out["k_ccw"], out["k_cw"] = np.rint(ccw * n), np.rint(cw * n)
    return out


def fig_basins(g):
    """(a) The attractors per grid point (the census's attractor_count),
    hatched where some trajectories stayed unresolved; (b) where two
    mirror cycles coexist, the share of the initial states that end on
    the one turning counter-clockwise, each cell labelled with its count
    of the ensemble."""
    s = g.path(SWEEPB)
    c = census(s)
    om, amp, n = c["forcing_freq"], c["mass_amp"], c["trajectories"]
    fig, axes = sswplot.figure(sswplot.DOUBLE, 3.1, ncols=2,
                               layout="constrained")
    ax, bx = axes[0]
    lo = max(int(np.nanmin(c["count"])), 0)
    top = max(int(np.nanmax(c["count"])), lo + 1)
    shades = ["#f0f0f0", "#9ecae1", "#3182bd", "#08519c", "#08306b"]
    cmap = mcolors.ListedColormap(shades[lo:top + 1])
    norm = mcolors.BoundaryNorm(np.arange(lo - 0.5, top + 1), cmap.N)
    pm = ax.pcolormesh(om, amp, c["count"], shading="nearest", cmap=cmap,
                       norm=norm)
    cb = fig.colorbar(pm, ax=ax, ticks=range(lo, top + 1))
    cb.set_label("attractors per point")
    dx, dy = np.diff(om).mean() / 2, np.diff(amp).mean() / 2
    for j, i in np.argwhere(c["unresolved"] > 0):
        for a in (ax, bx):
            a.add_patch(mpatches.Rectangle(
                (om[i] - dx, amp[j] - dy), 2 * dx, 2 * dy, fill=False,
                hatch="////", lw=0.6, edgecolor="black", zorder=3))
    pb = bx.pcolormesh(om, amp, c["ccw"], shading="nearest",
                       cmap="coolwarm", vmin=0, vmax=1)
    cb = fig.colorbar(pb, ax=bx)
    cb.set_label("share turning counter-clockwise")
    bx.set_facecolor("white")  # one symmetric cycle: no split
    ccw = c["ccw"]
    for j in range(len(amp)):
        for i in range(len(om)):
            if np.isfinite(ccw[j, i]):
                bx.text(om[i], amp[j],
                        f"{c['k_ccw'][j, i]:.0f}:{c['k_cw'][j, i]:.0f}",
                        ha="center", va="center", fontsize=5, color="black",
                        zorder=4)
    for a, tag in ((ax, "(a)"), (bx, "(b)")):
        a.set_xlabel(sswplot.axis_label(
            "forcing_freq", units=c["units"]["forcing_freq"]))
        a.set_ylabel(sswplot.axis_label("mass_amp",
                                        units=c["units"]["mass_amp"]))
        a.set_title(tag, loc="left")
    pair = np.isfinite(c["ccw"])
    split = c["ccw"][pair]
    caption = (
        "The attractor census (docs/theory/forcing.md, \"The census\") of "
        "a mirror-symmetric sleigh (theta = 0, a = 0.2, b = 0, A = 0.5, B = "
        "0.3, rho = 1, drag_w = drag_v = 0.2) driven by a mass as heavy as "
        "the body (mass_p = 1) oscillating across its blade at mass_x = 0.3, "
        "over the mass's angular frequency Omega and amplitude a "
        f"({sweep_text_of(s)}; {n} "
        "initial states per point, random angles on the energy ellipse). "
        "(a) The attractors the census finds per point: one symmetric "
        "cycle (mean angular velocity 0) at small forcing, two mirror "
        "cycles turning opposite ways past a pitchfork that moves to "
        "smaller amplitudes as Omega grows; hatched, points where some "
        "trajectories ended unresolved (next to the pitchfork, where the "
        "cycle's largest exponent tends to 0 and the transient does not "
        "close). (b) Where the two mirror cycles coexist "
        f"({int(pair.sum())} points), the share of the initial states "
        "reaching one of them that end on the one turning counter-clockwise "
        "(from the slots' attractor_fraction and the sign of "
        "attractor_mean_omega; each cell gives the counts, counter-clockwise "
        f": clockwise, of its {n} states): from {np.nanmin(split):.2f} to "
        f"{np.nanmax(split):.2f}; blank where there is one attractor. The "
        "mirror maps the cycles onto each other but not the initial "
        "states: the shares are those of this ensemble's states, the "
        "basins' fractions of Attractors.jl, exact counts over the "
        "trajectories.")
    g.save(fig, "census_basins",
           "The attractor census: mirror cycles past a pitchfork and the "
           "ensemble's shares", caption)
    return c
