/* The batch kernel before and after a change, side by side in one process
 * (scripts/kernel-ab.sh builds it): the former stepper.c's object is
 * linked beside the current library with its symbols renamed old_*, and
 * interleaved rounds time the benchmark's kernel loop (bench_quick.c's
 * kernel_ns, at h = 0.01 and 0.1) and the default extraction of the wide
 * batch (100 bodies x 8 trajectories) with either kernel. Prints the
 * minimum over the rounds and the median of the ratio within a round. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sleighsweep/extract.h"
#include "sleighsweep/stepper.h"
#include "wide_batch.h"

const ssw_method *old_ssw_method_find(const char *name);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 1-minute load average; NaN if unknown. */
static double loadavg(void) {
  double x = NAN;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &x) != 1) x = NAN;
    fclose(f);
  }
  return x;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ns per base step per lane: 20000 macro steps of the seed body's states
 * (the loop of bench_quick.c's kernel_ns, with step hs). */
static double kernel_ns(const ssw_method *m, double hs) {
  wb_draw d = {
      .body = {.m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS},
      .p = {M_PI / 3, 0.2, 0.0, 0.0, 0.0, 0.5, 0.3}};
  ssw_model_tensor(&d.body, &d.p, &d.t);
  ssw_model_classify(&d.t, SSW_ZERO_TOL_DEFAULT, &d.t, &d.regime);
  ssw_analytic_compute(&d.t, d.regime, &d.an);
  d.w0 = 1.5, d.v0 = 1.0, d.H = SSW_MODEL_ENERGY(&d.t, d.w0, d.v0);
  double w0[SSW_LANES], v0[SSW_LANES], h[SSW_LANES];
  wb_states(&d, SSW_LANES, w0, v0);
  ssw_coeffs c;
  ssw_stepper_bind(&d.t, m, &c);
  ssw_state s[SSW_LANES];
  for (int l = 0; l < SSW_LANES; l++) {
    ssw_stepper_init(&c, w0[l], v0[l], &s[l]);
    h[l] = hs * (1 + 0.1 * l);
  }
  const long n = 20000;
  const double t0 = now();
  for (long i = 0; i < n; i++) {
    ssw_stepper_advance_batch(&c, h, SSW_RECON_EXP, s, SSW_LANES);
    if ((i & 1023) == 1023)
      for (int l = 0; l < SSW_LANES; l++)
        h[l] = -h[l];
  }
  const double ns = (now() - t0) * 1e9 / ((double)n * m->stages * SSW_LANES);
  if (s[0].x == 12345.678) puts(""); /* keep the loop */
  return ns;
}

/* Seconds for the default extraction of the wide batch with scheme m. */
static double extract_s(const ssw_method *m) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.method = m;
  const double t0 = now();
  for (int i = 0, bodies = 0; bodies < 100; i++) {
    wb_draw d;
    if (wb_draw_one(31337, i, &d) != 0) continue;
    bodies++;
    double w0[8], v0[8];
    ssw_traj r[8];
    wb_states(&d, 8, w0, v0);
    ssw_extract_batch(&d.t, d.regime, 8, w0, v0, &o, NULL, NULL, r);
  }
  return now() - t0;
}

enum { K_LOOP, K_LOOP01, K_EXTRACT, NFIG };
#define MAXR 1000

static double figure(int k, const ssw_method *m) {
  return k == K_LOOP ? kernel_ns(m, 0.01)
                     : (k == K_LOOP01 ? kernel_ns(m, 0.1) : extract_s(m));
}

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 30;
  const char *scheme = argc > 2 ? argv[2] : SSW_SCHEME_DEFAULT;
  const ssw_method *mo = old_ssw_method_find(scheme);
  const ssw_method *mn = ssw_method_find(scheme);
  if (rounds < 1 || rounds > MAXR || !mo || !mn) {
    fprintf(stderr, "usage: kernel_ab [ROUNDS <= %d] [SCHEME]\n", MAXR);
    return 2;
  }
  static double t[NFIG][2][MAXR], ratio[NFIG][MAXR];
  printf("load average before: %.2f\n", loadavg());
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < NFIG; k++) {
      const int first = r & 1; /* alternate which kernel runs first */
      t[k][first][r] = figure(k, first ? mn : mo);
      t[k][!first][r] = figure(k, first ? mo : mn);
      ratio[k][r] = t[k][1][r] / t[k][0][r];
    }
  static const char *const what[NFIG] = {"kernel_ns_per_base_step (h 0.01)",
                                         "the same loop at h 0.1",
                                         "default extraction, wide batch, s"};
  printf("%d interleaved rounds, %s; load average after: %.2f\n", rounds,
         scheme, loadavg());
  printf("%-34s %10s %10s %10s\n", "figure (min over rounds)", "before",
         "after", "ratio");
  for (int k = 0; k < NFIG; k++) {
    qsort(t[k][0], (size_t)rounds, sizeof(double), cmp);
    qsort(t[k][1], (size_t)rounds, sizeof(double), cmp);
    qsort(ratio[k], (size_t)rounds, sizeof(double), cmp);
    printf("%-34s %10.4g %10.4g %10.3f\n", what[k], t[k][0][0], t[k][1][0],
           ratio[k][rounds / 2]);
  }
  printf("(ratio: after / before, median of the rounds' ratios)\n");
  return 0;
}
