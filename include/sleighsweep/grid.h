/* The grid: its axes (names.h SSW_AXES), flat indices and the values at a
 * point. Below the config and the output, which both index the grid; the
 * grid-wide validation, which needs the config's body, is the config's
 * (ssw_grid_validate, config.h). */
#ifndef SLEIGHSWEEP_GRID_H
#define SLEIGHSWEEP_GRID_H

#include <stdint.h>

#include "sleighsweep/ensemble.h"
#include "sleighsweep/model.h"
#include "sleighsweep/names.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of grid axes and their order (row-major, theta slowest, the last
 * run axis fastest), from the list SSW_AXES in names.h: the body's
 * (SSW_NBODY_AXES, model.h; ssw_params holds their values) and the run's. */
#define SSW_NAXES (0 SSW_AXES(SSW_NAME_COUNT))
/** Axis indices: SSW_AXIS_THETA ... (names.h). */
#define SSW_AXIS_ENUM_(id, index, ...) SSW_AXIS_##id = index,
enum { SSW_AXES(SSW_AXIS_ENUM_) };
/** Axis names in storage order: theta a b r s A B Gamma energy ... */
extern const char *const ssw_axis_names[SSW_NAXES];

/** Largest grid the output supports (points). */
#define SSW_GRID_MAX_POINTS ((uint64_t)1 << 31)

/** One axis of the grid: strictly increasing values (theta in radians). */
typedef struct {
  int n;          /**< number of values (>= 1) */
  double *values; /**< n values */
  int line;       /**< line of the config that defined it (0: default) */
} ssw_axis;

/** Number of grid points (product of the axis lengths) of the SSW_NAXES
 * axes `axes` (a config's cfg->axes); UINT64_MAX when the product does not
 * fit in 64 bits (ssw_grid_validate refuses such grids). */
uint64_t ssw_grid_size(const ssw_axis *axes);

/** Axis indices of a flat index (row-major over the SSW_NAXES axes:
 * theta slowest; axes of one value leave the flat index of the body's
 * axes as it is). */
void ssw_grid_unravel(const ssw_axis *axes, uint64_t index, int idx[SSW_NAXES]);

/** Flat index of axis indices. */
uint64_t ssw_grid_ravel(const ssw_axis *axes, const int idx[SSW_NAXES]);

/** The field of `v` that holds axis `axis` (SSW_AXIS_*). */
double *ssw_grid_values_field(ssw_grid_values *v, int axis);

/** The values at axis indices idx (key not set). */
void ssw_grid_values_of(const ssw_axis *axes, const int idx[SSW_NAXES],
                        ssw_grid_values *v);

/** Every axis's value at a flat index: the body's parameters and the run's
 * values, and the key of the point's initial conditions. */
void ssw_grid_values_at(const ssw_axis *axes, uint64_t index,
                        ssw_grid_values *v);

/** The body's parameters at a flat index (ssw_grid_values_at's body). */
void ssw_grid_params(const ssw_axis *axes, uint64_t index, ssw_params *p);

/** The value of axis `axis` (SSW_AXIS_*) at a flat index. */
double ssw_grid_value(const ssw_axis *axes, uint64_t index, int axis);

/** Advances axis indices to the next flat index (an odometer, the last
 * axis fastest). */
void ssw_grid_next(const ssw_axis *axes, int idx[SSW_NAXES]);

#ifdef __cplusplus
}
#endif
#endif
