/* Sweep configuration: INI parsing (libinih), defaults and validation. */
#define _XOPEN_SOURCE 700 /* strdup, M_PI */
#include "sleighsweep/config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/angle.h"
#include "sleighsweep/error.h"

const char *const ssw_axis_names[SSW_NAXES] = {"theta", "a", "b", "r",
                                               "s",     "A", "B"};

/* Largest number of values on one axis (80 MB of doubles): far above any
 * sensible sweep, low enough that a typo cannot exhaust memory. */
#define AXIS_MAX_VALUES 10000000
/* Largest number of values on all axes together: one axis at the limit
 * and the others as long as a grid of 2^31 points allows. Without it seven
 * long axes cost 560 MB and seconds before the grid size is refused. */
#define GRID_MAX_VALUES (AXIS_MAX_VALUES + 4096)
/* Largest config file accepted by ssw_config_load. */
#define MAX_FILE_BYTES (16u << 20)

/* Kinds of values; each has one parser below. */
enum kind {
  K_REAL,   /* finite double in [lo, hi] (lo excluded when lo_open) */
  K_INT32,  /* decimal integer in [lo, hi] */
  K_INT64,  /* decimal integer >= lo */
  K_SEED,   /* unsigned 64-bit decimal integer */
  K_BOOL,   /* true|false|yes|no|1|0 */
  K_AXIS,   /* number, list or linspace(start, stop, n) */
  K_KROT,   /* papers | lamb | number >= 0 */
  K_SCHEME, /* ssw_method_find */
  K_RECON,  /* ssw_recon_find */
  K_IC,     /* random | lattice */
  K_FILE,   /* non-empty path */
  K_UNIT,   /* a unit symbol (letters), into a char[32] field */
};

/* One key: where it lives, its default written as the user would write it
 * (REQUIRED: none; COMPUTED: derived after parsing), its kind and range. */
typedef struct {
  const char *section, *name, *def;
  int kind;
  size_t offset; /* field of ssw_config (axis index for K_AXIS) */
  double lo, hi;
  int lo_open;
  const char *help; /* what the key means, for messages */
} key_spec;

