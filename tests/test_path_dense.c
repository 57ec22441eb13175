/* Dense output of sample trajectories (ssw_path_dense): rows at evenly
 * spaced times, on the exact path within the accuracy docs/config.md ("Sample
 * trajectories") promises, over the wide random domain at the default settings.
 */
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/path.h"
#include "test_util.h"
#include "wide_batch.h"

#define NDRAW 120
#define SEED 7

/* Largest distance of the rows of q from the exact path through (w0, v0),
 * (contact point) and heading, and the path's extent (largest distance of a
 * row from the start). */
static void errors_of(const wb_draw *d, ssw_path *q, double *pos, double *head,
                      double *extent) {
  EXPECT(ssw_path_exact(q, &d->t, d->regime, d->w0, d->v0, NULL, pos, head) ==
             0,
         "exact path");
  *extent = 0;
  for (size_t i = 0; i < q->n; i++)
    *extent = fmax(*extent, hypot(q->rows[i][2], q->rows[i][3]));
}

/* The rows a sweep compares (path.h SSW_PATH_COMPARE_ROWS): of each leg
 * walking away from t = 0, every k-th (k = rows / per_leg, at least 1) and
 * the last, into q's rows (in time order). */
static size_t sampled_rows(const ssw_path *p, int per_leg,
                           double (*out)[SSW_PATH_NQ]) {
  long i0 = 0;
  while (i0 < (long)p->n && p->rows[i0][0] < 0.0)
    i0++;
  size_t n = 0;
  const long back = i0, fwd = (long)p->n - i0;
  const long kb = back > per_leg ? back / per_leg : 1;
  const long kf = fwd > per_leg ? fwd / per_leg : 1;
  for (long i = 0; i < i0; i++) { /* backward leg, walked from i0 - 1 down */
    const long step = i0 - i;     /* 1 for i0 - 1 */
    if (step % kb == 0 || i == 0) memcpy(out[n++], p->rows[i], sizeof *out);
  }
  for (long i = i0; i < (long)p->n; i++) {
    const long step = i - i0 + 1;
    if (step % kf == 0 || i == (long)p->n - 1)
      memcpy(out[n++], p->rows[i], sizeof *out);
  }
  return n;
}

int main(void) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  double worst_pos[2] = {-1, -1}, worst_head[2] = {-1, -1};
  const size_t sizes[2] = {256, 4096};
  int used = 0;
  double sampled_max = 0;
  for (int i = 0; used < NDRAW && i < 10 * NDRAW; i++) {
    wb_draw d;
    if (wb_draw_one(SEED, i, &d) != 0) continue;
    used++;
    ssw_path p = {0};
    ssw_traj r;
    EXPECT(ssw_extract_run(&d.t, d.regime, d.w0, d.v0, &o, ssw_path_record, &p,
                           &r) == 0,
           "extract draw %d", i);
    EXPECT(ssw_path_sort(&p) == 0, "sort");
    double npos, nhead, next;
    errors_of(&d, &p, &npos, &nhead, &next);
    /* A sweep's sampled comparison (path_error_max): exactly the full
     * comparison of the rows it picks (the same stretches of the
     * quadrature), and never above the full one beyond the quadrature's
     * round-off (docs/theory/exact-path.md: 1e-12 of max(1, extent)). */
    {
      double spos, shead, fpos, fhead, ext;
      EXPECT(ssw_path_exact_sampled(&p, &d.t, d.regime, d.w0, d.v0,
                                    SSW_PATH_COMPARE_ROWS, NULL, &spos,
                                    &shead) == 0,
             "draw %d: sampled comparison", i);
      double(*sub)[SSW_PATH_NQ] = malloc(p.n * sizeof *sub);
      ssw_path q = {.rows = sub,
                    .n = sampled_rows(&p, SSW_PATH_COMPARE_ROWS, sub),
                    .cap = p.n};
      errors_of(&d, &q, &fpos, &fhead, &ext);
      EXPECT(q.n <= 2 * (2 * SSW_PATH_COMPARE_ROWS + 2) && spos == fpos &&
                 shead == fhead,
             "draw %d: %zu sampled rows, position %.17g against %.17g, "
             "heading %.17g against %.17g",
             i, q.n, spos, fpos, shead, fhead);
      EXPECT(spos <= npos + 1e-12 * fmax(1.0, next) &&
                 shead <= nhead + 1e-12 * fmax(1.0, nhead),
             "draw %d: sampled %.3g, %.3g above all rows' %.3g, %.3g", i, spos,
             shead, npos, nhead);
      sampled_max = fmax(sampled_max, (double)q.n);
      free(sub);
    }
    for (int z = 0; z < 2; z++) {
      const size_t n = sizes[z];
      double(*rows)[SSW_PATH_NQ] = malloc(n * sizeof *rows);
      ssw_path_dense(&p, &d.t, n, rows);
      /* Evenly spaced times, first and last node's exactly. */
      EXPECT(rows[0][0] == p.rows[0][0] && rows[n - 1][0] == p.rows[p.n - 1][0],
             "draw %d: end times", i);
      const double dt = (rows[n - 1][0] - rows[0][0]) / (double)(n - 1);
      for (size_t k = 1; k < n; k++)
        EXPECT(fabs(rows[k][0] - rows[k - 1][0] - dt) <= 1e-12 * fabs(dt) * n,
               "draw %d: uneven time at %zu", i, k);
      ssw_path q = {.rows = rows, .n = n, .cap = n};
      double pos, head, ext;
      errors_of(&d, &q, &pos, &head, &ext);
      const double rel = pos / fmax(ext, 1e-300);
      /* The promise (docs/config.md, "Sample trajectories"): the rows are as
       * accurate as the integrator's own nodes, to within 1e-10 (position
       * relative to the extent; heading in rad). */
      EXPECT(rel <= npos / next + 1e-10 && head <= nhead + 1e-10,
             "draw %d, %zu rows: position %.3g of extent (nodes %.3g), "
             "heading %.3g rad (nodes %.3g)",
             i, n, rel, npos / next, head, nhead);
      worst_pos[z] = fmax(worst_pos[z], rel - npos / next);
      worst_head[z] = fmax(worst_head[z], head - nhead);
      free(rows);
    }
    ssw_path_free(&p);
  }
  printf("dense output over %d draws, largest error added to the nodes' "
         "own: 256 rows: position %.2e of extent, heading %.2e rad; 4096 "
         "rows: %.2e, %.2e\n",
         used, worst_pos[0], worst_head[0], worst_pos[1], worst_head[1]);
  printf("sampled comparison: at most %.0f rows of a path, equal to the "
         "comparison of those rows\n",
         sampled_max);
  return TEST_RESULT();
}
