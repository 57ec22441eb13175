/* Recorded paths: growable rows of sampled nodes, sorted by time. */
#include "sleighsweep/path.h"

#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"

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
