/* Total inertia tensor (body + Model I/II fluid), validity and regimes. */
#include "sleighsweep/model.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "sleighsweep/error.h"
#include "sleighsweep/fmt.h"

static const char *const regime_names[] = {SSW_REGIMES(SSW_NAME_STRING)};
_Static_assert(sizeof regime_names / sizeof regime_names[0] == SSW_REGIME_COUNT,
               "regime values must be 0 .. SSW_REGIME_COUNT - 1");

const char *ssw_regime_name(int regime) {
  if (regime < 0 || regime >= SSW_REGIME_COUNT) return "unknown";
  return regime_names[regime];
}

const char *const ssw_forcing_shape_names[SSW_FORCING_COUNT] = {
    SSW_FORCING_SHAPES(SSW_NAME_STRING)};

int ssw_model_check_body(const ssw_body *body) {
  SSW_CHECK(isfinite(body->m) && body->m > 0, SSW_ERR_BODY,
            "mass m = %g must be a finite positive number", body->m);
  SSW_CHECK(isfinite(body->I0) && body->I0 >= 0, SSW_ERR_BODY,
            "moment of inertia I0 = %g must be finite and >= 0", body->I0);
  SSW_CHECK(isfinite(body->rho) && body->rho >= 0, SSW_ERR_BODY,
            "fluid density rho = %g must be finite and >= 0", body->rho);
  SSW_CHECK(isfinite(body->k_rot) && body->k_rot >= 0, SSW_ERR_BODY,
            "rotational added-inertia constant k_rot = %g must be finite and "
            ">= 0",
            body->k_rot);
  SSW_CHECK(isfinite(body->Gamma), SSW_ERR_BODY,
            "circulation Gamma = %g must be finite", body->Gamma);
  SSW_CHECK(isfinite(body->forcing_freq) && body->forcing_freq >= 0 &&
                isfinite(body->torque_amp) && isfinite(body->forcing_phase),
            SSW_ERR_BODY,
            "forcing_freq = %g (>= 0), torque_amp = %g and forcing_phase = %g "
            "must be finite",
            body->forcing_freq, body->torque_amp, body->forcing_phase);
  SSW_CHECK(body->torque_amp == 0.0 || body->forcing_freq > 0.0, SSW_ERR_BODY,
            "torque_amp = %g needs forcing_freq > 0 (the torque's angular "
            "frequency)",
            body->torque_amp);
  SSW_CHECK(isfinite(body->mass_p) && body->mass_p >= 0.0 &&
                isfinite(body->mass_x) && isfinite(body->mass_y) &&
                isfinite(body->mass_amp),
            SSW_ERR_BODY,
            "moving mass mass_p = %g must be finite and >= 0 (a negative "
            "mass would make K(t) indefinite), and mass_x = %g, mass_y = %g, "
            "mass_amp = %g finite",
            body->mass_p, body->mass_x, body->mass_y, body->mass_amp);
  SSW_CHECK(body->mass_p == 0.0 || body->forcing_freq > 0.0, SSW_ERR_BODY,
            "mass_p = %g needs forcing_freq > 0 (the moving mass's angular "
            "frequency)",
            body->mass_p);
  SSW_CHECK(body->forcing_shape >= 0 && body->forcing_shape < SSW_FORCING_COUNT,
            SSW_ERR_BODY, "forcing_shape %d is not a shape",
            body->forcing_shape);
  return ssw_model_check_drag(body->drag_w, body->drag_v, body->drag_wv);
}

