/* Nonholonomic RATTLE in lab coordinates (x, y, phi) with the blade's
 * multiplier; implicit stages by Newton's method (see rattle.h). The
 * circulation's lift enters through the canonical momenta: the body's
 * impulse is the canonical one plus kappa along E2 (docs/theory/schemes.md,
 * "Circulation"). */
#include "sleighsweep/rattle.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "sleighsweep/error.h"

int ssw_rattle_setup(const ssw_tensor *t, ssw_rattle *r) {
  SSW_CHECK(t->J > 0 && t->M > 0 && t->N > 0 && isfinite(t->J) &&
                isfinite(t->M) && isfinite(t->N),
            SSW_ERR_ARG, "rattle: J=%g M=%g N=%g must be positive", t->J, t->M,
            t->N);
  /* I = [[J, -L2, L1], [-L2, M, Z], [L1, Z, N]] scaled to unit diagonal,
   * n = S^-1 I S^-1 with S = diag(sqrt(J), sqrt(M), sqrt(N)): its
   * determinant is det I / (J M N) (<= 1 by Hadamard), a scale-free
   * measure; a singular tensor (I0 = 0 on a dry plane) leaves a round-off
   * determinant of either sign, which an absolute test would take. */
  const double sc[3] = {sqrt(t->J), sqrt(t->M), sqrt(t->N)};
  const double raw[3][3] = {
      {t->J, -t->L2, t->L1}, {-t->L2, t->M, t->Z}, {t->L1, t->Z, t->N}};
  double a[3][3], cof[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      a[i][j] = raw[i][j] / sc[i] / sc[j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      cof[i][j] = a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1];
    }
  const double det =
      a[0][0] * cof[0][0] + a[0][1] * cof[0][1] + a[0][2] * cof[0][2];
  SSW_CHECK(ssw_model_regular(t, NULL) && det > 1e-12, SSW_ERR_ARG,
            "rattle needs a positive definite 3x3 tensor, det / (J M N) = "
            "%.3g (J=%g M=%g N=%g L1=%g L2=%g Z=%g); with I0 = 0 on a dry "
            "plane it is singular",
            det, t->J, t->M, t->N, t->L1, t->L2, t->Z);
  r->t = *t;
  /* The Newton predictor's multiplier is the lateral force of the
   * canonical system, the blade force plus the lateral lift: the reduced
   * equations with kappa but without the lateral lift. */
  ssw_tensor tp = *t;
  tp.lift = tp.lift_s = 0.0;
  ssw_model_reduce(&tp, &r->e);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r->Iinv[i][j] = cof[j][i] / det / sc[i] / sc[j];
  r->tol = 1e-14;
  r->max_iter = 30;
  return SSW_SUCCESS;
}

/* At heading phi and lab (canonical) momentum p: the lab velocity
 * u = H_p (x', y', phi') and dH/dphi = v1 mu2 - v2 mu1, with mu the
 * canonical body impulse and xi = I^-1 (mu + kappa E2) the body velocity. */
typedef struct {
  double u[3], Hphi, v2;
} lab_eval;

static void eval(const ssw_rattle *r, double phi, const double p[3],
                 lab_eval *e) {
  const double c = cos(phi), s = sin(phi);
  const double mu[3] = {p[2], c * p[0] + s * p[1], -s * p[0] + c * p[1]};
  /* Skipped without circulation: + 0.0 would turn a -0.0 into +0.0. */
  double mm[3] = {mu[0], mu[1], mu[2]};
  if (ssw_model_has_kappa(&r->t)) mm[2] += r->t.kappa;
  double xi[3];
  for (int i = 0; i < 3; i++)
    xi[i] =
        r->Iinv[i][0] * mm[0] + r->Iinv[i][1] * mm[1] + r->Iinv[i][2] * mm[2];
  e->u[0] = c * xi[1] - s * xi[2];
  e->u[1] = s * xi[1] + c * xi[2];
  e->u[2] = xi[0];
  e->Hphi = xi[1] * mu[2] - xi[2] * mu[1];
  e->v2 = xi[2];
}