#define REQUIRED NULL
#define COMPUTED ""
#define STR(x) #x
#define XSTR(x) STR(x)
#define F(field) offsetof(ssw_config, field)
#define INF HUGE_VAL
/* clang-format off */
static const key_spec keys[] = {
  {"body", "m", REQUIRED, K_REAL, F(body.m), 0, INF, 1, "body mass"},
  {"body", "I0", REQUIRED, K_REAL, F(body.I0), 0, INF, 0,
   "body moment of inertia about its centre of mass"},
  {"body", "rho", REQUIRED, K_REAL, F(body.rho), 0, INF, 0, "fluid density"},
  {"body", "added_inertia", "papers", K_KROT, F(body.k_rot), 0, INF, 0,
   "rotational added-inertia constant k_rot"},
  {"body", "zero_tol", XSTR(SSW_ZERO_TOL_DEFAULT), K_REAL, F(zero_tol), 0,
   1e-3, 0, "relative tolerance for exact zeros of L1 and Z"},
  {"body", "length_unit", COMPUTED, K_UNIT, F(length_unit), 0, 0, 0,
   "unit of every length, for the file's units attributes (e.g. m)"},
  {"body", "mass_unit", COMPUTED, K_UNIT, F(mass_unit), 0, 0, 0,
   "unit of every mass, for the file's units attributes (e.g. kg)"},
  {"grid", "theta", REQUIRED, K_AXIS, 0, 0, 0, 0, "blade angle"},
  {"grid", "a", REQUIRED, K_AXIS, 1, 0, 0, 0, "centre of mass along the blade"},
  {"grid", "b", "0", K_AXIS, 2, 0, 0, 0, "centre of mass across the blade"},
  {"grid", "r", "0", K_AXIS, 3, 0, 0, 0, "ellipse centre along the blade"},
  {"grid", "s", "0", K_AXIS, 4, 0, 0, 0, "ellipse centre across the blade"},
  {"grid", "A", REQUIRED, K_AXIS, 5, 0, 0, 0, "major semi-axis"},
  {"grid", "B", REQUIRED, K_AXIS, 6, 0, 0, 0, "minor semi-axis"},
  {"ensemble", "trajectories", "16", K_INT32, F(trajectories), 1, 1e7, 0,
   "number of trajectories per grid point"},
  {"ensemble", "seed", "1", K_SEED, F(seed), 0, 0, 0, "random-number key"},
  {"ensemble", "initial", "random", K_IC, F(ic), 0, 0, 0,
   "initial conditions"},
  {"ensemble", "energy", "0.5", K_REAL, F(energy), SSW_ENERGY_MIN,
   SSW_ENERGY_MAX, 0, "energy H of every trajectory"},
  {"integrator", "scheme", SSW_SCHEME_DEFAULT, K_SCHEME, F(integ.method), 0,
   0, 0, "method"},
  {"integrator", "reconstruction", "exp", K_RECON, F(integ.recon), 0, 0, 0,
   "path reconstruction"},
  {"integrator", "rtol", COMPUTED, K_REAL, F(integ.rtol), SSW_RTOL_MIN,
   SSW_RTOL_MAX, 1, "relative accuracy of every result"},
  {"integrator", "eta", COMPUTED, K_REAL, F(integ.eta), 0, 2, 1,
   "fixed dimensionless step (instead of rtol)"},
  {"integrator", "tol", COMPUTED, K_REAL, F(integ.tol), 0, 1e-2, 1,
   "convergence tolerance"},
  {"integrator", "max_steps", XSTR(SSW_MAX_STEPS_DEFAULT), K_INT64,
   F(integ.max_steps), 100, INF, 0, "cap on steps per direction"},
  {"integrator", "tail", "true", K_BOOL, F(integ.tail), 0, 0, 0,
   "exponential tail correction"},
  {"integrator", "error_estimate", "true", K_BOOL, F(integ.estimate), 0, 0,
   0, "error estimate by a second, coarser run"},
  {"output", "file", COMPUTED, K_FILE, F(file), 0, 0, 0, "output HDF5 file"},
  {"output", "samples", "0", K_INT32, F(samples), 0, 64, 0,
   "number of sample trajectories kept per point"},
  {"output", "sample_nodes", "256", K_INT32, F(sample_nodes), 2, 1e5, 0,
   "number of nodes per sample trajectory"},
  {"output", "flush_interval", "120", K_REAL, F(flush_interval),
   SSW_FLUSH_INTERVAL_MIN, INF, 0,
   "time in seconds between durability points"},
  {"run", "work_unit", "0", K_INT32, F(work_unit), 0, 1e6, 0,
   "number of grid points per work unit (0: automatic)"},
  {"run", "progress_interval", "10", K_REAL, F(progress_interval), 0, INF, 1,
   "time in seconds between progress lines"},
};
/* clang-format on */
#undef F
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

static const char *const sections[] = {"body",       "grid",   "ensemble",
                                       "integrator", "output", "run"};
#define NSECTIONS ((int)(sizeof sections / sizeof sections[0]))

/* Parser state shared by the line reader and the key handler. */
typedef struct {
  const char *name;    /* label of messages (the path) */
  const char *text;    /* whole text */
  const char *pos;     /* reader position */
  int line;            /* line just returned by the reader */
  int indented;        /* that line starts with a blank */
  int headers;         /* lines so far that look like a [section] header */
  int err;             /* first error raised (0: none) */
  int err_line;        /* its line */
  ssw_config *cfg;     /* being filled */
  int set_line[NKEYS]; /* line that set each key (0: not set) */
} parse_state;

/* ---------------------------------------------------------------------- */
/* Messages                                                               */

/* Records the first error as "NAME:LINE: [section] key: what". Later errors
 * are ignored: the first one is what the user should fix. */
__attribute__((format(printf, 5, 6))) static int fail(parse_state *st, int line,
                                                      const char *section,
                                                      const char *key,
                                                      const char *fmt, ...) {
  if (st->err) return st->err;
  char what[768], where[160] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const int has_sec = section && *section, has_key = key && *key;
  if (has_sec || has_key)
    snprintf(where, sizeof where, "%s%.40s%s%s%.60s:", has_sec ? " [" : "",
             has_sec ? section : "", has_sec ? "]" : "", has_key ? " " : "",
             has_key ? key : "");
  st->err =
      SSW_RAISE(SSW_ERR_CONFIG, "%s:%d:%s %s", st->name, line, where, what);
  st->err_line = line;
  return st->err;
}

/* Optimal-string-alignment distance (edits and adjacent swaps), for
 * "did you mean" hints; long strings are never near misses. */
