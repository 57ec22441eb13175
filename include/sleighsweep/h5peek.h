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

/** A numeric root attribute as a double; NaN when absent or unreadable. */
double ssw_h5peek_root_num(hid_t f, const char *name);

/** 1 when the root has the attribute `name`. */
int ssw_h5peek_root_has(hid_t f, const char *name);

/** Opens the output at `path` read-only for a look (status): the path is
 * checked first (ssw_h5peek_hdf5_file: never blocks), HDF5's error stack
 * is silenced and its file locking off (a running sweep holds the file).
 * Errors: SSW_ERR_IO saying what the path is, or that it does not open
 * (a run killed while writing it). Close with ssw_h5peek_close. */
int ssw_h5peek_open(const char *path, hid_t *f);

/** Closes a file of ssw_h5peek_open (NULL-safe on an invalid id). */
void ssw_h5peek_close(hid_t *f);

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

/** What the done mask of a file says, checked against its values. */
typedef struct {
  uint64_t in_file;     /**< points done: flagged, and holding results */
  uint64_t in_journals; /**< journal records of points not done in it */
  uint64_t forged;      /**< flagged done but holding fill values */
} ssw_h5peek_done;

/** Reads the done mask `done` (N-D, uint8) of `total` points in blocks of
 * at most 4 MiB, checking each flagged point against `regime` (int8, the
 * same shape): every written point has a regime (0..3), written before its
 * done flag, so a flagged point whose regime is the fill value -1 holds no
 * results (a forged or damaged mask) and counts as not done. `mask`
 * (total bytes; NULL: count only) receives the checked mask, 1 done, 0
 * not. `jour` (sorted by index, as ssw_journal_read_all leaves it; may be
 * NULL) counts the journal records of points not done. Serial (with a
 * parallel file: one rank's independent reads). Errors: SSW_ERR_HDF5,
 * SSW_ERR_IO (a mask of another size), SSW_ERR_MEM. */
int ssw_h5peek_read_done(hid_t done, hid_t regime, uint64_t total,
                         uint8_t *mask, const ssw_result_buf *jour,
                         ssw_h5peek_done *c);

/** ssw_h5peek_read_done on the datasets "done" and "regime" of the open
 * file `f`, counting only: the points a resume would not compute again are
 * c->in_file + c->in_journals. */
int ssw_h5peek_count_done(hid_t f, uint64_t total, const ssw_result_buf *jour,
                          ssw_h5peek_done *c);

/** Where a damaged /boundaries that does not delete is moved when the
 * refinement is done again (ssw_h5peek_verify skips it). */
#define SSW_H5_DAMAGED_GROUP "boundaries_damaged"

/** What ssw_h5peek_verify found. */
typedef struct {
  int grid_ok;       /**< every object but /boundaries reads */
  int boundaries_ok; /**< /boundaries reads (and is there when wanted) */
  char why[320];     /**< the first damage ("/boundaries is missing"), the
                          grid's before /boundaries'; "" when none */
} ssw_h5peek_verdict;

/** Reads an output back the way its users will: the root's attributes and
 * every group, dataset and attribute open (HDF5 checks its metadata
 * checksums), datasets up to 1 MiB read whole (every /boundaries and
 * /segments dataset of a real sweep), larger chunked ones have their chunk
 * index walked; /done, /regime and /segments exist, and /boundaries when
 * `want_boundaries`. Raw values are not checksummed (docs/output.md,
 * "Verification"). Serial, read-only. Errors: SSW_ERR_IO with v->why. */
int ssw_h5peek_verify(hid_t f, int want_boundaries, ssw_h5peek_verdict *v);

#ifdef __cplusplus
}
#endif
#endif
