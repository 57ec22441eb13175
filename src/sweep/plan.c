/* What a run will do with its output (include/sleighsweep/plan.h): rank 0
 * decides before anything is said or written, and `run --dry-run` says
 * the same. */
#include "sleighsweep/plan.h"
#include "sleighsweep/names.h"

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/h5peek.h"
#include "sleighsweep/sweep.h"

/* The directory part of a path ("." when there is none). */
static void dir_of(const char *path, char *dir, size_t n) {
  snprintf(dir, n, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    slash[1] = '\0';
  else if (slash)
    *slash = '\0';
  else
    snprintf(dir, n, ".");
}

/* The output must not be an input (the config: --overwrite would replace
 * it) nor a symbolic link to nothing (the file would appear elsewhere). */
static int check_output_path(const ssw_config *cfg, const char *config) {
  struct stat out, in;
  if (stat(cfg->file, &out) == 0) {
    SSW_CHECK(!config || stat(config, &in) != 0 || out.st_dev != in.st_dev ||
                  out.st_ino != in.st_ino,
              SSW_ERR_CONFIG,
              "[output] file '%s' is the config file itself: choose another "
              "output path",
              cfg->file);
    SSW_CHECK(S_ISREG(out.st_mode), SSW_ERR_CONFIG,
              "[output] file '%s' exists and is not a regular file (%s)",
              cfg->file,
              S_ISDIR(out.st_mode)    ? "a directory"
              : S_ISFIFO(out.st_mode) ? "a FIFO"
                                      : "a socket or device");
  } else if (lstat(cfg->file, &out) == 0 && S_ISLNK(out.st_mode)) {
    return SSW_RAISE(SSW_ERR_CONFIG,
                     "[output] file '%s' is a symbolic link to a missing "
                     "file: remove it or point it at an existing directory's "
                     "file",
                     cfg->file);
  }
  return SSW_SUCCESS;
}

/* Parallel HDF5 cannot survive a failed write (the ranks stop in different
 * collective calls inside the library), so a new file must fit before it
 * is created. The journals, which do grow, fail cleanly when the disk
 * fills (plain POSIX writes) and the job is aborted with what is durable
 * kept. */
static int check_space(const ssw_config *cfg, const char *dir) {
  struct statvfs fs;
  if (statvfs(dir, &fs) != 0) return SSW_SUCCESS; /* unknown: let it try */
  /* A creation killed earlier left its partial file: the run replaces it,
   * so its space counts as free. */
  char creating[4200];
  struct stat st;
  ssw_h5out_creating_path(cfg->file, creating, sizeof creating);
  const double partial =
      stat(creating, &st) == 0 ? (double)st.st_blocks * 512.0 : 0.0;
  const double avail = (double)fs.f_bavail * (double)fs.f_frsize + partial;
  /* The estimate is within a few percent of the file (test_dry_run): a 5%
   * margin; a disk that fills later is still handled (journals, exit). */
  const double need = 1.05 * ssw_h5out_estimate_bytes(cfg);
  SSW_CHECK(avail >= need, SSW_ERR_CONFIG,
            "[output] file '%s': not enough free space in '%s' (the file "
            "needs about %.3g MB, %.3g MB are free)",
            cfg->file, dir, need / 1e6, avail / 1e6);
  return SSW_SUCCESS;
}

/* A new file is built in the output's directory (and, unless overwritten,
 * must fit there). */
static int check_new(const ssw_config *cfg, int space) {
  char dir[4096];
  dir_of(cfg->file, dir, sizeof dir);
  SSW_CHECK(access(dir, W_OK | X_OK) == 0, SSW_ERR_CONFIG,
            "[output] file '%s': directory '%s' is not writable (%s)",
            cfg->file, dir, strerror(errno));
  return space ? check_space(cfg, dir) : SSW_SUCCESS;
}

/* Every rank appends to its own journal: an existing one must be
 * writable, a missing one creatable. A resume in a read-only directory
 * works when the run that started it left a journal for every rank. */
static int check_journals(const ssw_config *cfg, int ranks) {
  char dir[4096], path[4200];
  dir_of(cfg->file, dir, sizeof dir);
  const int dir_ok = access(dir, W_OK | X_OK) == 0;
  const int dir_errno = errno;
  int have = 0; /* ranks 0 .. have-1 find a writable journal */
  for (int r = 0; r < ranks; r++) {
    ssw_journal_path(cfg->file, r, path, sizeof path);
    const int exists = access(path, F_OK) == 0;
    SSW_CHECK(!exists || access(path, W_OK) == 0, SSW_ERR_CONFIG,
              "[output] file '%s': its journal '%s' is not writable (%s): "
              "make it writable to resume",
              cfg->file, path, strerror(errno));
    if (exists && have == r) have++;
    if (exists || dir_ok) continue;
    char fewer[96] = "";
    if (have > 0)
      snprintf(fewer, sizeof fewer,
               ", or resume with at most %d rank(s) (the journals there)",
               have);
    return SSW_RAISE(SSW_ERR_CONFIG,
                     "[output] file '%s': directory '%s' is not writable "
                     "(%s), and rank %d of this run needs a new journal "
                     "there ('%s'): make the directory writable%s",
                     cfg->file, dir, strerror(dir_errno), r, path, fewer);
  }
  return SSW_SUCCESS;
}

/* A file at the output that is not a usable sleighsweep output is never
 * deleted (only one that does not open, when journals can rebuild it). */
static int unusable(const char *file, const char *why, int journals) {
  return SSW_RAISE(SSW_ERR_CONFIG,
                   "[output] file '%s' exists but is not a usable "
                   "sleighsweep output (%s)%s: remove it or pass --overwrite",
                   file, why,
                   journals ? "; left untouched"
                            : " and no journals exist to rebuild it");
}

/* An existing output whose identity checked out (f open): complete,
 * left by a killed run with journals to rebuild it, or resumable. */
static int plan_ours(const ssw_config *cfg, const ssw_plan_opts *o, ssw_plan *p,
                     const ssw_journal_set *set, hid_t f) {
  char *status = ssw_h5peek_root_str(f, SSW_ATTR_STATUS);
  const int journals = set->files > 0 || set->torn > 0;
  int rc = SSW_SUCCESS;
  /* A killed run may leave a file that opens and yet holds HDF5
   * structures cut mid-write; its journals hold every point it holds. */
  if (journals && (!status || strcmp(status, SSW_STATUS_RUNNING) == 0)) {
    p->kind = SSW_PLAN_REBUILD;
    snprintf(p->why, sizeof p->why, "left by a run that did not finish");
  } else {
    p->kind = SSW_PLAN_RESUME;
    ssw_h5peek_done c;
    if (o->count) rc = ssw_h5peek_count_done(f, p->total, &set->recs, &c);
    if (o->count && rc == SSW_SUCCESS)
      p->in_file = c.in_file, p->in_journals = c.in_journals,
      p->forged = c.forged;
  }
  free(status);
  SSW_CALL(rc);
  SSW_CHECK(p->kind != SSW_PLAN_RESUME || access(cfg->file, W_OK) == 0,
            SSW_ERR_CONFIG,
            "[output] file '%s' is not writable (%s): a resume writes into "
            "it",
            cfg->file, strerror(errno));
  return SSW_SUCCESS;
}

/* Whether a file that checked out is this config's complete sweep: it
 * says so, and every point is done and holds results (a done mask forged
 * or damaged to say more is not believed). */
static int is_complete(hid_t f, uint64_t total) {
  char *status = ssw_h5peek_root_str(f, SSW_ATTR_STATUS);
  ssw_h5peek_done c;
  const int complete = status && strcmp(status, SSW_STATUS_COMPLETE) == 0 &&
                       ssw_h5peek_count_done(f, total, NULL, &c) == 0 &&
                       c.in_file == total;
  free(status);
  ssw_error_clear();
  return complete;
}

/* A file its last run closed (status complete or interrupted) is read
 * back whole before it is trusted (h5peek.h: ssw_h5peek_verify); a file a
 * run left "running" is rebuilt from its journals anyway. */
static void verify(const ssw_config *cfg, hid_t f, ssw_h5peek_verdict *v) {
  char *status = ssw_h5peek_root_str(f, SSW_ATTR_STATUS);
  const int complete = status && strcmp(status, SSW_STATUS_COMPLETE) == 0;
  *v = (ssw_h5peek_verdict){1, 1, ""};
  if (complete || (status && strcmp(status, SSW_STATUS_INTERRUPTED) == 0))
    (void)ssw_h5peek_verify(f, complete && cfg->refine_classes, v);
  free(status);
  ssw_error_clear();
}

/* A damaged file no journal can rebuild: what is lost, what to do. */
static int lost(const char *file, const char *why, uint64_t total) {
  return SSW_RAISE(SSW_ERR_CONFIG,
                   "[output] file '%s' is damaged (%s) and no journals hold "
                   "its points: the %llu points it held are lost unless a "
                   "copy of the file exists (restore it and rerun); remove "
                   "it or pass --overwrite to compute them again",
                   file, why, (unsigned long long)total);
}

/* An existing regular file at the output. */
static int plan_existing(const ssw_config *cfg, const ssw_plan_opts *o,
                         ssw_plan *p, ssw_journal_set *set) {
  const char *file = cfg->file;
  hid_t f = H5I_INVALID_HID;
  char why[600];
  SSW_CHECK(access(file, R_OK) == 0, SSW_ERR_CONFIG,
            "[output] file '%s' exists but is not readable (%s)", file,
            strerror(errno));
  const int hdf5 = ssw_h5peek_hdf5_file(file) == SSW_SUCCESS;
  int rc = hdf5 ? ssw_h5out_check(file, cfg, &f) : SSW_ERR_IO;
  if (rc == SSW_ERR_CONFIG) return rc; /* another config: the message */
  snprintf(why, sizeof why, "%s",
           hdf5 ? ssw_error_user_message() : "not an HDF5 file");
  ssw_h5peek_verdict v = {1, 1, ""};
  if (rc == SSW_SUCCESS) verify(cfg, f, &v);
  if (rc == SSW_SUCCESS && v.boundaries_ok && v.grid_ok &&
      is_complete(f, p->total)) {
    p->kind = SSW_PLAN_COMPLETE;
    H5Fclose(f);
    return SSW_SUCCESS;
  }
  if (!v.grid_ok) { /* read like a file that does not open */
    H5Fclose(f);
    f = H5I_INVALID_HID;
    rc = SSW_ERR_HDF5;
    snprintf(why, sizeof why, "damaged: %s", v.why);
  }
  const int jrc = ssw_journal_read_all(file, cfg, set);
  if (jrc != SSW_SUCCESS) {
    if (f >= 0) H5Fclose(f);
    return jrc;
  }
  p->in_journals = set->recs.n;
  const int journals = set->files > 0 || set->torn > 0;
  if (rc == SSW_SUCCESS) {
    rc = plan_ours(cfg, o, p, set, f);
    H5Fclose(f);
    SSW_CALL(rc);
    if (p->kind == SSW_PLAN_RESUME && !v.boundaries_ok)
      snprintf(p->why, sizeof p->why,
               "%s; the grid reads whole: its refinement is done again", v.why);
  } else if (rc == SSW_ERR_HDF5 && journals) {
    p->kind = SSW_PLAN_REBUILD; /* does not open: the journals refill it */
    snprintf(p->why, sizeof p->why, "%s", why);
  } else if (!v.grid_ok) {
    return lost(file, v.why, p->total);
  } else {
    return unusable(file, why, journals);
  }
  if (p->kind == SSW_PLAN_REBUILD) {
    p->in_file = 0;
    SSW_CALL(check_new(cfg, 0));
  }
  return check_journals(cfg, o->ranks);
}

int ssw_plan_output(const ssw_config *cfg, const ssw_plan_opts *o, ssw_plan *p,
                    ssw_journal_set *journals) {
  memset(p, 0, sizeof *p);
  memset(journals, 0, sizeof *journals);
  p->total = ssw_grid_size(cfg->axes);
  SSW_CALL(check_output_path(cfg, o->config));
  const int exists = access(cfg->file, F_OK) == 0;
  if (o->overwrite) {
    p->kind = exists ? SSW_PLAN_OVERWRITE : SSW_PLAN_CREATE;
    return check_new(cfg, !exists);
  }
  if (exists) return plan_existing(cfg, o, p, journals);
  SSW_CALL(ssw_journal_read_all(cfg->file, cfg, journals));
  p->in_journals = journals->recs.n;
  p->kind = SSW_PLAN_CREATE;
  SSW_CALL(check_new(cfg, 1));
  return check_journals(cfg, o->ranks);
}
