/* The sleigh with circulation in closed form: energy levels, periods,
 * transitions and the exact path (docs/theory/circulation.md). */
#include "sleighsweep/circulation.h"

#include <limits.h>
#include <math.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/error.h"

/* Past and future limit circles are followed until |theta| = THETA_TAIL:
 * what is left of the centre integrals is ~4 e^{-2 THETA_TAIL} ~ 1e-19 of
 * the body's length scale (circulation.md sec. 7). */
#define THETA_TAIL 22.0

double ssw_circ_kappa(double rho, double Gamma, double r) {
  return rho * Gamma * r;
}

double ssw_circ_critical_energy(const ssw_tensor *t, double kappa) {
  if (kappa == 0.0) return 0.0;
  const double E = ssw_model_E(t);
  if (E == 0.0) return INFINITY;
  return ssw_model_D(t) * kappa * kappa / (2.0 * E);
}

double ssw_circ_drift_energy(const ssw_tensor *t, double kappa, int n) {
  const double E = ssw_model_E(t);
  if (n < 1 || !(E > 0.0)) return NAN;
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  const double c = fabs(sqrt(e.D) * e.kw1 / E), nn = (double)n;
  /* H_c (1 - (c / (c + n))^2) without the cancellation. */
  return ssw_circ_critical_energy(t, kappa) * nn * (2.0 * c + nn) /
         ((c + nn) * (c + nn));
}

/* Below H_c: period, heading per period, nearest resonance. */
static void level_periodic(ssw_circ_level *o, const ssw_tensor *t) {
  const double amu = fabs(o->mu), nu = o->nu;
  o->arc = o->kappa > 0.0 ? -1 : 1;
  o->period = 2.0 * M_PI / (o->rate * nu);
  /* c1 sgn(mu) (|mu| / nu - 1), and |mu| - nu = 1 / (|mu| + nu). */
  o->turns = copysign(1.0, o->mu) * o->c1 / (nu * (amu + nu));
  o->dphi_period = 2.0 * M_PI * o->turns;
  if (o->c1 != 0.0 && fabs(o->turns) < 0.5 * (double)INT_MAX) {
    const long n = lround(fabs(o->turns));
    o->n_near = n < 1 ? 1 : (int)n;
    o->H_near = ssw_circ_drift_energy(t, o->kappa, o->n_near);
  }
}

/* Above H_c: equilibria, rate, transition angles and limit states. */
static void level_heteroclinic(ssw_circ_level *o, int arc) {
  const double mu = o->mu, nu = o->nu, sD = sqrt(o->D);
  o->arc = arc;
  o->psi_e = atan2(nu, mu);
  o->lambda = o->rate * nu;
  o->dphi_pos = 2.0 * o->c1 * o->psi_e;
  o->dphi_neg = -2.0 * o->c1 * atan2(nu, -mu);
  o->dphi = arc > 0 ? o->dphi_pos : (arc < 0 ? o->dphi_neg : NAN);
  /* zeta(+-psi_e) = rate (mu (c1, c2) +- nu (alpha, beta)). */
  const double a = o->kappa / sD;
  const double b = sqrt(fabs((o->gm - o->kappa) * (o->gm + o->kappa))) / sD;
  o->w_future = a * o->c1 + b * o->alpha;
  o->v_future = a * o->c2 + b * o->beta;
  o->w_past = a * o->c1 - b * o->alpha;
  o->v_past = a * o->c2 - b * o->beta;
  o->r_future = fabs(o->v_future / o->w_future);
  o->r_past = fabs(o->v_past / o->w_past);
}

/* The level of energy H whose largest g is gm (sqrt(2 H E / D), passed so
 * that an orbit can use the value its own state gives). */
