/* `sleighsweep run`: a whole sweep under MPI, from config to HDF5 file. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "cli_internal.h"
#include "sleighsweep/config.h"
#include "sleighsweep/ensemble.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/journal.h"
#include "sleighsweep/schedule.h"

static const char run_usage[] =
    "Usage: [mpirun -np N] sleighsweep run [OPTIONS] CONFIG.ini\n"
    "\n"
    "Runs the sweep described by CONFIG (see README, 'Configuration') and\n"
    "writes one HDF5 file. Rank 0 hands out work and computes too; OpenMP\n"
    "threads (OMP_NUM_THREADS) share each grid point's trajectories.\n"
    "Results do not depend on the number of ranks or threads.\n"
    "\n"
    "If the output file exists and holds an unfinished sweep of the same\n"
    "config, the run resumes it: only points not yet in the file are\n"
    "computed. A file of a different config is refused.\n"
    "\n"
    "Options:\n"
    "  --dry-run    validate, print grid size, trajectories, estimated steps,\n"
    "               core time and output size, and exit\n"
    "  --resume     resume (the default when the output exists; accepted for\n"
    "               job scripts that want to say so)\n"
    "  --overwrite  delete an existing output file (and its journals) first\n"
    "  --output F   write to F instead of the config's [output] file\n"
    "  --quiet      no progress lines\n"
    "  -h, --help   this text\n"
    "\n"
    "Exit status: 0 complete, 2 bad config or command line or the output\n"
    "in use by another run, 3 stopped by SIGTERM/SIGUSR1/SIGINT to any rank\n"
    "with everything finished saved (run again to resume), 1 any other\n"
    "failure. Under mpirun, Ctrl-C gives mpirun's own status 1; the ranks\n"
    "still save (send SIGUSR1 to mpirun for status 3).\n";

typedef struct {
  int dry_run, resume, overwrite, quiet, help;
  const char *config, *output;
} run_opts;

static int parse(int argc, char **argv, run_opts *o) {
  static const struct option opts[] = {{"dry-run", no_argument, 0, 'n'},
                                       {"resume", no_argument, 0, 'r'},
                                       {"overwrite", no_argument, 0, 'o'},
                                       {"quiet", no_argument, 0, 'q'},
                                       {"output", required_argument, 0, 'O'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  opterr = 0;
  optind = 1;
  for (int c; (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1;) {
    switch (c) {
    case 'n': o->dry_run = 1; break;
    case 'r': o->resume = 1; break;
    case 'o': o->overwrite = 1; break;
    case 'q': o->quiet = 1; break;
    case 'O': o->output = optarg; break;
    case 'h': o->help = 1; return SSW_SUCCESS;
    default: return ssw_cli_bad_option(argv[optind - 1], c, opts);
    }
  }
  SSW_CHECK(optind < argc, SSW_ERR_USAGE,
            "missing CONFIG argument (see --help)");
  SSW_CHECK(optind + 1 == argc, SSW_ERR_USAGE, "unexpected argument '%s'",
            argv[optind + 1]);
  SSW_CHECK(!(o->resume && o->overwrite), SSW_ERR_USAGE,
            "--resume and --overwrite contradict each other");
  o->config = argv[optind];
  return SSW_SUCCESS;
}

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
static double output_bytes(const ssw_config *cfg) {
  const double per_point =
      20 * 8 + 4 * 4 + 3 + 1 + 8.0 * (double)ssw_h5out_sample_doubles(cfg);
  return (double)ssw_grid_size(cfg) * per_point + 64e3 + 45 * 8192.0;
}

/* Steps and time per trajectory measured on a few grid points (rank 0). */
/* Probes of the dry run: grid points spread over the whole grid by the
 * golden-ratio sequence (not its corners, which are often the cheapest
 * bodies), trajectories 0..PROBE_TRAJ-1 of each, exactly as the run will
 * integrate them: the step count is deterministic. */
#define PROBE_POINTS 32
#define PROBE_TRAJ 4

