/* Boundary refinement under MPI, after a sweep's grid is complete: the
 * edges found by rank 0 from the file, those the journals do not hold
 * solved by every rank in a static round robin and journaled, gathered and
 * written sorted into /boundaries. */
#ifndef SLEIGHSWEEP_REFINE_RUN_H
#define SLEIGHSWEEP_REFINE_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/journal.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Figures of a refinement (rank 0's are the totals). */
typedef struct {
  uint64_t coarse_points, edges, crossings, evaluations;
  uint64_t trajectories;        /**< integrated by the evaluations */
  uint64_t coarse_trajectories; /**< integrated by the grid */
  uint64_t journaled;           /**< edges taken from the journals */
  uint64_t solved;              /**< edges solved by this run */
  int signal; /**< the stop signal that ended it early (0: it finished) */
  double max_position_error; /**< largest final bracket */
  double wall_s;             /**< wall time of the refinement */
} ssw_refine_stats;

/** Refines the boundaries of cfg's [refine] classes on the complete grid
 * in `out` and writes /boundaries. The edges whose crossings `journaled`
 * holds (rank 0's journal set; NULL elsewhere or when none) are taken from
 * it; of the others the j-th goes to rank j mod size, which appends its
 * crossings to its journal (synced every SSW_JOURNAL_SYNC_INTERVAL s and
 * at a stop signal). Each crossing is a function of its edge alone, and
 * they are written in edge order, so the file does not depend on the
 * number of ranks or threads, nor on how many runs solved it. A stop
 * signal to any rank (polled between edges; the ranks agree) ends it
 * early with st->signal set on every rank and /boundaries not written.
 * Collective. Errors: SSW_ERR_MEM, SSW_ERR_MPI, SSW_ERR_HDF5, SSW_ERR_IO
 * (the journal), the ensemble's (returned on every rank). */
int ssw_refine_sweep(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     const ssw_journal_set *journaled, int quiet,
                     ssw_refine_stats *st);

#ifdef __cplusplus
}
#endif
#endif
