"""The search for chaos in the driven sleigh (docs/chaos.md): the Lyapunov
chart (the largest exponent lyapunov_max of a sweep over two forcing
parameters, a diverging colour scale centred at 0, the points whose
exponent is zero within ZERO_SIGMAS times its error hatched, those
without an exponent grey) and the Poincare sections of chosen grid points
(the sweep's /samples at a forced point). `chart` and `sections` take
any sweep file (analysis/chaos_search.sh draws its search sweeps with
them); `confirm` reruns a sweep's points with `sleighsweep point` at a
tighter rtol and a longer budget and reads their spectra. The gallery's
figures (gallery.FIGURES) read the sweep analysis/figures.sh writes."""
import json
import math
import subprocess

import matplotlib.colors as mcolors
import matplotlib.patches as mpatches
import matplotlib.ticker as mticker
import numpy as np

from . import dataset
from . import style as sswplot

SWEEPL = "chaos_omega_amp.h5"  # forcing_freq x mass_amp (figures.sh)
ZERO_SIGMAS = 3  # |lambda_max| <= 3 x its error: zero within error
NONE_GREY = "0.78"  # the cells without an exponent
HATCH = "////"
# a point run's options from the sweep's names (sleighsweep point --help)
POINT_KEYS = ("theta", "a", "b", "r", "s", "A", "B", "m", "I0", "rho",
              "Gamma", "drag_w", "drag_v", "drag_wv", "forcing_freq",
              "torque_amp", "forcing_phase", "mass_p", "mass_x", "mass_y",
              "mass_amp")


def sign_class(lam, err, sigmas=ZERO_SIGMAS):
    """-1 (negative beyond sigmas x err), 0 (zero within it), +1
    (positive beyond it), NaN where there is no exponent."""
    lam, err = np.asarray(lam, float), np.asarray(err, float)
    out = np.where(np.abs(lam) <= sigmas * err, 0.0, np.sign(lam))
    return np.where(np.isfinite(lam) & np.isfinite(err), out, np.nan)


def chart_data(path, x, y):
    """The sweep's exponents as (y, x) maps: {x, y (axis values), units,
    lyapunov_max, lyapunov_max_error, floquet_abs_1, floquet_abs_1_error,
    cycle_periods, attractor (strings), period (2 pi / forcing_freq),
    fixed (the constant parameters), trajectories}."""
    ds = dataset.open(path, squeeze=True)
    try:
        def q(k):  # a census dataset: its slot 0, the point's attractor
            v = ds[k]
            if "attractor_slot" in v.dims:
                v = v.isel(attractor_slot=0)
            return v.transpose(y, x).values
        out = {"x": ds[x].values, "y": ds[y].values, "xname": x,
               "yname": y, "units": {k: ds[k].attrs.get("units", "")
                                     for k in (x, y, "lyapunov_max")},
               "fixed": ds.ssw.fixed(),
               "trajectories": int(ds.attrs["trajectories"])}
        for k in ("lyapunov_max", "lyapunov_max_error", "floquet_abs_1",
                  "floquet_abs_1_error", "cycle_periods", "attractor",
                  "attractor_fraction", "mean_v"):
            out[k] = q(k)
        om = ds["forcing_freq"].broadcast_like(ds["lyapunov_max"])
        out["period"] = 2 * np.pi / om.transpose(y, x).values
    finally:
        ds.close()
    out["sign"] = sign_class(out["lyapunov_max"], out["lyapunov_max_error"])
    return out


def _edges(v):
    """Cell edges about the axis values: geometric midpoints on a
    log-spaced axis (positive, ratios constant), arithmetic otherwise."""
    v = np.asarray(v, float)
    if len(v) == 1:
        return np.array([v[0] * 0.9, v[0] * 1.1]) if v[0] else \
            np.array([-0.5, 0.5])
    logs = np.all(v > 0) and np.allclose(np.diff(np.log(v)),
                                         np.log(v[1] / v[0]), rtol=1e-6)
    w = np.log(v) if logs else v
    mid = 0.5 * (w[1:] + w[:-1])
    e = np.concatenate([[2 * w[0] - mid[0]], mid, [2 * w[-1] - mid[-1]]])
    return np.exp(e) if logs else e


def is_log_axis(v):
    v = np.asarray(v, float)
    return len(v) > 2 and np.all(v > 0) and np.allclose(
        np.diff(np.log(v)), np.log(v[1] / v[0]), rtol=1e-6)


NICE = (0.1, 0.2, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 20, 30, 50, 100)


