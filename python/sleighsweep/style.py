"""Figure style for the analysis scripts: journal single-column width
(3.4 in), 8 pt text, embedded TrueType fonts, angle axes in degrees or
multiples of pi, output format chosen by the file suffix."""
import math
import os
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import (Formatter, FuncFormatter,  # noqa: E402
                               MaxNLocator, MultipleLocator)

from .sweep import UsageError, pi_label  # noqa: E402

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
    # a layout that does not fit is grown (keep_share), which detects the
    # collapse itself: the warning of the tries on the way is not news
    warnings.filterwarnings("ignore", message="constrained_layout not "
                            "applied because axes sizes collapsed")


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


TICK_SPACING_IN = 0.38  # room per tick label along an x axis, inches


def ticks_for(width_in, most=6):
    """How many tick intervals fit an axis `width_in` inches long (labels
    such as 5π/6 at 7 pt need about TICK_SPACING_IN each), 2 to `most`."""
    return max(2, min(most, int(width_in / TICK_SPACING_IN)))


def angle_axis(axis, lo, hi, angles="pi", most=6):
    """Ticks of an axis in radians: multiples of pi (0, π/4, ...) or
    degrees, at most `most` intervals over [lo, hi] (about 4-7 ticks by
    default; fewer for a narrow panel, see ticks_for)."""
    span = max(hi - lo, 1e-12)
    if angles == "deg":
        steps = [1, 2, 5, 10, 15, 30, 45, 60, 90, 180, 360]
        step = next((s for s in steps if math.radians(span) and
                     span / math.radians(s) <= most + 1), 360)
        axis.set_major_locator(MultipleLocator(math.radians(step)))
        axis.set_major_formatter(FuncFormatter(
            lambda v, _: f"{round(math.degrees(v), 6):g}°"))
    else:
        steps = [math.pi / d for d in (24, 12, 8, 6, 4, 2, 1)] + [
            2 * math.pi, 4 * math.pi]
        step = next((s for s in steps if span / s <= most), 4 * math.pi)
        if span / step < 2:  # too short a range for multiples of pi
            return angle_axis(axis, lo, hi, "deg", most)
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


def axis_label(axis, angles="pi", short=False, units=None):
    """'centre of mass $a$ (m)': the axis name, its symbol and the file's
    units of the coordinate ('length' when the run gave none)."""
    from .sweep import AXIS_SYMBOLS, LABEL_NAMES
    sym = f"${AXIS_SYMBOLS[axis]}$"
    if axis == "theta":
        # the ticks carry the unit (π/4 or 45°)
        return f"{LABEL_NAMES[axis]} {sym}" if not short else sym
    u = unit_text(units) if units else "length"
    return f"{LABEL_NAMES[axis]} {sym} ({u})" if not short else f"{sym} ({u})"


def fewer_ticks(axis, width_in):
    """A plain numeric axis: at most ticks_for(width_in) intervals at
    1-2-2.5-5 steps (a narrow panel gets fewer, so labels do not touch)."""
    axis.set_major_locator(MaxNLocator(ticks_for(width_in),
                                       steps=[1, 2, 2.5, 5, 10]))


class BlankFormatter(Formatter):
    """Another formatter's labels with those at the values `blank` left
    empty (the ticks stay): how declutter_xticks drops a label."""

    def __init__(self, inner, blank):
        self.inner, self.blank = inner, list(blank)

    def _blank(self, v):
        return any(abs(v - b) <= 1e-9 * max(1.0, abs(b)) for b in self.blank)

    def set_axis(self, axis):
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs):
        self.inner.set_locs(locs)

    def format_ticks(self, values):
        labels = self.inner.format_ticks(values)
        return ["" if self._blank(v) else t for v, t in zip(values, labels)]

    def __call__(self, x, pos=None):
        return "" if self._blank(x) else self.inner(x, pos)

    def get_offset(self):
        return self.inner.get_offset()


def close_boxes(a, b, pad):
    """Whether two label boxes (display Bboxes) overlap or come closer than
    `pad` pixels side by side (boxes of different rows never do)."""
    return (a.x0 < b.x1 + pad and b.x0 < a.x1 + pad and
            a.y0 < b.y1 and b.y0 < a.y1)


