/* Parallel HDF5 output: dataset table, collective creation, point writes,
 * provenance attributes and the resume checks (layout: docs/output.md). */
#include "sleighsweep/h5out.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/stepper.h"
#include "sleighsweep/version.h"

/* Layout version stored as `format_version`; bump on any layout change so
 * that a resume refuses files of another layout. */
#define FORMAT_VERSION 2
/* Target chunk size. Chunks are blocks of contiguous flat indices along the
 * fastest axes; 64 KiB keeps the chunk index small for 10^9-point grids
 * while a flush epoch touches few chunks per work unit. */
#define CHUNK_BYTES ((size_t)64 * 1024)
/* Raw-data transfer mode of the point writes (measured: docs/output.md).
 * No filters are used, so independent writes are legal. */
#define XFER_MODE H5FD_MPIO_COLLECTIVE

/* ---- error plumbing -------------------------------------------------- */

/* Evaluates an HDF5 call; on a negative result records the function's name,
 * the object (printf-style context) and HDF5's innermost error message, then
 * jumps to the caller's single exit `done` (which closes every handle). */
#define H5TRY(expr, ...)                                                       \
  do {                                                                         \
    if ((expr) < 0) {                                                          \
      status = h5_fail(#expr, __FILE__, __LINE__, __func__, __VA_ARGS__);      \
      goto done;                                                               \
    }                                                                          \
  } while (0)

/* As H5TRY for MPI calls (our communicator returns errors). */
#define MPITRY(expr)                                                           \
  do {                                                                         \
    const int mpi_rc_ = (expr);                                                \
    if (mpi_rc_ != MPI_SUCCESS) {                                              \
      status = mpi_fail(mpi_rc_, #expr, __FILE__, __LINE__, __func__);         \
      goto done;                                                               \
    }                                                                          \
  } while (0)

/* Jumps to `done` with the status of a call that failed. */
#define TRY(expr)                                                              \
  do {                                                                         \
    status = (expr);                                                           \
    if (status != SSW_SUCCESS) goto done;                                      \
  } while (0)

static herr_t innermost_error(unsigned n, const H5E_error2_t *e, void *buf) {
  if (n == 0)
    snprintf(buf, 256, "%s: %s", e->func_name ? e->func_name : "?",
             e->desc ? e->desc : "?");
  return 0;
}

/* The name of the first H5* function called in an expression's text. */
static void h5_function_name(const char *expr, char *name, size_t size) {
  const char *p = strstr(expr, "H5");
  size_t len = 0;
  while (p && p[len] && p[len] != '(' && p[len] != ' ')
    len++;
  snprintf(name, size, "%.*s", (int)len, p ? p : "HDF5 call");
}

static int h5_fail(const char *expr, const char *file, int line,
                   const char *func, const char *fmt, ...) {
  char name[64], what[512], detail[256] = "";
  h5_function_name(expr, name, sizeof name);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, detail);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return ssw_error_raise(
      SSW_ERR_HDF5, file, line, func, "%s failed for %s%s%s%s", name, what,
      detail[0] ? " (HDF5: " : "", detail, detail[0] ? ")" : "");
}

static int mpi_fail(int rc, const char *expr, const char *file, int line,
                    const char *func) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return ssw_error_raise(SSW_ERR_MPI, file, line, func, "%s failed: %s", expr,
                         text);
}

/* Makes a local status collective: when any rank failed, every rank returns
 * an error (its own, or else the lowest failing rank's code and message), so
 * no rank enters a collective HDF5 call alone. */
static int agree(MPI_Comm comm, int status) {
  int rank = 0, size = 1, mine, first;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  mine = status != SSW_SUCCESS ? rank : size;
  int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS)
    return status != SSW_SUCCESS
               ? status
               : mpi_fail(rc, "MPI_Allreduce", __FILE__, __LINE__, __func__);
  if (first == size) return SSW_SUCCESS;
  struct {
    int code;
    char text[1000];
  } msg = {status, ""};
  if (rank == first)
    snprintf(msg.text, sizeof msg.text, "%s", ssw_error_user_message());
  rc = MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, first, comm);
  if (status != SSW_SUCCESS) return status; /* keep this rank's own message */
  if (rc != MPI_SUCCESS)
    return mpi_fail(rc, "MPI_Bcast", __FILE__, __LINE__, __func__);
  return SSW_RAISE(msg.code, "rank %d: %s", first, msg.text);
}

/* ---- the dataset table ----------------------------------------------- */

typedef enum { T_F64, T_I32, T_I8, T_U8 } col_type;
typedef enum { SRC_DOUBLE, SRC_INT, SRC_INT32, SRC_ONE } col_src;
/* FILL_MASKED: the fill is not a valid value and gets a _FillValue
 * attribute (NaN, -1); FILL_ZERO: 0 is a valid value, so no _FillValue
 * (readers use `done`). */
typedef enum { FILL_MASKED, FILL_ZERO } col_fill;
typedef enum { CAT_NONE, CAT_REGIME, CAT_SENSE, CAT_DONE, CAT_FLAGS } col_cat;

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

#define OFF(member) offsetof(ssw_point_result, member)
#define F64(n, m, u, l)                                                        \
  { n, T_F64, SRC_DOUBLE, OFF(m), FILL_MASKED, CAT_NONE, u, l }

