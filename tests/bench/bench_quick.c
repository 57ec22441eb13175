/* The accuracy-and-cost summary (ssw_bench --quick, and part of the full
 * mode): the default settings' errors on the wide random batch against the
 * closed form, how often the error estimates bound them, the batch
 * kernel's cost per base step, and the time per trajectory against GSL's
 * rk8pd on the same equations, stopping rule and extraction
 * (ssw_extract_finish), each with one batch-wide setting that meets 1e-10
 * in d on every body. docs/benchmark.md explains every figure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "bench_gsl.h"
#include "bench_rk.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/point.h"
#include "sleighsweep/stepper.h"
#include "wide_batch.h"

#define TARGET 1e-10 /* relative error in d every body must meet */
#define K 8          /* trajectories per body (as an ensemble) */
#define NACC 100     /* bodies of the accuracy part */

/* One body of the cost comparison: the draw, its K initial states and
 * the grid point that `point` would set up for it. */
typedef struct {
  wb_draw d;
  double w0[K], v0[K];
  ssw_point pt;
} body;

/* What is timed: the engine's scheme at a batch-wide rtol, the peers
 * (GSL rk8pd, Boost.odeint's Bulirsch-Stoer, DOP853 and Vern9) each at
 * its batch-wide eps, the `point` path at its defaults (no setting: one
 * trajectory per call), and the engine's scheme at the default rtol
 * (DEF), which every sweep and `point` use. */
enum { OURS, RK8PD, BS, DOP853, VERN9, POINT, DEF, NKIND };
static const char *const kind_name[NKIND] = {
    "hamel8", "rk8pd", "bulirsch-stoer", "dop853",
    "vern9",  "point", "hamel8 default"};
/* The peers, of which the fastest is the "best peer". */
static const int peers[] = {RK8PD, BS, DOP853, VERN9};
#define NPEERS (int)(sizeof peers / sizeof peers[0])
/* Repeats of a sample that disagree by more than this (median over the
 * samples of slowest / fastest round) make the run "ok": false. */
#define SPREAD_MAX 1.2
/* A timing thread that ran less than this share of its wall time makes
 * the run "ok": false. */
#define CPU_SHARE_MIN 0.9

static void seed_body(body *b) {
  wb_draw *d = &b->d;
  memset(d, 0, sizeof *d);
  d->body =
      (ssw_body){.m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS};
  d->p = (ssw_params){M_PI / 3, 0.2, 0.0, 0.0, 0.0, 0.5, 0.3};
  ssw_model_tensor(&d->body, &d->p, &d->t);
  ssw_model_classify(&d->t, SSW_ZERO_TOL_DEFAULT, &d->t, &d->regime);
  ssw_analytic_compute(&d->t, d->regime, &d->an);
  d->w0 = 1.5, d->v0 = 1.0;
  d->H = SSW_MODEL_ENERGY(&d->t, d->w0, d->v0);
  wb_states(d, K, b->w0, b->v0);
}

/* A reference integrator (rk8pd or Bulirsch-Stoer) on the same equations,
 * stopping rule and extraction. */
static void ref_run(bench_gsl *ws, const body *b, double eps, ssw_traj *out) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  ssw_coeffs c;
  ssw_stepper_bind(&b->d.t, o.method, &c);
  for (int k = 0; k < K; k++)
    bench_gsl_traj(ws, &c, b->d.regime, &o, b->w0[k], b->v0[k], eps, 100000,
                   &out[k], NULL);
}

/* The engine's scheme under test (the default unless the full mode's
 * table of adaptive schemes says otherwise). */
static const ssw_method *ours;

static void ours_run(const body *b, double rtol, ssw_traj *out) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.rtol = rtol;
  if (ours) o.method = ours;
  ssw_extract_batch(&b->d.t, b->d.regime, K, b->w0, b->v0, &o, NULL, NULL, out);
}

/* `sleighsweep point`'s call at its defaults, one trajectory per call
 * (without the path recorder, which only feeds the printed path). */
