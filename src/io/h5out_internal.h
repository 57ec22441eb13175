/* Internal to the HDF5 output (src/h5*.c): the handle, the dataset
 * table, the error plumbing and the attribute helpers. */
#ifndef SLEIGHSWEEP_H5OUT_INTERNAL_H
#define SLEIGHSWEEP_H5OUT_INTERNAL_H

#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/h5out.h"
#include "sleighsweep/mpi_util.h"

/* Layout version stored as `format_version`; bump on any layout change so
 * that a resume refuses files of another layout. */
#define SSW_H5_FORMAT_VERSION 8
/* Target chunk size. Chunks are blocks of contiguous flat indices along the
 * fastest axes; 64 KiB keeps the chunk index small for 10^9-point grids
 * while a flush epoch touches few chunks per work unit. */
#define SSW_H5_CHUNK_BYTES ((size_t)64 * 1024)
/* Raw-data transfer mode of the point writes (measured: docs/output.md).
 * No filters are used, so independent writes are legal. */
#define SSW_H5_XFER_MODE H5FD_MPIO_COLLECTIVE

/* ---- error plumbing -------------------------------------------------- */

/* Evaluates an HDF5 call; on a negative result records the function's name,
 * the object (printf-style context) and HDF5's innermost error message, then
 * jumps to the caller's single exit `done` (which closes every handle). */
