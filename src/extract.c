/* Forward/backward integration to the limit motions and extraction of the
 * radii, centres, spacing, senses, t0, transition angle and loops. */
#include "sleighsweep/extract.h"

#include <math.h>

#include "sleighsweep/error.h"

void ssw_integrator_defaults(ssw_integrator *o) {
  o->method = ssw_method_find("hamel8");
  o->recon = SSW_RECON_EXP;
  o->eta = 0.8;
  o->tol = 1e-5;
  o->max_steps = 2000000;
  o->tail = 1;
}

int ssw_integrator_check(const ssw_integrator *o) {
  SSW_CHECK(o->method != NULL, SSW_ERR_ARG, "no integration scheme selected");
  SSW_CHECK(o->recon >= 0 && o->recon < SSW_RECON_COUNT, SSW_ERR_ARG,
            "unknown reconstruction %d", o->recon);
  SSW_CHECK(isfinite(o->eta) && o->eta > 0 && o->eta <= 2, SSW_ERR_ARG,
            "eta = %g must be in (0, 2]", o->eta);
  SSW_CHECK(isfinite(o->tol) && o->tol > 0 && o->tol <= 1e-2, SSW_ERR_ARG,
            "tol = %g must be in (0, 1e-2]", o->tol);
  SSW_CHECK(o->max_steps >= 100, SSW_ERR_ARG,
            "max_steps = %lld must be >= 100", (long long)o->max_steps);
  return SSW_SUCCESS;
}

/* g = L1 w + Z v vanishes on the equilibria; g' = g ht / D exactly, with
 * ht = (L1 L2 + Z J) w - (L1 M + Z L2) v, so |g| peaks where ht = 0 and the
 * approach to the line is exponential at the rate ht / D. */
static double gfun(const ssw_coeffs *c, double w, double v) {
  return c->L1 * w + c->Z * v;
}
static double htfun(const ssw_coeffs *c, double w, double v) {
  return c->kw2 * w - c->kw1 * v;
}
static double energy(const ssw_coeffs *c, double w, double v) {
  return 0.5 * (c->J * w * w + c->M * v * v - 2.0 * c->L2 * w * v);
}

/* End state of one direction of integration. */
typedef struct {
  double t, phi, x, y, w, v, g, ht;
  int64_t steps;
  double emax;
  int converged, nonfinite;
  int found_peak;
  double t_peak;
} leg;

typedef struct {
  const ssw_coeffs *c;
  const ssw_integrator *o;
  double H0, gmax, h;
  ssw_sample_fn sample;
  void *ctx;
} leg_ctx;

static int stages_of(const ssw_method *m) { return m->stages > 0 ? m->stages : 1; }

/* Locates the zero of dir * ht in one macro step from `prev` (where it is
 * > 0) to `prev + dir h` (where it is <= 0) by the Illinois variant of
 * regula falsi, each evaluation being one macro step of the same method from
 * the node `prev`; the result carries the integrator's own accuracy. */
static double refine_peak(const leg_ctx *L, const ssw_state *prev, int dir,
                          double f0, double f1, int64_t *steps) {
  double a = 0.0, b = L->h, fa = f0, fb = f1;
  int side = 0;
  for (int it = 0; it < 60 && fb != 0.0; it++) {
    double tau = (a * fb - b * fa) / (fb - fa);
    if (!(tau > a && tau < b)) tau = 0.5 * (a + b);
    if (b - a <= 4.0 * 0x1p-52 * L->h) break;
    ssw_state s = *prev;
    ssw_stepper_advance(L->c, L->o->method, dir * tau, L->o->recon, &s);
    *steps += stages_of(L->o->method);
    double w, v;
    ssw_stepper_velocity(L->c, &s, &w, &v);
    const double f = dir * htfun(L->c, w, v);
    if (f > 0) {
      a = tau, fa = f;
      if (side == -1) fb *= 0.5;
      side = -1;
    } else {
      b = tau, fb = f;
      if (side == 1) fa *= 0.5;
      side = 1;
      if (f == 0.0) break;
    }
  }
  return fb == 0.0 ? b : (a * fb - b * fa) / (fb - fa);
}