static void point_run(const body *b, ssw_traj *out) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  for (int k = 0; k < K; k++)
    ssw_point_trajectories(&b->pt, 1, &b->w0[k], &b->v0[k], &o, NULL, NULL,
                           &out[k]);
}

/* The reference workspaces of the run (rk8pd, Bulirsch-Stoer). */
static bench_gsl refs[NKIND];

static void run(int kind, const body *b, double x, ssw_traj *out) {
  if (kind == OURS || kind == DEF)
    ours_run(b, x, out);
  else if (kind == POINT)
    point_run(b, out);
  else
    ref_run(&refs[kind], b, x, out);
}

/* Largest relative error in d over the bodies' trajectories; steps mean. */
static double worst_d(const body *bs, int n, int kind, double x,
                      double *steps) {
  double worst = 0, st = 0;
  for (int i = 0; i < n; i++) {
    ssw_traj r[K];
    run(kind, &bs[i], x, r);
    for (int k = 0; k < K; k++) {
      const double e = fabs(r[k].d - bs[i].d.an.d) / bs[i].d.an.d;
      worst = fmax(worst, isfinite(e) && r[k].converged ? e : INFINITY);
      st += (double)r[k].steps;
    }
  }
  *steps = st / (n * K);
  return worst;
}

/* The largest setting of a geometric ladder meeting TARGET everywhere
 * (the point path has none: its error at the defaults, x = 0; DEF is
 * the default rtol and its error). */
static double batch_setting(const body *bs, int n, int kind, double *steps,
                            double *err) {
  if (kind == POINT || kind == DEF) {
    const double x = kind == DEF ? SSW_RTOL_DEFAULT : 0;
    *err = worst_d(bs, n, kind, x, steps);
    return x;
  }
  const double top = kind == OURS ? 1e-7 : 1e-6, ratio = 0.5;
  for (double x = top; x > 1e-14; x *= ratio) {
    *err = worst_d(bs, n, kind, x, steps);
    if (*err <= TARGET) return x;
  }
  return NAN;
}

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds per trajectory: calls repeated until min_time has passed. A
 * sample in which the thread ran less than 95% of the wall time was
 * preempted: it is taken again, up to 4 times, and the least disturbed
 * kept (as the full mode's kernel part does); *retaken counts them. */
static double time_body(const body *b, int kind, double x, double min_time,
                        long *retaken) {
  ssw_traj r[K];
  double best = NAN, best_share = -1;
  for (int attempt = 0; attempt < 5; attempt++) {
    long calls = 0;
    const double t0 = bench_now(), c0 = thread_cpu();
    double t = t0;
    do {
      run(kind, b, x, r);
      calls++;
      t = bench_now();
    } while (t - t0 < min_time);
    const double share = (thread_cpu() - c0) / (t - t0);
    if (share > best_share)
      best_share = share, best = (t - t0) / ((double)calls * K);
    if (share >= 0.95) break;
    if (retaken) ++*retaken;
  }
  return best;
}

/* The batch kernel alone: hamel8 macro steps on SSW_LANES lanes. */
static double kernel_ns(int rounds) {
  body b;
  seed_body(&b);
  const ssw_method *m = ssw_method_find(SSW_SCHEME_DEFAULT);
  ssw_coeffs c;
  ssw_stepper_bind(&b.d.t, m, &c);
  double best = INFINITY;
  for (int r = 0; r < rounds; r++) {
    ssw_state s[SSW_LANES];
    double h[SSW_LANES];
    for (int l = 0; l < SSW_LANES; l++) {
      ssw_stepper_init(&c, b.w0[l], b.v0[l], &s[l]);
      h[l] = 0.01 * (1 + 0.1 * l);
    }
    const long n = 20000;
    const double t0 = bench_now();
    for (long i = 0; i < n; i++) {
      ssw_stepper_advance_batch(&c, h, SSW_RECON_EXP, s, SSW_LANES);
      if ((i & 1023) == 1023)
        for (int l = 0; l < SSW_LANES; l++)
          h[l] = -h[l]; /* stay near */
    }
    const double ns =
        (bench_now() - t0) * 1e9 / ((double)n * m->stages * SSW_LANES);
    if (s[0].x == 12345.678) puts(""); /* keep the loop */
    best = fmin(best, ns);
  }
  return best;
}

/* Default settings on the wide batch: largest errors of d and dphi, the
 * share of results (d, dphi, r, t0) whose estimate bounds the error, and
 * the median over the bodies of each body's largest error in d / rtol. */
static void default_accuracy(double *emax_d, double *emax_dphi, double *bound,
                             double *over_rtol) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  int nb = 0, nt = 0, bodies = 0;
  double body_d[NACC];
  *emax_d = *emax_dphi = 0;
  for (int i = 0; bodies < NACC; i++) {
    wb_draw d;
    if (wb_draw_one(31337, i, &d) != 0) continue;
    bodies++;
    double w0[K], v0[K];
    ssw_traj r[K];
    wb_states(&d, K, w0, v0);
    ssw_extract_batch(&d.t, d.regime, K, w0, v0, &o, NULL, NULL, r);
    body_d[bodies - 1] = NAN;
    for (int k = 0; k < K; k++) {
      if (r[k].flags & SSW_TRAJ_EQUILIBRIUM) continue;
      double err[4], est[4];
      wb_errors(&d, w0[k], v0[k], &r[k], err, est);
      if (isfinite(err[0])) *emax_d = fmax(*emax_d, err[0]);
      if (isfinite(err[0]) && !(err[0] <= body_d[bodies - 1]))
        body_d[bodies - 1] = err[0];
      *emax_dphi = fmax(*emax_dphi, err[1]);
      for (int q = 0; q < 4; q++)
        if (!isnan(err[q])) nt++, nb += est[q] >= err[q];
    }
  }
  *bound = (double)nb / nt;
  *over_rtol = bench_median(body_d, NACC) / o.rtol;
}

