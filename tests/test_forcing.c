/* Time in the schemes: every table's nodes, the time each state carries,
 * and a test-only time-dependent generalised force Q(t) (a torque and a
 * force along the blade, both periodic) against exact identities:
 * - the base step's discrete energy balance (docs/theory/forcing.md):
 *   the node energy changes by exactly h Q(t + h/2)^T zeta_k, with
 *   zeta_k = K^-1 (W_k + W_{k+1}) / 2;
 * - on a body with L1 = Z = 0 (g = 0: no constraint force) the reduced
 *   motion is linear, K zeta' = Q(t), with the exact solution
 *   zeta(t) = zeta0 + K^-1 int_0^t Q: every scheme converges to it at its
 *   order, which wrong nodes would break;
 * - the periodic torque effect ([body] forcing keys) on a generic body
 *   with circulation and drag: every scheme's observed order against a
 *   reference at tight tolerance;
 * - a forced state's bits do not depend on its lane. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sleighsweep/dopri5.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"

/* Q(t) = (tau0 sin(Omega t), f0 cos(Omega t)); par = (tau0, f0, Omega). */
static void periodic_force(const double par[SSW_FORCE_PARS], double t,
                           double *Q1, double *Q2) {
  *Q1 = par[0] * sin(par[2] * t);
  *Q2 = par[1] * cos(par[2] * t);
}

static void force_on(ssw_coeffs *c, double tau0, double f0, double Omega) {
  c->e.force = periodic_force;
  c->e.force_par[0] = tau0, c->e.force_par[1] = f0, c->e.force_par[2] = Omega;
}

/* The composition's nodes are its sub-steps' midpoints; rk4's and
 * dopri5's the classical ones. */
static void check_nodes(void) {
  int n;
  const ssw_method *t = ssw_method_table(&n);
  for (int i = 0; i < n; i++) {
    const ssw_method *m = &t[i];
    EXPECT(m->nodes != NULL && m->n_nodes > 0, "%s has no nodes", m->name);
    if (m->stages > 0) {
      EXPECT(m->n_nodes == m->stages, "%s: %d nodes for %d sub-steps", m->name,
             m->n_nodes, m->stages);
      double acc = 0.0;
      for (int k = 0; k < m->stages; k++) {
        EXPECT_ABS(m->nodes[k], acc + 0.5 * m->gamma[k], 4e-16, m->name);
        acc += m->gamma[k];
      }
    }
    for (int k = 0; k < m->n_nodes; k++)
      EXPECT(m->nodes[k] >= 0.0 && m->nodes[k] <= 1.0, "%s: node %d = %g",
             m->name, k, m->nodes[k]);
  }
  const ssw_method *rk4 = ssw_method_find("rk4");
  EXPECT(rk4->n_nodes == 4 && rk4->nodes[1] == 0.5 && rk4->nodes[3] == 1.0,
         "rk4 nodes");
  const ssw_method *dp = ssw_method_find("dopri5");
  EXPECT(dp->n_nodes == SSW_DOPRI5_NODES && dp->nodes[2] == 3.0 / 10 &&
             dp->nodes[4] == 8.0 / 9,
         "dopri5 nodes");
}

static double node_energy(const ssw_reduced *e, double W1, double W2) {
  double w, v;
  ssw_model_velocity(e, W1, W2, &w, &v);
  return 0.5 * (W1 * w + W2 * v);
}

/* The base step's energy balance, with and without drag (which takes
 * h zeta_k^T C zeta_k more), at a forcing fast enough that the node
 * matters: the balance with Q(t) at the step's start instead of its
 * midpoint misses by far more than round-off. */
