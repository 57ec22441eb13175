/* The closed form of the sleigh with circulation (src/physics/circulation.c)
 * against the kappa = 0 closed form (src/physics/analytic.c) and against
 * GSL's rk8pd on the equations written out in circ_oracle.h, on a seeded
 * wide batch of Model II bodies: period, heading per period, displacement
 * per period and orbit radius below H_c; transition angles, limit states,
 * radii and centre spacing on both arcs above it; the heading and the path
 * at arbitrary times. */
#include <stdlib.h>

#include "circ_oracle.h"
#include "sleighsweep/analytic.h"
#include "sleighsweep/circulation.h"
#include "wide_batch.h"

/* Tolerances (measured worst cases are printed and quoted in
 * docs/theory/circulation.md sec. 9). The reference integrates at 1e-13;
 * its relative error grows with the number of radians turned and, near
 * H_c, is amplified by the level's conditioning ~1 / nu^2 (nu^2 =
 * |1 - H_c / H|), hence the tolerance tol_base / min(1, nu^2). */
#define TOL_BASE 1e-8
/* kappa = 0 against analytic.c: the same quantities by other expressions;
 * the paths sum thousands of panels over ~1e3 rad of heading. */
#define TOL_KAPPA0 1e-12
#define TOL_KAPPA0_PATH 1e-11

static double tol_of(const ssw_circ_level *lv) {
  return TOL_BASE / fmin(1.0, lv->nu * lv->nu);
}

typedef struct {
  double period, dphi, zT, radius;                       /* below H_c */
  double tdphi, limit, r, d, identity, pathphi, pathpos; /* above; path */
  int n_below, n_above, n_path;
  double gmin, gmax;  /* |Gamma| span of the batch */
  double raw, nu2min; /* largest unscaled error; smallest nu^2 */
} batch_stats;

/* Records an error e measured against tolerance tol into the scaled
 * maximum *m and the raw one. */
static void note(batch_stats *st, double *m, double e, double tol) {
  *m = fmax(*m, e * TOL_BASE / tol);
  st->raw = fmax(st->raw, e);
  st->nu2min = fmin(st->nu2min, TOL_BASE / tol);
}

