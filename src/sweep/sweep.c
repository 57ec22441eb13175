/* A sweep's whole life under MPI (include/sleighsweep/sweep.h): config
 * broadcast -> the output's lock and journals (rank 0) -> create or resume
 * the file -> the done set (rank 0) with the journals merged in -> the
 * schedule -> the segment record -> journal removal and unlock. */
#include "sleighsweep/sweep.h"
#include "sleighsweep/names.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/h5peek.h"
#include "sleighsweep/journal.h"
#include "sleighsweep/mpi_util.h"
#include "sleighsweep/plan.h"
#include "sleighsweep/refine_run.h"
#include "sleighsweep/runlock.h"
#include "sleighsweep/schedule.h"
#include "sleighsweep/signals.h"

/* One sweep: what every rank holds, and rank 0's share. */
typedef struct {
  MPI_Comm comm;
  int rank, size;
  const ssw_sweep_opts *o;
  ssw_config *cfg;
  ssw_h5out *out;
  uint8_t *done;            /* the done set: rank 0 only */
  ssw_journal_set journals; /* records recovered: rank 0 only */
  ssw_plan plan;            /* what the run does with the output: rank 0 */
  ssw_runlock lock;         /* the output's run lock: rank 0 */
  int signal;               /* the stop signal that ended the refinement */
  uint64_t recovered;       /* points taken from journals the file lacked */
  size_t journals_files;    /* how many journals held them */
  uint64_t done_before;     /* ... and the points done with them: rank 0 */
  char recovered_end[32];   /* the journals' last write (ISO 8601 UTC) */
  char start[32];           /* when this run started (ISO 8601 UTC) */
  double t0;                /* ... in MPI_Wtime seconds */
} sweep;

