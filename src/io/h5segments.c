/* HDF5 output run segments: the /segments group (one row per `sleighsweep
 * run` invocation that finished, as parallel 1-D datasets over the
 * dimension `segment`, which xarray writes to netCDF as they are), the CF
 * `history` lines and the total wall time (layout: docs/output.md). Files
 * of format 3 hold a compound table instead; it is read, and converted at
 * the next finish. */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "h5out_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/h5peek.h"
#include "sleighsweep/names.h"

#define SEGMENTS "segments"  /* the group (format 3: the compound table) */
#define SEGMENT "segment"    /* its dimension: the row number, from 0 */
#define OLD_TYPE "segment_t" /* format 3: the table's committed type */
#define SEGMENT_CHUNK 64     /* rows per chunk */
/* CF time: xarray shows datetime64, ncdump -t ISO dates. */
#define TIME_UNITS "seconds since 1970-01-01 00:00:00"

/* One row as read back (h5peek.h): strings NUL-terminated. */
typedef ssw_h5peek_segment segment_row;

typedef enum { F_TIME, F_END, F_I32, F_U64, F_F64 } field_kind;

/* The datasets of the group, in order; `offset` is the field of a row. */
static const struct {
  const char *name;
  field_kind kind;
  size_t offset;
  const char *units, *long_name;
} fields[] = {
    {"start_time", F_TIME, offsetof(segment_row, start_time), TIME_UNITS,
     "start of the run segment (UTC)"},
    {"end_time", F_TIME, offsetof(segment_row, end_time), TIME_UNITS,
     "end of the run segment (UTC)"},
    {"status", F_END, offsetof(segment_row, status), "1",
     "how the run segment ended"},
    {"mpi_ranks", F_I32, offsetof(segment_row, mpi_ranks), "1", "MPI ranks"},
    {"omp_threads", F_I32, offsetof(segment_row, omp_threads), "1",
     "OpenMP threads per rank"},
    {"points_computed", F_U64, offsetof(segment_row, points_computed), "1",
     "grid points the run segment computed"},
    {"points_done", F_U64, offsetof(segment_row, points_done), "1",
     "grid points done in the file at the end of the run segment"},
    {"wall_time_s", F_F64, offsetof(segment_row, wall_time_s), "s",
     "wall time of the run segment"},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

#define SEG_ENUM_(id, value, ...) SEG_##id = value,
enum { SSW_SEGMENT_ENDS(SEG_ENUM_) };
static const char *const end_names[] = {SSW_SEGMENT_ENDS(SSW_NAME_AT)};

static hid_t file_type(field_kind k) {
  return k == F_END   ? H5T_STD_I8LE
         : k == F_I32 ? H5T_STD_I32LE
         : k == F_U64 ? H5T_STD_U64LE
                      : H5T_IEEE_F64LE;
}

static hid_t mem_type(field_kind k) {
  return k == F_END   ? H5T_NATIVE_INT8
         : k == F_I32 ? H5T_NATIVE_INT32
         : k == F_U64 ? H5T_NATIVE_UINT64
                      : H5T_NATIVE_DOUBLE;
}

/* ISO 8601 UTC ("2025-01-31T12:00:00Z") and seconds since 1970 (NaN: none
 * or malformed), both ways. */
static double iso_seconds(const char *s) {
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
  return end && !*end ? (double)timegm(&tm) : NAN;
}

static void seconds_iso(double t, char *buf, size_t n) {
  struct tm tm;
  const time_t sec = (time_t)t;
  buf[0] = '\0';
  if (isfinite(t) && gmtime_r(&sec, &tm))
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Field f of row r as its stored value, into `out` (8 bytes). */
static void to_stored(const segment_row *r, size_t f, void *out) {
  const char *p = (const char *)r + fields[f].offset;
  if (fields[f].kind == F_TIME) {
    const double t = iso_seconds(p);
    memcpy(out, &t, sizeof t);
  } else if (fields[f].kind == F_END) {
    const int8_t v = strcmp(p, SSW_STATUS_COMPLETE) == 0      ? SEG_COMPLETE
                     : strcmp(p, SSW_STATUS_INTERRUPTED) == 0 ? SEG_INTERRUPTED
                                                              : -1;
    memcpy(out, &v, sizeof v);
  } else {
    memcpy(out, p, fields[f].kind == F_I32 ? 4 : 8);
  }
}

/* ... and back. */
static void from_stored(const void *in, size_t f, segment_row *r) {
  char *p = (char *)r + fields[f].offset;
  if (fields[f].kind == F_TIME) {
    double t;
    memcpy(&t, in, sizeof t);
    seconds_iso(t, p, sizeof r->start_time);
  } else if (fields[f].kind == F_END) {
    int8_t v;
    memcpy(&v, in, sizeof v);
    snprintf(p, sizeof r->status, "%s",
             v >= 0 && v < (int)(sizeof end_names / sizeof *end_names)
                 ? end_names[v]
                 : "unknown");
  } else {
    memcpy(p, in, fields[f].kind == F_I32 ? 4 : 8);
  }
}

/* ---- creating the group -------------------------------------------- */

/* One extendible 1-D dataset of the group (empty), attached to the scale
 * (or the scale itself when `scale` is negative). */
static int create_column(ssw_h5out *h, hid_t group, const char *name,
                         hid_t ftype, hid_t scale, hid_t *dset) {
  int status = SSW_SUCCESS;
  hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
  hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = SEGMENT_CHUNK;
  H5TRY(space = H5Screate_simple(1, &dims, &maxdims), "/%s/%s", SEGMENTS, name);
  H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "/%s/%s", SEGMENTS, name);
  H5TRY(H5Pset_chunk(dcpl, 1, &chunk), "/%s/%s", SEGMENTS, name);
  H5TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "/%s/%s", SEGMENTS,
        name);
  H5TRY(H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED), "/%s/%s",
        SEGMENTS, name);
  H5TRY(*dset = H5Dcreate2(group, name, ftype, space, H5P_DEFAULT, dcpl,
                           H5P_DEFAULT),
        "dataset /%s/%s in '%s'", SEGMENTS, name, h->path);
  if (scale < 0)
    H5TRY(H5DSset_scale(*dset, name), "/%s/%s", SEGMENTS, name);
  else
    H5TRY(H5DSattach_scale(*dset, scale, 0), "/%s/%s", SEGMENTS, name);
