/* The refinement's side of the output (include/sleighsweep/h5boundaries.h):
 * the grid's samples read back by rank 0 and the group /boundaries. */
#include "sleighsweep/h5boundaries.h"

#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5out_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/h5peek.h"

#define GROUP "boundaries"
#define DIM "crossing"

/* ---- reading the grid back ------------------------------------------ */

/* Rank 0: one per-point dataset, whole, as doubles. */
static int read_column(ssw_h5out *h, const char *name, double *buf) {
  int status = SSW_SUCCESS;
  size_t c = 0;
  while (c < SSW_H5_NCOL && strcmp(ssw_h5_columns[c].name, name) != 0)
    c++;
  SSW_CHECK(c < SSW_H5_NCOL, SSW_ERR_ARG, "no dataset %s", name);
  H5TRY(H5Dread(h->dset[c], H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                buf),
        "%s in '%s'", name, h->path);
done:
  return status;
}

static int read_samples(ssw_h5out *h, ssw_refine_sample *s) {
  SSW_CHECK(s, SSW_ERR_ARG, "NULL sample array on rank 0");
  double *buf = malloc(h->total * sizeof *buf);
  SSW_CHECK(buf, SSW_ERR_MEM, "out of memory reading %llu points",
            (unsigned long long)h->total);
  static const char *const names[] = {"Z",
                                      "L1",
                                      "transition_angle",
                                      "sense_future",
                                      "critical_energy",
                                      "heading_per_period",
                                      "attractor",
                                      "cycle_periods",
                                      "lyapunov_max",
                                      "lyapunov_max_error"};
  int status = SSW_SUCCESS;
  for (int q = 0; q < 10 && status == SSW_SUCCESS; q++) {
    status = read_column(h, names[q], buf);
    for (uint64_t i = 0; status == SSW_SUCCESS && i < h->total; i++) {
      if (q == 0) s[i].Z = buf[i];
      if (q == 1) s[i].L1 = buf[i];
      if (q == 2) s[i].turns = buf[i] / (2 * M_PI);
      if (q == 3) s[i].sense = (int32_t)buf[i];
      if (q == 4) s[i].Hc = buf[i];
      if (q == 5) s[i].drift = fabs(buf[i]) / (2 * M_PI);
      if (q == 6) s[i].attractor = (int32_t)buf[i]; /* with its length: */
      if (q == 7)
        s[i].attractor =
            ssw_refine_attractor_class(s[i].attractor, (int32_t)buf[i]);
      if (q == 8) s[i].lyap = buf[i];
      if (q == 9) s[i].lyap_err = buf[i];
    }
  }
  free(buf);
  return status;
}

int ssw_h5out_read_refine_samples(ssw_h5out *h, ssw_refine_sample *s) {
  SSW_CHECK(h, SSW_ERR_ARG, "NULL output handle");
  SSW_CALL(ssw_h5out_flush(h)); /* every rank's points on disk */
  SSW_MPI_CALL(MPI_Barrier(h->comm));
  const int status = h->rank == 0 ? read_samples(h, s) : SSW_SUCCESS;
  return ssw_h5_agree(h->comm, status);
}

/* ---- the group /boundaries ------------------------------------------ */

typedef enum { B_U64, B_I32, B_I8, B_F64 } btype;

/* One dataset of a table. */
typedef struct {
  const char *name;
  btype type;
  size_t offset;
  const char *units, *long_name;
} bfield;

