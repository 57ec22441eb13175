#!/usr/bin/python3
"""Command line of sleighsweep.portrait (the options: `portrait.py --help`,
analysis/README.md). Reduced phase portrait in the (omega, v) plane (Fedorov
& Garcia-Naranjo 2010, Fig. 2a): trajectories from `sleighsweep point
--trajectory` CSVs (each an arc of its energy ellipse J w^2 + M v^2 - 2 L2 w
v = 2H), the line of equilibria L1 w + Z v = 0, and the ends of every arc:
unstable (open dot, t -> -inf) and stable (filled dot, t -> +inf). The tensor
comes from the `sleighsweep point` JSON beside each CSV (or --json); all CSVs
must share one body. Reads the files only; exit status 2 on bad arguments or
an unusable file."""
import sys

import _bootstrap  # noqa: F401  (finds the sleighsweep package)
from sleighsweep.portrait import main

if __name__ == "__main__":
    sys.exit(main())
