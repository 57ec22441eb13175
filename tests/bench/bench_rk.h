/* Explicit Runge-Kutta pairs a user would pick as references of the
 * benchmark (bench_rk.c): Hairer's DOP853 (SciPy's `DOP853`) and
 * Verner's "most efficient" 9(8) pair (DifferentialEquations.jl's
 * `Vern9`), written here in C with the engine's right-hand side
 * (ssw_model_rhs) inlined and compiled -O3 -march=native. bench_gsl.c
 * drives them one accepted step at a time, like GSL's rk8pd, on the same
 * equations, stopping rule and extraction. */
#ifndef SSW_BENCH_RK_H
#define SSW_BENCH_RK_H

#include "sleighsweep/model.h"

/* The pairs. */
enum { BENCH_RK_DOP853, BENCH_RK_VERN9, BENCH_RK_N };

typedef struct bench_rk bench_rk;

/* A workspace of pair `kind`; NULL when out of memory. */
bench_rk *bench_rk_create(int kind);
void bench_rk_destroy(bench_rk *r);
/* "dop853" or "vern9". */
const char *bench_rk_name(int kind);

/* Starts a leg at rtol = atol = eps on the state alone (the scale of
 * component i is eps (1 + max(|y_i|, |y_i new|)), as both references
 * define it), forgetting the previous leg's step history. */
void bench_rk_reset(bench_rk *r, double eps);

/* One accepted step of the equations e from (*t, y) with the proposed
 * step *h (either sign): rejected attempts are retried with the
 * controller's smaller step. On return (*t, y) is the new node and *h the
 * next proposal; *nfev counts right-hand-side evaluations. Returns 0, or
 * -1 after 100 rejections in a row or on a non-finite step. */
int bench_rk_step(bench_rk *r, const ssw_reduced *e, double *t, double *h,
                  double y[SSW_ODE_DIM], long *nfev);

/* Self-check of pair `kind` on the Kepler problem (eccentricity 0.6,
 * half a period with fixed steps, against the apocentre): the observed
 * order, a least-squares fit over step counts, into *observed; *nominal the
 * pair's order; *rowsum the largest |sum_j a_ij - c_i| of the tableau (0 up to
 * rounding when the tableau is copied right). */
void bench_rk_selfcheck(int kind, double *observed, int *nominal,
                        double *rowsum);

#endif