#define OFF(f) offsetof(ssw_refine_crossing, f)
/* One dataset per field of ssw_refine_crossing (docs/output.md). */
static const bfield fields[] = {
    {"axis", B_I8, OFF(axis), "1", "grid axis along which the edge runs"},
    {"point_lo", B_U64, OFF(lo), "1",
     "flat grid index of the edge's lower end"},
    {"point_hi", B_U64, OFF(hi), "1",
     "flat grid index of the edge's upper end"},
    {"indicator", B_I8, OFF(indicator), "1",
     "continuous indicator whose level is crossed"},
    {"level", B_F64, OFF(level), "1",
     "level of the indicator crossed (k for turns, else 0; NaN: located by "
     "the class alone)"},
    {"position", B_F64, OFF(position), NULL,
     "the crossing along the axis, in the axis's units (rad for theta)"},
    {"position_error", B_F64, OFF(position_error), NULL,
     "width of the final bracket, an upper bound of the position's error"},
    {"class_lo", B_I32, OFF(class_lo), "1",
     "the indicator's class at point_lo"},
    {"class_hi", B_I32, OFF(class_hi), "1",
     "the indicator's class at point_hi"},
    {"evaluations", B_I32, OFF(evaluations), "1",
     "evaluations of the grid-point pipeline this crossing made"},
    {"skipped_levels", B_I32, OFF(skipped), "1",
     "crossings of this indicator on the edge beyond the net change of its "
     "ends (levels passed and recrossed between evaluations: not located), "
     "as the evaluations saw them (a lower bound)"},
};
#undef OFF
#define NFIELDS (sizeof fields / sizeof fields[0])

#define OFF(f) offsetof(ssw_refine_near, f)
/* The near misses' datasets, along the dimension near_miss. */
static const bfield near_fields[] = {
    {"near_axis", B_I8, OFF(axis), "1", "grid axis along which the edge runs"},
    {"near_point_lo", B_U64, OFF(lo), "1",
     "flat grid index of the edge's lower end"},
    {"near_indicator", B_I8, OFF(indicator), "1",
     "the counting indicator come close to a level"},
    {"near_level", B_F64, OFF(level), "1",
     "the level (in turns) an end comes within the margin of"},
    {"near_distance", B_F64, OFF(distance), "1",
     "the smaller abs(indicator - level) of the edge's two ends"},
};
#undef OFF
#define NNEAR_FIELDS (sizeof near_fields / sizeof near_fields[0])
#define NEAR_DIM "near_miss"

#define OFF(f) offsetof(ssw_refine_unresolved, f)
/* The unresolved edges' datasets, along the dimension unresolved. */
static const bfield unresolved_fields[] = {
    {"unresolved_axis", B_I8, OFF(axis), "1",
     "grid axis along which the edge runs"},
    {"unresolved_point_lo", B_U64, OFF(lo), "1",
     "flat grid index of the edge's lower end"},
    {"unresolved_indicator", B_I8, OFF(indicator), "1",
     "the counting indicator whose class changes along the edge"},
    {"unresolved_class_lo", B_I32, OFF(class_lo), "1",
     "the indicator's class at the lower end (-2147483648: none)"},
    {"unresolved_class_hi", B_I32, OFF(class_hi), "1",
     "the indicator's class at the upper end (-2147483648: none)"},
    {"unresolved_reason", B_I8, OFF(reason), "1",
     "why the edge was not refined"},
};
#undef OFF
#define NUNRESOLVED_FIELDS                                                     \
  (sizeof unresolved_fields / sizeof *unresolved_fields)
#define UNRESOLVED_DIM "unresolved"

static hid_t file_type(btype t) {
  return t == B_U64   ? H5T_STD_U64LE
         : t == B_I32 ? H5T_STD_I32LE
         : t == B_I8  ? H5T_STD_I8LE
                      : H5T_IEEE_F64LE;
}

static hid_t mem_type(btype t) {
  return t == B_U64   ? H5T_NATIVE_UINT64
         : t == B_F64 ? H5T_NATIVE_DOUBLE
                      : H5T_NATIVE_INT32;
}

static size_t mem_size(btype t) { return t == B_I32 || t == B_I8 ? 4 : 8; }

