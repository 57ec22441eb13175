/* Forward/backward integration to the limit motions, with reversible step
 * control, in SIMD lanes; extraction of the radii, centres, spacing,
 * senses, t0, transition angle and loops, and their error estimates.
 * Theory: docs/theory/step-control.md. */
#include "sleighsweep/extract.h"

#include <math.h>

#include "estimate.h"
#include "legs.h"
#include "scale.h"
#include "sleighsweep/error.h"

void ssw_integrator_defaults(ssw_integrator *o) {
  o->method = ssw_method_find(SSW_SCHEME_DEFAULT);
  o->recon = SSW_RECON_EXP;
  o->rtol = SSW_RTOL_DEFAULT;
  o->eta = 0.0;
  o->tol = 0.0;
  o->max_steps = SSW_MAX_STEPS_DEFAULT;
  o->tail = 1;
  o->estimate = 1;
}

int ssw_integrator_check(const ssw_integrator *o) {
  SSW_CHECK(o->method != NULL, SSW_ERR_ARG, "no integration scheme selected");
  SSW_CHECK(o->recon >= 0 && o->recon < SSW_RECON_COUNT, SSW_ERR_ARG,
            "unknown reconstruction %d", o->recon);
  SSW_CHECK(!(o->rtol > 0 && o->eta > 0), SSW_ERR_ARG,
            "rtol and eta exclude each other: rtol asks for an accuracy, "
            "eta fixes the step (give one of them)");
  SSW_CHECK(o->rtol > 0 || o->eta > 0, SSW_ERR_ARG,
            "neither rtol nor eta is set: one of them chooses the step");
  if (o->eta > 0)
    SSW_CHECK(isfinite(o->eta) && o->eta <= 2, SSW_ERR_ARG,
              "eta = %g must be in (0, 2]", o->eta);
  else
    SSW_CHECK(o->rtol > SSW_RTOL_MIN && o->rtol <= SSW_RTOL_MAX, SSW_ERR_ARG,
              "rtol = %g must be in (%g, %g]", o->rtol, SSW_RTOL_MIN,
              SSW_RTOL_MAX);
  SSW_CHECK(o->tol == 0.0 || (isfinite(o->tol) && o->tol > 0 && o->tol <= 1e-2),
            SSW_ERR_ARG, "tol = %g must be in (0, 1e-2] (0: derived)", o->tol);
  SSW_CHECK(o->max_steps >= 100, SSW_ERR_ARG, "max_steps = %lld must be >= 100",
            (long long)o->max_steps);
  return SSW_SUCCESS;
}

double ssw_integrator_stop_tol(const ssw_integrator *o) {
  if (o->tol > 0) return o->tol;
  /* The first-order tail leaves O(tol^2): 0.3 tol^2 in d on the seed
   * case, up to ~1e3 tol^2 on the wide batch. Its remainder is estimated
   * (tail_of) and a trajectory whose share exceeds rtol / 4 runs again
   * with a tighter tol, so tol = sqrt(rtol) / 10 needs no margin beyond
   * that (docs/theory/step-control.md). */
  return o->rtol > 0 ? SSW_TOL_RTOL_FACTOR * sqrt(o->rtol)
                     : SSW_TOL_FIXED_DEFAULT;
}

/* ---- Limits and combination ------------------------------------------- */

/* Limit of one end: velocity, asymptotic heading line and circle centre. */
typedef struct {
  double w, v;   /**< limit velocity */
  double t, Phi; /**< heading line phi(t') = Phi + w (t' - t) */
  double cx, cy; /**< limit-circle centre (NaN when Z = 0) */
} limit;

static leg_node end_of(const leg *r) {
  return (leg_node){r->t,  r->phi, r->x, r->y, r->ux,
                    r->uy, r->w,   r->v, r->g, r->ht};
}

/* The exponential tail (ssw_model_tail, ssw_model_centre) moves the
 * limits and the centres by O(g), leaving O(g^2). */
static void limit_of(const ssw_coeffs *c, const leg_node *r, int tail,
                     limit *out) {
  const ssw_reduced *e = &c->e;
  out->t = r->t;
  const int use = tail && r->ht != 0.0;
  double shift;
  ssw_model_tail(e, r->w, r->v, use ? r->g / r->ht : 0.0, r->ht, &out->w,
                 &out->v, &shift);
  out->Phi = r->phi - (use ? shift : 0.0);
  /* The heading's unit vector as the scheme carried it, which moved x
   * and y: cos(phi) would add the round-off of a heading summed over
   * every loop (hundreds of them near line-to-line). */
  ssw_model_centre(e, r->ux, r->uy, r->x, r->y, r->w, r->v, r->g, r->ht, use,
                   out->w, out->v, &out->cx, &out->cy);
}

