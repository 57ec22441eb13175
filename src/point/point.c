/* One grid point: tensor, scheme check, regime, closed form, trajectories. */
#include "sleighsweep/point.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sleighsweep/circulation.h"
#include "sleighsweep/damped.h"
#include "sleighsweep/drag.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/stepper.h"

int ssw_point_check(const ssw_body *body, const ssw_params *p,
                    const ssw_method *m, ssw_tensor *t) {
  SSW_CALL(ssw_model_tensor(body, p, t));
  /* The integration is scale-free (docs/theory/step-control.md, "Units"),
   * but the tensor's entries must be numbers of full precision: below
   * SSW_POINT_INERTIA_MIN the couplings L1 and Z (down to 1e-12 of the
   * tensor's scale) would be subnormal. Overflow is refused above. */
  SSW_CHECK(t->J >= SSW_POINT_INERTIA_MIN && t->M >= SSW_POINT_INERTIA_MIN,
            SSW_ERR_BODY,
            "the inertia tensor (J = %g, M = %g) is below %g, where its "
            "entries lose precision in double arithmetic; the results do not "
            "depend on the mass scale: multiply m, I0 and rho by a common "
            "factor (e.g. 1e100)",
            t->J, t->M, SSW_POINT_INERTIA_MIN);
  SSW_CALL(ssw_point_served(t));
  if (!m) return SSW_SUCCESS;
  ssw_coeffs c;
  return ssw_stepper_bind(t, m, &c);
}

int ssw_point_setup(const ssw_body *body, const ssw_params *p, double zero_tol,
                    const ssw_method *m, ssw_point *pt) {
  pt->params = *p;
  SSW_CALL(ssw_point_check(body, p, m, &pt->tensor));
  ssw_model_classify(&pt->tensor, zero_tol, &pt->tensor, &pt->regime);
  /* Only a zero_tol below 1e-12 keeps couplings this small. */
  const double L1 = fabs(pt->tensor.L1), Z = fabs(pt->tensor.Z);
  SSW_CHECK((L1 == 0 || L1 >= DBL_MIN) && (Z == 0 || Z >= DBL_MIN),
            SSW_ERR_BODY,
            "L1 = %g or Z = %g is a subnormal number (below %g), which "
            "carries few digits; raise zero_tol (%g) so that it counts as 0, "
            "or multiply m, I0 and rho by a common factor",
            pt->tensor.L1, pt->tensor.Z, DBL_MIN, zero_tol);
  SSW_CALL(ssw_analytic_compute(&pt->tensor, pt->regime, &pt->analytic));
  if (!ssw_point_closed_form(pt)) {
    /* The 2010 closed form assumes no circulation torque: no twin rather
     * than a wrong one (the tensor's constants stay). */
    ssw_analytic *an = &pt->analytic;
    an->radius = an->d = an->dphi_abs = NAN;
    an->loops = -1;
    an->sense_future = 0;
  }
  return SSW_SUCCESS;
}

void ssw_point_set_energy(ssw_point *pt, double H) {
  const double kappa = pt->tensor.kappa;
  const double gm =
      sqrt(2.0 * H * ssw_model_E(&pt->tensor) / ssw_model_D(&pt->tensor));
  if ((ssw_model_caps(&pt->tensor) & SSW_MCAP_CIRC_CLOSED_FORM) &&
      fabs(kappa) >= gm)
    pt->analytic.regime = SSW_REGIME_PERIODIC;
}

/* One arc's transition angle and centre spacing (above H_c). */
static void arc_twins(const ssw_tensor *t, double H, int arc, double *dphi,
                      double *d) {
  ssw_circ_orbit o;
  double past[2], future[2];
  *dphi = *d = NAN;
  if (ssw_circ_orbit_level(t, t->kappa, H, arc, &o) != SSW_SUCCESS) return;
  *dphi = o.lv.dphi;
  if (ssw_circ_orbit_centres(&o, past, future, d) != SSW_SUCCESS) *d = NAN;
}

