/* Cost to accuracy of one trajectory: the engine's Hamel compositions (both
 * reconstructions) and RK4 through ssw_extract_run, against GSL's adaptive
 * rk8pd and rkf45 on the same equations with the same stopping rule, tail
 * correction and centre extraction. For every method and accuracy target
 * (relative error in the centre spacing d against the closed form) the
 * largest step (eta; GSL: rtol = atol) reaching the target is searched,
 * then the trajectory is timed at that setting, all methods of a case
 * interleaved round by round so that ratios are measured side by side. */
#include "bench_kernels.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gsl.h"
#include "test_util.h"

const double targets[NT] = {1e-6, 1e-8, 1e-10};
const char *const target_names[NT] = {"1e-06", "1e-08", "1e-10"};
#define MAXSCAN 80

/* ------------------------------------------------------------------ */
/* Cases. */

static int make_case(const ssw_body *bd, const ssw_params *p, double w0,
                     double v0, const char *label, bcase *c) {
  memset(c, 0, sizeof *c);
  if (ssw_model_tensor(bd, p, &c->t) != 0) return -1;
  ssw_model_classify(&c->t, SSW_ZERO_TOL_DEFAULT, &c->t, &c->regime);
  ssw_analytic_compute(&c->t, c->regime, &c->an);
  snprintf(c->label, sizeof c->label, "%s", label);
  c->w0 = w0, c->v0 = v0;
  /* Bound to the default scheme (the GSL runs use only its equations). */
  ssw_stepper_bind(&c->t, ssw_method_find(SSW_SCHEME_DEFAULT), &c->c);
  return 0;
}

/* The seed case, then the first `n` valid circle-to-circle bodies of the
 * random sequence of tests/test_extract.c test_random_bodies (Model II,
 * random m, I0, rho, theta, a, b, r, s; random point on the energy level
 * (omega0, v0) = (cos psi, 2 sin psi)). Returns the number of cases. */
