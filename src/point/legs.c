/* Legs: the lanes' control around the batch kernel (density update,
 * stopping, the peak of |g| for t0, the blade force's peaks, sampling),
 * and dopri5 under its own control. */
#include "legs.h"

#include <math.h>
#include <stddef.h>

#include "sleighsweep/dopri5.h"

/* fmax and fmin as libm's (x86-64: maxsd and minsd where both are
 * numbers, so a tie returns the second argument; the number where one is
 * NaN; the first NaN where both are), inline: GCC keeps calls to fmax and
 * fmin without -ffinite-math-only, and these sit on every step's path. */
static inline double maxd(double a, double b) {
  return b != b ? a : (a > b ? a : b);
}
static inline double mind(double a, double b) {
  return b != b ? a : (a < b ? a : b);
}

/* The node's velocity from its momenta, as ssw_stepper_velocity computes
 * it (inline: it is called at every node). */
static inline void node_velocity(const ssw_coeffs *c, const ssw_state *s,
                                 double *w, double *v) {
  ssw_model_velocity(&c->e, s->W1, s->W2, w, v);
}

/* The step density rho and d ln rho / dt at (w, v) with the clock's
 * scales (nu2, G2, delta2), for T = double (density) or four lanes
 * (settle4, SQRT their square root): one sequence of IEEE operations, so
 * a lane's bits are the scalar's. */
#define DENSITY(T, SQRT, e, nu2, G2, delta2, w, v, rho, dlog)                  \
  do {                                                                         \
    const T g_ = SSW_MODEL_G(e, w, v), ht_ = SSW_MODEL_HT(e, w, v);            \
    const T a1_ = SSW_MODEL_A1(e, w, v), a2_ = SSW_MODEL_A2(e, w, v);          \
    const T wd_ = g_ * a1_ / (e)->D, vd_ = g_ * a2_ / (e)->D;                  \
    const T gd_ = g_ * ht_ / (e)->D;                                           \
    const T wdd_ = (gd_ * a1_ + g_ * SSW_MODEL_A1(e, wd_, vd_)) / (e)->D;      \
    const T s2_ = (nu2) + (w) * (w);                                           \
    const T k4_ = s2_ * s2_ + wd_ * wd_;                                       \
    const T A_ = g_ * g_ / (G2) + (delta2);                                    \
    const T r2_ = SQRT(k4_), r4_ = SQRT(r2_);                                  \
    const T a2r_ = SQRT(A_), a4r_ = SQRT(a2r_), a8r_ = SQRT(a4r_);             \
    (rho) = r4_ * SQRT(a8r_);                                                  \
    /* d ln rho / dt with w' = g a1 / D, v' = g a2 / D, g' = g ht / D. */      \
    (dlog) = (s2_ * 2.0 * (w)*wd_ + wd_ * wdd_) / (2.0 * k4_) +                \
             g_ * gd_ / (8.0 * (G2)*A_);                                       \
  } while (0)

/* Cayley factor (1 + x/2)/(1 - x/2) of an x already clamped to |x| <= 1. */
#define CAYLEY_OF(x) ((1.0 + 0.5 * (x)) / (1.0 - 0.5 * (x)))

static void density(const ssw_reduced *e, const clock_par *k, double w,
                    double v, double *rho, double *dlog) {
  DENSITY(double, sqrt, e, k->nu2, k->G2, k->delta2, w, v, *rho, *dlog);
}

/* Cayley factor (1 + x/2)/(1 - x/2): C(x) C(-x) = 1 keeps the density
 * update reversible, and clamping |x| <= 1 (an odd map) keeps it positive. */
static double cayley(double x) {
  x = mind(1.0, maxd(-1.0, x));
  return CAYLEY_OF(x);
}

/* The largest |F| of the blade force along a leg. The nodes are too
 * coarse for a peak between them, so where |F| rises then falls over an
 * interval the peak is found on the Taylor series of the reduced motion
 * about the nearer node: (w, v) obey a quadratic ODE whose series follows
 * by a recurrence, F is a quadratic form in them, and the series converges
 * within pi / (2 Arate) (the poles of sech), far beyond half a step. The
 * peak's value then carries the integrator's accuracy
 * (docs/theory/blade-force.md). */
#define SERIES 24
_Static_assert(SERIES <= SSW_MODEL_SERIES_MAX, "the model's series length");

typedef struct {
  double t, f, d, w, v;
  int n;
} fpeak;

/* Largest |F| of the series on s in [lo, hi] (lo < 0 < hi or one-sided):
 * Newton on F'(s) = 0 from `guess`, kept inside the interval. */
