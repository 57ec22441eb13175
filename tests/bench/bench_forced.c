/* The driven sleigh's cost (docs/benchmark.md, "The driven sleigh"): one
 * forced trajectory at the defaults (ssw_forced_run: hamel8, rtol 1e-10,
 * its transient, the cycle found by Newton on the period map, the
 * monodromy and the fine/coarse error estimate) against GSL's rk8pd as a
 * user would run it without the engine: period by period from the same
 * state, until the stroboscopic points n periods apart agree to eps of
 * the velocity scale (n the cycle's periods, told by our run: a favour to
 * the peer), then the means of w and v over the last n periods from the
 * integrals of w and v carried in the state, eps also its step control's
 * tolerance. The peer runs at its loosest eps (decades 1e-6 .. 1e-14)
 * whose means are as close to the truth as ours (and at least 1e-11 of the
 * scale): the truth is rk8pd at 1e-14 with the agreement at 1e-13. Times are
 * the thread's CPU seconds. The peer computes two numbers; our run also
 * classifies the attractor, polishes the cycle and measures its Floquet
 * multipliers and the error of each number, which it pays for. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/model.h"
#include "test_util.h"

/* Bodies of the batch beyond the seed (full, quick, smoke). */
#define FORCED_BATCH 8
#define FORCED_BATCH_SMOKE 1
/* The peer's tolerances tried: 1e-6 .. 1e-14. */
#define EPS_DECADES 9
/* The accuracy asked of the peer at least (relative to the scale), and
 * the agreement of the stroboscopic points that stops the truth. */
#define PEER_AGREE 1e-11
#define TRUTH_AGREE 1e-13
/* Most periods the peer integrates. */
#define PEER_PERIODS_MAX 20000

typedef struct {
  ssw_body b;
  ssw_params p;
  ssw_tensor t;
  double w0, v0;
} fbody;

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The seed body with the drag of docs/theory/forcing.md's checks and a
 * sine torque; then random damped bodies with torques (seeded). */
static int make_body(int i, fbody *f) {
  memset(f, 0, sizeof *f);
  f->b = (ssw_body){.m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS};
  f->p = (ssw_params){M_PI / 3.0, 0.2, 0.0, 0.0, 0.0, 0.5, 0.3};
  f->b.drag_w = 0.3, f->b.drag_v = 0.5, f->b.drag_wv = 0.05;
  f->b.forcing_freq = 2.0, f->b.torque_amp = 0.2;
  f->w0 = 1.5, f->v0 = 1.0;
  if (i > 0) {
    unsigned long long s = 20261128ULL + (unsigned long long)i;
    f->p.theta = test_uniform(&s, 0.0, M_PI);
    f->p.a = test_uniform(&s, -0.3, 0.3);
    f->p.b = test_uniform(&s, -0.1, 0.1);
    f->p.B = test_uniform(&s, 0.05, 0.48);
    f->p.r = test_uniform(&s, -0.2, 0.2);
    f->b.m = exp(test_uniform(&s, log(0.3), log(3.0)));
    f->b.rho = i % 3 == 0 ? 0.0 : exp(test_uniform(&s, log(0.1), log(3.0)));
    f->b.drag_w = exp(test_uniform(&s, log(0.03), log(1.0)));
    f->b.drag_v = exp(test_uniform(&s, log(0.03), log(1.0)));
    f->b.drag_wv =
        test_uniform(&s, -0.3, 0.3) * sqrt(f->b.drag_w * f->b.drag_v);
    f->b.forcing_freq = test_uniform(&s, 0.5, 4.0);
    f->b.torque_amp = test_uniform(&s, 0.05, 0.6);
    f->b.forcing_phase = test_uniform(&s, 0.0, 6.0);
    f->w0 = test_uniform(&s, -1.5, 1.5), f->v0 = test_uniform(&s, 0.1, 1.5);
  }
  return ssw_model_tensor(&f->b, &f->p, &f->t);
}

/* The peer's state: w, v, phi, x, y and the integral of v. */
#define PEER_DIM (SSW_ODE_DIM + 1)

