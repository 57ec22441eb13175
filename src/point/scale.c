/* Scale-free integration: units of mass, length and time in powers of two
 * (docs/theory/step-control.md, "Units"). */
#include "scale.h"

#include <math.h>

void ssw_units_body(const ssw_tensor *t, ssw_units *u, ssw_tensor *s) {
  /* An even mass exponent keeps the square roots of the energy ellipse
   * exact (ssw_extract_energy_point); truncation toward zero lets a body
   * with M in [1, 4) and J in [M / 2, 4 M) keep its units (the seed case). */
  u->mass = ilogb(t->M);
  u->mass -= u->mass & 1;
  u->len = (ilogb(t->J) - u->mass) / 2;
  u->speed = 0;
  const int m = u->mass, l = u->len;
  s->J = ldexp(t->J, -m - 2 * l);
  s->M = ldexp(t->M, -m);
  s->N = ldexp(t->N, -m);
  s->Z = ldexp(t->Z, -m);
  s->L1 = ldexp(t->L1, -m - l);
  s->L2 = ldexp(t->L2, -m - l);
  /* kappa v is a torque (kappa: mass length / time), lift v and lift_s w
   * are forces (mass / time and mass length / time). */
  /* Drag has a time scale of its own as well (C / K: 1 / time). */
  const int drag = t->cw != 0.0 || t->cv != 0.0 || t->cwv != 0.0;
  u->fixed = t->kappa != 0.0 || t->lift != 0.0 || drag;
  const int k = t->kappa != 0.0  ? ilogb(t->kappa) - m - l
                : t->lift != 0.0 ? ilogb(t->lift) - m
                : drag           ? ilogb(t->cw / t->J + t->cv / t->M)
                                 : 0;
  u->speed = u->fixed ? k : 0;
  s->kappa = ldexp(t->kappa, -m - l - u->speed);
  s->lift = ldexp(t->lift, -m - u->speed);
  s->lift_s = ldexp(t->lift_s, -m - l - u->speed);
  /* cw: mass length^2 / time, cv: mass / time, cwv: mass length / time. */
  s->cw = ldexp(t->cw, -m - 2 * l - u->speed);
  s->cv = ldexp(t->cv, -m - u->speed);
  s->cwv = ldexp(t->cwv, -m - l - u->speed);
}

void ssw_units_state(ssw_units *u, const ssw_tensor *s, double w, double v,
                     double *ws, double *vs) {
  if (u->fixed) {
    *ws = ldexp(w, -u->speed);
    *vs = ldexp(v, -u->len - u->speed);
    return;
  }
  /* The energy in the body's units, s^2 H(w / s, v / s) with s = 2^p,
   * known by its exponent without forming it (it may leave the range). */
  const double vl = ldexp(v, -u->len);
  const int p = ilogb(fmax(fabs(w), fabs(vl)));
  const double a = ldexp(w, -p), b = ldexp(vl, -p);
  const double h = SSW_MODEL_ENERGY(s, a, b);
  const int speed = (2 * p + ilogb(h)) / 2;
  *ws = ldexp(w, -speed);
  *vs = ldexp(vl, -speed);
  u->speed = speed;
}

/* Error parts: lengths, angles, times, forces per energy. */
static void parts(ssw_err_parts *p, int l, int k) {
  p->d = ldexp(p->d, l), p->r = ldexp(p->r, l);
  p->center = ldexp(p->center, l);
  p->t0 = ldexp(p->t0, -k);
  p->blade = ldexp(p->blade, -l);
}

void ssw_units_result(const ssw_units *u, ssw_traj *r) {
  const int l = u->len, k = u->speed;
  r->H0 = ldexp(r->H0, u->mass + 2 * l + 2 * k);
  r->rate = ldexp(r->rate, k);
  r->h = ldexp(r->h, -k);
  r->t0 = ldexp(r->t0, -k);
  r->t_past = ldexp(r->t_past, -k), r->t_future = ldexp(r->t_future, -k);
  r->err_t0 = ldexp(r->err_t0, -k);
  r->t0_step = ldexp(r->t0_step, -k);
  r->period = ldexp(r->period, -k);
  r->err_period = ldexp(r->err_period, -k);
  r->w_past = ldexp(r->w_past, k), r->w_future = ldexp(r->w_future, k);
  r->v_past = ldexp(r->v_past, l + k), r->v_future = ldexp(r->v_future, l + k);
  double *len[] = {&r->r_past,
                   &r->r_future,
                   &r->center_past[0],
                   &r->center_past[1],
                   &r->center_future[0],
                   &r->center_future[1],
                   &r->d,
                   &r->err_d,
                   &r->err_r,
                   &r->err_center,
                   &r->drift_per_period,
                   &r->orbit_radius,
                   &r->err_drift,
                   &r->err_orbit};
  for (size_t i = 0; i < sizeof len / sizeof len[0]; i++)
    *len[i] = ldexp(*len[i], l);
  r->blade_force_max = ldexp(r->blade_force_max, -l);
  r->err_blade = ldexp(r->err_blade, -l);
  r->blade_terms = ldexp(r->blade_terms, -l);
  parts(&r->tail, l, k);
  parts(&r->roundoff, l, k);
}

void ssw_units_sample_fn(void *ctx, int dir, double t, double phi, double x,
                         double y, double w, double v, double H) {
  const ssw_units_sample *s = ctx;
  const int l = s->u.len, k = s->u.speed;
  s->fn(s->ctx, dir, ldexp(t, -k), phi, ldexp(x, l), ldexp(y, l), ldexp(w, k),
        ldexp(v, l + k), ldexp(H, s->u.mass + 2 * l + 2 * k));
}
