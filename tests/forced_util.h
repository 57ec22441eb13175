/* Shared by the driven sleigh's C tests (test_forced, test_mass): the
 * integrator settings of a scheme at an rtol, and one forced trajectory
 * of a body at a grid point, its failure recorded as a test failure. */
#ifndef SSW_TEST_FORCED_UTIL_H
#define SSW_TEST_FORCED_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/point.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"

static inline ssw_integrator forced_defaults(const char *scheme, double rtol) {
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.method = ssw_method_find(scheme);
  o.rtol = rtol;
  return o;
}

static inline void forced_run(const ssw_body *b, const ssw_params *p,
                              const char *scheme, double rtol, double w0,
                              double v0, ssw_tensor *t, ssw_forced *r) {
  EXPECT(ssw_model_tensor(b, p, t) == 0, "tensor: %s",
         ssw_error_user_message());
  const ssw_integrator o = forced_defaults(scheme, rtol);
  EXPECT(ssw_forced_run(t, w0, v0, &o, r) == 0, "forced run: %s",
         ssw_error_user_message());
}

/* Body i of a seeded wide batch (test_kicked, test_lyapunov): blade
 * angle, centre of mass and ellipse centre anywhere, thin to near-round
 * ellipses (B = 0.499 on every fourth), mass and inertia over decades,
 * no fluid on every third and else rho over decades; the rest is the
 * seed body's. */
static inline void forced_random_body(unsigned long long *seed, int i,
                                      ssw_body *b, ssw_params *p) {
  *b = (ssw_body)SEED_BODY;
  *p = (ssw_params)SEED_PARAMS(0.0);
  p->theta = test_uniform(seed, 0.0, M_PI);
  p->a = test_uniform(seed, -0.4, 0.4);
  p->b = test_uniform(seed, -0.2, 0.2);
  p->B = i % 4 == 0 ? 0.499 : test_uniform(seed, 0.02, 0.48);
  p->r = test_uniform(seed, -0.3, 0.3);
  b->m = exp(test_uniform(seed, log(0.2), log(5.0)));
  b->I0 = exp(test_uniform(seed, log(0.05), log(2.0)));
  b->rho = i % 3 == 0 ? 0.0 : exp(test_uniform(seed, log(0.1), log(5.0)));
}

/* The drag C = c K of a body: its entries from its own tensor. */
static inline void forced_proportional(ssw_body *b, const ssw_params *p,
                                       double c) {
  ssw_tensor t;
  b->drag_w = b->drag_v = b->drag_wv = 0.0;
  EXPECT(ssw_model_tensor(b, p, &t) == 0, "tensor");
  b->drag_w = c * t.J, b->drag_v = c * t.M, b->drag_wv = -c * t.L2;
}

/* Body i's forced run r against an independent one (ref, another scheme
 * at a tighter rtol): the same cycle; mean_omega and mean_v within 1e-8
 * of max(|x|, the cycle's amplitude in x), the Floquet moduli within
 * 1e-7 (docs/theory/forcing.md's promises). Counts in *bounded the
 * differences that the two estimates together bound (each bounds its
 * own run's error), in *total all; worst[3] keeps the largest relative
 * differences of the means and the largest of the moduli. */
static inline void forced_compare(int i, const ssw_forced *r,
                                  const ssw_forced *ref, int *bounded,
                                  int *total, double worst[3]) {
  EXPECT(r->attractor == SSW_ATTRACTOR_PERIODIC && r->converged &&
             ref->attractor == r->attractor &&
             ref->cycle_periods == r->cycle_periods,
         "body %d: %s n %d (reference %s n %d)", i,
         ssw_attractor_name(r->attractor), r->cycle_periods,
         ssw_attractor_name(ref->attractor), ref->cycle_periods);
  const double x[2] = {r->q.mean_omega, r->q.mean_v};
  const double y[2] = {ref->q.mean_omega, ref->q.mean_v};
  const double sc[2] = {fmax(fabs(y[0]), r->q.amp_omega),
                        fmax(fabs(y[1]), r->q.amp_v)};
  const double err[2] = {r->err.mean_omega + ref->err.mean_omega,
                         r->err.mean_v + ref->err.mean_v};
  for (int k = 0; k < 2; k++) {
    const double d = fabs(x[k] - y[k]);
    EXPECT(d <= 1e-8 * sc[k],
           "body %d: mean %s %.17g, reference %.17g (scale %.3g)", i,
           k ? "v" : "omega", x[k], y[k], sc[k]);
    worst[k] = fmax(worst[k], d / sc[k]);
    *bounded += d <= err[k], (*total)++;
    if (getenv("SSW_TEST_VERBOSE"))
      printf("body %d %s: diff %.3g estimates %.3g\n", i, k ? "v" : "omega", d,
             err[k]);
  }
  for (int k = 0; k < 2; k++) {
    const double d = fabs(r->q.floquet_abs[k] - ref->q.floquet_abs[k]);
    worst[2] = fmax(worst[2], d);
    EXPECT(d <= 1e-7, "body %d: |mu_%d| %.17g, reference %.17g", i, k + 1,
           r->q.floquet_abs[k], ref->q.floquet_abs[k]);
  }
}

#endif