done:
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  return status;
}

/* A field's dataset with its attributes (units, long_name; the status its
 * categories, like the grid's). */
static int create_field(ssw_h5out *h, hid_t group, size_t f, hid_t scale) {
  int status = SSW_SUCCESS;
  hid_t d = H5I_INVALID_HID;
  const char *name = fields[f].name;
  TRY(create_column(h, group, name, file_type(fields[f].kind), scale, &d));
  TRY(ssw_h5_attr_str(d, name, "units", fields[f].units));
  TRY(ssw_h5_attr_str(d, name, "long_name", fields[f].long_name));
  if (fields[f].kind == F_TIME)
    TRY(ssw_h5_attr_str(d, name, "calendar", "standard"));
  if (fields[f].kind == F_END) {
    const category *k = &ssw_h5_categories[CAT_SEGMENT];
    TRY(ssw_h5_attr_num(d, name, k->attr, H5T_STD_I8LE, H5T_NATIVE_INT,
                        (size_t)k->n, k->values));
    TRY(ssw_h5_attr_str(d, name, "flag_meanings", k->meanings));
  }
done:
  if (d >= 0) H5Dclose(d);
  return status;
}

int ssw_h5_create_segments(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  hid_t gcpl = H5I_INVALID_HID, group = H5I_INVALID_HID;
  hid_t scale = H5I_INVALID_HID;
  H5TRY(gcpl = H5Pcreate(H5P_GROUP_CREATE), "/%s", SEGMENTS);
  H5TRY(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED |
                                             H5P_CRT_ORDER_INDEXED),
        "/%s", SEGMENTS);
  H5TRY(H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED), "/%s",
        SEGMENTS);
  H5TRY(group = H5Gcreate2(h->file, SEGMENTS, H5P_DEFAULT, gcpl, H5P_DEFAULT),
        "group /%s in '%s'", SEGMENTS, h->path);
  TRY(create_column(h, group, SEGMENT, H5T_STD_I32LE, -1, &scale));
  TRY(ssw_h5_attr_str(scale, SEGMENT, "units", "1"));
  TRY(ssw_h5_attr_str(scale, SEGMENT, "long_name",
                      "run segment: one per sleighsweep run that finished "
                      "(a fresh run, then each resume), from 0"));
  for (size_t f = 0; f < NFIELDS; f++)
    TRY(create_field(h, group, f, scale));
