/* Cost to accuracy of one trajectory: the engine's Hamel compositions (both
 * reconstructions) and RK4 through ssw_extract_run, against GSL's adaptive
 * rk8pd and rkf45 on the same equations with the same stopping rule, tail
 * correction and centre extraction. For every method and accuracy target
 * (relative error in the centre spacing d against the closed form) the
 * largest step (eta; GSL: rtol = atol) reaching the target is searched,
 * then the trajectory is timed at that setting, all methods of a case
 * interleaved round by round so that ratios are measured side by side. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_version.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "bench_gsl.h"
#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"

/* Stopping tolerance |L1 w + Z v| <= TOL g_max (ssw_integrator.tol) of
 * every method, so that steps compare across methods and with the earlier
 * tables of docs/benchmark.md. Not the engine's default: that is derived
 * from rtol (ssw_integrator_stop_tol; 1e-7 at SSW_RTOL_DEFAULT), or
 * SSW_TOL_FIXED_DEFAULT with a fixed step. */
#define STOP_TOL 1e-6
#define NT 3
static const double targets[NT] = {1e-6, 1e-8, 1e-10};
static const char *const target_names[NT] = {"1e-06", "1e-08", "1e-10"};
#define MAXROUNDS 15
#define MAXSCAN 80

/* ------------------------------------------------------------------ */
/* Cases: the seed body and random bodies (as tests/test_extract.c). */

typedef struct {
  char label[24];
  ssw_tensor t;
  int regime;
  ssw_analytic an;
  double w0, v0;
  ssw_coeffs c;
} bcase;

static int make_case(const ssw_body *bd, const ssw_params *p, double w0,
                     double v0, const char *label, bcase *c) {
  memset(c, 0, sizeof *c);
  if (ssw_model_tensor(bd, p, &c->t) != 0) return -1;
  ssw_model_classify(&c->t, SSW_ZERO_TOL_DEFAULT, &c->t, &c->regime);
  ssw_analytic_compute(&c->t, c->regime, &c->an);
  snprintf(c->label, sizeof c->label, "%s", label);
  c->w0 = w0, c->v0 = v0;
  ssw_stepper_coeffs(&c->t, &c->c);
  return 0;
}

/* The seed case, then the first `n` valid circle-to-circle bodies of the
 * random sequence of tests/test_extract.c test_random_bodies (Model II,
 * random m, I0, rho, theta, a, b, r, s; random point on the energy level
 * (omega0, v0) = (cos psi, 2 sin psi)). Returns the number of cases. */
static int make_cases(int n, bcase *out) {
  const ssw_body seed_body = {1.0, 0.5, 1.0, SSW_KROT_PAPERS};
  const ssw_params seed = {M_PI / 3.0, 0.2, 0.0, 0.0, 0.0, 0.5, 0.3};
  int k = 0;
  if (make_case(&seed_body, &seed, 1.5, 1.0, "seed", &out[k]) == 0) k++;
  unsigned long long s = 2024;
  for (int i = 0; i < 10000 && k < n + 1; i++) {
    ssw_body bd = {test_uniform(&s, 0.5, 2), test_uniform(&s, 0.2, 1),
                   test_uniform(&s, 0, 2), SSW_KROT_PAPERS};
    ssw_params p = {test_uniform(&s, 0, M_PI),
                    test_uniform(&s, -0.6, 0.6),
                    test_uniform(&s, -0.3, 0.3),
                    test_uniform(&s, -0.2, 0.2),
                    test_uniform(&s, -0.2, 0.2),
                    0.5,
                    0.3};
    ssw_tensor t;
    if (ssw_model_tensor(&bd, &p, &t) != 0) continue;
    const double ang = test_uniform(&s, 0, 2 * M_PI);
    char label[24];
    snprintf(label, sizeof label, "random %d", i);
    if (make_case(&bd, &p, cos(ang), 2 * sin(ang), label, &out[k]) != 0)
      continue;
    if (out[k].regime != SSW_REGIME_CIRCLE_TO_CIRCLE) continue;
    k++;
  }
  return k;
}

/* ------------------------------------------------------------------ */
/* Methods. */

enum { KIND_ENGINE = 0, KIND_GSL = 1 };

typedef struct {
  const char *label, *key;
  int kind;
  const char *scheme; /* engine scheme name */
  int recon;
  const gsl_odeiv2_step_type *const *gtype;
  const ssw_method *m; /* resolved at start */
} mdef;

