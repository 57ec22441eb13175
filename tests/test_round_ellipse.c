/* Near-round ellipses keep their digits (issue: A*A - B*B cancelled in the
 * tensor). At B/A = 1 - 10^-k, k = 4 .. 15, the tensor, the closed form
 * and the measured radius and spacing at the default settings are compared
 * with the exact values, computed here in long double from the same double
 * inputs: A - B and A + B are exact in long double, so the oracle keeps
 * every digit the inputs have. Promises: the tensor to a few ulps (1e-14
 * relative), the closed form to 1e-13, the measurement within 10 rtol of
 * max(d, radius) as for every body (README "Accuracy") with its estimate
 * bounding the error (flagged rtol_not_met where that estimate exceeds
 * rtol, and with no other flag); a body whose Z falls under zero_tol M is
 * classified line-to-line, as docs/config.md says of zero_tol, and measured
 * again with zero_tol 0 (the end of its accepted range), which keeps its
 * circles. */
#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "test_util.h"

#define PROMISE 1e-9 /* README: every quantity within 10 rtol */

static int rtol_flagged; /* results flagged rtol_not_met */

typedef struct {
  long double J, M, L1, L2, Z;
} exact_tensor;

/* model.c's tensor (2010 paper (3.2), Model II offsets), in long double. */
static exact_tensor exact_of(const ssw_body *b, const ssw_params *p) {
  const long double A = p->A, B = p->B, th = p->theta, rho = b->rho;
  const long double AmB2 = (A - B) * (A + B), A2 = A * A, B2 = B * B;
  const long double c = cosl(th), s = sinl(th), pi = 3.14159265358979323846L;
  const long double Irot = b->k_rot * rho * pi * AmB2 * AmB2;
  const long double MF = rho * pi * (B2 * c * c + A2 * s * s);
  const long double NF = rho * pi * (A2 * c * c + B2 * s * s);
  const long double ZF = rho * pi * AmB2 * sinl(2.0L * th) / 2.0L;
  const long double q1 = -(long double)p->s, q2 = p->r;
  const long double row1 = q1 * MF + q2 * ZF, row2 = q1 * ZF + q2 * NF;
  const long double m = b->m, a = p->a, bb = p->b;
  exact_tensor e;
  e.J = b->I0 + m * (a * a + bb * bb) + Irot + (q1 * row1 + q2 * row2);
  e.M = m + MF;
  e.L1 = m * a + row2;
  e.L2 = m * bb - row1;
  e.Z = ZF;
  return e;
}

/* The closed-form spacing of the limit circles (docs/theory/model.md),
 * in long double. */
static long double exact_spacing(const exact_tensor *t) {
  const long double D = t->M * t->J - t->L2 * t->L2;
  const long double E =
      t->J * t->Z * t->Z + 2 * t->Z * t->L1 * t->L2 + t->M * t->L1 * t->L1;
  const long double pi = 3.14159265358979323846L;
  const long double alpha = -D * t->Z / E;
  const long double c1 = sqrtl(D) * (t->L1 * t->M + t->Z * t->L2) / E;
  const long double x = alpha * pi, sx = sinhl(x / 2), sy = sinl(c1 * pi / 2);
  const long double ratio = 2 * (sx * sx + sy * sy) / sinhl(x);
  return sqrtl(2 * pi * D / (t->Z * t->Z) * alpha / (c1 * c1 + alpha * alpha) *
               ratio);
}

static double rel(double x, long double ref) {
  return (double)(fabsl((long double)x - ref) / fabsl(ref));
}

