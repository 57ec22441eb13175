"""Reduced phase portrait in the (omega, v) plane (Fedorov & Garcia-Naranjo
2010, Fig. 2a): trajectories from `sleighsweep point --trajectory` CSVs
(each an arc of its energy ellipse J w^2 + M v^2 - 2 L2 w v = 2H), the line
of equilibria L1 w + Z v = 0, and the ends of every arc: unstable (open dot,
t -> -inf) and stable (filled dot, t -> +inf). The tensor comes from the
`sleighsweep point` JSON beside each CSV (or --json); all CSVs must share
one body. Reads the files only; exit status 2 on bad arguments or an
unusable file.
"""
import argparse
import math
import sys
from dataclasses import dataclass, field


import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from . import style as sswplot  # noqa: E402
from .sweep import UsageError, say  # noqa: E402
from .trajectory import PALETTE, load_csv  # noqa: E402


@dataclass
class Portrait:
    fig: object
    ax: object
    trajectories: list  # trajectory.Trajectory (omega, v as in the CSV)
    tensor: dict
    line: np.ndarray  # 2 x 2: ends of the drawn line of equilibria
    ellipses: list = field(default_factory=list)  # N x 2 per energy level
    stable: np.ndarray = None  # last node of each trajectory
    unstable: np.ndarray = None  # first node of each trajectory


def energy_ellipse(tensor, H, n=400):
    """Points of J w^2 + M v^2 - 2 L2 w v = 2 H."""
    K = np.array([[tensor["J"], -tensor["L2"]], [-tensor["L2"], tensor["M"]]])
    lam, vec = np.linalg.eigh(K)
    t = np.linspace(0, 2 * math.pi, n)
    circle = np.vstack([np.cos(t), np.sin(t)]) * np.sqrt(2 * H / lam)[:, None]
    return (vec @ circle).T


