/* Serial, read-only looks into an output file (sleighsweep/h5peek.h). */
#include "sleighsweep/h5peek.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleighsweep/error.h"
#include "sleighsweep/names.h"

/* What a path that is not a regular file is, for messages. */
static const char *kind_of(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO (named pipe)"
         : S_ISSOCK(mode) ? "a socket"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
                          : "not a regular file";
}

int ssw_h5peek_hdf5_file(const char *path) {
  static const unsigned char sig[8] = {0x89, 'H',  'D',  'F',
                                       '\r', '\n', 0x1a, '\n'};
  struct stat st;
  if (stat(path, &st) != 0) {
    struct stat lst;
    SSW_CHECK(errno != ENOENT || lstat(path, &lst) != 0, SSW_ERR_IO,
              "'%s' is a symbolic link to a file that does not exist", path);
    SSW_CHECK(errno != ENOENT, SSW_ERR_IO, "'%s' does not exist", path);
    return SSW_RAISE(SSW_ERR_IO, "cannot examine '%s': %s", path,
                     strerror(errno));
  }
  SSW_CHECK(S_ISREG(st.st_mode), SSW_ERR_IO, "'%s' is %s, not an output file",
            path, kind_of(st.st_mode));
  /* Non-blocking: the file may have been replaced by a FIFO since. */
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  SSW_CHECK(fd >= 0, SSW_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  unsigned char head[8];
  const ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                          ? pread(fd, head, sizeof head, 0)
                          : -1;
  close(fd);
  SSW_CHECK(got >= 0, SSW_ERR_IO, "'%s' is not a regular file", path);
  SSW_CHECK(got == 8 && memcmp(head, sig, 8) == 0, SSW_ERR_IO,
            "'%s' is not an HDF5 file (%s)", path,
            got == 0 ? "it is empty"
                     : "it does not start with HDF5's "
                       "signature");
  return SSW_SUCCESS;
}

char *ssw_h5peek_root_str(hid_t f, const char *name) {
  if (H5Aexists(f, name) <= 0) return NULL;
  char *out = NULL;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT), t = H5I_INVALID_HID;
  if (a < 0) return NULL;
  t = H5Aget_type(a);
  if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
    if (H5Tis_variable_str(t) > 0) {
      char *v = NULL;
      hid_t m = H5Tcopy(t);
      if (H5Aread(a, m, &v) >= 0 && v) out = strdup(v);
      if (v) H5free_memory(v);
      H5Tclose(m);
    } else {
      const size_t n = H5Tget_size(t);
      out = calloc(n + 1, 1);
      if (out && H5Aread(a, t, out) < 0) free(out), out = NULL;
    }
  }
  if (t >= 0) H5Tclose(t);
  H5Aclose(a);
  return out;
}

/* ---- the done mask, in blocks ---------------------------------------- */

/* Largest block of the done mask read at once (points): a 2^31-point
 * grid's mask is counted through 4 MiB, not 2 GiB. */
#define BLOCK_POINTS ((hsize_t)1 << 22)

/* Blocks of consecutive flat indices: the datasets are N-D (theta
 * slowest), so a block is every trailing axis from `split` on at one index
 * of each leading axis; blocks follow each other in flat order. */
typedef struct {
  hid_t space, mspace;
  int ndims, split;
  hsize_t dims[16], start[16], count[16], block;
} blocks;

static int blocks_open(hid_t done, uint64_t total, blocks *b) {
  memset(b, 0, sizeof *b);
  b->mspace = H5I_INVALID_HID;
  b->space = H5Dget_space(done);
  SSW_CHECK(b->space >= 0, SSW_ERR_HDF5, "no readable done mask");
  b->ndims = H5Sget_simple_extent_ndims(b->space);
  SSW_CHECK(b->ndims >= 1 && b->ndims <= 16 &&
                H5Sget_simple_extent_dims(b->space, b->dims, NULL) >= 0,
            SSW_ERR_IO, "the done mask has %d dimensions", b->ndims);
  uint64_t n = 1;
  for (int k = 0; k < b->ndims; k++)
    n *= b->dims[k];
  SSW_CHECK(n == total, SSW_ERR_IO,
            "the done mask has %llu points, the grid %llu",
            (unsigned long long)n, (unsigned long long)total);
  b->split = b->ndims - 1;
  b->block = b->dims[b->split];
  while (b->split > 0 && b->block * b->dims[b->split - 1] <= BLOCK_POINTS)
    b->block *= b->dims[--b->split];
  for (int k = 0; k < b->ndims; k++)
    b->count[k] = k < b->split ? 1 : b->dims[k];
  b->mspace = H5Screate_simple(1, &b->block, NULL);
  SSW_CHECK(b->mspace >= 0, SSW_ERR_HDF5, "H5Screate_simple failed");
  return SSW_SUCCESS;
}

