/* Closed-form asymptotics of the sleigh (2010 paper sec. 4; DESIGN.md sec. 5):
 * the test oracle stored beside every measurement. */
#ifndef SLEIGHSWEEP_ANALYTIC_H
#define SLEIGHSWEEP_ANALYTIC_H

#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Closed-form predictions for one (snapped) tensor. Quantities that do not
 * exist in a regime are NaN (d without limit circles) or +inf (radius of a
 * limit straight line). */
typedef struct {
  int regime;         /**< ssw_regime */
  double radius;      /**< |L1/Z|, both ends; +inf when Z = 0 */
  double d;           /**< distance of the two limit-circle centres */
  double dphi_abs;    /**< |transition angle| = pi |c1| (rad) */
  int loops;          /**< floor(|dphi| / 2 pi) (DESIGN.md sec. 4) */
  int sense_future;   /**< sign of omega at t -> +inf: sign(-Z), 0 if Z = 0 */
  double D, E;        /**< M J - L2^2 and J Z^2 + 2 Z L1 L2 + M L1^2 */
  double alpha, beta; /**< -D Z / E and D L1 / E */
  double c1, c2;      /**< sqrt(D)(Z L2 + M L1)/E, sqrt(D)(L1 L2 + Z J)/E */
} ssw_analytic;

/** Fills `out` for a tensor already snapped by ssw_model_classify.
 * Errors: none (uniform motion gives radius NaN, d = 0, dphi = 0). */
int ssw_analytic_compute(const ssw_tensor *t, int regime, ssw_analytic *out);

/** Convergence rate Arate = sqrt(2 H E) / D of the transition for the
 * trajectory of energy H (1/time). */
double ssw_analytic_rate(const ssw_analytic *an, double H);

/** Exact reduced state at time t of the trajectory with energy H, sign
 * sigma (+1/-1) and midpoint t0 (DESIGN.md sec. 5). */
void ssw_analytic_state(const ssw_analytic *an, double H, int sigma, double t0,
                        double t, double *w, double *v);

/** Signed transition angle sigma pi c1 of a trajectory of sign sigma. */
double ssw_analytic_dphi(const ssw_analytic *an, int sigma);

/** The sign sigma of the trajectory through (w, v): sign(L1 w + Z v). */
int ssw_analytic_sigma(const ssw_tensor *t, double w, double v);

#ifdef __cplusplus
}
#endif
#endif
