/* The rest as a forced attractor (docs/theory/forcing.md, "The rest"):
 * a forcing that does not reach the sleigh leaves the period map's fixed
 * point (0, 0), which the forced extractor detects (SSW_FORCED_REST_*)
 * instead of running to the step cap, and measures:
 * - a mass at rest (mass_amp = 0) on a seeded wide batch (thin and round
 *   ellipses, Model I and II, rho 0 to 5, masses, inertias and drag over
 *   decades, initial energies over four decades): attractor `rest`,
 *   converged, flags 0, in under SSW_FORCED_PERIODS_MAX periods; its
 *   multipliers are those of the linear system K0 zeta' = -C zeta, the
 *   eigenvalues' moduli of exp(-K0^-1 C T) (K0 the tensor with the mass
 *   added), within 1e-9 (ten times the default rtol, the promise on the
 *   multipliers) and within their estimates on >= 90%; its exponents
 *   are the eigenvalues' real parts within 1e-8 (the Lyapunov spectrum's
 *   promise on cycles); their sum equals the mean divergence to 1e-9;
 * - a mass oscillating across the blade at mass_x = 0 on the seed body
 *   (its forcing does not reach the sleigh): `rest`, converged;
 * - a torque reaches it: never `rest`. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "forced_util.h"
#include "sleighsweep/forced.h"
#include "test_util.h"

/* The exponents, descending, of K0 zeta' = -C zeta (the real parts of
 * -K0^-1 C's eigenvalues) and the moduli of exp(-K0^-1 C T)'s. */
static void exact_rest(const ssw_tensor *t, double lam[2], double mu[2]) {
  const double mp = t->mp, x0 = t->mx, y0 = t->my;
  const double J0 = t->J + mp * (x0 * x0 + y0 * y0), L20 = t->L2 + mp * y0;
  const double M0 = t->M + mp, det = J0 * M0 - L20 * L20;
  /* K0 = [[J0, -L20], [-L20, M0]]; A = -K0^-1 C */
  const double Ki[2][2] = {{M0 / det, L20 / det}, {L20 / det, J0 / det}};
  const double C[2][2] = {{t->cw, t->cwv}, {t->cwv, t->cv}};
  double A[2][2];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      A[i][j] = -(Ki[i][0] * C[0][j] + Ki[i][1] * C[1][j]);
  const double tr = A[0][0] + A[1][1];
  const double dA = A[0][0] * A[1][1] - A[0][1] * A[1][0];
  const double complex s = csqrt(0.25 * tr * tr - dA);
  const double T = 2.0 * M_PI / t->fomega;
  const double l1 = creal(0.5 * tr + s), l2 = creal(0.5 * tr - s);
  lam[0] = fmax(l1, l2), lam[1] = fmin(l1, l2);
  mu[0] = exp(lam[0] * T), mu[1] = exp(lam[1] * T);
}

static void check_static_batch(void) {
  unsigned long long seed = 20261129;
  int bounded = 0, total = 0;
  double worst = 0.0, worst_defect = 0.0, worst_lam = 0.0;
  for (int i = 0; i < 12; i++) {
    ssw_body b;
    ssw_params p;
    forced_random_body(&seed, i, &b, &p);
    b.drag_w = exp(test_uniform(&seed, log(0.03), log(3.0)));
    b.drag_v = exp(test_uniform(&seed, log(0.03), log(3.0)));
    b.drag_wv = test_uniform(&seed, -0.5, 0.5) * sqrt(b.drag_w * b.drag_v);
    b.forcing_freq = exp(test_uniform(&seed, log(0.3), log(5.0)));
    b.mass_p = exp(test_uniform(&seed, log(0.05), log(2.0)));
    b.mass_x = test_uniform(&seed, -0.5, 0.5);
    b.mass_y = test_uniform(&seed, -0.2, 0.2);
    b.mass_amp = 0.0;
    const double sc = exp(test_uniform(&seed, log(0.1), log(10.0)));
    const double w0 = sc * test_uniform(&seed, -1.0, 1.0);
    const double v0 = sc * test_uniform(&seed, 0.1, 1.0);
    ssw_tensor t;
    ssw_forced r;
    forced_run(&b, &p, "hamel8", 1e-10, w0, v0, &t, &r);
    const ssw_integrator o = forced_defaults("hamel8", 1e-10);
    EXPECT(ssw_forced_lyapunov(&t, &o, &r) == 0, "body %d: spectrum", i);
    EXPECT(r.attractor == SSW_ATTRACTOR_REST && r.converged && r.flags == 0,
           "body %d: %s converged %d flags %d after %d periods", i,
           ssw_attractor_name(r.attractor), r.converged, r.flags,
           r.transient_periods);
    if (getenv("SSW_TEST_VERBOSE"))
      printf("body %d: mu %.3g %.3g +- %.2g %.2g, lambda %.6g %.6g, "
             "%d periods, %lld steps\n",
             i, r.q.floquet_abs[0], r.q.floquet_abs[1], r.err.floquet_abs[0],
             r.err.floquet_abs[1], r.q.lyapunov[0], r.q.lyapunov[1],
             r.transient_periods, (long long)r.steps);
    double lam[2], mu[2];
    exact_rest(&t, lam, mu);
    for (int k = 0; k < 2; k++) {
      EXPECT_ABS(r.q.lyapunov[k], lam[k], 1e-8, "rest exponent");
      worst_lam = fmax(worst_lam, fabs(r.q.lyapunov[k] - lam[k]));
      const double d = fabs(r.q.floquet_abs[k] - mu[k]);
      EXPECT(d <= 1e-9, "body %d: |mu_%d| %.17g, exact %.17g", i, k + 1,
             r.q.floquet_abs[k], mu[k]);
      worst = fmax(worst, d);
      bounded += d <= r.err.floquet_abs[k], total++;
    }
    worst_defect = fmax(worst_defect, fabs(r.lyapunov_sum_defect));
    EXPECT(fabs(r.lyapunov_sum_defect) <= 1e-9, "body %d: sum defect %.3g", i,
           r.lyapunov_sum_defect);
  }
  EXPECT(10 * bounded >= 9 * total, "estimates bound %d of %d", bounded, total);
  printf("static mass: largest multiplier error %.3g, bounded %d of %d, "
         "largest exponent error %.3g, largest sum defect %.3g\n",
         worst, bounded, total, worst_lam, worst_defect);
}

static void check_across_and_torque(void) {
  ssw_body b = SEED_BODY;
  ssw_params p = SEED_PARAMS(0.0);
  p.a = 0.1, p.b = 0.0, p.theta = 0.0;
  b.drag_w = 1.0, b.drag_v = 2.0, b.forcing_freq = 2.0;
  b.mass_p = 0.1, b.mass_x = 0.0, b.mass_amp = 0.05;
  ssw_tensor t;
  ssw_forced r;
  forced_run(&b, &p, "hamel8", 1e-10, 1.5, 1.0, &t, &r);
  EXPECT(r.attractor == SSW_ATTRACTOR_REST && r.converged && r.flags == 0,
         "mass across the blade at x = 0: %s converged %d flags %d",
         ssw_attractor_name(r.attractor), r.converged, r.flags);
  b.torque_amp = 0.5;
  forced_run(&b, &p, "hamel8", 1e-10, 1.5, 1.0, &t, &r);
  EXPECT(r.attractor == SSW_ATTRACTOR_PERIODIC && r.converged,
         "with a torque: %s converged %d", ssw_attractor_name(r.attractor),
         r.converged);
}

int main(void) {
  check_static_batch();
  check_across_and_torque();
  return TEST_RESULT();
}
