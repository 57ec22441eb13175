/* Closed-form radius, spacing, transition angle, loops, sense and states. */
#include "sleighsweep/analytic.h"

#include <math.h>

#include "sleighsweep/error.h"

/* d^2 = (2 pi D / Z^2) (alpha / (c1^2 + alpha^2))
 *       (cosh(alpha pi) - cos(c1 pi)) / sinh(alpha pi).
 * alpha / sinh(alpha pi) is even in alpha; for large |alpha pi| the ratio
 * (cosh - cos)/sinh tends to sign(alpha), evaluated without overflow. */
static double spacing(double D, double Z, double alpha, double c1) {
  const double x = alpha * M_PI;
  double ratio;
  if (fabs(x) > 30.0) {
    ratio = (1.0 - 2.0 * cos(c1 * M_PI) * exp(-fabs(x)) + exp(-2 * fabs(x))) /
            (1.0 - exp(-2.0 * fabs(x)));
    ratio = copysign(ratio, x);
  } else {
    /* cosh(x) - cos(y) = 2 sinh^2(x/2) + 2 sin^2(y/2): no cancellation. */
    const double sx = sinh(0.5 * x), sy = sin(0.5 * c1 * M_PI);
    ratio = 2.0 * (sx * sx + sy * sy) / sinh(x);
  }
  const double d2 =
      2.0 * M_PI * D / (Z * Z) * alpha / (c1 * c1 + alpha * alpha) * ratio;
  return sqrt(d2);
}

int ssw_analytic_compute(const ssw_tensor *t, int regime, ssw_analytic *out) {
  const double D = ssw_model_D(t), E = ssw_model_E(t);
  out->regime = regime;
  out->D = D;
  out->E = E;
  if (regime == SSW_REGIME_UNIFORM) {
    /* Every state is uniform motion: the radius is that of the initial
     * state, not a property of the tensor. */
    out->radius = NAN;
    out->d = 0.0;
    out->dphi_abs = 0.0;
    out->loops = 0;
    out->sense_future = 0;
    out->alpha = out->beta = out->c1 = out->c2 = 0.0;
    return SSW_SUCCESS;
  }
  const double sD = sqrt(D);
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  out->alpha = -D * t->Z / E;
  out->beta = D * t->L1 / E;
  out->c1 = sD * e.kw1 / E;
  out->c2 = sD * e.kw2 / E;
  out->dphi_abs = M_PI * fabs(out->c1);
  out->loops = (int)floor(out->dphi_abs / (2.0 * M_PI));
  if (regime == SSW_REGIME_LINE_TO_LINE) {
    out->radius = INFINITY;
    out->d = NAN;
    out->sense_future = 0;
  } else {
    out->radius = fabs(t->L1 / t->Z);
    out->d = spacing(D, t->Z, out->alpha, out->c1);
    out->sense_future = t->Z > 0 ? -1 : 1;
  }
  return SSW_SUCCESS;
}

double ssw_analytic_rate(const ssw_analytic *an, double H) {
  return sqrt(2.0 * H * an->E) / an->D;
}

void ssw_analytic_state(const ssw_analytic *an, double H, int sigma, double t0,
                        double t, double *w, double *v) {
  const double k = ssw_analytic_rate(an, H);
  const double x = k * (t - t0);
  const double th = tanh(x), sh = 1.0 / cosh(x);
  *w = k * (an->alpha * th + sigma * an->c1 * sh);
  *v = k * (an->beta * th + sigma * an->c2 * sh);
}

double ssw_analytic_dphi(const ssw_analytic *an, int sigma) {
  return sigma * M_PI * an->c1;
}

int ssw_analytic_sigma(const ssw_tensor *t, double w, double v) {
  const double g = SSW_MODEL_G(t, w, v);
  return g > 0 ? 1 : (g < 0 ? -1 : 0);
}

/* ---- The exact path (docs/theory/exact-path.md) ------------------------ */

/* 20-point Gauss-Legendre rule on [-1, 1]: the positive nodes and their
 * weights (computed in 30-digit arithmetic, rounded). */
const double ssw_gl20[10][2] = {
    {0.993128599185094924786, 0.0176140071391521183119},
    {0.963971927277913791268, 0.040601429800386941331},
    {0.912234428251325905868, 0.0626720483341090635695},
    {0.839116971822218823395, 0.0832767415767047487248},
    {0.746331906460150792614, 0.101930119817240435037},
    {0.636053680726515025453, 0.118194531961518417312},
    {0.510867001950827098004, 0.131688638449176626898},
    {0.373706088715419560673, 0.142096109318382051329},
    {0.22778585114164507808, 0.149172986472603746788},
    {0.0765265211334973337546, 0.152753387130725850698},
};