static double series_peak(const double F[SERIES], double lo, double hi,
                          double guess) {
  double c1[SERIES], c2[SERIES]; /* the derivatives' coefficients */
  for (int k = 2; k < SERIES; k++)
    c1[k] = k * F[k], c2[k] = k * (k - 1) * F[k];
  const double tol = 0x1p-50 * maxd(fabs(hi - lo), 1e-300);
  double s = mind(hi, maxd(lo, guess));
  for (int it = 0; it < 30; it++) {
    double d1 = 0.0, d2 = 0.0;
    for (int k = SERIES - 1; k >= 2; k--)
      d1 = d1 * s + c1[k], d2 = d2 * s + c2[k];
    d1 = d1 * s + F[1];
    if (d2 == 0.0) break;
    const double sn = mind(hi, maxd(lo, s - d1 / d2));
    const int done = fabs(sn - s) <= tol;
    s = sn;
    if (done) break;
  }
  double f = 0.0;
  for (int k = SERIES - 1; k >= 0; k--)
    f = f * s + F[k];
  return fabs(f);
}

/* The magnitude of the terms of F = g ht / D + w (M v - L2 w)
 * (SSW_MODEL_BLADE in model.h: a term added there belongs here too). */
static double blade_terms(const ssw_reduced *e, double w, double v) {
  const double g = fabs(e->L1 * w) + fabs(e->Z * v);
  const double ht = fabs(e->kw2 * w) + fabs(e->kw1 * v);
  return g * ht / e->D + fabs(w) * (fabs(e->M * v) + fabs(e->L2 * w));
}

/* A peak on the series about (w, v): kept for ssw_legs_peaks, or, when
 * the leg keeps LEG_PEAKS already, summed now. */
static void peak_add(leg *out, const ssw_reduced *e, double w, double v,
                     double lo, double hi, double guess) {
  if (out->npeaks < LEG_PEAKS) {
    out->peaks[out->npeaks++] = (leg_peak){w, v, lo, hi, guess};
    return;
  }
  double S[SERIES];
  ssw_model_blade_series(e, w, v, SERIES, S);
  out->fmax = maxd(out->fmax, series_peak(S, lo, hi, guess));
}

static void fpeak_add(fpeak *p, const ssw_reduced *e, double t, double w,
                      double v, leg *out) {
  double f, d;
  double *best = &out->fmax;
  ssw_model_blade_rate(e, w, v, &f, &d);
  *best = maxd(*best, fabs(f));
  out->fterms = maxd(out->fterms, blade_terms(e, w, v));
  /* Only an interval over which |F| rises then falls holds a peak. */
  const double sf = copysign(1.0, f), dt = t - p->t;
  if (p->n > 0 && p->d * sf * dt > 0 && d * sf * dt < 0) {
    /* Expand about the node nearer the peak: F' interpolated linearly. */
    const double x = p->d / (p->d - d); /* in (0, 1) */
    if (x < 0.5)
      peak_add(out, e, p->w, p->v, mind(0.0, dt), maxd(0.0, dt), x * dt);
    else
      peak_add(out, e, w, v, mind(0.0, -dt), maxd(0.0, -dt), (x - 1.0) * dt);
  }
  p->t = t, p->f = f, p->d = d, p->w = w, p->v = v;
  p->n++;
}

/* series_peak in four lanes, each the scalar's sequence of operations
 * (its Newton iterations stop lane by lane: a stopped lane's s is kept). */
typedef long long vm4 __attribute__((vector_size(4 * sizeof(double))));
typedef ssw_model_v4 v4;
#define SEL4(m, a, b) ((v4)(((vm4)(a) & (m)) | ((vm4)(b) & ~(m))))
#define MAXD4(a, b) SEL4(((b) != (b)) | ((a) > (b)), a, b)
#define MIND4(a, b) SEL4(((b) != (b)) | ((a) < (b)), a, b)
#define FABS4(x) ((v4)((vm4)(x) & ~(vm4)((v4){-0.0, -0.0, -0.0, -0.0})))

SSW_SIMD_CLONES static void series_peak4(const v4 F[SERIES], const v4 *lo,
                                         const v4 *hi, const v4 *guess,
                                         v4 *peak) {
  v4 c1[SERIES], c2[SERIES];
  for (int k = 2; k < SERIES; k++)
    c1[k] = (double)k * F[k], c2[k] = (double)(k * (k - 1)) * F[k];
  const v4 zero = {0.0, 0.0, 0.0, 0.0}, tiny = {1e-300, 1e-300, 1e-300, 1e-300};
  const v4 tol = 0x1p-50 * MAXD4(FABS4(*hi - *lo), tiny);
  v4 s = MIND4(*hi, MAXD4(*lo, *guess));
  vm4 on = {-1, -1, -1, -1};
  for (int it = 0; it < 30 && (on[0] | on[1] | on[2] | on[3]); it++) {
    v4 d1 = zero, d2 = zero;
    for (int k = SERIES - 1; k >= 2; k--)
      d1 = d1 * s + c1[k], d2 = d2 * s + c2[k];
    d1 = d1 * s + F[1];
    on &= ~(d2 == 0.0);
    const v4 sn = MIND4(*hi, MAXD4(*lo, s - d1 / d2));
    const vm4 done = FABS4(sn - s) <= tol;
    s = SEL4(on, sn, s);
    on &= ~done;
  }
  v4 f = zero;
  for (int k = SERIES - 1; k >= 0; k--)
    f = f * s + F[k];
  *peak = FABS4(f);
}

