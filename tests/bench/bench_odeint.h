/* Boost.odeint's Bulirsch-Stoer as a reference integrator of the benchmark
 * (bench_odeint.cpp, C++ only inside the benchmark): one accepted adaptive
 * step at a time, the way bench_gsl.c drives gsl_odeiv2_evolve_apply, so
 * that both references share the engine's equations, stopping rule and
 * extraction. Built only when CMake finds Boost (SSW_BENCH_HAVE_ODEINT). */
#ifndef SSW_BENCH_ODEINT_H
#define SSW_BENCH_ODEINT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Components of the integrated state (w, v, phi, x, y): SSW_ODE_DIM. */
#define BENCH_ODEINT_DIM 5

/* f = y' at y (no time dependence); ctx is the caller's. */
typedef void (*bench_ode_fn)(const double *y, double *f, void *ctx);

typedef struct bench_odeint bench_odeint;

/* A Bulirsch-Stoer stepper; NULL when out of memory. */
bench_odeint *bench_odeint_create(void);
void bench_odeint_destroy(bench_odeint *b);

/* Starts a leg at rtol = atol = eps on the state alone (odeint's
 * factor_x = 1, factor_dxdt = 0: GSL's standard control with a_y = 1,
 * a_dydt = 0), forgetting the previous leg's order and step. */
void bench_odeint_reset(bench_odeint *b, double eps);

/* One accepted step from (*t, y) with the proposed step *h (either sign):
 * rejected attempts are retried with odeint's smaller step, as
 * gsl_odeiv2_evolve_apply does; on return (*t, y) is the new node and *h
 * the next proposal. Returns 0, or -1 after 100 rejections in a row or on
 * a non-finite step. */
int bench_odeint_step(bench_odeint *b, bench_ode_fn f, void *ctx, double *t,
                      double *h, double *y);

#ifdef __cplusplus
}
#endif

#endif