void ssw_point_circulation(const ssw_point *pt, double H, ssw_point_circ *out) {
  const ssw_tensor *t = &pt->tensor;
  *out = (ssw_point_circ){.Hc = ssw_model_critical_energy(t)};
  out->period = out->heading_per_period = out->drift_per_period = NAN;
  out->orbit_radius = out->dphi_up = out->dphi_down = NAN;
  out->d_up = out->d_down = out->r_past = out->r_future = NAN;
  ssw_circ_level lv;
  if (!(ssw_model_caps(t) & SSW_MCAP_CIRC_CLOSED_FORM) ||
      ssw_circ_level_compute(t, t->kappa, H, 1, &lv) != SSW_SUCCESS) {
    ssw_error_clear();
    return;
  }
  if (lv.kind == SSW_CIRC_PERIODIC) {
    out->period = lv.period;
    out->heading_per_period = lv.dphi_period;
    ssw_circ_orbit o;
    double zx, zy;
    if (ssw_circ_orbit_level(t, t->kappa, H, 1, &o) == SSW_SUCCESS &&
        ssw_circ_orbit_period(&o, &zx, &zy, &out->orbit_radius) == SSW_SUCCESS)
      out->drift_per_period = hypot(zx, zy);
  } else if (lv.kind == SSW_CIRC_HETEROCLINIC) {
    out->r_past = lv.r_past, out->r_future = lv.r_future;
    arc_twins(t, H, 1, &out->dphi_up, &out->d_up);
    arc_twins(t, H, -1, &out->dphi_down, &out->d_down);
  }
  ssw_error_clear();
}

int ssw_point_closed_form(const ssw_point *pt) {
  /* Drag leaves no limit circle (its twins are drag.h's), circulation's
   * torque moves the line of equilibria (its twins are circulation.h's). */
  return (ssw_model_caps(&pt->tensor) & SSW_MCAP_CLOSED_FORM_2010) != 0;
}

/* A trajectory without limits at t -> +-inf (damped, forced): every
 * asymptotic quantity NaN. */
static void traj_absent(ssw_traj *r) {
  double *nan[] = {&r->rate,
                   &r->t0,
                   &r->w_past,
                   &r->v_past,
                   &r->w_future,
                   &r->v_future,
                   &r->r_past,
                   &r->r_future,
                   &r->center_past[0],
                   &r->center_past[1],
                   &r->center_future[0],
                   &r->center_future[1],
                   &r->d,
                   &r->dphi,
                   &r->blade_force_max,
                   &r->t_past,
                   &r->err_d,
                   &r->err_dphi,
                   &r->err_r,
                   &r->err_t0,
                   &r->err_center,
                   &r->err_blade,
                   &r->blade_terms,
                   &r->t0_step,
                   &r->period,
                   &r->heading_per_period,
                   &r->drift_per_period,
                   &r->orbit_radius,
                   &r->err_period,
                   &r->err_heading_period,
                   &r->err_drift,
                   &r->err_orbit};
  for (size_t i = 0; i < sizeof nan / sizeof nan[0]; i++)
    *nan[i] = NAN;
  r->tail = r->roundoff = (ssw_err_parts){NAN, NAN, NAN, NAN, NAN, NAN};
  r->resonance = -1;
}

/* A damped trajectory as an ssw_traj: it has no limits at t -> +-inf,
 * so every asymptotic quantity is NaN; the work, the flags, the loops
 * (full turns of the heading) and the energy balance carry over. */
static void damped_traj(const ssw_damped *d, int regime, ssw_traj *r) {
  *r = (ssw_traj){.regime = regime, .H0 = d->H0, .h = d->h, .eps = d->eps};
  traj_absent(r);
  r->loops = d->loops;
  r->energy_error = d->energy_error;
  r->steps = d->steps;
  r->t_future = d->t_end;
  r->converged = d->converged;
  r->flags = d->flags;
  r->refinements = d->refinements;
  r->heading_total = d->heading_total;
  r->rest_x = d->rest_x, r->rest_y = d->rest_y;
  r->rest_distance = d->rest_distance;
  r->path_length = d->path_length;
  r->decay_rate = d->decay_rate, r->decay_freq = d->decay_freq;
  r->settle_time = d->t_settle;
  r->approach = d->approach;
  r->err_heading_total = d->err_heading, r->err_rest = d->err_rest;
  r->err_path = d->err_path, r->err_decay = d->err_decay;
}

