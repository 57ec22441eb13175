/* A sweep's whole life under MPI: the config broadcast, the output's lock,
 * journal recovery, create-or-resume, the done set (rank 0), the schedule,
 * the segment record, journal removal and unlock. */
#ifndef SLEIGHSWEEP_SWEEP_H
#define SLEIGHSWEEP_SWEEP_H

#include "sleighsweep/config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ssw_sweep_opts ssw_sweep_opts;

/** What `sleighsweep run` asks for. */
struct ssw_sweep_opts {
  const char *config; /**< the INI file */
  const char *output; /**< --output (absolute), or NULL: the config's */
  int resume, overwrite, quiet;
  int argc;    /**< the command line, stored as provenance */
  char **argv; /**< (argv[0] is the command, "run") */
  int dry_run; /**< --dry-run: ssw_sweep_dry_run on rank 0, no sweep */
};

/** `run --dry-run`: prints on standard output what a run of `cfg` with
 * these options on `ranks` ranks would do with its output (the run's own
 * decision, a refusal included), the grid's check, and its cost measured
 * on a few grid points (steps per trajectory, core time, output size).
 * Writes nothing. Errors: those of the grid's check and of the probes. */
int ssw_sweep_dry_run(const ssw_config *cfg, const ssw_sweep_opts *so,
                      int ranks);

/** How it ended, for the caller's messages. */
typedef struct {
  int rank;   /**< this process's rank (0 when MPI did not start) */
  int signal; /**< the stop signal of an interrupted sweep */
} ssw_sweep_end;

/** Starts MPI (MPI_THREAD_FUNNELED at least, else SSW_ERR_MPI), runs the
 * sweep and finalizes MPI. Returns SSW_SUCCESS (complete, or already
 * complete: nothing done), SSW_ERR_INTERRUPTED (a stop signal; what is
 * finished is durable), SSW_ERR_CONFIG / SSW_ERR_USAGE (decided alike on
 * every rank: nothing written), or another error. An error after the
 * config phase that may leave ranks apart aborts the job (MPI_Abort). */
int ssw_sweep_main(const ssw_sweep_opts *o, ssw_sweep_end *end);

#ifdef __cplusplus
}
#endif
#endif