static void iso_time(char *buf, size_t n) {
  const time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Size of a new output: the datasets are allocated (and filled) at
 * creation, so the file does not grow with results. Per point: 20 float64,
 * 4 int32, 3 int8, 1 uint8 (docs/output.md) and the samples; plus HDF5's
 * object headers (about 8 KiB per dataset, ~45 datasets) and a margin. */

/* ---- config ------------------------------------------------------- */

/* Rank 0 loads and validates; everyone gets the text and parses it, so all
 * ranks hold the identical config whatever their file system sees. */
static int load_config(sweep *s) {
  int rc = SSW_SUCCESS;
  if (s->rank == 0) {
    rc = ssw_config_load(s->o->config, &s->cfg);
    if (rc == SSW_ERR_IO) rc = SSW_ERR_USAGE; /* a path given by the user */
    /* A dry run checks the grid its own, quicker way (preview.h). */
    if (rc == SSW_SUCCESS && !s->o->dry_run) rc = ssw_grid_validate(s->cfg);
  }
  SSW_CALL(ssw_mpi_agree(s->comm, rc));
  char *text = NULL;
  SSW_CALL(
      ssw_mpi_bcast_str(s->comm, s->rank == 0 ? s->cfg->text : NULL, &text));
  if (s->rank != 0) rc = ssw_config_parse(text, s->o->config, &s->cfg);
  free(text);
  if (rc == SSW_SUCCESS && s->o->output) {
    char *f = strdup(s->o->output);
    SSW_CHECK(f, SSW_ERR_MEM, "out of memory");
    free(s->cfg->file);
    s->cfg->file = f;
  }
  return rc;
}

/* ---- the output: lock, plan, journals (rank 0) -------------------- */

/* Rank 0, before anything is written or said: takes the output's run lock
 * (a second run of the same output is refused), decides what the run does
 * with the output (src/sweep/plan.c: any refusal comes here, as one message)
 * and prepares it: --overwrite removes the old file and journals, a creation
 * the partial file of a killed one. The journals' records are kept. */
static int take_output(sweep *s) {
  const ssw_config *cfg = s->cfg;
  char why[512];
  SSW_CALL(ssw_runlock_take(cfg->file, &s->lock, why, sizeof why));
  const ssw_plan_opts po = {s->o->config, s->o->overwrite, s->size, 0};
  SSW_CALL(ssw_plan_output(cfg, &po, &s->plan, &s->journals));
  const int kind = s->plan.kind;
  if (why[0] && !s->o->quiet && kind != SSW_PLAN_CREATE &&
      kind != SSW_PLAN_COMPLETE)
    fprintf(stderr,
            "sleighsweep: warning: %s: a second run of this output at the "
            "same time would not be refused\n",
            why);
  if (kind == SSW_PLAN_OVERWRITE) {
    SSW_CALL(ssw_journal_remove_all(cfg->file));
    SSW_CHECK(unlink(cfg->file) == 0, SSW_ERR_IO, "cannot remove '%s': %s",
              cfg->file, strerror(errno));
  }
  if (kind == SSW_PLAN_CREATE || kind == SSW_PLAN_OVERWRITE) {
    char creating[4200];
    ssw_h5out_creating_path(cfg->file, creating, sizeof creating);
    (void)unlink(creating); /* a killed creation's partial file */
  }
  return SSW_SUCCESS;
}

/* ---- create or resume the file (collective) ----------------------- */

static char *join_args(int argc, char **argv) {
  size_t n = 1;
  for (int i = 0; i < argc; i++)
    n += strlen(argv[i]) + 1;
  char *str = calloc(n, 1);
  for (int i = 0; str && i < argc; i++) {
    strcat(str, argv[i]);
    if (i + 1 < argc) strcat(str, " ");
  }
  return str;
}

static int create_output(sweep *s) {
  char host[256] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  gethostname(host, sizeof host - 1);
  MPI_Get_library_version(lib, &len);
  char *cmd = join_args(s->o->argc, s->o->argv);
  const ssw_h5out_meta meta = {
      s->size, omp_get_max_threads(), s->start, lib, host, cmd};
  ssw_watchdog(1);
  const int rc =
      ssw_h5out_create(s->comm, s->cfg->file, s->cfg, &meta, &s->out);
  ssw_watchdog(0);
  free(cmd);
  /* A new file (a new inode): the identity lock moves to it. */
  if (rc == SSW_SUCCESS && s->rank == 0) {
    char why[512];
    ssw_runlock_follow(s->cfg->file, &s->lock, why, sizeof why);
    if (why[0] && !s->o->quiet)
      fprintf(stderr,
              "sleighsweep: warning: %s: a second run through "
              "another name of the new file would not be refused\n",
              why);
  }
  return rc;
}

/* Deletes the output (rank 0) and creates it again; the journals, which
 * hold every point it held, refill it. */
static int rebuild_output(sweep *s, const char *why) {
  int rc = SSW_SUCCESS;
  if (s->rank == 0) {
    fprintf(stderr,
            "sleighsweep: %s is not usable as it is (%s); recreating it "
            "from the journals\n",
            s->cfg->file, why);
    if (unlink(s->cfg->file) != 0)
      rc = SSW_RAISE(SSW_ERR_IO, "cannot remove '%s': %s", s->cfg->file,
                     strerror(errno));
  }
  SSW_CALL(ssw_mpi_agree(s->comm, rc));
  return create_output(s);
}

/* The parallel open failed where rank 0's serial look had not (HDF5
 * errors): the file is rebuilt when journals exist to refill it; one that
 * is not ours (SSW_ERR_IO), or is not HDF5, is never deleted, nor one
 * without journals. `why` says what failed. */
static int recreate_output(sweep *s, int rc, const char *why) {
  const char *file = s->cfg->file;
  const int have_journals = s->journals.files > 0 || s->journals.torn > 0;
  int recreate = s->rank == 0 && have_journals ? 1 : 0;
  if (recreate && (rc != SSW_ERR_HDF5 || ssw_h5peek_hdf5_file(file) != 0))
    recreate = -1;
  ssw_error_clear();
  SSW_CALL(ssw_mpi_bcast_int(s->comm, &recreate));
  if (recreate <= 0)
    return SSW_RAISE(SSW_ERR_CONFIG,
                     "[output] file '%s' exists but is not a usable "
                     "sleighsweep output (%s)%s: remove it or pass "
                     "--overwrite",
                     file, why,
                     recreate < 0 ? "; left untouched"
                                  : " and no journals exist to rebuild it");
  return rebuild_output(s, why);
}

/* Creates the output, rebuilds or resumes it, as rank 0 planned. */
static int open_output(sweep *s) {
  int mode = s->plan.kind;
  SSW_CALL(ssw_mpi_bcast_int(s->comm, &mode));
  if (mode == SSW_PLAN_CREATE || mode == SSW_PLAN_OVERWRITE)
    return create_output(s);
  if (mode == SSW_PLAN_REBUILD) return rebuild_output(s, s->plan.why);
  if (s->rank == 0 && s->plan.why[0]) /* a damage repaired: always said */
    fprintf(stderr, "sleighsweep: %s: %s\n", s->cfg->file, s->plan.why);
  else if (s->rank == 0 && !s->o->quiet)
    fprintf(stderr, "sleighsweep: resuming %s\n", s->cfg->file);
  const int rc = ssw_h5out_open(s->comm, s->cfg->file, s->cfg, &s->out);
  if (rc == SSW_SUCCESS || rc == SSW_ERR_CONFIG) return rc;
  /* The reason is raised into the buffer it would be read from: copy it. */
  char why[512];
  snprintf(why, sizeof why, "%s", ssw_error_user_message());
  return recreate_output(s, rc, why);
}

/* ---- the done set (rank 0) ---------------------------------------- */

/* When the journals were last written: the end of the run that wrote
 * them (rank 0). */
static void journals_end(sweep *s) {
  time_t newest = 0;
  struct stat st;
  char path[4200];
  for (int r = 0; r < 65536; r++) {
    ssw_journal_path(s->cfg->file, r, path, sizeof path);
    if (stat(path, &st) != 0) break;
    if (st.st_mtime > newest) newest = st.st_mtime;
  }
  struct tm tm;
  gmtime_r(&newest, &tm);
  strftime(s->recovered_end, sizeof s->recovered_end, "%Y-%m-%dT%H:%M:%SZ",
           &tm);
}

/* Rank 0 keeps the journal records not yet in the file and marks them
 * done; they are written in the schedule's first epoch. */
static void merge_journals(sweep *s) {
  ssw_journal_set *set = &s->journals;
  ssw_result_buf *b = &set->recs;
  size_t m = 0;
  for (size_t k = 0; k < b->n; k++) {
    const uint64_t i = b->pts[k].index;
    if (s->done[i]) continue;
    s->done[i] = 1;
    b->pts[m] = b->pts[k];
    if (b->sdoubles)
      memmove(ssw_result_buf_samples(b, m), ssw_result_buf_samples(b, k),
              b->sdoubles * sizeof *b->samples);
    m++;
  }
  if (!s->o->quiet && (set->files > 0 || set->torn > 0))
    fprintf(stderr,
            "sleighsweep: journals: %zu file(s), %zu valid record(s), %zu "
            "point(s) recovered that the output lacked, %zu torn "
            "record(s) skipped\n",
            set->files, b->n, m, set->torn);
  b->n = m;
  s->recovered = m;
  s->journals_files = set->files;
  for (uint64_t i = 0; i < ssw_grid_size(s->cfg->axes); i++)
    s->done_before += s->done[i];
  journals_end(s);
}

/* The done set: the file's mask, read by rank 0, with the journals'
 * points added. Collective (the read is). */
static int read_done_set(sweep *s) {
  int rc = SSW_SUCCESS;
  if (s->rank == 0) { /* workers hold none of it */
    s->done = malloc(ssw_grid_size(s->cfg->axes));
    if (!s->done) rc = SSW_RAISE(SSW_ERR_MEM, "out of memory for the done set");
  }
  /* Every rank enters the collective read; rank 0 without its array makes
   * it fail on every rank (its own message, out of memory, is kept). */
  uint64_t forged = 0;
  const int rrc = ssw_h5out_read_done(s->out, s->done, &forged);
  if (rc == SSW_SUCCESS) rc = rrc;
  if (rc == SSW_SUCCESS && forged > 0 && s->rank == 0)
    fprintf(stderr,
            "sleighsweep: warning: %llu point(s) of %s are marked done but "
            "hold no results (fill values: a damaged or edited done mask); "
            "they are computed again\n",
            (unsigned long long)forged, s->cfg->file);
  if (rc == SSW_SUCCESS && s->rank == 0) merge_journals(s);
  return rc;
}

/* ---- the end ------------------------------------------------------ */

/* An error on one rank after the (agreed) config phase may leave the others
 * waiting in a collective HDF5 or MPI call: print it and abort the whole
 * job. What is durable (journals, earlier epochs) stays; rerun to resume. */
static void abort_job(const sweep *s, int rc) {
  char note[600] = "";
  if (s->cfg)
    ssw_h5out_disk_note(s->cfg->file, ssw_h5out_space_needed(s->cfg), note,
                        sizeof note);
  fprintf(stderr,
          "sleighsweep run (rank %d): %s%s%s; aborting the job (finished work "
          "is kept in the journals: fix the cause and rerun to resume)\n",
          s->rank, ssw_error_user_message(), note[0] ? "; " : "", note);
  fflush(stderr);
  MPI_Abort(s->comm, ssw_error_exit_status(rc));
}

/* Config and usage errors are decided identically on every rank (rank 0
 * decides and broadcasts); anything else may have left ranks apart. */
static int needs_abort(int rc) {
  return rc != SSW_SUCCESS && rc != SSW_ERR_CONFIG && rc != SSW_ERR_USAGE;
}

/* Points the journals gave back were computed by runs that never recorded
 * them (killed, or their final save failed): one row says so, before this
 * run's, so that every point is in some row. Collective. */
static int record_recovered(sweep *s) {
  uint64_t n = s->recovered;
  SSW_MPI_CALL(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, s->comm));
  if (n == 0) return SSW_SUCCESS;
  const ssw_h5out_segment seg = {"",
                                 s->recovered_end,
                                 SSW_STATUS_INTERRUPTED,
                                 (int)s->journals_files,
                                 0,
                                 n,
                                 s->done_before,
                                 0.0};
  return ssw_h5out_record_recovered(s->out, &seg);
}

