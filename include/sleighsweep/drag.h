/* Linear drag's closed forms (docs/theory/drag.md): the eigenvalues of the
 * motion near rest, the exact damped motion when the drag is proportional
 * to the inertia (C = c K) without circulation, and the small-drag limit
 * of the total heading. The oracles of the damped extraction (damped.h). */
#ifndef SLEIGHSWEEP_DRAG_H
#define SLEIGHSWEEP_DRAG_H

#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Relative tolerance under which C counts as proportional to K and the
 * discriminant of the rest's characteristic polynomial as zero (a double
 * root, counted as a node). */
#define SSW_DRAG_TOL 1e-12

/** The linearisation at rest, K zeta' = -(C + kappa S) zeta: its
 * characteristic polynomial D lambda^2 + b lambda + c0 = 0 with
 * b = M cw + 2 L2 cwv + J cv and c0 = det C + kappa^2. */
typedef struct {
  double D, b, c0;
  double re[2], im[2]; /**< the roots, slowest (largest real part) first;
                            a focus has im[0] = -im[1] > 0 */
  int focus;           /**< 1 when b^2 < 4 D c0 (beyond SSW_DRAG_TOL) */
  double decay;        /**< -re[0] > 0: the slowest rate at which zeta
                            decays (1/time); 0 when c0 = 0 */
} ssw_drag_rest;

/** True (1) when the tensor carries drag (C != 0). */
static inline int ssw_drag_on(const ssw_tensor *t) {
  return t->cw != 0.0 || t->cv != 0.0 || t->cwv != 0.0;
}

/** The eigenvalues at rest of a tensor with drag (closed form). Errors:
 * SSW_ERR_ARG without drag. */
int ssw_drag_rest_eigen(const ssw_tensor *t, ssw_drag_rest *out);

/** c when C = c K to within SSW_DRAG_TOL (entry by entry, relative to
 * c's scale), else 0. */
double ssw_drag_proportional(const ssw_tensor *t);

/** The exact damped motion for C = c K, kappa = 0: zeta(t) = e^{-c t}
 * eta(tau), tau = (1 - e^{-c t}) / c, where eta is the undamped motion
 * through (w0, v0) (exact-path.md), so the damped path is the undamped one
 * traversed up to tau = 1/c. Gives at `time` (+inf: at rest) the heading
 * (rad), the contact point and the path length travelled; NaN in every
 * output when the oracle does not apply (no proportional drag, or
 * circulation). Errors: as ssw_analytic_orbit. */
int ssw_drag_exact(const ssw_tensor *t, int regime, double w0, double v0,
                   double time, double *phi, double *x, double *y,
                   double *length);

/** The same exact damped motion (C = c K, kappa = 0) as a flow: the
 * state (w, v) at `time` > 0 of the motion through (w0, v0) at 0, the
 * heading change (the integral of w) and the signed integral of v over
 * [0, time]; NaN in every output where the oracle does not apply.
 * Errors: as ssw_analytic_orbit. */
int ssw_drag_exact_flow(const ssw_tensor *t, int regime, double w0, double v0,
                        double time, double *w, double *v, double *dphi,
                        double *int_v);

/** The small-drag limit of the total heading without circulation:
 * the motion first settles on the undamped trajectory's future limit
 * zeta_+ = (w_+, v_+) and then decays along the line of equilibria at the
 * rate zeta_+^T C zeta_+ / zeta_+^T K zeta_+, so the total heading tends
 * to w_+ zeta_+^T K zeta_+ / zeta_+^T C zeta_+ (the relative error is
 * O(C)). NaN with circulation or where zeta_+^T C zeta_+ = 0. */
double ssw_drag_small_heading(const ssw_tensor *t, int regime, double w0,
                              double v0);

#ifdef __cplusplus
}
#endif
#endif
