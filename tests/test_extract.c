/* Extraction against the closed form (docs/theory/model.md secs. 4, 5, 7). */
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "test_util.h"
#include "wide_batch.h"

typedef struct {
  ssw_tensor t;
  int regime;
  ssw_analytic an;
} body_case;

static body_case make(ssw_body bd, ssw_params p) {
  body_case c;
  EXPECT(ssw_model_tensor(&bd, &p, &c.t) == 0, "invalid body");
  ssw_model_classify(&c.t, SSW_ZERO_TOL_DEFAULT, &c.t, &c.regime);
  ssw_analytic_compute(&c.t, c.regime, &c.an);
  return c;
}

static ssw_traj run(const body_case *c, double w0, double v0,
                    const ssw_integrator *o) {
  ssw_traj r;
  EXPECT(ssw_extract_run(&c->t, c->regime, w0, v0, o, NULL, NULL, &r) == 0,
         "extract failed");
  return r;
}

/* Every measured quantity of a circle/spin trajectory vs the closed form. */
static void check_closed_form(const body_case *c, const ssw_traj *r, double w0,
                              double v0, double tol, const char *what) {
  char buf[160];
  EXPECT(r->converged, "%s: not converged (flags %d)", what, r->flags);
  if (c->regime == SSW_REGIME_SPIN_REVERSAL) {
    EXPECT_ABS(r->r_future, 0.0, 1e-10, what);
  } else if (c->regime == SSW_REGIME_CIRCLE_TO_CIRCLE) {
    snprintf(buf, sizeof buf, "%s r_future", what);
    EXPECT_REL(r->r_future, c->an.radius, tol, buf);
    snprintf(buf, sizeof buf, "%s r_past", what);
    EXPECT_REL(r->r_past, c->an.radius, tol, buf);
  }
  if (c->regime != SSW_REGIME_LINE_TO_LINE) {
    snprintf(buf, sizeof buf, "%s d", what);
    EXPECT_REL(r->d, c->an.d, tol, buf);
    EXPECT(r->sense_future == c->an.sense_future &&
               r->sense_past == -c->an.sense_future,
           "%s: senses %d/%d, expected %d in the future", what, r->sense_past,
           r->sense_future, c->an.sense_future);
  }
  const int sigma = ssw_analytic_sigma(&c->t, w0, v0);
  snprintf(buf, sizeof buf, "%s dphi", what);
  EXPECT_REL(r->dphi, ssw_analytic_dphi(&c->an, sigma), tol, buf);
  EXPECT(r->loops == c->an.loops, "%s: loops %d, closed form %d", what,
         r->loops, c->an.loops);
  /* t0: the closed-form solution through the measured t0 passes through
   * the initial state at t = 0. */
  double w, v;
  ssw_analytic_state(&c->an, r->H0, sigma, r->t0, 0.0, &w, &v);
  snprintf(buf, sizeof buf, "%s t0 (omega(0))", what);
  EXPECT_ABS(w, w0, tol * (fabs(w0) + fabs(v0)), buf);
  snprintf(buf, sizeof buf, "%s t0 (v(0))", what);
  EXPECT_ABS(v, v0, tol * (fabs(w0) + fabs(v0)), buf);
}

static void test_seed_case(void) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  for (int k = 0; k < 2; k++) {
    const double b = k ? 0.1 : 0.0;
    const body_case c = make(SEED_BODY, SEED_PARAMS(b));
    EXPECT(c.regime == SSW_REGIME_CIRCLE_TO_CIRCLE, "seed regime");
    const ssw_traj r = run(&c, 1.5, 1.0, &o);
    check_closed_form(&c, &r, 1.5, 1.0, 1e-8,
                      k ? "seed b=0.1 defaults" : "seed b=0 defaults");
    EXPECT(r.energy_error < 1e-13, "seed energy error %.3g", r.energy_error);
  }
}

static void test_classical(void) {
  ssw_body bd = SEED_BODY;
  bd.rho = 0.0;
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  const double a[2] = {0.5, 0.15}, paper[2] = {1.732, 4.819};
  for (int k = 0; k < 2; k++) {
    ssw_params p = SEED_PARAMS(0.0);
    p.a = a[k];
    const body_case c = make(bd, p);
    EXPECT(c.regime == SSW_REGIME_LINE_TO_LINE, "classical regime");
    const ssw_traj r = run(&c, 1.5, 1.0, &o);
    check_closed_form(&c, &r, 1.5, 1.0, 1e-8, "classical sleigh");
    EXPECT_ABS(fabs(r.dphi) / M_PI, paper[k], 5e-4, "classical |dphi|/pi");
    EXPECT(isinf(r.r_future) && isinf(r.r_past), "classical radii finite");
  }
}

