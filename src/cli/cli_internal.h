/* The commands of the command-line interface (not a public interface);
 * their helpers are in cli_util.h. */
#ifndef SLEIGHSWEEP_CLI_INTERNAL_H
#define SLEIGHSWEEP_CLI_INTERNAL_H

#include <stdio.h>

#include "sleighsweep/config.h"
#include "sleighsweep/forced.h"

/** `sleighsweep point` (argv[0] == "point"). Returns the exit status. */
int ssw_cli_point(int argc, char **argv);
/** `sleighsweep run` (argv[0] == "run"). Returns the exit status. */
int ssw_cli_run(int argc, char **argv);
/** `sleighsweep status` (argv[0] == "status"). Returns the exit status. */
int ssw_cli_status(int argc, char **argv);

/** A JSON member "key": x at full precision (%.17g; null when not
 * finite), followed by ", " when comma (cli_point.c). */
void ssw_cli_json_num(FILE *f, const char *key, double x, int comma);
/** The rest of `point`'s JSON for a forced trajectory, after its header
 * (cli_forced.c). */
void ssw_cli_forced_json(FILE *f, const ssw_tensor *t, const ssw_forced *r);
/** `point --trajectory` under forcing: the forced path's CSV to f (opened
 * on `path`, named in messages), the periods ssw_forced_path_periods
 * gives at the run's steps (cli_forced.c). Errors: as ssw_forced_path,
 * SSW_ERR_IO when writing fails. */
int ssw_cli_forced_csv(FILE *f, const char *path, const ssw_tensor *t,
                       double w0, double v0, const ssw_integrator *o,
                       const ssw_forced *r);

#endif
