/* Progress lines of a running sweep (rank 0, stderr). No MPI: the caller
 * passes the time. */
#ifndef SLEIGHSWEEP_PROGRESS_H
#define SLEIGHSWEEP_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int quiet;       /**< no progress lines */
  int log_epochs;  /**< one line per flush epoch ($SSW_LOG_EPOCHS=1) */
  double interval; /**< seconds between progress lines */
  double start;    /**< time the schedule started */
  double next;     /**< time of the next progress line */
} ssw_progress;

/** Starts the clock at `now` (any monotonic seconds). */
void ssw_progress_init(ssw_progress *p, double now, double interval, int quiet);

/** "sleighsweep: F/T points (P%), R points/s, elapsed E, ETA X" when the
 * interval has passed since the last line (or `force`). */
void ssw_progress_report(ssw_progress *p, double now, uint64_t finished,
                         uint64_t todo, int force);

/** "sleighsweep: epoch N at T s: P point(s) written by rank 0" when epoch
 * logging is on (tests check that epochs keep their promised interval). */
void ssw_progress_epoch(const ssw_progress *p, double now, int epoch,
                        size_t points);

/** "42s", "3m05s", "2h07m"; "?" for a negative or non-finite time. */
void ssw_format_duration(double s, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
