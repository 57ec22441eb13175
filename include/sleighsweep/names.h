/* The names the engine writes, each list in one place (X-macros): regimes,
 * trajectory flags, rotation senses, done states, run segment ends,
 * reconstructions, initial
 * conditions, grid axes and sample quantities. The C enums, the name arrays,
 * the output file's flag_values / flag_masks / flag_meanings, long_name and
 * units attributes come from these lists; tests/test_names.py checks
 * docs/output.md and analysis/ against a file the engine wrote.
 *
 * Every entry is X(ID, value, "name", ...): ID pastes into the enumerator
 * (SSW_REGIME_##ID ...), value is its integer value (bit for flags, storage
 * index for axes and samples), "name" is the spelling in files, JSON and
 * the config. Values and names are part of the file format: never change
 * or reorder them (add at the end). */
#ifndef SLEIGHSWEEP_NAMES_H
#define SLEIGHSWEEP_NAMES_H

/** Asymptotic regimes (model.h ssw_regime; dataset `regime`, flag_values).
 * X(ID, value, name, description). */
#define SSW_REGIMES(XM)                                                        \
  XM(UNIFORM, 0, "uniform", "L1 = Z = 0: every state an equilibrium")          \
  XM(LINE_TO_LINE, 1, "line_to_line", "Z = 0: classical sleigh, with loops")   \
  XM(SPIN_REVERSAL, 2, "spin_reversal",                                        \
     "L1 = 0: spin about a point, reversing")                                  \
  XM(CIRCLE_TO_CIRCLE, 3, "circle_to_circle",                                  \
     "generic: opposite-sense limit circles")                                  \
  XM(PERIODIC, 4, "periodic",                                                  \
     "circulation below its critical energy: periodic reduced motion")

/** How a damped motion comes to rest (damped.h SSW_APPROACH_*; the
 * linearisation at rest, docs/theory/drag.md). X(ID, value, name,
 * description). */
#define SSW_APPROACHES(XM)                                                     \
  XM(NODE, 0, "node", "real eigenvalues at rest: no oscillation")              \
  XM(FOCUS, 1, "focus", "complex eigenvalues at rest: a decaying spiral")

/** Trajectory flags (extract.h SSW_TRAJ_*, generated from this list;
 * dataset `flags`, flag_masks). X(ID, bit, name, description). */
#define SSW_TRAJ_FLAGS(XM)                                                     \
  XM(FWD_CAP, 1, "forward_step_cap", "forward integration hit the step cap")   \
  XM(BWD_CAP, 2, "backward_step_cap", "backward integration hit the step cap") \
  XM(NONFINITE, 4, "nonfinite", "a NaN or infinity appeared")                  \
  XM(EQUILIBRIUM, 8, "equilibrium_start",                                      \
     "initial state already on the equilibria")                                \
  XM(NO_PEAK, 16, "no_peak", "the time of max |L1 w + Z v| was not found")     \
  XM(RTOL, 32, "rtol_not_met", "error estimate above rtol after refinement")   \
  XM(NEAR_CRITICAL, 64, "near_critical",                                       \
     "circulation: energy within SSW_CRITICAL_MARGIN of the critical one")     \
  XM(NO_ESTIMATE, 128, "no_estimate",                                          \
     "a measured quantity has no error estimate (the coarse run missed it)")   \
  XM(ENERGY_DRIFT, 256, "energy_drift",                                        \
     "energy error above SSW_ENERGY_ERROR_MAX: off its energy level")          \
  XM(CYCLE_NOT_CLOSED, 512, "cycle_not_closed",                                \
     "forcing, unresolved: largest Lyapunov exponent negative beyond its "     \
     "error (a stable cycle the transient did not close)")                     \
  XM(EXPONENTS_UNDECIDED, 1024, "exponents_undecided",                         \
     "forcing, unresolved: the Lyapunov exponents' error bars decide no "      \
     "class")

/** Rotation senses at t -> +inf (datasets `sense_future`, `analytic_sense`,
 * flag_values). X(ID, value, name, description). */
#define SSW_SENSES(XM)                                                         \
  XM(CW, -1, "clockwise", "clockwise limit circle")                            \
  XM(NONE, 0, "none", "no limit circle")                                       \
  XM(CCW, 1, "counterclockwise", "counter-clockwise limit circle")

/** States of a grid point (dataset `done`, flag_values). */
#define SSW_DONE_STATES(XM)                                                    \
  XM(PENDING, 0, "pending", "not written yet")                                 \
  XM(DONE, 1, "done", "written")