static int edit_distance(const char *s, const char *t) {
  enum { L = 40 };
  const int n = (int)strlen(s), m = (int)strlen(t);
  if (n >= L || m >= L) return L;
  int d[L + 1][L + 1];
  for (int i = 0; i <= n; i++)
    d[i][0] = i;
  for (int j = 0; j <= m; j++)
    d[0][j] = j;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= m; j++) {
      const int cost = s[i - 1] != t[j - 1];
      int v = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && s[i - 1] == t[j - 2] && s[i - 2] == t[j - 1] &&
          d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m];
}

/* A near miss: the same letters in another case, or at most two edits and
 * fewer edits than the candidate has letters (so "x" does not suggest
 * "m"). */
static int near_miss(const char *typed, const char *candidate) {
  size_t i = 0;
  while (typed[i] && tolower((unsigned char)typed[i]) ==
                         tolower((unsigned char)candidate[i]))
    i++;
  if (!typed[i] && !candidate[i]) return 1; /* differs only in case */
  const int d = edit_distance(typed, candidate);
  return d <= 2 && d < (int)strlen(candidate);
}

int ssw_config_near_miss(const char *typed, const char *candidate) {
  return typed && candidate && near_miss(typed, candidate);
}

/* Comma-separated list of the keys of a section into buf. */
static void section_keys(const char *section, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < NKEYS && used < size; k++)
    if (strcmp(keys[k].section, section) == 0)
      used += (size_t)snprintf(buf + used, size - used, "%s%s",
                               used ? ", " : "", keys[k].name);
}

/* ---------------------------------------------------------------------- */
/* Scalar values                                                          */

static char *trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

/* A hint appended to "not a number" messages. */
static const char *number_hint(const char *tok) {
  if (strchr(tok, '#')) return " (inline comments start with ' ;', not '#')";
  const char *t = tok + (*tok == '-' || *tok == '+');
  if (strncmp(t, "nan", 3) == 0 || strncmp(t, "inf", 3) == 0 ||
      strncmp(t, "NAN", 3) == 0 || strncmp(t, "INF", 3) == 0)
    return " (values must be finite numbers)";
  if (strncmp(t, "0x", 2) == 0 || strncmp(t, "0X", 2) == 0)
    return " (write decimal numbers, not hexadecimal)";
  int blank = 0;
  for (const char *c = tok; *c; c++) {
    if (isalpha((unsigned char)*c) && *c != 'e' && *c != 'E') return "";
    blank |= isspace((unsigned char)*c);
  }
  return blank ? " (separate list entries with commas)" : "";
}

/* Strict decimal floating-point number: the whole token, finite; nan, inf
 * and hexadecimal floats are rejected. */
static int parse_real(const char *tok, double *v, char *why, size_t n) {
  if (!*tok) return snprintf(why, n, "empty number"), -1;
  if (strspn(tok, "0123456789+-.eE") != strlen(tok) ||
      !(isdigit((unsigned char)tok[0]) || strchr("+-.", tok[0]))) {
    snprintf(why, n, "'%.40s' is not a decimal number%s", tok,
             number_hint(tok));
    return -1;
  }
  char *end;
  errno = 0;
  const double x = strtod(tok, &end);
  if (end == tok || *end != '\0') {
    snprintf(why, n, "'%.40s' is not a number", tok);
    return -1;
  }
  if (!isfinite(x)) {
    snprintf(why, n, "'%.40s' is out of the range of double precision", tok);
    return -1;
  }
  *v = x + 0.0; /* -0 becomes +0 */
  return 0;
}

/* Strict decimal integer with optional sign (or digits only if unsigned). */
static int parse_integer(const char *tok, int is_unsigned, long long *sv,
                         unsigned long long *uv, char *why, size_t n) {
  const char *digits = tok + (!is_unsigned && (*tok == '-' || *tok == '+'));
  if (!*digits || strspn(digits, "0123456789") != strlen(digits)) {
    snprintf(why, n, "'%.40s' is not a %s decimal integer%s", tok,
             is_unsigned ? "non-negative" : "whole", number_hint(tok));
    return -1;
  }
  errno = 0;
  if (is_unsigned)
    *uv = strtoull(tok, NULL, 10);
  else
    *sv = strtoll(tok, NULL, 10);
  if (errno == ERANGE) {
    snprintf(why, n, "'%.40s' is too large (at most %s)", tok,
             is_unsigned ? "18446744073709551615" : "9223372036854775807");
    return -1;
  }
  return 0;
}

/* "> 0", "in [0, 0.001]", ... */
static void describe_range(const key_spec *k, char *buf, size_t n) {
  if (isinf(k->hi))
    snprintf(buf, n, "%s %.15g", k->lo_open ? ">" : ">=", k->lo);
  else
    snprintf(buf, n, "in %c%.15g, %.15g]", k->lo_open ? '(' : '[', k->lo,
             k->hi);
}