/* Records this run's segment in the file and reports it (rank 0). */
static int finish(sweep *s, const ssw_schedule_stats *st, int complete) {
  SSW_CALL(record_recovered(s));
  char end[32];
  iso_time(end, sizeof end);
  const ssw_h5out_segment seg = {s->start,
                                 end,
                                 complete ? SSW_STATUS_COMPLETE
                                          : SSW_STATUS_INTERRUPTED,
                                 s->size,
                                 omp_get_max_threads(),
                                 st->points_run,
                                 st->points_done,
                                 MPI_Wtime() - s->t0};
  SSW_CALL(ssw_h5out_finish(s->out, &seg));
  if (s->rank != 0) return SSW_SUCCESS;
  const ssw_config *cfg = s->cfg;
  fprintf(stderr,
          "sleighsweep: %s: %llu of %llu points in %s (%llu computed now "
          "in %.3g s on %d rank(s) x %d thread(s); HDF5 writes and "
          "journal syncs %.3g s = %.2f%% of wall time, %d flush "
          "epoch(s))%s\n",
          seg.status, (unsigned long long)st->points_done,
          (unsigned long long)ssw_grid_size(cfg->axes), cfg->file,
          (unsigned long long)st->points_run, st->wall_s, s->size,
          omp_get_max_threads(), st->io_s,
          st->wall_s > 0 ? 100.0 * st->io_s / st->wall_s : 0.0, st->epochs,
          /* Said here too: under mpirun the SIGKILL that follows its
           * SIGTERM often ends the ranks before cli_run.c's last line. */
          complete ? "" : "; saved: run the same command again to resume");
  printf("%s\n", cfg->file);
  return SSW_SUCCESS;
}