/* ln cosh u without overflow: |u| + ln(1 + e^{-2|u|}) - ln 2. */
static double lncosh(double u) {
  const double a = fabs(u);
  return a + log1p(exp(-2.0 * a)) - M_LN2;
}

/* Gudermannian gd(u) = 2 atan(tanh(u/2)), in (-pi/2, pi/2) for all u. */
static double gd(double u) { return 2.0 * atan(tanh(0.5 * u)); }

int ssw_analytic_orbit(const ssw_tensor *t, int regime, double w0, double v0,
                       ssw_orbit *o) {
  SSW_CHECK(isfinite(w0) && isfinite(v0) && (w0 != 0.0 || v0 != 0.0),
            SSW_ERR_ARG,
            "initial velocity (omega0, v0) = (%g, %g) must be finite and "
            "non-zero",
            w0, v0);
  SSW_CHECK(ssw_model_regular(t, NULL), SSW_ERR_ARG,
            "reduced inertia is singular (D = M J - L2^2 <= 0)");
  *o = (ssw_orbit){0};
  SSW_CALL(ssw_analytic_compute(t, regime, &o->an));
  o->w0 = w0, o->v0 = v0;
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  o->H = ssw_model_energy(&e, w0, v0);
  const double D = o->an.D;
  const double g0 = ssw_model_g(&e, w0, v0);
  const double ht0 = ssw_model_ht(&e, w0, v0);
  if (regime == SSW_REGIME_UNIFORM || g0 == 0.0) {
    /* Uniform motion on a circle (or line) for all time. */
    o->sigma = 0;
    o->rate =
        regime == SSW_REGIME_UNIFORM ? 0.0 : ssw_analytic_rate(&o->an, o->H);
    o->t0 = NAN;
    return SSW_SUCCESS;
  }
  o->rate = ssw_analytic_rate(&o->an, o->H);
  o->sigma = g0 > 0 ? 1 : -1;
  /* On the orbit sin psi = -ht / (Arate D) and cos psi = |g| / (Arate
   * sqrt(D)), so tan psi0 = sinh u0 needs neither Arate nor H. */
  o->u0 = asinh(-ht0 / (sqrt(D) * fabs(g0)));
  o->t0 = -o->u0 / o->rate;
  o->lc0 = lncosh(o->u0);
  o->gd0 = gd(o->u0);
  /* Panels at most 2 long, so the poles of tanh, sech and ln cosh at
   * u = +-i pi/2 stay >= pi/2 from panels of half-length 1 (Bernstein
   * ellipse ratio ~3.4, 3.4^-40 ~ 1e-21 for 20 nodes), and over which the
   * heading turns by at most 4 rad (|dphi/du| <= sqrt(alpha^2 + c1^2)); a
   * 20-point rule resolves e^{i theta} over ~12 rad to double precision.
   * On 300 random bodies the result differs from panels 8x shorter by
   * <= 5e-13 relative, the summation's round-off. */
  const double om = hypot(o->an.alpha, o->an.c1);
  o->panel = fmin(2.0, 4.0 / fmax(om, 1e-300));
  return SSW_SUCCESS;
}

void ssw_analytic_orbit_state(const ssw_orbit *o, double t, double *w,
                              double *v) {
  if (o->sigma == 0) {
    *w = o->w0, *v = o->v0;
    return;
  }
  ssw_analytic_state(&o->an, o->H, o->sigma, o->t0, t, w, v);
}

/* Heading at u relative to the heading at t = 0 (which is 0). */
static double heading_u(const ssw_orbit *o, double u) {
  return o->an.alpha * (lncosh(u) - o->lc0) +
         o->sigma * o->an.c1 * (gd(u) - o->gd0);
}

double ssw_analytic_orbit_heading(const ssw_orbit *o, double t) {
  if (o->sigma == 0) return o->w0 * t;
  return heading_u(o, o->u0 + o->rate * t);
}

