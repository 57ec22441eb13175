/* The sleigh with circulation below and near its critical energy
 * (docs/theory/circulation.md): at a drift energy H_n the path drifts
 * linearly, between them it stays on a circle; near H_c (|mu| - 1 down to
 * 1e-6 on both sides) the closed form stays finite and right; the
 * quadrature is converged; and the discrete Hamel step with circulation
 * (the cubic of circulation.md sec. 8) keeps its node energy and its fixed
 * points and has order 2. References: GSL's rk8pd (circ_oracle.h). */
#include <gsl/gsl_integration.h>
#include <stdlib.h>

#include "circ_oracle.h"
#include "sleighsweep/circulation.h"
#include "wide_batch.h"

/* The seed case of model.md sec. 7 made Model II (r = 0.3, s = -0.2). */
static ssw_tensor seed_model2(void) {
  ssw_body bd = SEED_BODY;
  ssw_params p = SEED_PARAMS(0.1);
  p.r = 0.3, p.s = -0.2;
  ssw_tensor t;
  int regime;
  EXPECT(ssw_model_tensor(&bd, &p, &t) == 0, "seed body");
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  return t;
}

/* kappa (sign sg) for which the level H turns by `turns` per period:
 * H = H_c x (2c + x) / (c + x)^2 with x = |turns| / 1 (sec. 4). */
static double kappa_for_turns(const ssw_tensor *t, double H, double x,
                              double sg) {
  ssw_circ_level lv;
  EXPECT(ssw_circ_level_compute(t, 0.0, H, 1, &lv) == 0, "level");
  const double c = fabs(lv.c1);
  const double Hc = H * (c + x) * (c + x) / (x * (2 * c + x));
  return sg * sqrt(2 * Hc * lv.E / lv.D);
}

/* The reference's contact point at t = k T, k = 0..K, from the motion's
 * instant t0. */
static void ref_nodes(const ssw_tensor *t, double kappa,
                      const ssw_circ_orbit *o, int K, double (*z)[2]) {
  co_run r;
  co_start(&r, t, kappa, o->w0, o->v0, 1e-4 * o->lv.period);
  z[0][0] = z[0][1] = 0;
  for (int k = 1; k <= K; k++) {
    EXPECT(co_to(&r, k * o->lv.period) == GSL_SUCCESS, "reference");
    z[k][0] = r.y[3], z[k][1] = r.y[4];
  }
  co_free(&r);
}

/* At H_n the period is a pure translation: z(kT) = k z_T. */
static void test_resonance(void) {
  const ssw_tensor t = seed_model2();
  const double H = 0.5;
  double worst = 0, speed = 0;
  for (int n = 1; n <= 3; n++) {
    for (int sg = -1; sg <= 1; sg += 2) {
      const double kappa = kappa_for_turns(&t, H, n, sg);
      EXPECT_REL(H, ssw_circ_drift_energy(&t, kappa, n), 1e-14, "H_n");
      ssw_circ_orbit o;
      double zx, zy, R, z[11][2];
      EXPECT(ssw_circ_orbit_level(&t, kappa, H, 1, &o) == 0, "orbit");
      EXPECT(o.lv.kind == SSW_CIRC_PERIODIC && o.lv.n_near == n &&
                 fabs(fabs(o.lv.turns) - n) <= 1e-13 * n,
             "H_%d: kind %d, turns %.17g, nearest %d", n, o.lv.kind, o.lv.turns,
             o.lv.n_near);
      EXPECT(ssw_circ_orbit_period(&o, &zx, &zy, &R) == 0, "period");
      const double zT = hypot(zx, zy);
      EXPECT(zT > 1e-2 && R > 1e10 * zT, "H_%d: |z_T| %g, radius %g", n, zT, R);
      ref_nodes(&t, kappa, &o, 10, z);
      for (int k = 1; k <= 10; k++) {
        const double e = hypot(z[k][0] - k * zx, z[k][1] - k * zy) / (k * zT);
        worst = fmax(worst, e);
        EXPECT(e <= 1e-9, "H_%d: z(%d T) off the line by %.3g", n, k, e);
      }
      speed = fmax(speed, zT / o.lv.period);
    }
  }
  printf("drift energies H_1..H_3, both signs: z(kT) = k z_T to %.2e "
         "(k <= 10); drift speed up to %.3g\n",
         worst, speed);
}

/* Between drift energies the points z(kT) lie on one circle about the
 * fixed point c = z_T / (1 - e^{i dphi}) of the period's rigid motion. */