/* kappa = 0: the closed form of analytic.c, to round-off. */
static void test_kappa0(void) {
  double worst_dphi = 0, worst_r = 0, worst_d = 0, worst_phi = 0, worst_z = 0;
  int n = 0;
  for (int i = 0; i < 300; i++) {
    wb_draw dr;
    if (wb_draw_one(77, i, &dr) != 0) continue;
    ssw_circ_level lv;
    EXPECT(ssw_circ_level_compute(&dr.t, 0.0, dr.H, 1, &lv) == 0,
           "draw %d: level", i);
    EXPECT(lv.kind == SSW_CIRC_HETEROCLINIC, "draw %d: kappa = 0 kind %d", i,
           lv.kind);
    const double d1 = ssw_analytic_dphi(&dr.an, 1);
    const double d2 = ssw_analytic_dphi(&dr.an, -1);
    worst_dphi =
        fmax(worst_dphi, fmax(fabs(lv.dphi_pos - d1), fabs(lv.dphi_neg - d2)) /
                             fmax(1, fabs(d1)));
    if (isfinite(dr.an.radius) && dr.an.radius > 0) {
      worst_r = fmax(worst_r, fmax(fabs(lv.r_future / dr.an.radius - 1),
                                   fabs(lv.r_past / dr.an.radius - 1)));
    } else {
      EXPECT(lv.r_future == dr.an.radius && lv.r_past == dr.an.radius,
             "draw %d: radius %g, %g vs %g", i, lv.r_past, lv.r_future,
             dr.an.radius);
    }
    if (dr.regime == SSW_REGIME_CIRCLE_TO_CIRCLE) {
      for (int arc = -1; arc <= 1; arc += 2) {
        ssw_circ_orbit o;
        double cp[2], cf[2], d;
        EXPECT(ssw_circ_orbit_level(&dr.t, 0.0, dr.H, arc, &o) == 0 &&
                   ssw_circ_orbit_centres(&o, cp, cf, &d) == 0,
               "draw %d: centres", i);
        worst_d =
            fmax(worst_d, fabs(d - dr.an.d) / fmax(dr.an.d, dr.an.radius));
      }
    }
    /* The heading and path of the same motion. */
    ssw_circ_orbit o;
    ssw_orbit a;
    EXPECT(ssw_circ_orbit_init(&dr.t, 0.0, dr.w0, dr.v0, &o) == 0 &&
               ssw_analytic_orbit(&dr.t, dr.regime, dr.w0, dr.v0, &a) == 0,
           "draw %d: orbits", i);
    double ext = 1, ez = 0;
    for (int k = -3; k <= 3; k++) {
      const double t = k * 5.0 / a.rate;
      const double p1 = ssw_circ_orbit_heading(&o, t);
      const double p2 = ssw_analytic_orbit_heading(&a, t);
      double x1, y1, x2, y2;
      EXPECT(ssw_circ_orbit_advance(&o, 0, t, &x1, &y1) == 0, "advance");
      ssw_analytic_orbit_advance(&a, 0, t, &x2, &y2);
      worst_phi = fmax(worst_phi, fabs(p1 - p2) / fmax(1, fabs(p2)));
      ext = fmax(ext, hypot(x2, y2));
      ez = fmax(ez, hypot(x1 - x2, y1 - y2));
      double w1, v1, w2, v2;
      ssw_circ_orbit_state(&o, t, &w1, &v1);
      ssw_analytic_orbit_state(&a, t, &w2, &v2);
      EXPECT(hypot(w1 - w2, v1 - v2) <= 1e-13 * hypot(w2, v2),
             "draw %d: state at t = %g: (%g, %g) vs (%g, %g)", i, t, w1, v1, w2,
             v2);
    }
    worst_z = fmax(worst_z, ez / ext);
    n++;
  }
  EXPECT(worst_dphi <= 1e-15, "kappa = 0: dphi differs by %.3g", worst_dphi);
  EXPECT(worst_r <= 1e-15, "kappa = 0: radius differs by %.3g", worst_r);
  EXPECT(worst_d <= TOL_KAPPA0, "kappa = 0: d differs by %.3g", worst_d);
  EXPECT(worst_phi <= TOL_KAPPA0 && worst_z <= TOL_KAPPA0_PATH,
         "kappa = 0: heading %.3g, path %.3g", worst_phi, worst_z);
  EXPECT(ssw_circ_kappa(1.3, 2.7, 0.0) == 0.0, "Model I: kappa = 0");
  printf("kappa = 0 (%d bodies): dphi %.2e, radii %.2e, d %.2e, heading "
         "%.2e, path %.2e of max(1, extent) (against analytic.c)\n",
         n, worst_dphi, worst_r, worst_d, worst_phi, worst_z);
}