def _plain_log_ticks(axis, lo, hi, most=5):
    """Plain numbers (0.3, 1, 3) at a few round values on a log axis
    spanning less than a few decades (10^x labels crowd there)."""
    vals = [v for v in NICE if lo <= v <= hi]
    if len(vals) > most:
        vals = vals[::2]
    axis.set_major_locator(mticker.FixedLocator(vals))
    axis.set_major_formatter(mticker.FormatStrFormatter("%g"))
    axis.set_minor_formatter(mticker.NullFormatter())


def chart(ax, d, scale=None):
    """Draws the Lyapunov chart of chart_data `d` into `ax`: lyapunov_max
    on a diverging map symmetric about 0 (to +-scale, default the largest
    |lyapunov_max|), cells zero within ZERO_SIGMAS x error hatched, cells
    without an exponent grey. Returns the mesh (for a colour bar)."""
    lam = d["lyapunov_max"]
    big = float(np.nanmax(np.abs(lam))) if np.any(np.isfinite(lam)) else 1
    scale = scale or big
    xe, ye = _edges(d["x"]), _edges(d["y"])
    ax.set_facecolor(NONE_GREY)
    pm = ax.pcolormesh(xe, ye, np.ma.masked_invalid(lam), shading="flat",
                       cmap="RdBu_r", norm=mcolors.Normalize(-scale, scale))
    for i, j in zip(*np.nonzero(d["sign"] == 0)):
        ax.add_patch(mpatches.Rectangle(
            (xe[j], ye[i]), xe[j + 1] - xe[j], ye[i + 1] - ye[i],
            fill=False, hatch=HATCH, lw=0, edgecolor="black"))
    for axis, scale_of, e, v in ((ax.xaxis, ax.set_xscale, xe, d["x"]),
                                 (ax.yaxis, ax.set_yscale, ye, d["y"])):
        if is_log_axis(v):
            scale_of("log")
            _plain_log_ticks(axis, e[0], e[-1])
    ax.set_xlim(xe[0], xe[-1])
    ax.set_ylim(ye[0], ye[-1])
    ax.set_xlabel(sswplot.axis_label(d["xname"], units=d["units"][
        d["xname"]]))
    ax.set_ylabel(sswplot.axis_label(d["yname"], units=d["units"][
        d["yname"]]))
    return pm


def chart_handles(d):
    """Legend entries for the hatched and the grey cells, with their
    counts in the chart `d`."""
    zero = int(np.count_nonzero(d["sign"] == 0))
    none = int(np.count_nonzero(np.isnan(d["sign"])))
    return [mpatches.Patch(facecolor="white", edgecolor="black",
                           hatch=HATCH, label="zero within "
                           f"{ZERO_SIGMAS}x its error ({zero})"),
            mpatches.Patch(facecolor=NONE_GREY, edgecolor="black",
                           label=f"no exponent stored ({none})")]


def summary(d):
    """Counts and extremes of a chart: points, with an exponent, positive
    / zero / negative beyond the error, the largest exponent and its
    error, the attractors met."""
    lam, s = d["lyapunov_max"], d["sign"]
    k = np.nanargmax(lam) if np.any(np.isfinite(lam)) else None
    at = np.unique(d["attractor"].astype(str))
    return {"points": lam.size, "measured": int(np.isfinite(s).sum()),
            "positive": int((s == 1).sum()), "zero": int((s == 0).sum()),
            "negative": int((s == -1).sum()),
            "max": float(lam.flat[k]) if k is not None else math.nan,
            "max_error": float(d["lyapunov_max_error"].flat[k])
            if k is not None else math.nan,
            "attractors": [a for a in at if a]}


# ---- Poincare sections from /samples ------------------------------------

def sections(path):
    """The /samples group's section rows: {point (flat indices), the grid
    coordinates of each chosen point (name -> array), t, omega, v, phi
    (point, sample, node)}. At a forced point the rows are the period
    map's points, T apart (docs/output.md, "Sample trajectories")."""
    sm = dataset.open(path, group="samples")
    try:
        out = {"point": sm["point"].values.astype(int)}
        for k in ("t", "omega", "v", "phi", "x", "y"):
            out[k] = sm[k].values
        out["coords"] = {c: sm[c].values for c in sm.coords
                         if c not in ("point", "sample", "node")}
    finally:
        sm.close()
    return out


