/* A refinement slice as the engine runs it, for the tests of the core
 * (test_refine.c, test_refine_drift.c): the grid's points evaluated with
 * their whole ensemble, the refinement's with [refine] trajectories (the
 * engine's split), and the edges. Uses test_util.h's EXPECT. */
#ifndef SSW_TESTS_REFINE_SLICE_H
#define SSW_TESTS_REFINE_SLICE_H
#include <stdlib.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/refine.h"
#include "test_util.h"

typedef struct {
  ssw_config *cfg;
  ssw_refine_spec sp;
  ssw_refine_point_ctx grid, ctx; /* the grid's evaluator, the refinement's */
  ssw_refine_sample *s;           /* every grid point's sample */
  ssw_refine_edge *edges;
  size_t ne;
} refine_slice;

/* Parses `text`, evaluates the grid and lists its edges; 0 when the
 * config does not parse (a failure recorded). */
static inline int refine_slice_open(refine_slice *r, const char *name,
                                    const char *text) {
  *r = (refine_slice){0};
  EXPECT(ssw_config_parse(text, name, &r->cfg) == SSW_SUCCESS, "%s: %s", name,
         ssw_error_message());
  if (!r->cfg) return 0;
  ssw_refine_spec_of(r->cfg, &r->sp);
  ssw_refine_spec all = r->sp;
  all.trajectories = r->cfg->trajectories;
  EXPECT(ssw_refine_point_ctx_init(r->cfg, &all, &r->grid) == SSW_SUCCESS &&
             ssw_refine_point_ctx_init(r->cfg, &r->sp, &r->ctx) == SSW_SUCCESS,
         "%s: evaluators", name);
  const uint64_t n = ssw_grid_size(r->cfg->axes);
  r->s = calloc(n, sizeof *r->s);
  for (uint64_t i = 0; r->s && i < n; i++) {
    ssw_grid_values v;
    ssw_grid_values_at(r->cfg->axes, i, &v);
    EXPECT(ssw_refine_point_eval(&r->grid, i, -1, &v, &r->s[i]) == SSW_SUCCESS,
           "%s: grid point %llu", name, (unsigned long long)i);
  }
  EXPECT(r->s && ssw_refine_edges(r->cfg, &r->sp, r->s, &r->edges, &r->ne) ==
                     SSW_SUCCESS,
         "%s: edges", name);
  return r->s != NULL;
}

static inline void refine_slice_close(refine_slice *r) {
  free(r->edges);
  free(r->s);
  ssw_refine_point_ctx_free(&r->grid);
  ssw_refine_point_ctx_free(&r->ctx);
  ssw_config_destroy(&r->cfg);
}
#endif
