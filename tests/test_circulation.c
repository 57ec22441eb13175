/* The sleigh with circulation above its critical energy, at the default
 * settings, against formulas written here from docs/theory/circulation.md
 * (an independent oracle: none of the engine's closed form or physics
 * module is used for the references). On a wide random batch of Model II
 * bodies (r != 0), circulations of both signs and H / H_c from 1.05 to 20,
 * trajectories on both arcs:
 * - transition angle 2 c1 psi_e on the arc g > kappa, -2 c1 (pi - psi_e) on
 *   g < kappa, with cos psi_e = mu = kappa / g_m (so the arcs' angles
 *   differ by exactly 2 pi c1);
 * - radii |v / w| of the limit states zeta(-psi_e) (past), zeta(psi_e)
 *   (future);
 * each within 10 rtol of the reference (the accuracy test_accuracy asks of
 * the circulation-free engine), the error estimates bounding the error on
 * >= 95% of the results; the node energy exact; Model I (r = 0) moving as
 * without circulation. */
#include <math.h>
#include <stdlib.h>

#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "test_util.h"
#include "wide_batch.h"

#define RTOL 1e-10
#define TOL (10 * RTOL)

/* The theory's constants of one tensor and kappa at energy H. */
typedef struct {
  double D, E, c1, gm, mu, psi_e;
  double zs[2], zp[2]; /* zeta* and zeta_perp */
} circ;

static void theory(const ssw_tensor *t, double kappa, double H, circ *c) {
  const double J = t->J, M = t->M, L1 = t->L1, L2 = t->L2, Z = t->Z;
  c->D = M * J - L2 * L2;
  c->E = J * Z * Z + 2 * Z * L1 * L2 + M * L1 * L1;
  c->c1 = sqrt(c->D) * (Z * L2 + M * L1) / c->E;
  c->gm = sqrt(2 * H * c->E / c->D);
  c->mu = kappa / c->gm;
  c->psi_e = acos(c->mu);
  c->zs[0] = c->gm / c->E * (M * L1 + L2 * Z);
  c->zs[1] = c->gm / c->E * (L1 * L2 + J * Z);
  c->zp[0] = (L2 * c->zs[0] - M * c->zs[1]) / sqrt(c->D);
  c->zp[1] = (J * c->zs[0] - L2 * c->zs[1]) / sqrt(c->D);
}

static void state(const circ *c, double psi, double *w, double *v) {
  *w = cos(psi) * c->zs[0] + sin(psi) * c->zp[0];
  *v = cos(psi) * c->zs[1] + sin(psi) * c->zp[1];
}

typedef struct {
  int n, bounded, arcs[2];
  double worst_dphi, worst_r, worst_e;
} tally;

static void one(const wb_draw *d, double kappa, double psi0, tally *s) {
  circ c;
  theory(&d->t, kappa, d->H, &c);
  ssw_tensor t = d->t;
  t.kappa = kappa;
  double w0, v0;
  state(&c, psi0, &w0, &v0);
  const double g0 = t.L1 * w0 + t.Z * v0 - kappa;
  if (fabs(g0) < 1e-3 * c.gm) return; /* next to an equilibrium */
  const int upper = g0 > 0;
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  ssw_traj r;
  EXPECT(ssw_extract_run(&t, d->regime, w0, v0, &o, NULL, NULL, &r) == 0,
         "extract: %s", ssw_error_message());
  const double dphi = upper ? 2 * c.c1 * c.psi_e : -2 * c.c1 * (M_PI - c.psi_e);
  double wp, vp, wf, vf;
  state(&c, -c.psi_e, &wp, &vp);
  state(&c, c.psi_e, &wf, &vf);
  const double rp = fabs(vp / wp), rf = fabs(vf / wf);
  EXPECT(r.converged && !(r.flags & ~SSW_TRAJ_RTOL), "flags %d", r.flags);
  const double ed = fabs(r.dphi - dphi) / fmax(fabs(dphi), 1.0);
  const double er = fmax(fabs(r.r_past - rp) / rp, fabs(r.r_future - rf) / rf);
  EXPECT(ed <= TOL, "dphi %.15g vs %.15g (arc %s, mu %.3g): %.2g", r.dphi, dphi,
         upper ? "g > kappa" : "g < kappa", c.mu, ed);
  EXPECT(er <= TOL, "radii %.15g %.15g vs %.15g %.15g: %.2g", r.r_past,
         r.r_future, rp, rf, er);
  EXPECT(r.energy_error <= 1e-12, "energy error %.3g", r.energy_error);
  s->worst_dphi = fmax(s->worst_dphi, ed);
  s->worst_r = fmax(s->worst_r, er);
  s->worst_e = fmax(s->worst_e, r.energy_error);
  s->bounded += fabs(r.dphi - dphi) <= r.err_dphi;
  s->arcs[upper]++;
  s->n++;
}

