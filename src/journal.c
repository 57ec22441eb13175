/* Append-only per-rank journals: checksummed records, fdatasync at
 * durability points, recovery of every journal of an output. */
#include "sleighsweep/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5out.h"

#define FILE_MAGIC "SSWJRNL1"
#define REC_MAGIC 0x3130434552575353ULL /* "SSWREC01" little-endian */

/* File header: identifies the config and the binary record layout. */
typedef struct {
  char magic[8];
  uint64_t config_hash;
  uint32_t record_bytes, sample_doubles;
  uint64_t reserved[5];
} header;

struct ssw_journal {
  int fd;
  char path[4096];
  size_t sdoubles, rec_bytes;
  unsigned char *buf; /* one record */
};

/* FNV-1a 64: cheap, and enough to detect torn or corrupt records. */
static uint64_t fnv1a(const void *p, size_t n, uint64_t h) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001B3ULL;
  return h;
}
static const uint64_t FNV0 = 0xCBF29CE484222325ULL;

static size_t record_bytes(size_t sdoubles) {
  return 8 + sizeof(ssw_point_result) + 8 * sdoubles + 8;
}

static header make_header(const ssw_config *cfg) {
  header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, FILE_MAGIC, 8);
  h.config_hash = fnv1a(cfg->text, strlen(cfg->text), FNV0);
  h.record_bytes = (uint32_t)sizeof(ssw_point_result);
  h.sample_doubles = (uint32_t)ssw_h5out_sample_doubles(cfg);
  return h;
}

static int check_header(const header *h, const header *want,
                        const char *path) {
  SSW_CHECK(memcmp(h->magic, FILE_MAGIC, 8) == 0, SSW_ERR_IO,
            "'%s' is not a sleighsweep journal", path);
  SSW_CHECK(h->config_hash == want->config_hash, SSW_ERR_CONFIG,
            "journal '%s' belongs to a different config; remove it (and the "
            "output) to start over, or run the config it was made with",
            path);
  SSW_CHECK(h->record_bytes == want->record_bytes &&
                h->sample_doubles == want->sample_doubles,
            SSW_ERR_IO,
            "journal '%s' was written by an incompatible build of sleighsweep",
            path);
  return SSW_SUCCESS;
}

void ssw_journal_path(const char *output, int rank, char *buf, size_t n) {
  snprintf(buf, n, "%s.journal.%d", output, rank);
}

static int write_all(int fd, const void *p, size_t n, const char *path) {
  const char *c = p;
  while (n > 0) {
    const ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    SSW_CHECK(w > 0, SSW_ERR_IO, "cannot write journal '%s': %s%s", path,
              strerror(errno),
              errno == ENOSPC ? " (the disk is full: free space and run "
                                "again to resume)"
                              : "");
    c += w, n -= (size_t)w;
  }
  return SSW_SUCCESS;
}

