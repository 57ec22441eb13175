/* Boundary refinement (include/sleighsweep/refine.h): the edges of a coarse
 * grid whose ends differ in class, and the crossings along each, located by
 * Illinois regula falsi on a continuous indicator. No MPI, no HDF5. */
#include "sleighsweep/refine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/point.h"

const char *const ssw_refine_indicator_names[SSW_REFINE_NIND] = {
    SSW_REFINE_INDICATORS(SSW_NAME_AT)};
const char *const ssw_refine_reason_names[SSW_REFINE_NREASONS] = {
    SSW_REFINE_REASONS(SSW_NAME_AT)};

/* Class bit of each indicator. */
#define IND_CLASS_(id, value, name, cls, ...) [value] = SSW_REFINE_##cls,
static const int32_t ind_class[SSW_REFINE_NIND] = {
    SSW_REFINE_INDICATORS(IND_CLASS_)};

void ssw_refine_sample_of(const ssw_point_result *r, double H,
                          ssw_refine_sample *s) {
  *s = (ssw_refine_sample){
      r->tensor.Z,
      r->tensor.L1,
      r->transition_angle / (2 * M_PI),
      r->critical_energy,
      H,
      r->sense_future,
      fabs(r->heading_per_period) / (2 * M_PI),
      ssw_refine_attractor_class(r->attractor, r->cycle_periods),
      r->forced[SSW_FQ_LYAPUNOV_MAX],
      r->forced_error[SSW_FQ_LYAPUNOV_MAX]};
}

/* The sign of lambda_1 beyond SSW_REFINE_LYAP_SIGMAS errors, else 0. */
static int32_t lyap_class(const ssw_refine_sample *s) {
  if (!isfinite(s->lyap)) return SSW_REFINE_NO_CLASS;
  const double band = SSW_REFINE_LYAP_SIGMAS * s->lyap_err;
  if (!(band >= 0.0)) return SSW_REFINE_NO_CLASS; /* no error estimate */
  return (s->lyap > band) - (s->lyap < -band);
}

int32_t ssw_refine_attractor_class(int32_t attractor, int32_t cycle_periods) {
  if (attractor < 0) return SSW_REFINE_NO_CLASS;
  const int32_t n = attractor == SSW_ATTRACTOR_PERIODIC && cycle_periods > 0 &&
                            cycle_periods < SSW_REFINE_ATTRACTOR_STRIDE
                        ? cycle_periods
                        : 0;
  return SSW_REFINE_ATTRACTOR_STRIDE * attractor + n;
}

/* The class of a count (floor), none when NaN or out of range. */
static int32_t count_class(double x) {
  return isfinite(x) && x < 1e9 ? (int32_t)floor(x) : SSW_REFINE_NO_CLASS;
}

/* An indicator whose levels are every integer (a count of turns). */
static int counting(int ind) {
  return ind == SSW_REFINE_IND_TURNS || ind == SSW_REFINE_IND_DRIFT_TURNS;
}

static int32_t sign_of(double x) { return (x > 0) - (x < 0); }

int32_t ssw_refine_class(int ind, const ssw_refine_sample *s) {
  switch (ind) {
  case SSW_REFINE_IND_Z: return sign_of(s->Z);
  case SSW_REFINE_IND_L1: return sign_of(s->L1);
  case SSW_REFINE_IND_TURNS: return count_class(s->turns);
  case SSW_REFINE_IND_MU2: return sign_of(s->Hc / s->H - 1);
  case SSW_REFINE_IND_DRIFT_TURNS: return count_class(s->drift);
  case SSW_REFINE_IND_ATTRACTOR_CLASS: return s->attractor;
  case SSW_REFINE_IND_LYAPUNOV: return lyap_class(s);
  default: return s->sense;
  }
}

