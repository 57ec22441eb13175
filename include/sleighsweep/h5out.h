/* Parallel HDF5 output: one netCDF-4-readable file per run holding every
 * grid point's results, the done mask, optional sample trajectories and the
 * run's provenance (layout: docs/output.md; durability: README.md). */
#ifndef SLEIGHSWEEP_H5OUT_H
#define SLEIGHSWEEP_H5OUT_H

#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/names.h"
#include "sleighsweep/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An open output file (opaque). Every function taking one is collective
 * over the communicator it was created or opened with, and must be called
 * by all its ranks in the same order. */
typedef struct ssw_h5out ssw_h5out;

/** Provenance the caller knows. Strings may be NULL (stored as ""). Only
 * rank 0's values are stored (they are broadcast), so ranks may differ. */
typedef struct {
  int mpi_ranks;                   /**< size of the run's communicator */
  int omp_threads;                 /**< OpenMP threads per rank */
  const char *start_time;          /**< ISO 8601 UTC, "2025-01-31T12:00:00Z" */
  const char *mpi_library_version; /**< MPI_Get_library_version text */
  const char *hostname;            /**< host of rank 0 */
  const char *command_line;        /**< argv joined by spaces */
} ssw_h5out_meta;

/** Size in bytes of the file ssw_h5out_create makes for `cfg`: every
 * dataset's allocated chunks, from the same column table and chunk shapes
 * the creation uses (datasets are allocated at creation, so the size does
 * not grow as points are written), and the metadata (SSW_H5_META_BYTES
 * per dataset and a fixed part, measured). */
double ssw_h5out_estimate_bytes(const ssw_config *cfg);

/** Bytes the output's directory holds at most during a run of `cfg`: the
 * file (ssw_h5out_estimate_bytes) and the journals, every point once
 * (their records and samples). */
double ssw_h5out_space_needed(const ssw_config *cfg);

/** When the disk holding `path` has less free space than 1 MiB or than
 * `need` bytes: writes into buf a note naming the directory, the space free
 * and `need` ("the disk holding 'dir' is full: 0.01 MB free, the run needs
 * about 3.2 MB there"); else an empty string. */
void ssw_h5out_disk_note(const char *path, double need, char *buf, size_t n);

/** Name under which a new output is built ("<path>.creating") before it
 * is renamed to `path`: a kill during creation leaves no half-made file at
 * `path`, so the same command can start again. */
void ssw_h5out_creating_path(const char *path, char *buf, size_t n);

/** Creates `path` and every dataset (fixed shapes, fill values, early
 * allocation), writes coordinates and the start attributes (status
 * "running"). The file is built under ssw_h5out_creating_path (replacing
 * a stale one) and renamed to `path` once complete and flushed.
 * Collective; `cfg` must be identical on every rank. Errors:
 * SSW_ERR_IO if the file exists, SSW_ERR_ARG for a malformed cfg,
 * SSW_ERR_HDF5 (e.g. a missing directory) / SSW_ERR_MPI naming the failed
 * call. On error *out is NULL and nothing stays open (a partial file may
 * remain under the creating name). A collective HDF5 step that fails on
 * one rank (a disk that fills while the fill values are written) cannot be
 * unwound by the others, which wait inside it: that rank prints its
 * message (with ssw_h5out_disk_note's) and ends the job (MPI_Abort, exit
 * status 1) at once. */
int ssw_h5out_create(MPI_Comm comm, const char *path, const ssw_config *cfg,
                     const ssw_h5out_meta *meta, ssw_h5out **out);

/** Opens an existing output read-write to resume a run. Collective. Checks
 * that it is a sleighsweep file with the expected layout and that its
 * `config` attribute equals cfg->text byte for byte; sets status "running".
 * Errors: SSW_ERR_CONFIG on a different config (the message names the first
 * differing line of both texts), SSW_ERR_IO if the file is not a sleighsweep
 * output, SSW_ERR_HDF5 if it does not open. */
int ssw_h5out_open(MPI_Comm comm, const char *path, const ssw_config *cfg,
                   ssw_h5out **out);

