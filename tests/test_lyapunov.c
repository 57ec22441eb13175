/* The Lyapunov spectrum of forced trajectories (docs/theory/forcing.md,
 * "The Lyapunov spectrum"), at the defaults:
 * - a seeded wide batch of forced, damped bodies (thin and round
 *   ellipses, Model I and II, masses and inertias over decades, drag from
 *   weak to strong, sine torques and kicks, some with circulation, some
 *   with a moving mass): on every trajectory the exact identity
 *   lambda_1 + lambda_2 = <div> (forcing.md eq. F2's Liouville formula:
 *   the divergence's mean over the same periods) to 1e-9, or to
 *   the two exponents' error estimates where these are larger (the
 *   differences' round-off on a map that contracts hard); lambda_1 >=
 *   lambda_2; on a cycle each exponent equal to ln |mu_i| / (n T) of the
 *   cycle's measured Floquet moduli within the two estimates together,
 *   or 1e-8 (where the modulus is resolved: its error below a tenth of
 *   it);
 * - a seeded batch of kicked bodies with C = c K: the exponents within
 *   max(1e-4, their error estimate) of the exact period map's
 *   (analytic.lyapunov), the estimates bounding the differences on at
 *   least 90%;
 * - an accelerating trajectory keeps NaN (no stationary spectrum). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "forced_util.h"
#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"
#include "test_util.h"

static int verbose(void) { return getenv("SSW_TEST_VERBOSE") != NULL; }

/* The forced run and its spectrum at the defaults. */
static int spectrum(const ssw_body *b, const ssw_params *p, double w0,
                    double v0, ssw_tensor *t, ssw_forced *r) {
  EXPECT(ssw_model_tensor(b, p, t) == 0, "tensor: %s",
         ssw_error_user_message());
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  if (ssw_forced_run(t, w0, v0, &o, r) != 0) return -1;
  return ssw_forced_lyapunov(t, &o, r);
}

/* The QR window (the spectrum of a trajectory that is not a cycle) run
 * from a cycle's point as if unresolved: its exponents against the
 * cycle's (from its monodromy) within the two estimates together; the
 * sum identity as everywhere. Counts the bounded ones. */
static void check_qr(int i, const ssw_tensor *t, const ssw_forced *r,
                     int *bounded, int *total) {
  ssw_forced q = *r;
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  q.attractor = SSW_ATTRACTOR_UNRESOLVED;
  q.end_w = r->cycle_w, q.end_v = r->cycle_v;
  EXPECT(ssw_forced_lyapunov(t, &o, &q) == 0, "QR window");
  EXPECT(fabs(q.lyapunov_sum_defect) <= 1e-9, "body %d: QR sum defect %.3g", i,
         q.lyapunov_sum_defect);
  for (int k = 0; k < 2; k++) {
    const double d = fabs(q.q.lyapunov[k] - r->q.lyapunov[k]);
    const double e = q.err.lyapunov[k] + r->err.lyapunov[k];
    *bounded += d <= e, (*total)++;
    if (verbose())
      printf("body %d QR: lambda_%d %.12g (cycle %.12g) diff %.2g err %.2g\n",
             i, k + 1, q.q.lyapunov[k], r->q.lyapunov[k], d, e);
  }
}