/* Everything the summary measures. */
typedef struct {
  body *bs; /* the seed, then nb random bodies */
  int nb;
  double min_time;
  double emax_d, emax_dphi, bound; /* defaults on the wide batch */
  double over_rtol; /* median over its bodies of the largest error / rtol */
  /* per kind: batch-wide setting (NaN: not found or not built), its
   * largest error and mean steps per trajectory, seconds per trajectory
   * per body (the seed first) and their median over the random bodies */
  double x[NKIND], err[NKIND], st[NKIND], *t[NKIND], med[NKIND];
  double load, cpu_share;       /* load average, CPU share of the timing */
  long retaken;                 /* preempted samples taken again */
  double spread;                /* median of slowest / fastest round */
  double r_seed, r_rand, r_med; /* hamel8 / rk8pd */
  double rb_seed, rb_rand;      /* hamel8 / the best peer */
  double rd_seed, rd_rand;      /* hamel8 at the default rtol / best peer */
  double rp_seed, rp_rand;      /* point / rk8pd */
  double rpb_seed, rpb_rand;    /* point / the best peer */
  int best_seed, best_rand;     /* the best peer's kind */
  double order[BENCH_RK_N];     /* observed orders of DOP853 and Vern9 */
  double kns;
} quick;

/* The grid point `point` sets up for the body (its own classification). */
static void set_point(body *b) {
  if (ssw_point_setup(&b->d.body, &b->d.p, SSW_ZERO_TOL_DEFAULT, NULL,
                      &b->pt) != 0) {
    ssw_error_clear();
    b->pt.tensor = b->d.t, b->pt.regime = b->d.regime;
  }
}

/* The seed body, then the first nb circle-to-circle draws of seed 4242. */
static body *make_bodies(int nb) {
  body *bs = calloc((size_t)nb + 1, sizeof *bs);
  if (!bs) return NULL;
  seed_body(&bs[0]);
  set_point(&bs[0]);
  for (int i = 0, n = 1; n <= nb; i++) {
    if (wb_draw_one(4242, i, &bs[n].d) != 0 ||
        bs[n].d.regime != SSW_REGIME_CIRCLE_TO_CIRCLE)
      continue;
    wb_states(&bs[n].d, K, bs[n].w0, bs[n].v0);
    set_point(&bs[n]);
    n++;
  }
  return bs;
}

