/* Command-line interface: argument parsing, `point` and command dispatch. */
#include "sleighsweep/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "sleighsweep/analytic.h"
#include "sleighsweep/angle.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "sleighsweep/version.h"

int ssw_cli_number(const char *opt, const char *text, int angle, double *out) {
  if (angle) {
    char why[256];
    SSW_CHECK(ssw_angle_parse(text, out, NULL, NULL, why, sizeof why) ==
                  SSW_SUCCESS,
              SSW_ERR_USAGE, "%s: %s", opt, why);
    return SSW_SUCCESS;
  }
  char *end = NULL;
  errno = 0;
  double x = strtod(text, &end);
  /* Underflow to a subnormal or zero is a number (the caller checks what
   * its arithmetic takes); overflow is not. */
  const int ok = end != text && *end == '\0' && isfinite(x) &&
                 (errno == 0 || errno == ERANGE);
  SSW_CHECK(ok, SSW_ERR_USAGE, "%s: '%s' is not a finite number", opt, text);
  *out = x;
  return SSW_SUCCESS;
}

int ssw_cli_bad_option(const char *arg, int c, const struct option *opts) {
  char name[64];
  const char *dashes = strncmp(arg, "--", 2) == 0 ? arg + 2 : arg + 1;
  snprintf(name, sizeof name, "%.*s", (int)strcspn(dashes, "="), dashes);
  SSW_CHECK(c != ':', SSW_ERR_USAGE, "--%s needs a value (see --help)", name);
  for (const struct option *o = opts; o->name; o++)
    SSW_CHECK(!ssw_config_near_miss(name, o->name), SSW_ERR_USAGE,
              "%s: unknown option; did you mean --%s? (see --help)", arg,
              o->name);
  return SSW_RAISE(SSW_ERR_USAGE, "%s: unknown option (see --help)", arg);
}

int ssw_cli_integer(const char *opt, const char *text, long long lo,
                    long long hi, long long *out) {
  char *end = NULL;
  errno = 0;
  long long x = strtoll(text, &end, 10);
  SSW_CHECK(end != text && *end == '\0' && errno == 0 && x >= lo && x <= hi,
            SSW_ERR_USAGE, "%s: '%s' is not an integer in [%lld, %lld]", opt,
            text, lo, hi);
  *out = x;
  return SSW_SUCCESS;
}

int ssw_cli_added_inertia(const char *opt, const char *text, double *k_rot) {
  if (strcmp(text, "papers") == 0) {
    *k_rot = SSW_KROT_PAPERS;
    return SSW_SUCCESS;
  }
  if (strcmp(text, "lamb") == 0) {
    *k_rot = SSW_KROT_LAMB;
    return SSW_SUCCESS;
  }
  SSW_CALL(ssw_cli_number(opt, text, 0, k_rot));
  SSW_CHECK(*k_rot >= 0, SSW_ERR_USAGE,
            "%s: '%s' must be 'papers', 'lamb' or a number >= 0", opt, text);
  return SSW_SUCCESS;
}

static void print_usage(FILE *f) {
  fprintf(f,
          "Usage: sleighsweep COMMAND [OPTIONS]\n"
          "\n"
          "Maps the asymptotic regimes of the hydrodynamic Chaplygin sleigh.\n"
          "\n"
          "Commands:\n"
          "  point    integrate one trajectory and print a JSON object with\n"
          "           the measured quantities beside the closed form\n"
          "  run      run a sweep described by an INI config (under MPI)\n"
          "  status   progress of a sweep from its output file and journals\n"
          "  methods  list the integration schemes\n"
          "\n"
          "Options:\n"
          "  -h, --help     this text ('sleighsweep COMMAND --help' for a "
          "command)\n"
          "  -V, --version  version and git revision\n");
}

static int cmd_methods(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    puts("Usage: sleighsweep methods\n\nLists the integration schemes "
         "(the names --scheme and [integrator] scheme take), with their "
         "order and stages.");
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr,
            "sleighsweep methods: unexpected argument '%s' (see "
            "--help)\n",
            argv[1]);
    return 2;
  }
  int n;
  const ssw_method *t = ssw_method_table(&n);
  for (int i = 0; i < n; i++)
    printf("%-8s order %d, %2d stage(s): %s\n", t[i].name, t[i].order,
           t[i].stages, t[i].description);
  return 0;
}

/* Reports an error raised below as one line on stderr, returns the status. */
int ssw_cli_fail(const char *cmd, int code) {
  fprintf(stderr, "sleighsweep %s: %s\n", cmd, ssw_error_user_message());
  return ssw_error_exit_status(code);
}

int ssw_cli_main(int argc, char **argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
    print_usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
    printf("sleighsweep %s (git %s)\n", ssw_version_string(),
           ssw_version_git());
    return 0;
  }
  if (strcmp(cmd, "point") == 0) return ssw_cli_point(argc - 1, argv + 1);
  if (strcmp(cmd, "run") == 0) return ssw_cli_run(argc - 1, argv + 1);
  if (strcmp(cmd, "status") == 0) return ssw_cli_status(argc - 1, argv + 1);
  if (strcmp(cmd, "methods") == 0) return cmd_methods(argc - 1, argv + 1);
  fprintf(stderr,
          "sleighsweep: unknown command '%s' (expected point, run, status "
          "or methods; see --help)\n",
          cmd);
  return 2;
}