/* theta in (0, pi/2), a > 0: clockwise at the end; (pi/2, pi): counter. */
static void test_senses(void) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  for (int i = 1; i < 24; i++) {
    if (i == 12) continue;
    ssw_params p = SEED_PARAMS(0.0);
    p.theta = i * M_PI / 24;
    const body_case c = make(SEED_BODY, p);
    const ssw_traj r = run(&c, 0.3, -1.2, &o);
    const int want = i < 12 ? -1 : 1;
    EXPECT(r.sense_future == want && c.an.sense_future == want,
           "theta = %d pi/24: sense %d (closed form %d), expected %d", i,
           r.sense_future, c.an.sense_future, want);
    check_closed_form(&c, &r, 0.3, -1.2, 1e-7, "theta sweep");
  }
}

/* Regimes beyond the generic one: spin reversal, Model II, uniform. */
static void test_regimes(void) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  ssw_params p = SEED_PARAMS(0.1);
  p.a = 0.0;
  body_case c = make(SEED_BODY, p);
  EXPECT(c.regime == SSW_REGIME_SPIN_REVERSAL, "a = 0 regime");
  ssw_traj r = run(&c, 1.5, 1.0, &o);
  check_closed_form(&c, &r, 1.5, 1.0, 1e-8, "spin reversal");
  p = SEED_PARAMS(0.05);
  p.r = 0.1, p.s = -0.07;
  c = make(SEED_BODY, p);
  r = run(&c, -0.4, 0.9, &o);
  check_closed_form(&c, &r, -0.4, 0.9, 1e-8, "Model II");
  p = SEED_PARAMS(0.0);
  p.theta = 0.0;
  c = make(SEED_BODY, p);
  r = run(&c, 1.5, 1.0, &o);
  check_closed_form(&c, &r, 1.5, 1.0, 1e-8, "theta = 0 (line to line)");
  p.a = 0.0;
  p.theta = M_PI / 2;
  c = make(SEED_BODY, p);
  EXPECT(c.regime == SSW_REGIME_UNIFORM, "uniform regime");
  r = run(&c, 0.5, 2.0, &o);
  EXPECT(r.converged && r.d == 0.0 && r.dphi == 0.0 && r.steps == 0,
         "uniform: converged %d d %g dphi %g steps %lld", r.converged, r.d,
         r.dphi, (long long)r.steps);
  EXPECT_REL(r.r_future, 4.0, 1e-15, "uniform radius |v0/w0|");
}

/* Random bodies (Model II, both signs of everything) at the defaults. */
static void test_random_bodies(void) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  unsigned long long seed = 2024;
  int n = 0;
  for (int i = 0; i < 60; i++) {
    ssw_body bd = {.m = test_uniform(&seed, 0.5, 2),
                   .I0 = test_uniform(&seed, 0.2, 1),
                   .rho = test_uniform(&seed, 0, 2),
                   .k_rot = SSW_KROT_PAPERS};
    ssw_params p = {test_uniform(&seed, 0, M_PI),
                    test_uniform(&seed, -0.6, 0.6),
                    test_uniform(&seed, -0.3, 0.3),
                    test_uniform(&seed, -0.2, 0.2),
                    test_uniform(&seed, -0.2, 0.2),
                    0.5,
                    0.3};
    ssw_tensor t;
    if (ssw_model_tensor(&bd, &p, &t) != 0) continue;
    const body_case c = make(bd, p);
    const double ang = test_uniform(&seed, 0, 2 * M_PI);
    const double w0 = cos(ang), v0 = 2 * sin(ang);
    const ssw_traj r = run(&c, w0, v0, &o);
    char what[64];
    snprintf(what, sizeof what, "random body %d", i);
    check_closed_form(&c, &r, w0, v0, 1e-7, what);
    n++;
  }
  EXPECT(n >= 50, "only %d random bodies valid", n);
}

