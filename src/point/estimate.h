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
                  const ssw_traj *coarse, double ratio, double order,
                  ssw_traj *out);

/* The order a scheme shows on one trajectory, from three runs at steps
 * h, r1 h and r1 r2 h (fine, mid, far): the smallest over the measured
 * quantities of the q with |far - mid| / |mid - fine| = r1^q (r2^q - 1) /
 * (r1^q - 1), differences within the round-off floor left out, clamped to
 * [1, the method's order]: where the runs do not converge at order 1 the
 * estimate is (about) the finer pair's difference itself.
 * ssw_observed_order_of does it for n quantities given as arrays. */
double ssw_observed_order(const ssw_method *method, const ssw_traj *fine,
                          const ssw_traj *mid, const ssw_traj *far, double r1,
                          double r2);
double ssw_observed_order_of(int n, const double *fine, const double *mid,
                             const double *far, const double *floor, double r1,
                             double r2, int order);

/* The largest of a trajectory's estimates relative to what rtol promises
 * for it (1: exactly at rtol; > 1: rtol not met). */
double ssw_rel_estimate(const ssw_traj *r, double rtol);

/* How a trajectory whose estimate exceeds rtol runs again: the step
 * divided by *ratio and the stopping tolerance by *tighten (1: unchanged),
 * from the estimate's parts (step, tail, round-off). */
void ssw_estimate_plan(const ssw_method *m, const ssw_traj *r, double rtol,
                       double *ratio, double *tighten);

#endif
