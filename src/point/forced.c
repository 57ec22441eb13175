/* The forced extractor: the period map, its cycles by Newton with the
 * monodromy, time averages over whole periods, the energy's growth law,
 * the error estimate from a fine and a coarse run, and the closed forms
 * beside them. Theory: docs/theory/forcing.md, "The forced extractor". */
#include "sleighsweep/forced.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "forced_internal.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"

static const char *const attractor_names[] = {SSW_ATTRACTORS(SSW_NAME_STRING)};

const char *ssw_attractor_name(int attractor) {
  return attractor >= 0 && attractor < SSW_ATTRACTOR_COUNT
             ? attractor_names[attractor]
             : "unknown";
}

void ssw_pmap_sums_init(sums *a) {
  *a = (sums){0};
  a->wmin = a->vmin = INFINITY;
  a->wmax = a->vmax = a->Hmax = -INFINITY;
}

/* Node values f = (v, P, H, div) of the integrands and their rates (the
 * Euler-Maclaurin end correction makes each period's trapezoid sum
 * O(h^4) where the integrand is not periodic: kicks, the growth). P is
 * the power put in, tau w plus, with the moving mass, its actuator's
 * power P_m; H the kinetic energy; div the divergence of the flow of
 * zeta (forcing.md, "The moving mass"), with its end correction too (the
 * Lyapunov window's periods are not a cycle's, and kicks jump it), but
 * with the moving mass summed by the plain trapezoid (periodic on a
 * cycle: no end correction), as is P_m. */
static void node(const pmap *m, const ssw_state *s, double f[4], double df[4],
                 double *w, double *v) {
  const ssw_reduced *e = &m->c.e;
  ssw_stepper_velocity(&m->c, s, w, v);
  const double y[SSW_ODE_DIM] = {*w, *v, 0.0, 0.0, 0.0};
  double r[SSW_ODE_DIM], tau = 0.0, dtau = 0.0;
  ssw_model_rhs(e, s->t, y, r);
  if (e->force) {
    const double arg = e->force_par[1] * s->t + e->force_par[2];
    tau = e->force_par[0] * sin(arg);
    dtau = e->force_par[0] * e->force_par[1] * cos(arg);
  }
  f[0] = *v, df[0] = r[1];
  f[1] = tau * *w, df[1] = dtau * *w + tau * r[0];
  f[2] = ssw_model_energy(e, *w, *v);
  df[2] = tau * *w - (e->drag ? SSW_MODEL_DISSIPATION(e, *w, *v) : 0.0);
  const ssw_reduced *k = e;
  ssw_mass_frame fr;
  if (e->mass) {
    ssw_model_mass_at(e, s->t, &fr);
    k = &fr.k;
    /* P_m = mp y' a2, a2 = u2' + w u1 the mass's acceleration across
     * the blade, u = (v - w y, w x + y') its velocity (x' = 0);
     * T = zeta K(t) zeta / 2 + zeta.sigma + mp y'^2 / 2. */
    const double pm =
        e->mp * fr.dy * (r[0] * fr.x + fr.ddy + *w * (*v - *w * fr.y));
    f[1] += pm, df[1] = dtau * *w + tau * r[0];
    f[2] = ssw_model_energy(k, *w, *v) + *w * fr.sig1 + *v * fr.sig2 +
           0.5 * e->mp * fr.dy * fr.dy;
    df[2] += pm;
  }
  f[3] = SSW_MODEL_HT(k, *w, *v) / k->D -
         (k->M * k->cw + 2.0 * k->L2 * k->cwv + k->J * k->cv) / k->D;
  /* ht is linear in (w, v): its rate is ht of the rates; with the mass
   * the frame's D(t) varies too, and the end correction is left out (its
   * integrand is periodic on a cycle, where the plain sum is exact to
   * the integration's order) */
  df[3] = e->mass ? 0.0 : SSW_MODEL_HT(k, r[0], r[1]) / k->D;
}

static void extremes(sums *a, double w, double v, double H) {
  a->wmin = fmin(a->wmin, w), a->wmax = fmax(a->wmax, w);
  a->vmin = fmin(a->vmin, v), a->vmax = fmax(a->vmax, v);
  a->Hmax = fmax(a->Hmax, H);
}

