/* Tensor construction, Model II reduction, positive definiteness, regimes. */
#include <string.h>

#include "sleighsweep/error.h"
#include "sleighsweep/model.h"
#include "test_util.h"

/* Model I written out independently from docs/theory/model.md sec. 1
 * (A^2 - B^2 as (A - B)(A + B), as that section says it is computed). */
static ssw_tensor model_one(const ssw_body *bd, const ssw_params *p) {
  const double A2 = p->A * p->A, B2 = p->B * p->B, th = p->theta;
  const double AmB2 = (p->A - p->B) * (p->A + p->B);
  ssw_tensor t;
  t.J = bd->I0 + bd->m * (p->a * p->a + p->b * p->b) +
        bd->k_rot * bd->rho * M_PI * AmB2 * AmB2;
  const double c2 = cos(th) * cos(th), s2 = sin(th) * sin(th);
  t.M = bd->m + bd->rho * M_PI * (B2 * c2 + A2 * s2);
  t.N = bd->m + bd->rho * M_PI * (A2 * c2 + B2 * s2);
  t.L1 = bd->m * p->a;
  t.L2 = bd->m * p->b;
  t.Z = bd->rho * M_PI * AmB2 * 0.5 * sin(2 * th);
  return t;
}

static void test_model_one_exact(void) {
  unsigned long long seed = 7;
  for (int i = 0; i < 1000; i++) {
    ssw_body bd = {.m = test_uniform(&seed, 0.1, 5),
                   .I0 = test_uniform(&seed, 0.05, 2),
                   .rho = test_uniform(&seed, 0, 3),
                   .k_rot = SSW_KROT_PAPERS};
    const double B = test_uniform(&seed, 0.05, 1);
    ssw_params p = {test_uniform(&seed, 0, M_PI),
                    test_uniform(&seed, -1, 1),
                    test_uniform(&seed, -1, 1),
                    0.0,
                    0.0,
                    B + test_uniform(&seed, 0.01, 1),
                    B};
    ssw_tensor t, ref = model_one(&bd, &p);
    if (ssw_model_tensor(&bd, &p, &t) != SSW_SUCCESS) continue;
    /* (r, s) = (0, 0) must be Model I: every entry identical in value. */
    EXPECT(t.J == ref.J && t.M == ref.M && t.N == ref.N && t.L1 == ref.L1 &&
               t.L2 == ref.L2 && t.Z == ref.Z,
           "sample %d differs from Model I: J %.17g/%.17g M %.17g/%.17g", i,
           t.J, ref.J, t.M, ref.M);
  }
}

/* Model II (r, s) = 0 gives the bits of the same call with r = s = 0 and
 * the change of reference point is an exact congruence: the tensor about P
 * equals T^T I_C T with T the rigid map of velocities. */
static void test_model_two_congruence(void) {
  unsigned long long seed = 11;
  for (int i = 0; i < 500; i++) {
    ssw_body bd = {.m = 1.0,
                   .I0 = 0.5,
                   .rho = test_uniform(&seed, 0.1, 2),
                   .k_rot = SSW_KROT_PAPERS};
    ssw_params p = {test_uniform(&seed, 0, M_PI),
                    0.0,
                    0.0,
                    test_uniform(&seed, -0.5, 0.5),
                    test_uniform(&seed, -0.5, 0.5),
                    0.6,
                    0.25};
    ssw_body fluid_only = bd;
    fluid_only.m = 1e-300, fluid_only.I0 = 0; /* isolate the fluid part */
    ssw_tensor t;
    if (ssw_model_tensor(&fluid_only, &p, &t) != SSW_SUCCESS) continue;
    ssw_params c = p;
    c.r = c.s = 0.0;
    ssw_tensor tc;
    ssw_model_tensor(&fluid_only, &c, &tc);
    /* Velocity of C: (w, v1 - w s, v2 + w r). Energy must match. */
    const double w = test_uniform(&seed, -1, 1),
                 v1 = test_uniform(&seed, -1, 1),
                 v2 = test_uniform(&seed, -1, 1);
    const double u1 = v1 - w * p.s, u2 = v2 + w * p.r;
    const double e_p = t.J * w * w + t.M * v1 * v1 + t.N * v2 * v2 -
                       2 * t.L2 * w * v1 + 2 * t.L1 * w * v2 +
                       2 * t.Z * v1 * v2;
    const double e_c =
        tc.J * w * w + tc.M * u1 * u1 + tc.N * u2 * u2 + 2 * tc.Z * u1 * u2;
    EXPECT_REL(e_p, e_c, 1e-13, "Model II kinetic energy vs centre frame");
  }
}

