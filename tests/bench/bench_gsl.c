/* Reference runs of the benchmark: GSL, Boost.odeint's Bulirsch-Stoer
 * and the pairs of bench_rk.h (bench_gsl.h). */
#include "bench_gsl.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

#include "bench_odeint.h"
#include "bench_rk.h"
#include "sleighsweep/ode.h"
#include "sleighsweep/stepper.h"

_Static_assert(BENCH_ODEINT_DIM == SSW_ODE_DIM, "odeint's state is ours");

int bench_gsl_init(bench_gsl *g, const gsl_odeiv2_step_type *T) {
  g->T = T;
  g->s = gsl_odeiv2_step_alloc(T, SSW_ODE_DIM);
  g->c = gsl_odeiv2_control_standard_new(1e-6, 1e-6, 1.0, 0.0);
  g->e = gsl_odeiv2_evolve_alloc(SSW_ODE_DIM);
  return g->s && g->c && g->e ? 0 : -1;
}

int bench_gsl_init_bs(bench_gsl *g) {
  memset(g, 0, sizeof *g);
#ifdef SSW_BENCH_HAVE_ODEINT
  g->bs = bench_odeint_create();
  return g->bs ? 0 : -1;
#else
  return -1;
#endif
}

int bench_gsl_init_rk(bench_gsl *g, int kind) {
  memset(g, 0, sizeof *g);
  g->rk = bench_rk_create(kind);
  return g->rk ? 0 : -1;
}

void bench_gsl_free(bench_gsl *g) {
  if (g->rk) bench_rk_destroy(g->rk);
#ifdef SSW_BENCH_HAVE_ODEINT
  if (g->bs) bench_odeint_destroy(g->bs);
#endif
  if (g->e) gsl_odeiv2_evolve_free(g->e);
  if (g->c) gsl_odeiv2_control_free(g->c);
  if (g->s) gsl_odeiv2_step_free(g->s);
  memset(g, 0, sizeof *g);
}

typedef struct {
  const ssw_coeffs *c;
  long nfev;
} rhs_ctx;

/* The engine's right-hand side, counted. */
static int rhs(double t, const double y[], double f[], void *params) {
  rhs_ctx *r = params;
  r->nfev++;
  ssw_model_rhs(&r->c->e, t, y, f);
  return GSL_SUCCESS;
}

#ifdef SSW_BENCH_HAVE_ODEINT
static void rhs_bs(const double *y, double *f, void *ctx) {
  (void)rhs(0.0, y, f, ctx);
}
#endif

/* One accepted step of the workspace's integrator; 0 on success. */
static int step(bench_gsl *g, gsl_odeiv2_system *sys, int dir, double *t,
                double *h, double y[SSW_ODE_DIM]) {
  if (g->rk) {
    rhs_ctx *r = sys->params;
    return bench_rk_step(g->rk, &r->c->e, t, h, y, &r->nfev);
  }
#ifdef SSW_BENCH_HAVE_ODEINT
  if (g->bs) return bench_odeint_step(g->bs, rhs_bs, sys->params, t, h, y);
#endif
  return gsl_odeiv2_evolve_apply(g->e, g->c, g->s, sys, t, dir * 1e30, h, y) ==
                 GSL_SUCCESS
             ? 0
             : -1;
}

/* Starts a leg at rtol = atol = eps. */
static void start(bench_gsl *g, double eps) {
  if (g->rk) {
    bench_rk_reset(g->rk, eps);
    return;
  }
#ifdef SSW_BENCH_HAVE_ODEINT
  if (g->bs) {
    bench_odeint_reset(g->bs, eps);
    return;
  }
#endif
  gsl_odeiv2_step_reset(g->s);
  gsl_odeiv2_evolve_reset(g->e);
  gsl_odeiv2_control_init(g->c, eps, eps, 1.0, 0.0);
}

/* One direction until |L1 w + Z v| <= gstop; the peak of |g| (ht = 0) by
 * linear interpolation (d does not depend on it). */
static void leg(bench_gsl *g, rhs_ctx *ctx, double w0, double v0, int dir,
                double eps, double gstop, double h0, long cap, ssw_leg_end *r) {
  const ssw_coeffs *c = ctx->c;
  gsl_odeiv2_system sys = {rhs, NULL, SSW_ODE_DIM, ctx};
  start(g, eps);
  double y[SSW_ODE_DIM] = {w0, v0, 0, 0, 0}, t = 0, h = dir * h0;
  double ht = ssw_model_ht(&c->e, w0, v0);
  memset(r, 0, sizeof *r);
  r->converged = 1;
  while (fabs(ssw_model_g(&c->e, y[0], y[1])) > gstop) {
    const double tp = t, htp = ht;
    if (r->steps >= cap || step(g, &sys, dir, &t, &h, y) != 0 ||
        !isfinite(y[3]) || !isfinite(y[4])) {
      r->converged = 0;
      break;
    }
    r->steps++;
    ht = ssw_model_ht(&c->e, y[0], y[1]);
    if (!r->found_peak && dir * htp > 0 && dir * ht <= 0) {
      r->found_peak = 1;
      r->t_peak = tp + (t - tp) * htp / (htp - ht);
    }
  }
  r->t = t, r->w = y[0], r->v = y[1], r->phi = y[2], r->x = y[3];
  r->y = y[4];
}

int bench_gsl_traj(bench_gsl *g, const ssw_coeffs *c, int regime,
                   const ssw_integrator *o, double w0, double v0, double eps,
                   long cap, ssw_traj *out, long *nfev) {
  const ssw_tensor *t = &c->t;
  rhs_ctx ctx = {c, 0};
  const double H = ssw_model_energy(&c->e, w0, v0);
  const double gstop = ssw_extract_gstop(t, H, o);
  const double h0 = ssw_extract_fixed_step(t, H, 0.1);
  ssw_leg_end f, b;
  leg(g, &ctx, w0, v0, 1, eps, gstop, h0, cap, &f);
  leg(g, &ctx, w0, v0, -1, eps, gstop, h0, cap, &b);
  ssw_extract_finish(t, regime, w0, v0, o, &f, &b, out);
  if (nfev) *nfev = ctx.nfev;
  return f.steps >= cap || b.steps >= cap;
}
