/* The effect table and the scaler (include/sleighsweep/effect.h,
 * src/point/scale.c):
 * - every field of ssw_tensor is declared, with its dimension, by exactly
 *   one effect, and every field of ssw_traj is in the scaler's table (a
 *   field added without its dimension fails here, naming its neighbours);
 * - a tensor and a trajectory's result survive a scale round trip bit for
 *   bit, and each field is scaled by exactly its dimension's power of two;
 * - a model's capabilities follow from its effects (the ideal fluid has
 *   them all, circulation's torque takes the closed form and reversibility,
 *   drag takes everything but autonomy and gives rest), and each model is
 *   served by the extractor whose needs it meets;
 * - a test-only effect no extractor serves (it takes conservation and the
 *   line of equilibria, and gives no rest) is refused by ssw_point_setup,
 *   what `point`, `run` (the grid's validation, ssw_point_check) and the
 *   dry run all call, for every scheme: SSW_ERR_BODY (exit status 2), the
 *   message naming the effect and the capabilities missing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/point/scale.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/point.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"

typedef struct {
  const char *name;
  size_t offset, size;
} span;

static int by_offset(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The spans tile [0, size) but for alignment padding: no overlap, and no
 * gap of a whole double (a field nobody declared). */
static void check_tiling(const char *what, span *s, int n, size_t size) {
  qsort(s, (size_t)n, sizeof *s, by_offset);
  size_t end = 0;
  const char *prev = "(start)";
  for (int i = 0; i <= n; i++) {
    const size_t start = i < n ? s[i].offset : size;
    EXPECT(start >= end, "%s: %s overlaps %s", what, i < n ? s[i].name : "",
           prev);
    EXPECT(start < end + sizeof(double),
           "%s: bytes [%zu, %zu) between %s and %s are in no declared field: "
           "a field without its dimension would not be scaled",
           what, end, start, prev, i < n ? s[i].name : "(end)");
    if (i < n) end = s[i].offset + s[i].size, prev = s[i].name;
  }
}

static void check_tensor_fields(void) {
  int n;
  const ssw_effect *e = ssw_effect_table(&n);
  span s[64];
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < e[i].n_fields && k < 64; j++, k++)
      s[k] = (span){e[i].fields[j].name, e[i].fields[j].offset, sizeof(double)};
  check_tiling("ssw_tensor", s, k, sizeof(ssw_tensor));
}

static void check_traj_fields(void) {
  int n;
  const ssw_traj_field *f = ssw_units_traj_fields(&n);
  span *s = malloc((size_t)n * sizeof *s);
  for (int i = 0; i < n; i++)
    s[i] = (span){f[i].dim.name, f[i].dim.offset, f[i].size};
  check_tiling("ssw_traj", s, n, sizeof(ssw_traj));
  free(s);
}

/* A tensor with every field set: scaled, each field is its value times
 * 2^-(mass m + length l - time k); scaled back, the same bits. */
static void check_tensor_round_trip(void) {
  ssw_tensor t;
  double *x = (double *)&t;
  for (size_t i = 0; i < sizeof t / sizeof(double); i++)
    x[i] = 1.0 + 0.1 * (double)i;
  t.M = 48.0, t.J = 3000.0; /* units 2^4 mass, 2^3 length */
  ssw_units u;
  ssw_tensor s, back;
  ssw_units_body(&t, &u, &s);
  EXPECT(u.mass == 4 && u.len == 3 && u.fixed, "units %d %d fixed %d", u.mass,
         u.len, u.fixed);
  back = s;
  int n;
  const ssw_effect *e = ssw_effect_table(&n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < e[i].n_fields; j++) {
      const ssw_field_dim *f = &e[i].fields[j];
      const int p = f->mass * u.mass + f->length * u.len - f->time * u.speed;
      const double a = *(const double *)((const char *)&t + f->offset);
      double *b = (double *)((char *)&back + f->offset);
      EXPECT(*(const double *)((const char *)&s + f->offset) == ldexp(a, -p),
             "tensor field %s not scaled by 2^%d", f->name, -p);
      *b = ldexp(*b, p);
    }
  EXPECT(memcmp(&t, &back, sizeof t) == 0, "tensor scale round trip");
}

/* A result with every double field set: back in caller's units and again
 * in the scaled ones, the same bits; integers untouched. */
