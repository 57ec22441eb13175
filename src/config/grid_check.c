/* The grid-wide validation of a config: its size, the semi-axes, and every
 * point's tensor (ssw_grid_validate, config.h). */
#include "sleighsweep/config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"
#include "sleighsweep/fmt.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/point.h"

/* Points checked per OpenMP work item in ssw_grid_validate. */
#define VALIDATE_BLOCK 4096

static const char *label(const ssw_config *cfg) {
  return cfg->path ? cfg->path : "config";
}

static int check_size(const ssw_config *cfg) {
  const uint64_t size = ssw_grid_size(cfg->axes);
  if (size >= 1 && size <= SSW_GRID_MAX_POINTS) return SSW_SUCCESS;
  char shape[256];
  size_t used = 0;
  double product = 1.0;
  int longest = 0;
  for (int a = 0; a < SSW_NAXES; a++) {
    const ssw_axis *ax = &cfg->axes[a];
    product *= ax->n;
    if (ax->n > cfg->axes[longest].n) longest = a;
    used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%s(%d)",
                             a ? " x " : "", ssw_axis_names[a], ax->n);
  }
  SSW_CHECK(size != 0, SSW_ERR_CONFIG, "%s:0: [grid]: an axis is empty: %s",
            label(cfg), shape);
  return SSW_RAISE(SSW_ERR_CONFIG,
                   "%s:%d: [grid] %s: the grid %s has %.17g points, more "
                   "than the %" PRIu64 " (2^31) supported; use fewer values "
                   "(the longest axis is %s)",
                   label(cfg), cfg->axes[longest].line, ssw_axis_names[longest],
                   shape, product, SSW_GRID_MAX_POINTS,
                   ssw_axis_names[longest]);
}

/* B > 0 and A > B at every point: values increase, so compare the ends. */
static int check_semi_axes(const ssw_config *cfg) {
  const ssw_axis *A = &cfg->axes[SSW_AXIS_A_SEMI];
  const ssw_axis *B = &cfg->axes[SSW_AXIS_B_SEMI];
  char b0[32], a0[32], b1[32];
  ssw_fmt_shortest(B->values[0], b0);
  ssw_fmt_shortest(A->values[0], a0);
  ssw_fmt_shortest(B->values[B->n - 1], b1);
  SSW_CHECK(B->values[0] > 0, SSW_ERR_CONFIG,
            "%s:%d: [grid] B: the minor semi-axis must be > 0 everywhere, "
            "but the smallest B is %s",
            label(cfg), B->line, b0);
  SSW_CHECK(A->values[0] > B->values[B->n - 1], SSW_ERR_CONFIG,
            "%s:%d: [grid] A: every grid point needs A > B, but the "
            "smallest A = %s (line %d) is not greater than the largest "
            "B = %s (line %d)",
            label(cfg), A->line, a0, A->line, b1, B->line);
  return SSW_SUCCESS;
}

/* A grid point the run can integrate: a regular body that the scheme
 * can bind (the lab-frame RATTLE needs a positive definite 3x3 tensor). */
static int point_status(const ssw_config *cfg, const ssw_grid_values *v) {
  ssw_tensor t;
  ssw_body body = cfg->body;
  ssw_grid_values_apply(v, &body);
  return ssw_point_check(&body, &v->body, cfg->integ.method, &t);
}

/* Smallest flat index whose tensor fails, UINT64_MAX if none. Blocks of
 * points run in parallel; each walks its points with an odometer. */
static uint64_t first_bad_point(const ssw_config *cfg, uint64_t size) {
  const uint64_t nblocks = (size + VALIDATE_BLOCK - 1) / VALIDATE_BLOCK;
  uint64_t first = UINT64_MAX;
  /* clang-format off */
#pragma omp parallel for default(none) shared(cfg, size, nblocks) \
    reduction(min: first) schedule(dynamic, 4) if (nblocks > 1)
  /* clang-format on */
  for (uint64_t blk = 0; blk < nblocks; blk++) {
    uint64_t i = blk * VALIDATE_BLOCK;
    if (i > first) continue; /* this thread already has an earlier one */
    const uint64_t end = size - i < VALIDATE_BLOCK ? size : i + VALIDATE_BLOCK;
    int idx[SSW_NAXES];
    ssw_grid_unravel(cfg->axes, i, idx);
    for (; i < end; i++, ssw_grid_next(cfg->axes, idx)) {
      ssw_grid_values v;
      ssw_grid_values_of(cfg->axes, idx, &v);
      if (point_status(cfg, &v) != SSW_SUCCESS) {
        if (i < first) first = i;
        break;
      }
    }
  }
  return first;
}

/* The first line of the [grid] axes the user wrote (0 if none). */
static int grid_line(const ssw_config *cfg) {
  int line = 0;
  for (int a = 0; a < SSW_NAXES; a++)
    if (cfg->axes[a].line > 0 && (line == 0 || cfg->axes[a].line < line))
      line = cfg->axes[a].line;
  return line;
}

static int check_points(const ssw_config *cfg) {
  const uint64_t bad = first_bad_point(cfg, ssw_grid_size(cfg->axes));
  if (bad == UINT64_MAX) return SSW_SUCCESS;
  ssw_grid_values v;
  ssw_grid_values_at(cfg->axes, bad, &v);
  /* Recompute on this thread for the message (it is thread-local). */
  const int status = point_status(cfg, &v);
  char why[640];
  snprintf(why, sizeof why, "%s",
           status ? ssw_error_user_message() : "(not reproducible)");
  char where[640]; /* the body's axes, and the run's that are swept */
  size_t used = 0;
  for (int a = 0; a < SSW_NAXES && used < sizeof where; a++)
    if (a < SSW_NBODY_AXES || cfg->axes[a].n > 1)
      used += (size_t)snprintf(where + used, sizeof where - used, "%s%s=%.10g",
                               a ? " " : "", ssw_axis_names[a],
                               *ssw_grid_values_field(&v, a));
  return SSW_RAISE(SSW_ERR_CONFIG,
                   "%s:%d: [grid]: grid point %" PRIu64
                   " (%s) with [body] m=%g I0=%g rho=%g is invalid: %s",
                   label(cfg), grid_line(cfg), bad, where, cfg->body.m,
                   cfg->body.I0, cfg->body.rho, why);
}

int ssw_grid_validate(const ssw_config *cfg) {
  SSW_CHECK(cfg, SSW_ERR_ARG, "ssw_grid_validate: cfg is NULL");
  SSW_CALL(check_size(cfg));
  SSW_CALL(check_semi_axes(cfg));
  /* The body's keys alone, where no run axis is swept; otherwise a swept
   * run value (forcing_freq beside a torque_amp of one value) completes
   * the body only at each grid point, which check_points validates, body
   * and point together. */
  int swept = 0;
  for (int a = SSW_NBODY_AXES; a < SSW_NAXES; a++)
    swept |= cfg->axes[a].n > 1;
  if (!swept && ssw_model_check_body(&cfg->body) != SSW_SUCCESS) {
    char why[640]; /* copy: the message buffer is rewritten below */
    snprintf(why, sizeof why, "%s", ssw_error_user_message());
    return SSW_RAISE(SSW_ERR_CONFIG, "%s:0: [body]: %s", label(cfg), why);
  }
  return check_points(cfg);
}
