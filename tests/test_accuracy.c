/* The accuracy promise at the default settings, on a seeded random batch of
 * the wide domain (tests/wide_batch.h), against the closed form; the error
 * estimates against the true errors; bit-identity of the batch kernel's
 * lanes; exact time-reversal symmetry of the adaptive legs; the order of
 * the compositions under the adaptive step rule. README "Accuracy" and
 * docs/theory/step-control.md state what is promised here. */
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "test_util.h"
#include "wide_batch.h"

#define NBODY 160    /* bodies of the batch */
#define NTRAJ 8      /* initial states per body */
#define PROMISE 1e-9 /* README: every quantity within 10 rtol */

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void test_wide_batch(void) {
  static const char *const names[4] = {"d", "dphi", "r", "t0"};
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  static double all[4][NBODY * NTRAJ], ratio[4 * NBODY * NTRAJ];
  int n[4] = {0}, nr = 0, bound = 0, compared = 0, bodies = 0;
  double worst[4] = {0}, energy = 0;
  for (int i = 0; bodies < NBODY; i++) {
    wb_draw d;
    if (wb_draw_one(20261123, i, &d) != 0) continue;
    bodies++;
    double w0[NTRAJ], v0[NTRAJ];
    ssw_traj r[NTRAJ];
    wb_states(&d, NTRAJ, w0, v0);
    EXPECT(ssw_extract_batch(&d.t, d.regime, NTRAJ, w0, v0, &o, NULL, NULL,
                             r) == 0,
           "draw %d: extraction failed", i);
    for (int k = 0; k < NTRAJ; k++) {
      if (r[k].flags & SSW_TRAJ_EQUILIBRIUM) continue;
      EXPECT(r[k].converged && !(r[k].flags & SSW_TRAJ_RTOL),
             "draw %d traj %d: flags %d", i, k, r[k].flags);
      energy = fmax(energy, r[k].energy_error);
      double err[4], est[4];
      wb_errors(&d, w0[k], v0[k], &r[k], err, est);
      for (int q = 0; q < 4; q++) {
        if (isnan(err[q])) continue;
        all[q][n[q]++] = err[q];
        compared++;
        bound += est[q] >= err[q];
        if (err[q] > 0) ratio[nr++] = est[q] / err[q];
        if (err[q] > worst[q]) worst[q] = err[q];
        EXPECT(err[q] <= PROMISE,
               "draw %d traj %d: %s error %.3g > %.1g (estimate %.3g)", i, k,
               names[q], err[q], PROMISE, est[q]);
      }
    }
  }
  for (int q = 0; q < 4; q++) {
    qsort(all[q], (size_t)n[q], sizeof(double), cmp_double);
    const double med = all[q][n[q] / 2];
    printf("%-4s n %4d  median %.2e  max %.2e\n", names[q], n[q], med,
           worst[q]);
    EXPECT(med <= o.rtol, "%s: median error %.3g above rtol %.1g", names[q],
           med, o.rtol);
  }
  qsort(ratio, (size_t)nr, sizeof(double), cmp_double);
  const double frac = (double)bound / compared;
  printf("estimates bound the error in %.1f%% of %d results; estimate / "
         "error: median %.2g, 95th percentile %.2g\n",
         100 * frac, compared, ratio[nr / 2], ratio[nr * 19 / 20]);
  printf("largest node-energy error %.2e\n", energy);
  /* docs/theory/step-control.md: the estimates bound at least 99%. */
  EXPECT(frac >= 0.99, "estimates bound only %.1f%% of the errors", 100 * frac);
  EXPECT(ratio[nr / 2] <= 100, "estimates pessimistic: median ratio %.3g",
         ratio[nr / 2]);
  /* W^T K^-1 W / 2 is an exact invariant of every step, whatever its size:
   * what remains is round-off of some thousand steps. */
  EXPECT(energy <= 1e-12, "node energy drifts by %.3g", energy);
}

/* A trajectory's result does not depend on its lane or its neighbours: the
 * batch, the batch reversed and each trajectory alone agree bit for bit. */
