/* Forward-only extraction of damped trajectories to rest: the stopping
 * rule and the linear tail from the linearisation at rest, the measured
 * decay at rest, and error estimates from a coarser run
 * (docs/theory/drag.md). */
#include "sleighsweep/damped.h"

#include <math.h>

#include "estimate.h"
#include "scale.h"
#include "sleighsweep/drag.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/stepper.h"

static const char *const approach_names[] = {SSW_APPROACHES(SSW_NAME_STRING)};

const char *ssw_approach_name(int approach) {
  if (approach < 0 || approach >= SSW_APPROACH_COUNT) return "unknown";
  return approach_names[approach];
}

double ssw_damped_stop_fraction(const ssw_integrator *o) {
  const double s = o->tol > 0 ? o->tol
                   : o->rtol > 0
                       ? 0.1 * o->rtol
                       : SSW_TOL_FIXED_DEFAULT * SSW_TOL_FIXED_DEFAULT;
  return s * s;
}

/* Everything one run needs (in scaled units). */
typedef struct {
  const ssw_coeffs *c;
  const ssw_integrator *o;
  double rest_rate;     /* largest |lambda| at rest */
  double stop;          /* stop at H <= stop H0 */
  ssw_sample_fn sample; /* for the runs with a context */
} run_par;

/* The fastest rate of the motion at energy H: the transition's Arate, the
 * largest angular velocity on the level and the rest's largest |lambda|
 * (the step is eps over it). */
static double rate_at(const run_par *P, double H) {
  const ssw_reduced *e = &P->c->e;
  const double E =
      e->J * e->Z * e->Z + 2.0 * e->Z * e->L1 * e->L2 + e->M * e->L1 * e->L1;
  const double arate = sqrt(2.0 * H * E) / e->D;
  const double wmax = sqrt(2.0 * H * e->M / e->D);
  return fmax(fmax(arate, wmax), P->rest_rate);
}

/* A function of the state whose zero is sought along a step, and its
 * time derivative (from the equations of motion). */
typedef void (*root_fn)(const ssw_coeffs *c, const ssw_state *s, double arg,
                        double *f, double *df);

/* Illinois regula falsi on tau in (0, hstep) for the zero of f along one
 * macro step from `prev` (f(0) > 0 >= f(hstep)); returns the root and its
 * state in *at. Each evaluation is one macro step of the scheme. The
 * fallback of `refine`. */
static double illinois(const run_par *P, const ssw_state *prev, double hstep,
                       double fa, double fb, root_fn f, double arg,
                       int64_t *steps, ssw_state *at) {
  double a = 0.0, b = hstep, d;
  int side = 0;
  ssw_state sb = *at;
  for (int it = 0; it < 60 && fb != 0.0; it++) {
    double x = (a * fb - b * fa) / (fb - fa);
    if (!(x > a && x < b)) x = 0.5 * (a + b);
    if (b - a <= 4.0 * 0x1p-52 * hstep) break;
    ssw_state s = *prev;
    ssw_stepper_advance(P->c, x, P->o->recon, &s);
    *steps += ssw_method_cost(P->c->method);
    double fx;
    f(P->c, &s, arg, &fx, &d);
    if (fx > 0) {
      a = x, fa = fx;
      if (side == -1) fb *= 0.5;
      side = -1;
    } else {
      b = x, fb = fx, sb = s;
      if (side == 1) fa *= 0.5;
      side = 1;
    }
  }
  *at = sb;
  return fb == 0.0 ? b : (a * fb - b * fa) / (fb - fa);
}

/* The zero of f in (0, hstep) along one macro step from `prev`, by
 * Newton from the secant's point with f' from the equations: each
 * evaluation is one macro step of the scheme, so the root carries its
 * accuracy; it stops once a correction is below 2^-26 of the step (the
 * error left is of its square), usually after 2-3 steps. *at receives
 * the state of the last evaluation, a correction dx from the root (a
 * quantity whose rate vanishes there, as the length's at a zero of v,
 * is then off by O(dx^2)). Illinois where Newton leaves the bracket. */
