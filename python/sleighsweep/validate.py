"""Measured vs closed form over a whole sweep file: limit radii
(radius_future, radius_past vs analytic_radius), centre spacing
(center_spacing vs analytic_center_spacing) and transition angle
(transition_angle vs analytic_transition_angle). Prints a table with the
maximum relative error of each and where it occurs, lists the non-converged
points (converged_fraction < 1 or a failure flag: forward_step_cap,
backward_step_cap, nonfinite, no_peak, near_critical, no_estimate,
energy_drift, cycle_not_closed, exponents_undecided: every flag but the
two below) and optionally draws a scatter plot
(--plot). Reads the file only. The flags equilibrium_start (a trajectory
whose initial state lies on the line of equilibria L1 omega + Z v = 0: a
steady motion, converged, left out of the ensemble's means) and
rtol_not_met (an error estimate above rtol after the reruns: the values are
kept and the comparison with the closed form decides) are not failures:
each gets a note counting the points that carry it, and the points are
listed with their flags, named from the file's flag_masks / flag_meanings.

Relative error |measured - closed| / |closed|; where the closed form is
0 (spin-reversal radius, uniform-motion spacing and angle; below 1e-9 of
the scale: a zero computed in round-off) the error is taken relative to
the body length sqrt(J/M) (lengths) or to pi (angles). With circulation
the per-side radii, the arc g < 0's spacing and transition angle, the
period and the heading per period are compared too, where the file has
them. A value above --tol at a point flagged rtol_not_met whose error is
within the engine's own estimate (the *_error dataset) is counted in a
note, not as a failure: the engine reported it. Points where the closed
form does not exist (NaN or infinite: no circles, Z = 0 radii, ...), and
with circulation an arc without trajectories, are skipped for that
quantity and counted; points not done are skipped and counted. A measured
value that is NaN or infinite where the closed form is finite counts as an
infinite error.

Exit status: 0 every error <= --tol and every point converged; 1 otherwise
(--allow-nonconverged: non-converged points only warn); 2 bad arguments or
an unusable file.
"""
import argparse
import math
import os
import sys
from dataclasses import dataclass, field


import numpy as np  # noqa: E402

from .sweep import REGIMES, Sweep, UsageError, fmt_value, say  # noqa: E402

# (measured, closed form, kind, short label, the engine's error estimate)
PAIRS = (
    ("radius_future", "analytic_radius", "length", "radius", "radius_error"),
    ("radius_past", "analytic_radius", "length", "radius", "radius_error"),
    ("center_spacing", "analytic_center_spacing", "length", "spacing",
     "center_spacing_error"),
    ("transition_angle", "analytic_transition_angle", "angle",
     "transition angle", "transition_angle_error"),
)
# With circulation (compared where the file has them): the limit radii
# per side, the arc g < 0's means, and the periodic motion's quantities.
CIRCULATION_PAIRS = (
    ("radius_future", "analytic_radius_future", "length", "radius",
     "radius_error"),
    ("radius_past", "analytic_radius_past", "length", "radius",
     "radius_error"),
    ("center_spacing_lower", "analytic_center_spacing_lower", "length",
     "spacing (g < 0)", None),
    ("transition_angle_lower", "analytic_transition_angle_lower", "angle",
     "transition angle (g < 0)", None),
    ("period", "analytic_period", "time", "period", "period_error"),
    ("heading_per_period", "analytic_heading_per_period", "angle",
     "heading per period", "heading_per_period_error"),
)
# Every other measured X with a closed form analytic_X in the file (the
# drag's decay rate, rest distance, heading and path length, the orbit
# radius and drift per period, the blade force, ...) is compared too
# (closed_form_pairs); these are compared as counts, not as numbers:
COUNTED = ("loops", "sense_future", "sense")
# lengths without a bound (the orbit radius grows as the heading per
# period goes to 0): their error relative to the closed form itself
RELATIVE = ("orbit_radius",)
# The orbit radius R = drift / (2 |sin(Delta/2)|) comes from the heading
# per period Delta: an error e of Delta moves it by R |cot(Delta/2)| e / 2,
# so near Delta = 2 pi k its error is compared at that scale.
CONDITIONED = {"orbit_radius": "analytic_heading_per_period"}


