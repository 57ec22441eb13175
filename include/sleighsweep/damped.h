/* Forward-only extraction of a damped trajectory (linear drag,
 * docs/theory/drag.md): integrate forward until the energy has fallen to a
 * stated fraction of its initial value, add the linear tail to rest, and
 * measure the total heading, the rest point, the path length, the loops,
 * the decay rate and approach at rest and the settling time, each with an
 * error estimate from a coarser second run. Pure: no I/O, no allocation. */
#ifndef SLEIGHSWEEP_DAMPED_H
#define SLEIGHSWEEP_DAMPED_H

#include <stdint.h>

#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Approach to rest: SSW_APPROACH_NODE (0), SSW_APPROACH_FOCUS (1), from
 * the list SSW_APPROACHES in names.h. */
#define SSW_APPROACH_ENUM_(id, value, ...) SSW_APPROACH_##id = value,
enum { SSW_APPROACHES(SSW_APPROACH_ENUM_) SSW_APPROACH_COUNT };

/** Name of an approach ("node", "focus"; "unknown" outside the list). */
const char *ssw_approach_name(int approach);

/** The settling time is when the energy first falls to this fraction of
 * its initial value. */
#define SSW_DAMPED_SETTLE 0.01

/** What one damped trajectory yields (heading 0 and the contact point at
 * the origin at t = 0). */
typedef struct {
  double H0;             /**< initial energy */
  double heading_total;  /**< heading at rest (rad): the total turn */
  double rest_x, rest_y; /**< contact point at rest */
  double rest_distance;  /**< its distance from the start */
  double path_length;    /**< length of the contact point's path */
  int loops;             /**< floor(|heading_total| / 2 pi): full turns */
  double decay_rate;     /**< measured slowest rate of zeta at rest (1/time) */
  double decay_freq;     /**< measured angular frequency at rest (0: node) */
  int approach;          /**< SSW_APPROACH_* from the measured rates */
  double t_settle;       /**< time at which H = SSW_DAMPED_SETTLE H0 */
  double t_end;          /**< time at which the integration stopped */
  double energy_end;     /**< H / H0 there: the stopping fraction reached */
  double energy_error;   /**< max over nodes of |H + dissipated - H0| / H0 */
  double h;              /**< first macro step (time) */
  double eps;            /**< adaptive: fictive step (0 fixed) */
  int64_t steps;         /**< base steps, the estimate's run included */
  int converged;         /**< reached the stopping fraction */
  int flags;             /**< SSW_TRAJ_* */
  int refinements;       /**< reruns needed to meet rtol */
  /** Estimated absolute errors (NaN without an estimate): heading (rad),
   * rest point (length), path length, decay rate (1/time), settling time.
   * rtol is met when err_heading <= rtol max(|heading_total|, 1),
   * err_rest and err_path <= rtol path_length, err_decay <= rtol
   * decay_rate and err_settle <= rtol t_settle. */
  double err_heading, err_rest, err_path, err_decay, err_settle;
  /** The round-off share of err_decay (1/time): the step's linear map is
   * rounded at a few ulp per base step, and -ln(mu) / T divides that by
   * |ln mu|, small for a slow mode. */
  double decay_roundoff;
  /** The step's share of err_decay from the map itself at T, 2T and 4T
   * (1/time): Richardson with the order those three show, which near a
   * double root (a node whose two rates nearly agree) is half the
   * scheme's, as the roots move by the square root of the map's error. */
  double decay_step;
} ssw_damped;

/** The stopping fraction of the energy with these settings: stop once
 * sqrt(H / H0) <= tol when tol is set, else 0.1 rtol (adaptive) or
 * SSW_TOL_FIXED_DEFAULT^2 (fixed steps): the linear tail added there
 * leaves O(H / H0) of the heading and the rest point, and the path's
 * length O(sqrt(H / H0)). */
double ssw_damped_stop_fraction(const ssw_integrator *o);

/** Integrates the trajectory of a tensor with drag from (w0, v0) forward
 * to rest. `sample` (may be NULL) is called at every node with dir = +1.
 * Errors: SSW_ERR_ARG for a zero or non-finite initial velocity, a tensor
 * without drag, or invalid settings; a trajectory that fails numerically
 * is not an error but carries flags and converged = 0. */
int ssw_damped_run(const ssw_tensor *t, double w0, double v0,
                   const ssw_integrator *o, ssw_sample_fn sample, void *ctx,
                   ssw_damped *out);

/** Extracts n trajectories of one tensor from (w0[i], v0[i]), stepping
 * them together in the SIMD lanes; out[i] is bit-identical to what
 * ssw_damped_run gives for trajectory i alone. ctx[i] (ctx may be NULL)
 * is the sample context of trajectory i, NULL for none. Errors: as
 * ssw_damped_run. */
int ssw_damped_batch(const ssw_tensor *t, int n, const double *w0,
                     const double *v0, const ssw_integrator *o,
                     ssw_sample_fn sample, void *const *ctx, ssw_damped *out);

#ifdef __cplusplus
}
#endif
#endif
