/* The declarations and their documentation agree: every key of the
 * config's key table (src/config/config_keys.c) has a row in docs/config.md
 * under its section, with the table's default and its range's finite bounds;
 * every doc row is a key; the choices of the scheme, reconstruction and
 * initial-condition keys list every name of the engine's tables; and the
 * fuzz dictionary holds every scheme name; every example config in
 * jobs/examples/ has a row in docs/config.md's table of examples. A key, a
 * default, a bound, a scheme or an example added without its documentation
 * fails here. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/config/config_internal.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  EXPECT(f != NULL, "cannot open %s", path);
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  const size_t got = s ? fread(s, 1, (size_t)n, f) : 0;
  fclose(f);
  if (s) s[got] = '\0';
  return s;
}

/* A doc row: its section, key and cells (key, meaning, default, range). */
typedef struct {
  char section[32], key[64];
  char cell[4][2048];
  int ncell, used;
} row;

#define MAX_ROWS 128

/* Rows `| \`key\` | ... |` under `## [section]` headings. */
static int doc_rows(char *text, row *rows) {
  int n = 0;
  char section[32] = "";
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (!strncmp(line, "## [", 4)) {
      const char *end = strchr(line + 4, ']');
      snprintf(section, sizeof section, "%.*s", end ? (int)(end - line - 4) : 0,
               line + 4);
    } else if (!strncmp(line, "##", 2)) {
      section[0] = '\0';
    } else if (section[0] && !strncmp(line, "| `", 3) && n < MAX_ROWS) {
      row *r = &rows[n++];
      memset(r, 0, sizeof *r);
      snprintf(r->section, sizeof r->section, "%s", section);
      /* Cells split on '|' not escaped as '\|'. */
      const char *p = line + 1;
      while (*p && r->ncell < 4) {
        size_t k = 0;
        while (*p && !(*p == '|' && p[-1] != '\\'))
          if (k + 1 < sizeof r->cell[0])
            r->cell[r->ncell][k++] = *p++;
          else
            p++;
        r->cell[r->ncell++][k] = '\0';
        if (*p) p++;
      }
      /* Other tables (the angle grammar) hold no key names. */
      if (sscanf(r->cell[0], " `%63[A-Za-z0-9_]`", r->key) != 1 ||
          strchr(r->cell[0], '[') != NULL)
        n--;
    }
  }
  return n;
}

/* Numbers written in a cell (1e-14, 0.01, 10^7, 2000000). */
static int numbers(const char *s, double *out, int max) {
  int n = 0;
  for (const char *p = s; *p && n < max;) {
    if (isdigit((unsigned char)*p) &&
        (p == s || !isalnum((unsigned char)p[-1]))) {
      char *end;
      double x = strtod(p, &end);
      if (end[0] == '^' && isdigit((unsigned char)end[1]))
        x = pow(x, strtod(end + 1, &end));
      out[n++] = x;
      p = end;
    } else {
      p++;
    }
  }
  return n;
}

static int mentions(const char *cell, const char *name) {
  char quoted[80];
  snprintf(quoted, sizeof quoted, "`%s`", name);
  return strstr(cell, quoted) != NULL;
}

