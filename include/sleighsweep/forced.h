/* The forced extractor (docs/theory/forcing.md): a trajectory under the
 * periodic torque runs forward only, through a transient, on the period
 * (stroboscopic) map; its attractor is classified (a cycle of n <= 8
 * periods polished by Newton on the map with its monodromy, unbounded
 * growth without drag, or unresolved) and measured by time averages over
 * whole periods, the Floquet multipliers and the energy's growth law, each
 * with an error estimate from a fine and a coarse run. Beside them, the
 * closed forms of forcing.md (eqs. F2 to F4, F6). Pure: no I/O. */
#ifndef SLEIGHSWEEP_FORCED_H
#define SLEIGHSWEEP_FORCED_H

#include <stdint.h>

#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "sleighsweep/names.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Attractors: SSW_ATTRACTOR_UNRESOLVED (0), _PERIODIC (1), _ACCELERATING
 * (2), _REST (3), _QUASIPERIODIC (4), _CHAOTIC (5), from the list
 * SSW_ATTRACTORS in names.h. */
#define SSW_ATTRACTOR_ENUM_(id, value, ...) SSW_ATTRACTOR_##id = value,
enum { SSW_ATTRACTORS(SSW_ATTRACTOR_ENUM_) SSW_ATTRACTOR_COUNT };

/** Lower-case name of an attractor ("periodic"); "unknown" outside. */
const char *ssw_attractor_name(int attractor);

/** Longest cycle looked for, in forcing periods (extract.h's ssw_traj
 * holds as many cycle points). */
#define SSW_FORCED_NMAX 8
_Static_assert(SSW_FORCED_NMAX == sizeof(((ssw_traj *)0)->cycle_pts) /
                                      sizeof(((ssw_traj *)0)->cycle_pts[0]),
               "ssw_traj.cycle_pts holds SSW_FORCED_NMAX points");
/** Most forcing periods of the transient (also capped by max_steps). */
#define SSW_FORCED_PERIODS_MAX 6000
/** Periods over which an undamped trajectory's energy growth is fitted
 * (the second half of them). */
#define SSW_FORCED_GROWTH_PERIODS 512
/** A cycle is looked for by Newton once the stroboscopic points n periods
 * apart are this close (relative, energy norm). */
#define SSW_FORCED_DETECT 1e-3
/** Newton has converged when the map's residual is below this (relative,
 * energy norm). */
#define SSW_FORCED_NEWTON_TOL 1e-12
/** The rest (w, v) = 0 is tried as the attractor once the stroboscopic
 * point has decayed below this fraction of the initial state (energy
 * norm): a forcing that does not reach the sleigh (a mass moving across
 * the blade at mass_x = 0) leaves it decaying geometrically, which the
 * relative cycle test above never catches. */
#define SSW_FORCED_REST_DETECT 1e-6
/** ... and accepted when one period maps the rest within this fraction
 * of the initial state (energy norm) of itself: round-off, where any
 * forcing that reaches the sleigh moves it by its own amplitude. */
#define SSW_FORCED_REST_TOL 1e-14

/** The measured quantities of a forced trajectory (and, as `err`, their
 * estimated absolute errors). NaN where they do not apply. */
typedef struct {
  double mean_omega, mean_v;  /**< time averages over the whole cycle */
  double mean_power;          /**< <tau w + P_m> over the cycle, P_m the
                                   moving mass's actuator power */
  double mean_path_radius;    /**< mean_v / mean_omega */
  double amp_omega, amp_v;    /**< half the range of w, v over the cycle */
  double floquet_abs[2];      /**< moduli of the n-period map's multipliers,
                                   descending */
  double floquet_arg[2];      /**< their arguments (rad) */
  double energy_growth_slope; /**< d/dt (Arate^3/3 + Omega^2 Arate) */
  double lyapunov[2];         /**< the spectrum, descending (1 / time;
                                 ssw_forced_lyapunov) */
} ssw_forced_q;

/** What one forced trajectory yields. */
typedef struct {
  int attractor;           /**< SSW_ATTRACTOR_* */
  int cycle_periods;       /**< n of a periodic attractor (0 otherwise) */
  ssw_forced_q q;          /**< the measurements */
  ssw_forced_q err;        /**< their estimated absolute errors */
  double mean_dissipation; /**< <zeta^T C zeta> over the cycle */
  double power_balance;    /**< mean_power - mean_dissipation: 0 on a
                                cycle (power in = power dissipated) */
  double mean_divergence;  /**< the flow's divergence averaged over the
                                cycle, <ht(t)/D(t) - tr(K(t)^-1 C)>
                                (ln of the Floquet product / (n T)) */
  double cycle_w, cycle_v; /**< the cycle's point at the section t = 0 */
  double cycle_pts[SSW_FORCED_NMAX][2]; /**< periodic: the cycle's n
                                 points on the section in map order, the
                                 first (cycle_w, cycle_v); NaN after them */
  double end_w, end_v;        /**< the state at the transient's last section
                                 (periodic: the cycle's point, polished) */
  double lyapunov_divergence; /**< the flow's divergence averaged over the
                                 Lyapunov window (its periods) */
  double lyapunov_sum_defect; /**< lyapunov[0] + lyapunov[1] -
                                 lyapunov_divergence: 0 up to the
                                 integration's and the differences' errors */
  double newton_residual;     /**< |P^n(x) - x| of that point (relative) */
  double transient_remainder; /**< |x_k - x| of the transient's last
                                   point from it (relative) */
  double period;              /**< T = 2 pi / Omega */
  double H0;                  /**< initial energy */
  int steps_per_period;       /**< macro steps per period (fine run) */
  int transient_periods;      /**< periods until the attractor was found */
  int64_t steps;              /**< base steps of every run */
  int refinements;            /**< reruns at a finer step to meet rtol */
  int converged;              /**< 1: classified and measured within rtol */
  int flags;                  /**< SSW_TRAJ_* (step cap, non-finite, rtol) */
} ssw_forced;