static mdef mdefs[] = {
    {"hamel2 exp", "hamel2_exp", KIND_ENGINE, "hamel2", SSW_RECON_EXP, NULL,
     NULL},
    {"hamel4 exp", "hamel4_exp", KIND_ENGINE, "hamel4", SSW_RECON_EXP, NULL,
     NULL},
    {"hamel6 exp", "hamel6_exp", KIND_ENGINE, "hamel6", SSW_RECON_EXP, NULL,
     NULL},
    {"hamel8 exp", "hamel8_exp", KIND_ENGINE, "hamel8", SSW_RECON_EXP, NULL,
     NULL},
    {"hamel2 midpoint", "hamel2_midpoint", KIND_ENGINE, "hamel2",
     SSW_RECON_MIDPOINT, NULL, NULL},
    {"hamel4 midpoint", "hamel4_midpoint", KIND_ENGINE, "hamel4",
     SSW_RECON_MIDPOINT, NULL, NULL},
    {"hamel6 midpoint", "hamel6_midpoint", KIND_ENGINE, "hamel6",
     SSW_RECON_MIDPOINT, NULL, NULL},
    {"hamel8 midpoint", "hamel8_midpoint", KIND_ENGINE, "hamel8",
     SSW_RECON_MIDPOINT, NULL, NULL},
    {"rk4 (engine)", "rk4_engine", KIND_ENGINE, "rk4", SSW_RECON_EXP, NULL,
     NULL},
    {"gsl rk8pd", "gsl_rk8pd", KIND_GSL, NULL, 0, &gsl_odeiv2_step_rk8pd, NULL},
    {"gsl rkf45", "gsl_rkf45", KIND_GSL, NULL, 0, &gsl_odeiv2_step_rkf45, NULL},
};
#define NM ((int)(sizeof mdefs / sizeof mdefs[0]))
#define M_H6 2 /* hamel6 exp */
#define M_H8 3 /* hamel8 exp: the defaults of ssw_integrator_defaults */
#define M_RK8PD 9

static int is_hamel(int mi) { return mi < 8; }

/* One evaluation: relative error in d and the work it took. */
typedef struct {
  int ok;     /* converged, finite */
  int capped; /* stopped by the step cap */
  double d, err;
  double steps; /* engine: base steps (ssw_traj.steps, with the peak
                   refinement); GSL: accepted steps */
  double nfev;  /* right-hand-side evaluations (engine: base steps for the
                   Hamel methods, 4 per RK4 step) */
} eres;

static double step_cap_per_dir = 2e6;

static eres eval_engine(const bcase *c, const mdef *m, double eta) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.method = m->m;
  o.recon = m->recon;
  o.rtol = 0, o.eta = eta, o.estimate = 0; /* fixed steps, one run */
  o.tol = STOP_TOL;
  o.max_steps = (int64_t)step_cap_per_dir;
  o.tail = 1;
  ssw_traj r;
  eres e = {0};
  if (ssw_extract_run(&c->t, c->regime, c->w0, c->v0, &o, NULL, NULL, &r) != 0)
    return e;
  e.ok = r.converged && isfinite(r.d);
  e.capped = (r.flags & (SSW_TRAJ_FWD_CAP | SSW_TRAJ_BWD_CAP)) != 0;
  e.d = r.d;
  e.err = fabs(r.d - c->an.d) / c->an.d;
  e.steps = (double)r.steps;
  e.nfev = m->m->stages == 0 ? 4.0 * (double)r.steps : (double)r.steps;
  return e;
}

/* --- GSL on the same equations, stopping rule and extraction. --- */

static bench_gsl gws[4];

/* Accepted steps per direction before a GSL leg counts as failed: loose
 * tolerances drift off the energy level and may never reach the line of
 * equilibria (rk8pd needs ~100 steps in all at the targets). */
#define GSL_LEG_CAP 20000

static bench_gsl *gsl_workspace(const gsl_odeiv2_step_type *T) {
  for (int i = 0; i < 4; i++) {
    if (gws[i].T == T) return &gws[i];
    if (!gws[i].T && bench_gsl_init(&gws[i], T) == 0) return &gws[i];
  }
  abort();
}