int ssw_model_check_drag(double cw, double cv, double cwv) {
  SSW_CHECK(isfinite(cw) && isfinite(cv) && isfinite(cwv), SSW_ERR_BODY,
            "drag coefficients drag_w = %g, drag_v = %g, drag_wv = %g must "
            "be finite",
            cw, cv, cwv);
  SSW_CHECK(cw >= 0 && cv >= 0, SSW_ERR_BODY,
            "drag coefficients drag_w = %g and drag_v = %g must be >= 0 (a "
            "negative one feeds energy into the motion)",
            cw, cv);
  const double bound = ssw_model_drag_wv_max(cw, cv);
  if (fabs(cwv) <= bound) return SSW_SUCCESS;
  char w[SSW_FMT_SHORTEST], v[SSW_FMT_SHORTEST], wv[SSW_FMT_SHORTEST],
      b[SSW_FMT_SHORTEST];
  return SSW_RAISE(SSW_ERR_BODY,
                   "drag matrix [[drag_w, drag_wv], [drag_wv, drag_v]] = "
                   "[[%s, %s], [%s, %s]] is not positive semidefinite: "
                   "|drag_wv| must be at most sqrt(drag_w drag_v) = %s, or "
                   "some motion gains energy",
                   ssw_fmt_shortest(cw, w), ssw_fmt_shortest(cwv, wv), wv,
                   ssw_fmt_shortest(cv, v), ssw_fmt_shortest(bound, b));
}

double ssw_model_drag_wv_max(double cw, double cv) {
  /* sqrt(cw cv), as a user computes it (sqrt(cw) sqrt(cv) can be an ulp
   * smaller and refused a value sqrt(cw cv) gives); the product-free form
   * only where the product overflows or underflows. */
  const double p = cw * cv;
  if (isfinite(p) && (p >= DBL_MIN || cw == 0.0 || cv == 0.0)) return sqrt(p);
  return sqrt(cw) * sqrt(cv);
}

int ssw_model_positive_definite(const ssw_tensor *t) {
  /* Leading principal minors of [[J,-L2,L1],[-L2,M,Z],[L1,Z,N]]. */
  double d1 = t->J;
  double d2 = t->J * t->M - t->L2 * t->L2;
  double d3 = t->J * (t->M * t->N - t->Z * t->Z) +
              t->L2 * (-t->L2 * t->N - t->Z * t->L1) +
              t->L1 * (-t->L2 * t->Z - t->M * t->L1);
  return d1 > 0 && d2 > 0 && d3 > 0;
}

int ssw_model_regular(const ssw_tensor *t, double *d_rel) {
  /* D / (M J) = 1 - q^2 with q = L2 / (sqrt(M) sqrt(J)): no product of two
   * tensor entries is formed, so a uniformly scaled body (m = I0 = 1e300)
   * gives the same answer as the unscaled one. */
  double rel = 0.0;
  if (t->J > 0 && t->M > 0 && isfinite(t->J) && isfinite(t->M)) {
    const double q = t->L2 / sqrt(t->M) / sqrt(t->J);
    rel = (1.0 - q) * (1.0 + q);
  }
  if (d_rel) *d_rel = rel;
  return rel > SSW_D_REL_MIN;
}

/* "theta=%g a=%g ... B=%g" of the body's parameters into buf, for the
 * messages of a body that fails (names.h SSW_BODY_AXES). */
static const char *params_text(const ssw_params *p, char *buf, size_t n) {
  static const char *const names[] = {SSW_BODY_AXES(SSW_NAME_AT)};
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < SSW_NBODY_AXES && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, "%s%s=%g", i ? " " : "",
                             names[i], ssw_params_get(p, i));
  return buf;
}

static int check_params(const ssw_params *p) {
  /* ssw_params has a field per body axis (names.h SSW_BODY_AXES). */
  static const char *const names[] = {SSW_BODY_AXES(SSW_NAME_AT)};
  for (int i = 0; i < SSW_NBODY_AXES; i++) {
    const double v = ssw_params_get(p, i);
    SSW_CHECK(isfinite(v), SSW_ERR_BODY, "parameter %s = %g is not finite",
              names[i], v);
  }
  SSW_CHECK(p->B > 0, SSW_ERR_BODY, "semi-axis B = %g must be > 0", p->B);
  SSW_CHECK(p->A > p->B, SSW_ERR_BODY,
            "semi-axes must satisfy A > B, got A = %g, B = %g", p->A, p->B);
  return SSW_SUCCESS;
}