static void level_fill(const ssw_tensor *t, double kappa, double H, double gm,
                       int arc, ssw_circ_level *o) {
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  const double D = e.D, E = ssw_model_E(t), sD = sqrt(D);
  *o = (ssw_circ_level){.kappa = kappa, .H = H, .arc = arc, .D = D, .E = E};
  o->alpha = -D * t->Z / E;
  o->beta = D * t->L1 / E;
  o->c1 = sD * e.kw1 / E;
  o->c2 = sD * e.kw2 / E;
  o->Hc = ssw_circ_critical_energy(t, kappa);
  o->gm = gm;
  o->mu = kappa / gm;
  o->rate = gm / sD;
  o->nu = sqrt(fabs((gm - kappa) * (gm + kappa))) / gm;
  o->period = o->dphi_period = o->turns = o->H_near = NAN;
  o->psi_e = o->lambda = o->dphi_pos = o->dphi_neg = o->dphi = NAN;
  o->w_past = o->v_past = o->w_future = o->v_future = NAN;
  o->r_past = o->r_future = NAN;
  if (o->nu == 0.0) {
    o->kind = SSW_CIRC_CRITICAL;
  } else if (fabs(o->mu) > 1.0) {
    o->kind = SSW_CIRC_PERIODIC;
    level_periodic(o, t);
  } else {
    o->kind = SSW_CIRC_HETEROCLINIC;
    level_heteroclinic(o, arc);
  }
}

static int check_tensor(const ssw_tensor *t, double kappa) {
  SSW_CHECK(ssw_model_regular(t, NULL), SSW_ERR_ARG,
            "reduced inertia is singular (D = M J - L2^2 <= 0)");
  SSW_CHECK(ssw_model_E(t) > 0.0, SSW_ERR_ARG,
            "L1 = Z = 0: g vanishes identically, which the closed form with "
            "circulation does not cover");
  SSW_CHECK(isfinite(kappa), SSW_ERR_ARG, "kappa = %g is not finite", kappa);
  return SSW_SUCCESS;
}

int ssw_circ_level_compute(const ssw_tensor *t, double kappa, double H, int arc,
                           ssw_circ_level *out) {
  SSW_CALL(check_tensor(t, kappa));
  SSW_CHECK(isfinite(H) && H > 0.0, SSW_ERR_ARG,
            "energy H = %g must be finite and positive", H);
  SSW_CHECK(arc == 1 || arc == -1, SSW_ERR_ARG, "arc = %d must be +1 or -1",
            arc);
  const double gm = sqrt(2.0 * H * ssw_model_E(t) / ssw_model_D(t));
  level_fill(t, kappa, H, gm, arc, out);
  return SSW_SUCCESS;
}

/* ---- One motion: the phase theta (circulation.md sec. 4-6) ------------ */

typedef struct {
  double c, s; /* cos chi, sin chi */
  double chi;  /* chi, continuous in theta */
  double ell;  /* ln((cos chi - m) / (1 - m)) */
} circ_pt;

/* chi and its functions at phase theta. Above H_c
 * tan(chi/2) = rho tanh(theta), below tan(chi/2) = rho tan(theta). */
static circ_pt circ_eval(const ssw_circ_orbit *o, double th) {
  circ_pt p;
  if (o->lv.kind == SSW_CIRC_HETEROCLINIC) {
    /* tanh and ln cosh from one exponential, without overflow. */
    const double a = fabs(th), ea = exp(-a), e2 = ea * ea;
    const double q = o->ratio * copysign((1.0 - e2) / (1.0 + e2), th);
    const double q2 = q * q, den = 1.0 + q2;
    p.c = (1.0 - q2) / den;
    p.s = 2.0 * q / den;
    p.chi = 2.0 * atan(q);
    p.ell = -2.0 * (a + log1p(e2) - M_LN2) - log1p(q2);
  } else {
    /* One period of chi per pi of theta; chi/2 = atan2(rho sin, cos) on
     * the reduced phase, plus the whole turns. */
    const double k = nearbyint(th / M_PI), r = th - k * M_PI;
    const double X = cos(r), Y = o->ratio * sin(r), den = X * X + Y * Y;
    p.c = (X - Y) * (X + Y) / den;
    p.s = 2.0 * X * Y / den;
    p.chi = 2.0 * atan2(Y, X) + 2.0 * M_PI * k;
    p.ell = -log(den);
  }
  return p;
}