/* Stopping at a moderate |g| plus the tail == integrating to round-off. */
static void test_tail(void) {
  const body_case c = make(SEED_BODY, SEED_PARAMS(0.1));
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.rtol = 0, o.eta = 0.1, o.estimate = 0;
  o.tol = 1e-13, o.tail = 0;
  const ssw_traj full = run(&c, 1.5, 1.0, &o);
  o.tol = 1e-5, o.tail = 1;
  const ssw_traj tail = run(&c, 1.5, 1.0, &o);
  o.tail = 0;
  const ssw_traj none = run(&c, 1.5, 1.0, &o);
  EXPECT(tail.steps < 0.8 * full.steps, "tail saves no steps");
  EXPECT_REL(tail.d, full.d, 1e-10, "tail d vs round-off integration");
  EXPECT_REL(tail.dphi, full.dphi, 1e-10, "tail dphi vs round-off");
  EXPECT_REL(tail.r_future, full.r_future, 1e-10, "tail r vs round-off");
  EXPECT(fabs(none.d - full.d) > 100 * fabs(tail.d - full.d),
         "the tail correction does not improve d: %.3g vs %.3g",
         fabs(none.d - full.d), fabs(tail.d - full.d));
}

static void test_flags(void) {
  const body_case c = make(SEED_BODY, SEED_PARAMS(0.0));
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.max_steps = 100;
  ssw_traj r = run(&c, 1.5, 1.0, &o);
  EXPECT(!r.converged && (r.flags & (SSW_TRAJ_FWD_CAP | SSW_TRAJ_BWD_CAP)),
         "step cap not flagged: converged %d flags %d", r.converged, r.flags);
  ssw_integrator_defaults(&o);
  const double w = 0.7, v = -c.t.L1 * w / c.t.Z;
  r = run(&c, w, v, &o);
  EXPECT(r.flags == SSW_TRAJ_EQUILIBRIUM && r.d == 0.0,
         "equilibrium start: flags %d d %g", r.flags, r.d);
  EXPECT_REL(r.r_future, c.an.radius, 1e-14, "equilibrium radius");
  EXPECT(ssw_extract_run(&c.t, c.regime, 0.0, 0.0, &o, NULL, NULL, &r) ==
             SSW_ERR_ARG,
         "zero initial velocity accepted");
}

/* Contact-point path of a trajectory, in time order, for intersections. */
typedef struct {
  double (*p)[3]; /* t, x, y */
  int n, cap;
} path;

static void collect(void *ctx, int dir, double t, double phi, double x,
                    double y, double w, double v, double H) {
  path *pa = ctx;
  if (pa->n == pa->cap) {
    pa->cap = pa->cap ? 2 * pa->cap : 4096;
    pa->p = realloc(pa->p, (size_t)pa->cap * sizeof *pa->p);
  }
  pa->p[pa->n][0] = t, pa->p[pa->n][1] = x, pa->p[pa->n][2] = y;
  pa->n++;
  (void)dir, (void)phi, (void)w, (void)v, (void)H;
}

