/* Parallel HDF5 output: collective creation, point writes, flush, finish
 * and close (layout: docs/output.md; helpers h5util.c, tables h5layout.c,
 * resume h5resume.c). */
#include "sleighsweep/h5out.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "h5out_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/sample_points.h"

/* ---- creation -------------------------------------------------------- */

/* Rank 0 looks for an existing file so the error says so plainly (the
 * exclusive create below would refuse it anyway). */
static int check_absent(ssw_h5out *h) {
  int exists = 0, status = SSW_SUCCESS;
  if (h->rank == 0) {
    FILE *f = fopen(h->path, "rb");
    exists = f != NULL;
    if (f) fclose(f);
  }
  MPITRY(MPI_Bcast(&exists, 1, MPI_INT, 0, h->comm));
  SSW_CHECK(!exists, SSW_ERR_IO,
            "output file '%s' already exists (resume it, or remove it or "
            "choose another path)",
            h->path);
done:
  return status;
}

void ssw_h5out_creating_path(const char *path, char *buf, size_t n) {
  snprintf(buf, n, "%s.creating", path);
}

/* Builds the file under its creating name (TRUNC: a stale one from a
 * killed creation is replaced; the run's lock excludes a live one). */
static int create_file(ssw_h5out *h, const char *tmp) {
  int status = SSW_SUCCESS;
  hid_t fapl = H5I_INVALID_HID, fcpl = H5I_INVALID_HID;
  TRY(ssw_h5_make_fapl(h, &fapl));
  H5TRY(fcpl = H5Pcreate(H5P_FILE_CREATE), "'%s'", h->path);
  H5TRY(H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED |
                                             H5P_CRT_ORDER_INDEXED),
        "'%s'", h->path);
  H5TRY(H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED |
                                             H5P_CRT_ORDER_INDEXED),
        "'%s'", h->path);
  H5TRY(h->file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl), "'%s'", tmp);
done:
  if (fcpl >= 0) H5Pclose(fcpl);
  if (fapl >= 0) H5Pclose(fapl);
  return status;
}

/* Gives the complete, flushed file its real name (rank 0, once every rank
 * has finished creating) and makes the rename durable. */
static int publish(ssw_h5out *h, const char *tmp) {
  int status = SSW_SUCCESS;
  MPITRY(MPI_Barrier(h->comm));
  if (h->rank == 0) {
    if (rename(tmp, h->path) != 0) {
      status = SSW_RAISE(SSW_ERR_IO, "cannot rename '%s' to '%s': %s", tmp,
                         h->path, strerror(errno));
    } else {
      char dir[4096];
      snprintf(dir, sizeof dir, "%s", h->path);
      char *slash = strrchr(dir, '/');
      if (slash) slash[slash == dir] = '\0';
      const int fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY);
      if (fd >= 0) fsync(fd), close(fd); /* best effort: name durable */
    }
  }
done:
  return status;
}

double ssw_h5out_space_needed(const ssw_config *cfg) {
  const double record = (double)sizeof(ssw_point_result) + 24.0;
  const double samples = (double)cfg->sample_sel.n * cfg->samples *
                         (cfg->samples > 0 ? cfg->sample_nodes : 0) *
                         SSW_SAMPLE_NQ * 8.0;
  double points = 1; /* the grid's size, without the sweep tier's grid.h */
  for (int a = 0; a < SSW_NAXES; a++)
    points *= (double)cfg->axes[a].n;
  return ssw_h5out_estimate_bytes(cfg) + points * record + samples;
}

void ssw_h5out_disk_note(const char *path, double need, char *buf, size_t n) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) slash[slash == dir] = '\0';
  struct statvfs fs;
  buf[0] = '\0';
  if (statvfs(slash ? dir : ".", &fs) != 0) return;
  const double avail = (double)fs.f_bavail * (double)fs.f_frsize;
  if (avail >= 1048576.0 && avail >= need) return;
  snprintf(buf, n,
           "the disk holding '%s' is full: %.3g MB free, the run needs about "
           "%.3g MB there (file and journals); free space or choose another "
           "[output] file, then run the same command again",
           slash ? dir : ".", avail / 1e6, need / 1e6);
}

/* A collective step of the creation that failed here: the other ranks may
 * wait inside the HDF5 call forever (its MPI_Barrier), so an agreement
 * would hang. This rank says why and ends the job. */
