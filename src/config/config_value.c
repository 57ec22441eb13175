/* Config values: words, ranges, and the store of a parsed value into its
 * field of ssw_config. Numbers are lexed in config_lex.c, axes parsed in
 * config_axis.c. */
#define _XOPEN_SOURCE 700 /* strdup */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "sleighsweep/config.h"
#include "sleighsweep/fmt.h"

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
  } else if (ssw_cfg_parse_real(v, &x, why, n) == 0 && x >= 0) {
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

/* The refinement's classes, names from names.h. */
#define CLASS_NAME_(id, bit, name, ...) {bit, name},
static const ssw_fmt_flag class_names[] = {SSW_REFINE_CLASSES(CLASS_NAME_)};
#define NCLASS_NAMES ((int)(sizeof class_names / sizeof class_names[0]))

void ssw_cfg_classes_text(int32_t bits, char *buf, size_t n) {
  ssw_fmt_flags((unsigned)bits, class_names, NCLASS_NAMES, ", ", buf, n);
  if (!buf[0]) snprintf(buf, n, "none");
}

/* The class names as "a, b or c", from the table. */
static void class_list(char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < NCLASS_NAMES && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, "%s%s",
                             i ? (i + 1 < NCLASS_NAMES ? ", " : " or ") : "",
                             class_names[i].name);
}

/* [refine] classes = none | a comma list of class names, each once. */
static int parse_classes(int32_t *bits, const char *v, char *why, size_t n) {
  *bits = 0;
  if (strcmp(v, "none") == 0) return 0;
  char names[256];
  class_list(names, sizeof names);
  for (const char *p = v;; p++) {
    p += strspn(p, " \t");
    size_t len = strcspn(p, ",");
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
      len--;
    if (!len)
      return snprintf(why, n,
                      "an empty class in '%s' (a doubled or trailing comma?); "
                      "expected none or a comma list of %s",
                      v, names),
             -1;
    int i = 0;
    while (i < NCLASS_NAMES && (strlen(class_names[i].name) != len ||
                                strncmp(p, class_names[i].name, len) != 0))
      i++;
    if (i == NCLASS_NAMES)
      return snprintf(why, n,
                      "'%.*s' is not a class; expected none or a comma list "
                      "of %s",
                      (int)(len > 40 ? 40 : len), p, names),
             -1;
    if ((unsigned)*bits & class_names[i].bit)
      return snprintf(why, n, "class '%s' is listed twice",
                      class_names[i].name),
             -1;
    *bits |= (int32_t)class_names[i].bit;
    p = strchr(p, ',');
    if (!p) return 0;
  }
}

/* Stores a value into its field of ssw_config, found by the key table's
 * offset: a copy of its bytes, so no pointer is cast to the field's type. */
static void store(char *field, const void *value, size_t size) {
  memcpy(field, value, size);
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
    return ssw_cfg_parse_integer(value, 1, NULL, &u, why, n) != 0
               ? -1
               : (store(field, &(uint64_t){u}, sizeof(uint64_t)), 0);
  const int real = k->kind == K_REAL;
  if (real ? ssw_cfg_parse_real(value, &x, why, n)
           : ssw_cfg_parse_integer(value, 0, &i, NULL, why, n))
    return -1;
  if (!real) x = (double)i;
  if (!in_range(k, x)) {
    snprintf(why, n, "%.40s is out of range: the %s must be %s", value, k->help,
             range);
    return -1;
  }
  if (real)
    store(field, &x, sizeof x);
  else if (k->kind == K_INT32)
    store(field, &(int32_t){(int32_t)i}, sizeof(int32_t));
  else
    store(field, &(int64_t){i}, sizeof(int64_t));
  return 0;
}

int ssw_cfg_assign(ssw_config *cfg, const key_spec *k, int line,
                   const char *value, char *why, size_t n) {
  static const char *const bools[] = {"false", "true", "no", "yes", "0", "1"};
  int word;
  switch (k->kind) {
  case K_AXIS: return ssw_cfg_assign_axis(cfg, k, line, value, why, n);
  case K_KROT: return parse_krot(cfg, value, why, n);
  case K_SCHEME: return parse_scheme(cfg, value, why, n);
  case K_BOOL:
    if (parse_word(value, bools, 6, &word, why, n) != 0) return -1;
    store((char *)cfg + k->offset, &(int){word % 2}, sizeof(int));
    return 0;
  case K_IC:
    if (parse_word(value, ssw_ic_names, SSW_IC_COUNT, &word, why, n) != 0)
      return -1;
    return cfg->ic = word, 0;
  case K_SHAPE:
    if (parse_word(value, ssw_forcing_shape_names, SSW_FORCING_COUNT, &word,
                   why, n) != 0)
      return -1;
    return cfg->body.forcing_shape = word, 0;
  case K_RECON:
    if (parse_word(value, ssw_recon_names, SSW_RECON_COUNT, &word, why, n))
      return -1;
    return cfg->integ.recon = word, 0;
  case K_CLASS: {
    int32_t bits;
    if (parse_classes(&bits, value, why, n) != 0) return -1;
    store((char *)cfg + k->offset, &bits, sizeof bits);
    return 0;
  }
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
  case K_FILE:
  case K_POINTS: {
    char *copy = strdup(value);
    if (!copy) return snprintf(why, n, "out of memory"), -1;
    char **field = k->kind == K_FILE ? &cfg->file : &cfg->sample_points;
    free(*field);
    *field = copy;
    return 0;
  }
  default: return assign_number(cfg, k, value, why, n);
  }
}