static void check_energy_balance(void) {
  const ssw_method *m = ssw_method_find("hamel2");
  for (int drag = 0; drag <= 1; drag++) {
    ssw_tensor T;
    ssw_params p = SEED_PARAMS(0.1);
    p.r = 0.2;
    ssw_body body = SEED_BODY;
    body.Gamma = 0.3;
    if (drag) body.drag_w = 0.05, body.drag_v = 0.02, body.drag_wv = 0.01;
    EXPECT(ssw_model_tensor(&body, &p, &T) == 0, "tensor");
    ssw_coeffs c;
    EXPECT(ssw_stepper_bind(&T, m, &c) == 0, "bind");
    EXPECT(c.e.drag == drag, "drag %d", drag);
    force_on(&c, 0.7, -0.4, 3.0);
    ssw_state s;
    ssw_stepper_init(&c, 1.5, 1.0, &s);
    s.t = 0.3;
    double worst = 0.0, worst_start = INFINITY;
    for (int k = 0; k < 200; k++) {
      const double h = 0.05 + 0.01 * (k % 7), t0 = s.t;
      const double W1 = s.W1, W2 = s.W2;
      const double E0 = node_energy(&c.e, W1, W2);
      ssw_hamel_step(&c, h, SSW_RECON_EXP, &s);
      EXPECT(s.t == t0 + h, "t after a step: %.17g, expected %.17g", s.t,
             t0 + h);
      /* W_k + W_{k+1} = 2 K zeta_k, whatever the force and the drag. */
      double zw, zv, Q1, Q2;
      ssw_model_velocity(&c.e, 0.5 * (W1 + s.W1), 0.5 * (W2 + s.W2), &zw, &zv);
      const double diss = h * SSW_MODEL_DISSIPATION(&c.e, zw, zv);
      const double dE = node_energy(&c.e, s.W1, s.W2) - E0;
      periodic_force(c.e.force_par, t0 + 0.5 * h, &Q1, &Q2);
      const double scale =
          fabs(E0) + h * (fabs(Q1 * zw) + fabs(Q2 * zv)) + fabs(diss);
      worst = fmax(worst, fabs(dE - (h * (Q1 * zw + Q2 * zv) - diss)) / scale);
      periodic_force(c.e.force_par, t0, &Q1, &Q2);
      worst_start = fmin(worst_start,
                         fabs(dE - (h * (Q1 * zw + Q2 * zv) - diss)) / scale);
    }
    EXPECT(worst <= 4e-15, "drag %d: energy balance at the midpoint node: %.3g",
           drag, worst);
    EXPECT(worst_start > 1e-6,
           "drag %d: the balance must tell the node: %.3g at the start", drag,
           worst_start);
  }
}

/* L1 = Z = 0, kappa = 0: g = 0, K zeta' = Q(t). Exact zeta(T) and
 * phi(T) = int w. Returns the largest error of (w, v, phi) at T. */
static double linear_error(const ssw_method *m, int nsteps, double T) {
  const ssw_tensor t = {.J = 1.2, .M = 1.7, .N = 1.0, .L2 = 0.3};
  ssw_coeffs c;
  EXPECT(ssw_stepper_bind(&t, m, &c) == 0, "bind %s", m->name);
  const double tau0 = 0.8, f0 = -0.5, Om = 2.3, w0 = 0.4, v0 = 0.9;
  force_on(&c, tau0, f0, Om);
  ssw_state s;
  ssw_stepper_init(&c, w0, v0, &s);
  const double h = T / nsteps;
  for (int k = 0; k < nsteps; k++)
    ssw_stepper_advance(&c, h, SSW_RECON_EXP, &s);
  double w, v;
  ssw_stepper_velocity(&c, &s, &w, &v);
  /* int_0^T Q and int_0^T int_0^t Q. */
  const double I1 = tau0 * (1.0 - cos(Om * T)) / Om, I2 = f0 * sin(Om * T) / Om;
  const double II1 = tau0 * (T - sin(Om * T) / Om) / Om;
  const double II2 = f0 * (1.0 - cos(Om * T)) / (Om * Om);
  double dw, dv, pw, pv;
  ssw_model_velocity(&c.e, I1, I2, &dw, &dv);
  ssw_model_velocity(&c.e, II1, II2, &pw, &pv);
  (void)pv;
  const double ew = fabs(w - (w0 + dw)), ev = fabs(v - (v0 + dv));
  const double ephi = fabs(s.phi - (w0 * T + pw));
  EXPECT(fabs(s.t - T) <= 1e-13 * T, "%s: t = %.17g after %d steps of %g",
         m->name, s.t, nsteps, h);
  return fmax(ew, fmax(ev, ephi));
}

/* The observed order between n and 2n steps must reach q - 0.5 (SUNDIALS'
 * rule), where the error is well above round-off. */
static void check_orders(void) {
  int n;
  const ssw_method *t = ssw_method_table(&n);
  for (int i = 0; i < n; i++) {
    const ssw_method *m = &t[i];
    if (m->caps & SSW_CAP_FULL_TENSOR) continue; /* rattle: no force */
    const int n0 = m->order >= 6 ? 6 : 24;       /* past the pre-asymptotic */
    const double e1 = linear_error(m, n0, 4.0),
                 e2 = linear_error(m, 2 * n0, 4.0);
    const double q = log2(e1 / e2);
    EXPECT(e2 > 1e-13 && q >= m->order - 0.5,
           "%s: observed order %.2f (errors %.3g, %.3g), expected %d", m->name,
           q, e1, e2, m->order);
    const double fine = linear_error(m, 400, 4.0);
    EXPECT(fine <= 1e-4, "%s: error %.3g at 400 steps", m->name, fine);
  }
}