static double refine(const run_par *P, const ssw_state *prev, double hstep,
                     double fa, double fb, root_fn f, double arg,
                     int64_t *steps, ssw_state *at) {
  double x = fa / (fa - fb) * hstep;
  for (int it = 0; it < 8; it++) {
    ssw_state s = *prev;
    ssw_stepper_advance(P->c, x, P->o->recon, &s);
    *steps += ssw_method_cost(P->c->method);
    double fx, dfx;
    f(P->c, &s, arg, &fx, &dfx);
    const double xn = x - fx / dfx;
    if (!(xn > 0.0 && xn < hstep)) break;
    *at = s;
    if (fabs(xn - x) <= 0x1p-26 * hstep) return xn;
    x = xn;
  }
  return illinois(P, prev, hstep, fa, fb, f, arg, steps, at);
}

/* v, signed so that it starts positive (the root of a sign change), and
 * its rate. */
static void v_of(const ssw_coeffs *c, const ssw_state *s, double sign,
                 double *f, double *df) {
  double w, v, dw, dv;
  ssw_stepper_velocity(c, s, &w, &v);
  ssw_model_zeta_rate(&c->e, w, v, &dw, &dv);
  *f = sign * v, *df = sign * dv;
}

/* ln(H / H_target), positive before the settling time, and its rate
 * -zeta^T C zeta / H. */
static void settle_of(const ssw_coeffs *c, const ssw_state *s, double Ht,
                      double *f, double *df) {
  double w, v;
  ssw_stepper_velocity(c, s, &w, &v);
  const double H = ssw_model_energy(&c->e, w, v);
  *f = log(H / Ht);
  *df = -SSW_MODEL_DISSIPATION(&c->e, w, v) / H;
}

/* The decay at rest measured on the scheme's own map: one macro step T
 * of the two velocities (d, 0) and (0, d), d = 2^-300, so small that the
 * quadratic terms vanish against the linear ones, gives the step's linear
 * map at rest, whose eigenvalues mu = e^{lambda T} give the rates
 * (decay = -ln max |mu| / T) and the approach (a focus for complex mu).
 * Two independent directions keep it well conditioned however the
 * trajectory approaches rest, and it carries the scheme's own error
 * (O(eps^q)), which the coarse run's difference estimates. */
typedef struct {
  double rate, freq;
  int approach;
} rest_map;

/* The rates of the step's map at rest, probed with velocities of size d. */
static rest_map map_at_rest(const run_par *P, double T, double d) {
  double m[2][2];
  for (int k = 0; k < 2; k++) {
    ssw_state s;
    ssw_stepper_init(P->c, k == 0 ? d : 0.0, k == 1 ? d : 0.0, &s);
    ssw_stepper_advance(P->c, T, P->o->recon, &s);
    ssw_stepper_velocity(P->c, &s, &m[0][k], &m[1][k]);
    m[0][k] /= d, m[1][k] /= d;
  }
  const double tr = m[0][0] + m[1][1];
  const double det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  double disc = tr * tr - 4.0 * det;
  /* A double root (C = c K: the map is a multiple of the identity) within
   * round-off. */
  if (fabs(disc) <= 1e-12 * tr * tr) disc = 0.0;
  rest_map r = {0.0, 0.0, SSW_APPROACH_NODE};
  if (disc >= 0.0) {
    const double mu = 0.5 * (fabs(tr) + sqrt(disc));
    r.rate = -log(mu) / T;
  } else {
    r.approach = SSW_APPROACH_FOCUS;
    r.rate = -0.5 * log(det) / T;
    r.freq = atan2(sqrt(-disc), tr) / T;
  }
  return r;
}