def repeat_defect(w, v, n, scale):
    """max over the section rows k >= n of |(w, v)_k - (w, v)_(k-n)| /
    scale over the last 8 n finite rows: how well the sections repeat
    with period n (0 on a cycle of n periods, up to the cycle's
    polish)."""
    ok = np.isfinite(w) & np.isfinite(v)
    w, v = w[ok][-8 * n - n:], v[ok][-8 * n - n:]
    d = np.hypot(w[n:] - w[:-n], v[n:] - v[:-n])
    return float(np.max(d)) / scale


def decay_rate(w, v, n, period, skip=0.25, floor=1e-9):
    """The rate at which a periodic trajectory's section points approach
    their cycle: the least-squares slope of ln |x_k - x_last| against
    t_k = k T over the rows from `skip` of the way in until the distance
    falls below `floor` of the scale (the last rows are on the cycle to
    round-off). On a cycle of n periods with multipliers mu_i this is
    ln |mu_1| / (n T) = lambda_max (the slowest direction), asymptotically;
    None where too few rows remain."""
    ok = np.isfinite(w) & np.isfinite(v)
    w, v = w[ok], v[ok]
    k = np.arange(len(w))
    last = k[-n:]
    d = np.min([np.hypot(w - w[j], v - v[j]) for j in last], axis=0)
    scale = max(np.max(np.hypot(w, v)), 1e-300)
    keep = (k >= int(skip * len(w))) & (d > floor * scale)
    if np.count_nonzero(keep) < 8:
        return None
    return float(np.polyfit(k[keep] * period, np.log(d[keep]), 1)[0])


# ---- Confirming a sweep's points with `sleighsweep point` ----------------

def point_args(params, omega0=None, v0=None):
    """`sleighsweep point` options for one grid point's parameters."""
    out = []
    for k in POINT_KEYS:
        if k in params:
            out += ["--" + k.replace("_", "-"), repr(float(params[k]))]
    if omega0 is not None:
        out += ["--omega0", repr(float(omega0)), "--v0", repr(float(v0))]
    return out


def run_point(exe, params, rtol=1e-8, max_steps=4000000, extra=()):
    """One `sleighsweep point` of a grid point's parameters; returns its
    JSON (attractor, lyapunov, error_estimate.lyapunov,
    lyapunov_sum_defect)."""
    cmd = [exe, "point"] + point_args(params) + [
        "--rtol", repr(rtol), "--max-steps", str(int(max_steps))] + \
        list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def grid_params(path, where):
    """The parameters of the grid points where `where(ds)` (a boolean
    DataArray over the squeezed grid) holds: [{name: value}]."""
    ds = dataset.open(path, squeeze=True)
    try:
        fixed = ds.ssw.fixed()
        mask = where(ds)
        out = []
        for idx in zip(*np.nonzero(mask.values)):
            p = dict(fixed)
            for dim, i in zip(mask.dims, idx):
                p[dim] = float(ds[dim].values[i])
            out.append(p)
    finally:
        ds.close()
    return out


def verdict(j, sigmas=ZERO_SIGMAS):
    """A point JSON's largest exponent against its error: 'chaotic
    candidate' (positive beyond sigmas x error and not accelerating),
    'zero within error', 'negative' or 'no exponent'."""
    lam = j.get("lyapunov") or [None]
    err = (j.get("error_estimate") or {}).get("lyapunov") or [None]
    if lam[0] is None or err[0] is None:
        return "no exponent"
    s = sign_class(lam[0], err[0], sigmas)
    if s > 0 and j.get("attractor") != "accelerating":
        return "chaotic candidate"
    return "zero within error" if s == 0 else "negative"


# ---- The gallery's figures ----------------------------------------------

def _params_text(fixed, keys):
    return ", ".join(f"{k} = {fixed[k]:g}" for k in keys if k in fixed)


