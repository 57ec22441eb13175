/* HDF5 output resume: open an existing file, check that it is ours and
 * was written with the same config and grid, read its done mask; the
 * was-running test of a file left by a killed run. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5out_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/h5peek.h"

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
static int compare_config(const char *path, const char *stored,
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
                     path, why);
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
                   path, line, qa, qb);
}

/* The rtol the file's points were computed with (its rtol attribute) must
 * be the config's: earlier builds ignored a sweep's [integrator] rtol
 * (a bug since fixed), so their files' config text may say another one. */
static int compare_rtol(hid_t file, const char *path, const ssw_config *cfg) {
  int status = SSW_SUCCESS;
  double rtol = 0;
  hid_t attr = H5I_INVALID_HID;
  H5TRY(attr = H5Aopen(file, "rtol", H5P_DEFAULT), "'%s'", path);
  H5TRY(H5Aread(attr, H5T_NATIVE_DOUBLE, &rtol), "'%s'", path);
  if (rtol != cfg->integ.rtol) {
    char in_file[32], in_cfg[32];
    snprintf(in_file, sizeof in_file, "%g", rtol);
    snprintf(in_cfg, sizeof in_cfg, "%g", cfg->integ.rtol);
    if (strcmp(in_file, in_cfg) == 0) { /* they differ past 6 digits */
      snprintf(in_file, sizeof in_file, "%.17g", rtol);
      snprintf(in_cfg, sizeof in_cfg, "%.17g", cfg->integ.rtol);
    }
    status = SSW_RAISE(SSW_ERR_CONFIG,
                       "'%s' was computed with a different configuration; "
                       "first difference: [integrator] rtol: %s in the file "
                       "(its rtol attribute: earlier builds ignored the "
                       "config's rtol), %s in the config (use a new output "
                       "path)",
                       path, in_file, in_cfg);
  }
done:
  if (attr >= 0) H5Aclose(attr);
  return status;
}

/* Opens a dataset and checks its shape against the config's grid. */
static int open_dataset(const ssw_h5out *h, hid_t loc, const char *name,
                        int rank, const hsize_t *want, hid_t *dset) {
  int status = SSW_SUCCESS;
  hid_t space = H5I_INVALID_HID;
  hsize_t dims[SSW_NAXES + 1] = {0};
  int got;
  H5TRY(*dset = H5Dopen2(loc, name, H5P_DEFAULT), "dataset %s in '%s'", name,
        h->path);
  H5TRY(space = H5Dget_space(*dset), "dataset %s", name);
  H5TRY(got = H5Sget_simple_extent_ndims(space), "dataset %s", name);
  if (got == rank) H5Sget_simple_extent_dims(space, dims, NULL);
  if (got != rank || memcmp(dims, want, (size_t)rank * sizeof *dims)) {
    status = SSW_RAISE(SSW_ERR_IO,
                       "dataset %s in '%s' does not have the "
                       "config's grid shape",
                       name, h->path);
  }
done:
  if (space >= 0) H5Sclose(space);
  return status;
}

/* The file is ours (program), of this layout (format_version) and of a
 * config that means the same as cfg. */
static int check_identity(hid_t file, const char *path, const ssw_config *cfg) {
  int status = SSW_SUCCESS, version = 0;
  char *program = NULL, *stored = NULL;
  hid_t attr = H5I_INVALID_HID;
  htri_t has;
  H5TRY(has = H5Aexists(file, SSW_ATTR_PROGRAM), "'%s'", path);
  if (has) TRY(ssw_h5_attr_read_str(file, path, SSW_ATTR_PROGRAM, &program));
  if (!has || strcmp(program, "sleighsweep") != 0) {
    status =
        SSW_RAISE(SSW_ERR_IO, "'%s' is not a sleighsweep output file", path);
    goto done;
  }
  H5TRY(attr = H5Aopen(file, SSW_ATTR_FORMAT_VERSION, H5P_DEFAULT), "'%s'",
        path);
  H5TRY(H5Aread(attr, H5T_NATIVE_INT, &version), "'%s'", path);
  if (version != SSW_H5_FORMAT_VERSION) {
    status = SSW_RAISE(SSW_ERR_IO,
                       "'%s' has output format %d, this program "
                       "writes %d (format 8 adds the attractor census; "
                       "format 6 adds Gamma and energy as "
                       "grid axes, dimensions when swept, and the drag "
                       "datasets; format 5 adds the circulation datasets, "
                       "blade_force_error and error estimates that include "
                       "the stopping tolerance, and keeps /segments as 1-D "
                       "datasets; format 3 keeps sample trajectories at "
                       "chosen grid points only, format 2 added adaptive "
                       "steps and error estimates; points of two formats "
                       "cannot share a file): finish it with the version "
                       "that started it (its git_revision attribute), or "
                       "write a new file",
                       path, version, SSW_H5_FORMAT_VERSION);
    goto done;
  }
  TRY(ssw_h5_attr_read_str(file, path, SSW_ATTR_CONFIG, &stored));
  TRY(compare_config(path, stored, cfg));
  TRY(compare_rtol(file, path, cfg));
done:
  if (attr >= 0) H5Aclose(attr);
  free(program);
  free(stored);
  return status;
}