static void test_wide(void) {
  tally s = {0};
  uint64_t rng = 21;
  for (int i = 0; i < 400 && s.n < 240; i++) {
    wb_draw d;
    if (wb_draw_one(21, i, &d) != 0 || d.body.rho == 0 || fabs(d.p.r) < 0.05 ||
        d.regime != SSW_REGIME_CIRCLE_TO_CIRCLE)
      continue;
    circ c;
    theory(&d.t, 0.0, d.H, &c);
    /* H / H_c log-uniform in [1.05, 20]: mu^2 = H_c / H. */
    const double ratio = exp(log(1.05) + test_u01(&rng) * log(20 / 1.05));
    const double kappa = (test_u01(&rng) < 0.5 ? -1 : 1) * c.gm / sqrt(ratio);
    for (int k = 0; k < 2; k++)
      one(&d, kappa, 2 * M_PI * test_u01(&rng), &s);
  }
  printf("circulation, %d trajectories (%d on g > kappa, %d on g < kappa): "
         "worst dphi %.2g, radii %.2g, energy %.2g; estimate bounds dphi on "
         "%.1f%%\n",
         s.n, s.arcs[1], s.arcs[0], s.worst_dphi, s.worst_r, s.worst_e,
         100.0 * s.bounded / s.n);
  EXPECT(s.n >= 200 && s.arcs[0] >= 50 && s.arcs[1] >= 50,
         "too few cases: %d (%d, %d)", s.n, s.arcs[0], s.arcs[1]);
  EXPECT(s.bounded >= 0.95 * s.n, "estimates bound %d of %d", s.bounded, s.n);
}

/* Below the critical energy, H / H_c from 0.05 to 0.95: the period
 * T = 2 pi D / sqrt(2 E (H_c - H)) and the heading change per period
 * 2 pi c1 sgn(kappa) (|mu| / sqrt(mu^2 - 1) - 1), against the engine at
 * its defaults; the estimates bound the error on >= 95%. */
static void test_periodic(void) {
  int n = 0, bounded = 0;
  double worst_T = 0, worst_h = 0;
  uint64_t rng = 5;
  for (int i = 0; i < 400 && n < 160; i++) {
    wb_draw d;
    if (wb_draw_one(23, i, &d) != 0 || d.body.rho == 0 || fabs(d.p.r) < 0.05 ||
        d.regime != SSW_REGIME_CIRCLE_TO_CIRCLE)
      continue;
    circ c;
    theory(&d.t, 0.0, d.H, &c);
    const double ratio = 0.05 + 0.9 * test_u01(&rng); /* H / H_c */
    const double kappa = (test_u01(&rng) < 0.5 ? -1 : 1) * c.gm / sqrt(ratio);
    ssw_tensor t = d.t;
    t.kappa = kappa;
    const double Hc = c.D * kappa * kappa / (2 * c.E);
    const double T = 2 * M_PI * c.D / sqrt(2 * c.E * (Hc - d.H));
    const double mu = fabs(kappa) / c.gm;
    const double dh =
        2 * M_PI * c.c1 * (kappa > 0 ? 1 : -1) * (mu / sqrt(mu * mu - 1) - 1);
    ssw_integrator o;
    ssw_integrator_defaults(&o);
    ssw_traj r;
    ssw_extract_run(&t, d.regime, d.w0, d.v0, &o, NULL, NULL, &r);
    EXPECT(r.periodic && r.converged && !(r.flags & ~SSW_TRAJ_RTOL),
           "periodic %d converged %d flags %d", r.periodic, r.converged,
           r.flags);
    const double eT = fabs(r.period - T) / T;
    const double eh = fabs(r.heading_per_period - dh) / fmax(fabs(dh), 1.0);
    EXPECT(eT <= TOL && eh <= TOL,
           "H/Hc %.3g: T %.15g vs %.15g (%.2g), "
           "heading %.15g vs %.15g (%.2g)",
           ratio, r.period, T, eT, r.heading_per_period, dh, eh);
    worst_T = fmax(worst_T, eT), worst_h = fmax(worst_h, eh);
    bounded += fabs(r.period - T) <= r.err_period &&
               fabs(r.heading_per_period - dh) <= r.err_heading_period;
    n++;
  }
  printf("periodic, %d trajectories: worst period %.2g, heading per period "
         "%.2g (relative); estimates bound both on %.1f%%\n",
         n, worst_T, worst_h, 100.0 * bounded / n);
  EXPECT(n >= 120, "too few cases: %d", n);
  EXPECT(bounded >= 0.95 * n, "estimates bound %d of %d", bounded, n);
}

