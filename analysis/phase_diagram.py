#!/usr/bin/python3
"""Command line of sleighsweep.phase_diagram (the options: `phase_diagram.py
--help`, analysis/README.md). 2-D slice of a sleighsweep map: heat map of a
continuous quantity (colour bar with units) or categorical map (regime,
sense, loops, flags: discrete legend), with the closed-form boundaries
overlaid: Z = 0 (limit circles become limit lines; the rotation sense flips),
L1 = 0 (spin reversal) and, for loop counts and transition angles, the level
sets analytic_transition_angle = 2 pi k. Reads the file only."""
import sys

import _bootstrap  # noqa: F401  (finds the sleighsweep package)
from sleighsweep.phase_diagram import main

if __name__ == "__main__":
    sys.exit(main())
