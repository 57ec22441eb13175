/* Serial, read-only looks into an output file (no MPI, no file locking,
 * nothing written): for `status`, `run --dry-run` and the run's check that
 * a finished sweep needs nothing. */
#ifndef SLEIGHSWEEP_H5PEEK_H
#define SLEIGHSWEEP_H5PEEK_H

#include <hdf5.h>
#include <stdint.h>

#include "sleighsweep/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Whether `path` can be an output at all, without blocking: SSW_SUCCESS
 * for a regular file that starts with HDF5's signature (a sleighsweep
 * output always does: it gets its name once created), else SSW_ERR_IO
 * saying what the path is: "does not exist", a symbolic link to nothing,
 * a directory, a FIFO, a socket or device, an empty file, not HDF5. */
int ssw_h5peek_hdf5_file(const char *path);

/** A string attribute of the root (fixed or variable length) in a fresh
 * buffer (free it); NULL when absent or not a string. */
char *ssw_h5peek_root_str(hid_t f, const char *name);

/** 1 when the file at `path` opens read-only, its `status` attribute is
 * "complete" and its `config` attribute equals `config_text` byte for byte
 * (the resume's check); 0 otherwise. Writes nothing, not even metadata. */
int ssw_h5peek_complete(const char *path, const char *config_text);

/** One row of the /segments table as read back (docs/output.md): strings
 * NUL-terminated at their stored sizes. */
typedef struct {
  char start_time[32], end_time[32], status[16];
  int32_t mpi_ranks, omp_threads;
  uint64_t points_computed, points_done;
  double wall_time_s;
} ssw_h5peek_segment;

/** The rows of /segments: returns their number (-1: no table) and sets
 * *rows to a fresh array of them (free it), or to NULL when there are none
 * or they do not read as the engine's row type (a foreign table). */
long ssw_h5peek_segments(hid_t f, ssw_h5peek_segment **rows);

/** Counts the points the done mask of the open file `f` marks done
 * (*in_file) and the records of `jour` (sorted by index, as
 * ssw_journal_read_all leaves them; may be NULL) whose points it does not
 * (*in_journals): together, the points a resume would not compute again.
 * Reads the mask in blocks of at most 4 MiB. Errors: SSW_ERR_HDF5,
 * SSW_ERR_IO (no mask of `total` points), SSW_ERR_MEM. */
int ssw_h5peek_count_done(hid_t f, uint64_t total, const ssw_result_buf *jour,
                          uint64_t *in_file, uint64_t *in_journals);

#ifdef __cplusplus
}
#endif
#endif