static void decay_of(const run_par *P, double T, ssw_damped *r) {
  const rest_map a = map_at_rest(P, T, 0x1p-300);
  /* The same map probed at another size: the linear map is the same, its
   * rounding is not (d is not a power of two apart), so the difference
   * measures the round-off of the entries and of the eigenvalue solve,
   * which a model of the scheme's operations misses (rk4's and dopri5's
   * stages, the momenta's solve, close roots). */
  /* Probes at sizes 2^-300 times sqrt(2), sqrt(3), sqrt(5): the spread
   * of the four rates, times 4, stands for the rounding's. */
  const double sizes[] = {0x1.6a09e667f3bcdp-300, 0x1.bb67ae8584caap-300,
                          0x1.1e3779b97f4a8p-299};
  double lo = a.rate;
  double hi = lo;
  for (int i = 0; i < 3; i++) {
    const double x = map_at_rest(P, T, sizes[i]).rate;
    lo = fmin(lo, x), hi = fmax(hi, x);
  }
  r->steps += 8 * ssw_method_cost(P->c->method);
  /* Each base step (or stage) rounds the map by a few ulp; ln mu divides
   * that by |ln mu| = decay T. */
  const int ops = ssw_method_cost(P->c->method) > P->c->method->n_nodes
                      ? ssw_method_cost(P->c->method)
                      : P->c->method->n_nodes;
  /* The velocities come from the momenta through K^-1 at every base step:
   * cond(K) ulp each (lambda_max^2 / det K for the 2x2 tensor). */
  const ssw_reduced *e = &P->c->e;
  const double lmax = 0.5 * (e->J + e->M + hypot(e->J - e->M, 2.0 * e->L2));
  const double cond = lmax * lmax / e->D;
  r->decay_roundoff = 4.0 * ops * (1.0 + cond) * 0x1p-52 / T + 4.0 * (hi - lo);
  r->decay_rate = a.rate;
  r->decay_freq = a.freq;
  r->approach = a.approach;
  /* The map's own convergence at T, 2T, 4T (cheap: one macro step each). */
  const rest_map m2 = map_at_rest(P, 2.0 * T, 0x1p-300),
                 m4 = map_at_rest(P, 4.0 * T, 0x1p-300);
  r->steps += 4 * ssw_method_cost(P->c->method);
  const double x[] = {a.rate}, y[] = {m2.rate}, z[] = {m4.rate},
               fl[] = {r->decay_roundoff};
  const int order = P->c->method->order;
  const double q = ssw_observed_order_of(1, x, y, z, fl, 2.0, 2.0, order);
  const double p = pow(2.0, q);
  r->decay_step = SSW_EST_SAFETY *
                  fmax(fabs(a.rate - m2.rate), fabs(m2.rate - m4.rate) / p) /
                  (p - 1.0);
}

/* The linear tail from the state at the end: K zeta' = -(C + kappa S)
 * zeta near rest, so the rest of the motion adds integral zeta dt =
 * (C + kappa S)^-1 K zeta (O(zeta^2) left), K zeta = W. */
static void tail_of(const ssw_reduced *e, const ssw_state *s, double *dw,
                    double *dv) {
  const double det = e->cw * e->cv - e->cwv * e->cwv + e->kappa * e->kappa;
  *dw = (e->cv * s->W1 - (e->cwv - e->kappa) * s->W2) / det;
  *dv = (-(e->cwv + e->kappa) * s->W1 + e->cw * s->W2) / det;
}

/* One forward run in progress, at macro step eps / rate (adaptive) or
 * hfix: a lane of the batch kernel. `ctx` (NULL: none) records its
 * nodes. */
typedef struct {
  ssw_damped *r;
  double w0, v0, eps, hfix;
  void *ctx;
  ssw_state s, prev;
  double t, w, v, H, H0, h, emax;
  double mark, path; /* len at the last sign change of v; |len| so far */
} run;