static void run_leg(const leg_ctx *L, double w0, double v0, int dir,
                    leg *r) {
  const ssw_coeffs *c = L->c;
  const ssw_method *m = L->o->method;
  const int st = stages_of(m);
  const double step = dir * L->h;
  ssw_state s;
  ssw_stepper_init(c, w0, v0, &s);
  double w = w0, v = v0, g = gfun(c, w, v), ht = htfun(c, w, v);
  int64_t n = 0;
  *r = (leg){0};
  r->found_peak = ht == 0.0;
  while (fabs(g) > L->o->tol * L->gmax) {
    if (r->steps + st > L->o->max_steps) break;
    const ssw_state prev = s;
    const double ht_prev = ht;
    ssw_stepper_advance(c, m, step, L->o->recon, &s);
    n++;
    r->steps += st;
    ssw_stepper_velocity(c, &s, &w, &v);
    g = gfun(c, w, v);
    ht = htfun(c, w, v);
    if (!isfinite(g) || !isfinite(s.x) || !isfinite(s.y) ||
        !isfinite(s.phi)) {
      r->nonfinite = 1;
      break;
    }
    const double H = energy(c, w, v);
    const double e = fabs(H - L->H0) / L->H0;
    if (e > r->emax) r->emax = e;
    if (!r->found_peak && dir * ht_prev > 0 && dir * ht <= 0) {
      const double tau = refine_peak(L, &prev, dir, dir * ht_prev, dir * ht,
                                     &r->steps);
      r->t_peak = (double)(n - 1) * step + dir * tau;
      r->found_peak = 1;
    }
    if (L->sample)
      L->sample(L->ctx, dir, (double)n * step, s.phi, s.x, s.y, w, v, H);
  }
  r->converged = !r->nonfinite && fabs(g) <= L->o->tol * L->gmax;
  r->t = (double)n * step;
  r->phi = s.phi, r->x = s.x, r->y = s.y;
  r->w = w, r->v = v, r->g = g, r->ht = ht;
}

/* Limit of one end: velocity, asymptotic heading line and circle centre. */
typedef struct {
  double w, v;   /**< limit velocity */
  double Phi;    /**< heading line phi(t) = Phi + w (t - t_end) */
  double cx, cy; /**< limit-circle centre (NaN when Z = 0) */
} limit;

/* With a1 = L2 w - M v and a2 = J w - L2 v, g decays as exp(ht t / D), so
 * the remaining changes are w_inf = w - a1 g / ht, v_inf = v - a2 g / ht,
 * the heading line shifts by -D a1 g / ht^2 and the material point
 * (0, -L1/Z), whose velocity is e^{i phi} g / Z, still moves by
 * -(g / Z) e^{i phi} / (ht / D + i w); all with O(g^2) error. */
static void limit_of(const ssw_coeffs *c, const leg *r, int tail,
                     limit *out) {
  const double a1 = c->L2 * r->w - c->M * r->v;
  const double a2 = c->J * r->w - c->L2 * r->v;
  const int use = tail && r->ht != 0.0;
  const double q = use ? r->g / r->ht : 0.0;
  out->w = r->w - a1 * q;
  out->v = r->v - a2 * q;
  out->Phi = r->phi - (use ? c->D * a1 * q / r->ht : 0.0);
  if (c->Z == 0.0) {
    out->cx = out->cy = NAN;
    return;
  }
  const double cp = cos(r->phi), sp = sin(r->phi), k = c->L1 / c->Z;
  out->cx = r->x + k * sp;
  out->cy = r->y - k * cp;
  if (use) {
    const double lam = r->ht / c->D, den = lam * lam + r->w * r->w;
    const double gz = r->g / c->Z;
    out->cx -= gz * (cp * lam + sp * r->w) / den;
    out->cy -= gz * (sp * lam - cp * r->w) / den;
  }
}

