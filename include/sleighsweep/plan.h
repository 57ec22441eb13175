/* What a run will do with its output, decided by rank 0 before anything is
 * said or written, from the output path, the file there, its journals and
 * the directory: create, overwrite, resume, rebuild from the journals,
 * nothing (complete), or refuse (exit status 2, one message). The run acts
 * on the decision; `run --dry-run` prints it. Serial, no MPI; reads only
 * (the journals' torn tails are cut later, by the run that opens them). */
#ifndef SLEIGHSWEEP_PLAN_H
#define SLEIGHSWEEP_PLAN_H

#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/journal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SSW_PLAN_CREATE,    /**< no output yet: create it (journals refill it) */
  SSW_PLAN_OVERWRITE, /**< --overwrite: delete it and its journals, create */
  SSW_PLAN_RESUME,    /**< open it and compute the points it lacks */
  SSW_PLAN_REBUILD,   /**< delete it and create it again from its journals */
  SSW_PLAN_COMPLETE   /**< this config's complete sweep: nothing to do */
} ssw_plan_kind;

/** What the run needs to know. */
typedef struct {
  const char *config; /**< the config file (the output must not be it) */
  int overwrite;      /**< --overwrite */
  int ranks;          /**< ranks of the run (journals 0 .. ranks-1) */
  int count;          /**< count the points done (for the dry run) */
} ssw_plan_opts;

/** The decision. */
typedef struct {
  ssw_plan_kind kind;
  /** REBUILD: why the file is unusable; RESUME of a complete file: what
   * of it is damaged (its refinement is done again); else "" */
  char why[600];
  uint64_t total;       /**< grid points */
  uint64_t in_file;     /**< counted (opts.count): done in the file */
  uint64_t in_journals; /**< points the journals add (always counted) */
  uint64_t forged;      /**< counted: marked done but holding no results */
} ssw_plan;

/** Decides what a run of `cfg` does with its output, checking everything
 * that can be checked before any work: the output is not the config, not
 * a symbolic link to nothing, a regular file if it exists; a file there is
 * a sleighsweep output of this format and of a config that means the same
 * (else refused, never deleted, unless it does not open and its journals
 * can rebuild it); the journals are this config's; the file, its
 * directory and every rank's journal are writable where the run will
 * write; a new file fits on the disk. `journals` receives the journals'
 * records (free with ssw_journal_set_free; empty for COMPLETE and
 * OVERWRITE). Errors, with the one message to print: SSW_ERR_CONFIG for
 * a refusal (exit status 2: nothing written), SSW_ERR_IO / SSW_ERR_MEM
 * for a failure to read. */
int ssw_plan_output(const ssw_config *cfg, const ssw_plan_opts *o, ssw_plan *p,
                    ssw_journal_set *journals);

#ifdef __cplusplus
}
#endif
#endif