/* The fastest peer on per-body times t (index i) or medians (i < 0). */
static int best_peer(const quick *q, int i) {
  int best = -1;
  double tb = INFINITY;
  for (int p = 0; p < NPEERS; p++) {
    const double t = i < 0 ? q->med[peers[p]] : q->t[peers[p]][i];
    if (t < tb) tb = t, best = peers[p];
  }
  return best;
}

/* Every kind at its setting, alternated body by body (paired under
 * load), for `rounds` rounds: the best of the rounds into q->t, and the
 * median over the samples of slowest / fastest round into q->spread. */
static void time_rounds(quick *q, int rounds) {
  const int nb = q->nb, ns = NKIND * (nb + 1);
  double *slow = calloc((size_t)ns, sizeof *slow);
  for (int k = 0; k < NKIND; k++) {
    q->t[k] = calloc((size_t)nb + 1, sizeof *q->t[k]);
    for (int i = 0; i <= nb; i++)
      q->t[k][i] = isnan(q->x[k]) ? NAN : INFINITY;
  }
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i <= nb; i++)
      for (int k = 0; k < NKIND; k++)
        if (!isnan(q->x[k])) {
          const double t =
              time_body(&q->bs[i], k, q->x[k], q->min_time, &q->retaken);
          q->t[k][i] = fmin(q->t[k][i], t);
          slow[k * (nb + 1) + i] = fmax(slow[k * (nb + 1) + i], t);
        }
  for (int k = 0; k < NKIND; k++)
    for (int i = 0; i <= nb; i++)
      slow[k * (nb + 1) + i] /= q->t[k][i];
  q->spread = rounds > 1 ? bench_median(slow, ns) : NAN;
  free(slow);
}

/* Time per trajectory of every kind at its setting, the load average
 * before and the share of the wall time the timing thread got, and the
 * ratios. */
static void time_pairs(quick *q, int rounds) {
  const int nb = q->nb;
  q->load = bench_loadavg();
  const double w0 = bench_now(), c0 = thread_cpu();
  double *ratio = calloc((size_t)nb, sizeof *ratio);
  time_rounds(q, rounds);
  q->cpu_share = (thread_cpu() - c0) / (bench_now() - w0);
  for (int k = 0; k < NKIND; k++)
    q->med[k] = isnan(q->x[k]) ? NAN : bench_median(q->t[k] + 1, nb);
  for (int i = 1; i <= nb; i++)
    ratio[i - 1] = q->t[OURS][i] / q->t[RK8PD][i];
  const double *const *t = (const double *const *)q->t;
  q->best_seed = best_peer(q, 0), q->best_rand = best_peer(q, -1);
  const double best_seed = q->best_seed < 0 ? NAN : t[q->best_seed][0];
  const double best_rand = q->best_rand < 0 ? NAN : q->med[q->best_rand];
  q->r_seed = t[OURS][0] / t[RK8PD][0];
  q->r_rand = q->med[OURS] / q->med[RK8PD];
  q->r_med = bench_median(ratio, nb);
  q->rb_seed = t[OURS][0] / best_seed;
  q->rb_rand = q->med[OURS] / best_rand;
  q->rd_seed = t[DEF][0] / best_seed;
  q->rd_rand = q->med[DEF] / best_rand;
  q->rp_seed = t[POINT][0] / t[RK8PD][0];
  q->rp_rand = q->med[POINT] / q->med[RK8PD];
  q->rpb_seed = t[POINT][0] / best_seed;
  q->rpb_rand = q->med[POINT] / best_rand;
  free(ratio);
}

/* `"name": value` members, each after ", " (the first after `first`). */
static void json_members(sbuf *json, const char *first,
                         const char *const *names, const double *vals, int n) {
  for (int i = 0; i < n; i++) {
    sb_printf(json, "%s\"%s\": ", i ? ", " : first, names[i]);
    sb_num(json, vals[i]);
  }
}

/* A kind's `<prefix>_<setting>`, `<prefix>_us_per_traj_seed`,
 * `..._random_median` and `<prefix>_steps_per_traj` members. */