int ssw_model_tensor(const ssw_body *body, const ssw_params *p,
                     ssw_tensor *out) {
  SSW_CALL(ssw_model_check_body(body));
  SSW_CALL(check_params(p));
  char at[SSW_NBODY_AXES * 32]; /* the parameters in a message */
  const double m = body->m, rho = body->rho;
  const double A2 = p->A * p->A, B2 = p->B * p->B;
  /* A^2 - B^2 as (A - B)(A + B): A - B is exact for B/A in [1/2, 1]
   * (Sterbenz), so a near-round ellipse keeps every digit of the
   * difference; A*A - B*B cancels (at B/A = 1 - 1e-8 it lost 8 digits of
   * Z, and with them the radius |L1 / Z|). */
  const double AmB2 = (p->A - p->B) * (p->A + p->B);
  const double c = cos(p->theta), s = sin(p->theta);
  const double c2 = c * c, s2 = s * s;
  /* Fluid, Model I (ellipse centre at the contact point), 2010 paper (3.2). */
  const double Irot = body->k_rot * rho * M_PI * AmB2 * AmB2;
  const double MF = rho * M_PI * (B2 * c2 + A2 * s2);
  const double NF = rho * M_PI * (A2 * c2 + B2 * s2);
  const double ZF = rho * M_PI * AmB2 * 0.5 * sin(2.0 * p->theta);
  /* Model II: the centre C sits at body coordinates (r, s) from P; its
   * velocity is V + omega q with q = (-s, r), so the fluid energy in P's
   * velocities adds q^T M2 q to J and the coupling row q^T M2. */
  const double q1 = -p->s, q2 = p->r;
  const double row1 = q1 * MF + q2 * ZF; /* = -L2_F */
  const double row2 = q1 * ZF + q2 * NF; /* =  L1_F */
  const double JF = Irot + (q1 * row1 + q2 * row2);
  out->J = body->I0 + m * (p->a * p->a + p->b * p->b) + JF;
  out->M = m + MF;
  out->N = m + NF;
  out->L1 = m * p->a + row2;
  out->L2 = m * p->b - row1;
  out->Z = ZF;
  /* Circulation's lift at C (docs/theory/circulation.md). */
  out->kappa = rho * body->Gamma * p->r;
  out->lift = rho * body->Gamma;
  out->lift_s = rho * body->Gamma * p->s;
  /* Linear drag on (w, v) (docs/theory/drag.md). */
  out->cw = body->drag_w;
  out->cv = body->drag_v;
  out->cwv = body->drag_wv;
  /* The periodic torque (docs/theory/forcing.md): off, all four are 0. */
  out->fomega = out->ftau = out->fimp = out->fphase = 0.0;
  out->mp = out->mx = out->my = out->mamp = 0.0;
  if (body->mass_p != 0.0) { /* the moving mass (forcing.md) */
    out->mp = body->mass_p;
    out->mx = body->mass_x;
    out->my = body->mass_y;
    out->mamp = body->mass_amp;
  }
  if (body->torque_amp != 0.0 || body->mass_p != 0.0) {
    out->fomega = body->forcing_freq;
    out->fphase = body->forcing_phase;
    if (body->forcing_shape == SSW_FORCING_KICKS)
      out->fimp = body->torque_amp;
    else
      out->ftau = body->torque_amp;
  }
  /* The reduced dynamics need only K = [[J, -L2], [-L2, M]] positive
   * definite (N never enters): a body with I0 = 0 on a dry plane has a
   * singular 3x3 tensor but regular motion (the tractrix). */
  SSW_CHECK(
      isfinite(out->J) && isfinite(out->M) && isfinite(out->N) &&
          isfinite(out->L1) && isfinite(out->L2) && isfinite(out->Z) &&
          isfinite(out->kappa) && isfinite(out->lift) && isfinite(out->lift_s),
      SSW_ERR_BODY,
      "inertia tensor overflows at %s (J=%g M=%g L1=%g L2=%g Z=%g)",
      params_text(p, at, sizeof at), out->J, out->M, out->L1, out->L2, out->Z);
  double d_rel;
  SSW_CHECK(ssw_model_regular(out, &d_rel), SSW_ERR_BODY,
            "reduced inertia [[J, -L2], [-L2, M]] is not positive definite "
            "at %s: D = M J - L2^2 is %.3g of M J (needs > %g; J=%g M=%g "
            "L2=%g): a rotation about a point of the blade's normal line "
            "costs no energy (e.g. I0 = 0 with the centre of mass on that "
            "line, a = 0, on a dry plane); increase I0 or move the centre of "
            "mass off that line",
            params_text(p, at, sizeof at), d_rel, SSW_D_REL_MIN, out->J, out->M,
            out->L2);
  return SSW_SUCCESS;
}

