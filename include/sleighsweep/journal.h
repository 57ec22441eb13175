/* Per-rank append-only journals of finished grid points: the durable record
 * that survives kill -9 and refills an HDF5 file that no longer opens
 * (README.md, Resume and durability). Plain POSIX I/O, no MPI, no HDF5. */
#ifndef SLEIGHSWEEP_JOURNAL_H
#define SLEIGHSWEEP_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An open journal (opaque). */
typedef struct ssw_journal ssw_journal;

/** Path of a rank's journal: "<output>.journal.<rank>". */
void ssw_journal_path(const char *output, int rank, char *buf, size_t n);

/** Opens (creating if needed) the journal of `rank` for appending. A new
 * file gets a header with the config hash and record size; an existing one
 * must match them. Errors: SSW_ERR_IO (with strerror), SSW_ERR_CONFIG when
 * the journal belongs to another config. */
int ssw_journal_open(const char *output, int rank, const ssw_config *cfg,
                     ssw_journal **j);

/** Appends one finished point (and its sample buffer when the config keeps
 * samples) with a checksum. Not yet durable: see ssw_journal_sync.
 * Errors: SSW_ERR_IO (disk full: the message says so). */
int ssw_journal_append(ssw_journal *j, const ssw_point_result *r,
                       const double *samples);

/** Makes every appended record durable (fdatasync). Errors: SSW_ERR_IO. */
int ssw_journal_sync(ssw_journal *j);

/** Syncs and closes; NULL-safe; sets *j to NULL. */
int ssw_journal_close(ssw_journal **j);

/** Records recovered from every journal of an output. */
typedef struct {
  ssw_result_buf recs;   /**< unique by index, in index order, with samples */
  size_t files;          /**< journal files read */
  size_t torn;           /**< trailing partial/corrupt records skipped */
  size_t duplicates;     /**< records of an index seen before (ignored) */
} ssw_journal_set;

/** Reads every "<output>.journal.*" of this config, validating checksums
 * (a torn record at the end of a file, from a kill mid-write, is skipped
 * and counted), skipping indices outside the grid, and keeping one record
 * per index. Errors: SSW_ERR_IO, SSW_ERR_MEM, SSW_ERR_CONFIG when a journal
 * belongs to another config. */
int ssw_journal_read_all(const char *output, const ssw_config *cfg,
                         ssw_journal_set *set);

/** Frees a journal set's arrays (NULL-safe). */
void ssw_journal_set_free(ssw_journal_set *set);

/** Removes every "<output>.journal.*" (after a clean, complete finish).
 * Errors: SSW_ERR_IO. */
int ssw_journal_remove_all(const char *output);

#ifdef __cplusplus
}
#endif
#endif
