/* HDF5 output run segments: the /segments table (one row per `sleighsweep
 * run` invocation that finished), the CF `history` lines and the total
 * wall time (layout: docs/output.md). */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5out_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/h5peek.h"

#define SEGMENTS "segments"      /* the dataset, its own dimension scale */
#define SEGMENT_TYPE "segment_t" /* its committed type (netCDF-4 lists it) */
#define TIME_LEN 32              /* fixed string sizes, NUL included */
#define STATUS_LEN 16
#define SEGMENT_CHUNK 64 /* rows per chunk */

/* One row in memory: the row h5peek.h reads back. */
typedef ssw_h5peek_segment segment_row;
_Static_assert(sizeof((segment_row *)0)->start_time == TIME_LEN &&
                   sizeof((segment_row *)0)->status == STATUS_LEN,
               "ssw_h5peek_segment string sizes");

typedef enum { F_TIME, F_STATUS, F_I32, F_U64, F_F64 } field_kind;

static const struct {
  const char *name;
  size_t offset;
  field_kind kind;
} fields[] = {
    {"start_time", offsetof(segment_row, start_time), F_TIME},
    {"end_time", offsetof(segment_row, end_time), F_TIME},
    {"status", offsetof(segment_row, status), F_STATUS},
    {"mpi_ranks", offsetof(segment_row, mpi_ranks), F_I32},
    {"omp_threads", offsetof(segment_row, omp_threads), F_I32},
    {"points_computed", offsetof(segment_row, points_computed), F_U64},
    {"points_done", offsetof(segment_row, points_done), F_U64},
    {"wall_time_s", offsetof(segment_row, wall_time_s), F_F64},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static size_t field_size(field_kind k) {
  return k == F_TIME     ? TIME_LEN
         : k == F_STATUS ? STATUS_LEN
         : k == F_I32    ? 4
                         : 8;
}

/* A field's type: fixed-length NUL-terminated strings, little-endian
 * numbers in the file, native ones in memory. */
static hid_t field_type(field_kind k, int file) {
  if (k == F_I32) return H5Tcopy(file ? H5T_STD_I32LE : H5T_NATIVE_INT32);
  if (k == F_U64) return H5Tcopy(file ? H5T_STD_U64LE : H5T_NATIVE_UINT64);
  if (k == F_F64) return H5Tcopy(file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
  const hid_t t = H5Tcopy(H5T_C_S1);
  if (t >= 0 && (H5Tset_size(t, field_size(k)) < 0 ||
                 H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)) {
    H5Tclose(t);
    return H5I_INVALID_HID;
  }
  return t;
}

/* The compound type of a row: packed in the file, as segment_row in
 * memory. */
static int row_type(int file, hid_t *type) {
  int status = SSW_SUCCESS;
  hid_t ft = H5I_INVALID_HID;
  size_t total = 0, at = 0;
  for (size_t i = 0; i < NFIELDS; i++)
    total += field_size(fields[i].kind);
  H5TRY(*type = H5Tcreate(H5T_COMPOUND, file ? total : sizeof(segment_row)),
        "the /%s row type", SEGMENTS);
  for (size_t i = 0; i < NFIELDS; i++) {
    H5TRY(ft = field_type(fields[i].kind, file), "field %s", fields[i].name);
    H5TRY(H5Tinsert(*type, fields[i].name, file ? at : fields[i].offset, ft),
          "field %s", fields[i].name);
    H5Tclose(ft);
    ft = H5I_INVALID_HID;
    at += field_size(fields[i].kind);
  }
done:
  if (ft >= 0) H5Tclose(ft);
  return status;
}

/* The committed row type (committed now unless a killed finish left it). */
static int committed_type(ssw_h5out *h, hid_t *type) {
  int status = SSW_SUCCESS;
  htri_t has;
  H5TRY(has = H5Lexists(h->file, SEGMENT_TYPE, H5P_DEFAULT), "'%s'", h->path);
  if (has > 0) {
    H5TRY(*type = H5Topen2(h->file, SEGMENT_TYPE, H5P_DEFAULT),
          "type %s in '%s'", SEGMENT_TYPE, h->path);
  } else {
    TRY(row_type(1, type));
    H5TRY(H5Tcommit2(h->file, SEGMENT_TYPE, *type, H5P_DEFAULT, H5P_DEFAULT,
                     H5P_DEFAULT),
          "type %s in '%s'", SEGMENT_TYPE, h->path);
  }
done:
  return status;
}

int ssw_h5_create_segments(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID;
  hid_t dcpl = H5I_INVALID_HID, dset = H5I_INVALID_HID;
  hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = SEGMENT_CHUNK;
  TRY(committed_type(h, &type));
  H5TRY(space = H5Screate_simple(1, &dims, &maxdims), "/%s", SEGMENTS);
  H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "/%s", SEGMENTS);
  H5TRY(H5Pset_chunk(dcpl, 1, &chunk), "/%s", SEGMENTS);
  H5TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "/%s", SEGMENTS);
  H5TRY(H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED), "/%s",
        SEGMENTS);
  H5TRY(dset = H5Dcreate2(h->file, SEGMENTS, type, space, H5P_DEFAULT, dcpl,
                          H5P_DEFAULT),
        "dataset /%s in '%s'", SEGMENTS, h->path);
  /* Its own dimension scale: netCDF and xarray see dimension `segments`. */
  H5TRY(H5DSset_scale(dset, SEGMENTS), "/%s", SEGMENTS);
  TRY(ssw_h5_attr_str(dset, SEGMENTS, "long_name",
                      "run segments: one row per sleighsweep run that "
                      "finished (a fresh run, then each resume)"));