static int sign_of(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

/* Every state is an equilibrium (uniform regime) or the start lies on the
 * line of equilibria: the motion is one circle (or line) forever. */
static void stationary(const ssw_coeffs *c, double w0, double v0,
                       ssw_traj *out) {
  const double r = w0 != 0.0 ? fabs(v0 / w0) : INFINITY;
  out->w_past = out->w_future = w0;
  out->v_past = out->v_future = v0;
  out->r_past = out->r_future = r;
  const double k = (w0 != 0.0) ? v0 / w0 : NAN;
  out->center_past[0] = out->center_future[0] = 0.0;
  out->center_past[1] = out->center_future[1] = k;
  out->d = 0.0;
  out->sense_past = out->sense_future = sign_of(w0);
  out->t0 = 0.0;
  out->dphi = 0.0;
  out->loops = 0;
  out->converged = 1;
  (void)c;
}

static void combine(const ssw_coeffs *c, const ssw_integrator *o,
                    const leg *fwd, const leg *bwd, int regime,
                    ssw_traj *out) {
  limit lf, lp;
  limit_of(c, fwd, o->tail, &lf);
  limit_of(c, bwd, o->tail, &lp);
  out->w_future = lf.w, out->v_future = lf.v;
  out->w_past = lp.w, out->v_past = lp.v;
  const int line = regime == SSW_REGIME_LINE_TO_LINE;
  out->r_future = line ? INFINITY : fabs(lf.v / lf.w);
  out->r_past = line ? INFINITY : fabs(lp.v / lp.w);
  out->sense_future = line ? 0 : sign_of(lf.w);
  out->sense_past = line ? 0 : sign_of(lp.w);
  out->center_future[0] = lf.cx, out->center_future[1] = lf.cy;
  out->center_past[0] = lp.cx, out->center_past[1] = lp.cy;
  out->d = line ? NAN : hypot(lf.cx - lp.cx, lf.cy - lp.cy);
  out->t0 = fwd->found_peak ? fwd->t_peak : (bwd->found_peak ? bwd->t_peak
                                                               : NAN);
  /* Difference at t0 of the two asymptotic heading lines. */
  const double phf = lf.Phi + lf.w * (out->t0 - fwd->t);
  const double php = lp.Phi + lp.w * (out->t0 - bwd->t);
  out->dphi = phf - php;
  out->loops = isfinite(out->dphi)
                   ? (int)floor(fabs(out->dphi) / (2.0 * M_PI))
                   : -1;
  out->energy_error = fmax(fwd->emax, bwd->emax);
  out->steps = fwd->steps + bwd->steps;
  out->t_future = fwd->t, out->t_past = bwd->t;
  out->flags |= (fwd->converged ? 0 : SSW_TRAJ_FWD_CAP) |
                (bwd->converged ? 0 : SSW_TRAJ_BWD_CAP) |
                ((fwd->nonfinite || bwd->nonfinite) ? SSW_TRAJ_NONFINITE : 0) |
                (isfinite(out->t0) ? 0 : SSW_TRAJ_NO_PEAK);
  out->converged = out->flags == 0;
}

int ssw_extract_run(const ssw_tensor *t, int regime, double w0, double v0,
                    const ssw_integrator *o, ssw_sample_fn sample, void *ctx,
                    ssw_traj *out) {
  SSW_CALL(ssw_integrator_check(o));
  SSW_CHECK(isfinite(w0) && isfinite(v0) && (w0 != 0.0 || v0 != 0.0),
            SSW_ERR_ARG,
            "initial velocity (omega0, v0) = (%g, %g) must be finite and "
            "non-zero",
            w0, v0);
  ssw_coeffs c;
  ssw_stepper_coeffs(t, &c);
  *out = (ssw_traj){0};
  out->regime = regime;
  out->H0 = energy(&c, w0, v0);
  if (regime == SSW_REGIME_UNIFORM) {
    out->rate = 0.0;
    stationary(&c, w0, v0, out);
    return SSW_SUCCESS;
  }
  out->rate = sqrt(2.0 * out->H0 * ssw_model_E(t)) / c.D;
  /* Largest |g| on the energy ellipse: sqrt(2 H E / D) = Arate sqrt(D). */
  const double gmax = out->rate * sqrt(c.D);
  if (fabs(gfun(&c, w0, v0)) <= o->tol * gmax) {
    stationary(&c, w0, v0, out);
    if (regime == SSW_REGIME_LINE_TO_LINE) out->r_past = out->r_future = INFINITY;
    out->center_past[1] = out->center_future[1] = -c.L1 / c.Z;
    out->d = (c.Z != 0.0) ? 0.0 : NAN;
    out->flags = SSW_TRAJ_EQUILIBRIUM;
    return SSW_SUCCESS;
  }
  /* Step scale: the fastest rate on the energy level, max(Arate, w_max)
   * with w_max = sqrt(2 H M / D) the largest |omega| on the energy ellipse
   * (reached on the trajectory). DESIGN.md scales by Arate alone, which
   * under-resolves bodies whose heading turns many times per transition
   * (|omega| / Arate = 47 on random bodies of the tests). */
  const double wmax = sqrt(2.0 * out->H0 * c.M / c.D);
  out->h = o->eta / fmax(out->rate, wmax);
  const leg_ctx L = {&c, o, out->H0, gmax, out->h, sample, ctx};
  leg fwd, bwd;
  run_leg(&L, w0, v0, +1, &fwd);
  run_leg(&L, w0, v0, -1, &bwd);
  combine(&c, o, &fwd, &bwd, regime, out);
  return SSW_SUCCESS;
}
