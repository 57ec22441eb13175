/* Append-only per-rank journals: checksummed records of grid points and
 * of solved refinement edges, fdatasync at durability points, recovery of
 * every journal of an output. */
#include "sleighsweep/journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/result.h"
#include "sleighsweep/sample_points.h"

#define FILE_MAGIC "SSWJRNL2"
#define OLD_MAGIC "SSWJRNL1" /* format 1: a hash of the config's text */
/* Longest canonical config text a header may announce: far above any
 * config's (about 1 KB), low enough that a damaged length allocates
 * nothing large. */
#define MAX_TEXT_BYTES (1u << 20)
/* Three kinds of record: a point with its sample trajectories (a grid
 * point sample_points chose), a point alone (every other point: the file
 * keeps no samples for it, so neither does its journal), and a crossing of
 * a solved refinement edge (ssw_journal_crossing). */
#define REC_MAGIC 0x3130434552575353ULL       /* "SSWREC01" little-endian */
#define REC_MAGIC_PLAIN 0x3030434552575353ULL /* "SSWREC00" */
#define REC_MAGIC_EDGE 0x3145474445575353ULL  /* "SSWEDGE1" */
#define EDGE_BYTES (8 + sizeof(ssw_journal_crossing) + 8)
/* Every record fits the buffer of a point's (record_at reads that much). */
_Static_assert(EDGE_BYTES <= 8 + sizeof(ssw_point_result) + 8,
               "an edge record is no longer than a point's");

/* File header (64 bytes): identifies the config and the binary record
 * layout. The config's canonical text (ssw_config_canonical), text_bytes
 * long, follows it, then the records. */
typedef struct {
  char magic[8];
  uint64_t config_hash; /* FNV-1a 64 of the canonical text */
  uint32_t record_bytes, sample_doubles;
  uint32_t text_bytes; /* length of the canonical text after the header */
  /* Bytes of an edge record's ssw_journal_crossing (0: a journal of a build
   * that wrote none; it holds none). */
  uint32_t edge_bytes;
  /* Reserved bytes of the on-disk header (written as zeros), so that the
   * header stays 64 bytes; nothing reads them. */
  uint32_t reserved[8];
} header;
_Static_assert(sizeof(header) == 64, "the journal header is 64 bytes");

/* What a journal of a config must hold: its header and canonical text. */
typedef struct {
  header h;
  char *text;
} ident;

struct ssw_journal {
  int fd;
  char path[4096];
  const ssw_sample_points *sel; /* the points whose records carry samples */
  size_t sdoubles, rec_bytes;   /* rec_bytes: of a record with samples */
  off_t data_at;      /* where the records start: after header and text */
  unsigned char *buf; /* one record */
};

/* FNV-1a 64: cheap, and enough to detect torn or corrupt records. */
static uint64_t fnv1a(const void *p, size_t n, uint64_t h) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ c[i]) * 0x100000001B3ULL;
  return h;
}
static const uint64_t FNV0 = 0xCBF29CE484222325ULL;

static size_t record_bytes(size_t sdoubles) {
  return 8 + sizeof(ssw_point_result) + 8 * sdoubles + 8;
}

/* Length of a record by its first 8 bytes (its kind), 0 for none of the
 * kinds; `full` is the length of a record with samples. */
static size_t record_len(const unsigned char *p, size_t full) {
  uint64_t magic;
  memcpy(&magic, p, 8);
  return magic == REC_MAGIC         ? full
         : magic == REC_MAGIC_PLAIN ? record_bytes(0)
         : magic == REC_MAGIC_EDGE  ? EDGE_BYTES
                                    : 0;
}

static int make_ident(const ssw_config *cfg, ident *w) {
  memset(&w->h, 0, sizeof w->h);
  SSW_CALL(ssw_config_canonical(cfg, &w->text));
  memcpy(w->h.magic, FILE_MAGIC, 8);
  w->h.text_bytes = (uint32_t)strlen(w->text);
  w->h.config_hash = fnv1a(w->text, w->h.text_bytes, FNV0);
  w->h.record_bytes = (uint32_t)sizeof(ssw_point_result);
  w->h.edge_bytes = (uint32_t)sizeof(ssw_journal_crossing);
  w->h.sample_doubles =
      (uint32_t)ssw_result_sample_doubles(cfg->samples, cfg->sample_nodes);
  return SSW_SUCCESS;
}

