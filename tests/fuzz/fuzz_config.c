/* libFuzzer target: config text -> ssw_config_parse -> ssw_grid_validate. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"

/* Grids above this size parse but are not validated point by point: a
 * validation costs one tensor per point, and fast executions matter more
 * to the fuzzer than big grids, which exercise nothing new. */
#define FUZZ_MAX_VALIDATE_POINTS 100000u

/* The label of every message, and what each must start with. */
#define FUZZ_NAME "fuzz.ini"

/* A broken promise of the parser's interface (not a crash, but a bug all
 * the same): report it and abort, which libFuzzer records as a crash. */
#define PROMISE(cond, ...)                                                     \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_config: broken promise %s: ", #cond);              \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\nlast message: %s\n", ssw_error_message());            \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* A failure is SSW_ERR_CONFIG (or out of memory) with a message that
 * starts with "fuzz.ini:" as config.h and grid.h promise. */
static void check_failure(int rc, const char *what) {
  PROMISE(rc == SSW_ERR_CONFIG || rc == SSW_ERR_MEM, "%s returned %d (%s)",
          what, rc, ssw_error_name(rc));
  if (rc == SSW_ERR_CONFIG) {
    const char *msg = ssw_error_user_message();
    PROMISE(strncmp(msg, FUZZ_NAME ":", strlen(FUZZ_NAME ":")) == 0,
            "%s message does not start with '" FUZZ_NAME ":'", what);
  }
}

/* What a successful parse promises: every axis non-empty, finite and
 * strictly increasing; the text kept; every default filled in. */
static void check_config(const ssw_config *c, const char *text) {
  for (int a = 0; a < SSW_NAXES; a++) {
    const ssw_axis *ax = &c->axes[a];
    PROMISE(ax->n >= 1 && ax->values, "axis %s has %d values",
            ssw_axis_names[a], ax->n);
    for (int i = 0; i < ax->n; i++) {
      const double v = ax->values[i];
      PROMISE(isfinite(v), "axis %s value %d is %g", ssw_axis_names[a], i, v);
      PROMISE(i == 0 || v > ax->values[i - 1],
              "axis %s values %d, %d not increasing", ssw_axis_names[a], i - 1,
              i);
    }
  }
  PROMISE(c->text && strcmp(c->text, text) == 0, "text not kept");
  PROMISE(c->path && strcmp(c->path, FUZZ_NAME) == 0, "path not kept");
  PROMISE(c->file && *c->file, "no output file");
  PROMISE(c->integ.method, "no method");
  PROMISE(c->trajectories >= 1 && c->samples <= c->trajectories,
          "trajectories %d samples %d", (int)c->trajectories, (int)c->samples);
}

/* Flat indices and axis indices map one to one (first, middle, last). */
static void check_indices(const ssw_config *c, uint64_t size) {
  const uint64_t probe[3] = {0, size / 2, size - 1};
  for (int k = 0; k < 3; k++) {
    int idx[SSW_NAXES];
    ssw_params p;
    ssw_grid_unravel(c->axes, probe[k], idx);
    PROMISE(ssw_grid_ravel(c->axes, idx) == probe[k], "ravel(unravel(%llu))",
            (unsigned long long)probe[k]);
    ssw_grid_params(c->axes, probe[k], &p);
    for (int a = 0; a < SSW_NBODY_AXES; a++)
      PROMISE(ssw_params_get(&p, a) == c->axes[a].values[idx[a]],
              "parameter %s of point %llu", ssw_axis_names[a],
              (unsigned long long)probe[k]);
    for (int a = 0; a < SSW_NAXES; a++)
      PROMISE(ssw_grid_value(c->axes, probe[k], a) == c->axes[a].values[idx[a]],
              "axis %s of point %llu", ssw_axis_names[a],
              (unsigned long long)probe[k]);
  }
}

/* A comment and blank lines added change the text, not the meaning: the
 * resume comparison and the canonical text must agree. */
static void check_meaning(const ssw_config *c, const char *text) {
  const size_t len = strlen(text);
  char *more = malloc(len + 32);
  if (!more) return;
  snprintf(more, len + 32, "; fuzz\n\n%s\n; end\n", text);
  ssw_config *d = NULL;
  const int rc = ssw_config_parse(more, FUZZ_NAME, &d);
  free(more);
  if (rc != SSW_SUCCESS) { /* a first line cut short may now parse */
    check_failure(rc, "ssw_config_parse with comments");
    return;
  }
  char why[2048], *ta = NULL, *tb = NULL;
  PROMISE(ssw_config_compare(c, d, why, sizeof why) == 0,
          "comments changed the meaning: %s", why);
  PROMISE(ssw_config_canonical(c, &ta) == SSW_SUCCESS &&
              ssw_config_canonical(d, &tb) == SSW_SUCCESS,
          "canonical");
  PROMISE(strcmp(ta, tb) == 0, "canonical texts differ:\n%s---\n%s", ta, tb);
  free(ta);
  free(tb);
  ssw_config_destroy(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* ssw_config_load refuses files with NUL bytes before parsing; text in
   * memory ends at the first one, so the parser sees the part before it. */
  const uint8_t *nul = memchr(data, '\0', size);
  const size_t len = nul ? (size_t)(nul - data) : size;
  char *text = malloc(len + 1);
  if (!text) return 0;
  if (len) memcpy(text, data, len);
  text[len] = '\0';

  static ssw_config sentinel;
  ssw_config *cfg = &sentinel; /* must be reset to NULL on failure */
  ssw_error_clear();
  const int rc = ssw_config_parse(text, FUZZ_NAME, &cfg);
  if (rc != SSW_SUCCESS) {
    PROMISE(cfg == NULL, "failed parse left the handle set");
    check_failure(rc, "ssw_config_parse");
  } else {
    PROMISE(cfg != NULL, "successful parse gave no config");
    check_config(cfg, text);
    check_meaning(cfg, text);
    const uint64_t points = ssw_grid_size(cfg->axes);
    /* Grids over the limit are refused before any point is visited. */
    if (points <= FUZZ_MAX_VALIDATE_POINTS || points > SSW_GRID_MAX_POINTS) {
      const int vrc = ssw_grid_validate(cfg);
      if (vrc != SSW_SUCCESS) check_failure(vrc, "ssw_grid_validate");
      PROMISE(vrc != SSW_SUCCESS || points <= SSW_GRID_MAX_POINTS,
              "a grid of %llu points was accepted", (unsigned long long)points);
    }
    if (points >= 1 && points <= SSW_GRID_MAX_POINTS)
      check_indices(cfg, points);
  }
  ssw_config_destroy(&cfg);
  PROMISE(cfg == NULL, "destroy did not reset the handle");
  free(text);
  return 0;
}
