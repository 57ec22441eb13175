/* The exact path (heading and contact point) against GSL's rk8pd at tight
 * tolerances, the tractrix's elementary form, and every regime. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <stdlib.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/model.h"
#include "sleighsweep/ode.h"
#include "test_util.h"

/* Full equations on (w, v, phi, x, y) (docs/theory/exact-path.md): the
 * engine's ssw_model_rhs, integrated by GSL instead of the engine's schemes. */
static int rhs(double t, const double y[], double f[], void *p) {
  const ssw_tensor *T = p;
  ssw_reduced e;
  ssw_model_reduce(T, &e);
  ssw_model_rhs(&e, t, y, f);
  return GSL_SUCCESS;
}

/* Reference: rk8pd with absolute and relative local tolerance 1e-14. */
typedef struct {
  gsl_odeiv2_system sys;
  gsl_odeiv2_driver *drv;
  double t, y[5];
} ref_run;

static void ref_start(ref_run *r, ssw_tensor *T, double w0, double v0,
                      double h0) {
  r->sys = (gsl_odeiv2_system){rhs, NULL, 5, T};
  r->drv = gsl_odeiv2_driver_alloc_y_new(&r->sys, gsl_odeiv2_step_rk8pd, h0,
                                         1e-14, 1e-14);
  r->t = 0.0;
  const double y0[5] = {w0, v0, 0.0, 0.0, 0.0};
  for (int i = 0; i < 5; i++)
    r->y[i] = y0[i];
}

static int ref_to(ref_run *r, double t) {
  return gsl_odeiv2_driver_apply(r->drv, &r->t, t, r->y);
}

typedef struct {
  double phi, pos; /* largest heading (rad) and contact-point error */
  double scale;    /* largest distance of the path from the origin */
} path_err;

/* Compares the exact path with the reference at 2 n nodes of each sign of
 * time, out to Arate |t| = span (or |w0| |t| = span for uniform motion). */
static path_err compare(ssw_tensor T, int regime, double w0, double v0,
                        double span, int n) {
  ssw_orbit o;
  path_err e = {0, 0, 1e-300};
  EXPECT(ssw_analytic_orbit(&T, regime, w0, v0, &o) == 0, "orbit failed");
  const double wmax = sqrt(2 * o.H * T.M / ssw_model_D(&T));
  const double tscale = span / fmax(o.rate, wmax);
  for (int dir = -1; dir <= 1; dir += 2) {
    ref_run r;
    ref_start(&r, &T, w0, v0, dir * 1e-3 * tscale);
    double x = 0, y = 0, tprev = 0;
    for (int k = 1; k <= n; k++) {
      const double t = dir * tscale * k / n;
      EXPECT(ref_to(&r, t) == GSL_SUCCESS, "reference failed at t=%g", t);
      double dx, dy;
      ssw_analytic_orbit_advance(&o, tprev, t, &dx, &dy);
      x += dx, y += dy, tprev = t;
      const double ph = ssw_analytic_orbit_heading(&o, t);
      e.phi = fmax(e.phi, fabs(ph - r.y[2]));
      e.pos = fmax(e.pos, hypot(x - r.y[3], y - r.y[4]));
      e.scale = fmax(e.scale, hypot(x, y));
      /* The one-call form gives the same point (one quadrature 0 -> t). */
      double p1, x1, y1;
      ssw_analytic_path(&T, regime, w0, v0, t, &p1, &x1, &y1);
      EXPECT(hypot(x1 - x, y1 - y) <= 1e-12 * fmax(1, e.scale),
             "segment sum and one-call path differ by %.3g",
             hypot(x1 - x, y1 - y));
    }
    gsl_odeiv2_driver_free(r.drv);
  }
  return e;
}

static ssw_tensor tensor_of(ssw_body bd, ssw_params p, int *regime) {
  ssw_tensor t;
  EXPECT(ssw_model_tensor(&bd, &p, &t) == 0, "invalid body");
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, regime);
  return t;
}

/* Tolerances: the reference's local tolerance is 1e-14 over ~1e3 steps, the
 * quadrature ~1e-15 per panel; 1e-10 in heading and 1e-10 of the path's
 * extent (at least one length unit) leaves a margin of ~10-100 over the
 * reference's own accumulated error. */
#define TOL_PHI 1e-10
#define TOL_POS 1e-10

static void check_case(const char *what, ssw_body bd, ssw_params p,
                       int want_regime, double w0, double v0) {
  int regime;
  ssw_tensor t = tensor_of(bd, p, &regime);
  EXPECT(want_regime < 0 || regime == want_regime, "%s: regime %s", what,
         ssw_regime_name(regime));
  const path_err e = compare(t, regime, w0, v0, 15.0, 12);
  EXPECT(e.phi <= TOL_PHI && e.pos <= TOL_POS * fmax(1, e.scale),
         "%s: heading error %.3g, position error %.3g (extent %.3g)", what,
         e.phi, e.pos, e.scale);
  printf("%-22s heading err %.2e  path err %.2e  (extent %.3g)\n", what, e.phi,
         e.pos, e.scale);
}

