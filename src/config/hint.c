/* "Did you mean" hints by edit distance (include/sleighsweep/hint.h). */
#include "sleighsweep/hint.h"

#include <ctype.h>
#include <string.h>

/* Optimal-string-alignment distance (edits and adjacent swaps), for
 * "did you mean" hints; long strings are never near misses. */
int ssw_edit_distance(const char *s, const char *t) {
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
int ssw_near_miss(const char *typed, const char *candidate) {
  size_t i = 0;
  while (typed[i] && tolower((unsigned char)typed[i]) ==
                         tolower((unsigned char)candidate[i]))
    i++;
  if (!typed[i] && !candidate[i]) return 1; /* differs only in case */
  const int d = ssw_edit_distance(typed, candidate);
  return d <= 2 && d < (int)strlen(candidate);
}
