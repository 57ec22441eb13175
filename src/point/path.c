/* Recorded paths: growable rows of sampled nodes, sorted by time, and their
 * distance from the exact path (docs/theory/exact-path.md). */
#include "sleighsweep/path.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/circulation.h"
#include "sleighsweep/dopri5.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/ode.h"

/* Dormand-Prince steps per node interval of the dense output. */
#define SSW_DENSE_STEPS 32

void ssw_path_record(void *ctx, int dir, double t, double phi, double x,
                     double y, double w, double v, double H) {
  ssw_path *p = ctx;
  (void)dir;
  if (p->failed) return;
  if (p->n == p->cap) {
    const size_t cap = p->cap ? 2 * p->cap : 512;
    void *rows = realloc(p->rows, cap * sizeof *p->rows);
    if (!rows) {
      p->failed = 1;
      return;
    }
    p->rows = rows, p->cap = cap;
  }
  const double row[SSW_PATH_NQ] = {t, phi, x, y, w, v, H};
  memcpy(p->rows[p->n++], row, sizeof row);
}

static int by_time(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int ssw_path_sort(ssw_path *p) {
  SSW_CHECK(!p->failed, SSW_ERR_MEM, "out of memory recording a path");
  qsort(p->rows, p->n, sizeof *p->rows, by_time);
  return SSW_SUCCESS;
}

void ssw_path_clear(ssw_path *p) {
  p->n = 0;
  p->failed = 0;
}

void ssw_path_free(ssw_path *p) {
  if (!p) return;
  free(p->rows);
  memset(p, 0, sizeof *p);
}

/* An exact motion: the 2010 closed form, or circulation's
 * (docs/theory/exact-path.md, circulation.md). */
typedef struct {
  ssw_orbit o;
  ssw_circ_orbit c;
  int circ;
} exact_motion;

static double heading_at(const exact_motion *m, double t) {
  return m->circ ? ssw_circ_orbit_heading(&m->c, t)
                 : ssw_analytic_orbit_heading(&m->o, t);
}

static int advance(const exact_motion *m, double ta, double tb, double *dx,
                   double *dy) {
  if (m->circ) return ssw_circ_orbit_advance(&m->c, ta, tb, dx, dy);
  ssw_analytic_orbit_advance(&m->o, ta, tb, dx, dy);
  return SSW_SUCCESS;
}

static void state_at(const exact_motion *m, double t, double *w, double *v) {
  if (m->circ)
    ssw_circ_orbit_state(&m->c, t, w, v);
  else
    ssw_analytic_orbit_state(&m->o, t, w, v);
}

/* Exact (phi, x, y) of rows [from, to) walking away from t = 0 in steps of
 * `dir`, accumulating the exact displacement segment by segment. With
 * per_leg > 0 only every k-th row (k = rows / per_leg, at least 1) and the
 * last are compared, each from the previous compared one in one stretch:
 * the quadrature's cost goes with the stretches' count and length, and
 * short node-to-node stretches each cost a whole panel. */
static int walk(const ssw_path *p, const exact_motion *m, long from, long to,
                long dir, int per_leg, double (*exact)[SSW_PATH_NEXACT],
                double *pos, double *head) {
  double t = 0.0, x = 0.0, y = 0.0;
  const long rows = (to - from) * dir;
  const long every = per_leg > 0 && rows > per_leg ? rows / per_leg : 1;
  for (long i = from, k = 1; i != to; i += dir, k++) {
    if (k % every != 0 && i + dir != to) continue;
    const double *r = p->rows[i];
    double dx, dy;
    SSW_CALL(advance(m, t, r[0], &dx, &dy));
    t = r[0], x += dx, y += dy;
    const double ph = heading_at(m, t);
    *pos = fmax(*pos, hypot(r[2] - x, r[3] - y));
    *head = fmax(*head, fabs(r[1] - ph));
    if (exact) {
      exact[i][0] = ph, exact[i][1] = x, exact[i][2] = y;
      state_at(m, t, &exact[i][3], &exact[i][4]);
    }
  }
  return SSW_SUCCESS;
}

int ssw_path_exact_sampled(const ssw_path *p, const ssw_tensor *t, int regime,
                           double w0, double v0, int per_leg,
                           double (*exact)[SSW_PATH_NEXACT], double *pos_err,
                           double *head_err) {
  static exact_motion zero;
  exact_motion m = zero;
  SSW_CHECK(ssw_model_caps(t) & SSW_MCAP_EXACT_PATH, SSW_ERR_ARG,
            "this model's path has no closed form (an effect such as drag "
            "takes it): no exact path to compare with");
  m.circ = (ssw_model_caps(t) & SSW_MCAP_CLOSED_FORM_2010) == 0;
  if (m.circ)
    SSW_CALL(ssw_circ_orbit_init(t, t->kappa, w0, v0, &m.c));
  else
    SSW_CALL(ssw_analytic_orbit(t, regime, w0, v0, &m.o));
  if (exact) per_leg = 0; /* every row's exact values are asked for */
  long i0 = 0;
  while (i0 < (long)p->n && p->rows[i0][0] < 0.0)
    i0++;
  *pos_err = *head_err = 0.0;
  SSW_CALL(walk(p, &m, i0, (long)p->n, 1, per_leg, exact, pos_err, head_err));
  return walk(p, &m, i0 - 1, -1, -1, per_leg, exact, pos_err, head_err);
}

int ssw_path_exact(const ssw_path *p, const ssw_tensor *t, int regime,
                   double w0, double v0, double (*exact)[SSW_PATH_NEXACT],
                   double *pos_err, double *head_err) {
  return ssw_path_exact_sampled(p, t, regime, w0, v0, 0, exact, pos_err,
                                head_err);
}

/* The state c (a row: t, phi, x, y, omega, v, H) carried over a time span
 * `span` in `m` (>= 0) equal steps of the engine's Dormand-Prince 5(4) step
 * (dopri5.h; its error estimate is not used: the steps are a fraction of
 * the integrator's own node spacing). */
static ssw_ode_state carry(const ssw_reduced *e, const double *c, double span,
                           int m) {
  ssw_dopri5_opts o;
  ssw_dopri5_defaults(&o);
  ssw_ode_state s = {c[4], c[5], c[1], c[2], c[3], c[0]}, next;
  double f0[SSW_ODE_DIM], f1[SSW_ODE_DIM], err;
  for (int k = 0; k < m; k++) {
    ssw_dopri5_step(e, &o, &s, span / m, k ? f0 : NULL, f1, &next, &err);
    s = next;
    memcpy(f0, f1, sizeof f0);
  }
  return s;
}

/* The state at time tk in [a, b] (two nodes): carried from each node and
 * blended linearly (weight 1 at its own node), so a row's error is that of
 * the two nodes interpolated, not the nearer node's error carried on by
 * its velocity's: from the nearer node alone, the heading's error grew by
 * up to 1.4e-10 rad past the nodes' own at the default steps. A row at a
 * node is the node. */
static ssw_ode_state between(const ssw_reduced *e, const double *a,
                             const double *b, double tk) {
  const double h = b[0] - a[0];
  const double *near = tk - a[0] <= b[0] - tk ? a : b;
  if (!(h > 0) || tk == a[0] || tk == b[0])
    return carry(e, near, tk - near[0], h > 0 && tk != near[0]);
  const double s = (tk - a[0]) / h;
  const int ma = (int)ceil(SSW_DENSE_STEPS * s);
  const int mb = (int)ceil(SSW_DENSE_STEPS * (1.0 - s));
  const ssw_ode_state ya = carry(e, a, tk - a[0], ma),
                      yb = carry(e, b, tk - b[0], mb);
  ssw_ode_state y = ya;
  y.w = ya.w + s * (yb.w - ya.w), y.v = ya.v + s * (yb.v - ya.v);
  y.phi = ya.phi + s * (yb.phi - ya.phi);
  y.x = ya.x + s * (yb.x - ya.x), y.y = ya.y + s * (yb.y - ya.y);
  y.t = tk;
  return y;
}

void ssw_path_dense(const ssw_path *p, const ssw_tensor *t, size_t n,
                    double (*out)[SSW_PATH_NQ]) {
  for (size_t k = 0; k < n; k++)
    for (int q = 0; q < SSW_PATH_NQ; q++)
      out[k][q] = NAN;
  if (p->n == 0 || n < 2) return;
  if (p->n == 1) {
    memcpy(out[0], p->rows[0], sizeof out[0]);
    return;
  }
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  const double t0 = p->rows[0][0], t1 = p->rows[p->n - 1][0];
  size_t i = 0; /* interval [rows[i], rows[i + 1]] */
  for (size_t k = 0; k < n; k++) {
    const double tk =
        k + 1 == n ? t1 : t0 + (t1 - t0) * ((double)k / (double)(n - 1));
    while (i + 2 < p->n && p->rows[i + 1][0] < tk)
      i++;
    const double *a = p->rows[i], *b = p->rows[i + 1];
    const double h = b[0] - a[0];
    const double s = h > 0 ? (tk - a[0]) / h : 0.0;
    const ssw_ode_state y = between(&e, a, b, tk);
    out[k][0] = tk;
    out[k][1] = y.phi, out[k][2] = y.x, out[k][3] = y.y;
    out[k][4] = y.w, out[k][5] = y.v;
    out[k][6] = a[6] + s * (b[6] - a[6]);
  }
}
