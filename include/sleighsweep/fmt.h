/* Numbers as text for messages and canonical forms. */
#ifndef SLEIGHSWEEP_FMT_H
#define SLEIGHSWEEP_FMT_H

/** Size of the buffer ssw_fmt_shortest writes (sign, 17 digits, point,
 * exponent and NUL). */
#define SSW_FMT_SHORTEST 32

/** Writes the shortest %g text of x that reads back (strtod) as the same
 * double: 0.6 as a user wrote it, not 0.59999999999999998, and two
 * doubles an ulp apart as different texts. Returns buf. */
const char *ssw_fmt_shortest(double x, char buf[SSW_FMT_SHORTEST]);

#endif