def conditioning(heading):
    """max(1, |cot(Delta/2)|): how much the orbit radius amplifies an
    error of the heading per period Delta."""
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.abs(np.cos(heading / 2) / np.sin(heading / 2))
    return np.where(np.isfinite(c), np.maximum(1.0, c), 1.0)


LABELS = {"blade_force_max": "blade force", "decay_rate": "decay rate",
          "rest_distance": "rest distance", "heading_total": "total heading",
          "path_length": "path length", "orbit_radius": "orbit radius",
          "drift_per_period": "drift per period"}
REGIME_CIRCLES = next(k for k, v in REGIMES.items()
                      if v == "circle_to_circle")
# The quantities measured per arc: True on g > 0, False on g < 0.
ARC_QUANTITIES = {"center_spacing": True, "transition_angle": True,
                  "center_spacing_lower": False,
                  "transition_angle_lower": False}
# every file has these (NaN where the closed form does not apply)
REQUIRED = tuple(sorted({p[0] for p in PAIRS} | {p[1] for p in PAIRS} |
                        {"converged_fraction", "flags", "J", "M"}))
# A closed form below this fraction of its scale (the body length, pi, the
# period itself) is a zero computed in round-off: compared as a zero.
ZERO_CLOSED = 1e-9
ZERO_FLOOR = 1e-17  # where a zero error sits on the log axis
PLOT_COLUMNS = 4  # panels per row of the --plot figure
PANEL_HEIGHT = 2.0  # in, per row of panels (one quantity row: 7 x 4 in)
LISTED = 20  # points listed by name at most (flagged, non-converged)


@dataclass
class Comparison:
    """One measured/closed-form pair over the file (the plotted data)."""
    measured_name: str
    analytic_name: str
    kind: str
    analytic: np.ndarray  # compared points only, flat
    measured: np.ndarray
    rel_err: np.ndarray
    where: list  # grid index tuples of the compared points
    skipped: int  # done points without a closed form
    label: str = ""  # the quantity in words (the plot's panel)
    units: str = ""  # the closed form's units attribute
    max_err: float = 0.0
    at: tuple = None
    above: int = 0
    # above --tol but within the engine's own error estimate at a point
    # flagged rtol_not_met: the engine said so, not a failure
    within_estimate: int = 0


@dataclass
class Report:
    path: str
    tol: float
    total: int
    done: int
    comparisons: list
    nonconverged: list = field(default_factory=list)  # (index, frac, flags)
    flag_names: dict = field(default_factory=dict)  # bit -> file's name
    # done points whose flags are all benign (BENIGN_FLAGS): (index, flags)
    flagged: list = field(default_factory=list)
    # benign flag name -> number of done points that carry it
    benign_counts: dict = field(default_factory=dict)
    equilibrium_starts: int = 0  # points with the flag equilibrium_start
    length_unit: str = "length"  # the file's units of lengths ('m')
    mismatches: dict = field(default_factory=dict)
    compared: int = 0  # values compared with a closed form, all pairs
    ok: bool = True
    fig: object = None


# Flags that are not a failure (docs/output.md lists every flag), and what
# the note about the points that carry them says.
BENIGN_FLAGS = ("equilibrium_start", "rtol_not_met")
BENIGN_NOTES = {
    "equilibrium_start": "trajectories that started on the line of "
    "equilibria (steady motions, converged, left out of the means)",
    "rtol_not_met": "an error estimate above rtol after the reruns at finer "
    "steps (values kept; the comparison with the closed form decides)",
}


