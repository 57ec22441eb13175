/* MPI master/worker scheduling of grid points, flush epochs and progress.
 * The only module that talks MPI (besides the HDF5 output's MPI-IO). */
#ifndef SLEIGHSWEEP_SCHEDULE_H
#define SLEIGHSWEEP_SCHEDULE_H

#include <mpi.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/journal.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Checks an MPI return code; on failure raises SSW_ERR_MPI with the
 * failing call and MPI_Error_string's text. */
#define SSW_MPI_CALL(call)                                                     \
  do {                                                                         \
    const int ssw_mpi_rc_ = (call);                                            \
    if (ssw_mpi_rc_ != MPI_SUCCESS)                                            \
      return ssw_mpi_error(ssw_mpi_rc_, #call, __FILE__, __LINE__);            \
  } while (0)

/** Raises SSW_ERR_MPI with the text of an MPI error code. */
int ssw_mpi_error(int rc, const char *call, const char *file, int line);

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

/** Installs SIGTERM/SIGUSR1/SIGINT handlers that ask the schedule to stop
 * handing out work (async-signal-safe flag). */
void ssw_schedule_install_signals(void);

/** Arms (1) or disarms (0) the watchdog around collective HDF5 calls: a
 * call not returning within $SSW_IO_TIMEOUT seconds (default 900) exits the
 * process, which ends the job instead of hanging it. */
void ssw_schedule_watchdog(int on);

/** Last stop signal received (0 when none). */
int ssw_schedule_signal(void);

/** Computes every grid point not yet done (done[] has ssw_grid_size bytes,
 * identical on every rank), writing results through `out` in collective
 * flush epochs every cfg->flush_interval seconds and at the end. Each rank
 * appends its points to its journal ("<output>.journal.<rank>") as they
 * finish and syncs it at least every second and before every epoch.
 * `recovered` (rank 0, may be NULL) holds journal records not yet in the
 * file (already marked in done[]); they are written in the first epoch.
 * Rank 0 is the master and computes too; progress goes to stderr from
 * rank 0 every cfg->progress_interval seconds (`quiet` silences it).
 * Collective.
 * Errors: SSW_ERR_MPI, SSW_ERR_HDF5, SSW_ERR_MEM, or the ensemble's. A stop
 * signal is not an error: the run ends early with stats->interrupted. */
int ssw_schedule_run(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     uint8_t *done, const ssw_journal_set *recovered, int quiet,
                     ssw_schedule_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
