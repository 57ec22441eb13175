/* The grid check of `run --dry-run`: quick on any grid. The run itself
 * checks every point before it starts (ssw_grid_validate), which takes a
 * minute or more on a grid of 2^31 points; a preview checks every point of
 * grids up to SSW_PREVIEW_POINTS and, beyond, a sub-grid of that size made
 * of each axis's ends and evenly spaced values, and says which it did. */
#ifndef SLEIGHSWEEP_PREVIEW_H
#define SLEIGHSWEEP_PREVIEW_H

#include <stdint.h>

#include "sleighsweep/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Grids up to this many points are checked whole (about 0.05 s). */
#define SSW_PREVIEW_POINTS ((uint64_t)1 << 20)

/** What the preview checked. */
typedef struct {
  uint64_t checked; /**< grid points checked (the grid's size: all) */
  double seconds;   /**< the time it took */
} ssw_preview_check;

/** ssw_grid_validate on the whole grid when it has at most
 * SSW_PREVIEW_POINTS points, else on a sub-grid of at most that many (every
 * axis keeps its first and last value and evenly spaced ones between); a
 * sub-grid that fails is followed by the whole grid's check, so an error
 * is the one the run would give (the same message). Errors: those of
 * ssw_grid_validate; SSW_ERR_MEM. */
int ssw_preview_validate(const ssw_config *cfg, ssw_preview_check *c);

#ifdef __cplusplus
}
#endif
#endif
