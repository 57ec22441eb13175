/* Tables and JSON of the cost-to-accuracy part (bench_kernels.h): the
 * kernel cost, the seed case, the random batch and the headline ratios
 * against GSL rk8pd. docs/benchmark.md explains every column and key. */
#include <gsl/gsl_version.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_kernels.h"

static double job_us(const tjob *j, int rounds) {
  return bench_median(j->ns, rounds) * 1e-3;
}

/* Median over rounds of the per-round ratio a / b. */
static double paired_ratio(const tjob *a, const tjob *b, int rounds) {
  if (!a || !b) return NAN;
  double q[MAXROUNDS];
  for (int r = 0; r < rounds; r++)
    q[r] = a->ns[r] / b->ns[r];
  return bench_median(q, rounds);
}

static void print_target_header(const char *what, int k) {
  printf("\n%s, target: relative error in d <= %s\n", what, target_names[k]);
}

void kernels_intro(const kctx *kc) {
  printf("== Cost to accuracy of one trajectory ==\n");
  printf("stopping |L1 w + Z v| <= %g g_max, first-order exponential tail, "
         "d from the limit-circle centres (all methods)\n",
         STOP_TOL);
  printf("cases: seed (m=1 I0=0.5 a=0.2 b=0 A=0.5 B=0.3 theta=pi/3 rho=1, "
         "omega0=1.5 v0=1, d = %.15g) and %d random bodies\n",
         kc->cases[0].an.d, kc->nb);
  fflush(stdout);
}

/* The part's settings and timing conditions, and the kernel cost. */
static void report_kernel_cost(const kctx *kc, sbuf *json) {
  sb_printf(json,
            "\"kernels\": {\"stop_tol\": %g, \"targets\": [1e-6, 1e-8, "
            "1e-10], \"rounds\": %d, \"gsl_version\": \"%s\", "
            "\"search_s\": %.3g, \"total_s\": %.3g, "
            "\"loadavg_timing\": %.2f, \"cpu_share_timing\": %.3f, "
            "\"samples\": %ld, \"samples_retaken\": %ld, ",
            STOP_TOL, kc->rounds, GSL_VERSION, kc->t_search, kc->t_total,
            kc->load_timing, kc->cpu_share, kc->samples, kc->retaken);
  sb_printf(json, "\"kernel_ns_per_base_step\": {");
  printf("\ntiming: %d rounds (median), load average %.2f; the timing "
         "thread got %.0f%% of a core (thread CPU / wall time) in the kept "
         "samples; %ld of %ld samples were retaken because another process "
         "took the core%s\n",
         kc->rounds, kc->load_timing, 100.0 * kc->cpu_share, kc->retaken,
         kc->samples, kc->cpu_share < 0.9 ? " (NOISY)" : "");
  if (kc->cpu_share < 0.9)
    bench_not_ok("per-trajectory part: the timing thread got %.0f%% of a "
                 "core in the kept samples (below 90%%)",
                 100.0 * kc->cpu_share);
  printf("\nKernel cost, seed case (macro steps over the forward span at the "
         "1e-8 eta, no extraction): ns per base step (RK4: per step)\n");
  for (int mi = 0, first = 1; mi < NM; mi++) {
    if (!isfinite(kc->kns[mi])) continue;
    printf("  %-16s %8.1f ns\n", mdefs[mi].label, kc->kns[mi]);
    sb_printf(json, "%s\"%s\": ", first ? "" : ", ", mdefs[mi].key);
    sb_num(json, kc->kns[mi]);
    first = 0;
  }
  sb_printf(json, "}");
}

