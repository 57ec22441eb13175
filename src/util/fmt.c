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

void ssw_fmt_flags(unsigned bits, const ssw_fmt_flag *tab, size_t n,
                   const char *sep, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && used < size; i++)
    if (bits & tab[i].bit)
      used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? sep : "",
                               tab[i].name);
}