/** Runs and measures one forced trajectory from (w0, v0) at t = 0 (the
 * tensor's model must have SSW_MCAP_TIME_PERIODIC). The scheme and rtol
 * (or eta), max_steps and estimate of `o` apply; the step is T / N with N
 * a power of two, so every kick lands on a step boundary. Errors:
 * SSW_ERR_ARG for bad settings, an unforced tensor or a zero initial
 * velocity; a trajectory that fails numerically is not an error but
 * carries flags and converged = 0. */
int ssw_forced_run(const ssw_tensor *t, double w0, double v0,
                   const ssw_integrator *o, ssw_forced *out);

/** The Lyapunov window: SSW_LYAP_BURN periods to align the tangent
 * basis, then SSW_LYAP_BLOCKS blocks of SSW_LYAP_BLOCK periods whose
 * exponents' spread is the statistical part of the error; the period
 * map's Jacobian by central differences of relative step
 * SSW_LYAP_FD_STEP in the energy norm (docs/theory/forcing.md, "The
 * Lyapunov spectrum"). */
#define SSW_LYAP_BURN 32
#define SSW_LYAP_BLOCKS 8
#define SSW_LYAP_BLOCK 16
#define SSW_LYAP_FD_STEP 1e-5
/** Segments of a period whose Jacobians the QR takes one by one (fewer
 * where a period has fewer steps): a map that contracts by 1e-20 over a
 * period contracts by 0.24 over a 32nd of it, where the differences still
 * resolve it (their round-off is relative to the segment's contraction);
 * the perturbed states are advanced once per step whatever the count. */
#define SSW_LYAP_SEGMENTS 32

/** The Lyapunov spectrum of the forced trajectory r (ssw_forced_run's
 * result at the same t and o): from its cycle's point (periodic) or its
 * last state (unresolved), the tangent map carried over the window at
 * r's steps per period and re-orthonormalised each period (QR), both
 * exponents into r->q.lyapunov (descending) with their errors (twice the
 * block means' standard error plus the coarse run's Richardson
 * difference; NaN without o->estimate), the window's mean divergence and
 * the sum's defect against it (the exact identity); r->steps grows by
 * the window's work. An accelerating trajectory (no stationary
 * spectrum) or one that failed numerically keeps NaN. Errors: as
 * ssw_forced_run. */
int ssw_forced_lyapunov(const ssw_tensor *t, const ssw_integrator *o,
                        ssw_forced *r);
/* Off a cycle the window also gives the mean velocity (mean_omega,
 * mean_v and mean_path_radius over its 128 periods, errors as the
 * exponents': twice the block means' standard error plus the step's
 * part), and an `unresolved` trajectory that is finite is classified
 * from its exponents (ssw_forced_classify; a new class is `converged`). */

/** What a sweep takes instead (no integration on a cycle): on a cycle
 * the exponents ln |mu_i| / (n T) of its measured Floquet moduli (the
 * definition; their errors from the moduli's), the divergence's mean the
 * cycle's `mean_divergence`, so the sum's defect is that of the Floquet
 * product identity; off a cycle ssw_forced_lyapunov. */
int ssw_forced_lyapunov_sweep(const ssw_tensor *t, const ssw_integrator *o,
                              ssw_forced *r);

/** The classes the exponents decide (docs/theory/forcing.md, "Classes
 * from the exponents"): lambda_1 is `chaotic` above SSW_CLASS_K times its
 * error and above SSW_CLASS_LYAP_FLOOR / T; `quasiperiodic` within
 * SSW_CLASS_K times its error of 0 when that band is itself within the
 * floor (the error bar resolves it). */
#define SSW_CLASS_K 3.0
/** The floor, per forcing period (lambda_1 T): a tangent vector that
 * grows only linearly in time (the shear of a twisting invariant circle,
 * no chaos) shows ln(160 / 32) / 128 = 0.0126 per period over the
 * Lyapunov window (SSW_LYAP_BURN periods then 128); the floor stands
 * above it. */
#define SSW_CLASS_LYAP_FLOOR 0.02