/* The continuous indicator whose levels are the class's boundaries. */
static double indicator(int ind, const ssw_refine_sample *s) {
  switch (ind) {
  case SSW_REFINE_IND_Z: return s->Z;
  case SSW_REFINE_IND_L1: return s->L1;
  case SSW_REFINE_IND_TURNS: return s->turns;
  case SSW_REFINE_IND_MU2: return s->Hc / s->H - 1;
  case SSW_REFINE_IND_DRIFT_TURNS: return s->drift;
  case SSW_REFINE_IND_ATTRACTOR_CLASS: return NAN; /* a class only */
  case SSW_REFINE_IND_LYAPUNOV: /* no side within the error bar */
    return lyap_class(s) == 0 ? NAN : s->lyap;
  default: return -s->Z;
  }
}

void ssw_refine_spec_of(const ssw_config *cfg, ssw_refine_spec *sp) {
  sp->classes = cfg->refine_classes;
  sp->tol = cfg->refine_tol;
  sp->max_evals = cfg->refine_max_evals;
  sp->trajectories = cfg->refine_trajectories;
  sp->points = cfg->refine_points;
}

/* ---- the edges ------------------------------------------------------ */

/* Why an edge whose classes c0 and c1 of indicator `ind` differ is not
 * refined (-1: it is): a count's levels accumulate where it has no class
 * (|dphi| = pi sqrt(D) / |L1| as L1 -> 0, Delta_phi as H -> H_c), and more
 * than SSW_REFINE_MAX_LEVELS of them is a grid too coarse there; the
 * largest Lyapunov exponent's sign is noise at an end where it is zero
 * within its error bar (class 0), and a bisection on it would locate
 * nothing. */
static int unresolved(int ind, int32_t c0, int32_t c1) {
  if (ind == SSW_REFINE_IND_LYAPUNOV)
    return c0 == SSW_REFINE_NO_CLASS || c1 == SSW_REFINE_NO_CLASS
               ? SSW_REFINE_NO_CLASS_END
           : c0 == 0 || c1 == 0 ? SSW_REFINE_NOT_SEPARATED
                                : -1;
  if (!counting(ind)) return -1;
  if (c0 == SSW_REFINE_NO_CLASS || c1 == SSW_REFINE_NO_CLASS)
    return SSW_REFINE_NO_CLASS_END;
  const int64_t jump = (int64_t)c1 - (int64_t)c0;
  return (jump < 0 ? -jump : jump) > SSW_REFINE_MAX_LEVELS
             ? SSW_REFINE_TOO_MANY_LEVELS
             : -1;
}

/* Indicators (bits) of sp whose class differs between two samples; those
 * refined (want 1) or those unresolved (want 0). */
static int32_t differing(const ssw_refine_spec *sp, const ssw_refine_sample *a,
                         const ssw_refine_sample *b, int want) {
  int32_t bits = 0;
  for (int i = 0; i < SSW_REFINE_NIND; i++) {
    const int32_t c0 = ssw_refine_class(i, a), c1 = ssw_refine_class(i, b);
    if ((sp->classes & ind_class[i]) && c0 != c1 &&
        (unresolved(i, c0, c1) < 0) == want)
      bits |= 1 << i;
  }
  return bits;
}

/* The grid's edges one after the other: (i, j = i + stride of axis a) in
 * increasing (i, a) order. */
typedef struct {
  const ssw_config *cfg;
  uint64_t size, stride[SSW_NAXES], i;
  int a, idx[SSW_NAXES];
} edge_walk;

static void walk_start(edge_walk *w, const ssw_config *cfg) {
  *w = (edge_walk){.cfg = cfg, .size = ssw_grid_size(cfg->axes), .a = -1};
  w->stride[SSW_NAXES - 1] = 1;
  for (int a = SSW_NAXES - 1; a > 0; a--)
    w->stride[a - 1] = w->stride[a] * (uint64_t)cfg->axes[a].n;
  ssw_grid_unravel(cfg->axes, 0, w->idx);
}