static int in_range(const key_spec *k, double x) {
  return (k->lo_open ? x > k->lo : x >= k->lo) && x <= k->hi;
}

/* [body] added_inertia = papers | lamb | number >= 0. */
static int parse_krot(ssw_config *cfg, const char *v, char *why, size_t n) {
  double x;
  if (strcmp(v, "papers") == 0) {
    cfg->body.k_rot = SSW_KROT_PAPERS;
  } else if (strcmp(v, "lamb") == 0) {
    cfg->body.k_rot = SSW_KROT_LAMB;
  } else if (parse_real(v, &x, why, n) == 0 && x >= 0) {
    cfg->body.k_rot = x;
    strcpy(cfg->k_rot_name, "custom");
    return 0;
  } else {
    snprintf(why, n,
             "'%.40s' is not valid; expected papers (k_rot = 1/4), lamb "
             "(k_rot = 1/8) or a number >= 0",
             v);
    return -1;
  }
  strcpy(cfg->k_rot_name, v);
  return 0;
}

static int parse_scheme(ssw_config *cfg, const char *v, char *why, size_t n) {
  cfg->integ.method = ssw_method_find(v);
  if (cfg->integ.method) return 0;
  int count;
  const ssw_method *t = ssw_method_table(&count);
  size_t used = (size_t)snprintf(why, n,
                                 "unknown scheme '%.40s'; expected "
                                 "one of",
                                 v);
  for (int i = 0; i < count && used < n; i++)
    used += (size_t)snprintf(why + used, n - used, "%s %s", i ? "," : "",
                             t[i].name);
  return -1;
}

static int parse_word(const char *v, const char *const *words, int nwords,
                      int *out, char *why, size_t n) {
  for (int i = 0; i < nwords; i++)
    if (strcmp(v, words[i]) == 0) return *out = i, 0;
  size_t used = (size_t)snprintf(why, n, "'%.40s' is not valid; expected", v);
  for (int i = 0; i < nwords && used < n; i++)
    used += (size_t)snprintf(why + used, n - used, "%s %s",
                             i ? (i + 1 < nwords ? "," : " or") : "", words[i]);
  return -1;
}

/* ---------------------------------------------------------------------- */
/* Axis values: number, list, linspace; theta may carry deg or rad.       */

enum unit { U_NONE, U_DEG, U_RAD };

/* One number of an axis: theta takes the angle grammar (src/angle.c) and
 * keeps its number in the user's unit (degrees stay degrees until the
 * value is complete, so linspace steps in whole degrees are exact). */
