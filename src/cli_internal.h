/* Shared helpers of the command-line modules (not a public interface). */
#ifndef SLEIGHSWEEP_CLI_INTERNAL_H
#define SLEIGHSWEEP_CLI_INTERNAL_H

#include <stdio.h>

#include "sleighsweep/config.h"

/** Strict number of an option value; `angle`: the angle grammar of
 * include/sleighsweep/angle.h (60deg, pi/3, bare radians up to 2 pi).
 * Errors: SSW_ERR_USAGE naming the option. */
int ssw_cli_number(const char *opt, const char *text, int angle, double *out);
struct option;
/** The error for an option getopt_long refused (c == ':' a missing value,
 * with ":" leading the optstring; else unknown, with a did-you-mean among
 * `opts`). Always returns SSW_ERR_USAGE. */
int ssw_cli_bad_option(const char *arg, int c, const struct option *opts);
/** Strict decimal integer in [lo, hi]. Errors: SSW_ERR_USAGE. */
int ssw_cli_integer(const char *opt, const char *text, long long lo,
                    long long hi, long long *out);
/** papers | lamb | number >= 0. Errors: SSW_ERR_USAGE. */
int ssw_cli_added_inertia(const char *opt, const char *text, double *k_rot);
/** Prints "sleighsweep CMD: message" and maps the code to an exit status. */
int ssw_cli_fail(const char *cmd, int code);

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