static void fail_alone(const ssw_h5out *h, int rc) {
  char note[600];
  ssw_h5out_disk_note(h->path, h->need, note, sizeof note);
  fprintf(stderr,
          "sleighsweep run (rank %d): cannot create '%s': %s%s%s; aborting "
          "the job (finished work is kept in the journals)\n",
          h->rank, h->path, ssw_error_user_message(), note[0] ? "; " : "",
          note);
  fflush(stderr);
  MPI_Abort(h->comm, ssw_error_exit_status(rc));
}

/* A collective creation step: a failure here ends the job (fail_alone). */
#define STEP(expr)                                                             \
  do {                                                                         \
    status = (expr);                                                           \
    if (status != SSW_SUCCESS) fail_alone(h, status);                          \
  } while (0)

int ssw_h5out_create(MPI_Comm comm, const char *path, const ssw_config *cfg,
                     const ssw_h5out_meta *meta, ssw_h5out **out) {
  if (out) *out = NULL;
  SSW_CHECK(out && meta, SSW_ERR_ARG, "NULL handle or meta");
  ssw_h5out *h = NULL;
  int status = ssw_h5_agree(comm, ssw_h5_handle_new(comm, path, cfg, &h));
  if (status != SSW_SUCCESS) goto done;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  char tmp[4096];
  ssw_h5out_creating_path(path, tmp, sizeof tmp);
  h->need = ssw_h5out_space_needed(cfg);
  TRY(check_absent(h));
  TRY(ssw_h5_agree(h->comm, create_file(h, tmp)));
  STEP(ssw_h5_make_dxpl(h));
  STEP(ssw_h5_create_grid(h, cfg));
  if (ssw_h5_has_samples(h)) STEP(ssw_h5_create_samples(h, cfg));
  STEP(ssw_h5_create_segments(h));
  STEP(ssw_h5_write_config_attrs(h, cfg));
  STEP(ssw_h5_write_meta_attrs(h, meta));
  STEP(ssw_h5out_flush(h));
  TRY(ssw_h5_agree(h->comm, publish(h, tmp)));
done:
  if (status != SSW_SUCCESS) {
    ssw_h5out_close(&h);
    return status;
  }
  *out = h;
  return SSW_SUCCESS;
}

/* ---- writing points -------------------------------------------------- */

typedef struct {
  uint64_t index;
  size_t pos;   /* in the caller's arrays */
  int64_t slot; /* along /samples/point, -1: keeps no samples */
} order_t;

static int by_index(const void *x, const void *y) {
  const uint64_t a = ((const order_t *)x)->index;
  const uint64_t b = ((const order_t *)y)->index;
  return (a > b) - (a < b);
}

/* Row-major unravel over the file's grid dimensions (theta slowest). */
static void unravel(int naxes, const hsize_t *dims, uint64_t index,
                    hsize_t *coord) {
  for (int i = naxes - 1; i >= 0; i--) {
    coord[i] = index % dims[i];
    index /= dims[i];
  }
}

/* Sorts the points by flat index (HDF5 walks the file in that order),
 * rejecting indices outside the grid and repeats. */
static int sort_points(const ssw_h5out *h, const ssw_point_result *pts,
                       size_t n, order_t *ord) {
  for (size_t i = 0; i < n; i++)
    ord[i] = (order_t){pts[i].index, i,
                       ssw_sample_points_slot(&h->sel, pts[i].index)};
  qsort(ord, n, sizeof *ord, by_index);
  for (size_t j = 0; j < n; j++) {
    SSW_CHECK(ord[j].index < h->total, SSW_ERR_ARG,
              "point index %llu outside the grid of %llu points",
              (unsigned long long)ord[j].index, (unsigned long long)h->total);
    SSW_CHECK(j == 0 || ord[j].index != ord[j - 1].index, SSW_ERR_ARG,
              "point index %llu given twice in one write",
              (unsigned long long)ord[j].index);
  }
  return SSW_SUCCESS;
}

/* One column's values of the sorted points into a buffer of its type. */
static void gather(const column *c, const ssw_point_result *pts,
                   const order_t *ord, size_t n, void *buf) {
  for (size_t j = 0; j < n; j++)
    ssw_h5_column_value(c, &pts[ord[j].pos], buf, j);
}

/* File selection of the points' sample blocks: one hyperslab block per run
 * of consecutive indices along the fastest axis, OR-ed in index order. */
