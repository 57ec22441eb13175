/* Error estimates of a trajectory's results from a fine and a coarse run
 * (Richardson with a round-off floor) and their size relative to rtol.
 * Theory: docs/theory/step-control.md. */
#include "estimate.h"

#include <math.h>

#include "sleighsweep/effect.h"
#include "sleighsweep/model.h"

/* ---- Error estimate ----------------------------------------------------
 * Every run is repeated at a coarser step (the fictive step eps, or the
 * fixed h, times `ratio`). For a method of order q the fine result's error
 * is then about |fine - coarse| / (ratio^q - 1); SSW_EST_SAFETY covers the
 * pre-asymptotic spread, and a round-off floor keeps the estimate honest
 * where the difference vanishes in round-off: the base steps' rounding
 * errors add up as a random walk (8 u sqrt(n) of the quantity's scale)
 * and partly systematically: near line-to-line, over 1e5 to 1e6 steps,
 * d's error grew as 0.02 to 0.2 u n of its scale (counted as u n / 4). */
static double diff_of(double fine, double coarse, double div) {
  if (!isfinite(fine) || !isfinite(coarse)) return NAN;
  return SSW_EST_SAFETY * fabs(fine - coarse) / div;
}

/* The steps' count as floor_of counts them: a composition's base step
 * rounds by about an ulp of the state; a comparison scheme (rk4, dopri5,
 * rattle) steps the plain state and converts it to the momenta, and
 * rounds at each of its stages (or Newton's iterations): 4 ulp per stage
 * counted (rattle at rtol 1e-10, 1.5e6 steps, drifted by 1.4 ulp per
 * step). */
static double rounding_steps(const ssw_method *m, int64_t steps) {
  const double n = (double)steps + 1.0;
  if (m->stages > 0) return n;
  return n * 4.0 * (m->n_nodes > 1 ? m->n_nodes : 1);
}

static double floor_of(double scale, double n) {
  return 0x1p-52 * scale * (8.0 * sqrt(n) + 0.25 * n);
}

/* Round-off in locating t0: ht = kw2 w - kw1 v is known to a few ulps of
 * |kw2| w_max + |kw1| v_max and crosses zero with slope |ht'| = g^2 = G^2;
 * dphi inherits it through the slopes of its two heading lines. */
static double t0_floor(const ssw_coeffs *c, const ssw_traj *r) {
  const ssw_reduced *e = &c->e;
  const double wmax = sqrt(2.0 * r->H0 * e->M / e->D);
  const double vmax = sqrt(2.0 * r->H0 * e->J / e->D);
  const double G2 = r->rate * r->rate * e->D;
  return 16.0 * 0x1p-52 *
         ((fabs(e->kw2) * wmax + fabs(e->kw1) * vmax) / G2 + fabs(r->h));
}

/* The period's quantities and the blade force, as estimate() does for
 * the limits: the difference of the runs and a round-off floor (no tail:
 * a periodic leg ends at a section, not at the line). */
static void estimate_periodic(const ssw_traj *fine, const ssw_traj *coarse,
                              double div, double n, ssw_traj *out) {
  const double len = fine->drift_per_period;
  out->err_period = diff_of(fine->period, coarse->period, div) +
                    floor_of(fabs(fine->period), n);
  out->err_heading_period =
      diff_of(fine->heading_per_period, coarse->heading_per_period, div) +
      floor_of(fabs(fine->heading_per_period) + 1.0, n);
  out->err_drift =
      diff_of(len, coarse->drift_per_period, div) + floor_of(len, n);
  out->err_orbit = diff_of(fine->orbit_radius, coarse->orbit_radius, div) +
                   floor_of(fabs(fine->orbit_radius), n);
  out->err_blade =
      diff_of(fine->blade_force_max, coarse->blade_force_max, div) +
      floor_of(fine->blade_force_max, n) + 8.0 * 0x1p-52 * fine->blade_terms;
}

/* With circulation the approach to the line slows as the energy nears its
 * critical value, and the legs run long: the heading accumulates round-off
 * over many turns and the heading lines are extrapolated back over the
 * long leg, which both errors at the coarse step share. Their floor: a few
 * ulps of the heading turned on each leg per sqrt of the steps. (Without
 * circulation the legs last ~16 / Arate and the round-off floor of est_of
 * covers this.) */