static eres eval_gsl(const bcase *c, const mdef *m, double tol) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.tol = STOP_TOL; /* tail on, as for the engine's runs */
  ssw_traj r;
  long nfev;
  const int capped =
      bench_gsl_traj(gsl_workspace(*m->gtype), &c->c, c->regime, &o, c->w0,
                     c->v0, tol, GSL_LEG_CAP, &r, &nfev);
  eres e = {0};
  e.d = r.d;
  e.ok = !(r.flags & (SSW_TRAJ_FWD_CAP | SSW_TRAJ_BWD_CAP)) && isfinite(e.d);
  e.capped = capped;
  e.err = fabs(e.d - c->an.d) / c->an.d;
  e.steps = (double)r.steps;
  e.nfev = (double)nfev;
  return e;
}

static eres eval(const bcase *c, const mdef *m, double x) {
  return m->kind == KIND_ENGINE ? eval_engine(c, m, x) : eval_gsl(c, m, x);
}

/* ------------------------------------------------------------------ */
/* Search of the largest step setting reaching each target. */

typedef struct {
  int found;  /* target reached within the scan */
  int capped; /* reached at the largest allowed setting (eta = 2) */
  double x;   /* eta, or GSL rtol = atol */
  eres r;
} sres;

static int passes(const eres *r, double target) {
  return r->ok && r->err <= target;
}

/* Scans x = x_hi, x_hi / 2, ... until the error is below every target by
 * a margin twice in a row (or the work exceeds the cap), then for each
 * target takes the largest scanned x from which every smaller scanned x
 * also passes (so a lucky zero crossing of the error does not count) and
 * refines it by bisection in log x against its failing neighbour. */
static int trace; /* SSW_BENCH_TRACE set: print every scan evaluation */

static void search(const bcase *c, const mdef *m, double x_hi, double x_lo,
                   int nbis, double work_cap, sres out[NT]) {
  double xs[MAXSCAN];
  eres rs[MAXSCAN];
  int n = 0, below = 0, any_ok = 0;
  const double tmin = targets[NT - 1];
  for (double x = x_hi; x >= x_lo && n < MAXSCAN; x *= 0.5) {
    xs[n] = x;
    rs[n] = eval(c, m, x);
    /* The engine hit the step cap after converging at larger steps:
     * smaller steps only cost more. (Too large steps may also never reach
     * the line of equilibria, and GSL hits its cap at loose tolerances,
     * where it drifts: go on.) */
    if (rs[n].capped && m->kind == KIND_ENGINE && any_ok) break;
    any_ok |= rs[n].ok;
    const eres *r = &rs[n++];
    if (trace)
      fprintf(stderr, "trace: %s %s x %.3g ok %d err %.3g steps %.0f\n",
              c->label, m->label, x, r->ok, r->err, r->steps);
    below = (r->ok && r->err < 0.25 * tmin) ? below + 1 : 0;
    /* More work further down: stop. A GSL failure at a loose tolerance
     * (drift, leg cap) is no reason to stop. */
    if (below >= 2 || (r->steps > work_cap && r->ok)) break;
  }
  for (int k = 0; k < NT; k++) {
    sres *s = &out[k];
    memset(s, 0, sizeof *s);
    int k0 = n;
    while (k0 > 0 && passes(&rs[k0 - 1], targets[k]))
      k0--;
    if (k0 == n) continue; /* the smallest scanned setting fails */
    s->found = 1;
    s->x = xs[k0];
    s->r = rs[k0];
    if (k0 == 0) {
      s->capped = 1;
      continue;
    }
    double lo = xs[k0], hi = xs[k0 - 1];
    for (int i = 0; i < nbis; i++) {
      const double mid = sqrt(lo * hi);
      const eres r = eval(c, m, mid);
      if (passes(&r, targets[k])) {
        lo = mid;
        s->x = mid;
        s->r = r;
      } else {
        hi = mid;
      }
    }
  }
}

/* ------------------------------------------------------------------ */
/* Timing. */

typedef struct {
  const bcase *c;
  const mdef *m;
  double x;
  long k;                   /* calls per sample */
  double ns[MAXROUNDS];     /* ns per trajectory, per round (wall clock) */
  double cpu_ns[MAXROUNDS]; /* the same in thread CPU time */
} tjob;

static volatile double sink;

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wall (CLOCK_MONOTONIC) seconds of k calls; *cpu gets the thread CPU
 * seconds of the same calls when not NULL. */
static double time_calls(const tjob *j, long k, double *cpu) {
  const double c0 = cpu ? thread_cpu() : 0.0;
  const double t0 = bench_now();
  double acc = 0.0;
  for (long i = 0; i < k; i++)
    acc += eval(j->c, j->m, j->x).d;
  const double t1 = bench_now();
  if (cpu) *cpu = thread_cpu() - c0;
  sink = acc;
  return t1 - t0;
}

