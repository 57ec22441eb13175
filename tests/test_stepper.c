/* Schemes: declared capabilities, the SIMD kernel against the physics
 * module, observed orders, reversibility, energy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"
#include "wide_batch.h"

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

/* Every capability a scheme declares holds (ssw_method.caps). */
static void test_capabilities(void) {
  const ssw_tensor t = seed_tensor(0.1);
  /* I0 = 0 on a dry plane: K regular, the 3x3 tensor singular. */
  ssw_tensor dry;
  ssw_model_tensor(
      &(ssw_body){.m = 1.0, .I0 = 0.0, .rho = 0.0, .k_rot = SSW_KROT_PAPERS},
      &(ssw_params){0.5, 0.5, 0.0, 0.0, 0.0, 0.5, 0.3}, &dry);
  int n;
  const ssw_method *tab = ssw_method_table(&n);
  for (int i = 0; i < n; i++) {
    const ssw_method *m = &tab[i];
    ssw_coeffs c;
    const int full = (m->caps & SSW_CAP_FULL_TENSOR) != 0;
    EXPECT((ssw_stepper_bind(&dry, m, &c) == 0) == !full,
           "%s: binding a singular 3x3 tensor %s", m->name,
           full ? "accepted" : "refused");
    ssw_error_clear();
    EXPECT(ssw_stepper_bind(&t, m, &c) == 0, "%s: bind", m->name);
    const double h = 0.05;
    if (m->caps & SSW_CAP_EXACT_EQUILIBRIA) {
      ssw_state s;
      ssw_stepper_init(&c, 0.7, -c.e.L1 * 0.7 / c.e.Z, &s);
      const ssw_state s0 = s;
      for (int k = 0; k < 200; k++)
        ssw_stepper_advance(&c, h, SSW_RECON_EXP, &s);
      EXPECT(fabs(s.W1 - s0.W1) <= 4e-16 * fabs(s0.W1) &&
                 fabs(s.W2 - s0.W2) <= 4e-16 * fabs(s0.W2),
             "%s: equilibrium moved (W1 %.17g -> %.17g)", m->name, s0.W1, s.W1);
    }
    if (m->caps & SSW_CAP_EXACT_ENERGY) {
      ssw_state s;
      ssw_stepper_init(&c, 1.5, 1.0, &s);
      const double H0 = node_energy(&c, &s);
      double e = 0;
      for (int k = 0; k < 400; k++) {
        ssw_stepper_advance(&c, k < 200 ? h : -h, SSW_RECON_EXP, &s);
        e = fmax(e, fabs(node_energy(&c, &s) - H0) / H0);
      }
      /* Round-off only, as test_energy_long_run bounds it. */
      EXPECT(e <= 1e-13, "%s: node energy moved by %.3g", m->name, e);
    }
    /* Lanes never interact: a batch of n states gives each state's result
     * bit for bit, for every n (one or two kernels of 4 or 8 lanes, the
     * lanes past n padded), and leaves the states past n alone (for every
     * scheme, batch kernel or not). */
    for (int nl = 1; nl <= SSW_LANES; nl++) {
      ssw_state b[SSW_LANES], one;
      double hl[SSW_LANES];
      for (int l = 0; l < SSW_LANES; l++) {
        ssw_stepper_init(&c, 1.5 - 0.3 * l, 1.0 + 0.2 * l, &b[l]);
        hl[l] = h * (1 + 0.25 * l);
      }
      ssw_stepper_advance_batch(&c, hl, SSW_RECON_EXP, b, nl);
      for (int l = 0; l < SSW_LANES; l++) {
        ssw_stepper_init(&c, 1.5 - 0.3 * l, 1.0 + 0.2 * l, &one);
        if (l < nl) ssw_stepper_advance(&c, hl[l], SSW_RECON_EXP, &one);
        EXPECT(!memcmp(&one, &b[l], sizeof one),
               "%s: lane %d of %d differs alone", m->name, l, nl);
      }
    }
  }
}

