/* The `[output] sample_points` selection: which grid points keep sample
 * trajectories (docs/config.md, "Sample trajectories"). */
#include "sleighsweep/sample_points.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/angle.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"

/* Longest value text of one term ("2pi/3", "0.125"). */
#define VALUE_MAX 64

/* Index of the axis value matching x, or -1; *near gets the nearest. */
static int match_value(const ssw_axis *ax, double x, double *near) {
  const double span = ax->values[ax->n - 1] - ax->values[0];
  int best = 0;
  for (int j = 1; j < ax->n; j++)
    if (fabs(ax->values[j] - x) < fabs(ax->values[best] - x)) best = j;
  *near = ax->values[best];
  const double scale = fmax(fmax(fabs(x), fabs(*near)), span);
  return fabs(*near - x) <= 1e-9 * scale ? best : -1;
}

/* The end of a value starting at s: the next separator (',' or '|'), or
 * the blank before the next term (an axis name and '='), so that
 * "2 pi / 3" keeps its blanks. */
static const char *value_end(const char *s) {
  while (*s && *s != '|' && *s != ',') {
    if (isspace((unsigned char)*s)) {
      const char *w = s;
      while (isspace((unsigned char)*w))
        w++;
      const char *e = w;
      while (isalpha((unsigned char)*e))
        e++;
      while (isspace((unsigned char)*e))
        e++;
      if (e > w && *e == '=') return s;
    }
    s++;
  }
  return s;
}

/* Parses one `axis = value` term at *p (blanks skipped); sets axis and the
 * value's index. */
static int parse_term(const ssw_config *cfg, const char **p, int *axis, int *at,
                      char *why, size_t n) {
  const char *s = *p;
  while (isspace((unsigned char)*s) || *s == ',')
    s++;
  const char *name = s;
  while (isalpha((unsigned char)*s))
    s++;
  const size_t len = (size_t)(s - name);
  *axis = -1;
  for (int a = 0; a < SSW_NAXES; a++)
    if (strlen(ssw_axis_names[a]) == len &&
        strncmp(ssw_axis_names[a], name, len) == 0)
      *axis = a;
  while (isspace((unsigned char)*s))
    s++;
  if (*axis < 0 || *s != '=') {
    snprintf(why, n, "'%.*s' is not a term 'axis = value' (axes:%s)",
             (int)strcspn(name, "|"), name, SSW_AXES(SSW_NAME_SPACED));
    return SSW_ERR_CONFIG;
  }
  s++;
  while (isspace((unsigned char)*s))
    s++;
  const char *v = s;
  s = value_end(s);
  char buf[VALUE_MAX];
  const size_t vl = (size_t)(s - v);
  if (vl == 0 || vl >= sizeof buf) {
    snprintf(why, n, "%s: %s", ssw_axis_names[*axis],
             vl == 0 ? "missing value" : "value too long");
    return SSW_ERR_CONFIG;
  }
  memcpy(buf, v, vl), buf[vl] = '\0';
  double x;
  if (*axis == 0) {
    char msg[160] = "";
    if (ssw_angle_parse(buf, &x, NULL, NULL, msg, sizeof msg) != SSW_SUCCESS) {
      snprintf(why, n, "theta = %s: %s", buf, msg);
      return SSW_ERR_CONFIG;
    }
  } else {
    char *end;
    x = strtod(buf, &end);
    while (isspace((unsigned char)*end))
      end++;
    if (end == buf || *end || !isfinite(x)) {
      snprintf(why, n, "%s = %s: not a number", ssw_axis_names[*axis], buf);
      return SSW_ERR_CONFIG;
    }
  }
  double near;
  *at = match_value(&cfg->axes[*axis], x, &near);
  if (*at < 0) {
    if (*axis == 0)
      snprintf(why, n,
               "theta = %s is not a value of the theta axis (nearest: %.9g "
               "rad = %.9gdeg)",
               buf, near, near * 180.0 / M_PI);
    else
      snprintf(why, n, "%s = %s is not a value of the %s axis (nearest: %.9g)",
               ssw_axis_names[*axis], buf, ssw_axis_names[*axis], near);
    return SSW_ERR_CONFIG;
  }
  *p = s;
  return SSW_SUCCESS;
}

/* Appends the points of one selection (fixed[a] = value index or -1 for
 * every value) to sp, growing it. */