/* Unknowns z = (p+ (3), Lam = (h/2) lambda, phi1); residuals of the first
 * half-step, the heading update and the discrete constraint; the latter is
 * divided by |h| so every residual is O(1) relative to its unknown. */
typedef struct {
  const ssw_rattle *r;
  double h, phi0, p0[3], c0, s0;
} stage;

static void residual(const stage *S, const double z[5], double res[5],
                     double dq[3]) {
  lab_eval e0, e1;
  eval(S->r, S->phi0, z, &e0);
  eval(S->r, z[4], z, &e1);
  const double hh = 0.5 * S->h;
  res[0] = z[0] - S->p0[0] + z[3] * S->s0;
  res[1] = z[1] - S->p0[1] - z[3] * S->c0;
  res[2] = z[2] - S->p0[2] + hh * e0.Hphi;
  for (int i = 0; i < 3; i++)
    dq[i] = hh * (e0.u[i] + e1.u[i]);
  res[3] = z[4] - S->phi0 - dq[2];
  const double pm = 0.5 * (S->phi0 + z[4]);
  res[4] = (-sin(pm) * dq[0] + cos(pm) * dq[1]) / S->h;
}

/* Solves A x = b (5x5) by Gaussian elimination with partial pivoting. */
static int solve5(double A[5][5], double b[5]) {
  for (int k = 0; k < 5; k++) {
    int piv = k;
    for (int i = k + 1; i < 5; i++)
      if (fabs(A[i][k]) > fabs(A[piv][k])) piv = i;
    if (A[piv][k] == 0.0) return 0;
    if (piv != k) {
      double tmp[5];
      memcpy(tmp, A[k], sizeof tmp);
      memcpy(A[k], A[piv], sizeof tmp);
      memcpy(A[piv], tmp, sizeof tmp);
      const double tb = b[k];
      b[k] = b[piv], b[piv] = tb;
    }
    for (int i = k + 1; i < 5; i++) {
      const double f = A[i][k] / A[k][k];
      for (int j = k; j < 5; j++)
        A[i][j] -= f * A[k][j];
      b[i] -= f * b[k];
    }
  }
  for (int k = 4; k >= 0; k--) {
    double s = b[k];
    for (int j = k + 1; j < 5; j++)
      s -= A[k][j] * b[j];
    b[k] = s / A[k][k];
  }
  return 1;
}

/* Newton on the implicit half; z holds the predictor on entry. Stops when
 * the scaled update is <= tol. The residuals take cos and sin of the
 * heading, whose rounding (eps |phi|) leaves the momenta that much noise:
 * far from phi = 0 (|phi| > ~100) the updates can hover just above tol.
 * Only when max_iter is spent is the last update measured against that
 * floor, 8 eps |phi1|, instead (so a step that met tol is unchanged). */
static int newton(const stage *S, double z[5], double pscale, int *iters) {
  const double scale[5] = {pscale, pscale, pscale, pscale, 1.0};
  double res[5], dq[3], upd = INFINITY;
  for (int it = 1; it <= S->r->max_iter; it++) {
    residual(S, z, res, dq);
    double J[5][5];
    for (int j = 0; j < 5; j++) {
      /* Forward difference: Jacobian error ~1e-8 only slows the
       * convergence (linear with ratio ~1e-8), not the solution. */
      double zp[5], rp[5], dqp[3];
      memcpy(zp, z, sizeof zp);
      const double d = 0x1p-26 * fmax(fabs(z[j]), scale[j]);
      zp[j] += d;
      residual(S, zp, rp, dqp);
      for (int i = 0; i < 5; i++)
        J[i][j] = (rp[i] - res[i]) / d;
    }
    double dz[5];
    for (int i = 0; i < 5; i++)
      dz[i] = -res[i];
    if (!solve5(J, dz))
      return SSW_RAISE(SSW_ERR_NUMERIC, "rattle: singular Newton matrix");
    upd = 0.0;
    for (int i = 0; i < 5; i++) {
      z[i] += dz[i];
      upd = fmax(upd, fabs(dz[i]) / fmax(fabs(z[i]), scale[i]));
    }
    if (iters) *iters = it;
    if (upd <= S->r->tol) return SSW_SUCCESS;
  }
  if (upd <= 8 * DBL_EPSILON * fabs(z[4])) return SSW_SUCCESS;
  return SSW_RAISE(SSW_ERR_NUMERIC,
                   "rattle: Newton did not converge in %d iterations (h = %g)",
                   S->r->max_iter, S->h);
}