static int by_time(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double orient(const double *a, const double *b, const double *c) {
  return (b[1] - a[1]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[1] - a[1]);
}

/* Proper crossings between non-adjacent segments of the polyline. */
static int self_intersections(const path *pa) {
  int count = 0;
  for (int i = 0; i + 1 < pa->n; i++) {
    const double *a = pa->p[i], *b = pa->p[i + 1];
    const double xlo = fmin(a[1], b[1]), xhi = fmax(a[1], b[1]);
    const double ylo = fmin(a[2], b[2]), yhi = fmax(a[2], b[2]);
    for (int j = i + 2; j + 1 < pa->n; j++) {
      const double *c = pa->p[j], *d = pa->p[j + 1];
      if (fmax(c[1], d[1]) < xlo || fmin(c[1], d[1]) > xhi ||
          fmax(c[2], d[2]) < ylo || fmin(c[2], d[2]) > yhi)
        continue;
      const double o1 = orient(a, b, c), o2 = orient(a, b, d);
      const double o3 = orient(c, d, a), o4 = orient(c, d, b);
      if (((o1 > 0) != (o2 > 0)) && ((o3 > 0) != (o4 > 0))) count++;
    }
  }
  return count;
}

/* Classical sleigh (Z = 0): the number of self-intersections of the whole
 * contact-point path (the computed part extended by its two asymptotic
 * rays) equals floor(|dphi| / 2 pi) loops (docs/theory/model.md sec. 4). */
static void test_loops_are_crossings(void) {
  ssw_body bd = SEED_BODY;
  bd.rho = 0.0;
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.method = ssw_method_find("hamel2");
  o.rtol = 0, o.eta = 0.05; /* at most 0.05 rad of heading per segment */
  const double avals[] = {0.05, 0.08, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0};
  const double ics[][2] = {{1.5, 1.0}, {-0.7, 2.0}, {2.0, -0.3}, {0.2, 1.0}};
  int seen[32] = {0};
  for (size_t i = 0; i < sizeof avals / sizeof avals[0]; i++)
    for (size_t k = 0; k < 4; k++) {
      ssw_params p = SEED_PARAMS(0.0);
      p.a = avals[i];
      const body_case c = make(bd, p);
      path pa = {0};
      ssw_traj r;
      collect(&pa, 0, 0.0, 0, 0.0, 0.0, 0, 0, 0);
      ssw_extract_run(&c.t, c.regime, ics[k][0], ics[k][1], &o, collect, &pa,
                      &r);
      qsort(pa.p, (size_t)pa.n, sizeof *pa.p, by_time);
      /* Extend both ends far along their (asymptotically straight) rays. */
      for (int e = 0; e < 2; e++) {
        double *end = e ? pa.p[pa.n - 1] : pa.p[0];
        const double *in = e ? pa.p[pa.n - 2] : pa.p[1];
        const double dx = end[1] - in[1], dy = end[2] - in[2];
        const double L = 1e6 / hypot(dx, dy);
        end[1] += L * dx, end[2] += L * dy;
      }
      const int crossings = self_intersections(&pa);
      EXPECT(crossings == r.loops && r.loops == c.an.loops,
             "a = %g, ic %zu: %d self-intersections, %d loops measured, %d "
             "closed form (|dphi| = %.4f pi)",
             avals[i], k, crossings, r.loops, c.an.loops, fabs(r.dphi) / M_PI);
      if (r.loops >= 0 && r.loops < 32) seen[r.loops] = 1;
      free(pa.p);
    }
  EXPECT(seen[0] && seen[1] && seen[2] && seen[4],
         "the sample does not cover 0, 1, 2 and 4 loops");
}

/* The bits of a result's quantities, estimates and counts. */
static int same_result(const ssw_traj *a, const ssw_traj *b) {
  const double x[] = {a->d,
                      a->dphi,
                      a->t0,
                      a->r_past,
                      a->r_future,
                      a->err_d,
                      a->err_dphi,
                      a->err_r,
                      a->err_t0,
                      a->err_center,
                      a->err_blade,
                      a->center_past[0],
                      a->center_future[1],
                      a->blade_force_max};
  const double y[] = {b->d,
                      b->dphi,
                      b->t0,
                      b->r_past,
                      b->r_future,
                      b->err_d,
                      b->err_dphi,
                      b->err_r,
                      b->err_t0,
                      b->err_center,
                      b->err_blade,
                      b->center_past[0],
                      b->center_future[1],
                      b->blade_force_max};
  return !memcmp(x, y, sizeof x) && a->steps == b->steps &&
         a->refinements == b->refinements && a->flags == b->flags &&
         a->converged == b->converged;
}

/* Lanes never interact: a trajectory's result does not depend on the
 * others of its batch (which legs share its passes, in which order the
 * lanes take them), bit for bit, reruns included. 16 states (a whole
 * chunk) of wide-domain bodies, as one batch, reversed, and one by one. */
static void test_batch_independent(void) {
  enum { N = 16 };
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  int bodies = 0, reran = 0;
  for (int i = 0; bodies < 3; i++) {
    wb_draw d;
    if (wb_draw_one(4242, i, &d) != 0) continue;
    bodies++;
    double w0[N], v0[N], rw0[N], rv0[N];
    wb_states(&d, N, w0, v0);
    for (int k = 0; k < N; k++)
      rw0[k] = w0[N - 1 - k], rv0[k] = v0[N - 1 - k];
    ssw_traj all[N], rev[N], one;
    EXPECT(ssw_extract_batch(&d.t, d.regime, N, w0, v0, &o, NULL, NULL, all) ==
                   0 &&
               ssw_extract_batch(&d.t, d.regime, N, rw0, rv0, &o, NULL, NULL,
                                 rev) == 0,
           "draw %d: extract failed", i);
    for (int k = 0; k < N; k++) {
      EXPECT(ssw_extract_run(&d.t, d.regime, w0[k], v0[k], &o, NULL, NULL,
                             &one) == 0,
             "draw %d: extract failed", i);
      EXPECT(
          same_result(&all[k], &one) && same_result(&all[k], &rev[N - 1 - k]),
          "draw %d, state %d: the batch's result differs from its own", i, k);
      reran += all[k].refinements > 0;
    }
  }
  /* (the draws' states run again too: the rerun passes are covered) */
  EXPECT(reran > 0, "no state of the draws ran again");
}

int main(void) {
  test_seed_case();
  test_classical();
  test_senses();
  test_regimes();
  test_random_bodies();
  test_tail();
  test_flags();
  test_loops_are_crossings();
  test_batch_independent();
  return TEST_RESULT();
}