/** How a run segment ended (dataset `segments/status`, flag_values).
 * X(ID, value, name, description). */
#define SSW_SEGMENT_ENDS(XM)                                                   \
  XM(INTERRUPTED, 0, "interrupted",                                            \
     "stopped by a signal, finished work saved")                               \
  XM(COMPLETE, 1, "complete", "every grid point done")

/** Reconstructions of the contact point (stepper.h SSW_RECON_* and
 * ssw_recon_names, generated from this list; root attribute
 * `reconstruction`, config key [integrator] reconstruction). Values are
 * 0, 1, ... in order. X(ID, value, name, description). */
#define SSW_RECONS(XM)                                                         \
  XM(EXP, 0, "exp", "SE(2) exponential: exact arc of each step")               \
  XM(MIDPOINT, 1, "midpoint", "coordinate midpoint, as in the 2025 paper")

/** Initial conditions of an ensemble (ensemble.h SSW_IC_* and ssw_ic_names,
 * generated from this list; root attribute `initial_conditions`, config key
 * [ensemble] initial). Values are 0, 1, ... in order. X(ID, value, name,
 * description). */
#define SSW_ICS(XM)                                                            \
  XM(RANDOM, 0, "random", "uniform angle on the energy ellipse, keyed RNG")    \
  XM(LATTICE, 1, "lattice", "evenly spaced angles on the energy ellipse")

/** Classes a sweep can refine (refine.h SSW_REFINE_*; config key [refine]
 * classes, the /boundaries attributes), as bits. X(ID, bit, name,
 * description). */
#define SSW_REFINE_CLASSES(XM)                                                 \
  XM(REGIME, 1, "regime", "signs of Z and L1, whose zeros part the regimes")   \
  XM(LOOPS, 2, "loops", "loop count floor(|dphi| / 2 pi)")                     \
  XM(SENSE, 4, "sense", "rotation sense on the future circle")                 \
  XM(CRITICAL, 8, "critical", "circulation: below or above H_c")               \
  XM(DRIFT, 16, "drift", "circulation: floor(|Delta_phi| / 2 pi) below H_c")   \
  XM(ATTRACTOR, 32, "attractor",                                               \
     "forcing: the attractor and, periodic, its cycle length")                 \
  XM(CHAOS, 64, "chaos",                                                       \
     "forcing: the sign of the largest Lyapunov exponent, beyond its error")

/** Grid axes in storage order (grid.h SSW_NAXES, SSW_AXIS_* and
 * ssw_axis_names, generated from this list; the coordinate datasets). The
 * body's (SSW_BODY_AXES, always dimensions of the output): X(ID, index,
 * name, units, long_name, field), `field` the member of ssw_params
 * (model.h) that holds it, so ssw_params, the grid's values and every loop
 * over the body's parameters follow this list. The run's (SSW_RUN_AXES: one
 * value, from the scalar key of the same name in `section`, unless [grid]
 * gives a list; a dimension of the output only when it holds more than one
 * value): X(ID, index, name, units, long_name, field, section, home),
 * `field` the member of ssw_grid_values (ensemble.h) and `home` the member
 * that holds the scalar in both ssw_config and ssw_ensemble_spec.
 * docs/contributing.md, "A new grid axis", lists what else an axis needs. */
#define SSW_AXES(XM) SSW_BODY_AXES(XM) SSW_RUN_AXES(XM)
#define SSW_BODY_AXES(XM)                                                      \
  XM(THETA, 0, "theta", "rad",                                                 \
     "blade angle from the major axis (counter-clockwise)", theta)             \
  XM(A_COM, 1, "a", "length",                                                  \
     "centre of mass, body coordinate along the blade", a)                     \
  XM(B_COM, 2, "b", "length",                                                  \
     "centre of mass, body coordinate across the blade", b)                    \
  XM(R_CENTRE, 3, "r", "length",                                               \
     "ellipse centre, body coordinate along the blade", r)                     \
  XM(S_CENTRE, 4, "s", "length",                                               \
     "ellipse centre, body coordinate across the blade", s)                    \
  XM(A_SEMI, 5, "A", "length", "semi-major axis", A)                           \
  XM(B_SEMI, 6, "B", "length", "semi-minor axis", B)
