/* Asymptotic quantities of one trajectory (docs/theory/model.md sec. 5):
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

/** Per-trajectory flags (OR-ed): SSW_TRAJ_FWD_CAP (1), _BWD_CAP (2),
 * _NONFINITE (4), _EQUILIBRIUM (8), _NO_PEAK (16), _RTOL (32), from the
 * list SSW_TRAJ_FLAGS in names.h (with names and meanings). FWD_CAP,
 * BWD_CAP, NONFINITE, NO_PEAK, NEAR_CRITICAL, NO_ESTIMATE and
 * ENERGY_DRIFT mean the trajectory is not converged and is excluded from
 * ensemble statistics; EQUILIBRIUM and RTOL are information. */
#define SSW_TRAJ_ENUM_(id, bit, ...) SSW_TRAJ_##id = bit,
enum { SSW_TRAJ_FLAGS(SSW_TRAJ_ENUM_) };

/** The forced quantities a sweep stores, in storage order: SSW_FQ_MEAN_OMEGA
 * (0) ... SSW_FQ_ENERGY_GROWTH_SLOPE, from the list SSW_FORCED_QUANTITIES in
 * names.h; SSW_FQ_N counts them. */
#define SSW_FQ_ENUM_(id, index, ...) SSW_FQ_##id = index,
enum { SSW_FORCED_QUANTITIES(SSW_FQ_ENUM_) SSW_FQ_N };

/** Integrator defaults (config keys and `point` options derive from these;
 * docs/config.md lists them). */
#define SSW_SCHEME_DEFAULT "hamel8"
#define SSW_RTOL_DEFAULT 1e-10
#define SSW_RTOL_MIN 1e-14 /**< excluded: below, round-off dominates */
#define SSW_RTOL_MAX 1e-2
#define SSW_TOL_FIXED_DEFAULT 1e-5 /**< stopping tolerance of fixed steps */
#define SSW_MAX_STEPS_DEFAULT 2000000
/** A trajectory whose relative energy error (ssw_traj.energy_error: the
 * node energy's, with drag the balance H + dissipated) exceeds this has
 * left its energy level: flagged SSW_TRAJ_ENERGY_DRIFT, not converged,
 * whatever its estimates say (a fixed step far beyond a scheme's stability
 * gives finite nonsense that a coarser run cannot judge). */
#define SSW_ENERGY_ERROR_MAX 1e-2

/** Step control constants (docs/theory/step-control.md). Steps grow by at
 * most SSW_GROWTH_MAX as the motion settles: delta^2 = GROWTH_MAX^-16. */
#define SSW_GROWTH_MAX 4.0
#define SSW_GROWTH_DELTA2 (1.0 / 4294967296.0)
/** Largest fictive step (rotation of the fastest rate per macro step). */
#define SSW_EPS_MAX 0.5
/** The estimate's coarse run uses this many times the step: fixed steps
 * and drag always, adaptive runs at least. */
#define SSW_EST_RATIO 2.0
/** Adaptive runs (src/point/extract.c): the coarse step is up to this many
 * times the fine one, as long as its fictive step stays at most
 * SSW_EST_COARSE_EPS (beyond, the coarse run leaves the asymptotic range
 * and the estimate with a larger ratio stops bounding the error). */
#define SSW_EST_RATIO_MAX 3.0
#define SSW_EST_COARSE_EPS 0.7
/** Adaptive runs stop at tol = this * sqrt(rtol) (unless tol is set). */
#define SSW_TOL_RTOL_FACTOR 0.1
/** Factor on the asymptotic estimate |fine - coarse| / (ratio^q - 1). */
#define SSW_EST_SAFETY 2.0
/** Reruns at a finer step when the estimate exceeds rtol. */
#define SSW_REFINE_MAX 3
/** Transition angles are judged relative to max(|dphi|, this) (rad):
 * below one radian, rtol is an absolute accuracy in radians. */
#define SSW_DPHI_FLOOR 1.0
/** With circulation, a trajectory whose |kappa| / g_max is within this of
 * 1 (its energy within about twice this of the critical one) is flagged
 * near_critical and not converged: the period and the transitions are
 * then so ill-conditioned in the energy (dT / T = dH / (2 (H_c - H))) that
 * the discrete flow's O(h^q) energy offset, which the error estimate does
 * not see, exceeds rtol (measured: 1.7e-8 of the period at 1e-6 of H_c,
 * against an estimate of 2.4e-10; right to 2e-12 at 1e-4). */
#define SSW_CRITICAL_MARGIN 1e-4
/** The blade force is judged relative to max(blade_force_max, this times
 * the magnitude of its terms, blade_terms): a force whose terms cancel to
 * nothing (I0 = 0 on a dry plane: F = 0 exactly) has no relative
 * accuracy. */
#define SSW_BLADE_FLOOR (1.0 / 1024.0)

/** Integrator settings of an extraction. Exactly one of rtol (adaptive,
 * the default) and eta (fixed step, for studies of the scheme) is > 0. */
