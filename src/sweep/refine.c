/* Boundary refinement (include/sleighsweep/refine.h): the edges of a coarse
 * grid whose ends differ in class, and the crossings along each, located by
 * Illinois regula falsi on a continuous indicator. No MPI, no HDF5. */
#include "sleighsweep/refine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/point.h"

const char *const ssw_refine_indicator_names[SSW_REFINE_NIND] = {
    SSW_REFINE_INDICATORS(SSW_NAME_AT)};

/* Class bit of each indicator. */
#define IND_CLASS_(id, value, name, cls, ...) [value] = SSW_REFINE_##cls,
static const int32_t ind_class[SSW_REFINE_NIND] = {
    SSW_REFINE_INDICATORS(IND_CLASS_)};

void ssw_refine_sample_of(const ssw_point_result *r, double H,
                          ssw_refine_sample *s) {
  *s = (ssw_refine_sample){r->tensor.Z,
                           r->tensor.L1,
                           r->transition_angle / (2 * M_PI),
                           r->critical_energy,
                           H,
                           r->sense_future};
}

static int32_t sign_of(double x) { return (x > 0) - (x < 0); }

int32_t ssw_refine_class(int ind, const ssw_refine_sample *s) {
  switch (ind) {
  case SSW_REFINE_IND_Z: return sign_of(s->Z);
  case SSW_REFINE_IND_L1: return sign_of(s->L1);
  case SSW_REFINE_IND_TURNS:
    return isfinite(s->turns) && s->turns < 1e9 ? (int32_t)floor(s->turns)
                                                : SSW_REFINE_NO_CLASS;
  case SSW_REFINE_IND_MU2: return sign_of(s->Hc / s->H - 1);
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
  default: return -s->Z;
  }
}

void ssw_refine_spec_of(const ssw_config *cfg, ssw_refine_spec *sp) {
  sp->classes = cfg->refine_classes;
  sp->tol = cfg->refine_tol;
  sp->max_evals = cfg->refine_max_evals;
  sp->trajectories = cfg->refine_trajectories;
}

/* ---- the edges ------------------------------------------------------ */

/* Indicators (bits) of sp whose class differs between two samples. */
static int32_t differing(const ssw_refine_spec *sp, const ssw_refine_sample *a,
                         const ssw_refine_sample *b) {
  int32_t bits = 0;
  for (int i = 0; i < SSW_REFINE_NIND; i++)
    if ((sp->classes & ind_class[i]) &&
        ssw_refine_class(i, a) != ssw_refine_class(i, b))
      bits |= 1 << i;
  return bits;
}

int ssw_refine_edges(const ssw_config *cfg, const ssw_refine_spec *sp,
                     const ssw_refine_sample *samples, ssw_refine_edge **edges,
                     size_t *n) {
  const uint64_t size = ssw_grid_size(cfg);
  uint64_t stride[SSW_NAXES];
  stride[SSW_NAXES - 1] = 1;
  for (int a = SSW_NAXES - 1; a > 0; a--)
    stride[a - 1] = stride[a] * (uint64_t)cfg->axes[a].n;
  size_t cap = 0, m = 0;
  ssw_refine_edge *out = NULL;
  for (uint64_t i = 0; i < size; i++) {
    int idx[SSW_NAXES];
    ssw_grid_unravel(cfg, i, idx);
    for (int a = 0; a < SSW_NAXES; a++) {
      if (idx[a] + 1 >= cfg->axes[a].n) continue;
      const uint64_t j = i + stride[a];
      const int32_t bits = differing(sp, &samples[i], &samples[j]);
      if (!bits) continue;
      if (m == cap) {
        cap = cap ? 2 * cap : 64;
        ssw_refine_edge *grown = realloc(out, cap * sizeof *out);
        if (!grown) free(out);
        SSW_CHECK(grown, SSW_ERR_MEM, "out of memory for %zu edges", cap);
        out = grown;
      }
      out[m++] = (ssw_refine_edge){i, j, a, bits, samples[i], samples[j]};
    }
  }
  *edges = out;
  *n = m;
  return SSW_SUCCESS;
}

/* The near miss of an edge with equal loop classes, if any. */
static int near_miss(const ssw_refine_sample *a, const ssw_refine_sample *b,
                     double *level, double *distance) {
  const int32_t k = ssw_refine_class(SSW_REFINE_IND_TURNS, a);
  if (k == SSW_REFINE_NO_CLASS ||
      k != ssw_refine_class(SSW_REFINE_IND_TURNS, b))
    return 0;
  const double below = fmin(a->turns, b->turns) - k;
  const double above = k + 1 - fmax(a->turns, b->turns);
  *level = below <= above ? k : k + 1.0;
  *distance = fmin(below, above);
  return *distance < SSW_REFINE_NEAR_MARGIN;
}

int ssw_refine_near_misses(const ssw_config *cfg, const ssw_refine_spec *sp,
                           const ssw_refine_sample *samples,
                           ssw_refine_near **near, size_t *n) {
  *near = NULL;
  *n = 0;
  if (!(sp->classes & SSW_REFINE_LOOPS)) return SSW_SUCCESS;
  const uint64_t size = ssw_grid_size(cfg);
  uint64_t stride[SSW_NAXES];
  stride[SSW_NAXES - 1] = 1;
  for (int a = SSW_NAXES - 1; a > 0; a--)
    stride[a - 1] = stride[a] * (uint64_t)cfg->axes[a].n;
  size_t cap = 0;
  for (uint64_t i = 0; i < size; i++) {
    int idx[SSW_NAXES];
    ssw_grid_unravel(cfg, i, idx);
    for (int a = 0; a < SSW_NAXES; a++) {
      double level, distance;
      const uint64_t j = i + stride[a];
      if (idx[a] + 1 >= cfg->axes[a].n ||
          !near_miss(&samples[i], &samples[j], &level, &distance))
        continue;
      if (*n == cap) {
        cap = cap ? 2 * cap : 16;
        ssw_refine_near *grown = realloc(*near, cap * sizeof *grown);
        if (!grown) free(*near), *near = NULL, *n = 0;
        SSW_CHECK(grown, SSW_ERR_MEM, "out of memory for near misses");
        *near = grown;
      }
      (*near)[(*n)++] = (ssw_refine_near){i, j, a, level, distance};
    }
  }
  return SSW_SUCCESS;
}