static void run_start(const run_par *P, run *L) {
  ssw_damped *r = L->r;
  ssw_stepper_init(P->c, L->w0, L->v0, &L->s);
  L->H0 = L->H = ssw_model_energy(&P->c->e, L->w0, L->v0);
  L->t = L->emax = L->mark = L->path = 0.0;
  L->w = L->w0, L->v = L->v0;
  L->h = L->hfix > 0 ? L->hfix : L->eps / rate_at(P, L->H0);
  *r = (ssw_damped){.h = L->h, .eps = L->eps, .t_settle = NAN};
}

/* 1 when the run takes another step (of size L->h); else it stopped:
 * converged, at the step cap or on a non-finite state. */
static int run_going(const run_par *P, run *L) {
  ssw_damped *r = L->r;
  if (r->flags & SSW_TRAJ_NONFINITE) return 0;
  if (L->H <= P->stop * L->H0) {
    r->converged = 1;
    return 0;
  }
  if (r->steps + ssw_method_cost(P->c->method) > P->o->max_steps) {
    r->flags |= SSW_TRAJ_FWD_CAP;
    return 0;
  }
  L->h = L->hfix > 0 ? L->hfix : L->eps / rate_at(P, L->H);
  return 1;
}

/* After a step from L->prev to L->s: the node, the zeros of v (which
 * split the path length) and the settling time. */
static void run_after(const run_par *P, run *L) {
  const ssw_coeffs *c = P->c;
  ssw_damped *r = L->r;
  const double tp = L->t, vp = L->v, Hp = L->H, h = L->h;
  r->steps += ssw_method_cost(c->method);
  L->t += h;
  ssw_stepper_velocity(c, &L->s, &L->w, &L->v);
  L->H = ssw_model_energy(&c->e, L->w, L->v);
  const ssw_state *s = &L->s;
  if (!isfinite(L->H) || !isfinite(s->x) || !isfinite(s->y) ||
      !isfinite(s->len)) {
    r->flags |= SSW_TRAJ_NONFINITE;
    return;
  }
  if (c->method->caps & SSW_CAP_EXACT_ENERGY)
    L->emax = fmax(L->emax, fabs(L->H + s->diss - L->H0) / L->H0);
  if (L->ctx) P->sample(L->ctx, 1, L->t, s->phi, s->x, s->y, L->w, L->v, L->H);
  const double v = L->v;
  if (vp != 0.0 && (v == 0.0 || (v > 0) != (vp > 0))) {
    ssw_state at = L->s;
    const double sg = vp > 0 ? 1.0 : -1.0;
    refine(P, &L->prev, h, sg * vp, sg * v, v_of, sg, &r->steps, &at);
    L->path += fabs(at.len - L->mark);
    L->mark = at.len;
  }
  const double Ht = SSW_DAMPED_SETTLE * L->H0;
  if (isnan(r->t_settle) && L->H <= Ht) {
    ssw_state at = L->s;
    r->t_settle = tp + refine(P, &L->prev, h, log(Hp / Ht), log(L->H / Ht),
                              settle_of, Ht, &r->steps, &at);
  }
}

/* The measurements at the end: the linear tail, the decay at rest. */
static void run_end(const run_par *P, run *L) {
  const ssw_coeffs *c = P->c;
  ssw_damped *r = L->r;
  const ssw_state *s = &L->s;
  double dw = 0.0, dv = 0.0;
  if (P->o->tail && r->converged) tail_of(&c->e, s, &dw, &dv);
  r->heading_total = s->phi + dw;
  r->rest_x = s->x + s->ux * dv;
  r->rest_y = s->y + s->uy * dv;
  r->path_length = L->path + fabs(s->len + dv - L->mark);
  r->rest_distance = hypot(r->rest_x, r->rest_y);
  r->loops = isfinite(r->heading_total)
                 ? (int)floor(fabs(r->heading_total) / (2.0 * M_PI))
                 : -1;
  r->t_end = L->t;
  r->energy_end = L->H / L->H0;
  r->energy_error = (c->method->caps & SSW_CAP_EXACT_ENERGY) ? L->emax : NAN;
  r->H0 = L->H0;
  r->decay_rate = r->decay_freq = NAN;
  r->approach = SSW_APPROACH_NODE;
  if (r->converged) decay_of(P, L->h, r);
}

