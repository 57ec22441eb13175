/* Helpers of the command-line modules: strict option values, option
 * errors, the error line, absolute paths. A leaf: calls no command. */
#include "cli_util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/angle.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/model.h"

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

/* Reports an error raised below as one line on stderr, returns the status. */
int ssw_cli_fail(const char *cmd, int code) {
  fprintf(stderr, "sleighsweep %s: %s\n", cmd, ssw_error_user_message());
  return ssw_error_exit_status(code);
}

void ssw_cli_absolute(const char *path, char *out, size_t n) {
  char dir[4096], real[4096];
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  if (slash == path)
    snprintf(dir, sizeof dir, "/");
  else if (slash)
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  else
    snprintf(dir, sizeof dir, ".");
  if (realpath(dir, real))
    snprintf(out, n, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
  else
    snprintf(out, n, "%s", path);
}
