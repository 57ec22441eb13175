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