/* Sums the n <= 4 peaks p[] (the others' lanes repeat the first) into
 * their legs' fmax. */
static void peaks_sum(const ssw_reduced *e, leg_peak *const *p, leg *const *out,
                      int n) {
  v4 w = {0}, v = {0}, lo = {0}, hi = {0}, guess = {0}, F[SERIES], peak;
  for (int i = 0; i < 4; i++) {
    const leg_peak *q = p[i < n ? i : 0];
    w[i] = q->w, v[i] = q->v, lo[i] = q->lo, hi[i] = q->hi, guess[i] = q->guess;
  }
  ssw_model_blade_series4(e, &w, &v, SERIES, F);
  series_peak4(F, &lo, &hi, &guess, &peak);
  for (int i = 0; i < n; i++)
    out[i]->fmax = maxd(out[i]->fmax, peak[i]);
}

void ssw_legs_peaks(const leg_run *R, leg_job *jobs, int njobs) {
  leg_peak *p[4];
  leg *out[4];
  int n = 0;
  for (int i = 0; i < njobs; i++) {
    leg *r = &jobs[i].out;
    for (int k = 0; k < r->npeaks; k++) {
      p[n] = &r->peaks[k], out[n] = r;
      if (++n == 4) peaks_sum(&R->c->e, p, out, n), n = 0;
    }
  }
  if (n > 0) peaks_sum(&R->c->e, p, out, n);
  for (int i = 0; i < njobs; i++)
    jobs[i].out.npeaks = 0;
}

/* Illinois regula falsi for the zero of f(tau) on a bracket (a, b) with
 * f(a) > 0 >= f(b): the lanes' t0 refinement and dopri5's share it. */
typedef struct {
  double a, b, fa, fb;
  int side, it;
} illinois;

static illinois illinois_init(double b, double fa, double fb) {
  return (illinois){0.0, b, fa, fb, 0, 0};
}

/* The next point to evaluate in *tau; 0 when the bracket is resolved (an
 * exact zero, 60 evaluations, or a width of a few ulps of `scale`). */
static int illinois_next(illinois *br, double scale, double *tau) {
  if (br->it >= 60 || br->fb == 0.0) return 0;
  const double a = br->a, b = br->b, fa = br->fa, fb = br->fb;
  double x = (a * fb - b * fa) / (fb - fa);
  if (!(x > a && x < b)) x = 0.5 * (a + b);
  if (b - a <= 4.0 * 0x1p-52 * scale) return 0;
  br->it++;
  *tau = x;
  return 1;
}

/* Takes f(tau): the side it falls on moves, the other end's value is
 * halved when the same side moves twice (Illinois). */
static void illinois_update(illinois *br, double tau, double f) {
  if (f > 0) {
    br->a = tau, br->fa = f;
    if (br->side == -1) br->fb *= 0.5;
    br->side = -1;
  } else {
    br->b = tau, br->fb = f;
    if (br->side == 1) br->fa *= 0.5;
    br->side = 1;
  }
}

/* The zero: the final secant point (b on an exact zero). */
static double illinois_root(const illinois *br) {
  const double a = br->a, b = br->b, fa = br->fa, fb = br->fb;
  return fb == 0.0 ? b : (a * fb - b * fa) / (fb - fa);
}

/* ---- Arrival and the anchor ---------------------------------------------
 * A leg stops once |g| is at most gstop and at most 1/ANCHOR_RATIO of the
 * anchor's, the last node with |g| >= ANCHOR_RATIO gstop (or the start):
 * the tail's O(g^2) remainder is then estimated from the tails added at
 * the anchor and at the end (extract.c). It also stops where g reaches its
 * round-off, below which it cannot decrease. */
#define ANCHOR_RATIO 4.0

static double g_floor(const ssw_reduced *e, double w, double v) {
  return 8.0 * 0x1p-52 * (fabs(e->L1 * w) + fabs(e->Z * v));
}

