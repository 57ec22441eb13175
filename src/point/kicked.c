/* The kicked sleigh's exact period map (docs/theory/forcing.md, "Kicks
 * with C = c K: an exact period map"): with drag proportional to the
 * tensor and no circulation, the motion between two kicks is the damped
 * free motion zeta(t) = e^{-c t} eta((1 - e^{-c t}) / c) of the 2010
 * closed form (ssw_drag_exact_flow), so the map from the section t = 0
 * (before the kick at 0+) to the next, x -> flow_T(x + K^-1 e1 I), is a
 * composition of closed forms. Its cycle (Newton from the measured one),
 * the means over it and its multipliers carry no integration error: the
 * oracle of the forced extractor for kicks. */
#include <math.h>

#include "sleighsweep/drag.h"
#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"

typedef struct {
  ssw_tensor t; /* snapped (ssw_model_classify) */
  int regime;
  ssw_reduced e;
  double T, imp;
} kmap;

/* One period from the section: the kick, then the damped flow over T;
 * the heading change and the integral of v over the period. */
static int period(const kmap *k, const double x[2], double y[2], double *dphi,
                  double *int_v) {
  double dw, dv;
  ssw_model_velocity(&k->e, k->imp, 0.0, &dw, &dv);
  int rc = ssw_drag_exact_flow(&k->t, k->regime, x[0] + dw, x[1] + dv, k->T,
                               &y[0], &y[1], dphi, int_v);
  if (rc != SSW_SUCCESS) ssw_error_clear();
  return rc == SSW_SUCCESS && isfinite(y[0]) && isfinite(y[1]) ? 0 : -1;
}

/* The n-period map; the sums of the heading changes and of the integrals
 * of v over its periods. */
static int map_n(const kmap *k, int n, const double x[2], double y[2],
                 double *dphi, double *int_v) {
  double z[2] = {x[0], x[1]}, p, q;
  *dphi = *int_v = 0.0;
  for (int i = 0; i < n; i++) {
    if (period(k, z, y, &p, &q)) return -1;
    z[0] = y[0], z[1] = y[1];
    *dphi += p, *int_v += q;
  }
  return 0;
}

/* The Jacobian of the n-period map at x by central differences with one
 * Richardson step (error O(h^4) plus rounding / h; h = 1e-3 of the
 * state's size gives ~1e-11 relative). */
static int jacobian(const kmap *k, int n, const double x[2], double jac[2][2]) {
  const double h0 = 1e-3 * hypot(x[0], x[1]);
  for (int j = 0; j < 2; j++) {
    double d[2][2];
    for (int r = 0; r < 2; r++) {
      const double h = r ? 0.5 * h0 : h0;
      double a[2] = {x[0], x[1]}, b[2] = {x[0], x[1]}, s, u;
      double fa[2] = {0.0, 0.0}, fb[2] = {0.0, 0.0};
      a[j] += h, b[j] -= h;
      if (map_n(k, n, a, fa, &s, &u) || map_n(k, n, b, fb, &s, &u)) return -1;
      d[r][0] = (fa[0] - fb[0]) / (2.0 * h);
      d[r][1] = (fa[1] - fb[1]) / (2.0 * h);
    }
    for (int i = 0; i < 2; i++)
      jac[i][j] = (4.0 * d[1][i] - d[0][i]) / 3.0;
  }
  return 0;
}

/* Newton on P^n(x) = x from the measured cycle point: done when a step
 * is below 1e-15 of x, or when, below 1e-12, it no longer halves (the
 * map's round-off). */
static int cycle(const kmap *k, int n, double x[2]) {
  double prev = INFINITY;
  for (int it = 0; it < 30; it++) {
    double y[2], jac[2][2], s, u;
    if (map_n(k, n, x, y, &s, &u) || jacobian(k, n, x, jac)) return -1;
    const double f0 = y[0] - x[0], f1 = y[1] - x[1];
    const double a = jac[0][0] - 1.0, b = jac[0][1], c = jac[1][0],
                 d = jac[1][1] - 1.0, det = a * d - b * c;
    if (!(det != 0.0)) return -1;
    const double dx0 = (d * f0 - b * f1) / det, dx1 = (a * f1 - c * f0) / det;
    x[0] -= dx0, x[1] -= dx1;
    const double step = hypot(dx0, dx1) / hypot(x[0], x[1]);
    if (step <= 1e-15 || (step <= 1e-12 && step > 0.5 * prev)) return 0;
    prev = step;
  }
  return -1;
}

int ssw_kicked_applies(const ssw_tensor *t) {
  return t->fimp != 0.0 && t->ftau == 0.0 && t->mp == 0.0 && t->kappa == 0.0 &&
         ssw_drag_proportional(t) > 0.0;
}

void ssw_kicked_closed(const ssw_tensor *t, const ssw_forced *r,
                       ssw_forced_closed *a) {
  if (!ssw_kicked_applies(t) || r->attractor != SSW_ATTRACTOR_PERIODIC ||
      !isfinite(r->cycle_w) || !isfinite(r->cycle_v))
    return;
  kmap k = {.T = r->period, .imp = t->fimp};
  ssw_model_classify(t, SSW_ZERO_TOL_DEFAULT, &k.t, &k.regime);
  ssw_model_reduce(&k.t, &k.e);
  const int n = r->cycle_periods;
  double x[2] = {r->cycle_w, r->cycle_v}, y[2], jac[2][2], dphi, int_v;
  if (cycle(&k, n, x) || map_n(&k, n, x, y, &dphi, &int_v) ||
      jacobian(&k, n, x, jac))
    return;
  a->mean_omega = dphi / (n * k.T);
  a->mean_v = int_v / (n * k.T);
  a->mean_path_radius = a->mean_v / a->mean_omega;
  /* The multipliers: eigenvalues of the 2 x 2 Jacobian, moduli
   * descending (a complex pair has both moduli sqrt(det)). */
  const double tr = jac[0][0] + jac[1][1];
  const double det = jac[0][0] * jac[1][1] - jac[0][1] * jac[1][0];
  const double disc = tr * tr - 4.0 * det;
  if (disc >= 0.0) {
    const double q = -0.5 * (tr + copysign(sqrt(disc), tr));
    const double l1 = fabs(q), l2 = q != 0.0 ? fabs(det / q) : 0.0;
    a->floquet_abs[0] = fmax(l1, l2), a->floquet_abs[1] = fmin(l1, l2);
  } else {
    a->floquet_abs[0] = a->floquet_abs[1] = sqrt(det);
  }
}