def plot_portrait(trajs, ax=None, out=None, arrows=True, ellipses=True,
                  title=None, width=sswplot.SINGLE, height=None):
    """Draws the portrait and returns a Portrait with the plotted data."""
    sswplot.check_out(out)
    if not trajs:
        raise UsageError("no trajectories to draw")
    tensors = [t.tensor for t in trajs]
    if any(t is None for t in tensors):
        raise UsageError("the tensor is unknown: give the `sleighsweep "
                         "point` JSON of every CSV (beside it or --json)")
    ref = tensors[0]
    for t, tr in zip(tensors, trajs):
        if any(abs(t[k] - ref[k]) > 1e-12 * (abs(ref[k]) + 1) for k in ref):
            raise UsageError(f"{tr.source}: another body than "
                             f"{trajs[0].source}; a portrait needs one body")
    if ax is None:
        fig, axes = sswplot.figure(width, height or 0.9 * width)
        ax = axes[0][0]
    else:
        fig = ax.figure
    L1, Z = ref["L1"], ref["Z"]
    pts = np.vstack([np.column_stack([t.omega, t.v]) for t in trajs])
    reach = 1.15 * np.max(np.abs(pts))
    res = Portrait(fig=fig, ax=ax, trajectories=trajs, tensor=ref,
                   line=np.zeros((2, 2)))
    if ellipses:
        levels = sorted({round(float(t.H[np.argmin(np.abs(t.t))]), 12)
                         for t in trajs})
        for H in levels:
            e = energy_ellipse(ref, H)
            res.ellipses.append(e)
            ax.plot(e[:, 0], e[:, 1], color="0.82", lw=0.6, zorder=1)
    # the line of equilibria, parameterised (w, v) = s (-Z, L1); s > 0 stable
    d = np.array([-Z, L1]) / math.hypot(Z, L1)
    res.line = np.array([-reach * d, reach * d])
    ax.plot(res.line[:, 0], res.line[:, 1], color="black", lw=0.9, zorder=2)
    for n, tr in enumerate(trajs):
        color = tr.color or PALETTE[n % len(PALETTE)]
        ax.plot(tr.omega, tr.v, color=color, lw=1.0, zorder=3,
                label=tr.label or None)
        if arrows:
            k = int(np.argmin(np.abs(tr.t)))
            k1 = min(k + 1, len(tr.t) - 1)
            ax.annotate("", xy=(tr.omega[k1], tr.v[k1]),
                        xytext=(tr.omega[k], tr.v[k]),
                        arrowprops=dict(arrowstyle="-|>,head_length=0.55,"
                                        "head_width=0.28", color=color,
                                        lw=0.8, shrinkA=0, shrinkB=0),
                        zorder=4)
    res.unstable = np.array([[t.omega[0], t.v[0]] for t in trajs])
    res.stable = np.array([[t.omega[-1], t.v[-1]] for t in trajs])
    ax.plot(res.unstable[:, 0], res.unstable[:, 1], "o", mfc="white",
            mec="black", ms=4, mew=0.8, zorder=5)
    ax.plot(res.stable[:, 0], res.stable[:, 1], "o", mfc="black",
            mec="black", ms=4, zorder=5)
    ax.axhline(0, color="0.6", lw=0.4, zorder=0)
    ax.axvline(0, color="0.6", lw=0.4, zorder=0)
    # label the two half-lines near their ends
    for sgn, text in ((1, "stable"), (-1, "unstable")):
        p = 0.8 * reach * sgn * d
        ax.annotate(text, p, xytext=(4, -8 if sgn > 0 else 4),
                    textcoords="offset points", fontsize=6.5)
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-reach, reach)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel(r"angular velocity $\omega$ (rad/time)")
    ax.set_ylabel(r"velocity along blade $v$ (length/time)")
    handles = [Line2D([], [], color="black", lw=0.9,
                      label=r"$L_1\omega + Zv = 0$ (equilibria)"),
               Line2D([], [], ls="none", marker="o", mfc="black",
                      mec="black", ms=4, label="stable end"),
               Line2D([], [], ls="none", marker="o", mfc="white",
                      mec="black", ms=4, label="unstable end")]
    if ellipses:
        handles.append(Line2D([], [], color="0.82", lw=0.6,
                              label="energy level $H$"))
    # below the axes, outside: a path may pass anywhere in the plane
    sswplot.fitted_legend(ax, handles, most=2, loc="upper center",
                          fontsize=6, bbox_to_anchor=(0.5, -0.16),
                          borderaxespad=0)
    if title:
        ax.set_title(title, fontsize=7, loc="left")
    if out:
        sswplot.save(fig, out)
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="portrait.py",
        description="Reduced phase portrait (omega, v) of `sleighsweep "
        "point --trajectory` CSVs with the line of equilibria and the "
        "stable/unstable ends. Exit status 2 on bad arguments or an "
        "unusable file.")
    ap.add_argument("csvs", nargs="+", metavar="CSV")
    ap.add_argument("--json", nargs="+", default=[], metavar="JSON",
                    help="`sleighsweep point` JSON per CSV, in order [the "
                    "CSV's name with .json]")
    ap.add_argument("--no-ellipses", action="store_true",
                    help="do not draw the energy levels")
    ap.add_argument("--title", help="title")
    ap.add_argument("--out", "-o", default="portrait.pdf",
                    help="output .pdf, .png or .svg [portrait.pdf]")
    ap.add_argument("--width", type=float, default=sswplot.SINGLE)
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        sswplot.check_out(args.out)
        if len(args.json) > len(args.csvs):
            raise UsageError("more --json files than CSVs")
        trajs = [load_csv(c, args.json[i] if i < len(args.json) else None)
                 for i, c in enumerate(args.csvs)]
        plot_portrait(trajs, out=args.out, ellipses=not args.no_ellipses,
                      title=args.title, width=args.width)
        say(f"wrote {args.out}")
    except UsageError as e:
        print(f"portrait.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
