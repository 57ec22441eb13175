/* libFuzzer target: a journal built from fuzzed operations (valid records,
 * torn record prefixes, stray bytes, flipped bytes, the writer reopening
 * it) -> ssw_journal_read_all, which must recover every undamaged record. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/journal.h"
#include "sleighsweep/result.h"

/* 2 x 3 grid points, one sample trajectory of 2 nodes: records carry
 * samples, so their layout is the general one. */
static const char config_text[] =
    "[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\ntheta = 0.5, 1\n"
    "a = 0, 0.2, 0.4\nA = 0.5\nB = 0.3\n[ensemble]\ntrajectories = 2\n"
    "[output]\nfile = fuzz.h5\nsamples = 1\nsample_nodes = 2\n";
#define NPTS 6
#define MAX_RECS 4096

#define PROMISE(cond, ...)                                                     \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_journal: broken promise %s: ", #cond);             \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\nlast message: %s\n", ssw_error_message());            \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* The record layout of src/sweep/journal.c: magic, point, samples, FNV-1a 64.
 */
static size_t make_record(const ssw_config *cfg, uint64_t index,
                          unsigned char *rec) {
  const size_t sd = ssw_result_sample_doubles(cfg->samples, cfg->sample_nodes);
  const size_t body = 8 + sizeof(ssw_point_result) + 8 * sd;
  ssw_point_result pt;
  memset(&pt, 0, sizeof pt);
  pt.index = index;
  memcpy(rec, "SSWREC01", 8);
  memcpy(rec + 8, &pt, sizeof pt);
  for (size_t k = 0; k < sd; k++) {
    const double v = (double)(index * 100 + k);
    memcpy(rec + 8 + sizeof pt + 8 * k, &v, 8);
  }
  uint64_t h = 0xCBF29CE484222325ULL;
  for (size_t i = 0; i < body; i++)
    h = (h ^ rec[i]) * 0x100000001B3ULL;
  memcpy(rec + body, &h, 8);
  return body + 8;
}

static ssw_config *cfg;
static char output[4096], jpath[4200];

static void setup(void) {
  if (cfg) return;
  char dir[] = "/tmp/fuzz_journal.XXXXXX";
  PROMISE(mkdtemp(dir), "mkdtemp");
  snprintf(output, sizeof output, "%s/fuzz.h5", dir);
  ssw_journal_path(output, 0, jpath, sizeof jpath);
  PROMISE(ssw_config_parse(config_text, "fuzz.ini", &cfg) == SSW_SUCCESS,
          "config");
}

/* Where each valid record lies, to know which a flipped byte damaged. */
typedef struct {
  off_t at;
  uint64_t index;
  int damaged;
} placed;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  static placed recs[MAX_RECS];
  static unsigned char rec[1 << 16];
  size_t nrec = 0;
  const size_t rb = make_record(cfg, 0, rec);
  unlink(jpath);
  ssw_journal *j = NULL;
  PROMISE(ssw_journal_open(output, 0, cfg, &j) == SSW_SUCCESS, "new journal");
  PROMISE(ssw_journal_close(&j) == SSW_SUCCESS, "close");
  int fd = open(jpath, O_RDWR | O_APPEND);
  PROMISE(fd >= 0, "open");
  const off_t hdr = lseek(fd, 0, SEEK_END); /* header and config text */
  PROMISE(hdr > 64, "no config text after the header");
  for (size_t i = 0; i + 2 <= size && nrec < MAX_RECS; i += 2) {
    const unsigned op = data[i] % 5, arg = data[i + 1];
    const off_t end = lseek(fd, 0, SEEK_END);
    if (op == 0 || op == 4) { /* a valid record (op 4: by the writer) */
      make_record(cfg, arg % NPTS, rec);
      if (op == 4) { /* reopen: the writer cuts a torn tail first */
        close(fd);
        PROMISE(ssw_journal_open(output, 0, cfg, &j) == SSW_SUCCESS,
                "reopen: %s", ssw_error_message());
        const off_t cut = lseek(ssw_journal_fileno(j), 0, SEEK_END);
        for (size_t k = 0; k < nrec; k++)
          PROMISE(recs[k].damaged || recs[k].at + (off_t)rb <= cut,
                  "the writer cut valid record %zu", k);
        ssw_point_result pt;
        memcpy(&pt, rec + 8, sizeof pt);
        PROMISE(
            ssw_journal_append(j, &pt, (const double *)(rec + 8 + sizeof pt)) ==
                SSW_SUCCESS,
            "append");
        PROMISE(ssw_journal_close(&j) == SSW_SUCCESS, "close");
        fd = open(jpath, O_RDWR | O_APPEND);
        PROMISE(fd >= 0, "open");
        recs[nrec++] = (placed){cut, arg % NPTS, 0};
      } else {
        PROMISE(write(fd, rec, rb) == (ssize_t)rb, "write");
        recs[nrec++] = (placed){end, arg % NPTS, 0};
      }
    } else if (op == 1) { /* a torn record: a prefix (a kill mid-write) */
      make_record(cfg, arg % NPTS, rec);
      const size_t k = 1 + arg * (rb - 1) / 256;
      PROMISE(write(fd, rec, k) == (ssize_t)k, "write");
    } else if (op == 2) { /* stray bytes (no record marker among them) */
      unsigned char junk[64];
      memset(junk, arg, sizeof junk);
      const size_t k = 1 + arg % 64;
      PROMISE(write(fd, junk, k) == (ssize_t)k, "write");
    } else if (op == 3 && end > hdr) { /* a flipped byte after the header */
      const off_t at = hdr + (off_t)((arg * 7919u) % (uint64_t)(end - hdr));
      unsigned char c;
      PROMISE(pread(fd, &c, 1, at) == 1, "pread");
      c ^= 0xFF;
      PROMISE(pwrite(fd, &c, 1, at) == 1, "pwrite");
      for (size_t k = 0; k < nrec; k++)
        if (at >= recs[k].at && at < recs[k].at + (off_t)rb)
          recs[k].damaged = 1;
    }
  }
  close(fd);
  int want[NPTS] = {0};
  for (size_t k = 0; k < nrec; k++)
    if (!recs[k].damaged) want[recs[k].index] = 1;
  ssw_journal_set set;
  PROMISE(ssw_journal_read_all(output, cfg, &set) == SSW_SUCCESS, "read: %s",
          ssw_error_message());
  int got[NPTS] = {0};
  for (size_t k = 0; k < set.recs.n; k++) {
    const uint64_t idx = set.recs.pts[k].index;
    PROMISE(idx < NPTS && !got[idx], "index %llu read twice or outside",
            (unsigned long long)idx);
    PROMISE(k == 0 || set.recs.pts[k - 1].index < idx, "not in index order");
    got[idx] = 1;
  }
  for (int i = 0; i < NPTS; i++)
    PROMISE(got[i] >= want[i], "undamaged record of index %d not recovered", i);
  ssw_journal_set_free(&set);
  return 0;
}