static void kind_json(const quick *q, int k, const char *prefix,
                      const char *setting, sbuf *json) {
  static const char *const what[] = {
      "", "us_per_traj_seed", "us_per_traj_random_median", "steps_per_traj"};
  const double v[] = {q->x[k], 1e6 * q->t[k][0], 1e6 * q->med[k], q->st[k]};
  for (int i = 0; i < 4; i++) {
    sb_printf(json, ", \"%s_%s\": ", prefix, i ? what[i] : setting);
    sb_num(json, v[i]);
  }
}

/* The top-level keys and `"quick": {...` (left open for `adaptive`). */
static void quick_json(const quick *q, sbuf *json) {
  static const char *const top[] = {
      "kernel_ns_per_base_step",
      "time_ratio_vs_rk8pd_seed_1e-10",
      "time_ratio_vs_rk8pd_random_median_1e-10",
      "time_ratio_vs_best_peer_seed_1e-10",
      "time_ratio_vs_best_peer_random_median_1e-10",
      "point_time_ratio_vs_rk8pd_seed_1e-10",
      "point_time_ratio_vs_rk8pd_random_median_1e-10",
      "default_max_rel_err_d",
      "default_max_rel_err_dphi",
      "error_estimate_bound_fraction",
      "time_ratio_vs_best_peer_default_seed_1e-10",
      "time_ratio_vs_best_peer_default_random_median_1e-10",
      "point_time_ratio_vs_best_peer_seed_1e-10",
      "point_time_ratio_vs_best_peer_random_median_1e-10",
      "default_error_over_rtol_median"};
  const double tv[] = {q->kns,       q->r_seed,   q->r_rand,   q->rb_seed,
                       q->rb_rand,   q->rp_seed,  q->rp_rand,  q->emax_d,
                       q->emax_dphi, q->bound,    q->rd_seed,  q->rd_rand,
                       q->rpb_seed,  q->rpb_rand, q->over_rtol};
  _Static_assert(sizeof tv / sizeof tv[0] == sizeof top / sizeof top[0],
                 "one value per top-level key");
  json_members(json, "", top, tv, (int)(sizeof top / sizeof top[0]));
  static const char *const qk[] = {"batch_rtol",
                                   "rk8pd_eps",
                                   "us_per_traj_seed",
                                   "rk8pd_us_per_traj_seed",
                                   "us_per_traj_random_median",
                                   "rk8pd_us_per_traj_random_median",
                                   "steps_per_traj",
                                   "rk8pd_steps_per_traj",
                                   "bs_eps",
                                   "bs_us_per_traj_seed",
                                   "bs_us_per_traj_random_median",
                                   "bs_steps_per_traj",
                                   "point_us_per_traj_seed",
                                   "point_us_per_traj_random_median",
                                   "point_steps_per_traj",
                                   "point_max_rel_err_d",
                                   "loadavg_timing",
                                   "cpu_share_timing",
                                   "samples_retaken"};
  const double *const *t = (const double *const *)q->t;
  const double qv[] = {q->x[OURS],
                       q->x[RK8PD],
                       1e6 * t[OURS][0],
                       1e6 * t[RK8PD][0],
                       1e6 * q->med[OURS],
                       1e6 * q->med[RK8PD],
                       q->st[OURS],
                       q->st[RK8PD],
                       q->x[BS],
                       1e6 * t[BS][0],
                       1e6 * q->med[BS],
                       q->st[BS],
                       1e6 * t[POINT][0],
                       1e6 * q->med[POINT],
                       q->st[POINT],
                       q->err[POINT],
                       q->load,
                       q->cpu_share,
                       (double)q->retaken};
  _Static_assert(sizeof qv / sizeof qv[0] == sizeof qk / sizeof qk[0],
                 "one value per quick key");
  sb_printf(json, ", \"quick\": ");
  json_members(json, "{", qk, qv, (int)(sizeof qk / sizeof qk[0]));
  kind_json(q, DOP853, "dop853", "eps", json);
  kind_json(q, VERN9, "vern9", "eps", json);
  kind_json(q, DEF, "default", "rtol", json);
  static const char *const more[] = {
      "dop853_observed_order", "vern9_observed_order",
      "default_max_rel_err_d_timed", "repeat_spread"};
  const double mv[] = {q->order[BENCH_RK_DOP853], q->order[BENCH_RK_VERN9],
                       q->err[DEF], q->spread};
  json_members(json, ", ", more, mv, 4);
  sb_printf(json, ", \"best_peer_seed\": \"%s\", \"best_peer_random\": \"%s\"",
            q->best_seed < 0 ? "" : kind_name[q->best_seed],
            q->best_rand < 0 ? "" : kind_name[q->best_rand]);
}