def flag_names_of(flags, names):
    """The names of the bits set in `flags`, from the file's flag_masks /
    flag_meanings (`names`: bit -> name); a bit the file does not name is
    given as 'bit N'."""
    out = [m for b, m in sorted(names.items()) if b and flags & b]
    rest = flags & ~sum(names)
    bit = 1
    while rest >= bit:
        if rest & bit:
            out.append(f"bit {bit}")
        bit <<= 1
    return out


def flag_text(flags, names):
    """'40 (equilibrium_start rtol_not_met)'."""
    got = flag_names_of(flags, names)
    return f"{flags}" + (f" ({' '.join(got)})" if got else "")


def kind_of_units(units):
    """How a quantity's error is scaled: 'angle' (rad: by pi), 'length'
    (by the body length sqrt(J/M)), else 'time' (by the closed form)."""
    if units == "rad":
        return "angle"
    return "length" if units and units.split()[0] in (
        "length", "m", "cm", "mm", "km") and len(units.split()) == 1 \
        else "time"


def closed_form_pairs(f):
    """(measured, closed form, kind, label, error estimate) of every pair
    the file `f` (a FileView) has: PAIRS and CIRCULATION_PAIRS by name,
    then every X beside an analytic_X (COUNTED left to the mismatches)."""
    named = [p for p in PAIRS + CIRCULATION_PAIRS
             if p[0] in f and p[1] in f]
    seen = {p[0] for p in named} | {p[1] for p in named}
    more = []
    for ana in sorted(f.root.data_vars):
        meas = ana[len("analytic_"):]
        if not ana.startswith("analytic_") or ana in seen or \
                meas in seen or meas in COUNTED or meas not in f or \
                f[ana].dtype.kind != "f":
            continue
        est = meas + "_error"
        kind = ("time" if meas in RELATIVE else
                kind_of_units(f[ana].attrs.get("units")))
        more.append((meas, ana, kind,
                     LABELS.get(meas, meas.replace("_", " ")),
                     est if est in f else None))
    return named + more


def relative_error(measured, analytic, scale):
    diff = np.abs(measured - analytic)
    zero = np.abs(analytic) <= ZERO_CLOSED * scale
    denom = np.where(zero, scale, np.abs(analytic))
    err = diff / denom
    err[~np.isfinite(measured)] = np.inf
    return err


