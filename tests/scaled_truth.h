/* The closed-form truth of a trajectory of any body at any energy, through
 * an exact identity: scaling the masses by 2^a and the lengths by 2^b
 * multiplies every tensor entry by a power of two (exactly, in floating
 * point) and leaves the motion's shape alone, so the closed form of the
 * normalised tensor (entries near 1) gives d, dphi, the radius and the
 * blade force of the real one, scaled back by powers of two. The closed
 * form itself (src/physics/analytic.c) forms products such as J Z^2 that
 * leave the double range at extreme mass scales; the normalised tensor
 * keeps it in range. Header-only; the accuracy tests share it. */
#ifndef SSW_SCALED_TRUTH_H
#define SSW_SCALED_TRUTH_H

#include <math.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"

/* The truth of one trajectory; NaN where a quantity does not exist. */
typedef struct {
  double d, dphi, radius, t0, blade, rate;
} st_truth;

/* The tensor divided by 2^a in mass and 2^b in length (exact). */
static inline void st_normalise(const ssw_tensor *t, int *a, int *b,
                                ssw_tensor *u) {
  *a = ilogb(t->M);
  *b = (ilogb(t->J) - *a) / 2;
  u->J = ldexp(t->J, -*a - 2 * *b);
  u->M = ldexp(t->M, -*a), u->N = ldexp(t->N, -*a);
  u->Z = ldexp(t->Z, -*a);
  u->L1 = ldexp(t->L1, -*a - *b), u->L2 = ldexp(t->L2, -*a - *b);
}

/* The truth of the trajectory through (w0, v0) of the snapped tensor t. */
static inline void st_truth_of(const ssw_tensor *t, int regime, double w0,
                               double v0, st_truth *out) {
  int a, b;
  ssw_tensor u;
  st_normalise(t, &a, &b, &u);
  ssw_analytic an;
  ssw_analytic_compute(&u, regime, &an);
  const int sigma = ssw_analytic_sigma(t, w0, v0);
  const double ell = ldexp(1.0, b);
  out->d = an.d * ell;
  out->radius = an.radius * ell;
  out->dphi = ssw_analytic_dphi(&an, sigma);
  double f = NAN;
  ssw_analytic_blade_force_max(&u, regime, 1, &f);
  out->blade = f / ell;
  /* In normalised lengths the velocity is (w0, v0 / 2^b); its energy is
   * s^2 h with s a power of two (no overflow), so Arate = s sqrt(2 h E)/D. */
  const double vn = ldexp(v0, -b);
  const int k = ilogb(fmax(fabs(w0), fabs(vn)));
  ssw_reduced e;
  ssw_model_reduce(&u, &e);
  const double h = ssw_model_energy(&e, ldexp(w0, -k), ldexp(vn, -k));
  const double rate = ldexp(sqrt(2.0 * h * an.E) / an.D, k);
  out->rate = rate;
  /* t0: ht = -D Arate tanh(Arate (t - t0)) along the motion (g' = g ht / D
   * with g ~ sech), so t0 = atanh(ht(0) / (D Arate)) / Arate: no 2 x 2
   * solve, whose determinant -sigma D^(3/2) / E would be formed with
   * cancellation. */
  const double ht0 = ldexp(ssw_model_ht(&e, ldexp(w0, -k), ldexp(vn, -k)), k);
  out->t0 = atanh(ht0 / (an.D * rate)) / rate;
}

/* Errors of d, dphi, r, t0 and the blade force of one result against the
 * truth, each relative to the scale rtol promises it against (extract.h,
 * ssw_traj), and the engine's estimates on the same scales; NaN where the
 * quantity does not exist. */
enum { ST_D, ST_DPHI, ST_R, ST_T0, ST_BLADE, ST_NQ };
static const char *const st_names[ST_NQ] = {"d", "dphi", "r", "t0", "blade"};

static inline void st_errors(const st_truth *x, int regime, const ssw_traj *r,
                             double err[ST_NQ], double est[ST_NQ]) {
  const int circles = regime != SSW_REGIME_LINE_TO_LINE;
  const double len = circles ? fmax(x->d, x->radius) : NAN;
  const double as = fmax(fabs(x->dphi), SSW_DPHI_FLOOR);
  const double ts = fabs(x->t0) + 1.0 / x->rate;
  err[ST_D] = circles ? fabs(r->d - x->d) / x->d : NAN;
  est[ST_D] = r->err_d / x->d;
  err[ST_DPHI] = fabs(r->dphi - x->dphi) / as;
  est[ST_DPHI] = r->err_dphi / as;
  err[ST_R] = circles ? fmax(fabs(r->r_future - x->radius),
                             fabs(r->r_past - x->radius)) /
                            len
                      : NAN;
  est[ST_R] = r->err_r / len;
  err[ST_T0] = fabs(r->t0 - x->t0) / ts;
  est[ST_T0] = r->err_t0 / ts;
  err[ST_BLADE] = fabs(r->blade_force_max - x->blade) / x->blade;
  est[ST_BLADE] = r->err_blade / x->blade;
}

#endif
