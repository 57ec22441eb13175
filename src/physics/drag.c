/* Linear drag's closed forms: rest eigenvalues, the exact motion for
 * C = c K, the small-drag limit (docs/theory/drag.md). */
#include "sleighsweep/drag.h"

#include <math.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/error.h"

int ssw_drag_rest_eigen(const ssw_tensor *t, ssw_drag_rest *out) {
  SSW_CHECK(ssw_drag_on(t), SSW_ERR_ARG,
            "the rest eigenvalues of the drag need drag (C = 0)");
  const double D = ssw_model_D(t);
  /* det(lambda K + C + kappa S) = D lambda^2 + b lambda + c0: the
   * antisymmetric kappa S adds kappa^2 to the determinant. */
  const double b = t->M * t->cw + 2.0 * t->L2 * t->cwv + t->J * t->cv;
  const double c0 = t->cw * t->cv - t->cwv * t->cwv + t->kappa * t->kappa;
  double disc = b * b - 4.0 * D * c0;
  /* Within round-off of a double root (C = c K): the double root, not
   * the square root of the rounding error (1e-8 relative). */
  if (fabs(disc) <= SSW_DRAG_TOL * b * b) disc = 0.0;
  *out = (ssw_drag_rest){.D = D, .b = b, .c0 = c0};
  if (disc >= 0.0) {
    /* Real roots without cancellation: q = -(b + sqrt(disc)) / 2 (b > 0
     * for C != 0), lambda = q / D and c0 / q. */
    const double q = -0.5 * (b + sqrt(fmax(disc, 0.0)));
    const double l1 = q / D, l2 = q != 0.0 ? c0 / q : 0.0;
    out->re[0] = fmax(l1, l2), out->re[1] = fmin(l1, l2);
  } else {
    out->focus = 1;
    out->re[0] = out->re[1] = -b / (2.0 * D);
    out->im[0] = sqrt(-disc) / (2.0 * D), out->im[1] = -out->im[0];
  }
  out->decay = -out->re[0];
  return SSW_SUCCESS;
}

double ssw_drag_proportional(const ssw_tensor *t) {
  const double c = t->cw / t->J;
  if (!(c > 0)) return 0.0;
  const double tol = SSW_DRAG_TOL * c;
  const int prop = fabs(t->cv / t->M - c) <= tol &&
                   fabs(t->cwv + c * t->L2) <= tol * sqrt(t->J * t->M);
  return prop ? c : 0.0;
}

/* ln cosh u without overflow, and the Gudermannian (exact-path.md). */
static double lncosh(double u) {
  const double a = fabs(u);
  return a + log1p(exp(-2.0 * a)) - M_LN2;
}
static double gd(double u) { return 2.0 * atan(tanh(0.5 * u)); }

/* The primitive of v dt = (beta tanh u + s c2 sech u) du along the
 * undamped orbit: beta ln cosh u + s c2 gd u. */
static double prim_v(const ssw_orbit *o, double u) {
  return o->an.beta * lncosh(u) + o->sigma * o->an.c2 * gd(u);
}

/* Arc length of the undamped path over u in [ua, ub]: v changes sign at
 * most once, where beta sinh u = -s c2. */
static double undamped_length(const ssw_orbit *o, double ua, double ub) {
  const double b = o->an.beta, c = o->sigma * o->an.c2;
  double len = fabs(prim_v(o, ub) - prim_v(o, ua));
  if (b != 0.0) {
    const double us = asinh(-c / b);
    if (us > ua && us < ub)
      len = fabs(prim_v(o, us) - prim_v(o, ua)) +
            fabs(prim_v(o, ub) - prim_v(o, us));
  }
  return len;
}

/* The undamped orbit behind the damped motion for C = c K, kappa = 0,
 * and the time tau = (1 - e^{-c t}) / c it has run at `time` (1/c at
 * rest): zeta(t) = e^{-c t} eta(tau). Returns 0 with *c = 0 where the
 * oracle does not apply. */
static int damped_orbit(const ssw_tensor *t, int regime, double w0, double v0,
                        double time, ssw_orbit *o, double *tau, double *c) {
  *c = ssw_drag_proportional(t);
  if (*c == 0.0 || t->kappa != 0.0) return *c = 0.0, SSW_SUCCESS;
  SSW_CALL(ssw_analytic_orbit(t, regime, w0, v0, o));
  *tau = isinf(time) ? 1.0 / *c : -expm1(-*c * time) / *c;
  return SSW_SUCCESS;
}

int ssw_drag_exact(const ssw_tensor *t, int regime, double w0, double v0,
                   double time, double *phi, double *x, double *y,
                   double *length) {
  *phi = *x = *y = *length = NAN;
  ssw_orbit o;
  double tau = 0.0, c;
  SSW_CALL(damped_orbit(t, regime, w0, v0, time, &o, &tau, &c));
  if (c == 0.0) return SSW_SUCCESS;
  *phi = ssw_analytic_orbit_heading(&o, tau);
  ssw_analytic_orbit_advance(&o, 0.0, tau, x, y);
  if (o.sigma == 0)
    *length = hypot(0.0, v0) * tau;
  else
    *length = undamped_length(&o, o.u0, o.u0 + o.rate * tau);
  return SSW_SUCCESS;
}

int ssw_drag_exact_flow(const ssw_tensor *t, int regime, double w0, double v0,
                        double time, double *w, double *v, double *dphi,
                        double *int_v) {
  *w = *v = *dphi = *int_v = NAN;
  ssw_orbit o;
  double tau = 0.0, c;
  SSW_CALL(damped_orbit(t, regime, w0, v0, time, &o, &tau, &c));
  if (c == 0.0) return SSW_SUCCESS;
  /* w dt is the heading's change of eta over dtau, v dt = v_eta dtau. */
  double we, ve;
  ssw_analytic_orbit_state(&o, tau, &we, &ve);
  const double decay = exp(-c * time);
  *w = decay * we, *v = decay * ve;
  *dphi = ssw_analytic_orbit_heading(&o, tau);
  *int_v = o.sigma == 0 ? v0 * tau
                        : prim_v(&o, o.u0 + o.rate * tau) - prim_v(&o, o.u0);
  return SSW_SUCCESS;
}

double ssw_drag_small_heading(const ssw_tensor *t, int regime, double w0,
                              double v0) {
  if (t->kappa != 0.0) return NAN;
  ssw_orbit o;
  if (ssw_analytic_orbit(t, regime, w0, v0, &o) != SSW_SUCCESS) {
    ssw_error_clear();
    return NAN;
  }
  /* The future limit: Arate (alpha, beta), or the start itself on the
   * line of equilibria. */
  const double wp = o.sigma ? o.rate * o.an.alpha : w0;
  const double vp = o.sigma ? o.rate * o.an.beta : v0;
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  const double q = SSW_MODEL_DISSIPATION(&e, wp, vp);
  if (!(q > 0)) return NAN;
  return wp * 2.0 * SSW_MODEL_ENERGY(&e, wp, vp) / q;
}