/* Full mode: the other adaptive schemes at their own batch-wide rtol,
 * against the same rk8pd times. */
static void other_schemes(quick *q, sbuf *json) {
  static const char *const others[] = {"hamel6", "hamel4", "dopri5"};
  const int nb = q->nb;
  const double tg0 = q->t[RK8PD][0], medg = q->med[RK8PD];
  sb_printf(json, ", \"adaptive\": {");
  printf("  other schemes at their batch-wide rtol (same rk8pd times):\n");
  for (int k = 0; k < 3; k++) {
    ours = ssw_method_find(others[k]);
    double st, e;
    const double x = batch_setting(q->bs, nb + 1, OURS, &st, &e);
    double t_seed = NAN, *tt = calloc((size_t)nb, sizeof *tt);
    if (x > 0 && tt) {
      t_seed = time_body(&q->bs[0], OURS, x, q->min_time, NULL);
      for (int i = 1; i <= nb; i++)
        tt[i - 1] = time_body(&q->bs[i], OURS, x, q->min_time, NULL);
    }
    const double med = tt ? bench_median(tt, nb) : NAN;
    printf("    %-7s rtol %.3g, %.0f steps/trajectory: seed %.1f us (ratio "
           "%.2f), random median %.1f us (ratio %.2f)\n",
           others[k], x, st, 1e6 * t_seed, t_seed / tg0, 1e6 * med, med / medg);
    static const char *const names[] = {"rtol", "ratio_seed",
                                        "ratio_random_median"};
    const double vals[] = {x, t_seed / tg0, med / medg};
    sb_printf(json, "%s\"%s\": ", k ? ", " : "", others[k]);
    json_members(json, "{", names, vals, 3);
    sb_printf(json, "}");
    free(tt);
  }
  sb_printf(json, "}");
  ours = NULL;
}

static void print_summary(const quick *q) {
  static const char *const what[NKIND] = {"rtol", "eps",      "eps", "eps",
                                          "eps",  "defaults", "rtol"};
  printf("  batch-wide settings meeting %.0e in d (steps per trajectory: "
         "Hamel base steps incl. the estimate, accepted steps of the "
         "others):\n",
         TARGET);
  for (int k = 0; k < NKIND; k++) {
    if (isnan(q->x[k])) {
      printf("    %-15s not run (%s)\n", kind_name[k],
             k == BS ? "built without Boost" : "no setting met the target");
      continue;
    }
    printf("    %-15s %-8s %-9.3g max error %.2e, %6.0f steps; seed %7.1f "
           "us, random median %7.1f us per trajectory\n",
           kind_name[k], what[k], q->x[k], q->err[k], q->st[k],
           1e6 * q->t[k][0], 1e6 * q->med[k]);
  }
  printf("  ratios: hamel8 / rk8pd seed %.2f, random median %.2f (median of "
         "per-body ratios %.2f); point / rk8pd seed %.2f, random median "
         "%.2f\n",
         q->r_seed, q->r_rand, q->r_med, q->rp_seed, q->rp_rand);
  printf("  against the best peer (seed: %s, random median: %s): hamel8 at "
         "its batch-wide rtol seed %.2f, random median %.2f; at the default "
         "rtol %.0e seed %.2f, random median %.2f; point seed %.2f, random "
         "median %.2f\n",
         q->best_seed < 0 ? "none" : kind_name[q->best_seed],
         q->best_rand < 0 ? "none" : kind_name[q->best_rand], q->rb_seed,
         q->rb_rand, SSW_RTOL_DEFAULT, q->rd_seed, q->rd_rand, q->rpb_seed,
         q->rpb_rand);
  printf("  timing: load average %.2f before; the timing thread got %.0f%% "
         "of the wall time, %ld preempted samples taken again (other "
         "processes take the rest: compare the ratios, paired body by body, "
         "rather than the times); repeats: median slowest / fastest round "
         "%.3f\n",
         q->load, 100 * q->cpu_share, q->retaken, q->spread);
  printf("  batch kernel: %.2f ns per base step per lane (hamel8, %d "
         "lanes)\n",
         q->kns, SSW_LANES);
}