/* The identity and, on a cycle, the Floquet moduli's exponents. */
static void check_one(int i, const ssw_forced *r, double *worst_defect) {
  const double *l = r->q.lyapunov, *e = r->err.lyapunov;
  EXPECT(isfinite(l[0]) && isfinite(l[1]) && isfinite(e[0]) && isfinite(e[1]),
         "body %d: lyapunov %g %g (errors %g %g)", i, l[0], l[1], e[0], e[1]);
  EXPECT(l[0] >= l[1], "body %d: lyapunov %.17g < %.17g", i, l[0], l[1]);
  const double d = fabs(r->lyapunov_sum_defect);
  *worst_defect = fmax(*worst_defect, d);
  EXPECT(d <= 1e-9, "body %d: sum defect %.3g (estimates %.3g %.3g)", i, d,
         e[0], e[1]);
  if (verbose())
    printf("body %d: %s n %d lyapunov %.10g %.10g err %.2g %.2g defect "
           "%.2g\n",
           i, ssw_attractor_name(r->attractor), r->cycle_periods, l[0], l[1],
           e[0], e[1], r->lyapunov_sum_defect);
  if (r->attractor != SSW_ATTRACTOR_PERIODIC) return;
  const double nT = r->cycle_periods * r->period;
  for (int k = 0; k < 2; k++) {
    const double mu = r->q.floquet_abs[k], emu = r->err.floquet_abs[k];
    if (!(emu < 0.1 * mu)) continue; /* the modulus is not resolved */
    const double x = log(mu) / nT, ex = emu / mu / nT;
    EXPECT(fabs(l[k] - x) <= fmax(1e-8, e[k] + ex),
           "body %d: lambda_%d %.17g, ln|mu|/(nT) %.17g (estimates %.3g "
           "%.3g)",
           i, k + 1, l[k], x, e[k], ex);
  }
}

static void check_batch(void) {
  unsigned long long seed = 20261129;
  double worst = 0.0;
  int bounded = 0, total = 0;
  const int nbody = test_batch_size(12);
  for (int i = 0; i < nbody; i++) {
    ssw_body b;
    ssw_params p;
    forced_random_body(&seed, i, &b, &p);
    b.drag_w = exp(test_uniform(&seed, log(0.03), log(2.0)));
    b.drag_v = exp(test_uniform(&seed, log(0.03), log(2.0)));
    b.drag_wv = test_uniform(&seed, -0.5, 0.5) * sqrt(b.drag_w * b.drag_v);
    b.forcing_freq = exp(test_uniform(&seed, log(0.3), log(5.0)));
    b.forcing_phase = test_uniform(&seed, 0.0, 6.3);
    b.torque_amp = test_uniform(&seed, 0.05, 1.5);
    if (i % 4 == 1) b.forcing_shape = SSW_FORCING_KICKS;
    if (i % 3 == 2 && b.rho > 0) b.Gamma = test_uniform(&seed, -1.0, 1.0);
    if (i % 4 == 2) { /* the moving mass, alone on every other one */
      b.mass_p = exp(test_uniform(&seed, log(0.05), log(1.0)));
      b.mass_x = test_uniform(&seed, -0.5, 0.5);
      b.mass_y = test_uniform(&seed, -0.2, 0.2);
      b.mass_amp = test_uniform(&seed, 0.05, 0.3);
      if (i % 8 == 2) b.torque_amp = 0.0;
    }
    const double w0 = test_uniform(&seed, -1.0, 1.0);
    const double v0 = test_uniform(&seed, 0.1, 1.0);
    ssw_tensor t;
    ssw_forced r;
    if (spectrum(&b, &p, w0, v0, &t, &r) != 0) {
      EXPECT(0, "body %d: %s", i, ssw_error_user_message());
      continue;
    }
    EXPECT(r.attractor == SSW_ATTRACTOR_PERIODIC && r.converged,
           "body %d: %s converged %d flags %d", i,
           ssw_attractor_name(r.attractor), r.converged, r.flags);
    if (verbose())
      printf("  body %d: --theta %.17g --a %.17g --b %.17g --B %.17g --r "
             "%.17g --m %.17g --I0 %.17g --rho %.17g --drag-w %.17g "
             "--drag-v %.17g --drag-wv %.17g --forcing-freq %.17g "
             "--forcing-phase %.17g --torque-amp %.17g --Gamma %.17g "
             "--mass-p %.17g --mass-x %.17g --mass-y %.17g --mass-amp %.17g "
             "--omega0 %.17g --v0 %.17g%s\n",
             i, p.theta, p.a, p.b, p.B, p.r, b.m, b.I0, b.rho, b.drag_w,
             b.drag_v, b.drag_wv, b.forcing_freq, b.forcing_phase, b.torque_amp,
             b.Gamma, b.mass_p, b.mass_x, b.mass_y, b.mass_amp, w0, v0,
             b.forcing_shape == SSW_FORCING_KICKS ? " --forcing-shape kicks"
                                                  : "");
    check_one(i, &r, &worst);
    if (i % 2 == 0) check_qr(i, &t, &r, &bounded, &total);
  }
  EXPECT(10 * bounded >= 9 * total, "QR windows: estimates bound %d of %d",
         bounded, total);
  printf("batch: %d bodies, largest sum defect %.3g; QR windows bounded by "
         "their estimates %d of %d\n",
         nbody, worst, bounded, total);
}