/* One draw of the batch below H_c: the motion through the draw's state. */
static void check_below(const wb_draw *dr, double kappa, batch_stats *st) {
  ssw_circ_orbit o;
  EXPECT(ssw_circ_orbit_init(&dr->t, kappa, dr->w0, dr->v0, &o) == 0,
         "orbit below");
  const ssw_circ_level *lv = &o.lv;
  double ref[4], zx = NAN, zy = NAN, R = NAN;
  EXPECT(co_period(&dr->t, kappa, dr->w0, dr->v0, lv->period, ref) == 0,
         "reference period");
  EXPECT(ssw_circ_orbit_period(&o, &zx, &zy, &R) == 0, "period step");
  const double tol = tol_of(lv);
  const double eT = fabs(lv->period / ref[0] - 1);
  const double ep = fabs(lv->dphi_period - ref[1]) / fmax(1, fabs(ref[1]));
  /* The displacement relative to the path's size over a period. */
  const double vmax = sqrt(2 * dr->H * dr->t.J / lv->D);
  const double zs = fmax(hypot(ref[2], ref[3]), 1e-3 * vmax * ref[0]);
  const double ez = hypot(zx - ref[2], zy - ref[3]) / zs;
  const double Rref = hypot(ref[2], ref[3]) / fabs(2 * sin(0.5 * ref[1]));
  const double eR = fabs(R - Rref) / fmax(Rref, zs);
  EXPECT(eT <= tol && ep <= tol && ez <= tol && eR <= tol,
         "below H_c (H/Hc %.4g, mu %.6g): T %.3g, dphi %.3g, z_T %.3g, "
         "radius %.3g > %.3g",
         dr->H / lv->Hc, lv->mu, eT, ep, ez, eR, tol);
  /* The quadrature's heading at the period is the closed-form one. */
  EXPECT(fabs(ssw_circ_orbit_heading(&o, lv->period) - lv->dphi_period) <=
             1e-12 * fmax(1, fabs(lv->dphi_period)),
         "heading at T %.17g vs dphi %.17g",
         ssw_circ_orbit_heading(&o, lv->period), lv->dphi_period);
  note(st, &st->period, eT, tol);
  note(st, &st->dphi, ep, tol);
  note(st, &st->zT, ez, tol);
  note(st, &st->radius, eR, tol);
  st->n_below++;
}

/* Both arcs of a level above H_c, each from its instant t0. */
static void check_above(const wb_draw *dr, double kappa, batch_stats *st) {
  for (int arc = -1; arc <= 1; arc += 2) {
    ssw_circ_orbit o;
    EXPECT(ssw_circ_orbit_level(&dr->t, kappa, dr->H, arc, &o) == 0,
           "orbit above");
    const ssw_circ_level *lv = &o.lv;
    double w0, v0, ref[6], cp[2], cf[2], d = NAN;
    co_extreme(&dr->t, dr->H, arc, &w0, &v0);
    EXPECT(co_transition(&dr->t, kappa, w0, v0, 40.0 / lv->lambda, ref) == 0,
           "reference transition");
    EXPECT(ssw_circ_orbit_centres(&o, cp, cf, &d) == 0, "centres");
    const double tol = tol_of(lv);
    const double ea = fabs(lv->dphi - ref[0]) / fmax(1, fabs(ref[0]));
    const double zs = hypot(lv->w_future, lv->v_future);
    const double el = fmax(hypot(lv->w_future - ref[1], lv->v_future - ref[2]),
                           hypot(lv->w_past - ref[3], lv->v_past - ref[4])) /
                      zs;
    const double rf = fabs(ref[2] / ref[1]), rp = fabs(ref[4] / ref[3]);
    const double er =
        fmax(fabs(lv->r_future - rf) / rf, fabs(lv->r_past - rp) / rp);
    const double ed = fabs(d - ref[5]) / fmax(ref[5], fmin(rf, rp));
    EXPECT(ea <= tol && el <= tol && er <= tol && ed <= tol,
           "above H_c (H/Hc %.4g, mu %.6g, arc %d): dphi %.3g, limits %.3g, "
           "radii %.3g, d %.3g > %.3g",
           dr->H / lv->Hc, lv->mu, arc, ea, el, er, ed, tol);
    note(st, &st->tdphi, ea, tol);
    note(st, &st->limit, el, tol);
    note(st, &st->r, er, tol);
    note(st, &st->d, ed, tol);
    /* dphi(g > kappa) - dphi(g < kappa) = 2 pi c1 to round-off. */
    const double idn = fabs(lv->dphi_pos - lv->dphi_neg - 2 * M_PI * lv->c1) /
                       (fabs(lv->dphi_pos) + fabs(lv->dphi_neg));
    EXPECT(idn <= 4e-16, "identity off by %.3g", idn);
    st->identity = fmax(st->identity, idn);
  }
  st->n_above++;
}

/* Heading and contact point at nodes out to 2.5 periods, or 15 / lambda,
 * both ways, from the draw's own state. */