int ssw_rattle_step(const ssw_rattle *r, const ssw_ode_state *s, double h,
                    ssw_ode_state *out, double mult[2], int *iters) {
  const ssw_tensor *t = &r->t;
  stage S = {r, h, s->phi, {0, 0, 0}, cos(s->phi), sin(s->phi)};
  /* p_k = B^T (I (w, v, 0) - kappa E2): the canonical body impulse
   * turned into the lab frame; its lateral component is g = p2 - kappa. */
  const double k = SSW_MODEL_W1(t, s->w, s->v);
  const double m1 = SSW_MODEL_W2(t, s->w, s->v);
  const double m2 = SSW_MODEL_G(t, s->w, s->v);
  S.p0[0] = S.c0 * m1 - S.s0 * m2;
  S.p0[1] = S.s0 * m1 + S.c0 * m2;
  S.p0[2] = k;
  /* Predictor from the continuous motion: p' = (F n, -H_phi), F the
   * canonical system's lateral force (r->e). */
  const double F = ssw_model_blade_force(&r->e, s->w, s->v);
  lab_eval e;
  eval(r, s->phi, S.p0, &e);
  const double hh = 0.5 * h;
  double z[5] = {S.p0[0] - hh * F * S.s0, S.p0[1] + hh * F * S.c0,
                 S.p0[2] - hh * e.Hphi, hh * F, s->phi + h * s->w};
  const double pscale = fabs(k) + hypot(m1, m2) + 1e-300;
  SSW_CALL(newton(&S, z, pscale, iters));
  double res[5], dq[3];
  residual(&S, z, res, dq);
  const double phi1 = z[4];
  /* Second half: p1 = p' + (h/2) mu a(phi1) with v2(phi1, p1) = 0, linear
   * in mu: the impulse (h/2) mu adds to the body's lateral component
   * (mechanical impulse: the canonical one plus kappa E2). */
  lab_eval e1;
  eval(r, phi1, z, &e1);
  double p1[3] = {z[0], z[1], z[2] - hh * e1.Hphi};
  const double c1 = cos(phi1), s1 = sin(phi1);
  double mu[3] = {p1[2], c1 * p1[0] + s1 * p1[1], -s1 * p1[0] + c1 * p1[1]};
  if (ssw_model_has_kappa(t)) mu[2] += t->kappa;
  const double v2 =
      r->Iinv[2][0] * mu[0] + r->Iinv[2][1] * mu[1] + r->Iinv[2][2] * mu[2];
  const double dmu2 = -v2 / r->Iinv[2][2];
  const double mub[3] = {mu[0], mu[1], mu[2] + dmu2};
  const double w1 =
      r->Iinv[0][0] * mub[0] + r->Iinv[0][1] * mub[1] + r->Iinv[0][2] * mub[2];
  const double v1 =
      r->Iinv[1][0] * mub[0] + r->Iinv[1][1] * mub[1] + r->Iinv[1][2] * mub[2];
  if (mult) {
    /* The multipliers are the canonical system's lateral force; the blade
     * takes it less the lateral lift (model.h). */
    mult[0] = z[3] / hh;
    mult[1] = dmu2 / hh;
    if (ssw_model_has_lift(t)) {
      mult[0] -= t->lift * s->v - t->lift_s * s->w;
      mult[1] -= t->lift * v1 - t->lift_s * w1;
    }
  }
  out->x = s->x + dq[0];
  out->y = s->y + dq[1];
  out->phi = phi1;
  out->w = w1, out->v = v1;
  out->t = s->t + h;
  return SSW_SUCCESS;
}