static void print_seed_table(const kctx *kc) {
  for (int k = 0; k < NT; k++) {
    print_target_header("Seed case", k);
    printf("  %-16s %10s %9s %9s %9s %10s %8s %10s\n", "method", "eta|tol",
           "err_d", "steps", "RHS", "us/traj", "ns/step", "/rk8pd");
    const tjob *ref = kc->cells[M_RK8PD].job[k];
    for (int mi = 0; mi < NM; mi++) {
      const cell *ce = &kc->cells[mi];
      const sres *s = &ce->s[k];
      if (!s->found) {
        printf("  %-16s %10s (not reached within %.3g steps)\n",
               mdefs[mi].label, "-", kc->o->step_cap);
        continue;
      }
      const double us = job_us(ce->job[k], kc->rounds);
      printf("  %-16s %9.3g%s %9.2g %9.0f %9.0f %10.1f %8.1f %10.3g\n",
             mdefs[mi].label, s->x, s->capped ? "*" : " ", s->r.err, s->r.steps,
             s->r.nfev, us, us * 1e3 / s->r.steps,
             paired_ratio(ce->job[k], ref, kc->rounds));
    }
  }
  printf("  (* = reached at the largest eta the engine accepts, 2; "
         "ns/step = us/traj / steps; /rk8pd = time ratio, paired rounds)\n");
}

/* `"seed": {...}`: every method's setting and time per target. */
static void seed_json(const kctx *kc, sbuf *json) {
  sb_printf(json, ", \"seed\": {\"d_closed_form\": %.17g, \"methods\": {",
            kc->cases[0].an.d);
  for (int mi = 0; mi < NM; mi++) {
    const cell *ce = &kc->cells[mi];
    sb_printf(json, "%s\"%s\": {", mi ? ", " : "", mdefs[mi].key);
    for (int k = 0; k < NT; k++) {
      const sres *s = &ce->s[k];
      sb_printf(json, "%s\"%s\": ", k ? ", " : "", target_names[k]);
      if (!s->found) {
        sb_printf(json, "null");
        continue;
      }
      const double us = job_us(ce->job[k], kc->rounds);
      sb_printf(json, "{\"x\": ");
      sb_num(json, s->x);
      sb_printf(json,
                ", \"capped\": %s, \"err\": ", s->capped ? "true" : "false");
      sb_num(json, s->r.err);
      sb_printf(json, ", \"steps\": %.0f, \"rhs\": %.0f, \"us\": ", s->r.steps,
                s->r.nfev);
      sb_num(json, us);
      sb_printf(json, ", \"us_cpu\": ");
      sb_num(json, bench_median(ce->job[k]->cpu_ns, kc->rounds) * 1e-3);
      sb_printf(json, ", \"ns_per_step\": ");
      sb_num(json, us * 1e3 / s->r.steps);
      sb_printf(json, ", \"ratio_vs_rk8pd\": ");
      sb_num(json,
             paired_ratio(ce->job[k], kc->cells[M_RK8PD].job[k], kc->rounds));
      sb_printf(json, "}");
    }
    sb_printf(json, "}");
  }
  sb_printf(json, "}}");
}

/* One method x target over the random bodies: medians and maxima of the
 * per-body settings, and the uniform setting. */
typedef struct {
  int n;
  double eta_med, st_med, st_max, us_med, us_max, ns_med, r_med, r_max;
  double ust_med, ust_max, uus_med, uus_max; /* uniform setting */
} batch_row;

static batch_row batch_stats(const kctx *kc, int mi, int k, double *v[5]) {
  batch_row w = {0};
  for (int b = 1; b < kc->nc; b++) {
    const cell *ce = &kc->cells[b * NM + mi];
    if (!ce->s[k].found) continue;
    v[0][w.n] = ce->s[k].x;
    v[1][w.n] = ce->s[k].r.steps;
    v[2][w.n] = job_us(ce->job[k], kc->rounds);
    v[3][w.n] = v[2][w.n] * 1e3 / v[1][w.n];
    v[4][w.n] = paired_ratio(ce->job[k], kc->cells[b * NM + M_RK8PD].job[k],
                             kc->rounds);
    w.n++;
  }
  w.eta_med = bench_median(v[0], w.n), w.st_med = bench_median(v[1], w.n);
  w.st_max = bench_max(v[1], w.n), w.us_med = bench_median(v[2], w.n);
  w.us_max = bench_max(v[2], w.n), w.ns_med = bench_median(v[3], w.n);
  w.r_med = bench_median(v[4], w.n), w.r_max = bench_max(v[4], w.n);
  w.ust_med = w.ust_max = w.uus_med = w.uus_max = NAN;
  const uniform_cell *u = &kc->uni[mi * NT + k];
  if (u->found) {
    for (int b = 0; b < kc->nb; b++)
      v[0][b] = job_us(u->job[b], kc->rounds);
    w.ust_med = bench_median(u->steps, kc->nb);
    w.ust_max = bench_max(u->steps, kc->nb);
    w.uus_med = bench_median(v[0], kc->nb), w.uus_max = bench_max(v[0], kc->nb);
  }
  return w;
}