/* Where the records of a journal with header h start. */
static off_t data_start(const header *h) {
  return (off_t)sizeof *h + (off_t)h->text_bytes;
}

/* 1 when a file of `size` bytes starting with h was cut inside its header
 * or the config text after it (a crash while it was created). */
static int cut_in_header(const header *h, off_t size) {
  return memcmp(h->magic, FILE_MAGIC, 8) == 0 &&
         h->text_bytes <= MAX_TEXT_BYTES && size < data_start(h);
}

/* The stored canonical text against the config's: the first differing key
 * names the refusal. */
static int check_text(int fd, const header *h, const ident *want,
                      const char *path) {
  char *text = malloc((size_t)h->text_bytes + 1), why[2600];
  SSW_CHECK(text, SSW_ERR_MEM, "out of memory reading journal '%s'", path);
  const ssize_t got = pread(fd, text, h->text_bytes, (off_t)sizeof *h);
  if (got != (ssize_t)h->text_bytes) {
    free(text);
    return SSW_RAISE(SSW_ERR_IO, "cannot read journal '%s': %s", path,
                     got < 0 ? strerror(errno) : "cut short");
  }
  text[h->text_bytes] = '\0';
  const int differ = ssw_config_canonical_diff(
      text, want->text, "in the journal", "in the config", why, sizeof why);
  const uint64_t sum = fnv1a(text, h->text_bytes, FNV0);
  free(text);
  SSW_CHECK(!differ, SSW_ERR_CONFIG,
            "journal '%s' belongs to a different config; first difference: "
            "%s; remove it (and the output) to start over, or run the config "
            "it was made with",
            path, why);
  SSW_CHECK(sum == h->config_hash && h->config_hash == want->h.config_hash,
            SSW_ERR_CONFIG,
            "journal '%s' has a damaged header (its config text does not "
            "match its checksum): move it away",
            path);
  return SSW_SUCCESS;
}