static void test_regimes(void) {
  const ssw_body seed = SEED_BODY;
  ssw_params p = SEED_PARAMS(0.0);
  check_case("circle_to_circle", seed, p, SSW_REGIME_CIRCLE_TO_CIRCLE, 1.5,
             1.0);
  p = SEED_PARAMS(0.1);
  check_case("circle b = 0.1", seed, p, SSW_REGIME_CIRCLE_TO_CIRCLE, 1.5, 1.0);
  p = SEED_PARAMS(0.0), p.a = 0.0;
  check_case("spin_reversal", seed, p, SSW_REGIME_SPIN_REVERSAL, 1.5, 1.0);
  p = SEED_PARAMS(0.0), p.theta = 0.0;
  check_case("line_to_line (fluid)", seed, p, SSW_REGIME_LINE_TO_LINE, 1.5,
             1.0);
  ssw_body dry = seed;
  dry.rho = 0.0;
  p = SEED_PARAMS(0.0), p.a = 0.15; /* 4.82 pi: two loops */
  check_case("classical a = 0.15", dry, p, SSW_REGIME_LINE_TO_LINE, 1.5, 1.0);
  p = SEED_PARAMS(0.1), p.r = 0.3, p.s = -0.2;
  check_case("Model II", seed, p, SSW_REGIME_CIRCLE_TO_CIRCLE, -0.7, 1.2);
  p = SEED_PARAMS(0.0), p.a = 0.0, p.theta = M_PI / 2;
  check_case("uniform", seed, p, SSW_REGIME_UNIFORM, 1.5, 1.0);
  /* A start on the line of equilibria: uniform motion on the limit
   * circle (L1 w + Z v = 0 exactly for w0 = Z, v0 = -L1). */
  int regime;
  p = SEED_PARAMS(0.1);
  ssw_tensor t = tensor_of(seed, p, &regime);
  check_case("equilibrium start", seed, p, SSW_REGIME_CIRCLE_TO_CIRCLE, t.Z,
             -t.L1);
}

/* I0 = 0 on a dry plane: no force acts (the blade force vanishes
 * identically), so the centre of mass moves uniformly and the contact point
 * trails it at the fixed body offset (a, b): z_P = z_C(0) + V_C t -
 * (a + i b) e^{i phi}. The heading is phi = sigma c1 (gd u - gd u0) with
 * c1 = sign(a): it turns by exactly pi over the whole motion. */
static void test_tractrix(void) {
  unsigned long long seed = 23;
  for (int i = 0; i < 40; i++) {
    ssw_body bd = {.m = test_uniform(&seed, 0.1, 10),
                   .I0 = 0.0,
                   .rho = 0.0,
                   .k_rot = SSW_KROT_PAPERS};
    ssw_params p = {test_uniform(&seed, 0, M_PI),
                    test_uniform(&seed, -3, 3),
                    test_uniform(&seed, -3, 3),
                    0,
                    0,
                    0.5,
                    0.3};
    if (fabs(p.a) < 0.05) continue;
    int regime;
    ssw_tensor t = tensor_of(bd, p, &regime);
    EXPECT(regime == SSW_REGIME_LINE_TO_LINE, "tractrix regime %s",
           ssw_regime_name(regime));
    ssw_analytic an;
    ssw_analytic_compute(&t, regime, &an);
    EXPECT_REL(fabs(an.c1), 1.0, 1e-14, "tractrix |c1|");
    const double ang = test_uniform(&seed, 0, 2 * M_PI);
    const double w0 = cos(ang), v0 = sin(ang);
    const double vcx = v0 - w0 * p.b, vcy = w0 * p.a;
    ssw_orbit o;
    ssw_analytic_orbit(&t, regime, w0, v0, &o);
    const double tscale = 20.0 / fmax(o.rate, 1e-300);
    double emax = 0, fmax_ = 0;
    for (int k = -10; k <= 10; k++) {
      const double tk = tscale * k / 10.0;
      double ph, xe, ye;
      ssw_analytic_path(&t, regime, w0, v0, tk, &ph, &xe, &ye);
      const double phe = o.sigma * an.c1 *
                         (2 * atan(tanh(0.5 * (o.u0 + o.rate * tk))) -
                          2 * atan(tanh(0.5 * o.u0)));
      const double zx = p.a + vcx * tk - (p.a * cos(phe) - p.b * sin(phe));
      const double zy = p.b + vcy * tk - (p.a * sin(phe) + p.b * cos(phe));
      const double sc = 1 + hypot(vcx, vcy) * fabs(tk) + hypot(p.a, p.b);
      EXPECT(fabs(ph - phe) <= 1e-13, "tractrix heading %.17g vs %.17g", ph,
             phe);
      emax = fmax(emax, hypot(xe - zx, ye - zy) / sc);
      double w, v;
      ssw_analytic_orbit_state(&o, tk, &w, &v);
      fmax_ = fmax(fmax_, fabs(test_blade(&t, w, v)) /
                              (fabs(t.M * v * w) + t.J * w * w + 1e-300));
    }
    EXPECT(emax <= 1e-12, "tractrix path error %.3g (relative)", emax);
    EXPECT(fmax_ <= 1e-13, "tractrix blade force %.3g not 0", fmax_);
    /* And against the independent integration. */
    const path_err e = compare(t, regime, w0, v0, 15.0, 6);
    EXPECT(e.phi <= TOL_PHI && e.pos <= TOL_POS * fmax(1, e.scale),
           "tractrix vs rk8pd: heading %.3g, position %.3g", e.phi, e.pos);
  }
}