static void batch_row_json(const kctx *kc, int mi, int k, const batch_row *w,
                           sbuf *json) {
  const uniform_cell *u = &kc->uni[mi * NT + k];
  const char *const names[] = {"eta_median",
                               "steps_median",
                               "steps_max",
                               "us_median",
                               "us_max",
                               "ns_per_step_median",
                               "ratio_vs_rk8pd_median",
                               "ratio_vs_rk8pd_max"};
  const double vals[] = {w->eta_med, w->st_med, w->st_max, w->us_med,
                         w->us_max,  w->ns_med, w->r_med,  w->r_max};
  sb_printf(json, "%s\"%s/%s\": {\"n\": %d", (k || mi) ? ", " : "",
            mdefs[mi].key, target_names[k], w->n);
  for (int i = 0; i < 8; i++) {
    sb_printf(json, ", \"%s\": ", names[i]);
    sb_num(json, vals[i]);
  }
  sb_printf(json, ", \"uniform\": ");
  if (!u->found) {
    sb_printf(json, "null}");
    return;
  }
  const char *const unames[] = {"x",         "max_err",   "steps_median",
                                "steps_max", "us_median", "us_max"};
  const double uvals[] = {u->x,       u->maxerr,  w->ust_med,
                          w->ust_max, w->uus_med, w->uus_max};
  for (int i = 0; i < 6; i++) {
    sb_printf(json, "%s\"%s\": ", i ? ", " : "{", unames[i]);
    sb_num(json, uvals[i]);
  }
  sb_printf(json, "}}");
}

/* The random batch's tables and `"random": {...}`; fills the medians the
 * headline ratios use. */
static void report_random(kctx *kc, sbuf *json) {
  double *v[5];
  for (int i = 0; i < 5; i++)
    v[i] = calloc((size_t)kc->nb + 1, sizeof *v[i]);
  sb_printf(json, ", \"random\": {\"bodies\": %d, \"methods\": {", kc->nb);
  for (int mi = 0; mi < NM; mi++)
    for (int k = 0; k < NT; k++)
      kc->med_us[mi][k] = kc->med_ratio[mi][k] = NAN;
  for (int k = 0; k < NT && kc->nb > 0; k++) {
    char what[64];
    snprintf(what, sizeof what, "Random bodies (%d)", kc->nb);
    print_target_header(what, k);
    printf("  per body, largest step: median / max over the bodies "
           "(n = bodies reaching the target)\n");
    printf("  %-16s %3s %9s %15s %17s %8s %15s | %9s %8s %15s %17s\n", "method",
           "n", "eta med", "steps med/max", "us/traj med/max", "ns/step",
           "/rk8pd med/max", "unif eta", "max err", "steps med/max",
           "us/traj med/max");
    for (int mi = 0; mi < NM; mi++) {
      const batch_row w = batch_stats(kc, mi, k, v);
      const uniform_cell *u = &kc->uni[mi * NT + k];
      kc->med_us[mi][k] = w.us_med, kc->med_ratio[mi][k] = w.r_med;
      printf("  %-16s %3d %9.3g %7.0f/%-7.0f %8.1f/%-8.1f %8.1f %7.3g/%-7.3g | "
             "%9.3g %8.2g %7.0f/%-7.0f %8.1f/%-8.1f\n",
             mdefs[mi].label, w.n, w.eta_med, w.st_med, w.st_max, w.us_med,
             w.us_max, w.ns_med, w.r_med, w.r_max, u->found ? u->x : NAN,
             u->found ? u->maxerr : NAN, w.ust_med, w.ust_max, w.uus_med,
             w.uus_max);
      batch_row_json(kc, mi, k, &w, json);
    }
  }
  if (kc->nb > 0)
    printf("  (unif = one setting for the whole batch, the largest meeting the "
           "target on every body: what a sweep would use)\n");
  sb_printf(json, "}}");
  for (int i = 0; i < 5; i++)
    free(v[i]);
}

