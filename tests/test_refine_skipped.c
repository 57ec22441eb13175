/* The levels a refinement edge skips are reported: an edge whose loop
 * count goes from 3.5 up to 15.5 and down to 6.5 (a tent in theta) has the
 * net change of 3 levels (4, 5, 6) located, and `skipped` on each of its
 * crossings counts the other levels the evaluations saw crossed: recomputed
 * here from the evaluated positions (every level between two neighbouring
 * evaluations' floors, less the 3 located), more than 0 and at most the
 * 18 the tent has beyond the net (up 12, down 9, less 3). An edge whose
 * count rises monotonically skips none. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/refine.h"
#include "test_util.h"

static const char CONFIG[] = "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
                             "[grid]\ntheta = 10deg, 80deg\na = 0.1\n"
                             "A = 0.5\nB = 0.3\n"
                             "[output]\nfile = unused.h5\n"
                             "[refine]\nclasses = loops\ntol = 1e-9\n";

typedef struct {
  double x0, x1;
  int tent;        /* 1: the tent, 0: a monotonic rise 3.5 -> 6.5 */
  double xs[4096]; /* the positions evaluated, in order */
  size_t n;
} field;

static double turns_at(const field *f, double x) {
  const double u = (x - f->x0) / (f->x1 - f->x0);
  if (!f->tent) return 3.5 + 3.0 * u;
  return u <= 0.5 ? 3.5 + 24.0 * u : 15.5 - 18.0 * (u - 0.5);
}

static int eval(void *ctx, uint64_t lo, int32_t indicators,
                const ssw_grid_values *v, ssw_refine_sample *out) {
  (void)lo, (void)indicators;
  field *f = ctx;
  ssw_grid_values w = *v;
  const double x = *ssw_grid_values_field(&w, SSW_AXIS_THETA);
  if (f->n < sizeof f->xs / sizeof *f->xs) f->xs[f->n++] = x;
  memset(out, 0, sizeof *out);
  out->Z = out->L1 = 1; /* away from E = 0, where a count has no value */
  out->turns = turns_at(f, x);
  return SSW_SUCCESS;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Levels crossed between neighbouring evaluations (ends included). */
static long levels_seen(field *f) {
  double xs[4098];
  size_t n = 0;
  xs[n++] = f->x0;
  xs[n++] = f->x1;
  for (size_t k = 0; k < f->n; k++)
    xs[n++] = f->xs[k];
  qsort(xs, n, sizeof *xs, by_value);
  long seen = 0;
  for (size_t k = 1; k < n; k++)
    seen += labs((long)floor(turns_at(f, xs[k])) -
                 (long)floor(turns_at(f, xs[k - 1])));
  return seen;
}

static void solve(const ssw_config *cfg, int tent) {
  ssw_refine_spec sp;
  ssw_refine_spec_of(cfg, &sp);
  field *f = calloc(1, sizeof *f);
  f->x0 = ssw_grid_value(cfg->axes, 0, SSW_AXIS_THETA);
  f->x1 = ssw_grid_value(cfg->axes, 1, SSW_AXIS_THETA);
  f->tent = tent;
  ssw_refine_edge e = {0};
  e.hi = 1;
  e.axis = SSW_AXIS_THETA;
  e.indicators = 1 << SSW_REFINE_IND_TURNS;
  e.s_lo.Z = e.s_lo.L1 = e.s_hi.Z = e.s_hi.L1 = 1;
  e.s_lo.turns = turns_at(f, f->x0);
  e.s_hi.turns = turns_at(f, f->x1);
  const size_t cap = ssw_refine_edge_max_crossings(&e);
  ssw_refine_crossing *c = calloc(cap, sizeof *c);
  size_t n = 0;
  EXPECT(ssw_refine_edge_solve(cfg, &sp, &e, eval, f, c, &n) == SSW_SUCCESS,
         "edge_solve: %s", ssw_error_message());
  EXPECT(n == 3, "tent %d: %zu crossings, want the 3 of the net change", tent,
         n);
  const long want = levels_seen(f) - 3;
  for (size_t k = 0; k < n; k++) {
    EXPECT(c[k].level == 4.0 + (double)k, "crossing %zu: level %g", k,
           c[k].level);
    EXPECT(c[k].skipped == want,
           "tent %d crossing %zu: skipped %d, the "
           "evaluations show %ld",
           tent, k, c[k].skipped, want);
  }
  if (tent)
    EXPECT(want > 0 && want <= 18, "tent: %ld levels skipped seen", want);
  else
    EXPECT(want == 0, "monotonic: %ld levels skipped seen", want);
  printf("tent %d: %zu crossings, %zu evaluations, %ld levels skipped "
         "reported\n",
         tent, n, f->n, want);
  free(c);
  free(f);
}

int main(void) {
  ssw_config *cfg = NULL;
  EXPECT(ssw_config_parse(CONFIG, "test", &cfg) == SSW_SUCCESS, "config: %s",
         ssw_error_message());
  if (cfg) {
    solve(cfg, 1);
    solve(cfg, 0);
  }
  ssw_config_destroy(&cfg);
  TEST_RESULT();
}