static int parse_axis_number(const char *text, int angle, double *v, int *unit,
                             char *why, size_t n) {
  char buf[256];
  if (strlen(text) >= sizeof buf) return snprintf(why, n, "too long"), -1;
  char *tok = trim(strcpy(buf, text));
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
  return parse_real(tok, v, why, n) != 0 ? -1 : 0;
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
    toks[i] = trim(s);
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

/* Splits "linspace(start, stop, n)" and parses its arguments; start and
 * stop stay in the user's unit (*unit). */
static int linspace_args(char *s, int angle, double x[2], char *tok[2],
                         int *unit, long long *cnt, char *why, size_t n) {
  char *p = trim(s + strlen("linspace"));
  const size_t len = strlen(p);
  if (len < 2 || p[0] != '(' || p[len - 1] != ')')
    return snprintf(why, n, "expected linspace(start, stop, n)"), -1;
  p[len - 1] = '\0';
  char *args[4];
  int count = 0;
  for (char *c = p + 1; c && count < 4; count++) {
    args[count] = c;
    if ((c = strchr(c, ','))) *c++ = '\0';
  }
  if (count != 3)
    return snprintf(why, n,
                    "linspace takes 3 arguments (start, stop, n), got %s%d",
                    count > 3 ? "at least " : "", count),
           -1;
  int units[2];
  for (int i = 0; i < 2; i++) {
    tok[i] = trim(args[i]);
    if (parse_axis_number(args[i], angle, &x[i], &units[i], why, n) != 0)
      return -1;
  }
  if ((*unit = common_unit(units, x, tok, 2, why, n)) < 0) return -1;
  if (parse_integer(trim(args[2]), 0, cnt, NULL, why, n) != 0 || *cnt < 1 ||
      *cnt > AXIS_MAX_VALUES)
    return snprintf(why, n,
                    "linspace count n = '%.30s' must be a whole number from "
                    "1 to %d",
                    trim(args[2]), AXIS_MAX_VALUES),
           -1;
  return 0;
}

/* "linspace(start, stop, n)": n values from start to stop inclusive,
 * computed in the user's unit as start + (stop - start) * i / (n - 1) (exact
 * for whole-number steps such as 5 degrees), the last one exactly stop. */
static int parse_linspace(char *s, int angle, ssw_axis *ax, char *why,
                          size_t n) {
  double x[2];
  char *tok[2];
  int unit;
  long long cnt;
  if (linspace_args(s, angle, x, tok, &unit, &cnt, why, n) != 0) return -1;
  if (cnt == 1 && x[1] != x[0])
    return snprintf(why, n,
                    "linspace with n = 1 needs start == stop (got %.40s and "
                    "%.40s); write a single number instead",
                    tok[0], tok[1]),
           -1;
  if (cnt > 1 && !(x[1] > x[0]))
    return snprintf(why, n,
                    "linspace needs start < stop (got start = %.40s, stop = "
                    "%.40s); ranges must increase",
                    tok[0], tok[1]),
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
  for (int i = 0; i < ax->n; i++) {
    const double v =
        i + 1 == ax->n ? x[1]
                       : x[0] + (x[1] - x[0]) * (double)i / (double)(ax->n - 1);
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
  char *s = trim(strcpy(buf, value));
  const int angle = axis == 0;
  int rc = strncmp(s, "linspace", strlen("linspace")) == 0
               ? parse_linspace(s, angle, out, why, n)
               : parse_list(s, angle, out, why, n);
  if (rc != 0) {
    free(out->values);
    out->values = NULL;
  }
  return rc;
}

/* ---------------------------------------------------------------------- */
/* Keys                                                                   */

static int find_key(const char *section, const char *name) {
  for (int k = 0; k < NKEYS; k++)
    if (strcmp(keys[k].section, section) == 0 &&
        strcmp(keys[k].name, name) == 0)
      return k;
  return -1;
}

static int is_section(const char *section) {
  for (int i = 0; i < NSECTIONS; i++)
    if (strcmp(sections[i], section) == 0) return 1;
  return 0;
}

static int unknown_section(parse_state *st, const char *section,
                           const char *name) {
  for (int i = 0; i < NSECTIONS; i++)
    if (near_miss(section, sections[i]))
      return fail(st, st->line, section, name,
                  "unknown section [%.40s]; did you mean [%s]?", section,
                  sections[i]);
  return fail(st, st->line, section, name,
              "unknown section [%.40s]; valid sections are [body], [grid], "
              "[ensemble], [integrator], [output] and [run]",
              section);
}

static int unknown_key(parse_state *st, const char *section, const char *name) {
  char valid[256];
  section_keys(section, valid, sizeof valid);
  for (int k = 0; k < NKEYS; k++)
    if (strcmp(keys[k].section, section) == 0 && near_miss(name, keys[k].name))
      return fail(st, st->line, section, name,
                  "unknown key '%.40s'; did you mean '%s'? (keys are "
                  "case-sensitive; valid keys: %s)",
                  name, keys[k].name, valid);
  for (int k = 0; k < NKEYS; k++)
    if (strcmp(keys[k].name, name) == 0)
      return fail(st, st->line, section, name,
                  "key '%s' belongs in section [%s], not [%s]", name,
                  keys[k].section, section);
  return fail(st, st->line, section, name,
              "unknown key '%.40s'; valid keys in [%s] are: %s", name, section,
              valid);
}

/* Numeric keys: strict parse, then the key's range. */
static int assign_number(ssw_config *cfg, const key_spec *k, const char *value,
                         char *why, size_t n) {
  char *field = (char *)cfg + k->offset, range[64];
  double x = 0;
  long long i = 0;
  unsigned long long u = 0;
  describe_range(k, range, sizeof range);
  if (k->kind == K_SEED)
    return parse_integer(value, 1, NULL, &u, why, n) != 0
               ? -1
               : (*(uint64_t *)field = (uint64_t)u, 0);
  if (k->kind == K_REAL ? parse_real(value, &x, why, n)
                        : parse_integer(value, 0, &i, NULL, why, n))
    return -1;
  if (k->kind != K_REAL) x = (double)i;
  if (!in_range(k, x)) {
    snprintf(why, n, "%.40s is out of range: the %s must be %s", value, k->help,
             range);
    return -1;
  }
  if (k->kind == K_REAL)
    *(double *)field = x;
  else if (k->kind == K_INT32)
    *(int32_t *)field = (int32_t)i;
  else
    *(int64_t *)field = (int64_t)i;
  return 0;
}

static int assign_axis(ssw_config *cfg, const key_spec *k, int line,
                       const char *value, char *why, size_t n) {
  ssw_axis ax;
  if (parse_axis(value, (int)k->offset, &ax, why, n) != 0) return -1;
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

static int assign(ssw_config *cfg, const key_spec *k, int line,
                  const char *value, char *why, size_t n) {
  static const char *const bools[] = {"false", "true", "no", "yes", "0", "1"};
  static const char *const ics[] = {"random", "lattice"};
  static const char *const recons[] = {"exp", "midpoint"};
  int word;
  switch (k->kind) {
  case K_AXIS: return assign_axis(cfg, k, line, value, why, n);
  case K_KROT: return parse_krot(cfg, value, why, n);
  case K_SCHEME: return parse_scheme(cfg, value, why, n);
  case K_BOOL:
    if (parse_word(value, bools, 6, &word, why, n) != 0) return -1;
    *(int *)((char *)cfg + k->offset) = word % 2;
    return 0;
  case K_IC:
    if (parse_word(value, ics, 2, &word, why, n) != 0) return -1;
    return cfg->ic = word, 0;
  case K_RECON:
    if (parse_word(value, recons, 2, &word, why, n) != 0) return -1;
    cfg->integ.recon = ssw_recon_find(recons[word]);
    return cfg->integ.recon < 0 ? snprintf(why, n, "not supported"), -1 : 0;
  case K_UNIT: {
    const size_t len = strlen(value);
    if (len >= 32 || strspn(value, "abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != len)
      return snprintf(why, n,
                      "'%.40s' is not a unit symbol; write one UDUNITS "
                      "symbol or name of letters only, e.g. m, cm, kg, g",
                      value),
             -1;
    strcpy((char *)cfg + k->offset, value);
    return 0;
  }
  case K_FILE: {
    char *copy = strdup(value);
    if (!copy) return snprintf(why, n, "out of memory"), -1;
    free(cfg->file);
    cfg->file = copy;
    return 0;
  }
  default: return assign_number(cfg, k, value, why, n);
  }
}

/* libinih handler: called once per "key = value" line (and again for an
 * indented continuation line, which we refuse). */
static int handle_key(void *user, const char *section, const char *name,
                      const char *value) {
  parse_state *st = user;
  if (st->err) return 1; /* the first error is kept; inih saw it */
  if (!*section)
    return fail(st, st->line, NULL, name,
                st->headers ? "key '%.40s' is in a section with an empty "
                              "name ('[]'); name the section"
                            : "key '%.40s' comes before any [section] header",
                name),
           0;
  if (!is_section(section)) return unknown_section(st, section, name), 0;
  if (!*name)
    return fail(st, st->line, section, NULL,
                "a line has no key before "
                "'='"),
           0;
  const int k = find_key(section, name);
  if (k < 0) return unknown_key(st, section, name), 0;
  if (st->set_line[k])
    return fail(st, st->line, section, name,
                "duplicate key '%s' (first set on line %d)%s", name,
                st->set_line[k],
                st->indented ? "; this indented line is read as a "
                               "continuation of it, and continuation lines "
                               "are not supported: write the value on one "
                               "line"
                             : "; give every key once"),
           0;
  st->set_line[k] = st->line;
  char why[512];
  if (!*value)
    snprintf(why, sizeof why, "no value given (%s)", keys[k].help);
  else if (assign(st->cfg, &keys[k], st->line, value, why, sizeof why) == 0)
    return 1;
  return fail(st, st->line, section, name, "%s", why), 0;
}

/* ---------------------------------------------------------------------- */
/* Reading and finishing                                                  */

/* libinih reader over the text: one line per call, so that st->line is the
 * line of every handler call. Over-long lines are refused whole (libinih
 * would split them into several lines). */
static char *read_line(char *buf, int size, void *stream) {
  parse_state *st = stream;
  if (*st->pos == '\0' || size < 2) return NULL;
  const char *eol = strchr(st->pos, '\n');
  const size_t len = eol ? (size_t)(eol - st->pos) + 1 : strlen(st->pos);
  st->line++;
  st->indented = *st->pos == ' ' || *st->pos == '\t';
  st->headers += st->pos[strspn(st->pos, " \t")] == '[';
  if (len > (size_t)size - 1) {
    fail(st, st->line, NULL, NULL,
         "the line is longer than %d characters (the limit of libinih); "
         "shorten it, e.g. write a long axis as linspace(start, stop, n)",
         size - 2);
    strcpy(buf, "\n");
  } else {
    memcpy(buf, st->pos, len);
    buf[len] = '\0';
  }
  st->pos += len;
  return buf;
}

/* libinih only reports the line of a syntax error; quote that line. */
static int syntax_error(parse_state *st, int line) {
  const char *p = st->text;
  for (int i = 1; i < line && p; i++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  char quote[64] = "";
  size_t q = 0;
  while (p && *p == ' ')
    p++;
  for (; p && *p && *p != '\n' && *p != '\r' && q + 1 < sizeof quote; p++)
    quote[q++] = isprint((unsigned char)*p) ? *p : '?';
  quote[q] = '\0';
  st->err = 0;
  if (quote[0] == '[')
    return fail(st, line, NULL, NULL,
                "'%s' is not a valid section header; expected [name]", quote);
  return fail(st, line, NULL, NULL,
              "'%s' is not a [section], a 'key = value' line or a comment "
              "(';' or '#')",
              quote);
}

/* Default output: the config name with its extension replaced by .h5. */
static int default_output(parse_state *st) {
  const char *name = st->name, *slash = strrchr(name, '/');
  const char *base = slash ? slash + 1 : name, *dot = strrchr(base, '.');
  if (dot && strcmp(dot, ".h5") == 0)
    return fail(st, st->line, "output", "file",
                "the default output (the config name with extension .h5) "
                "would overwrite the config itself; set file explicitly");
  const size_t stem = dot && dot != base ? (size_t)(dot - name) : strlen(name);
  st->cfg->file = malloc(stem + 4);
  if (!st->cfg->file) return SSW_RAISE(SSW_ERR_MEM, "out of memory");
  memcpy(st->cfg->file, name, stem);
  strcpy(st->cfg->file + stem, ".h5");
  return SSW_SUCCESS;
}

/* Keys the file did not set take the table's default text (axes get line
 * 0); a default that does not parse is a bug of the table. */
static int apply_defaults(parse_state *st) {
  char why[512];
  for (int k = 0; k < NKEYS; k++) {
    if (st->set_line[k] || !keys[k].def || !*keys[k].def) continue;
    SSW_CHECK(assign(st->cfg, &keys[k], 0, keys[k].def, why, sizeof why) == 0,
              SSW_ERR_INTERNAL, "default of [%s] %s: %s", keys[k].section,
              keys[k].name, why);
  }
  return SSW_SUCCESS;
}

/* rtol (adaptive, default) and eta (fixed step) exclude each other. */
static int integrator_mode(parse_state *st) {
  const int kr = find_key("integrator", "rtol");
  const int ke = find_key("integrator", "eta");
  if (st->set_line[kr] && st->set_line[ke])
    return fail(st, st->set_line[ke], "integrator", "eta",
                "rtol (line %d) and eta exclude each other: rtol asks for "
                "an accuracy and lets the engine choose the steps, eta "
                "fixes the step; give one of them",
                st->set_line[kr]);
  if (!st->set_line[ke]) st->cfg->integ.rtol = SSW_RTOL_DEFAULT;
  return SSW_SUCCESS;
}

/* Checks that need the whole file: syntax, required keys, cross-key. */
static int finish(parse_state *st, int rc) {
  if (rc == -2) return SSW_RAISE(SSW_ERR_MEM, "libinih: out of memory");
  if (rc > 0 && (!st->err || rc < st->err_line)) return syntax_error(st, rc);
  if (st->err) return st->err;
  for (int k = 0; k < NKEYS; k++)
    if (keys[k].def == REQUIRED && !st->set_line[k])
      return fail(st, st->line, keys[k].section, keys[k].name,
                  "required key is missing (%s); add '%s = ...' to the "
                  "[%s] section",
                  keys[k].help, keys[k].name, keys[k].section);
  SSW_CALL(apply_defaults(st));
  SSW_CALL(integrator_mode(st));
  const ssw_config *c = st->cfg;
  if (c->samples > c->trajectories) {
    const int k = find_key("output", "samples");
    return fail(st, st->set_line[k], "output", "samples",
                "samples = %d exceeds [ensemble] trajectories = %d; the "
                "samples are taken from the ensemble",
                (int)c->samples, (int)c->trajectories);
  }
  return c->file ? SSW_SUCCESS : default_output(st);
}

/* ---------------------------------------------------------------------- */
/* Public functions                                                       */

static int parse_into(ssw_config *cfg, const char *text, const char *name) {
  cfg->path = strdup(name);
  cfg->text = strdup(text);
  SSW_CHECK(cfg->path && cfg->text, SSW_ERR_MEM, "out of memory");
  parse_state st = {.name = name, .text = text, .pos = text, .cfg = cfg};
  const int rc = ini_parse_stream(read_line, &st, handle_key, &st);
  return finish(&st, rc);
}

int ssw_config_parse(const char *text, const char *name, ssw_config **cfg) {
  SSW_CHECK(cfg, SSW_ERR_ARG, "ssw_config_parse: cfg is NULL");
  *cfg = NULL;
  SSW_CHECK(text, SSW_ERR_ARG, "ssw_config_parse: text is NULL");
  ssw_config *c = calloc(1, sizeof *c);
  SSW_CHECK(c, SSW_ERR_MEM, "out of memory");
  const int status = parse_into(c, text, name ? name : "config");
  if (status != SSW_SUCCESS) {
    ssw_config_destroy(&c);
    return status;
  }
  *cfg = c;
  return SSW_SUCCESS;
}

/* Whole file into a NUL-terminated buffer (*text, caller frees). */
static int read_file(const char *path, char **text, size_t *len) {
  FILE *f = fopen(path, "rb");
  SSW_CHECK(f, SSW_ERR_IO, "cannot open config file '%s': %s", path,
            strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  int status = buf ? SSW_SUCCESS : SSW_RAISE(SSW_ERR_MEM, "out of memory");
  while (status == SSW_SUCCESS) {
    n += fread(buf + n, 1, cap - 1 - n, f);
    if (ferror(f)) {
      status = SSW_RAISE(SSW_ERR_IO, "cannot read config file '%s': %s", path,
                         strerror(errno));
    } else if (feof(f)) {
      break;
    } else if (cap >= MAX_FILE_BYTES) {
      status = SSW_RAISE(SSW_ERR_CONFIG,
                         "%s:0: the config file is larger "
                         "than %u bytes",
                         path, MAX_FILE_BYTES);
    } else {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger)
        status = SSW_RAISE(SSW_ERR_MEM, "out of memory");
      else
        buf = bigger;
    }
  }
  fclose(f);
  if (status != SSW_SUCCESS) return free(buf), status;
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return SSW_SUCCESS;
}

int ssw_config_load(const char *path, ssw_config **cfg) {
  SSW_CHECK(cfg, SSW_ERR_ARG, "ssw_config_load: cfg is NULL");
  *cfg = NULL;
  SSW_CHECK(path, SSW_ERR_ARG, "ssw_config_load: path is NULL");
  char *text = NULL;
  size_t len = 0;
  SSW_CALL(read_file(path, &text, &len));
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    int line = 1;
    for (const char *p = text; p < nul; p++)
      line += *p == '\n';
    free(text);
    return SSW_RAISE(SSW_ERR_CONFIG,
                     "%s:%d: the file contains a NUL byte; "
                     "a config must be a text file",
                     path, line);
  }
  const int status = ssw_config_parse(text, path, cfg);
  free(text);
  return status;
}

void ssw_config_print_axes(const ssw_config *cfg, FILE *f) {
  for (int a = 0; a < SSW_NAXES; a++) {
    const ssw_axis *ax = &cfg->axes[a];
    const double lo = ax->values[0], hi = ax->values[ax->n - 1];
    fprintf(f, "  %-6s %7d value%s  ", ssw_axis_names[a], ax->n,
            ax->n == 1 ? " " : "s");
    if (ax->n == 1)
      fprintf(f, "%.10g", lo);
    else
      fprintf(f, "%.10g to %.10g", lo, hi);
    if (a == 0) /* radians, and the degrees the user most likely meant */
      fprintf(f, ax->n == 1 ? " rad (%.10g deg)" : " rad (%.10g to %.10g deg)",
              lo * (180.0 / M_PI), hi * (180.0 / M_PI));
    else if (cfg->length_unit[0])
      fprintf(f, " %s", cfg->length_unit);
    fputc('\n', f);
  }
}

void ssw_config_destroy(ssw_config **cfg) {
  if (!cfg || !*cfg) return;
  ssw_config *c = *cfg;
  for (int a = 0; a < SSW_NAXES; a++)
    free(c->axes[a].values);
  free(c->file);
  free(c->path);
  free(c->text);
  free(c);
  *cfg = NULL;
}
