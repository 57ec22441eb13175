/* The grid's flat indices and the values at a point (grid.h). */
#include "sleighsweep/grid.h"

#include <stddef.h>

const char *const ssw_axis_names[SSW_NAXES] = {SSW_AXES(SSW_NAME_AT)};

uint64_t ssw_grid_size(const ssw_axis *axes) {
  for (int a = 0; a < SSW_NAXES; a++)
    if (axes[a].n <= 0) return 0;
  uint64_t size = 1;
  for (int a = 0; a < SSW_NAXES; a++) {
    const uint64_t n = (uint64_t)axes[a].n;
    if (size > UINT64_MAX / n) return UINT64_MAX; /* saturate */
    size *= n;
  }
  return size;
}

void ssw_grid_unravel(const ssw_axis *axes, uint64_t index,
                      int idx[SSW_NAXES]) {
  for (int a = SSW_NAXES - 1; a >= 0; a--) {
    const uint64_t n = (uint64_t)axes[a].n;
    idx[a] = (int)(index % n);
    index /= n;
  }
}

uint64_t ssw_grid_ravel(const ssw_axis *axes, const int idx[SSW_NAXES]) {
  uint64_t index = 0;
  for (int a = 0; a < SSW_NAXES; a++)
    index = index * (uint64_t)axes[a].n + (uint64_t)idx[a];
  return index;
}

/* Where ssw_grid_values holds each axis (names.h: the body's in `body`,
 * the run's in their own fields). */
#define BODY_OFFSET_(id, index, name, units, long_name, field)                 \
  [index] = offsetof(ssw_grid_values, body.field),
#define RUN_OFFSET_(id, index, name, units, long_name, field, ...)             \
  [index] = offsetof(ssw_grid_values, field),
static const size_t values_offset[SSW_NAXES] = {SSW_BODY_AXES(BODY_OFFSET_)
                                                    SSW_RUN_AXES(RUN_OFFSET_)};

double *ssw_grid_values_field(ssw_grid_values *v, int axis) {
  return (double *)(void *)((char *)v + values_offset[axis]);
}

void ssw_grid_values_of(const ssw_axis *axes, const int idx[SSW_NAXES],
                        ssw_grid_values *v) {
  for (int a = 0; a < SSW_NAXES; a++)
    *ssw_grid_values_field(v, a) = axes[a].values[idx[a]];
}

void ssw_grid_values_at(const ssw_axis *axes, uint64_t index,
                        ssw_grid_values *v) {
  int idx[SSW_NAXES];
  ssw_grid_unravel(axes, index, idx);
  ssw_grid_values_of(axes, idx, v);
  /* The run axes are the fastest: the body's flat index is the quotient. */
  uint64_t run = 1;
  for (int a = SSW_NBODY_AXES; a < SSW_NAXES; a++)
    run *= (uint64_t)axes[a].n;
  v->key = index / run;
}

void ssw_grid_params(const ssw_axis *axes, uint64_t index, ssw_params *p) {
  ssw_grid_values v;
  ssw_grid_values_at(axes, index, &v);
  *p = v.body;
}

double ssw_grid_value(const ssw_axis *axes, uint64_t index, int axis) {
  int idx[SSW_NAXES];
  ssw_grid_unravel(axes, index, idx);
  return axes[axis].values[idx[axis]];
}

void ssw_grid_next(const ssw_axis *axes, int idx[SSW_NAXES]) {
  for (int a = SSW_NAXES - 1; a >= 0; a--) {
    if (++idx[a] < axes[a].n) return;
    idx[a] = 0;
  }
}
