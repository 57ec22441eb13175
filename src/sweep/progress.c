/* Progress lines of a running sweep (include/sleighsweep/progress.h). */
#include "sleighsweep/progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ssw_format_duration(double s, char *buf, size_t n) {
  if (!isfinite(s) || s < 0) {
    snprintf(buf, n, "?");
    return;
  }
  const long t = lround(s);
  if (t >= 3600)
    snprintf(buf, n, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60)
    snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
  else
    snprintf(buf, n, "%lds", t);
}

void ssw_progress_init(ssw_progress *p, double now, double interval,
                       int quiet) {
  const char *env = getenv("SSW_LOG_EPOCHS");
  p->quiet = quiet;
  p->log_epochs = env && strcmp(env, "1") == 0;
  p->interval = interval;
  p->start = now;
  p->next = now + interval;
}

void ssw_progress_report(ssw_progress *p, double now, uint64_t finished,
                         uint64_t todo, int force) {
  if (p->quiet || (!force && now < p->next)) return;
  p->next = now + p->interval;
  const double el = now - p->start;
  const double rate = el > 0 ? (double)finished / el : 0.0;
  char eta[32], elapsed[32];
  ssw_format_duration(rate > 0 ? (double)(todo - finished) / rate : NAN, eta,
                      sizeof eta);
  ssw_format_duration(el, elapsed, sizeof elapsed);
  fprintf(stderr,
          "sleighsweep: %llu/%llu points (%.1f%%), %.3g points/s, elapsed "
          "%s, ETA %s\n",
          (unsigned long long)finished, (unsigned long long)todo,
          todo ? 100.0 * (double)finished / (double)todo : 100.0, rate, elapsed,
          eta);
}

void ssw_progress_epoch(const ssw_progress *p, double now, int epoch,
                        size_t points) {
  if (!p->log_epochs) return;
  fprintf(stderr,
          "sleighsweep: epoch %d at %.3f s: %zu point(s) written by "
          "rank 0\n",
          epoch, now - p->start, points);
}