static int open_datasets(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  for (size_t c = 0; c < SSW_H5_NCOL; c++)
    TRY(open_dataset(h, h->file, ssw_h5_columns[c].name, h->naxes, h->dims,
                     &h->dset[c]));
  hsize_t sdims[SSW_NAXES + 1];
  ssw_h5_slot_dims(h, sdims);
  for (int c = 0; c < SSW_H5_NSLOTCOL; c++)
    TRY(open_dataset(h, h->file, ssw_h5_slot_columns[c].name, h->naxes + 1,
                     sdims, &h->slotset[c]));
  if (ssw_h5_has_samples(h)) {
    H5TRY(h->sgroup = H5Gopen2(h->file, "samples", H5P_DEFAULT),
          "group /samples in '%s'", h->path);
    for (int q = 0; q < SSW_SAMPLE_NQ; q++)
      TRY(open_dataset(h, h->sgroup, ssw_h5_sample_quantities[q].name, 3,
                       h->sdims, &h->sdset[q]));
  }
done:
  return status;
}

int ssw_h5out_open(MPI_Comm comm, const char *path, const ssw_config *cfg,
                   ssw_h5out **out) {
  SSW_CHECK(out, SSW_ERR_ARG, "NULL handle");
  ssw_h5out *h = NULL;
  hid_t fapl = H5I_INVALID_HID;
  int status = ssw_h5_agree(comm, ssw_h5_handle_new(comm, path, cfg, &h));
  if (status != SSW_SUCCESS) goto done;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  TRY(ssw_h5_agree(h->comm, ssw_h5_make_fapl(h, &fapl)));
  H5TRY(h->file = H5Fopen(path, H5F_ACC_RDWR, fapl), "'%s'", path);
  TRY(ssw_h5_agree(h->comm, check_identity(h->file, h->path, cfg)));
  TRY(ssw_h5_agree(h->comm, open_datasets(h)));
  TRY(ssw_h5_agree(h->comm, ssw_h5_make_dxpl(h)));
  TRY(ssw_h5_agree(h->comm, ssw_h5_attr_str(h->file, "/", SSW_ATTR_STATUS,
                                            SSW_STATUS_RUNNING)));
done:
  if (fapl >= 0) H5Pclose(fapl);
  if (status != SSW_SUCCESS) {
    ssw_h5out_close(&h);
    return status;
  }
  *out = h;
  return SSW_SUCCESS;
}

int ssw_h5out_check(const char *path, const ssw_config *cfg, hid_t *file) {
  int status = SSW_SUCCESS;
  hid_t fapl = H5I_INVALID_HID;
  *file = H5I_INVALID_HID;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  H5TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), "'%s'", path);
  /* No file locking: reading takes nothing from a writer's view. */
  H5TRY(H5Pset_file_locking(fapl, 0, 1), "'%s'", path);
  H5TRY(*file = H5Fopen(path, H5F_ACC_RDONLY, fapl), "'%s'", path);
  TRY(check_identity(*file, path, cfg));
done:
  if (fapl >= 0) H5Pclose(fapl);
  if (status != SSW_SUCCESS && *file >= 0) {
    H5Fclose(*file);
    *file = H5I_INVALID_HID;
  }
  return status;
}

int ssw_h5out_read_done(ssw_h5out *h, uint8_t *done_mask, uint64_t *forged) {
  SSW_CHECK(h, SSW_ERR_ARG, "NULL output handle");
  int status = SSW_SUCCESS;
  if (h->rank == 0) {
    /* Independent reads by rank 0 alone, which keeps the mask (one byte
     * per grid point on one rank only); the others wait in the agreement.
     * Points marked done without results are not done (h5peek.h). */
    size_t regime = 0;
    while (strcmp(ssw_h5_columns[regime].name, "regime") != 0)
      regime++;
    ssw_h5peek_done c = {0, 0, 0};
    if (!done_mask)
      status = SSW_RAISE(SSW_ERR_ARG, "NULL done array on rank 0");
    else
      status = ssw_h5peek_read_done(h->dset[SSW_H5_DONE_COL], h->dset[regime],
                                    h->total, done_mask, NULL, &c);
    if (status != SSW_SUCCESS && done_mask)
      status = SSW_RAISE(status, "reading the done mask of '%s': %s", h->path,
                         ssw_error_user_message());
    if (forged) *forged = c.forged;
  }
  return ssw_h5_agree(h->comm, status);
}
