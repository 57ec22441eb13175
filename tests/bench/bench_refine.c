/* Boundary refinement's cost (docs/refine.md): the core on an ideal-fluid
 * slice with classes regime, loops and sense at tol 1e-6, in process.
 * At the default ensemble (16 trajectories per point) and [refine]
 * trajectories (1 per evaluation). Appends the top-level keys
 * refine_evals_per_edge, refine_cost_ratio (base steps the refinement
 * integrates over the grid's; the wall times are printed) and
 * refine_max_position_error (the widest final bracket). */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/refine.h"

/* The (theta, B) slice in smoke and quick modes, the (a, theta) slice in
 * full mode (tests/test_refine.c has both, on coarser grids). */
static const char smoke_slice[] =
    "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
    "[grid]\ntheta = linspace(5deg, 175deg, 18)\na = 0.2\nA = 0.5\n"
    "B = linspace(0.1, 0.45, 6)\n"
    "[refine]\nclasses = regime, loops, sense\ntol = 1e-6\n";
static const char full_slice[] =
    "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
    "[grid]\ntheta = linspace(2.5deg, 177.5deg, 36)\n"
    "a = linspace(-0.3, 0.5, 10)\nA = 0.5\nB = 0.3\n"
    "[refine]\nclasses = regime, loops, sense\ntol = 1e-6\n";

typedef struct {
  size_t points, edges, crossings, evals;
  double widest, seconds, grid_seconds;
} figures;

/* Every grid point's sample, the edges and their crossings. */
static int measure(const ssw_config *cfg, ssw_refine_point_ctx *grid,
                   ssw_refine_point_ctx *ctx, figures *f) {
  ssw_refine_spec sp;
  ssw_refine_spec_of(cfg, &sp);
  f->points = (size_t)ssw_grid_size(cfg->axes);
  ssw_refine_sample *s = calloc(f->points, sizeof *s);
  SSW_CHECK(s, SSW_ERR_MEM, "out of memory");
  int rc = SSW_SUCCESS;
  const double tg = bench_now();
  for (size_t i = 0; rc == SSW_SUCCESS && i < f->points; i++) {
    ssw_grid_values v;
    ssw_grid_values_at(cfg->axes, i, &v);
    rc = ssw_refine_point_eval(grid, i, -1, &v, &s[i]);
  }
  f->grid_seconds = bench_now() - tg;
  ssw_refine_edge *e = NULL;
  const double t0 = bench_now();
  if (rc == SSW_SUCCESS) rc = ssw_refine_edges(cfg, &sp, s, &e, &f->edges);
  for (size_t k = 0; rc == SSW_SUCCESS && k < f->edges; k++) {
    ssw_refine_crossing c[256];
    size_t n = 0;
    if (ssw_refine_edge_max_crossings(&e[k]) > 256) continue;
    rc = ssw_refine_edge_solve(cfg, &sp, &e[k], ssw_refine_point_eval, ctx, c,
                               &n);
    for (size_t j = 0; j < n; j++) {
      f->evals += (size_t)c[j].evaluations;
      if (c[j].position_error > f->widest) f->widest = c[j].position_error;
    }
    f->crossings += n;
  }
  f->seconds = bench_now() - t0;
  free(e);
  free(s);
  return rc;
}

int bench_refine(const bench_opts *o, sbuf *json) {
  ssw_config *cfg = NULL;
  const int small = o->smoke || o->quick;
  const char *text = small ? smoke_slice : full_slice;
  int rc = ssw_config_parse(text, "bench_refine", &cfg);
  ssw_refine_spec sp, all;
  ssw_refine_point_ctx grid = {0}, ctx = {0};
  if (rc == SSW_SUCCESS) {
    ssw_refine_spec_of(cfg, &sp);
    all = sp;
    all.trajectories = cfg->trajectories;
    rc = ssw_refine_point_ctx_init(cfg, &all, &grid);
  }
  if (rc == SSW_SUCCESS) rc = ssw_refine_point_ctx_init(cfg, &sp, &ctx);
  figures f = {0};
  if (rc == SSW_SUCCESS) rc = measure(cfg, &grid, &ctx, &f);
  /* The cost: base steps the refinement integrates over the grid's. */
  const double ratio = grid.steps > 0 ? ctx.steps / grid.steps : 0.0;
  ssw_refine_point_ctx_free(&grid);
  ssw_refine_point_ctx_free(&ctx);
  ssw_config_destroy(&cfg);
  if (rc != SSW_SUCCESS) {
    fprintf(stderr, "bench_refine: %s\n", ssw_error_message());
    return 1;
  }
  const double per_edge = f.edges ? (double)f.evals / (double)f.edges : 0;
  printf("refinement (%s slice, tol 1e-6): %zu grid points, %zu edges, %zu "
         "crossings, %zu evaluations: %.2f per edge, %.3f of the grid's "
         "base steps, widest bracket %.3g, %.2f s (grid %.2f s: %.2f)\n",
         small ? "(theta, B)" : "(a, theta)", f.points, f.edges, f.crossings,
         f.evals, per_edge, ratio, f.widest, f.seconds, f.grid_seconds,
         f.grid_seconds > 0 ? f.seconds / f.grid_seconds : 0.0);
  sb_printf(json, "\"refine_evals_per_edge\": ");
  sb_num(json, per_edge);
  sb_printf(json, ", \"refine_cost_ratio\": ");
  sb_num(json, ratio);
  sb_printf(json, ", \"refine_max_position_error\": ");
  sb_num(json, f.widest);
  return 0;
}
