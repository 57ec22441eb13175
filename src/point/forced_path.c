/* The sampled path of a forced trajectory (`point --trajectory` under a
 * periodic forcing): the extractor's fine steps from the initial state,
 * every node reported, with the contact point's average over each whole
 * forcing period. Theory: docs/theory/forcing.md, "The forced path". */
#include <math.h>

#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/stepper.h"

/* The energy of a node: H = zeta K zeta / 2, with the moving mass the
 * kinetic energy T of its frame (forcing.md, "The moving mass"), as the
 * extractor's period averages take it. */
static double node_energy(const ssw_reduced *e, double t, double w, double v) {
  if (!e->mass) return ssw_model_energy(e, w, v);
  ssw_mass_frame fr;
  ssw_model_mass_at(e, t, &fr);
  return ssw_model_energy(&fr.k, w, v) + w * fr.sig1 + v * fr.sig2 +
         0.5 * e->mp * fr.dy * fr.dy;
}

/* A node's row (t, phi, x, y, w, v, H) at the absolute time `at` (the
 * state's own time is that within its period). */
static void row_of(const ssw_coeffs *c, double at, const ssw_state *s,
                   double q[SSW_FORCED_PATH_NQ]) {
  double w, v;
  ssw_stepper_velocity(c, s, &w, &v);
  q[0] = at, q[1] = s->phi, q[2] = s->x, q[3] = s->y;
  q[4] = w, q[5] = v, q[6] = node_energy(&c->e, s->t, w, v);
}

/* The period's integral of x (or y) by the trapezoid rule with the
 * Euler-Maclaurin end correction -h^2/12 (x'(T) - x'(0)), x' = v cos phi
 * (y' = v sin phi) at the ends: O(h^4) although x is not periodic. */
static double corrected(double h, double sum, double d0, double d1) {
  return h * sum - h * h / 12.0 * (d1 - d0);
}

/* Period k from the section (the state's time reset to 0, as the
 * extractor's period map: the same steps give the same bits), each node
 * reported, the section closing it at exactly (k + 1) T, the time the
 * next period's kick row has; the averages of x and y into avg. */
static int period(const ssw_coeffs *c, int recon, int N, double T, double imp,
                  int k, ssw_state *s, ssw_forced_path_fn fn, void *ctx,
                  double avg[2]) {
  const double t0 = k * T, t1 = (k + 1) * T;
  const double h = T / N;
  double q[SSW_FORCED_PATH_NQ], sx, sy, dx0, dy0;
  s->t = 0.0;
  if (imp != 0.0) { /* the kick at t = 0+: a second row at the same time */
    s->W1 += imp;
    row_of(c, t0, s, q);
    fn(ctx, q, NULL);
  }
  row_of(c, t0, s, q);
  sx = 0.5 * q[2], sy = 0.5 * q[3];
  dx0 = q[5] * cos(q[1]), dy0 = q[5] * sin(q[1]);
  for (int j = 0; j < N; j++) {
    ssw_stepper_advance(c, h, recon, s);
    s->t = (j + 1) * h;
    row_of(c, j + 1 < N ? t0 + s->t : t1, s, q);
    if (!isfinite(q[1]) || !isfinite(q[4]) || !isfinite(q[5])) return -2;
    const double wt = j + 1 < N ? 1.0 : 0.5;
    sx += wt * q[2], sy += wt * q[3];
    if (j + 1 < N) fn(ctx, q, NULL);
  }
  avg[0] = corrected(h, sx, dx0, q[5] * cos(q[1])) / T;
  avg[1] = corrected(h, sy, dy0, q[5] * sin(q[1])) / T;
  fn(ctx, q, avg);
  return 0;
}

int ssw_forced_path(const ssw_tensor *t, double w0, double v0,
                    const ssw_integrator *o, int steps_per_period, int periods,
                    ssw_forced_path_fn fn, void *ctx) {
  SSW_CALL(ssw_integrator_check(o));
  SSW_CHECK(ssw_model_caps(t) & SSW_MCAP_TIME_PERIODIC, SSW_ERR_ARG,
            "a forced path needs a periodic forcing (torque_amp or mass_p, "
            "and forcing_freq > 0)");
  SSW_CHECK(steps_per_period >= 1 && periods >= 0 && fn, SSW_ERR_ARG,
            "a forced path of %d periods at %d steps per period", periods,
            steps_per_period);
  ssw_coeffs c;
  ssw_state s;
  SSW_CALL(ssw_stepper_bind(t, o->method, &c));
  const double T = 2.0 * M_PI / t->fomega;
  double q[SSW_FORCED_PATH_NQ], avg[2];
  ssw_stepper_init(&c, w0, v0, &s);
  row_of(&c, 0.0, &s, q);
  fn(ctx, q, NULL);
  for (int k = 0; k < periods; k++)
    if (period(&c, o->recon, steps_per_period, T, t->fimp, k, &s, fn, ctx,
               avg) != 0)
      break; /* not finite: the path ends (the run's flags say so) */
  return SSW_SUCCESS;
}

int ssw_forced_path_periods(const ssw_forced *r) {
  const int cap = SSW_FORCED_PATH_PERIODS;
  if (r->attractor == SSW_ATTRACTOR_ACCELERATING)
    return SSW_FORCED_GROWTH_PERIODS;
  if (r->attractor != SSW_ATTRACTOR_PERIODIC)
    return r->transient_periods < cap ? r->transient_periods : cap;
  /* whole cycles after the transient: at least 8, and one turn of the
   * mean heading (2 pi / |mean_omega|) where that is within the cap */
  const int n = r->cycle_periods > 0 ? r->cycle_periods : 1;
  const double turn = 2.0 * M_PI / (fabs(r->q.mean_omega) * n * r->period);
  /* the periods the transient's remainder takes to fall to 1e-13 at the
   * rate of the slowest multiplier: the last cycles are on the cycle */
  const double mu = r->q.floquet_abs[0], rem = r->transient_remainder;
  const double settle =
      rem > 1e-13 && mu > 0.0 && mu < 1.0 ? log(1e-13 / rem) / log(mu) : 0.0;
  double want = ceil(settle / n) + 1.0;
  if (isfinite(turn)) want = fmax(want, ceil(turn));
  int cycles = 8;
  if (want > cycles) cycles = (int)fmin(want, cap / n);
  return r->transient_periods + cycles * n;
}
