/* Error estimates of one trajectory (internal to src/point): extract.c
 * runs every trajectory twice, at its step and `ratio` times coarser, and
 * estimates the fine run's errors from the difference (estimate.c). */
#ifndef SLEIGHSWEEP_ESTIMATE_H
#define SLEIGHSWEEP_ESTIMATE_H

#include "sleighsweep/extract.h"
#include "sleighsweep/stepper.h"

/* The fine run's error estimates (out's err_* fields; out may be fine)
 * from the coarse run's results, for a method of order `order` whose
 * coarse step is `ratio` times the fine one. */
void ssw_estimate(const ssw_coeffs *c, const ssw_traj *fine,
                  const ssw_traj *coarse, double ratio, int order,
                  ssw_traj *out);

/* The largest of a trajectory's estimates relative to what rtol promises
 * for it (1: exactly at rtol; > 1: rtol not met). */
double ssw_rel_estimate(const ssw_traj *r, double rtol);

/* How a trajectory whose estimate exceeds rtol runs again: the step
 * divided by *ratio and the stopping tolerance by *tighten (1: unchanged),
 * from the estimate's parts (step, tail, round-off). */
void ssw_estimate_plan(const ssw_method *m, const ssw_traj *r, double rtol,
                       double *ratio, double *tighten);

#endif
