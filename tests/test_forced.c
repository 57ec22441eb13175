/* The periodic torque and the forced extractor against exact identities
 * and closed forms (docs/theory/forcing.md):
 * - the Floquet product identity (forcing.md eq. F2): the product of the
 *   measured multipliers of a cycle equals exp(n T (h.<zeta>/D -
 *   tr(K^-1 C))) with the measured means, to 1e-10, for sine and kicks,
 *   with and without circulation;
 * - the small-forcing mean velocity (eq. F3) on the seed body with
 *   C = [[0.3, 0.05], [0.05, 0.5]], Omega = 2: its relative error is the
 *   O(eps^2) the theory says (1.43e-2, 3.64e-3, 9.14e-4 at eps = 0.4, 0.2,
 *   0.1, to 2%), falling by 4 +- 0.2 per halving;
 * - mean_omega and mean_v at the defaults (hamel8, rtol 1e-10) against an
 *   independent integration (dopri5 at rtol 1e-12) on a seeded random
 *   batch of forced damped bodies, within 1e-8 of max(|x|, the cycle's
 *   amplitude in x), and the two runs' estimates together bounding the
 *   difference (each bounds its own run's error), every time;
 * - the Hamel step's discrete energy balance under the effect's own
 *   torque: node energy change = sum h tau(t_k + h/2) w_k - sum h zeta_k^T
 *   C zeta_k, and the kicks' I (w- + w+) / 2, to round-off;
 * - the growth slope without drag (eq. 4) within its O(eps^2) (1e-3 at
 *   eps = 0.2);
 * - the capabilities: rattle refuses forcing; an unforced body is bit for
 *   bit the same with the forcing keys at their defaults. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forced_util.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/point.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"

/* The seed body with the drag C = [[0.3, 0.05], [0.05, 0.5]] and a sine
 * torque. */
static ssw_body forced_body(double eps, double Omega) {
  ssw_body b = SEED_BODY;
  b.drag_w = 0.3, b.drag_v = 0.5, b.drag_wv = 0.05;
  b.forcing_freq = Omega, b.torque_amp = eps;
  return b;
}

/* The product of the multipliers, det of the monodromy: real. */
static double product(const ssw_forced *r) {
  return r->q.floquet_abs[0] * r->q.floquet_abs[1] *
         cos(r->q.floquet_arg[0] + r->q.floquet_arg[1]);
}