/* ssw_pmap_period (forced_internal.h). */
int ssw_pmap_period(pmap *m, ssw_state *s, sums *a) {
  const double h = m->T / m->N;
  double w, v, f[4], df0[4], df[4], acc[4], pabs;
  s->t = 0.0;
  if (m->imp != 0.0) { /* the impulse's work is I (w- + w+) / 2 exactly */
    ssw_stepper_velocity(&m->c, s, &w, &v);
    const double wb = w;
    s->W1 += m->imp;
    ssw_stepper_velocity(&m->c, s, &w, &v);
    if (a) a->work += m->imp * 0.5 * (wb + w);
  }
  const double phi0 = s->phi, len0 = s->len, diss0 = s->diss;
  node(m, s, f, df0, &w, &v);
  for (int k = 0; k < 4; k++)
    acc[k] = 0.5 * f[k];
  pabs = 0.5 * fabs(f[1]);
  if (a) extremes(a, w, v, f[2]);
  for (int j = 0; j < m->N; j++) {
    ssw_stepper_advance(&m->c, h, m->recon, s);
    s->t = (j + 1) * h;
    m->steps += m->cost;
    node(m, s, f, df, &w, &v);
    for (int k = 0; k < 4; k++)
      acc[k] += j + 1 < m->N ? f[k] : 0.5 * f[k];
    pabs += (j + 1 < m->N ? 1.0 : 0.5) * fabs(f[1]);
    if (a) extremes(a, w, v, f[2]);
  }
  if (!isfinite(s->W1) || !isfinite(s->W2) || !isfinite(s->phi)) return -2;
  if (!a) return 0;
  double in[4];
  for (int k = 0; k < 4; k++)
    in[k] = h * acc[k] - h * h / 12.0 * (df[k] - df0[k]);
  a->time += m->T;
  a->dphi += s->phi - phi0;
  a->vint += m->c.e.drag ? s->len - len0 : in[0];
  if (m->imp == 0.0) a->work += in[1];
  a->diss += s->diss - diss0;
  a->Hint += in[2];
  a->divint += in[3];
  a->pabs += h * pabs;
  return 0;
}

/* ssw_pmap_map_n (forced_internal.h). */
int ssw_pmap_map_n(pmap *m, int n, const double x[2], double y[2], sums *a) {
  ssw_state s;
  ssw_stepper_init(&m->c, x[0], x[1], &s);
  for (int k = 0; k < n; k++) {
    const int rc = ssw_pmap_period(m, &s, a);
    if (rc) return rc;
  }
  ssw_stepper_velocity(&m->c, &s, &y[0], &y[1]);
  return 0;
}

/* |a - b| relative to the larger of |a|, |b| in the energy norm
 * |z|^2 = z^T K z. */
double ssw_pmap_knorm(const ssw_reduced *e, double w, double v) {
  return sqrt(2.0 * fabs(ssw_model_energy(e, w, v)));
}
static double rel_dist(const ssw_reduced *e, const double a[2],
                       const double b[2]) {
  const double s =
      fmax(ssw_pmap_knorm(e, a[0], a[1]), ssw_pmap_knorm(e, b[0], b[1]));
  const double d = ssw_pmap_knorm(e, a[0] - b[0], a[1] - b[1]);
  return s > 0.0 ? d / s : d;
}

/* The Jacobian of the n-period map at x by central differences of
 * relative step `rel` in the energy norm's units. With `romberg`, the
 * steps rel, rel / 2 and rel / 4 are combined twice (Richardson, errors
 * O(rel^4) then O(rel^6)) and *fd receives a bound of the result's error:
 * its last correction plus the round-off the quotients amplify (16 u of
 * the map's scale over the smallest relative step). */
int ssw_pmap_jacobian(pmap *m, int n, const double x[2], double rel,
                      int romberg, double J[2][2], double *fd) {
  const double sc = fmax(ssw_pmap_knorm(&m->c.e, x[0], x[1]), m->floor);
  const double unit[2] = {sc / sqrt(m->c.e.J), sc / sqrt(m->c.e.M)};
  const int levels = romberg ? 3 : 1;
  *fd = romberg ? 16.0 * 0x1p-52 / (rel / 4.0) : 0.0;
  double extra = 0.0;
  for (int i = 0; i < 2; i++) {
    double D[3][2];
    for (int r = 0; r < levels; r++) {
      const double d = rel * unit[i] / (1 << r);
      double xp[2] = {x[0], x[1]}, xm[2] = {x[0], x[1]}, yp[2], ym[2];
      xp[i] += d, xm[i] -= d;
      int rc = ssw_pmap_map_n(m, n, xp, yp, NULL);
      if (!rc) rc = ssw_pmap_map_n(m, n, xm, ym, NULL);
      if (rc) return rc;
      for (int k = 0; k < 2; k++)
        D[r][k] = (yp[k] - ym[k]) / (xp[i] - xm[i]);
    }
    for (int k = 0; k < 2; k++) {
      if (!romberg) {
        J[k][i] = D[0][k];
        continue;
      }
      const double R1 = (4.0 * D[1][k] - D[0][k]) / 3.0;
      const double R2 = (4.0 * D[2][k] - D[1][k]) / 3.0;
      J[k][i] = (16.0 * R2 - R1) / 15.0;
      extra = fmax(extra, fabs(J[k][i] - R2) * unit[i] / unit[k]);
    }
  }
  *fd += extra;
  return 0;
}

/* The eigenvalues of a real 2x2 matrix: moduli descending, arguments. */
static void multipliers(const double J[2][2], double mod[2], double arg[2]) {
  const double tr = J[0][0] + J[1][1];
  const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  const double disc = 0.25 * tr * tr - det;
  if (disc >= 0.0) {
    const double q = 0.5 * tr + copysign(sqrt(disc), tr);
    const double l1 = q, l2 = q != 0.0 ? det / q : 0.0;
    const double a = fabs(l1) >= fabs(l2) ? l1 : l2, b = a == l1 ? l2 : l1;
    mod[0] = fabs(a), mod[1] = fabs(b);
    arg[0] = a < 0 ? M_PI : 0.0, arg[1] = b < 0 ? M_PI : 0.0;
    return;
  }
  mod[0] = mod[1] = sqrt(det);
  arg[0] = atan2(sqrt(-disc), 0.5 * tr), arg[1] = -arg[0];
}