/* Seeded random bodies over the whole domain of the issue. */
static void test_random(void) {
  unsigned long long seed = 2026;
  double worst_phi = 0, worst_pos = 0;
  int n = 0;
  for (int i = 0; i < 300; i++) {
    const double A = test_uniform(&seed, 0.1, 5);
    ssw_body bd = {.m = test_uniform(&seed, 0.1, 10),
                   .I0 = test_uniform(&seed, 0.01, 5),
                   .rho = test_uniform(&seed, 0, 10),
                   .k_rot = SSW_KROT_PAPERS};
    ssw_params p = {
        test_uniform(&seed, 0, M_PI),       test_uniform(&seed, -3, 3),
        test_uniform(&seed, -3, 3),         test_uniform(&seed, -2, 2),
        test_uniform(&seed, -2, 2),         A,
        A * test_uniform(&seed, 0.02, 0.99)};
    if (i % 10 == 0) bd.I0 = 0.0, bd.rho = 0.0; /* tractrix family */
    ssw_tensor t;
    int regime;
    if (ssw_model_tensor(&bd, &p, &t) != 0) continue;
    ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
    const double ang = test_uniform(&seed, 0, 2 * M_PI);
    /* On the energy ellipse H = 1/2 through the angle ang. */
    const double cw = cos(ang), cv = sin(ang);
    const double h = SSW_MODEL_ENERGY(&t, cw, cv);
    const double w0 = cw / sqrt(2 * h), v0 = cv / sqrt(2 * h);
    const path_err e = compare(t, regime, w0, v0, 12.0, 8);
    EXPECT(e.phi <= TOL_PHI && e.pos <= TOL_POS * fmax(1, e.scale),
           "random body %d (%s): heading %.3g, position %.3g, extent %.3g", i,
           ssw_regime_name(regime), e.phi, e.pos, e.scale);
    worst_phi = fmax(worst_phi, e.phi);
    worst_pos = fmax(worst_pos, e.pos / fmax(1, e.scale));
    n++;
  }
  EXPECT(n >= 250, "only %d random bodies valid", n);
  printf("random bodies: %d, worst heading err %.2e, worst path err %.2e "
         "(relative to max(1, extent))\n",
         n, worst_phi, worst_pos);
}

/* The quadrature is converged: panels 8x shorter than the library's choice
 * move the contact point by no more than the summation's round-off
 * (~1e-13 of max(1, extent) over a few thousand panels). */
static void test_quadrature_converged(void) {
  unsigned long long seed = 4242;
  double worst = 0;
  for (int i = 0; i < 200; i++) {
    const double A = test_uniform(&seed, 0.1, 5);
    ssw_body bd = {.m = test_uniform(&seed, 0.1, 10),
                   .I0 = test_uniform(&seed, 0.01, 5),
                   .rho = test_uniform(&seed, 0, 10),
                   .k_rot = SSW_KROT_PAPERS};
    ssw_params p = {
        test_uniform(&seed, 0, M_PI),       test_uniform(&seed, -3, 3),
        test_uniform(&seed, -3, 3),         test_uniform(&seed, -2, 2),
        test_uniform(&seed, -2, 2),         A,
        A * test_uniform(&seed, 0.02, 0.99)};
    const double ang = test_uniform(&seed, 0, 2 * M_PI);
    ssw_tensor t;
    int regime;
    if (ssw_model_tensor(&bd, &p, &t) != 0) continue;
    ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
    ssw_orbit o;
    if (ssw_analytic_orbit(&t, regime, cos(ang), sin(ang), &o) != 0 ||
        o.sigma == 0)
      continue;
    for (int dir = -1; dir <= 1; dir += 2) {
      const double T = dir * 20.0 / o.rate;
      double x0, y0, x1, y1;
      ssw_analytic_orbit_advance(&o, 0, T, &x0, &y0);
      ssw_orbit fine = o;
      fine.panel = o.panel / 8;
      ssw_analytic_orbit_advance(&fine, 0, T, &x1, &y1);
      const double e = hypot(x1 - x0, y1 - y0) / fmax(1, hypot(x1, y1));
      worst = fmax(worst, e);
    }
  }
  EXPECT(worst <= 1e-12, "quadrature not converged: %.3g", worst);
  printf("quadrature: panels / 8 change the path by <= %.2e (relative)\n",
         worst);
}

int main(void) {
  gsl_set_error_handler_off();
  test_quadrature_converged();
  test_regimes();
  test_tractrix();
  test_random();
  return TEST_RESULT();
}
