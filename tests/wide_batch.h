/* The wide random domain of bodies and initial states on which accuracy is
 * promised (README "Accuracy"), with the closed-form truth of each draw.
 * Shared by the accuracy tests and the benchmark so both judge the same
 * bodies. Header-only; needs the core library. */
#ifndef SSW_WIDE_BATCH_H
#define SSW_WIDE_BATCH_H

#include <math.h>
#include <stdint.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "test_util.h"

/* One draw: body, tensor, regime, closed form and an initial state. */
typedef struct {
  ssw_body body;
  ssw_params p;
  ssw_tensor t;  /* snapped */
  ssw_reduced e; /* its reduced equations */
  int regime;
  ssw_analytic an;
  double H, w0, v0; /* energy and initial reduced velocity */
  int sigma;        /* sign of L1 w + Z v along the trajectory */
  double t0;        /* exact time of max |L1 w + Z v| */
  double dphi;      /* exact signed transition angle */
} wb_draw;

static inline double wb_lin(uint64_t *s, double lo, double hi) {
  return lo + (hi - lo) * test_u01(s);
}
static inline double wb_log(uint64_t *s, double lo, double hi) {
  return lo * pow(hi / lo, test_u01(s));
}

/* Exact t0 of the trajectory through (w0, v0) at t = 0: solve
 * (w, v) / Arate = [alpha, sigma c1; beta, sigma c2] (tanh u, sech u) with
 * u = Arate (0 - t0). */
static inline double wb_exact_t0(const ssw_analytic *an, double H, int sigma,
                                 double w0, double v0) {
  const double k = ssw_analytic_rate(an, H);
  const double a11 = an->alpha, a12 = sigma * an->c1;
  const double a21 = an->beta, a22 = sigma * an->c2;
  const double det = a11 * a22 - a12 * a21;
  const double th = (a22 * w0 / k - a12 * v0 / k) / det;
  return -atanh(th) / k;
}

/* Draw number `i` of the domain with seed `seed`: semi-axis A in [0.1, 5]
 * (log), aspect B/A in [0.02, 0.99], m in [0.1, 10] (log), I0 in
 * [0.01, 5] (log), rho = 0 (one draw in six) or in [0.01, 10] (log),
 * theta in [0, pi], a, b in [-3, 3], r, s in [-2, 2], energy H in
 * [1e-3, 1e3] (log), initial state uniform in angle on the energy ellipse.
 * Returns 0 for a usable draw (a transition exists: not uniform, not on the
 * line of equilibria), -1 otherwise. */
static inline int wb_draw_one(uint64_t seed, int i, wb_draw *d) {
  uint64_t s = seed * 0x100000001B3ULL + (uint64_t)i * 0x9E3779B97F4A7C15ULL;
  for (int k = 0; k < 4; k++)
    (void)test_u01(&s);
  d->body = (ssw_body){.k_rot = SSW_KROT_PAPERS}; /* other effects off */
  d->body.m = wb_log(&s, 0.1, 10);
  d->body.I0 = wb_log(&s, 0.01, 5);
  d->body.rho = test_u01(&s) < 1.0 / 6 ? 0.0 : wb_log(&s, 0.01, 10);
  d->p.A = wb_log(&s, 0.1, 5);
  d->p.B = d->p.A * wb_lin(&s, 0.02, 0.99);
  d->p.theta = wb_lin(&s, 0, M_PI);
  d->p.a = wb_lin(&s, -3, 3);
  d->p.b = wb_lin(&s, -3, 3);
  d->p.r = wb_lin(&s, -2, 2);
  d->p.s = wb_lin(&s, -2, 2);
  d->H = wb_log(&s, 1e-3, 1e3);
  const double psi = wb_lin(&s, 0, 2 * M_PI);
  if (ssw_model_tensor(&d->body, &d->p, &d->t) != 0) return -1;
  ssw_model_classify(&d->t, SSW_ZERO_TOL_DEFAULT, &d->t, &d->regime);
  ssw_model_reduce(&d->t, &d->e);
  ssw_analytic_compute(&d->t, d->regime, &d->an);
  if (d->regime == SSW_REGIME_UNIFORM) return -1;
  /* K = L L^T; zeta = L^-T u with |u|^2 = 2 H lies on the energy ellipse. */
  const double J = d->t.J, L2 = d->t.L2, D = ssw_model_D(&d->t);
  const double r = sqrt(2.0 * d->H);
  const double u1 = r * cos(psi), u2 = r * sin(psi);
  const double l11 = sqrt(J), l21 = -L2 / l11, l22 = sqrt(D / J);
  d->v0 = u2 / l22;
  d->w0 = (u1 - l21 * d->v0) / l11;
  d->sigma = ssw_analytic_sigma(&d->t, d->w0, d->v0);
  const double g = ssw_model_g(&d->e, d->w0, d->v0);
  const double gmax = sqrt(2.0 * d->H * d->an.E / D);
  if (d->sigma == 0 || fabs(g) < 1e-6 * gmax) return -1;
  d->t0 = wb_exact_t0(&d->an, d->H, d->sigma, d->w0, d->v0);
  d->dphi = ssw_analytic_dphi(&d->an, d->sigma);
  return 0;
}

/* n initial states on the energy ellipse of draw d, evenly spread in
 * angle as an ensemble spreads them; the first is the draw's own. */
static inline void wb_states(const wb_draw *d, int n, double *w0, double *v0) {
  const double J = d->t.J, L2 = d->t.L2, D = ssw_model_D(&d->t);
  const double r = sqrt(2.0 * d->H), l11 = sqrt(J), l21 = -L2 / l11;
  const double l22 = sqrt(D / J);
  for (int k = 0; k < n; k++) {
    const double psi = 2.0 * M_PI * (k + 0.37) / n;
    v0[k] = r * sin(psi) / l22;
    w0[k] = (r * cos(psi) - l21 * v0[k]) / l11;
  }
  w0[0] = d->w0, v0[0] = d->v0;
}

/* Errors of d, dphi, r and t0 of one trajectory against the closed form,
 * each relative to the scale rtol promises it against (extract.h,
 * ssw_traj: d; max(|dphi|, SSW_DPHI_FLOOR); max(r, d); |t0| + 1/Arate),
 * and the engine's estimates on the same scales; NaN where the quantity
 * does not exist in the regime. */
static inline void wb_errors(const wb_draw *d, double w0, double v0,
                             const ssw_traj *r, double err[4], double est[4]) {
  const int sigma = ssw_analytic_sigma(&d->t, w0, v0);
  const double t0 = wb_exact_t0(&d->an, d->H, sigma, w0, v0);
  const double dphi = ssw_analytic_dphi(&d->an, sigma);
  const int circles = d->regime != SSW_REGIME_LINE_TO_LINE;
  const double len = circles ? fmax(d->an.d, d->an.radius) : NAN;
  const double as = fmax(fabs(dphi), SSW_DPHI_FLOOR);
  const double ts = fabs(t0) + 1.0 / r->rate;
  err[0] = circles ? fabs(r->d - d->an.d) / d->an.d : NAN;
  est[0] = r->err_d / d->an.d;
  err[1] = fabs(r->dphi - dphi) / as;
  est[1] = r->err_dphi / as;
  err[2] = circles ? fmax(fabs(r->r_future - d->an.radius),
                          fabs(r->r_past - d->an.radius)) /
                         len
                   : NAN;
  est[2] = r->err_r / len;
  err[3] = fabs(r->t0 - t0) / ts;
  est[3] = r->err_t0 / ts;
}

#endif