/* Newton on P^n(x) = x from x (in place): the residual's relative size
 * into *res; 0 when it fell below SSW_FORCED_NEWTON_TOL (or stalled in
 * round-off below 1e3 times it), 1 when it did not converge. */
static int newton(pmap *m, int n, double x[2], double *res) {
  double prev = INFINITY;
  for (int it = 0; it < 16; it++) {
    double y[2], J[2][2], fd;
    int rc = ssw_pmap_map_n(m, n, x, y, NULL);
    if (rc) return rc;
    *res = rel_dist(&m->c.e, x, y);
    if (*res <= SSW_FORCED_NEWTON_TOL) return 0;
    if (*res > 0.5 * prev) return *res <= 1e3 * SSW_FORCED_NEWTON_TOL ? 0 : 1;
    prev = *res;
    if ((rc = ssw_pmap_jacobian(m, n, x, 1e-6, 0, J, &fd))) return rc;
    const double a = J[0][0] - 1.0, b = J[0][1], c = J[1][0], d = J[1][1] - 1;
    const double det = a * d - b * c, r0 = x[0] - y[0], r1 = x[1] - y[1];
    if (!(fabs(det) > 0.0) || !isfinite(det)) return 1;
    x[0] += (d * r0 - b * r1) / det;
    x[1] += (a * r1 - c * r0) / det;
  }
  return 1;
}

/* ---- Steps -------------------------------------------------------------- */

/* The fastest rate on the energy level H: the forcing's Omega, the
 * largest angular velocity sqrt(2 H M / D), the approach rate Arate. */
static double fastest(const ssw_tensor *t, double H) {
  const double D = ssw_model_D(t);
  const double wmax = sqrt(2.0 * H * t->M / D);
  const double arate = sqrt(2.0 * H * ssw_model_E(t)) / D;
  return fmax(t->fomega, fmax(wmax, arate));
}

/* Macro steps per period: the smallest power of two >= 8 with
 * h * rate <= eps, eps the fixed eta or the scheme's fictive step for
 * rtol (as the adaptive extraction: eps_scale rtol^(1/q)). */
static int steps_for(const ssw_tensor *t, const ssw_integrator *o, double H) {
  const ssw_method *me = o->method;
  const double eps =
      o->eta > 0
          ? o->eta
          : fmin(SSW_EPS_MAX, me->eps_scale * pow(o->rtol, 1.0 / me->order));
  const double want = 2.0 * M_PI / t->fomega * fastest(t, H) / eps;
  int N = 8;
  while (N < want && N < (1 << 24))
    N *= 2;
  return N;
}

/* ---- The attractor --------------------------------------------------------
 */

/* A cycle of n periods through x (Newton polished, stable, of minimal
 * period): 1 with *n lowered to the minimal period, else 0. */
static int accept_cycle(pmap *m, int *n, double x[2], double *res) {
  double J[2][2], fd, mod[2], arg[2], y[2];
  if (newton(m, *n, x, res) != 0) return 0;
  if (ssw_pmap_jacobian(m, *n, x, 1e-6, 0, J, &fd)) return 0;
  multipliers(J, mod, arg);
  if (!(mod[0] < 1.0)) return 0; /* an unstable cycle: not the attractor */
  for (int k = 1; k < *n; k++)
    if (*n % k == 0 && ssw_pmap_map_n(m, k, x, y, NULL) == 0 &&
        rel_dist(&m->c.e, x, y) <= 1e-8) {
      *n = k;
      return newton(m, k, x, res) == 0;
    }
  return 1;
}

/* Least-squares slope of F against t over periods [a, b). */
static double fit(const double *F, int a, int b, double T) {
  double st = 0, sf = 0, stt = 0, stf = 0;
  const int n = b - a;
  for (int k = a; k < b; k++) {
    const double t = (k + 0.5) * T;
    st += t, sf += F[k], stt += t * t, stf += t * F[k];
  }
  return (n * stf - st * sf) / (n * stt - st * st);
}

/* The growth law's slope from the periods' mean energies Hbar[0..K):
 * F = Arate^3 / 3 + Omega^2 Arate, Arate = sqrt(2 <H> E) / D, fitted over
 * the second half; *spread is the difference of its two quarters' fits.
 * 1 when the energy grows steadily (both quarters' slopes positive and
 * within 20% of the whole's). */
static int growth(const ssw_tensor *t, const double *Hbar, int K, double T,
                  double *slope, double *spread) {
  double F[SSW_FORCED_GROWTH_PERIODS];
  const double E = ssw_model_E(t), D = ssw_model_D(t);
  const double Om2 = t->fomega * t->fomega;
  for (int k = 0; k < K; k++) {
    const double A = sqrt(2.0 * Hbar[k] * E) / D;
    F[k] = A * A * A / 3.0 + Om2 * A;
  }
  *slope = fit(F, K / 2, K, T);
  const double s1 = fit(F, K / 2, 3 * K / 4, T), s2 = fit(F, 3 * K / 4, K, T);
  *spread = fabs(s1 - s2);
  return E > 0.0 && *slope > 0.0 && s1 > 0.0 && s2 > 0.0 &&
         *spread <= 0.2 * *slope;
}