static void check_traj_round_trip(void) {
  ssw_traj r, orig;
  memset(&r, 0, sizeof r);
  int n;
  const ssw_traj_field *f = ssw_units_traj_fields(&n);
  for (int i = 0; i < n; i++) {
    char *p = (char *)&r + f[i].dim.offset;
    if (f[i].is_double)
      *(double *)p = 1.0 + 0.01 * i;
    else
      memset(p, 0x5a, f[i].size);
  }
  orig = r;
  const ssw_units u = {.mass = 2, .len = -3, .speed = 5, .fixed = 1};
  const ssw_units inv = {.mass = -2, .len = 3, .speed = -5, .fixed = 1};
  ssw_units_result(&u, &r);
  EXPECT(r.H0 == ldexp(orig.H0, 2 - 6 + 10), "H0 is an energy: %g", r.H0);
  EXPECT(r.t0 == ldexp(orig.t0, -5) && r.d == ldexp(orig.d, -3) &&
             r.w_past == ldexp(orig.w_past, 5) &&
             r.v_future == ldexp(orig.v_future, 2) && r.dphi == orig.dphi,
         "times, lengths, rates and angles");
  for (int i = 0; i < n; i++) {
    const int p = f[i].dim.mass * u.mass + f[i].dim.length * u.len -
                  f[i].dim.time * u.speed;
    const double *a = (const double *)((const char *)&orig + f[i].dim.offset);
    const double *b = (const double *)((const char *)&r + f[i].dim.offset);
    if (f[i].is_double)
      EXPECT(*b == ldexp(*a, p), "traj field %s not scaled by 2^%d",
             f[i].dim.name, p);
  }
  ssw_units_result(&inv, &r);
  EXPECT(memcmp(&r, &orig, sizeof r) == 0, "result scale round trip");
}

static void check_caps(void) {
  ssw_tensor t = {.J = 1, .M = 2, .N = 1, .L1 = 0.3, .L2 = 0.1, .Z = 0.2};
  char buf[256];
  const unsigned ideal = ssw_model_caps(&t);
  ssw_model_caps_text(ideal, buf, sizeof buf);
  EXPECT(ideal == (SSW_MCAP_AUTONOMOUS | SSW_MCAP_CONSERVATIVE |
                   SSW_MCAP_EQUILIBRIA_LINE | SSW_MCAP_CLOSED_FORM_2010 |
                   SSW_MCAP_BLADE_CLOSED_FORM | SSW_MCAP_EXACT_PATH |
                   SSW_MCAP_TIME_REVERSIBLE),
         "ideal fluid: %s", buf);
  t.lift = 0.5; /* circulation about Model I: no torque */
  EXPECT(ssw_model_caps(&t) == (ideal & ~SSW_MCAP_BLADE_CLOSED_FORM),
         "lift without torque");
  t.kappa = 0.2;
  EXPECT(ssw_model_caps(&t) == (SSW_MCAP_AUTONOMOUS | SSW_MCAP_CONSERVATIVE |
                                SSW_MCAP_EQUILIBRIA_LINE | SSW_MCAP_EXACT_PATH |
                                SSW_MCAP_CIRC_CLOSED_FORM),
         "circulation");
  const ssw_effect *why = ssw_effect_lacking(&t, SSW_MCAP_CLOSED_FORM_2010);
  EXPECT(why && strcmp(why->name, "circulation") == 0, "who takes it");
  t.cv = 0.1;
  ssw_model_caps_text(ssw_model_caps(&t), buf, sizeof buf);
  /* Drag keeps circulation's closed-form twins computed (as before the
   * table); the rest extractor fills the results. */
  EXPECT(ssw_model_caps(&t) == (SSW_MCAP_AUTONOMOUS | SSW_MCAP_COMES_TO_REST |
                                SSW_MCAP_CIRC_CLOSED_FORM),
         "circulation and drag: %s", buf);
}

static void check_extractors(void) {
  ssw_tensor t = {.J = 1, .M = 2, .N = 1, .L1 = 0.3, .L2 = 0.1, .Z = 0.2};
  const ssw_extractor *x = ssw_extractor_for(&t);
  EXPECT(x && strcmp(x->name, "limit_circles") == 0, "ideal fluid: %s",
         x ? x->name : "none");
  t.kappa = 0.2, t.lift = 1.0;
  x = ssw_extractor_for(&t);
  EXPECT(x && strcmp(x->name, "limit_circles") == 0, "circulation");
  t.cw = 0.1;
  x = ssw_extractor_for(&t);
  EXPECT(x && strcmp(x->name, "rest") == 0, "drag: %s", x ? x->name : "none");
  int n;
  const ssw_extractor *tab = ssw_extractor_table(&n);
  for (int i = 0; i < n; i++)
    EXPECT(tab[i].needs & (SSW_MCAP_AUTONOMOUS | SSW_MCAP_TIME_PERIODIC),
           "%s: every extractor here assumes an autonomous or a periodically "
           "forced model",
           tab[i].name);
  /* The periodic torque (forcing.md): with drag or without, the forced
   * extractor; not autonomous, conservative, at rest or on a line of
   * equilibria, time-periodic. */
  for (int shape = 0; shape < 2; shape++) {
    ssw_tensor f = t;
    f.fomega = 2.0;
    if (shape)
      f.fimp = 0.3;
    else
      f.ftau = 0.3;
    x = ssw_extractor_for(&f);
    EXPECT(x && strcmp(x->name, "forced") == 0, "forcing: %s",
           x ? x->name : "none");
    EXPECT(ssw_model_caps(&f) == SSW_MCAP_TIME_PERIODIC, "forcing caps %u",
           ssw_model_caps(&f));
    f.cw = 0.0;
    x = ssw_extractor_for(&f);
    EXPECT(x && strcmp(x->name, "forced") == 0, "forcing without drag");
    const ssw_effect *by = ssw_effect_lacking(&f, SSW_MCAP_AUTONOMOUS);
    EXPECT(by && strcmp(by->name, "forcing") == 0, "who takes autonomy");
    EXPECT(ssw_effect_rate(&f) == 2.0, "the forcing's rate");
  }
}