static void check_path(const wb_draw *dr, double kappa, batch_stats *st) {
  ssw_circ_orbit o;
  EXPECT(ssw_circ_orbit_init(&dr->t, kappa, dr->w0, dr->v0, &o) == 0,
         "orbit path");
  const double span =
      o.lv.kind == SSW_CIRC_PERIODIC ? 2.5 * o.lv.period : 15.0 / o.lv.lambda;
  const int n = 12;
  for (int dir = -1; dir <= 1; dir += 2) {
    co_run r;
    co_start(&r, &dr->t, kappa, dr->w0, dr->v0, dir * 1e-4 * span);
    double x = 0, y = 0, tp = 0, ext = 1, eph = 0, ez = 0;
    for (int k = 1; k <= n; k++) {
      const double t = dir * span * k / n;
      EXPECT(co_to(&r, t) == GSL_SUCCESS, "reference at t = %g", t);
      double dx, dy;
      EXPECT(ssw_circ_orbit_advance(&o, tp, t, &dx, &dy) == 0, "advance");
      x += dx, y += dy, tp = t;
      ext = fmax(ext, hypot(x, y));
      eph = fmax(eph, fabs(ssw_circ_orbit_heading(&o, t) - r.y[2]) /
                          fmax(1, fabs(r.y[2])));
      ez = fmax(ez, hypot(x - r.y[3], y - r.y[4]));
    }
    co_free(&r);
    ez /= ext;
    const double tol = tol_of(&o.lv);
    EXPECT(eph <= tol && ez <= tol,
           "path (H/Hc %.4g): heading %.3g, "
           "position %.3g > %.3g",
           dr->H / o.lv.Hc, eph, ez, tol);
    note(st, &st->pathphi, eph, tol);
    note(st, &st->pathpos, ez, tol);
  }
  st->n_path++;
}

/* Model II bodies of the wide batch (rho > 0, |r| >= 0.05) with H / H_c
 * log-uniform in [0.05, 20] and either sign of Gamma; Gamma = kappa /
 * (rho r) then spans many decades. */
static void test_batch(int ndraws) {
  batch_stats st = {0};
  st.gmin = st.nu2min = INFINITY;
  for (int i = 0; i < ndraws; i++) {
    wb_draw dr;
    if (wb_draw_one(2101, i, &dr) != 0 || dr.body.rho == 0.0 ||
        fabs(dr.p.r) < 0.05)
      continue;
    uint64_t s = 0xC1C1ULL + (uint64_t)i;
    const double ratio = wb_log(&s, 0.05, 20.0);
    const double sg = test_u01(&s) < 0.5 ? -1.0 : 1.0;
    const double Hc = dr.H / ratio;
    const double kappa = sg * sqrt(2 * Hc * dr.an.E / dr.an.D);
    const double Gamma = kappa / (dr.body.rho * dr.p.r);
    st.gmin = fmin(st.gmin, fabs(Gamma));
    st.gmax = fmax(st.gmax, fabs(Gamma));
    if (ratio < 1)
      check_below(&dr, kappa, &st);
    else
      check_above(&dr, kappa, &st);
    if (i % 3 == 0) check_path(&dr, kappa, &st);
  }
  EXPECT(st.n_below >= 40 && st.n_above >= 40, "too few draws: %d, %d",
         st.n_below, st.n_above);
  printf("batch: %d below H_c, %d above, |Gamma| in [%.2g, %.2g]\n", st.n_below,
         st.n_above, st.gmin, st.gmax);
  printf("  below: period %.2e, dphi/period %.2e, z_T %.2e, orbit radius "
         "%.2e\n",
         st.period, st.dphi, st.zT, st.radius);
  printf("  above: transition angle %.2e, limit states %.2e, radii %.2e, "
         "d %.2e, identity %.2e\n",
         st.tdphi, st.limit, st.r, st.d, st.identity);
  printf("  path (%d motions): heading %.2e, position %.2e\n", st.n_path,
         st.pathphi, st.pathpos);
  printf("  (each error times min(1, nu^2), nu^2 = |1 - H_c / H| >= %.2g in "
         "the batch; the largest unscaled error is %.2e)\n",
         st.nu2min, st.raw);
}

