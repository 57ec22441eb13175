/* Per-rank append-only journals of finished grid points and solved
 * refinement edges: the durable record that survives kill -9, refills an
 * HDF5 file that no longer opens and spares a resumed refinement the edges
 * already solved (README.md, Resume and durability). Plain POSIX I/O, no
 * MPI, no HDF5. */
#ifndef SLEIGHSWEEP_JOURNAL_H
#define SLEIGHSWEEP_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/refine.h"
#include "sleighsweep/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Seconds between two syncs of a journal while records are appended: a
 * node crash loses at most this much finished work. */
#define SSW_JOURNAL_SYNC_INTERVAL 1.0

/** An open journal (opaque). */
typedef struct ssw_journal ssw_journal;

/** Path of a rank's journal: "<output>.journal.<rank>". */
void ssw_journal_path(const char *output, int rank, char *buf, size_t n);

/** Opens (creating if needed) the journal of `rank` for appending. A new
 * file gets a header (format 2) with the record size and the hash of the
 * config's canonical text (ssw_config_canonical), followed by that text;
 * an existing one must match them: a journal of another config is refused
 * naming the first differing key, one of format 1 (earlier builds) with
 * what to do. A header cut short (crash at creation) is rewritten and
 * a torn tail is cut back to the last valid record, so new records are
 * never hidden behind a tear. Errors: SSW_ERR_IO (with strerror),
 * SSW_ERR_CONFIG when the journal belongs to another config. */
int ssw_journal_open(const char *output, int rank, const ssw_config *cfg,
                     ssw_journal **j);

/** Appends one finished point with a checksum, and its sample buffer when
 * the config keeps samples at this point (cfg->sample_sel; the record of
 * any other point is the point alone, so journals grow with the chosen
 * points' samples only). `cfg` of ssw_journal_open must outlive the
 * journal. Not yet durable: see ssw_journal_sync.
 * Errors: SSW_ERR_IO (disk full: the message says so). */
int ssw_journal_append(ssw_journal *j, const ssw_point_result *r,
                       const double *samples);

/** A crossing of a solved refinement edge as journaled: an edge of `count`
 * crossings is `count` records (seq 0 .. count - 1), one without any is
 * one record of count 0 (its crossing zeroed). (lo, axis) names the edge. */
typedef struct {
  uint64_t lo;           /**< the edge's lower grid point */
  int32_t axis;          /**< its axis (SSW_AXIS_*) */
  uint32_t seq, count;   /**< this crossing's rank along the edge, of count */
  uint32_t reserved;     /**< zero */
  uint64_t trajectories; /**< integrated while the edge was solved */
  ssw_refine_crossing c; /**< the crossing */
} ssw_journal_crossing;

/** Appends a solved edge (lo, axis): its n crossings c, in their order
 * along the edge, and the trajectories its evaluations integrated; each
 * record checksummed like a point's. Not yet durable: see
 * ssw_journal_sync. Errors: SSW_ERR_IO. */
int ssw_journal_append_edge(ssw_journal *j, uint64_t lo, int32_t axis,
                            const ssw_refine_crossing *c, size_t n,
                            uint64_t trajectories);

/** Makes every appended record durable (fdatasync). Errors: SSW_ERR_IO. */
int ssw_journal_sync(ssw_journal *j);

/** The journal's file descriptor, for an fdatasync from a signal handler
 * (async-signal-safe), or -1 for NULL. */
int ssw_journal_fileno(const ssw_journal *j);

/** Syncs and closes; NULL-safe; sets *j to NULL. */
int ssw_journal_close(ssw_journal **j);

/** Records recovered from every journal of an output. */
typedef struct {
  ssw_result_buf recs;  /**< unique by index, in index order, with samples */
  size_t files;         /**< journal files read */
  size_t torn;          /**< damaged stretches (torn or corrupt) skipped */
  size_t short_headers; /**< files cut short inside their header */
  size_t duplicates;    /**< records of an index seen before (ignored) */
  ssw_journal_crossing *crossings; /**< of every wholly journaled edge, in
                                        (lo, axis, seq) order, unique */
  size_t ncrossings, edges;        /**< edges: the wholly journaled edges */
} ssw_journal_set;

/** Reads every "<output>.journal.*" of this config, validating checksums:
 * a torn or corrupt stretch (a kill mid-write, a flipped byte) is skipped
 * and counted, and reading resumes at the next valid record, found by its
 * magic and checksum. Skips indices outside the grid, and keeping one record
 * per index; keeps the crossings of every edge whose records are all
 * there (an edge missing one is solved again), one record per (lo, axis,
 * seq). Errors: SSW_ERR_IO, SSW_ERR_MEM, SSW_ERR_CONFIG when a journal
 * belongs to another config. */
int ssw_journal_read_all(const char *output, const ssw_config *cfg,
                         ssw_journal_set *set);

/** Frees a journal set's arrays (NULL-safe, and safe twice). */
void ssw_journal_set_free(ssw_journal_set *set);

/** Removes every "<output>.journal.*" (after a clean, complete finish).
 * Errors: SSW_ERR_IO. */
int ssw_journal_remove_all(const char *output);

#ifdef __cplusplus
}
#endif
#endif