static int dry_run(const ssw_config *cfg, int overwrite) {
  const uint64_t n = ssw_grid_size(cfg);
  const int probes = n < PROBE_POINTS ? (int)n : PROBE_POINTS;
  ssw_integrator o;
  ssw_ensemble_integrator(cfg, &o);
  double sum = 0, sum2 = 0, secs = 0;
  int count = 0;
  for (int k = 0; k < probes; k++) {
    const double u = fmod(0.5 + k * 0.6180339887498949, 1.0);
    const uint64_t idx =
        probes == (int)n ? (uint64_t)k : (uint64_t)(u * (double)n) % n;
    ssw_params p;
    ssw_tensor t;
    int regime;
    ssw_grid_params(cfg, idx, &p);
    SSW_CALL(ssw_model_tensor(&cfg->body, &p, &t));
    ssw_model_classify(&t, cfg->zero_tol, &t, &regime);
    double w0[PROBE_TRAJ], v0[PROBE_TRAJ];
    ssw_traj r[PROBE_TRAJ];
    const int m =
        cfg->trajectories < PROBE_TRAJ ? cfg->trajectories : PROBE_TRAJ;
    for (int j = 0; j < m; j++)
      ssw_ensemble_initial(cfg, &t, idx, j, &w0[j], &v0[j]);
    const double t0 = MPI_Wtime();
    SSW_CALL(ssw_extract_batch(&t, regime, m, w0, v0, &o, NULL, NULL, r));
    secs += MPI_Wtime() - t0;
    /* The point's mean, as the file's steps_mean will hold it. */
    double mean = 0;
    for (int j = 0; j < m; j++)
      mean += (double)r[j].steps / m;
    sum += mean, sum2 += mean * mean;
    count += m;
  }
  const double mean = probes ? sum / probes : 0.0;
  const double sd =
      probes > 1 ? sqrt(fmax(0.0, (sum2 - sum * mean) / (probes - 1))) : 0.0;
  const double traj = (double)n * cfg->trajectories;
  const double bytes = output_bytes(cfg);
  printf("config:              %s\n", cfg->path);
  ssw_cli_print_output_plan(cfg, overwrite, stdout);
  printf("grid points:         %llu (", (unsigned long long)n);
  for (int a = 0; a < SSW_NAXES; a++)
    printf("%s%s %d", a ? " x " : "", ssw_axis_names[a], cfg->axes[a].n);
  printf(")\n");
  ssw_config_print_axes(cfg, stdout);
  printf("trajectories:        %d per point, %.6g in all\n", cfg->trajectories,
         traj);
  if (cfg->integ.rtol > 0)
    printf("scheme:              %s, rtol %g (adaptive steps)\n",
           cfg->integ.method->name, cfg->integ.rtol);
  else
    printf("scheme:              %s, eta %g (fixed steps)\n",
           cfg->integ.method->name, cfg->integ.eta);
  if (count > 0) {
    /* The probes' spread: the whole grid's mean lies within about two
     * standard errors of theirs (docs: within a factor 1.5 in the tests). */
    const double se = sd / sqrt((double)probes);
    printf("steps per traj.:     %.0f +- %.0f (mean of %d grid points x %d "
           "trajectories; +- two standard errors)\n",
           mean, 2 * se, probes, count / probes);
    printf("estimated steps:     %.3g (%.3g to %.3g)\n", mean * traj,
           fmax(0.0, mean - 2 * se) * traj, (mean + 2 * se) * traj);
    printf("estimated core time: %.3g core-hours (%.3g s per trajectory "
           "measured here; varies with the machine and its load)\n",
           secs / count * traj / 3600.0, secs / count);
  }
  printf("output size:         %.3g MB\n", bytes / 1e6);
  return SSW_SUCCESS;
}

/* Rank 0 loads and validates; everyone gets the text and parses it, so all
 * ranks hold the identical config whatever their file system sees. */