/* Units: lengths and masses are in the config's body units. */
static const column columns[] = {
    F64("J", tensor.J, "mass length2", "total rotational inertia about P"),
    F64("M", tensor.M, "mass", "total inertia along the blade"),
    F64("N", tensor.N, "mass", "total inertia across the blade"),
    F64("L1", tensor.L1, "mass length", "rotation / transverse coupling L1"),
    F64("L2", tensor.L2, "mass length", "rotation / longitudinal coupling L2"),
    F64("Z", tensor.Z, "mass", "longitudinal / transverse coupling Z"),
    F64("analytic_radius", analytic.radius, "length",
        "closed-form limit-circle radius |L1/Z|"),
    F64("analytic_center_spacing", analytic.d, "length",
        "closed-form distance of the limit-circle centres"),
    F64("analytic_transition_angle", analytic.dphi_abs, "rad",
        "closed-form transition angle |dphi| = pi |c1|"),
    F64("radius_future", radius_future, "length",
        "mean radius |v/omega| at t -> +inf"),
    F64("radius_past", radius_past, "length",
        "mean radius |v/omega| at t -> -inf"),
    F64("center_spacing", center_spacing, "length",
        "mean distance of the limit-circle centres"),
    F64("transition_angle", transition_angle, "rad",
        "mean transition angle |dphi|"),
    F64("radius_future_spread", radius_future_spread, "length",
        "max - min of radius_future over the ensemble"),
    F64("radius_past_spread", radius_past_spread, "length",
        "max - min of radius_past over the ensemble"),
    F64("center_spacing_spread", center_spacing_spread, "length",
        "max - min of center_spacing over the ensemble"),
    F64("transition_angle_spread", transition_angle_spread, "rad",
        "max - min of transition_angle over the ensemble"),
    F64("converged_fraction", converged_fraction, "1",
        "converged trajectories / trajectories"),
    F64("energy_error_max", energy_error_max, "1",
        "max relative energy error |H - H0| / H0"),
    F64("steps_mean", steps_mean, "1", "mean base steps per trajectory"),
    F64("blade_force_max", blade_force_max, "length-1",
        "mean over the ensemble of max |F| / H, the blade's largest lateral "
        "force per unit energy"),
    F64("analytic_blade_force_max", analytic_blade_force_max, "length-1",
        "closed-form max |F| / H of the blade's lateral force"),
    F64("path_error_max", path_error_max, "length",
        "largest distance of trajectory 0's computed contact point from "
        "the exact path"),
    F64("center_spacing_error", center_spacing_error, "length",
        "largest estimated error of center_spacing over the ensemble"),
    F64("transition_angle_error", transition_angle_error, "rad",
        "largest estimated error of transition_angle over the ensemble"),
    F64("radius_error", radius_error, "length",
        "largest estimated error of the limit radii over the ensemble"),
    F64("t0_error", t0_error, "1",
        "largest estimated error of t0 over the ensemble, relative to the "
        "transition time |t0| + 1/Arate"),
    {"analytic_loops", T_I32, SRC_INT, OFF(analytic.loops), FILL_MASKED,
     CAT_NONE, "1", "closed-form loop count floor(|dphi| / 2 pi)"},
    {"loops", T_I32, SRC_INT32, OFF(loops), FILL_MASKED, CAT_NONE, "1",
     "most frequent loop count of the ensemble"},
    {"flags", T_I32, SRC_INT32, OFF(flags), FILL_ZERO, CAT_FLAGS, "1",
     "OR of the trajectories' flags"},
    {"trajectories", T_I32, SRC_INT32, OFF(trajectories), FILL_ZERO, CAT_NONE,
     "1", "ensemble size"},
    {"regime", T_I8, SRC_INT, OFF(analytic.regime), FILL_MASKED, CAT_REGIME,
     "1", "asymptotic regime"},
    {"analytic_sense", T_I8, SRC_INT, OFF(analytic.sense_future), FILL_ZERO,
     CAT_SENSE, "1", "closed-form rotation sense at t -> +inf, sign(-Z)"},
    {"sense_future", T_I8, SRC_INT32, OFF(sense_future), FILL_ZERO, CAT_SENSE,
     "1", "most frequent rotation sense at t -> +inf"},
    /* Written last in every epoch: a point is done only after its values. */
    {"done", T_U8, SRC_ONE, 0, FILL_ZERO, CAT_DONE, "1",
     "point written (1) or pending (0)"},
};
#define NCOL (sizeof columns / sizeof columns[0])
#define DONE_COL (NCOL - 1)

typedef struct {
  const char *attr; /* flag_values or flag_masks */
  int n;
  int values[6];
  const char *meanings;
} category;

static const category categories[] = {
    [CAT_REGIME] = {"flag_values",
                    4,
                    {0, 1, 2, 3},
                    "uniform line_to_line spin_reversal circle_to_circle"},
    [CAT_SENSE] = {"flag_values",
                   3,
                   {-1, 0, 1},
                   "clockwise none counterclockwise"},
    [CAT_DONE] = {"flag_values", 2, {0, 1}, "pending done"},
    [CAT_FLAGS] = {"flag_masks",
                   6,
                   {SSW_TRAJ_FWD_CAP, SSW_TRAJ_BWD_CAP, SSW_TRAJ_NONFINITE,
                    SSW_TRAJ_EQUILIBRIUM, SSW_TRAJ_NO_PEAK, SSW_TRAJ_RTOL},
                   "forward_step_cap backward_step_cap nonfinite "
                   "equilibrium_start no_peak rtol_not_met"},
};

/* Dimension (and coordinate dataset) names: the file's contract with the
 * analysis scripts, hence spelled here rather than taken from the parser. */
static const char *const dim_names[SSW_NAXES] = {"theta", "a", "b", "r",
                                                 "s",     "A", "B"};
static const char *const dim_long_names[SSW_NAXES] = {
    "blade angle from the major axis (counter-clockwise)",
    "centre of mass, body coordinate along the blade",
    "centre of mass, body coordinate across the blade",
    "ellipse centre, body coordinate along the blade",
    "ellipse centre, body coordinate across the blade",
    "semi-major axis",
    "semi-minor axis"};

typedef struct {
  const char *name, *units, *long_name;
} sample_quantity;

static const sample_quantity sample_quantities[SSW_SAMPLE_NQ] = {
    [SSW_SAMPLE_T] = {"t", "time", "time"},
    [SSW_SAMPLE_PHI] = {"phi", "rad", "heading"},
    [SSW_SAMPLE_X] = {"x", "length", "contact point x"},
    [SSW_SAMPLE_Y] = {"y", "length", "contact point y"},
    [SSW_SAMPLE_OMEGA] = {"omega", "rad time-1", "angular velocity"},
    [SSW_SAMPLE_V] = {"v", "length time-1", "velocity along the blade"},
    [SSW_SAMPLE_H] = {"H", "mass length2 time-2", "energy"},
};

static hid_t file_type(col_type t) {
  switch (t) {
  case T_F64: return H5T_IEEE_F64LE;
  case T_I32: return H5T_STD_I32LE;
  case T_I8: return H5T_STD_I8LE;
  default: return H5T_STD_U8LE;
  }
}

static hid_t mem_type(col_type t) {
  switch (t) {
  case T_F64: return H5T_NATIVE_DOUBLE;
  case T_I32: return H5T_NATIVE_INT32;
  case T_I8: return H5T_NATIVE_INT8;
  default: return H5T_NATIVE_UINT8;
  }
}

static size_t type_size(col_type t) {
  return t == T_F64 ? 8 : t == T_I32 ? 4 : 1;
}

/* ---- the handle ------------------------------------------------------ */

struct ssw_h5out {
  MPI_Comm comm; /* private duplicate returning MPI errors */
  int rank;
  char *path;
  hsize_t dims[SSW_NAXES + 2]; /* grid axes, then sample and node */
  uint64_t total;
  int samples, nodes;
  hid_t file, dxpl;
  hid_t coord[SSW_NAXES];
  hid_t dset[NCOL];
  hid_t sgroup, sdim[2], sdset[SSW_SAMPLE_NQ];
  char length_unit[32], mass_unit[32]; /* [body] units, "" when not given */
};