def validate(path, tol=1e-6, allow_nonconverged=False, plot=None,
             quiet=False):
    """Compares every done point of `path`; returns a Report (its
    comparisons hold the arrays plotted)."""
    if not (tol > 0 and math.isfinite(tol)):
        raise UsageError(f"--tol {tol}: expected a positive number")
    if plot is not None:
        from . import style as sswplot
        sswplot.check_out(plot or None)
    with Sweep(path, required=REQUIRED) as s:
        done = s.done(())
        J = np.asarray(s.f["J"].values, dtype=float)
        M = np.asarray(s.f["M"].values, dtype=float)
        length = np.sqrt(J / M)
        comps = []
        flags = np.asarray(s.f["flags"].values)
        flag_names = dict(s.categories("flags") or [])
        rtol_flag = sum(b for b, m in flag_names.items()
                        if m == "rtol_not_met")
        pairs = closed_form_pairs(s.f)
        # With circulation a point's trajectories split between the arcs
        # g > 0 (upper_fraction of them) and g < 0: an arc without any has
        # no measurement to compare.
        upper = (np.asarray(s.f["upper_fraction"].values, dtype=float)
                 if "upper_fraction" in s.f else None)
        for meas, ana, kind, label, est in pairs:
            m = np.asarray(s.f[meas].values, dtype=float)
            a = np.asarray(s.f[ana].values, dtype=float)
            has = done & np.isfinite(a)
            if upper is not None and meas in ARC_QUANTITIES:
                has &= ~(upper == (0.0 if ARC_QUANTITIES[meas] else 1.0))
            skipped = int(np.count_nonzero(done & ~np.isfinite(a)))
            scale = (length if kind == "length" else np.abs(a)
                     if kind == "time" else np.full(a.shape, math.pi))
            err = relative_error(m[has], a[has], scale[has])
            if meas in CONDITIONED and CONDITIONED[meas] in s.f:
                err = err / conditioning(np.asarray(
                    s.f[CONDITIONED[meas]].values, dtype=float))[has]
            where = [tuple(int(i) for i in w) for w in np.argwhere(has)]
            c = Comparison(meas, ana, kind, a[has], m[has], err, where,
                           skipped, label=label,
                           units=str(s.f[ana].attrs.get("units", "")))
            if err.size:
                k = int(np.argmax(err))
                c.max_err, c.at = float(err[k]), where[k]
                above = ~(err <= tol)
                if est is not None and est in s.f and rtol_flag:
                    e = np.asarray(s.f[est].values, dtype=float)[has]
                    told = (flags[has] & rtol_flag) != 0
                    ok = above & told & (np.abs(m[has] - a[has]) <= e)
                    c.within_estimate = int(np.count_nonzero(ok))
                    above &= ~ok
                c.above = int(np.count_nonzero(above))
            comps.append(c)
        frac = np.asarray(s.f["converged_fraction"].values, dtype=float)
        benign = sum(b for b, m in flag_names.items() if m in BENIGN_FLAGS)
        bad = done & (~(frac >= 1) | ((flags & ~benign) != 0))
        noncon = [(tuple(int(i) for i in w), float(frac[tuple(w)]),
                   int(flags[tuple(w)])) for w in np.argwhere(bad)]
        flagged = [(tuple(int(i) for i in w), int(flags[tuple(w)]))
                   for w in np.argwhere(done & ~bad & (flags != 0))]
        counts = {m: int(np.count_nonzero(done & ((flags & b) != 0)))
                  for b, m in sorted(flag_names.items())
                  if m in BENIGN_FLAGS}
        mism = {}
        for meas, ana in (("loops", "analytic_loops"),
                          ("sense_future", "analytic_sense")):
            if meas in s.f and ana in s.f and "regime" in s.f:
                mv, av = s.f[meas].values, s.f[ana].values
                # uniform motion: every state is an equilibrium, the sense
                # and loops of an ensemble are those of its initial states
                sel = done & (np.asarray(s.f["regime"].values) != 0)
                if upper is not None:  # the closed form's arc g > 0
                    sel &= upper > 0
                # no twin: -1 loops, or sense 0 where a transition between
                # circles always has one (circulation leaves them unset)
                sel &= ~((av == -1) if meas == "loops" else
                         ((av == 0) & (np.asarray(s.f["regime"].values) ==
                                       REGIME_CIRCLES)))
                mism[meas] = int(np.count_nonzero(sel & (mv != av)))
        coords = dict(s.coords)  # the file's axes, in order
        rep = Report(path=path, tol=tol, total=int(done.size),
                     done=int(np.count_nonzero(done)), comparisons=comps,
                     nonconverged=noncon, flag_names=flag_names,
                     flagged=flagged, benign_counts=counts,
                     mismatches=mism,
                     equilibrium_starts=counts.get("equilibrium_start", 0),
                     length_unit=s.units("analytic_radius"))
    # a file where nothing had a closed form to compare proves nothing
    rep.compared = sum(len(c.where) for c in comps)
    rep.ok = rep.compared > 0 and all(c.above == 0 for c in comps) and (
        allow_nonconverged or not noncon)
    if not quiet:
        print_report(rep, coords)
    if plot is not None:  # "": drawn, not saved (sleighsweep.plot)
        rep.fig = plot_report(rep, plot)
        if not quiet and plot:
            say(f"wrote {plot}")
    return rep


def where_text(index, coords):
    if index is None:
        return "-"
    return ", ".join(f"{a}={fmt_value(a, coords[a][i])}"
                     for a, i in zip(coords, index) if len(coords[a]) > 1) \
        or "the only point"