done:
  if (dset >= 0) H5Dclose(dset);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  return status;
}

/* Rank 0's segment as a row on every rank. */
static int bcast_row(MPI_Comm comm, const ssw_h5out_segment *seg,
                     segment_row *row) {
  int status = SSW_SUCCESS, rank = 0;
  MPI_Comm_rank(comm, &rank);
  memset(row, 0, sizeof *row);
  if (rank == 0) {
    snprintf(row->start_time, TIME_LEN, "%s",
             seg->start_time ? seg->start_time : "");
    snprintf(row->end_time, TIME_LEN, "%s", seg->end_time ? seg->end_time : "");
    snprintf(row->status, STATUS_LEN, "%s", seg->status ? seg->status : "");
    row->mpi_ranks = seg->mpi_ranks;
    row->omp_threads = seg->omp_threads;
    row->points_computed = seg->points_computed;
    row->points_done = seg->points_done;
    row->wall_time_s = seg->wall_time_s;
  }
  MPITRY(MPI_Bcast(row, (int)sizeof *row, MPI_BYTE, 0, comm));
done:
  return status;
}

/* Appends the row (collective extent; rank 0 writes it, the others select
 * nothing) and sums wall_time_s over every row into *total. */
static int append_row(ssw_h5out *h, hid_t dset, const segment_row *row,
                      double *total) {
  int status = SSW_SUCCESS;
  hid_t mtype = H5I_INVALID_HID, fspace = H5I_INVALID_HID;
  hid_t mspace = H5I_INVALID_HID;
  hsize_t n = 0, one = 1;
  segment_row *rows = NULL;
  TRY(row_type(0, &mtype));
  H5TRY(fspace = H5Dget_space(dset), "/%s", SEGMENTS);
  H5TRY(H5Sget_simple_extent_dims(fspace, &n, NULL), "/%s", SEGMENTS);
  H5Sclose(fspace);
  const hsize_t rows_after = n + 1;
  H5TRY(H5Dset_extent(dset, &rows_after), "/%s in '%s'", SEGMENTS, h->path);
  H5TRY(fspace = H5Dget_space(dset), "/%s", SEGMENTS);
  H5TRY(mspace = H5Screate_simple(1, &one, NULL), "/%s", SEGMENTS);
  H5TRY(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &n, NULL, &one, NULL),
        "/%s", SEGMENTS);
  if (h->rank != 0) {
    H5TRY(H5Sselect_none(fspace), "/%s", SEGMENTS);
    H5TRY(H5Sselect_none(mspace), "/%s", SEGMENTS);
  }
  H5TRY(H5Dwrite(dset, mtype, mspace, fspace, h->dxpl, row),
        "dataset /%s in '%s'", SEGMENTS, h->path);
  /* Every rank reads the few rows back (the same total everywhere). */
  rows = malloc((size_t)rows_after * sizeof *rows);
  SSW_CHECK(rows, SSW_ERR_MEM, "out of memory for %llu segments",
            (unsigned long long)rows_after);
  H5TRY(H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows),
        "dataset /%s in '%s'", SEGMENTS, h->path);
  *total = 0.0;
  for (hsize_t i = 0; i < rows_after; i++)
    *total += rows[i].wall_time_s;
