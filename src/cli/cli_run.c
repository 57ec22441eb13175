/* `sleighsweep run`: the command line, its usage, the dry run and
 * --print-output; the sweep itself is sweep.c's (ssw_sweep_main). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_internal.h"
#include "cli_util.h"
#include "sleighsweep/config.h"
#include "sleighsweep/ensemble.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/plan.h"
#include "sleighsweep/point.h"
#include "sleighsweep/preview.h"
#include "sleighsweep/runlock.h"
#include "sleighsweep/signals.h"
#include "sleighsweep/sweep.h"

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
    "computed. A file of a different config is refused. A file holding\n"
    "this config's complete sweep is left as it is (exit status 0).\n"
    "\n"
    "The output is the config's [output] file (a relative path is taken\n"
    "from the config file's directory) or --output F (a relative F is taken\n"
    "from the current directory, like any path on the command line).\n"
    "\n"
    "Options:\n"
    "  --dry-run    validate, print grid size, trajectories, estimated steps,\n"
    "               core time and output size, and exit\n"
    "  --resume     resume (the default when the output exists; accepted for\n"
    "               job scripts that want to say so)\n"
    "  --overwrite  delete an existing output file (and its journals) first\n"
    "  --output F   write to F instead of the config's [output] file\n"
    "  --print-output\n"
    "               print the output file's absolute path (as the run would\n"
    "               use it: [output] file or --output) and exit; starts no\n"
    "               MPI (job scripts use it to find the output and its log)\n"
    "  --quiet      no progress lines\n"
    "  -h, --help   this text\n"
    "\n"
    "Exit status: 0 complete, 2 bad config or command line or the output\n"
    "in use by another run, 3 stopped by SIGTERM/SIGUSR1/SIGINT to any rank\n"
    "with everything finished saved (run again to resume), 1 any other\n"
    "failure. Under mpirun, Ctrl-C gives mpirun's own status 1; the ranks\n"
    "still save (send SIGUSR1 to mpirun for status 3).\n";

typedef struct {
  int dry_run, resume, overwrite, quiet, help, print_output;
  const char *config, *output;
} run_opts;

static int parse(int argc, char **argv, run_opts *o) {
  static const struct option opts[] = {{"dry-run", no_argument, 0, 'n'},
                                       {"resume", no_argument, 0, 'r'},
                                       {"overwrite", no_argument, 0, 'o'},
                                       {"quiet", no_argument, 0, 'q'},
                                       {"output", required_argument, 0, 'O'},
                                       {"print-output", no_argument, 0, 'P'},
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
    case 'P': o->print_output = 1; break;
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

/* Steps and time per trajectory measured on a few grid points (rank 0). */
static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Probes of the dry run: grid points spread over the whole grid by the
 * golden-ratio sequence (not its corners, which are often the cheapest
 * bodies), trajectories 0..PROBE_TRAJ-1 of each, exactly as the run will
 * integrate them: the step count is deterministic. */
#define PROBE_POINTS 32
#define PROBE_TRAJ 4

/* What the run would do with its output: the run's own decision
 * (src/sweep/plan.c), a refusal included, and whether another run holds it. */
static void print_plan(const ssw_config *cfg, const ssw_sweep_opts *so,
                       int ranks) {
  char abs[8300], holder[256], lock[4200];
  long pid;
  ssw_cli_absolute(cfg->file, abs, sizeof abs);
  printf("output:              %s\n", abs);
  const char *would = "the run would:      ";
  if (ssw_runlock_probe(cfg->file, &pid, holder, sizeof holder, lock,
                        sizeof lock) == 1) {
    printf("%s refuse to start (exit status 2): the output is in use by "
           "another run (%s; lock '%s')\n",
           would, holder[0] ? holder : "holder unknown", lock);
    return;
  }
  const ssw_plan_opts po = {so->config, so->overwrite, ranks, 1};
  ssw_plan p;
  ssw_journal_set set;
  const int rc = ssw_plan_output(cfg, &po, &p, &set);
  ssw_journal_set_free(&set);
  const unsigned long long total = p.total, file = p.in_file,
                           jour = p.in_journals, done = file + jour;
  if (rc != SSW_SUCCESS)
    printf("%s refuse to start (exit status %d): %s\n", would,
           ssw_error_exit_status(rc), ssw_error_user_message());
  else if (p.kind == SSW_PLAN_COMPLETE)
    printf("%s find it complete (%llu points): nothing to compute\n", would,
           total);
  else if (p.kind == SSW_PLAN_RESUME)
    printf("%s resume it: %llu of %llu points done (%llu in the file, %llu "
           "in journals), %llu to compute\n",
           would, done, total, file, jour, total - done);
  else if (p.kind == SSW_PLAN_REBUILD)
    printf("%s rebuild it from its journals (%s): %llu of %llu points "
           "done, %llu to compute\n",
           would, p.why, jour, total, total - jour);
  else if (p.kind == SSW_PLAN_OVERWRITE)
    printf("%s overwrite it\n", would);
  else if (jour)
    printf("%s create it and refill %llu point(s) from its journals\n", would,
           jour);
  else
    printf("%s create it\n", would);
  ssw_error_clear();
}

/* The grid check: every point, or on a large grid a sub-grid of it, with
 * the time the run's check of every point will take. */
