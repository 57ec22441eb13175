/* The blade's lateral force: the momentum balance along the exact motion,
 * its measured maximum along a GSL rk8pd integration vs the closed form,
 * the classical sleigh (Cech & Musilova 2014) and I0 = 0. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <stdlib.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/error.h"
#include "sleighsweep/model.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"
#include "wide_batch.h"

/* The engine's reduced equations (w, v). */
static int rhs(double t, const double y[], double f[], void *p) {
  ssw_model_zeta_rate(p, y[0], y[1], &f[0], &f[1]);
  (void)t;
  return GSL_SUCCESS;
}

/* Lab-frame linear momentum of body + fluid at time t of the exact motion:
 * e^{i phi} (p1 + i p2), p1 = -L2 w + M v, p2 = L1 w + Z v, written here
 * from the tensor's definition (docs/theory/blade-force.md), not taken from
 * the physics module: an independent oracle for its blade force. */
static void lab_momentum(const ssw_orbit *o, const ssw_tensor *T, double t,
                         double *Px, double *Py) {
  double w, v;
  ssw_analytic_orbit_state(o, t, &w, &v);
  const double ph = ssw_analytic_orbit_heading(o, t);
  const double p1 = -T->L2 * w + T->M * v, p2 = T->L1 * w + T->Z * v;
  *Px = cos(ph) * p1 - sin(ph) * p2;
  *Py = sin(ph) * p1 + cos(ph) * p2;
}

/* Newton's law for body + fluid: the blade's force is the only external
 * force, so dP/dt = F n with n = e^{i phi} i the blade normal; the
 * component along the blade must vanish (no friction along it). dP/dt by
 * the 4th-order central difference of the exact motion (error ~ (Arate
 * dt)^4 ~ 1e-12 relative, round-off ~ 1e-16 / 1e-3). */
static void test_momentum_balance(void) {
  double worst = 0;
  for (int i = 0; i < 200; i++) {
    wb_draw b;
    if (wb_draw_one(99, i, &b) != 0) continue;
    ssw_orbit o;
    ssw_analytic_orbit(&b.t, b.regime, b.w0, b.v0, &o);
    const double wmax = sqrt(2 * o.H * b.t.M / ssw_model_D(&b.t));
    const double sc = fmax(o.rate, wmax), dt = 1e-3 / sc;
    for (int k = -4; k <= 4; k++) {
      const double t = o.t0 + k / o.rate;
      double P[4][2];
      const double off[4] = {-2, -1, 1, 2};
      for (int j = 0; j < 4; j++)
        lab_momentum(&o, &b.t, t + off[j] * dt, &P[j][0], &P[j][1]);
      const double dPx =
          (P[0][0] - 8 * P[1][0] + 8 * P[2][0] - P[3][0]) / (12 * dt);
      const double dPy =
          (P[0][1] - 8 * P[1][1] + 8 * P[2][1] - P[3][1]) / (12 * dt);
      double w, v;
      ssw_analytic_orbit_state(&o, t, &w, &v);
      const double ph = ssw_analytic_orbit_heading(&o, t);
      const double along = cos(ph) * dPx + sin(ph) * dPy;
      const double normal = -sin(ph) * dPx + cos(ph) * dPy;
      const double F = test_blade(&b.t, w, v);
      /* Scale: the force needed to turn the momentum at the rate sc. */
      const double scale = sc * (fabs(b.t.M * v) + fabs(b.t.L2 * w) +
                                 fabs(b.t.L1 * w) + fabs(b.t.Z * v));
      const double e = fmax(fabs(normal - F), fabs(along)) / scale;
      worst = fmax(worst, e);
      EXPECT(e <= 1e-8, "body %d t-t0=%g: F %.12g vs dP.n %.12g, dP.e1 %.3g", i,
             t - o.t0, F, normal, along);
    }
  }
  printf("momentum balance: worst |dP/dt - F n| %.2e of the scale\n", worst);
}

