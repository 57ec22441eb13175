/* The quick grid check of `run --dry-run` (include/sleighsweep/preview.h). */
#include "sleighsweep/preview.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Values kept per axis: the longest axis gives up half its values until
 * the product fits (an axis keeps at least its two ends). */
static uint64_t choose(const ssw_config *cfg, int keep[SSW_NAXES]) {
  uint64_t n = 1;
  for (int a = 0; a < SSW_NAXES; a++)
    n *= (uint64_t)(keep[a] = cfg->axes[a].n);
  while (n > SSW_PREVIEW_POINTS) {
    int longest = 0;
    for (int a = 1; a < SSW_NAXES; a++)
      if (keep[a] > keep[longest]) longest = a;
    const int fewer = keep[longest] / 2 > 2 ? keep[longest] / 2 : 2;
    if (fewer == keep[longest]) break; /* every axis at 2: 128 points */
    n = n / (uint64_t)keep[longest] * (uint64_t)fewer;
    keep[longest] = fewer;
  }
  return n;
}

/* A copy of cfg whose axes hold `keep` evenly spaced values of each axis,
 * its ends included (the copy owns only the value arrays). */
static int sub_grid(const ssw_config *cfg, const int keep[SSW_NAXES],
                    ssw_config *sub) {
  *sub = *cfg;
  for (int a = 0; a < SSW_NAXES; a++) {
    const ssw_axis *ax = &cfg->axes[a];
    double *v = malloc((size_t)keep[a] * sizeof *v);
    for (int b = 0; b < a && !v; b++)
      free(sub->axes[b].values);
    SSW_CHECK(v, SSW_ERR_MEM, "out of memory for the preview's grid");
    for (int k = 0; k < keep[a]; k++) {
      const int i =
          keep[a] == 1 ? 0 : (int)((int64_t)k * (ax->n - 1) / (keep[a] - 1));
      v[k] = ax->values[i];
    }
    sub->axes[a].values = v;
    sub->axes[a].n = keep[a];
  }
  return SSW_SUCCESS;
}

int ssw_preview_validate(const ssw_config *cfg, ssw_preview_check *c) {
  const double t0 = now();
  const uint64_t n = ssw_grid_size(cfg->axes);
  int keep[SSW_NAXES];
  memset(c, 0, sizeof *c);
  if (n > SSW_GRID_MAX_POINTS || choose(cfg, keep) == n) {
    c->checked = n; /* whole (or refused at once for its size) */
    SSW_CALL(ssw_grid_validate(cfg));
    c->seconds = now() - t0;
    return SSW_SUCCESS;
  }
  ssw_config sub;
  SSW_CALL(sub_grid(cfg, keep, &sub));
  c->checked = ssw_grid_size(sub.axes);
  const int rc = ssw_grid_validate(&sub);
  for (int a = 0; a < SSW_NAXES; a++)
    free(sub.axes[a].values);
  c->seconds = now() - t0;
  /* The run's own message, for the first bad point of the whole grid. */
  if (rc != SSW_SUCCESS) return ssw_grid_validate(cfg);
  return SSW_SUCCESS;
}
