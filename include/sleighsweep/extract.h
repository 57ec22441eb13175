/* Extraction of the asymptotic quantities of one trajectory (DESIGN.md sec. 4):
 * integrate forward and backward to the line of equilibria, add the
 * exponential tail, and measure radii, centres, spacing, senses, t0, the
 * transition angle and the loop count. Pure: no I/O, no allocation. */
#ifndef SLEIGHSWEEP_EXTRACT_H
#define SLEIGHSWEEP_EXTRACT_H

#include <stdint.h>

#include "sleighsweep/model.h"
#include "sleighsweep/stepper.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Per-trajectory flags (OR-ed). Any flag but EQUILIBRIUM means the
 * trajectory is not converged and is excluded from ensemble statistics. */
enum {
  SSW_TRAJ_FWD_CAP = 1,     /**< forward integration hit the step cap */
  SSW_TRAJ_BWD_CAP = 2,     /**< backward integration hit the step cap */
  SSW_TRAJ_NONFINITE = 4,   /**< a NaN or infinity appeared */
  SSW_TRAJ_EQUILIBRIUM = 8, /**< initial state already on the equilibria */
  SSW_TRAJ_NO_PEAK = 16,    /**< the time of max |L1 w + Z v| was not found */
};

/** Integrator settings of an extraction. */
typedef struct {
  const ssw_method *method; /**< composition (or RK4) */
  int recon;                /**< ssw_recon */
  double eta;               /**< dimensionless step: h = eta / max(Arate,
                                 w_max), w_max = sqrt(2 H M / D) */
  double tol;               /**< stop when |g| <= tol g_max */
  int64_t max_steps;        /**< cap on base steps per direction */
  int tail;                 /**< add the first-order exponential tail */
} ssw_integrator;

/** Fills the defaults documented in the README: hamel8, exp, eta 0.8,
 * tol 1e-5, 2e6 steps, tail on. On the seed case they give d to ~5e-11
 * relative in ~2200 base steps (1e-7 or better on random bodies); the
 * tail's O(tol^2) error is ~1e-11 (benchmark: 0.3 tol^2). */
void ssw_integrator_defaults(ssw_integrator *o);

/** Checks integrator settings (method set, 0 < eta <= 2, 0 < tol <= 1e-2,
 * max_steps >= 100). Errors: SSW_ERR_ARG naming the setting. */
int ssw_integrator_check(const ssw_integrator *o);

/** Called at every macro node with the direction (+1 forward, -1 backward),
 * the time, the configuration (phi, x, y), the node velocity and energy. */
typedef void (*ssw_sample_fn)(void *ctx, int dir, double t, double phi,
                              double x, double y, double w, double v,
                              double H);

/** What one trajectory yields. Absent quantities: radius +inf for a limit
 * straight line, NaN for spacing/centres without circles and for every
 * transition quantity of an equilibrium start. */
typedef struct {
  int regime;                   /**< ssw_regime of the tensor used */
  double H0, rate;              /**< energy and Arate = sqrt(2 H E) / D */
  double h;                     /**< macro step used (time units) */
  double t0;                    /**< time of max |L1 w + Z v| */
  double w_past, v_past;        /**< limit velocity at t -> -inf */
  double w_future, v_future;    /**< limit velocity at t -> +inf */
  double r_past, r_future;      /**< |v/w| at the two ends */
  double center_past[2];        /**< limit-circle centre, t -> -inf */
  double center_future[2];      /**< limit-circle centre, t -> +inf */
  double d;                     /**< distance of the centres */
  int sense_past, sense_future; /**< sign of w at the ends (+1 ccw) */
  double dphi;                  /**< transition angle (rad), signed */
  int loops;                    /**< floor(|dphi| / 2 pi) */
  double energy_error;          /**< max |H_k - H_0| / H_0 over nodes */
  int64_t steps;                /**< base steps, both directions */
  double t_past, t_future;      /**< times at which integration stopped */
  int converged;                /**< 1 when both directions converged */
  int flags;                    /**< SSW_TRAJ_* */
} ssw_traj;

/** Extracts one trajectory of the (snapped, classified) tensor from the
 * initial reduced state (w0, v0) at t = 0, heading 0, contact point at the
 * origin. `sample` may be NULL. Errors: SSW_ERR_ARG for a zero initial
 * velocity or invalid settings; a trajectory that fails numerically is not
 * an error but carries flags and converged = 0. */
int ssw_extract_run(const ssw_tensor *t, int regime, double w0, double v0,
                    const ssw_integrator *o, ssw_sample_fn sample, void *ctx,
                    ssw_traj *out);

#ifdef __cplusplus
}
#endif
#endif