/* F is a quadratic form in (w, v); by polarisation S = [[F(1,0),
 * (F(1,1) - F(1,-1))/4], [., F(0,1)]], and max |F| / H over the energy level
 * is 2 max |lambda| of S u = lambda K u. Over one motion (w, v) covers half
 * of the energy ellipse, and F(-w, -v) = F(w, v), so the maximum over the
 * motion is that over the whole level. */
static double eigen_bound(const ssw_tensor *T) {
  const double a = test_blade(T, 1, 0), c = test_blade(T, 0, 1),
               bb = 0.25 * (test_blade(T, 1, 1) - test_blade(T, 1, -1));
  const double J = T->J, M = T->M, L2 = T->L2, D = M * J - L2 * L2;
  const double tr = (M * a + J * c + 2 * L2 * bb) / D;
  const double det = (a * c - bb * bb) / D;
  return 2 * (fabs(tr / 2) + sqrt(fmax(tr * tr / 4 - det, 0)));
}

typedef struct {
  gsl_odeiv2_system sys;
  gsl_odeiv2_driver *drv;
} ref;

static double force_at(ref *r, const ssw_tensor *T, const double y0[2],
                       double t0, double t) {
  double y[2] = {y0[0], y0[1]}, tt = t0;
  gsl_odeiv2_driver_reset(r->drv);
  if (t != t0) gsl_odeiv2_driver_apply(r->drv, &tt, t, y);
  return fabs(test_blade(T, y[0], y[1]));
}

/* Largest |F| along a rk8pd integration (tolerance 1e-14) over Arate |t| <=
 * 25 (the limit circles are then reached to e^-25): the best of nodes
 * 0.02 / rate apart, refined by golden-section search between its
 * neighbours, each evaluation integrating afresh from the left node. */
static double measured_max(const wb_draw *b) {
  const double H = b->H;
  ssw_tensor T = b->t;
  ref r;
  ssw_reduced E;
  ssw_model_reduce(&T, &E);
  r.sys = (gsl_odeiv2_system){rhs, NULL, 2, &E};
  const double D = ssw_model_D(&T);
  const double rate = sqrt(2 * H * ssw_model_E(&T)) / D;
  const double wmax = sqrt(2 * H * T.M / D);
  const double dt = 0.02 / fmax(rate, wmax);
  const int n = (int)ceil(25.0 / rate / dt);
  double best = -1, bt = 0, by[2] = {0, 0};
  int bdir = 1;
  for (int dir = -1; dir <= 1; dir += 2) {
    r.drv = gsl_odeiv2_driver_alloc_y_new(&r.sys, gsl_odeiv2_step_rk8pd,
                                          dir * dt, 1e-14, 1e-14);
    double y[2] = {b->w0, b->v0}, t = 0;
    for (int k = 1; k <= n; k++) {
      const double prev[2] = {y[0], y[1]}, tp = t;
      gsl_odeiv2_driver_apply(r.drv, &t, dir * dt * k, y);
      const double f = fabs(test_blade(&T, y[0], y[1]));
      if (f > best) {
        best = f, bt = tp, bdir = dir;
        by[0] = prev[0], by[1] = prev[1];
      }
    }
    gsl_odeiv2_driver_free(r.drv);
  }
  /* Golden section on the two steps around the best node. */
  const double g = 0.5 * (sqrt(5.0) - 1);
  r.drv = gsl_odeiv2_driver_alloc_y_new(&r.sys, gsl_odeiv2_step_rk8pd,
                                        bdir * dt * 0.1, 1e-14, 1e-14);
  double lo = bt, hi = bt + bdir * 2 * dt;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = force_at(&r, &T, by, bt, x1), f2 = force_at(&r, &T, by, bt, x2);
  for (int it = 0; it < 60; it++) {
    if (f1 > f2) {
      hi = x2, x2 = x1, f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = force_at(&r, &T, by, bt, x1);
    } else {
      lo = x1, x1 = x2, f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = force_at(&r, &T, by, bt, x2);
    }
  }
  gsl_odeiv2_driver_free(r.drv);
  const double best_ref = fmax(best, fmax(f1, f2));
  return best_ref / H;
}