/* The next edge (*i, *j) along axis *a; 0 after the last. */
static int walk_next(edge_walk *w, uint64_t *i, uint64_t *j, int *a) {
  while (w->i < w->size) {
    while (++w->a < SSW_NAXES)
      if (w->idx[w->a] + 1 < w->cfg->axes[w->a].n) {
        *i = w->i, *j = w->i + w->stride[w->a], *a = w->a;
        return 1;
      }
    w->a = -1;
    if (++w->i < w->size) ssw_grid_unravel(w->cfg->axes, w->i, w->idx);
  }
  return 0;
}

/* Room for one more row of `size` bytes in *rows (capacity *cap). */
static int grow(void **rows, size_t n, size_t *cap, size_t size) {
  if (n < *cap) return SSW_SUCCESS;
  const size_t c = *cap ? 2 * *cap : 64;
  void *grown = realloc(*rows, c * size);
  SSW_CHECK(grown, SSW_ERR_MEM, "out of memory for %zu rows", c);
  *rows = grown;
  *cap = c;
  return SSW_SUCCESS;
}

int ssw_refine_edges(const ssw_config *cfg, const ssw_refine_spec *sp,
                     const ssw_refine_sample *samples, ssw_refine_edge **edges,
                     size_t *n) {
  size_t cap = 0;
  void *rows = NULL;
  edge_walk w;
  uint64_t i, j;
  int a, rc = SSW_SUCCESS;
  *n = 0;
  for (walk_start(&w, cfg); rc == SSW_SUCCESS && walk_next(&w, &i, &j, &a);) {
    const int32_t bits = differing(sp, &samples[i], &samples[j], 1);
    if (bits && (rc = grow(&rows, *n, &cap, sizeof **edges)) == SSW_SUCCESS)
      ((ssw_refine_edge *)rows)[(*n)++] =
          (ssw_refine_edge){i, j, a, bits, samples[i], samples[j]};
  }
  if (rc != SSW_SUCCESS) free(rows), rows = NULL, *n = 0;
  *edges = rows;
  return rc;
}

int ssw_refine_unresolved_edges(const ssw_config *cfg,
                                const ssw_refine_spec *sp,
                                const ssw_refine_sample *samples,
                                ssw_refine_unresolved **u, size_t *n) {
  size_t cap = 0;
  void *rows = NULL;
  edge_walk w;
  uint64_t i, j;
  int a, rc = SSW_SUCCESS;
  *n = 0;
  for (walk_start(&w, cfg); rc == SSW_SUCCESS && walk_next(&w, &i, &j, &a);) {
    const int32_t bits = differing(sp, &samples[i], &samples[j], 0);
    for (int k = 0; bits && k < SSW_REFINE_NIND && rc == SSW_SUCCESS; k++) {
      if (!(bits & (1 << k))) continue;
      const int32_t c0 = ssw_refine_class(k, &samples[i]);
      const int32_t c1 = ssw_refine_class(k, &samples[j]);
      if ((rc = grow(&rows, *n, &cap, sizeof **u)) == SSW_SUCCESS)
        ((ssw_refine_unresolved *)rows)[(*n)++] =
            (ssw_refine_unresolved){i, j, a, k, c0, c1, unresolved(k, c0, c1)};
    }
  }
  if (rc != SSW_SUCCESS) free(rows), rows = NULL, *n = 0;
  *u = rows;
  return rc;
}

/* The near miss of a count's level on an edge with equal classes, if any.
 */
static int near_miss(int ind, const ssw_refine_sample *a,
                     const ssw_refine_sample *b, double *level,
                     double *distance) {
  const int32_t k = ssw_refine_class(ind, a);
  if (k == SSW_REFINE_NO_CLASS || k != ssw_refine_class(ind, b)) return 0;
  const double xa = indicator(ind, a), xb = indicator(ind, b);
  const double below = fmin(xa, xb) - k;
  const double above = k + 1 - fmax(xa, xb);
  *level = below <= above ? k : k + 1.0;
  *distance = fmin(below, above);
  return *distance < SSW_REFINE_NEAR_MARGIN;
}