/* Deep below the critical energy, H / H_c log-uniform from 1e-4 to 0.05:
 * the period's rate sqrt(2 E (H_c - H)) / D is up to 100 times the
 * energy's, which alone once set the fixed step (a period in one or two
 * steps: measured periods 1.5 to 2 times T, with estimates that missed
 * it). At the defaults within TOL; at fixed steps (hamel8, eta = 0.8, the
 * gallery's setting) within 1e-6 relative; the estimates bound the
 * errors on >= 95% in both. */
static void test_periodic_deep(void) {
  const char *mode[2] = {"defaults", "hamel8 eta 0.8"};
  for (int fixed = 0; fixed < 2; fixed++) {
    int n = 0, bounded = 0;
    double worst = 0;
    uint64_t rng = 11;
    for (int i = 0; i < 400 && n < 80; i++) {
      wb_draw d;
      if (wb_draw_one(29, i, &d) != 0 || d.body.rho == 0 ||
          fabs(d.p.r) < 0.05 || d.regime != SSW_REGIME_CIRCLE_TO_CIRCLE)
        continue;
      circ c;
      theory(&d.t, 0.0, d.H, &c);
      const double ratio = pow(10.0, -4.0 + 2.7 * test_u01(&rng)); /* H/Hc */
      const double kappa = (test_u01(&rng) < 0.5 ? -1 : 1) * c.gm / sqrt(ratio);
      ssw_tensor t = d.t;
      t.kappa = kappa;
      const double Hc = c.D * kappa * kappa / (2 * c.E);
      const double T = 2 * M_PI * c.D / sqrt(2 * c.E * (Hc - d.H));
      ssw_integrator o;
      ssw_integrator_defaults(&o);
      if (fixed) {
        o.method = ssw_method_find("hamel8");
        o.rtol = 0.0, o.eta = 0.8, o.tol = 1e-5;
      }
      ssw_traj r;
      ssw_extract_run(&t, d.regime, d.w0, d.v0, &o, NULL, NULL, &r);
      EXPECT(r.periodic && r.converged && !(r.flags & ~SSW_TRAJ_RTOL),
             "%s: periodic %d converged %d flags %d", mode[fixed], r.periodic,
             r.converged, r.flags);
      const double eT = fabs(r.period - T) / T;
      EXPECT(eT <= (fixed ? 1e-6 : TOL), "%s, H/Hc %.3g: T %.15g vs %.15g",
             mode[fixed], ratio, r.period, T);
      worst = fmax(worst, eT);
      bounded += fabs(r.period - T) <= r.err_period;
      n++;
    }
    printf("periodic deep below H_c (%s), %d trajectories: worst period "
           "%.2g (relative); estimates bound it on %.1f%%\n",
           mode[fixed], n, worst, 100.0 * bounded / n);
    EXPECT(n >= 60, "too few cases: %d", n);
    EXPECT(bounded >= 0.95 * n, "estimates bound %d of %d", bounded, n);
  }
}

/* Next to the critical energy (|mu| - 1 = +-1e-6 and +-1e-3) a result is
 * right within 10 rtol, or flagged: not converged, or rtol_not_met with
 * the error within its estimate. Never converged and silently wrong. */
