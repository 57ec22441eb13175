/* Closed-form asymptotics of the sleigh (2010 paper sec. 4;
 * docs/theory/exact-path.md): the test oracle stored beside every measurement.
 */
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
  int loops;          /**< floor(|dphi| / 2 pi) */
  int sense_future;   /**< sign of omega at t -> +inf: sign(-Z), 0 if Z = 0 */
  double D, E;        /**< M J - L2^2 and J Z^2 + 2 Z L1 L2 + M L1^2 */
  double alpha, beta; /**< -D Z / E and D L1 / E */
  double c1, c2;      /**< sqrt(D)(Z L2 + M L1)/E, sqrt(D)(L1 L2 + Z J)/E */
} ssw_analytic;

/** The 20-point Gauss-Legendre rule on [-1, 1]: the positive nodes and
 * their weights (computed in 30-digit arithmetic, rounded); the exact
 * paths' quadratures share it. */
extern const double ssw_gl20[10][2];

/** Fills `out` for a tensor already snapped by ssw_model_classify.
 * Errors: none (uniform motion gives radius NaN, d = 0, dphi = 0). */
int ssw_analytic_compute(const ssw_tensor *t, int regime, ssw_analytic *out);

/** Convergence rate Arate = sqrt(2 H E) / D of the transition for the
 * trajectory of energy H (1/time). */
double ssw_analytic_rate(const ssw_analytic *an, double H);

/** Exact reduced state at time t of the trajectory with energy H, sign
 * sigma (+1/-1) and midpoint t0 (2010 paper sec. 4). */
void ssw_analytic_state(const ssw_analytic *an, double H, int sigma, double t0,
                        double t, double *w, double *v);

/** Signed transition angle sigma pi c1 of a trajectory of sign sigma. */
double ssw_analytic_dphi(const ssw_analytic *an, int sigma);

/** The sign sigma of the trajectory through (w, v): sign(L1 w + Z v). */
int ssw_analytic_sigma(const ssw_tensor *t, double w, double v);

/** One exact trajectory, fixed by its initial reduced state (w0, v0) at
 * t = 0 with heading 0 and the contact point at the origin (the
 * integrator's convention). Filled by ssw_analytic_orbit. */
typedef struct {
  ssw_analytic an; /**< closed-form constants of the tensor */
  double w0, v0;   /**< initial reduced state */
  double H;        /**< energy */
  double rate;     /**< Arate = sqrt(2 H E) / D (1/time); 0 if uniform */
  int sigma;       /**< sign of L1 w0 + Z v0; 0: uniform motion for ever */
  double t0;       /**< time of max |L1 w + Z v| (NaN when sigma = 0) */
  double u0;       /**< Arate (0 - t0) */
  double lc0, gd0; /**< ln cosh u0 and gd(u0) */
  double panel;    /**< quadrature panel length in u */
} ssw_orbit;

/** Sets up the exact trajectory through (w0, v0) of a snapped tensor of
 * the given regime. Errors: SSW_ERR_ARG for a zero or non-finite initial
 * velocity or a singular reduced inertia. */
int ssw_analytic_orbit(const ssw_tensor *t, int regime, double w0, double v0,
                       ssw_orbit *o);

/** Exact reduced state (w, v) of the orbit at time t. */
void ssw_analytic_orbit_state(const ssw_orbit *o, double t, double *w,
                              double *v);

/** Exact heading phi(t) (rad, phi(0) = 0), elementary:
 * phi = alpha (ln cosh u - ln cosh u0) + sigma c1 (gd u - gd u0),
 * u = u0 + Arate t. */
double ssw_analytic_orbit_heading(const ssw_orbit *o, double t);

/** Exact displacement (dx, dy) of the contact point from time ta to tb,
 * the integral of (beta tanh u + sigma c2 sech u) e^{i phi(u)} du over
 * [u0 + Arate ta, u0 + Arate tb] by composite 20-point Gauss-Legendre
 * (~1e-15 relative per panel; cost grows with |tb - ta| and the turning
 * rate). Summing consecutive segments gives the path at many nodes. */
void ssw_analytic_orbit_advance(const ssw_orbit *o, double ta, double tb,
                                double *dx, double *dy);

/** Exact heading and contact point at `time` of the trajectory through
 * (w0, v0) (heading 0, contact point at the origin at t = 0). Errors: as
 * ssw_analytic_orbit, or a non-finite time. */
int ssw_analytic_path(const ssw_tensor *t, int regime, double w0, double v0,
                      double time, double *phi, double *x, double *y);

/** Largest |F| / H of the blade's lateral force over a motion of energy H
 * (the supremum over t; it may be approached on a limit circle), closed
 * form depending only on the tensor. `sigma` is the side of the line of
 * equilibria (+1/-1) the motion lies on; the result does not depend on it
 * (time reversal with (w, v) -> -(w, v) maps one side onto the other and
 * leaves F unchanged). For the uniform regime, where F is constant on each
 * motion, returns the bound over all states of energy H. Units: 1/length.
 * Errors: SSW_ERR_ARG for sigma not +-1 or a singular reduced inertia. */
int ssw_analytic_blade_force_max(const ssw_tensor *t, int regime, int sigma,
                                 double *fmax_over_H);

#ifdef __cplusplus
}
#endif
#endif