def declutter_xticks(axes, pad_pt=2.0):
    """Panels (a row of them, or several rows): lays the figure out and
    blanks every x tick label that would touch the one to its right
    (within the same panel or across the gap between two panels: the
    right edge of one and the left edge of the next). Scans from the
    right, so each panel keeps its first label. Returns the number of
    labels blanked."""
    fig = axes[0].figure
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in axes:
        lo, hi = sorted(ax.get_xlim())
        ticks = ax.xaxis.get_major_ticks()
        locs = ax.xaxis.get_majorticklocs()
        for tick, v in zip(ticks, locs):
            lab = tick.label1
            if not (lab.get_visible() and lab.get_text() and
                    lo - 1e-12 * abs(hi - lo) <= v <= hi + 1e-12 *
                    abs(hi - lo)):
                continue
            found.append((lab.get_window_extent(renderer), ax, float(v)))
    pad = pad_pt * fig.dpi / 72.0
    found.sort(key=lambda t: -t[0].x1)
    kept, drop = [], {}
    for bb, ax, v in found:
        if any(close_boxes(bb, k, pad) for k in kept):
            drop.setdefault(ax, []).append(v)
            continue
        kept.append(bb)
    for ax, vals in drop.items():
        fmt = ax.xaxis.get_major_formatter()
        if isinstance(fmt, BlankFormatter):
            fmt.blank += vals
        else:
            ax.xaxis.set_major_formatter(BlankFormatter(fmt, vals))
    return sum(len(v) for v in drop.values())


def touching_xticks(axes, pad_pt=1.0):
    """Pairs of visible x tick labels (over the panels `axes`) closer than
    pad_pt points: what declutter_xticks prevents (for tests)."""
    fig = axes[0].figure
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    boxes = []
    for ax in axes:
        lo, hi = sorted(ax.get_xlim())
        for tick, v in zip(ax.xaxis.get_major_ticks(),
                           ax.xaxis.get_majorticklocs()):
            lab = tick.label1
            if lab.get_visible() and lab.get_text() and lo <= v <= hi:
                boxes.append((lab.get_window_extent(renderer),
                              lab.get_text()))
    pad = pad_pt * fig.dpi / 72.0
    return [(a[1], b[1]) for k, a in enumerate(boxes) for b in boxes[k + 1:]
            if close_boxes(a[0], b[0], pad)]


def figure_with_legend_row(width, height, ncols=1, nrows=1,
                           per_column=False):
    """Panels in a grid and, below them, a thin row that holds one legend
    (per_column: one legend under each column): the legend sits outside
    every panel, so it never covers data (constrained layout gives the row
    the room the legend needs). Returns (fig, axes as rows of Axes, the
    legend row's Axes, or a list of one per column)."""
    setup()
    fig = plt.figure(figsize=(width, height))
    gs = fig.add_gridspec(nrows + 1, ncols,
                          height_ratios=[1] * nrows + [0.02])
    axes = [[fig.add_subplot(gs[r, c]) for c in range(ncols)]
            for r in range(nrows)]
    cells = [gs[nrows, c] for c in range(ncols)] if per_column else \
        [gs[nrows, :]]
    legend_axes = [fig.add_subplot(c) for c in cells]
    for a in legend_axes:
        a.axis("off")
    return fig, axes, legend_axes if per_column else legend_axes[0]


def legend_below(legend_ax, handles, ncol):
    """The legend of `handles` in the legend row of figure_with_legend_row,
    centred, `ncol` columns."""
    if not handles:
        return None
    return fitted_legend(legend_ax, handles, most=max(1, ncol),
                         loc="upper center", bbox_to_anchor=(0.5, 1.0),
                         borderaxespad=0, columnspacing=1.2,
                         handlelength=1.4)


TITLE_LINES = 4  # a title is wrapped to at most this many lines


def wrap_at(text):
    """The text on two lines: broken at its first '; ' (between the body
    constants and the fixed axes of a title), else at the ', ' nearest its
    middle; the text itself when it has neither."""
    k = text.find("; ")
    if k < 0:
        cuts = [i for i in range(len(text)) if text.startswith(", ", i)]
        if not cuts:
            return text
        k = min(cuts, key=lambda i: abs(i - len(text) / 2))
    return text[:k + 1] + "\n" + text[k + 2:]