/* Heading at phase theta relative to t = 0:
 * phi = c1 chi + (2 c1 m / nu) theta - alpha ln(cos chi - m) + const. */
static double circ_heading(const ssw_circ_orbit *o, double th,
                           const circ_pt *p) {
  return o->lv.c1 * (p->chi - o->chi0) + o->slope * (th - o->theta0) -
         o->lv.alpha * (p->ell - o->ell0);
}

/* theta0 from the state's angle chi0 on the ellipse, where (cos, sin)
 * chi0 = (cc, sc), cmm = cos chi0 - m > 0 (from |g0 - kappa| directly),
 * opm = 1 + m, omm = 1 - m; and the strip half-width W in which the
 * integrands are analytic. */
static void circ_phase(ssw_circ_orbit *o, double cc, double sc, double cmm,
                       double opm, double omm, double *W) {
  if (o->lv.kind == SSW_CIRC_HETEROCLINIC) {
    o->ratio = sqrt(omm / opm);
    /* sinh theta = sin chi sqrt((1 + m) / (2 (1 + cos chi)(cos chi - m))),
     * with 1 + cos chi = sin^2 chi / (1 - cos chi) when cos chi < 0. */
    const double opc = cc >= 0.0 ? 1.0 + cc : sc * sc / (1.0 - cc);
    o->theta0 = asinh(sc * sqrt(opm / (2.0 * opc * cmm)));
    *W = atan2(1.0, o->ratio); /* tanh(theta) = +-i / rho */
  } else {
    o->ratio = sqrt(omm / -opm);
    /* (cos, sin)(chi0 / 2) up to a positive factor; chi0 in (-pi, pi]. */
    const double hc = cc >= 0.0 ? 1.0 + cc : fabs(sc);
    const double hs = cc >= 0.0 ? sc : copysign(1.0 - cc, sc);
    o->theta0 = atan2(hs, o->ratio * hc);
    *W = atanh(1.0 / o->ratio); /* tan(theta) = +-i / rho */
  }
}

/* Uniform motion on the line of equilibria, or through (w0, v0) anywhere. */
static int orbit_setup(const ssw_tensor *t, double kappa, double w0, double v0,
                       ssw_circ_orbit *o) {
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  const double sD = sqrt(e.D);
  const double g0 = SSW_MODEL_P2(&e, w0, v0), ht0 = ssw_model_ht(&e, w0, v0);
  /* g^2 + ht^2 / D = 2 H E / D on every state: the level's gm. */
  const double gm = hypot(g0, ht0 / sD), dg = g0 - kappa;
  const int s = dg > 0.0 ? 1 : (dg < 0.0 ? -1 : 0);
  *o = (ssw_circ_orbit){.w0 = w0, .v0 = v0, .side = s};
  level_fill(t, kappa, ssw_model_energy(&e, w0, v0), gm, s, &o->lv);
  const double cpsi = g0 / gm, spsi = -ht0 / (sD * gm);
  if (s == 0) {
    o->chi0 = atan2(spsi, cpsi);
    o->theta0 = o->t0 = NAN;
    return SSW_SUCCESS;
  }
  SSW_CHECK(o->lv.kind != SSW_CIRC_CRITICAL, SSW_ERR_ARG,
            "the level is critical (|kappa| = gm = %.17g): its homoclinic "
            "motion is not covered",
            gm);
  /* chi = psi (s = +1) or psi - pi (s = -1): cos chi - m > 0 on the arc. */
  const double nu = o->lv.nu;
  double W;
  o->m = s * o->lv.mu;
  circ_phase(o, s * cpsi, s * spsi, fabs(dg) / gm, (gm + s * kappa) / gm,
             (gm - s * kappa) / gm, &W);
  o->dtheta_dt = 0.5 * s * nu * o->lv.rate;
  o->t0 = -o->theta0 / o->dtheta_dt;
  o->slope = 2.0 * o->lv.c1 * o->m / nu;
  const circ_pt p0 = circ_eval(o, o->theta0);
  o->chi0 = p0.chi;
  o->ell0 = p0.ell;
  /* Panels of half-length 2 W / pi keep the singularities at distance W
   * as far (relative to the panel) as for kappa = 0 (Bernstein ratio
   * ~3.4), and the heading turns by at most 4 rad per panel:
   * |dphi / dtheta| = 2 |w| / (nu rate) <= 2 hypot(c1, alpha) / nu. */
  const double om = hypot(o->lv.c1, o->lv.alpha);
  o->panel = fmin(4.0 * W / M_PI, 2.0 * nu / fmax(om, 1e-300));
  return SSW_SUCCESS;
}