static void check_floquet_product(void) {
  const struct {
    double eps, Gamma, r;
    int kicks;
  } cases[] = {{0.2, 0, 0, 0},
               {0.6, 0, 0, 0},
               {0.3, 0, 0, 1},
               {0.4, 0.5, 0.2, 0},
               {0.3, 0.5, 0.2, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ssw_body b = forced_body(cases[i].eps, 2.0);
    b.Gamma = cases[i].Gamma;
    b.forcing_shape = cases[i].kicks ? SSW_FORCING_KICKS : SSW_FORCING_SINE;
    ssw_params p = SEED_PARAMS(0.05);
    p.r = cases[i].r;
    ssw_tensor t;
    ssw_forced r;
    forced_run(&b, &p, "hamel8", 1e-10, 1.5, 1.0, &t, &r);
    EXPECT(r.attractor == SSW_ATTRACTOR_PERIODIC && r.converged && !r.flags,
           "case %zu: %s, converged %d, flags %d", i,
           ssw_attractor_name(r.attractor), r.converged, r.flags);
    ssw_forced_closed a;
    ssw_forced_closed_form(&t, &r, &a);
    EXPECT_REL(product(&r), a.floquet_product, 1e-10, "Floquet product");
    /* Power in = power dissipated on a cycle. */
    EXPECT(fabs(r.power_balance) <= 1e-12 * r.mean_dissipation,
           "case %zu: power balance %.3g of %.3g", i, r.power_balance,
           r.mean_dissipation);
  }
}

/* Relative error of the closed form's <zeta> (Euclidean norm). */
static double small_error(double eps) {
  const ssw_body b = forced_body(eps, 2.0);
  ssw_tensor t;
  ssw_forced r;
  forced_run(&b, &SEED_PARAMS(0.0), "hamel8", 1e-11, 0.1, 0.1, &t, &r);
  EXPECT(r.converged && r.cycle_periods == 1, "eps %g: converged %d, n %d", eps,
         r.converged, r.cycle_periods);
  ssw_forced_closed a;
  ssw_forced_closed_form(&t, &r, &a);
  return hypot(r.q.mean_omega - a.mean_omega, r.q.mean_v - a.mean_v) /
         hypot(a.mean_omega, a.mean_v);
}

static void check_small_forcing(void) {
  /* independently computed (forcing.md, eq. F3's paragraph) */
  const double quoted[3] = {1.43e-2, 3.64e-3, 9.14e-4};
  double e[3];
  for (int k = 0; k < 3; k++) {
    e[k] = small_error(0.4 / (1 << k));
    EXPECT_REL(e[k], quoted[k], 0.02, "small-forcing error");
  }
  for (int k = 0; k < 2; k++)
    EXPECT(fabs(e[k] / e[k + 1] - 4.0) <= 0.2, "error ratio %.3f",
           e[k] / e[k + 1]);
}

/* A seeded batch of forced damped bodies: thin and round ellipses, Model
 * I and II, weak to strong drag, small to moderate torque, some with
 * circulation, some kicked. */
static void check_independent(void) {
  unsigned long long seed = 20261128;
  int bounded = 0, total = 0;
  double worst[3] = {0, 0, 0};
  for (int i = 0; i < 8; i++) {
    ssw_body b = SEED_BODY;
    ssw_params p = SEED_PARAMS(0.0);
    p.theta = test_uniform(&seed, 0.0, M_PI);
    p.a = test_uniform(&seed, -0.3, 0.3);
    p.b = test_uniform(&seed, -0.1, 0.1);
    p.A = 0.5, p.B = test_uniform(&seed, 0.1, 0.45);
    if (i % 2) p.r = test_uniform(&seed, -0.2, 0.2);
    b.drag_w = test_uniform(&seed, 0.05, 1.0);
    b.drag_v = test_uniform(&seed, 0.05, 1.0);
    b.drag_wv = test_uniform(&seed, -0.3, 0.3) * sqrt(b.drag_w * b.drag_v);
    b.forcing_freq = test_uniform(&seed, 0.5, 4.0);
    b.torque_amp = test_uniform(&seed, 0.05, 0.8);
    b.forcing_phase = test_uniform(&seed, 0.0, 6.0);
    if (i % 3 == 1) b.Gamma = test_uniform(&seed, -1.0, 1.0);
    if (i % 4 == 3) b.forcing_shape = SSW_FORCING_KICKS;
    ssw_tensor t;
    ssw_forced r, ref;
    forced_run(&b, &p, "hamel8", 1e-10, 1.0, 0.5, &t, &r);
    forced_run(&b, &p, "dopri5", 1e-12, 1.0, 0.5, &t, &ref);
    forced_compare(i, &r, &ref, &bounded, &total, worst);
  }
  EXPECT(bounded == total, "estimates bound %d of %d differences", bounded,
         total);
}

/* The Hamel step under the effect's own torque (ssw_model_reduce sets it):
 * the node energy's change is the midpoint torque's work less the exact
 * dissipation the state sums; a kick's is I (w- + w+) / 2. */
static void check_energy_balance(void) {
  for (int kicks = 0; kicks <= 1; kicks++) {
    ssw_body b = forced_body(0.7, 3.0);
    b.Gamma = 0.3;
    b.forcing_phase = 0.4;
    b.forcing_shape = kicks ? SSW_FORCING_KICKS : SSW_FORCING_SINE;
    ssw_params p = SEED_PARAMS(0.1);
    p.r = 0.2;
    ssw_tensor t;
    EXPECT(ssw_model_tensor(&b, &p, &t) == 0, "tensor");
    ssw_coeffs c;
    EXPECT(ssw_stepper_bind(&t, ssw_method_find("hamel2"), &c) == 0, "bind");
    EXPECT((c.e.force != NULL) == !kicks, "the sine is a force, kicks not");
    ssw_state s;
    ssw_stepper_init(&c, 1.5, 1.0, &s);
    double w, v, work = 0.0, scale = 0.0;
    ssw_stepper_velocity(&c, &s, &w, &v);
    const double E0 = ssw_model_energy(&c.e, w, v), T = 2 * M_PI / 3.0;
    const int N = 64;
    for (int k = 0; k < 10 * N; k++) {
      const double h = T / N, t0 = s.t;
      if (kicks && k % N == 0) {
        const double wb = w;
        s.W1 += t.fimp;
        ssw_stepper_velocity(&c, &s, &w, &v);
        work += t.fimp * 0.5 * (wb + w);
      }
      const double W1 = s.W1, W2 = s.W2;
      ssw_hamel_step(&c, h, SSW_RECON_EXP, &s);
      double zw, zv;
      ssw_model_velocity(&c.e, 0.5 * (W1 + s.W1), 0.5 * (W2 + s.W2), &zw, &zv);
      const double tau = t.ftau * sin(t.fomega * (t0 + 0.5 * h) + t.fphase);
      work += h * tau * zw;
      scale += fabs(h * tau * zw);
      ssw_stepper_velocity(&c, &s, &w, &v);
    }
    const double E1 = ssw_model_energy(&c.e, w, v);
    EXPECT(fabs((E1 - E0) - (work - s.diss)) <= 1e-14 * (E0 + scale + s.diss),
           "kicks %d: energy change %.17g, work - dissipation %.17g", kicks,
           E1 - E0, work - s.diss);
  }
}

/* No drag: the energy grows by the averaged law (eq. 4). */
static void check_growth(void) {
  ssw_body b = forced_body(0.2, 2.0);
  b.drag_w = b.drag_v = b.drag_wv = 0.0;
  ssw_tensor t;
  ssw_forced r;
  forced_run(&b, &SEED_PARAMS(0.0), "hamel8", 1e-10, 0.0, 0.0, &t, &r);
  ssw_forced_closed a;
  ssw_forced_closed_form(&t, &r, &a);
  EXPECT(r.attractor == SSW_ATTRACTOR_ACCELERATING && r.converged,
         "no drag: %s", ssw_attractor_name(r.attractor));
  EXPECT_REL(r.q.energy_growth_slope, a.energy_growth_slope, 1e-3,
             "growth slope");
  EXPECT(isnan(a.floquet_product) && isnan(a.mean_v), "no cycle's forms");
}

/* rattle refuses forcing (naming why); the forcing keys at their defaults
 * leave an unforced body's tensor bit for bit what it was. */
static void check_caps(void) {
  ssw_body b = forced_body(0.2, 2.0);
  ssw_point pt;
  EXPECT(ssw_point_setup(&b, &SEED_PARAMS(0.0), 1e-12,
                         ssw_method_find("rattle"), &pt) == SSW_ERR_ARG &&
             strstr(ssw_error_user_message(), "time-dependent"),
         "rattle: %s", ssw_error_user_message());
  ssw_error_clear();
  ssw_body off = SEED_BODY;
  off.forcing_freq = 3.0, off.forcing_phase = 1.0;
  off.forcing_shape = SSW_FORCING_KICKS;
  ssw_tensor t0, t1;
  EXPECT(ssw_model_tensor(&SEED_BODY, &SEED_PARAMS(0.0), &t0) == 0 &&
             ssw_model_tensor(&off, &SEED_PARAMS(0.0), &t1) == 0,
         "tensors");
  EXPECT(memcmp(&t0, &t1, sizeof t0) == 0 && ssw_model_caps(&t1) & 1u,
         "torque_amp = 0 is no forcing");
  b.forcing_freq = 0.0;
  EXPECT(ssw_model_tensor(&b, &SEED_PARAMS(0.0), &t1) == SSW_ERR_BODY,
         "torque_amp without forcing_freq");
  ssw_error_clear();
}

int main(void) {
  check_caps();
  check_energy_balance();
  check_floquet_product();
  check_small_forcing();
  check_independent();
  check_growth();
  return TEST_RESULT();
}