int ssw_journal_open(const char *output, int rank, const ssw_config *cfg,
                     ssw_journal **out) {
  *out = NULL;
  ssw_journal *j = calloc(1, sizeof *j);
  SSW_CHECK(j, SSW_ERR_MEM, "out of memory");
  ssw_journal_path(output, rank, j->path, sizeof j->path);
  j->sdoubles = ssw_h5out_sample_doubles(cfg);
  j->rec_bytes = record_bytes(j->sdoubles);
  j->buf = malloc(j->rec_bytes);
  j->fd = open(j->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  int rc = SSW_SUCCESS;
  if (!j->buf) rc = SSW_RAISE(SSW_ERR_MEM, "out of memory");
  else if (j->fd < 0)
    rc = SSW_RAISE(SSW_ERR_IO, "cannot open journal '%s': %s", j->path,
                   strerror(errno));
  const header want = make_header(cfg);
  struct stat st;
  if (rc == SSW_SUCCESS && fstat(j->fd, &st) == 0 && st.st_size == 0) {
    rc = write_all(j->fd, &want, sizeof want, j->path);
    if (rc == SSW_SUCCESS && fdatasync(j->fd) != 0)
      rc = SSW_RAISE(SSW_ERR_IO, "cannot sync journal '%s': %s", j->path,
                     strerror(errno));
  } else if (rc == SSW_SUCCESS) {
    header h;
    const ssize_t r = pread(j->fd, &h, sizeof h, 0);
    rc = r == (ssize_t)sizeof h
             ? check_header(&h, &want, j->path)
             : SSW_RAISE(SSW_ERR_IO, "journal '%s' has a torn header",
                         j->path);
  }
  if (rc != SSW_SUCCESS) {
    if (j->fd >= 0) close(j->fd);
    free(j->buf);
    free(j);
    return rc;
  }
  *out = j;
  return SSW_SUCCESS;
}

int ssw_journal_append(ssw_journal *j, const ssw_point_result *r,
                       const double *samples) {
  unsigned char *p = j->buf;
  const uint64_t magic = REC_MAGIC;
  memcpy(p, &magic, 8);
  memcpy(p + 8, r, sizeof *r);
  if (j->sdoubles) memcpy(p + 8 + sizeof *r, samples, 8 * j->sdoubles);
  const size_t body = j->rec_bytes - 8;
  const uint64_t sum = fnv1a(p, body, FNV0);
  memcpy(p + body, &sum, 8);
  return write_all(j->fd, p, j->rec_bytes, j->path);
}

int ssw_journal_sync(ssw_journal *j) {
  SSW_CHECK(fdatasync(j->fd) == 0, SSW_ERR_IO,
            "cannot sync journal '%s': %s", j->path, strerror(errno));
  return SSW_SUCCESS;
}

int ssw_journal_close(ssw_journal **j) {
  if (!j || !*j) return SSW_SUCCESS;
  int rc = ssw_journal_sync(*j);
  if (close((*j)->fd) != 0 && rc == SSW_SUCCESS)
    rc = SSW_RAISE(SSW_ERR_IO, "cannot close journal '%s': %s", (*j)->path,
                   strerror(errno));
  free((*j)->buf);
  free(*j);
  *j = NULL;
  return rc;
}

/* Calls fn(path) for every "<output>.journal.<digits>" in its directory. */
static int each_journal(const char *output, int (*fn)(const char *, void *),
                        void *ctx) {
  char dir[4096], prefix[4096];
  const char *slash = strrchr(output, '/');
  if (slash) {
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - output + (slash == output)),
             output);
    snprintf(prefix, sizeof prefix, "%s.journal.", slash + 1);
  } else {
    snprintf(dir, sizeof dir, ".");
    snprintf(prefix, sizeof prefix, "%s.journal.", output);
  }
  DIR *d = opendir(dir);
  if (!d && errno == ENOENT) return SSW_SUCCESS; /* no directory: none */
  SSW_CHECK(d, SSW_ERR_IO, "cannot list directory '%s': %s", dir,
            strerror(errno));
  const size_t np = strlen(prefix);
  int rc = SSW_SUCCESS;
  for (struct dirent *e; rc == SSW_SUCCESS && (e = readdir(d));) {
    const char *tail = e->d_name + np;
    if (strncmp(e->d_name, prefix, np) != 0 || *tail == '\0' ||
        strspn(tail, "0123456789") != strlen(tail))
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    rc = fn(path, ctx);
  }
  closedir(d);
  return rc;
}

typedef struct {
  const ssw_config *cfg;
  header want;
  uint64_t npts;
  size_t sdoubles, rec_bytes;
  ssw_journal_set *set;
  size_t cap;
  unsigned char *buf;
} reader;

static int keep(reader *r) {
  ssw_journal_set *s = r->set;
  if (s->n == r->cap) {
    const size_t cap = r->cap ? 2 * r->cap : 1024;
    ssw_point_result *p = realloc(s->pts, cap * sizeof *p);
    SSW_CHECK(p, SSW_ERR_MEM, "out of memory reading journals");
    s->pts = p;
    if (r->sdoubles) {
      double *q = realloc(s->samples, cap * r->sdoubles * sizeof *q);
      SSW_CHECK(q, SSW_ERR_MEM, "out of memory reading journals");
      s->samples = q;
    }
    r->cap = cap;
  }
  memcpy(&s->pts[s->n], r->buf + 8, sizeof(ssw_point_result));
  if (r->sdoubles)
    memcpy(s->samples + s->n * r->sdoubles,
           r->buf + 8 + sizeof(ssw_point_result), 8 * r->sdoubles);
  s->n++;
  return SSW_SUCCESS;
}

