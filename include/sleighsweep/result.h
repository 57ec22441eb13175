/* The record of one finished grid point: what the ensemble computes, what the
 * journal stores and what the HDF5 output writes. */
#ifndef SLEIGHSWEEP_RESULT_H
#define SLEIGHSWEEP_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "sleighsweep/names.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Results of one grid point. Means and spreads (max - min) run over the
 * converged trajectories of the ensemble in trajectory-index order, so the
 * record is bit-identical for any rank or thread count. Quantities absent in
 * a regime are NaN (spacing without circles) or +inf (radius of a line). */
/** Most attractor slots a point stores ([ensemble] attractor_slots). */
#define SSW_ATTRACTOR_SLOTS_MAX 16

typedef struct {
  uint64_t index;          /**< flat grid index (row-major theta..B) */
  ssw_tensor tensor;       /**< snapped total tensor J M N L1 L2 Z */
  ssw_analytic analytic;   /**< closed-form predictions for the tensor */
  double radius_future;    /**< mean |v/w| at t -> +inf */
  double radius_past;      /**< mean |v/w| at t -> -inf */
  double center_spacing;   /**< mean distance of the limit-circle centres */
  double transition_angle; /**< mean |dphi| (rad) */
  int32_t loops;           /**< mode of floor(|dphi| / 2 pi) */
  int32_t sense_future;    /**< mode of sign(w) at t -> +inf (-1 cw, +1 ccw) */
  double radius_future_spread, radius_past_spread;
  double center_spacing_spread, transition_angle_spread;
  double converged_fraction; /**< converged trajectories / trajectories */
  double energy_error_max;   /**< max over trajectories of max |H-H0|/H0 */
  double steps_mean;         /**< mean base steps per trajectory */
  int32_t trajectories;      /**< ensemble size */
  int32_t flags;             /**< OR of the trajectories' SSW_TRAJ_* flags */
  /** Largest estimated absolute error over the converged trajectories
   * (NaN: undefined in the regime, or no estimate asked for). t0_error is
   * relative to the transition time |t0| + 1 / Arate. */
  double center_spacing_error, transition_angle_error, radius_error;
  double t0_error;
  /** Mean over the converged trajectories of max |F| / H, the blade's
   * largest lateral force over the motion per unit energy (1/length), and
   * its closed form (docs/theory/blade-force.md). */
  double blade_force_max, analytic_blade_force_max;
  /** Largest distance of the computed contact point from the exact path
   * over the nodes of trajectory 0 (length; docs/theory/exact-path.md). */
  double path_error_max;
  /** Circulation (docs/output.md, "Circulation"). Below the critical
   * energy: the means over the converged (periodic) trajectories of the
   * period, the heading change and the displacement per period and the
   * orbit radius, and the largest estimated errors of the first two.
   * Above it with kappa != 0 the ensemble holds two populations, the arcs
   * g > 0 and g < 0 (g = L1 w + Z v - kappa keeps its sign): the columns
   * above (transition angle, centre spacing, loops) then hold the arc
   * g > 0's, these the arc g < 0's, and upper_fraction the share of the
   * ensemble on g > 0. critical_energy = D kappa^2 / (2 E). NaN (-1 for
   * loops_lower) where they do not apply. */
  double period, heading_per_period, drift_per_period, orbit_radius;
  double period_error, heading_per_period_error;
  double transition_angle_lower, center_spacing_lower, upper_fraction;
  double critical_energy;
  int32_t loops_lower;
  /** Their closed-form twins at the run's energy (ssw_point_circulation;
   * with kappa != 0 analytic.dphi_abs, .d and .loops hold the arc g > 0's
   * and analytic.radius is NaN: the two limit radii differ). */
  double analytic_radius_past, analytic_radius_future;
  double analytic_period, analytic_heading_per_period;
  double analytic_drift_per_period, analytic_orbit_radius;
  double analytic_transition_angle_lower, analytic_center_spacing_lower;
  /** Largest estimated absolute error of the trajectories' blade force
   * maxima (1/length; NaN as the other estimates). */
  double blade_force_error;
  /** Drag (docs/output.md, "Drag"; NaN without drag): means over the
   * converged trajectories of |heading_total|, the rest point's distance,
   * the path length, the decay rate at rest and the settling time, the
   * largest estimated errors of the first four, the share of them that
   * approach rest as a focus; the closed-form decay rate and angular
   * frequency at rest, and for C = c K without circulation the exact
   * means of the first three over the same trajectories. */
  double heading_total, rest_distance, path_length, decay_rate, settle_time;
  double heading_total_error, rest_distance_error, path_length_error;
  double decay_rate_error, focus_fraction;
  double analytic_decay_rate, analytic_decay_frequency;
  double analytic_heading_total, analytic_rest_distance;
  double analytic_path_length;
  /** Forcing (docs/output.md, "Forcing"; -1 and NaN without it): the
   * class (SSW_ATTRACTOR_*) of the attractor most trajectories reach (the
   * census's slot 0, below) and, periodic, its cycle length. The measured
   * quantities (SSW_FQ_* order) are the means, spreads (max - min) and
   * largest estimated errors over its converged trajectories,
   * analytic_forced the means of their closed forms (NaN where names.h
   * says NO_TWIN or none applies), and analytic_floquet_product the mean
   * exact product of the multipliers. */
  int32_t attractor, cycle_periods;
  double forced[SSW_FQ_N], forced_spread[SSW_FQ_N], forced_error[SSW_FQ_N];
  double analytic_forced[SSW_FQ_N], analytic_floquet_product;
  /** The census (docs/output.md, "The census"; -1 and NaN where no
   * attractor is reported): the distinct attractors found, the share of
   * the ensemble beyond the stored slots, and per slot (the attractors by
   * share, descending; the first [ensemble] attractor_slots stored) its
   * class, cycle length (periodic; else -1), share of the ensemble, and
   * its converged members' mean velocity and exponents. Slot 0 is the
   * point's attractor above. */
  int32_t attractor_count;
  double attractor_other_fraction;
  int32_t attractor_class[SSW_ATTRACTOR_SLOTS_MAX];
  int32_t attractor_cycle_periods[SSW_ATTRACTOR_SLOTS_MAX];
  double attractor_fraction[SSW_ATTRACTOR_SLOTS_MAX];
  double attractor_mean_omega[SSW_ATTRACTOR_SLOTS_MAX];
  double attractor_mean_v[SSW_ATTRACTOR_SLOTS_MAX];
  double attractor_lyapunov_1[SSW_ATTRACTOR_SLOTS_MAX];
  double attractor_lyapunov_2[SSW_ATTRACTOR_SLOTS_MAX];
} ssw_point_result;