/* Starts the next runs in `lane` until one needs a step (-1: none left). */
static int take(const run_par *P, run *runs, int n, int *next) {
  while (*next < n) {
    run *L = &runs[(*next)++];
    run_start(P, L);
    if (run_going(P, L)) return (int)(L - runs);
    run_end(P, L);
  }
  return -1;
}

/* Every run to its end, SSW_LANES at a time in the batch kernel: a lane
 * whose run ends takes the next. A run's result does not depend on its
 * lane or its neighbours (the kernel's promise). */
static void run_all(const run_par *P, run *runs, int n) {
  int lane[SSW_LANES], next = 0;
  ssw_state s[SSW_LANES];
  double h[SSW_LANES];
  for (int l = 0; l < SSW_LANES; l++)
    lane[l] = take(P, runs, n, &next);
  for (;;) {
    /* The busy lanes packed first: fewer cost less. */
    int busy = 0;
    for (int l = 0; l < SSW_LANES; l++) {
      if (lane[l] < 0) continue;
      run *L = &runs[lane[l]];
      L->prev = L->s;
      s[busy] = L->s, h[busy++] = L->h;
    }
    if (busy == 0) return;
    ssw_stepper_advance_batch(P->c, h, P->o->recon, s, busy);
    for (int l = 0, k = 0; l < SSW_LANES; l++) {
      if (lane[l] < 0) continue;
      run *L = &runs[lane[l]];
      L->s = s[k++];
      run_after(P, L);
      if (!run_going(P, L)) {
        run_end(P, L);
        lane[l] = take(P, runs, n, &next);
      }
    }
  }
}

/* Absolute errors from the fine and the coarse run (coarse step `ratio`
 * times the fine one, order q): SSW_EST_SAFETY |fine - coarse| /
 * (ratio^q - 1), plus the tail's remainder (O(H / H0) of the heading and
 * the rest point, O(sqrt(H / H0)) of the length). */
static void estimate(const ssw_damped *f, const ssw_damped *c, double q,
                     ssw_damped *out) {
  const double k = SSW_EST_SAFETY / (pow(SSW_EST_RATIO, q) - 1.0);
  const double s = sqrt(f->energy_end);
  out->err_heading = k * fabs(f->heading_total - c->heading_total) +
                     f->energy_end * fmax(fabs(f->heading_total), 1.0);
  out->err_rest = k * hypot(f->rest_x - c->rest_x, f->rest_y - c->rest_y) +
                  f->energy_end * f->path_length;
  out->err_path =
      k * fabs(f->path_length - c->path_length) + s * f->path_length;
  out->err_decay = fmax(k * fabs(f->decay_rate - c->decay_rate), f->decay_step);
  out->err_settle = k * fabs(f->t_settle - c->t_settle);
}

/* The round-off floor, which a finer step does not reduce (so it is added
 * after the refinements) and the difference of two runs does not see:
 * each step rounds the heading and the contact point by a few ulp of their
 * size, and these add up over the steps (a bound, linear in their
 * number). */
static void floors_of(const ssw_damped *r, double fl[5]) {
  const double n = (double)r->steps * 0x1p-52;
  fl[0] = n * fmax(fabs(r->heading_total), 1.0);
  fl[1] = fl[2] = n * r->path_length;
  fl[3] = r->decay_roundoff;
  /* t_settle is located on H, whose relative round-off grows in the same
   * way: a shift of n ulp of ln H moves it by that over its rate, bounded
   * by the same share of t_settle itself (ln H falls by ln 100 over it). */
  fl[4] = n * r->t_settle;
}

/* The floors added to the estimates. */
static void add_floor(ssw_damped *r) {
  double fl[5];
  floors_of(r, fl);
  r->err_heading += fl[0];
  r->err_rest += fl[1];
  r->err_path += fl[2];
  r->err_decay += fl[3];
  r->err_settle += fl[4];
}