def fig_chaos_lyapunov(g):
    """(a) The Lyapunov chart of the moving mass over forcing_freq x
    mass_amp; (b) on its cycles, lyapunov_max against ln |mu_1| / (n T)
    of the same points' measured moduli (the identity the sweep meets)."""
    from .gallery_forced import sweep_text_of
    s = g.path(SWEEPL)
    d = chart_data(s, "forcing_freq", "mass_amp")
    sm = summary(d)
    fig, axes = sswplot.figure(sswplot.DOUBLE, 3.4, ncols=2,
                               layout="constrained")
    ax, bx = axes[0]
    pm = chart(ax, d)
    fig.colorbar(pm, ax=ax).set_label(
        "largest Lyapunov exponent $\\lambda_{max}$ (time$^{-1}$)")
    cyc = np.isfinite(d["floquet_abs_1"]) & (d["cycle_periods"] > 0)
    nT = d["cycle_periods"] * d["period"]
    ident = np.log(d["floquet_abs_1"]) / nT
    rel = np.full(d["lyapunov_max"].shape, np.nan)
    rel[cyc] = np.abs(d["lyapunov_max"][cyc] / ident[cyc] - 1)
    for n in np.unique(d["cycle_periods"][cyc]):
        on = cyc & (d["cycle_periods"] == n)
        bx.errorbar(-ident[on], -d["lyapunov_max"][on],
                    yerr=d["lyapunov_max_error"][on], fmt="o", ms=3,
                    lw=0.8, label=f"cycles of {int(n)} period(s)")
    lo = np.nanmin(-ident[cyc])
    hi = np.nanmax(-ident[cyc])
    bx.plot([lo, hi], [lo, hi], color="black", lw=0.7, ls="--",
            label="$\\lambda_{max} = \\ln|\\mu_1| / (nT)$")
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel("$-\\ln|\\mu_1| / (nT)$ (time$^{-1}$), "
                  "floquet_abs_1")
    bx.set_ylabel("$-\\lambda_{max}$ (time$^{-1}$)")
    ax.set_title("(a)", loc="left")
    bx.set_title("(b) on the cycles", loc="left")
    ax.legend(handles=chart_handles(d), loc="upper center", ncol=2,
              bbox_to_anchor=(0.5, -0.2), fontsize=7, borderaxespad=0)
    bx.legend(loc="upper left", fontsize=7)
    f = d["fixed"]
    caption = (
        "The search for chaos, the gallery's slice (docs/chaos.md has the "
        "whole search): the Lyapunov chart of the seed body (theta = 60 "
        "deg, a = 0.2, A = 0.5, B = 0.3) with weak drag ("
        f"{_params_text(f, ('drag_w', 'drag_v'))}) carrying a point mass "
        f"{f.get('mass_p', 0):g} (as heavy as the body) at mass_x = "
        f"{f.get('mass_x', 0):g} along the blade, oscillating across it "
        "as mass_amp sin(Omega t), over Omega x mass_amp "
        f"({sweep_text_of(s)}). (a) The largest Lyapunov exponent "
        "lyapunov_max of the period map (colour: a diverging scale "
        "symmetric about 0, red positive, blue negative; "
        f"hatched where |lambda_max| <= {ZERO_SIGMAS} lyapunov_max_error, "
        "zero within its error; grey where the sweep stores no exponent). "
        f"Of {sm['points']} points {sm['measured']} have an exponent: "
        f"{sm['negative']} negative beyond the error, {sm['zero']} zero "
        f"within it, {sm['positive']} positive; the largest is "
        f"{sm['max']:.3g} +- {sm['max_error']:.1g} per unit time. The "
        f"attractors met: {', '.join(sm['attractors'])}, of cycle "
        "length(s) "
        f"{', '.join(str(int(n)) for n in np.unique(d['cycle_periods'][cyc]))}"  # noqa: E501
        " forcing period(s)"
        + (": no chaos in this slice (the search finds it with "
           "circulation and with a heavier mass and weaker drag: "
           "docs/chaos.md, and chaos_attractor)" if sm["positive"] == 0
           else
           ": positive exponents (candidates for chaos, docs/chaos.md)")
        + ". The exponent grows more "
        "negative with Omega and with the amplitude (the cycle's larger "
        "speed meets more drag). (b) On every cycle the exponent is, by "
        "definition, ln |mu_1| / (n T) of the cycle's measured larger "
        "Floquet modulus floquet_abs_1 (n = cycle_periods, T = 2 pi / "
        "Omega): the points lie on the diagonal (largest relative "
        f"difference {np.nanmax(rel):.1e}; error bars: "
        "lyapunov_max_error). Drawn from the file's lyapunov_max, "
        "lyapunov_max_error, floquet_abs_1 and cycle_periods.")
    g.save(fig, "chaos_lyapunov",
           "The search for chaos: the Lyapunov chart of the moving mass",
           caption)
    return {"data": d, "summary": sm, "identity": ident, "relative": rel,
            "mesh": pm}


def _flat_index(d, i, j):
    """The flat grid index of the chart's cell (i: y, j: x), the samples'
    `point`: the squeezed grid is (x, y) in storage order when x comes
    first among the axes (forcing_freq before mass_amp), row-major."""
    return j * len(d["y"]) + i