static int handle_new(MPI_Comm comm, const char *path, const ssw_config *cfg,
                      ssw_h5out **out) {
  SSW_CHECK(path && cfg && out, SSW_ERR_ARG, "NULL path, config or handle");
  *out = NULL;
  ssw_h5out *h = calloc(1, sizeof *h);
  SSW_CHECK(h, SSW_ERR_MEM, "out of memory for the output handle");
  h->file = h->dxpl = h->sgroup = H5I_INVALID_HID;
  for (int i = 0; i < SSW_NAXES; i++)
    h->coord[i] = H5I_INVALID_HID;
  for (size_t c = 0; c < NCOL; c++)
    h->dset[c] = H5I_INVALID_HID;
  for (int q = 0; q < SSW_SAMPLE_NQ; q++)
    h->sdset[q] = H5I_INVALID_HID;
  h->sdim[0] = h->sdim[1] = H5I_INVALID_HID;
  *out = h;
  const int rc = MPI_Comm_dup(comm, &h->comm);
  if (rc != MPI_SUCCESS) {
    h->comm = MPI_COMM_NULL;
    return mpi_fail(rc, "MPI_Comm_dup", __FILE__, __LINE__, __func__);
  }
  MPI_Comm_set_errhandler(h->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(h->comm, &h->rank);
  h->path = malloc(strlen(path) + 1);
  SSW_CHECK(h->path, SSW_ERR_MEM, "out of memory");
  strcpy(h->path, path);
  snprintf(h->length_unit, sizeof h->length_unit, "%s", cfg->length_unit);
  snprintf(h->mass_unit, sizeof h->mass_unit, "%s", cfg->mass_unit);
  SSW_CHECK(cfg->text, SSW_ERR_ARG, "config has no text to store");
  SSW_CHECK(cfg->samples >= 0 && (cfg->samples == 0 || cfg->sample_nodes > 0),
            SSW_ERR_ARG, "invalid samples %d / sample_nodes %d", cfg->samples,
            cfg->sample_nodes);
  h->total = 1;
  for (int i = 0; i < SSW_NAXES; i++) {
    SSW_CHECK(cfg->axes[i].n >= 1 && cfg->axes[i].values, SSW_ERR_ARG,
              "axis %s has no values", dim_names[i]);
    h->dims[i] = (hsize_t)cfg->axes[i].n;
    h->total *= (uint64_t)cfg->axes[i].n;
    SSW_CHECK(h->total <= SSW_GRID_MAX_POINTS, SSW_ERR_ARG,
              "grid larger than %llu points",
              (unsigned long long)SSW_GRID_MAX_POINTS);
  }
  h->samples = cfg->samples;
  h->nodes = cfg->samples > 0 ? cfg->sample_nodes : 0;
  h->dims[SSW_NAXES] = (hsize_t)h->samples;
  h->dims[SSW_NAXES + 1] = (hsize_t)h->nodes;
  return SSW_SUCCESS;
}

/* File access: MPI-IO on our communicator; the 1.8 format (readable by
 * HDF5 >= 1.8 and netCDF-4) for creation-order tracking and for attributes
 * larger than 64 KiB (long config texts) in dense storage. */
static int make_fapl(const ssw_h5out *h, hid_t *fapl) {
  int status = SSW_SUCCESS;
  H5TRY(*fapl = H5Pcreate(H5P_FILE_ACCESS), "'%s'", h->path);
  H5TRY(H5Pset_fapl_mpio(*fapl, h->comm, MPI_INFO_NULL), "'%s'", h->path);
  H5TRY(H5Pset_libver_bounds(*fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST), "'%s'",
        h->path);
done:
  return status;
}

static int make_dxpl(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  H5TRY(h->dxpl = H5Pcreate(H5P_DATASET_XFER), "'%s'", h->path);
  H5TRY(H5Pset_dxpl_mpio(h->dxpl, XFER_MODE), "'%s'", h->path);
done:
  return status;
}

/* ---- attributes ------------------------------------------------------ */

/* Writes (replacing) a scalar or 1-D numeric attribute. */
static int attr_num(hid_t loc, const char *where, const char *name, hid_t ftype,
                    hid_t mtype, size_t n, const void *data) {
  int status = SSW_SUCCESS;
  hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
  htri_t exists;
  hsize_t len = n;
  H5TRY(exists = H5Aexists(loc, name), "attribute %s of %s", name, where);
  if (exists) H5TRY(H5Adelete(loc, name), "attribute %s of %s", name, where);
  H5TRY(space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &len, 0),
        "attribute %s of %s", name, where);
  H5TRY(attr = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT),
        "attribute %s of %s", name, where);
  H5TRY(H5Awrite(attr, mtype, data), "attribute %s of %s", name, where);
done:
  if (attr >= 0) H5Aclose(attr);
  if (space >= 0) H5Sclose(space);
  return status;
}

/* Writes (replacing) a scalar fixed-length, NUL-terminated UTF-8 string
 * attribute: netCDF reads it as text, h5py/xarray as str. */
static int attr_str(hid_t loc, const char *where, const char *name,
                    const char *value) {
  int status = SSW_SUCCESS;
  hid_t type = H5I_INVALID_HID;
  const char *v = value ? value : "";
  H5TRY(type = H5Tcopy(H5T_C_S1), "attribute %s of %s", name, where);
  H5TRY(H5Tset_size(type, strlen(v) + 1), "attribute %s of %s", name, where);
  H5TRY(H5Tset_strpad(type, H5T_STR_NULLTERM), "attribute %s of %s", name,
        where);
  H5TRY(H5Tset_cset(type, H5T_CSET_UTF8), "attribute %s of %s", name, where);
  TRY(attr_num(loc, where, name, type, type, 1, v));
done:
  if (type >= 0) H5Tclose(type);
  return status;
}

static int attr_f64(hid_t loc, const char *where, const char *name, double v) {
  return attr_num(loc, where, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &v);
}

static int attr_i32(hid_t loc, const char *where, const char *name, int v) {
  return attr_num(loc, where, name, H5T_STD_I32LE, H5T_NATIVE_INT, 1, &v);
}

static int attr_u64(hid_t loc, const char *where, const char *name,
                    uint64_t v) {
  return attr_num(loc, where, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &v);
}

