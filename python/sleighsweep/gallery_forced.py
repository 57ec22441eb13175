"""The driven sleigh's gallery figures (gallery.FIGURES): the mean
swimming speed over the torque's frequency x amplitude with the
small-forcing closed form's contours and its relative error; the Floquet
moduli over the same sweep with their torque -> 0 limit and the exact
product identity; a swimming path with its period averages on their
circle; an undamped sleigh's energy growth against the averaged law.
Reads the sweep and the point CSV/JSON pairs analysis/figures.sh wrote."""
import math

import matplotlib.colors as mcolors
import matplotlib.patheffects as patheffects
import numpy as np

from . import dataset
from . import style as sswplot
from .sweep import read_csv, read_point_json

BLUE, ORANGE = "#1f5fa8", "#e08a1e"

SWEEPF = "forced_omega_tau.h5"  # forcing_freq x torque_amp (figures.sh)


def sweep_text_of(path):
    """The sweep's size and integrator for a caption (gallery.sweep_text)."""
    from .gallery import sweep_text
    return sweep_text(path)


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


def _label(ax, cs, levels, colour, fmt="{:g}", every=0):
    """Labels the whole decades of a contour set (every: each every-th
    level instead), each with a halo of the opposite shade so it reads on
    any colour of the map."""
    halo = "black" if colour == "white" else "white"
    which = levels[::every] if every else _decades(levels)
    texts = ax.clabel(cs, levels=which, fmt=fmt.format,
                      fontsize=6, colors=colour, inline_spacing=2)
    for t in texts:
        t.set_path_effects([patheffects.withStroke(linewidth=1.5,
                                                   foreground=halo)])
    return texts


def fig_forced_map(g):
    """(a) mean_v over forcing_freq x torque_amp (log colour), measured
    contours solid, the closed form's at the same levels dashed; (b) the
    closed form's relative error, log colour with its decades."""
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
        f"1, drag_w = 0.3, drag_v = 0.5; {sweep_text_of(s)}; forcing_freq "
        "and torque_amp are grid axes). The points' attractors: "
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


# ---- The path of a swimming sleigh and its period averages -------------

def _path(g, name):
    """A forced `point --trajectory` CSV and its JSON, with the section
    rows (those with x_avg, y_avg) and the rows per period."""
    c = read_csv(g.path(name + ".csv"))
    j = read_point_json(g.path(name + ".json"))
    sec = np.flatnonzero(np.isfinite(c["x_avg"]))
    return c, j, sec


def averaged_circle(c, j, sec):
    """The period-averaged path of a periodic forced trajectory from its
    path's last cycle (docs/theory/forcing.md, "The forced path"): the
    centre z_c of the cycle's rigid motion, the cycle's heading change,
    and the closed form of the averages' radius, sinc(Dphi/2) |<v
    e^(i theta)>| / |mean_omega|, with the bound of the terms it drops and
    the second-order 1 - Var(theta)/2 of mean_path_radius."""
    n, N = j["cycle_periods"], j["steps_per_period"]
    T = j["forcing"]["period"]
    k1, k0 = sec[-1], sec[-1 - n]
    z = c["x"] + 1j * c["y"]
    phi = c["phi"]
    dphi = phi[k1] - phi[k0]
    d = (z[k1] - z[k0]) * np.exp(-1j * phi[k0])
    zc = z[k0] + np.exp(1j * phi[k0]) * d / (1 - np.exp(1j * dphi))
    wbar = dphi / (n * T)
    r = slice(k0, k1 + 1)
    theta = phi[r] - phi[k0] - wbar * (c["t"][r] - c["t"][k0])
    u = c["v"][r] * np.exp(1j * theta)
    wt = np.ones(len(u))
    wt[0] = wt[-1] = 0.5  # the trapezoid over the periodic cycle
    ubar = np.sum(wt * u) / np.sum(wt)
    tbar = np.sum(wt * theta) / np.sum(wt)
    var = np.sum(wt * (theta - tbar) ** 2) / np.sum(wt)
    radius = abs(np.sinc(dphi / (2 * np.pi))) * abs(ubar) / abs(wbar)
    Om = 2 * np.pi / (n * T)
    bound = 4 * (wbar / (Om - abs(wbar))) ** 2 * \
        np.max(np.abs(u - ubar)) / abs(ubar)
    return {"zc": zc, "dphi": dphi, "mean_omega": wbar, "radius": radius,
            "bound": bound, "var": var, "N": N}