static void check_kicked(void) {
  unsigned long long seed = 20261130;
  int bounded = 0, total = 0;
  double worst = 0.0, worst_defect = 0.0;
  for (int i = 0; i < test_batch_size(10); i++) {
    ssw_body b = SEED_BODY;
    ssw_params p = SEED_PARAMS(0.0);
    p.theta = test_uniform(&seed, 0.0, M_PI);
    p.a = test_uniform(&seed, -0.4, 0.4);
    p.B = test_uniform(&seed, 0.05, 0.45);
    p.r = test_uniform(&seed, -0.3, 0.3);
    b.rho = i % 3 == 0 ? 0.0 : exp(test_uniform(&seed, log(0.1), log(5.0)));
    b.forcing_shape = SSW_FORCING_KICKS;
    b.forcing_freq = test_uniform(&seed, 0.5, 4.0);
    b.torque_amp = (i % 2 ? -1.0 : 1.0) * test_uniform(&seed, 0.05, 1.0);
    forced_proportional(&b, &p, exp(test_uniform(&seed, log(0.03), log(1.0))));
    ssw_tensor t;
    ssw_forced r;
    if (spectrum(&b, &p, 0.5, 0.5, &t, &r) != 0) {
      EXPECT(0, "kicked body %d: %s", i, ssw_error_user_message());
      continue;
    }
    ssw_forced_closed a;
    ssw_forced_closed_form(&t, &r, &a);
    check_one(100 + i, &r, &worst_defect);
    for (int k = 0; k < 2; k++) {
      const double d = fabs(r.q.lyapunov[k] - a.lyapunov[k]);
      EXPECT(d <= fmax(1e-4, r.err.lyapunov[k]),
             "kicked body %d: lambda_%d %.17g, exact map's %.17g", i, k + 1,
             r.q.lyapunov[k], a.lyapunov[k]);
      worst = fmax(worst, d);
      bounded += d <= r.err.lyapunov[k], total++;
    }
  }
  EXPECT(10 * bounded >= 9 * total, "estimates bound %d of %d", bounded, total);
  printf("kicked: largest difference from the exact map %.3g, bounded %d of "
         "%d, largest sum defect %.3g\n",
         worst, bounded, total, worst_defect);
}

/* No drag: the energy grows, no stationary spectrum: NaN. */
static void check_accelerating(void) {
  ssw_body b = SEED_BODY;
  ssw_params p = SEED_PARAMS(0.0);
  b.forcing_freq = 2.0, b.torque_amp = 0.3;
  ssw_tensor t;
  ssw_forced r;
  EXPECT(spectrum(&b, &p, 1.0, 0.5, &t, &r) == 0, "accelerating run");
  EXPECT(r.attractor == SSW_ATTRACTOR_ACCELERATING && isnan(r.q.lyapunov[0]) &&
             isnan(r.lyapunov_sum_defect),
         "accelerating: %s, lyapunov %g", ssw_attractor_name(r.attractor),
         r.q.lyapunov[0]);
}

int main(void) {
  check_batch();
  check_kicked();
  check_accelerating();
  return TEST_RESULT();
}