/* Reads a string attribute (fixed or variable length) into malloc'd text. */
static int attr_read_str(hid_t loc, const char *where, const char *name,
                         char **out) {
  int status = SSW_SUCCESS;
  hid_t attr = H5I_INVALID_HID, ftype = H5I_INVALID_HID;
  hid_t mtype = H5I_INVALID_HID;
  htri_t vlen;
  char *vstr = NULL;
  size_t size;
  *out = NULL;
  H5TRY(attr = H5Aopen(loc, name, H5P_DEFAULT), "attribute %s of %s", name,
        where);
  H5TRY(ftype = H5Aget_type(attr), "attribute %s of %s", name, where);
  if (H5Tget_class(ftype) != H5T_STRING) {
    status = SSW_RAISE(SSW_ERR_IO, "attribute %s of %s is not a string", name,
                       where);
    goto done;
  }
  H5TRY(vlen = H5Tis_variable_str(ftype), "attribute %s of %s", name, where);
  /* A copy of the file type keeps its character set (no conversion). */
  H5TRY(mtype = H5Tcopy(ftype), "attribute %s of %s", name, where);
  if (vlen) {
    H5TRY(H5Aread(attr, mtype, &vstr), "attribute %s of %s", name, where);
    size = strlen(vstr ? vstr : "") + 1;
  } else {
    size = H5Tget_size(ftype) + 1;
    H5TRY(H5Tset_size(mtype, size), "attribute %s of %s", name, where);
    H5TRY(H5Tset_strpad(mtype, H5T_STR_NULLTERM), "attribute %s of %s", name,
          where);
  }
  *out = calloc(size, 1);
  if (!*out) {
    status = SSW_RAISE(SSW_ERR_MEM, "out of memory reading attribute %s", name);
    goto done;
  }
  if (vlen)
    memcpy(*out, vstr ? vstr : "", size);
  else
    H5TRY(H5Aread(attr, mtype, *out), "attribute %s of %s", name, where);
done:
  if (vstr) H5free_memory(vstr);
  if (mtype >= 0) H5Tclose(mtype);
  if (ftype >= 0) H5Tclose(ftype);
  if (attr >= 0) H5Aclose(attr);
  return status;
}

/* Rank 0's copy of a string on every rank (malloc'd). */
static int bcast_str(MPI_Comm comm, const char *s, char **out) {
  int status = SSW_SUCCESS, rank, len = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) len = (int)strlen(s ? s : "");
  MPITRY(MPI_Bcast(&len, 1, MPI_INT, 0, comm));
  *out = malloc((size_t)len + 1);
  SSW_CHECK(*out, SSW_ERR_MEM, "out of memory");
  if (rank == 0) memcpy(*out, s ? s : "", (size_t)len);
  (*out)[len] = '\0';
  MPITRY(MPI_Bcast(*out, len, MPI_CHAR, 0, comm));
done:
  return status;
}

/* ---- creation -------------------------------------------------------- */

/* The longest block of contiguous flat indices along the fastest axes that
 * fits in CHUNK_BYTES, split evenly along the first axis that does not fit
 * whole (edge chunks occupy full chunk size on disk). */
static void chunk_dims(int rank, const hsize_t *dims, size_t elem,
                       hsize_t *chunk) {
  hsize_t budget = CHUNK_BYTES / elem;
  for (int i = rank - 1; i >= 0; i--) {
    if (dims[i] <= budget) {
      chunk[i] = dims[i] > 0 ? dims[i] : 1;
      budget /= chunk[i];
    } else {
      const hsize_t pieces = (dims[i] + budget - 1) / budget;
      chunk[i] = (dims[i] + pieces - 1) / pieces;
      budget = 1;
    }
  }
}

/* The units of the tables ("mass length2", "rad time-1") in UDUNITS form
 * with the config's units: "kg m2", "rad s-1". Time is in seconds once both
 * units are given (the energy is then in mass length2 s-2); a unit not
 * given stays a generic word (the model is scale-free). */
static void udunits(const ssw_h5out *h, const char *generic, char *buf,
                    size_t n) {
  const int both = h->length_unit[0] && h->mass_unit[0];
  size_t used = 0;
  buf[0] = '\0';
  for (const char *p = generic; *p && used < n;) {
    const size_t len = strcspn(p, " ");
    const char *word = NULL;
    size_t skip = 0;
    if (!strncmp(p, "length", 6) && h->length_unit[0])
      word = h->length_unit, skip = 6;
    else if (!strncmp(p, "mass", 4) && h->mass_unit[0])
      word = h->mass_unit, skip = 4;
    else if (!strncmp(p, "time", 4) && both)
      word = "s", skip = 4;
    used += (size_t)snprintf(buf + used, n - used, "%s%s%.*s", used ? " " : "",
                             word ? word : "", (int)(len - skip), p + skip);
    p += len + (p[len] == ' ');
  }
}

/* Creates a chunked dataset with fill value, early allocation (required by
 * parallel HDF5) and units/long_name/_FillValue attributes. */
static int create_dataset(ssw_h5out *h, hid_t loc, const char *name, int rank,
                          col_type t, double fill, int masked,
                          const char *units, const char *long_name,
                          hid_t *dset) {
  int status = SSW_SUCCESS;
  hid_t dcpl = H5I_INVALID_HID, space = H5I_INVALID_HID;
  hsize_t chunk[SSW_NAXES + 2];
  chunk_dims(rank, h->dims, type_size(t), chunk);
  H5TRY(space = H5Screate_simple(rank, h->dims, NULL), "dataset %s", name);
  H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "dataset %s", name);
  H5TRY(H5Pset_chunk(dcpl, rank, chunk), "dataset %s", name);
  H5TRY(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill), "dataset %s", name);
  H5TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "dataset %s", name);
  H5TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC), "dataset %s", name);
  H5TRY(H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED), "dataset %s",
        name);
  H5TRY(*dset = H5Dcreate2(loc, name, file_type(t), space, H5P_DEFAULT, dcpl,
                           H5P_DEFAULT),
        "dataset %s in '%s'", name, h->path);
  char unit_text[96];
  udunits(h, units, unit_text, sizeof unit_text);
  TRY(attr_str(*dset, name, "units", unit_text));
  TRY(attr_str(*dset, name, "long_name", long_name));
  if (masked)
    TRY(attr_num(*dset, name, "_FillValue", file_type(t), H5T_NATIVE_DOUBLE, 1,
                 &fill));
done:
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  return status;
}

static int attach_scales(hid_t dset, const char *name, const hid_t *scales,
                         int n) {
  int status = SSW_SUCCESS;
  for (int i = 0; i < n; i++)
    H5TRY(H5DSattach_scale(dset, scales[i], (unsigned)i),
          "dimension %d of dataset %s", i, name);
done:
  return status;
}

/* A 1-D dimension-scale dataset named after its dimension; rank 0 writes
 * the values (independent transfer, the others select nothing). */
static int create_scale(ssw_h5out *h, hid_t loc, const char *name, hsize_t n,
                        hid_t ftype, hid_t mtype, const void *values,
                        const char *units, const char *long_name, hid_t *dset) {
  int status = SSW_SUCCESS;
  hid_t dcpl = H5I_INVALID_HID, space = H5I_INVALID_HID;
  H5TRY(space = H5Screate_simple(1, &n, NULL), "scale %s", name);
  H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "scale %s", name);
  H5TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "scale %s", name);
  H5TRY(H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED), "%s", name);
  H5TRY(*dset =
            H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
        "scale %s in '%s'", name, h->path);
  H5TRY(H5DSset_scale(*dset, name), "scale %s", name);
  char unit_text[96];
  udunits(h, units, unit_text, sizeof unit_text);
  TRY(attr_str(*dset, name, "units", unit_text));
  TRY(attr_str(*dset, name, "long_name", long_name));
  if (h->rank != 0) H5TRY(H5Sselect_none(space), "scale %s", name);
  H5TRY(H5Dwrite(*dset, mtype, space, space, H5P_DEFAULT, values),
        "scale %s in '%s'", name, h->path);