done:
  if (scale >= 0) H5Dclose(scale);
  if (group >= 0) H5Gclose(group);
  if (gcpl >= 0) H5Pclose(gcpl);
  return status;
}

/* ---- format 3: the compound table ----------------------------------- */

/* The table's row type in memory: the fields at their row offsets (the
 * strings at their full sizes). */
static hid_t old_row_type(void) {
  const hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(segment_row));
  hid_t s32 = H5Tcopy(H5T_C_S1), s16 = H5Tcopy(H5T_C_S1);
  H5Tset_size(s32, sizeof((segment_row *)0)->start_time);
  H5Tset_size(s16, sizeof((segment_row *)0)->status);
  for (size_t f = 0; t >= 0 && f < NFIELDS; f++) {
    const field_kind k = fields[f].kind;
    const hid_t ft = k == F_TIME ? s32 : k == F_END ? s16 : mem_type(k);
    H5Tinsert(t, fields[f].name, fields[f].offset, ft);
  }
  H5Tclose(s32);
  H5Tclose(s16);
  return t;
}

/* The rows of a format-3 table (*rows NULL when it is not the engine's:
 * a compound with every field). Returns the row count. */
static long read_old(hid_t d, segment_row **rows) {
  hid_t s = H5Dget_space(d), t = H5Dget_type(d), mt = H5I_INVALID_HID;
  hsize_t n = 0;
  int ok = s >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
           H5Sget_simple_extent_dims(s, &n, NULL) >= 0;
  if (!ok) n = 0;
  ok = ok && t >= 0 && H5Tget_class(t) == H5T_COMPOUND;
  for (size_t f = 0; ok && f < NFIELDS; f++)
    ok = H5Tget_member_index(t, fields[f].name) >= 0;
  segment_row *r = ok && n ? calloc((size_t)n, sizeof *r) : NULL;
  if (r && (mt = old_row_type()) >= 0 &&
      H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0)
    *rows = r, r = NULL;
  free(r);
  if (mt >= 0) H5Tclose(mt);
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  return (long)n;
}

/* ---- appending -------------------------------------------------------- */

/* Rank 0's segment as a row on every rank. */
static int bcast_row(MPI_Comm comm, const ssw_h5out_segment *seg,
                     segment_row *row) {
  int status = SSW_SUCCESS, rank = 0;
  MPI_Comm_rank(comm, &rank);
  memset(row, 0, sizeof *row);
  if (rank == 0) {
    snprintf(row->start_time, sizeof row->start_time, "%s",
             seg->start_time ? seg->start_time : "");
    snprintf(row->end_time, sizeof row->end_time, "%s",
             seg->end_time ? seg->end_time : "");
    snprintf(row->status, sizeof row->status, "%s",
             seg->status ? seg->status : "");
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

/* Extends one dataset of the group from `at` to at + m rows (collective)
 * and writes `values` (m stored values of 8 bytes each, rank 0's; the
 * others select nothing). */
static int write_rows(ssw_h5out *h, hid_t group, const char *name, hid_t mtype,
                      hsize_t at, hsize_t m, const void *values) {
  int status = SSW_SUCCESS;
  hid_t d = H5I_INVALID_HID, fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
  const hsize_t after = at + m;
  H5TRY(d = H5Dopen2(group, name, H5P_DEFAULT), "/%s/%s in '%s'", SEGMENTS,
        name, h->path);
  H5TRY(H5Dset_extent(d, &after), "/%s/%s in '%s'", SEGMENTS, name, h->path);
  H5TRY(fs = H5Dget_space(d), "/%s/%s", SEGMENTS, name);
  H5TRY(ms = H5Screate_simple(1, &m, NULL), "/%s/%s", SEGMENTS, name);
  H5TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &m, NULL), "/%s/%s",
        SEGMENTS, name);
  if (h->rank != 0) {
    H5TRY(H5Sselect_none(fs), "/%s/%s", SEGMENTS, name);
    H5TRY(H5Sselect_none(ms), "/%s/%s", SEGMENTS, name);
  }
  H5TRY(H5Dwrite(d, mtype, ms, fs, h->dxpl, values), "/%s/%s in '%s'", SEGMENTS,
        name, h->path);
done:
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (d >= 0) H5Dclose(d);
  return status;
}

/* Appends rows[0 .. m-1] after the group's `at` rows, every field and the
 * row numbers; the stored values are packed into 8-byte slots. */