static void test_bounded(void) {
  const ssw_tensor t = seed_model2();
  const double H = 0.5;
  const double xs[] = {0.3, 1.5, 2.5, 1.9};
  double worst = 0;
  for (int i = 0; i < 4; i++) {
    for (int sg = -1; sg <= 1; sg += 2) {
      const double kappa = kappa_for_turns(&t, H, xs[i], sg);
      ssw_circ_orbit o;
      double zx, zy, R, z[21][2];
      EXPECT(ssw_circ_orbit_level(&t, kappa, H, 1, &o) == 0, "orbit");
      EXPECT(ssw_circ_orbit_period(&o, &zx, &zy, &R) == 0, "period");
      const double dp = o.lv.dphi_period;
      const double ex = 1 - cos(dp), ey = -sin(dp); /* 1 - e^{i dphi} */
      const double den = ex * ex + ey * ey;
      const double cx = (zx * ex + zy * ey) / den;
      const double cy = (zy * ex - zx * ey) / den;
      EXPECT_REL(hypot(cx, cy), R, 1e-13, "orbit radius");
      ref_nodes(&t, kappa, &o, 20, z);
      double far = 0;
      for (int k = 0; k <= 20; k++) {
        const double e = fabs(hypot(z[k][0] - cx, z[k][1] - cy) - R) / R;
        worst = fmax(worst, e);
        far = fmax(far, hypot(z[k][0], z[k][1]));
        EXPECT(e <= 1e-9, "turns %.2f: z(%d T) off the circle by %.3g", xs[i],
               k, e);
      }
      EXPECT(far <= 2 * R * (1 + 1e-9), "turns %.2f: |z| %g > 2 R = %g", xs[i],
             far, 2 * R);
    }
  }
  printf("between drift energies: z(kT) on the circle to %.2e (k <= 20)\n",
         worst);
}

/* ---- Near H_c ---------------------------------------------------------- */

/* The level's frame (sec. 2), built here from its definitions: zeta* the
 * state of largest g on the ellipse, zeta_perp = sqrt(D) K^-1 S zeta*,
 * scaled to the closed form's gm: near H_c the quantities are conditioned
 * as ~1 / nu^2 with respect to the energy, so both sides must see the same
 * level to compare to round-off. */
typedef struct {
  double sD, gm, kappa, ws, wp; /* w* and w_perp */
  double wref;                  /* the line's slope subtracted */
  int time;                     /* integrand dt / dpsi alone */
} nc_par;

static nc_par nc_frame(const ssw_tensor *t, const ssw_circ_level *lv) {
  nc_par p;
  double ws, vs;
  co_extreme(t, lv->H, 1, &ws, &vs);
  const double D = t->M * t->J - t->L2 * t->L2;
  const double k = lv->gm / (t->L1 * ws + t->Z * vs);
  p.sD = sqrt(D);
  p.gm = lv->gm;
  p.kappa = lv->kappa;
  p.ws = k * ws;
  p.wp = k * (t->L2 * ws - t->M * vs) / p.sD;
  p.wref = 0;
  p.time = 0;
  return p;
}

/* (w(psi) - wref) dt / dpsi, dt / dpsi = sqrt(D) / |gm cos psi - kappa|,
 * the difference written without cancellation near psi = 0 and pi (where
 * it is smallest near H_c). */
static double nc_integrand(double psi, void *vp) {
  const nc_par *p = vp;
  const double sh = sin(0.5 * psi), ch = cos(0.5 * psi);
  const double den = fabs(sh) < fabs(ch)
                         ? (p->gm - p->kappa) - 2 * p->gm * sh * sh
                         : 2 * p->gm * ch * ch - (p->gm + p->kappa);
  const double dt = p->sD / fabs(den);
  if (p->time) return dt;
  return (cos(psi) * p->ws + sin(psi) * p->wp - p->wref) * dt;
}

static double nc_quad(const nc_par *p, double wref, double a, double b,
                      int time) {
  static gsl_integration_workspace *ws;
  if (!ws) ws = gsl_integration_workspace_alloc(20000);
  nc_par q = *p;
  q.wref = wref;
  q.time = time;
  gsl_function f = {nc_integrand, &q};
  double r, err;
  EXPECT(gsl_integration_qag(&f, a, b, 1e-14, 1e-12, 20000, GSL_INTEG_GAUSS61,
                             ws, &r, &err) == 0,
         "quadrature over [%g, %g]", a, b);
  return r;
}