static unsigned loses_none(const ssw_tensor *t) {
  (void)t;
  return 0u;
}
static int always_on(const ssw_tensor *t) {
  (void)t;
  return 1;
}
static unsigned takes_circles(const ssw_tensor *t) {
  (void)t;
  return SSW_MCAP_CONSERVATIVE | SSW_MCAP_EQUILIBRIA_LINE |
         SSW_MCAP_CLOSED_FORM_2010 | SSW_MCAP_BLADE_CLOSED_FORM |
         SSW_MCAP_EXACT_PATH;
}

/* A test-only effect that declares a rate of its own (as a forcing's
 * frequency would) and takes nothing: the step control resolves it, so a
 * trajectory takes many more steps with it on than off. */
static int rate_on_flag = 0;
static int rate_on(const ssw_tensor *t) {
  (void)t;
  return rate_on_flag;
}
static double rate_fast(const ssw_tensor *t) {
  (void)t;
  return 64.0;
}

static void check_rate(void) {
  const ssw_effect fast = {.name = "test_rate",
                           .description = "test-only: a fast time scale",
                           .theory = "effects.md",
                           .keys = {NULL},
                           .on = rate_on,
                           .loses = loses_none,
                           .rate = rate_fast};
  EXPECT(ssw_effect_register(&fast) == 0, "register");
  ssw_tensor t;
  EXPECT(ssw_model_tensor(&SEED_BODY, &SEED_PARAMS(0.0), &t) == 0, "tensor");
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.rtol = 1e-8, o.estimate = 0;
  const double w0 = 1.5, v0 = 1.0;
  ssw_traj slow, quick;
  EXPECT(ssw_extract_batch(&t, SSW_REGIME_CIRCLE_TO_CIRCLE, 1, &w0, &v0, &o,
                           NULL, NULL, &slow) == 0,
         "extract");
  rate_on_flag = 1;
  EXPECT(ssw_effect_rate(&t) == 64.0, "rate %g", ssw_effect_rate(&t));
  EXPECT(ssw_extract_batch(&t, SSW_REGIME_CIRCLE_TO_CIRCLE, 1, &w0, &v0, &o,
                           NULL, NULL, &quick) == 0,
         "extract");
  rate_on_flag = 0;
  EXPECT(quick.steps > 10 * slow.steps && quick.converged,
         "steps %lld with the effect's rate, %lld without",
         (long long)quick.steps, (long long)slow.steps);
  EXPECT_REL(quick.d, slow.d, 1e-6, "the same motion");
}

static void check_unserved(void) {
  const ssw_effect unserved = {.name = "test_unserved",
                               .description = "test-only: no extractor",
                               .theory = "effects.md",
                               .keys = {NULL},
                               .n_fields = 0,
                               .on = always_on,
                               .loses = takes_circles};
  EXPECT(ssw_effect_register(&unserved) == 0, "register");
  int n;
  const ssw_method *m = ssw_method_table(&n);
  for (int i = 0; i < n; i++) {
    ssw_point pt;
    const int rc =
        ssw_point_setup(&SEED_BODY, &SEED_PARAMS(0.0), 1e-12, &m[i], &pt);
    const char *msg = ssw_error_user_message();
    EXPECT(rc == SSW_ERR_BODY && ssw_error_exit_status(rc) == 2,
           "%s: rc %d, exit %d", m[i].name, rc, ssw_error_exit_status(rc));
    EXPECT(strstr(msg, "test_unserved") && strstr(msg, "conservative") &&
               strstr(msg, "line-of-equilibria") &&
               strstr(msg, "comes-to-rest"),
           "%s: the message names the effect and what is missing: %s",
           m[i].name, msg);
    ssw_error_clear();
  }
}

int main(void) {
  check_tensor_fields();
  check_traj_fields();
  check_tensor_round_trip();
  check_traj_round_trip();
  check_caps();
  check_extractors();
  check_rate();
  check_unserved(); /* last: the registered effect stays on */
  return TEST_RESULT();
}
