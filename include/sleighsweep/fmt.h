/* Numbers as text for messages and canonical forms. */
#ifndef SLEIGHSWEEP_FMT_H
#define SLEIGHSWEEP_FMT_H

#include <stddef.h>

/** Size of the buffer ssw_fmt_shortest writes (sign, 17 digits, point,
 * exponent and NUL). */
#define SSW_FMT_SHORTEST 32

/** Writes the shortest %g text of x that reads back (strtod) as the same
 * double: 0.6 as a user wrote it, not 0.59999999999999998, and two
 * doubles an ulp apart as different texts. Returns buf. */
const char *ssw_fmt_shortest(double x, char buf[SSW_FMT_SHORTEST]);

/** One named bit of a flag set. */
typedef struct {
  unsigned bit;
  const char *name;
} ssw_fmt_flag;

/** Writes the names of the bits of `bits` that `tab` (n rows) names, in
 * the table's order, separated by `sep`, into buf (empty when none). */
void ssw_fmt_flags(unsigned bits, const ssw_fmt_flag *tab, size_t n,
                   const char *sep, char *buf, size_t size);

#endif