/* The flag_values and flag_meanings of the categorical fields. */
static int flags(hid_t d, const char *name) {
  int values[SSW_NAXES > SSW_REFINE_NIND ? SSW_NAXES : SSW_REFINE_NIND];
  char meanings[256] = "";
  const char *const *names = ssw_refine_indicator_names;
  int n = SSW_REFINE_NIND;
  if (strstr(name, "axis")) names = ssw_axis_names, n = SSW_NAXES;
  if (strstr(name, "reason"))
    names = ssw_refine_reason_names, n = SSW_REFINE_NREASONS;
  for (int i = 0; i < n; i++) {
    values[i] = i;
    strcat(meanings, i ? " " : "");
    strcat(meanings, names[i]);
  }
  SSW_CALL(ssw_h5_attr_num(d, name, "flag_values", H5T_STD_I8LE, H5T_NATIVE_INT,
                           (size_t)n, values));
  return ssw_h5_attr_str(d, name, "flag_meanings", meanings);
}

/* One field's dataset: created, attached to the scale, described, and
 * rank 0's values written (collective transfer, others select none). */
static int write_field(ssw_h5out *h, hid_t group, hid_t scale, const bfield *fd,
                       const void *rows, size_t stride, size_t n, char *buf) {
  int status = SSW_SUCCESS;
  hid_t space = H5I_INVALID_HID, d = H5I_INVALID_HID;
  const hsize_t dims = n;
  const char *name = fd->name;
  const size_t size = mem_size(fd->type);
  for (size_t k = 0; h->rank == 0 && k < n; k++)
    memcpy(buf + k * size, (const char *)rows + k * stride + fd->offset, size);
  H5TRY(space = H5Screate_simple(1, &dims, NULL), "/%s/%s", GROUP, name);
  H5TRY(d = H5Dcreate2(group, name, file_type(fd->type), space, H5P_DEFAULT,
                       H5P_DEFAULT, H5P_DEFAULT),
        "dataset /%s/%s in '%s'", GROUP, name, h->path);
  H5TRY(H5DSattach_scale(d, scale, 0), "/%s/%s", GROUP, name);
  if (fd->units) TRY(ssw_h5_attr_str(d, name, "units", fd->units));
  TRY(ssw_h5_attr_str(d, name, "long_name", fd->long_name));
  if (fd->type == B_I8) TRY(flags(d, name));
  if (h->rank != 0) H5TRY(H5Sselect_none(space), "/%s/%s", GROUP, name);
  if (n > 0)
    H5TRY(H5Dwrite(d, mem_type(fd->type), space, space, h->dxpl, buf),
          "/%s/%s in '%s'", GROUP, name, h->path);
done:
  if (d >= 0) H5Dclose(d);
  if (space >= 0) H5Sclose(space);
  return status;
}

/* A dimension scale `dim` (0, 1, ..., n - 1). */
static int write_scale(ssw_h5out *h, hid_t group, const char *dim,
                       const char *long_name, size_t n, hid_t *scale) {
  int status = SSW_SUCCESS;
  hid_t space = H5I_INVALID_HID;
  const hsize_t dims = n;
  int64_t *k = malloc((n ? n : 1) * sizeof *k);
  SSW_CHECK(k, SSW_ERR_MEM, "out of memory for %zu crossings", n);
  for (size_t i = 0; i < n; i++)
    k[i] = (int64_t)i;
  H5TRY(space = H5Screate_simple(1, &dims, NULL), "/%s/%s", GROUP, dim);
  H5TRY(*scale = H5Dcreate2(group, dim, H5T_STD_I64LE, space, H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT),
        "/%s/%s in '%s'", GROUP, dim, h->path);
  H5TRY(H5DSset_scale(*scale, dim), "/%s/%s", GROUP, dim);
  TRY(ssw_h5_attr_str(*scale, dim, "long_name", long_name));
  if (h->rank != 0) H5TRY(H5Sselect_none(space), "/%s/%s", GROUP, dim);
  if (n > 0)
    H5TRY(H5Dwrite(*scale, H5T_NATIVE_INT64, space, space, h->dxpl, k),
          "/%s/%s in '%s'", GROUP, dim, h->path);
done:
  free(k);
  if (space >= 0) H5Sclose(space);
  return status;
}

/* [refine] points: every per-point dataset of the grid but `done` as
 * crossing_<name> along the dimension `crossing`, rank 0's values. */