/* Reads the current block of `d` (as bytes) into buf. */
static int blocks_read(blocks *b, hid_t d, hid_t type, void *buf) {
  SSW_CHECK(H5Sselect_hyperslab(b->space, H5S_SELECT_SET, b->start, NULL,
                                b->count, NULL) >= 0 &&
                H5Dread(d, type, b->mspace, b->space, H5P_DEFAULT, buf) >= 0,
            SSW_ERR_HDF5, "H5Dread failed on the done mask or the regimes");
  return SSW_SUCCESS;
}

static void blocks_next(blocks *b) {
  for (int k = b->split - 1; k >= 0; k--) { /* odometer */
    if (++b->start[k] < b->dims[k]) break;
    b->start[k] = 0;
  }
}

static void blocks_close(blocks *b) {
  if (b->mspace >= 0) H5Sclose(b->mspace);
  if (b->space >= 0) H5Sclose(b->space);
}

/* A block's points: a point marked done whose regime still holds the fill
 * value (-1: every written point has a regime, written before its done
 * flag) holds no results, and is not done. */
static void tally(uint8_t *mask, const int8_t *regime, hsize_t n,
                  ssw_h5peek_done *c) {
  for (hsize_t i = 0; i < n; i++) {
    if (!mask[i]) continue;
    if (regime[i] < 0) {
      mask[i] = 0;
      c->forged++;
    } else {
      mask[i] = 1;
      c->in_file++;
    }
  }
}

int ssw_h5peek_read_done(hid_t done, hid_t regime, uint64_t total,
                         uint8_t *mask, const ssw_result_buf *jour,
                         ssw_h5peek_done *c) {
  memset(c, 0, sizeof *c);
  blocks b;
  int rc = blocks_open(done, total, &b);
  uint8_t *own = NULL;
  int8_t *reg = NULL;
  if (rc == SSW_SUCCESS) {
    own = mask ? NULL : malloc(b.block);
    reg = malloc(b.block);
    if ((!mask && !own) || !reg)
      rc = SSW_RAISE(SSW_ERR_MEM, "out of memory for the done mask");
  }
  size_t k = 0; /* the journals' records, sorted by index */
  for (uint64_t first = 0; rc == SSW_SUCCESS && first < total;
       first += b.block) {
    uint8_t *m = mask ? mask + first : own;
    rc = blocks_read(&b, done, H5T_NATIVE_UINT8, m);
    if (rc == SSW_SUCCESS) rc = blocks_read(&b, regime, H5T_NATIVE_INT8, reg);
    if (rc != SSW_SUCCESS) break;
    tally(m, reg, b.block, c);
    for (; jour && k < jour->n && jour->pts[k].index < first + b.block; k++)
      c->in_journals +=
          jour->pts[k].index >= first && !m[jour->pts[k].index - first];
    blocks_next(&b);
  }
  free(own);
  free(reg);
  blocks_close(&b);
  return rc;
}

int ssw_h5peek_count_done(hid_t f, uint64_t total, const ssw_result_buf *jour,
                          ssw_h5peek_done *c) {
  memset(c, 0, sizeof *c);
  const hid_t done = H5Dopen2(f, "done", H5P_DEFAULT);
  const hid_t regime = H5Dopen2(f, "regime", H5P_DEFAULT);
  int rc = done >= 0 && regime >= 0
               ? ssw_h5peek_read_done(done, regime, total, NULL, jour, c)
               : SSW_RAISE(SSW_ERR_IO, "no done mask or regimes");
  if (regime >= 0) H5Dclose(regime);
  if (done >= 0) H5Dclose(done);
  return rc;
}

double ssw_h5peek_root_num(hid_t f, const char *name) {
  double v = NAN;
  if (H5Aexists(f, name) <= 0) return NAN;
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  if (a < 0) return NAN;
  if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) v = NAN;
  H5Aclose(a);
  return v;
}

int ssw_h5peek_root_has(hid_t f, const char *name) {
  return H5Aexists(f, name) > 0;
}

int ssw_h5peek_open(const char *path, hid_t *f) {
  *f = H5I_INVALID_HID;
  /* What the path is (missing, a directory, a FIFO, not HDF5) before HDF5
   * opens it: opening a FIFO would block. */
  SSW_CALL(ssw_h5peek_hdf5_file(path));
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (fapl >= 0) H5Pset_file_locking(fapl, 0, 1);
  *f = H5Fopen(path, H5F_ACC_RDONLY, fapl >= 0 ? fapl : H5P_DEFAULT);
  if (fapl >= 0) H5Pclose(fapl);
  SSW_CHECK(*f >= 0, SSW_ERR_IO,
            "'%s' does not open as an HDF5 file (a run killed while "
            "writing it leaves such a file; its journals keep the finished "
            "points: run the same command again to recover)",
            path);
  return SSW_SUCCESS;
}

void ssw_h5peek_close(hid_t *f) {
  if (*f >= 0) H5Fclose(*f);
  *f = H5I_INVALID_HID;
}