int ssw_refine_near_misses(const ssw_config *cfg, const ssw_refine_spec *sp,
                           const ssw_refine_sample *samples,
                           ssw_refine_near **near, size_t *n) {
  size_t cap = 0;
  void *rows = NULL;
  edge_walk w;
  uint64_t i, j;
  int a, rc = SSW_SUCCESS;
  *n = 0;
  for (walk_start(&w, cfg); rc == SSW_SUCCESS && walk_next(&w, &i, &j, &a);)
    for (int k = 0; k < SSW_REFINE_NIND && rc == SSW_SUCCESS; k++) {
      double level, distance;
      if (!counting(k) || !(sp->classes & ind_class[k]) ||
          !near_miss(k, &samples[i], &samples[j], &level, &distance))
        continue;
      if ((rc = grow(&rows, *n, &cap, sizeof **near)) == SSW_SUCCESS)
        ((ssw_refine_near *)rows)[(*n)++] =
            (ssw_refine_near){i, j, a, k, level, distance};
    }
  if (rc != SSW_SUCCESS) free(rows), rows = NULL, *n = 0;
  *near = rows;
  return rc;
}

/* The levels an indicator crosses between two classes: [*first, *last]
 * (one level, NaN, when a class is missing: found by the class alone). */
static int levels(int ind, int32_t c0, int32_t c1, double *first,
                  double *last) {
  if (c0 == SSW_REFINE_NO_CLASS || c1 == SSW_REFINE_NO_CLASS ||
      ind == SSW_REFINE_IND_ATTRACTOR_CLASS) {
    *first = *last = NAN;
    return 1;
  }
  if (!counting(ind)) {
    *first = *last = 0;
    return 1;
  }
  const int32_t lo = c0 < c1 ? c0 : c1, hi = c0 < c1 ? c1 : c0;
  *first = lo + 1.0;
  *last = hi;
  return (int)(hi - lo);
}

size_t ssw_refine_edge_max_crossings(const ssw_refine_edge *e) {
  size_t n = 0;
  double f, l;
  for (int i = 0; i < SSW_REFINE_NIND; i++)
    if (e->indicators & (1 << i))
      n += (size_t)levels(i, ssw_refine_class(i, &e->s_lo),
                          ssw_refine_class(i, &e->s_hi), &f, &l);
  return n;
}

/* ---- one edge: the evaluated nodes along it ------------------------- */

typedef struct {
  double x;
  ssw_refine_sample s;
} node;

typedef struct {
  const ssw_refine_spec *sp;
  const ssw_refine_edge *e;
  ssw_refine_eval_fn eval;
  void *ctx;
  ssw_grid_values base; /* the values at grid point lo */
  node *nodes;          /* increasing x, both ends included */
  size_t n, cap;
} line;

/* Evaluates the point at x and keeps it in order; *k its node. */
static int eval_at(line *ln, double x, size_t *k) {
  ssw_grid_values v = ln->base;
  *ssw_grid_values_field(&v, ln->e->axis) = x;
  ssw_refine_sample s;
  SSW_CALL(ln->eval(ln->ctx, ln->e->lo, ln->e->indicators, &v, &s));
  if (ln->n == ln->cap) {
    const size_t cap = 2 * ln->cap;
    node *grown = realloc(ln->nodes, cap * sizeof *grown);
    SSW_CHECK(grown, SSW_ERR_MEM, "out of memory for %zu nodes", cap);
    ln->nodes = grown;
    ln->cap = cap;
  }
  size_t i = ln->n;
  while (i > 0 && ln->nodes[i - 1].x > x)
    i--;
  memmove(ln->nodes + i + 1, ln->nodes + i, (ln->n - i) * sizeof *ln->nodes);
  ln->nodes[i] = (node){x, s};
  ln->n++;
  *k = i;
  return SSW_SUCCESS;
}

/* What one crossing is searched by: an indicator and its level, or (level
 * NaN) the class alone, -1 on lo's side and +1 beyond. */
typedef struct {
  int ind;
  double level;
  int32_t class_lo;
} target;