#define SSW_RUN_AXES(XM)                                                       \
  XM(GAMMA, 7, "Gamma", "length2 time-1",                                      \
     "circulation about the ellipse (counter-clockwise positive)", Gamma,      \
     "body", body.Gamma)                                                       \
  XM(ENERGY, 8, "energy", "mass length2 time-2",                               \
     "energy H of every trajectory", energy, "ensemble", energy)               \
  XM(DRAG_W, 9, "drag_w", "mass length2 time-1",                               \
     "linear drag on the rotation (drag matrix entry c_w)", drag_w, "body",    \
     body.drag_w)                                                              \
  XM(DRAG_V, 10, "drag_v", "mass time-1",                                      \
     "linear drag along the blade (drag matrix entry c_v)", drag_v, "body",    \
     body.drag_v)                                                              \
  XM(DRAG_WV, 11, "drag_wv", "mass length time-1",                             \
     "coupling entry of the drag matrix (c_wv)", drag_wv, "body",              \
     body.drag_wv)                                                             \
  XM(FORCING_FREQ, 12, "forcing_freq", "time-1",                               \
     "angular frequency Omega of the periodic torque", forcing_freq, "body",   \
     body.forcing_freq)                                                        \
  XM(TORQUE_AMP, 13, "torque_amp", "mass length2 time-2",                      \
     "amplitude of the periodic torque about the contact point (kicks: "       \
     "the angular impulse, mass length2 time-1)",                              \
     torque_amp, "body", body.torque_amp)                                      \
  XM(FORCING_PHASE, 14, "forcing_phase", "rad", "phase of the sine torque",    \
     forcing_phase, "body", body.forcing_phase)                                \
  XM(MASS_P, 15, "mass_p", "mass", "moving internal point mass", mass_p,       \
     "body", body.mass_p)                                                      \
  XM(MASS_X, 16, "mass_x", "length", "moving mass's position along the blade", \
     mass_x, "body", body.mass_x)                                              \
  XM(MASS_Y, 17, "mass_y", "length",                                           \
     "moving mass's mean position across the blade", mass_y, "body",           \
     body.mass_y)                                                              \
  XM(MASS_AMP, 18, "mass_amp", "length",                                       \
     "amplitude of the mass's oscillation across the blade", mass_amp, "body", \
     body.mass_amp)

/** Sample trajectory quantities in the order of a point's sample buffer
 * (h5out.h SSW_SAMPLE_*; the /samples datasets). X(ID, index, name, units,
 * long_name); units in the generic words of docs/output.md. */
#define SSW_SAMPLES(XM)                                                        \
  XM(T, 0, "t", "time", "time")                                                \
  XM(PHI, 1, "phi", "rad", "heading")                                          \
  XM(X, 2, "x", "length", "contact point x")                                   \
  XM(Y, 3, "y", "length", "contact point y")                                   \
  XM(OMEGA, 4, "omega", "rad time-1", "angular velocity")                      \
  XM(V, 5, "v", "length time-1", "velocity along the blade")                   \
  XM(H, 6, "H", "mass length2 time-2", "energy")

/** Shapes of the periodic torque about the contact point (config key
 * [body] forcing_shape; docs/theory/forcing.md). Values are 0, 1, ... in
 * order. X(ID, value, name, description). */
#define SSW_FORCING_SHAPES(XM)                                                 \
  XM(SINE, 0, "sine", "tau(t) = torque_amp sin(Omega t + forcing_phase)")      \
  XM(KICKS, 1, "kicks",                                                        \
     "angular impulses torque_amp at t = 0+, T, 2T, ... (T = 2 pi / Omega)")

/** Attractors of a forced trajectory (forced.h SSW_ATTRACTOR_*, the point
 * JSON's `attractor`; docs/theory/forcing.md). X(ID, value, name,
 * description). */
#define SSW_ATTRACTORS(XM)                                                     \
  XM(UNRESOLVED, 0, "unresolved", "none of the others within the budget")      \
  XM(PERIODIC, 1, "periodic",                                                  \
     "a fixed point of the n-th iterate of the period map, n <= 8")            \
  XM(ACCELERATING, 2, "accelerating",                                          \
     "no drag: the energy grows without bound (the averaged law)")             \
  XM(REST, 3, "rest",                                                          \
     "with drag, the sleigh comes to rest: no forcing (a sweep's points at "   \
     "torque_amp = 0), or one that does not reach it (the fixed point "        \
     "(0, 0) of the period map)")                                              \
  XM(QUASIPERIODIC, 4, "quasiperiodic",                                        \
     "bounded, no cycle: largest Lyapunov exponent zero within "               \
     "SSW_CLASS_K error bars")                                                 \
  XM(CHAOTIC, 5, "chaotic",                                                    \
     "bounded, no cycle: largest Lyapunov exponent above SSW_CLASS_K error "   \
     "bars and SSW_CLASS_LYAP_FLOOR / T")

