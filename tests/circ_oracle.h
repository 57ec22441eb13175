/* The reference of the circulation tests: GSL's rk8pd at local tolerance
 * 1e-13 on the equations of motion with circulation, written out here
 * (docs/theory/circulation.md sec. 2) independently of the engine's model.h
 * and of src/physics/circulation.c, and the measurements taken from its
 * trajectories. Header-only; needs GSL. */
#ifndef SSW_CIRC_ORACLE_H
#define SSW_CIRC_ORACLE_H

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>

#include "sleighsweep/model.h"

#define CO_TOL 1e-13

typedef struct {
  double J, M, L1, L2, Z, kappa, D;
} co_par;

static inline co_par co_params(const ssw_tensor *t, double kappa) {
  const co_par p = {
      t->J, t->M, t->L1, t->L2, t->Z, kappa, t->M * t->J - t->L2 * t->L2};
  return p;
}

/* K zeta' = (g - kappa) S zeta with S (w, v) = (-v, w), and the path. */
static inline int co_rhs(double t, const double y[], double f[], void *vp) {
  const co_par *p = vp;
  const double w = y[0], v = y[1];
  const double q = p->L1 * w + p->Z * v - p->kappa;
  f[0] = q * (p->L2 * w - p->M * v) / p->D;
  f[1] = q * (p->J * w - p->L2 * v) / p->D;
  f[2] = w;
  f[3] = v * cos(y[2]);
  f[4] = v * sin(y[2]);
  (void)t;
  return GSL_SUCCESS;
}

typedef struct {
  co_par p;
  gsl_odeiv2_system sys;
  gsl_odeiv2_driver *drv;
  double t, y[5]; /* w, v, phi, x, y */
} co_run;

/* Starts at (w0, v0), heading 0, contact point at the origin, t = 0; h0 is
 * the first trial step (its sign the direction). */
static inline void co_start(co_run *r, const ssw_tensor *T, double kappa,
                            double w0, double v0, double h0) {
  r->p = co_params(T, kappa);
  r->sys = (gsl_odeiv2_system){co_rhs, NULL, 5, &r->p};
  r->drv = gsl_odeiv2_driver_alloc_y_new(&r->sys, gsl_odeiv2_step_rk8pd, h0,
                                         CO_TOL, CO_TOL);
  r->t = 0.0;
  const double y0[5] = {w0, v0, 0.0, 0.0, 0.0};
  for (int i = 0; i < 5; i++)
    r->y[i] = y0[i];
}

static inline int co_to(co_run *r, double t) {
  return gsl_odeiv2_driver_apply(r->drv, &r->t, t, r->y);
}

static inline void co_free(co_run *r) { gsl_odeiv2_driver_free(r->drv); }

/* The state of largest (arc +1) or smallest (arc -1) g on the energy
 * ellipse zeta^T K zeta = 2 H: arc sqrt(2 H) K^-1 n / sqrt(n^T K^-1 n),
 * n = (L1, Z); there |g - kappa| is largest on the arc. */
static inline void co_extreme(const ssw_tensor *T, double H, int arc, double *w,
                              double *v) {
  const double D = T->M * T->J - T->L2 * T->L2;
  const double k1 = (T->M * T->L1 + T->L2 * T->Z) / D;
  const double k2 = (T->L2 * T->L1 + T->J * T->Z) / D;
  const double s = arc * sqrt(2.0 * H / (T->L1 * k1 + T->Z * k2));
  *w = s * k1;
  *v = s * k2;
}

/* One period measured from the reference: integrate to the guess Tg,
 * correct it by the first-order phase offset of the end state along
 * zeta'(0), and once more from the corrected time. out = {T, heading,
 * x, y} at the return of the reduced state. Returns a GSL status. */
static inline int co_period(const ssw_tensor *T, double kappa, double w0,
                            double v0, double Tg, double out[4]) {
  for (int i = 0; i < 4; i++)
    out[i] = NAN;
  co_par p = co_params(T, kappa);
  double f0[5];
  const double y0[5] = {w0, v0, 0.0, 0.0, 0.0};
  co_rhs(0.0, y0, f0, &p);
  const double n2 = f0[0] * f0[0] + f0[1] * f0[1];
  double Tm = Tg;
  for (int it = 0; it < 2; it++) {
    co_run r;
    co_start(&r, T, kappa, w0, v0, 1e-4 * Tm);
    const int st = co_to(&r, Tm);
    if (st != GSL_SUCCESS) {
      co_free(&r);
      return st;
    }
    double f1[5];
    co_rhs(Tm, r.y, f1, &p);
    const double dt = ((r.y[0] - w0) * f0[0] + (r.y[1] - v0) * f0[1]) / n2;
    out[0] = Tm - dt;
    for (int i = 1; i < 4; i++)
      out[i] = r.y[i + 1] - f1[i + 1] * dt;
    Tm = out[0];
    co_free(&r);
  }
  return GSL_SUCCESS;
}

/* A transition measured from the reference, started at its instant of
 * largest |g - kappa| (so t0 = 0) and followed to +-tend: the transition
 * angle (difference at t0 of the two asymptotic heading lines), the end
 * states {wf, vf, wp, vp} and the distance d of the two limit-circle
 * centres z + i (v / w) e^{i phi}. out = {dphi, wf, vf, wp, vp, d}. */
static inline int co_transition(const ssw_tensor *T, double kappa, double w0,
                                double v0, double tend, double out[6]) {
  double end[2][5];
  for (int i = 0; i < 6; i++)
    out[i] = NAN;
  for (int dir = 0; dir < 2; dir++) {
    const double sg = dir == 0 ? 1.0 : -1.0;
    co_run r;
    co_start(&r, T, kappa, w0, v0, sg * 1e-4 * tend);
    const int st = co_to(&r, sg * tend);
    for (int i = 0; i < 5; i++)
      end[dir][i] = r.y[i];
    co_free(&r);
    if (st != GSL_SUCCESS) return st;
  }
  const double *f = end[0], *p = end[1];
  out[0] = (f[2] - f[0] * tend) - (p[2] + p[0] * tend);
  out[1] = f[0], out[2] = f[1], out[3] = p[0], out[4] = p[1];
  const double yf = f[1] / f[0], yp = p[1] / p[0];
  const double cfx = f[3] - yf * sin(f[2]), cfy = f[4] + yf * cos(f[2]);
  const double cpx = p[3] - yp * sin(p[2]), cpy = p[4] + yp * cos(p[2]);
  out[5] = hypot(cfx - cpx, cfy - cpy);
  return GSL_SUCCESS;
}

#endif