#define H5TRY(expr, ...)                                                       \
  do {                                                                         \
    if ((expr) < 0) {                                                          \
      status = ssw_h5_fail(#expr, __FILE__, __LINE__, __func__, __VA_ARGS__);  \
      goto done;                                                               \
    }                                                                          \
  } while (0)

/* As H5TRY for MPI calls (our communicator returns errors); the message
 * is mpi_util.h's ssw_mpi_error. */
#define MPITRY(expr)                                                           \
  do {                                                                         \
    const int mpi_rc_ = (expr);                                                \
    if (mpi_rc_ != MPI_SUCCESS) {                                              \
      status = ssw_mpi_error(mpi_rc_, #expr, __FILE__, __LINE__);              \
      goto done;                                                               \
    }                                                                          \
  } while (0)

/* Jumps to `done` with the status of a call that failed. */
#define TRY(expr)                                                              \
  do {                                                                         \
    status = (expr);                                                           \
    if (status != SSW_SUCCESS) goto done;                                      \
  } while (0)

/* ---- error plumbing (h5util.c) ------------------------------------ */

/* Records a failed HDF5 call (expression text, object) as SSW_ERR_HDF5. */
int ssw_h5_fail(const char *expr, const char *file, int line, const char *func,
                const char *fmt, ...);
/* Makes a local status collective: when any rank failed, every rank returns
 * an error (its own, or else the lowest failing rank's code and message), so
 * no rank enters a collective HDF5 call alone. */
int ssw_h5_agree(MPI_Comm comm, int status);

/* ---- the dataset table ----------------------------------------------- */

typedef enum { T_F64, T_I32, T_I8, T_U8 } col_type;
typedef enum { SRC_DOUBLE, SRC_INT, SRC_INT32, SRC_ONE } col_src;
/* FILL_MASKED: the fill is not a valid value and gets a _FillValue
 * attribute (NaN, -1); FILL_ZERO: 0 is a valid value, so no _FillValue
 * (readers use `done`). */
typedef enum { FILL_MASKED, FILL_ZERO } col_fill;
typedef enum {
  CAT_NONE,
  CAT_REGIME,
  CAT_SENSE,
  CAT_DONE,
  CAT_FLAGS,
  CAT_SEGMENT,
  CAT_ATTRACTOR
} col_cat;

typedef struct {
  const char *name;
  col_type type;
  col_src src;
  size_t offset; /* in ssw_point_result */
  col_fill fill;
  col_cat cat;
  const char *units;
  const char *long_name;
} column;

/* The per-point datasets (h5layout.c), `done` last: 70, then the
 * forcing's attractor, cycle length, share and Floquet product's closed
 * form, and per forced quantity its mean, spread, error and, with a
 * twin, closed form (names.h SSW_FORCED_QUANTITIES). */
#define SSW_H5_FQ_COLS_(id, index, name, units, long_name, measured, twin,     \
                        closed)                                                \
  +3 + SSW_H5_TWIN_##twin
#define SSW_H5_TWIN_TWIN 1
#define SSW_H5_TWIN_NO_TWIN 0
#define SSW_H5_NCOL (75 SSW_FORCED_QUANTITIES(SSW_H5_FQ_COLS_))
extern const column ssw_h5_columns[];
#define SSW_H5_DONE_COL (SSW_H5_NCOL - 1)

/* The census's datasets over the grid and `attractor_slot` (h5layout.c):
 * `offset` is that of slot 0's element of an array of
 * SSW_ATTRACTOR_SLOTS_MAX in ssw_point_result. */
#define SSW_H5_NSLOTCOL 7
extern const column ssw_h5_slot_columns[SSW_H5_NSLOTCOL];
/* Column c at slot s: its offset moved to the slot's element. */
static inline column ssw_h5_slot_column(const column *c, int s) {
  column k = *c;
  k.offset +=
      (size_t)s * (c->src == SRC_DOUBLE ? sizeof(double) : sizeof(int32_t));
  return k;
}

/* A categorical column's flag_values (or flag_masks) and flag_meanings on
 * dataset d (nothing for CAT_NONE). Errors: SSW_ERR_HDF5. */
int ssw_h5_column_category(hid_t d, const column *col);

/* Column c's value of result r into element j of buf (c's memory type). */
void ssw_h5_column_value(const column *c, const ssw_point_result *r, void *buf,
                         size_t j);

/* Most values of one category (the trajectory flags). */
#define SSW_H5_CATEGORY_MAX 16

typedef struct {
  const char *attr; /* flag_values or flag_masks */
  int n;
  int values[SSW_H5_CATEGORY_MAX];
  const char *meanings;
} category;

/* Indexed by col_cat. */
extern const category ssw_h5_categories[];

typedef struct {
  const char *name, *units, *long_name;
} sample_quantity;

/* Indexed by SSW_SAMPLE_*. */
extern const sample_quantity ssw_h5_sample_quantities[SSW_SAMPLE_NQ];

static inline hid_t ssw_h5_file_type(col_type t) {
  switch (t) {
  case T_F64: return H5T_IEEE_F64LE;
  case T_I32: return H5T_STD_I32LE;
  case T_I8: return H5T_STD_I8LE;
  default: return H5T_STD_U8LE;
  }
}

static inline hid_t ssw_h5_mem_type(col_type t) {
  switch (t) {
  case T_F64: return H5T_NATIVE_DOUBLE;
  case T_I32: return H5T_NATIVE_INT32;
  case T_I8: return H5T_NATIVE_INT8;
  default: return H5T_NATIVE_UINT8;
  }
}

static inline size_t ssw_h5_type_size(col_type t) {
  return t == T_F64 ? 8 : t == T_I32 ? 4 : 1;
}

/* ---- the handle ------------------------------------------------------ */

struct ssw_h5out {
  MPI_Comm comm; /* private duplicate returning MPI errors */
  int rank;
  char *path;
  int naxes;               /* the file's grid dimensions */
  int axis[SSW_NAXES];     /* their axes (SSW_AXIS_*), storage order */
  hsize_t dims[SSW_NAXES]; /* their lengths */
  uint64_t total;
  int samples, nodes;
  ssw_sample_points sel; /* grid points keeping samples (a copy of cfg's) */
  hsize_t sdims[3];      /* /samples: point, sample, node */
  hid_t file, dxpl;
  hid_t coord[SSW_NAXES];
  hid_t dset[SSW_H5_NCOL];
  int slots;                      /* [ensemble] attractor_slots */
  hid_t slotdim;                  /* the attractor_slot scale */
  hid_t slotset[SSW_H5_NSLOTCOL]; /* the census's datasets */
  hid_t sgroup, sdim[3], scoord[SSW_NAXES], sdset[SSW_SAMPLE_NQ];
  char length_unit[32], mass_unit[32]; /* [body] units, "" when not given */
  double need; /* bytes the run needs in the output's directory */
};

/* Whether the file has a /samples group: sample trajectories wanted and
 * at least one grid point chosen for them. */
static inline int ssw_h5_has_samples(const ssw_h5out *h) {
  return h->samples > 0 && h->sel.n > 0;
}

/* ---- helpers (h5util.c) -------------------------------------------- */

/* A new handle for `path` with the grid shape of cfg (no HDF5 object open
 * yet); *out is set even on error so that close releases it. */
int ssw_h5_handle_new(MPI_Comm comm, const char *path, const ssw_config *cfg,
                      ssw_h5out **out);
/* The MPI-IO file access list of the handle's communicator. */
int ssw_h5_make_fapl(const ssw_h5out *h, hid_t *fapl);
/* The point writes' transfer list (h->dxpl). */
int ssw_h5_make_dxpl(ssw_h5out *h);
/* Writes (replacing) a scalar (n == 1) or 1-D numeric attribute. */
int ssw_h5_attr_num(hid_t loc, const char *where, const char *name, hid_t ftype,
                    hid_t mtype, size_t n, const void *data);
/* Writes (replacing) a scalar fixed-length UTF-8 string attribute. */
int ssw_h5_attr_str(hid_t loc, const char *where, const char *name,
                    const char *value);
int ssw_h5_attr_f64(hid_t loc, const char *where, const char *name, double v);
int ssw_h5_attr_i32(hid_t loc, const char *where, const char *name, int v);
int ssw_h5_attr_u64(hid_t loc, const char *where, const char *name, uint64_t v);
/* Reads a string attribute (fixed or variable length) into malloc'd text. */
int ssw_h5_attr_read_str(hid_t loc, const char *where, const char *name,
                         char **out);

/* ---- layout (h5layout.c) ------------------------------------------- */

/* The coordinate scales and every per-point dataset with its attributes. */
int ssw_h5_create_grid(ssw_h5out *h, const ssw_config *cfg);
/* The /samples group, its datasets and sample/node scales. */
int ssw_h5_create_samples(ssw_h5out *h, const ssw_config *cfg);
/* The dimensions of a census dataset: the grid's, then the slots. */
static inline void ssw_h5_slot_dims(const ssw_h5out *h, hsize_t *dims) {
  for (int i = 0; i < h->naxes; i++)
    dims[i] = h->dims[i];
  dims[h->naxes] = (hsize_t)h->slots;
}
/* Root provenance known from the config and the library. */
int ssw_h5_write_config_attrs(ssw_h5out *h, const ssw_config *cfg);
/* Root provenance known to the caller (rank 0's values). */
int ssw_h5_write_meta_attrs(ssw_h5out *h, const ssw_h5out_meta *meta);

/* ---- run segments (h5segments.c) ----------------------------------- */

/* Creates the empty /segments group: one 1-D dataset per field over the
 * unlimited dimension `segment` (docs/output.md). */
int ssw_h5_create_segments(ssw_h5out *h);
/* Appends rank 0's segment as a row of /segments (created if absent: older
 * files; a format-3 compound table is converted, its rows kept, and the
 * file marked format 4) and a line of the root `history`; *total receives
 * the wall time summed over every row. */
int ssw_h5_record_segment(ssw_h5out *h, const ssw_h5out_segment *seg,
                          double *total);

#endif
