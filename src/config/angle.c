/* The angle grammar shared by the config, the command line and (mirrored)
 * the analysis scripts: bare radians, deg, rad and multiples of pi. */
#define _XOPEN_SOURCE 700 /* M_PI */
#include "sleighsweep/angle.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"

double ssw_angle_deg_to_rad(double deg) { return (deg / 180.0) * M_PI; }

/* Length of the decimal literal at s ([+-]digits[.digits][e[+-]digits]),
 * 0 if there is none. Stricter than strtod: no nan, inf, hex. */
static size_t decimal_length(const char *s) {
  size_t i = (*s == '+' || *s == '-'), digits = 0;
  while (isdigit((unsigned char)s[i]))
    i++, digits++;
  if (s[i] == '.')
    for (i++; isdigit((unsigned char)s[i]); i++)
      digits++;
  if (!digits) return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1 + (s[i + 1] == '+' || s[i + 1] == '-');
    if (isdigit((unsigned char)s[j])) {
      while (isdigit((unsigned char)s[j]))
        j++;
      i = j;
    }
  }
  return i;
}

/* The decimal literal s[0..len) as a finite double. */
static int decimal_value(const char *s, size_t len, double *v) {
  char buf[128];
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, s, len);
  buf[len] = '\0';
  errno = 0;
  *v = strtod(buf, NULL) + 0.0; /* -0 becomes +0 */
  return isfinite(*v) ? 0 : -1;
}

static const char *skip_blanks(const char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

/* "[k][*]pi[/n]" after an optional sign; k pi / n in radians. */
static int parse_pi(const char *s, double *rad, char *why, size_t n) {
  double k = 1.0, den = 1.0;
  const char *p = s;
  if (*p == '+' || *p == '-') p++;
  if (*p == '+' || *p == '-') goto bad;
  size_t len = decimal_length(p);
  if (len) {
    if (decimal_value(p, len, &k) != 0) goto bad;
    p = skip_blanks(p + len);
    if (*p == '*') p = skip_blanks(p + 1);
  } else if (*p == '*') {
    goto bad;
  }
  if (strncmp(p, "pi", 2) != 0) goto bad;
  p = skip_blanks(p + 2);
  if (*p == '/') {
    p = skip_blanks(p + 1);
    len = decimal_length(p);
    if (!len || *p == '+' || *p == '-' || decimal_value(p, len, &den) != 0 ||
        den == 0)
      goto bad;
    p += len;
  }
  if (*skip_blanks(p)) goto bad;
  *rad = (*s == '-' ? -k : k) * M_PI / den + 0.0;
  return isfinite(*rad) ? 0 : -1;
bad:
  snprintf(why, n,
           "'%.40s' is not an angle; multiples of pi are written pi, -pi/2, "
           "2pi/3 or 0.5*pi",
           s);
  return -1;
}

int ssw_angle_parse(const char *text, double *rad, double *in_unit, int *unit,
                    char *why, size_t n) {
  double r = 0, x = 0;
  int u = SSW_ANGLE_BARE;
  const char *s = skip_blanks(text ? text : "");
  char tok[128];
  size_t end = strlen(s);
  while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
    end--;
  if (end == 0) return snprintf(why, n, "empty angle"), SSW_ERR_USAGE;
  if (end >= sizeof tok)
    return snprintf(why, n, "angle '%.40s...' is too long", s), SSW_ERR_USAGE;
  memcpy(tok, s, end);
  tok[end] = '\0';
  if (strstr(tok, "pi")) {
    if (parse_pi(tok, &r, why, n) != 0) return SSW_ERR_USAGE;
    x = r;
    u = SSW_ANGLE_RAD;
  } else {
    size_t len = decimal_length(tok);
    const char *rest = skip_blanks(tok + len);
    if (len && strcmp(rest, "deg") == 0)
      u = SSW_ANGLE_DEG;
    else if (len && strcmp(rest, "rad") == 0)
      u = SSW_ANGLE_RAD;
    else if (len && *rest)
      len = 0; /* trailing text: not an angle */
    if (!len || decimal_value(tok, len, &x) != 0) {
      snprintf(why, n,
               "'%.40s' is not an angle (a finite decimal number in radians, "
               "or e.g. 60deg, 1.2rad, pi/3, 2pi/3)",
               tok);
      return SSW_ERR_USAGE;
    }
    r = u == SSW_ANGLE_DEG ? ssw_angle_deg_to_rad(x) : x;
    if (u == SSW_ANGLE_BARE && fabs(x) > SSW_ANGLE_BARE_MAX) {
      snprintf(why, n,
               "%.40s is outside [-2pi, 2pi] as radians; did you mean "
               "%.40sdeg? (write deg for degrees, or rad for a large angle "
               "in radians)",
               tok, tok);
      return SSW_ERR_USAGE;
    }
  }
  if (rad) *rad = r;
  if (in_unit) *in_unit = x;
  if (unit) *unit = u;
  return SSW_SUCCESS;
}
