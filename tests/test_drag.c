/* Linear drag in the equations and the schemes (docs/theory/drag.md),
 * against exact identities and the exact damped motion written here:
 * - the discrete Hamel step with drag solves its defining equations
 *   (K + (h/2) C) z + (h/2) g R z = W_k, W_{k+1} = (K - (h/2) C) z - (h/2) g
 *   R z, with z recovered from the nodes as K^-1 (W_k + W_{k+1}) / 2, to
 *   round-off (1e-12), and its node energy falls by exactly h z^T C z per step:
 *   H_k + dissipated = H_0 at every node to round-off (1e-12 of H_0 over
 *   4000 steps, with and without circulation);
 * - the step is symmetric: the step of -h undoes the step of h (1e-13);
 * - with C = c K, Gamma = 0 the motion is zeta(t) = e^{-c t} eta(tau),
 *   tau = (1 - e^{-c t}) / c, eta the undamped motion, whose heading and
 *   contact point this file computes by its own quadrature of the closed
 *   form (exact-path.md) to ~1e-15: every scheme's observed order at fixed
 *   steps is within 0.5 of its order;
 * - bad drag input is refused (negative, not positive semidefinite, not
 *   finite; rattle with drag), and drag_wv changes the motion;
 * - the blade force with drag obeys the lateral momentum balance, and its
 *   rate and series agree with it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drag_oracle.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"
#include "wide_batch.h"

/* Node energy W^T K^-1 W / 2. */
static double node_energy(const ssw_tensor *t, double W1, double W2) {
  const double D = t->M * t->J - t->L2 * t->L2;
  return 0.5 * (t->M * W1 * W1 + 2 * t->L2 * W1 * W2 + t->J * W2 * W2) / D;
}

static void balance_one(const wb_draw *d, uint64_t *s, int circ, double *worst,
                        double *worst_eq) {
  ssw_tensor t = d->t;
  const double rate = sqrt(2 * d->H * ssw_model_E(&t)) / ssw_model_D(&t);
  random_drag(s, &t, rate * wb_log(s, 0.01, 3));
  if (circ)
    t.kappa =
        wb_lin(s, -1, 1) * sqrt(2 * d->H * ssw_model_E(&t) / ssw_model_D(&t));
  ssw_coeffs c;
  EXPECT(ssw_stepper_bind(&t, ssw_method_find("hamel2"), &c) == 0, "bind");
  ssw_state st;
  ssw_stepper_init(&c, d->w0, d->v0, &st);
  const double H0 = node_energy(&t, st.W1, st.W2), h = 0.05 / rate;
  const double D = ssw_model_D(&t);
  double diss = 0.0;
  for (int k = 0; k < 4000; k++) {
    const double W1 = st.W1, W2 = st.W2;
    ssw_hamel_step(&c, h, SSW_RECON_EXP, &st);
    /* z = K^-1 (W_k + W_{k+1}) / 2. */
    const double m1 = 0.5 * (W1 + st.W1), m2 = 0.5 * (W2 + st.W2);
    const double w = (t.M * m1 + t.L2 * m2) / D, v = (t.L2 * m1 + t.J * m2) / D;
    const double f1 = t.cw * w + t.cwv * v, f2 = t.cwv * w + t.cv * v;
    diss += h * (w * f1 + v * f2);
    const double g = t.L1 * w + t.Z * v - t.kappa;
    /* (K + (h/2) C) z + (h/2) g R z - W_k, R z = (v, -w). */
    const double r1 = t.J * w - t.L2 * v + 0.5 * h * (f1 + g * v) - W1;
    const double r2 = -t.L2 * w + t.M * v + 0.5 * h * (f2 - g * w) - W2;
    const double scale = fabs(W1) + fabs(W2) + 1e-300;
    *worst_eq = fmax(*worst_eq, (fabs(r1) + fabs(r2)) / scale);
    const double H = node_energy(&t, st.W1, st.W2);
    *worst = fmax(*worst, fabs(H + diss - H0) / H0);
  }
  EXPECT(fabs(st.diss - diss) <= 1e-12 * H0,
         "the kernel's dissipation %.17g, the nodes' %.17g", st.diss, diss);
}

