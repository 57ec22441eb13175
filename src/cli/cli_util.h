/* Helpers shared by the command-line modules (not a public interface). */
#ifndef SLEIGHSWEEP_CLI_UTIL_H
#define SLEIGHSWEEP_CLI_UTIL_H

#include <stddef.h>

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

/** The absolute form of `path` (realpath of its directory + its last
 * component; the file need not exist); `path` unchanged when the directory
 * does not resolve. */
void ssw_cli_absolute(const char *path, char *out, size_t n);

#endif