static int arrived(const ssw_reduced *e, const leg_job *j, double g, double w,
                   double v, double ht) {
  if (j->periodic) return j->out.sections >= 2;
  const double a = fabs(g), floor = g_floor(e, w, v);
  if (a <= floor) return 1;
  /* With circulation the tail's error is also O(s^2) in s = sqrt(D) g /
   * ht, the distance from the line in units of the approach, which slows
   * as the equilibria near each other (|ht| falls with sin psi_e): s must
   * be small as well. Without it |ht| is sqrt(D) g_max there and the rule
   * on g says the same. */
  return a <= mind(j->gstop, fabs(j->out.anchor.g) / ANCHOR_RATIO) &&
         (j->stop_ht == 0.0 || a <= j->stop_ht * fabs(ht));
}

static void keep_anchor(const ssw_reduced *e, leg_job *j, const leg_node *n) {
  if (fabs(n->g) >= ANCHOR_RATIO * maxd(j->gstop, g_floor(e, n->w, n->v)))
    j->out.anchor = *n;
}

enum { LANE_IDLE, LANE_STEP, LANE_REFINE, LANE_CHECK, LANE_STEP_CHECK };

/* Steps toward the peak whose local error is measured (see check_step). */
#define PEAK_CHECKS 2

/* What a lane carries between kernel calls. */
typedef struct {
  int mode;
  leg_job *job;
  double h; /* signed size of the lane's next kernel step */
  double t, z, w, v, g, ht;
  ssw_state prev, cur; /* before and after the step that crossed the peak */
  double t_prev, hpeak;
  illinois br;     /* bracket of the peak in (0, |hpeak|) */
  int checks;      /* half steps taken of a step's check */
  int taken;       /* steps taken (not counting refinements and checks) */
  double ht0;      /* ht at the start: dir ht0 > 0 on the way to the peak */
  ssw_state stash; /* a checked step's result, while its halves run */
  double hstep;    /* its size */
  fpeak force;
  /* The density's update of z after a step, left to legs_settle (which
   * runs it for all lanes together, so that their long chains of square
   * roots and divisions overlap): 1 to update z, 2 to set h from it too. */
  int settle;
} lane;

static void lane_start(const leg_run *R, leg_job *j, lane *L, ssw_state *s) {
  const ssw_coeffs *c = R->c;
  *L = (lane){.mode = LANE_STEP, .job = j};
  ssw_stepper_init(c, j->w0, j->v0, s);
  L->w = j->w0, L->v = j->v0;
  L->g = ssw_model_g(&c->e, L->w, L->v),
  L->ht = L->ht0 = ssw_model_ht(&c->e, L->w, L->v);
  j->out = (leg){0};
  j->out.w_start = L->w;
  j->out.anchor =
      (leg_node){0.0, 0.0, 0.0, 0.0, 1.0, 0.0, L->w, L->v, L->g, L->ht};
  j->out.found_peak = L->ht == 0.0;
  fpeak_add(&L->force, &c->e, 0.0, L->w, L->v, &j->out);
  if (R->adaptive) {
    /* z_{+-1/2} = rho_0 C(+-x_0)^(1/2): the forward and the backward leg
     * are the two halves of one reversible sequence through y_0. */
    double rho, dlog;
    density(&c->e, &j->clock, L->w, L->v, &rho, &dlog);
    L->z = rho * sqrt(cayley(j->dir * j->step * dlog / rho));
  }
}

/* A section of a periodic leg: the last evaluated state `s`, a few ulps of
 * the step from the root in time, stands for the state at the root. */
static void add_section(leg *r, double t, const ssw_state *s) {
  if (r->sections < 2) {
    double *q = r->sec[r->sections];
    q[0] = t, q[1] = s->phi, q[2] = s->x, q[3] = s->y;
  }
  r->sections++;
}

static void lane_finish(const leg_run *R, lane *L, const ssw_state *s) {
  leg *r = &L->job->out;
  r->converged =
      !r->nonfinite &&
      (arrived(&R->c->e, L->job, L->g, L->w, L->v, L->ht) || r->stalled);
  r->t = L->t;
  r->phi = s->phi, r->x = s->x, r->y = s->y;
  r->ux = s->ux, r->uy = s->uy;
  r->w = L->w, r->v = L->v, r->g = L->g, r->ht = L->ht;
  L->mode = LANE_IDLE;
  L->settle = 0;
}

/* After a normal step or a finished refinement: stop, or size the next
 * step. Returns 1 when the lane goes on. */
static int lane_next(const leg_run *R, lane *L, const ssw_state *s) {
  leg_job *j = L->job;
  if (j->out.nonfinite || arrived(&R->c->e, j, L->g, L->w, L->v, L->ht) ||
      j->out.stalled || j->out.steps + R->stages > R->o->max_steps) {
    lane_finish(R, L, s);
    return 0;
  }
  if (L->settle) /* z is still to be updated: legs_settle sets h */
    L->settle = 2;
  else
    L->h = j->dir * (R->adaptive ? j->step / L->z : j->step);
  return 1;
}