void ssw_model_classify(const ssw_tensor *t, double tol, ssw_tensor *snapped,
                        int *regime) {
  ssw_tensor u = *t;
  /* sqrt(J) sqrt(M), not sqrt(J M): J M overflows for m ~ 1e300. */
  const int l1_zero = fabs(u.L1) <= tol * sqrt(u.J) * sqrt(u.M);
  const int z_zero = fabs(u.Z) <= tol * u.M;
  if (l1_zero) u.L1 = 0.0;
  if (z_zero) u.Z = 0.0;
  *snapped = u;
  if (l1_zero && z_zero)
    *regime = SSW_REGIME_UNIFORM;
  else if (z_zero)
    *regime = SSW_REGIME_LINE_TO_LINE;
  else if (l1_zero)
    *regime = SSW_REGIME_SPIN_REVERSAL;
  else
    *regime = SSW_REGIME_CIRCLE_TO_CIRCLE;
}

/* ---- The reduced equations --------------------------------------------- */

/* The sine torque as a generalised force Q = (tau(t), 0), par = (amp,
 * Omega, phase) (docs/theory/forcing.md). The kicks are no force of the
 * equations: the forced extractor adds their impulses to the momenta at
 * the step boundaries t = 0+, T, 2T, ... */
static void sine_torque(const double par[SSW_FORCE_PARS], double t, double *Q1,
                        double *Q2) {
  *Q1 = par[0] * sin(par[1] * t + par[2]);
  *Q2 = 0.0;
}

void ssw_model_reduce(const ssw_tensor *t, ssw_reduced *e) {
  e->J = t->J;
  e->M = t->M;
  e->L1 = t->L1;
  e->L2 = t->L2;
  e->Z = t->Z;
  e->D = ssw_model_D(t);
  e->kw1 = t->L1 * t->M + t->Z * t->L2;
  e->kw2 = t->L1 * t->L2 + t->Z * t->J;
  e->kappa = t->kappa;
  e->lift = t->lift;
  e->lift_s = t->lift_s;
  e->cw = t->cw;
  e->cv = t->cv;
  e->cwv = t->cwv;
  e->drag = t->cw != 0.0 || t->cv != 0.0 || t->cwv != 0.0;
  e->force = NULL;
  for (int i = 0; i < SSW_FORCE_PARS; i++)
    e->force_par[i] = 0.0;
  if (t->ftau != 0.0) {
    e->force = sine_torque;
    e->force_par[0] = t->ftau;
    e->force_par[1] = t->fomega;
    e->force_par[2] = t->fphase;
  }
  e->mass = t->mp != 0.0;
  e->mp = t->mp, e->mx = t->mx, e->my = t->my, e->mamp = t->mamp;
  e->momega = t->fomega, e->mphase = t->fphase;
}

