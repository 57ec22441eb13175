/* Dormand-Prince 5(4) with the step-size control of Hairer, Norsett &
 * Wanner's DOPRI5 (the 2025 paper's "RK45", MATLAB's ode45), on the
 * reduced and reconstruction equations (ssw_model_rhs, model.h).
 * Kernels only: no I/O, no allocation. A step of an exactly given size and
 * the proposal of the next size are separate calls, so a caller can take
 * controlled steps, steps to a given time, or a regula-falsi evaluation. */
#ifndef SLEIGHSWEEP_DOPRI5_H
#define SLEIGHSWEEP_DOPRI5_H

#include "sleighsweep/model.h"
#include "sleighsweep/ode.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Tolerances and controller constants (names as in DOPRI5). */
typedef struct {
  double atol, rtol; /**< error scale atol + rtol max(|y0_i|, |y1_i|) */
  double safe;       /**< safety factor (0.9) */
  double fac1, fac2; /**< step may shrink to fac1 h, grow to fac2 h */
  double beta;       /**< Lund stabilisation exponent (0.04) */
  double hmax;       /**< largest |h| (time units); 0: no limit */
} ssw_dopri5_opts;

/** Controller memory between steps. */
typedef struct {
  double facold; /**< last accepted error (for the stabilisation) */
  int rejected;  /**< the previous attempt was rejected */
} ssw_dopri5_ctl;

/** The tableau's nodes c_i (stage i evaluates the right-hand side at
 * t + c_i h; stage 7 is f(y1), first same as last). */
#define SSW_DOPRI5_NODES 7
extern const double ssw_dopri5_nodes[SSW_DOPRI5_NODES];

/** DOPRI5's defaults with atol = rtol = 1e-10: safe 0.9, fac1 0.2,
 * fac2 10, beta 0.04, no hmax. */
void ssw_dopri5_defaults(ssw_dopri5_opts *o);

/** Checks options (0 < rtol <= 0.1, atol >= 0, 0 < safe < 1,
 * 0 < fac1 <= 1 <= fac2, 0 <= beta <= 0.2, hmax >= 0).
 * Errors: SSW_ERR_ARG naming the option. */
int ssw_dopri5_check(const ssw_dopri5_opts *o);

/** Resets the controller memory (before the first step). */
void ssw_dopri5_ctl_init(ssw_dopri5_ctl *c);

/** One Dormand-Prince step of exactly size h (h < 0 integrates backward)
 * from s to out (out->t = s->t + h; out may not alias s). `f0` (may be
 * NULL) is f(s) if known; `f1` (may be NULL) receives f(out), which is the
 * next step's f0 after an acceptance (first same as last: 6 evaluations per
 * step). `err` receives the scaled RMS norm of the embedded 4th-order error
 * estimate (<= 1: within tolerance). */
void ssw_dopri5_step(const ssw_reduced *e, const ssw_dopri5_opts *o,
                     const ssw_ode_state *s, double h, const double f0[5],
                     double f1[5], ssw_ode_state *out, double *err);

/** Step-size controller: given the error of an attempted step of size h,
 * returns 1 to accept it (0 to reject and retry) and the next size in
 * `h_next` (same sign as h). */
int ssw_dopri5_propose(ssw_dopri5_ctl *c, const ssw_dopri5_opts *o, double h,
                       double err, double *h_next);

/** DOPRI5's starting step (Hairer et al., Solving ODEs I, II.4) from s in
 * direction dir (+1/-1); signed. */
double ssw_dopri5_initial_step(const ssw_reduced *e, const ssw_dopri5_opts *o,
                               const ssw_ode_state *s, int dir);

/** Convenience driver: controlled steps from s->t to exactly t_end (the
 * last step is shortened). `accepted`, `rejected` (may be NULL) count
 * steps. Errors: SSW_ERR_ARG for bad options, SSW_ERR_NUMERIC when
 * max_steps attempts do not reach t_end or the step underflows. */
int ssw_dopri5_integrate(const ssw_reduced *e, const ssw_dopri5_opts *o,
                         ssw_ode_state *s, double t_end, long max_steps,
                         long *accepted, long *rejected);

#ifdef __cplusplus
}
#endif
#endif