static void calibrate(tjob *j, double min_time) {
  time_calls(j, 1, NULL); /* warm up */
  double t = time_calls(j, 1, NULL);
  long k = 1;
  while (t < 0.2 * min_time && k < 1000000) {
    k *= 4;
    t = time_calls(j, k, NULL);
  }
  j->k = (long)ceil(k * min_time / fmax(t, 1e-9));
  if (j->k < 1) j->k = 1;
}

/* All jobs, round by round: in each round every job is timed once, so two
 * jobs of the same case are measured seconds apart at most. */
/* A sample during which the thread ran less than this share of the wall
 * time was descheduled by another process: it is taken again (up to
 * RETAKES times; the least disturbed attempt is kept). */
#define MIN_CPU_SHARE 0.95
#define RETAKES 4
static long retaken, samples_taken;

static void run_rounds(tjob *jobs, int n, int rounds) {
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++) {
      double best_share = -1;
      for (int a = 0; a <= RETAKES; a++) {
        double cpu;
        const double wall = time_calls(&jobs[i], jobs[i].k, &cpu);
        const double share = wall > 0 ? cpu / wall : 1.0;
        samples_taken++;
        if (share > best_share) {
          best_share = share;
          jobs[i].ns[r] = wall / jobs[i].k * 1e9;
          jobs[i].cpu_ns[r] = cpu / jobs[i].k * 1e9;
        }
        if (share >= MIN_CPU_SHARE) break;
        retaken++;
      }
    }
}

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

/* Kernel cost: macro steps of a method from the seed's initial state over
 * the span of the forward leg, no extraction around them. Returns ns per
 * base step (per RK4 step). */
static double kernel_ns(const bcase *c, const mdef *m, double eta, int rounds,
                        double min_time) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.method = m->m, o.recon = m->recon, o.eta = eta, o.tol = STOP_TOL;
  o.rtol = 0, o.estimate = 0;
  ssw_traj tr;
  if (ssw_extract_run(&c->t, c->regime, c->w0, c->v0, &o, NULL, NULL, &tr) !=
          0 ||
      !(tr.h > 0))
    return NAN;
  long n = (long)ceil(tr.t_future / tr.h);
  if (n < 1) n = 1;
  const int st = m->m->stages > 0 ? m->m->stages : 1;
  long k = 1;
  double ns[MAXROUNDS];
  for (int r = -1; r < rounds; r++) {
    double t = 0;
    for (int a = 0; a <= RETAKES; a++) {
      const double c0 = thread_cpu(), t0 = bench_now();
      double acc = 0;
      for (long i = 0; i < k; i++) {
        ssw_state s;
        ssw_stepper_init(&c->c, c->w0, c->v0, &s);
        for (long j = 0; j < n; j++)
          ssw_stepper_advance(&c->c, m->m, tr.h, m->recon, &s);
        acc += s.x;
      }
      const double ta = bench_now() - t0, share = (thread_cpu() - c0) / ta;
      sink = acc;
      if (r < 0) { /* calibration round */
        if (ta < min_time) {
          k *= 2;
          a = -1;
        }
        continue;
      }
      if (a == 0 || ta < t) t = ta;
      samples_taken++;
      if (share >= MIN_CPU_SHARE) break;
      retaken++;
    }
    if (r >= 0) ns[r] = t / ((double)k * (double)n * st) * 1e9;
  }
  return bench_median(ns, rounds);
}

/* ------------------------------------------------------------------ */
/* Driver. */

typedef struct {
  sres s[NT];
  tjob *job[NT];
} cell; /* one case x method */

typedef struct {
  int found;
  double x, maxerr;
  double *steps; /* per body */
  tjob **job;    /* per body */
} uniform_cell;  /* one method x target over the batch */

static double x_hi_of(const mdef *m) {
  return m->kind == KIND_GSL ? 1e-3 : 2.0;
}
static double x_lo_of(const mdef *m) {
  return m->kind == KIND_GSL ? 1e-15 : 1e-6;
}

static void print_target_header(const char *what, int k) {
  printf("\n%s, target: relative error in d <= %s\n", what, target_names[k]);
}