/* Next evaluation of the Illinois regula falsi for the zero of dir * ht in
 * one macro step from `prev`; each evaluation is one macro step of the
 * same method, so t0 carries the integrator's own accuracy. Returns 0 when
 * the bracket is resolved. */
static int refine_next(lane *L) {
  double tau;
  if (!illinois_next(&L->br, fabs(L->hpeak), &tau)) return 0;
  L->h = L->job->dir * tau;
  return 1;
}

/* Back to the state after the crossing step (w, v, g, ht are still its
 * own) and on with the leg. */
static void resume(const leg_run *R, lane *L, ssw_state *s) {
  *s = L->cur;
  L->mode = LANE_STEP;
  lane_next(R, L, s);
}

/* The local error of one macro step of size tau, C tau^(q+1), from the
 * same step taken as two halves (which err by C tau^(q+1) / 2^q): the
 * root's one-step ht is 0, so the two halves' ht is the error's (2^q - 1)
 * / 2^q, and t0 moves by it over the slope |ht'| = g^2 = G^2 at the peak. */
static double step_local(const leg_run *R, double ht1, double ht2, double g2) {
  const double p = ldexp(1.0, R->c->method->order);
  return fabs(ht1 - ht2) / g2 * p / (p - 1.0);
}

/* Adds a step's time shift `local`, made between w1 and w2, to the sums
 * of legs.h (t_peak_local, t_peak_wlocal). */
static void add_local(leg *out, double local, double w1, double w2) {
  out->t_peak_local += local;
  out->t_peak_wlocal +=
      local * fmax(fabs(w1 - out->w_start), fabs(w2 - out->w_start));
}

static double peak_local(const leg_run *R, const leg_job *j, double ht2) {
  return step_local(R, 0.0, ht2, j->clock.G2);
}

static void refine_done(const leg_run *R, lane *L, ssw_state *s) {
  const double tau = illinois_root(&L->br);
  L->job->out.t_peak = L->t_prev + L->job->dir * tau;
  if (L->job->periodic) add_section(&L->job->out, L->job->out.t_peak, s);
  L->job->out.found_peak = 1;
  if (L->job->check_peak && tau > 0) {
    L->mode = LANE_CHECK;
    L->checks = 0;
    L->h = L->job->dir * 0.5 * tau;
    *s = L->prev;
    return;
  }
  resume(R, L, s);
}

/* The energy is conserved exactly, so a step's local error is a shift in
 * time along the orbit, which t0 inherits unchanged; the fine and the
 * coarse run share much of it when the peak lies within their first steps
 * (their Richardson difference then misses it). The first PEAK_CHECKS steps
 * toward the peak are therefore measured one by one, by the same step
 * taken as two halves, like the step that locates the peak. */
static int wants_check(const lane *L) {
  const leg_job *j = L->job;
  return j->check_peak && !j->out.found_peak && j->dir * L->ht0 > 0 &&
         L->taken < PEAK_CHECKS;
}

static void start_step_check(lane *L, ssw_state *s) {
  L->stash = *s;
  L->hstep = L->h;
  L->h = 0.5 * L->hstep;
  L->checks = 0;
  L->mode = LANE_STEP_CHECK;
  *s = L->prev;
}

static void after_step(const leg_run *R, lane *L, ssw_state *s);

static void after_step_check(const leg_run *R, lane *L, ssw_state *s) {
  if (++L->checks < 2) return;
  double w1, v1, w2, v2;
  node_velocity(R->c, &L->stash, &w1, &v1);
  node_velocity(R->c, s, &w2, &v2);
  const ssw_reduced *e = &R->c->e;
  const double g = ssw_model_g(e, w1, v1);
  /* Near a limit g is small and the two runs' ht differ by their own
   * round-off (a few ulps of ht's terms), which is no shift along the
   * orbit: over g^2 it would read as one of eps / g^2, where a step's
   * truncation shifts time by O(h (h rate)^q) whatever g is. Only the
   * difference beyond that round-off counts. */
  const double noise = 8.0 * 0x1p-52 *
                       (fabs(e->kw2) * (fabs(w1) + fabs(w2)) +
                        fabs(e->kw1) * (fabs(v1) + fabs(v2)));
  const double dht = ssw_model_ht(e, w1, v1) - ssw_model_ht(e, w2, v2);
  add_local(&L->job->out,
            step_local(R, 0.0, fmax(fabs(dht) - noise, 0.0), g * g), w1, w2);
  *s = L->stash;
  L->h = L->hstep;
  L->mode = LANE_STEP;
  after_step(R, L, s);
}

static void after_check_step(const leg_run *R, lane *L, ssw_state *s) {
  if (++L->checks < 2) return;
  double w, v;
  node_velocity(R->c, s, &w, &v);
  add_local(&L->job->out, peak_local(R, L->job, ssw_model_ht(&R->c->e, w, v)),
            L->w, w); /* L->w: the step's start */
  resume(R, L, s);
}