/** The forced extractor's measurements a sweep stores per grid point
 * (extract.h SSW_FQ_*, result.h; docs/output.md, "Forcing"): dataset NAME
 * is the mean over the trajectories on the point's attractor, NAME_spread
 * their max - min, NAME_error the largest estimated error, and where `twin`
 * is TWIN, analytic_NAME the mean of the closed form (forced.h
 * ssw_forced_closed member `closed`) over the same trajectories. Storage
 * index `index`. X(ID, index, name, units, long_name, measured, twin,
 * closed), `measured` the member of forced.h's ssw_forced_q. */
#define SSW_FORCED_QUANTITIES(XM)                                              \
  XM(MEAN_OMEGA, 0, "mean_omega", "rad time-1",                                \
     "time average of omega over the whole cycle", mean_omega, TWIN,           \
     mean_omega)                                                               \
  XM(MEAN_V, 1, "mean_v", "length time-1",                                     \
     "time average of v over the whole cycle: the mean swimming speed",        \
     mean_v, TWIN, mean_v)                                                     \
  XM(MEAN_POWER, 2, "mean_power", "mass length2 time-3",                       \
     "mean power put in over the cycle, <tau omega>", mean_power, NO_TWIN,     \
     none)                                                                     \
  XM(MEAN_PATH_RADIUS, 3, "mean_path_radius", "length",                        \
     "radius mean_v / mean_omega of the period-averaged path",                 \
     mean_path_radius, TWIN, mean_path_radius)                                 \
  XM(FLOQUET_ABS_1, 4, "floquet_abs_1", "1",                                   \
     "larger modulus of the n-period map's Floquet multipliers",               \
     floquet_abs[0], TWIN, floquet_abs[0])                                     \
  XM(FLOQUET_ABS_2, 5, "floquet_abs_2", "1",                                   \
     "smaller modulus of the n-period map's Floquet multipliers",              \
     floquet_abs[1], TWIN, floquet_abs[1])                                     \
  XM(ENERGY_GROWTH_SLOPE, 6, "energy_growth_slope", "time-4",                  \
     "slope of Arate^3/3 + Omega^2 Arate against t (accelerating)",            \
     energy_growth_slope, TWIN, energy_growth_slope)                           \
  XM(LYAPUNOV_MAX, 7, "lyapunov_max", "time-1",                                \
     "larger Lyapunov exponent (on a cycle ln |mu_1| / (n T))", lyapunov[0],   \
     TWIN, lyapunov[0])

/** The root attributes the engine reads back (docs/output.md, "Root
 * attributes"), and the values of `status`: one spelling each. */
#define SSW_ATTR_PROGRAM "program"
#define SSW_ATTR_FORMAT_VERSION "format_version"
#define SSW_ATTR_CONFIG "config"
#define SSW_ATTR_STATUS "status"
#define SSW_ATTR_START_TIME "start_time"
#define SSW_ATTR_END_TIME "end_time"
#define SSW_ATTR_POINTS_DONE "points_done"
#define SSW_ATTR_WALL_TIME "wall_time_s"
#define SSW_ATTR_HISTORY "history"
#define SSW_STATUS_RUNNING "running"
#define SSW_STATUS_COMPLETE "complete"
#define SSW_STATUS_INTERRUPTED "interrupted"

/* Generic X functions for every list above. */
/** The value, as an initializer element: {SSW_REGIMES(SSW_NAME_VALUE)}. */
#define SSW_NAME_VALUE(id, value, ...) value,
/** The name, as an initializer element. */
#define SSW_NAME_STRING(id, value, name, ...) name,
/** The name at index `value`, as a designated initializer element:
 * {SSW_AXES(SSW_NAME_AT)} is indexed by the axis index. */
#define SSW_NAME_AT(id, value, name, ...) [value] = name,
/** " name" for a space-separated list: (SSW_REGIMES(SSW_NAME_SPACED) + 1)
 * is "uniform line_to_line ..." (string literals concatenate first). */
#define SSW_NAME_SPACED(id, value, name, ...) " " name
/** +1 per entry: (0 SSW_REGIMES(SSW_NAME_COUNT)) is the number of entries. */
#define SSW_NAME_COUNT(...) +1

#endif