typedef struct {
  const ssw_method *method; /**< scheme (ssw_method_table) */
  int recon;                /**< ssw_recon */
  double rtol;              /**< wanted relative accuracy of every result:
                                 reversible step-density control */
  double eta;               /**< fixed step h = eta / max(Arate, w_max),
                                 w_max = sqrt(2 H M / D); 0 when adaptive */
  double tol;               /**< stop when |g| <= tol g_max; 0: derived
                                 (0.1 sqrt(rtol), or 1e-5 with eta) */
  int64_t max_steps;        /**< cap on base steps per direction */
  int tail;                 /**< add the first-order exponential tail */
  int estimate;             /**< estimate errors by a coarser second run */
} ssw_integrator;

/** Fills the defaults: hamel8, exp, rtol 1e-10, tol derived, 2e6 steps,
 * tail on, error estimate on. */
void ssw_integrator_defaults(ssw_integrator *o);

/** Checks integrator settings (method set; exactly one of rtol in
 * (1e-14, 1e-2] and eta in (0, 2]; tol 0 or in (0, 1e-2]; max_steps >=
 * 100). Errors: SSW_ERR_ARG naming the setting. */
int ssw_integrator_check(const ssw_integrator *o);

/** The stopping tolerance in use: tol, or the one derived from rtol. */
double ssw_integrator_stop_tol(const ssw_integrator *o);

/** Called at every macro node with the direction (+1 forward, -1 backward),
 * the time, the configuration (phi, x, y), the node velocity and energy. */
typedef void (*ssw_sample_fn)(void *ctx, int dir, double t, double phi,
                              double x, double y, double w, double v, double H);

/** Absolute errors of the extracted quantities (as ssw_traj's err_*). */
typedef struct {
  double d, dphi, r, t0, center, blade;
} ssw_err_parts;

/** What one trajectory yields. Absent quantities: radius +inf for a limit
 * straight line, NaN for spacing/centres without circles and for every
 * transition quantity of an equilibrium start. */
typedef struct {
  int regime;                   /**< ssw_regime of the tensor used */
  double H0, rate;              /**< energy and Arate = sqrt(2 H E) / D */
  double h;                     /**< fixed macro step; adaptive: eps / Arate,
                                     the step at the transition */
  double eps;                   /**< adaptive: fictive step (0 fixed) */
  double rtol;                  /**< accuracy asked for (0 fixed step) */
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
  double blade_force_max;       /**< max |F| / H of the blade's lateral
                                     force over the motion (1/length) */
  int64_t steps;                /**< base steps, both directions */
  double t_past, t_future;      /**< times at which integration stopped */
  int converged;                /**< 1 when both directions converged */
  int flags;                    /**< SSW_TRAJ_* */
  /** Estimated absolute errors (NaN where the quantity is undefined or no
   * estimate was asked for): of d, of dphi (rad), of the larger radius
   * error, of t0 (time), of the farther centre (length). rtol is met when
   * err_d <= rtol d, err_dphi <= rtol max(|dphi|, SSW_DPHI_FLOOR),
   * err_r <= rtol max(r, d), err_t0 <= rtol (|t0| + 1 / Arate) and err_center
   * <= rtol max(r, d). */
  double err_d, err_dphi, err_r, err_t0, err_center;
  /** Estimated absolute error of blade_force_max (1/length); rtol is met
   * when err_blade <= rtol max(blade_force_max, SSW_BLADE_FLOOR
   * blade_terms). */
  double err_blade;
  /** Shares of the estimates above that a finer step does not reduce
   * (docs/theory/step-control.md): `tail`, the stopping tolerance's (the
   * tail's O(g^2) remainder at the two ends, from the tails added at the
   * last node with |g| >= 4 g_stop and at the end), and `roundoff`, the
   * round-off floor. */
  ssw_err_parts tail, roundoff;
  double blade_terms; /**< largest magnitude of the blade force's terms
                           per unit energy (1/length): where they cancel,
                           the scale of its round-off */
  double t0_step;     /**< local error of the macro step that located t0
                           (time; measured by two half steps), part of err_t0 */
  double t0_dphi;     /**< what the time shifts in t0_step move dphi by:
                           the sum of each step's shift times |w - w_behind|
                           at it, w_behind the limit on the side the leg
                           left (rad; docs/theory/step-control.md) */
  double tol;         /**< stopping tolerance used: the setting's, or tighter
                           where the tail's remainder exceeded rtol */
  int refinements;    /**< reruns needed to meet rtol */
  /** Circulation (docs/theory/circulation.md). arc: the sign of g = L1 w
   * + Z v - kappa along the motion (+1: g > 0, the arc above the line of
   * equilibria; it never changes sign). Below the critical energy the
   * reduced motion is periodic (`periodic` 1): the limits above are then
   * NaN and these hold instead, from two successive peaks of |g| (the
   * Poincare section): the period (time), the heading change per period
   * (rad), the contact point's displacement per period (length), the
   * radius |z_T| / |2 sin(dphi_T / 2)| of the circle the period points
   * lie on (+inf at a drift resonance) and the nearest resonance n
   * (heading_per_period = 2 pi n), each with an estimated absolute error
   * (err_orbit relative scale as orbit_radius). */
  int arc, periodic, resonance;
  double period, heading_per_period, drift_per_period, orbit_radius;
  double err_period, err_heading_period, err_drift, err_orbit;
  /** Drag (docs/theory/drag.md; NaN, approach -1, without drag): the
   * damped trajectory's rest from the forward-only extraction (damped.h):
   * total heading (rad), rest point and its distance, path length, decay
   * rate at rest and its angular frequency (1/time), the time to
   * SSW_DAMPED_SETTLE of the energy, the approach (SSW_APPROACH_*) and the
   * estimated errors of the heading, the rest point, the path length and
   * the decay rate. */
  double heading_total, rest_x, rest_y, rest_distance, path_length;
  double decay_rate, decay_freq, settle_time;
  int approach;
  double err_heading_total, err_rest, err_path, err_decay;
  /** Forcing (forced.h; read only where the tensor has
   * SSW_MCAP_TIME_PERIODIC): the attractor (SSW_ATTRACTOR_*), the cycle's
   * length in periods (0 when not periodic), the measurements in SSW_FQ_*
   * order with their estimated absolute errors and their closed forms
   * (NaN where none applies), and the exact Floquet product's closed
   * form; for the census (ensemble.c) the smaller exponent with its
   * error (the larger is forced[SSW_FQ_LYAPUNOV_MAX]) and a periodic
   * attractor's cycle points on the section (forced.h cycle_pts). */
  int attractor, cycle_periods;
  double forced[SSW_FQ_N], err_forced[SSW_FQ_N], x_forced[SSW_FQ_N];
  double x_floquet_product;
  double lyapunov_2, err_lyapunov_2;
  double cycle_pts[8][2]; /* SSW_FORCED_NMAX (forced.h) */
} ssw_traj;