int bench_kernels(const bench_opts *o, sbuf *json) {
  gsl_set_error_handler_off();
  trace = getenv("SSW_BENCH_TRACE") != NULL;
  for (int i = 0; i < NM; i++)
    if (mdefs[i].kind == KIND_ENGINE) {
      mdefs[i].m = ssw_method_find(mdefs[i].scheme);
      if (!mdefs[i].m) {
        fprintf(stderr, "bench: scheme %s not in the engine\n",
                mdefs[i].scheme);
        return 1;
      }
    }
  const int rounds = o->rounds > MAXROUNDS ? MAXROUNDS : o->rounds;
  step_cap_per_dir = 0.5 * o->step_cap;
  bcase *cases = calloc((size_t)o->batch + 1, sizeof *cases);
  const int nc = make_cases(o->batch, cases);
  const int nb = nc - 1; /* random bodies */
  cell *cells = calloc((size_t)nc * NM, sizeof *cells);
  tjob *jobs = calloc((size_t)nc * NM * NT * 2, sizeof *jobs);
  int nj = 0;
  const double t_start = bench_now();

  printf("== Cost to accuracy of one trajectory ==\n");
  printf("stopping |L1 w + Z v| <= %g g_max, first-order exponential tail, "
         "d from the limit-circle centres (all methods)\n",
         STOP_TOL);
  printf("cases: seed (m=1 I0=0.5 a=0.2 b=0 A=0.5 B=0.3 theta=pi/3 rho=1, "
         "omega0=1.5 v0=1, d = %.15g) and %d random bodies\n",
         cases[0].an.d, nb);
  fflush(stdout);

  /* 1. Search. */
  for (int ci = 0; ci < nc; ci++)
    for (int mi = 0; mi < NM; mi++) {
      cell *ce = &cells[ci * NM + mi];
      search(&cases[ci], &mdefs[mi], x_hi_of(&mdefs[mi]), x_lo_of(&mdefs[mi]),
             o->bisect, o->step_cap, ce->s);
    }
  const double t_search = bench_now() - t_start;

  /* 2. Uniform setting over the batch (what one sweep would use). */
  uniform_cell *uni = calloc((size_t)NM * NT, sizeof *uni);
  for (int mi = 0; mi < NM && nb > 0; mi++)
    for (int k = 0; k < NT; k++) {
      uniform_cell *u = &uni[mi * NT + k];
      u->steps = calloc((size_t)nb, sizeof *u->steps);
      u->job = calloc((size_t)nb, sizeof *u->job);
      double x = INFINITY;
      int all = 1;
      for (int b = 1; b < nc; b++) {
        const sres *s = &cells[b * NM + mi].s[k];
        if (!s->found)
          all = 0;
        else
          x = fmin(x, s->x);
      }
      if (!all) continue;
      for (int tries = 0; tries < 24; tries++, x /= pow(2.0, 0.125)) {
        double me = 0;
        int ok = 1;
        for (int b = 1; b < nc; b++) {
          const eres r = eval(&cases[b], &mdefs[mi], x);
          ok &= r.ok;
          me = fmax(me, r.err);
          u->steps[b - 1] = r.steps;
        }
        if (ok && me <= targets[k]) {
          u->found = 1, u->x = x, u->maxerr = me;
          break;
        }
      }
    }

  /* 3. Timing jobs: every found setting, then the uniform ones. */
  for (int ci = 0; ci < nc; ci++)
    for (int k = 0; k < NT; k++)
      for (int mi = 0; mi < NM; mi++) {
        cell *ce = &cells[ci * NM + mi];
        if (!ce->s[k].found) continue;
        tjob *j = &jobs[nj++];
        *j = (tjob){&cases[ci], &mdefs[mi], ce->s[k].x, 1, {0}, {0}};
        ce->job[k] = j;
      }
  for (int mi = 0; mi < NM && nb > 0; mi++)
    for (int k = 0; k < NT; k++) {
      uniform_cell *u = &uni[mi * NT + k];
      if (!u->found) continue;
      for (int b = 1; b < nc; b++) {
        tjob *j = &jobs[nj++];
        *j = (tjob){&cases[b], &mdefs[mi], u->x, 1, {0}, {0}};
        u->job[b - 1] = j;
      }
    }
  for (int i = 0; i < nj; i++)
    calibrate(&jobs[i], o->min_time);
  const double load_timing = bench_loadavg();
  run_rounds(jobs, nj, rounds);
  /* Share of a core the timing thread got: wall-clock figures are inflated
   * by other processes when it is well below 1. */
  double sum_cpu = 0, sum_wall = 0;
  for (int i = 0; i < nj; i++)
    for (int r = 0; r < rounds; r++)
      sum_cpu += jobs[i].cpu_ns[r] * jobs[i].k,
          sum_wall += jobs[i].ns[r] * jobs[i].k;
  const double cpu_share = sum_wall > 0 ? sum_cpu / sum_wall : NAN;

  /* 4. Kernel ns per base step (seed case, eta of the 1e-8 target). */
  double kns[NM];
  for (int mi = 0; mi < NM; mi++) {
    kns[mi] = NAN;
    if (mdefs[mi].kind != KIND_ENGINE) continue;
    const cell *ce = &cells[mi];
    const double eta = ce->s[1].found   ? ce->s[1].x
                       : ce->s[0].found ? ce->s[0].x
                                        : 0.1;
    kns[mi] = kernel_ns(&cases[0], &mdefs[mi], eta, rounds, o->min_time);
  }
  const double t_total = bench_now() - t_start;

  /* ---- Seed table. ---- */
  sb_printf(json,
            "\"kernels\": {\"stop_tol\": %g, \"targets\": [1e-6, 1e-8, "
            "1e-10], \"rounds\": %d, \"gsl_version\": \"%s\", "
            "\"search_s\": %.3g, \"total_s\": %.3g, "
            "\"loadavg_timing\": %.2f, \"cpu_share_timing\": %.3f, "
            "\"samples\": %ld, \"samples_retaken\": %ld, ",
            STOP_TOL, rounds, GSL_VERSION, t_search, t_total, load_timing,
            cpu_share, samples_taken, retaken);
  sb_printf(json, "\"kernel_ns_per_base_step\": {");
  printf("\ntiming: %d rounds (median), load average %.2f; the timing "
         "thread got %.0f%% of a core (thread CPU / wall time) in the kept "
         "samples; %ld of %ld samples were retaken because another process "
         "took the core%s\n",
         rounds, load_timing, 100.0 * cpu_share, retaken, samples_taken,
         cpu_share < 0.9 ? " (NOISY)" : "");
  printf("\nKernel cost, seed case (macro steps over the forward span at the "
         "1e-8 eta, no extraction): ns per base step (RK4: per step)\n");
  for (int mi = 0, first = 1; mi < NM; mi++) {
    if (!isfinite(kns[mi])) continue;
    printf("  %-16s %8.1f ns\n", mdefs[mi].label, kns[mi]);
    sb_printf(json, "%s\"%s\": ", first ? "" : ", ", mdefs[mi].key);
    sb_num(json, kns[mi]);
    first = 0;
  }
  sb_printf(json, "}, \"seed\": {\"d_closed_form\": %.17g, \"methods\": {",
            cases[0].an.d);

  for (int k = 0; k < NT; k++) {
    print_target_header("Seed case", k);
    printf("  %-16s %10s %9s %9s %9s %10s %8s %10s\n", "method", "eta|tol",
           "err_d", "steps", "RHS", "us/traj", "ns/step", "/rk8pd");
    const tjob *ref = cells[M_RK8PD].job[k];
    for (int mi = 0; mi < NM; mi++) {
      const cell *ce = &cells[mi];
      const sres *s = &ce->s[k];
      if (!s->found) {
        printf("  %-16s %10s (not reached within %.3g steps)\n",
               mdefs[mi].label, "-", o->step_cap);
        continue;
      }
      const double us = job_us(ce->job[k], rounds);
      printf("  %-16s %9.3g%s %9.2g %9.0f %9.0f %10.1f %8.1f %10.3g\n",
             mdefs[mi].label, s->x, s->capped ? "*" : " ", s->r.err, s->r.steps,
             s->r.nfev, us, us * 1e3 / s->r.steps,
             paired_ratio(ce->job[k], ref, rounds));
    }
  }
  printf("  (* = reached at the largest eta the engine accepts, 2; "
         "ns/step = us/traj / steps; /rk8pd = time ratio, paired rounds)\n");
  for (int mi = 0; mi < NM; mi++) {
    const cell *ce = &cells[mi];
    sb_printf(json, "%s\"%s\": {", mi ? ", " : "", mdefs[mi].key);
    for (int k = 0; k < NT; k++) {
      const sres *s = &ce->s[k];
      sb_printf(json, "%s\"%s\": ", k ? ", " : "", target_names[k]);
      if (!s->found) {
        sb_printf(json, "null");
        continue;
      }
      const double us = job_us(ce->job[k], rounds);
      sb_printf(json, "{\"x\": ");
      sb_num(json, s->x);
      sb_printf(json,
                ", \"capped\": %s, \"err\": ", s->capped ? "true" : "false");
      sb_num(json, s->r.err);
      sb_printf(json, ", \"steps\": %.0f, \"rhs\": %.0f, \"us\": ", s->r.steps,
                s->r.nfev);
      sb_num(json, us);
      sb_printf(json, ", \"us_cpu\": ");
      sb_num(json, bench_median(ce->job[k]->cpu_ns, rounds) * 1e-3);
      sb_printf(json, ", \"ns_per_step\": ");
      sb_num(json, us * 1e3 / s->r.steps);
      sb_printf(json, ", \"ratio_vs_rk8pd\": ");
      sb_num(json, paired_ratio(ce->job[k], cells[M_RK8PD].job[k], rounds));
      sb_printf(json, "}");
    }
    sb_printf(json, "}");
  }
  sb_printf(json, "}}");

  /* ---- Batch tables. ---- */
  double *v1 = calloc((size_t)nb + 1, sizeof *v1);
  double *v2 = calloc((size_t)nb + 1, sizeof *v2);
  double *v3 = calloc((size_t)nb + 1, sizeof *v3);
  double *v4 = calloc((size_t)nb + 1, sizeof *v4);
  double *v5 = calloc((size_t)nb + 1, sizeof *v5);
  sb_printf(json, ", \"random\": {\"bodies\": %d, \"methods\": {", nb);
  /* summary[m][k]: median us, median ratio for the headline. */
  double med_us[NM][NT], med_ratio[NM][NT];
  for (int mi = 0; mi < NM; mi++)
    for (int k = 0; k < NT; k++)
      med_us[mi][k] = med_ratio[mi][k] = NAN;
  for (int k = 0; k < NT && nb > 0; k++) {
    char what[64];
    snprintf(what, sizeof what, "Random bodies (%d)", nb);
    print_target_header(what, k);
    printf("  per body, largest step: median / max over the bodies "
           "(n = bodies reaching the target)\n");
    printf("  %-16s %3s %9s %15s %17s %8s %15s | %9s %8s %15s %17s\n", "method",
           "n", "eta med", "steps med/max", "us/traj med/max", "ns/step",
           "/rk8pd med/max", "unif eta", "max err", "steps med/max",
           "us/traj med/max");
    for (int mi = 0; mi < NM; mi++) {
      int n = 0;
      for (int b = 1; b < nc; b++) {
        const cell *ce = &cells[b * NM + mi];
        if (!ce->s[k].found) continue;
        v1[n] = ce->s[k].x;
        v2[n] = ce->s[k].r.steps;
        v3[n] = job_us(ce->job[k], rounds);
        v4[n] = v3[n] * 1e3 / v2[n];
        v5[n] =
            paired_ratio(ce->job[k], cells[b * NM + M_RK8PD].job[k], rounds);
        n++;
      }
      const double eta_med = bench_median(v1, n), st_med = bench_median(v2, n),
                   st_max = bench_max(v2, n), us_med = bench_median(v3, n),
                   us_max = bench_max(v3, n), ns_med = bench_median(v4, n),
                   r_med = bench_median(v5, n), r_max = bench_max(v5, n);
      med_us[mi][k] = us_med, med_ratio[mi][k] = r_med;
      const uniform_cell *u = &uni[mi * NT + k];
      double ust_med = NAN, ust_max = NAN, uus_med = NAN, uus_max = NAN;
      if (u->found) {
        for (int b = 0; b < nb; b++)
          v1[b] = job_us(u->job[b], rounds);
        ust_med = bench_median(u->steps, nb), ust_max = bench_max(u->steps, nb);
        uus_med = bench_median(v1, nb), uus_max = bench_max(v1, nb);
      }
      printf("  %-16s %3d %9.3g %7.0f/%-7.0f %8.1f/%-8.1f %8.1f %7.3g/%-7.3g | "
             "%9.3g %8.2g %7.0f/%-7.0f %8.1f/%-8.1f\n",
             mdefs[mi].label, n, eta_med, st_med, st_max, us_med, us_max,
             ns_med, r_med, r_max, u->found ? u->x : NAN,
             u->found ? u->maxerr : NAN, ust_med, ust_max, uus_med, uus_max);
      sb_printf(json, "%s\"%s/%s\": {\"n\": %d, \"eta_median\": ",
                (k || mi) ? ", " : "", mdefs[mi].key, target_names[k], n);
      sb_num(json, eta_med);
      sb_printf(json, ", \"steps_median\": ");
      sb_num(json, st_med);
      sb_printf(json, ", \"steps_max\": ");
      sb_num(json, st_max);
      sb_printf(json, ", \"us_median\": ");
      sb_num(json, us_med);
      sb_printf(json, ", \"us_max\": ");
      sb_num(json, us_max);
      sb_printf(json, ", \"ns_per_step_median\": ");
      sb_num(json, ns_med);
      sb_printf(json, ", \"ratio_vs_rk8pd_median\": ");
      sb_num(json, r_med);
      sb_printf(json, ", \"ratio_vs_rk8pd_max\": ");
      sb_num(json, r_max);
      sb_printf(json, ", \"uniform\": ");
      if (!u->found) {
        sb_printf(json, "null}");
        continue;
      }
      sb_printf(json, "{\"x\": ");
      sb_num(json, u->x);
      sb_printf(json, ", \"max_err\": ");
      sb_num(json, u->maxerr);
      sb_printf(json, ", \"steps_median\": ");
      sb_num(json, ust_med);
      sb_printf(json, ", \"steps_max\": ");
      sb_num(json, ust_max);
      sb_printf(json, ", \"us_median\": ");
      sb_num(json, uus_med);
      sb_printf(json, ", \"us_max\": ");
      sb_num(json, uus_max);
      sb_printf(json, "}}");
    }
  }
  if (nb > 0)
    printf("  (unif = one setting for the whole batch, the largest meeting the "
           "target on every body: what a sweep would use)\n");
  sb_printf(json, "}}");

  /* ---- Headline ratios. ---- */
  printf("\nTime-to-accuracy ratio ours / GSL rk8pd (> 1: GSL is faster), "
         "paired rounds\n");
  printf("  %-7s %-26s %-11s %-11s | %-26s %-11s %-11s\n", "target",
         "seed: best Hamel", "hamel8 exp", "hamel6 exp",
         "random median: best Hamel", "hamel8 exp", "hamel6 exp");
  sb_printf(json, ", \"ratios\": {");
  for (int k = 0; k < NT; k++) {
    int best = -1, bestb = -1;
    for (int mi = 0; mi < NM; mi++) {
      if (!is_hamel(mi)) continue;
      const tjob *j = cells[mi].job[k];
      if (j &&
          (best < 0 || job_us(j, rounds) < job_us(cells[best].job[k], rounds)))
        best = mi;
      if (isfinite(med_us[mi][k]) &&
          (bestb < 0 || med_us[mi][k] < med_us[bestb][k]))
        bestb = mi;
    }
    const tjob *ref = cells[M_RK8PD].job[k];
    const double rb =
        best >= 0 ? paired_ratio(cells[best].job[k], ref, rounds) : NAN;
    const double r8 = paired_ratio(cells[M_H8].job[k], ref, rounds);
    const double r6 = paired_ratio(cells[M_H6].job[k], ref, rounds);
    const double rr = bestb >= 0 ? med_ratio[bestb][k] : NAN;
    char a[64], c[64];
    snprintf(a, sizeof a, "%.3g (%s)", rb, best >= 0 ? mdefs[best].label : "-");
    snprintf(c, sizeof c, "%.3g (%s)", rr,
             bestb >= 0 ? mdefs[bestb].label : "-");
    printf("  %-7s %-26s %-11.3g %-11.3g | %-26s %-11.3g %-11.3g\n",
           target_names[k], a, r8, r6, c, med_ratio[M_H8][k],
           med_ratio[M_H6][k]);
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
    sb_num(json, med_ratio[M_H8][k]);
    sb_printf(json, ", \"random_median_hamel6_exp\": ");
    sb_num(json, med_ratio[M_H6][k]);
    sb_printf(json, "}");
  }
  sb_printf(json, "}}");
  printf("(kernel part: %.1f s, of which search %.1f s)\n", t_total, t_search);
  fflush(stdout);

  for (int mi = 0; mi < NM; mi++)
    for (int k = 0; k < NT; k++) {
      free(uni[mi * NT + k].steps);
      free(uni[mi * NT + k].job);
    }
  free(uni);
  free(v1), free(v2), free(v3), free(v4), free(v5);
  free(jobs);
  free(cells);
  free(cases);
  return 0;
}