/* File selection of the chosen points' sample blocks (point slot, every
 * sample and node): one hyperslab block per chosen point, OR'ed. The
 * points are in index order, so their slots increase. Sets *m to the
 * number of chosen points among them. */
static int select_sample_blocks(const ssw_h5out *h, const order_t *ord,
                                size_t n, hid_t space, size_t *m) {
  int status = SSW_SUCCESS;
  hsize_t start[3] = {0, 0, 0}, count[3] = {1, 1, 1};
  hsize_t block[3] = {1, h->sdims[1], h->sdims[2]};
  *m = 0;
  H5TRY(H5Sselect_none(space), "/samples selection");
  for (size_t j = 0; j < n; j++) {
    if (ord[j].slot < 0) continue;
    start[0] = (hsize_t)ord[j].slot;
    H5TRY(H5Sselect_hyperslab(space, *m ? H5S_SELECT_OR : H5S_SELECT_SET, start,
                              NULL, count, block),
          "/samples selection");
    (*m)++;
  }
done:
  return status;
}

/* The chosen points' sample blocks, quantity by quantity, gathered into
 * buf in slot order. */
static int write_samples(ssw_h5out *h, const order_t *ord, size_t n,
                         const double *samples, double *buf) {
  int status = SSW_SUCCESS;
  hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
  const size_t per = (size_t)h->samples * (size_t)h->nodes;
  size_t m = 0;
  H5TRY(fspace = H5Screate_simple(3, h->sdims, NULL), "/samples");
  TRY(select_sample_blocks(h, ord, n, fspace, &m));
  hsize_t mlen = m ? (hsize_t)(m * per) : 1;
  H5TRY(mspace = H5Screate_simple(1, &mlen, NULL), "/samples");
  if (m == 0) H5TRY(H5Sselect_none(mspace), "/samples");
  for (int q = 0; q < SSW_SAMPLE_NQ; q++) {
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
      if (ord[j].slot >= 0)
        memcpy(buf + k++ * per,
               samples + (ord[j].pos * SSW_SAMPLE_NQ + (size_t)q) * per,
               per * sizeof *buf);
    H5TRY(
        H5Dwrite(h->sdset[q], H5T_NATIVE_DOUBLE, mspace, fspace, h->dxpl, buf),
        "dataset /samples/%s in '%s'", ssw_h5_sample_quantities[q].name,
        h->path);
  }
done:
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  return status;
}

static int write_column(ssw_h5out *h, size_t c, const ssw_point_result *pts,
                        const order_t *ord, size_t n, hid_t mspace,
                        hid_t fspace, void *buf) {
  int status = SSW_SUCCESS;
  gather(&ssw_h5_columns[c], pts, ord, n, buf);
  H5TRY(H5Dwrite(h->dset[c], ssw_h5_mem_type(ssw_h5_columns[c].type), mspace,
                 fspace, h->dxpl, buf),
        "dataset %s in '%s'", ssw_h5_columns[c].name, h->path);
done:
  return status;
}

/* The census's datasets: each point's slots through one element
 * selection over (grid, attractor_slot), point by point in index order. */
static int write_slots(ssw_h5out *h, const ssw_point_result *pts,
                       const order_t *ord, size_t n, const hsize_t *coords,
                       void *buf) {
  int status = SSW_SUCCESS;
  hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
  const size_t S = (size_t)h->slots, r = (size_t)h->naxes + 1, m = n * S;
  hsize_t dims[SSW_NAXES + 1], mlen = m ? (hsize_t)m : 1;
  hsize_t *sc = malloc((m ? m : 1) * r * sizeof *sc);
  SSW_CHECK(sc, SSW_ERR_MEM, "out of memory for %zu points", n);
  for (size_t j = 0; j < n; j++)
    for (size_t s = 0; s < S; s++) {
      memcpy(sc + (j * S + s) * r, coords + j * (r - 1), (r - 1) * sizeof *sc);
      sc[(j * S + s) * r + r - 1] = s;
    }
  ssw_h5_slot_dims(h, dims);
  H5TRY(fspace = H5Screate_simple((int)r, dims, NULL), "'%s'", h->path);
  if (m)
    H5TRY(H5Sselect_elements(fspace, H5S_SELECT_SET, m, sc), "'%s'", h->path);
  else
    H5TRY(H5Sselect_none(fspace), "'%s'", h->path);
  H5TRY(mspace = H5Screate_simple(1, &mlen, NULL), "'%s'", h->path);
  if (m == 0) H5TRY(H5Sselect_none(mspace), "'%s'", h->path);
  for (int c = 0; c < SSW_H5_NSLOTCOL; c++) {
    const column *col = &ssw_h5_slot_columns[c];
    for (size_t s = 0; s < S; s++) {
      const column k = ssw_h5_slot_column(col, (int)s);
      for (size_t j = 0; j < n; j++)
        ssw_h5_column_value(&k, &pts[ord[j].pos], buf, j * S + s);
    }
    H5TRY(H5Dwrite(h->slotset[c], ssw_h5_mem_type(col->type), mspace, fspace,
                   h->dxpl, buf),
          "dataset %s in '%s'", col->name, h->path);
  }
done:
  free(sc);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  return status;
}