static int check_header(int fd, const header *h, const ident *want,
                        const char *path) {
  SSW_CHECK(memcmp(h->magic, OLD_MAGIC, 8) != 0, SSW_ERR_CONFIG,
            "journal '%s' was written by an older sleighsweep (journal "
            "format 1); this build writes format 2 and cannot check it "
            "against the config: finish the run with the build that started "
            "it, or remove the output's journals (*.journal.*) to resume "
            "from the output file alone (points not yet in the file are "
            "computed again)",
            path);
  SSW_CHECK(memcmp(h->magic, FILE_MAGIC, 8) == 0, SSW_ERR_CONFIG,
            "'%s' is named like a journal of this output but is not a "
            "sleighsweep journal: move it away",
            path);
  SSW_CHECK(h->text_bytes <= MAX_TEXT_BYTES, SSW_ERR_CONFIG,
            "journal '%s' has a damaged header (a config text of %lu "
            "bytes): move it away",
            path, (unsigned long)h->text_bytes);
  SSW_CALL(check_text(fd, h, want, path));
  SSW_CHECK(h->record_bytes == want->h.record_bytes &&
                h->sample_doubles == want->h.sample_doubles &&
                (h->edge_bytes == 0 || h->edge_bytes == want->h.edge_bytes),
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

/* Writes the header and the config text of a new journal. */
static int write_prefix(int fd, const ident *want, const char *path) {
  const size_t n = sizeof want->h + want->h.text_bytes;
  unsigned char *buf = malloc(n);
  SSW_CHECK(buf, SSW_ERR_MEM, "out of memory");
  memcpy(buf, &want->h, sizeof want->h);
  memcpy(buf + sizeof want->h, want->text, want->h.text_bytes);
  const int rc = write_all(fd, buf, n, path);
  free(buf);
  return rc;
}

/* A record of `len` bytes is valid when its checksum matches. */
static int rec_valid(const unsigned char *p, size_t len) {
  const size_t body = len - 8;
  uint64_t sum;
  memcpy(&sum, p + body, 8);
  return sum == fnv1a(p, body, FNV0);
}

/* The valid record at `at` of a file of `size` bytes, read into rec (room
 * for `full` bytes): its length, or 0 when there is none. */
static size_t record_at(int fd, off_t at, off_t size, unsigned char *rec,
                        size_t full, int *err) {
  *err = 0;
  const size_t want = at + (off_t)full <= size ? full : (size_t)(size - at);
  if (want < 8) return 0;
  const ssize_t got = pread(fd, rec, want, at);
  if (got < 0) return *err = errno, 0;
  const size_t len = got >= 8 ? record_len(rec, full) : 0;
  return len && (size_t)got >= len && rec_valid(rec, len) ? len : 0;
}

/* Offset of the next valid record at or after `from`, or `size` when none:
 * after a torn or corrupt stretch the records that follow are found again
 * by their magic and checksum, so one damaged record hides nothing else. */
static int resync(int fd, off_t from, off_t size, unsigned char *rec,
                  size_t full, off_t *next) {
  enum { WIN = 65536 };
  static const uint64_t magic[3] = {REC_MAGIC, REC_MAGIC_PLAIN, REC_MAGIC_EDGE};
  unsigned char win[WIN];
  for (off_t base = from; base + 8 <= size; base += WIN - 7) {
    const ssize_t got = pread(fd, win, WIN, base);
    SSW_CHECK(got >= 0, SSW_ERR_IO, "cannot read journal: %s", strerror(errno));
    for (ssize_t k = 0; k + 8 <= got; k++) {
      if (memcmp(win + k, &magic[0], 8) != 0 &&
          memcmp(win + k, &magic[1], 8) != 0 &&
          memcmp(win + k, &magic[2], 8) != 0)
        continue;
      int err;
      const size_t len = record_at(fd, base + k, size, rec, full, &err);
      SSW_CHECK(!err, SSW_ERR_IO, "cannot read journal: %s", strerror(err));
      if (len) {
        *next = base + k;
        return SSW_SUCCESS;
      }
    }
    if (got < WIN) break;
  }
  *next = size;
  return SSW_SUCCESS;
}

/* Walks the records of an open journal after its header, calling
 * fn(ctx, record) for each valid one, counting damaged stretches in *torn
 * and returning in *end the offset just past the last valid record. */
static int scan(int fd, off_t start, size_t full, unsigned char *rec,
                int (*fn)(void *, const unsigned char *), void *ctx,
                size_t *torn, off_t *end) {
  struct stat st;
  SSW_CHECK(fstat(fd, &st) == 0, SSW_ERR_IO, "cannot stat journal: %s",
            strerror(errno));
  off_t pos = start;
  *end = pos;
  while (pos < st.st_size) {
    int err;
    const size_t len = record_at(fd, pos, st.st_size, rec, full, &err);
    SSW_CHECK(!err, SSW_ERR_IO, "cannot read journal: %s", strerror(err));
    if (len) {
      if (fn) SSW_CALL(fn(ctx, rec));
      pos += (off_t)len;
      *end = pos;
      continue;
    }
    (*torn)++;
    SSW_CALL(resync(fd, pos + 1, st.st_size, rec, full, &pos));
  }
  return SSW_SUCCESS;
}

/* Whether the file ends on a whole valid record (of any kind). */
static int ends_on_record(ssw_journal *j, off_t size) {
  const size_t lens[3] = {j->rec_bytes, record_bytes(0), EDGE_BYTES};
  for (int k = 0; k < 3; k++) {
    int err;
    const off_t at = size - (off_t)lens[k];
    if (at >= j->data_at &&
        record_at(j->fd, at, size, j->buf, j->rec_bytes, &err) == lens[k])
      return 1;
  }
  return 0;
}

/* Makes an existing journal ready for appending: a header cut short (a
 * crash while creating it) is written again, and a torn tail (a kill mid-
 * append) is cut back to the last valid record, so new records follow
 * valid ones instead of hiding behind the tear. */
static int prepare_existing(ssw_journal *j, const ident *want, off_t size) {
  header h;
  if (size >= (off_t)sizeof h)
    SSW_CHECK(pread(j->fd, &h, sizeof h, 0) == (ssize_t)sizeof h, SSW_ERR_IO,
              "cannot read journal '%s': %s", j->path, strerror(errno));
  if (size < (off_t)sizeof h || cut_in_header(&h, size)) {
    SSW_CHECK(ftruncate(j->fd, 0) == 0, SSW_ERR_IO,
              "cannot truncate journal '%s': %s", j->path, strerror(errno));
    return write_prefix(j->fd, want, j->path);
  }
  SSW_CALL(check_header(j->fd, &h, want, j->path));
  if (size == j->data_at || ends_on_record(j, size))
    return SSW_SUCCESS; /* ends on a whole valid record: the common case */
  size_t torn = 0;
  off_t end = j->data_at;
  SSW_CALL(
      scan(j->fd, j->data_at, j->rec_bytes, j->buf, NULL, NULL, &torn, &end));
  SSW_CHECK(ftruncate(j->fd, end) == 0, SSW_ERR_IO,
            "cannot cut the torn tail of journal '%s': %s", j->path,
            strerror(errno));
  return SSW_SUCCESS;
}

int ssw_journal_open(const char *output, int rank, const ssw_config *cfg,
                     ssw_journal **out) {
  *out = NULL;
  ident want;
  SSW_CALL(make_ident(cfg, &want));
  ssw_journal *j = calloc(1, sizeof *j);
  if (!j) free(want.text);
  SSW_CHECK(j, SSW_ERR_MEM, "out of memory");
  ssw_journal_path(output, rank, j->path, sizeof j->path);
  j->sel = &cfg->sample_sel;
  j->sdoubles = ssw_result_sample_doubles(cfg->samples, cfg->sample_nodes);
  j->rec_bytes = record_bytes(j->sdoubles);
  j->data_at = data_start(&want.h);
  j->buf = malloc(j->rec_bytes);
  j->fd = open(j->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  int rc = SSW_SUCCESS;
  if (!j->buf)
    rc = SSW_RAISE(SSW_ERR_MEM, "out of memory");
  else if (j->fd < 0)
    rc = SSW_RAISE(SSW_ERR_IO, "cannot open journal '%s': %s", j->path,
                   strerror(errno));
  struct stat st;
  if (rc == SSW_SUCCESS && fstat(j->fd, &st) != 0)
    rc = SSW_RAISE(SSW_ERR_IO, "cannot stat journal '%s': %s", j->path,
                   strerror(errno));
  if (rc == SSW_SUCCESS && st.st_size == 0)
    rc = write_prefix(j->fd, &want, j->path);
  else if (rc == SSW_SUCCESS)
    rc = prepare_existing(j, &want, st.st_size);
  if (rc == SSW_SUCCESS && fdatasync(j->fd) != 0)
    rc = SSW_RAISE(SSW_ERR_IO, "cannot sync journal '%s': %s", j->path,
                   strerror(errno));
  free(want.text);
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
  const int with =
      j->sdoubles && samples && ssw_sample_points_slot(j->sel, r->index) >= 0;
  const uint64_t magic = with ? REC_MAGIC : REC_MAGIC_PLAIN;
  const size_t len = with ? j->rec_bytes : record_bytes(0);
  memcpy(p, &magic, 8);
  memcpy(p + 8, r, sizeof *r);
  if (with) memcpy(p + 8 + sizeof *r, samples, 8 * j->sdoubles);
  const uint64_t sum = fnv1a(p, len - 8, FNV0);
  memcpy(p + len - 8, &sum, 8);
  return write_all(j->fd, p, len, j->path);
}

int ssw_journal_append_edge(ssw_journal *j, uint64_t lo, int32_t axis,
                            const ssw_refine_crossing *c, size_t n,
                            uint64_t trajectories) {
  static const uint64_t magic = REC_MAGIC_EDGE;
  unsigned char *p = j->buf;
  for (size_t k = 0; k < (n ? n : 1); k++) {
    ssw_journal_crossing x;
    memset(&x, 0, sizeof x);
    x.lo = lo, x.axis = axis, x.seq = (uint32_t)k, x.count = (uint32_t)n;
    x.trajectories = trajectories;
    if (n) x.c = c[k];
    memcpy(p, &magic, 8);
    memcpy(p + 8, &x, sizeof x);
    const uint64_t sum = fnv1a(p, EDGE_BYTES - 8, FNV0);
    memcpy(p + EDGE_BYTES - 8, &sum, 8);
    SSW_CALL(write_all(j->fd, p, EDGE_BYTES, j->path));
  }
  return SSW_SUCCESS;
}

int ssw_journal_sync(ssw_journal *j) {
  SSW_CHECK(fdatasync(j->fd) == 0, SSW_ERR_IO, "cannot sync journal '%s': %s",
            j->path, strerror(errno));
  return SSW_SUCCESS;
}

int ssw_journal_fileno(const ssw_journal *j) { return j ? j->fd : -1; }

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
  ident want;
  uint64_t npts;
  size_t rec_bytes;
  ssw_journal_set *set;
  unsigned char *buf; /* one record */
  double *samples;    /* its samples, copied out as doubles */
  size_t edge_cap;    /* room in set->crossings */
} reader;

/* Keeps one crossing of a refinement edge (one of a point outside the grid,
 * or past its edge's count, is ignored). */
static int keep_crossing(reader *r, const unsigned char *rec) {
  ssw_journal_crossing x;
  memcpy(&x, rec + 8, sizeof x);
  if (x.lo >= r->npts || (x.count ? x.seq >= x.count : x.seq != 0))
    return SSW_SUCCESS;
  ssw_journal_set *s = r->set;
  if (s->ncrossings == r->edge_cap) {
    const size_t cap = r->edge_cap ? 2 * r->edge_cap : 64;
    ssw_journal_crossing *c = realloc(s->crossings, cap * sizeof *c);
    SSW_CHECK(c, SSW_ERR_MEM, "out of memory reading journals");
    s->crossings = c, r->edge_cap = cap;
  }
  s->crossings[s->ncrossings++] = x;
  return SSW_SUCCESS;
}

/* Keeps one valid record: the point, then its samples (indices outside
 * the grid are ignored). */
static int keep(void *ctx, const unsigned char *rec) {
  reader *r = ctx;
  uint64_t magic;
  memcpy(&magic, rec, 8);
  if (magic == REC_MAGIC_EDGE) return keep_crossing(r, rec);
  ssw_point_result pt;
  memcpy(&pt, rec + 8, sizeof pt);
  if (pt.index >= r->npts) return SSW_SUCCESS;
  const size_t sd = r->set->recs.sdoubles;
  if (sd && record_len(rec, r->rec_bytes) == r->rec_bytes)
    memcpy(r->samples, rec + 8 + sizeof pt, 8 * sd);
  else /* a point without samples in the file */
    for (size_t k = 0; k < sd; k++)
      r->samples[k] = NAN;
  return ssw_result_buf_push(&r->set->recs, &pt, r->samples);
}

static int read_one(const char *path, void *ctx) {
  reader *r = ctx;
  /* Non-blocking: a FIFO named like a journal must not stop the reader. */
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  SSW_CHECK(fd >= 0, SSW_ERR_IO, "cannot read journal '%s': %s", path,
            strerror(errno));
  header h;
  struct stat st;
  int rc = SSW_SUCCESS;
  ssize_t got;
  if (fstat(fd, &st) != 0) {
    rc = SSW_RAISE(SSW_ERR_IO, "cannot read journal '%s': %s", path,
                   strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    rc = SSW_RAISE(SSW_ERR_CONFIG,
                   "'%s' is named like a journal of this output but is not "
                   "a regular file: move it away",
                   path);
  } else if ((got = pread(fd, &h, sizeof h, 0)) < 0) {
    rc = SSW_RAISE(SSW_ERR_IO, "cannot read journal '%s': %s", path,
                   strerror(errno));
  } else if (got < (ssize_t)sizeof h || cut_in_header(&h, st.st_size)) {
    r->set->torn++; /* killed while writing the header: nothing in it */
    r->set->short_headers++;
  } else if ((rc = check_header(fd, &h, &r->want, path)) == SSW_SUCCESS) {
    r->set->files++;
    off_t end = 0;
    rc = scan(fd, data_start(&h), r->rec_bytes, r->buf, keep, r, &r->set->torn,
              &end);
  }
  close(fd);
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
static int dedupe(ssw_journal_set *s) {
  const ssw_result_buf *in = &s->recs;
  if (in->n == 0) return SSW_SUCCESS;
  uint64_t(*key)[2] = malloc(in->n * sizeof *key);
  SSW_CHECK(key, SSW_ERR_MEM, "out of memory reading journals");
  for (size_t i = 0; i < in->n; i++)
    key[i][0] = in->pts[i].index, key[i][1] = i;
  qsort(key, in->n, sizeof *key, by_key);
  ssw_result_buf out = {.sdoubles = in->sdoubles};
  int rc = ssw_result_buf_reserve(&out, in->n);
  for (size_t i = 0; i < in->n && rc == SSW_SUCCESS; i++) {
    if (out.n > 0 && out.pts[out.n - 1].index == key[i][0]) {
      s->duplicates++;
      continue;
    }
    rc = ssw_result_buf_push(&out, &in->pts[key[i][1]],
                             ssw_result_buf_samples(in, key[i][1]));
  }
  free(key);
  if (rc != SSW_SUCCESS) {
    ssw_result_buf_free(&out);
    return rc;
  }
  ssw_result_buf_free(&s->recs);
  s->recs = out;
  return SSW_SUCCESS;
}

static int by_crossing(const void *a, const void *b) {
  const ssw_journal_crossing *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  if (x->axis != y->axis) return x->axis < y->axis ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Sorts the crossings by (lo, axis, seq), keeps one of each (an edge solved
 * twice gave the same crossings) and drops every edge one of whose
 * records is missing (it is solved again). */
static void whole_edges(ssw_journal_set *s) {
  ssw_journal_crossing *c = s->crossings;
  if (s->ncrossings) qsort(c, s->ncrossings, sizeof *c, by_crossing);
  size_t m = 0;
  for (size_t i = 0; i < s->ncrossings;) {
    size_t end = i, n = 0; /* [i, end): the records of one edge */
    while (end < s->ncrossings && c[end].lo == c[i].lo &&
           c[end].axis == c[i].axis) {
      if (n == 0 || c[end].seq != c[i + n - 1].seq) c[i + n++] = c[end];
      end++;
    }
    int whole = n == (c[i].count ? c[i].count : 1);
    for (size_t k = 0; whole && k < n; k++)
      whole = c[i + k].seq == k && c[i + k].count == c[i].count;
    if (whole) {
      memmove(&c[m], &c[i], n * sizeof *c);
      m += n;
      s->edges++;
    }
    i = end;
  }
  s->ncrossings = m;
}

int ssw_journal_read_all(const char *output, const ssw_config *cfg,
                         ssw_journal_set *set) {
  memset(set, 0, sizeof *set);
  set->recs.sdoubles =
      ssw_result_sample_doubles(cfg->samples, cfg->sample_nodes);
  reader r = {.npts = ssw_grid_size(cfg->axes),
              .rec_bytes = record_bytes(set->recs.sdoubles),
              .set = set};
  SSW_CALL(make_ident(cfg, &r.want));
  r.buf = malloc(r.rec_bytes);
  r.samples = malloc(8 * set->recs.sdoubles + 8);
  int rc = r.buf && r.samples
               ? each_journal(output, read_one, &r)
               : SSW_RAISE(SSW_ERR_MEM, "out of memory reading journals");
  if (rc == SSW_SUCCESS) rc = dedupe(set);
  if (rc == SSW_SUCCESS) whole_edges(set);
  free(r.buf);
  free(r.samples);
  free(r.want.text);
  if (rc != SSW_SUCCESS) ssw_journal_set_free(set);
  return rc;
}

void ssw_journal_set_free(ssw_journal_set *set) {
  if (!set) return;
  ssw_result_buf_free(&set->recs);
  free(set->crossings);
  set->crossings = NULL;
  set->ncrossings = set->edges = 0;
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