done:
  free(rows);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (mtype >= 0) H5Tclose(mtype);
  return status;
}

/* Appends the segment's line to the root `history` (CF: newest last). */
static int append_history(ssw_h5out *h, const segment_row *row) {
  int status = SSW_SUCCESS;
  char *old = NULL, *text = NULL;
  htri_t has;
  H5TRY(has = H5Aexists(h->file, "history"), "'%s'", h->path);
  if (has > 0) TRY(ssw_h5_attr_read_str(h->file, h->path, "history", &old));
  char line[256];
  snprintf(line, sizeof line,
           "%s sleighsweep run: %s, %llu points on %d rank(s) x %d "
           "thread(s) in %.6g s",
           row->end_time, row->status, (unsigned long long)row->points_computed,
           row->mpi_ranks, row->omp_threads, row->wall_time_s);
  const size_t len = (old ? strlen(old) : 0) + strlen(line) + 2;
  text = malloc(len);
  SSW_CHECK(text, SSW_ERR_MEM, "out of memory for the history");
  snprintf(text, len, "%s%s%s", old && *old ? old : "", old && *old ? "\n" : "",
           line);
  TRY(ssw_h5_attr_str(h->file, "/", "history", text));
done:
  free(text);
  free(old);
  return status;
}

int ssw_h5_record_segment(ssw_h5out *h, const ssw_h5out_segment *seg,
                          double *total) {
  int status = SSW_SUCCESS;
  hid_t dset = H5I_INVALID_HID;
  segment_row row;
  htri_t has;
  TRY(bcast_row(h->comm, seg, &row));
  /* Files made before the table have none: it starts with this segment. */
  H5TRY(has = H5Lexists(h->file, SEGMENTS, H5P_DEFAULT), "'%s'", h->path);
  if (!has) TRY(ssw_h5_create_segments(h));
  H5TRY(dset = H5Dopen2(h->file, SEGMENTS, H5P_DEFAULT), "/%s in '%s'",
        SEGMENTS, h->path);
  TRY(append_row(h, dset, &row, total));
  TRY(append_history(h, &row));
done:
  if (dset >= 0) H5Dclose(dset);
  return status;
}

/* 1 when the dataset's rows are compounds with every field of a row. */
static int has_fields(hid_t d) {
  const hid_t t = H5Dget_type(d);
  int ok = t >= 0 && H5Tget_class(t) == H5T_COMPOUND;
  for (size_t i = 0; ok && i < NFIELDS; i++)
    ok = H5Tget_member_index(t, fields[i].name) >= 0;
  if (t >= 0) H5Tclose(t);
  return ok;
}

long ssw_h5peek_segments(hid_t f, ssw_h5peek_segment **rows) {
  *rows = NULL;
  if (H5Lexists(f, SEGMENTS, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(f, SEGMENTS, H5P_DEFAULT), s = H5I_INVALID_HID;
  hid_t mtype = H5I_INVALID_HID;
  hsize_t n = 0;
  if (d < 0 || (s = H5Dget_space(d)) < 0 ||
      H5Sget_simple_extent_ndims(s) != 1 ||
      H5Sget_simple_extent_dims(s, &n, NULL) < 0)
    n = 0;
  segment_row *r = n ? calloc((size_t)n, sizeof *r) : NULL;
  if (r && has_fields(d) && row_type(0, &mtype) == SSW_SUCCESS &&
      H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0)
    *rows = r, r = NULL;
  free(r);
  if (mtype >= 0) H5Tclose(mtype);
  if (s >= 0) H5Sclose(s);
  if (d >= 0) H5Dclose(d);
  return (long)n;
}
