/* What a config means, as opposed to how it is written: the canonical text
 * (one "[section] key = value" line per key that affects the results, in
 * key-table order) and the comparison a resume makes (docs/config.md,
 * "What a resume compares"). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"

/* Axes longer than this are printed as their length, ends and a checksum
 * of every value's bits rather than value by value. */
#define AXIS_LIST_MAX 16

/* Keys that do not change what a run computes, so a resume may change
 * them: where the output is (--output overrides it too), and how often
 * the run reports progress, makes its work durable and hands out work
 * (results are per point and independent of the schedule). */
static int excluded(const key_spec *k) {
  static const char *const keys[][2] = {{"output", "file"},
                                        {"output", "flush_interval"},
                                        {"run", "work_unit"},
                                        {"run", "progress_interval"}};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strcmp(k->section, keys[i][0]) == 0 && strcmp(k->name, keys[i][1]) == 0)
      return 1;
  return 0;
}

/* A run axis ([grid] Gamma, energy) of one value in both configs: its
 * scalar key ([body] Gamma, [ensemble] energy) holds the same value and
 * comes later in the table, so the difference is reported under the key
 * the user wrote. */
static int scalar_run_axis(const ssw_config *a, const ssw_config *b,
                           const key_spec *k) {
  return k->kind == K_AXIS && (int)k->offset >= SSW_NBODY_AXES &&
         a->axes[k->offset].n == 1 && b->axes[k->offset].n == 1;
}

/* The shortest %g form that reads back as the same double. */
static void put_real(double x, char *buf, size_t n) {
  for (int p = 15; p <= 17; p++) {
    snprintf(buf, n, "%.*g", p, x);
    if (strtod(buf, NULL) == x) return;
  }
}

/* FNV-1a 64 of n bytes (an axis's values, the chosen points' indices). */
static uint64_t bytes_hash(const void *p, size_t n) {
  uint64_t h = 0xCBF29CE484222325ULL;
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ c[i]) * 0x100000001B3ULL;
  return h;
}

static void put_axis(const ssw_axis *ax, char *buf, size_t n) {
  char x[32];
  if (ax->n > AXIS_LIST_MAX) {
    char y[32];
    put_real(ax->values[0], x, sizeof x);
    put_real(ax->values[ax->n - 1], y, sizeof y);
    snprintf(buf, n, "%d values from %s to %s (checksum %016" PRIx64 ")", ax->n,
             x, y, bytes_hash(ax->values, (size_t)ax->n * sizeof *ax->values));
    return;
  }
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < ax->n && used < n; i++) {
    put_real(ax->values[i], x, sizeof x);
    used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", x);
  }
}

/* The chosen sample points: all, none, their flat indices, or (past
 * AXIS_LIST_MAX of them) their count, ends and a checksum. */
static void put_points(const ssw_sample_points *sp, char *buf, size_t n) {
  if (sp->all || sp->n == 0) {
    snprintf(buf, n, sp->all ? "all" : "none");
    return;
  }
  if (sp->n > AXIS_LIST_MAX) {
    const uint64_t h = bytes_hash(sp->index, sp->n * sizeof *sp->index);
    snprintf(buf, n,
             "%zu grid points from index %" PRIu64 " to %" PRIu64
             " (checksum %016" PRIx64 ")",
             sp->n, sp->index[0], sp->index[sp->n - 1], h);
    return;
  }
  size_t used = (size_t)snprintf(buf, n, "grid points");
  for (size_t i = 0; i < sp->n && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, "%s %" PRIu64, i ? "," : "",
                             sp->index[i]);
}

/* A key's value in canonical form: numbers in their shortest exact form
 * (theta in radians, added_inertia as its number), words as words. */
static void put_value(const ssw_config *c, const key_spec *k, char *buf,
                      size_t n) {
  const char *field = (const char *)c + k->offset;
  double x;
  int32_t i32;
  int64_t i64;
  int b;
  switch (k->kind) {
  case K_AXIS: put_axis(&c->axes[k->offset], buf, n); return;
  case K_KROT: put_real(c->body.k_rot, buf, n); return;
  case K_SCHEME:
    snprintf(buf, n, "%s", c->integ.method ? c->integ.method->name : "");
    return;
  case K_RECON: snprintf(buf, n, "%s", ssw_recon_name(c->integ.recon)); return;
  case K_IC: snprintf(buf, n, "%s", ssw_ic_names[c->ic]); return;
  case K_SHAPE:
    snprintf(buf, n, "%s", ssw_forcing_shape_names[c->body.forcing_shape]);
    return;
  case K_FILE: snprintf(buf, n, "%s", c->file ? c->file : ""); return;
  case K_POINTS: put_points(&c->sample_sel, buf, n); return;
  case K_UNIT: snprintf(buf, n, "%s", field); return;
  case K_CLASS:
    memcpy(&i32, field, sizeof i32), ssw_cfg_classes_text(i32, buf, n);
    return;
  case K_SEED: snprintf(buf, n, "%" PRIu64, c->seed); return;
  case K_BOOL:
    memcpy(&b, field, sizeof b), snprintf(buf, n, b ? "true" : "false");
    return;
  case K_INT32:
    memcpy(&i32, field, sizeof i32), snprintf(buf, n, "%" PRId32, i32);
    return;
  case K_INT64:
    memcpy(&i64, field, sizeof i64), snprintf(buf, n, "%" PRId64, i64);
    return;
  default: memcpy(&x, field, sizeof x), put_real(x, buf, n); return;
  }
}