/** Rank 0's look at an existing output before a run says anything: the
 * checks of ssw_h5out_open that need no writing (a sleighsweep file, of
 * this format, of a config that means the same), serial and read-only,
 * without HDF5's file locking. On success *file is the file, open
 * read-only, for the caller to read and close (H5Fclose). Errors, nothing
 * then open: SSW_ERR_HDF5 when it does not open, SSW_ERR_IO when it is not
 * a sleighsweep output of this format, SSW_ERR_CONFIG on a different
 * config (the message names the first difference). */
int ssw_h5out_check(const char *path, const ssw_config *cfg, hid_t *file);

/** Writes this rank's finished points (any flat indices, any order, each at
 * most once per call across all ranks) into every dataset and sets their
 * done flags (written last). Collective: every rank calls it in the same
 * flush epoch, with n = 0 if it has nothing. `samples` holds n consecutive
 * point sample buffers (ssw_result_sample_doubles each, result.h) in the
 * order of `pts`; it may be NULL when cfg->samples == 0 or n == 0. Errors
 * (returned on every rank when any rank fails its checks): SSW_ERR_ARG for
 * an index outside the grid, a repeated index or a missing buffer;
 * SSW_ERR_MEM; SSW_ERR_HDF5. */
int ssw_h5out_write_points(ssw_h5out *h, const ssw_point_result *pts, size_t n,
                           const double *samples);

/** Flushes every buffer to the file system (H5Fflush, global scope; the
 * MPI-IO driver syncs the file). Collective. Errors: SSW_ERR_HDF5. */
int ssw_h5out_flush(ssw_h5out *h);

/** One run segment: what one `sleighsweep run` invocation did to the file
 * (a fresh run is one segment; each resume adds one). */
typedef struct {
  const char *start_time;   /**< ISO 8601 UTC, when the run started */
  const char *end_time;     /**< ISO 8601 UTC, when it finished */
  const char *status;       /**< how it ended: "complete", "interrupted" */
  int mpi_ranks;            /**< ranks of the run */
  int omp_threads;          /**< OpenMP threads per rank */
  uint64_t points_computed; /**< points this segment computed */
  uint64_t points_done;     /**< points in the file at its end */
  double wall_time_s;       /**< wall time of this segment (s) */
} ssw_h5out_segment;

/** Appends a row to /segments and a line to `history` for work earlier
 * runs did but never recorded (they ended without saving: killed, or their
 * final save failed) and whose points this run recovered from their
 * journals: `omp_threads` 0 and `wall_time_s` 0 mark such a row (its
 * start unknown, its end the journals' last write). Collective; rank 0's
 * values are stored. Errors: SSW_ERR_HDF5, SSW_ERR_MPI, SSW_ERR_MEM. */
int ssw_h5out_record_recovered(ssw_h5out *h, const ssw_h5out_segment *seg);

/** Records the end of a run segment: appends one row to the /segments
 * table (created here if the file has none: files made before it) and one
 * line to the CF `history` root attribute, then sets the root attributes
 * `status`, `end_time`, `points_done` (this segment's) and `wall_time_s`
 * (the total over every segment /segments records), and flushes.
 * Collective; rank 0's values are stored. Errors: SSW_ERR_HDF5,
 * SSW_ERR_MPI, SSW_ERR_MEM. */
int ssw_h5out_finish(ssw_h5out *h, const ssw_h5out_segment *seg);

/** Reads the done mask (flat index order, 1 written, 0 not) into rank 0's
 * done[0 .. ssw_grid_size(cfg) - 1]; rank 0 alone reads it and keeps it
 * (nothing is broadcast: a 2^31-point grid would cost 2 GiB per rank).
 * A point marked done whose `regime` holds the fill value has no results
 * (a forged or damaged mask): it reads as not done, so it is computed
 * again, and rank 0's *forged (may be NULL) counts such points.
 * Collective: every rank calls it; other ranks may pass NULL, and an array
 * they pass is left untouched. Errors (on every rank when rank 0 fails):
 * SSW_ERR_ARG for a NULL array on rank 0, SSW_ERR_HDF5. */
int ssw_h5out_read_done(ssw_h5out *h, uint8_t *done, uint64_t *forged);

/** Closes every handle and the file. Collective; NULL-safe; sets *h to
 * NULL. Returns the first error met but always releases everything. */
int ssw_h5out_close(ssw_h5out **h);

#ifdef __cplusplus
}
#endif
#endif
