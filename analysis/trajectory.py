#!/usr/bin/python3
"""Command line of sleighsweep.trajectory (the options: `trajectory.py --help`,
analysis/README.md). Contact-point paths of sleigh trajectories, drawn like
the papers' figures: the path, the two limit circles (radius |L1/Z|) and
their centres (past: open dot, unstable; future: filled dot, stable), the
spacing d, direction arrows, the start point and the heading (body outlines:
ellipse, blade, centre of mass; or heading marks when the body is unknown)."""
import sys

import _bootstrap  # noqa: F401  (finds the sleighsweep package)
from sleighsweep.trajectory import main

if __name__ == "__main__":
    sys.exit(main())