/* The limit circles' and the periodic motion's pipeline (extract.c):
 * each trajectory's energy against H_c decides which it is. */
static int run_extract(const ssw_point *pt, int n, const double *w0,
                       const double *v0, const ssw_integrator *o,
                       ssw_sample_fn sample, void *const *ctx, ssw_traj *out) {
  return ssw_extract_batch(&pt->tensor, pt->regime, n, w0, v0, o, sample, ctx,
                           out);
}

/* Forward only, to rest (damped.c). */
static int run_rest(const ssw_point *pt, int n, const double *w0,
                    const double *v0, const ssw_integrator *o,
                    ssw_sample_fn sample, void *const *ctx, ssw_traj *out) {
  ssw_damped d[16];
  for (int start = 0; start < n; start += 16) {
    const int m = n - start < 16 ? n - start : 16;
    SSW_CALL(ssw_damped_batch(&pt->tensor, m, w0 + start, v0 + start, o, sample,
                              ctx ? ctx + start : NULL, d));
    for (int i = 0; i < m; i++)
      damped_traj(&d[i], pt->regime, &out[start + i]);
  }
  return SSW_SUCCESS;
}

/* A forced trajectory's measurements, errors and closed forms in the
 * sweep's order (names.h SSW_FORCED_QUANTITIES). */
#define FQ_MEASURED_(id, index, name, units, long_name, measured, ...)         \
  r->forced[index] = f->q.measured, r->err_forced[index] = f->err.measured;
#define FQ_CLOSED_TWIN(closed) a.closed
#define FQ_CLOSED_NO_TWIN(closed) NAN
#define FQ_CLOSED_(id, index, name, units, long_name, measured, twin, closed)  \
  r->x_forced[index] = FQ_CLOSED_##twin(closed);
static void forced_values(const ssw_tensor *t, const ssw_forced *f,
                          ssw_traj *r) {
  ssw_forced_closed a;
  ssw_forced_closed_form(t, f, &a);
  SSW_FORCED_QUANTITIES(FQ_MEASURED_)
  SSW_FORCED_QUANTITIES(FQ_CLOSED_)
  r->x_floquet_product = a.floquet_product;
  r->attractor = f->attractor;
  r->cycle_periods = f->cycle_periods;
  r->lyapunov_2 = f->q.lyapunov[1], r->err_lyapunov_2 = f->err.lyapunov[1];
  memcpy(r->cycle_pts, f->cycle_pts, sizeof r->cycle_pts);
}

/* A sample trajectory of a forced point: its period map's points (the
 * path's section nodes, t = kT after the first), passed on as samples. */
typedef struct {
  ssw_sample_fn sample;
  void *ctx;
} section;

static void section_node(void *ctx, const double q[SSW_FORCED_PATH_NQ],
                         const double avg[2]) {
  const section *s = ctx;
  if (avg) s->sample(s->ctx, 1, q[0], q[1], q[2], q[3], q[4], q[5], q[6]);
}

/* A forced trajectory (forced.c) as an ssw_traj: its work, flags and
 * convergence, and its attractor's measurements with their closed forms
 * (the sweep's datasets; `point` prints forced.h's whole record); a sample
 * trajectory (ctx[i] set) also records its Poincare section: the path
 * `point --trajectory` writes, at the run's steps, its periods' ends. */
static int run_forced(const ssw_point *pt, int n, const double *w0,
                      const double *v0, const ssw_integrator *o,
                      ssw_sample_fn sample, void *const *ctx, ssw_traj *out) {
  for (int i = 0; i < n; i++) {
    ssw_forced f;
    SSW_CALL(ssw_forced_run(&pt->tensor, w0[i], v0[i], o, &f));
    if (sample && ctx && ctx[i]) {
      section sec = {sample, ctx[i]};
      SSW_CALL(ssw_forced_path(&pt->tensor, w0[i], v0[i], o, f.steps_per_period,
                               ssw_forced_path_periods(&f), section_node,
                               &sec));
    }
    SSW_CALL(ssw_forced_lyapunov_sweep(&pt->tensor, o, &f));
    ssw_traj *r = &out[i];
    *r = (ssw_traj){.regime = pt->regime, .H0 = f.H0, .h = f.period};
    traj_absent(r);
    ssw_traj_no_rest(r);
    r->h = f.period / f.steps_per_period;
    r->steps = f.steps;
    r->converged = f.converged;
    r->flags = f.flags;
    r->refinements = f.refinements;
    r->loops = -1;
    r->t_future = f.period * f.transient_periods;
    forced_values(&pt->tensor, &f, r);
  }
  return SSW_SUCCESS;
}

