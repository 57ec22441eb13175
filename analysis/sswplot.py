"""Figure style for the analysis scripts: journal single-column width
(3.4 in), 8 pt text, embedded TrueType fonts, angle axes in degrees or
multiples of pi, output format chosen by the file suffix."""
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, MultipleLocator  # noqa: E402

from sswfile import UsageError, pi_label  # noqa: E402

SINGLE = 3.4  # in, one journal column
DOUBLE = 7.0  # in, full page width
FORMATS = (".pdf", ".png", ".svg")
DPI = 300  # PNG resolution: 3.4 in -> 1020 px

STYLE = {
    "font.size": 8,
    "axes.labelsize": 8,
    "axes.titlesize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "axes.linewidth": 0.6,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.major.size": 3,
    "ytick.major.size": 3,
    "lines.linewidth": 1.0,
    "lines.markersize": 4,
    "legend.frameon": False,
    "legend.handlelength": 1.5,
    "mathtext.fontset": "dejavusans",
    "pdf.fonttype": 42,  # TrueType, editable text
    "ps.fonttype": 42,
    "svg.fonttype": "none",
    "savefig.dpi": DPI,
    "figure.dpi": 100,
    "figure.constrained_layout.use": True,
    "figure.constrained_layout.h_pad": 0.02,
    "figure.constrained_layout.w_pad": 0.02,
    "image.cmap": "viridis",
}


def setup():
    plt.rcParams.update(STYLE)


def check_out(path):
    """Refuses an output name whose suffix is not pdf, png or svg (before
    any work is done)."""
    if path is None:
        return
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise UsageError(f"--out {path}: unknown format '{ext or '(none)'}';"
                         " use .pdf, .png or .svg")
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise UsageError(f"--out {path}: directory {d} does not exist")


def figure(width=SINGLE, height=None, ncols=1, nrows=1, **kw):
    setup()
    if height is None:
        height = 0.78 * width / ncols * nrows + 0.3
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height),
                             squeeze=False, **kw)
    return fig, axes


def save(fig, path):
    """Saves at the figure's exact size (no tight bbox: the size is the
    journal's), PNG at 300 dpi."""
    check_out(path)
    meta = {"Creator": "sleighsweep analysis"}
    ext = os.path.splitext(path)[1].lower()
    if ext == ".png":
        meta = {"Software": "sleighsweep analysis"}
    elif ext == ".svg":
        meta = {"Creator": "sleighsweep analysis"}
    fig.savefig(path, metadata=meta)


def angle_axis(axis, lo, hi, angles="pi"):
    """Ticks of an axis in radians: multiples of pi (0, π/4, ...) or
    degrees, about 4-7 ticks over [lo, hi]."""
    span = max(hi - lo, 1e-12)
    if angles == "deg":
        steps = [1, 2, 5, 10, 15, 30, 45, 60, 90, 180, 360]
        step = next((s for s in steps if math.radians(span) and
                     span / math.radians(s) <= 7), 360)
        axis.set_major_locator(MultipleLocator(math.radians(step)))
        axis.set_major_formatter(FuncFormatter(
            lambda v, _: f"{round(math.degrees(v), 6):g}°"))
    else:
        steps = [math.pi / d for d in (24, 12, 8, 6, 4, 2, 1)] + [
            2 * math.pi, 4 * math.pi]
        step = next((s for s in steps if span / s <= 6), 4 * math.pi)
        if span / step < 2:  # too short a range for multiples of pi
            return angle_axis(axis, lo, hi, "deg")
        axis.set_major_locator(MultipleLocator(step))
        axis.set_major_formatter(FuncFormatter(
            lambda v, _: "$" + pi_label(v, tex=True) + "$"))


def unit_text(units):
    """File units ('mass length2') -> label text ('mass·length²')."""
    if not units or units == "1":
        return ""
    sup = {"2": "²", "3": "³", "-1": "⁻¹", "-2": "⁻²"}
    out = []
    for w in units.split():
        base = w.rstrip("-0123456789")
        exp = w[len(base):]
        out.append(base + sup.get(exp, exp))
    return "·".join(out)


LABEL_NAMES = {"theta": "blade angle", "a": "centre of mass",
               "b": "centre of mass, across", "r": "ellipse centre",
               "s": "ellipse centre, across", "A": "major semi-axis",
               "B": "minor semi-axis"}


def axis_label(axis, angles="pi", short=False, units=None):
    """'centre of mass $a$ (m)': the axis name, its symbol and the file's
    units of the coordinate ('length' when the run gave none)."""
    from sswfile import AXIS_SYMBOLS
    sym = f"${AXIS_SYMBOLS[axis]}$"
    if axis == "theta":
        # the ticks carry the unit (π/4 or 45°)
        return f"{LABEL_NAMES[axis]} {sym}" if not short else sym
    u = unit_text(units) if units else "length"
    return f"{LABEL_NAMES[axis]} {sym} ({u})" if not short else f"{sym} ({u})"
