/* Nonholonomic RATTLE (after McLachlan & Perlmutter, J. Nonlinear Sci. 16
 * (2006) 283-328) in lab coordinates q = (x, y, phi) with momenta
 * p = (p_x, p_y, p_phi), for the comparison of the 2025 paper's Fig. 4.
 *
 * H(q, p) = mu^T I^-1 mu / 2, with mu = (p_phi, c p_x + s p_y,
 * -s p_x + c p_y) the body-frame impulse (c, s = cos, sin phi): the lab-frame
 * kinetic energy depends on phi through mu. The blade constraint is
 * a(q) . qdot = 0, a = (-sin phi, cos phi, 0) (v2 = 0); its multiplier is
 * the blade's lateral force F. One step of size h:
 *   p+ = p_k - (h/2) H_q(q_k, p+) + (h/2) lambda a(q_k)
 *   q_{k+1} = q_k + (h/2) (H_p(q_k, p+) + H_p(q_{k+1}, p+))
 *   a(q_m) . (q_{k+1} - q_k) = 0,   q_m = (q_k + q_{k+1}) / 2
 *   p_{k+1} = p+ - (h/2) H_q(q_{k+1}, p+) + (h/2) mu a(q_{k+1})
 *   a(q_{k+1}) . H_p(q_{k+1}, p_{k+1}) = 0.
 * The first three are implicit in (p+, lambda, phi_{k+1}) (x and y enter
 * linearly and follow); they are solved by Newton's method with a
 * finite-difference Jacobian from an explicit predictor, until the scaled
 * update is below 1e-14 (the discrete equations then hold to round-off).
 * The last two are linear in mu and solved exactly. Needs the full 3x3
 * tensor positive definite (N enters the discrete map, not the continuous
 * motion). Circulation (kappa != 0): the same equations on
 * H = (mu + kappa E2)^T I^-1 (mu + kappa E2) / 2, p the canonical momenta
 * of the Lagrangian T - kappa v2, whose force is the lift's torque and
 * along-blade component (docs/theory/schemes.md, "Circulation"). Kernels
 * only: no I/O, no allocation. */
#ifndef SLEIGHSWEEP_RATTLE_H
#define SLEIGHSWEEP_RATTLE_H

#include "sleighsweep/model.h"
#include "sleighsweep/ode.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Constants of the scheme for one tensor. */
typedef struct {
  ssw_tensor t;
  ssw_reduced e;     /**< the reduced equations (the blade force) */
  double Iinv[3][3]; /**< inverse of the 3x3 tensor */
  double tol;        /**< Newton stop: scaled update (default 1e-14) */
  int max_iter;      /**< Newton iteration cap (default 30) */
} ssw_rattle;

/** Prepares the scheme. Errors: SSW_ERR_ARG if the 3x3 tensor is not
 * positive definite (e.g. I0 = 0 on a dry plane: the lab-frame Hamiltonian
 * needs I^-1). */
int ssw_rattle_setup(const ssw_tensor *t, ssw_rattle *r);

/** One step of exactly size h (h < 0: backward) from s to out (out->t =
 * s->t + h; out may alias s). The state's (w, v) with v2 = 0 and heading
 * fix p_k. `mult` (may be NULL) receives (lambda, mu), the blade force's
 * two multipliers (force units; each approximates F near its end of the
 * step to O(h); with circulation the lateral lift is taken off them, so
 * they approximate the blade's F of model.h). `iters` (may be NULL) receives
 * the Newton iterations. Errors: SSW_ERR_NUMERIC when Newton does not converge
 * within max_iter (then out is unchanged). */
int ssw_rattle_step(const ssw_rattle *r, const ssw_ode_state *s, double h,
                    ssw_ode_state *out, double mult[2], int *iters);

#ifdef __cplusplus
}
#endif
#endif
