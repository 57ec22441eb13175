/* Forward-only extraction of damped trajectories to rest: the stopping
 * rule and the linear tail from the linearisation at rest, the measured
 * decay at rest, and error estimates from a coarser run
 * (docs/theory/drag.md). */
#include "sleighsweep/damped.h"

#include <math.h>

#include "scale.h"
#include "sleighsweep/drag.h"
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
  double rest_rate; /* largest |lambda| at rest */
  double stop;      /* stop at H <= stop H0 */
  ssw_sample_fn sample;
  void *ctx;
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

/* Illinois regula falsi on tau in (0, hstep) for the zero of f along one
 * macro step from `prev` (f(0) > 0 >= f(hstep)); returns the root and its
 * state in *at. Each evaluation is one macro step of the scheme. */
typedef double (*root_fn)(const ssw_coeffs *c, const ssw_state *s, double arg);

static double refine(const run_par *P, const ssw_state *prev, double hstep,
                     double fa, double fb, root_fn f, double arg,
                     int64_t *steps, ssw_state *at) {
  double a = 0.0, b = hstep;
  int side = 0;
  ssw_state sb = *at;
  for (int it = 0; it < 60 && fb != 0.0; it++) {
    double x = (a * fb - b * fa) / (fb - fa);
    if (!(x > a && x < b)) x = 0.5 * (a + b);
    if (b - a <= 4.0 * 0x1p-52 * hstep) break;
    ssw_state s = *prev;
    ssw_stepper_advance(P->c, x, P->o->recon, &s);
    *steps += ssw_method_cost(P->c->method);
    const double fx = f(P->c, &s, arg);
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

/* v, signed so that it starts positive (the root of a sign change). */
static double v_of(const ssw_coeffs *c, const ssw_state *s, double sign) {
  double w, v;
  ssw_stepper_velocity(c, s, &w, &v);
  return sign * v;
}

/* ln(H / H_target), positive before the settling time. */
static double settle_of(const ssw_coeffs *c, const ssw_state *s, double Ht) {
  double w, v;
  ssw_stepper_velocity(c, s, &w, &v);
  return log(ssw_model_energy(&c->e, w, v) / Ht);
}

/* The decay at rest measured on the scheme's own map: three states a
 * macro step T apart obey z2 = a z1 - b z0 with a and b the trace and
 * determinant of the step's linear map (Cayley-Hamilton); its eigenvalues
 * e^{lambda T} give the rates. States along one eigenvector (C = c K)
 * give the ratio of their sizes. */
static void decay_of(const run_par *P, const ssw_state *end, double T,
                     ssw_damped *r) {
  ssw_state s = *end;
  double z[3][2];
  for (int k = 0; k < 3; k++) {
    z[k][0] = s.W1, z[k][1] = s.W2;
    if (k < 2) ssw_stepper_advance(P->c, T, P->o->recon, &s);
  }
  r->steps += 2 * ssw_method_cost(P->c->method);
  const double det = z[0][0] * z[1][1] - z[1][0] * z[0][1];
  const double n0 = hypot(z[0][0], z[0][1]), n1 = hypot(z[1][0], z[1][1]);
  r->decay_freq = 0.0;
  r->approach = SSW_APPROACH_NODE;
  if (fabs(det) <= 1e-8 * n0 * n1) {
    r->decay_rate = -log(n1 / n0) / T;
    return;
  }
  const double a = (z[0][0] * z[2][1] - z[2][0] * z[0][1]) / det;
  const double b = (z[1][0] * z[2][1] - z[2][0] * z[1][1]) / det;
  const double disc = a * a - 4.0 * b;
  if (disc >= -1e-6 * a * a) {
    r->decay_rate = -log(0.5 * (a + sqrt(fmax(disc, 0.0)))) / T;
  } else {
    r->approach = SSW_APPROACH_FOCUS;
    r->decay_rate = -0.5 * log(b) / T;
    r->decay_freq = atan2(sqrt(-disc), a) / T;
  }
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

/* One forward run at macro step eps / rate (adaptive) or hfix. */
static void run_once(const run_par *P, double w0, double v0, double eps,
                     double hfix, ssw_damped *r) {
  const ssw_coeffs *c = P->c;
  const int stages = ssw_method_cost(c->method);
  const int exact = (c->method->caps & SSW_CAP_EXACT_ENERGY) != 0;
  ssw_state s, prev;
  ssw_stepper_init(c, w0, v0, &s);
  const double H0 = ssw_model_energy(&c->e, w0, v0);
  double t = 0.0, w = w0, v = v0, H = H0, h = 0.0, emax = 0.0;
  double mark = 0.0, path = 0.0; /* len at the last sign change of v */
  r->t_settle = NAN;
  r->h = hfix > 0 ? hfix : eps / rate_at(P, H0);
  r->steps = 0;
  r->flags = 0;
  r->converged = 0;
  for (;;) {
    if (H <= P->stop * H0) {
      r->converged = 1;
      break;
    }
    if (r->steps + stages > P->o->max_steps) {
      r->flags |= SSW_TRAJ_FWD_CAP;
      break;
    }
    h = hfix > 0 ? hfix : eps / rate_at(P, H);
    prev = s;
    const double tp = t, vp = v, Hp = H;
    ssw_stepper_advance(c, h, P->o->recon, &s);
    r->steps += stages;
    t += h;
    ssw_stepper_velocity(c, &s, &w, &v);
    H = ssw_model_energy(&c->e, w, v);
    if (!isfinite(H) || !isfinite(s.x) || !isfinite(s.y) || !isfinite(s.len)) {
      r->flags |= SSW_TRAJ_NONFINITE;
      break;
    }
    if (exact) emax = fmax(emax, fabs(H + s.diss - H0) / H0);
    if (P->sample) P->sample(P->ctx, 1, t, s.phi, s.x, s.y, w, v, H);
    if (vp != 0.0 && (v == 0.0 || (v > 0) != (vp > 0))) {
      ssw_state at = s;
      const double sg = vp > 0 ? 1.0 : -1.0;
      refine(P, &prev, h, sg * vp, sg * v, v_of, sg, &r->steps, &at);
      path += fabs(at.len - mark);
      mark = at.len;
    }
    const double Ht = SSW_DAMPED_SETTLE * H0;
    if (isnan(r->t_settle) && H <= Ht) {
      ssw_state at = s;
      r->t_settle = tp + refine(P, &prev, h, log(Hp / Ht), log(H / Ht),
                                settle_of, Ht, &r->steps, &at);
    }
  }
  double dw = 0.0, dv = 0.0;
  if (P->o->tail && r->converged) tail_of(&c->e, &s, &dw, &dv);
  r->heading_total = s.phi + dw;
  r->rest_x = s.x + s.ux * dv;
  r->rest_y = s.y + s.uy * dv;
  r->path_length = path + fabs(s.len + dv - mark);
  r->rest_distance = hypot(r->rest_x, r->rest_y);
  r->loops = isfinite(r->heading_total)
                 ? (int)floor(fabs(r->heading_total) / (2.0 * M_PI))
                 : -1;
  r->t_end = t;
  r->energy_end = H / H0;
  r->energy_error = exact ? emax : NAN;
  r->H0 = H0;
  r->decay_rate = r->decay_freq = NAN;
  r->approach = SSW_APPROACH_NODE;
  if (r->converged) decay_of(P, &s, h, r);
}

/* Absolute errors from the fine and the coarse run (coarse step `ratio`
 * times the fine one, order q): SSW_EST_SAFETY |fine - coarse| /
 * (ratio^q - 1), plus the tail's remainder (O(H / H0) of the heading and
 * the rest point, O(sqrt(H / H0)) of the length). */
static void estimate(const ssw_damped *f, const ssw_damped *c, int q,
                     ssw_damped *out) {
  const double k = SSW_EST_SAFETY / (pow(SSW_EST_RATIO, q) - 1.0);
  const double s = sqrt(f->energy_end);
  out->err_heading = k * fabs(f->heading_total - c->heading_total) +
                     f->energy_end * fmax(fabs(f->heading_total), 1.0);
  out->err_rest = k * hypot(f->rest_x - c->rest_x, f->rest_y - c->rest_y) +
                  f->energy_end * f->path_length;
  out->err_path =
      k * fabs(f->path_length - c->path_length) + s * f->path_length;
  out->err_decay = k * fabs(f->decay_rate - c->decay_rate);
  out->err_settle = k * fabs(f->t_settle - c->t_settle);
}

/* The round-off floor, which a finer step does not reduce (so it is added
 * after the refinements) and the difference of two runs does not see:
 * each step rounds the heading and the contact point by a few ulp of their
 * size, and these add up over the steps (a bound, linear in their
 * number). */
static void add_floor(ssw_damped *r) {
  const double n = (double)r->steps * 0x1p-52;
  r->err_heading += n * fmax(fabs(r->heading_total), 1.0);
  r->err_rest += n * r->path_length;
  r->err_path += n * r->path_length;
}

/* The largest error estimate relative to what rtol asks of it. */
static double rel_error(const ssw_damped *r) {
  const double lscale = fmax(r->path_length, 1e-300);
  double e = r->err_heading / fmax(fabs(r->heading_total), 1.0);
  e = fmax(e, r->err_rest / lscale);
  e = fmax(e, r->err_path / lscale);
  if (r->decay_rate > 0) e = fmax(e, r->err_decay / r->decay_rate);
  if (r->t_settle > 0) e = fmax(e, r->err_settle / r->t_settle);
  return e;
}

/* The fine run, its estimate, and reruns at a finer step until rtol. */
static void extract(const run_par *P, double w0, double v0, ssw_damped *out) {
  const ssw_integrator *o = P->o;
  const int q = P->c->method->order;
  double eps = 0.0, hfix = 0.0;
  if (o->rtol > 0)
    eps = fmin(SSW_EPS_MAX, P->c->method->eps_scale * pow(o->rtol, 1.0 / q));
  else
    hfix = o->eta / rate_at(P, ssw_model_energy(&P->c->e, w0, v0));
  int64_t work = 0;
  for (int k = 0;; k++) {
    ssw_damped coarse;
    run_once(P, w0, v0, eps, hfix, out);
    work += out->steps;
    out->eps = eps;
    out->refinements = k;
    out->err_heading = out->err_rest = out->err_path = NAN;
    out->err_decay = out->err_settle = NAN;
    if (!o->estimate || !out->converged) break;
    run_once(P, w0, v0, eps * SSW_EST_RATIO, hfix * SSW_EST_RATIO, &coarse);
    work += coarse.steps;
    estimate(out, &coarse, q, out);
    const double rel = rel_error(out);
    if (o->rtol <= 0 || rel <= o->rtol) {
      add_floor(out);
      break;
    }
    if (k == SSW_REFINE_MAX) {
      add_floor(out);
      out->flags |= SSW_TRAJ_RTOL;
      break;
    }
    eps *= fmax(0.25, 0.8 * pow(o->rtol / rel, 1.0 / q));
  }
  out->steps = work;
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
  double *rate[] = {&r->decay_rate, &r->decay_freq, &r->err_decay};
  for (size_t i = 0; i < sizeof rate / sizeof rate[0]; i++)
    *rate[i] = ldexp(*rate[i], k);
}

int ssw_damped_run(const ssw_tensor *t, double w0, double v0,
                   const ssw_integrator *o, ssw_sample_fn sample, void *ctx,
                   ssw_damped *out) {
  SSW_CALL(ssw_integrator_check(o));
  SSW_CHECK(isfinite(w0) && isfinite(v0) && (w0 != 0.0 || v0 != 0.0),
            SSW_ERR_ARG,
            "initial velocity (omega0, v0) = (%g, %g) must be finite and "
            "non-zero",
            w0, v0);
  SSW_CHECK(ssw_drag_on(t), SSW_ERR_ARG,
            "the damped extraction needs drag (drag_w, drag_v or drag_wv)");
  /* Scaled units (scale.h); with drag the time unit is the drag's. */
  ssw_units u;
  ssw_tensor ts;
  ssw_units_body(t, &u, &ts);
  ssw_coeffs c;
  SSW_CALL(ssw_stepper_bind(&ts, o->method, &c));
  ssw_drag_rest rest;
  SSW_CALL(ssw_drag_rest_eigen(&ts, &rest));
  double ws, vs;
  ssw_units_state(&u, &ts, w0, v0, &ws, &vs);
  ssw_units_sample wrap = {sample, ctx, u};
  run_par P = {&c,
               o,
               0.0,
               ssw_damped_stop_fraction(o),
               sample ? ssw_units_sample_fn : NULL,
               sample ? &wrap : NULL};
  /* tr(K^-1 C) = b / D bounds K^-1 C's eigenvalues: h b / D <= eps keeps
   * K + (h/2) C positive definite in every sub-step, the compositions'
   * negative ones included (|gamma| < 2). */
  P.rest_rate = fmax(fmax(hypot(rest.re[0], rest.im[0]), fabs(rest.re[1])),
                     rest.b / rest.D);
  *out = (ssw_damped){0};
  extract(&P, ws, vs, out);
  unscale(&u, out);
  return SSW_SUCCESS;
}