/* The mass at x = mx, y = my + mamp sin(Omega t + phase): x' = 0, so
 * sigma = (mp x y', 0) (forcing.md, eq. (M1)). */
void ssw_model_mass_at(const ssw_reduced *e, double t, ssw_mass_frame *f) {
  const double arg = e->momega * t + e->mphase;
  const double sn = sin(arg), cs = cos(arg), m = e->mp, x = e->mx;
  const double y = e->my + e->mamp * sn;
  const double dy = e->mamp * e->momega * cs;
  const double ddy = -e->mamp * e->momega * e->momega * sn;
  ssw_reduced *k = &f->k;
  *k = *e;
  k->J = e->J + m * (x * x + y * y);
  k->L2 = e->L2 + m * y;
  k->M = e->M + m;
  k->L1 = e->L1 + m * x;
  k->D = k->M * k->J - k->L2 * k->L2;
  k->kw1 = k->L1 * k->M + k->Z * k->L2;
  k->kw2 = k->L1 * k->L2 + k->Z * k->J;
  k->kappa = e->kappa - m * dy;
  f->sig1 = m * x * dy, f->sig2 = 0.0;
  f->dsig1 = m * x * ddy, f->dsig2 = 0.0;
  f->dJ = 2.0 * m * y * dy, f->dL2 = m * dy;
  f->x = x, f->y = y, f->dy = dy, f->ddy = ddy;
}

void ssw_model_mass_rhs(const ssw_reduced *e, double t,
                        const double y[SSW_ODE_DIM], double f[SSW_ODE_DIM]) {
  ssw_mass_frame fr;
  ssw_model_mass_at(e, t, &fr);
  const double w = y[0], v = y[1];
  double Q1 = 0.0, Q2 = 0.0, dw, dv;
  if (e->force) e->force(e->force_par, t, &Q1, &Q2);
  /* Q - K'(t) zeta - sigma'(t), K' = [[dJ, -dL2], [-dL2, 0]] */
  Q1 -= fr.dJ * w - fr.dL2 * v + fr.dsig1;
  Q2 -= -fr.dL2 * w + fr.dsig2;
  ssw_model_zeta_rate(&fr.k, w, v, &f[0], &f[1]);
  ssw_model_velocity(&fr.k, Q1, Q2, &dw, &dv);
  f[0] += dw, f[1] += dv;
  f[2] = w;
  f[3] = v * cos(y[2]);
  f[4] = v * sin(y[2]);
}

void ssw_model_velocity_at(const ssw_reduced *e, double t, double W1, double W2,
                           double *w, double *v) {
  if (!e->mass) {
    ssw_model_velocity(e, W1, W2, w, v);
    return;
  }
  ssw_mass_frame fr;
  ssw_model_mass_at(e, t, &fr);
  ssw_model_velocity(&fr.k, W1 - fr.sig1, W2 - fr.sig2, w, v);
}

void ssw_model_momenta_at(const ssw_reduced *e, double t, double w, double v,
                          double *W1, double *W2) {
  if (!e->mass) {
    ssw_model_momenta(e, w, v, W1, W2);
    return;
  }
  ssw_mass_frame fr;
  ssw_model_mass_at(e, t, &fr);
  ssw_model_momenta(&fr.k, w, v, W1, W2);
  *W1 += fr.sig1, *W2 += fr.sig2;
}