static void check_body(double A, double theta, int k, double zero_tol) {
  const ssw_body body = SEED_BODY;
  const ssw_params p = {theta, 0.2, 0.1, 0.3, -0.2, A, A * (1.0 - pow(10, -k))};
  ssw_tensor t, snapped;
  EXPECT(ssw_model_tensor(&body, &p, &t) == 0, "A %g k %d: tensor refused", A,
         k);
  const exact_tensor x = exact_of(&body, &p);
  const double tol_t = 1e-14;
  EXPECT(rel(t.Z, x.Z) <= tol_t, "A %g k %d: Z %.17g exact %.17Lg (rel %.3g)",
         A, k, t.Z, x.Z, rel(t.Z, x.Z));
  EXPECT(rel(t.J, x.J) <= tol_t && rel(t.M, x.M) <= tol_t &&
             rel(t.L1, x.L1) <= tol_t && rel(t.L2, x.L2) <= tol_t,
         "A %g k %d: J, M, L1, L2 rel. errors %.3g %.3g %.3g %.3g", A, k,
         rel(t.J, x.J), rel(t.M, x.M), rel(t.L1, x.L1), rel(t.L2, x.L2));
  int regime;
  ssw_model_classify(&t, zero_tol, &snapped, &regime);
  const long double radius = fabsl(x.L1 / x.Z), d = exact_spacing(&x);
  if (fabsl(x.Z) <= zero_tol * x.M) {
    EXPECT(regime == SSW_REGIME_LINE_TO_LINE,
           "A %g k %d: Z %.3Lg under zero_tol M but regime %s", A, k, x.Z,
           ssw_regime_name(regime));
    /* zero_tol 0 keeps the circles: measured as any other body. */
    check_body(A, theta, k, 0.0);
    return;
  }
  EXPECT(regime == SSW_REGIME_CIRCLE_TO_CIRCLE, "A %g k %d: regime %s", A, k,
         ssw_regime_name(regime));
  ssw_analytic an;
  ssw_analytic_compute(&snapped, regime, &an);
  EXPECT(rel(an.radius, radius) <= 1e-13 && rel(an.d, d) <= 1e-13,
         "A %g k %d: closed form r %.17g d %.17g, exact %.17Lg %.17Lg", A, k,
         an.radius, an.d, radius, d);
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  const double w0 = 1.5, v0 = 1.0;
  ssw_traj r;
  EXPECT(ssw_extract_batch(&snapped, regime, 1, &w0, &v0, &o, NULL, NULL, &r) ==
             0,
         "A %g k %d: extraction failed", A, k);
  /* No flag but rtol_not_met: at k = 15 the radius (~1e14 A) carries a
   * round-off of 1e-11 to 2e-10 of itself, which reruns cannot reduce;
   * where its estimate exceeds rtol the result says so (README
   * "Accuracy"), and the promise below still holds. */
  EXPECT(r.converged && (r.flags & ~SSW_TRAJ_RTOL) == 0,
         "A %g k %d: converged %d flags %d", A, k, r.converged, r.flags);
  rtol_flagged += (r.flags & SSW_TRAJ_RTOL) != 0;
  const long double len = fmaxl(radius, d);
  const double er =
      (double)(fmaxl(fabsl(r.r_future - radius), fabsl(r.r_past - radius)) /
               len);
  const double ed = (double)(fabsl(r.d - d) / len);
  printf("A %-3g theta %-4g k %2d zero_tol %-5g radius %.3Le  error r %.2e "
         "(est %.2e) "
         "d %.2e (est %.2e)\n",
         A, theta, k, zero_tol, radius, er, (double)(r.err_r / len), ed,
         (double)(r.err_d / len));
  EXPECT(er <= PROMISE && ed <= PROMISE,
         "A %g k %d: r error %.3g, d error %.3g of max(d, radius), promise %g",
         A, k, er, ed, PROMISE);
  EXPECT(r.err_r >= er * len && r.err_d >= ed * len,
         "A %g k %d: estimates %.3g, %.3g under the errors %.3g, %.3g", A, k,
         (double)(r.err_r / len), (double)(r.err_d / len), er, ed);
}

int main(void) {
  static const double axes[] = {0.5, 3.0}, thetas[] = {M_PI / 3, 2.3};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 4; k <= 15; k++)
        check_body(axes[i], thetas[j], k, SSW_ZERO_TOL_DEFAULT);
  printf("%d of the results flagged rtol_not_met (round-off of the radius "
         "at the largest k)\n",
         rtol_flagged);
  return TEST_RESULT();
}
