/* [refine] classes = chaos (docs/refine.md, "chaos"): the largest Lyapunov
 * exponent's sign, beyond SSW_REFINE_LYAP_SIGMAS times its error, on a
 * synthetic field lambda(x) = 0.1 (x - 1.37) over forcing_freq:
 * - classes: +1, -1 beyond the band, 0 within it, none when NaN or
 *   without an error estimate;
 * - an edge whose ends are separated (-1, +1) is refined, and its crossing
 *   lies within its position_error of the root 1.37 (the bracket holds
 *   it), within tol when the error bars are small;
 * - with error bars 1e-3 (a band of +-0.03 about the root) the evaluations
 *   that land in the band give no side: the crossing's bracket still holds
 *   the root, however the band falls;
 * - an edge with an end in the band (zero within its error) is not
 *   refined but listed unresolved (reason not_separated), as is one with
 *   an end without a value (end_without_class);
 * - a config asking for chaos without a forced grid point is refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/refine.h"
#include "test_util.h"

#define ROOT 1.37

static const char CONFIG[] = "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
                             "torque_amp = 0.5\ndrag_w = 0.1\ndrag_v = 0.1\n"
                             "[grid]\ntheta = 60deg\na = 0.1\n"
                             "A = 0.5\nB = 0.3\nforcing_freq = %s\n"
                             "[output]\nfile = unused.h5\n"
                             "[refine]\nclasses = chaos\ntol = 1e-6\n";

typedef struct {
  double err; /* every evaluation's error bar */
  int evals;
} field;

static void sample_at(double x, double err, ssw_refine_sample *s) {
  memset(s, 0, sizeof *s);
  s->lyap = 0.1 * (x - ROOT);
  s->lyap_err = err;
}

static int eval(void *ctx, uint64_t lo, int32_t indicators,
                const ssw_grid_values *v, ssw_refine_sample *out) {
  (void)lo, (void)indicators;
  field *f = ctx;
  ssw_grid_values w = *v;
  sample_at(*ssw_grid_values_field(&w, SSW_AXIS_FORCING_FREQ), f->err, out);
  f->evals++;
  return SSW_SUCCESS;
}

static ssw_config *parse(const char *values) {
  char text[1024];
  snprintf(text, sizeof text, CONFIG, values);
  ssw_config *cfg = NULL;
  EXPECT(ssw_config_parse(text, "test", &cfg) == SSW_SUCCESS, "config: %s",
         ssw_error_message());
  return cfg;
}

static void check_classes(void) {
  ssw_refine_sample s;
  const int ind = SSW_REFINE_IND_LYAPUNOV;
  sample_at(2.0, 1e-3, &s);
  EXPECT(ssw_refine_class(ind, &s) == 1, "above the band");
  sample_at(1.0, 1e-3, &s);
  EXPECT(ssw_refine_class(ind, &s) == -1, "below the band");
  sample_at(ROOT + 0.02, 1e-3, &s); /* 2e-3 <= 3 x 1e-3 */
  EXPECT(ssw_refine_class(ind, &s) == 0, "within the band");
  sample_at(ROOT + 0.04, 1e-3, &s); /* 4e-3 > 3e-3 */
  EXPECT(ssw_refine_class(ind, &s) == 1, "just beyond the band");
  s.lyap = NAN;
  EXPECT(ssw_refine_class(ind, &s) == SSW_REFINE_NO_CLASS, "NaN: none");
  sample_at(2.0, NAN, &s);
  EXPECT(ssw_refine_class(ind, &s) == SSW_REFINE_NO_CLASS, "no estimate");
}

/* The grid's edges from samples at its points (error bars err). */
static void grid_samples(const ssw_config *cfg, double err,
                         ssw_refine_sample *s, uint64_t n) {
  for (uint64_t i = 0; i < n; i++)
    sample_at(ssw_grid_value(cfg->axes, i, SSW_AXIS_FORCING_FREQ), err, &s[i]);
}

