/* Hamel step and compositions: observed orders, reversibility, energy. */
#include <stdlib.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"

static ssw_tensor seed_tensor(double b) {
  ssw_body bd = SEED_BODY;
  ssw_params p = SEED_PARAMS(b);
  ssw_tensor t;
  int regime;
  ssw_model_tensor(&bd, &p, &t);
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  return t;
}

static double d_error(const ssw_tensor *t, const ssw_method *m, int recon,
                      double eta) {
  ssw_analytic an;
  ssw_analytic_compute(t, SSW_REGIME_CIRCLE_TO_CIRCLE, &an);
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.method = m, o.recon = recon, o.eta = eta, o.tol = 1e-8;
  o.rtol = 0, o.estimate = 0; /* fixed steps: the scheme's own order */
  ssw_traj r;
  ssw_extract_run(t, SSW_REGIME_CIRCLE_TO_CIRCLE, 1.5, 1.0, &o, NULL, NULL, &r);
  return fabs(r.d - an.d) / an.d;
}

/* Observed order of d from three step sizes (least-squares slope of
 * log error against log eta); fails below q - 0.5 (SUNDIALS' rule). */
static void test_orders(void) {
  const ssw_tensor t = seed_tensor(0.0);
  const struct {
    const char *name;
    double eta;
  } cases[] = {{"hamel2", 0.4}, {"hamel4", 0.8}, {"hamel4s", 1.2},
               {"hamel6", 1.6}, {"hamel8", 2.0}, {"rk4", 0.8}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const ssw_method *m = ssw_method_find(cases[i].name);
    for (int recon = 0; recon < (m->stages ? SSW_RECON_COUNT : 1); recon++) {
      double x[3], y[3], sx = 0, sy = 0;
      for (int k = 0; k < 3; k++) {
        const double eta = cases[i].eta / (1 << k);
        x[k] = log(eta), y[k] = log(d_error(&t, m, recon, eta));
        sx += x[k], sy += y[k];
      }
      double num = 0, den = 0;
      for (int k = 0; k < 3; k++) {
        num += (x[k] - sx / 3) * (y[k] - sy / 3);
        den += (x[k] - sx / 3) * (x[k] - sx / 3);
      }
      const double q = num / den;
      EXPECT(q >= m->order - 0.5 && q <= m->order + 1.5,
             "%s/%s: observed order %.2f, expected %d (errors %.2e %.2e "
             "%.2e)",
             m->name, ssw_recon_name(recon), q, m->order, exp(y[0]), exp(y[1]),
             exp(y[2]));
    }
  }
}

/* Forward N macro steps then N with -h returns to the start (symmetry).
 * N h Arate ~ 4 keeps the amplification of round-off by the unstable
 * direction (e^{Arate t}) near 50, so "to round-off" means ~1e-13. */
static void test_reversibility(void) {
  const ssw_tensor t = seed_tensor(0.1);
  ssw_coeffs c;
  int n;
  const ssw_method *tab = ssw_method_table(&n);
  for (int i = 0; i < n; i++) {
    if (tab[i].stages == 0) continue; /* RK4 is not symmetric */
    EXPECT(ssw_stepper_bind(&t, &tab[i], &c) == 0, "bind %s", tab[i].name);
    for (int recon = 0; recon < SSW_RECON_COUNT; recon++) {
      ssw_state s0, s;
      ssw_stepper_init(&c, 1.5, 1.0, &s0);
      s = s0;
      const double h = 0.05;
      for (int k = 0; k < 150; k++)
        ssw_stepper_advance(&c, h, recon, &s);
      EXPECT(fabs(s.x) + fabs(s.y) > 1.0, "%s did not move", tab[i].name);
      for (int k = 0; k < 150; k++)
        ssw_stepper_advance(&c, -h, recon, &s);
      const double err = fabs(s.W1 - s0.W1) + fabs(s.W2 - s0.W2) + fabs(s.phi) +
                         fabs(s.x) + fabs(s.y);
      EXPECT(err < 1e-12, "%s/%s: back to start with error %.3g", tab[i].name,
             ssw_recon_name(recon), err);
    }
  }
}