static int write_points(ssw_h5out *h, hid_t group, const ssw_point_result *r,
                        size_t n) {
  int status = SSW_SUCCESS;
  hid_t scale = H5I_INVALID_HID, space = H5I_INVALID_HID;
  hid_t d = H5I_INVALID_HID;
  const hsize_t dims = n;
  char *buf = malloc((n ? n : 1) * 8);
  status = ssw_h5_agree(h->comm, buf ? SSW_SUCCESS
                                     : SSW_RAISE(SSW_ERR_MEM, "out of memory"));
  if (status != SSW_SUCCESS) goto done;
  H5TRY(scale = H5Dopen2(group, DIM, H5P_DEFAULT), "/%s/%s", GROUP, DIM);
  H5TRY(space = H5Screate_simple(1, &dims, NULL), "/%s points", GROUP);
  if (h->rank != 0) H5TRY(H5Sselect_none(space), "/%s points", GROUP);
  for (size_t c = 0; c < SSW_H5_NCOL; c++) {
    const column *col = &ssw_h5_columns[c];
    if (c == SSW_H5_DONE_COL) continue;
    char name[96];
    snprintf(name, sizeof name, "crossing_%s", col->name);
    for (size_t k = 0; h->rank == 0 && k < n; k++)
      ssw_h5_column_value(col, &r[k], buf, k);
    H5TRY(d = H5Dcreate2(group, name, ssw_h5_file_type(col->type), space,
                         H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
          "dataset /%s/%s in '%s'", GROUP, name, h->path);
    H5TRY(H5DSattach_scale(d, scale, 0), "/%s/%s", GROUP, name);
    TRY(ssw_h5_attr_str(d, name, "units", col->units));
    TRY(ssw_h5_attr_str(d, name, "long_name", col->long_name));
    TRY(ssw_h5_column_category(d, col));
    if (n > 0)
      H5TRY(H5Dwrite(d, ssw_h5_mem_type(col->type), space, space, h->dxpl, buf),
            "/%s/%s in '%s'", GROUP, name, h->path);
    H5Dclose(d);
    d = H5I_INVALID_HID;
  }
done:
  if (d >= 0) H5Dclose(d);
  if (space >= 0) H5Sclose(space);
  if (scale >= 0) H5Dclose(scale);
  free(buf);
  return status;
}

/* The group's attributes: what was asked and what it cost. */
static int write_info(hid_t g, const ssw_h5_boundaries_info *in) {
#define CLASS_(id, bit, name, ...) {bit, name},
  static const struct {
    int32_t bit;
    const char *name;
  } cls[] = {SSW_REFINE_CLASSES(CLASS_)};
#undef CLASS_
  char classes[64] = "";
  for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++)
    if (in->spec->classes & cls[i].bit)
      strcat(strcat(classes, classes[0] ? ", " : ""), cls[i].name);
  SSW_CALL(ssw_h5_attr_str(g, GROUP, "classes", classes));
  SSW_CALL(ssw_h5_attr_f64(g, GROUP, "tol", in->spec->tol));
  SSW_CALL(ssw_h5_attr_i32(g, GROUP, "max_evals", in->spec->max_evals));
  SSW_CALL(
      ssw_h5_attr_i32(g, GROUP, "refine_trajectories", in->spec->trajectories));
  SSW_CALL(ssw_h5_attr_i32(g, GROUP, "points", in->spec->points));
  SSW_CALL(ssw_h5_attr_u64(g, GROUP, "trajectories", in->trajectories));
  SSW_CALL(ssw_h5_attr_u64(g, GROUP, "coarse_trajectories",
                           in->coarse_trajectories));
  SSW_CALL(ssw_h5_attr_u64(g, GROUP, "coarse_points", in->coarse_points));
  SSW_CALL(ssw_h5_attr_u64(g, GROUP, "edges", in->edges));
  SSW_CALL(ssw_h5_attr_f64(g, GROUP, "near_margin", SSW_REFINE_NEAR_MARGIN));
  return ssw_h5_attr_u64(g, GROUP, "evaluations", in->evaluations);
}