static double heading_floor(const ssw_coeffs *c, const ssw_traj *r, double n) {
  if (!(ssw_model_caps(&c->t) & SSW_MCAP_CIRC_CLOSED_FORM)) return 0.0;
  const double turned = fabs(r->w_future * (r->t_future - r->t0)) +
                        fabs(r->w_past * (r->t_past - r->t0));
  return 8.0 * 0x1p-52 * turned * sqrt(n);
}

void ssw_estimate(const ssw_coeffs *c, const ssw_traj *fine,
                  const ssw_traj *coarse, double ratio, double order,
                  ssw_traj *out) {
  const double div = pow(ratio, order) - 1.0;
  /* Round-off grows with every base step (the heading sums them all). */
  const double n = rounding_steps(c->method, fine->steps);
  if (fine->periodic) {
    estimate_periodic(fine, coarse, div, n, out);
    return;
  }
  const double ft0 = t0_floor(c, fine);
  const double len = fmax(fabs(fine->r_future), fabs(fine->d));
  const int line = fine->regime == SSW_REGIME_LINE_TO_LINE;
  ssw_err_parts df, fl;
  df.d = diff_of(fine->d, coarse->d, div);
  fl.d = floor_of(fabs(fine->d) + len, n);
  df.dphi = diff_of(fine->dphi, coarse->dphi, div);
  fl.dphi = floor_of(fabs(fine->dphi) + 1.0, n) +
            fabs(fine->w_future - fine->w_past) * ft0 +
            heading_floor(c, fine, n);
  df.r = fmax(diff_of(fine->r_future, coarse->r_future, div),
              diff_of(fine->r_past, coarse->r_past, div));
  fl.r = line ? NAN : floor_of(fabs(fine->r_future) + fabs(fine->r_past), n);
  /* The step that located t0 may be the coarse run's too (the peak in the
   * first step): its local error, measured, is added to the difference. */
  df.t0 = diff_of(fine->t0, coarse->t0, div) + SSW_EST_SAFETY * fine->t0_step;
  /* A time shift delta made at w (energy exact: the step's local error is
   * a shift along the orbit) moves t0 by delta and the heading after it
   * by w delta, so dphi, the two asymptotes' difference at t0, moves by
   * (w - w_behind) delta: not (w_future - w_past) delta, which is 10^4
   * times too large when the start lies near a limit. */
  df.dphi += SSW_EST_SAFETY * fine->t0_dphi;
  fl.t0 = floor_of(fabs(fine->t0) + 1.0 / fine->rate, n) + ft0;
  df.center = fl.center = 0.0;
  for (int e = 0; e < 2; e++) {
    const double *a = e ? fine->center_future : fine->center_past;
    const double *b = e ? coarse->center_future : coarse->center_past;
    df.center =
        fmax(df.center, diff_of(hypot(a[0] - b[0], a[1] - b[1]), 0.0, div));
    fl.center = fmax(fl.center, floor_of(hypot(a[0], a[1]) + len, n));
  }
  if (line) df.center = fl.center = NAN;
  df.blade = diff_of(fine->blade_force_max, coarse->blade_force_max, div);
  /* The blade force at its peak is insensitive to the state's error along
   * the orbit (F' = 0 there); its round-off is that of evaluating its
   * terms, which may cancel, plus the energy's random walk. */
  fl.blade =
      floor_of(fine->blade_force_max, n) + 8.0 * 0x1p-52 * fine->blade_terms;
  /* The step's share, the round-off floor and the stopping tolerance's
   * share (which both runs share). */
  const ssw_err_parts *t = &fine->tail;
  out->err_d = df.d + fl.d + t->d;
  out->err_dphi = df.dphi + fl.dphi + t->dphi;
  out->err_r = line ? NAN : df.r + fl.r + t->r;
  out->err_t0 = df.t0 + fl.t0;
  out->err_center = df.center + fl.center + t->center;
  out->err_blade = df.blade + fl.blade + t->blade;
  out->roundoff = fl;
}

/* How much more the coarser pair differs than the finer one for order q:
 * steps h, r1 h, r1 r2 h give r1^q (r2^q - 1) / (r1^q - 1). */
static double spread_of(double q, double r1, double r2) {
  return pow(r1, q) * (pow(r2, q) - 1.0) / (pow(r1, q) - 1.0);
}

