/* The grid: flat indices, per-point values, grid-wide validation. */
#ifndef SLEIGHSWEEP_GRID_H
#define SLEIGHSWEEP_GRID_H

#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/ensemble.h"
#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of grid points (product of the axis lengths); UINT64_MAX when the
 * product does not fit in 64 bits (ssw_grid_validate refuses such grids). */
uint64_t ssw_grid_size(const ssw_config *cfg);

/** Axis indices of a flat index (row-major over the SSW_NAXES axes:
 * theta slowest, energy fastest; axes of one value leave the flat index of
 * the body's seven as it is). */
void ssw_grid_unravel(const ssw_config *cfg, uint64_t index,
                      int idx[SSW_NAXES]);

/** Flat index of axis indices. */
uint64_t ssw_grid_ravel(const ssw_config *cfg, const int idx[SSW_NAXES]);

/** The field of `v` that holds axis `axis` (SSW_AXIS_*). */
double *ssw_grid_values_field(ssw_grid_values *v, int axis);

/** Every axis's value at a flat index: the body's parameters and the run's
 * Gamma, energy and drag. */
void ssw_grid_values_at(const ssw_config *cfg, uint64_t index,
                        ssw_grid_values *v);

/** The body's parameters at a flat index (ssw_grid_values_at's body). */
void ssw_grid_params(const ssw_config *cfg, uint64_t index, ssw_params *p);

/** The value of axis `axis` (SSW_AXIS_*) at a flat index. */
double ssw_grid_value(const ssw_config *cfg, uint64_t index, int axis);

/** Checks every grid point before any work starts: size <= 2^31, A > B
 * everywhere, and a positive definite tensor at each point. Errors:
 * SSW_ERR_CONFIG naming the config line of the responsible axis and the
 * first offending point. */
int ssw_grid_validate(const ssw_config *cfg);

#ifdef __cplusplus
}
#endif
#endif