static void test_near_critical(void) {
  const ssw_body b = SEED_BODY;
  const ssw_params p = {M_PI / 3, 0.2, 0.1, 0.3, -0.1, 0.5, 0.3};
  ssw_tensor t;
  int regime;
  ssw_model_tensor(&b, &p, &t);
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  const double w0 = 1.5, v0 = 1.0;
  const double H = 0.5 * (t.J * w0 * w0 + t.M * v0 * v0 - 2 * t.L2 * w0 * v0);
  circ c;
  theory(&t, 0.0, H, &c);
  const double eps[] = {1e-6, -1e-6, 1e-3, -1e-3};
  for (int k = 0; k < 4; k++) {
    const double mu = 1 + eps[k];
    t.kappa = mu * c.gm;
    theory(&t, t.kappa, H, &c);
    ssw_integrator o;
    ssw_integrator_defaults(&o);
    ssw_traj r;
    ssw_extract_run(&t, regime, w0, v0, &o, NULL, NULL, &r);
    if (!r.converged) continue; /* flagged: honest */
    if (mu > 1) {
      const double Hc = c.D * t.kappa * t.kappa / (2 * c.E);
      const double T = 2 * M_PI * c.D / sqrt(2 * c.E * (Hc - H));
      const double bound = (r.flags & SSW_TRAJ_RTOL) ? r.err_period : TOL * T;
      EXPECT(fabs(r.period - T) <= bound, "mu - 1 = %g: T %.15g vs %.15g",
             eps[k], r.period, T);
    } else {
      const double g0 = t.L1 * w0 + t.Z * v0 - t.kappa;
      const double dphi =
          g0 > 0 ? 2 * c.c1 * c.psi_e : -2 * c.c1 * (M_PI - c.psi_e);
      const double bound =
          (r.flags & SSW_TRAJ_RTOL) ? r.err_dphi : TOL * fmax(fabs(dphi), 1.0);
      EXPECT(fabs(r.dphi - dphi) <= bound,
             "mu - 1 = %g: dphi %.15g vs %.15g (flags %d, estimate %.3g)",
             eps[k], r.dphi, dphi, r.flags, r.err_dphi);
    }
  }
}

/* Drift energies H_n = H_c (1 - (|c1| / (|c1| + n))^2): one period turns
 * the heading by 2 pi n, a pure translation, so the path drifts (orbit
 * radius beyond any bound: drift / (2 |sin(heading / 2)|) with the heading
 * within its error of 2 pi n); half-way to the next one it stays on a
 * circle of finite radius. */
static void test_drift(void) {
  const ssw_body b = SEED_BODY;
  const ssw_params p = {M_PI / 3, 0.2, 0.1, 0.3, -0.1, 0.5, 0.3};
  ssw_tensor t;
  int regime;
  ssw_model_tensor(&b, &p, &t);
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  t.kappa = 1.0;
  circ c;
  theory(&t, t.kappa, 1.0, &c);
  const double Hc = c.D * t.kappa * t.kappa / (2 * c.E), a = fabs(c.c1);
  for (int n = 1; n <= 3; n++) {
    for (int half = 0; half < 2; half++) {
      const double x = a / (a + n + 0.5 * half);
      const double H = Hc * (1 - x * x);
      theory(&t, t.kappa, H, &c); /* zeta* and zeta_perp at energy H */
      double w0, v0;
      state(&c, 0.3, &w0, &v0);
      ssw_integrator o;
      ssw_integrator_defaults(&o);
      ssw_traj r;
      ssw_extract_run(&t, regime, w0, v0, &o, NULL, NULL, &r);
      EXPECT(r.periodic && r.converged, "n %d: periodic %d converged %d", n,
             r.periodic, r.converged);
      const int sgn = c.c1 * t.kappa > 0 ? 1 : -1;
      if (!half) {
        EXPECT(r.resonance == sgn * n, "resonance %d, expected %d", r.resonance,
               sgn * n);
        EXPECT(fabs(r.heading_per_period - sgn * 2 * M_PI * n) <=
                   TOL * 2 * M_PI * n,
               "n %d: heading per period %.15g", n, r.heading_per_period);
        EXPECT(r.orbit_radius >= 1e6 * r.drift_per_period,
               "n %d: drift %.3g, orbit radius only %.3g", n,
               r.drift_per_period, r.orbit_radius);
      } else {
        EXPECT(r.orbit_radius <= 10 * r.drift_per_period &&
                   r.orbit_radius >= 0.5 * r.drift_per_period,
               "n %d + 1/2: drift %.3g, orbit radius %.3g", n,
               r.drift_per_period, r.orbit_radius);
      }
    }
  }
}

/* Observed orders with circulation: every scheme at fixed steps (eta
 * halved twice), the error of the period (below H_c) and of the transition
 * angle (above it) against the theory; the least-squares slope of log
 * error against log eta at least q - 0.5 (SUNDIALS' rule). */
