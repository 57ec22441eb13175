/* GSL's adaptive steppers (and Boost.odeint's Bulirsch-Stoer,
 * bench_odeint.h, and the pairs DOP853 and Vern9, bench_rk.h) as the
 * benchmark's references, on the engine's own equations (ssw_model_rhs), each
 * leg ended by the engine's stopping threshold (ssw_extract_gstop) and the two
 * legs completed by the engine's limits, tail and centres (ssw_extract_finish):
 * only the integrator differs from the engine's runs. Shared by bench_quick.c
 * and bench_kernels.c. */
#ifndef SSW_BENCH_GSL_H
#define SSW_BENCH_GSL_H

#include <gsl/gsl_odeiv2.h>

#include "sleighsweep/extract.h"

struct bench_odeint;
struct bench_rk;

/* One reference integrator's workspace (5 components: w, v, phi, x, y):
 * a GSL stepper type, Boost.odeint's Bulirsch-Stoer (bs set, the GSL
 * members NULL) or one of bench_rk.h's pairs (rk set, the others NULL). */
typedef struct {
  const gsl_odeiv2_step_type *T;
  gsl_odeiv2_step *s;
  gsl_odeiv2_control *c;
  gsl_odeiv2_evolve *e;
  struct bench_odeint *bs;
  struct bench_rk *rk;
} bench_gsl;

/* Allocates the workspace of stepper type T; 0 on success. */
int bench_gsl_init(bench_gsl *g, const gsl_odeiv2_step_type *T);
/* Allocates a Bulirsch-Stoer workspace (Boost.odeint); -1 when the
 * benchmark was built without Boost or out of memory. */
int bench_gsl_init_bs(bench_gsl *g);
/* Allocates a workspace of bench_rk.h's pair `kind` (BENCH_RK_*); -1
 * when out of memory. */
int bench_gsl_init_rk(bench_gsl *g, int kind);
void bench_gsl_free(bench_gsl *g);

/* One trajectory of the tensor of c (regime) from (w0, v0) at rtol = atol =
 * eps,
 * the stopping threshold and extraction of the settings o; each leg starts
 * with the engine's fixed step of eta = 0.1 and fails after `cap` accepted
 * steps. *nfev (may be NULL) gets the right-hand-side evaluations. Returns
 * 1 when a leg hit the cap, else 0. */
int bench_gsl_traj(bench_gsl *g, const ssw_coeffs *c, int regime,
                   const ssw_integrator *o, double w0, double v0, double eps,
                   long cap, ssw_traj *out, long *nfev);

#endif