/* Whether one period maps the rest (0, 0) to itself within
 * SSW_FORCED_REST_TOL of the scale S: the forcing does not reach the
 * sleigh. */
static int at_rest(pmap *m, double S) {
  const double z[2] = {0.0, 0.0};
  double y[2];
  return ssw_pmap_map_n(m, 1, z, y, NULL) == 0 &&
         ssw_pmap_knorm(&m->c.e, y[0], y[1]) <= SSW_FORCED_REST_TOL * S;
}

/* Where the transient ended: the attractor found, its cycle's point (or
 * the last state), the Newton residual, the remainder of the transient,
 * the mean energies of the first periods (for the growth law). */
typedef struct {
  int attractor, n, periods, flags;
  double x[2], res, remainder, slope, spread, Hmax;
  double Hbar[SSW_FORCED_GROWTH_PERIODS];
} found;

/* Looks, after each period, for a cycle of n <= SSW_FORCED_NMAX periods
 * (the stroboscopic points n apart within SSW_FORCED_DETECT: Newton then
 * decides); without drag, after SSW_FORCED_GROWTH_PERIODS periods, for
 * steady energy growth. At most max_steps base steps. */
static void transient(pmap *m, const ssw_tensor *t, const double x0[2],
                      int64_t max_steps, found *f) {
  enum { RING = SSW_FORCED_NMAX + 1 };
  double pts[RING][2];
  int tried[RING];
  const int nodrag = !m->c.e.drag;
  const double S = ssw_pmap_knorm(&m->c.e, x0[0], x0[1]);
  int rest_tried = 0;
  const int64_t start = m->steps;
  ssw_state s;
  ssw_stepper_init(&m->c, x0[0], x0[1], &s);
  for (int n = 0; n < RING; n++)
    tried[n] = -(1 << 20);
  pts[0][0] = x0[0], pts[0][1] = x0[1];
  f->x[0] = x0[0], f->x[1] = x0[1];
  for (int k = 1; k <= SSW_FORCED_PERIODS_MAX; k++) {
    if (m->steps - start >= max_steps) {
      f->flags |= SSW_TRAJ_FWD_CAP;
      return;
    }
    sums a;
    ssw_pmap_sums_init(&a);
    if (ssw_pmap_period(m, &s, &a) != 0) {
      f->flags |= SSW_TRAJ_NONFINITE;
      return;
    }
    double x[2];
    ssw_stepper_velocity(&m->c, &s, &x[0], &x[1]);
    memcpy(pts[k % RING], x, sizeof x);
    memcpy(f->x, x, sizeof x);
    f->periods = k;
    f->Hmax = fmax(f->Hmax, a.Hmax);
    if (k <= SSW_FORCED_GROWTH_PERIODS) f->Hbar[k - 1] = a.Hint / a.time;
    for (int n = 1; n <= SSW_FORCED_NMAX; n++) {
      if (k < n || k - tried[n] < 8 * n ||
          rel_dist(&m->c.e, x, pts[(k - n) % RING]) > SSW_FORCED_DETECT)
        continue;
      double xs[2] = {x[0], x[1]};
      int nn = n;
      tried[n] = k;
      if (accept_cycle(m, &nn, xs, &f->res)) {
        f->attractor = SSW_ATTRACTOR_PERIODIC, f->n = nn;
        f->remainder = rel_dist(&m->c.e, x, xs);
        memcpy(f->x, xs, sizeof xs);
        return;
      }
    }
    if (!nodrag && !rest_tried &&
        ssw_pmap_knorm(&m->c.e, x[0], x[1]) <= SSW_FORCED_REST_DETECT * S) {
      rest_tried = 1;
      if (at_rest(m, S)) {
        f->attractor = SSW_ATTRACTOR_REST, f->n = 1;
        f->x[0] = f->x[1] = 0.0, f->remainder = rel_dist(&m->c.e, x, f->x);
        return;
      }
    }
    if (nodrag && k == SSW_FORCED_GROWTH_PERIODS &&
        growth(t, f->Hbar, k, m->T, &f->slope, &f->spread)) {
      f->attractor = SSW_ATTRACTOR_ACCELERATING;
      return;
    }
  }
}

/* ---- Measurements and their estimates ------------------------------------ */

/* A cycle's measurements at one step, and what its estimate needs. */
typedef struct {
  ssw_forced_q q;
  double diss, Hmean, Hmax, fd, res, div, pabs;
  int64_t steps;
} meas;

static void q_nan(ssw_forced_q *q) {
  double *d = (double *)q;
  for (size_t i = 0; i < sizeof *q / sizeof(double); i++)
    d[i] = NAN;
}

