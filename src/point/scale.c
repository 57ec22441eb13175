/* Scale-free integration: units of mass, length and time in powers of two
 * (docs/theory/step-control.md, "Units"). */
#include "scale.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sleighsweep/effect.h"

/* The double at byte `offset` of a struct, rescaled in place (memcpy: no
 * pointer cast between the struct's bytes and a double). */
static void rescale_at(void *base, const ssw_field_dim *f, int m, int l, int k,
                       int dir);

/* x in units 2^m, 2^l, 2^-k of mass, length and time back in the caller's
 * (dir = 1) or the caller's in those units (dir = -1): exact. */
static double rescale(double x, const ssw_field_dim *f, int m, int l, int k,
                      int dir) {
  return ldexp(x, dir * (f->mass * m + f->length * l - f->time * k));
}

static void rescale_at(void *base, const ssw_field_dim *f, int m, int l, int k,
                       int dir) {
  double x;
  memcpy(&x, (char *)base + f->offset, sizeof x);
  x = rescale(x, f, m, l, k, dir);
  memcpy((char *)base + f->offset, &x, sizeof x);
}

void ssw_units_body(const ssw_tensor *t, ssw_units *u, ssw_tensor *s) {
  /* An even mass exponent keeps the square roots of the energy ellipse
   * exact (ssw_extract_energy_point); truncation toward zero lets a body
   * with M in [1, 4) and J in [M / 2, 4 M) keep its units (the seed case). */
  u->mass = ilogb(t->M);
  u->mass -= u->mass & 1;
  u->len = (ilogb(t->J) - u->mass) / 2;
  /* An effect whose constants carry a time (circulation's lift, drag's
   * rate) fixes the time unit: every trajectory of the body shares the
   * scaled tensor, which then depends on the energy. */
  int k = 0;
  u->fixed = ssw_effect_time_unit(t, u->mass, u->len, &k);
  u->speed = u->fixed ? k : 0;
  /* The whole tensor, then every field an effect declares in the units. */
  *s = *t;
  int n;
  const ssw_effect *e = ssw_effect_table(&n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < e[i].n_fields; j++) {
      rescale_at(s, &e[i].fields[j], u->mass, u->len, u->speed, -1);
    }
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

/* Every field of a trajectory's result: its dimension (the doubles) or
 * that it is an integer count or code (size 4 or 8, never scaled). The
 * scale test checks that these cover ssw_traj whole. */
#define TD(f, mass, len, time)                                                 \
  { {#f, offsetof(ssw_traj, f), mass, len, time}, sizeof(double), 1 }
#define TI(f)                                                                  \
  { {#f, offsetof(ssw_traj, f), 0, 0, 0}, sizeof(((ssw_traj *)0)->f), 0 }
#define PARTS(p)                                                               \
  TD(p.d, 0, 1, 0), TD(p.dphi, 0, 0, 0), TD(p.r, 0, 1, 0), TD(p.t0, 0, 0, 1),  \
      TD(p.center, 0, 1, 0), TD(p.blade, 0, -1, 0)
/* The forced quantities (names.h SSW_FORCED_QUANTITIES, in its order):
 * mean_omega, mean_v, mean_power, mean_path_radius, the two moduli,
 * energy_growth_slope, lyapunov_max. The forced extractor runs in the
 * body's units (no rescaling reaches it); declared all the same. */
_Static_assert(SSW_FQ_N == 8, "a forced quantity's dimension below");
#define FQ_DIMS(a)                                                             \
  TD(a[0], 0, 0, -1), TD(a[1], 0, 1, -1), TD(a[2], 1, 2, -3),                  \
      TD(a[3], 0, 1, 0), TD(a[4], 0, 0, 0), TD(a[5], 0, 0, 0),                 \
      TD(a[6], 0, 0, -4), TD(a[7], 0, 0, -1)
/* A cycle point on the section: (omega, v). */
#define CYCLE_PT(k) TD(cycle_pts[k][0], 0, 0, -1), TD(cycle_pts[k][1], 0, 1, -1)
static const ssw_traj_field traj_fields[] = {TI(regime),
                                             TD(H0, 1, 2, -2),
                                             TD(rate, 0, 0, -1),
                                             TD(h, 0, 0, 1),
                                             TD(eps, 0, 0, 0),
                                             TD(rtol, 0, 0, 0),
                                             TD(t0, 0, 0, 1),
                                             TD(w_past, 0, 0, -1),
                                             TD(v_past, 0, 1, -1),
                                             TD(w_future, 0, 0, -1),
                                             TD(v_future, 0, 1, -1),
                                             TD(r_past, 0, 1, 0),
                                             TD(r_future, 0, 1, 0),
                                             TD(center_past[0], 0, 1, 0),
                                             TD(center_past[1], 0, 1, 0),
                                             TD(center_future[0], 0, 1, 0),
                                             TD(center_future[1], 0, 1, 0),
                                             TD(d, 0, 1, 0),
                                             TI(sense_past),
                                             TI(sense_future),
                                             TD(dphi, 0, 0, 0),
                                             TI(loops),
                                             TD(energy_error, 0, 0, 0),
                                             TD(blade_force_max, 0, -1, 0),
                                             TI(steps),
                                             TD(t_past, 0, 0, 1),
                                             TD(t_future, 0, 0, 1),
                                             TI(converged),
                                             TI(flags),
                                             TD(err_d, 0, 1, 0),
                                             TD(err_dphi, 0, 0, 0),
                                             TD(err_r, 0, 1, 0),
                                             TD(err_t0, 0, 0, 1),
                                             TD(err_center, 0, 1, 0),
                                             TD(err_blade, 0, -1, 0),
                                             PARTS(tail),
                                             PARTS(roundoff),
                                             TD(blade_terms, 0, -1, 0),
                                             TD(t0_step, 0, 0, 1),
                                             TD(t0_dphi, 0, 0, 0),
                                             TD(tol, 0, 0, 0),
                                             TI(refinements),
                                             TI(arc),
                                             TI(periodic),
                                             TI(resonance),
                                             TD(period, 0, 0, 1),
                                             TD(heading_per_period, 0, 0, 0),
                                             TD(drift_per_period, 0, 1, 0),
                                             TD(orbit_radius, 0, 1, 0),
                                             TD(err_period, 0, 0, 1),
                                             TD(err_heading_period, 0, 0, 0),
                                             TD(err_drift, 0, 1, 0),
                                             TD(err_orbit, 0, 1, 0),
                                             TD(heading_total, 0, 0, 0),
                                             TD(rest_x, 0, 1, 0),
                                             TD(rest_y, 0, 1, 0),
                                             TD(rest_distance, 0, 1, 0),
                                             TD(path_length, 0, 1, 0),
                                             TD(decay_rate, 0, 0, -1),
                                             TD(decay_freq, 0, 0, -1),
                                             TD(settle_time, 0, 0, 1),
                                             TI(approach),
                                             TD(err_heading_total, 0, 0, 0),
                                             TD(err_rest, 0, 1, 0),
                                             TD(err_path, 0, 1, 0),
                                             TD(err_decay, 0, 0, -1),
                                             TI(attractor),
                                             TI(cycle_periods),
                                             FQ_DIMS(forced),
                                             FQ_DIMS(err_forced),
                                             FQ_DIMS(x_forced),
                                             TD(x_floquet_product, 0, 0, 0),
                                             TD(lyapunov_2, 0, 0, -1),
                                             TD(err_lyapunov_2, 0, 0, -1),
                                             CYCLE_PT(0),
                                             CYCLE_PT(1),
                                             CYCLE_PT(2),
                                             CYCLE_PT(3),
                                             CYCLE_PT(4),
                                             CYCLE_PT(5),
                                             CYCLE_PT(6),
                                             CYCLE_PT(7)};

const ssw_traj_field *ssw_units_traj_fields(int *count) {
  *count = (int)(sizeof traj_fields / sizeof traj_fields[0]);
  return traj_fields;
}

void ssw_units_result(const ssw_units *u, ssw_traj *r) {
  for (size_t i = 0; i < sizeof traj_fields / sizeof traj_fields[0]; i++) {
    const ssw_traj_field *f = &traj_fields[i];
    if (!f->is_double) continue;
    rescale_at(r, &f->dim, u->mass, u->len, u->speed, 1);
  }
}

void ssw_units_sample_fn(void *ctx, int dir, double t, double phi, double x,
                         double y, double w, double v, double H) {
  const ssw_units_sample *s = ctx;
  const int l = s->u.len, k = s->u.speed;
  s->fn(s->ctx, dir, ldexp(t, -k), phi, ldexp(x, l), ldexp(y, l), ldexp(w, k),
        ldexp(v, l + k), ldexp(H, s->u.mass + 2 * l + 2 * k));
}
