/* Boundary refinement under MPI, after a sweep's grid is complete: the
 * edges found by rank 0 from the file, solved by every rank in a static
 * round robin, gathered and written sorted into /boundaries. */
#ifndef SLEIGHSWEEP_REFINE_RUN_H
#define SLEIGHSWEEP_REFINE_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/h5out.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Figures of a refinement (rank 0's are the totals). */
typedef struct {
  uint64_t coarse_points, edges, crossings, evaluations;
  uint64_t trajectories;        /**< integrated by the evaluations */
  uint64_t coarse_trajectories; /**< integrated by the grid */
  double max_position_error;    /**< largest final bracket */
  double wall_s;                /**< wall time of the refinement */
} ssw_refine_stats;

/** Refines the boundaries of cfg's [refine] classes on the complete grid
 * in `out` and writes /boundaries. Edge k goes to rank k mod size; each
 * crossing is a function of its edge alone, and they are written in edge
 * order, so the file does not depend on the number of ranks or threads.
 * Collective. Errors: SSW_ERR_MEM, SSW_ERR_MPI, SSW_ERR_HDF5, the
 * ensemble's (returned on every rank). */
int ssw_refine_sweep(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     int quiet, ssw_refine_stats *st);

#ifdef __cplusplus
}
#endif
#endif