/* Polishes the cycle point x at this map and measures the cycle. */
static int measure(pmap *m, int n, double x[2], meas *r) {
  sums a;
  double y[2], J[2][2];
  q_nan(&r->q);
  const int64_t s0 = m->steps;
  if (newton(m, n, x, &r->res) != 0) r->res = fmax(r->res, 1.0);
  ssw_pmap_sums_init(&a);
  int rc = ssw_pmap_map_n(m, n, x, y, &a);
  if (!rc) rc = ssw_pmap_jacobian(m, n, x, 4e-3, 1, J, &r->fd);
  r->steps = m->steps - s0;
  if (rc) return rc;
  ssw_forced_q *q = &r->q;
  q->mean_omega = a.dphi / a.time;
  q->mean_v = a.vint / a.time;
  q->mean_power = a.work / a.time;
  q->mean_path_radius = q->mean_v / q->mean_omega;
  q->amp_omega = 0.5 * (a.wmax - a.wmin);
  q->amp_v = 0.5 * (a.vmax - a.vmin);
  multipliers(J, q->floquet_abs, q->floquet_arg);
  r->diss = a.diss / a.time;
  r->Hmean = a.Hint / a.time;
  r->Hmax = a.Hmax;
  r->div = a.divint / a.time;
  r->pabs = a.pabs / a.time;
  return 0;
}

static double diff_est(double fine, double coarse, double div) {
  if (!isfinite(fine) || !isfinite(coarse)) return NAN;
  return SSW_EST_SAFETY * fabs(fine - coarse) / div;
}

/* The fine run's estimated errors: the runs' difference (Richardson),
 * the Newton residual carried through the cycle (res / (1 - |mu_1|) of
 * each quantity's scale), the round-off floor of the base steps, and for
 * the multipliers the difference quotients' own error. Returns the
 * largest error relative to its scale (<= rtol: met). */
static double estimate(const pmap *m, const meas *f, const meas *c, int order,
                       ssw_forced_q *err) {
  const double div = pow(2.0, order) - 1.0, n = (double)f->steps + 1.0;
  const double ro = 0x1p-52 * (8.0 * sqrt(n) + 0.25 * n);
  const double tail = f->res / fmax(1.0 - f->q.floquet_abs[0], 1e-3);
  const double wsc = fmax(fabs(f->q.mean_omega), sqrt(2 * f->Hmean / m->c.e.J));
  const double vsc = fmax(fabs(f->q.mean_v), sqrt(2 * f->Hmean / m->c.e.M));
  /* With the moving mass the power is mostly exchanged back and forth
   * (its mean is the dissipation, which may be 0): <|P|> is its scale. */
  const double psc =
      fmax(fmax(fabs(f->q.mean_power), f->diss), m->c.e.mass ? f->pabs : 0.0);
  const double extra = ro + tail;
  err->mean_omega =
      diff_est(f->q.mean_omega, c->q.mean_omega, div) + extra * wsc;
  err->mean_v = diff_est(f->q.mean_v, c->q.mean_v, div) + extra * vsc;
  err->mean_power =
      diff_est(f->q.mean_power, c->q.mean_power, div) + extra * psc;
  err->amp_omega = diff_est(f->q.amp_omega, c->q.amp_omega, div) + extra * wsc;
  err->amp_v = diff_est(f->q.amp_v, c->q.amp_v, div) + extra * vsc;
  err->mean_path_radius =
      fabs(f->q.mean_path_radius) * (err->mean_v / fabs(f->q.mean_v) +
                                     err->mean_omega / fabs(f->q.mean_omega));
  double rel = fmax(err->mean_omega / wsc, err->mean_v / vsc);
  rel = fmax(rel, err->mean_power / psc);
  for (int i = 0; i < 2; i++) {
    err->floquet_abs[i] =
        diff_est(f->q.floquet_abs[i], c->q.floquet_abs[i], div) + f->fd + extra;
    err->floquet_arg[i] =
        diff_est(f->q.floquet_arg[i], c->q.floquet_arg[i], div) +
        (f->fd + extra) / fmax(f->q.floquet_abs[i], 1e-3);
    rel = fmax(rel, err->floquet_abs[i]);
  }
  err->energy_growth_slope = NAN;
  return isfinite(rel) ? rel : INFINITY;
}

/* The cycle's n points on the section, from its polished point x: the
 * census's invariant (ensemble.c; a non-finite one stays NaN). */
static void cycle_points(pmap *m, int n, const double x[2],
                         double pts[SSW_FORCED_NMAX][2]) {
  double y[2] = {x[0], x[1]};
  for (int k = 0; k < n; k++) {
    pts[k][0] = y[0], pts[k][1] = y[1];
    if (k + 1 < n && ssw_pmap_map_n(m, 1, pts[k], y, NULL) != 0) return;
  }
}

/* A periodic attractor: measured at the step that resolves the cycle's
 * largest energy, then at half the steps per period (the coarse run, from
 * the same point), refined by doubling the steps while the estimate
 * exceeds rtol (the previous fine run becomes the coarse one). */