/* Period, heading per period and transition angles as integrals over psi
 * (GSL's QAG at 1e-12; the transition's integrands, differences of
 * vanishing quantities at the ends, reach no better). */
static void nc_reference(const ssw_tensor *t, const ssw_circ_level *lv,
                         double out[3]) {
  nc_par p = nc_frame(t, lv);
  if (lv->kind == SSW_CIRC_PERIODIC) {
    out[0] = nc_quad(&p, 0, 0, 2 * M_PI, 1);
    out[1] = nc_quad(&p, 0, 0, 2 * M_PI, 0);
    out[2] = NAN;
    return;
  }
  /* The transition angle: the integrals of w minus the limit slopes from
   * t0 (psi = 0 or pi) to either end. */
  const double pe = lv->psi_e;
  out[0] =
      nc_quad(&p, lv->w_past, -pe, 0, 0) + nc_quad(&p, lv->w_future, 0, pe, 0);
  out[1] = nc_quad(&p, lv->w_future, pe, M_PI, 0) +
           nc_quad(&p, lv->w_past, M_PI, 2 * M_PI - pe, 0);
  out[2] = NAN;
}

/* |mu| = 1 + delta (below) and 1 - delta (above), delta down to 1e-6.
 * Period and heading per period against integrals over psi to 1e-12,
 * transition angles to 1e-10 (of max(1, |dphi|)); the displacement per period,
 * limit states, radii and d against rk8pd, whose error there grows as ~1 / nu^3
 * (nu^2 ~ 2 delta: the heading turns by ~1 / nu per period and the quantities'
 * sensitivity to the energy, which the reference conserves only to ~1e-14, is
 * ~1 / nu^2), hence the tolerance 1e-8 + 3e-13 / nu^3. */
static void test_near_critical(void) {
  const ssw_tensor t = seed_model2();
  const double H = 0.5, gm = sqrt(2 * H * ssw_model_E(&t) / ssw_model_D(&t));
  printf("near H_c: delta  nu^2     | vs quadrature: T, dphi/T, dphi_arc, "
         "z_T(panels/8) | vs rk8pd: z_T, limits, radii, d\n");
  for (int j = 2; j <= 6; j++) {
    const double delta = pow(10.0, -j);
    double eq[4] = {0}, er[4] = {0}, nu = 0;
    for (int sg = -1; sg <= 1; sg += 2) {
      ssw_circ_orbit o;
      double ref[6], q[3], zx, zy, R;
      const double kb = sg * gm * (1 + delta);
      EXPECT(ssw_circ_orbit_level(&t, kb, H, 1, &o) == 0, "below");
      nu = o.lv.nu;
      nc_reference(&t, &o.lv, q);
      eq[0] = fmax(eq[0], fabs(o.lv.period / q[0] - 1));
      eq[1] = fmax(eq[1], fabs(o.lv.dphi_period / q[1] - 1));
      EXPECT(co_period(&t, kb, o.w0, o.v0, o.lv.period, ref) == 0, "ref");
      EXPECT(ssw_circ_orbit_period(&o, &zx, &zy, &R) == 0, "period");
      er[0] =
          fmax(er[0], hypot(zx - ref[2], zy - ref[3]) / hypot(ref[2], ref[3]));
      /* The reference's scatter there is ~1e-5; the quadrature itself is
       * converged far below it. */
      ssw_circ_orbit fine = o;
      double fx, fy, fR;
      fine.panel = o.panel / 8;
      EXPECT(ssw_circ_orbit_period(&fine, &fx, &fy, &fR) == 0, "fine");
      eq[3] = fmax(eq[3], hypot(fx - zx, fy - zy) / hypot(fx, fy));
      const double ka = sg * gm * (1 - delta);
      for (int arc = -1; arc <= 1; arc += 2) {
        double w0, v0, cp[2], cf[2], d;
        EXPECT(ssw_circ_orbit_level(&t, ka, H, arc, &o) == 0, "above");
        const ssw_circ_level *lv = &o.lv;
        nc_reference(&t, lv, q);
        eq[2] = fmax(eq[2], fabs(lv->dphi - q[arc > 0 ? 0 : 1]) /
                                fmax(1, fabs(lv->dphi)));
        co_extreme(&t, H, arc, &w0, &v0);
        EXPECT(co_transition(&t, ka, w0, v0, 40 / lv->lambda, ref) == 0, "ref");
        EXPECT(ssw_circ_orbit_centres(&o, cp, cf, &d) == 0, "centres");
        er[1] =
            fmax(er[1], hypot(lv->w_future - ref[1], lv->v_future - ref[2]) /
                            hypot(ref[1], ref[2]));
        const double rf = fabs(ref[2] / ref[1]), rp = fabs(ref[4] / ref[3]);
        er[2] = fmax(er[2], fabs(lv->r_past / rp - 1));
        /* On the short arc d is exponentially small (~1e-14 at delta =
         * 1e-2): relative to the smaller radius there. */
        er[3] = fmax(er[3], fabs(d - ref[5]) / fmax(ref[5], fmin(rf, rp)));
      }
    }
    const double tol = 1e-8 + 3e-13 / (nu * nu * nu);
    printf("          %.0e %.2e |  %.2e %.2e %.2e %.2e |  %.2e %.2e %.2e "
           "%.2e\n",
           delta, nu * nu, eq[0], eq[1], eq[2], eq[3], er[0], er[1], er[2],
           er[3]);
    for (int k = 0; k < 4; k++) {
      EXPECT(eq[k] <= (k < 2 ? 1e-12 : 1e-10), "delta %g: quadrature %d: %.3g",
             delta, k, eq[k]);
      EXPECT(er[k] <= tol, "delta %g: rk8pd %d: %.3g > %.3g", delta, k, er[k],
             tol);
    }
  }
}

