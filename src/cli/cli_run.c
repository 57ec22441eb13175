/* `sleighsweep run`: the command line, its usage and --print-output; the
 * sweep and its dry run are the library's (sweep.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "cli_util.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
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
              "(and refined edges) are saved: run the same command again "
              "to resume\n",
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
  const ssw_sweep_opts so = {o.config, o.output ? output : NULL,
                             o.resume, o.overwrite,
                             o.quiet,  argc,
                             argv,     o.dry_run};
  ssw_sweep_end end = {0, 0};
  rc = ssw_sweep_main(&so, &end);
  return report(rc, &end);
}