def fit_titles(fig, texts):
    """Titles (Text artists) wider than the figure, measured on the laid-out
    figure, go on two lines (wrap_at), and a line still too wide is split
    again at its middle ', ' (at most TITLE_LINES lines). Returns how many
    were wrapped."""
    texts = [t for t in texts if t is not None and t.get_text()]
    if not texts:
        return 0
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    n = 0

    def too_wide(t):
        bb = t.get_window_extent(renderer)
        return bb.x0 < -0.5 or bb.x1 > fig.bbox.width + 0.5
    for t in texts:
        if not too_wide(t):
            continue
        n += 1
        if "\n" not in t.get_text():
            t.set_text(wrap_at(t.get_text()))
        while too_wide(t) and t.get_text().count("\n") + 1 < TITLE_LINES:
            lines = t.get_text().split("\n")
            k = max(range(len(lines)), key=lambda m: len(lines[m]))
            cut = wrap_at(lines[k].replace("; ", ", "))
            if "\n" not in cut:
                break
            lines[k] = cut
            t.set_text("\n".join(lines))
    return n


# ---- layouts that cannot collapse ----------------------------------------

MIN_SHARE = 1.0 / 3.0  # of the figure's width and height, per data axes
GROWTH = 1.2  # a figure grows by this factor per try (at most GROW_TRIES)
GROW_TRIES = 6


def shares(fig, axes):
    """(smallest width share, smallest height share) of the data `axes`
    in the laid-out figure; (0, 0) when constrained layout gave up (its
    "collapsed" warning: the positions are then not laid out at all)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.draw_without_rendering()
    if any("collapsed" in str(w.message) for w in caught):
        return 0.0, 0.0
    pos = [a.get_position() for a in axes]
    return (min(p.width for p in pos), min(p.height for p in pos))


def fitted_legend(parent, handles, most=4, room=0.96, **kw):
    """parent.legend(handles=handles, **kw) with the most columns (up to
    `most`) whose width stays within `room` of the figure's width, then a
    smaller font (6, 5 pt) while one column is still too wide: a legend
    in a row below the panels never widens the figure past its size (a
    colour bar beside the panels takes its margin from that row too:
    pass less room). Returns the Legend."""
    fig = parent.figure if hasattr(parent, "figure") and \
        parent.figure is not None else parent
    renderer = fig.canvas.get_renderer()
    limit = room * fig.bbox.width
    leg = None
    for n in range(max(1, min(most, len(handles))), 0, -1):
        if leg is not None:
            leg.remove()
        leg = parent.legend(handles=handles, ncol=n, **kw)
        if leg.get_window_extent(renderer).width <= limit:
            break
    for size in (6, 5):
        if leg.get_window_extent(renderer).width <= limit:
            break
        for t in leg.get_texts():
            t.set_fontsize(size)
    return leg


def keep_share(fig, axes, share=MIN_SHARE):
    """Grows the figure's height, then its width (GROWTH per try), while a
    data axes has less than `share` of either: what a long legend, a
    colour bar or a two-line title takes is added to the figure instead of
    being taken from the data. Returns the final (width, height) in."""
    for _ in range(GROW_TRIES):
        w, h = shares(fig, axes)
        if w >= share and h >= share:
            break
        fw, fh = fig.get_size_inches()
        # collapsed: the legend or the titles want more height first
        fig.set_size_inches(fw * (GROWTH if 0 < w < share else 1.0),
                            fh * (GROWTH if h < share else 1.0))
    return tuple(fig.get_size_inches())


def _legend_texts(leg):
    if leg is None or not leg.get_visible():
        return []
    return list(leg.get_texts()) + [leg.get_title()]


def text_artists(fig):
    """Every Text the figure draws: titles, axis labels, the tick labels
    within the view, offsets, annotations, legend entries and titles,
    the figure's own texts and suptitle (empty and hidden ones left out)."""
    out = list(fig.texts) + ([fig._suptitle] if fig._suptitle else [])
    for leg in fig.legends:
        out += _legend_texts(leg)
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison and not ax.texts and \
                ax.get_legend() is None:
            continue
        out += [ax.title, ax._left_title, ax._right_title] + list(ax.texts)
        out += _legend_texts(ax.get_legend())
        if not ax.axison:
            continue
        for axis in (ax.xaxis, ax.yaxis):
            out += [axis.label, axis.get_offset_text()]
            for tick in axis._update_ticks():
                out += [tick.label1, tick.label2]
    seen, keep = set(), []
    for t in out:  # the suptitle is also one of fig.texts
        if t is not None and id(t) not in seen and t.get_visible() and \
                t.get_text().strip():
            seen.add(id(t))
            keep.append(t)
    return keep