/* A table: its dimension scale and one dataset per field. */
static int write_table(ssw_h5out *h, hid_t group, const char *dim,
                       const char *what, const bfield *fd, size_t nf,
                       const void *rows, size_t stride, size_t n) {
  int status = SSW_SUCCESS;
  hid_t scale = H5I_INVALID_HID;
  char *buf = malloc((n ? n : 1) * 8);
  status = ssw_h5_agree(h->comm, buf ? SSW_SUCCESS
                                     : SSW_RAISE(SSW_ERR_MEM, "out of memory"));
  if (status != SSW_SUCCESS) goto done;
  TRY(write_scale(h, group, dim, what, n, &scale));
  for (size_t f = 0; f < nf; f++)
    TRY(write_field(h, group, scale, &fd[f], rows, stride, n, buf));
done:
  if (scale >= 0) H5Dclose(scale);
  free(buf);
  return status;
}

/* An earlier /boundaries (a refinement done again) goes. A damaged one
 * (ssw_h5peek_verify) may not delete, as HDF5 reads every member's header
 * to free it: its link then moves to /boundaries_damaged (its group header
 * alone is read), which verification skips and h5repack drops. */
static herr_t member_opens(hid_t g, const char *name, const H5L_info_t *info,
                           void *op) {
  (void)info, (void)op;
  const hid_t o = H5Oopen(g, name, H5P_DEFAULT);
  return o >= 0 && H5Oclose(o) >= 0 ? 0 : -1;
}

static int remove_old(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  if (H5Lexists(h->file, GROUP, H5P_DEFAULT) <= 0) return SSW_SUCCESS;
  /* Every rank reads the same headers, and decides alike. A failed delete
   * would leave the root's link index half changed: look first. */
  if (H5Lvisit_by_name(h->file, GROUP, H5_INDEX_NAME, H5_ITER_INC, member_opens,
                       NULL, H5P_DEFAULT) >= 0) {
    H5TRY(H5Ldelete(h->file, GROUP, H5P_DEFAULT), "/%s in '%s'", GROUP,
          h->path);
    return SSW_SUCCESS;
  }
  H5Eclear2(H5E_DEFAULT);
  if (H5Lexists(h->file, SSW_H5_DAMAGED_GROUP, H5P_DEFAULT) > 0)
    H5TRY(H5Ldelete(h->file, SSW_H5_DAMAGED_GROUP, H5P_DEFAULT), "/%s in '%s'",
          SSW_H5_DAMAGED_GROUP, h->path);
  H5TRY(H5Lmove(h->file, GROUP, h->file, SSW_H5_DAMAGED_GROUP, H5P_DEFAULT,
                H5P_DEFAULT),
        "/%s in '%s' (damaged, and it does not delete)", GROUP, h->path);
done:
  return status;
}

int ssw_h5out_write_boundaries(ssw_h5out *h, const ssw_refine_crossing *c,
                               size_t n, const ssw_h5_boundaries_info *info) {
  int status = SSW_SUCCESS;
  hid_t group = H5I_INVALID_HID;
  TRY(remove_old(h));
  H5TRY(group =
            H5Gcreate2(h->file, GROUP, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        "group /%s in '%s'", GROUP, h->path);
  TRY(write_info(group, info));
  TRY(write_table(h, group, DIM,
                  "located crossing, sorted by (point_lo, axis, indicator, "
                  "level)",
                  fields, NFIELDS, c, sizeof *c, n));
  TRY(write_table(h, group, NEAR_DIM,
                  "near miss of a level, sorted by (point_lo, axis, indicator)",
                  near_fields, NNEAR_FIELDS, info->near, sizeof *info->near,
                  (size_t)info->nnear));
  if (info->spec->points) TRY(write_points(h, group, info->points, n));
  TRY(write_table(h, group, UNRESOLVED_DIM,
                  "edge whose count's class changes but was not refined, "
                  "sorted by (point_lo, axis, indicator)",
                  unresolved_fields, NUNRESOLVED_FIELDS, info->unresolved,
                  sizeof *info->unresolved, (size_t)info->nunresolved));
done:
  if (group >= 0) H5Gclose(group);
  return status;
}