/* Writes every column through one element selection; `done` goes last so
 * that a point is marked only after all its values. */
static int write_columns(ssw_h5out *h, const ssw_point_result *pts,
                         const order_t *ord, size_t n, const hsize_t *coords,
                         const double *samples, void *buf) {
  int status = SSW_SUCCESS;
  hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
  hsize_t mlen = n ? (hsize_t)n : 1;
  H5TRY(fspace = H5Screate_simple(h->naxes, h->dims, NULL), "'%s'", h->path);
  if (n)
    H5TRY(H5Sselect_elements(fspace, H5S_SELECT_SET, n, coords),
          "%zu points in '%s'", n, h->path);
  else
    H5TRY(H5Sselect_none(fspace), "'%s'", h->path);
  H5TRY(mspace = H5Screate_simple(1, &mlen, NULL), "'%s'", h->path);
  if (n == 0) H5TRY(H5Sselect_none(mspace), "'%s'", h->path);
  for (size_t c = 0; c < SSW_H5_DONE_COL; c++)
    TRY(write_column(h, c, pts, ord, n, mspace, fspace, buf));
  TRY(write_slots(h, pts, ord, n, coords, buf));
  if (ssw_h5_has_samples(h)) TRY(write_samples(h, ord, n, samples, buf));
  TRY(write_column(h, SSW_H5_DONE_COL, pts, ord, n, mspace, fspace, buf));
done:
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  return status;
}

static int prepare_points(const ssw_h5out *h, const ssw_point_result *pts,
                          size_t n, const double *samples, order_t **ord,
                          hsize_t **coords, void **buf) {
  SSW_CHECK(n == 0 || pts, SSW_ERR_ARG, "NULL points");
  SSW_CHECK(n == 0 || h->samples == 0 || samples, SSW_ERR_ARG,
            "NULL sample buffer with samples = %d", h->samples);
  const size_t per = (size_t)h->samples * (size_t)h->nodes;
  const size_t wide = per > (size_t)h->slots ? per : (size_t)h->slots;
  const size_t bytes = (n ? n : 1) * (wide > 1 ? wide : 1) * sizeof(double);
  *ord = malloc((n ? n : 1) * sizeof **ord);
  *coords = malloc((n ? n : 1) * (size_t)h->naxes * sizeof **coords);
  *buf = malloc(bytes);
  SSW_CHECK(*ord && *coords && *buf, SSW_ERR_MEM,
            "out of memory for %zu points", n);
  SSW_CALL(sort_points(h, pts, n, *ord));
  for (size_t j = 0; j < n; j++)
    unravel(h->naxes, h->dims, (*ord)[j].index, *coords + j * h->naxes);
  return SSW_SUCCESS;
}

int ssw_h5out_write_points(ssw_h5out *h, const ssw_point_result *pts, size_t n,
                           const double *samples) {
  SSW_CHECK(h, SSW_ERR_ARG, "NULL output handle");
  order_t *ord = NULL;
  hsize_t *coords = NULL;
  void *buf = NULL;
  int status = prepare_points(h, pts, n, samples, &ord, &coords, &buf);
  TRY(ssw_h5_agree(h->comm, status));
  status = write_columns(h, pts, ord, n, coords, samples, buf);
done:
  free(buf);
  free(coords);
  free(ord);
  return status;
}

/* ---- flush, finish, close -------------------------------------------- */

