/* Axis values of the [grid] section: a number, a list,
 * linspace(start, stop, n) or logspace(start, stop, n); theta may carry deg or
 * rad; a key with a range (energy) checks every value against it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "sleighsweep/angle.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"

/* Largest number of values on one axis (80 MB of doubles): far above any
 * sensible sweep, low enough that a typo cannot exhaust memory. */
#define AXIS_MAX_VALUES 10000000
/* Largest number of values on all axes together: one axis at the limit
 * and the others as long as a grid of 2^31 points allows. Without it seven
 * long axes cost 560 MB and seconds before the grid size is refused. */
#define GRID_MAX_VALUES (AXIS_MAX_VALUES + 4096)

enum unit { U_NONE, U_DEG, U_RAD };

/* One number of an axis: theta takes the angle grammar (src/config/angle.c) and
 * keeps its number in the user's unit (degrees stay degrees until the
 * value is complete, so linspace steps in whole degrees are exact). */
static int parse_axis_number(const char *text, int angle, double *v, int *unit,
                             char *why, size_t n) {
  char buf[256];
  if (strlen(text) >= sizeof buf) return snprintf(why, n, "too long"), -1;
  char *tok = ssw_cfg_trim(strcpy(buf, text));
  if (!*tok) return snprintf(why, n, "empty value"), -1;
  *unit = U_NONE;
  if (angle) {
    int u;
    if (ssw_angle_parse(tok, NULL, v, &u, why, n) != SSW_SUCCESS) return -1;
    *unit = u == SSW_ANGLE_DEG ? U_DEG : u == SSW_ANGLE_RAD ? U_RAD : U_NONE;
    return 0;
  }
  const size_t len = strlen(tok);
  if ((len > 3 && (strcmp(tok + len - 3, "deg") == 0 ||
                   strcmp(tok + len - 3, "rad") == 0)) ||
      strstr(tok, "pi")) {
    snprintf(why, n,
             "'%.40s': unit suffixes and pi are only allowed on theta "
             "(lengths are plain numbers in body units)",
             tok);
    return -1;
  }
  return ssw_cfg_parse_real(tok, v, why, n) != 0 ? -1 : 0;
}

/* The unit of a value: deg and rad cannot be mixed, and when any number
 * is in degrees every other one must say so too (a bare 0 is 0 in any
 * unit), so that "0.5, 90deg" is refused rather than guessed. Bare numbers
 * and rad are radians. Returns the unit or -1. */
static int common_unit(const int *units, const double *values,
                       char *const *toks, int count, char *why, size_t n) {
  int unit = U_NONE;
  for (int i = 0; i < count; i++) {
    if (units[i] == U_NONE || units[i] == unit) continue;
    if (unit != U_NONE) {
      snprintf(why, n, "mixes deg and rad in one value; use one unit");
      return -1;
    }
    unit = units[i];
  }
  for (int i = 0; unit == U_DEG && i < count; i++)
    if (units[i] == U_NONE && values[i] != 0) {
      snprintf(why, n,
               "%.40s has no unit but other numbers of this value are in "
               "degrees; write deg on every number (a bare 0 is allowed)",
               toks[i]);
      return -1;
    }
  return unit;
}

static double deg_to_rad(double v) { return ssw_angle_deg_to_rad(v); }

static int check_increasing(const double *v, int count, char **toks, char *why,
                            size_t n) {
  for (int i = 1; i < count; i++) {
    if (v[i] > v[i - 1]) continue;
    if (toks)
      snprintf(why, n,
               "entries %d and %d (%.30s, %.30s) are not strictly "
               "increasing; list every value once, in increasing order",
               i, i + 1, toks[i - 1], toks[i]);
    else
      snprintf(why, n,
               "values %d and %d (%.17g, %.17g) are not strictly increasing "
               "(the step is below double precision)",
               i, i + 1, v[i - 1], v[i]);
    return -1;
  }
  return 0;
}

