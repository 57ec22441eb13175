/* Growable arrays of point results with their sample buffers. */
#include "sleighsweep/result.h"

#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"

int ssw_result_buf_reserve(ssw_result_buf *b, size_t need) {
  if (need <= b->cap) return SSW_SUCCESS;
  size_t cap = b->cap ? 2 * b->cap : 64;
  while (cap < need)
    cap *= 2;
  ssw_point_result *p = realloc(b->pts, cap * sizeof *p);
  SSW_CHECK(p, SSW_ERR_MEM, "out of memory for %zu point results", cap);
  b->pts = p;
  if (b->sdoubles) {
    double *s = realloc(b->samples, cap * b->sdoubles * sizeof *s);
    SSW_CHECK(s, SSW_ERR_MEM, "out of memory for %zu sample buffers", cap);
    b->samples = s;
  }
  b->cap = cap;
  return SSW_SUCCESS;
}

int ssw_result_buf_push(ssw_result_buf *b, const ssw_point_result *r,
                        const double *samples) {
  SSW_CALL(ssw_result_buf_reserve(b, b->n + 1));
  b->pts[b->n] = *r;
  if (b->sdoubles)
    memcpy(ssw_result_buf_samples(b, b->n), samples,
           b->sdoubles * sizeof *samples);
  b->n++;
  return SSW_SUCCESS;
}

void ssw_result_buf_free(ssw_result_buf *b) {
  if (!b) return;
  free(b->pts);
  free(b->samples);
  b->pts = NULL, b->samples = NULL;
  b->n = b->cap = 0;
}
