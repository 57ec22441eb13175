/* Dormand-Prince 5(4) step, error norm and DOPRI5 step-size control. */
#include "sleighsweep/dopri5.h"

#include <math.h>

#include "sleighsweep/error.h"

/* Coefficients of Dormand & Prince, J. Comput. Appl. Math. 6 (1980) 19;
 * the same table as Hairer, Norsett & Wanner, Solving Ordinary
 * Differential Equations I, Table II.5.2, and their code DOPRI5. */
const double ssw_dopri5_nodes[SSW_DOPRI5_NODES] = {
    0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
#define C_(i) ssw_dopri5_nodes[(i)-1]
static const double A21 = 1.0 / 5;
static const double A31 = 3.0 / 40, A32 = 9.0 / 40;
static const double A41 = 44.0 / 45, A42 = -56.0 / 15, A43 = 32.0 / 9;
static const double A51 = 19372.0 / 6561, A52 = -25360.0 / 2187,
                    A53 = 64448.0 / 6561, A54 = -212.0 / 729;
static const double A61 = 9017.0 / 3168, A62 = -355.0 / 33,
                    A63 = 46732.0 / 5247, A64 = 49.0 / 176,
                    A65 = -5103.0 / 18656;
static const double B1 = 35.0 / 384, B3 = 500.0 / 1113, B4 = 125.0 / 192,
                    B5 = -2187.0 / 6784, B6 = 11.0 / 84;
/* b - b^ (5th minus embedded 4th-order weights); stage 7 is f(y1). */
static const double E1 = 71.0 / 57600, E3 = -71.0 / 16695, E4 = 71.0 / 1920,
                    E5 = -17253.0 / 339200, E6 = 22.0 / 525, E7 = -1.0 / 40;

void ssw_dopri5_defaults(ssw_dopri5_opts *o) {
  o->atol = 1e-10, o->rtol = 1e-10;
  o->safe = 0.9, o->fac1 = 0.2, o->fac2 = 10.0, o->beta = 0.04;
  o->hmax = 0.0;
}

int ssw_dopri5_check(const ssw_dopri5_opts *o) {
  SSW_CHECK(isfinite(o->rtol) && o->rtol > 0 && o->rtol <= 0.1, SSW_ERR_ARG,
            "dopri5 rtol = %g must be in (0, 0.1]", o->rtol);
  SSW_CHECK(isfinite(o->atol) && o->atol >= 0, SSW_ERR_ARG,
            "dopri5 atol = %g must be finite and >= 0", o->atol);
  SSW_CHECK(o->safe > 0 && o->safe < 1, SSW_ERR_ARG,
            "dopri5 safe = %g must be in (0, 1)", o->safe);
  SSW_CHECK(o->fac1 > 0 && o->fac1 <= 1 && o->fac2 >= 1 && isfinite(o->fac2),
            SSW_ERR_ARG,
            "dopri5 fac1 = %g, fac2 = %g must satisfy 0 < fac1 "
            "<= 1 <= fac2",
            o->fac1, o->fac2);
  SSW_CHECK(o->beta >= 0 && o->beta <= 0.2, SSW_ERR_ARG,
            "dopri5 beta = %g must be in [0, 0.2]", o->beta);
  SSW_CHECK(isfinite(o->hmax) && o->hmax >= 0, SSW_ERR_ARG,
            "dopri5 hmax = %g must be finite and >= 0", o->hmax);
  return SSW_SUCCESS;
}

void ssw_dopri5_ctl_init(ssw_dopri5_ctl *c) {
  c->facold = 1e-4;
  c->rejected = 0;
}

static void pack(const ssw_ode_state *s, double y[5]) {
  y[0] = s->w, y[1] = s->v, y[2] = s->phi, y[3] = s->x, y[4] = s->y;
}

/* Scaled RMS norm of e with scale atol + rtol max(|a_i|, |b_i|). */
static double norm(const ssw_dopri5_opts *o, const double e[5],
                   const double a[5], const double b[5]) {
  double s = 0.0;
  for (int i = 0; i < 5; i++) {
    const double sc = o->atol + o->rtol * fmax(fabs(a[i]), fabs(b[i]));
    const double q = e[i] / sc;
    s += q * q;
  }
  return sqrt(s / 5.0);
}

void ssw_dopri5_step(const ssw_reduced *e, const ssw_dopri5_opts *o,
                     const ssw_ode_state *s, double h, const double f0[5],
                     double f1[5], ssw_ode_state *out, double *err) {
  double y0[5], k1[5], k2[5], k3[5], k4[5], k5[5], k6[5], k7[5], y[5];
  pack(s, y0);
  if (f0) {
    for (int i = 0; i < 5; i++)
      k1[i] = f0[i];
  } else {
    ssw_model_rhs(e, s->t, y0, k1);
  }
  for (int i = 0; i < 5; i++)
    y[i] = y0[i] + h * A21 * k1[i];
  ssw_model_rhs(e, s->t + C_(2) * h, y, k2);
  for (int i = 0; i < 5; i++)
    y[i] = y0[i] + h * (A31 * k1[i] + A32 * k2[i]);
  ssw_model_rhs(e, s->t + C_(3) * h, y, k3);
  for (int i = 0; i < 5; i++)
    y[i] = y0[i] + h * (A41 * k1[i] + A42 * k2[i] + A43 * k3[i]);
  ssw_model_rhs(e, s->t + C_(4) * h, y, k4);
  for (int i = 0; i < 5; i++)
    y[i] = y0[i] + h * (A51 * k1[i] + A52 * k2[i] + A53 * k3[i] + A54 * k4[i]);
  ssw_model_rhs(e, s->t + C_(5) * h, y, k5);
  for (int i = 0; i < 5; i++)
    y[i] = y0[i] + h * (A61 * k1[i] + A62 * k2[i] + A63 * k3[i] + A64 * k4[i] +
                        A65 * k5[i]);
  ssw_model_rhs(e, s->t + C_(6) * h, y, k6);
  double y1[5];
  for (int i = 0; i < 5; i++)
    y1[i] = y0[i] + h * (B1 * k1[i] + B3 * k3[i] + B4 * k4[i] + B5 * k5[i] +
                         B6 * k6[i]);
  ssw_model_rhs(e, s->t + C_(7) * h, y1, k7);
  double er[5];
  for (int i = 0; i < 5; i++)
    er[i] = h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] +
                 E6 * k6[i] + E7 * k7[i]);
  *err = norm(o, er, y0, y1);
  if (f1)
    for (int i = 0; i < 5; i++)
      f1[i] = k7[i];
  out->w = y1[0], out->v = y1[1], out->phi = y1[2], out->x = y1[3];
  out->y = y1[4];
  out->t = s->t + h;
}