static int read_one(const char *path, void *ctx) {
  reader *r = ctx;
  FILE *f = fopen(path, "rb");
  SSW_CHECK(f, SSW_ERR_IO, "cannot read journal '%s': %s", path,
            strerror(errno));
  header h;
  int rc = SSW_SUCCESS;
  if (fread(&h, sizeof h, 1, f) != 1) {
    r->set->torn++; /* killed while writing the header: nothing in it */
  } else if ((rc = check_header(&h, &r->want, path)) == SSW_SUCCESS) {
    r->set->files++;
    while (rc == SSW_SUCCESS) {
      const size_t got = fread(r->buf, 1, r->rec_bytes, f);
      if (got == 0) break;
      const size_t body = r->rec_bytes - 8;
      uint64_t magic, sum;
      memcpy(&magic, r->buf, 8);
      memcpy(&sum, r->buf + body, 8);
      if (got < r->rec_bytes || magic != REC_MAGIC ||
          sum != fnv1a(r->buf, body, FNV0)) {
        r->set->torn++; /* append-only: only the tail can be torn */
        break;
      }
      uint64_t index;
      memcpy(&index, r->buf + 8 + offsetof(ssw_point_result, index), 8);
      if (index < r->npts) rc = keep(r);
    }
  }
  fclose(f);
  return rc;
}

static int by_key(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sorts by index (stable: by position within equal indices) and keeps the
 * first record of each index; results are deterministic, so duplicates
 * are identical. Samples move with their records. */
static int dedupe(reader *r) {
  ssw_journal_set *s = r->set;
  if (s->n == 0) return SSW_SUCCESS;
  const size_t sd = r->sdoubles;
  uint64_t(*key)[2] = malloc(s->n * sizeof *key);
  ssw_point_result *pts = malloc(s->n * sizeof *pts);
  double *smp = sd ? malloc(s->n * sd * sizeof *smp) : NULL;
  if (!key || !pts || (sd && !smp)) {
    free(key), free(pts), free(smp);
    return SSW_RAISE(SSW_ERR_MEM, "out of memory reading journals");
  }
  for (size_t i = 0; i < s->n; i++) key[i][0] = s->pts[i].index, key[i][1] = i;
  qsort(key, s->n, sizeof *key, by_key);
  size_t m = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (m > 0 && pts[m - 1].index == key[i][0]) {
      s->duplicates++;
      continue;
    }
    pts[m] = s->pts[key[i][1]];
    if (sd) memcpy(smp + m * sd, s->samples + key[i][1] * sd, sd * sizeof *smp);
    m++;
  }
  free(key), free(s->pts), free(s->samples);
  s->pts = pts, s->samples = smp, s->n = m;
  return SSW_SUCCESS;
}

int ssw_journal_read_all(const char *output, const ssw_config *cfg,
                         ssw_journal_set *set) {
  memset(set, 0, sizeof *set);
  reader r = {.cfg = cfg, .want = make_header(cfg), .npts = ssw_grid_size(cfg),
              .sdoubles = ssw_h5out_sample_doubles(cfg), .set = set};
  r.rec_bytes = record_bytes(r.sdoubles);
  r.buf = malloc(r.rec_bytes);
  SSW_CHECK(r.buf, SSW_ERR_MEM, "out of memory reading journals");
  int rc = each_journal(output, read_one, &r);
  if (rc == SSW_SUCCESS) rc = dedupe(&r);
  free(r.buf);
  if (rc != SSW_SUCCESS) ssw_journal_set_free(set);
  return rc;
}

void ssw_journal_set_free(ssw_journal_set *set) {
  if (!set) return;
  free(set->pts);
  free(set->samples);
  set->pts = NULL, set->samples = NULL, set->n = 0;
}

static int remove_one(const char *path, void *ctx) {
  (void)ctx;
  SSW_CHECK(unlink(path) == 0 || errno == ENOENT, SSW_ERR_IO,
            "cannot remove journal '%s': %s", path, strerror(errno));
  return SSW_SUCCESS;
}

int ssw_journal_remove_all(const char *output) {
  return each_journal(output, remove_one, NULL);
}
