/* [refine] points: every located crossing's full measurements, the
 * grid-point pipeline with the run's whole ensemble at the crossing,
 * computed once the crossings are known (docs/refine.md, "Measurements at
 * the crossings"). */
#ifndef SLEIGHSWEEP_REFINE_POINTS_H
#define SLEIGHSWEEP_REFINE_POINTS_H

#include <mpi.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/refine.h"
#include "sleighsweep/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Computes the measurements at rank 0's n crossings `c` (n the same on
 * every rank; other ranks pass NULL): crossing k on rank k mod size, each a
 * function of its crossing alone, gathered into rank 0's malloc'd *out in
 * crossing order (NULL elsewhere). *trajectories (every rank) gets the
 * trajectories integrated over all ranks. Collective. Errors (on every
 * rank): the ensemble's, SSW_ERR_MEM, SSW_ERR_MPI. */
int ssw_refine_points(MPI_Comm comm, const ssw_config *cfg,
                      const ssw_refine_crossing *c, uint64_t n,
                      ssw_point_result **out, uint64_t *trajectories);

#ifdef __cplusplus
}
#endif
#endif