static int append_rows(ssw_h5out *h, hid_t group, hsize_t at,
                       const segment_row *rows, hsize_t m) {
  int status = SSW_SUCCESS;
  unsigned char *buf = malloc((size_t)m * 8);
  int32_t *num = malloc((size_t)m * sizeof *num);
  SSW_CHECK(buf && num, SSW_ERR_MEM, "out of memory for %llu segments",
            (unsigned long long)m);
  for (hsize_t i = 0; i < m; i++)
    num[i] = (int32_t)(at + i);
  TRY(write_rows(h, group, SEGMENT, H5T_NATIVE_INT32, at, m, num));
  for (size_t f = 0; f < NFIELDS; f++) {
    const size_t size = H5Tget_size(mem_type(fields[f].kind));
    for (hsize_t i = 0; i < m; i++) {
      unsigned char slot[8];
      to_stored(&rows[i], f, slot);
      memcpy(buf + i * size, slot, size);
    }
    TRY(write_rows(h, group, fields[f].name, mem_type(fields[f].kind), at, m,
                   buf));
  }
done:
  free(num);
  free(buf);
  return status;
}

/* The wall times of every row, summed (every rank reads them). */
static int total_wall(ssw_h5out *h, hid_t group, hsize_t n, double *total) {
  int status = SSW_SUCCESS;
  hid_t d = H5I_INVALID_HID;
  double *w = malloc((size_t)(n ? n : 1) * sizeof *w);
  SSW_CHECK(w, SSW_ERR_MEM, "out of memory for %llu segments",
            (unsigned long long)n);
  H5TRY(d = H5Dopen2(group, "wall_time_s", H5P_DEFAULT), "/%s in '%s'",
        SEGMENTS, h->path);
  H5TRY(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, w),
        "/%s/wall_time_s in '%s'", SEGMENTS, h->path);
  *total = 0.0;
  for (hsize_t i = 0; i < n; i++)
    *total += w[i];
done:
  if (d >= 0) H5Dclose(d);
  free(w);
  return status;
}

/* Appends the segment's line to the root `history` (CF: newest last). */
static int append_history(ssw_h5out *h, const segment_row *row) {
  int status = SSW_SUCCESS;
  char *old = NULL, *text = NULL;
  htri_t has;
  H5TRY(has = H5Aexists(h->file, SSW_ATTR_HISTORY), "'%s'", h->path);
  if (has > 0)
    TRY(ssw_h5_attr_read_str(h->file, h->path, SSW_ATTR_HISTORY, &old));
  char line[256];
  if (row->omp_threads == 0) /* ssw_h5out_record_recovered's row */
    snprintf(line, sizeof line,
             "%s sleighsweep run: ended without saving, %llu points "
             "recovered from %d journal(s) by the next run",
             row->end_time, (unsigned long long)row->points_computed,
             row->mpi_ranks);
  else
    snprintf(line, sizeof line,
             "%s sleighsweep run: %s, %llu points on %d rank(s) x %d "
             "thread(s) in %.6g s",
             row->end_time, row->status,
             (unsigned long long)row->points_computed, row->mpi_ranks,
             row->omp_threads, row->wall_time_s);
  const size_t len = (old ? strlen(old) : 0) + strlen(line) + 2;
  text = malloc(len);
  SSW_CHECK(text, SSW_ERR_MEM, "out of memory for the history");
  snprintf(text, len, "%s%s%s", old && *old ? old : "", old && *old ? "\n" : "",
           line);
  TRY(ssw_h5_attr_str(h->file, "/", SSW_ATTR_HISTORY, text));
done:
  free(text);
  free(old);
  return status;
}

/* The group as it must be before a row is appended: created in a file
 * made before it (a format-3 table is not: such files are refused on
 * resume, h5resume.c). */
static int ready_group(ssw_h5out *h, segment_row **old, hsize_t *nold) {
  int status = SSW_SUCCESS;
  H5O_info_t info;
  htri_t has;
  *old = NULL;
  *nold = 0;
  H5TRY(has = H5Lexists(h->file, SEGMENTS, H5P_DEFAULT), "'%s'", h->path);
  if (has > 0)
    H5TRY(H5Oget_info_by_name2(h->file, SEGMENTS, &info, H5O_INFO_BASIC,
                               H5P_DEFAULT),
          "/%s in '%s'", SEGMENTS, h->path);
  if (has > 0 && info.type == H5O_TYPE_GROUP) return SSW_SUCCESS;
  SSW_CHECK(has == 0, SSW_ERR_IO, "/%s in '%s' is not the run segments group",
            SEGMENTS, h->path);
  TRY(ssw_h5_create_segments(h));
done:
  return status;
}