static int make_cases(int n, bcase *out) {
  const ssw_body seed_body = {
      .m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS};
  const ssw_params seed = {M_PI / 3.0, 0.2, 0.0, 0.0, 0.0, 0.5, 0.3};
  int k = 0;
  if (make_case(&seed_body, &seed, 1.5, 1.0, "seed", &out[k]) == 0) k++;
  /* m, I0, rho, theta, a, b, r, s: drawn in this order (a loop, since
   * the order in which an initializer list evaluates is unspecified). */
  static const double lo[8] = {0.5, 0.2, 0, 0, -0.6, -0.3, -0.2, -0.2};
  static const double hi[8] = {2, 1, 2, M_PI, 0.6, 0.3, 0.2, 0.2};
  unsigned long long s = 2024;
  for (int i = 0; i < 10000 && k < n + 1; i++) {
    double u[8];
    for (int j = 0; j < 8; j++)
      u[j] = test_uniform(&s, lo[j], hi[j]);
    ssw_body bd = {
        .m = u[0], .I0 = u[1], .rho = u[2], .k_rot = SSW_KROT_PAPERS};
    ssw_params p = {u[3], u[4], u[5], u[6], u[7], 0.5, 0.3};
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
/* Methods and one evaluation. */

mdef mdefs[NM] = {
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
  const int st = ssw_method_cost(m->m);
  ssw_coeffs cm;
  if (ssw_stepper_bind(&c->t, m->m, &cm) != 0) return NAN;
  long k = 1;
  double ns[MAXROUNDS];
  for (int r = -1; r < rounds; r++) {
    double t = 0;
    for (int a = 0; a <= RETAKES; a++) {
      const double c0 = thread_cpu(), t0 = bench_now();
      double acc = 0;
      for (long i = 0; i < k; i++) {
        ssw_state s;
        ssw_stepper_init(&cm, c->w0, c->v0, &s);
        for (long j = 0; j < n; j++)
          ssw_stepper_advance(&cm, tr.h, m->recon, &s);
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

static double x_hi_of(const mdef *m) {
  return m->kind == KIND_GSL ? 1e-3 : 2.0;
}
static double x_lo_of(const mdef *m) {
  return m->kind == KIND_GSL ? 1e-15 : 1e-6;
}

/* The engine's schemes of the method table; 0 when every one exists. */
static int resolve_methods(void) {
  for (int i = 0; i < NM; i++)
    if (mdefs[i].kind == KIND_ENGINE) {
      mdefs[i].m = ssw_method_find(mdefs[i].scheme);
      if (!mdefs[i].m) {
        fprintf(stderr, "bench: scheme %s not in the engine\n",
                mdefs[i].scheme);
        return 1;
      }
    }
  return 0;
}

/* 1. Per case and method, the largest setting reaching each target. */
static void search_all(kctx *kc) {
  for (int ci = 0; ci < kc->nc; ci++)
    for (int mi = 0; mi < NM; mi++)
      search(&kc->cases[ci], &mdefs[mi], x_hi_of(&mdefs[mi]),
             x_lo_of(&mdefs[mi]), kc->o->bisect, kc->o->step_cap,
             kc->cells[ci * NM + mi].s);
}

/* 2. One setting of method mi for the whole batch (what one sweep would
 * use): from the smallest per-body setting down by 2^(1/8) until every
 * body meets target k. */
static void uniform_setting(kctx *kc, int mi, int k) {
  uniform_cell *u = &kc->uni[mi * NT + k];
  u->steps = calloc((size_t)kc->nb, sizeof *u->steps);
  u->job = calloc((size_t)kc->nb, sizeof *u->job);
  double x = INFINITY;
  for (int b = 1; b < kc->nc; b++) {
    const sres *s = &kc->cells[b * NM + mi].s[k];
    if (!s->found) return;
    x = fmin(x, s->x);
  }
  for (int tries = 0; tries < 24; tries++, x /= pow(2.0, 0.125)) {
    double me = 0;
    int ok = 1;
    for (int b = 1; b < kc->nc; b++) {
      const eres r = eval(&kc->cases[b], &mdefs[mi], x);
      ok &= r.ok;
      me = fmax(me, r.err);
      u->steps[b - 1] = r.steps;
    }
    if (ok && me <= targets[k]) {
      u->found = 1, u->x = x, u->maxerr = me;
      return;
    }
  }
}

static void add_job(kctx *kc, const bcase *c, int mi, double x, tjob **slot) {
  tjob *j = &kc->jobs[kc->nj++];
  *j = (tjob){c, &mdefs[mi], x, 1, {0}, {0}};
  *slot = j;
}

/* 3. Timing: every found setting, then the uniform ones, round by round. */
static void time_all(kctx *kc) {
  for (int ci = 0; ci < kc->nc; ci++)
    for (int k = 0; k < NT; k++)
      for (int mi = 0; mi < NM; mi++) {
        cell *ce = &kc->cells[ci * NM + mi];
        if (ce->s[k].found)
          add_job(kc, &kc->cases[ci], mi, ce->s[k].x, &ce->job[k]);
      }
  for (int mi = 0; mi < NM && kc->nb > 0; mi++)
    for (int k = 0; k < NT; k++) {
      uniform_cell *u = &kc->uni[mi * NT + k];
      if (!u->found) continue;
      for (int b = 1; b < kc->nc; b++)
        add_job(kc, &kc->cases[b], mi, u->x, &u->job[b - 1]);
    }
  for (int i = 0; i < kc->nj; i++)
    calibrate(&kc->jobs[i], kc->o->min_time);
  kc->load_timing = bench_loadavg();
  run_rounds(kc->jobs, kc->nj, kc->rounds);
  /* Share of a core the timing thread got: wall-clock figures are inflated
   * by other processes when it is well below 1. */
  double sum_cpu = 0, sum_wall = 0;
  for (int i = 0; i < kc->nj; i++)
    for (int r = 0; r < kc->rounds; r++)
      sum_cpu += kc->jobs[i].cpu_ns[r] * kc->jobs[i].k,
          sum_wall += kc->jobs[i].ns[r] * kc->jobs[i].k;
  kc->cpu_share = sum_wall > 0 ? sum_cpu / sum_wall : NAN;
}

/* 4. Kernel ns per base step (seed case, eta of the 1e-8 target). */
static void kernel_costs(kctx *kc) {
  for (int mi = 0; mi < NM; mi++) {
    kc->kns[mi] = NAN;
    if (mdefs[mi].kind != KIND_ENGINE) continue;
    const cell *ce = &kc->cells[mi];
    const double eta = ce->s[1].found   ? ce->s[1].x
                       : ce->s[0].found ? ce->s[0].x
                                        : 0.1;
    kc->kns[mi] =
        kernel_ns(&kc->cases[0], &mdefs[mi], eta, kc->rounds, kc->o->min_time);
  }
}

static void free_ctx(kctx *kc) {
  for (int i = 0; kc->uni && i < NM * NT; i++) {
    free(kc->uni[i].steps);
    free(kc->uni[i].job);
  }
  free(kc->uni);
  free(kc->jobs);
  free(kc->cells);
  free(kc->cases);
}

int bench_kernels(const bench_opts *o, sbuf *json) {
  gsl_set_error_handler_off();
  trace = getenv("SSW_BENCH_TRACE") != NULL;
  if (resolve_methods() != 0) return 1;
  kctx kc = {.o = o};
  kc.rounds = o->rounds > MAXROUNDS ? MAXROUNDS : o->rounds;
  step_cap_per_dir = 0.5 * o->step_cap;
  kc.cases = calloc((size_t)o->batch + 1, sizeof *kc.cases);
  kc.nc = make_cases(o->batch, kc.cases);
  kc.nb = kc.nc - 1; /* random bodies */
  kc.cells = calloc((size_t)kc.nc * NM, sizeof *kc.cells);
  kc.jobs = calloc((size_t)kc.nc * NM * NT * 2, sizeof *kc.jobs);
  kc.uni = calloc((size_t)NM * NT, sizeof *kc.uni);
  const double t_start = bench_now();
  kernels_intro(&kc);
  search_all(&kc);
  kc.t_search = bench_now() - t_start;
  for (int mi = 0; mi < NM && kc.nb > 0; mi++)
    for (int k = 0; k < NT; k++)
      uniform_setting(&kc, mi, k);
  time_all(&kc);
  kernel_costs(&kc);
  kc.t_total = bench_now() - t_start;
  kc.samples = samples_taken, kc.retaken = retaken;
  kernels_report(&kc, json);
  free_ctx(&kc);
  return 0;
}