static void cycle(pmap *m, const ssw_tensor *t, const ssw_integrator *o,
                  const found *f, ssw_forced *out) {
  const int n = f->n;
  double x[2] = {f->x[0], f->x[1]};
  meas fine, coarse;
  int rc = measure(m, n, x, &fine);
  const int N2 = steps_for(t, o, fine.Hmax);
  if (!rc && N2 > m->N) m->N = N2, rc = measure(m, n, x, &fine);
  double rel = 0.0;
  if (!rc && o->estimate) {
    pmap mc = *m;
    double xc[2] = {x[0], x[1]};
    mc.N = m->N / 2;
    rc = measure(&mc, n, xc, &coarse);
    m->steps = mc.steps;
    while (!rc) {
      rel = estimate(m, &fine, &coarse, o->method->order, &out->err) /
            (o->rtol > 0 ? o->rtol : INFINITY);
      if (rel <= 1.0 || o->eta > 0 || out->refinements >= SSW_REFINE_MAX) break;
      coarse = fine;
      m->N *= 2;
      out->refinements++;
      rc = measure(m, n, x, &fine);
    }
  }
  out->steps_per_period = m->N;
  out->flags |= rc ? SSW_TRAJ_NONFINITE : rel > 1.0 ? SSW_TRAJ_RTOL : 0;
  if (rc) return;
  out->q = fine.q;
  out->mean_dissipation = fine.diss;
  out->power_balance = fine.q.mean_power - fine.diss;
  out->mean_divergence = fine.div;
  out->cycle_w = x[0], out->cycle_v = x[1];
  cycle_points(m, n, x, out->cycle_pts);
  out->newton_residual = fine.res;
  out->cycle_periods = n;
  out->converged = fine.res <= 1e3 * SSW_FORCED_NEWTON_TOL &&
                   !(out->flags & (SSW_TRAJ_RTOL | SSW_TRAJ_NONFINITE));
}

/* The rest as the attractor (transient's at_rest): the period map's
 * fixed point (0, 0), measured as a cycle of one period without Newton
 * (the point is exact) and with the difference steps of its Jacobian
 * sized by the initial state's scale (m->floor), the sleigh's own being
 * 0. The means of w and v are 0 exactly; the multipliers' estimate is
 * the fine and coarse runs' difference and the quotients' own error,
 * refined as the cycle's. */
static int rest_measure(pmap *m, meas *r) {
  const double z[2] = {0.0, 0.0};
  double y[2], J[2][2];
  sums a;
  q_nan(&r->q);
  ssw_pmap_sums_init(&a);
  const int64_t s0 = m->steps;
  int rc = ssw_pmap_map_n(m, 1, z, y, &a);
  if (!rc) rc = ssw_pmap_jacobian(m, 1, z, 4e-3, 1, J, &r->fd);
  r->steps = m->steps - s0;
  if (rc) return rc;
  r->q.mean_omega = r->q.mean_v = r->q.amp_omega = r->q.amp_v = 0.0;
  r->q.mean_power = a.work / a.time;
  multipliers(J, r->q.floquet_abs, r->q.floquet_arg);
  r->diss = a.diss / a.time, r->div = a.divint / a.time;
  r->res = 0.0;
  return 0;
}

static double rest_estimate(const meas *f, const meas *c, int order,
                            ssw_forced_q *err) {
  const double div = pow(2.0, order) - 1.0;
  q_nan(err);
  err->mean_omega = err->mean_v = err->amp_omega = err->amp_v = 0.0;
  err->mean_power = diff_est(f->q.mean_power, c->q.mean_power, div);
  double rel = 0.0;
  for (int i = 0; i < 2; i++) {
    err->floquet_abs[i] =
        diff_est(f->q.floquet_abs[i], c->q.floquet_abs[i], div) + f->fd;
    err->floquet_arg[i] =
        diff_est(f->q.floquet_arg[i], c->q.floquet_arg[i], div) +
        f->fd / fmax(f->q.floquet_abs[i], 1e-3);
    rel = fmax(rel, err->floquet_abs[i]);
  }
  return isfinite(rel) ? rel : INFINITY;
}

static void rest(pmap *m, const ssw_integrator *o, double S, ssw_forced *out) {
  meas fine, coarse;
  m->floor = SSW_FORCED_REST_DETECT * (S > 0.0 ? S : 1.0);
  int rc = rest_measure(m, &fine);
  double rel = 0.0;
  if (!rc && o->estimate) {
    pmap mc = *m;
    mc.N = m->N / 2;
    rc = rest_measure(&mc, &coarse);
    m->steps = mc.steps;
    while (!rc) {
      rel = rest_estimate(&fine, &coarse, o->method->order, &out->err) /
            (o->rtol > 0 ? o->rtol : INFINITY);
      if (rel <= 1.0 || o->eta > 0 || out->refinements >= SSW_REFINE_MAX) break;
      coarse = fine;
      m->N *= 2;
      out->refinements++;
      rc = rest_measure(m, &fine);
    }
  }
  out->steps_per_period = m->N;
  out->flags |= rc ? SSW_TRAJ_NONFINITE : rel > 1.0 ? SSW_TRAJ_RTOL : 0;
  if (rc) return;
  out->q = fine.q;
  out->mean_dissipation = fine.diss;
  out->power_balance = fine.q.mean_power - fine.diss;
  out->mean_divergence = fine.div;
  out->cycle_w = out->cycle_v = 0.0;
  out->newton_residual = 0.0;
  out->cycle_periods = 1;
  out->converged = !(out->flags & (SSW_TRAJ_RTOL | SSW_TRAJ_NONFINITE));
}