def _circle(ax, zc, r, **kw):
    a = np.linspace(0, 2 * np.pi, 721)
    return ax.plot(zc.real + r * np.cos(a), zc.imag + r * np.sin(a), **kw)[0]


def fig_forced_path(g):
    """(a) A swimming sleigh's path over its transient and one turn of the
    mean heading, the contact point's period averages (dots) on their
    circle about the cycle's centre, and the circle of mean_path_radius
    (dashed) about it; (b) the last periods closer."""
    c, j, sec = _path(g, "forced_swim")
    ac = averaged_circle(c, j, sec)
    zc, rbar = ac["zc"], abs(j["mean_path_radius"])
    settled = sec[j["transient_periods"]:]
    avg = c["x_avg"][settled] + 1j * c["y_avg"][settled]
    ravg = np.abs(avg[-8:] - zc)
    fig, axes, legend_ax = sswplot.figure_with_legend_row(
        sswplot.DOUBLE, 4.0, ncols=2)
    fig.set_layout_engine("constrained")
    ax, bx = axes[0]
    last = slice(sec[-4], sec[-1] + 1)  # (b): the last three periods
    for a, rows, av in ((ax, slice(None), avg), (bx, last, avg[-3:])):
        a.plot(c["x"][rows], c["y"][rows], color=BLUE, lw=0.6,
               label="contact point")
        a.plot(av.real, av.imag, "o", ms=2.5, color=ORANGE,
               label="period averages")
        _circle(a, zc, ravg[-1], color="0.35", lw=0.8,
                label="their circle about the cycle's centre")
        _circle(a, zc, rbar, color="black", lw=0.8, ls="--",
                label="radius mean_path_radius")
        a.set_aspect("equal")
        a.set_xlabel("x (length)")
        a.set_ylabel("y (length)")
    ax.plot([zc.real], [zc.imag], "+", color="black", ms=6)
    ax.plot([0], [0], "s", color=BLUE, ms=3)
    bx.plot(c["x"][sec[-4:]], c["y"][sec[-4:]], "x", color=BLUE, ms=4,
            label="sections t = kT")
    # (b)'s window: a square about the last periods and the dashed arc
    pts = c["x"][last] + 1j * c["y"][last]
    far = pts[len(pts) // 2] - zc
    pts = np.append(pts, zc + rbar * far / abs(far))
    mid = 0.5 * (pts.real.min() + pts.real.max()) + \
        0.5j * (pts.imag.min() + pts.imag.max())
    half = 0.6 * max(np.ptp(pts.real), np.ptp(pts.imag))
    bx.set_xlim(mid.real - half, mid.real + half)
    bx.set_ylim(mid.imag - half, mid.imag + half)
    ax.set_title("(a)", loc="left")
    bx.set_title("(b) the last 3 periods", loc="left")
    sswplot.legend_below(legend_ax, bx.get_lines(), 3)
    f = j["forcing"]
    ratio = ravg[-1] / rbar
    caption = (
        "The driven sleigh swimming: the contact point's path (`sleighsweep "
        "point --trajectory` under forcing) of the seed body with drag "
        "(drag_w = 0.3, drag_v = 0.5) driven by the sine torque "
        f"tau_0 = {f['torque_amp']:g} at Omega = {f['forcing_freq']:g}, "
        f"from rest at the origin (square) through {j['transient_periods']}"
        f" periods of transient onto a cycle of {j['cycle_periods']} "
        f"period, then {len(sec) - j['transient_periods']} periods on it "
        "(one turn of the mean heading). Dots: the contact point's average "
        "over each period after the transient (the CSV's x_avg, y_avg); "
        "they turn about one centre (+, the fixed point of the cycle's "
        "rigid motion, from the path's last cycle) on a circle of radius "
        f"{ravg[-1]:.4g} (solid), which the closed form of "
        "docs/theory/forcing.md, \"The forced path\", sinc(Dphi/2) "
        "|<v e^(i theta)>| / |mean_omega| (theta the heading's oscillation, "
        f"amplitude {j['amplitude_omega'] / f['forcing_freq']:.2f} rad), "
        f"gives to {abs(ravg[-1] / ac['radius'] - 1):.1e}. Dashed: "
        f"mean_path_radius = mean_v / mean_omega = {rbar:.4g}, the radius "
        "of the mean motion; the averaged path's is "
        f"{ratio:.3f} of it (second order in the heading's swing: "
        f"1 - Var(theta)/2 = {1 - ac['var'] / 2:.3f}). (b) The last three "
        "periods: the sleigh snakes along the averaged path; sections "
        "(x) and averages (dots) differ, which is why the engine never "
        "takes a mean from stroboscopic samples.")
    g.save(fig, "forced_path",
           "The driven sleigh: a swimming path and its period averages",
           caption)
    return {"x": c["x"], "y": c["y"], "avg": avg, "zc": zc,
            "radii": ravg, "closed": ac, "mean_path_radius": rbar,
            "lines": {ln.get_label(): ln for ln in ax.get_lines()}}


# ---- The Floquet moduli over forcing_freq x torque_amp ------------------

def rest_multipliers(ds, omega):
    """The moduli exp(Re lambda_i T) of the unforced damped sleigh's rest,
    lambda_i the eigenvalues of -K^-1 C (the dataset's tensor and drag
    attributes), descending, per forcing frequency: the limit of the
    cycle's multipliers as torque_amp -> 0 (docs/theory/forcing.md)."""
    J, M, L2 = (float(np.ravel(ds[k].values)[0]) for k in ("J", "M", "L2"))
    cw, cv, cwv = (float(ds.attrs[k])
                   for k in ("drag_w", "drag_v", "drag_wv"))
    K = np.array([[J, -L2], [-L2, M]])
    C = np.array([[cw, cwv], [cwv, cv]])
    re = np.sort(np.linalg.eigvals(-np.linalg.solve(K, C)).real)[::-1]
    return np.exp(np.outer(2 * np.pi / np.asarray(omega), re))


def _floquet(path):
    """(forcing_freq, torque_amp, moduli 1 and 2, their estimated errors,
    analytic_floquet_product, analytic_floquet_abs_1, the rest's moduli),
    the maps as (torque_amp, forcing_freq)."""
    ds = dataset.open(path, squeeze=True)
    try:
        def q(k):
            return ds[k].transpose("torque_amp", "forcing_freq").values
        om, tau = ds["forcing_freq"].values, ds["torque_amp"].values
        out = {"forcing_freq": om, "torque_amp": tau}
        for k in ("floquet_abs_1", "floquet_abs_2", "floquet_abs_1_error",
                  "floquet_abs_2_error", "analytic_floquet_product",
                  "analytic_floquet_abs_1"):
            out[k] = q(k)
        out["rest"] = rest_multipliers(ds, om)
    finally:
        ds.close()
    return out


def fig_forced_floquet(g):
    """(a) The larger Floquet modulus |mu_1| over forcing_freq x
    torque_amp; (b) both moduli against forcing_freq at three amplitudes
    with their torque -> 0 limit, the rest's exp(Re lambda_i T); (c) the
    departure of |mu_1| from that limit, growing as tau_0^2; (d) the
    exact product identity |mu_1 mu_2 / analytic_floquet_product - 1|."""
    s = g.path(SWEEPF)
    d = _floquet(s)
    om, tau, m1, m2 = (d[k] for k in ("forcing_freq", "torque_amp",
                                      "floquet_abs_1", "floquet_abs_2"))
    lim = np.broadcast_to(d["rest"][:, 0], m1.shape)
    dep = np.abs(m1 / lim - 1)
    prod = np.abs(m1 * m2 / d["analytic_floquet_product"] - 1)
    est = d["floquet_abs_1_error"] / m1 + d["floquet_abs_2_error"] / m2
    fig, axes = sswplot.figure(sswplot.DOUBLE, 5.6, ncols=2, nrows=2,
                               layout="constrained")
    (ax, lx), (bx, cx) = axes
    levels = [v for v in np.arange(0.1, 1.0, 0.1)
              if np.nanmin(m1) < v < np.nanmax(m1)]
    pm = ax.pcolormesh(om, tau, m1, shading="nearest", cmap="viridis")
    cl = ax.contour(om, tau, m1, levels=levels, colors="white",
                    linewidths=0.8)
    _label(ax, cl, levels, "white", fmt="{:.1f}", every=1)
    fig.colorbar(pm, ax=ax).set_label("$|\\mu_1|$")
    # (b) both moduli against Omega at three amplitudes, and the limit
    rows = (0, len(tau) // 2, len(tau) - 1)
    shades = ("#9ecae1", "#4a90c8", "#1f3f78")
    for i, col in zip(rows, shades):
        lx.plot(om, m1[i], "o-", color=col, ms=2.5, lw=0.8,
                label=f"$\\tau_0$ = {tau[i]:.2g}")
        lx.plot(om, m2[i], "s-", color=col, ms=2.5, lw=0.8)
    for k in (0, 1):
        lx.plot(om, d["rest"][:, k], color="black", lw=0.8, ls="--",
                label="rest: $e^{\\mathrm{Re}\\,\\lambda_i T}$"
                if k == 0 else None)
    lx.set_yscale("log")
    lx.set_ylabel("$|\\mu_1|$ (circles), $|\\mu_2|$ (squares)")
    lx.legend(loc="lower right", fontsize=7)
    rl = _levels(np.nanmin(dep), np.nanmax(dep))
    pb = bx.pcolormesh(om, tau, dep, shading="nearest",
                       norm=mcolors.LogNorm(), cmap="magma")
    cb = bx.contour(om, tau, dep, levels=rl, colors="white", linewidths=0.8)
    _label(bx, cb, rl, "white")
    fig.colorbar(pb, ax=bx).set_label(
        "$|\\mu_1 / e^{\\mathrm{Re}\\,\\lambda_1 T} - 1|$")
    pc = cx.pcolormesh(om, tau, np.maximum(prod, 1e-16), shading="nearest",
                       norm=mcolors.LogNorm(), cmap="cividis")
    fig.colorbar(pc, ax=cx).set_label(
        "$|\\mu_1\\mu_2/$analytic_floquet_product$ - 1|$")
    for a, tag in ((ax, "(a)"), (lx, "(b)"), (bx, "(c)"), (cx, "(d)")):
        a.set_xlabel(sswplot.axis_label("forcing_freq", units="time-1"))
        if a is not lx:
            a.set_ylabel("torque amplitude $\\tau_0$")
        a.set_title(tag, loc="left")
    small = slice(0, min(8, len(tau)))
    slopes = np.array([np.polyfit(np.log(tau[small]),
                                  np.log(dep[small, i]), 1)[0]
                       for i in range(len(om))])
    ratio = float(np.nanmax(prod / est))
    twin = "no closed form (NaN)" if np.all(np.isnan(
        d["analytic_floquet_abs_1"])) else "a closed form"
    caption = (
        "The driven sleigh's Floquet moduli over the sine torque's "
        "frequency Omega and amplitude tau_0 (the sweep of the speed map: "
        f"{sweep_text_of(s)}; every point a cycle of one period). (a) The "
        "larger modulus |mu_1| of the period map's two multipliers "
        "(colour, labelled contours): it is set mostly by Omega, through "
        "the period T = 2 pi / Omega over which the drag acts. (b) Both "
        "moduli against Omega at the smallest, a middle and the largest "
        "amplitude, and (dashed) their limit tau_0 -> 0, the unforced "
        "rest's exp(Re lambda_i T), lambda_i the eigenvalues of -K^-1 C "
        "(the linearisation about zeta = 0, where the gyroscopic term is "
        "quadratic; docs/theory/forcing.md, \"Closed forms beside the "
        "measurements\"). The file's analytic_floquet_abs_1 holds "
        f"{twin} here: the moduli's closed form is the kicked sleigh's "
        "with C = c K. (c) The departure |mu_1 / exp(Re lambda_1 T) - 1|, "
        f"up to {np.nanmax(dep):.2g}, grows as tau_0 to the power "
        f"{slopes.min():.2f} to {slopes.max():.2f} along each frequency "
        "(over the 8 smallest amplitudes; second order: the cycle's first "
        "harmonic does not move the multipliers at first order). (d) The "
        "exact product identity mu_1 mu_2 = exp(T (h.<zeta>/D - "
        "tr(K^-1 C))) (analytic_floquet_product, with the measured "
        "means): the relative deviation is at most "
        f"{np.nanmax(prod):.1e}, and at every point within the moduli's "
        f"estimated relative errors (at most {ratio:.2f} of their sum; "
        "the largest where Omega is low and |mu_2| small). Drawn from the "
        "file's floquet_abs_1, floquet_abs_2, their _error datasets and "
        "analytic_floquet_product.")
    g.save(fig, "forced_floquet",
           "The driven sleigh: Floquet moduli over Omega x tau_0", caption)
    return {"floquet_abs_1": m1, "floquet_abs_2": m2,
            "product": d["analytic_floquet_product"], "rest": d["rest"],
            "departure": dep, "deviation": prod, "estimate": est,
            "slopes": slopes, "analytic_floquet_abs_1":
            d["analytic_floquet_abs_1"]}


# ---- The energy growth of an undamped, accelerating sleigh --------------

def growth_law(c, j):
    """The period averages <H>_k of an accelerating path's H (trapezoid
    with the end correction, dH/dt = tau w), F_k = Arate^3/3 + Omega^2
    Arate with Arate = sqrt(2 <H>_k E) / D, t_k = (k + 1/2) T, and the
    least-squares line over the second half of the window (the
    extractor's fit, docs/theory/forcing.md "Growth without drag")."""
    f, N, T = j["forcing"], j["steps_per_period"], j["forcing"]["period"]
    h, K = T / N, (len(c["t"]) - 1) // N
    Hb = np.empty(K)
    for k in range(K):
        r = slice(k * N, (k + 1) * N + 1)
        H = c["H"][r]
        dH = f["torque_amp"] * np.sin(f["forcing_freq"] * (c["t"][r] - k * T)
                                      + f["forcing_phase"]) * c["omega"][r]
        Hb[k] = (h * (H.sum() - 0.5 * (H[0] + H[-1])) -
                 h * h / 12 * (dH[-1] - dH[0])) / T
    t = j["tensor"]
    D = t["M"] * t["J"] - t["L2"] ** 2
    E = t["J"] * t["Z"] ** 2 + 2 * t["Z"] * t["L1"] * t["L2"] + \
        t["M"] * t["L1"] ** 2
    A = np.sqrt(2 * Hb * E) / D
    F = A ** 3 / 3 + f["forcing_freq"] ** 2 * A
    tk = (np.arange(K) + 0.5) * T
    slope, icept = np.polyfit(tk[K // 2:], F[K // 2:], 1)
    return {"t": tk, "H": Hb, "F": F, "slope": slope, "intercept": icept}


def fig_forced_growth(g):
    """(a) The kinetic energy H(t) of an undamped sleigh under the sine
    torque (the CSV's H) and its period averages; (b) the growth law's
    F = Arate^3/3 + Omega^2 Arate from them against t, with the fitted
    line (energy_growth_slope) and the closed form's slope from rest."""
    c, j, _ = _path(g, "forced_growth")
    law = growth_law(c, j)
    an = j["analytic"]["energy_growth_slope"]
    fig, axes = sswplot.figure(sswplot.DOUBLE, 3.0, ncols=3,
                               layout="constrained")
    ax, bx, cx = axes[0]
    ax.plot(c["t"], c["H"], color=BLUE, lw=0.4, label="H(t), the CSV's")
    ax.plot(law["t"], law["H"], ".", color=ORANGE, ms=1.5,
            label="period averages $\\langle H\\rangle_k$")
    ax.set_xlabel("t (time)")
    ax.set_ylabel("kinetic energy H (mass length$^2$ time$^{-2}$)")
    ax.legend(loc="upper left", fontsize=7)
    K = len(law["t"])
    bx.plot(law["t"], law["F"], ".", color=ORANGE, ms=1.5,
            label="$F_k$ from $\\langle H\\rangle_k$")
    fit = law["intercept"] + law["slope"] * law["t"]
    bx.plot(law["t"][K // 2:], fit[K // 2:], color="black", lw=0.9,
            label="fitted (energy_growth_slope)")
    # the closed form's slope through the fitted line's centre: the law
    # fixes the slope; the offset is the forced oscillation's own energy
    tm = law["t"][K // 2:].mean()
    fm = law["intercept"] + law["slope"] * tm
    bx.plot(law["t"], fm + an * (law["t"] - tm), color=BLUE, lw=0.9,
            ls="--", label="closed form's slope")
    bx.set_xlabel("t (time)")
    bx.set_ylabel("$F = A^3/3 + \\Omega^2 A$, $A = \\sqrt{2HE}/D$")
    bx.legend(loc="upper left", fontsize=7)
    # (c) the local slope (F_{k+1} - F_{k-1}) / 2T settling on the law
    T = law["t"][1] - law["t"][0]
    local = (law["F"][2:] - law["F"][:-2]) / (2 * T)
    cx.plot(law["t"][1:-1], local / an - 1, ".", color=ORANGE, ms=1.5,
            label="$(F_{k+1} - F_{k-1}) / 2T$")
    cx.axhline(j["energy_growth_slope"] / an - 1, color="black", lw=0.9,
               label="energy_growth_slope")
    cx.axhline(0, color=BLUE, lw=0.9, ls="--", label="closed form")
    spread = abs(j["energy_growth_slope"] / an - 1)
    cx.set_ylim(-6 * spread, 5 * spread)
    cx.set_xlabel("t (time)")
    cx.set_ylabel("slope / closed form's $- 1$")
    cx.legend(loc="upper right", fontsize=7)
    for a, tag in ((ax, "(a)"), (bx, "(b)"), (cx, "(c)")):
        a.set_title(tag, loc="left")
    f = j["forcing"]
    caption = (
        "The driven sleigh without drag accelerates: the seed body from "
        f"rest under the sine torque tau_0 = {f['torque_amp']:g} at "
        f"Omega = {f['forcing_freq']:g} (attractor {j['attractor']}), "
        f"over the {K} periods of the extractor's growth window "
        "(`sleighsweep point --trajectory`). (a) The kinetic energy H "
        "at every node (the CSV's H) swings within each period; its "
        "period averages <H>_k (trapezoid sums with the end correction "
        "dH/dt = tau w) grow steadily. (b) The averaged law of "
        "docs/theory/forcing.md (\"Growth without drag\" and the growth "
        "slope among the closed forms): F = Arate^3/3 + Omega^2 Arate, "
        "Arate = sqrt(2 <H> E) / D, grows linearly in t. The slope fitted "
        "to the CSV's averages over the window's second half, "
        f"{law['slope']:.8g}, is the JSON's energy_growth_slope "
        f"({j['energy_growth_slope']:.8g}, relative difference "
        f"{abs(law['slope'] / j['energy_growth_slope'] - 1):.0e}: the same "
        "nodes); the closed form tau_0^2 (L1 M + Z L2)^2 / (2 D^3) = "
        f"{an:.8g} (dashed, through the fit's centre: the law fixes the "
        "slope, while F's offset is the energy of the forced oscillation "
        "itself, O(tau_0^2) from rest) differs from it by "
        f"{abs(j['energy_growth_slope'] / an - 1):.1e}, within its "
        "O(tau_0^2) relative error. (c) The local slope of F between "
        "neighbouring periods, relative to the closed form's: it rises "
        "towards the law as the energy grows, and the fit over the "
        "window's second half is its mean there.")
    g.save(fig, "forced_growth",
           "The driven sleigh without drag: energy growth against its law",
           caption)
    return {"t": c["t"], "H": c["H"], "law": law, "json":
            j["energy_growth_slope"], "analytic": an}