/* The journals go only once the complete file is closed on every rank.
 * Failing to remove them (a read-only directory) leaves the results
 * complete: say so, and keep exit status 0 for job scripts. */
static int remove_journals(const sweep *s) {
  SSW_MPI_CALL(MPI_Barrier(s->comm));
  if (s->rank == 0 && ssw_journal_remove_all(s->cfg->file) != SSW_SUCCESS)
    fprintf(stderr,
            "sleighsweep: warning: the sweep is complete in %s, but %s; "
            "they are no longer needed: remove them by hand\n",
            s->cfg->file, ssw_error_user_message());
  return SSW_SUCCESS;
}

/* ---- the whole life ----------------------------------------------- */

/* Rank 0 takes the output; a complete sweep of this config needs nothing:
 * said once, the file untouched. *noop then set on every rank. */
static int claim_output(sweep *s, int *noop) {
  int rc = SSW_SUCCESS;
  if (s->rank == 0) rc = take_output(s);
  SSW_CALL(ssw_mpi_agree(s->comm, rc));
  *noop = s->rank == 0 && s->plan.kind == SSW_PLAN_COMPLETE;
  SSW_CALL(ssw_mpi_bcast_int(s->comm, noop));
  if (*noop && s->rank == 0) {
    fprintf(stderr,
            "sleighsweep: %s is already complete (%llu points); nothing to "
            "do\n",
            s->cfg->file, (unsigned long long)ssw_grid_size(s->cfg->axes));
    printf("%s\n", s->cfg->file);
  }
  return SSW_SUCCESS;
}