/* The mean energies of the first SSW_FORCED_GROWTH_PERIODS periods. */
static int growth_run(pmap *m, const double x0[2], double *Hbar, double *Hmax) {
  ssw_state s;
  ssw_stepper_init(&m->c, x0[0], x0[1], &s);
  *Hmax = 0.0;
  for (int k = 0; k < SSW_FORCED_GROWTH_PERIODS; k++) {
    sums a;
    ssw_pmap_sums_init(&a);
    if (ssw_pmap_period(m, &s, &a) != 0) return -2;
    Hbar[k] = a.Hint / a.time;
    *Hmax = fmax(*Hmax, a.Hmax);
  }
  return 0;
}

/* An accelerating trajectory: the growth law's slope at the step that
 * resolves the largest energy reached, and at half the steps (the
 * estimate; refined as the cycle's). The fit's drift between the two
 * quarters of its window is added to the estimate (the averaged law holds
 * to O(eps^2)); rtol judges the integration's part. */
static void accelerating(pmap *m, const ssw_tensor *t, const ssw_integrator *o,
                         const double x0[2], found *f, ssw_forced *out) {
  double Hbar[SSW_FORCED_GROWTH_PERIODS], Hmax = f->Hmax, slope = f->slope,
                                          spread = f->spread, sc, dummy;
  const int K = SSW_FORCED_GROWTH_PERIODS;
  int rc = 0, N2 = steps_for(t, o, Hmax);
  if (N2 > m->N) {
    m->N = N2;
    rc = growth_run(m, x0, Hbar, &Hmax);
    if (!rc) growth(t, Hbar, K, m->T, &slope, &spread);
  }
  double rel = 0.0, err = NAN;
  if (!rc && o->estimate) {
    pmap mc = *m;
    mc.N = m->N / 2;
    rc = growth_run(&mc, x0, Hbar, &dummy);
    m->steps = mc.steps;
    if (!rc) growth(t, Hbar, K, m->T, &sc, &dummy);
    const double div = pow(2.0, o->method->order) - 1.0;
    while (!rc) {
      const double step_err = diff_est(slope, sc, div);
      err = step_err + 0.5 * spread;
      rel = step_err / fabs(slope) / (o->rtol > 0 ? o->rtol : INFINITY);
      if (rel <= 1.0 || o->eta > 0 || out->refinements >= SSW_REFINE_MAX) break;
      sc = slope;
      m->N *= 2;
      out->refinements++;
      rc = growth_run(m, x0, Hbar, &Hmax);
      if (!rc) growth(t, Hbar, K, m->T, &slope, &spread);
    }
  }
  out->steps_per_period = m->N;
  out->flags |= rc ? SSW_TRAJ_NONFINITE : rel > 1.0 ? SSW_TRAJ_RTOL : 0;
  if (rc) return;
  out->q.energy_growth_slope = slope;
  out->err.energy_growth_slope = err;
  out->converged = !(out->flags & (SSW_TRAJ_RTOL | SSW_TRAJ_NONFINITE));
}

int ssw_pmap_init(pmap *m, const ssw_tensor *t, const ssw_integrator *o) {
  *m = (pmap){.recon = o->recon, .cost = ssw_method_cost(o->method)};
  SSW_CALL(ssw_stepper_bind(t, o->method, &m->c));
  m->T = 2.0 * M_PI / t->fomega;
  m->imp = t->fimp;
  return SSW_SUCCESS;
}

int ssw_forced_run(const ssw_tensor *t, double w0, double v0,
                   const ssw_integrator *o, ssw_forced *out) {
  SSW_CALL(ssw_integrator_check(o));
  SSW_CHECK(ssw_model_caps(t) & SSW_MCAP_TIME_PERIODIC, SSW_ERR_ARG,
            "the forced extractor needs a periodic forcing (torque_amp or "
            "mass_p, and forcing_freq > 0)");
  SSW_CHECK(isfinite(w0) && isfinite(v0), SSW_ERR_ARG,
            "initial state (%g, %g) is not finite", w0, v0);
  found f;
  *out = (ssw_forced){.attractor = SSW_ATTRACTOR_UNRESOLVED};
  q_nan(&out->q);
  q_nan(&out->err);
  out->mean_dissipation = out->power_balance = out->newton_residual = NAN;
  out->mean_divergence = NAN;
  out->cycle_w = out->cycle_v = out->transient_remainder = NAN;
  for (int k = 0; k < SSW_FORCED_NMAX; k++)
    out->cycle_pts[k][0] = out->cycle_pts[k][1] = NAN;
  out->lyapunov_divergence = out->lyapunov_sum_defect = NAN;
  pmap m;
  SSW_CALL(ssw_pmap_init(&m, t, o));
  out->period = m.T;
  out->H0 = ssw_model_energy(&m.c.e, w0, v0);
  m.N = steps_for(t, o, out->H0);
  memset(&f, 0, sizeof f);
  f.res = f.remainder = NAN;
  const double x0[2] = {w0, v0};
  transient(&m, t, x0, o->max_steps, &f);
  out->flags = f.flags;
  out->transient_periods = f.periods;
  out->attractor = f.attractor;
  out->transient_remainder = f.remainder;
  out->end_w = f.x[0], out->end_v = f.x[1];
  if (f.attractor == SSW_ATTRACTOR_PERIODIC) cycle(&m, t, o, &f, out);
  if (f.attractor == SSW_ATTRACTOR_ACCELERATING)
    accelerating(&m, t, o, x0, &f, out);
  if (f.attractor == SSW_ATTRACTOR_REST)
    rest(&m, o, ssw_pmap_knorm(&m.c.e, w0, v0), out);
  out->steps_per_period = out->steps_per_period ? out->steps_per_period : m.N;
  out->steps = m.steps;
  return SSW_SUCCESS;
}

