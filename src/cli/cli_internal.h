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
/** `sleighsweep status` (argv[0] == "status"). Returns the exit status. */
int ssw_cli_status(int argc, char **argv);

#endif