double ssw_observed_order_of(int n, const double *fine, const double *mid,
                             const double *far, const double *floor, double r1,
                             double r2, int order) {
  double q = order;
  for (int i = 0; i < n; i++) {
    if (!isfinite(fine[i]) || !isfinite(mid[i]) || !isfinite(far[i])) continue;
    const double near = fabs(mid[i] - fine[i]), off = fabs(far[i] - mid[i]);
    /* Both differences in round-off: nothing to learn from them. */
    if (fmax(near, off) <= 4.0 * floor[i]) continue;
    const double x = off / fmax(near, floor[i]);
    /* Not converging as the step shrinks (order below 1): the estimate
     * takes order 1, the difference of the finer pair itself (about). */
    if (x <= spread_of(1.0, r1, r2)) return 1.0;
    if (x >= spread_of(q, r1, r2)) continue;
    double lo = 1.0, hi = q; /* spread_of increases with q */
    for (int it = 0; it < 40; it++) {
      const double mq = 0.5 * (lo + hi);
      *(spread_of(mq, r1, r2) < x ? &lo : &hi) = mq;
    }
    q = lo;
  }
  return fmax(q, 1.0);
}

/* The quantities a trajectory measured, in one order (the period's, or
 * the limits' and the transition's); returns their count. */
static int measured_of(const ssw_traj *r, double q[6]) {
  if (r->periodic) {
    q[0] = r->period, q[1] = r->heading_per_period;
    q[2] = r->drift_per_period, q[3] = r->orbit_radius;
    return 4;
  }
  q[0] = r->d, q[1] = r->dphi, q[2] = r->r_future, q[3] = r->r_past;
  q[4] = r->t0, q[5] = r->blade_force_max;
  return 6;
}

double ssw_observed_order(const ssw_method *method, const ssw_traj *f,
                          const ssw_traj *m, const ssw_traj *c, double r1,
                          double r2) {
  const double n = rounding_steps(method, f->steps);
  double a[6], b[6], e[6], fl[6];
  const int k = measured_of(f, a);
  measured_of(m, b), measured_of(c, e);
  if (f->periodic) {
    fl[0] = floor_of(fabs(a[0]), n), fl[1] = floor_of(fabs(a[1]) + 1, n);
    fl[2] = floor_of(fabs(a[2]), n), fl[3] = floor_of(fabs(a[3]), n);
  } else {
    const double len = fmax(fabs(f->r_future), fabs(f->d));
    fl[0] = floor_of(fabs(a[0]) + len, n);
    fl[1] = floor_of(fabs(a[1]) + 1.0, n);
    fl[2] = floor_of(fabs(a[2]), n), fl[3] = floor_of(fabs(a[3]), n);
    fl[4] = floor_of(fabs(a[4]) + 1.0 / f->rate, n);
    fl[5] = floor_of(a[5], n) + 8.0 * 0x1p-52 * f->blade_terms;
  }
  return ssw_observed_order_of(k, a, b, e, fl, r1, r2, method->order);
}

/* Estimates in the order d, dphi, r, t0, centre, blade force. */
enum { E_D, E_DPHI, E_R, E_T0, E_C, E_BLADE, E_N };

static void parts_of(const ssw_err_parts *p, double e[E_N]) {
  e[E_D] = p->d, e[E_DPHI] = p->dphi, e[E_R] = p->r;
  e[E_T0] = p->t0, e[E_C] = p->center, e[E_BLADE] = p->blade;
}

static void errors_of(const ssw_traj *r, double e[E_N]) {
  const ssw_err_parts p = {r->err_d,  r->err_dphi,   r->err_r,
                           r->err_t0, r->err_center, r->err_blade};
  parts_of(&p, e);
}

/* The largest of the estimates e relative to what rtol promises (1:
 * exactly at rtol); see ssw_traj's err_* fields for the scales. */