def overlapping_texts(fig, pad=0.0, draw=True):
    """Pairs of texts whose window extents overlap by more than `pad`
    pixels each way on the drawn figure (for tests and checks): [(text,
    text)]. Texts inside one legend or one axis label stack are laid out
    by matplotlib and compared like any other. draw=False: the caller
    has just drawn the figure (a draw costs a third of a second)."""
    if draw:
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = []
    for t in text_artists(fig):
        bb = t.get_window_extent(renderer)
        if bb.width > 0 and bb.height > 0 and \
                fig.bbox.overlaps(bb):
            boxes.append((bb, t.get_text()))
    out = []
    for i, (a, ta) in enumerate(boxes):
        for b, tb in boxes[i + 1:]:
            if (min(a.x1, b.x1) - max(a.x0, b.x0) > pad and
                    min(a.y1, b.y1) - max(a.y0, b.y0) > pad):
                out.append((ta, tb))
    return out


def outside_texts(fig, pad=1.0, draw=True):
    """Texts that reach beyond the figure's edges by more than `pad`
    pixels (cut off when saved). draw=False: as overlapping_texts."""
    if draw:
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for t in text_artists(fig):
        bb = t.get_window_extent(renderer)
        if bb.width > 0 and (bb.x0 < -pad or bb.y0 < -pad or
                             bb.x1 > fig.bbox.width + pad or
                             bb.y1 > fig.bbox.height + pad):
            out.append(t.get_text())
    return out


def wrap_middle(text):
    """The text on two lines at the space nearest its middle outside
    $...$ (mathtext); the text itself when it has none."""
    best, inside = None, False
    for k, ch in enumerate(text):
        if ch == "$":
            inside = not inside
        elif ch == " " and not inside:
            if best is None or abs(k - len(text) / 2) < abs(best -
                                                            len(text) / 2):
                best = k
    return text if best is None else text[:best] + "\n" + text[best + 1:]


LABEL_TRIES = 3  # the figure grows by 10% at most this often for a label


def fit_axis_labels(fig, axes):
    """An axis label that runs off the figure (longer than its panel and
    the margin beside it) goes on two lines, the figure grows (up to
    LABEL_GROWTH), then the label goes down to 6 and 5 pt."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()

    def off(lab, redraw=True):
        if redraw:
            fig.draw_without_rendering()
        whole = fig.bbox
        bb = lab.get_window_extent(renderer)
        sup = fig._suptitle
        if sup is not None and sup.get_text() and \
                bb.overlaps(sup.get_window_extent(renderer)):
            return True  # into the title above the panels
        return bb.x0 < whole.x0 - 0.5 or bb.x1 > whole.x1 + 0.5 or \
            bb.y0 < whole.y0 - 0.5 or bb.y1 > whole.y1 + 0.5
    for ax in axes:
        for lab in (ax.xaxis.label, ax.yaxis.label):
            text = lab.get_text()
            if not text or not off(lab, redraw=False):
                continue
            if "\n" not in text:
                lab.set_text(wrap_middle(text))
            vertical = lab is ax.yaxis.label
            for _ in range(LABEL_TRIES):
                if not off(lab):
                    break
                fw, fh = fig.get_size_inches()
                fig.set_size_inches(fw * (1.0 if vertical else 1.1),
                                    fh * (1.1 if vertical else 1.0))
            for pt in (6, 5):
                if not off(lab):
                    break
                lab.set_fontsize(pt)