/* Exactly at H_c the closed form says it cannot: NaN, and the motions of
 * the level are refused. */
static void test_critical(void) {
  int regime;
  ssw_body bd = SEED_BODY;
  ssw_params p = SEED_PARAMS(0.1);
  p.r = 0.3, p.s = -0.2;
  ssw_tensor t;
  EXPECT(ssw_model_tensor(&bd, &p, &t) == 0, "seed body");
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  const double H = 0.5, gm = sqrt(2 * H * ssw_model_E(&t) / ssw_model_D(&t));
  ssw_circ_level lv;
  EXPECT(ssw_circ_level_compute(&t, gm, H, 1, &lv) == 0, "critical level");
  EXPECT(lv.kind == SSW_CIRC_CRITICAL && isnan(lv.period) && isnan(lv.dphi) &&
             isnan(lv.r_future),
         "critical level: kind %d, period %g, dphi %g", lv.kind, lv.period,
         lv.dphi);
  ssw_circ_orbit o;
  EXPECT(ssw_circ_orbit_level(&t, gm, H, 1, &o) != 0,
         "critical motion accepted");
  /* E = 0 (uniform regime) and bad arguments are refused. */
  ssw_tensor u = t;
  u.L1 = u.Z = 0;
  EXPECT(ssw_circ_level_compute(&u, 1.0, H, 1, &lv) != 0, "E = 0 accepted");
  EXPECT(ssw_circ_level_compute(&t, 1.0, -H, 1, &lv) != 0, "H < 0 accepted");
  EXPECT(ssw_circ_level_compute(&t, 1.0, H, 0, &lv) != 0, "arc 0 accepted");
  /* A state on the line g = kappa (kappa taken as its g, exactly) is
   * uniform circular motion; one a rounding away stays there. */
  const double w0 = 0.3, v0 = 0.7, kappa = t.L1 * w0 + t.Z * v0;
  double w, v, x, y;
  EXPECT(ssw_circ_orbit_init(&t, kappa, w0, v0, &o) == 0, "on the line");
  ssw_circ_orbit_state(&o, 3.0, &w, &v);
  EXPECT(ssw_circ_orbit_advance(&o, 0, 2 * M_PI / w0, &x, &y) == 0, "arc");
  EXPECT(o.side == 0 && w == w0 && v == v0 && hypot(x, y) <= 1e-15 * v0 / w0,
         "equilibrium: side %d, closed circle %g", o.side, hypot(x, y));
  EXPECT(ssw_circ_level_compute(&t, 0.5 * gm, H, 1, &lv) == 0, "level");
  EXPECT(ssw_circ_orbit_init(&t, 0.5 * gm, lv.w_future, lv.v_future, &o) == 0,
         "near-equilibrium start");
  for (int k = 0; k <= 3; k++) {
    ssw_circ_orbit_state(&o, k * 1e3 / lv.rate, &w, &v);
    EXPECT(hypot(w - lv.w_future, v - lv.v_future) <=
               1e-13 * hypot(lv.w_future, lv.v_future),
           "near the future equilibrium at t = %g: (%g, %g)", k * 1e3, w, v);
    const double ph = ssw_circ_orbit_heading(&o, k * 1e3 / lv.rate);
    EXPECT(fabs(ph - lv.w_future * k * 1e3 / lv.rate) <= 1e-12 * fabs(ph),
           "heading near equilibrium: %.17g", ph);
  }
  /* Backward it has left along the whole arc for the past equilibrium. */
  ssw_circ_orbit_state(&o, -1e3 / lv.rate, &w, &v);
  EXPECT(hypot(w - lv.w_past, v - lv.v_past) <=
             1e-13 * hypot(lv.w_past, lv.v_past),
         "not at the past equilibrium: (%g, %g)", w, v);
}

int main(int argc, char **argv) {
  gsl_set_error_handler_off();
  test_kappa0();
  test_critical();
  test_batch(argc > 1 ? atoi(argv[1]) : 600);
  return TEST_RESULT();
}