static void test_positive_definite_sample(void) {
  unsigned long long seed = 3;
  int n = 0;
  for (int i = 0; i < 20000; i++) {
    ssw_body bd = {.m = test_uniform(&seed, 0.1, 3),
                   .I0 = test_uniform(&seed, 0.01, 2),
                   .rho = test_uniform(&seed, 0, 3),
                   .k_rot = SSW_KROT_PAPERS};
    const double B = test_uniform(&seed, 0.05, 1);
    ssw_params p = {test_uniform(&seed, 0, M_PI),
                    test_uniform(&seed, -1, 1),
                    test_uniform(&seed, -1, 1),
                    test_uniform(&seed, -1, 1),
                    test_uniform(&seed, -1, 1),
                    B + test_uniform(&seed, 1e-3, 1),
                    B};
    ssw_tensor t;
    if (ssw_model_tensor(&bd, &p, &t) != SSW_SUCCESS) continue;
    n++;
    /* Independent check: Cholesky of the 3x3 tensor succeeds. */
    const double a11 = t.J, a21 = -t.L2, a31 = t.L1, a22 = t.M, a32 = t.Z,
                 a33 = t.N;
    const double l11 = sqrt(a11), l21 = a21 / l11, l31 = a31 / l11;
    const double d22 = a22 - l21 * l21;
    const double l22 = sqrt(d22), l32 = (a32 - l31 * l21) / l22;
    const double d33 = a33 - l31 * l31 - l32 * l32;
    EXPECT(d22 > 0 && d33 > 0, "accepted tensor not PD: %g %g", d22, d33);
    EXPECT(ssw_model_D(&t) > 0, "D <= 0");
  }
  EXPECT(n > 19000, "only %d of 20000 random bodies valid", n);
}

static void expect_reject(ssw_body bd, ssw_params p, const char *word) {
  ssw_tensor t;
  ssw_error_clear();
  const int rc = ssw_model_tensor(&bd, &p, &t);
  EXPECT(rc == SSW_ERR_BODY, "expected SSW_ERR_BODY for %s, got %d", word, rc);
  EXPECT(strstr(ssw_error_user_message(), word) != NULL,
         "message '%s' does not name '%s'", ssw_error_user_message(), word);
}

static void test_rejections(void) {
  const ssw_body bd = SEED_BODY;
  const ssw_params p = SEED_PARAMS(0.0);
  ssw_params q = p;
  q.A = 0.3;
  expect_reject(bd, q, "A > B");
  q = p, q.B = 0.0;
  expect_reject(bd, q, "B");
  q = p, q.a = NAN;
  expect_reject(bd, q, "a");
  ssw_body b2 = bd;
  b2.m = 0;
  expect_reject(b2, p, "mass m");
  b2 = bd, b2.I0 = -1;
  expect_reject(b2, p, "I0");
  b2 = bd, b2.rho = -0.1;
  expect_reject(b2, p, "rho");
  b2 = bd, b2.k_rot = -1;
  expect_reject(b2, p, "k_rot");
  /* Classical sleigh with I0 = 0 and the centre of mass on the blade's
   * normal line (a = 0): D = M J - L2^2 = 0, the reduced dynamics are
   * singular, and the message says so. */
  b2 = bd, b2.I0 = 0, b2.rho = 0;
  q = p, q.a = 0.0, q.b = 0.3;
  expect_reject(b2, q, "D = M J - L2^2");
  expect_reject(b2, q, "not positive definite");
}

/* Regular reduced dynamics (D > 0) are accepted although the 3x3 tensor
 * may be singular: I0 = 0 on a dry plane (the tractrix), and a uniformly
 * scaled body, whose M J (1e600) is not representable. */