def _pick(d):
    """The cells whose sections the figure draws: the longest cycle's
    cell of slowest contraction, and the period-1 cell of the largest
    amplitude at the highest frequency (fast contraction)."""
    lam, n = d["lyapunov_max"], d["cycle_periods"]
    nmax = np.nanmax(n)
    longest = np.where(n == nmax, lam, -np.inf)
    a = np.unravel_index(np.nanargmax(longest), lam.shape)
    b = (len(d["y"]) - 1, len(d["x"]) - 1)
    return [a, b]


def fig_chaos_poincare(g):
    """(a), (b) Poincare sections (omega, v at t = kT) of two grid points'
    sample trajectories, the transient's points coloured by k, onto the
    cycle's n points; (c) their distance from the cycle against t with
    the slope lambda_max of the sweep."""
    s = g.path(SWEEPL)
    d = chart_data(s, "forcing_freq", "mass_amp")
    sec = sections(s)
    fig, axes = sswplot.figure(sswplot.DOUBLE, 2.9, ncols=3,
                               layout="constrained")
    out = {"cells": [], "repeat": [], "decay": [], "lyapunov_max": [],
           "cycle_periods": [], "points": []}
    cx = axes[0][2]
    colours = ("#1f5fa8", "#e08a1e")
    for (i, j), ax, col, tag in zip(_pick(d), axes[0][:2], colours, "ab"):
        p = _flat_index(d, i, j)
        r = int(np.flatnonzero(sec["point"] == p)[0])
        n = int(d["cycle_periods"][i, j])
        T = float(d["period"][i, j])
        lam = float(d["lyapunov_max"][i, j])
        for k in range(sec["omega"].shape[1]):
            w, v = sec["omega"][r, k], sec["v"][r, k]
            ok = np.isfinite(w)
            sc = ax.scatter(w[ok], v[ok], c=np.arange(ok.sum()), s=6,
                            cmap="viridis", zorder=2)
            ax.plot(w[ok][-n:], v[ok][-n:], "o", ms=8, mfc="none",
                    color="#c8323c", zorder=3)
            scale = np.max(np.hypot(w[ok], v[ok]))
            out["repeat"].append(repeat_defect(w, v, n, scale))
            rate = decay_rate(w, v, n, T)
            out["decay"].append(rate)
            out["lyapunov_max"].append(lam)
            out["cycle_periods"].append(n)
            out["points"].append((w[ok], v[ok]))
            dist = np.min([np.hypot(w[ok] - w[ok][m], v[ok] - v[ok][m])
                           for m in range(-n, 0)], axis=0)
            t = np.arange(ok.sum()) * T
            pos = dist > 0
            cx.plot(t[pos], dist[pos], ".", ms=2, color=col, alpha=0.6,
                    label=f"({tag}) samples" if k == 0 else None)
        t0 = t[len(t) // 4]
        d0 = np.interp(t0, t[pos], dist[pos])
        cx.plot(t, d0 * np.exp(lam * (t - t0)), color="black", lw=0.8,
                ls="--" if tag == "a" else ":", zorder=4,
                label=f"$e^{{\\lambda_{{max}} t}}$ ({tag})")
        out["cells"].append((i, j))
        ax.set_xlabel("$\\omega$ at $t = kT$ (rad time$^{-1}$)")
        ax.set_ylabel("$v$ at $t = kT$ (length time$^{-1}$)")
        ax.set_title(f"({tag}) $\\Omega$ = {d['x'][j]:.3g}, mass_amp = "
                     f"{d['y'][i]:.3g}", loc="left", fontsize=8)
    fig.colorbar(sc, ax=axes[0][1]).set_label("section k (periods)")
    cx.set_yscale("log")
    cx.set_xlabel("t (time)")
    cx.set_ylabel("distance from the cycle's points")
    cx.set_title("(c)", loc="left")
    cx.legend(fontsize=6, loc="lower left")
    (ia, ja), (ib, jb) = out["cells"]
    caption = (
        "Poincare sections of the driven sleigh with the moving mass (the "
        "sweep of the Lyapunov chart; its /samples group, which at a "
        "forced point holds each sample trajectory's states at the "
        "sections t = kT, docs/output.md \"Sample trajectories\"). (a) At "
        f"Omega = {d['x'][ja]:.3g}, mass_amp = {d['y'][ia]:.3g}: the "
        "section points (omega, v) of the point's "
        f"{sec['omega'].shape[1]} sample trajectories, coloured by the "
        "period k, run through the transient onto a cycle of "
        f"{int(d['cycle_periods'][ia, ja])} forcing periods (circles: "
        "the last n points, which the later ones repeat: at most "
        f"{max(out['repeat'][:sec['omega'].shape[1]]):.1g} of the "
        "section's scale apart). (b) At "
        f"Omega = {d['x'][jb]:.3g}, mass_amp = {d['y'][ib]:.3g}: a cycle "
        f"of {int(d['cycle_periods'][ib, jb])} period, reached faster. "
        "(c) The section points' distance from the cycle's points against "
        "t: it falls as exp(lambda_max t) (dashed, the sweep's "
        "lyapunov_max through the points a quarter of the way in; fitted "
        "rates "
        + ", ".join(f"{r:.4g}" for r in out["decay"] if r is not None)
        + " against lyapunov_max "
        + ", ".join(f"{v:.4g}" for v in out["lyapunov_max"][::2])
        + "), until the stored path ends (its last cycles). A chaotic "
        "attractor would fill a fractal set here instead of n points.")
    g.save(fig, "chaos_poincare",
           "The search for chaos: Poincare sections of the moving mass",
           caption)
    return out


# ---- The search's report (analysis/chaos_search.sh) ---------------------

def search_data(path):
    """chart_data over the sweep's two swept axes."""
    ds = dataset.open(path, squeeze=True)
    try:
        x, y = ds.ssw.swept[:2]
    finally:
        ds.close()
    return chart_data(path, x, y)


# the point runs' verdicts drawn on a search's chart
VERDICT_MARKS = {"chaotic candidate": ("^", "#c8323c"),
                 "zero within error": ("o", "white"),
                 "negative": ("v", "#1f3f78"),
                 "no exponent": ("x", "black")}


def draw_chart(d, out, confirmed=()):
    """A search sweep's Lyapunov chart (chart_data `d`) with its `point`
    confirmations ([(params, JSON)]) marked by verdict, saved to `out`."""
    fig, axes = sswplot.figure(sswplot.SINGLE + 1.2, 3.6,
                               layout="constrained")
    ax = axes[0][0]
    pm = chart(ax, d)
    fig.colorbar(pm, ax=ax).set_label("$\\lambda_{max}$ (time$^{-1}$)")
    handles = chart_handles(d)
    for name, (mk, col) in VERDICT_MARKS.items():
        pts = [(p[d["xname"]], p[d["yname"]]) for p, j in confirmed
               if verdict(j) == name]
        if pts:
            xs, ys = zip(*pts)
            handles += ax.plot(xs, ys, mk, ms=5, mfc=col, mec="black",
                               mew=0.6, ls="none",
                               label=f"point: {name} ({len(pts)})")
    ax.legend(handles=handles, loc="upper center", ncol=1,
              bbox_to_anchor=(0.5, -0.22), fontsize=6, borderaxespad=0)
    sswplot.save(fig, out)
    import matplotlib.pyplot as plt
    plt.close(fig)


def candidates(d):
    """The cells a search confirms with `point`: no exponent stored
    (unresolved), or an exponent not negative beyond its error."""
    return list(zip(*np.nonzero(~(d["sign"] < 0))))


def confirm(path, d, exe, rtol=1e-8, max_steps=4000000, most=24):
    """`sleighsweep point` at the candidate cells of chart_data `d` (the
    sweep at `path`), at `rtol` with `max_steps`: [(params, JSON)]."""
    out = []
    for i, j in candidates(d)[:most]:
        p = dict(d["fixed"])
        p[d["xname"]], p[d["yname"]] = float(d["x"][j]), float(d["y"][i])
        out.append((p, run_point(exe, p, rtol, max_steps)))
    return out


def main(argv=None):
    """chaos_search.sh's report: per sweep file its chart (OUT/NAME.png),
    its counts and largest exponent, and the `point` runs confirming its
    candidates."""
    import argparse
    import os
    ap = argparse.ArgumentParser(prog="gallery_chaos")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--exe", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--max-steps", type=int, default=4000000)
    ap.add_argument("--most", type=int, default=24)
    a = ap.parse_args(argv)
    for f in a.files:
        stem = os.path.splitext(os.path.basename(f))[0]
        d = search_data(f)
        print(f"{stem}: {summary(d)}", flush=True)
        conf = confirm(f, d, a.exe, a.rtol, a.max_steps, a.most)
        draw_chart(d, os.path.join(a.out, stem + ".png"), conf)
        for p, j in conf:
            lam = j.get("lyapunov")
            err = (j.get("error_estimate") or {}).get("lyapunov")
            print(f"  point {d['xname']} = {p[d['xname']]:.6g}, "
                  f"{d['yname']} = {p[d['yname']]:.6g}: {j['attractor']} "
                  f"n = {j['cycle_periods']}, lyapunov {lam} +- {err}, "
                  f"sum defect {j.get('lyapunov_sum_defect')}: "
                  f"{verdict(j)}", flush=True)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main())