/** The class of a bounded trajectory the transient left unresolved, from
 * its larger exponent l1 (1 / time), its error e1 and the forcing period
 * T: SSW_ATTRACTOR_CHAOTIC, _QUASIPERIODIC, or _UNRESOLVED with
 * SSW_TRAJ_CYCLE_NOT_CLOSED (l1 below -SSW_CLASS_K e1) or
 * SSW_TRAJ_EXPONENTS_UNDECIDED (anything else, NaN included) added to
 * *flags. Pure. */
int ssw_forced_classify(double l1, double e1, double T, int *flags);

/** The closed forms beside a forced trajectory's measurements (NaN where
 * none applies, docs/theory/forcing.md): the small-forcing mean velocity
 * of the sine torque with drag and without circulation (forcing.md
 * eq. F3, O(eps^4) error), the growth slope without drag or circulation
 * (eq. F4, O(eps^2) relative error), and the exact product of the Floquet
 * multipliers of the measured cycle, exp(n T (h.<zeta>/D - tr(K^-1 C)))
 * (eq. F2, with the measured means). With the moving mass: the mean
 * velocity of eq. 6 (sine, drag, no circulation; the torque, if any,
 * added in phase), no growth slope, and the product exp(n T
 * mean_divergence). With kicks, C = c K and no circulation (nor mass):
 * the mean velocity and the moduli of the multipliers of the exact
 * period map's cycle (ssw_kicked_closed). */
typedef struct {
  double mean_omega, mean_v, mean_path_radius;
  double energy_growth_slope;
  double floquet_product;
  double floquet_abs[2]; /**< the exact map's (kicks only), descending */
  double lyapunov[2];    /**< its cycle's exponents ln |mu_i| / (n T) */
} ssw_forced_closed;

void ssw_forced_closed_form(const ssw_tensor *t, const ssw_forced *r,
                            ssw_forced_closed *a);

/** 1 where the kicked sleigh has an exact period map (kicks, C = c K,
 * no circulation, no moving mass; docs/theory/forcing.md). */
int ssw_kicked_applies(const ssw_tensor *t);

/** The exact period map's closed forms beside a periodic forced
 * trajectory (kicked.c): its n-cycle found by Newton from the measured
 * cycle point, the means of w and v over it and the moduli of its
 * multipliers (Jacobian by Richardson-extrapolated central differences
 * of the closed-form map, ~1e-10 relative). Leaves `a` alone where the
 * oracle does not apply or Newton fails. */
void ssw_kicked_closed(const ssw_tensor *t, const ssw_forced *r,
                       ssw_forced_closed *a);

/** Quantities of a forced path's node: t, phi, x, y, omega, v, H (the
 * columns of path.h's rows; H with the moving mass is the kinetic energy
 * with the mass, as the extractor's averages). */
#define SSW_FORCED_PATH_NQ 7
/** Most whole cycles a periodic trajectory's path adds after its
 * transient (ssw_forced_path_periods). */
#define SSW_FORCED_PATH_PERIODS 1024

/** Receives a forced path's nodes in time order: q the node's quantities;
 * avg NULL, except at the node that closes a whole forcing period, where
 * it holds the averages of (x, y) over that period. */
typedef void (*ssw_forced_path_fn)(void *ctx,
                                   const double q[SSW_FORCED_PATH_NQ],
                                   const double avg[2]);

/** The sampled path of the forced trajectory from (w0, v0) at t = 0
 * (heading 0, contact point at the origin): `periods` whole forcing
 * periods of `steps_per_period` macro steps of T / N each (the extractor's
 * step: ssw_forced.steps_per_period, so the nodes are the bits of its
 * fine run from the same state), every node to `fn`: the initial one,
 * then each period's, the section t = kT closing period k; with kicks a
 * second node at t = kT after the impulse. The period averages of x and
 * y are trapezoid sums with the Euler-Maclaurin end correction (x' = v
 * cos phi, y' = v sin phi at the ends; O(h^4)). The path ends early at
 * the first non-finite node. Errors: SSW_ERR_ARG as ssw_forced_run, or
 * for steps_per_period < 1 or periods < 0. */
int ssw_forced_path(const ssw_tensor *t, double w0, double v0,
                    const ssw_integrator *o, int steps_per_period, int periods,
                    ssw_forced_path_fn fn, void *ctx);

/** The periods `point --trajectory` writes of a forced run: a periodic
 * trajectory's transient and then whole cycles, at least 8, one more than
 * the transient's remainder takes to fall to 1e-13 at the rate of the
 * slowest multiplier (the last cycles lie on the cycle), and enough for
 * one turn of the mean heading (2 pi / |mean_omega|), up to
 * SSW_FORCED_PATH_PERIODS periods; an accelerating one's growth window
 * (SSW_FORCED_GROWTH_PERIODS, the periods its slope is fitted from); an
 * unresolved one's transient (at most SSW_FORCED_PATH_PERIODS). */
int ssw_forced_path_periods(const ssw_forced *r);

#ifdef __cplusplus
}
#endif
#endif