/* "x1, x2, ..." (a single number is a list of one). */
static int parse_list(char *s, int angle, ssw_axis *ax, char *why, size_t n) {
  int count = 1;
  for (const char *c = s; *c; c++)
    count += *c == ',';
  char **toks = malloc((size_t)count * sizeof *toks);
  int *units = calloc((size_t)count, sizeof *units);
  ax->values = malloc((size_t)count * sizeof *ax->values);
  int rc = -1;
  if (!toks || !units || !ax->values) {
    snprintf(why, n, "out of memory");
    goto done;
  }
  for (int i = 0; i < count; i++) {
    char *comma = strchr(s, ',');
    if (comma) *comma = '\0';
    toks[i] = ssw_cfg_trim(s);
    if (!*toks[i]) {
      snprintf(why, n, "entry %d of the list is empty", i + 1);
      goto done;
    }
    if (parse_axis_number(s, angle, &ax->values[i], &units[i], why, n) != 0)
      goto done;
    s = comma ? comma + 1 : s + strlen(s);
  }
  const int unit = common_unit(units, ax->values, toks, count, why, n);
  if (unit < 0) goto done;
  for (int i = 0; unit == U_DEG && i < count; i++)
    ax->values[i] = deg_to_rad(ax->values[i]);
  ax->n = count;
  rc = check_increasing(ax->values, count, toks, why, n);
done:
  free(toks);
  free(units);
  return rc;
}

/* Splits "linspace(start, stop, n)" (or logspace: `name`) and parses its
 * arguments; start and stop stay in the user's unit (*unit). */
static int linspace_args(char *s, const char *name, int angle, double x[2],
                         char *tok[2], int *unit, long long *cnt, char *why,
                         size_t n) {
  char *p = ssw_cfg_trim(s + strlen(name));
  const size_t len = strlen(p);
  if (len < 2 || p[0] != '(' || p[len - 1] != ')')
    return snprintf(why, n, "expected %s(start, stop, n)", name), -1;
  p[len - 1] = '\0';
  char *args[4];
  int count = 0;
  for (char *c = p + 1; c && count < 4; count++) {
    args[count] = c;
    if ((c = strchr(c, ','))) *c++ = '\0';
  }
  if (count != 3)
    return snprintf(why, n, "%s takes 3 arguments (start, stop, n), got %s%d",
                    name, count > 3 ? "at least " : "", count),
           -1;
  int units[2];
  for (int i = 0; i < 2; i++) {
    tok[i] = ssw_cfg_trim(args[i]);
    if (parse_axis_number(args[i], angle, &x[i], &units[i], why, n) != 0)
      return -1;
  }
  if ((*unit = common_unit(units, x, tok, 2, why, n)) < 0) return -1;
  if (ssw_cfg_parse_integer(ssw_cfg_trim(args[2]), 0, cnt, NULL, why, n) != 0 ||
      *cnt < 1 || *cnt > AXIS_MAX_VALUES)
    return snprintf(why, n,
                    "%s count n = '%.30s' must be a whole number from 1 to %d",
                    name, ssw_cfg_trim(args[2]), AXIS_MAX_VALUES),
           -1;
  return 0;
}

/* "linspace(start, stop, n)": n values from start to stop inclusive,
 * computed in the user's unit as start + (stop - start) * i / (n - 1) (exact
 * for whole-number steps such as 5 degrees), the last one exactly stop.
 * "logspace(start, stop, n)" (0 < start): evenly spaced in log10, as
 * 10^(log10 start + (log10 stop - log10 start) i / (n - 1)), which is exact
 * for whole decades (logspace(0.01, 100, 5) is 0.01, 0.1, 1, 10, 100), the
 * first and last exactly start and stop: energies and circulations over
 * decades. */