int ssw_h5out_flush(ssw_h5out *h) {
  SSW_CHECK(h, SSW_ERR_ARG, "NULL output handle");
  int status = SSW_SUCCESS;
  H5TRY(H5Fflush(h->file, H5F_SCOPE_GLOBAL), "'%s'", h->path);
done:
  return status;
}

int ssw_h5out_record_recovered(ssw_h5out *h, const ssw_h5out_segment *seg) {
  SSW_CHECK(h && seg, SSW_ERR_ARG, "NULL output handle or segment");
  double total = 0.0;
  return ssw_h5_record_segment(h, seg, &total);
}

int ssw_h5out_finish(ssw_h5out *h, const ssw_h5out_segment *seg) {
  SSW_CHECK(h && seg, SSW_ERR_ARG, "NULL output handle or segment");
  int status = SSW_SUCCESS;
  char *st = NULL, *end = NULL;
  uint64_t points_done = seg->points_done;
  double total = 0.0;
  MPITRY(MPI_Bcast(&points_done, 1, MPI_UINT64_T, 0, h->comm));
  TRY(ssw_mpi_bcast_str(h->comm, seg->status, &st));
  TRY(ssw_mpi_bcast_str(h->comm, seg->end_time, &end));
  TRY(ssw_h5_record_segment(h, seg, &total));
  TRY(ssw_h5_attr_str(h->file, "/", SSW_ATTR_END_TIME, end));
  TRY(ssw_h5_attr_f64(h->file, "/", SSW_ATTR_WALL_TIME, total));
  TRY(ssw_h5_attr_u64(h->file, "/", SSW_ATTR_POINTS_DONE, points_done));
  /* Every other object on disk first: HDF5 writes its cached metadata in
   * no order of ours, so one flush that also carried the status could put
   * "complete" on disk before /boundaries (a crash then left a complete
   * file that did not read). H5Fflush ends in MPI_File_sync (fsync on every
   * rank), a collective call no rank leaves before all have synced. */
  TRY(ssw_h5out_flush(h));
  TRY(ssw_h5_attr_str(h->file, "/", SSW_ATTR_STATUS, st));
  TRY(ssw_h5out_flush(h));
done:
  free(st);
  free(end);
  return status;
}

/* Closes a handle if open, keeping the first failure. */
#define CLOSE(id, fn, what)                                                    \
  do {                                                                         \
    if ((id) >= 0 && fn(id) < 0 && status == SSW_SUCCESS)                      \
      status = ssw_h5_fail(#fn, __FILE__, __LINE__, __func__, "%s in '%s'",    \
                           (what), p);                                         \
    (id) = H5I_INVALID_HID;                                                    \
  } while (0)

int ssw_h5out_close(ssw_h5out **hp) {
  if (!hp || !*hp) return SSW_SUCCESS;
  ssw_h5out *h = *hp;
  int status = SSW_SUCCESS;
  const char *p = h->path ? h->path : "?";
  for (int q = 0; q < SSW_SAMPLE_NQ; q++)
    CLOSE(h->sdset[q], H5Dclose, ssw_h5_sample_quantities[q].name);
  for (int i = 0; i < h->naxes; i++)
    CLOSE(h->scoord[i], H5Dclose, ssw_axis_names[h->axis[i]]);
  CLOSE(h->sdim[0], H5Dclose, "point");
  CLOSE(h->sdim[1], H5Dclose, "sample");
  CLOSE(h->sdim[2], H5Dclose, "node");
  CLOSE(h->sgroup, H5Gclose, "/samples");
  for (size_t c = 0; c < SSW_H5_NCOL; c++)
    CLOSE(h->dset[c], H5Dclose, ssw_h5_columns[c].name);
  for (int c = 0; c < SSW_H5_NSLOTCOL; c++)
    CLOSE(h->slotset[c], H5Dclose, ssw_h5_slot_columns[c].name);
  CLOSE(h->slotdim, H5Dclose, "attractor_slot");
  for (int i = 0; i < h->naxes; i++)
    CLOSE(h->coord[i], H5Dclose, ssw_axis_names[h->axis[i]]);
  CLOSE(h->dxpl, H5Pclose, "transfer list");
  CLOSE(h->file, H5Fclose, "file");
  if (h->comm != MPI_COMM_NULL) MPI_Comm_free(&h->comm);
  free(h->path);
  free(h->sel.index);
  free(h);
  *hp = NULL;
  return status;
}