def print_report(rep, coords):
    say(f"{rep.path}: {rep.total} grid points, {rep.done} done, "
        f"{rep.total - rep.done} not done (skipped)")
    head = (f"{'measured':<17} {'closed form':<26} {'compared':>8} "
            f"{'no closed form':>14} {'max rel. error':>14} {'> tol':>5}  "
            "worst point")
    say(head)
    say("-" * len(head))
    for c in rep.comparisons:
        err = f"{c.max_err:.3g}" if c.where else "-"
        say(f"{c.measured_name:<17} {c.analytic_name:<26} {len(c.where):>8} "
            f"{c.skipped:>14} {err:>14} {c.above:>5}  "
            f"{where_text(c.at, coords)}")
    used = [c for c in rep.comparisons if c.where]
    unused = list(dict.fromkeys(c.measured_name for c in rep.comparisons
                                if not c.where and not any(
                                    d.where and d.measured_name ==
                                    c.measured_name
                                    for d in rep.comparisons)))
    say("compared with a closed form: " + (", ".join(
        f"{c.measured_name} ({len(c.where)})" for c in used) or "nothing"))
    if unused:
        say("closed form NaN at every done point (not compared): " +
            ", ".join(unused))
    if not rep.compared:
        say("FAIL: no quantity of this file has a finite closed form at a "
            "done point: nothing was validated")
    worst = max((c.max_err for c in rep.comparisons if c.where), default=0)
    above = sum(c.above for c in rep.comparisons)
    say(f"maximum relative error {worst:.3g} (tolerance {rep.tol:g}): "
        + ("within tolerance" if above == 0 else
           f"{above} value(s) above tolerance"))
    told = sum(c.within_estimate for c in rep.comparisons)
    if told:
        say(f"note: {told} value(s) above tolerance but within the engine's "
            "error estimate at points flagged rtol_not_met (the engine "
            "said so): not failures")
    for name, n in rep.mismatches.items():
        if n:
            say(f"note: {name} differs from its closed form at {n} point(s) "
                "(outside uniform motion)")
    for name, n in rep.benign_counts.items():
        if n:
            say(f"note: {n} point(s) with flag {name}: "
                f"{BENIGN_NOTES.get(name, name)}; not a failure")
    if rep.flagged:
        say(f"points with flags that are not failures: {len(rep.flagged)}")
        for idx, flags in rep.flagged[:LISTED]:
            say(f"  {where_text(idx, coords)}: flags "
                f"{flag_text(flags, rep.flag_names)}")
        if len(rep.flagged) > LISTED:
            say(f"  ... and {len(rep.flagged) - LISTED} more")
    say(f"non-converged points (converged_fraction < 1 or a failure flag): "
        f"{len(rep.nonconverged)}")
    for idx, frac, flags in rep.nonconverged[:LISTED]:
        say(f"  {where_text(idx, coords)}: converged_fraction {frac:.3g}, "
            f"flags {flag_text(flags, rep.flag_names)}")
    if len(rep.nonconverged) > LISTED:
        say(f"  ... and {len(rep.nonconverged) - LISTED} more")
    say("PASS" if rep.ok else "FAIL")


