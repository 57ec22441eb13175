/* The attractor census of one grid point: trajectories matched into
 * attractors by their invariants on the period map, in index order, then
 * sorted into slots. Theory: docs/theory/forcing.md, "The census". */
#include "census.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ssw_stat_add(ssw_stat *s, double x) {
  if (s->n == 0) s->lo = s->hi = x;
  s->sum += x;
  if (x < s->lo) s->lo = x;
  if (x > s->hi) s->hi = x;
  s->n++;
}

double ssw_stat_mean(const ssw_stat *s) {
  return s->n ? s->sum / (double)s->n : NAN;
}

double ssw_stat_spread(const ssw_stat *s) {
  if (s->n == 0) return NAN;
  return s->hi == s->lo ? 0.0 : s->hi - s->lo;
}

void ssw_census_start(ssw_census *c, const ssw_tensor *t) {
  c->J = t->J, c->L2 = t->L2, c->M = t->M;
  c->n = 0;
  c->untracked = 0;
}

/* |z| in the energy norm, |z|^2 = z^T K z = 2 H(z). */
static double knorm(const ssw_census *c, double w, double v) {
  return sqrt(fabs(c->J * w * w + c->M * v * v - 2.0 * c->L2 * w * v));
}

static int finite_cycle(const ssw_census_key *k) {
  for (int i = 0; i < k->n; i++)
    if (!isfinite(k->pts[i][0]) || !isfinite(k->pts[i][1])) return 0;
  return 1;
}

/* Cycles a and b (the same length n) agree up to a cyclic shift. */
static int same_cycle(const ssw_census *c, const ssw_census_key *a,
                      const ssw_census_key *b) {
  const int fa = finite_cycle(a), fb = finite_cycle(b), n = a->n;
  if (!fa || !fb) return fa == fb;
  double scale = 0.0;
  for (int i = 0; i < n; i++)
    scale = fmax(scale, fmax(knorm(c, a->pts[i][0], a->pts[i][1]),
                             knorm(c, b->pts[i][0], b->pts[i][1])));
  const double tol = SSW_CENSUS_CYCLE_TOL * (scale > 0.0 ? scale : 1.0);
  for (int s = 0; s < n; s++) {
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
      const double *p = a->pts[i], *q = b->pts[(i + s) % n];
      ok = knorm(c, p[0] - q[0], p[1] - q[1]) <= tol;
    }
    if (ok) return 1;
  }
  return 0;
}

/* x and y agree within SSW_CLASS_K times their errors summed (false
 * where any is NaN). */
static int within(double x, double ex, double y, double ey) {
  return fabs(x - y) <= SSW_CLASS_K * (ex + ey);
}

static int same_attractor(const ssw_census *c, const ssw_census_key *a,
                          const ssw_census_key *b) {
  if (a->cls != b->cls) return 0;
  if (a->cls == SSW_ATTRACTOR_PERIODIC)
    return a->n == b->n && same_cycle(c, a, b);
  if (a->cls != SSW_ATTRACTOR_QUASIPERIODIC && a->cls != SSW_ATTRACTOR_CHAOTIC)
    return 1;
  for (int i = 0; i < 2; i++)
    if (!within(a->lyap[i], a->err_lyap[i], b->lyap[i], b->err_lyap[i]) ||
        !within(a->vel[i], a->err_vel[i], b->vel[i], b->err_vel[i]))
      return 0;
  return 1;
}

int ssw_census_match(const ssw_census *c, const ssw_census_key *k) {
  for (int i = 0; i < c->n; i++)
    if (same_attractor(c, &c->e[i].rep, k)) return i;
  return -1;
}

/* The lexicographically smallest (omega, then v) point of a cycle: the
 * same whatever point the cycle is entered at. */
static void lowest_point(const ssw_census_key *k, double low[2]) {
  low[0] = low[1] = NAN;
  if (k->cls != SSW_ATTRACTOR_PERIODIC || !finite_cycle(k)) return;
  low[0] = k->pts[0][0], low[1] = k->pts[0][1];
  for (int i = 1; i < k->n; i++)
    if (k->pts[i][0] < low[0] ||
        (k->pts[i][0] == low[0] && k->pts[i][1] < low[1]))
      low[0] = k->pts[i][0], low[1] = k->pts[i][1];
}

static void entry_new(ssw_census_entry *e, const ssw_census_key *k,
                      int64_t index) {
  memset(e, 0, sizeof *e);
  e->rep = *k;
  e->first = index;
  lowest_point(k, e->low);
  for (int q = 0; q < SSW_FQ_N; q++)
    e->err[q] = NAN;
}