/* The largest error estimate relative to what rtol asks of it; a quantity
 * measured without an estimate (the coarse run missed it) counts as
 * infinitely far (never fmax's silent NaN). */
static double rel_error(const ssw_damped *r) {
  const double lscale = fmax(r->path_length, 1e-300);
  const double val[] = {r->heading_total, r->rest_distance, r->path_length,
                        r->decay_rate, r->t_settle};
  const double err[] = {r->err_heading, r->err_rest, r->err_path, r->err_decay,
                        r->err_settle};
  const double scale[] = {fmax(fabs(r->heading_total), 1.0), lscale, lscale,
                          r->decay_rate, r->t_settle};
  double e = 0.0;
  for (size_t i = 0; i < sizeof val / sizeof val[0]; i++) {
    if (!isfinite(val[i]) || !(scale[i] > 0)) continue;
    e = fmax(e, isnan(err[i]) ? INFINITY : err[i] / scale[i]);
  }
  return e;
}

/* No confident nonsense (as extract.c's judge): a measured quantity
 * without an estimate, or an energy balance off its level, is not
 * converged. */
static void judge(int estimated, ssw_damped *r) {
  if (r->energy_error > SSW_ENERGY_ERROR_MAX) r->flags |= SSW_TRAJ_ENERGY_DRIFT;
  if (estimated && r->converged && rel_error(r) == INFINITY)
    r->flags |= SSW_TRAJ_NO_ESTIMATE;
  if (r->flags & (SSW_TRAJ_ENERGY_DRIFT | SSW_TRAJ_NO_ESTIMATE))
    r->converged = 0;
}

/* At most this many trajectories per pass (stack-sized tables). */
#define CHUNK 16

/* Where one trajectory's extraction stands between passes. */
typedef struct {
  double w0, v0, eps, hfix;
  int64_t work;
  int done;
} traj_job;

/* One pass: the fine and (with an estimate) the coarse run of every
 * trajectory not done, in the lanes together; then each one's estimate,
 * and a finer step for those above rtol. */
/* The order the three runs show (estimate.h ssw_observed_order_of) on
 * the measured quantities, with their round-off floors. */
/* The measured quantities, in floors_of's order. */
static void measured_of(const ssw_damped *r, double q[5]) {
  q[0] = r->heading_total, q[1] = r->rest_distance, q[2] = r->path_length;
  q[3] = r->decay_rate, q[4] = r->t_settle;
}

static double observed(const ssw_damped *f, const ssw_damped *c,
                       const ssw_damped *far, int q) {
  double a[5], b[5], e[5], fl[5];
  measured_of(f, a), measured_of(c, b), measured_of(far, e);
  floors_of(f, fl);
  return ssw_observed_order_of(5, a, b, e, fl, SSW_EST_RATIO, SSW_EST_RATIO, q);
}

/* out's estimates at least those of x divided by k (NaN in x: out's). */
static void at_least(const ssw_damped *x, double k, ssw_damped *out) {
  out->err_heading = fmax(out->err_heading, x->err_heading / k);
  out->err_rest = fmax(out->err_rest, x->err_rest / k);
  out->err_path = fmax(out->err_path, x->err_path / k);
  out->err_decay = fmax(out->err_decay, x->err_decay / k);
  out->err_settle = fmax(out->err_settle, x->err_settle / k);
}

/* The estimate of r from its coarse run; at fixed steps and for the
 * comparison schemes with the order the runs show, from a third run
 * `far` (NULL: none), as extract.c's observed_orders does. */
static void estimate_of(const run_par *P, ssw_damped *r, const ssw_damped *c,
                        const ssw_damped *far) {
  const int q = P->c->method->order;
  double qk = q;
  if (far && c->converged && far->converged) {
    qk = observed(r, c, far, q);
    ssw_damped wide = *c;
    estimate(c, far, qk, &wide);
    estimate(r, c, qk, r);
    at_least(&wide, pow(SSW_EST_RATIO, qk), r);
    return;
  }
  estimate(r, c, qk, r);
}