/* The function whose zero is searched: indicator - level, or for a count
 * x (level >= 1) (x - level) / (x + level), with the same zero and sign:
 * a count grows like 1 / (distance d to a point where its levels
 * accumulate: |dphi| = pi sqrt(D) / |L1| as Z, L1 -> 0, Delta_phi like
 * 1 / sqrt(H_c - H)), and there this is 1 - 2 level d + O(d^2), near
 * linear, so the secant lands close; it is bounded (-1 at x = 0, where
 * a reciprocal would stall the secant beside a body that barely turns).
 * A count without value inside a bracket (both ends have one) is taken
 * as infinite (+1): next to an accumulation point the trajectories turn
 * too often to finish, and at E = 0 (Z = L1 = 0 snapped) g vanishes.
 * L1 = 0 snapped alone has no transition angle but finite limits beside
 * it: no side there. */
static double value(const target *t, const node *p) {
  if (isnan(t->level)) return NAN;
  const double x = indicator(t->ind, &p->s);
  if (!counting(t->ind)) return x - t->level;
  const int turns = t->ind == SSW_REFINE_IND_TURNS;
  if (turns && p->s.Z == 0 && p->s.L1 == 0) return 1;
  if (isnan(x)) return turns && p->s.L1 == 0 ? NAN : 1;
  return isinf(x) ? 1 : (x - t->level) / (x + t->level);
}

/* No side: the indicator is NaN at a node (L1 = 0 snapped, no transition
 * angle) while a level is searched. */
#define UNKNOWN 2

/* The side of the level a node is on: -1, 0 (on it), +1 or UNKNOWN; by
 * its class when the search is by class (level NaN). */
static int side(const target *t, const node *p) {
  if (isnan(t->level))
    return ssw_refine_class(t->ind, &p->s) == t->class_lo ? -1 : 1;
  const double f = value(t, p);
  return isnan(f) ? UNKNOWN : (f > 0) - (f < 0);
}

/* ---- one crossing: Illinois regula falsi ---------------------------- */

/* The bracket of a search: its ends' positions, true values, the values
 * Illinois scales, their sides, and which end the last step kept. */
typedef struct {
  double a, b, fa, fb, ga, gb;
  int sa, kept, evals;
  double nan_x; /* where the last evaluation had no side (NaN: none) */
  /* The last evaluation within its error band (lyapunov_max zero within
   * its error: no side, NaN none), and the offset at which the next
   * probes on either side of it look for a side. */
  double band_x, band_h;
} bracket;

/* A node whose indicator is zero within its error bar (chaos's class 0):
 * no side, searched around instead of bisected on. */
static int in_band(const target *t, const node *p) {
  return t->ind == SSW_REFINE_IND_LYAPUNOV && !isnan(t->level) &&
         ssw_refine_class(t->ind, &p->s) == 0;
}

/* The next position: regula falsi on the scaled values (bisection when
 * one is NaN), at least tol / 2 inside the bracket, so that a step next to
 * the root closes the bracket on the other side. A function of the
 * bracket alone. */
static double next_position(const bracket *br, double tol) {
  double c = 0.5 * (br->a + br->b);
  if (!isnan(br->band_x) && br->a < br->band_x - br->band_h)
    c = br->band_x - br->band_h; /* probes beside the error band */
  else if (!isnan(br->band_x) && br->b > br->band_x + br->band_h)
    c = br->band_x + br->band_h;
  else if (!isnan(br->band_x))
    c = br->band_x - br->a > br->b - br->band_x ? 0.5 * (br->a + br->band_x)
                                                : 0.5 * (br->band_x + br->b);
  else if (!isnan(br->nan_x)) /* the larger part beside a point without side */
    c = br->nan_x - br->a > br->b - br->nan_x ? 0.5 * (br->a + br->nan_x)
                                              : 0.5 * (br->nan_x + br->b);
  else if (isfinite(br->ga) && isfinite(br->gb) && br->ga != br->gb)
    c = br->a + (br->b - br->a) * (br->ga / (br->ga - br->gb));
  const double h = 0.5 * tol;
  if (!(c >= br->a + h)) c = br->a + h;
  if (c > br->b - h) c = br->b - h;
  return c;
}

