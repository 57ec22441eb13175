/* Journals of a sweep that keeps samples at chosen grid points: records of
 * the chosen points carry their samples, the others do not (two record
 * kinds); recovery reads both, across a torn record in the middle and a
 * corrupt byte, and gives back every point with its samples (NaN where
 * the point keeps none). Refinement edges (a third kind) among points:
 * every edge whose records are all there is recovered, in (lo, axis, seq)
 * order, once when two ranks journaled it, with an edge of no crossing;
 * an edge cut by a torn tail is not. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/journal.h"
#include "sleighsweep/result.h"
#include "sleighsweep/sample_points.h"
#include "test_util.h"

static const char text[] = "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
                           "[grid]\ntheta = linspace(0, 180deg, 5)\n"
                           "a = 0.2, 0.5\nA = 0.5\nB = 0.3\n"
                           "[output]\nsamples = 2\nsample_nodes = 4\n"
                           "sample_points = a = 0.5 | theta = 0\n";

static double sample_value(uint64_t i, size_t k) { return 1000.0 * i + k; }

static void append(ssw_journal *j, const ssw_config *cfg, uint64_t i,
                   double *buf) {
  ssw_point_result r = {0};
  r.index = i, r.center_spacing = 0.5 + i;
  for (size_t k = 0;
       k < ssw_result_sample_doubles(cfg->samples, cfg->sample_nodes); k++)
    buf[k] = sample_value(i, k);
  EXPECT(ssw_journal_append(j, &r, buf) == SSW_SUCCESS, "append %llu: %s",
         (unsigned long long)i, ssw_error_message());
}

/* The size of journal 0 of `out`. */
static off_t journal_size(const char *out) {
  char path[4200];
  struct stat st;
  ssw_journal_path(out, 0, path, sizeof path);
  return stat(path, &st) == 0 ? st.st_size : -1;
}

/* An edge's k-th crossing as the tests journal it. */
static ssw_refine_crossing crossing(uint64_t lo, int32_t axis, size_t k) {
  ssw_refine_crossing c;
  memset(&c, 0, sizeof c);
  c.lo = lo, c.hi = lo + 1, c.axis = axis, c.level = (double)k;
  c.position = 0.25 * (double)lo + 0.001 * (double)k, c.evaluations = 3;
  return c;
}

static void append_edge(ssw_journal *j, uint64_t lo, int32_t axis, size_t n) {
  ssw_refine_crossing c[4];
  for (size_t k = 0; k < n; k++)
    c[k] = crossing(lo, axis, k);
  EXPECT(ssw_journal_append_edge(j, lo, axis, c, n, 10 * lo + n) == SSW_SUCCESS,
         "append edge %llu: %s", (unsigned long long)lo, ssw_error_message());
}

/* Edges (lo, axis, crossings) (2, 0, 3), (0, 1, 0), (1, 0, 2) in journal 0
 * among points, (4, 0, 2) torn in its second record and cut back by the
 * reopen, (2, 0, 3) again in journal 1. */
static void check_edges(const char *out, const ssw_config *cfg, double *buf) {
  ssw_journal *j = NULL;
  EXPECT(ssw_journal_open(out, 0, cfg, &j) == SSW_SUCCESS, "open: %s",
         ssw_error_message());
  append_edge(j, 2, 0, 3);
  append(j, cfg, 0, buf);
  append_edge(j, 0, 1, 0);
  append_edge(j, 1, 0, 2);
  append(j, cfg, 1, buf);
  append_edge(j, 4, 0, 2);
  EXPECT(ssw_journal_close(&j) == SSW_SUCCESS, "close");
  char path[4200];
  ssw_journal_path(out, 0, path, sizeof path);
  EXPECT(truncate(path, journal_size(out) - 30) == 0, "truncate");
  EXPECT(ssw_journal_open(out, 0, cfg, &j) == SSW_SUCCESS, "reopen: %s",
         ssw_error_message());
  EXPECT(ssw_journal_close(&j) == SSW_SUCCESS, "close");
  EXPECT(ssw_journal_open(out, 1, cfg, &j) == SSW_SUCCESS, "open 1: %s",
         ssw_error_message());
  append_edge(j, 2, 0, 3);
  EXPECT(ssw_journal_close(&j) == SSW_SUCCESS, "close 1");
  ssw_journal_set set;
  EXPECT(ssw_journal_read_all(out, cfg, &set) == SSW_SUCCESS, "read: %s",
         ssw_error_message());
  EXPECT(set.recs.n == 2 && set.torn == 0 && set.edges == 3 &&
             set.ncrossings == 6,
         "%zu points, %zu torn, %zu edges, %zu crossings", set.recs.n, set.torn,
         set.edges, set.ncrossings);
  static const uint64_t lo[6] = {0, 1, 1, 2, 2, 2};
  static const uint32_t seq[6] = {0, 0, 1, 0, 1, 2},
                        count[6] = {0, 2, 2, 3, 3, 3};
  for (size_t k = 0; k < set.ncrossings && k < 6; k++) {
    const ssw_journal_crossing *x = &set.crossings[k];
    const ssw_refine_crossing want =
        count[k] ? crossing(lo[k], x->axis, seq[k]) : (ssw_refine_crossing){0};
    EXPECT(x->lo == lo[k] && x->seq == seq[k] && x->count == count[k] &&
               x->axis == (k == 0) &&
               x->trajectories == 10 * lo[k] + count[k] &&
               x->c.position == want.position && x->c.lo == want.lo,
           "crossing %zu: edge (%llu, %d) %u of %u", k,
           (unsigned long long)x->lo, x->axis, x->seq, x->count);
  }
  ssw_journal_set_free(&set);
  ssw_journal_set_free(&set); /* safe twice */
}