done:
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  return status;
}

static int create_grid(ssw_h5out *h, const ssw_config *cfg) {
  int status = SSW_SUCCESS;
  for (int i = 0; i < SSW_NAXES; i++)
    TRY(create_scale(h, h->file, dim_names[i], h->dims[i], H5T_IEEE_F64LE,
                     H5T_NATIVE_DOUBLE, cfg->axes[i].values,
                     i == 0 ? "rad" : "length", dim_long_names[i],
                     &h->coord[i]));
  for (size_t c = 0; c < NCOL; c++) {
    const column *col = &columns[c];
    const double fill = col->type == T_F64         ? NAN
                        : col->fill == FILL_MASKED ? -1.0
                                                   : 0.0;
    TRY(create_dataset(h, h->file, col->name, SSW_NAXES, col->type, fill,
                       col->fill == FILL_MASKED, col->units, col->long_name,
                       &h->dset[c]));
    if (col->cat != CAT_NONE) {
      const category *k = &categories[col->cat];
      TRY(attr_num(h->dset[c], col->name, k->attr, file_type(col->type),
                   H5T_NATIVE_INT, (size_t)k->n, k->values));
      TRY(attr_str(h->dset[c], col->name, "flag_meanings", k->meanings));
    }
    TRY(attach_scales(h->dset[c], col->name, h->coord, SSW_NAXES));
  }
done:
  return status;
}

/* /samples: 9-D datasets (grid axes, sample, node); the sample and node
 * scales live in the group, the grid axes attach to the root scales. */
static int create_samples(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  hid_t gcpl = H5I_INVALID_HID, scales[SSW_NAXES + 2];
  const int n = h->samples > h->nodes ? h->samples : h->nodes;
  int *idx = malloc((size_t)n * sizeof *idx);
  SSW_CHECK(idx, SSW_ERR_MEM, "out of memory");
  for (int i = 0; i < n; i++)
    idx[i] = i;
  H5TRY(gcpl = H5Pcreate(H5P_GROUP_CREATE), "group /samples");
  H5TRY(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED |
                                             H5P_CRT_ORDER_INDEXED),
        "group /samples");
  H5TRY(h->sgroup =
            H5Gcreate2(h->file, "samples", H5P_DEFAULT, gcpl, H5P_DEFAULT),
        "group /samples in '%s'", h->path);
  for (int q = 0; q < SSW_SAMPLE_NQ; q++)
    TRY(create_dataset(h, h->sgroup, sample_quantities[q].name, SSW_NAXES + 2,
                       T_F64, NAN, 1, sample_quantities[q].units,
                       sample_quantities[q].long_name, &h->sdset[q]));
  /* Scales after the data, so that readers list the grid dims first. */
  TRY(create_scale(h, h->sgroup, "sample", h->dims[SSW_NAXES], H5T_STD_I32LE,
                   H5T_NATIVE_INT, idx, "1",
                   "sample trajectory (ensemble members 0 .. samples-1)",
                   &h->sdim[0]));
  TRY(create_scale(h, h->sgroup, "node", h->dims[SSW_NAXES + 1], H5T_STD_I32LE,
                   H5T_NATIVE_INT, idx, "1", "stored node along the trajectory",
                   &h->sdim[1]));
  memcpy(scales, h->coord, sizeof h->coord);
  scales[SSW_NAXES] = h->sdim[0];
  scales[SSW_NAXES + 1] = h->sdim[1];
  for (int q = 0; q < SSW_SAMPLE_NQ; q++)
    TRY(attach_scales(h->sdset[q], sample_quantities[q].name, scales,
                      SSW_NAXES + 2));
done:
  free(idx);
  if (gcpl >= 0) H5Pclose(gcpl);
  return status;
}

static const char *ic_name(int ic) {
  return ic == SSW_IC_LATTICE ? "lattice" : "random";
}

/* Root provenance known from the config and the library. */
static int write_config_attrs(ssw_h5out *h, const ssw_config *cfg) {
  int status = SSW_SUCCESS;
  const hid_t f = h->file;
  const char *w = "/";
  unsigned maj = 0, min = 0, rel = 0;
  char hdf5[32];
  const char *recon = ssw_recon_name(cfg->integ.recon);
  H5TRY(H5get_libversion(&maj, &min, &rel), "the library version");
  snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
  TRY(attr_str(f, w, "title", "hydrodynamic Chaplygin sleigh parameter sweep"));
  TRY(attr_str(f, w, "Conventions", "CF-1.8"));
  TRY(attr_str(f, w, "program", "sleighsweep"));
  TRY(attr_i32(f, w, "format_version", FORMAT_VERSION));
  TRY(attr_str(f, w, "version", ssw_version_string()));
  TRY(attr_str(f, w, "git_revision", ssw_version_git()));
  TRY(attr_str(f, w, "config", cfg->text));
  TRY(attr_str(f, w, "config_path", cfg->path));
  TRY(attr_str(f, w, "hdf5_version", hdf5));
  TRY(attr_f64(f, w, "m", cfg->body.m));
  TRY(attr_f64(f, w, "I0", cfg->body.I0));
  TRY(attr_f64(f, w, "rho", cfg->body.rho));
  if (h->length_unit[0]) TRY(attr_str(f, w, "length_unit", h->length_unit));
  if (h->mass_unit[0]) TRY(attr_str(f, w, "mass_unit", h->mass_unit));
  TRY(attr_f64(f, w, "k_rot", cfg->body.k_rot));
  TRY(attr_str(f, w, "k_rot_convention", cfg->k_rot_name));
  TRY(attr_f64(f, w, "zero_tol", cfg->zero_tol));
  const ssw_integrator *o = &cfg->integ;
  TRY(attr_str(f, w, "scheme", o->method ? o->method->name : "unknown"));
  TRY(attr_str(f, w, "reconstruction", recon ? recon : "unknown"));
  /* Which step rule made the numbers: adaptive (rtol) or fixed (eta). */
  TRY(attr_str(f, w, "step_control", o->rtol > 0 ? "adaptive" : "fixed"));
  TRY(attr_f64(f, w, "rtol", o->rtol));
  TRY(attr_f64(f, w, "eta", o->eta));
  TRY(attr_f64(f, w, "tol", ssw_integrator_stop_tol(o)));
  TRY(attr_num(f, w, "max_steps", H5T_STD_I64LE, H5T_NATIVE_INT64, 1,
               &o->max_steps));
  TRY(attr_i32(f, w, "tail", o->tail));
  TRY(attr_i32(f, w, "error_estimate", o->estimate));
  TRY(attr_i32(f, w, "trajectories", cfg->trajectories));
  TRY(attr_u64(f, w, "seed", cfg->seed));
  TRY(attr_str(f, w, "initial_conditions", ic_name(cfg->ic)));
  TRY(attr_f64(f, w, "energy", cfg->energy));
  TRY(attr_i32(f, w, "samples", cfg->samples));
  TRY(attr_i32(f, w, "sample_nodes", h->nodes));
  TRY(attr_u64(f, w, "points_total", h->total));
done:
  return status;
}