/* ---- Closed forms ----------------------------------------------------- */

/* forcing.md eqs. F3 and F6 ("Closed forms" and "The moving
 * mass"): the sine torque eps and the mass's equivalent torque
 * mp x0 a Omega^2 act in phase on the frame K0 of the mass at its mean
 * position (mp = 0: K0 = K); with Z = (i Omega K0 + C)^-1 e1 (eps + mp x0 a
 * Omega^2), <zeta> = C^-1 [Re(g0(Z) conj(S Z)) + mp a Omega Re(i conj(S Z))]
 * / 2, g0 = (L1 + mp x0) w + Z v, S (w, v) = (-v, w). */
static void small_forcing(const ssw_tensor *t, double *mw, double *mv) {
  const double Om = t->fomega, mp = t->mp, x0 = t->mx, y0 = t->my;
  const double eps = t->ftau + mp * x0 * t->mamp * Om * Om;
  const double J0 = t->J + mp * (x0 * x0 + y0 * y0), L20 = t->L2 + mp * y0;
  const double M0 = t->M + mp, L10 = t->L1 + mp * x0;
  const double complex A11 = t->cw + I * Om * J0;
  const double complex A12 = t->cwv - I * Om * L20;
  const double complex A22 = t->cv + I * Om * M0;
  const double complex det = A11 * A22 - A12 * A12;
  const double complex zw = A22 / det, zv = -A12 / det;
  const double complex g = L10 * zw + t->Z * zv;
  double b1 = creal(g * conj(-zv)), b2 = creal(g * conj(zw));
  if (mp != 0.0) { /* the term mp y' S zeta, y' = a Omega cos: O(a eps) */
    const double k = mp * t->mamp * Om / eps;
    b1 += k * creal(I * conj(-zv)), b2 += k * creal(I * conj(zw));
  }
  const double dC = t->cw * t->cv - t->cwv * t->cwv;
  *mw = 0.5 * eps * eps * (t->cv * b1 - t->cwv * b2) / dC;
  *mv = 0.5 * eps * eps * (-t->cwv * b1 + t->cw * b2) / dC;
}

void ssw_forced_closed_form(const ssw_tensor *t, const ssw_forced *r,
                            ssw_forced_closed *a) {
  *a = (ssw_forced_closed){NAN, NAN, NAN, NAN, NAN, {NAN, NAN}, {NAN, NAN}};
  const double D = ssw_model_D(t);
  const int mass = t->mp != 0.0;
  const int cyc = r->attractor == SSW_ATTRACTOR_PERIODIC ||
                  r->attractor == SSW_ATTRACTOR_REST;
  if (cyc && mass)
    /* K(t) varies: the divergence's mean along the measured cycle, its
     * d/dt ln det K(t) integrating to 0 (forcing.md) */
    a->floquet_product = exp(r->cycle_periods * r->period * r->mean_divergence);
  else if (cyc) {
    const double kw1 = t->L1 * t->M + t->Z * t->L2;
    const double kw2 = t->L1 * t->L2 + t->Z * t->J;
    const double trKC =
        (t->M * t->cw + 2.0 * t->L2 * t->cwv + t->J * t->cv) / D;
    const double hz = kw2 * r->q.mean_omega - kw1 * r->q.mean_v;
    a->floquet_product = exp(r->cycle_periods * r->period * (hz / D - trKC));
  }
  const int sine =
      (t->ftau != 0.0 || (mass && t->fimp == 0.0)) && t->kappa == 0.0;
  const int damped = t->cw > 0.0 && t->cw * t->cv - t->cwv * t->cwv > 0.0;
  if (sine && damped && (t->ftau != 0.0 || t->mx * t->mamp != 0.0)) {
    small_forcing(t, &a->mean_omega, &a->mean_v);
    a->mean_path_radius = a->mean_v / a->mean_omega;
  }
  if (sine && !mass && t->cw == 0.0 && t->cv == 0.0 && t->cwv == 0.0) {
    const double kw1 = t->L1 * t->M + t->Z * t->L2;
    a->energy_growth_slope = t->ftau * t->ftau * kw1 * kw1 / (2.0 * D * D * D);
  }
  ssw_kicked_closed(t, r, a);
  /* The exact map's cycle: its exponents are its multipliers' (the
   * limit of the finite-time ones along it). */
  for (int i = 0; i < 2 && r->cycle_periods > 0; i++)
    a->lyapunov[i] = log(a->floquet_abs[i]) / (r->cycle_periods * r->period);
}