/** Sample trajectory quantities, in the order they sit in a point's sample
 * buffer (and the names of the /samples datasets): SSW_SAMPLE_T, _PHI, _X,
 * _Y, _OMEGA, _V, _H from the list SSW_SAMPLES in names.h (with names,
 * units and long names); SSW_SAMPLE_NQ (7) counts them. */
#define SSW_SAMPLE_ENUM_(id, index, ...) SSW_SAMPLE_##id = index,
enum { SSW_SAMPLES(SSW_SAMPLE_ENUM_) SSW_SAMPLE_NQ };

/** Doubles in one point's sample buffer of `samples` trajectories of
 * `nodes` rows: samples * nodes * SSW_SAMPLE_NQ (0 without samples).
 * Layout (row-major): [quantity][sample][node], i.e. element
 * (q, s, k) at q * samples * nodes + s * nodes + k. Unused nodes are NaN. */
static inline size_t ssw_result_sample_doubles(int samples, int nodes) {
  return samples > 0 ? (size_t)samples * (size_t)nodes * SSW_SAMPLE_NQ : 0;
}

/** A growable array of point results, each with its sample buffer of
 * `sdoubles` doubles (0 when the run keeps no samples): a rank's points
 * waiting for the next flush epoch, or the records read from journals. */
typedef struct {
  ssw_point_result *pts;
  double *samples; /**< n * sdoubles, in the order of pts */
  size_t n, cap;
  size_t sdoubles; /**< doubles per point's sample buffer */
} ssw_result_buf;

/** Makes room for at least `need` points. Errors: SSW_ERR_MEM. */
int ssw_result_buf_reserve(ssw_result_buf *b, size_t need);

/** Appends a copy of a result and of its samples (NULL when sdoubles is 0).
 * Errors: SSW_ERR_MEM. */
int ssw_result_buf_push(ssw_result_buf *b, const ssw_point_result *r,
                        const double *samples);

/** Sample buffer of point k. */
static inline double *ssw_result_buf_samples(const ssw_result_buf *b,
                                             size_t k) {
  return b->sdoubles ? b->samples + k * b->sdoubles : NULL;
}

/** Frees the arrays (NULL-safe), keeping sdoubles. */
void ssw_result_buf_free(ssw_result_buf *b);

#ifdef __cplusplus
}
#endif
#endif