/* Panels 8 times shorter than the library's choice change the path by no
 * more than the summation's round-off. */
static void test_quadrature(void) {
  double worst = 0;
  int n = 0;
  for (int i = 0; i < 400 && n < 120; i++) {
    wb_draw dr;
    if (wb_draw_one(515, i, &dr) != 0 || dr.body.rho == 0) continue;
    uint64_t s = 0xD1F7ULL + (uint64_t)i;
    const double ratio = wb_log(&s, 0.05, 20.0);
    const double kappa = (test_u01(&s) < 0.5 ? -1 : 1) *
                         sqrt(2 * dr.H / ratio * dr.an.E / dr.an.D);
    ssw_circ_orbit o;
    if (ssw_circ_orbit_init(&dr.t, kappa, dr.w0, dr.v0, &o) != 0) continue;
    const double span =
        o.lv.kind == SSW_CIRC_PERIODIC ? 3 * o.lv.period : 20 / o.lv.lambda;
    for (int dir = -1; dir <= 1; dir += 2) {
      double x0, y0, x1, y1;
      ssw_circ_orbit fine = o;
      fine.panel = o.panel / 8;
      EXPECT(ssw_circ_orbit_advance(&o, 0, dir * span, &x0, &y0) == 0 &&
                 ssw_circ_orbit_advance(&fine, 0, dir * span, &x1, &y1) == 0,
             "advance");
      worst = fmax(worst, hypot(x1 - x0, y1 - y0) / fmax(1, hypot(x1, y1)));
    }
    n++;
  }
  EXPECT(n >= 100 && worst <= 1e-12, "quadrature: %d bodies, %.3g", n, worst);
  printf("quadrature: panels / 8 change the path by <= %.2e (relative, %d "
         "bodies)\n",
         worst, n);
}

/* ---- The discrete Hamel step with circulation (sec. 8) ----------------- */

typedef struct {
  double J, M, L1, L2, Z, D, k1, k2, kappa;
} hm_par;

/* One step: the cubic (h^2/4) q^3 + kappa (h^2/4) q^2 + (D - (h/2)(Z W1 -
 * L1 W2)) q + kappa D - (k1 W1 + k2 W2) = 0 in q = p - kappa by Newton,
 * then zeta = (K + (h/2) q R)^-1 W and W <- W - h q R zeta. Returns the
 * consistency residual |g(zeta) - kappa - q| / |q| scale. */