/* The Hamel method fastest at target k: on the seed case (*seed) and by
 * the median over the random bodies (*random); -1 where none. */
static void best_hamel(const kctx *kc, int k, int *seed, int *random) {
  int best = -1, bestb = -1;
  for (int mi = 0; mi < NM; mi++) {
    if (!is_hamel(mi)) continue;
    const tjob *j = kc->cells[mi].job[k];
    if (j && (best < 0 || job_us(j, kc->rounds) <
                              job_us(kc->cells[best].job[k], kc->rounds)))
      best = mi;
    if (isfinite(kc->med_us[mi][k]) &&
        (bestb < 0 || kc->med_us[mi][k] < kc->med_us[bestb][k]))
      bestb = mi;
  }
  *seed = best, *random = bestb;
}

/* Headline: time-to-accuracy ratios against rk8pd, `"ratios": {...}`. */
static void report_ratios(const kctx *kc, sbuf *json) {
  printf("\nTime-to-accuracy ratio ours / GSL rk8pd (> 1: GSL is faster), "
         "paired rounds\n");
  printf("  %-7s %-26s %-11s %-11s | %-26s %-11s %-11s\n", "target",
         "seed: best Hamel", "hamel8 exp", "hamel6 exp",
         "random median: best Hamel", "hamel8 exp", "hamel6 exp");
  sb_printf(json, ", \"ratios\": {");
  for (int k = 0; k < NT; k++) {
    int best, bestb;
    best_hamel(kc, k, &best, &bestb);
    const tjob *ref = kc->cells[M_RK8PD].job[k];
    const double rb =
        best >= 0 ? paired_ratio(kc->cells[best].job[k], ref, kc->rounds) : NAN;
    const double r8 = paired_ratio(kc->cells[M_H8].job[k], ref, kc->rounds);
    const double r6 = paired_ratio(kc->cells[M_H6].job[k], ref, kc->rounds);
    const double rr = bestb >= 0 ? kc->med_ratio[bestb][k] : NAN;
    char a[64], c[64];
    snprintf(a, sizeof a, "%.3g (%s)", rb, best >= 0 ? mdefs[best].label : "-");
    snprintf(c, sizeof c, "%.3g (%s)", rr,
             bestb >= 0 ? mdefs[bestb].label : "-");
    printf("  %-7s %-26s %-11.3g %-11.3g | %-26s %-11.3g %-11.3g\n",
           target_names[k], a, r8, r6, c, kc->med_ratio[M_H8][k],
           kc->med_ratio[M_H6][k]);
    sb_printf(json, "%s\"%s\": {\"seed_best\": ", k ? ", " : "",
              target_names[k]);
    sb_num(json, rb);
    sb_printf(json, ", \"seed_best_method\": \"%s\", \"seed_hamel8_exp\": ",
              best >= 0 ? mdefs[best].key : "");
    sb_num(json, r8);
    sb_printf(json, ", \"seed_hamel6_exp\": ");
    sb_num(json, r6);
    sb_printf(json, ", \"random_median_best\": ");
    sb_num(json, rr);
    sb_printf(json,
              ", \"random_best_method\": \"%s\", "
              "\"random_median_hamel8_exp\": ",
              bestb >= 0 ? mdefs[bestb].key : "");
    sb_num(json, kc->med_ratio[M_H8][k]);
    sb_printf(json, ", \"random_median_hamel6_exp\": ");
    sb_num(json, kc->med_ratio[M_H6][k]);
    sb_printf(json, "}");
  }
  sb_printf(json, "}}");
}

void kernels_report(kctx *kc, sbuf *json) {
  report_kernel_cost(kc, json);
  print_seed_table(kc);
  seed_json(kc, json);
  report_random(kc, json);
  report_ratios(kc, json);
  printf("(kernel part: %.1f s, of which search %.1f s)\n", kc->t_total,
         kc->t_search);
  fflush(stdout);
}