/* The pairs' self-check: observed order on the Kepler problem and the
 * tableau's row sums against its nodes. */
static void selfcheck(quick *q) {
  for (int k = 0; k < BENCH_RK_N; k++) {
    int nominal;
    double rowsum;
    bench_rk_selfcheck(k, &q->order[k], &nominal, &rowsum);
    printf("  self-check %-6s: observed order %.2f (nominal %d) on the Kepler "
           "problem (e = 0.6, half a period, fixed steps); largest |sum_j a_ij "
           "- c_i| "
           "%.1e\n",
           bench_rk_name(k), q->order[k], nominal, rowsum);
  }
}

static void quick_free(quick *q) {
  for (int k = 0; k < NKIND; k++)
    bench_gsl_free(&refs[k]), free(q->t[k]);
  free(q->bs);
}

int bench_quick(const bench_opts *o, sbuf *json) {
  quick q = {.nb = o->smoke ? 4 : 24, .min_time = o->smoke ? 0.5e-3 : 5e-3};
  q.bs = make_bodies(q.nb);
  if (!q.bs || bench_gsl_init(&refs[RK8PD], gsl_odeiv2_step_rk8pd) != 0) {
    quick_free(&q);
    return 1;
  }
  const int have_bs = bench_gsl_init_bs(&refs[BS]) == 0;
  if (bench_gsl_init_rk(&refs[DOP853], BENCH_RK_DOP853) != 0 ||
      bench_gsl_init_rk(&refs[VERN9], BENCH_RK_VERN9) != 0) {
    quick_free(&q);
    return 1;
  }
  printf("Accuracy and cost (%d random bodies of the wide domain + the seed "
         "case, %d trajectories each; target %.0e in d on every one)\n",
         q.nb, K, TARGET);
  default_accuracy(&q.emax_d, &q.emax_dphi, &q.bound, &q.over_rtol);
  printf("  defaults (%s, rtol %.0e) on %d bodies x %d: max rel. error d "
         "%.2e, dphi %.2e; estimates bound %.1f%% of the errors; median over "
         "the bodies of the largest error in d / rtol %.3g\n",
         SSW_SCHEME_DEFAULT, SSW_RTOL_DEFAULT, NACC, K, q.emax_d, q.emax_dphi,
         100 * q.bound, q.over_rtol);
  selfcheck(&q);
  for (int k = 0; k < NKIND; k++)
    q.x[k] = k == BS && !have_bs
                 ? NAN
                 : batch_setting(q.bs, q.nb + 1, k, &q.st[k], &q.err[k]);
  time_pairs(&q, o->smoke ? 1 : 3);
  q.kns = kernel_ns(o->smoke ? 2 : 15);
  print_summary(&q);
  quick_json(&q, json);
  if (!o->smoke && !o->quick) other_schemes(&q, json);
  sb_printf(json, "}");
  const int ok =
      q.x[OURS] > 0 && q.x[RK8PD] > 0 && q.x[DOP853] > 0 && q.x[VERN9] > 0;
  if (q.cpu_share < CPU_SHARE_MIN)
    bench_not_ok("quick: the timing thread got %.0f%% of its wall time "
                 "(below %.0f%%)",
                 100 * q.cpu_share, 100 * CPU_SHARE_MIN);
  if (q.spread > SPREAD_MAX)
    bench_not_ok("quick: repeats disagree (median slowest / fastest round "
                 "%.3f, above %.2f)",
                 q.spread, SPREAD_MAX);
  quick_free(&q);
  return !ok;
}