static void test_max_random(void) {
  double worst = 0;
  int n = 0;
  for (int i = 0; i < 120; i++) {
    wb_draw b;
    if (wb_draw_one(314, i, &b) != 0) continue;
    double fp, fm;
    EXPECT(ssw_analytic_blade_force_max(&b.t, b.regime, 1, &fp) == 0, "fmax");
    EXPECT(ssw_analytic_blade_force_max(&b.t, b.regime, -1, &fm) == 0, "fmax");
    EXPECT_REL(fm, fp, 1e-13, "max |F|/H independent of the side");
    EXPECT_REL(fp, eigen_bound(&b.t), 1e-11, "max |F|/H vs eigenvalue form");
    if (n < 60) {
      const double meas = measured_max(&b);
      const double e = fabs(meas - fp) / fp;
      worst = fmax(worst, e);
      EXPECT(e <= 1e-9,
             "body %d (%s): measured max |F|/H %.15g vs closed "
             "form %.15g (rel. %.3g)",
             i, ssw_regime_name(b.regime), meas, fp, e);
    }
    n++;
  }
  EXPECT(n >= 100, "only %d random bodies", n);
  printf("max |F|/H: %d bodies, measured (rk8pd, 1e-14) vs closed form "
         "worst %.2e\n",
         n < 60 ? n : 60, worst);
}

/* Classical sleigh (rho = 0, b = 0): F = m I0 / (I0 + m a^2) w v (2014
 * paper, sec. 4.3), and with J w^2 + m v^2 = 2 H the largest |w v| is
 * H / sqrt(J m): max |F| / H = I0 sqrt(m) / (I0 + m a^2)^{3/2}. */
static void test_classical(void) {
  unsigned long long seed = 5;
  for (int i = 0; i < 200; i++) {
    ssw_body bd = {.m = test_uniform(&seed, 0.1, 10),
                   .I0 = test_uniform(&seed, 0.01, 5),
                   .rho = 0.0,
                   .k_rot = SSW_KROT_PAPERS};
    ssw_params p = {test_uniform(&seed, 0, M_PI),
                    test_uniform(&seed, -3, 3),
                    0,
                    0,
                    0,
                    0.5,
                    0.3};
    if (fabs(p.a) < 1e-3) continue;
    ssw_tensor t;
    int regime;
    ssw_model_tensor(&bd, &p, &t);
    ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
    const double m = bd.m, I0 = bd.I0, a = p.a, J = I0 + m * a * a;
    const double w = test_uniform(&seed, -2, 2), v = test_uniform(&seed, -2, 2);
    /* The general form computes m w v - m w v m a^2 / J: its round-off is
     * a few ulp of m w v, i.e. ~ 8 eps J / I0 relative to the result. */
    const double tol = 8 * 0x1p-52 * J / I0 + 1e-15;
    EXPECT_REL(test_blade(&t, w, v), m * I0 / J * w * v, tol, "classical F");
    double f;
    ssw_analytic_blade_force_max(&t, regime, 1, &f);
    EXPECT_REL(f, I0 * sqrt(m) / pow(J, 1.5), 2 * tol, "classical max |F|/H");
    /* I0 = 0: the blade carries no load at all. */
    bd.I0 = 0;
    ssw_model_tensor(&bd, &p, &t);
    ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
    ssw_analytic_blade_force_max(&t, regime, -1, &f);
    /* |F| / H has units 1/length; the body's length here is |a|. */
    EXPECT(fabs(f) <= 1e-14 / fabs(a), "I0 = 0: max |F|/H = %.3g, expected 0",
           f);
  }
  ssw_tensor t = {.J = 1, .M = 1, .N = 1};
  double f;
  EXPECT(ssw_analytic_blade_force_max(&t, SSW_REGIME_UNIFORM, 0, &f) ==
             SSW_ERR_ARG,
         "sigma = 0 accepted");
}

int main(void) {
  gsl_set_error_handler_off();
  test_momentum_balance();
  test_max_random();
  test_classical();
  return TEST_RESULT();
}