def plot_report(rep, out):
    from . import style as sswplot
    groups = {}
    for c in rep.comparisons:  # the quantities compared somewhere
        if c.where:
            groups.setdefault(c.label, []).append(c)
    ncols = max(1, min(PLOT_COLUMNS, len(groups)))
    nrows = 2 * max(1, math.ceil(len(groups) / ncols))
    fig, axes = sswplot.figure(sswplot.DOUBLE, PANEL_HEIGHT * nrows,
                               ncols=ncols, nrows=nrows)
    markers = {"radius_future": ("o", "future"), "radius_past": ("x", "past")}
    for k, (label, comps) in enumerate(groups.items()):
        top = axes[2 * (k // ncols)][k % ncols]
        bot = axes[2 * (k // ncols) + 1][k % ncols]
        unit = (sswplot.unit_text(rep.length_unit) or "length"
                if comps[0].kind == "length" else
                sswplot.unit_text(comps[0].units) or "1")
        lo, hi = np.inf, -np.inf
        named = set()
        for c in comps:
            mk, lab = markers.get(c.measured_name, ("o", None))
            lab = None if lab in named else lab  # future/past once
            named.add(lab)
            good = c.rel_err <= rep.tol
            kw = dict(s=9, lw=0.6, marker=mk)
            style = dict(facecolors="none", edgecolors="#1f5fa8") \
                if mk == "o" else dict(c="#1f5fa8")
            top.scatter(c.analytic[good], np.where(
                np.isfinite(c.measured[good]), c.measured[good], np.nan),
                label=lab, **kw, **style)
            top.scatter(c.analytic[~good], c.measured[~good], c="#d1495b",
                        **kw)
            e = np.clip(c.rel_err, ZERO_FLOOR, None)
            bot.scatter(c.analytic[good], e[good], **kw, **style)
            bot.scatter(c.analytic[~good], np.where(np.isfinite(e[~good]),
                                                    e[~good], 1e3),
                        c="#d1495b", **kw)
            if c.analytic.size:
                lo = min(lo, np.nanmin(c.analytic))
                hi = max(hi, np.nanmax(c.analytic))
        if np.isfinite(lo):
            top.plot([lo, hi], [lo, hi], color="0.4", lw=0.6, zorder=0)
        bot.axhline(rep.tol, color="#d1495b", lw=0.8, ls="--",
                    label=f"tolerance {rep.tol:g}")
        bot.set_yscale("log")
        bot.set_ylim(ZERO_FLOOR / 3, max(10 * rep.tol, 1e-2))
        n = sum(len(c.where) for c in comps)
        sk = sum(c.skipped for c in comps)
        top.set_title(f"{label}\n{n} compared, {sk} skipped", fontsize=7)
        top.set_xlabel(f"closed form ({unit})")
        top.set_ylabel(f"measured ({unit})")
        bot.set_xlabel(f"closed form ({unit})")
        bot.set_ylabel("relative error")
        if any(markers.get(c.measured_name, ("o", None))[1]
               for c in comps):
            top.legend(loc="upper left")
    for k in range(len(groups), ncols * nrows // 2):
        axes[2 * (k // ncols)][k % ncols].axis("off")
        axes[2 * (k // ncols) + 1][k % ncols].axis("off")
    if not groups:
        axes[0][0].text(0.5, 0.5, "nothing compared: no finite closed form",
                        ha="center", va="center",
                        transform=axes[0][0].transAxes)
    else:
        axes[1][0].legend(loc="upper left")
    fig.suptitle(f"{os.path.basename(rep.path)}: {rep.done} of {rep.total} "
                 f"points done; skipped: no closed form (NaN or inf); "
                 f"errors of 0 drawn at {ZERO_FLOOR:g}",
                 fontsize=7)
    if out:
        sswplot.save(fig, out)
    return fig


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="validate.py",
        description="Compare measured radius, centre spacing and transition "
        "angle with the closed form stored beside them, over a whole "
        "sleighsweep file. Exit 0 when every relative error is <= --tol and "
        "every point converged, 1 otherwise, 2 on bad arguments or an "
        "unusable file.")
    ap.add_argument("file", metavar="FILE", help="sleighsweep output file")
    ap.add_argument("--tol", type=float, default=1e-6,
                    help="largest relative error accepted [1e-6]")
    ap.add_argument("--plot", metavar="OUT",
                    help="also draw measured vs closed form and the relative "
                    "errors (.pdf, .png or .svg)")
    ap.add_argument("--allow-nonconverged", action="store_true",
                    help="non-converged points warn instead of failing")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        rep = validate(args.file, args.tol, args.allow_nonconverged,
                       args.plot)
    except UsageError as e:
        print(f"validate.py: error: {e}", file=sys.stderr)
        return 2
    return 0 if rep.ok else 1


if __name__ == "__main__":
    sys.exit(main())
