/* The refinement's side of the output: the coarse grid's classes read
 * back, and the located crossings written to the group /boundaries
 * (docs/output.md, "Boundaries"). */
#ifndef SLEIGHSWEEP_H5BOUNDARIES_H
#define SLEIGHSWEEP_H5BOUNDARIES_H

#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/h5out.h"
#include "sleighsweep/refine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reads every grid point's refinement sample (Z, L1, transition_angle,
 * sense_future, critical_energy; not H, which the grid gives) into rank
 * 0's s[0 .. grid size - 1], after a flush of
 * what every rank wrote. Collective; other ranks pass NULL. Errors (on
 * every rank): SSW_ERR_ARG for NULL on rank 0, SSW_ERR_MEM, SSW_ERR_HDF5. */
int ssw_h5out_read_refine_samples(ssw_h5out *h, ssw_refine_sample *s);

/** What /boundaries records beside the crossings (group attributes). */
typedef struct {
  const ssw_refine_spec *spec;  /**< classes, tol, max_evals */
  uint64_t coarse_points;       /**< grid points of the coarse grid */
  uint64_t edges;               /**< edges refined */
  uint64_t evaluations;         /**< evaluations over every edge */
  uint64_t trajectories;        /**< trajectories those integrated */
  uint64_t coarse_trajectories; /**< trajectories the grid integrated */
  const ssw_refine_near *near;  /**< rank 0's near misses */
  uint64_t nnear;               /**< their number (the same on every rank) */
  const ssw_refine_unresolved *unresolved; /**< rank 0's unresolved edges */
  uint64_t nunresolved;           /**< their number (the same on every rank) */
  const ssw_point_result *points; /**< rank 0's measurements at the
                                       crossings ([refine] points), or NULL */
} ssw_h5_boundaries_info;

/** Writes the group /boundaries (replacing one a killed run left): one
 * 1-D dataset per field of ssw_refine_crossing along the dimension
 * `crossing`, rank 0's n crossings `c` in its order, and the near misses
 * along `near_miss`. Collective; n must be
 * the same on every rank (only rank 0's crossings are read). Errors:
 * SSW_ERR_MEM, SSW_ERR_HDF5. */
int ssw_h5out_write_boundaries(ssw_h5out *h, const ssw_refine_crossing *c,
                               size_t n, const ssw_h5_boundaries_info *info);

#ifdef __cplusplus
}
#endif
#endif