static void after_refine_step(const leg_run *R, lane *L, ssw_state *s) {
  const leg_job *j = L->job;
  double w, v;
  node_velocity(R->c, s, &w, &v);
  const double f = j->dir * ssw_model_ht(&R->c->e, w, v);
  illinois_update(&L->br, fabs(L->h), f);
  if (refine_next(L)) {
    *s = L->prev;
    return;
  }
  refine_done(R, L, s);
}

static void after_step(const leg_run *R, lane *L, ssw_state *s) {
  const ssw_coeffs *c = R->c;
  leg_job *j = L->job;
  const double ht_prev = L->ht, g_prev = L->g;
  L->taken++;
  L->t_prev = L->t;
  L->t += L->h;
  node_velocity(c, s, &L->w, &L->v);
  L->g = ssw_model_g(&c->e, L->w, L->v);
  L->ht = ssw_model_ht(&c->e, L->w, L->v);
  if (!isfinite(L->g) || !isfinite(s->x) || !isfinite(s->y) ||
      !isfinite(s->phi)) {
    j->out.nonfinite = 1;
    lane_finish(R, L, s);
    return;
  }
  const leg_node node = {L->t,  s->phi, s->x, s->y, s->ux,
                         s->uy, L->w,   L->v, L->g, L->ht};
  keep_anchor(&c->e, j, &node);
  L->settle = R->adaptive; /* z's update: legs_settle */
  /* A scheme that keeps the equilibria exactly lets g decay to any
   * tolerance; others (RATTLE, RK) have discrete equilibria O(h^q) off the
   * line: where |g| stops decreasing on the approach, the leg has arrived
   * and stops there. */
  if (!(R->c->method->caps & SSW_CAP_EXACT_EQUILIBRIA) && !j->periodic &&
      j->dir * ht_prev < 0 && fabs(L->g) >= fabs(g_prev))
    j->out.stalled = 1; /* (a periodic motion's |g| rises after each dip) */
  const double H = ssw_model_energy(&c->e, L->w, L->v);
  const double e = fabs(H - j->H0) / j->H0;
  if (e > j->out.emax) j->out.emax = e;
  fpeak_add(&L->force, &c->e, L->t, L->w, L->v, &j->out);
  if (j->ctx)
    R->sample(j->ctx, j->dir, L->t, s->phi, s->x, s->y, L->w, L->v, H);
  if ((!j->out.found_peak || j->periodic) && j->dir * ht_prev > 0 &&
      j->dir * L->ht <= 0) {
    L->cur = *s;
    L->hpeak = L->h;
    L->br = illinois_init(fabs(L->h), j->dir * ht_prev, j->dir * L->ht);
    if (refine_next(L)) {
      L->mode = LANE_REFINE;
      *s = L->prev;
      return;
    }
    refine_done(R, L, s);
    return;
  }
  lane_next(R, L, s);
}

/* dopri5 under its own control, one leg at a time: tolerance eps^5 (so
 * the estimate's doubled step is a 32x looser tolerance, as a 5th-order
 * error would be), only accepted steps advance, and t0 comes from regula
 * falsi on steps of exactly the bracket's sizes. */
static double dopri_f(const leg_run *R, const ssw_dopri5_opts *o,
                      const ssw_ode_state *from, int dir, double tau) {
  ssw_ode_state n;
  double err;
  ssw_dopri5_step(&R->c->e, o, from, dir * tau, NULL, NULL, &n, &err);
  return dir * ssw_model_ht(&R->c->e, n.w, n.v);
}

static double dopri_peak(const leg_run *R, const ssw_dopri5_opts *o,
                         const ssw_ode_state *prev, int dir, double hstep,
                         double fa, double fb, int64_t *steps) {
  illinois br = illinois_init(hstep, fa, fb);
  double tau;
  while (illinois_next(&br, hstep, &tau)) {
    illinois_update(&br, tau, dopri_f(R, o, prev, dir, tau));
    ++*steps;
  }
  return illinois_root(&br);
}