void ssw_model_blade_rate(const ssw_reduced *e, double w, double v, double *f,
                          double *df) {
  const double g = SSW_MODEL_G(e, w, v), ht = SSW_MODEL_HT(e, w, v);
  *f = SSW_MODEL_BLADE(e, w, v, g, ht);
  /* dF/dt = F_w w' + F_v v' with (w', v') = g (a1, a2) / D. */
  const double Fw =
      (e->L1 * ht + g * e->kw2) / e->D + e->M * v - 2.0 * e->L2 * w + e->lift_s;
  const double Fv = (e->Z * ht - g * e->kw1) / e->D + e->M * w - e->lift;
  if (e->drag) {
    /* F's drag term -(kw1 f1 + kw2 f2) / D and zeta' = (g a - d) / D. */
    const double Dw = (e->kw1 * e->cw + e->kw2 * e->cwv) / e->D;
    const double Dv = (e->kw1 * e->cwv + e->kw2 * e->cv) / e->D;
    const double wd = g * SSW_MODEL_A1(e, w, v) - SSW_MODEL_D1(e, w, v);
    const double vd = g * SSW_MODEL_A2(e, w, v) - SSW_MODEL_D2(e, w, v);
    *df = ((Fw - Dw) * wd + (Fv - Dv) * vd) / e->D;
    return;
  }
  *df = g * (Fw * SSW_MODEL_A1(e, w, v) + Fv * SSW_MODEL_A2(e, w, v)) / e->D;
}

void ssw_model_blade_form(const ssw_reduced *e, double *Fww, double *Fwv,
                          double *Fvv) {
  /* Without circulation (kappa = lift = 0) F is this quadratic form. */
  *Fww = e->L1 * e->kw2 / e->D - e->L2;
  *Fwv = 0.5 * ((e->Z * e->kw2 - e->L1 * e->kw1) / e->D + e->M);
  *Fvv = -e->Z * e->kw1 / e->D;
}

/* The series' recurrence over a type T: double, or a vector of doubles
 * whose lanes each run the scalar's sequence of IEEE operations (no
 * operation mixes lanes), so both give the same bits. One pass: the k-th
 * terms of F's sums need only the series' terms up to k, so they are
 * summed beside the recurrence, and M v - L2 w is -a1 exactly (IEEE
 * subtraction is symmetric), so F's second sum subtracts w a1. */
#define BLADE_SERIES(T, zero, e, w, v, n, F)                                   \
  do {                                                                         \
    T W[SSW_MODEL_SERIES_MAX], V[SSW_MODEL_SERIES_MAX];                        \
    T G[SSW_MODEL_SERIES_MAX], A1[SSW_MODEL_SERIES_MAX];                       \
    T A2[SSW_MODEL_SERIES_MAX], HT[SSW_MODEL_SERIES_MAX];                      \
    W[0] = (w), V[0] = (v);                                                    \
    for (int k = 0; k < (n); k++) {                                            \
      /* g's series: p2's, with the constant kappa in the first term only. */  \
      G[k] =                                                                   \
          k == 0 ? SSW_MODEL_G(e, W[k], V[k]) : SSW_MODEL_P2(e, W[k], V[k]);   \
      HT[k] = SSW_MODEL_HT(e, W[k], V[k]);                                     \
      A1[k] = SSW_MODEL_A1(e, W[k], V[k]);                                     \
      A2[k] = SSW_MODEL_A2(e, W[k], V[k]);                                     \
      /* (k + 1) zeta_{k+1} = sum_j g_j a_{k-j} / D (Cauchy product), and      \
       * F's k-th term from g ht / D + w (M v - L2 w). */                      \
      T s1 = (zero), s2 = (zero), f1 = (zero), f2 = (zero);                    \
      for (int j = 0; j <= k; j++) {                                           \
        s1 += G[j] * A1[k - j], s2 += G[j] * A2[k - j];                        \
        f1 += G[j] * HT[k - j], f2 -= W[j] * A1[k - j];                        \
      }                                                                        \
      F[k] = f1 / (e)->D + f2 - ((e)->lift * V[k] - (e)->lift_s * W[k]);       \
      if ((e)->drag) {                                                         \
        F[k] -= ((e)->kw1 * SSW_MODEL_F1(e, W[k], V[k]) +                      \
                 (e)->kw2 * SSW_MODEL_F2(e, W[k], V[k])) /                     \
                (e)->D;                                                        \
        /* the drag is linear: its k-th term is d(zeta_k) */                   \
        s1 -= SSW_MODEL_D1(e, W[k], V[k]), s2 -= SSW_MODEL_D2(e, W[k], V[k]);  \
      }                                                                        \
      if (k + 1 == (n)) break;                                                 \
      W[k + 1] = s1 / ((e)->D * (k + 1));                                      \
      V[k + 1] = s2 / ((e)->D * (k + 1));                                      \
    }                                                                          \
  } while (0)