static void pass(const run_par *P, int k, int m, traj_job *jobs,
                 ssw_damped *out) {
  const ssw_integrator *o = P->o;
  const int q = P->c->method->order;
  /* Where h^q is not a given (extract.c observed_orders): a third run. */
  const int measure =
      o->estimate && (o->rtol <= 0 || P->c->method->stages == 0);
  run runs[3 * CHUNK];
  ssw_damped coarse[CHUNK], far[CHUNK];
  int active[CHUNK], n = 0;
  for (int i = 0; i < m; i++) {
    active[i] = !jobs[i].done;
    if (!active[i]) continue;
    for (int j = 0; j < 1 + (o->estimate != 0) + measure; j++) {
      const double f =
          j == 0 ? 1.0 : (j == 1 ? 1.0 : SSW_EST_RATIO) * SSW_EST_RATIO;
      runs[n++] = (run){.r = j == 0 ? &out[i] : (j == 1 ? &coarse[i] : &far[i]),
                        .w0 = jobs[i].w0,
                        .v0 = jobs[i].v0,
                        .eps = jobs[i].eps * f,
                        .hfix = jobs[i].hfix * f};
    }
  }
  run_all(P, runs, n);
  for (int i = 0; i < m; i++) {
    if (!active[i]) continue;
    ssw_damped *r = &out[i];
    jobs[i].work += r->steps + (o->estimate ? coarse[i].steps : 0) +
                    (measure ? far[i].steps : 0);
    jobs[i].done = 1;
    r->refinements = k;
    r->err_heading = r->err_rest = r->err_path = NAN;
    r->err_decay = r->err_settle = NAN;
    if (!o->estimate || !r->converged) continue;
    estimate_of(P, r, &coarse[i], measure ? &far[i] : NULL);
    const double rel = rel_error(r);
    if (o->rtol <= 0 || rel <= o->rtol) {
      add_floor(r);
    } else if (k == SSW_REFINE_MAX) {
      add_floor(r);
      r->flags |= SSW_TRAJ_RTOL;
    } else {
      jobs[i].done = 0;
      jobs[i].eps *= fmax(0.25, 0.8 * pow(o->rtol / rel, 1.0 / q));
    }
  }
}

/* Up to CHUNK trajectories: passes until each meets rtol (or the
 * reruns run out), then the paths of those recorded, by one more fine run
 * (not counted in steps: only its nodes are kept). */
static void extract(const run_par *P, int m, const double *w0, const double *v0,
                    void *const *ctx, ssw_damped *out) {
  const ssw_integrator *o = P->o;
  const int q = P->c->method->order;
  traj_job jobs[CHUNK];
  for (int i = 0; i < m; i++) {
    jobs[i] = (traj_job){.w0 = w0[i], .v0 = v0[i]};
    if (o->rtol > 0)
      jobs[i].eps =
          fmin(SSW_EPS_MAX, P->c->method->eps_scale * pow(o->rtol, 1.0 / q));
    else
      jobs[i].hfix =
          o->eta / rate_at(P, ssw_model_energy(&P->c->e, w0[i], v0[i]));
  }
  for (int k = 0; k <= SSW_REFINE_MAX; k++) {
    int left = 0;
    for (int i = 0; i < m; i++)
      left += !jobs[i].done;
    if (!left) break;
    pass(P, k, m, jobs, out);
  }
  run rec[CHUNK];
  ssw_damped copy[CHUNK];
  int n = 0;
  for (int i = 0; i < m; i++) {
    out[i].steps = jobs[i].work;
    judge(o->estimate, &out[i]);
    if (ctx && ctx[i])
      rec[n++] = (run){.r = &copy[i],
                       .w0 = w0[i],
                       .v0 = v0[i],
                       .eps = out[i].eps,
                       .hfix = jobs[i].hfix,
                       .ctx = ctx[i]};
  }
  run_all(P, rec, n);
}