/* The periodic torque effect itself ([body] torque_amp, forcing_freq,
 * forcing_phase: ssw_model_reduce sets the force) on a generic body
 * (Model II, circulation, drag): (w, v, phi) at T = 3 from n macro steps
 * against hamel8 at 480 steps (error ~1e-20 by its order, round-off
 * ~1e-14), itself within 1e-11 of dopri5 at 40000 steps (whose round-off
 * is ~3e-12 there). */
static void torque_state(const ssw_method *m, int nsteps, double out[3]) {
  ssw_body b = SEED_BODY;
  b.Gamma = 0.4, b.drag_w = 0.2, b.drag_v = 0.3, b.drag_wv = 0.05;
  b.forcing_freq = 2.5, b.torque_amp = 0.6, b.forcing_phase = 0.3;
  ssw_params p = SEED_PARAMS(0.07);
  p.r = 0.15, p.s = -0.05;
  ssw_tensor T;
  EXPECT(ssw_model_tensor(&b, &p, &T) == 0, "tensor");
  ssw_coeffs c;
  EXPECT(ssw_stepper_bind(&T, m, &c) == 0 && c.e.force, "bind %s", m->name);
  ssw_state s;
  ssw_stepper_init(&c, 1.2, -0.4, &s);
  for (int k = 0; k < nsteps; k++)
    ssw_stepper_advance(&c, 3.0 / nsteps, SSW_RECON_EXP, &s);
  ssw_stepper_velocity(&c, &s, &out[0], &out[1]);
  out[2] = s.phi;
}

static void check_torque_orders(void) {
  double ref[3], a[3], b[3], dp[3];
  torque_state(ssw_method_find("hamel8"), 480, ref);
  torque_state(ssw_method_find("dopri5"), 40000, dp);
  for (int k = 0; k < 3; k++)
    EXPECT_ABS(dp[k], ref[k], 1e-11, "torque reference against dopri5");
  int n;
  const ssw_method *t = ssw_method_table(&n);
  for (int i = 0; i < n; i++) {
    const ssw_method *m = &t[i];
    if (m->caps & SSW_CAP_FULL_TENSOR) continue; /* rattle refuses it */
    const int n0 = m->order >= 8 ? 6 : m->order >= 6 ? 12 : 24;
    torque_state(m, n0, a);
    torque_state(m, 2 * n0, b);
    double e1 = 0.0, e2 = 0.0;
    for (int k = 0; k < 3; k++)
      e1 = fmax(e1, fabs(a[k] - ref[k])), e2 = fmax(e2, fabs(b[k] - ref[k]));
    const double q = log2(e1 / e2);
    EXPECT(e2 > 1e-13 && q >= m->order - 0.5,
           "%s on the torque: observed order %.2f (errors %.3g, %.3g), "
           "expected %d",
           m->name, q, e1, e2, m->order);
  }
}

/* Eight forced states in one batch against each alone: the same bits,
 * their times advanced by exactly their steps. */
static void check_lanes(void) {
  const char *names[] = {"hamel2", "hamel8", "rk4", "dopri5"};
  for (int i = 0; i < 4; i++) {
    const ssw_method *m = ssw_method_find(names[i]);
    ssw_tensor T;
    EXPECT(ssw_model_tensor(&SEED_BODY, &SEED_PARAMS(0.05), &T) == 0, "tensor");
    ssw_coeffs c;
    EXPECT(ssw_stepper_bind(&T, m, &c) == 0, "bind");
    force_on(&c, 0.3, 0.2, 1.7);
    ssw_state all[SSW_LANES], one[SSW_LANES];
    double h[SSW_LANES];
    for (int l = 0; l < SSW_LANES; l++) {
      ssw_stepper_init(&c, 1.0 + 0.1 * l, 0.5 - 0.2 * l, &all[l]);
      all[l].t = 0.25 * l;
      one[l] = all[l];
      h[l] = (l % 2 ? -1.0 : 1.0) * (0.01 + 0.03 * l);
    }
    for (int k = 0; k < 20; k++) {
      ssw_stepper_advance_batch(&c, h, SSW_RECON_EXP, all, SSW_LANES);
      for (int l = 0; l < SSW_LANES; l++) {
        const double t0 = one[l].t;
        ssw_stepper_advance(&c, h[l], SSW_RECON_EXP, &one[l]);
        EXPECT(one[l].t == t0 + h[l], "%s lane %d: t", m->name, l);
      }
    }
    EXPECT(memcmp(all, one, sizeof all) == 0,
           "%s: a forced lane's bits depend on its neighbours", m->name);
  }
}

int main(void) {
  check_nodes();
  check_energy_balance();
  check_orders();
  check_torque_orders();
  check_lanes();
  return TEST_RESULT();
}