static int sign_of(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

/* What the tail's remainder moves at one end: the centre (length), the
 * heading line at t0 (rad), the radius (length), the limit's blade force
 * per unit energy (1/length). */
typedef struct {
  double c, line, r, blade;
} tail_part;

/* The limit is an equilibrium, on the line g = kappa (g = L1 w + Z v):
 * the extrapolated limit (w, v) misses it by res = g - kappa. Moving it
 * onto the line along its energy level (L1 dw + Z dv = -res, zeta^T K
 * dzeta = 0) changes |v / w| by |w dv - v dw| / w^2 to first order: what
 * the radius carries of the residual. Near-round ellipses (Z -> 0)
 * magnify it beyond the anchor's difference (test_round_ellipse). */
static double line_shift(const ssw_reduced *e, double w, double v) {
  const double res = ssw_model_g(e, w, v);
  const double k1 = e->J * w - e->L2 * v, k2 = e->M * v - e->L2 * w;
  const double det = e->L1 * k2 - e->Z * k1;
  if (res == 0.0 || w == 0.0) return 0.0;
  if (det == 0.0) return INFINITY;
  const double dw = -res * k2 / det, dv = res * k1 / det;
  return fabs(w * dv - v * dw) / (w * w);
}

/* The remainder R(g) ~ C g^2 of the tail (C g without it) at the end,
 * from the limits of the tails added at the anchor (g1 >= 4 g2) and at the
 * end: they differ by R(g1) - R(g2) (plus the little the integration adds
 * in between), so R(g2) = (difference) g2^2 / (g1^2 - g2^2). */
static void tail_of(const ssw_coeffs *c, int tail, const leg *r, const limit *E,
                    double t0, double H0, tail_part *out) {
  limit A;
  limit_of(c, &r->anchor, tail, &A);
  const double g1 = fabs(r->anchor.g), g2 = fabs(r->g);
  double q = 0.0;
  /* A leg that stalled O(h^q) off the line (a scheme without exact
   * equilibria) ends where the step, not tol, put it: the difference of
   * the fine and the coarse run sees that end, the anchor would not. */
  if (r->stalled)
    q = 0.0;
  else if (g2 > 0 && tail)
    q = g1 >= 2 * g2 ? g2 * g2 / ((g1 - g2) * (g1 + g2)) : 1.0 / 3.0;
  else if (g2 > 0)
    q = g1 >= 2 * g2 ? g2 / (g1 - g2) : 1.0;
  out->c = q * hypot(A.cx - E->cx, A.cy - E->cy);
  out->line =
      q * fabs((A.Phi + A.w * (t0 - A.t)) - (E->Phi + E->w * (t0 - E->t)));
  out->r = fmax(q * fabs(fabs(A.v / A.w) - fabs(E->v / E->w)),
                line_shift(&c->e, E->w, E->v));
  out->blade = q *
               fabs(fabs(ssw_model_blade_force(&c->e, A.w, A.v)) -
                    fabs(ssw_model_blade_force(&c->e, E->w, E->v))) /
               H0;
}

/* Every state is an equilibrium (uniform regime) or the start lies on the
 * line of equilibria: the motion is one circle (or line) forever, exactly. */
static void stationary(const ssw_coeffs *c, double w0, double v0,
                       ssw_traj *out) {
  out->blade_force_max = fabs(ssw_model_blade_force(&c->e, w0, v0)) / out->H0;
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
  out->err_d = out->err_dphi = out->err_r = out->err_t0 = 0.0;
  out->err_center = out->err_blade = 0.0;
  out->tail = out->roundoff = (ssw_err_parts){0};
  out->t0_step = 0.0;
  out->t0_dphi = 0.0;
}

/* What the time shifts summed in t_peak_local move dphi by: each shift
 * delta made at w moves it by |w - w_b| delta <= (|w - w0| + |w0 - w_b|)
 * delta, w_b the limit behind the leg (legs.h). */
static double dphi_shift(const leg *l, double w_b) {
  return l->t_peak_wlocal + fabs(l->w_start - w_b) * l->t_peak_local;
}

static void combine(const ssw_coeffs *c, const ssw_integrator *o,
                    const leg *fwd, const leg *bwd, ssw_traj *out) {
  limit lf, lp;
  const leg_node ef = end_of(fwd), ep = end_of(bwd);
  limit_of(c, &ef, o->tail, &lf);
  limit_of(c, &ep, o->tail, &lp);
  out->w_future = lf.w, out->v_future = lf.v;
  out->w_past = lp.w, out->v_past = lp.v;
  const int line = out->regime == SSW_REGIME_LINE_TO_LINE;
  out->r_future = line ? INFINITY : fabs(lf.v / lf.w);
  out->r_past = line ? INFINITY : fabs(lp.v / lp.w);
  out->sense_future = line ? 0 : sign_of(lf.w);
  out->sense_past = line ? 0 : sign_of(lp.w);
  out->center_future[0] = lf.cx, out->center_future[1] = lf.cy;
  out->center_past[0] = lp.cx, out->center_past[1] = lp.cy;
  out->d = line ? NAN : hypot(lf.cx - lp.cx, lf.cy - lp.cy);
  out->t0 =
      fwd->found_peak ? fwd->t_peak : (bwd->found_peak ? bwd->t_peak : NAN);
  out->t0_step = fwd->found_peak ? fwd->t_peak_local
                                 : (bwd->found_peak ? bwd->t_peak_local : NAN);
  /* The forward leg found the peak: it left the past limit behind. */
  out->t0_dphi = fwd->found_peak
                     ? dphi_shift(fwd, lp.w)
                     : (bwd->found_peak ? dphi_shift(bwd, lf.w) : NAN);
  /* Difference at t0 of the two asymptotic heading lines. */
  const double phf = lf.Phi + lf.w * (out->t0 - lf.t);
  const double php = lp.Phi + lp.w * (out->t0 - lp.t);
  out->dphi = phf - php;
  out->loops =
      isfinite(out->dphi) ? (int)floor(fabs(out->dphi) / (2.0 * M_PI)) : -1;
  out->energy_error = fmax(fwd->emax, bwd->emax);
  /* The supremum may be approached on a limit circle: the limits count. */
  const double fl = fmax(fabs(ssw_model_blade_force(&c->e, lf.w, lf.v)),
                         fabs(ssw_model_blade_force(&c->e, lp.w, lp.v)));
  out->blade_force_max = fmax(fl, fmax(fwd->fmax, bwd->fmax)) / out->H0;
  out->blade_terms = fmax(fwd->fterms, bwd->fterms) / out->H0;
  tail_part tf, tp;
  tail_of(c, o->tail, fwd, &lf, out->t0, out->H0, &tf);
  tail_of(c, o->tail, bwd, &lp, out->t0, out->H0, &tp);
  const double k = SSW_EST_SAFETY;
  out->tail.t0 = 0.0;
  out->tail.d = line ? NAN : k * (tf.c + tp.c);
  out->tail.center = line ? NAN : k * fmax(tf.c, tp.c);
  out->tail.dphi = k * (tf.line + tp.line);
  out->tail.r = line ? NAN : k * fmax(tf.r, tp.r);
  out->tail.blade = k * fmax(tf.blade, tp.blade);
  out->steps = fwd->steps + bwd->steps;
  out->t_future = fwd->t, out->t_past = bwd->t;
  out->flags &= ~(SSW_TRAJ_FWD_CAP | SSW_TRAJ_BWD_CAP | SSW_TRAJ_NONFINITE |
                  SSW_TRAJ_NO_PEAK);
  out->flags |= (fwd->converged ? 0 : SSW_TRAJ_FWD_CAP) |
                (bwd->converged ? 0 : SSW_TRAJ_BWD_CAP) |
                ((fwd->nonfinite || bwd->nonfinite) ? SSW_TRAJ_NONFINITE : 0) |
                (isfinite(out->t0) ? 0 : SSW_TRAJ_NO_PEAK);
  out->converged =
      (out->flags & (SSW_TRAJ_FWD_CAP | SSW_TRAJ_BWD_CAP | SSW_TRAJ_NONFINITE |
                     SSW_TRAJ_NO_PEAK | SSW_TRAJ_NEAR_CRITICAL)) == 0;
}

/* Below the critical energy (circulation): the quantities of one period,
 * between the first two sections of the forward leg. The contact point's
 * displacement over a period has the same length in any frame. */
static void combine_periodic(const leg *fwd, ssw_traj *out) {
  const double *a = fwd->sec[0], *b = fwd->sec[1];
  const int two = fwd->sections >= 2;
  out->period = two ? b[0] - a[0] : NAN;
  out->heading_per_period = two ? b[1] - a[1] : NAN;
  out->drift_per_period = two ? hypot(b[2] - a[2], b[3] - a[3]) : NAN;
  const double half = sin(0.5 * out->heading_per_period);
  out->orbit_radius =
      half != 0.0 ? out->drift_per_period / fabs(2.0 * half) : INFINITY;
  out->resonance =
      two ? (int)lround(out->heading_per_period / (2.0 * M_PI)) : -1;
  out->r_past = out->r_future = out->d = out->dphi = out->t0 = NAN;
  out->w_past = out->w_future = out->v_past = out->v_future = NAN;
  for (int k = 0; k < 2; k++)
    out->center_past[k] = out->center_future[k] = NAN;
  out->loops = -1;
  out->energy_error = fwd->emax;
  out->blade_force_max = fwd->fmax / out->H0;
  out->steps = fwd->steps;
  out->t_future = fwd->t, out->t_past = 0.0;
  out->flags &= ~(SSW_TRAJ_FWD_CAP | SSW_TRAJ_NONFINITE);
  out->flags |= (fwd->converged && two ? 0 : SSW_TRAJ_FWD_CAP) |
                (fwd->nonfinite ? SSW_TRAJ_NONFINITE : 0);
  /* Converged means both sections found: a period was measured. */
  out->converged = two && fwd->converged && !fwd->nonfinite &&
                   !(out->flags & SSW_TRAJ_NEAR_CRITICAL);
}

/* ---- Trajectories ------------------------------------------------------ */

double ssw_extract_fixed_step(const ssw_tensor *t, double H, double eta) {
  /* The fastest rate on the energy level, max(Arate, w_max) with w_max =
   * sqrt(2 H M / D) the largest |omega| on the ellipse and Arate the rate
   * of the reduced motion, (|g|max + |kappa|) / sqrt(D): sqrt(2 H E) / D
   * without circulation; with it the periodic motion's rate 2 pi / T =
   * sqrt(2 E (H_c - H)) / D stays below |kappa| / sqrt(D) however small
   * H is, where the energy's rates alone would put a period into a few
   * steps (docs/theory/circulation.md). kappa = 0 adds an exact 0. */
  const double D = ssw_model_D(t);
  const double rate =
      sqrt(2.0 * H * ssw_model_E(t)) / D + fabs(t->kappa) / sqrt(D);
  const double wmax = sqrt(2.0 * H * t->M / D);
  return eta / fmax(rate, wmax);
}

/* Even in the body's units the transition's rate leaves the double range
 * (L1 and Z some 1e-160 of the tensor's scale, possible with zero_tol 0):
 * the motion cannot be integrated, and says so (nonfinite). */
static void unresolvable(ssw_traj *out) {
  double *q[] = {&out->w_past,
                 &out->v_past,
                 &out->w_future,
                 &out->v_future,
                 &out->r_past,
                 &out->r_future,
                 &out->center_past[0],
                 &out->center_past[1],
                 &out->center_future[0],
                 &out->center_future[1],
                 &out->d,
                 &out->dphi,
                 &out->t0,
                 &out->blade_force_max};
  for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
    *q[i] = NAN;
  out->loops = -1;
  out->converged = 0;
  out->flags = SSW_TRAJ_NONFINITE;
}

/* Per-trajectory set-up; returns 1 when legs must be integrated. */
static int setup(const ssw_coeffs *c, const ssw_tensor *t, int regime,
                 double w0, double v0, const ssw_integrator *o, double tol,
                 ssw_traj *out, double *gmax) {
  *out = (ssw_traj){0};
  out->regime = regime;
  out->H0 = ssw_model_energy(&c->e, w0, v0);
  out->rtol = o->rtol;
  out->tol = tol;
  out->err_d = out->err_dphi = out->err_r = out->err_t0 = NAN;
  out->err_center = out->err_blade = out->t0_step = NAN;
  out->tail = out->roundoff = (ssw_err_parts){NAN, NAN, NAN, NAN, NAN, NAN};
  out->t0_step = NAN;
  out->t0_dphi = NAN;
  out->err_period = out->err_heading_period = out->err_drift = NAN;
  out->err_orbit = out->period = out->heading_per_period = NAN;
  out->drift_per_period = out->orbit_radius = NAN;
  out->resonance = -1;
  ssw_traj_no_rest(out);
  out->rate = sqrt(2.0 * out->H0 * ssw_model_E(t)) / c->e.D;
  /* Largest |L1 w + Z v| on the energy ellipse: sqrt(2 H E / D) = Arate
   * sqrt(D). Circulation's kappa beyond it: g never vanishes, the motion
   * is periodic, and its nominal rate is that of its section. */
  *gmax = out->rate * sqrt(c->e.D);
  const double g0 = ssw_model_g(&c->e, w0, v0), kappa = c->e.kappa;
  const int circ = (ssw_model_caps(&c->t) & SSW_MCAP_CIRC_CLOSED_FORM) != 0;
  out->arc = g0 > 0 ? 1 : (g0 < 0 ? -1 : 0);
  out->periodic = circ && fabs(kappa) >= *gmax;
  if (circ && fabs(fabs(kappa) / *gmax - 1.0) < SSW_CRITICAL_MARGIN)
    out->flags |= SSW_TRAJ_NEAR_CRITICAL;
  if (out->periodic)
    out->rate = sqrt((fabs(kappa) - *gmax) * (fabs(kappa) + *gmax) / c->e.D);
  if (regime == SSW_REGIME_UNIFORM && !out->periodic) {
    stationary(c, w0, v0, out);
    return 0;
  }
  if (!(out->rate > 0 && isfinite(out->rate))) {
    unresolvable(out);
    return 0;
  }
  if (!out->periodic && fabs(g0) <= tol * *gmax) {
    stationary(c, w0, v0, out);
    if (regime == SSW_REGIME_LINE_TO_LINE)
      out->r_past = out->r_future = INFINITY;
    out->center_past[1] = out->center_future[1] = -c->e.L1 / c->e.Z;
    out->d = (c->e.Z != 0.0) ? 0.0 : NAN;
    out->flags = SSW_TRAJ_EQUILIBRIUM;
    return 0;
  }
  if (o->rtol > 0) {
    /* Capped so that the estimate's coarse run (two to three times the
     * step, coarse_ratio) stays in the asymptotic range: rtol above ~1e-7
     * costs what 1e-7 costs. */
    out->eps = fmin(SSW_EPS_MAX, o->method->eps_scale *
                                     pow(o->rtol, 1.0 / o->method->order));
    out->h = out->eps / out->rate; /* nominal: the step at the transition */
  } else {
    out->h = ssw_extract_fixed_step(t, out->H0, o->eta);
  }
  return 1;
}

void ssw_extract_finish(const ssw_tensor *t, int regime, double w0, double v0,
                        const ssw_integrator *o, const ssw_leg_end *fwd,
                        const ssw_leg_end *bwd, ssw_traj *out) {
  ssw_coeffs c;
  /* The legs are given: the scheme's own constants are not needed. */
  if (ssw_stepper_bind(t, o->method, &c) != SSW_SUCCESS) ssw_error_clear();
  double gmax;
  setup(&c, t, regime, w0, v0, o, ssw_integrator_stop_tol(o), out, &gmax);
  const ssw_leg_end *e[2] = {fwd, bwd};
  leg L[2];
  for (int k = 0; k < 2; k++) {
    const double g = ssw_model_g(&c.e, e[k]->w, e[k]->v);
    const double ht = ssw_model_ht(&c.e, e[k]->w, e[k]->v);
    L[k] = (leg){.t = e[k]->t,
                 .phi = e[k]->phi,
                 .x = e[k]->x,
                 .y = e[k]->y,
                 .w = e[k]->w,
                 .v = e[k]->v,
                 .g = g,
                 .ht = ht,
                 .steps = e[k]->steps,
                 .emax = e[k]->emax,
                 .converged = e[k]->converged,
                 .nonfinite = !e[k]->converged,
                 .found_peak = e[k]->found_peak,
                 .t_peak = e[k]->t_peak,
                 .ux = cos(e[k]->phi),
                 .uy = sin(e[k]->phi)};
    L[k].anchor = end_of(&L[k]); /* no estimate here */
  }
  combine(&c, o, &L[0], &L[1], out);
}

double ssw_extract_gstop(const ssw_tensor *t, double H,
                         const ssw_integrator *o) {
  return ssw_integrator_stop_tol(o) *
         sqrt(2.0 * H * ssw_model_E(t) / ssw_model_D(t));
}

/* At most this many trajectories per pass: stack-sized job tables, no
 * allocation, and lanes stay full. */
#define CHUNK 16

/* The estimate's coarse step over the fine one: SSW_EST_RATIO_MAX (3)
 * while the coarse fictive step stays within SSW_EST_COARSE_EPS, in the
 * composition's asymptotic range, then less, down to SSW_EST_RATIO (2);
 * fixed steps: SSW_EST_RATIO. The coarse run costs 1 / ratio of the fine
 * one, and the Richardson divisor ratio^q - 1 follows the ratio. */
static double coarse_ratio(const leg_run *R, const ssw_traj *r) {
  if (!R->adaptive) return SSW_EST_RATIO;
  return fmax(SSW_EST_RATIO,
              fmin(SSW_EST_RATIO_MAX, SSW_EST_COARSE_EPS / r->eps));
}

/* The legs of m trajectories (set up in `base`) at their step, or at the
 * estimate's coarse step (coarse_ratio times it): job 2k is trajectory k
 * forward, 2k + 1 backward. */
static void make_jobs(const leg_run *R, const ssw_traj *base, int m,
                      const double *w0, const double *v0, void *const *ctx,
                      int coarse, leg_job *jobs) {
  for (int k = 0; k < m; k++) {
    const ssw_traj *r = &base[k];
    const double factor = coarse ? coarse_ratio(R, r) : 1.0;
    const ssw_reduced *e = &R->c->e;
    const int circ =
        (ssw_model_caps(&R->c->t) & SSW_MCAP_CIRC_CLOSED_FORM) != 0;
    /* The fastest time scale an effect declares (a forcing's frequency),
     * which the step density must resolve: 0 for none. */
    const double nu_effect = ssw_effect_rate(&R->c->t);
    const double G = r->rate * sqrt(e->D);
    for (int d = 0; d < 2; d++) {
      leg_job *j = &jobs[2 * k + d];
      *j = (leg_job){.w0 = w0[k],
                     .v0 = v0[k],
                     .dir = d ? -1 : 1,
                     .H0 = r->H0,
                     .gstop = r->tol * G,
                     .stop_ht = circ ? r->tol / sqrt(e->D) : 0.0,
                     .periodic = r->periodic,
                     .skip = r->periodic && d == 1,
                     .check_peak = !coarse,
                     .ctx = ctx ? ctx[k] : NULL};
      j->step = factor * (R->adaptive ? r->eps : r->h);
      /* The density's scales from the state itself (not the closed form):
       * nu^2 = (ht^2 + D g^2) / D^2 is constant along the motion, and
       * G^2 = D nu^2 is the largest g^2 on its energy level. With
       * circulation, g = p2 - kappa: the largest |g| is |kappa| plus the
       * largest |p2|, sqrt(ht^2 + D p2^2) / sqrt(D). */
      const double g0 = ssw_model_g(e, w0[k], v0[k]),
                   h0 = ssw_model_ht(e, w0[k], v0[k]);
      if (!circ) {
        j->clock.nu2 = (h0 * h0 + e->D * g0 * g0) / (e->D * e->D);
      } else {
        const double p2 = SSW_MODEL_P2(e, w0[k], v0[k]);
        const double gm = sqrt((h0 * h0 + e->D * p2 * p2) / e->D);
        const double top = gm + fabs(e->kappa);
        j->clock.nu2 = top * top / e->D;
      }
      j->clock.G2 = e->D * j->clock.nu2;
      j->clock.delta2 = SSW_GROWTH_DELTA2;
      if (nu_effect > 0.0) /* the density's floor: s^2 >= nu_effect^2 */
        j->clock.nu2 = fmax(j->clock.nu2, nu_effect * nu_effect);
    }
  }
}

/* The results of trajectory k from its two legs' jobs. */
static void finish(const leg_run *R, const ssw_traj *b, const leg_job *j,
                   int coarse, ssw_traj *res) {
  const double factor = coarse ? coarse_ratio(R, b) : 1.0;
  *res = *b;
  res->eps = factor * b->eps, res->h = factor * b->h;
  if (b->periodic)
    combine_periodic(&j[0].out, res);
  else
    combine(R->c, R->o, &j[0].out, &j[1].out, res);
}

/* order[0..n): the jobs, the longest legs first, so that the lanes run out
 * of work together (the results do not depend on it); a leg's steps about
 * (acosh(G / gstop) -+ acosh(G / g0), +1 through a peak ahead) / step. */
static void by_length(const ssw_reduced *e, const leg_job *jobs, int n,
                      int *order) {
  double len[4 * CHUNK];
  for (int i = 0; i < n; i++) {
    const leg_job *j = &jobs[i];
    const double G = sqrt(j->clock.G2), g0 = fabs(ssw_model_g(e, j->w0, j->v0));
    const double a = acosh(fmin(fmax(G / j->gstop, 1.0), 1e300));
    const double b = acosh(fmin(fmax(G / g0, 1.0), 1e300));
    const int ahead = j->dir * ssw_model_ht(e, j->w0, j->v0) > 0;
    len[i] = (ahead ? a + b + 1.0 : a - b) / j->step;
    int k = i;
    for (; k > 0 && len[order[k - 1]] < len[i]; k--)
      order[k] = order[k - 1];
    order[k] = i;
  }
}

/* One pass over m trajectories: fine[k] starts from base[k], and where
 * with_coarse[k] (with_coarse may be NULL: none) coarse[k] is its run at
 * the estimate's coarse step. The coarse legs share the lanes with the
 * fine ones (lanes never interact: the results are those of separate
 * passes), so a lane left idle by a short batch or a leg's end is used. */
static void pass(const leg_run *R, const ssw_traj *base, int m,
                 const double *w0, const double *v0, void *const *ctx,
                 const int *with_coarse, ssw_traj *fine, ssw_traj *coarse) {
  leg_job jobs[4 * CHUNK];
  int at[CHUNK], n = 2 * m;
  make_jobs(R, base, m, w0, v0, ctx, 0, jobs);
  for (int k = 0; k < m; k++) {
    at[k] = -1;
    if (!with_coarse || !with_coarse[k]) continue;
    make_jobs(R, &base[k], 1, &w0[k], &v0[k], NULL, 1, &jobs[n]);
    at[k] = n, n += 2;
  }
  int order[4 * CHUNK] = {0};
  by_length(&R->c->e, jobs, n, order);
  ssw_legs_run(R, jobs, order, n);
  ssw_legs_peaks(R, jobs, n);
  for (int k = 0; k < m; k++) {
    finish(R, &base[k], &jobs[2 * k], 0, &fine[k]);
    if (at[k] >= 0) finish(R, &base[k], &jobs[at[k]], 1, &coarse[k]);
  }
}

/* One round of reruns of the trajectories redo[0..nr). With the stopping
 * tolerance unchanged the previous run is the new estimate's coarse one;
 * with a tighter one (whose tail differs) a coarse run comes along. */
static void rerun(const leg_run *R, int nr, const int *redo, const double *w0,
                  const double *v0, const double *qk, ssw_traj *fine) {
  ssw_traj base[CHUNK], again[CHUNK], coarse[CHUNK];
  double rw0[CHUNK], rv0[CHUNK], ratio[CHUNK], tighten[CHUNK], q[CHUNK];
  int fresh[CHUNK];
  for (int k = 0; k < nr; k++) {
    const ssw_traj *f = &fine[redo[k]];
    ssw_estimate_plan(R->o->method, f, R->o->rtol, &ratio[k], &tighten[k]);
    base[k] = *f;
    base[k].eps = f->eps / ratio[k], base[k].h = f->h / ratio[k];
    base[k].tol = f->tol / tighten[k];
    rw0[k] = w0[redo[k]], rv0[k] = v0[redo[k]];
    fresh[k] = tighten[k] > 1.0;
    /* The order the trajectory showed (observed_orders), its scheme's
     * where none was measured. */
    q[k] = qk[redo[k]];
  }
  pass(R, base, nr, rw0, rv0, NULL, fresh, again, coarse);
  for (int k = 0; k < nr; k++) {
    ssw_traj *f = &fine[redo[k]];
    int64_t steps = f->steps + again[k].steps;
    if (tighten[k] > 1.0) {
      ssw_estimate(R->c, &again[k], &coarse[k], coarse_ratio(R, &base[k]), q[k],
                   &again[k]);
      steps += coarse[k].steps;
    } else {
      ssw_estimate(R->c, &again[k], f, ratio[k], q[k], &again[k]);
    }
    if (again[k].converged) {
      again[k].refinements = f->refinements + 1;
      *f = again[k];
    } else {
      /* The rerun failed (the step cap, typically): the converged result
       * stays, with its estimate, and is not refined again. */
      f->refinements++;
      f->flags |= SSW_TRAJ_RTOL;
    }
    f->steps = steps;
  }
}

/* Adaptive runs meet rtol by themselves: a trajectory whose estimate
 * exceeds it runs again at a finer step or a tighter stopping tolerance,
 * whichever part of the estimate asks for it. */
static void refine(const leg_run *R, int m, const double *w0, const double *v0,
                   const double *q, ssw_traj *fine) {
  for (int round = 0; round < SSW_REFINE_MAX; round++) {
    int redo[CHUNK], nr = 0;
    for (int k = 0; k < m; k++) {
      double ratio, tighten;
      ssw_estimate_plan(R->o->method, &fine[k], R->o->rtol, &ratio, &tighten);
      if (ssw_rel_estimate(&fine[k], R->o->rtol) > 1.0 && fine[k].converged &&
          !(fine[k].flags & SSW_TRAJ_RTOL) && (ratio > 1.0 || tighten > 1.0))
        redo[nr++] = k;
    }
    if (nr == 0) break;
    rerun(R, nr, redo, w0, v0, q, fine);
  }
  for (int k = 0; k < m; k++)
    if (ssw_rel_estimate(&fine[k], R->o->rtol) > 1.0)
      fine[k].flags |= SSW_TRAJ_RTOL;
}

/* The error estimates of a trajectory's result (ssw_traj's err_*), the
 * one list widen and at_least walk. */
#define NERR 10
static void err_of(ssw_traj *r, double *e[NERR]) {
  double *const p[NERR] = {
      &r->err_d,      &r->err_dphi,  &r->err_r,      &r->err_t0,
      &r->err_center, &r->err_blade, &r->err_period, &r->err_heading_period,
      &r->err_drift,  &r->err_orbit};
  for (int i = 0; i < NERR; i++)
    e[i] = p[i];
}

/* The error estimates of x divided by k, into out's (its other fields
 * untouched). */
static void widen(const ssw_traj *x, double k, ssw_traj *out) {
  ssw_traj c = *x;
  double *a[NERR], *b[NERR];
  err_of(&c, a), err_of(out, b);
  for (int i = 0; i < NERR; i++)
    *b[i] = *a[i] / k;
}

/* out's estimates at least those of x (NaN in x leaves out's). */
static void at_least(const ssw_traj *x, ssw_traj *out) {
  ssw_traj c = *x;
  double *a[NERR], *b[NERR];
  err_of(&c, a), err_of(out, b);
  for (int i = 0; i < NERR; i++)
    if (*a[i] > *b[i]) *b[i] = *a[i];
}

/* Where Richardson's h^q is not a given, the order is measured: at fixed
 * steps (any eta the user picks, however far from the scheme's asymptotic
 * range) and for the comparison schemes (rk4, dopri5, rattle: their
 * adaptive steps are not calibrated to stay in it), a third run at the
 * coarse step's coarse step gives the order the runs show
 * (ssw_observed_order), and the estimate divides by that instead of the
 * scheme's. The
 * compositions' adaptive steps are calibrated (test_honest) and keep q.
 * q[k] receives the order to use, work[k] the other runs' steps. */
static void observed_orders(const leg_run *R, const ssw_traj *base, int m,
                            const double *w0, const double *v0,
                            const int *with_coarse, ssw_traj *fine,
                            const ssw_traj *coarse, double *q, ssw_traj *extra,
                            int64_t *work) {
  const int order = R->o->method->order;
  const int measure = !R->adaptive || R->o->method->stages == 0;
  ssw_traj base2[CHUNK], mid[CHUNK], far[CHUNK];
  for (int k = 0; k < m; k++) {
    q[k] = order;
    extra[k] = (ssw_traj){0};
    work[k] = coarse[k].steps;
    const double f = coarse_ratio(R, &base[k]);
    base2[k] = base[k];
    base2[k].eps *= f, base2[k].h *= f;
  }
  if (!measure) return;
  pass(R, base2, m, w0, v0, NULL, with_coarse, mid, far);
  for (int k = 0; k < m; k++) {
    work[k] += mid[k].steps + far[k].steps;
    if (!(fine[k].converged && coarse[k].converged && far[k].converged))
      continue;
    const double r1 = coarse_ratio(R, &base[k]),
                 r2 = coarse_ratio(R, &base2[k]);
    q[k] =
        ssw_observed_order(R->o->method, &fine[k], &coarse[k], &far[k], r1, r2);
    /* A quantity whose error changes sign between h and r1 h (orbit_radius,
     * where drift's and heading's errors cancel) shows a small fine-coarse
     * difference by accident: the coarser pair's difference, brought down
     * to the fine step (C h^q: divided by r1^q), bounds it as well. */
    ssw_traj wide = coarse[k];
    ssw_estimate(R->c, &coarse[k], &far[k], r2, q[k], &wide);
    widen(&wide, pow(r1, q[k]), &extra[k]);
  }
}

/* No confident nonsense: a result that measured a quantity its coarse run
 * did not (no estimate), or whose energy left its level, is not converged,
 * at a fixed step as at an adaptive one. */
static void judge(int estimated, ssw_traj *r) {
  if (r->energy_error > SSW_ENERGY_ERROR_MAX) r->flags |= SSW_TRAJ_ENERGY_DRIFT;
  if (estimated && r->converged && ssw_rel_estimate(r, 1.0) == INFINITY)
    r->flags |= SSW_TRAJ_NO_ESTIMATE;
  if (r->flags & (SSW_TRAJ_ENERGY_DRIFT | SSW_TRAJ_NO_ESTIMATE))
    r->converged = 0;
}

static void chunk(const leg_run *R, int n, const double *w0, const double *v0,
                  void *const *ctx, ssw_traj *out) {
  int idx[CHUNK], m = 0;
  ssw_traj base[CHUNK], fine[CHUNK], coarse[CHUNK];
  double cw0[CHUNK], cv0[CHUNK];
  void *cctx[CHUNK];
  for (int i = 0; i < n; i++)
    if (out[i].rate > 0 && !(out[i].flags & SSW_TRAJ_EQUILIBRIUM)) {
      base[m] = out[i], cw0[m] = w0[i], cv0[m] = v0[i];
      cctx[m] = ctx ? ctx[i] : NULL;
      idx[m++] = i;
    }
  if (m == 0) return;
  int with_coarse[CHUNK];
  for (int k = 0; k < m; k++)
    with_coarse[k] = R->o->estimate != 0;
  pass(R, base, m, cw0, cv0, cctx, with_coarse, fine, coarse);
  if (R->o->estimate) {
    double q[CHUNK];
    ssw_traj extra[CHUNK];
    int64_t work[CHUNK];
    observed_orders(R, base, m, cw0, cv0, with_coarse, fine, coarse, q, extra,
                    work);
    for (int k = 0; k < m; k++) {
      ssw_estimate(R->c, &fine[k], &coarse[k], coarse_ratio(R, &base[k]), q[k],
                   &fine[k]);
      at_least(&extra[k], &fine[k]);
      fine[k].steps += work[k]; /* after the estimate: its own steps' floor */
    }
    if (R->adaptive) refine(R, m, cw0, cv0, q, fine);
  }
  for (int k = 0; k < m; k++) {
    judge(R->o->estimate, &fine[k]);
    out[idx[k]] = fine[k];
  }
}

int ssw_extract_check_initial(int n, const double *w0, const double *v0) {
  for (int i = 0; i < n; i++)
    SSW_CHECK(isfinite(w0[i]) && isfinite(v0[i]) &&
                  (w0[i] != 0.0 || v0[i] != 0.0),
              SSW_ERR_ARG,
              "initial velocity (omega0, v0) = (%g, %g) must be finite and "
              "non-zero",
              w0[i], v0[i]);
  return SSW_SUCCESS;
}

int ssw_extract_batch(const ssw_tensor *t, int regime, int n, const double *w0,
                      const double *v0, const ssw_integrator *o,
                      ssw_sample_fn sample, void *const *ctx, ssw_traj *out) {
  SSW_CALL(ssw_integrator_check(o));
  SSW_CHECK(!(ssw_model_caps(t) & SSW_MCAP_COMES_TO_REST), SSW_ERR_ARG,
            "with drag there are no limit motions: ssw_damped_batch");
  SSW_CALL(ssw_extract_check_initial(n, w0, v0));
  /* Integrated in units where the tensor and the energy are near 1
   * (scale.h): results do not depend on the energy or the mass scale. */
  ssw_units body;
  ssw_tensor ts;
  ssw_units_body(t, &body, &ts);
  ssw_coeffs c;
  SSW_CALL(ssw_stepper_bind(&ts, o->method, &c));
  const double tol = ssw_integrator_stop_tol(o);
  const leg_run R = {&c, o, o->rtol > 0, ssw_method_cost(o->method),
                     sample ? ssw_units_sample_fn : NULL};
  for (int start = 0; start < n; start += CHUNK) {
    const int m = n - start < CHUNK ? n - start : CHUNK;
    ssw_units u[CHUNK];
    ssw_units_sample wrap[CHUNK];
    void *wctx[CHUNK];
    double ws[CHUNK], vs[CHUNK];
    for (int k = 0; k < m; k++) {
      const int i = start + k;
      u[k] = body;
      ssw_units_state(&u[k], &ts, w0[i], v0[i], &ws[k], &vs[k]);
      wrap[k] = (ssw_units_sample){sample, ctx ? ctx[i] : NULL, u[k]};
      wctx[k] = wrap[k].ctx ? &wrap[k] : NULL;
      double gmax;
      setup(&c, &ts, regime, ws[k], vs[k], o, tol, &out[i], &gmax);
    }
    chunk(&R, m, ws, vs, sample ? wctx : NULL, out + start);
    for (int k = 0; k < m; k++)
      ssw_units_result(&u[k], &out[start + k]);
  }
  return SSW_SUCCESS;
}

void ssw_extract_energy_point(const ssw_tensor *t, double H, double psi,
                              double *w, double *v) {
  ssw_units u;
  ssw_tensor s;
  ssw_units_body(t, &u, &s);
  /* H = 2^(mass + 2 len + 2 k) h with h near 1: the point of the scaled
   * ellipse scaled back (bit for bit the direct formula where that one
   * stays in range: every scaling is by an even power of two). */
  const int e = u.mass + 2 * u.len;
  const int k = (ilogb(H) - e) / 2;
  double ws, vs;
  ssw_model_energy_point(&s, ldexp(H, -e - 2 * k), psi, &ws, &vs);
  *w = ldexp(ws, k);
  *v = ldexp(vs, u.len + k);
}

int ssw_extract_run(const ssw_tensor *t, int regime, double w0, double v0,
                    const ssw_integrator *o, ssw_sample_fn sample, void *ctx,
                    ssw_traj *out) {
  void *const ctxs[1] = {ctx};
  return ssw_extract_batch(t, regime, 1, &w0, &v0, o, sample,
                           sample ? ctxs : NULL, out);
}
