/* The kicked sleigh's exact period map (docs/theory/forcing.md, "Kicks
 * with C = c K: an exact period map") against the forced extractor:
 * - on a seeded batch of kicked bodies with C = c K and no circulation
 *   (Model I and II, thin to round ellipses, c from 0.03 to 1, impulses
 *   0.05 to 1, Omega 0.5 to 4), at the defaults: the measured mean_omega
 *   and mean_v within 1e-8 of max(|x|, the cycle's amplitude in x) of the
 *   exact map's cycle means, the Floquet moduli within 1e-7, and the
 *   extractor's estimates bounding the differences on at least 95% (the
 *   promises of docs/theory/forcing.md);
 * - the exact map's own check: the product of its moduli equals the exact
 *   Floquet product of eq. 2 (exp(n T (h.<zeta>/D - tr(K^-1 C))), here
 *   with the exact map's means) to 1e-9 on real multipliers (a complex
 *   pair's moduli are both sqrt(det));
 * - where it does not apply (circulation, C not proportional to K, the
 *   sine torque) the analytic values stay NaN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "forced_util.h"
#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"
#include "test_util.h"

static int run(const ssw_body *b, const ssw_params *p, double w0, double v0,
               ssw_tensor *t, ssw_forced *r, ssw_forced_closed *a) {
  EXPECT(ssw_model_tensor(b, p, t) == 0, "tensor: %s",
         ssw_error_user_message());
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  if (ssw_forced_run(t, w0, v0, &o, r) != 0) return -1;
  ssw_forced_closed_form(t, r, a);
  return 0;
}

static void check_batch(void) {
  unsigned long long seed = 20261128;
  int bounded = 0, total = 0, measured = 0;
  const int nbody = 12;
  for (int i = 0; i < nbody; i++) {
    ssw_body b;
    ssw_params p;
    forced_random_body(&seed, i, &b, &p);
    b.forcing_shape = SSW_FORCING_KICKS;
    b.forcing_freq = test_uniform(&seed, 0.5, 4.0);
    b.torque_amp = (i % 2 ? -1.0 : 1.0) * test_uniform(&seed, 0.05, 1.0);
    forced_proportional(&b, &p, exp(test_uniform(&seed, log(0.03), log(1.0))));
    ssw_tensor t;
    ssw_forced r;
    ssw_forced_closed a;
    const double w0 = test_uniform(&seed, -1.0, 1.0);
    const double v0 = test_uniform(&seed, 0.1, 1.0);
    if (run(&b, &p, w0, v0, &t, &r, &a) != 0) {
      EXPECT(0, "body %d: %s", i, ssw_error_user_message());
      continue;
    }
    EXPECT(ssw_kicked_applies(&t), "body %d: the exact map applies", i);
    EXPECT(r.attractor == SSW_ATTRACTOR_PERIODIC && r.converged && !r.flags,
           "body %d: %s converged %d flags %d", i,
           ssw_attractor_name(r.attractor), r.converged, r.flags);
    if (r.attractor != SSW_ATTRACTOR_PERIODIC) continue;
    measured++;
    const double x[2] = {r.q.mean_omega, r.q.mean_v};
    const double y[2] = {a.mean_omega, a.mean_v};
    const double e[2] = {r.err.mean_omega, r.err.mean_v};
    const double sc[2] = {fmax(fabs(y[0]), r.q.amp_omega),
                          fmax(fabs(y[1]), r.q.amp_v)};
    for (int k = 0; k < 2; k++) {
      EXPECT(fabs(x[k] - y[k]) <= 1e-8 * sc[k],
             "body %d: mean %s %.17g, exact map %.17g (scale %.3g)", i,
             k ? "v" : "omega", x[k], y[k], sc[k]);
      bounded += fabs(x[k] - y[k]) <= e[k], total++;
      EXPECT(fabs(r.q.floquet_abs[k] - a.floquet_abs[k]) <= 1e-7,
             "body %d: |mu_%d| %.17g, exact map %.17g", i, k + 1,
             r.q.floquet_abs[k], a.floquet_abs[k]);
      bounded += fabs(r.q.floquet_abs[k] - a.floquet_abs[k]) <=
                 r.err.floquet_abs[k] + 1e-10 * a.floquet_abs[0],
          total++;
      if (getenv("SSW_TEST_VERBOSE"))
        printf("body %d %s: diff %.3g est %.3g; |mu| diff %.3g est %.3g\n", i,
               k ? "v" : "omega", fabs(x[k] - y[k]), e[k],
               fabs(r.q.floquet_abs[k] - a.floquet_abs[k]),
               r.err.floquet_abs[k]);
    }
    /* The exact map's multipliers against eq. 2 with its own means
     * (exp of n T times the mean divergence; real pairs only, where the
     * moduli are the multipliers' absolute values). */
    const double D = t.J * t.M - t.L2 * t.L2;
    const double kw1 = t.L1 * t.M + t.Z * t.L2, kw2 = t.L1 * t.L2 + t.Z * t.J;
    const double trKC = (t.M * t.cw + 2.0 * t.L2 * t.cwv + t.J * t.cv) / D;
    const double prod = exp(r.cycle_periods * r.period *
                            ((kw2 * a.mean_omega - kw1 * a.mean_v) / D - trKC));
    EXPECT_REL(a.floquet_abs[0] * a.floquet_abs[1], prod, 1e-9,
               "exact map's multipliers against eq. 2");
  }
  EXPECT(measured >= nbody - 1, "only %d of %d bodies on a cycle", measured,
         nbody);
  EXPECT(bounded >= 0.95 * total, "estimates bound %d of %d", bounded, total);
  printf("kicked batch: %d bodies on cycles, estimates bound %d of %d\n",
         measured, bounded, total);
}

/* Where the exact map does not apply, its values stay NaN. */
static void check_refusals(void) {
  for (int k = 0; k < 3; k++) {
    ssw_body b = SEED_BODY;
    ssw_params p = SEED_PARAMS(0.0);
    b.forcing_shape = SSW_FORCING_KICKS;
    b.forcing_freq = 2.0, b.torque_amp = 0.3;
    forced_proportional(&b, &p, 0.2);
    if (k == 0) b.Gamma = 0.5, p.r = 0.2;           /* circulation */
    if (k == 1) b.drag_v *= 1.5;                    /* C not c K */
    if (k == 2) b.forcing_shape = SSW_FORCING_SINE; /* the sine */
    ssw_tensor t;
    ssw_forced r;
    ssw_forced_closed a;
    EXPECT(run(&b, &p, 1.0, 0.5, &t, &r, &a) == 0, "case %d runs", k);
    EXPECT(!ssw_kicked_applies(&t), "case %d: the map does not apply", k);
    EXPECT(isnan(a.floquet_abs[0]) && isnan(a.floquet_abs[1]),
           "case %d: analytic moduli %g %g", k, a.floquet_abs[0],
           a.floquet_abs[1]);
    if (k != 2) /* the sine has its small-forcing mean velocity */
      EXPECT(isnan(a.mean_omega) && isnan(a.mean_v),
             "case %d: analytic means %g %g", k, a.mean_omega, a.mean_v);
  }
}

int main(void) {
  check_batch();
  check_refusals();
  return TEST_RESULT();
}