static void run_leg_dopri5(const leg_run *R, leg_job *j) {
  const ssw_coeffs *c = R->c;
  ssw_dopri5_opts o;
  ssw_dopri5_defaults(&o);
  o.rtol = o.atol = pow(j->step, 5);
  ssw_dopri5_ctl ctl;
  ssw_dopri5_ctl_init(&ctl);
  ssw_ode_state s = {j->w0, j->v0, 0, 0, 0, 0}, n;
  leg *r = &j->out;
  *r = (leg){0};
  r->w_start = s.w;
  double g = ssw_model_g(&c->e, s.w, s.v), ht = ssw_model_ht(&c->e, s.w, s.v);
  r->found_peak = ht == 0.0;
  r->anchor = (leg_node){0.0, 0.0, 0.0, 0.0, 1.0, 0.0, s.w, s.v, g, ht};
  double h = ssw_dopri5_initial_step(&c->e, &o, &s, j->dir);
  fpeak force = {0};
  fpeak_add(&force, &c->e, 0.0, s.w, s.v, r);
  while (!arrived(&c->e, j, g, s.w, s.v, ht) &&
         r->steps + 1 <= R->o->max_steps) {
    double err, hn;
    ssw_dopri5_step(&c->e, &o, &s, h, NULL, NULL, &n, &err);
    r->steps++;
    if (!isfinite(err) || !isfinite(n.x) || !isfinite(n.y)) {
      r->nonfinite = 1;
      break;
    }
    const int accept = ssw_dopri5_propose(&ctl, &o, h, err, &hn);
    h = hn;
    if (!accept) continue;
    const ssw_ode_state prev = s;
    const double ht_prev = ht;
    s = n;
    g = ssw_model_g(&c->e, s.w, s.v), ht = ssw_model_ht(&c->e, s.w, s.v);
    const leg_node node = {s.t,        s.phi, s.x, s.y, cos(s.phi),
                           sin(s.phi), s.w,   s.v, g,   ht};
    keep_anchor(&c->e, j, &node);
    const double H = ssw_model_energy(&c->e, s.w, s.v);
    r->emax = fmax(r->emax, fabs(H - j->H0) / j->H0);
    fpeak_add(&force, &c->e, s.t, s.w, s.v, r);
    if (j->ctx) R->sample(j->ctx, j->dir, s.t, s.phi, s.x, s.y, s.w, s.v, H);
    if ((!r->found_peak || j->periodic) && j->dir * ht_prev > 0 &&
        j->dir * ht <= 0) {
      const double tau = dopri_peak(R, &o, &prev, j->dir, fabs(s.t - prev.t),
                                    j->dir * ht_prev, j->dir * ht, &r->steps);
      r->t_peak = prev.t + j->dir * tau;
      r->found_peak = 1;
      if (j->periodic) { /* the section's state: one step to the root */
        ssw_ode_state q;
        double err_q;
        ssw_dopri5_step(&c->e, &o, &prev, j->dir * tau, NULL, NULL, &q, &err_q);
        const ssw_state at = {.phi = q.phi, .x = q.x, .y = q.y};
        add_section(r, r->t_peak, &at);
      }
      if (j->check_peak && tau > 0) {
        ssw_ode_state a, b;
        double e2;
        ssw_dopri5_step(&c->e, &o, &prev, j->dir * 0.5 * tau, NULL, NULL, &a,
                        &e2);
        ssw_dopri5_step(&c->e, &o, &a, j->dir * 0.5 * tau, NULL, NULL, &b, &e2);
        r->steps += 2;
        r->t_peak_local = r->t_peak_wlocal = 0.0;
        add_local(r, peak_local(R, j, ssw_model_ht(&c->e, b.w, b.v)), prev.w,
                  b.w);
      }
    }
  }
  r->converged = !r->nonfinite && arrived(&c->e, j, g, s.w, s.v, ht);
  r->t = s.t, r->phi = s.phi, r->x = s.x, r->y = s.y;
  r->ux = cos(s.phi), r->uy = sin(s.phi);
  r->w = s.w, r->v = s.v, r->g = g, r->ht = ht;
}

/* The density's updates of z that after_step left (lane.settle), four
 * lanes per vector: each lane's chain (four square roots deep, then three
 * divisions to its next h) is long, and in vectors the lanes share their
 * instructions. Each lane performs density's, cayley's and after_step's
 * sequence of IEEE operations (SSE2 square roots are correctly rounded as
 * sqrt is; no contraction), so its bits are those of the scalar code, in
 * any lane and with any neighbours. */
#if defined(__x86_64__)
#include <emmintrin.h>
typedef double v2 __attribute__((vector_size(2 * sizeof(double))));
#define VSQRT4(x)                                                              \
  __builtin_shufflevector(                                                     \
      (v2)_mm_sqrt_pd((__m128d)__builtin_shufflevector((x), (x), 0, 1)),       \
      (v2)_mm_sqrt_pd((__m128d)__builtin_shufflevector((x), (x), 2, 3)), 0, 1, \
      2, 3)
#else
#define VSQRT4(x) ((v4){sqrt((x)[0]), sqrt((x)[1]), sqrt((x)[2]), sqrt((x)[3])})
#endif

typedef struct {
  v4 w, v, nu2, G2, delta2, ds; /* ds = dir * step */
  v4 step, dir, z, h;           /* z updated; h = dir (step / z) */
} settle4_lanes;