# ---- A chaotic attractor: the section's bands and their fold ------------

# figures.sh's point runs: the strange attractor (a longer and a shorter
# budget: two QR windows) and the four-band one
CHAOS_RUNS = ("chaos_strange", "chaos_strange_short", "chaos_band")


def bands(w, v, most=8, share=0.1):
    """The number m of bands the section points visit in turn: the
    smallest m whose classes k mod m spread less than `share` of the
    whole set's spread (1 if none)."""
    total = np.std(w) + np.std(v)
    for m in range(1, most + 1):
        within = np.mean([np.std(w[r::m]) + np.std(v[r::m])
                          for r in range(m)])
        if within < share * total:
            return m
    return 1


def fold(wk, wn):
    """The return map wn(wk) of one band, fitted by a quadratic: (its
    vertex, the band's range (lo, hi), the fit's largest residual over
    the band's range of wn). A vertex inside the range is a fold: the
    map is not invertible (two preimages), as in a chaotic band; on a
    torus the return map is a circle map, invertible."""
    c = np.polyfit(wk, wn, 2)
    res = np.max(np.abs(np.polyval(c, wk) - wn)) / np.ptp(wn)
    return -c[1] / (2 * c[0]), (float(wk.min()), float(wk.max())), \
        float(res)


def _section(g, name):
    """The section rows (omega, v) of a forced path CSV past its first
    eighth (the transient's approach), and that offset."""
    from .sweep import read_csv
    c = read_csv(g.path(name + ".csv"))
    sec = np.flatnonzero(np.isfinite(c["x_avg"]))
    k0 = len(sec) // 8
    return c["omega"][sec][k0:], c["v"][sec][k0:], k0