static double node_energy(const ssw_coeffs *c, const ssw_state *s) {
  double w, v;
  ssw_stepper_velocity(c, s, &w, &v);
  return ssw_model_energy(&c->e, w, v);
}

/* 1e6 base steps at eta = 0.05, reversing direction every 4000 steps so the
 * state keeps travelling along heteroclinic orbits (every orbit converges,
 * so a one-way run would idle on an equilibrium). The node energy is an
 * exact invariant of the scheme: only round-off may move it, without drift.
 * RK4 under the same protocol is printed for comparison. */
static double long_run(const ssw_tensor *t, const ssw_method *m, double h,
                       double H0, double *first) {
  ssw_coeffs cm;
  const ssw_coeffs *c = &cm;
  EXPECT(ssw_stepper_bind(t, m, &cm) == 0, "bind %s", m->name);
  ssw_state s;
  ssw_stepper_init(c, 1.5, 1.0, &s);
  double emax = 0;
  const long N = 1000000 / (m->stages ? m->stages : 1);
  for (long k = 0; k < N; k++) {
    const double dir = ((k / 4000) % 2) ? -1.0 : 1.0;
    ssw_stepper_advance(c, dir * h, SSW_RECON_EXP, &s);
    const double e = fabs(node_energy(c, &s) - H0) / H0;
    if (e > emax) emax = e;
    if (k == N / 10) *first = emax;
  }
  return emax;
}

static void test_energy_long_run(void) {
  const ssw_tensor t = seed_tensor(0.1);
  ssw_coeffs c;
  ssw_stepper_bind(&t, ssw_method_find("hamel2"), &c);
  ssw_state s;
  ssw_stepper_init(&c, 1.5, 1.0, &s);
  const double H0 = node_energy(&c, &s);
  ssw_analytic an;
  ssw_analytic_compute(&t, SSW_REGIME_CIRCLE_TO_CIRCLE, &an);
  const double h = 0.05 / ssw_analytic_rate(&an, H0);
  double first = 0, rk_first = 0;
  const double emax = long_run(&t, ssw_method_find("hamel2"), h, H0, &first);
  const double rk = long_run(&t, ssw_method_find("rk4"), h, H0, &rk_first);
  EXPECT(emax < 1e-13, "node energy error %.3g over 1e6 steps", emax);
  EXPECT(emax < 1e-14 || emax < 20 * first,
         "energy error grows: %.3g after 10%%, %.3g at the end", first, emax);
  printf("energy error over 1e6 steps: hamel2 %.3g, rk4 %.3g (after 10%%: "
         "%.3g, %.3g)\n",
         emax, rk, first, rk_first);
}

/* The discrete fixed points are the continuous equilibria (p = 0). */
static void test_fixed_points(void) {
  const ssw_tensor t = seed_tensor(0.1);
  ssw_coeffs c;
  ssw_stepper_bind(&t, ssw_method_find("hamel2"), &c);
  const double w = 0.7, v = -c.e.L1 * w / c.e.Z;
  ssw_state s;
  ssw_stepper_init(&c, w, v, &s);
  const ssw_state s0 = s;
  for (int k = 0; k < 1000; k++)
    ssw_hamel_step(&c, 0.1, SSW_RECON_EXP, &s);
  EXPECT(fabs(s.W1 - s0.W1) <= 1e-14 * fabs(s0.W1) &&
             fabs(s.W2 - s0.W2) <= 1e-14 * fabs(s0.W2),
         "equilibrium moved: W1 %.17g -> %.17g", s0.W1, s.W1);
  /* Exponential reconstruction: the path is the exact circle |v/w|. */
  const double R = fabs(v / w), cx = 0.0, cy = v / w;
  const double rr = hypot(s.x - cx, s.y - cy);
  EXPECT_REL(rr, R, 1e-12, "discrete limit circle radius");
}

int main(void) {
  test_orders();
  test_reversibility();
  test_energy_long_run();
  test_fixed_points();
  return TEST_RESULT();
}
