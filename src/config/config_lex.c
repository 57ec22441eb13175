/* Config tokens: trimmed text, strict decimal numbers and integers (the
 * lexing under every value parser: config_value.c, config_axis.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

char *ssw_cfg_trim(char *s) {
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
int ssw_cfg_parse_real(const char *tok, double *v, char *why, size_t n) {
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
int ssw_cfg_parse_integer(const char *tok, int is_unsigned, long long *sv,
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