/* Shrinks the bracket with the node just evaluated; 1 when it is on the
 * level (the crossing found exactly). */
static int shrink(bracket *br, const target *t, const node *p, double tol) {
  const int s = side(t, p);
  const double f = value(t, p);
  if (in_band(t, p)) { /* a probe within the band: look further out */
    /* probes land at band_x -+ band_h, up to the rounding of the sum */
    const int probe =
        !isnan(br->band_x) &&
        fabs(fabs(p->x - br->band_x) - br->band_h) <= 1e-6 * br->band_h;
    if (probe) {
      br->band_h *= 4.0;
    } else {
      br->band_x = p->x;
      if (isnan(br->band_h)) br->band_h = 0.5 * tol;
    }
    return 0;
  }
  br->nan_x = s == UNKNOWN ? p->x : NAN;
  if (s == UNKNOWN) return 0;
  if (s == 0) {
    br->a = br->b = p->x;
    br->fa = br->fb = 0;
    return 1;
  }
  if (s == br->sa) { /* b kept: twice in a row halves its value */
    br->a = p->x, br->fa = br->ga = f;
    if (br->kept == 1) br->gb *= 0.5;
    br->kept = 1;
  } else {
    br->b = p->x, br->fb = br->gb = f;
    if (br->kept == -1) br->ga *= 0.5;
    br->kept = -1;
  }
  return 0;
}

/* Both ends of the bracket beside its error band, at most band_h from
 * it: the probes found its sides, and what lies between is noise. */
static int band_closed(const bracket *br) {
  return !isnan(br->band_x) && br->a >= br->band_x - br->band_h &&
         br->b <= br->band_x + br->band_h;
}

/* The first pair of neighbouring nodes on opposite sides (the
 * narrowest bracket the evaluations so far give); 0 when none. */
static int first_bracket(const line *ln, const target *t, bracket *br) {
  const node *p = NULL; /* the last node with a side */
  for (size_t k = 0; k < ln->n; k++) {
    const node *q = &ln->nodes[k];
    const int s = side(t, q);
    if (s == UNKNOWN || (p && s == side(t, p) && s != 0) || (!p && s != 0)) {
      if (s != UNKNOWN) p = q;
      continue;
    }
    if (s == 0 || !p) p = q;
    *br = (bracket){p->x,        q->x,        value(t, p), value(t, q),
                    value(t, p), value(t, q), side(t, p),  0,
                    0,           NAN,         NAN,         NAN};
    return 1;
  }
  return 0;
}

/* Shrinks the bracket of `t` until it is tol wide or max_evals are spent;
 * fills the crossing's position, error and evaluations (*found 0: the
 * evaluations hold no change of side). */
static int search(line *ln, const target *t, ssw_refine_crossing *out,
                  int *found) {
  bracket br;
  *found = first_bracket(ln, t, &br);
  if (!*found) return SSW_SUCCESS;
  const double tol = ln->sp->tol;
  int done = br.a == br.b;
  while (!done && br.b - br.a > tol && br.evals < ln->sp->max_evals &&
         !band_closed(&br)) {
    size_t k = 0;
    SSW_CALL(eval_at(ln, next_position(&br, tol), &k));
    br.evals++;
    done = shrink(&br, t, &ln->nodes[k], tol);
  }
  double x = 0.5 * (br.a + br.b);
  if (br.a < br.b && isfinite(br.fa) && isfinite(br.fb) && br.fa != br.fb)
    x = br.a + (br.b - br.a) * (br.fa / (br.fa - br.fb));
  out->position = x;
  out->position_error = br.b - br.a;
  out->evaluations = br.evals;
  return SSW_SUCCESS;
}

/* Every crossing of one indicator along the edge, levels in increasing
 * order; a class change no level explains is searched by class. */
