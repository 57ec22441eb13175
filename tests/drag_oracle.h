/* Oracles of the damped motion written from docs/theory/drag.md and
 * exact-path.md, independent of the library's closed forms: the undamped
 * motion's heading (closed form), contact point (composite Gauss-Legendre
 * in u, ~1e-15) and arc length (closed-form primitive), which for C = c K
 * and Gamma = 0 give the damped motion at tau = (1 - e^{-c t}) / c; and a
 * random positive semidefinite drag matrix. */
#ifndef SSW_DRAG_ORACLE_H
#define SSW_DRAG_ORACLE_H

#include <math.h>
#include <stdint.h>

#include "sleighsweep/model.h"
#include "wide_batch.h"

/* A random positive semidefinite drag c (L L^T) of the scale of K, with
 * c the ratio of its rates to the motion's. */
static inline void random_drag(uint64_t *s, ssw_tensor *t, double c) {
  const double a = wb_lin(s, -1, 1), b = wb_lin(s, -1, 1), d = wb_lin(s, 0, 1);
  /* L = [[a sqrt J, 0], [b sqrt(J M)^(1/2)..]]: scale-aware entries. */
  const double sj = sqrt(t->J), sm = sqrt(t->M);
  const double l11 = (0.2 + fabs(a)) * sj, l21 = b * sm, l22 = (0.1 + d) * sm;
  t->cw = c * l11 * l11;
  t->cwv = c * l11 * l21;
  t->cv = c * (l21 * l21 + l22 * l22);
}

/* ---- The exact motion for C = c K (written here from drag.md and
 * exact-path.md: the undamped closed form, its heading in closed form and
 * its contact point by composite Gauss-Legendre in u). */
typedef struct {
  double D, E, alpha, beta, c1, c2, rate, u0, sigma, lc0, gd0;
} undamped;

static inline double lncosh(double u) {
  return fabs(u) + log1p(exp(-2 * fabs(u))) - M_LN2;
}
static inline double gdu(double u) { return 2 * atan(tanh(0.5 * u)); }

static inline void undamped_of(const ssw_tensor *t, double w0, double v0,
                               undamped *o) {
  const double J = t->J, M = t->M, L1 = t->L1, L2 = t->L2, Z = t->Z;
  o->D = M * J - L2 * L2;
  o->E = J * Z * Z + 2 * Z * L1 * L2 + M * L1 * L1;
  o->alpha = -o->D * Z / o->E, o->beta = o->D * L1 / o->E;
  o->c1 = sqrt(o->D) * (Z * L2 + M * L1) / o->E;
  o->c2 = sqrt(o->D) * (L1 * L2 + Z * J) / o->E;
  const double H = 0.5 * (J * w0 * w0 + M * v0 * v0 - 2 * L2 * w0 * v0);
  o->rate = sqrt(2 * H * o->E) / o->D;
  const double g = L1 * w0 + Z * v0;
  const double ht = (L1 * L2 + Z * J) * w0 - (L1 * M + Z * L2) * v0;
  o->sigma = g > 0 ? 1 : -1;
  o->u0 = asinh(-ht / (sqrt(o->D) * fabs(g)));
  o->lc0 = lncosh(o->u0), o->gd0 = gdu(o->u0);
}

static inline double phi_u(const undamped *o, double u) {
  return o->alpha * (lncosh(u) - o->lc0) + o->sigma * o->c1 * (gdu(u) - o->gd0);
}

/* Heading and contact point of the undamped motion at time tau. */
static inline void undamped_at(const undamped *o, double tau, double *phi,
                               double *x, double *y) {
  static const double gl[5][2] = {{0.9061798459386640, 0.2369268850561891},
                                  {0.5384693101056831, 0.4786286704993665},
                                  {0.0, 0.5688888888888889},
                                  {-0.5384693101056831, 0.4786286704993665},
                                  {-0.9061798459386640, 0.2369268850561891}};
  const double ua = o->u0, ub = o->u0 + o->rate * tau;
  /* Panels over which the heading turns by at most 1/8 rad (|dphi/du| <=
   * sqrt(alpha^2 + c1^2)) and at most 1/8 long: 5-point Gauss-Legendre
   * then errs by ~(1/8)^10 per panel. */
  const double om = hypot(o->alpha, o->c1);
  const long n = (long)ceil(fabs(ub - ua) * 8.0 * (1.0 + om)) + 16;
  const double hh = (ub - ua) / (double)n;
  double sx = 0, sy = 0;
  for (long k = 0; k < n; k++)
    for (int j = 0; j < 5; j++) {
      const double u = ua + ((double)k + 0.5 + 0.5 * gl[j][0]) * hh;
      const double sp = o->beta * tanh(u) + o->sigma * o->c2 / cosh(u);
      const double p = phi_u(o, u);
      sx += 0.5 * gl[j][1] * hh * sp * cos(p);
      sy += 0.5 * gl[j][1] * hh * sp * sin(p);
    }
  *phi = phi_u(o, ub), *x = sx, *y = sy;
}

/* Arc length of the undamped path over [0, tau]: v dt = (beta tanh u +
 * sigma c2 sech u) du, primitive beta ln cosh u + sigma c2 gd u, and v
 * vanishes at most once, where beta sinh u = -sigma c2. */
static inline double undamped_length(const undamped *o, double tau) {
  const double ua = o->u0, ub = o->u0 + o->rate * tau;
  const double b = o->beta, c = o->sigma * o->c2;
#define ORACLE_PRIM(u) (b * lncosh(u) + c * gdu(u))
  double len = fabs(ORACLE_PRIM(ub) - ORACLE_PRIM(ua));
  const double us = b != 0 ? asinh(-c / b) : -INFINITY;
  if (us > ua && us < ub)
    len = fabs(ORACLE_PRIM(us) - ORACLE_PRIM(ua)) +
          fabs(ORACLE_PRIM(ub) - ORACLE_PRIM(us));
#undef ORACLE_PRIM
  return len;
}

#endif