/* Root provenance known to the caller (rank 0's values). */
static int write_meta_attrs(ssw_h5out *h, const ssw_h5out_meta *meta) {
  int status = SSW_SUCCESS;
  static const char *const names[] = {"mpi_library_version", "hostname",
                                      "command_line", "start_time"};
  const char *values[] = {meta->mpi_library_version, meta->hostname,
                          meta->command_line, meta->start_time};
  int counts[2] = {meta->mpi_ranks, meta->omp_threads};
  char *text = NULL;
  MPITRY(MPI_Bcast(counts, 2, MPI_INT, 0, h->comm));
  TRY(attr_i32(h->file, "/", "mpi_ranks", counts[0]));
  TRY(attr_i32(h->file, "/", "omp_threads", counts[1]));
  for (int i = 0; i < 4; i++) {
    TRY(bcast_str(h->comm, values[i], &text));
    TRY(attr_str(h->file, "/", names[i], text));
    free(text);
    text = NULL;
  }
  TRY(attr_str(h->file, "/", "status", "running"));
done:
  free(text);
  return status;
}

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
  TRY(make_fapl(h, &fapl));
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

int ssw_h5out_create(MPI_Comm comm, const char *path, const ssw_config *cfg,
                     const ssw_h5out_meta *meta, ssw_h5out **out) {
  if (out) *out = NULL;
  SSW_CHECK(out && meta, SSW_ERR_ARG, "NULL handle or meta");
  ssw_h5out *h = NULL;
  int status = agree(comm, handle_new(comm, path, cfg, &h));
  if (status != SSW_SUCCESS) goto done;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  char tmp[4096];
  ssw_h5out_creating_path(path, tmp, sizeof tmp);
  TRY(check_absent(h));
  TRY(agree(h->comm, create_file(h, tmp)));
  TRY(agree(h->comm, make_dxpl(h)));
  TRY(agree(h->comm, create_grid(h, cfg)));
  if (h->samples > 0) TRY(agree(h->comm, create_samples(h)));
  TRY(agree(h->comm, write_config_attrs(h, cfg)));
  TRY(agree(h->comm, write_meta_attrs(h, meta)));
  H5TRY(H5Fflush(h->file, H5F_SCOPE_GLOBAL), "'%s'", tmp);
  TRY(agree(h->comm, publish(h, tmp)));
done:
  if (status != SSW_SUCCESS) {
    ssw_h5out_close(&h);
    return status;
  }
  *out = h;
  return SSW_SUCCESS;
}

/* ---- resume ---------------------------------------------------------- */

/* Quotes the line starting at `line` (at most 60 characters) for messages. */
static void quote_line(const char *line, char *buf, size_t size) {
  if (!*line) {
    snprintf(buf, size, "(end of text)");
    return;
  }
  size_t len = strcspn(line, "\n");
  snprintf(buf, size, "\"%.*s%s\"", (int)(len > 60 ? 60 : len), line,
           len > 60 ? "..." : "");
}

/* A resume compares what the configs mean, not their text (docs/config.md,
 * "What a resume compares"): comments, blank space and the output path may
 * change, values may not. Both texts are parsed (cfg was parsed from its
 * text). A text this build cannot parse is reported by its first differing
 * line. */
static int compare_config(const ssw_h5out *h, const char *stored,
                          const ssw_config *cfg) {
  if (strcmp(stored, cfg->text) == 0) return SSW_SUCCESS;
  ssw_config *old = NULL, *now = NULL;
  if (ssw_config_parse(stored, "the file's config", &old) == SSW_SUCCESS &&
      ssw_config_parse(cfg->text, cfg->path, &now) == SSW_SUCCESS) {
    char why[2600];
    const int differ = ssw_config_compare(old, now, why, sizeof why);
    ssw_config_destroy(&old);
    ssw_config_destroy(&now);
    if (!differ) return SSW_SUCCESS;
    return SSW_RAISE(SSW_ERR_CONFIG,
                     "'%s' was written with a different configuration; "
                     "first difference: %s (use the original config or a new "
                     "output path)",
                     h->path, why);
  }
  ssw_config_destroy(&old);
  const char *a = stored, *b = cfg->text, *la = stored, *lb = cfg->text;
  int line = 1;
  for (; *a && *a == *b; a++, b++)
    if (*a == '\n') line++, la = a + 1, lb = b + 1;
  char qa[80], qb[80];
  quote_line(la, qa, sizeof qa);
  quote_line(lb, qb, sizeof qb);
  return SSW_RAISE(SSW_ERR_CONFIG,
                   "'%s' was written with a different configuration (one this "
                   "build cannot read); first difference at line %d: file has "
                   "%s, config has %s (use the original config or a new "
                   "output path)",
                   h->path, line, qa, qb);
}

/* Opens a dataset and checks its shape against the config's grid. */
static int open_dataset(const ssw_h5out *h, hid_t loc, const char *name,
                        int rank, hid_t *dset) {
  int status = SSW_SUCCESS;
  hid_t space = H5I_INVALID_HID;
  hsize_t dims[SSW_NAXES + 2] = {0};
  int got;
  H5TRY(*dset = H5Dopen2(loc, name, H5P_DEFAULT), "dataset %s in '%s'", name,
        h->path);
  H5TRY(space = H5Dget_space(*dset), "dataset %s", name);
  H5TRY(got = H5Sget_simple_extent_ndims(space), "dataset %s", name);
  if (got == rank) H5Sget_simple_extent_dims(space, dims, NULL);
  if (got != rank || memcmp(dims, h->dims, (size_t)rank * sizeof *dims)) {
    status = SSW_RAISE(SSW_ERR_IO,
                       "dataset %s in '%s' does not have the "
                       "config's grid shape",
                       name, h->path);
  }
done:
  if (space >= 0) H5Sclose(space);
  return status;
}