static void test_balance(void) {
  uint64_t s = 11;
  double worst = 0, worst_eq = 0;
  int n = 0;
  for (int i = 0; n < 200 && i < 2000; i++) {
    wb_draw d;
    if (wb_draw_one(23, i, &d) != 0) continue;
    balance_one(&d, &s, i & 1, &worst, &worst_eq);
    n++;
  }
  printf("energy balance: %d bodies x 4000 steps: max |H + dissipated - H0| "
         "/ H0 = %.2e, step equations' residual %.2e\n",
         n, worst, worst_eq);
  EXPECT(worst <= 1e-12, "energy balance %.3g", worst);
  EXPECT(worst_eq <= 1e-12, "step equations residual %.3g", worst_eq);
}

/* The step of -h after the step of h returns the start. */
static void test_symmetric(void) {
  uint64_t s = 5;
  double worst = 0;
  for (int i = 0, n = 0; n < 200 && i < 2000; i++) {
    wb_draw d;
    if (wb_draw_one(29, i, &d) != 0) continue;
    ssw_tensor t = d.t;
    const double rate = sqrt(2 * d.H * ssw_model_E(&t)) / ssw_model_D(&t);
    random_drag(&s, &t, rate * wb_log(&s, 0.01, 3));
    ssw_coeffs c;
    ssw_stepper_bind(&t, ssw_method_find("hamel2"), &c);
    ssw_state st, back;
    ssw_stepper_init(&c, d.w0, d.v0, &st);
    back = st;
    /* The implicit half of the step of -h has K - (h/2) C: h C small
     * against K keeps it positive definite and its root unique. */
    const double h = 0.05 / rate;
    ssw_hamel_step(&c, h, SSW_RECON_EXP, &back);
    back.p = st.p; /* the warm start only */
    ssw_hamel_step(&c, -h, SSW_RECON_EXP, &back);
    const double sc = fabs(st.W1) + fabs(st.W2);
    worst = fmax(worst, (fabs(back.W1 - st.W1) + fabs(back.W2 - st.W2)) / sc);
    n++;
  }
  printf("symmetry: max |S_-h S_h W - W| / |W| = %.2e\n", worst);
  EXPECT(worst <= 1e-13, "the step is not symmetric: %.3g", worst);
}

/* Fixed steps of each scheme to time T; error in (phi, x, y). */
static double error_at(const ssw_method *m, const ssw_tensor *t, double w0,
                       double v0, double T, int n, const double ref[3]) {
  ssw_coeffs c;
  EXPECT(ssw_stepper_bind(t, m, &c) == 0, "bind %s", m->name);
  ssw_state st;
  ssw_stepper_init(&c, w0, v0, &st);
  for (int k = 0; k < n; k++)
    ssw_stepper_advance(&c, T / n, SSW_RECON_EXP, &st);
  return fmax(fabs(st.phi - ref[0]), hypot(st.x - ref[1], st.y - ref[2]));
}

static void test_orders(void) {
  ssw_tensor t;
  const ssw_body body = SEED_BODY;
  const ssw_params p = SEED_PARAMS(0.1);
  EXPECT(ssw_model_tensor(&body, &p, &t) == 0, "seed tensor");
  const double w0 = 1.5, v0 = 1.0, cc = 0.3, T = 4.0;
  t.cw = cc * t.J, t.cv = cc * t.M, t.cwv = -cc * t.L2;
  undamped o;
  undamped_of(&t, w0, v0, &o);
  double ref[3];
  undamped_at(&o, -expm1(-cc * T) / cc, &ref[0], &ref[1], &ref[2]);
  int nm;
  const ssw_method *m = ssw_method_table(&nm);
  for (int i = 0; i < nm; i++) {
    if (m[i].caps & SSW_CAP_FULL_TENSOR) continue; /* rattle: refused */
    /* Steps where the error is well above round-off and asymptotic. */
    const int n0 = m[i].order <= 2   ? 200
                   : m[i].order <= 5 ? 40
                   : m[i].order <= 6 ? 20
                                     : 6;
    double e[3];
    for (int k = 0; k < 3; k++)
      e[k] = error_at(&m[i], &t, w0, v0, T, n0 << k, ref);
    const double q1 = log2(e[0] / e[1]), q2 = log2(e[1] / e[2]);
    printf("order with drag: %-8s errors %.2e %.2e %.2e  observed %.2f %.2f "
           "(order %d)\n",
           m[i].name, e[0], e[1], e[2], q1, q2, m[i].order);
    EXPECT(q2 >= m[i].order - 0.5 || e[2] < 1e-13,
           "%s: observed order %.2f < %d - 0.5", m[i].name, q2, m[i].order);
  }
}