static void test_acceptance(void) {
  ssw_body bd = SEED_BODY;
  ssw_params p = SEED_PARAMS(0.1);
  bd.I0 = 0, bd.rho = 0;
  ssw_tensor t;
  EXPECT(ssw_model_tensor(&bd, &p, &t) == SSW_SUCCESS, "tractrix refused: %s",
         ssw_error_user_message());
  EXPECT(!ssw_model_positive_definite(&t), "I0 = 0, rho = 0: 3x3 should be "
                                           "singular");
  double rel;
  EXPECT(ssw_model_regular(&t, &rel), "tractrix not regular");
  /* D / (M J) = m a^2 / (a^2 + b^2) / m for I0 = 0, rho = 0. */
  EXPECT_REL(rel, p.a * p.a / (p.a * p.a + p.b * p.b), 1e-14, "D / (M J)");
  const ssw_params q = SEED_PARAMS(0.1);
  ssw_body big = SEED_BODY, unit = SEED_BODY;
  big.m = 1e300, big.I0 = 1e300, big.rho = 0;
  unit.m = 1, unit.I0 = 1, unit.rho = 0;
  ssw_tensor tb, tu;
  EXPECT(ssw_model_tensor(&big, &q, &tb) == SSW_SUCCESS,
         "m = I0 = 1e300 refused: %s", ssw_error_user_message());
  ssw_model_tensor(&unit, &q, &tu);
  double rb, ru;
  ssw_model_regular(&tb, &rb), ssw_model_regular(&tu, &ru);
  EXPECT_REL(rb, ru, 1e-15, "scaled D / (M J)");
  /* The scaled body keeps its regime (L1 = 0.2e300 is not a zero). */
  int rg, ru_;
  ssw_tensor s;
  ssw_model_classify(&tb, SSW_ZERO_TOL_DEFAULT, &s, &rg);
  ssw_model_classify(&tu, SSW_ZERO_TOL_DEFAULT, &s, &ru_);
  EXPECT(rg == ru_, "scaled body regime %s vs %s", ssw_regime_name(rg),
         ssw_regime_name(ru_));
}

static void classify_case(ssw_params p, double rho, int want, const char *w) {
  ssw_body bd = SEED_BODY;
  bd.rho = rho;
  ssw_tensor t, s;
  int regime = -1;
  EXPECT(ssw_model_tensor(&bd, &p, &t) == SSW_SUCCESS, "%s: invalid body", w);
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &s, &regime);
  EXPECT(regime == want, "%s: regime %s, expected %s", w,
         ssw_regime_name(regime), ssw_regime_name(want));
  if (want == SSW_REGIME_LINE_TO_LINE || want == SSW_REGIME_UNIFORM)
    EXPECT(s.Z == 0.0, "%s: Z not snapped to 0 (%g)", w, s.Z);
  if (want == SSW_REGIME_SPIN_REVERSAL || want == SSW_REGIME_UNIFORM)
    EXPECT(s.L1 == 0.0, "%s: L1 not snapped to 0 (%g)", w, s.L1);
}

static void test_regimes(void) {
  ssw_params p = SEED_PARAMS(0.0);
  classify_case(p, 1.0, SSW_REGIME_CIRCLE_TO_CIRCLE, "seed");
  p.theta = 0.0;
  classify_case(p, 1.0, SSW_REGIME_LINE_TO_LINE, "theta = 0");
  p.theta = M_PI / 2; /* sin(pi) = 1.2e-16: must count as Z = 0 */
  classify_case(p, 1.0, SSW_REGIME_LINE_TO_LINE, "theta = pi/2");
  p.theta = M_PI;
  classify_case(p, 1.0, SSW_REGIME_LINE_TO_LINE, "theta = pi");
  p = SEED_PARAMS(0.0), p.a = 0.0;
  classify_case(p, 1.0, SSW_REGIME_SPIN_REVERSAL, "a = 0");
  p.a = -0.5 + 5 * 0.1; /* linspace(-0.5, 0.5, 11)[5] = 5.55e-17, not 0 */
  classify_case(p, 1.0, SSW_REGIME_SPIN_REVERSAL, "a = linspace zero");
  p.theta = M_PI / 2;
  classify_case(p, 1.0, SSW_REGIME_UNIFORM, "a = 0, theta = pi/2");
  p = SEED_PARAMS(0.0);
  classify_case(p, 0.0, SSW_REGIME_LINE_TO_LINE, "classical sleigh");
  p.a = 1e-9; /* small but real */
  classify_case(p, 1.0, SSW_REGIME_CIRCLE_TO_CIRCLE, "a = 1e-9");
}

int main(void) {
  test_model_one_exact();
  test_model_two_congruence();
  test_positive_definite_sample();
  test_rejections();
  test_acceptance();
  test_regimes();
  return TEST_RESULT();
}