static int check_identity(ssw_h5out *h, const ssw_config *cfg) {
  int status = SSW_SUCCESS, version = 0;
  char *program = NULL, *stored = NULL;
  hid_t attr = H5I_INVALID_HID;
  htri_t has;
  H5TRY(has = H5Aexists(h->file, "program"), "'%s'", h->path);
  if (has) TRY(attr_read_str(h->file, h->path, "program", &program));
  if (!has || strcmp(program, "sleighsweep") != 0) {
    status =
        SSW_RAISE(SSW_ERR_IO, "'%s' is not a sleighsweep output file", h->path);
    goto done;
  }
  H5TRY(attr = H5Aopen(h->file, "format_version", H5P_DEFAULT), "'%s'",
        h->path);
  H5TRY(H5Aread(attr, H5T_NATIVE_INT, &version), "'%s'", h->path);
  if (version != FORMAT_VERSION) {
    status = SSW_RAISE(SSW_ERR_IO,
                       "'%s' has output format %d, this program "
                       "writes %d (format 2 added adaptive steps and error "
                       "estimates; points of both kinds cannot share a "
                       "file): finish it with the version that started it "
                       "(its git_revision attribute), or write a new file",
                       h->path, version, FORMAT_VERSION);
    goto done;
  }
  TRY(attr_read_str(h->file, h->path, "config", &stored));
  TRY(compare_config(h, stored, cfg));
done:
  if (attr >= 0) H5Aclose(attr);
  free(program);
  free(stored);
  return status;
}

static int open_datasets(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  for (size_t c = 0; c < NCOL; c++)
    TRY(open_dataset(h, h->file, columns[c].name, SSW_NAXES, &h->dset[c]));
  if (h->samples > 0) {
    H5TRY(h->sgroup = H5Gopen2(h->file, "samples", H5P_DEFAULT),
          "group /samples in '%s'", h->path);
    for (int q = 0; q < SSW_SAMPLE_NQ; q++)
      TRY(open_dataset(h, h->sgroup, sample_quantities[q].name, SSW_NAXES + 2,
                       &h->sdset[q]));
  }
done:
  return status;
}

int ssw_h5out_open(MPI_Comm comm, const char *path, const ssw_config *cfg,
                   ssw_h5out **out) {
  SSW_CHECK(out, SSW_ERR_ARG, "NULL handle");
  ssw_h5out *h = NULL;
  hid_t fapl = H5I_INVALID_HID;
  int status = agree(comm, handle_new(comm, path, cfg, &h));
  if (status != SSW_SUCCESS) goto done;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  TRY(agree(h->comm, make_fapl(h, &fapl)));
  H5TRY(h->file = H5Fopen(path, H5F_ACC_RDWR, fapl), "'%s'", path);
  TRY(agree(h->comm, check_identity(h, cfg)));
  TRY(agree(h->comm, open_datasets(h)));
  TRY(agree(h->comm, make_dxpl(h)));
  TRY(agree(h->comm, attr_str(h->file, "/", "status", "running")));
done:
  if (fapl >= 0) H5Pclose(fapl);
  if (status != SSW_SUCCESS) {
    ssw_h5out_close(&h);
    return status;
  }
  *out = h;
  return SSW_SUCCESS;
}

int ssw_h5out_was_running(const char *path) {
  int running = 0;
  char *program = NULL, *status = NULL;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  /* Only our own files: one that does not open, or is not ours, is left to
   * the resume's usual checks (rebuilt, or refused and never deleted). */
  if (f >= 0 && attr_read_str(f, path, "program", &program) == SSW_SUCCESS &&
      strcmp(program, "sleighsweep") == 0)
    running = attr_read_str(f, path, "status", &status) != SSW_SUCCESS ||
              strcmp(status, "running") == 0;
  ssw_error_clear();
  free(program);
  free(status);
  if (f >= 0) H5Fclose(f);
  return running;
}

int ssw_h5out_read_done(ssw_h5out *h, uint8_t *done_mask) {
  SSW_CHECK(h && done_mask, SSW_ERR_ARG, "NULL handle or done array");
  int status = SSW_SUCCESS;
  if (h->rank == 0) {
    /* Independent read by rank 0 alone; the others wait in the bcast. */
    if (H5Dread(h->dset[DONE_COL], H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL,
                H5P_DEFAULT, done_mask) < 0)
      status = h5_fail("H5Dread", __FILE__, __LINE__, __func__,
                       "dataset done in '%s'", h->path);
  }
  TRY(agree(h->comm, status));
  /* Pieces below INT_MAX: the grid may hold 2^31 points. */
  for (uint64_t at = 0; at < h->total; at += (uint64_t)1 << 30) {
    const uint64_t left = h->total - at;
    const int count = (int)(left < ((uint64_t)1 << 30) ? left : 1u << 30);
    MPITRY(MPI_Bcast(done_mask + at, count, MPI_BYTE, 0, h->comm));
  }
done:
  return status;
}

/* ---- writing points -------------------------------------------------- */

typedef struct {
  uint64_t index;
  size_t pos; /* in the caller's arrays */
} order_t;

static int by_index(const void *x, const void *y) {
  const uint64_t a = ((const order_t *)x)->index;
  const uint64_t b = ((const order_t *)y)->index;
  return (a > b) - (a < b);
}

/* Row-major unravel over the grid axes (theta slowest, B fastest). */
static void unravel(const hsize_t *dims, uint64_t index, hsize_t *coord) {
  for (int i = SSW_NAXES - 1; i >= 0; i--) {
    coord[i] = index % dims[i];
    index /= dims[i];
  }
}

/* Sorts the points by flat index (HDF5 walks the file in that order),
 * rejecting indices outside the grid and repeats. */
static int sort_points(const ssw_h5out *h, const ssw_point_result *pts,
                       size_t n, order_t *ord) {
  for (size_t i = 0; i < n; i++)
    ord[i] = (order_t){pts[i].index, i};
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
  for (size_t j = 0; j < n; j++) {
    const char *field = (const char *)&pts[ord[j].pos] + c->offset;
    double d = 1.0;
    long long v = 1;
    if (c->src == SRC_DOUBLE) memcpy(&d, field, sizeof d);
    if (c->src == SRC_INT) {
      int x;
      memcpy(&x, field, sizeof x);
      v = x;
    }
    if (c->src == SRC_INT32) {
      int32_t x;
      memcpy(&x, field, sizeof x);
      v = x;
    }
    switch (c->type) {
    case T_F64: ((double *)buf)[j] = d; break;
    case T_I32: ((int32_t *)buf)[j] = (int32_t)v; break;
    case T_I8: ((int8_t *)buf)[j] = (int8_t)v; break;
    case T_U8: ((uint8_t *)buf)[j] = (uint8_t)v; break;
    }
  }
}

/* File selection of the points' sample blocks: one hyperslab block per run
 * of consecutive indices along the fastest axis, OR-ed in index order. */