static int solve_indicator(line *ln, int ind, ssw_refine_crossing *out,
                           size_t *n) {
  const ssw_refine_edge *e = ln->e;
  const int32_t c0 = ssw_refine_class(ind, &e->s_lo);
  const int32_t c1 = ssw_refine_class(ind, &e->s_hi);
  double first, last;
  const int count = levels(ind, c0, c1, &first, &last);
  for (int k = 0; k < count; k++) {
    target t = {ind, isnan(first) ? NAN : first + k, c0};
    ssw_refine_crossing *c = &out[*n];
    *c = (ssw_refine_crossing){e->lo, e->hi, e->axis, ind, t.level, NAN,
                               NAN,   c0,    c1,      0,   0};
    int found;
    SSW_CALL(search(ln, &t, c, &found));
    if (!found) { /* the indicator misses the level: by class */
      t.level = NAN;
      SSW_CALL(search(ln, &t, c, &found));
      c->level = NAN;
    }
    if (found) (*n)++;
  }
  return SSW_SUCCESS;
}

/* The crossings of `ind` the evaluated nodes show beyond the net change
 * of the edge's ends: for a count every level between two neighbouring
 * nodes' classes, for a sign or class each change; nodes without a class
 * are passed over. Every node is evaluated once all indicators are
 * solved, so the count does not depend on which rank solved the edge. */
static int32_t skipped(const line *ln, int ind) {
  int64_t seen = 0, prev = SSW_REFINE_NO_CLASS;
  for (size_t k = 0; k < ln->n; k++) {
    const int32_t c = ssw_refine_class(ind, &ln->nodes[k].s);
    if (c == SSW_REFINE_NO_CLASS) continue;
    if (prev != SSW_REFINE_NO_CLASS)
      seen += counting(ind) ? llabs((int64_t)c - prev) : c != prev;
    prev = c;
  }
  const int32_t c0 = ssw_refine_class(ind, &ln->e->s_lo);
  const int32_t c1 = ssw_refine_class(ind, &ln->e->s_hi);
  const int64_t net = c0 == SSW_REFINE_NO_CLASS || c1 == SSW_REFINE_NO_CLASS ? 0
                      : counting(ind) ? llabs((int64_t)c1 - c0)
                                      : c1 != c0;
  return seen > net ? (int32_t)(seen - net) : 0;
}

int ssw_refine_edge_solve(const ssw_config *cfg, const ssw_refine_spec *sp,
                          const ssw_refine_edge *e, ssw_refine_eval_fn eval,
                          void *ctx, ssw_refine_crossing *out, size_t *n) {
  line ln = {.sp = sp, .e = e, .eval = eval, .ctx = ctx, .n = 2, .cap = 16};
  ssw_grid_values_at(cfg->axes, e->lo, &ln.base);
  ln.nodes = malloc(ln.cap * sizeof *ln.nodes);
  SSW_CHECK(ln.nodes, SSW_ERR_MEM, "out of memory for an edge");
  ln.nodes[0] = (node){ssw_grid_value(cfg->axes, e->lo, e->axis), e->s_lo};
  ln.nodes[1] = (node){ssw_grid_value(cfg->axes, e->hi, e->axis), e->s_hi};
  *n = 0;
  int rc = SSW_SUCCESS;
  for (int i = 0; i < SSW_REFINE_NIND && rc == SSW_SUCCESS; i++)
    if (e->indicators & (1 << i)) rc = solve_indicator(&ln, i, out, n);
  for (size_t k = 0; rc == SSW_SUCCESS && k < *n; k++)
    out[k].skipped = skipped(&ln, out[k].indicator);
  free(ln.nodes);
  return rc;
}

/* ---- the engine's evaluator ----------------------------------------- */

int ssw_refine_point_ctx_init(const ssw_config *cfg, const ssw_refine_spec *sp,
                              ssw_refine_point_ctx *ctx) {
  *ctx = (ssw_refine_point_ctx){0};
  ssw_config_ensemble(cfg, &ctx->spec);
  ctx->full_trajectories = (int32_t)ctx->spec.trajectories;
  if (ctx->spec.trajectories > sp->trajectories)
    ctx->spec.trajectories = sp->trajectories;
  ctx->spec.samples = 0;
  ctx->spec.no_exact_path = 1; /* no indicator needs it */
  if (!(sp->classes & SSW_REFINE_INTEGRATED)) return SSW_SUCCESS;
  return ssw_ensemble_create(&ctx->spec, &ctx->ens);
}