int ssw_circ_orbit_init(const ssw_tensor *t, double kappa, double w0, double v0,
                        ssw_circ_orbit *o) {
  SSW_CHECK(isfinite(w0) && isfinite(v0) && (w0 != 0.0 || v0 != 0.0),
            SSW_ERR_ARG,
            "initial velocity (omega0, v0) = (%g, %g) must be finite and "
            "non-zero",
            w0, v0);
  SSW_CALL(check_tensor(t, kappa));
  return orbit_setup(t, kappa, w0, v0, o);
}

int ssw_circ_orbit_level(const ssw_tensor *t, double kappa, double H, int arc,
                         ssw_circ_orbit *o) {
  ssw_circ_level lv;
  SSW_CALL(ssw_circ_level_compute(t, kappa, H, arc, &lv));
  SSW_CHECK(lv.kind != SSW_CIRC_CRITICAL, SSW_ERR_ARG,
            "the level H = %.17g is critical: not covered", H);
  /* psi = 0 (arc +1) or pi (arc -1): zeta = +-rate (c1, c2). */
  const double k = lv.arc * lv.rate;
  return orbit_setup(t, kappa, k * lv.c1, k * lv.c2, o);
}

void ssw_circ_orbit_state(const ssw_circ_orbit *o, double t, double *w,
                          double *v) {
  if (o->side == 0) {
    *w = o->w0, *v = o->v0;
    return;
  }
  const circ_pt p = circ_eval(o, o->theta0 + o->dtheta_dt * t);
  const double k = o->side * o->lv.rate;
  *w = k * (p.c * o->lv.c1 + p.s * o->lv.alpha);
  *v = k * (p.c * o->lv.c2 + p.s * o->lv.beta);
}

double ssw_circ_orbit_heading(const ssw_circ_orbit *o, double t) {
  if (o->side == 0) return o->w0 * t;
  const double th = o->theta0 + o->dtheta_dt * t;
  const circ_pt p = circ_eval(o, th);
  return circ_heading(o, th, &p);
}

/* Integral over theta in [a, b] of (2 / nu)(v^ - y w^) e^{i phi(theta)},
 * (w^, v^) = cos chi (c1, c2) + sin chi (alpha, beta): the displacement
 * of the contact point for y = 0 ((v / rate) dt = (2 / nu) v^ dtheta),
 * of the material point (0, y) otherwise. */