static int select_sample_blocks(const ssw_h5out *h, const order_t *ord,
                                size_t n, const hsize_t *coords, hid_t space) {
  int status = SSW_SUCCESS;
  hsize_t start[SSW_NAXES + 2] = {0}, count[SSW_NAXES + 2];
  hsize_t block[SSW_NAXES + 2];
  for (int i = 0; i < SSW_NAXES + 2; i++)
    count[i] = block[i] = 1;
  block[SSW_NAXES] = h->dims[SSW_NAXES];
  block[SSW_NAXES + 1] = h->dims[SSW_NAXES + 1];
  if (n == 0) H5TRY(H5Sselect_none(space), "/samples selection");
  for (size_t j = 0; j < n;) {
    size_t run = 1;
    while (j + run < n && ord[j + run].index == ord[j].index + run &&
           coords[(j + run) * SSW_NAXES + SSW_NAXES - 1] != 0)
      run++;
    memcpy(start, coords + j * SSW_NAXES, SSW_NAXES * sizeof *start);
    block[SSW_NAXES - 1] = run;
    H5TRY(H5Sselect_hyperslab(space, j ? H5S_SELECT_OR : H5S_SELECT_SET, start,
                              NULL, count, block),
          "/samples selection");
    j += run;
  }
done:
  return status;
}

static int write_samples(ssw_h5out *h, const order_t *ord, size_t n,
                         const hsize_t *coords, const double *samples,
                         double *buf) {
  int status = SSW_SUCCESS;
  hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
  const size_t per = (size_t)h->samples * (size_t)h->nodes;
  hsize_t mlen = n ? (hsize_t)(n * per) : 1;
  H5TRY(fspace = H5Screate_simple(SSW_NAXES + 2, h->dims, NULL), "/samples");
  TRY(select_sample_blocks(h, ord, n, coords, fspace));
  H5TRY(mspace = H5Screate_simple(1, &mlen, NULL), "/samples");
  if (n == 0) H5TRY(H5Sselect_none(mspace), "/samples");
  for (int q = 0; q < SSW_SAMPLE_NQ; q++) {
    for (size_t j = 0; j < n; j++)
      memcpy(buf + j * per,
             samples + (ord[j].pos * SSW_SAMPLE_NQ + (size_t)q) * per,
             per * sizeof *buf);
    H5TRY(
        H5Dwrite(h->sdset[q], H5T_NATIVE_DOUBLE, mspace, fspace, h->dxpl, buf),
        "dataset /samples/%s in '%s'", sample_quantities[q].name, h->path);
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
  gather(&columns[c], pts, ord, n, buf);
  H5TRY(H5Dwrite(h->dset[c], mem_type(columns[c].type), mspace, fspace, h->dxpl,
                 buf),
        "dataset %s in '%s'", columns[c].name, h->path);
done:
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
  H5TRY(fspace = H5Screate_simple(SSW_NAXES, h->dims, NULL), "'%s'", h->path);
  if (n)
    H5TRY(H5Sselect_elements(fspace, H5S_SELECT_SET, n, coords),
          "%zu points in '%s'", n, h->path);
  else
    H5TRY(H5Sselect_none(fspace), "'%s'", h->path);
  H5TRY(mspace = H5Screate_simple(1, &mlen, NULL), "'%s'", h->path);
  if (n == 0) H5TRY(H5Sselect_none(mspace), "'%s'", h->path);
  for (size_t c = 0; c < DONE_COL; c++)
    TRY(write_column(h, c, pts, ord, n, mspace, fspace, buf));
  if (h->samples > 0) TRY(write_samples(h, ord, n, coords, samples, buf));
  TRY(write_column(h, DONE_COL, pts, ord, n, mspace, fspace, buf));
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
  const size_t bytes = (n ? n : 1) * (per > 1 ? per : 1) * sizeof(double);
  *ord = malloc((n ? n : 1) * sizeof **ord);
  *coords = malloc((n ? n : 1) * SSW_NAXES * sizeof **coords);
  *buf = malloc(bytes);
  SSW_CHECK(*ord && *coords && *buf, SSW_ERR_MEM,
            "out of memory for %zu points", n);
  SSW_CALL(sort_points(h, pts, n, *ord));
  for (size_t j = 0; j < n; j++)
    unravel(h->dims, (*ord)[j].index, *coords + j * SSW_NAXES);
  return SSW_SUCCESS;
}

int ssw_h5out_write_points(ssw_h5out *h, const ssw_point_result *pts, size_t n,
                           const double *samples) {
  SSW_CHECK(h, SSW_ERR_ARG, "NULL output handle");
  order_t *ord = NULL;
  hsize_t *coords = NULL;
  void *buf = NULL;
  int status = prepare_points(h, pts, n, samples, &ord, &coords, &buf);
  TRY(agree(h->comm, status));
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

int ssw_h5out_finish(ssw_h5out *h, const ssw_h5out_segment *seg) {
  SSW_CHECK(h && seg, SSW_ERR_ARG, "NULL output handle or segment");
  int status = SSW_SUCCESS;
  char *st = NULL, *end = NULL;
  struct {
    double wall;
    uint64_t done;
  } nums = {seg->wall_time_s, seg->points_done};
  MPITRY(MPI_Bcast(&nums, (int)sizeof nums, MPI_BYTE, 0, h->comm));
  TRY(bcast_str(h->comm, seg->status, &st));
  TRY(bcast_str(h->comm, seg->end_time, &end));
  TRY(attr_str(h->file, "/", "end_time", end));
  TRY(attr_f64(h->file, "/", "wall_time_s", nums.wall));
  TRY(attr_u64(h->file, "/", "points_done", nums.done));
  TRY(attr_str(h->file, "/", "status", st));
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
      status =                                                                 \
          h5_fail(#fn, __FILE__, __LINE__, __func__, "%s in '%s'", (what), p); \
    (id) = H5I_INVALID_HID;                                                    \
  } while (0)

int ssw_h5out_close(ssw_h5out **hp) {
  if (!hp || !*hp) return SSW_SUCCESS;
  ssw_h5out *h = *hp;
  int status = SSW_SUCCESS;
  const char *p = h->path ? h->path : "?";
  for (int q = 0; q < SSW_SAMPLE_NQ; q++)
    CLOSE(h->sdset[q], H5Dclose, sample_quantities[q].name);
  CLOSE(h->sdim[0], H5Dclose, "sample");
  CLOSE(h->sdim[1], H5Dclose, "node");
  CLOSE(h->sgroup, H5Gclose, "/samples");
  for (size_t c = 0; c < NCOL; c++)
    CLOSE(h->dset[c], H5Dclose, columns[c].name);
  for (int i = 0; i < SSW_NAXES; i++)
    CLOSE(h->coord[i], H5Dclose, dim_names[i]);
  CLOSE(h->dxpl, H5Pclose, "transfer list");
  CLOSE(h->file, H5Fclose, "file");
  if (h->comm != MPI_COMM_NULL) MPI_Comm_free(&h->comm);
  free(h->path);
  free(h);
  *hp = NULL;
  return status;
}