static int peer_rhs(double t, const double y[], double f[], void *par) {
  ssw_model_rhs(par, t, y, f);
  f[SSW_ODE_DIM] = y[1];
  return GSL_SUCCESS;
}

/* One peer run at tolerance eps; the cycle means in mean[2]; returns the
 * periods integrated (0 on failure). */
static int peer_run(const ssw_reduced *e, const fbody *f, int n, double T,
                    double eps, double agree, double mean[2]) {
  gsl_odeiv2_system sys = {peer_rhs, NULL, PEER_DIM, (void *)e};
  gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_standard_new(
      &sys, gsl_odeiv2_step_rk8pd, 1e-3 * T, eps, eps, 1.0, 0.0);
  if (!d) return 0;
  double y[PEER_DIM] = {f->w0, f->v0, 0, 0, 0, 0}, t = 0.0;
  /* The stroboscopic points and the integrals at the last n + 1 sections. */
  double hist[SSW_FORCED_NMAX + 1][4];
  const double scale = hypot(f->w0, f->v0);
  int k = 0, done = 0;
  for (k = 0; k < PEER_PERIODS_MAX && !done; k++) {
    double *h = hist[k % (n + 1)];
    h[0] = y[0], h[1] = y[1], h[2] = y[2], h[3] = y[SSW_ODE_DIM];
    if (k >= n) {
      const double *o = hist[(k - n) % (n + 1)];
      if (hypot(h[0] - o[0], h[1] - o[1]) <= agree * scale) {
        mean[0] = (h[2] - o[2]) / (n * T);
        mean[1] = (h[3] - o[3]) / (n * T);
        done = 1;
        break;
      }
    }
    if (gsl_odeiv2_driver_apply(d, &t, (k + 1) * T, y) != GSL_SUCCESS) break;
  }
  gsl_odeiv2_driver_free(d);
  return done ? k : 0;
}

/* CPU seconds per call of f over at least min_time. */
#define TIME_CALLS(min_time, secs, call)                                       \
  do {                                                                         \
    long calls_ = 0;                                                           \
    const double c0_ = thread_cpu();                                           \
    do {                                                                       \
      call;                                                                    \
      calls_++;                                                                \
    } while (thread_cpu() - c0_ < (min_time));                                 \
    (secs) = (thread_cpu() - c0_) / (double)calls_;                            \
  } while (0)

typedef struct {
  double ours_us, peer_us, ratio, err_ours, err_peer, peer_eps, lyap_us;
  int periods, peer_periods, n;
} frow;

/* One body: ours at the defaults, the truth, the peer's loosest eps. */
static int bench_body(const bench_opts *o, fbody *f, frow *row) {
  ssw_integrator in;
  ssw_integrator_defaults(&in);
  ssw_forced r;
  if (ssw_forced_run(&f->t, f->w0, f->v0, &in, &r) != 0 || !r.converged ||
      r.attractor != SSW_ATTRACTOR_PERIODIC)
    return -1;
  ssw_reduced e;
  ssw_model_reduce(&f->t, &e);
  const int n = r.cycle_periods;
  double truth[2], mean[2];
  if (!peer_run(&e, f, n, r.period, 1e-14, TRUTH_AGREE, truth)) return -1;
  const double sc[2] = {fmax(fabs(truth[0]), r.q.amp_omega),
                        fmax(fabs(truth[1]), r.q.amp_v)};
  row->err_ours = fmax(fabs(r.q.mean_omega - truth[0]) / sc[0],
                       fabs(r.q.mean_v - truth[1]) / sc[1]);
  const double target = fmax(row->err_ours, PEER_AGREE);
  row->peer_eps = NAN;
  for (int k = 0; k < EPS_DECADES; k++) {
    const double eps = pow(10.0, -6 - k);
    const int periods = peer_run(&e, f, n, r.period, eps, eps, mean);
    const double err = fmax(fabs(mean[0] - truth[0]) / sc[0],
                            fabs(mean[1] - truth[1]) / sc[1]);
    if (periods && err <= target) {
      row->peer_eps = eps, row->err_peer = err, row->peer_periods = periods;
      break;
    }
  }
  if (!isfinite(row->peer_eps)) return -1;
  double ours_s, peer_s;
  TIME_CALLS(o->min_time, ours_s,
             (void)ssw_forced_run(&f->t, f->w0, f->v0, &in, &r));
  TIME_CALLS(
      o->min_time, peer_s,
      (void)peer_run(&e, f, n, r.period, row->peer_eps, row->peer_eps, mean));
  double lyap_s; /* the spectrum beside it (sweeps and `point` add it) */
  ssw_forced q;
  TIME_CALLS(o->min_time, lyap_s,
             (q = r, (void)ssw_forced_lyapunov(&f->t, &in, &q)));
  row->lyap_us = 1e6 * lyap_s;
  row->ours_us = 1e6 * ours_s, row->peer_us = 1e6 * peer_s;
  row->ratio = ours_s / peer_s;
  row->periods = r.transient_periods, row->n = n;
  return 0;
}