void ssw_model_blade_series(const ssw_reduced *e, double w, double v, int n,
                            double *F) {
  if (n > SSW_MODEL_SERIES_MAX) n = SSW_MODEL_SERIES_MAX;
  BLADE_SERIES(double, 0.0, e, w, v, n, F);
}

/* The clones stay static behind a plain function: clang names a
 * multiversioned function's symbols its own way, which a call from another
 * file does not find. */
SSW_SIMD_CLONES static void blade_series4(const ssw_reduced *e,
                                          const ssw_model_v4 *w,
                                          const ssw_model_v4 *v, int n,
                                          ssw_model_v4 *F) {
  BLADE_SERIES(ssw_model_v4, ((ssw_model_v4){0.0, 0.0, 0.0, 0.0}), e, *w, *v, n,
               F);
}

void ssw_model_blade_series4(const ssw_reduced *e, const ssw_model_v4 *w,
                             const ssw_model_v4 *v, int n, ssw_model_v4 *F) {
  if (n > SSW_MODEL_SERIES_MAX) n = SSW_MODEL_SERIES_MAX;
  blade_series4(e, w, v, n, F);
}

void ssw_model_centre(const ssw_reduced *e, double ux, double uy, double x,
                      double y, double w, double v, double g, double ht,
                      int tail, double w_inf, double v_inf, double *cx,
                      double *cy) {
  /* Body coordinate of the centre across the blade, and the speed of that
   * material point now: without circulation exactly -L1/Z and g/Z. */
  double yb, u;
  if (e->kappa == 0.0) {
    if (e->Z == 0.0) {
      *cx = *cy = NAN;
      return;
    }
    yb = -(e->L1 / e->Z), u = g / e->Z;
  } else {
    if (w_inf == 0.0) {
      *cx = *cy = NAN;
      return;
    }
    yb = v_inf / w_inf, u = v - w * yb;
  }
  const double cp = ux, sp = uy;
  *cx = x - yb * sp;
  *cy = y + yb * cp;
  if (tail) {
    const double lam = ht / e->D, den = lam * lam + w * w;
    *cx -= u * (cp * lam + sp * w) / den;
    *cy -= u * (sp * lam - cp * w) / den;
  }
}

void ssw_model_arc(double w, double v, double ta, double tb, double *dx,
                   double *dy) {
  const double T = tb - ta, th = w * T, ph = w * ta;
  double ax = v * T, ay = 0.0; /* displacement in the frame of heading ph */
  if (th != 0.0) {
    const double sh = sin(0.5 * th);
    ax = v * T * sin(th) / th;
    ay = v * T * 2.0 * sh * sh / th;
  }
  *dx = ax * cos(ph) - ay * sin(ph);
  *dy = ax * sin(ph) + ay * cos(ph);
}

void ssw_model_energy_point(const ssw_tensor *t, double H, double psi,
                            double *w, double *v) {
  /* K = L L^T, L = [[sqrt(J), 0], [-L2/sqrt(J), sqrt(D/J)]]; with
   * |u|^2 = 2 H the velocity zeta = L^-T u lies on the energy ellipse. */
  const double r = sqrt(2.0 * H);
  const double u1 = r * cos(psi), u2 = r * sin(psi);
  const double l11 = sqrt(t->J), l21 = -t->L2 / l11;
  const double l22 = sqrt(ssw_model_D(t) / t->J);
  *v = u2 / l22;
  *w = (u1 - l21 * *v) / l11;
}