static void test_lanes(void) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  int bodies = 0;
  for (int i = 0; bodies < 6; i++) {
    wb_draw d;
    if (wb_draw_one(99, i, &d) != 0) continue;
    bodies++;
    enum { N = 11 }; /* not a multiple of the lanes */
    double w0[N], v0[N], w1[N], v1[N];
    ssw_traj a[N], b[N], c;
    wb_draw e = d;
    for (int k = 0; k < N; k++) {
      (void)wb_draw_one(99 + k, i, &e); /* another state of the same H */
      const double s = sqrt(d.H / e.H);
      w0[k] = k ? e.w0 * s : d.w0, v0[k] = k ? e.v0 * s : d.v0;
      w1[N - 1 - k] = w0[k], v1[N - 1 - k] = v0[k];
    }
    ssw_extract_batch(&d.t, d.regime, N, w0, v0, &o, NULL, NULL, a);
    ssw_extract_batch(&d.t, d.regime, N, w1, v1, &o, NULL, NULL, b);
    for (int k = 0; k < N; k++) {
      ssw_extract_run(&d.t, d.regime, w0[k], v0[k], &o, NULL, NULL, &c);
      EXPECT(memcmp(&a[k], &b[N - 1 - k], sizeof c) == 0 &&
                 memcmp(&a[k], &c, sizeof c) == 0,
             "draw %d traj %d: lane assignment changes the result (d %.17g "
             "%.17g %.17g)",
             i, k, a[k].d, b[N - 1 - k].d, c.d);
    }
  }
}

/* Nodes of one leg, for the reversal test. */
typedef struct {
  double rows[20000][6];
  int n, dir;
} legrec;

static void record(void *ctx, int dir, double t, double phi, double x, double y,
                   double w, double v, double H) {
  legrec *L = ctx;
  if (dir != L->dir || L->n == 20000) return;
  double *r = L->rows[L->n++];
  r[0] = t, r[1] = phi, r[2] = x, r[3] = y, r[4] = w, r[5] = v;
  (void)H;
}

/* Time reversal: (w, v)(t) -> (-w, -v)(-t) maps solutions to solutions,
 * and the scheme, the step density and its update respect it exactly
 * (every operation is odd or even in the velocity). The backward leg from
 * (-w0, -v0) is therefore the forward leg from (w0, v0) mirrored, bit for
 * bit: steps, times, headings and positions. */
static void test_reversal(void) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.estimate = 0;
  static legrec f, b;
  int bodies = 0;
  for (int i = 0; bodies < 8; i++) {
    wb_draw d;
    if (wb_draw_one(7, i, &d) != 0) continue;
    bodies++;
    ssw_traj r;
    f.n = 0, f.dir = 1, b.n = 0, b.dir = -1;
    ssw_extract_run(&d.t, d.regime, d.w0, d.v0, &o, record, &f, &r);
    ssw_extract_run(&d.t, d.regime, -d.w0, -d.v0, &o, record, &b, &r);
    int same = f.n == b.n && f.n > 10;
    for (int k = 0; same && k < f.n; k++)
      same = f.rows[k][0] == -b.rows[k][0] && f.rows[k][1] == b.rows[k][1] &&
             f.rows[k][2] == b.rows[k][2] && f.rows[k][3] == b.rows[k][3] &&
             f.rows[k][4] == -b.rows[k][4] && f.rows[k][5] == -b.rows[k][5];
    EXPECT(same,
           "draw %d: the backward leg of the reversed state is not "
           "the mirrored forward leg (%d vs %d nodes)",
           i, f.n, b.n);
  }
}

/* Under the adaptive rule the step is eps times a smooth function of the
 * state, so each composition keeps its order in eps: the error of d on the
 * seed case falls as eps^q (3-point fit; fails below q - 0.5). */