void ssw_analytic_orbit_advance(const ssw_orbit *o, double ta, double tb,
                                double *dx, double *dy) {
  if (o->sigma == 0) {
    ssw_model_arc(o->w0, o->v0, ta, tb, dx, dy);
    return;
  }
  /* dz/du = (beta tanh u + sigma c2 sech u) e^{i phi(u)}: bounded, smooth
   * and analytic in |Im u| < pi/2 (the psi form of the same integral has
   * an integrable log singularity at psi = +-pi/2). */
  const double ua = o->u0 + o->rate * ta, ub = o->u0 + o->rate * tb;
  const double len = ub - ua;
  const long n = (long)ceil(fabs(len) / o->panel);
  const double half = n > 0 ? 0.5 * len / (double)n : 0.0;
  const double b = o->an.beta, c = o->sigma * o->an.c2;
  double sx = 0.0, sy = 0.0;
  for (long k = 0; k < n; k++) {
    const double mid = ua + (2.0 * (double)k + 1.0) * half;
    double px = 0.0, py = 0.0;
    for (int j = 0; j < 10; j++) {
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        const double u = mid + sgn * ssw_gl20[j][0] * half;
        /* tanh, sech, ln cosh and gd from one exponential (the loop's
         * cost is its transcendental calls). */
        const double a = fabs(u), ea = exp(-a), e = ea * ea;
        const double th = copysign((1.0 - e) / (1.0 + e), u);
        const double sh = 2.0 * ea / (1.0 + e);
        const double ph = o->an.alpha * (a + log1p(e) - M_LN2 - o->lc0) +
                          o->sigma * o->an.c1 * (atan2(th, sh) - o->gd0);
        const double sp = b * th + c * sh;
        px += ssw_gl20[j][1] * sp * cos(ph);
        py += ssw_gl20[j][1] * sp * sin(ph);
      }
    }
    sx += px * half;
    sy += py * half;
  }
  /* dz = (dz/du) du: the rate cancels (v = Arate (...), dt = du / Arate). */
  *dx = sx;
  *dy = sy;
}

int ssw_analytic_path(const ssw_tensor *t, int regime, double w0, double v0,
                      double time, double *phi, double *x, double *y) {
  ssw_orbit o;
  SSW_CALL(ssw_analytic_orbit(t, regime, w0, v0, &o));
  SSW_CHECK(isfinite(time), SSW_ERR_ARG, "time %g is not finite", time);
  *phi = ssw_analytic_orbit_heading(&o, time);
  ssw_analytic_orbit_advance(&o, 0.0, time, x, y);
  return SSW_SUCCESS;
}

/* ---- The blade's reaction force (docs/theory/blade-force.md) ----------- */

int ssw_analytic_blade_force_max(const ssw_tensor *t, int regime, int sigma,
                                 double *fmax_over_H) {
  SSW_CHECK(sigma == 1 || sigma == -1, SSW_ERR_ARG,
            "sigma = %d must be +1 or -1", sigma);
  SSW_CHECK(ssw_model_regular(t, NULL), SSW_ERR_ARG,
            "reduced inertia is singular (D = M J - L2^2 <= 0)");
  double Fww, Fwv, Fvv;
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  ssw_model_blade_form(&e, &Fww, &Fwv, &Fvv);
  ssw_analytic an;
  SSW_CALL(ssw_analytic_compute(t, regime, &an));
  if (regime == SSW_REGIME_UNIFORM) {
    /* Every state is uniform motion with constant F: the bound over all
     * states of energy H is 2 max |lambda| of S u = lambda K u. */
    const double D = an.D;
    const double tr = (t->M * Fww + 2.0 * t->L2 * Fwv + t->J * Fvv) / D;
    const double det = (Fww * Fvv - Fwv * Fwv) / D;
    const double disc = sqrt(fmax(0.25 * tr * tr - det, 0.0));
    *fmax_over_H = 2.0 * (fabs(0.5 * tr) + disc);
    return SSW_SUCCESS;
  }
  /* On the orbit (w, v) = Arate (a sin psi + sigma c cos psi), a = (alpha,
   * beta), c = (c1, c2), psi in (-pi/2, pi/2), so F / Arate^2 =
   * P + Q cos 2psi + R sin 2psi and 2 psi sweeps a full turn. */
  const double a1 = an.alpha, a2 = an.beta, c1 = an.c1, c2 = an.c2;
  const double Saa = Fww * a1 * a1 + 2.0 * Fwv * a1 * a2 + Fvv * a2 * a2;
  const double Scc = Fww * c1 * c1 + 2.0 * Fwv * c1 * c2 + Fvv * c2 * c2;
  const double Sac = Fww * a1 * c1 + Fwv * (a1 * c2 + a2 * c1) + Fvv * a2 * c2;
  const double P = 0.5 * (Saa + Scc), Q = 0.5 * (Scc - Saa), R = sigma * Sac;
  /* Arate^2 / H = 2 E / D^2. */
  *fmax_over_H = 2.0 * an.E / (an.D * an.D) * (fabs(P) + hypot(Q, R));
  return SSW_SUCCESS;
}