SHADES = ("#1f5fa8", "#e08a1e", "#2a9d4b", "#c8323c", "#7b4fa0",
          "#8c6d31", "#555555", "#d6609a")


def _section_axes(ax, w, v, m, k0, tag, what):
    for r in range(m):
        ax.plot(w[r::m], v[r::m], ".", ms=1.2, color=SHADES[r % 8])
    ax.set_xlabel("$\\omega$ at $t = kT$ (rad time$^{-1}$)")
    ax.set_ylabel("$v$ at $t = kT$ (length time$^{-1}$)")
    ax.set_title(f"({tag}) {what}: {len(w)} sections"
                 + (f", {m} bands" if m > 1 else ""), loc="left",
                 fontsize=8)


def fig_chaos_attractor(g):
    """(a) The Poincare section of the strange attractor the search found;
    (b) the four-band one's, bands coloured; (c) a band's return map
    after the bands' cycle, folded; (d) the largest exponent of every run
    with its error bars against 0."""
    from .sweep import read_point_json
    js = {n: read_point_json(g.path(n + ".json")) for n in CHAOS_RUNS}
    ws, vs, k0s = _section(g, CHAOS_RUNS[0])
    wb, vb, k0b = _section(g, CHAOS_RUNS[2])
    ms, mb = bands(ws, vs), bands(wb, vb)
    fig, axes = sswplot.figure(sswplot.DOUBLE, 5.6, ncols=2, nrows=2,
                               layout="constrained")
    (ax, bx), (cx, dx) = axes
    om = {n: js[n]["forcing"]["forcing_freq"] for n in CHAOS_RUNS}
    _section_axes(ax, ws, vs, ms, k0s, "a",
                  f"$\\Omega$ = {om[CHAOS_RUNS[0]]:.4g}")
    _section_axes(bx, wb, vb, mb, k0b, "b",
                  f"$\\Omega$ = {om[CHAOS_RUNS[2]]:.4g}")
    # the widest band's return map after mb periods
    r = int(np.argmax([np.ptp(wb[q::mb]) for q in range(mb)]))
    b = wb[r::mb]
    wk, wn = b[:-1], b[1:]
    vertex, (lo, hi), res = fold(wk, wn)
    cx.plot(wk, wn, ".", ms=2, color=SHADES[r % 8])
    xs = np.linspace(lo, hi, 200)
    cx.plot(xs, np.polyval(np.polyfit(wk, wn, 2), xs), color="black",
            lw=0.6, ls="--", label="quadratic fit")
    cx.plot([lo, hi], [lo, hi], color="0.5", lw=0.6, label="identity")
    cx.axvline(vertex, color="black", lw=0.5, ls=":")
    cx.set_xlabel("$\\omega_k$ (one band of (b))")
    cx.set_ylabel(f"$\\omega_{{k+{mb}}}$")
    cx.set_title(f"(c) (b)'s return map after {mb} periods", loc="left",
                 fontsize=8)
    cx.legend(fontsize=6, loc="lower left")
    runs = sorted(CHAOS_RUNS, key=lambda n: (om[n],
                                             js[n]["transient_periods"]))
    lam = [js[n]["lyapunov"][0] for n in runs]
    err = [js[n]["error_estimate"]["lyapunov"][0] for n in runs]
    for i, (l_, e_) in enumerate(zip(lam, err)):
        dx.errorbar([i], [l_], yerr=[ZERO_SIGMAS * e_], fmt="none",
                    ecolor="#9ecae1", lw=4,
                    label=f"$\\pm${ZERO_SIGMAS} error" if i == 0 else None)
        dx.errorbar([i], [l_], yerr=[e_], fmt="o", ms=4, color="#1f5fa8",
                    lw=1, capsize=2,
                    label="$\\lambda_1 \\pm$ error" if i == 0 else None)
    dx.axhline(0, color="black", lw=0.6)
    dx.set_xticks(range(len(runs)))
    dx.set_xticklabels([f"$\\Omega$ {om[n]:.3g}\nafter "
                        f"{js[n]['transient_periods']}" for n in runs],
                       fontsize=7)
    dx.set_xlim(-0.6, len(runs) - 0.4)
    top = max(lv + ZERO_SIGMAS * e_ for lv, e_ in zip(lam, err))
    dx.set_ylim(-0.3 * top, 1.1 * top)
    dx.set_ylabel("$\\lambda_1$ (time$^{-1}$)")
    dx.set_title("(d) largest exponent, QR window after period",
                 loc="left", fontsize=8)
    dx.legend(fontsize=6, loc="lower center", ncol=2)
    j = js[CHAOS_RUNS[0]]
    f, p = j["forcing"], j["params"]
    caption = (
        "Chaos in the hydrodynamic sleigh, found by the search "
        "(docs/chaos.md): the body with circulation (theta = 60 deg, a = "
        "0.2, b = 0.1, Model II r = 0.3, s = -0.2, Gamma = "
        f"{p['Gamma']:g}), weak drag (drag_w = drag_v = {p['drag_w']:g}) "
        f"and a point mass {f['mass_p']:g} (as heavy as the body) at "
        f"mass_x = {f['mass_x']:g}, oscillating across the blade with "
        f"amplitude {f['mass_amp']:g} (`sleighsweep point --trajectory`, "
        "rtol 1e-8, 4e6 base steps; attractor unresolved: no cycle of up "
        "to 8 periods, bounded). (a) The Poincare section (omega, v at t "
        f"= kT, past the first {k0s}) at Omega = "
        f"{om[CHAOS_RUNS[0]]:.6g}: a strange attractor, a set of "
        "stretched and folded layers. (b) At Omega = "
        f"{om[CHAOS_RUNS[2]]:.6g}: {mb} thin bands visited in turn. (c) "
        f"One band's return map omega_k -> omega_(k+{mb}) (the period map "
        f"applied {mb} times) is a fold (vertex {vertex:.4g} inside the "
        f"band's {lo:.4g} .. {hi:.4g}; the quadratic fits to {res:.1g} "
        "of its range): every value has two preimages, the map is not "
        "invertible, as in a chaotic band (a torus would give an "
        "invertible circle map). (d) The largest Lyapunov exponent "
        "lambda_1 (QR over 8 blocks of 16 periods from the run's last "
        "state, docs/theory/forcing.md) of every run, with the engine's "
        f"error estimate (dark) and {ZERO_SIGMAS} times it (light): "
        + "; ".join(
            f"Omega {om[n]:.4g} after {js[n]['transient_periods']} "
            f"periods {lv:.3g} +- {e_:.2g} ({lv / e_:.1f} errors)"
            for n, lv, e_ in zip(runs, lam, err))
        + ". Each run's exponents sum to the divergence identity's value "
        "within "
        f"{max(abs(js[n]['lyapunov_sum_defect']) for n in runs):.1g}.")
    g.save(fig, "chaos_attractor",
           "The search for chaos: chaotic attractors of the moving mass "
           "with circulation", caption)
    return {"strange": (ws, vs), "band": (wb, vb), "k0": (k0s, k0b),
            "bands": (ms, mb), "vertex": vertex, "range": (lo, hi),
            "residual": res, "lyapunov": lam, "error": err,
            "json": [js[n] for n in runs]}