/* The kernel's width: 8 lanes for more than 4 states unless
 * SSW_KERNEL_LANES is 4, as one AVX-512 vector where the CPU has it (asked
 * here of the CPU directly) and a start-up measurement finds it faster,
 * and as two 4-lane vectors side by side otherwise; 4 for at most 4 states. The
 * ctest entry stepper_lanes4 runs this test with SSW_KERNEL_LANES=4, so the
 * 8-lane kernel (either kind) and the 4-lane one are checked against each other
 * through the lane tests above. */
static void test_kernel_width(void) {
  int wide = 0;
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
  __builtin_cpu_init();
  wide = __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#endif
  const char *env = getenv("SSW_KERNEL_LANES");
  const int narrow = env && atoi(env) == 4;
  if (narrow) wide = 0;
  for (int n = 1; n <= SSW_LANES; n++)
    EXPECT(ssw_stepper_kernel_lanes(n) == (n > 4 && !narrow ? 8 : 4),
           "%d states run on %d lanes (SSW_KERNEL_LANES %s)", n,
           ssw_stepper_kernel_lanes(n), env ? env : "unset");
  /* Where the CPU has AVX-512, a measurement at start-up chooses between
   * one 8-lane vector and two 4-lane ones (the same bits: test_kernel_isa);
   * without it, never the 8-lane vector. */
  EXPECT(!ssw_stepper_kernel_avx512() || wide,
         "8-lane kernel on AVX-512: %d, CPU and environment allow %d",
         ssw_stepper_kernel_avx512(), wide);
  printf("kernel: %d lanes for a full batch of %d (%s)\n",
         ssw_stepper_kernel_lanes(SSW_LANES), SSW_LANES,
         ssw_stepper_kernel_lanes(SSW_LANES) == 4 ? "one 4-lane vector"
         : wide                                   ? "one AVX-512 vector"
                : "two 4-lane vectors side by side");
}

/* The SIMD kernel's base step against the physics module's discrete
 * equations evaluated here in scalar code (Newton to convergence, libm's
 * sin and cos): equal to round-off on a wide random batch. */
static void test_kernel_vs_model(void) {
  double worst_w = 0, worst_x = 0;
  int bodies = 0;
  for (int i = 0; i < 200; i++) {
    wb_draw d;
    if (wb_draw_one(5, i, &d) != 0) continue;
    ssw_coeffs c;
    if (ssw_stepper_bind(&d.t, ssw_method_find("hamel2"), &c) != 0) {
      ssw_error_clear();
      continue;
    }
    bodies++;
    const ssw_reduced *e = &c.e;
    ssw_state s;
    ssw_stepper_init(&c, d.w0, d.v0, &s);
    const double wmax = sqrt(2 * d.H * e->M / e->D);
    const double rate = sqrt(2 * d.H * ssw_model_E(&d.t)) / e->D;
    const double h = (0.05 + 0.4 * (i % 7) / 6.0) / fmax(rate, wmax);
    for (int k = 0; k < 20; k++) {
      double a, a2, b, rhs, W1 = s.W1, W2 = s.W2, p = s.p, w, v;
      SSW_MODEL_HAMEL_CUBIC(e, h, W1, W2, a, a2, b, rhs);
      for (int it = 0; it < 100; it++) {
        const double dp =
            (((a * p + a2) * p + b) * p - rhs) / ((3 * a * p + 2 * a2) * p + b);
        p -= dp;
        if (fabs(dp) <= 1e-17 * fabs(p)) break;
      }
      SSW_MODEL_HAMEL_SOLVE(double, e, h, p, W1, W2, w, v);
      const double ph = s.phi + 0.5 * h * w;
      const double sinc = h * w != 0 ? sin(0.5 * h * w) / (0.5 * h * w) : 1;
      const double x = s.x + h * v * sinc * cos(ph);
      const double y = s.y + h * v * sinc * sin(ph);
      const double scale_w = fabs(s.W1) + fabs(s.W2);
      const double scale_x = fabs(s.x) + fabs(s.y) + fabs(h * v);
      ssw_hamel_step(&c, h, SSW_RECON_EXP, &s);
      const double ew = (fabs(s.W1 - W1) + fabs(s.W2 - W2)) / scale_w;
      const double ex = (fabs(s.x - x) + fabs(s.y - y)) / scale_x;
      worst_w = fmax(worst_w, ew), worst_x = fmax(worst_x, ex);
      EXPECT(ew <= 1e-14 && ex <= 1e-13,
             "body %d step %d: kernel vs model W %.3g, x %.3g", i, k, ew, ex);
    }
  }
  printf("kernel vs model on %d bodies x 20 steps: W %.2g, path %.2g "
         "(relative)\n",
         bodies, worst_w, worst_x);
}

