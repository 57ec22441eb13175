/* HDF5 output helpers: error plumbing, collective agreement, attribute
 * reading and writing, the handle and its property lists. */
#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5out_internal.h"
#include "sleighsweep/error.h"

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

int ssw_h5_fail(const char *expr, const char *file, int line, const char *func,
                const char *fmt, ...) {
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

/* Makes a local status collective: when any rank failed, every rank returns
 * an error (its own, or else the lowest failing rank's code and message), so
 * no rank enters a collective HDF5 call alone. */
int ssw_h5_agree(MPI_Comm comm, int status) {
  int rank = 0, size = 1, mine, first;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  mine = status != SSW_SUCCESS ? rank : size;
  int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS)
    return status != SSW_SUCCESS
               ? status
               : ssw_mpi_error(rc, "MPI_Allreduce", __FILE__, __LINE__);
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
    return ssw_mpi_error(rc, "MPI_Bcast", __FILE__, __LINE__);
  return SSW_RAISE(msg.code, "rank %d: %s", first, msg.text);
}

/* ---- the handle ------------------------------------------------------ */

int ssw_h5_handle_new(MPI_Comm comm, const char *path, const ssw_config *cfg,
                      ssw_h5out **out) {
  SSW_CHECK(path && cfg && out, SSW_ERR_ARG, "NULL path, config or handle");
  *out = NULL;
  ssw_h5out *h = calloc(1, sizeof *h);
  SSW_CHECK(h, SSW_ERR_MEM, "out of memory for the output handle");
  h->file = h->dxpl = h->sgroup = H5I_INVALID_HID;
  for (int i = 0; i < SSW_NAXES; i++)
    h->coord[i] = H5I_INVALID_HID;
  for (size_t c = 0; c < SSW_H5_NCOL; c++)
    h->dset[c] = H5I_INVALID_HID;
  for (int q = 0; q < SSW_SAMPLE_NQ; q++)
    h->sdset[q] = H5I_INVALID_HID;
  for (int i = 0; i < 3; i++)
    h->sdim[i] = H5I_INVALID_HID;
  for (int i = 0; i < SSW_NAXES; i++)
    h->scoord[i] = H5I_INVALID_HID;
  h->slotdim = H5I_INVALID_HID;
  for (int c = 0; c < SSW_H5_NSLOTCOL; c++)
    h->slotset[c] = H5I_INVALID_HID;
  h->slots = cfg->attractor_slots;
  *out = h;
  const int rc = MPI_Comm_dup(comm, &h->comm);
  if (rc != MPI_SUCCESS) {
    h->comm = MPI_COMM_NULL;
    return ssw_mpi_error(rc, "MPI_Comm_dup", __FILE__, __LINE__);
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
  for (int i = 0; i < SSW_NAXES; i++)
    SSW_CHECK(cfg->axes[i].n >= 1 && cfg->axes[i].values, SSW_ERR_ARG,
              "axis %s has no values", ssw_axis_names[i]);
  /* The file's dimensions: axes of one value beyond the body's are
   * root attributes instead (the flat index is the same either way). */
  h->naxes = ssw_config_file_axes(cfg, h->axis);
  for (int i = 0; i < h->naxes; i++) {
    h->dims[i] = (hsize_t)cfg->axes[h->axis[i]].n;
    h->total *= (uint64_t)h->dims[i];
    SSW_CHECK(h->total <= SSW_GRID_MAX_POINTS, SSW_ERR_ARG,
              "grid larger than %llu points",
              (unsigned long long)SSW_GRID_MAX_POINTS);
  }
  h->samples = cfg->samples;
  h->nodes = cfg->samples > 0 ? cfg->sample_nodes : 0;
  const ssw_sample_points *sel = &cfg->sample_sel;
  h->sel.all = sel->all, h->sel.n = sel->n;
  if (!sel->all && sel->n > 0) {
    h->sel.index = malloc(sel->n * sizeof *sel->index);
    SSW_CHECK(h->sel.index, SSW_ERR_MEM, "out of memory");
    memcpy(h->sel.index, sel->index, sel->n * sizeof *sel->index);
  }
  h->sdims[0] = (hsize_t)h->sel.n;
  h->sdims[1] = (hsize_t)h->samples;
  h->sdims[2] = (hsize_t)h->nodes;
  return SSW_SUCCESS;
}

/* File access: MPI-IO on our communicator; the 1.8 format (readable by
 * HDF5 >= 1.8 and netCDF-4) for creation-order tracking and for attributes
 * larger than 64 KiB (long config texts) in dense storage. */
int ssw_h5_make_fapl(const ssw_h5out *h, hid_t *fapl) {
  int status = SSW_SUCCESS;
  H5TRY(*fapl = H5Pcreate(H5P_FILE_ACCESS), "'%s'", h->path);
  H5TRY(H5Pset_fapl_mpio(*fapl, h->comm, MPI_INFO_NULL), "'%s'", h->path);
  H5TRY(H5Pset_libver_bounds(*fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST), "'%s'",
        h->path);
done:
  return status;
}

int ssw_h5_make_dxpl(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  H5TRY(h->dxpl = H5Pcreate(H5P_DATASET_XFER), "'%s'", h->path);
  H5TRY(H5Pset_dxpl_mpio(h->dxpl, SSW_H5_XFER_MODE), "'%s'", h->path);
done:
  return status;
}

/* ---- attributes ------------------------------------------------------ */

/* Writes (replacing) a scalar or 1-D numeric attribute. */
int ssw_h5_attr_num(hid_t loc, const char *where, const char *name, hid_t ftype,
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
int ssw_h5_attr_str(hid_t loc, const char *where, const char *name,
                    const char *value) {
  int status = SSW_SUCCESS;
  hid_t type = H5I_INVALID_HID;
  const char *v = value ? value : "";
  H5TRY(type = H5Tcopy(H5T_C_S1), "attribute %s of %s", name, where);
  H5TRY(H5Tset_size(type, strlen(v) + 1), "attribute %s of %s", name, where);
  H5TRY(H5Tset_strpad(type, H5T_STR_NULLTERM), "attribute %s of %s", name,
        where);
  H5TRY(H5Tset_cset(type, H5T_CSET_UTF8), "attribute %s of %s", name, where);
  TRY(ssw_h5_attr_num(loc, where, name, type, type, 1, v));
done:
  if (type >= 0) H5Tclose(type);
  return status;
}

int ssw_h5_attr_f64(hid_t loc, const char *where, const char *name, double v) {
  return ssw_h5_attr_num(loc, where, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                         &v);
}

int ssw_h5_attr_i32(hid_t loc, const char *where, const char *name, int v) {
  return ssw_h5_attr_num(loc, where, name, H5T_STD_I32LE, H5T_NATIVE_INT, 1,
                         &v);
}

int ssw_h5_attr_u64(hid_t loc, const char *where, const char *name,
                    uint64_t v) {
  return ssw_h5_attr_num(loc, where, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 1,
                         &v);
}

/* Reads a string attribute (fixed or variable length) into malloc'd text. */
int ssw_h5_attr_read_str(hid_t loc, const char *where, const char *name,
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