static int parse_linspace(char *s, const char *name, int angle, ssw_axis *ax,
                          char *why, size_t n) {
  const int geometric = strcmp(name, "logspace") == 0;
  double x[2];
  char *tok[2];
  int unit;
  long long cnt;
  if (geometric && angle)
    return snprintf(why, n,
                    "logspace is for positive axes that span decades; give "
                    "the angle as linspace or a list"),
           -1;
  if (linspace_args(s, name, angle, x, tok, &unit, &cnt, why, n) != 0)
    return -1;
  if (cnt == 1 && x[1] != x[0])
    return snprintf(why, n,
                    "%s with n = 1 needs start == stop (got %.40s and "
                    "%.40s); write a single number instead",
                    name, tok[0], tok[1]),
           -1;
  if (cnt > 1 && !(x[1] > x[0]))
    return snprintf(why, n,
                    "%s needs start < stop (got start = %.40s, stop = "
                    "%.40s); ranges must increase",
                    name, tok[0], tok[1]),
           -1;
  if (geometric && !(x[0] > 0))
    return snprintf(why, n,
                    "logspace needs 0 < start (got start = %.40s): its "
                    "values are evenly spaced in the logarithm",
                    tok[0]),
           -1;
  if (cnt > 1 && !isfinite(x[1] - x[0]))
    return snprintf(why, n,
                    "linspace range from %.40s to %.40s is wider than double "
                    "precision can represent; use a narrower range",
                    tok[0], tok[1]),
           -1;
  ax->values = malloc((size_t)cnt * sizeof *ax->values);
  if (!ax->values) return snprintf(why, n, "out of memory"), -1;
  ax->n = (int)cnt;
  const double l0 = geometric ? log10(x[0]) : 0.0;
  const double l1 = geometric ? log10(x[1]) : 0.0;
  for (int i = 0; i < ax->n; i++) {
    const double den = (double)(ax->n > 1 ? ax->n - 1 : 1);
    const double v = i + 1 == ax->n ? x[1]
                     : i == 0       ? x[0]
                     : geometric ? pow(10.0, l0 + (l1 - l0) * (double)i / den)
                                 : x[0] + (x[1] - x[0]) * (double)i / den;
    ax->values[i] = unit == U_DEG ? deg_to_rad(v) : v;
  }
  return check_increasing(ax->values, ax->n, NULL, why, n);
}

/* An axis value into a fresh ssw_axis (values owned by the caller). */
static int parse_axis(const char *value, int axis, ssw_axis *out, char *why,
                      size_t n) {
  char buf[256];
  out->n = 0;
  out->values = NULL;
  if (strlen(value) >= sizeof buf) return snprintf(why, n, "too long"), -1;
  char *s = ssw_cfg_trim(strcpy(buf, value));
  const int angle = axis == SSW_AXIS_THETA;
  const char *range =
      strncmp(s, "linspace", strlen("linspace")) == 0   ? "linspace"
      : strncmp(s, "logspace", strlen("logspace")) == 0 ? "logspace"
                                                        : NULL;
  int rc = range ? parse_linspace(s, range, angle, out, why, n)
                 : parse_list(s, angle, out, why, n);
  for (int i = 0; rc == 0 && angle && i < out->n; i++)
    if (!(fabs(out->values[i]) <= SSW_THETA_MAX)) {
      snprintf(why, n,
               "%.17g rad (%.10g deg) is outside [-720deg, 720deg]; the "
               "ellipse repeats every 180deg: give the angle modulo 180deg",
               out->values[i], out->values[i] / SSW_THETA_MAX * 720.0);
      rc = -1;
    }
  if (rc != 0) {
    free(out->values);
    out->values = NULL;
  }
  return rc;
}

int ssw_cfg_assign_axis(ssw_config *cfg, const key_spec *k, int line,
                        const char *value, char *why, size_t n) {
  ssw_axis ax;
  if (parse_axis(value, (int)k->offset, &ax, why, n) != 0) return -1;
  for (int i = 0; k->hi > k->lo && i < ax.n; i++)
    if (!(ax.values[i] >= k->lo && ax.values[i] <= k->hi)) {
      snprintf(why, n, "%.17g is out of range: every value must be in [%g, %g]",
               ax.values[i], k->lo, k->hi);
      free(ax.values);
      return -1;
    }
  long long total = ax.n;
  for (int a = 0; a < SSW_NAXES; a++)
    if (a != (int)k->offset) total += cfg->axes[a].n;
  if (total > GRID_MAX_VALUES) {
    free(ax.values);
    snprintf(why, n,
             "the axes would hold %lld values in all, more than the %d "
             "supported (one axis of up to %d values and short others); "
             "use fewer values",
             total, GRID_MAX_VALUES, AXIS_MAX_VALUES);
    return -1;
  }
  ssw_axis *dst = &cfg->axes[k->offset];
  free(dst->values);
  *dst = ax;
  dst->line = line;
  return 0;
}
