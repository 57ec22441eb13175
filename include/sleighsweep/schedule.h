/* MPI master/worker scheduling of grid points and flush epochs. MPI is
 * spoken here, in sweep.c (a sweep's life cycle), mpi_util.c (helpers) and
 * the HDF5 output's MPI-IO; signals, progress and journals know no MPI. */
#ifndef SLEIGHSWEEP_SCHEDULE_H
#define SLEIGHSWEEP_SCHEDULE_H

#include <mpi.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/journal.h"
#include "sleighsweep/mpi_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Figures of a finished (or interrupted) schedule, reduced to rank 0. */
typedef struct {
  uint64_t points_done; /**< durable points in the file at the end */
  uint64_t points_run;  /**< points computed by this run (all ranks) */
  double wall_s;        /**< wall time of the schedule */
  double compute_s;     /**< max over ranks of time computing points */
  double io_s;          /**< max over ranks of time in HDF5 writes/flushes */
  double idle_s;        /**< max over ranks of time waiting for work/epochs */
  double service_s;     /**< rank 0's time answering requests */
  int epochs;           /**< flush epochs (durability points) */
  int interrupted;      /**< 1 when a signal stopped the run early */
} ssw_schedule_stats;

/** The signal that stopped the job: the first one rank 0 learnt of from
 * any rank, else this process's own (0 when none). */
int ssw_schedule_signal(void);

/** Computes every grid point not yet done, writing results through `out`
 * in collective flush epochs every cfg->flush_interval seconds and at the
 * end. `done` (ssw_grid_size bytes, 1 = done) is read on rank 0 only, the
 * master, which hands out units of undone points; other ranks pass NULL.
 * Every computing rank starts with a first unit the master cuts from the
 * done set and scatters (no request). Later units are sized so that none
 * outlasts a quarter of the flush interval at a conservative (recent
 * maximum) cost per point, and none is so short that the requests of all
 * ranks would keep the master busy over a quarter of its time; workers
 * join an epoch between two points, so epochs come when promised. Each
 * rank appends its points to its journal ("<output>.journal.<rank>") as
 * they finish and syncs it at least every second and before every epoch.
 * `recovered` (rank 0, may be NULL) holds journal records not yet in the
 * file (already marked in done); they are written in the first epoch.
 * Rank 0 computes too up to 64 ranks ($SSW_DEDICATED_MASTER_ABOVE) and
 * only schedules above (docs/scaling.md). A stop signal on any rank reaches
 * every rank at once; each stops after its point in progress. Progress goes
 * to stderr from rank 0 every cfg->progress_interval seconds (`quiet`
 * silences it). Collective. Errors: SSW_ERR_MPI, SSW_ERR_HDF5, SSW_ERR_MEM,
 * or the ensemble's. A stop signal is not an error: the run ends early with
 * stats->interrupted. */
int ssw_schedule_run(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     const uint8_t *done, const ssw_journal_set *recovered,
                     int quiet, ssw_schedule_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
