#!/usr/bin/python3
"""Command line of sleighsweep.gallery (the options: `gallery.py --help`,
analysis/README.md). Draws the figure gallery from the files
analysis/figures.sh wrote (point CSV/JSON pairs and two theta x a sweeps) and
writes OUT/index.md with a caption per figure. Reads the files only; every
figure function returns the data it plotted."""
import sys

import _bootstrap  # noqa: F401  (finds the sleighsweep package)
from sleighsweep.gallery import main

if __name__ == "__main__":
    sys.exit(main())
