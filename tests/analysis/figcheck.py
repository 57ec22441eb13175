"""Geometry checks on drawn figures, shared by the analysis tests: what an
artist (a legend, a label) covers of the plotted data."""
import numpy as np


def covered(fig, bbox_of, points):
    """How many of `points` ((ax, N x 2 data coordinates) pairs) lie inside
    the display box of an artist (`bbox_of(renderer)`) on the drawn
    figure: what a legend or a label covers of the data. Points outside
    their own axes are clipped (not drawn) and not counted."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bb = bbox_of(renderer)
    n = 0

    def within(d, b):
        return (d[:, 0] >= b.x0) & (d[:, 0] <= b.x1) & \
            (d[:, 1] >= b.y0) & (d[:, 1] <= b.y1)

    for ax, pts in points:
        d = ax.transData.transform(np.asarray(pts, dtype=float))
        d = d[within(d, ax.get_window_extent(renderer))]
        n += int(np.count_nonzero(within(d, bb)))
    return n


MIN_SHARE = 1.0 / 3.0  # of the figure, for the data axes


def data_axes(fig):
    """The figure's data panels: visible axes with their frame on, not a
    colour bar (legend rows are drawn with the axis off)."""
    return [a for a in fig.axes if a.get_visible() and a.axison and
            getattr(a, "_colorbar", None) is None and
            a.get_label() != "<colorbar>"]


def layout_problems(fig, share=MIN_SHARE):
    """What is wrong with a drawn figure's layout, as messages: the data
    panels together under `share` of the figure's width or height, a
    panel under share / k of either (k the panels side by side with it,
    or stacked), two texts overlapping (window extents), a text beyond
    the figure's edges."""
    from sleighsweep import style
    fig.canvas.draw()
    out = []
    axes = data_axes(fig)
    boxes = [a.get_position() for a in axes]
    if boxes:
        w = max(b.x1 for b in boxes) - min(b.x0 for b in boxes)
        h = max(b.y1 for b in boxes) - min(b.y0 for b in boxes)
        if w < share or h < share:
            out.append(f"data panels take {w:.2f} x {h:.2f} of the figure")
    # a grid of panels: each keeps share / (its grid's columns) of the
    # width and share / (its rows) of the height
    across = max((sum(1 for c in boxes if c.y0 < b.y1 and b.y0 < c.y1)
                  for b in boxes), default=1)
    down = max((sum(1 for c in boxes if c.x0 < b.x1 and b.x0 < c.x1)
                for b in boxes), default=1)
    for a, b in zip(axes, boxes):
        if b.width < share / across or b.height < share / down:
            out.append(f"panel '{a.get_title() or a.get_xlabel()}' "
                       f"{b.width:.2f} x {b.height:.2f} of the figure "
                       f"({across} side by side, {down} stacked)")
    # the figure is drawn above: one draw serves every check
    out += [f"texts overlap: {a!r} and {b!r}"
            for a, b in style.overlapping_texts(fig, pad=0.5, draw=False)]
    out += [f"text beyond the figure: {t!r}"
            for t in style.outside_texts(fig, draw=False)]
    return out