static void test_refusals(void) {
  EXPECT(ssw_model_check_drag(-1, 1, 0) == SSW_ERR_BODY, "negative drag_w");
  ssw_error_clear();
  EXPECT(ssw_model_check_drag(1, -1e-300, 0) == SSW_ERR_BODY, "negative v");
  ssw_error_clear();
  EXPECT(ssw_model_check_drag(1, 1, 1.0000001) == SSW_ERR_BODY, "not PSD");
  ssw_error_clear();
  EXPECT(ssw_model_check_drag(NAN, 1, 0) == SSW_ERR_BODY, "nan");
  ssw_error_clear();
  EXPECT(ssw_model_check_drag(1, INFINITY, 0) == SSW_ERR_BODY, "inf");
  ssw_error_clear();
  EXPECT(ssw_model_check_drag(1, 4, 2) == SSW_SUCCESS, "singular PSD");
  /* The bound is sqrt(drag_w drag_v) as a user computes it, to the bit
   * (sqrt(0.3) sqrt(0.37) is an ulp below it and refused this value), and
   * its message prints the entries in the shortest form that reads back. */
  const double uw = 0.3, uv = 0.37, uwv = sqrt(uw * uv);
  EXPECT(ssw_model_drag_wv_max(uw, uv) == uwv, "bound %.17g, user's %.17g",
         ssw_model_drag_wv_max(uw, uv), uwv);
  EXPECT(ssw_model_check_drag(uw, uv, uwv) == SSW_SUCCESS &&
             ssw_model_check_drag(uw, uv, -uwv) == SSW_SUCCESS,
         "sqrt(drag_w drag_v) itself refused: %s", ssw_error_user_message());
  ssw_error_clear();
  EXPECT(ssw_model_check_drag(uw, uv, nextafter(uwv, 1)) == SSW_ERR_BODY,
         "an ulp above sqrt(drag_w drag_v) accepted");
  EXPECT(strstr(ssw_error_user_message(), "0.33316662497915367") &&
             strstr(ssw_error_user_message(), "= 0.3331666249791536,"),
         "message does not tell the two sides apart: %s",
         ssw_error_user_message());
  ssw_error_clear();
  /* Where the product overflows or underflows, the product-free form. */
  EXPECT(fabs(ssw_model_drag_wv_max(1e300, 4e300) / 2e300 - 1) < 1e-15 &&
             fabs(ssw_model_drag_wv_max(1e-200, 4e-200) / 2e-200 - 1) < 1e-15 &&
             ssw_model_drag_wv_max(0, 5) == 0,
         "bound at the ends: %g %g %g", ssw_model_drag_wv_max(1e300, 4e300),
         ssw_model_drag_wv_max(1e-200, 4e-200), ssw_model_drag_wv_max(0, 5));
  /* The config names the key and its line. */
  const char *ini = "[body]\nm = 1\nI0 = 0.5\nrho = 1\ndrag_w = 1\n"
                    "drag_v = 1\ndrag_wv = 2\n[grid]\ntheta = 1\na = 0.2\n"
                    "A = 0.5\nB = 0.3\n";
  ssw_config *cfg = NULL;
  EXPECT(ssw_config_parse(ini, "drag.ini", &cfg) != SSW_SUCCESS,
         "a drag matrix that is not PSD parses");
  EXPECT(strstr(ssw_error_message(), "drag.ini:7") &&
             strstr(ssw_error_message(), "positive semidefinite"),
         "message: %s", ssw_error_message());
  ssw_error_clear();
  ssw_config_destroy(&cfg);
  const char *neg = "[body]\nm = 1\nI0 = 0.5\nrho = 1\ndrag_v = -1\n[grid]\n"
                    "theta = 1\na = 0.2\nA = 0.5\nB = 0.3\n";
  EXPECT(ssw_config_parse(neg, "neg.ini", &cfg) != SSW_SUCCESS,
         "negative drag_v parses");
  EXPECT(strstr(ssw_error_message(), "neg.ini:5"), "message: %s",
         ssw_error_message());
  ssw_error_clear();
  ssw_config_destroy(&cfg);
  /* rattle refuses drag at bind. */
  ssw_tensor t;
  const ssw_body body = SEED_BODY;
  const ssw_params p = SEED_PARAMS(0.0);
  ssw_model_tensor(&body, &p, &t);
  t.cv = 0.1;
  ssw_coeffs c;
  EXPECT(ssw_stepper_bind(&t, ssw_method_find("rattle"), &c) == SSW_ERR_ARG,
         "rattle binds a body with drag");
  EXPECT(strstr(ssw_error_message(), "drag"), "message: %s",
         ssw_error_message());
  ssw_error_clear();
  /* The limit-motion extraction refuses drag (no silent wrong answer). */
  ssw_integrator in;
  ssw_integrator_defaults(&in);
  ssw_traj r;
  EXPECT(ssw_extract_run(&t, SSW_REGIME_CIRCLE_TO_CIRCLE, 1.5, 1.0, &in, NULL,
                         NULL, &r) == SSW_ERR_ARG,
         "ssw_extract_run integrates a body with drag");
  ssw_error_clear();
}