/* Opens the output, fills the done set and runs the schedule; every error
 * past the config phase that may leave ranks apart aborts the job. */
static int compute(sweep *s, ssw_schedule_stats *st) {
  int rc = open_output(s);
  if (needs_abort(rc)) abort_job(s, rc);
  if (rc == SSW_SUCCESS) rc = read_done_set(s);
  if (needs_abort(rc)) abort_job(s, rc);
  if (rc == SSW_SUCCESS) {
    rc = ssw_schedule_run(s->comm, s->cfg, s->out, s->done,
                          s->rank == 0 ? &s->journals : NULL, s->o->quiet, st);
    if (rc != SSW_SUCCESS) abort_job(s, rc);
  }
  return rc;
}

static int run(sweep *s) {
  s->t0 = MPI_Wtime();
  int rc = load_config(s);
  if (rc == SSW_SUCCESS && s->o->dry_run) {
    if (s->rank == 0) rc = ssw_sweep_dry_run(s->cfg, s->o, s->size);
    return rc;
  }
  int noop = 0;
  if (rc == SSW_SUCCESS) rc = claim_output(s, &noop);
  if (rc != SSW_SUCCESS || noop) return rc;
  ssw_schedule_stats st = {0};
  rc = compute(s, &st);
  free(s->done);
  s->done = NULL;
  ssw_result_buf_free(&s->journals.recs); /* in the file: the edges wait */
  int complete = st.points_done == ssw_grid_size(s->cfg->axes);
  /* Before the status says complete: a run killed or stopped while
   * refining resumes a complete grid and solves the edges its journals
   * lack, to the same /boundaries. */
  if (rc == SSW_SUCCESS && complete && s->cfg->refine_classes) {
    ssw_refine_stats rs;
    rc = ssw_refine_sweep(s->comm, s->cfg, s->out,
                          s->rank == 0 ? &s->journals : NULL, s->o->quiet, &rs);
    if (rc != SSW_SUCCESS) abort_job(s, rc);
    s->signal = rs.signal;
    complete = !rs.signal; /* stopped: "interrupted", resumable */
  }
  ssw_journal_set_free(&s->journals);
  if (rc == SSW_SUCCESS) rc = finish(s, &st, complete);
  const int crc = ssw_h5out_close(&s->out);
  if (rc == SSW_SUCCESS) rc = crc;
  if (needs_abort(rc)) abort_job(s, rc);
  if (rc == SSW_SUCCESS && complete) rc = remove_journals(s);
  if (rc == SSW_SUCCESS && !complete) rc = SSW_ERR_INTERRUPTED;
  return rc;
}

/* MPI with at least MPI_THREAD_FUNNELED (OpenMP threads never call MPI,
 * the main thread does), and a private communicator returning errors. */
static int start_mpi(const ssw_sweep_opts *o, sweep *s) {
  int provided = MPI_THREAD_SINGLE, argc = o->argc;
  char **argv = o->argv;
  SSW_MPI_CALL(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  SSW_MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &s->comm));
  MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
  SSW_MPI_CALL(MPI_Comm_rank(s->comm, &s->rank));
  SSW_MPI_CALL(MPI_Comm_size(s->comm, &s->size));
  SSW_CHECK(provided >= MPI_THREAD_FUNNELED, SSW_ERR_MPI,
            "the MPI library gives thread support level %d, below "
            "MPI_THREAD_FUNNELED (%d) which the OpenMP threads need: use an "
            "MPI built with thread support",
            provided, MPI_THREAD_FUNNELED);
  return SSW_SUCCESS;
}

int ssw_sweep_main(const ssw_sweep_opts *o, ssw_sweep_end *end) {
  sweep s = {.comm = MPI_COMM_NULL, .o = o};
  ssw_runlock_init(&s.lock);
  iso_time(s.start, sizeof s.start);
  int rc = start_mpi(o, &s);
  if (rc == SSW_SUCCESS) rc = run(&s);
  ssw_runlock_release(&s.lock);
  end->rank = s.rank;
  end->signal = s.signal ? s.signal : ssw_schedule_signal();
  ssw_config_destroy(&s.cfg);
  if (s.comm != MPI_COMM_NULL) MPI_Comm_free(&s.comm);
  int inited = 0;
  MPI_Initialized(&inited);
  if (inited) MPI_Finalize();
  return rc;
}