#define CIRCLING                                                               \
  (SSW_MCAP_AUTONOMOUS | SSW_MCAP_CONSERVATIVE | SSW_MCAP_EQUILIBRIA_LINE)
static const ssw_extractor extractors[] = {
    {"limit_circles",
     "both ends of the motion on limit circles (or lines) of the line of "
     "equilibria",
     CIRCLING,
     "regime r_past r_future center_past center_future d dphi loops "
     "sense_past sense_future t0 rate blade_force_max arc",
     run_extract},
    {"periodic",
     "the reduced motion periodic about the line of equilibria below H_c "
     "(the same pipeline: each trajectory's energy decides)",
     CIRCLING,
     "period heading_per_period drift_per_period orbit_radius resonance",
     run_extract},
    {"rest", "forward only, to rest: the energy falls to zero",
     SSW_MCAP_AUTONOMOUS | SSW_MCAP_COMES_TO_REST,
     "heading_total rest_x rest_y rest_distance path_length decay_rate "
     "decay_freq settle_time approach",
     run_rest},
    {"forced",
     "forward only, the period (stroboscopic) map of a periodic forcing: "
     "a cycle of n <= 8 periods, unbounded growth, or unresolved",
     SSW_MCAP_TIME_PERIODIC,
     "attractor cycle_periods mean_omega mean_v mean_power mean_path_radius "
     "floquet_abs floquet_arg energy_growth_slope",
     run_forced},
};

const ssw_extractor *ssw_extractor_table(int *count) {
  *count = (int)(sizeof extractors / sizeof extractors[0]);
  return extractors;
}

const ssw_extractor *ssw_extractor_for(const ssw_tensor *t) {
  const unsigned caps = ssw_model_caps(t);
  for (size_t i = 0; i < sizeof extractors / sizeof extractors[0]; i++)
    if ((extractors[i].needs & ~caps) == 0) return &extractors[i];
  return NULL;
}

int ssw_point_served(const ssw_tensor *t) {
  if (ssw_extractor_for(t)) return SSW_SUCCESS;
  const unsigned caps = ssw_model_caps(t);
  char why[768], missing[256];
  size_t used = 0;
  why[0] = '\0';
  for (size_t i = 0; i < sizeof extractors / sizeof extractors[0]; i++) {
    const unsigned lack = extractors[i].needs & ~caps;
    const ssw_effect *by = ssw_effect_lacking(t, lack);
    ssw_model_caps_text(lack, missing, sizeof missing);
    if (used < sizeof why)
      used += (size_t)snprintf(
          why + used, sizeof why - used, "%s%s needs %s (%s%s)",
          used ? "; " : "", extractors[i].name, missing,
          by ? "taken by the effect " : "given by no effect",
          by ? by->name : " that is on");
  }
  return SSW_RAISE(SSW_ERR_BODY,
                   "no extractor can measure this model's motions: %s", why);
}

int ssw_point_trajectories(const ssw_point *pt, int n, const double *w0,
                           const double *v0, const ssw_integrator *o,
                           ssw_sample_fn sample, void *const *ctx,
                           ssw_traj *out) {
  const ssw_extractor *x = ssw_extractor_for(&pt->tensor);
  SSW_CHECK(x != NULL, SSW_ERR_BODY, "no extractor serves this point");
  return x->run(pt, n, w0, v0, o, sample, ctx, out);
}

double ssw_point_blade_bound(const ssw_point *pt) {
  double fa = NAN;
  if (!(ssw_model_caps(&pt->tensor) & SSW_MCAP_BLADE_CLOSED_FORM)) return NAN;
  if (ssw_analytic_blade_force_max(&pt->tensor, pt->regime, 1, &fa) != 0)
    ssw_error_clear(), fa = NAN;
  return fa;
}