/* drag_wv enters the motion: the same body with and without it differs
 * after one step by the amount the equations say, h (K^-1 C zeta)
 * to first order. */
static void test_coupling(void) {
  ssw_tensor t, u;
  const ssw_body body = SEED_BODY;
  const ssw_params p = SEED_PARAMS(0.1);
  ssw_model_tensor(&body, &p, &t);
  t.cw = 0.2, t.cv = 0.3;
  u = t;
  u.cwv = 0.2;
  ssw_coeffs a, b;
  ssw_stepper_bind(&t, ssw_method_find("hamel8"), &a);
  ssw_stepper_bind(&u, ssw_method_find("hamel8"), &b);
  ssw_state sa, sb;
  const double h = 1e-4, w0 = 1.5, v0 = 1.0;
  ssw_stepper_init(&a, w0, v0, &sa);
  ssw_stepper_init(&b, w0, v0, &sb);
  ssw_stepper_advance(&a, h, SSW_RECON_EXP, &sa);
  ssw_stepper_advance(&b, h, SSW_RECON_EXP, &sb);
  /* W changes by -h C zeta: the coupling adds -h cwv (v0, w0). */
  EXPECT_REL(sb.W1 - sa.W1, -h * 0.2 * v0, 1e-3, "drag_wv's effect on W1");
  EXPECT_REL(sb.W2 - sa.W2, -h * 0.2 * w0, 1e-3, "drag_wv's effect on W2");
}

/* The blade force with drag: F = p2' + w p1 - lateral lift (the lateral
 * momentum balance, blade-force.md), with p2' = L1 w' + Z v' from the
 * equations with drag; its rate against a central difference along the
 * motion; the series' first two terms against F and dF/dt. */
static void test_blade_drag(void) {
  uint64_t s = 31;
  double worst[3] = {0, 0, 0};
  for (int i = 0, n = 0; n < 100 && i < 1000; i++) {
    wb_draw d;
    if (wb_draw_one(37, i, &d) != 0) continue;
    ssw_tensor t = d.t;
    const double rate = sqrt(2 * d.H * ssw_model_E(&t)) / ssw_model_D(&t);
    random_drag(&s, &t, rate * wb_log(&s, 0.05, 3));
    ssw_reduced e;
    ssw_model_reduce(&t, &e);
    const double w = d.w0, v = d.v0;
    double dw, dv, f, df, F[3];
    ssw_model_zeta_rate(&e, w, v, &dw, &dv);
    const double p1 = -t.L2 * w + t.M * v;
    const double want = t.L1 * dw + t.Z * dv + w * p1;
    ssw_model_blade_rate(&e, w, v, &f, &df);
    const double scale = fabs(t.L1 * dw) + fabs(t.Z * dv) + fabs(w * p1);
    worst[0] = fmax(worst[0], fabs(f - want) / scale);
    const double k = 1e-4 / rate;
    const double fd = (ssw_model_blade_force(&e, w + k * dw, v + k * dv) -
                       ssw_model_blade_force(&e, w - k * dw, v - k * dv)) /
                      (2 * k);
    worst[1] = fmax(worst[1], fabs(df - fd) / (fabs(fd) + rate * scale));
    ssw_model_blade_series(&e, w, v, 3, F);
    worst[2] = fmax(worst[2], fmax(fabs(F[0] - f) / scale,
                                   fabs(F[1] - df) / (rate * scale)));
    n++;
  }
  printf("blade force with drag: balance %.2e, rate vs difference %.2e, "
         "series %.2e\n",
         worst[0], worst[1], worst[2]);
  EXPECT(worst[0] <= 1e-12, "F against the momentum balance %.3g", worst[0]);
  EXPECT(worst[1] <= 1e-6, "dF/dt against a central difference %.3g", worst[1]);
  EXPECT(worst[2] <= 1e-12, "the series' first terms %.3g", worst[2]);
}

int main(void) {
  test_blade_drag();
  test_refusals();
  test_coupling();
  test_balance();
  test_symmetric();
  test_orders();
  return TEST_RESULT();
}