/* Axes compare by their values' bits; every other kind by its canonical
 * form, which is one to one with the parsed value. */
static int same_value(const ssw_config *a, const ssw_config *b,
                      const key_spec *k, const char *va, const char *vb) {
  if (k->kind != K_AXIS) return strcmp(va, vb) == 0;
  const ssw_axis *x = &a->axes[k->offset], *y = &b->axes[k->offset];
  return x->n == y->n &&
         memcmp(x->values, y->values, (size_t)x->n * sizeof *x->values) == 0;
}

static int is_assign(char c) { return c == '=' || c == ':'; }

/* The line of `text` that sets [section] name (0: none, the key took its
 * default), quoted into buf: where the user changed it. */
static int key_line(const char *text, const char *section, const char *name,
                    char *buf, size_t n) {
  char cur[64] = "";
  const size_t len = strlen(name);
  int line = 0;
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
    line++;
    p += strspn(p, " \t");
    const size_t end = strcspn(p, "\r\n");
    if (*p == '[') {
      snprintf(cur, sizeof cur, "%.*s", (int)strcspn(p + 1, "]\r\n"), p + 1);
    } else if (strcmp(cur, section) == 0 && strncmp(p, name, len) == 0 &&
               is_assign(p[len + strspn(p + len, " \t")])) {
      snprintf(buf, n, "%.*s%s", (int)(end > 60 ? 60 : end), p,
               end > 60 ? "..." : "");
      return line;
    }
  }
  return 0;
}

int ssw_config_compare(const ssw_config *a, const ssw_config *b, char *why,
                       size_t n) {
  char va[1024], vb[1024];
  if (n) why[0] = '\0';
  for (int k = 0; k < SSW_CFG_NKEYS; k++) {
    const key_spec *key = &ssw_cfg_keys[k];
    if (excluded(key) || scalar_run_axis(a, b, key)) continue;
    put_value(a, key, va, sizeof va);
    put_value(b, key, vb, sizeof vb);
    if (same_value(a, b, key, va, vb)) continue;
    char quote[80], where[120] = "";
    const int line = b->text ? key_line(b->text, key->section, key->name, quote,
                                        sizeof quote)
                             : 0;
    if (line) snprintf(where, sizeof where, " (line %d: %s)", line, quote);
    snprintf(why, n, "[%s] %s: %s in the file, %s in the config%s",
             key->section, key->name, va, vb, where);
    return 1;
  }
  return 0;
}

int ssw_config_canonical(const ssw_config *cfg, char **text) {
  size_t cap = 4096, used = 0;
  char *buf = malloc(cap), value[1024];
  SSW_CHECK(buf, SSW_ERR_MEM, "out of memory");
  for (int k = 0; k < SSW_CFG_NKEYS; k++) {
    const key_spec *key = &ssw_cfg_keys[k];
    if (excluded(key)) continue;
    put_value(cfg, key, value, sizeof value);
    const size_t need =
        strlen(key->section) + strlen(key->name) + strlen(value) + 8;
    if (used + need >= cap) {
      char *bigger = realloc(buf, cap = 2 * cap + need);
      if (!bigger) free(buf);
      SSW_CHECK(bigger, SSW_ERR_MEM, "out of memory");
      buf = bigger;
    }
    used += (size_t)snprintf(buf + used, cap - used, "[%s] %s = %s\n",
                             key->section, key->name, value);
  }
  buf[used] = '\0';
  *text = buf;
  return SSW_SUCCESS;
}

/* The line of `text` at `p` into buf (without its newline); returns the
 * start of the next line. */
static const char *take_line(const char *p, char *buf, size_t n) {
  const size_t len = strcspn(p, "\n");
  snprintf(buf, n, "%.*s", (int)len, p);
  return p[len] ? p + len + 1 : p + len;
}

int ssw_config_canonical_diff(const char *a, const char *b, const char *la,
                              const char *lb, char *why, size_t n) {
  char x[1200], y[1200];
  if (n) why[0] = '\0';
  while (*a || *b) {
    a = take_line(a, x, sizeof x);
    b = take_line(b, y, sizeof y);
    if (strcmp(x, y) == 0) continue;
    char *ex = strstr(x, " = "), *ey = strstr(y, " = ");
    const size_t kx = ex ? (size_t)(ex - x) : strlen(x);
    const size_t ky = ey ? (size_t)(ey - y) : strlen(y);
    if (kx == ky && strncmp(x, y, kx) == 0 && ex && ey)
      snprintf(why, n, "%.*s: %s %s, %s %s", (int)kx, x, ex + 3, la, ey + 3,
               lb);
    else /* different keys: another build's key set */
      snprintf(why, n, "%s %s, %s %s", *x ? x : "(no more keys)", la,
               *y ? y : "(no more keys)", lb);
    return 1;
  }
  return 0;
}