static void check_key(const key_spec *k, const row *r) {
  const char *def = r->cell[2], *range = r->ncell > 3 ? r->cell[3] : "";
  if (k->def == REQUIRED)
    EXPECT(strstr(def, "required"),
           "[%s] %s: docs default '%s', table: "
           "required",
           k->section, k->name, def);
  else if (k->def[0] != '\0')
    EXPECT(mentions(def, k->def), "[%s] %s: docs default '%s', table `%s`",
           k->section, k->name, def, k->def);
  /* An axis with a range (energy) states it in its meaning: the [grid]
   * table has no range column. */
  if (k->kind == K_AXIS && k->hi > k->lo) range = r->cell[1];
  if (k->kind == K_REAL || k->kind == K_INT32 || k->kind == K_INT64 ||
      (k->kind == K_AXIS && k->hi > k->lo)) {
    double x[16];
    const int n = numbers(range, x, 16);
    const double bound[2] = {k->lo, k->hi};
    for (int b = 0; b < 2; b++) {
      if (!isfinite(bound[b])) continue;
      int found = 0;
      for (int i = 0; i < n; i++)
        found |= fabs(x[i] - bound[b]) <= 1e-12 * fabs(bound[b]);
      EXPECT(found, "[%s] %s: bound %g not in the docs' range '%s'", k->section,
             k->name, bound[b], range);
    }
  }
  const char *cells = r->cell[1];
  if (k->kind == K_SCHEME) {
    int n;
    const ssw_method *m = ssw_method_table(&n);
    for (int i = 0; i < n; i++)
      EXPECT(mentions(cells, m[i].name),
             "[integrator] scheme: docs do not "
             "list `%s`",
             m[i].name);
  }
  if (k->kind == K_RECON)
    for (int i = 0; i < SSW_RECON_COUNT; i++)
      EXPECT(mentions(range, ssw_recon_names[i]),
             "reconstruction: docs do "
             "not list `%s`",
             ssw_recon_names[i]);
  if (k->kind == K_IC)
    for (int i = 0; i < SSW_IC_COUNT; i++)
      EXPECT(mentions(range, ssw_ic_names[i]),
             "initial: docs do not list "
             "`%s`",
             ssw_ic_names[i]);
}

static void test_config_md(void) {
  char *text = slurp(SSW_SOURCE_DIR "/docs/config.md");
  if (!text) return;
  static row rows[MAX_ROWS];
  const int n = doc_rows(text, rows);
  for (int k = 0; k < SSW_CFG_NKEYS; k++) {
    const key_spec *ks = &ssw_cfg_keys[k];
    int found = 0;
    for (int i = 0; i < n; i++)
      if (!strcmp(rows[i].section, ks->section) &&
          !strcmp(rows[i].key, ks->name)) {
        check_key(ks, &rows[i]);
        rows[i].used = found = 1;
      }
    EXPECT(found, "[%s] %s has no row in docs/config.md", ks->section,
           ks->name);
  }
  for (int i = 0; i < n; i++)
    EXPECT(rows[i].used,
           "docs/config.md [%s] documents `%s`, which is no "
           "key",
           rows[i].section, rows[i].key);
  printf("docs/config.md: %d key rows for %d keys\n", n, SSW_CFG_NKEYS);
  free(text);
}

static void test_fuzz_dict(void) {
  char *text = slurp(SSW_SOURCE_DIR "/tests/fuzz/config.dict");
  if (!text) return;
  int n;
  const ssw_method *m = ssw_method_table(&n);
  for (int i = 0; i < n; i++) {
    char q[80];
    snprintf(q, sizeof q, "\"%s\"", m[i].name);
    EXPECT(strstr(text, q), "tests/fuzz/config.dict lacks scheme %s",
           m[i].name);
  }
  free(text);
}

/* Every .ini file of jobs/examples has a row `| \`NAME\` |` in the examples
 * section of docs/config.md. */
static void test_examples_listed(void) {
  char *text = slurp(SSW_SOURCE_DIR "/docs/config.md");
  if (!text) return;
  const char *sec = strstr(text, "## Examples in `jobs/examples/`");
  EXPECT(sec != NULL, "docs/config.md has no examples section");
  DIR *d = opendir(SSW_SOURCE_DIR "/jobs/examples");
  EXPECT(d != NULL, "cannot list jobs/examples");
  int n = 0;
  for (struct dirent *e; sec && d && (e = readdir(d));) {
    const size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0) continue;
    char cell[300];
    snprintf(cell, sizeof cell, "| `%s` |", e->d_name);
    EXPECT(strstr(sec, cell), "docs/config.md's examples lack %s", e->d_name);
    n++;
  }
  if (d) closedir(d);
  EXPECT(n >= 7, "only %d example configs found", n);
  free(text);
}

int main(void) {
  test_config_md();
  test_examples_listed();
  test_fuzz_dict();
  return TEST_RESULT();
}