static void test_adaptive_order(void) {
  ssw_body bd = {.m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS};
  ssw_params p = {M_PI / 3, 0.2, 0.1, 0.0, 0.0, 0.5, 0.3};
  ssw_tensor t;
  int regime;
  ssw_analytic an;
  ssw_model_tensor(&bd, &p, &t);
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  ssw_analytic_compute(&t, regime, &an);
  const struct {
    const char *name;
    double eps0;
  } cases[] = {
      {"hamel2", 0.02}, {"hamel4", 0.1}, {"hamel6", 0.3}, {"hamel8", 0.5}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ssw_integrator o;
    ssw_integrator_defaults(&o);
    o.method = ssw_method_find(cases[i].name);
    o.estimate = 0, o.tol = 1e-9;
    double x[3], y[3], sx = 0, sy = 0;
    for (int k = 0; k < 3; k++) {
      /* eps = eps_scale rtol^(1/q): pick rtol for the wanted eps. */
      const double eps = cases[i].eps0 / (1 << k);
      o.rtol = pow(eps / o.method->eps_scale, o.method->order);
      ssw_traj r;
      ssw_extract_run(&t, regime, 1.5, 1.0, &o, NULL, NULL, &r);
      x[k] = log(r.eps), y[k] = log(fabs(r.d - an.d) / an.d);
      sx += x[k], sy += y[k];
    }
    double num = 0, den = 0;
    for (int k = 0; k < 3; k++) {
      num += (x[k] - sx / 3) * (y[k] - sy / 3);
      den += (x[k] - sx / 3) * (x[k] - sx / 3);
    }
    const int q = o.method->order;
    EXPECT(num / den >= q - 0.5,
           "%s adaptive: observed order %.2f (errors "
           "%.2e %.2e %.2e)",
           cases[i].name, num / den, exp(y[0]), exp(y[1]), exp(y[2]));
  }
}

/* The comparison schemes go through the same extraction (stopping rule,
 * tail, centres, estimate) and reach the closed form at tight settings:
 * dopri5 at the default rtol, RATTLE (second order, ~1e6 steps) at
 * rtol 1e-8; both to 10 rtol in d and dphi. */
static void test_comparison_schemes(void) {
  const struct {
    const char *name;
    double rtol;
    ssw_params p;
  } cases[] = {
      {"dopri5", 1e-10, {M_PI / 3, 0.2, 0.0, 0.0, 0.0, 0.5, 0.3}},
      {"dopri5", 1e-10, {2.0, 0.3, 0.1, 0.1, -0.05, 0.5, 0.3}},
      {"rattle", 1e-8, {M_PI / 3, 0.2, 0.1, 0.0, 0.0, 0.5, 0.3}},
  };
  const ssw_body bd = {
      .m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ssw_tensor t;
    int regime;
    ssw_analytic an;
    ssw_model_tensor(&bd, &cases[i].p, &t);
    ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
    ssw_analytic_compute(&t, regime, &an);
    ssw_integrator o;
    ssw_integrator_defaults(&o);
    o.method = ssw_method_find(cases[i].name);
    o.rtol = cases[i].rtol;
    ssw_traj r;
    EXPECT(ssw_extract_run(&t, regime, 1.5, 1.0, &o, NULL, NULL, &r) == 0,
           "%s: extraction failed", cases[i].name);
    const int sigma = ssw_analytic_sigma(&t, 1.5, 1.0);
    const double ed = fabs(r.d - an.d) / an.d;
    const double dp = ssw_analytic_dphi(&an, sigma);
    const double ea = fabs(r.dphi - dp) / fmax(fabs(dp), SSW_DPHI_FLOOR);
    printf("%s rtol %.0e: d error %.2e, dphi error %.2e, %lld steps\n",
           cases[i].name, o.rtol, ed, ea, (long long)r.steps);
    EXPECT(r.converged && ed <= 10 * o.rtol && ea <= 10 * o.rtol,
           "%s case %zu: d error %.3g, dphi error %.3g (flags %d)",
           cases[i].name, i, ed, ea, r.flags);
  }
}

int main(void) {
  test_wide_batch();
  test_lanes();
  test_reversal();
  test_adaptive_order();
  test_comparison_schemes();
  return TEST_RESULT();
}