/* Back to the caller's units: lengths 2^len, times 2^-speed. */
static void unscale(const ssw_units *u, ssw_damped *r) {
  const int l = u->len, k = u->speed;
  r->H0 = ldexp(r->H0, u->mass + 2 * l + 2 * k);
  double *len[] = {&r->rest_x,      &r->rest_y,   &r->rest_distance,
                   &r->path_length, &r->err_rest, &r->err_path};
  for (size_t i = 0; i < sizeof len / sizeof len[0]; i++)
    *len[i] = ldexp(*len[i], l);
  double *time[] = {&r->t_settle, &r->t_end, &r->h, &r->err_settle};
  for (size_t i = 0; i < sizeof time / sizeof time[0]; i++)
    *time[i] = ldexp(*time[i], -k);
  double *rate[] = {&r->decay_rate, &r->decay_freq, &r->err_decay,
                    &r->decay_roundoff, &r->decay_step};
  for (size_t i = 0; i < sizeof rate / sizeof rate[0]; i++)
    *rate[i] = ldexp(*rate[i], k);
}

int ssw_damped_batch(const ssw_tensor *t, int n, const double *w0,
                     const double *v0, const ssw_integrator *o,
                     ssw_sample_fn sample, void *const *ctx, ssw_damped *out) {
  SSW_CALL(ssw_integrator_check(o));
  SSW_CALL(ssw_extract_check_initial(n, w0, v0));
  SSW_CHECK(ssw_model_caps(t) & SSW_MCAP_COMES_TO_REST, SSW_ERR_ARG,
            "the damped extraction needs drag (drag_w, drag_v or drag_wv)");
  /* Scaled units (scale.h); with drag the time unit is the drag's, the
   * same for every state of the body. */
  ssw_units u;
  ssw_tensor ts;
  ssw_units_body(t, &u, &ts);
  ssw_coeffs c;
  SSW_CALL(ssw_stepper_bind(&ts, o->method, &c));
  ssw_drag_rest rest;
  SSW_CALL(ssw_drag_rest_eigen(&ts, &rest));
  run_par P = {&c, o, 0.0, ssw_damped_stop_fraction(o), ssw_units_sample_fn};
  /* tr(K^-1 C) = b / D bounds K^-1 C's eigenvalues: h b / D <= eps keeps
   * K + (h/2) C positive definite in every sub-step, the compositions'
   * negative ones included (|gamma| < 2). */
  P.rest_rate = fmax(fmax(hypot(rest.re[0], rest.im[0]), fabs(rest.re[1])),
                     rest.b / rest.D);
  for (int start = 0; start < n; start += CHUNK) {
    const int m = n - start < CHUNK ? n - start : CHUNK;
    double ws[CHUNK] = {0}, vs[CHUNK] = {0};
    ssw_units_sample wrap[CHUNK];
    void *wctx[CHUNK];
    for (int i = 0; i < m; i++) {
      ssw_units_state(&u, &ts, w0[start + i], v0[start + i], &ws[i], &vs[i]);
      void *ci = sample && ctx ? ctx[start + i] : NULL;
      wrap[i] = (ssw_units_sample){sample, ci, u};
      wctx[i] = ci ? &wrap[i] : NULL;
    }
    extract(&P, m, ws, vs, wctx, out + start);
    for (int i = 0; i < m; i++)
      unscale(&u, &out[start + i]);
  }
  return SSW_SUCCESS;
}

int ssw_damped_run(const ssw_tensor *t, double w0, double v0,
                   const ssw_integrator *o, ssw_sample_fn sample, void *ctx,
                   ssw_damped *out) {
  void *const ctxs[1] = {ctx};
  return ssw_damped_batch(t, 1, &w0, &v0, o, sample, ctxs, out);
}
