/* Numbers as text: the shortest form that reads back exactly. */
#include "sleighsweep/fmt.h"

#include <stdio.h>
#include <stdlib.h>

const char *ssw_fmt_shortest(double x, char buf[SSW_FMT_SHORTEST]) {
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, SSW_FMT_SHORTEST, "%.*g", digits, x);
    if (strtod(buf, NULL) == x) break;
  }
  return buf;
}