static double order_error(const ssw_tensor *t, int regime, const char *name,
                          double eta, int periodic) {
  const double w0 = 1.5, v0 = 1.0;
  const double H =
      0.5 * (t->J * w0 * w0 + t->M * v0 * v0 - 2 * t->L2 * w0 * v0);
  circ c;
  theory(t, t->kappa, H, &c);
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.method = ssw_method_find(name);
  o.rtol = 0, o.eta = eta, o.tol = 1e-9, o.estimate = 0;
  ssw_traj r;
  ssw_extract_run(t, regime, w0, v0, &o, NULL, NULL, &r);
  if (periodic) {
    const double Hc = c.D * t->kappa * t->kappa / (2 * c.E);
    const double T = 2 * M_PI * c.D / sqrt(2 * c.E * (Hc - H));
    return fabs(r.period - T) / T;
  }
  const double g0 = t->L1 * w0 + t->Z * v0 - t->kappa;
  const double dphi =
      g0 > 0 ? 2 * c.c1 * c.psi_e : -2 * c.c1 * (M_PI - c.psi_e);
  return fabs(r.dphi - dphi);
}

static void test_orders(void) {
  const ssw_body b = SEED_BODY;
  const ssw_params p = {M_PI / 3, 0.2, 0.1, 0.3, -0.1, 0.5, 0.3};
  ssw_tensor t;
  int regime;
  ssw_model_tensor(&b, &p, &t);
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  const struct {
    const char *name;
    double eta;
  } cases[] = {{"hamel2", 0.2}, {"hamel4", 0.4}, {"hamel6", 0.8},
               {"hamel8", 1.0}, {"rk4", 0.2},    {"dopri5", 0.4},
               {"rattle", 0.2}};
  for (int periodic = 0; periodic < 2; periodic++) {
    t.kappa = periodic ? 1.0 : 0.05; /* H_c above and below H = 1.5 */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      const ssw_method *m = ssw_method_find(cases[i].name);
      double x[3], y[3], sx = 0, sy = 0;
      for (int k = 0; k < 3; k++) {
        const double eta = cases[i].eta / (1 << k);
        x[k] = log(eta);
        y[k] = log(order_error(&t, regime, cases[i].name, eta, periodic));
        sx += x[k], sy += y[k];
      }
      double num = 0, den = 0;
      for (int k = 0; k < 3; k++) {
        num += (x[k] - sx / 3) * (y[k] - sy / 3);
        den += (x[k] - sx / 3) * (x[k] - sx / 3);
      }
      const double q = num / den;
      printf("circulation, %s, %s: observed order %.2f (errors %.2e %.2e "
             "%.2e)\n",
             periodic ? "period" : "transition angle", m->name, q, exp(y[0]),
             exp(y[1]), exp(y[2]));
      EXPECT(q >= m->order - 0.5, "%s %s: observed order %.2f, expected %d",
             periodic ? "period" : "dphi", m->name, q, m->order);
    }
  }
}

/* Model I: kappa = 0 whatever Gamma, so the motion is the circulation-free
 * one bit for bit; only the blade force feels the lift. */
static void test_model_one(void) {
  ssw_body b = SEED_BODY;
  const ssw_params p = SEED_PARAMS(0.1);
  ssw_tensor t0, t1;
  ssw_model_tensor(&b, &p, &t0);
  b.Gamma = 0.7;
  ssw_model_tensor(&b, &p, &t1);
  EXPECT(t1.kappa == 0.0 && t1.lift == 0.7, "kappa %g lift %g", t1.kappa,
         t1.lift);
  int regime;
  ssw_model_classify(&t0, SSW_ZERO_TOL_DEFAULT, &t0, &regime);
  ssw_model_classify(&t1, SSW_ZERO_TOL_DEFAULT, &t1, &regime);
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  ssw_traj a, c;
  ssw_extract_run(&t0, regime, 1.5, 1.0, &o, NULL, NULL, &a);
  ssw_extract_run(&t1, regime, 1.5, 1.0, &o, NULL, NULL, &c);
  EXPECT(a.d == c.d && a.dphi == c.dphi && a.r_future == c.r_future &&
             a.t0 == c.t0 && a.steps == c.steps,
         "Model I moved with Gamma: d %.17g vs %.17g", a.d, c.d);
  EXPECT(a.blade_force_max != c.blade_force_max, "the lift left F unchanged");
}

int main(void) {
  test_model_one();
  test_wide();
  test_periodic();
  test_periodic_deep();
  test_near_critical();
  test_drift();
  test_orders();
  return TEST_RESULT();
}