int main(void) {
  char dir[] = "/tmp/ssw_jkinds_XXXXXX", out[256];
  EXPECT(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(out, sizeof out, "%s/sweep.h5", dir);
  ssw_config *cfg = NULL;
  EXPECT(ssw_config_parse(text, "kinds.ini", &cfg) == SSW_SUCCESS, "%s",
         ssw_error_message());
  if (!cfg) return TEST_RESULT();
  const uint64_t n = ssw_grid_size(cfg->axes);
  const size_t sd = ssw_result_sample_doubles(cfg->samples, cfg->sample_nodes);
  double *buf = malloc(sd * sizeof *buf);
  ssw_journal *j = NULL;
  EXPECT(ssw_journal_open(out, 0, cfg, &j) == SSW_SUCCESS, "open: %s",
         ssw_error_message());
  /* Points 0..n-1, with point 3 torn: cut short by a kill mid-append and
   * the run resumed (the reopen cuts the tail back, then 3 is written
   * again after the others). */
  off_t before_three = 0;
  for (uint64_t i = 0; i < n; i++) {
    if (i == 3) before_three = journal_size(out);
    append(j, cfg, i, buf);
    if (i == 3) {
      EXPECT(ssw_journal_close(&j) == SSW_SUCCESS, "close");
      char path[4200];
      ssw_journal_path(out, 0, path, sizeof path);
      EXPECT(truncate(path, before_three + 20) == 0, "truncate");
      EXPECT(ssw_journal_open(out, 0, cfg, &j) == SSW_SUCCESS, "reopen: %s",
             ssw_error_message());
      EXPECT(journal_size(out) == before_three, "torn tail not cut back");
    }
  }
  append(j, cfg, 3, buf);
  EXPECT(ssw_journal_close(&j) == SSW_SUCCESS, "close");
  /* Sizes: the chosen points' records carry 8 * sd bytes more. */
  const size_t chosen = cfg->sample_sel.n;
  EXPECT(chosen == 5 + 1, "chosen points: %zu", chosen);
  ssw_journal_set set;
  EXPECT(ssw_journal_read_all(out, cfg, &set) == SSW_SUCCESS, "read: %s",
         ssw_error_message());
  EXPECT(set.recs.n == n && set.torn == 0, "recovered %zu of %llu, torn %zu",
         set.recs.n, (unsigned long long)n, set.torn);
  for (size_t r = 0; r < set.recs.n; r++) {
    const uint64_t i = set.recs.pts[r].index;
    const double *s = ssw_result_buf_samples(&set.recs, r);
    const int keeps = ssw_sample_points_slot(&cfg->sample_sel, i) >= 0;
    EXPECT(i == r && set.recs.pts[r].center_spacing == 0.5 + i, "point %zu", r);
    for (size_t k = 0; k < sd; k++)
      EXPECT(keeps ? s[k] == sample_value(i, k) : isnan(s[k]),
             "point %llu sample %zu = %g", (unsigned long long)i, k, s[k]);
  }
  ssw_journal_set_free(&set);
  /* A corrupt byte inside the record of point 1 (plain) hides that record
   * only: the reader finds the next one by its magic. */
  char path[4200];
  ssw_journal_path(out, 0, path, sizeof path);
  const int fd = open(path, O_RDWR);
  const off_t size = journal_size(out);
  unsigned char *all = malloc((size_t)size);
  EXPECT(fd >= 0 && pread(fd, all, (size_t)size, 0) == size, "read back");
  const unsigned char plain[8] = {'S', 'S', 'W', 'R', 'E', 'C', '0', '0'};
  off_t second = -1;
  for (off_t k = 0, seen = 0; k + 8 <= size && second < 0; k++)
    if (memcmp(all + k, plain, 8) == 0 && seen++ == 1) second = k;
  EXPECT(second > 0, "no second plain record");
  const unsigned char bad = 0x5a;
  EXPECT(pwrite(fd, &bad, 1, second + 40) == 1, "corrupt");
  close(fd);
  free(all);
  EXPECT(ssw_journal_read_all(out, cfg, &set) == SSW_SUCCESS, "read: %s",
         ssw_error_message());
  EXPECT(set.recs.n == n - 1 && set.torn == 1,
         "after a corrupt byte: %zu records, torn %zu", set.recs.n, set.torn);
  ssw_journal_set_free(&set);
  ssw_journal_remove_all(out);
  check_edges(out, cfg, buf);
  ssw_journal_remove_all(out);
  rmdir(dir);
  free(buf);
  ssw_config_destroy(&cfg);
  return TEST_RESULT();
}
