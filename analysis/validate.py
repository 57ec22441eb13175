#!/usr/bin/python3
"""Command line of sleighsweep.validate (the options: `validate.py --help`,
analysis/README.md). Measured vs closed form over a whole sweep file: limit
radii (radius_future, radius_past vs analytic_radius), centre spacing
(center_spacing vs analytic_center_spacing) and transition angle
(transition_angle vs analytic_transition_angle). Prints a table with the
maximum relative error of each and where it occurs, lists the non-converged
points (converged_fraction < 1 or a failure flag: forward_step_cap,
backward_step_cap, nonfinite, no_peak) and optionally draws a scatter plot
(--plot). Reads the file only. The flags equilibrium_start (a trajectory
whose initial state lies on the line of equilibria L1 omega + Z v = 0: a
steady motion, converged, left out of the ensemble's means) and rtol_not_met
(an error estimate above rtol after the reruns: the values are kept and the
comparison with the closed form decides) are not failures: each gets a note
counting the points that carry it, and the points are listed with their
flags, named from the file's flag_masks / flag_meanings."""
import sys

import _bootstrap  # noqa: F401  (finds the sleighsweep package)
from sleighsweep.validate import main

if __name__ == "__main__":
    sys.exit(main())