SSW_SIMD_CLONES static void settle4(const ssw_reduced *e, settle4_lanes *q) {
  v4 rho, dlog;
  DENSITY(v4, VSQRT4, e, q->nu2, q->G2, q->delta2, q->w, q->v, rho, dlog);
  /* cayley() */
  const v4 one = {1.0, 1.0, 1.0, 1.0};
  v4 x = q->ds * dlog / rho;
  x = MIND4(one, MAXD4(-one, x));
  q->z = q->z * CAYLEY_OF(x);
  q->h = q->dir * (q->step / q->z);
}

static void legs_settle(const leg_run *R, lane L[SSW_LANES]) {
  int idx[SSW_LANES] = {0}, n = 0;
  for (int l = 0; l < SSW_LANES; l++)
    /* (a lane that never had a job is unset but for its mode) */
    if (L[l].mode != LANE_IDLE && L[l].settle) idx[n++] = l;
  for (int b = 0; b < n; b += 4) {
    settle4_lanes q = {0};
    for (int i = 0; i < 4; i++) {
      const lane *a = &L[idx[b + (b + i < n ? i : 0)]];
      const leg_job *j = a->job;
      q.w[i] = a->w, q.v[i] = a->v, q.z[i] = a->z;
      q.nu2[i] = j->clock.nu2, q.G2[i] = j->clock.G2;
      q.delta2[i] = j->clock.delta2;
      q.ds[i] = j->dir * j->step, q.step[i] = j->step, q.dir[i] = j->dir;
    }
    settle4(&R->c->e, &q);
    for (int i = 0; i < 4 && b + i < n; i++) {
      lane *a = &L[idx[b + i]];
      a->z = q.z[i];
      if (a->settle == 2) a->h = q.h[i];
      a->settle = 0;
    }
  }
}

/* Jobs not to integrate end where they start. */
static int skipped(leg_job *j) {
  if (j->skip) j->out = (leg){.converged = 1};
  return j->skip;
}

/* Gives an idle lane the next job (in `order`, or in turn when NULL) that
 * does not end where it starts; leaves it idle when none is left. */
static void lane_take(const leg_run *R, leg_job *jobs, const int *order,
                      int njobs, int *next, lane *L, ssw_state *s) {
  while (L->mode == LANE_IDLE && *next < njobs) {
    leg_job *j = &jobs[order ? order[*next] : *next];
    ++*next;
    if (skipped(j)) continue;
    lane_start(R, j, L, s);
    lane_next(R, L, s);
  }
}

void ssw_legs_run(const leg_run *R, leg_job *jobs, const int *order,
                  int njobs) {
  if (R->adaptive && (R->c->method->caps & SSW_CAP_OWN_STEP_CONTROL)) {
    for (int i = 0; i < njobs; i++)
      if (!skipped(&jobs[i])) run_leg_dopri5(R, &jobs[i]);
    return;
  }
  lane L[SSW_LANES];
  ssw_state s[SSW_LANES];
  double h[SSW_LANES];
  int next = 0, active = 0;
  for (int l = 0; l < SSW_LANES; l++) {
    L[l].mode = LANE_IDLE;
    lane_take(R, jobs, order, njobs, &next, &L[l], &s[l]);
    active += L[l].mode != LANE_IDLE;
  }
  while (active > 0) {
    legs_settle(R, L);
    /* The active lanes packed first: fewer cost less. */
    ssw_state ps[SSW_LANES];
    int n = 0;
    for (int l = 0; l < SSW_LANES; l++) {
      if (L[l].mode == LANE_IDLE) continue;
      if (L[l].mode == LANE_STEP) L[l].prev = s[l];
      ps[n] = s[l], h[n++] = L[l].h;
    }
    ssw_stepper_advance_batch(R->c, h, R->o->recon, ps, n);
    for (int l = 0, k = 0; l < SSW_LANES; l++)
      if (L[l].mode != LANE_IDLE) s[l] = ps[k++];
    active = 0;
    for (int l = 0; l < SSW_LANES; l++) {
      if (L[l].mode == LANE_IDLE) continue;
      L[l].job->out.steps += R->stages;
      if (L[l].mode == LANE_REFINE)
        after_refine_step(R, &L[l], &s[l]);
      else if (L[l].mode == LANE_CHECK)
        after_check_step(R, &L[l], &s[l]);
      else if (L[l].mode == LANE_STEP_CHECK)
        after_step_check(R, &L[l], &s[l]);
      else if (wants_check(&L[l]))
        start_step_check(&L[l], &s[l]);
      else
        after_step(R, &L[l], &s[l]);
      lane_take(R, jobs, order, njobs, &next, &L[l], &s[l]);
      active += L[l].mode != LANE_IDLE;
    }
  }
}