/** Marks a trajectory's drag quantities absent (NaN, approach -1): the
 * undamped extraction's, which has no rest. */
static inline void ssw_traj_no_rest(ssw_traj *r) {
  r->heading_total = r->rest_x = r->rest_y = r->rest_distance = NAN;
  r->path_length = r->decay_rate = r->decay_freq = r->settle_time = NAN;
  r->err_heading_total = r->err_rest = r->err_path = r->err_decay = NAN;
  r->approach = -1;
}

/** Checks n initial states (w0[i], v0[i]): finite and not at rest, or
 * SSW_ERR_ARG naming the first bad one (ssw_extract_batch and
 * ssw_damped_batch). */
int ssw_extract_check_initial(int n, const double *w0, const double *v0);

/** Extracts n trajectories of one tensor from the initial states (w0[i],
 * v0[i]), stepping them together in SIMD lanes; out[i] is bit-identical to
 * what ssw_extract_run gives for trajectory i alone. ctx[i] (ctx may be
 * NULL) is the sample context of trajectory i, NULL for none. */
int ssw_extract_batch(const ssw_tensor *t, int regime, int n, const double *w0,
                      const double *v0, const ssw_integrator *o,
                      ssw_sample_fn sample, void *const *ctx, ssw_traj *out);

/** Where one direction of some integration stopped (for
 * ssw_extract_finish). */
typedef struct {
  double t, phi, x, y, w, v; /**< time, configuration and velocity */
  int converged;             /**< stopped by the stopping rule */
  int found_peak;            /**< the leg crossed the peak of |g| ... */
  double t_peak;             /**< ... at this time */
  int64_t steps;             /**< work, reported as ssw_traj.steps */
  double emax;               /**< largest relative energy error */
} ssw_leg_end;

/** Completes a trajectory's result from the ends of its two legs with the
 * engine's own limits, exponential tail and combination, so that other
 * integrators (the benchmark's GSL runs) are judged on the same
 * extraction. No error estimate (err_* NaN). */
void ssw_extract_finish(const ssw_tensor *t, int regime, double w0, double v0,
                        const ssw_integrator *o, const ssw_leg_end *fwd,
                        const ssw_leg_end *bwd, ssw_traj *out);

/** The stopping threshold: |L1 w + Z v| <= ssw_extract_gstop(...), the
 * largest |g| on the energy level sqrt(2 H E / D) times the stop tol. */
double ssw_extract_gstop(const ssw_tensor *t, double H,
                         const ssw_integrator *o);

/** The fixed macro step of eta (ssw_integrator.eta) on the energy level
 * H: eta / max(Arate, w_max) with Arate = sqrt(2 H E) / D and w_max =
 * sqrt(2 H M / D), the fastest rate on the level. */
double ssw_extract_fixed_step(const ssw_tensor *t, double H, double eta);

/** The point of the energy ellipse zeta^T K zeta = 2 H at angle psi
 * (ssw_model_energy_point), computed in the extraction's units (the
 * tensor and the energy near 1, docs/theory/step-control.md "Units"), so
 * that every accepted mass scale and energy gives a finite state; bit for
 * bit ssw_model_energy_point where that one stays in range. */
void ssw_extract_energy_point(const ssw_tensor *t, double H, double psi,
                              double *w, double *v);

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
