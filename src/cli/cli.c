/* Command-line interface: usage, `methods` and command dispatch. */
#include "sleighsweep/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/version.h"

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
          "  -V, --version  version, git revision and how OpenMP's idle "
          "threads wait\n");
}

/* How OpenMP's idle threads wait in this process (main.c sets passive
 * where the user set neither variable): the variables libgomp read. */
static void print_wait_policy(void) {
  const char *policy = getenv("OMP_WAIT_POLICY");
  const char *spin = getenv("GOMP_SPINCOUNT");
  if (policy || spin)
    printf("OpenMP wait: %s%s%s%s%s\n", policy ? "OMP_WAIT_POLICY=" : "",
           policy ? policy : "", policy && spin ? ", " : "",
           spin ? "GOMP_SPINCOUNT=" : "", spin ? spin : "");
  else
    printf("OpenMP wait: the OpenMP runtime's default (OMP_WAIT_POLICY "
           "unset)\n");
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
  for (int i = 0; i < n; i++) {
    char caps[128];
    ssw_method_caps_text(t[i].caps, caps, sizeof caps);
    printf("%-8s order %d, %2d stage(s): %s [%s]\n", t[i].name, t[i].order,
           t[i].stages, t[i].description, caps[0] ? caps : "-");
  }
  return 0;
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
    print_wait_policy();
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