/* DOPRI5's controller: h_new = h / fac with
 * fac = err^(1/5 - 0.75 beta) / facold^beta / safe, clamped to
 * [1/fac2, 1/fac1]; no growth right after a rejection. */
int ssw_dopri5_propose(ssw_dopri5_ctl *c, const ssw_dopri5_opts *o, double h,
                       double err, double *h_next) {
  const double expo1 = 0.2 - 0.75 * o->beta;
  const double fac11 = pow(err, expo1);
  double hn;
  int accept;
  if (err <= 1.0) {
    double fac = fac11 / pow(c->facold, o->beta) / o->safe;
    fac = fmax(1.0 / o->fac2, fmin(1.0 / o->fac1, fac));
    hn = h / fac;
    c->facold = fmax(err, 1e-4);
    if (c->rejected) hn = copysign(fmin(fabs(hn), fabs(h)), h);
    c->rejected = 0;
    accept = 1;
  } else {
    hn = h / fmin(1.0 / o->fac1, fac11 / o->safe);
    c->rejected = 1;
    accept = 0;
  }
  if (!isfinite(hn)) hn = h; /* err = NaN: the caller sees the state */
  if (o->hmax > 0 && fabs(hn) > o->hmax) hn = copysign(o->hmax, h);
  *h_next = hn;
  return accept;
}

double ssw_dopri5_initial_step(const ssw_reduced *e, const ssw_dopri5_opts *o,
                               const ssw_ode_state *s, int dir) {
  double y0[5], f0[5], y1[5], f1[5], zero[5] = {0, 0, 0, 0, 0};
  pack(s, y0);
  ssw_model_rhs(e, s->t, y0, f0);
  const double d0 = norm(o, y0, y0, zero), d1 = norm(o, f0, y0, zero);
  double h0 = (d0 < 1e-10 || d1 < 1e-10) ? 1e-6 : 0.01 * d0 / d1;
  if (o->hmax > 0) h0 = fmin(h0, o->hmax);
  for (int i = 0; i < 5; i++)
    y1[i] = y0[i] + dir * h0 * f0[i];
  ssw_model_rhs(e, s->t + dir * h0, y1, f1);
  double df[5];
  for (int i = 0; i < 5; i++)
    df[i] = f1[i] - f0[i];
  const double d2 = norm(o, df, y0, zero) / h0;
  const double dm = fmax(d1, d2);
  const double h1 = dm <= 1e-15 ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / dm, 0.2);
  double h = fmin(100.0 * h0, h1);
  if (o->hmax > 0) h = fmin(h, o->hmax);
  return dir * h;
}

int ssw_dopri5_integrate(const ssw_reduced *e, const ssw_dopri5_opts *o,
                         ssw_ode_state *s, double t_end, long max_steps,
                         long *accepted, long *rejected) {
  SSW_CALL(ssw_dopri5_check(o));
  long na = 0, nr = 0;
  const int dir = t_end >= s->t ? 1 : -1;
  double h = ssw_dopri5_initial_step(e, o, s, dir), f[5], fn[5];
  int have_f = 0;
  ssw_dopri5_ctl c;
  ssw_dopri5_ctl_init(&c);
  int status = SSW_SUCCESS;
  while (dir * (t_end - s->t) > 0) {
    if (na + nr >= max_steps) {
      status = SSW_RAISE(SSW_ERR_NUMERIC,
                         "dopri5: %ld steps did not reach "
                         "t = %g (at %g)",
                         max_steps, t_end, s->t);
      break;
    }
    /* Land on t_end exactly; a nearly full last step is not split. */
    const int last = dir * (s->t + 1.01 * h - t_end) >= 0;
    const double hs = last ? t_end - s->t : h;
    if (fabs(hs) <= 0x1p-52 * fabs(s->t)) {
      status = SSW_RAISE(SSW_ERR_NUMERIC,
                         "dopri5: step size underflow at "
                         "t = %g",
                         s->t);
      break;
    }
    ssw_ode_state next;
    double err, hn;
    ssw_dopri5_step(e, o, s, hs, have_f ? f : NULL, fn, &next, &err);
    if (ssw_dopri5_propose(&c, o, hs, err, &hn)) {
      *s = next;
      if (last) s->t = t_end;
      for (int i = 0; i < 5; i++)
        f[i] = fn[i]; /* first same as last */
      have_f = 1;
      na++;
    } else {
      nr++;
    }
    h = hn;
  }
  if (accepted) *accepted = na;
  if (rejected) *rejected = nr;
  return status;
}