void ssw_refine_point_ctx_free(ssw_refine_point_ctx *ctx) {
  ssw_ensemble_destroy(&ctx->ens);
  ssw_ensemble_destroy(&ctx->full);
}

/* The run's whole ensemble (made on first use). */
static int full_ensemble(ssw_refine_point_ctx *c) {
  if (c->full) return SSW_SUCCESS;
  ssw_ensemble_spec all = c->spec;
  all.trajectories = c->full_trajectories;
  /* The measurements at a crossing have it, unless [output]
   * exact_path_every = 0 (ctx->spec keeps the key's value). */
  all.no_exact_path = all.path_every == 0;
  all.path_every = 1;
  return ssw_ensemble_create(&all, &c->full);
}

int ssw_refine_crossing_point(const ssw_config *cfg, ssw_refine_point_ctx *ctx,
                              const ssw_refine_crossing *c,
                              ssw_point_result *r) {
  ssw_grid_values v;
  ssw_grid_values_at(cfg->axes, c->lo, &v);
  *ssw_grid_values_field(&v, c->axis) = c->position;
  SSW_CALL(full_ensemble(ctx));
  SSW_CALL(ssw_ensemble_run(ctx->full, c->lo, &v, 0, r, NULL));
  ctx->trajectories += (uint64_t)ctx->full_trajectories;
  return SSW_SUCCESS;
}

/* The ensemble's sample at v: the first trajectories, or all of them when
 * those all took the arc g < 0 (circulation: the sample's angle is the arc
 * g > 0's) and there are more. */
static int ensemble_eval(ssw_refine_point_ctx *c, uint64_t lo,
                         const ssw_grid_values *v, ssw_refine_sample *out) {
  ssw_point_result r;
  SSW_CALL(ssw_ensemble_run(c->ens, lo, v, 0, &r, NULL));
  c->trajectories += (uint64_t)c->spec.trajectories;
  c->steps += r.steps_mean * r.trajectories;
  ssw_refine_sample_of(&r, v->energy, out);
  if (!isnan(out->turns) || isnan(r.transition_angle_lower) ||
      c->spec.trajectories >= c->full_trajectories)
    return SSW_SUCCESS;
  SSW_CALL(full_ensemble(c));
  SSW_CALL(ssw_ensemble_run(c->full, lo, v, 0, &r, NULL));
  c->trajectories += (uint64_t)c->full_trajectories;
  c->steps += r.steps_mean * r.trajectories;
  ssw_refine_sample_of(&r, v->energy, out);
  return SSW_SUCCESS;
}

int ssw_refine_point_eval(void *ctx, uint64_t lo, int32_t indicators,
                          const ssw_grid_values *v, ssw_refine_sample *out) {
  ssw_refine_point_ctx *c = ctx;
  /* An edge of closed-form indicators only (Z, L1, H_c: its edges across
   * H_c run heteroclinic trajectories that settle slowly) integrates
   * nothing. */
  if (c->ens && (indicators & SSW_REFINE_MEASURED))
    return ensemble_eval(c, lo, v, out);
  ssw_body body = c->spec.body;
  ssw_grid_values_apply(v, &body);
  ssw_point pt;
  SSW_CALL(ssw_point_setup(&body, &v->body, c->spec.zero_tol,
                           c->spec.integ.method, &pt));
  *out = (ssw_refine_sample){pt.tensor.Z,
                             pt.tensor.L1,
                             pt.analytic.dphi_abs / (2 * M_PI),
                             ssw_model_critical_energy(&pt.tensor),
                             v->energy,
                             pt.analytic.sense_future,
                             NAN,
                             SSW_REFINE_NO_CLASS,
                             NAN,
                             NAN};
  return SSW_SUCCESS;
}