int ssw_h5_record_segment(ssw_h5out *h, const ssw_h5out_segment *seg,
                          double *total) {
  int status = SSW_SUCCESS;
  hid_t group = H5I_INVALID_HID, d = H5I_INVALID_HID, s = H5I_INVALID_HID;
  segment_row *rows = NULL;
  hsize_t at = 0, nold = 0;
  TRY(ready_group(h, &rows, &nold));
  segment_row *all = realloc(rows, (size_t)(nold + 1) * sizeof *all);
  SSW_CHECK(all, SSW_ERR_MEM, "out of memory for the run segments");
  rows = all;
  TRY(bcast_row(h->comm, seg, &rows[nold]));
  H5TRY(group = H5Gopen2(h->file, SEGMENTS, H5P_DEFAULT), "/%s in '%s'",
        SEGMENTS, h->path);
  H5TRY(d = H5Dopen2(group, SEGMENT, H5P_DEFAULT), "/%s/%s", SEGMENTS, SEGMENT);
  H5TRY(s = H5Dget_space(d), "/%s/%s", SEGMENTS, SEGMENT);
  H5TRY(H5Sget_simple_extent_dims(s, &at, NULL), "/%s/%s", SEGMENTS, SEGMENT);
  TRY(append_rows(h, group, at, rows, nold + 1));
  TRY(total_wall(h, group, at + nold + 1, total));
  TRY(append_history(h, &rows[nold]));
done:
  free(rows);
  if (s >= 0) H5Sclose(s);
  if (d >= 0) H5Dclose(d);
  if (group >= 0) H5Gclose(group);
  return status;
}

/* ---- reading (h5peek.h) ----------------------------------------------- */

/* Field f of every row of the group into rows (0 when it is not there or
 * not of the engine's type). */
static int read_field(hid_t group, size_t f, hsize_t n, segment_row *rows) {
  const hid_t d = H5Dopen2(group, fields[f].name, H5P_DEFAULT);
  const hid_t t = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
  const hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
  hsize_t got = 0;
  int ok = t >= 0 && s >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
           H5Sget_simple_extent_dims(s, &got, NULL) >= 0 && got == n &&
           H5Tget_class(t) == H5Tget_class(file_type(fields[f].kind));
  unsigned char *buf = ok ? malloc((size_t)n * 8 + 8) : NULL;
  const hid_t mt = mem_type(fields[f].kind);
  ok = buf && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
  const size_t size = H5Tget_size(mt);
  for (hsize_t i = 0; ok && i < n; i++)
    from_stored(buf + i * size, f, &rows[i]);
  free(buf);
  if (s >= 0) H5Sclose(s);
  if (t >= 0) H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  return ok;
}

long ssw_h5peek_segments(hid_t f, ssw_h5peek_segment **rows) {
  H5O_info_t info;
  *rows = NULL;
  if (H5Lexists(f, SEGMENTS, H5P_DEFAULT) <= 0 ||
      H5Oget_info_by_name2(f, SEGMENTS, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
    return -1;
  if (info.type == H5O_TYPE_DATASET) { /* format 3 */
    const hid_t d = H5Dopen2(f, SEGMENTS, H5P_DEFAULT);
    const long n = d >= 0 ? read_old(d, rows) : 0;
    if (d >= 0) H5Dclose(d);
    return n;
  }
  const hid_t g = H5Gopen2(f, SEGMENTS, H5P_DEFAULT);
  const hid_t d = g >= 0 ? H5Dopen2(g, SEGMENT, H5P_DEFAULT) : -1;
  const hid_t s = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t n = 0;
  if (s < 0 || H5Sget_simple_extent_dims(s, &n, NULL) != 1) n = 0;
  segment_row *r = n ? calloc((size_t)n, sizeof *r) : NULL;
  int ok = r != NULL;
  for (size_t k = 0; ok && k < NFIELDS; k++)
    ok = read_field(g, k, n, r);
  if (ok) *rows = r, r = NULL;
  free(r);
  if (s >= 0) H5Sclose(s);
  if (d >= 0) H5Dclose(d);
  if (g >= 0) H5Gclose(g);
  return g >= 0 ? (long)n : -1;
}