static double rel_of(const ssw_traj *r, const double e[E_N], double rtol) {
  const double len = fmax(fabs(r->r_future), fabs(r->d));
  const double scale[E_N] = {
      fabs(r->d), fmax(fabs(r->dphi), SSW_DPHI_FLOOR),
      len,        fabs(r->t0) + 1.0 / r->rate,
      len,        fmax(r->blade_force_max, SSW_BLADE_FLOOR * r->blade_terms)};
  double q = 0.0;
  /* A quantity that exists without an estimate (the coarse run missed the
   * peak of |g|, or the blade force's) has not met rtol. */
  for (int i = 0; i < E_N; i++)
    if (isfinite(scale[i]) && scale[i] > 0)
      q = fmax(q, isnan(e[i]) ? INFINITY : e[i] / scale[i]);
  return q / rtol;
}

/* A periodic motion's estimates relative to what rtol promises: the
 * period relative to itself, the heading per period as dphi is, the
 * lengths relative to the larger of drift and orbit radius, and the blade
 * force as for the limits. */
static double rel_estimate_periodic(const ssw_traj *r, double rtol) {
  const double len = fmax(r->drift_per_period, r->orbit_radius);
  const double e[] = {r->err_period, r->err_heading_period, r->err_drift,
                      r->err_orbit, r->err_blade};
  const double scale[] = {
      fabs(r->period), fmax(fabs(r->heading_per_period), SSW_DPHI_FLOOR), len,
      r->orbit_radius,
      fmax(r->blade_force_max, SSW_BLADE_FLOOR * r->blade_terms)};
  double q = 0.0;
  for (int i = 0; i < 5; i++)
    if (isfinite(scale[i]) && scale[i] > 0)
      q = fmax(q, isnan(e[i]) ? INFINITY : e[i] / scale[i]);
  return q / rtol;
}

double ssw_rel_estimate(const ssw_traj *r, double rtol) {
  if (r->periodic) return rel_estimate_periodic(r, rtol);
  double e[E_N];
  errors_of(r, e);
  return rel_of(r, e, rtol);
}

/* How a trajectory whose estimate exceeds rtol runs again: the step
 * divided by `ratio` (its estimate's step part: the error scales as
 * eps^q, aim at half of rtol) and the stopping tolerance divided by
 * `tighten` (the tail's part, which scales as tol^2: aim at an eighth). */
void ssw_estimate_plan(const ssw_method *m, const ssw_traj *r, double rtol,
                       double *ratio, double *tighten) {
  double e[E_N], t[E_N], f[E_N];
  errors_of(r, e);
  parts_of(&r->tail, t);
  parts_of(&r->roundoff, f);
  /* Without exact equilibria a leg stops where g stalls, O(h^q) off the
   * line: there the tail's share shrinks with the step, not with tol. */
  const int exact = (m->caps & SSW_CAP_EXACT_EQUILIBRIA) != 0;
  const int q = m->order;
  for (int i = 0; i < E_N; i++) {
    e[i] -= (exact ? t[i] : 0.0) + f[i];
    if (!exact) t[i] = 0.0;
  }
  const double et = rel_of(r, t, rtol);
  /* The runs' difference holds the difference of their tails' remainders
   * too (each within the tail's share); Richardson's divisor (at least
   * 2^q - 1) shrinks it, but a tail far above rtol still shows through:
   * that much of the step's share is the tail's, which a tighter tol
   * removes (the rerun's fresh coarse run then measures the step). */
  const double es =
      fmax(rel_of(r, e, rtol) - 2.0 * et / (ldexp(1.0, q) - 1.0), 0.0);
  /* What round-off leaves of rtol for the other two (neither a finer step
   * nor a tighter tolerance reduces it; more steps add to it). The tail is
   * cheap to shorten whatever round-off leaves. */
  const double fr = rel_of(r, f, rtol);
  const double room = fmax(1.0 - fr, 0.0);
  *ratio = *tighten = 1.0;
  if (room >= 0.1 && es > 0.5 * room)
    *ratio = fmin(4.0, fmax(1.25, pow(2.0 * es / room, 1.0 / q)));
  /* Round-off takes most of rtol (1e5 and more steps, near line-to-line):
   * rtol is out of reach, but a step's share far above the round-off's is
   * still worth bringing down to it (more steps add little round-off). */
  else if (room < 0.1 && es > 2.0 * fr)
    *ratio = fmin(4.0, fmax(1.25, pow(es / fr, 1.0 / q)));
  const double tail_room = fmax(room, 0.5);
  if (et > 0.25 * tail_room)
    *tighten = fmin(1e3, fmax(2.0, sqrt(8.0 * et / tail_room)));
}