static void print_check(const ssw_config *cfg, const ssw_preview_check *c) {
  const uint64_t n = ssw_grid_size(cfg);
  if (c->checked == n) {
    printf("grid check:          every point valid\n");
    return;
  }
  printf("grid check:          %llu of %llu points valid (every axis's ends "
         "and evenly spaced values); the run checks every point before it "
         "starts (about %.0f s here)\n",
         (unsigned long long)c->checked, (unsigned long long)n,
         c->seconds / (double)c->checked * (double)n);
}

static int dry_run(const ssw_config *cfg, const ssw_sweep_opts *so, int ranks) {
  ssw_preview_check check;
  SSW_CALL(ssw_preview_validate(cfg, &check));
  const uint64_t n = ssw_grid_size(cfg);
  const int probes = n < PROBE_POINTS ? (int)n : PROBE_POINTS;
  ssw_ensemble_spec sp;
  ssw_config_ensemble(cfg, &sp);
  const ssw_integrator o = sp.integ;
  double sum = 0, sum2 = 0, secs = 0;
  int count = 0;
  for (int k = 0; k < probes; k++) {
    const double u = fmod(0.5 + k * 0.6180339887498949, 1.0);
    const uint64_t idx =
        probes == (int)n ? (uint64_t)k : (uint64_t)(u * (double)n) % n;
    ssw_params p;
    ssw_point pt;
    ssw_grid_params(cfg, idx, &p);
    SSW_CALL(ssw_point_setup(&cfg->body, &p, cfg->zero_tol, o.method, &pt));
    double w0[PROBE_TRAJ], v0[PROBE_TRAJ];
    ssw_traj r[PROBE_TRAJ];
    const int m =
        cfg->trajectories < PROBE_TRAJ ? cfg->trajectories : PROBE_TRAJ;
    for (int j = 0; j < m; j++)
      ssw_ensemble_initial(&sp, &pt.tensor, idx, j, &w0[j], &v0[j]);
    const double t0 = seconds();
    SSW_CALL(ssw_point_trajectories(&pt, m, w0, v0, &o, NULL, NULL, r));
    secs += seconds() - t0;
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
  const double bytes = ssw_h5out_estimate_bytes(cfg);
  printf("config:              %s\n", cfg->path);
  print_plan(cfg, so, ranks);
  printf("grid points:         %llu (", (unsigned long long)n);
  for (int a = 0; a < SSW_NAXES; a++)
    printf("%s%s %d", a ? " x " : "", ssw_axis_names[a], cfg->axes[a].n);
  printf(")\n");
  ssw_config_print_axes(cfg, stdout);
  print_check(cfg, &check);
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
  if (cfg->samples > 0)
    printf("sample paths:        %d per point at %zu of %llu grid points "
           "([output] sample_points), %d rows each\n",
           (int)cfg->samples, cfg->sample_sel.n, (unsigned long long)n,
           (int)cfg->sample_nodes);
  return SSW_SUCCESS;
}

/* --print-output: the config's output path (or --output's), absolute,
 * without MPI. */
static int print_output(const run_opts *o) {
  ssw_config *cfg = NULL;
  int rc = ssw_config_load(o->config, &cfg);
  if (rc == SSW_ERR_IO) rc = SSW_ERR_USAGE; /* a path given by the user */
  if (rc != SSW_SUCCESS) return rc;
  char abs[8300];
  ssw_cli_absolute(o->output ? o->output : cfg->file, abs, sizeof abs);
  printf("%s\n", abs);
  ssw_config_destroy(&cfg);
  return SSW_SUCCESS;
}

/* The sweep's exit status, with its message: rank 0's, or that of a rank
 * that raised an error of its own. A refusal (config, usage) is agreed on
 * every rank: rank 0 alone says it. */
static int report(int rc, const ssw_sweep_end *end) {
  if (rc == SSW_SUCCESS) return 0;
  if (rc == SSW_ERR_INTERRUPTED) {
    if (end->rank == 0)
      fprintf(stderr,
              "sleighsweep run: stopped by signal %d; finished points "
              "are saved: run the same command again to resume\n",
              end->signal);
    return ssw_error_exit_status(rc);
  }
  const int agreed = rc == SSW_ERR_CONFIG || rc == SSW_ERR_USAGE;
  if (end->rank == 0 || (!agreed && ssw_error_message()[0]))
    return ssw_cli_fail("run", rc);
  return ssw_error_exit_status(rc);
}

int ssw_cli_run(int argc, char **argv) {
  run_opts o;
  int rc = parse(argc, argv, &o);
  if (rc == SSW_SUCCESS && o.help) {
    fputs(run_usage, stdout);
    return 0;
  }
  if (rc == SSW_SUCCESS && o.print_output) rc = print_output(&o);
  if (rc != SSW_SUCCESS) return ssw_cli_fail("run", rc);
  if (o.print_output) return 0;
  /* --output is relative to the current directory: made absolute here, as
   * the config's [output] file is by the config loader. */
  char output[8300];
  if (o.output) ssw_cli_absolute(o.output, output, sizeof output);
  /* Before MPI_Init: a SIGUSR1 (time-limit warning) or SIGTERM arriving
   * while MPI starts, the config loads or the output opens must not kill
   * the rank (exit 138) but give the clean interrupted exit 3. (A SIGUSR1
   * to mpirun before it has started the ranks is Open MPI's: README,
   * "Signals".) */
  ssw_signals_install();
  const ssw_sweep_opts so = {
      o.config, o.output ? output : NULL,  o.resume, o.overwrite, o.quiet, argc,
      argv,     o.dry_run ? dry_run : NULL};
  ssw_sweep_end end = {0, 0};
  rc = ssw_sweep_main(&so, &end);
  return report(rc, &end);
}