/* Lanes never interact, also where their data-dependent loops differ: a
 * batch of n states whose steps range over three decades (h from 1e-3 to
 * 3, so some lanes need more Newton iterations and halvings of the
 * half-turn than their neighbours, in either 4-lane vector of an 8-lane
 * kernel) and whose velocities change sign, with and without drag, both
 * reconstructions, hamel2 and hamel8, over 30 macro steps: every lane bit
 * for bit the state stepped alone (the 4-lane kernel, one lane used). */
static void test_lanes_mixed(void) {
  const char *schemes[] = {"hamel2", "hamel8"};
  for (int dr = 0; dr < 2; dr++) {
    ssw_body bd = SEED_BODY;
    if (dr) bd.drag_w = 0.3, bd.drag_v = 0.7, bd.drag_wv = 0.2;
    ssw_params p = SEED_PARAMS(0.1);
    ssw_tensor t;
    int regime;
    ssw_model_tensor(&bd, &p, &t);
    ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
    for (int k = 0; k < 2; k++) {
      const ssw_method *m = ssw_method_find(schemes[k]);
      ssw_coeffs c;
      EXPECT(ssw_stepper_bind(&t, m, &c) == 0, "bind %s", m->name);
      for (int recon = 0; recon < SSW_RECON_COUNT; recon++)
        for (int nl = 1; nl <= SSW_LANES; nl++) {
          ssw_state b[SSW_LANES], one;
          double hl[SSW_LANES], w0[SSW_LANES], v0[SSW_LANES];
          for (int l = 0; l < SSW_LANES; l++) {
            /* lanes 0..7: h 1e-3 .. 3 in a shuffled order, w of both
             * signs and up to 40 (h w / 2 up to 60: many halvings). */
            static const int order[SSW_LANES] = {5, 0, 7, 2, 4, 1, 6, 3};
            hl[l] = 1e-3 * pow(3000.0, order[l] / 7.0);
            w0[l] = (l % 2 ? -1.0 : 1.0) * (0.5 + 5.0 * order[l]);
            v0[l] = 1.0 - 0.3 * l;
            ssw_stepper_init(&c, w0[l], v0[l], &b[l]);
          }
          for (int step = 0; step < 30; step++)
            ssw_stepper_advance_batch(&c, hl, recon, b, nl);
          for (int l = 0; l < nl; l++) {
            ssw_stepper_init(&c, w0[l], v0[l], &one);
            for (int step = 0; step < 30; step++)
              ssw_stepper_advance(&c, hl[l], recon, &one);
            EXPECT(!memcmp(&one, &b[l], sizeof one),
                   "%s, drag %d, recon %d: lane %d of %d differs alone",
                   m->name, dr, recon, l, nl);
          }
        }
    }
  }
}

int main(void) {
  test_capabilities();
  test_lanes_mixed();
  test_kernel_vs_model();
  test_orders();
  test_reversibility();
  test_energy_long_run();
  test_fixed_points();
  test_kernel_width();
  return TEST_RESULT();
}