static int add_selection(const ssw_config *cfg, const int fixed[SSW_NAXES],
                         ssw_sample_points *sp, size_t *cap) {
  uint64_t count = 1;
  for (int a = 0; a < SSW_NAXES; a++)
    if (fixed[a] < 0) count *= (uint64_t)cfg->axes[a].n;
  if (sp->n + count > *cap) {
    const size_t want = (size_t)(sp->n + count) * 2;
    uint64_t *g = realloc(sp->index, want * sizeof *g);
    if (!g) return SSW_RAISE(SSW_ERR_MEM, "out of memory for sample_points");
    sp->index = g, *cap = want;
  }
  int idx[SSW_NAXES];
  for (int a = 0; a < SSW_NAXES; a++)
    idx[a] = fixed[a] >= 0 ? fixed[a] : 0;
  for (;;) {
    sp->index[sp->n++] = ssw_grid_ravel(cfg->axes, idx);
    int a = SSW_NAXES - 1; /* odometer over the free axes */
    for (; a >= 0; a--) {
      if (fixed[a] >= 0) continue;
      if (++idx[a] < cfg->axes[a].n) break;
      idx[a] = 0;
    }
    if (a < 0) return SSW_SUCCESS;
  }
}

/* Parses the selections of `text` into sp (unsorted, maybe repeated). */
static int parse_selections(const ssw_config *cfg, const char *text,
                            ssw_sample_points *sp, char *why, size_t n) {
  const char *p = text;
  size_t cap = 0;
  for (;;) {
    int fixed[SSW_NAXES];
    for (int a = 0; a < SSW_NAXES; a++)
      fixed[a] = -1;
    int terms = 0;
    for (;;) {
      while (isspace((unsigned char)*p) || *p == ',')
        p++;
      if (!*p || *p == '|') break;
      int axis, at;
      if (parse_term(cfg, &p, &axis, &at, why, n) != SSW_SUCCESS)
        return SSW_ERR_CONFIG;
      if (fixed[axis] >= 0) {
        snprintf(why, n,
                 "%s named twice in one selection (separate "
                 "selections with '|')",
                 ssw_axis_names[axis]);
        return SSW_ERR_CONFIG;
      }
      fixed[axis] = at, terms++;
    }
    if (terms == 0) {
      snprintf(why, n,
               "an empty selection (write 'all', 'none', or terms "
               "'axis = value' separated by '|')");
      return SSW_ERR_CONFIG;
    }
    SSW_CALL(add_selection(cfg, fixed, sp, &cap));
    if (!*p) return SSW_SUCCESS;
    p++; /* '|' */
  }
}

static int by_index(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Whether text, blanks aside, is the word w. */
static int is_word(const char *text, const char *w) {
  while (isspace((unsigned char)*text))
    text++;
  const size_t len = strlen(w);
  if (strncmp(text, w, len) != 0) return 0;
  for (text += len; isspace((unsigned char)*text);)
    text++;
  return *text == '\0';
}

int ssw_sample_points_parse(const ssw_config *cfg, const char *text,
                            ssw_sample_points *sp, char *why, size_t n) {
  memset(sp, 0, sizeof *sp);
  if (is_word(text, "none")) return SSW_SUCCESS;
  if (is_word(text, "all")) {
    sp->all = 1, sp->n = (size_t)ssw_grid_size(cfg->axes);
    return SSW_SUCCESS;
  }
  /* ';' would be a natural separator, but in the config ' ;' starts a
   * comment (libinih), so "x ; y" would silently lose y: one separator,
   * '|', and ';' refused wherever it survives. */
  if (strchr(text, ';')) {
    snprintf(why, n,
             "separate selections with '|', not ';' (in the config "
             "a ';' after a blank starts a comment)");
    return SSW_ERR_CONFIG;
  }
  const int rc = parse_selections(cfg, text, sp, why, n);
  if (rc != SSW_SUCCESS) {
    ssw_sample_points_free(sp);
    return rc;
  }
  qsort(sp->index, sp->n, sizeof *sp->index, by_index);
  size_t m = 0; /* distinct */
  for (size_t k = 0; k < sp->n; k++)
    if (m == 0 || sp->index[k] != sp->index[m - 1])
      sp->index[m++] = sp->index[k];
  sp->n = m;
  return SSW_SUCCESS;
}

int64_t ssw_sample_points_slot(const ssw_sample_points *sp, uint64_t index) {
  if (sp->all) return index < sp->n ? (int64_t)index : -1;
  size_t lo = 0, hi = sp->n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (sp->index[mid] < index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < sp->n && sp->index[lo] == index ? (int64_t)lo : -1;
}

void ssw_sample_points_free(ssw_sample_points *sp) {
  if (!sp) return;
  free(sp->index);
  sp->index = NULL;
  sp->n = 0;
  sp->all = 0;
}