static double hm_step(const hm_par *p, double h, double W[2], double *q) {
  const double a = 0.25 * h * h;
  const double b = p->D - 0.5 * h * (p->Z * W[0] - p->L1 * W[1]);
  const double c0 = p->kappa * p->D - (p->k1 * W[0] + p->k2 * W[1]);
  for (int it = 0; it < 50; it++) {
    const double f = ((a * *q + p->kappa * a) * *q + b) * *q + c0;
    const double df = (3 * a * *q + 2 * p->kappa * a) * *q + b;
    const double dq = f / df;
    *q -= dq;
    if (fabs(dq) <= 1e-16 * fabs(*q)) break;
  }
  const double hc = 0.5 * h * *q, inv = 1 / (p->D + hc * hc);
  const double w = (p->M * W[0] + (p->L2 - hc) * W[1]) * inv;
  const double v = ((p->L2 + hc) * W[0] + p->J * W[1]) * inv;
  W[0] -= 2 * hc * v;
  W[1] += 2 * hc * w;
  return fabs(p->L1 * w + p->Z * v - p->kappa - *q) /
         (fabs(p->L1 * w) + fabs(p->Z * v) + fabs(p->kappa));
}

static double hm_energy(const hm_par *p, const double W[2]) {
  return (p->M * W[0] * W[0] + 2 * p->L2 * W[0] * W[1] + p->J * W[1] * W[1]) /
         (2 * p->D);
}

/* Node velocity K^-1 W after N steps of h from the motion's t = 0, against
 * the closed form at N h. */
static double hm_error(const hm_par *p, const ssw_circ_orbit *o, double h,
                       int N, double *eres, double *een) {
  double W[2] = {p->J * o->w0 - p->L2 * o->v0, -p->L2 * o->w0 + p->M * o->v0};
  double q = p->L1 * o->w0 + p->Z * o->v0 - p->kappa;
  const double H0 = hm_energy(p, W);
  for (int k = 0; k < N; k++) {
    *eres = fmax(*eres, hm_step(p, h, W, &q));
    *een = fmax(*een, fabs(hm_energy(p, W) / H0 - 1));
  }
  double w, v;
  ssw_circ_orbit_state(o, N * h, &w, &v);
  const double wn = (p->M * W[0] + p->L2 * W[1]) / p->D;
  const double vn = (p->L2 * W[0] + p->J * W[1]) / p->D;
  return hypot(wn - w, vn - v) / hypot(w, v);
}

static void test_hamel_step(void) {
  const ssw_tensor t = seed_model2();
  const double H = 0.5, gm = sqrt(2 * H * ssw_model_E(&t) / ssw_model_D(&t));
  ssw_reduced e;
  ssw_model_reduce(&t, &e);
  hm_par p = {t.J, t.M, t.L1, t.L2, t.Z, e.D, e.kw1, e.kw2, 0.0};
  const double mus[] = {0.6, -0.6, 1.5, -1.5};
  for (int i = 0; i < 4; i++) {
    p.kappa = mus[i] * gm;
    ssw_circ_orbit o;
    EXPECT(ssw_circ_orbit_level(&t, p.kappa, H, 1, &o) == 0, "orbit");
    const double span =
        o.lv.kind == SSW_CIRC_PERIODIC ? o.lv.period : 6 / o.lv.lambda;
    double eres = 0, een = 0;
    const double e1 = hm_error(&p, &o, span / 400, 400, &eres, &een);
    const double e2 = hm_error(&p, &o, span / 800, 800, &eres, &een);
    EXPECT(eres <= 1e-14 && een <= 1e-13,
           "mu %g: cubic residual %.3g, node energy drift %.3g", mus[i], eres,
           een);
    EXPECT(e1 / e2 > 3.8 && e1 / e2 < 4.2, "mu %g: order: errors %.3g, %.3g",
           mus[i], e1, e2);
    printf("Hamel step, mu %+.1f: cubic residual %.1e, node energy %.1e, "
           "errors %.2e -> %.2e (ratio %.3f)\n",
           mus[i], eres, een, e1, e2, e1 / e2);
    /* A state on g = kappa is a fixed point. */
    const double w0 = 0.3, v0 = 0.7;
    p.kappa = t.L1 * w0 + t.Z * v0;
    double W[2] = {t.J * w0 - t.L2 * v0, -t.L2 * w0 + t.M * v0}, q = 0.0;
    const double W0[2] = {W[0], W[1]};
    for (int k = 0; k < 100; k++)
      hm_step(&p, 0.05, W, &q);
    EXPECT(hypot(W[0] - W0[0], W[1] - W0[1]) <= 1e-14 * hypot(W0[0], W0[1]),
           "fixed point moved by %.3g", hypot(W[0] - W0[0], W[1] - W0[1]));
  }
}

int main(void) {
  gsl_set_error_handler_off();
  test_quadrature();
  test_resonance();
  test_bounded();
  test_hamel_step();
  test_near_critical();
  return TEST_RESULT();
}
