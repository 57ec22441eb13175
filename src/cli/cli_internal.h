/* The commands of the command-line interface (not a public interface);
 * their helpers are in cli_util.h. */
#ifndef SLEIGHSWEEP_CLI_INTERNAL_H
#define SLEIGHSWEEP_CLI_INTERNAL_H

#include <stdio.h>

#include "sleighsweep/config.h"

/** `sleighsweep point` (argv[0] == "point"). Returns the exit status. */
int ssw_cli_point(int argc, char **argv);
/** `sleighsweep run` (argv[0] == "run"). Returns the exit status. */
int ssw_cli_run(int argc, char **argv);
/** For `run --dry-run`: the output's absolute path and whether the run
 * would create, overwrite, resume (points done of the total, file and
 * journals together) or find the file complete. Reads only. */
void ssw_cli_print_output_plan(const ssw_config *cfg, int overwrite, FILE *f);
/** `sleighsweep status` (argv[0] == "status"). Returns the exit status. */
int ssw_cli_status(int argc, char **argv);

#endif