void ssw_census_add(ssw_census *c, const ssw_census_key *k, int64_t index,
                    const ssw_census_values *v) {
  int i = ssw_census_match(c, k);
  if (i < 0 && c->n == SSW_CENSUS_TRACK) {
    c->untracked++;
    return;
  }
  if (i < 0) entry_new(&c->e[i = c->n++], k, index);
  ssw_census_entry *e = &c->e[i];
  e->count++;
  if (!v->converged) return;
  e->conv++;
  for (int q = 0; q < SSW_FQ_N; q++) {
    ssw_stat_add(&e->q[q], v->fq[q]);
    ssw_stat_add(&e->x[q], v->x_fq[q]);
    e->err[q] = fmax(e->err[q], v->err_fq[q]); /* fmax ignores NaN */
  }
  ssw_stat_add(&e->prod, v->x_fprod);
  ssw_stat_add(&e->lyap2, v->lyap2);
}

/* Ascending order with NaN last. */
static int cmp_double(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
  return (a > b) - (a < b);
}

static int by_share(const void *x, const void *y) {
  const ssw_census_entry *a = x, *b = y;
  int r = (a->count < b->count) - (a->count > b->count);
  if (!r) r = (a->rep.cls > b->rep.cls) - (a->rep.cls < b->rep.cls);
  if (!r) r = (a->rep.n > b->rep.n) - (a->rep.n < b->rep.n);
  if (!r) r = cmp_double(a->low[0], b->low[0]);
  if (!r) r = cmp_double(a->low[1], b->low[1]);
  if (!r) r = cmp_double(a->rep.vel[0], b->rep.vel[0]);
  if (!r) r = (a->first > b->first) - (a->first < b->first);
  return r;
}

/* Slot 0 into the point's attractor and forced quantities. */
static void point_values(const ssw_census_entry *e, ssw_point_result *res) {
  res->attractor = e->rep.cls;
  res->cycle_periods =
      e->rep.cls == SSW_ATTRACTOR_PERIODIC && e->conv > 0 ? e->rep.n : -1;
  for (int k = 0; k < SSW_FQ_N; k++) {
    res->forced[k] = ssw_stat_mean(&e->q[k]);
    res->forced_spread[k] = ssw_stat_spread(&e->q[k]);
    res->forced_error[k] = e->err[k];
    res->analytic_forced[k] = ssw_stat_mean(&e->x[k]);
  }
  res->analytic_floquet_product = ssw_stat_mean(&e->prod);
}

void ssw_census_finish(ssw_census *c, int slots, int64_t n,
                       ssw_point_result *res) {
  for (int s = 0; s < SSW_ATTRACTOR_SLOTS_MAX; s++) {
    res->attractor_class[s] = res->attractor_cycle_periods[s] = -1;
    res->attractor_fraction[s] = res->attractor_mean_omega[s] = NAN;
    res->attractor_mean_v[s] = res->attractor_lyapunov_1[s] = NAN;
    res->attractor_lyapunov_2[s] = NAN;
  }
  const int found = c ? c->n : 0;
  if (found) qsort(c->e, (size_t)found, sizeof c->e[0], by_share);
  int64_t other = c ? c->untracked : 0;
  res->attractor_count = 0;
  for (int i = 0; i < found; i++) {
    const ssw_census_entry *e = &c->e[i];
    res->attractor_count += e->rep.cls != SSW_ATTRACTOR_UNRESOLVED;
    if (i >= slots || i >= SSW_ATTRACTOR_SLOTS_MAX) {
      other += e->count;
      continue;
    }
    res->attractor_class[i] = e->rep.cls;
    res->attractor_cycle_periods[i] =
        e->rep.cls == SSW_ATTRACTOR_PERIODIC ? e->rep.n : -1;
    res->attractor_fraction[i] = (double)e->count / (double)n;
    res->attractor_mean_omega[i] = ssw_stat_mean(&e->q[SSW_FQ_MEAN_OMEGA]);
    res->attractor_mean_v[i] = ssw_stat_mean(&e->q[SSW_FQ_MEAN_V]);
    res->attractor_lyapunov_1[i] = ssw_stat_mean(&e->q[SSW_FQ_LYAPUNOV_MAX]);
    res->attractor_lyapunov_2[i] = ssw_stat_mean(&e->lyap2);
  }
  res->attractor_other_fraction = (double)other / (double)n;
  if (found > 0) point_values(&c->e[0], res);
}