static void check_solve(double err, double want_within) {
  ssw_config *cfg = parse("0.5, 3");
  if (!cfg) return;
  ssw_refine_spec sp;
  ssw_refine_spec_of(cfg, &sp);
  ssw_refine_sample s[2];
  grid_samples(cfg, err, s, 2);
  ssw_refine_edge *e = NULL;
  size_t ne = 0;
  EXPECT(ssw_refine_edges(cfg, &sp, s, &e, &ne) == SSW_SUCCESS && ne == 1,
         "err %g: %zu edges, want 1", err, ne);
  if (ne == 1) {
    field f = {err, 0};
    ssw_refine_crossing c[4];
    size_t n = 0;
    EXPECT(ssw_refine_edge_solve(cfg, &sp, e, eval, &f, c, &n) == SSW_SUCCESS &&
               n == 1,
           "err %g: solve: %zu crossings", err, n);
    const double d = fabs(c[0].position - ROOT);
    EXPECT(n == 1 && d <= c[0].position_error && d <= want_within,
           "err %g: crossing at %.9g +- %.3g, root %g", err, c[0].position,
           c[0].position_error, ROOT);
    printf("err %g: crossing %.9g +- %.3g after %d evaluations\n", err,
           c[0].position, c[0].position_error, f.evals);
  }
  free(e);
  ssw_config_destroy(&cfg);
}

static void check_unresolved(void) {
  /* 1.5 is within the band of error bars 1e-2 (+-0.3 about the root) */
  ssw_config *cfg = parse("1, 1.5, 2");
  if (!cfg) return;
  ssw_refine_spec sp;
  ssw_refine_spec_of(cfg, &sp);
  ssw_refine_sample s[3];
  grid_samples(cfg, 1e-2, s, 3);
  ssw_refine_edge *e = NULL;
  ssw_refine_unresolved *u = NULL;
  size_t ne = 9, nu = 0;
  EXPECT(ssw_refine_edges(cfg, &sp, s, &e, &ne) == SSW_SUCCESS && ne == 0,
         "band: %zu edges refined, want 0", ne);
  EXPECT(ssw_refine_unresolved_edges(cfg, &sp, s, &u, &nu) == SSW_SUCCESS &&
             nu == 2,
         "band: %zu unresolved, want 2", nu);
  for (size_t k = 0; k < nu; k++)
    EXPECT(u[k].reason == SSW_REFINE_NOT_SEPARATED &&
               u[k].indicator == SSW_REFINE_IND_LYAPUNOV,
           "band: edge %zu reason %d", k, u[k].reason);
  free(e), free(u), e = NULL, u = NULL;
  s[0].lyap = NAN; /* no value at an end */
  s[1].lyap_err = 1e-6;
  EXPECT(ssw_refine_unresolved_edges(cfg, &sp, s, &u, &nu) == SSW_SUCCESS &&
             nu == 1 && u[0].reason == SSW_REFINE_NO_CLASS_END,
         "NaN end: %zu unresolved, reason %d", nu, nu ? u[0].reason : -1);
  free(u);
  ssw_config_destroy(&cfg);
}

static void check_refusal(void) {
  ssw_config *cfg = NULL;
  static const char unforced[] =
      "[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\ntheta = 60deg\na = 0.1\n"
      "A = 0.5\nB = 0.3\nforcing_freq = 1, 2\n[output]\nfile = u.h5\n"
      "[refine]\nclasses = chaos\n";
  EXPECT(ssw_config_parse(unforced, "test", &cfg) != SSW_SUCCESS &&
             strstr(ssw_error_message(), "chaos: no grid point is forced"),
         "chaos without forcing: %s", ssw_error_message());
  ssw_config_destroy(&cfg);
}

int main(void) {
  check_classes();
  check_solve(1e-9, 1e-6); /* separated everywhere: located to tol */
  check_solve(1e-3, 0.1);  /* a band of +-0.03: the bracket holds the root */
  check_unresolved();
  check_refusal();
  return TEST_RESULT();
}