static int circ_quad(const ssw_circ_orbit *o, double a, double b, double y,
                     double *sx, double *sy) {
  const double len = b - a, np = ceil(fabs(len) / o->panel);
  SSW_CHECK(np <= (double)SSW_CIRC_PANELS_MAX, SSW_ERR_NUMERIC,
            "the quadrature over theta in [%g, %g] needs %.3g panels (more "
            "than %ld): the level is too close to the critical energy",
            a, b, np, SSW_CIRC_PANELS_MAX);
  const long n = (long)np;
  const double half = n > 0 ? 0.5 * len / (double)n : 0.0;
  const double kc = o->lv.c2 - y * o->lv.c1, ks = o->lv.beta - y * o->lv.alpha;
  double tx = 0.0, ty = 0.0;
  for (long k = 0; k < n; k++) {
    const double mid = a + (2.0 * (double)k + 1.0) * half;
    double px = 0.0, py = 0.0;
    for (int j = 0; j < 10; j++) {
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        const double th = mid + sgn * ssw_gl20[j][0] * half;
        const circ_pt p = circ_eval(o, th);
        const double ph = circ_heading(o, th, &p);
        const double sp = p.c * kc + p.s * ks;
        px += ssw_gl20[j][1] * sp * cos(ph);
        py += ssw_gl20[j][1] * sp * sin(ph);
      }
    }
    tx += px * half;
    ty += py * half;
  }
  *sx = 2.0 / o->lv.nu * tx;
  *sy = 2.0 / o->lv.nu * ty;
  return SSW_SUCCESS;
}

int ssw_circ_orbit_advance(const ssw_circ_orbit *o, double ta, double tb,
                           double *dx, double *dy) {
  if (o->side == 0) {
    ssw_model_arc(o->w0, o->v0, ta, tb, dx, dy);
    return SSW_SUCCESS;
  }
  return circ_quad(o, o->theta0 + o->dtheta_dt * ta,
                   o->theta0 + o->dtheta_dt * tb, 0.0, dx, dy);
}

int ssw_circ_orbit_period(const ssw_circ_orbit *o, double *zx, double *zy,
                          double *radius) {
  SSW_CHECK(o->lv.kind == SSW_CIRC_PERIODIC && o->side != 0, SSW_ERR_ARG,
            "the motion is not periodic (H >= H_c)");
  /* One period is pi of theta. */
  SSW_CALL(circ_quad(o, o->theta0, o->theta0 + o->side * M_PI, 0.0, zx, zy));
  *radius = hypot(*zx, *zy) / fabs(2.0 * sin(0.5 * o->lv.dphi_period));
  return SSW_SUCCESS;
}

int ssw_circ_orbit_centres(const ssw_circ_orbit *o, double past[2],
                           double future[2], double *d) {
  SSW_CHECK(o->lv.kind == SSW_CIRC_HETEROCLINIC && o->side != 0, SSW_ERR_ARG,
            "the motion is not a transition (H <= H_c, or on the line of "
            "equilibria)");
  const ssw_circ_level *lv = &o->lv;
  if (lv->w_future == 0.0 || lv->w_past == 0.0) {
    past[0] = past[1] = future[0] = future[1] = *d = NAN;
    return SSW_SUCCESS;
  }
  /* A limit circle's centre is the limit of the material point (0, y),
   * y = v / w of the limit state; c(t) = z + i y e^{i phi} has
   * c' = e^{i phi} (v - y w) -> 0 exponentially (sec. 7). */
  const double yf = lv->v_future / lv->w_future;
  const double yp = lv->v_past / lv->w_past;
  const double end = o->side * THETA_TAIL;
  double zx, zy, fx, fy, px, py;
  SSW_CALL(circ_quad(o, o->theta0, 0.0, 0.0, &zx, &zy)); /* z(t0) */
  SSW_CALL(circ_quad(o, 0.0, end, yf, &fx, &fy));
  SSW_CALL(circ_quad(o, -end, 0.0, yp, &px, &py));
  const circ_pt p = circ_eval(o, 0.0);
  const double ph = circ_heading(o, 0.0, &p), cp = cos(ph), sp = sin(ph);
  future[0] = zx - yf * sp + fx;
  future[1] = zy + yf * cp + fy;
  past[0] = zx - yp * sp - px;
  past[1] = zy + yp * cp - py;
  /* The difference without the common z(t0). */
  *d = hypot(-(yf - yp) * sp + fx + px, (yf - yp) * cp + fy + py);
  return SSW_SUCCESS;
}