int bench_forced(const bench_opts *o, sbuf *json) {
  const int nb = 1 + (o->smoke ? FORCED_BATCH_SMOKE : FORCED_BATCH);
  double ratio[1 + FORCED_BATCH], us[1 + FORCED_BATCH];
  double lyap[1 + FORCED_BATCH];
  int m = 0;
  printf("The driven sleigh: a forced trajectory at the defaults against "
         "GSL rk8pd\n(the peer told the cycle's periods, run to the "
         "agreement eps at its loosest\ndecade eps meeting our error, at "
         "least %.0e; CPU time)\n",
         PEER_AGREE);
  printf("%-6s %3s %8s %10s %10s %8s %10s %10s %7s\n", "body", "n", "periods",
         "ours us", "err ours", "rk8pd eps", "rk8pd us", "err rk8pd", "ratio");
  for (int i = 0; i < nb; i++) {
    fbody f;
    frow row = {0};
    if (make_body(i, &f) != 0 || bench_body(o, &f, &row) != 0) {
      printf("%-6d skipped (no converged cycle or no peer setting)\n", i);
      ratio[i] = us[i] = lyap[i] = NAN;
      continue;
    }
    ratio[i] = row.ratio, us[i] = row.ours_us, m++;
    lyap[i] = row.lyap_us / row.ours_us;
    printf("%-6s %3d %8d %10.1f %10.2e %8.0e %10.1f %10.2e %7.2f\n",
           i ? "random" : "seed", row.n, row.periods, row.ours_us, row.err_ours,
           row.peer_eps, row.peer_us, row.err_peer, row.ratio);
  }
  const double r_rand = nb > 1 ? bench_median(ratio + 1, nb - 1) : NAN;
  const double us_rand = nb > 1 ? bench_median(us + 1, nb - 1) : NAN;
  const double l_rand = nb > 1 ? bench_median(lyap + 1, nb - 1) : NAN;
  printf("forced: %.1f us per trajectory (seed), %.1f (random median); "
         "ours / rk8pd %.2f (seed), %.2f (random median); the Lyapunov "
         "spectrum adds %.2f (seed), %.2f (random median) of a trajectory\n",
         us[0], us_rand, ratio[0], r_rand, lyap[0], l_rand);
  sb_printf(json, "\"forced_us_per_traj\": ");
  sb_num(json, us[0]);
  sb_printf(json, ", \"forced_us_per_traj_random_median\": ");
  sb_num(json, us_rand);
  sb_printf(json, ", \"forced_time_ratio_vs_rk8pd\": ");
  sb_num(json, ratio[0]);
  sb_printf(json, ", \"forced_time_ratio_vs_rk8pd_random_median\": ");
  sb_num(json, r_rand);
  sb_printf(json, ", \"forced_lyapunov_cost_ratio\": ");
  sb_num(json, lyap[0]);
  sb_printf(json, ", \"forced_lyapunov_cost_ratio_random_median\": ");
  sb_num(json, l_rand);
  sb_printf(json, ", \"forced_bodies_measured\": %d", m);
  return m > 0 ? 0 : 1; /* nothing measured: the part failed */
}