/* The levels an indicator crosses between two classes: [*first, *last]
 * (one level, NaN, when a class is missing: found by the class alone). */
static int levels(int ind, int32_t c0, int32_t c1, double *first,
                  double *last) {
  if (c0 == SSW_REFINE_NO_CLASS || c1 == SSW_REFINE_NO_CLASS) {
    *first = *last = NAN;
    return 1;
  }
  if (ind != SSW_REFINE_IND_TURNS) {
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
  SSW_CALL(ln->eval(ln->ctx, ln->e->lo, &v, &s));
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

static double value(const target *t, const node *p) {
  return isnan(t->level) ? NAN : indicator(t->ind, &p->s) - t->level;
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
} bracket;

/* The next position: regula falsi on the scaled values (bisection when
 * one is NaN), at least tol / 2 inside the bracket, so that a step next to
 * the root closes the bracket on the other side. A function of the
 * bracket alone. */
static double next_position(const bracket *br, double tol) {
  double c = 0.5 * (br->a + br->b);
  if (!isnan(br->nan_x)) /* the larger part beside a point without side */
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
static int shrink(bracket *br, const target *t, const node *p) {
  const int s = side(t, p);
  const double f = value(t, p);
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
                    0,           NAN};
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
  while (!done && br.b - br.a > tol && br.evals < ln->sp->max_evals) {
    size_t k = 0;
    SSW_CALL(eval_at(ln, next_position(&br, tol), &k));
    br.evals++;
    done = shrink(&br, t, &ln->nodes[k]);
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
    *c = (ssw_refine_crossing){e->lo, e->hi, e->axis, ind, t.level,
                               NAN,   NAN,   c0,      c1,  0};
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

int ssw_refine_edge_solve(const ssw_config *cfg, const ssw_refine_spec *sp,
                          const ssw_refine_edge *e, ssw_refine_eval_fn eval,
                          void *ctx, ssw_refine_crossing *out, size_t *n) {
  line ln = {.sp = sp, .e = e, .eval = eval, .ctx = ctx, .n = 2, .cap = 16};
  ssw_grid_values_at(cfg, e->lo, &ln.base);
  ln.nodes = malloc(ln.cap * sizeof *ln.nodes);
  SSW_CHECK(ln.nodes, SSW_ERR_MEM, "out of memory for an edge");
  ln.nodes[0] = (node){ssw_grid_value(cfg, e->lo, e->axis), e->s_lo};
  ln.nodes[1] = (node){ssw_grid_value(cfg, e->hi, e->axis), e->s_hi};
  *n = 0;
  int rc = SSW_SUCCESS;
  for (int i = 0; i < SSW_REFINE_NIND && rc == SSW_SUCCESS; i++)
    if (e->indicators & (1 << i)) rc = solve_indicator(&ln, i, out, n);
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
  if (!(sp->classes & (SSW_REFINE_LOOPS | SSW_REFINE_SENSE)))
    return SSW_SUCCESS;
  return ssw_ensemble_create(&ctx->spec, &ctx->ens);
}

void ssw_refine_point_ctx_free(ssw_refine_point_ctx *ctx) {
  ssw_ensemble_destroy(&ctx->ens);
  ssw_ensemble_destroy(&ctx->full);
}

/* The ensemble's sample at v: the first trajectories, or all of them when
 * those all took the arc g < 0 (circulation: the sample's angle is the arc
 * g > 0's) and there are more. */
static int ensemble_eval(ssw_refine_point_ctx *c, uint64_t lo,
                         const ssw_grid_values *v, ssw_refine_sample *out) {
  ssw_point_result r;
  SSW_CALL(ssw_ensemble_run(c->ens, lo, v, 0, &r, NULL));
  c->trajectories += (uint64_t)c->spec.trajectories;
  ssw_refine_sample_of(&r, v->energy, out);
  if (!isnan(out->turns) || isnan(r.transition_angle_lower) ||
      c->spec.trajectories >= c->full_trajectories)
    return SSW_SUCCESS;
  if (!c->full) {
    ssw_ensemble_spec all = c->spec;
    all.trajectories = c->full_trajectories;
    SSW_CALL(ssw_ensemble_create(&all, &c->full));
  }
  SSW_CALL(ssw_ensemble_run(c->full, lo, v, 0, &r, NULL));
  c->trajectories += (uint64_t)c->full_trajectories;
  ssw_refine_sample_of(&r, v->energy, out);
  return SSW_SUCCESS;
}

int ssw_refine_point_eval(void *ctx, uint64_t lo, const ssw_grid_values *v,
                          ssw_refine_sample *out) {
  ssw_refine_point_ctx *c = ctx;
  if (c->ens) return ensemble_eval(c, lo, v, out);
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
                             pt.analytic.sense_future};
  return SSW_SUCCESS;
}