static int load_config(MPI_Comm comm, int rank, const char *path,
                       ssw_config **cfg) {
  int rc = SSW_SUCCESS;
  long len = 0;
  if (rank == 0) {
    rc = ssw_config_load(path, cfg);
    if (rc == SSW_ERR_IO) rc = SSW_ERR_USAGE; /* a path given by the user */
    if (rc == SSW_SUCCESS) rc = ssw_grid_validate(*cfg);
    if (rc == SSW_SUCCESS) len = (long)strlen((*cfg)->text) + 1;
  }
  SSW_MPI_CALL(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  if (rc != SSW_SUCCESS) return rc;
  SSW_MPI_CALL(MPI_Bcast(&len, 1, MPI_LONG, 0, comm));
  char *text = rank == 0 ? (*cfg)->text : malloc((size_t)len);
  SSW_CHECK(text, SSW_ERR_MEM, "out of memory for the config text");
  rc = MPI_Bcast(text, (int)len, MPI_CHAR, 0, comm);
  if (rank != 0) {
    if (rc == MPI_SUCCESS) rc = ssw_config_parse(text, path, cfg);
    free(text);
  }
  return rc == MPI_SUCCESS ? SSW_SUCCESS
                           : ssw_mpi_error(rc, "MPI_Bcast", __FILE__, __LINE__);
}

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

/* Parallel HDF5 cannot survive a failed write (the ranks stop in different
 * collective calls inside the library), so a new file must fit before it
 * is created. The journals, which do grow, fail cleanly when the disk
 * fills (plain POSIX writes) and the job is aborted with what is durable
 * kept. */
static int check_space(const ssw_config *cfg, const char *dir) {
  struct statvfs fs;
  if (statvfs(dir, &fs) != 0) return SSW_SUCCESS; /* unknown: let it try */
  const double avail = (double)fs.f_bavail * (double)fs.f_frsize;
  const double need = output_bytes(cfg);
  SSW_CHECK(avail >= need, SSW_ERR_CONFIG,
            "[output] file '%s': not enough free space in '%s' (the file "
            "needs about %.3g MB, %.3g MB are free)",
            cfg->file, dir, need / 1e6, avail / 1e6);
  return SSW_SUCCESS;
}

/* The output must not be an input (the config: --overwrite would replace
 * it) nor a symbolic link to nothing (the file would appear elsewhere). */
static int check_output_path(const ssw_config *cfg, const char *config) {
  struct stat out, in;
  if (stat(cfg->file, &out) == 0) {
    SSW_CHECK(stat(config, &in) != 0 || out.st_dev != in.st_dev ||
                  out.st_ino != in.st_ino,
              SSW_ERR_CONFIG,
              "[output] file '%s' is the config file itself: choose another "
              "output path",
              cfg->file);
  } else if (lstat(cfg->file, &out) == 0 && S_ISLNK(out.st_mode)) {
    return SSW_RAISE(SSW_ERR_CONFIG,
                     "[output] file '%s' is a symbolic link to a missing "
                     "file: remove it or point it at an existing directory's "
                     "file",
                     cfg->file);
  }
  return SSW_SUCCESS;
}

/* Rank 0 decides: 1 create a new file, 2 resume the existing one. */
static int output_mode(const ssw_config *cfg, const run_opts *o, int *mode) {
  struct stat st;
  if (stat(cfg->file, &st) == 0) {
    SSW_CHECK(S_ISREG(st.st_mode), SSW_ERR_CONFIG,
              "[output] file '%s' exists and is not a regular file", cfg->file);
    if (o->overwrite) {
      SSW_CHECK(unlink(cfg->file) == 0, SSW_ERR_IO, "cannot remove '%s': %s",
                cfg->file, strerror(errno));
      *mode = 1;
    } else {
      *mode = 2;
    }
    return SSW_SUCCESS;
  }
  /* The directory must be writable, and the file fit, before any work. */
  char dir[4096];
  dir_of(cfg->file, dir, sizeof dir);
  SSW_CHECK(access(dir, W_OK | X_OK) == 0, SSW_ERR_CONFIG,
            "[output] file '%s': directory '%s' is not writable (%s)",
            cfg->file, dir, strerror(errno));
  /* A creation killed earlier left its partial file: it is replaced, so
   * its space counts as free (the run's lock excludes a live creation). */
  char creating[4200];
  ssw_h5out_creating_path(cfg->file, creating, sizeof creating);
  (void)unlink(creating);
  SSW_CALL(check_space(cfg, dir));
  *mode = 1;
  return SSW_SUCCESS;
}

static char *join_args(int argc, char **argv) {
  size_t n = 1;
  for (int i = 0; i < argc; i++)
    n += strlen(argv[i]) + 1;
  char *s = calloc(n, 1);
  for (int i = 0; s && i < argc; i++) {
    strcat(s, argv[i]);
    if (i + 1 < argc) strcat(s, " ");
  }
  return s;
}

static int create_output(MPI_Comm comm, int size, const ssw_config *cfg,
                         int argc, char **argv, ssw_h5out **out) {
  char start[32], host[256] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  iso_time(start, sizeof start);
  gethostname(host, sizeof host - 1);
  MPI_Get_library_version(lib, &len);
  char *cmd = join_args(argc, argv);
  const ssw_h5out_meta meta = {size, omp_get_max_threads(), start, lib, host,
                               cmd};
  const int rc = ssw_h5out_create(comm, cfg->file, cfg, &meta, out);
  free(cmd);
  return rc;
}

/* Whether a file starts with HDF5's signature. A sleighsweep output always
 * does: it gets its name only once complete (ssw_h5out_create). */
static int is_hdf5(const char *path) {
  static const unsigned char sig[8] = {0x89, 'H',  'D',  'F',
                                       '\r', '\n', 0x1a, '\n'};
  unsigned char head[8];
  FILE *f = fopen(path, "rb");
  const int ok = f && fread(head, 1, 8, f) == 8 && memcmp(head, sig, 8) == 0;
  if (f) fclose(f);
  return ok;
}

/* Creates the output, or opens an existing one to resume. A file that no
 * longer opens (its writer was killed mid-write) is recreated when journals
 * exist to refill it; without journals it is refused, never overwritten
 * silently. `have_journals` is rank 0's knowledge. */
static int open_output(MPI_Comm comm, int rank, int size, const ssw_config *cfg,
                       const run_opts *o, int have_journals, int argc,
                       char **argv, ssw_h5out **out) {
  int mode = 0, rc = SSW_SUCCESS;
  if (rank == 0) rc = output_mode(cfg, o, &mode);
  SSW_MPI_CALL(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  if (rc != SSW_SUCCESS) return rc;
  SSW_MPI_CALL(MPI_Bcast(&mode, 1, MPI_INT, 0, comm));
  if (mode == 1) {
    ssw_schedule_watchdog(1);
    rc = create_output(comm, size, cfg, argc, argv, out);
    ssw_schedule_watchdog(0);
    return rc;
  }
  if (rank == 0 && !o->quiet)
    fprintf(stderr, "sleighsweep: resuming %s\n", cfg->file);
  /* A file whose writer was killed may open and yet hold damaged HDF5
   * structures (a flush epoch cut mid-way: seen as "record is not in
   * B-tree" on the next write). The journals hold every point it holds,
   * so such a file is rebuilt from them rather than written into. */
  int stale = rank == 0 && have_journals && is_hdf5(cfg->file) &&
              ssw_h5out_was_running(cfg->file);
  SSW_MPI_CALL(MPI_Bcast(&stale, 1, MPI_INT, 0, comm));
  rc = stale ? SSW_ERR_HDF5 : ssw_h5out_open(comm, cfg->file, cfg, out);
  if (stale) rc = SSW_RAISE(SSW_ERR_HDF5, "left by a run that did not finish");
  if (rc == SSW_SUCCESS || rc == SSW_ERR_CONFIG) return rc;
  /* The reason is raised into the buffer it would be read from: copy it. */
  char why[512];
  snprintf(why, sizeof why, "%s", ssw_error_user_message());
  /* Only a file that does not open (HDF5 errors) is rebuilt: one that
   * opens but is not ours (SSW_ERR_IO), or is not HDF5, is never deleted. */
  int recreate = rank == 0 ? (have_journals ? 1 : 0) : 0;
  if (recreate && (rc != SSW_ERR_HDF5 || !is_hdf5(cfg->file))) recreate = -1;
  SSW_MPI_CALL(MPI_Bcast(&recreate, 1, MPI_INT, 0, comm));
  if (recreate <= 0)
    return SSW_RAISE(SSW_ERR_CONFIG,
                     "[output] file '%s' exists but is not a usable "
                     "sleighsweep output (%s)%s: remove it or pass "
                     "--overwrite",
                     cfg->file, why,
                     recreate < 0 ? "; left untouched"
                                  : " and no journals exist to rebuild it");
  if (rank == 0) {
    fprintf(stderr,
            "sleighsweep: %s is not usable as it is (%s); recreating it "
            "from the journals\n",
            cfg->file, why);
    if (unlink(cfg->file) != 0)
      rc = SSW_RAISE(SSW_ERR_IO, "cannot remove '%s': %s", cfg->file,
                     strerror(errno));
    else
      rc = SSW_SUCCESS;
  }
  SSW_MPI_CALL(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  if (rc != SSW_SUCCESS) return rc;
  return create_output(comm, size, cfg, argc, argv, out);
}

/* Rank 0 keeps the journal records not yet in the file and marks them done;
 * everyone gets the updated mask. Rank 0 reads whole mask chunks so counts
 * stay within MPI's int. */
static int merge_journals(MPI_Comm comm, int rank, const ssw_config *cfg,
                          int quiet, uint8_t *done, ssw_journal_set *set) {
  const uint64_t n = ssw_grid_size(cfg);
  if (rank == 0) {
    ssw_result_buf *b = &set->recs;
    size_t m = 0;
    for (size_t k = 0; k < b->n; k++) {
      const uint64_t i = b->pts[k].index;
      if (done[i]) continue;
      done[i] = 1;
      b->pts[m] = b->pts[k];
      if (b->sdoubles)
        memmove(ssw_result_buf_samples(b, m), ssw_result_buf_samples(b, k),
                b->sdoubles * sizeof *b->samples);
      m++;
    }
    if (!quiet && (set->files > 0 || set->torn > 0))
      fprintf(stderr,
              "sleighsweep: journals: %zu file(s), %zu valid record(s), %zu "
              "point(s) recovered that the output lacked, %zu torn "
              "record(s) skipped\n",
              set->files, b->n, m, set->torn);
    b->n = m;
  }
  for (uint64_t off = 0; off < n; off += (1u << 30)) {
    const int cnt = (int)(n - off < (1u << 30) ? n - off : (1u << 30));
    SSW_MPI_CALL(MPI_Bcast(done + off, cnt, MPI_UNSIGNED_CHAR, 0, comm));
  }
  return SSW_SUCCESS;
}

/* An error on one rank after the (agreed) config phase may leave the others
 * waiting in a collective HDF5 or MPI call: print it and abort the whole
 * job. What is durable (journals, earlier epochs) stays; rerun to resume. */
static void abort_job(MPI_Comm comm, int rank, int rc) {
  fprintf(stderr,
          "sleighsweep run (rank %d): %s; aborting the job (finished work is "
          "kept in the journals: fix the cause and rerun to resume)\n",
          rank, ssw_error_user_message());
  fflush(stderr);
  MPI_Abort(comm, ssw_error_exit_status(rc));
}

/* Config and usage errors are decided identically on every rank (rank 0
 * decides and broadcasts); anything else may have left ranks apart. */
static int needs_abort(int rc) {
  return rc != SSW_SUCCESS && rc != SSW_ERR_CONFIG && rc != SSW_ERR_USAGE;
}

/* Rank 0, before anything is written: checks the output path, takes the
 * output's run lock (a second run of the same output is refused), then
 * clears (--overwrite) or reads the journals. */
static int take_output(const ssw_config *cfg, const run_opts *o, int *lock,
                       ssw_journal_set *journals) {
  SSW_CALL(check_output_path(cfg, o->config));
  char why[512];
  SSW_CALL(ssw_journal_lock(cfg->file, lock, why, sizeof why));
  if (*lock < 0 && !o->quiet && access(cfg->file, F_OK) == 0)
    fprintf(stderr,
            "sleighsweep: warning: %s: a second run of this output at the "
            "same time would not be refused\n",
            why);
  return o->overwrite ? ssw_journal_remove_all(cfg->file)
                      : ssw_journal_read_all(cfg->file, cfg, journals);
}

static int sweep(MPI_Comm comm, const run_opts *o, int argc, char **argv) {
  int rank, size;
  SSW_MPI_CALL(MPI_Comm_rank(comm, &rank));
  SSW_MPI_CALL(MPI_Comm_size(comm, &size));
  ssw_config *cfg = NULL;
  ssw_h5out *out = NULL;
  uint8_t *done = NULL;
  ssw_journal_set journals = {0};
  char start[32];
  iso_time(start, sizeof start);
  int rc = load_config(comm, rank, o->config, &cfg);
  if (rc == SSW_SUCCESS && o->output) {
    char *f = strdup(o->output);
    if (f)
      free(cfg->file), cfg->file = f;
    else
      rc = SSW_RAISE(SSW_ERR_MEM, "out of memory");
  }
  if (rc == SSW_SUCCESS && o->dry_run) {
    if (rank == 0) rc = dry_run(cfg, o->overwrite);
    ssw_config_destroy(&cfg);
    return rc;
  }
  int lock = -1;
  if (rc == SSW_SUCCESS) {
    if (rank == 0) rc = take_output(cfg, o, &lock, &journals);
    SSW_MPI_CALL(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  }
  if (rc == SSW_SUCCESS) {
    rc = open_output(comm, rank, size, cfg, o,
                     journals.files > 0 || journals.torn > 0, argc, argv, &out);
    if (needs_abort(rc)) abort_job(comm, rank, rc);
  }
  if (rc == SSW_SUCCESS) {
    done = malloc(ssw_grid_size(cfg));
    rc = done ? ssw_h5out_read_done(out, done)
              : SSW_RAISE(SSW_ERR_MEM, "out of memory for the done mask");
  }
  if (rc == SSW_SUCCESS)
    rc = merge_journals(comm, rank, cfg, o->quiet, done, &journals);
  ssw_schedule_stats st = {0};
  if (rc == SSW_SUCCESS) {
    rc = ssw_schedule_run(comm, cfg, out, done, rank == 0 ? &journals : NULL,
                          o->quiet, &st);
    if (rc != SSW_SUCCESS) abort_job(comm, rank, rc);
  }
  ssw_journal_set_free(&journals);
  int complete = 0;
  if (rc == SSW_SUCCESS) {
    char end[32];
    iso_time(end, sizeof end);
    complete = st.points_done == ssw_grid_size(cfg);
    const ssw_h5out_segment seg = {start,
                                   end,
                                   complete ? "complete" : "interrupted",
                                   size,
                                   omp_get_max_threads(),
                                   st.points_run,
                                   st.points_done,
                                   st.wall_s};
    rc = ssw_h5out_finish(out, &seg);
    if (rc == SSW_SUCCESS && rank == 0) {
      fprintf(stderr,
              "sleighsweep: %s: %llu of %llu points in %s (%llu computed now "
              "in %.3g s on %d rank(s) x %d thread(s); HDF5 writes and "
              "journal syncs %.3g s = %.2f%% of wall time, %d flush "
              "epoch(s))\n",
              complete ? "complete" : "interrupted",
              (unsigned long long)st.points_done,
              (unsigned long long)ssw_grid_size(cfg), cfg->file,
              (unsigned long long)st.points_run, st.wall_s, size,
              omp_get_max_threads(), st.io_s,
              st.wall_s > 0 ? 100.0 * st.io_s / st.wall_s : 0.0, st.epochs);
      printf("%s\n", cfg->file);
    }
  }
  const int crc = ssw_h5out_close(&out);
  if (rc == SSW_SUCCESS) rc = crc;
  if (needs_abort(rc)) abort_job(comm, rank, rc);
  /* The journals go only once the complete file is closed on every rank.
   * Failing to remove them (a read-only directory) leaves the results
   * complete: say so, and keep exit status 0 for job scripts. */
  if (rc == SSW_SUCCESS && complete) {
    SSW_MPI_CALL(MPI_Barrier(comm));
    if (rank == 0 && ssw_journal_remove_all(cfg->file) != SSW_SUCCESS)
      fprintf(stderr,
              "sleighsweep: warning: the sweep is complete in %s, but %s; "
              "they are no longer needed: remove them by hand\n",
              cfg->file, ssw_error_user_message());
  }
  if (lock >= 0) ssw_journal_unlock(cfg->file, &lock);
  if (rc == SSW_SUCCESS && !complete) rc = SSW_ERR_INTERRUPTED;
  free(done);
  ssw_config_destroy(&cfg);
  return rc;
}

int ssw_cli_run(int argc, char **argv) {
  run_opts o;
  int rc = parse(argc, argv, &o);
  if (rc == SSW_SUCCESS && o.help) {
    fputs(run_usage, stdout);
    return 0;
  }
  if (rc != SSW_SUCCESS) return ssw_cli_fail("run", rc);
  /* Before MPI_Init: a SIGUSR1 (time-limit warning) or SIGTERM arriving
   * while MPI starts, the config loads or the output opens must not kill
   * the rank (exit 138) but give the clean interrupted exit 3. */
  ssw_schedule_install_signals();
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank;
  MPI_Comm_rank(comm, &rank);
  rc = sweep(comm, &o, argc, argv);
  int status = 0;
  if (rc == SSW_ERR_INTERRUPTED) {
    status = ssw_error_exit_status(rc);
    if (rank == 0)
      fprintf(stderr,
              "sleighsweep run: stopped by signal %d; finished points "
              "are saved: run the same command again to resume\n",
              ssw_schedule_signal());
  } else if (rc != SSW_SUCCESS) {
    if (rank == 0 || ssw_error_message()[0])
      status = ssw_cli_fail("run", rc);
    else
      status = ssw_error_exit_status(rc);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return status;
}
