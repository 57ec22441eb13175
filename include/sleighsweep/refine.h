/* Boundary refinement: the edges of a coarse grid whose end points differ
 * in class, each bracket shrunk by Illinois regula falsi on a continuous
 * indicator (docs/refine.md). No MPI, no HDF5: the sweep distributes the
 * edges (refine_run.c) and the output writes the crossings (h5boundaries.c).
 */
#ifndef SLEIGHSWEEP_REFINE_H
#define SLEIGHSWEEP_REFINE_H

#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/ensemble.h"
#include "sleighsweep/names.h"
#include "sleighsweep/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The classes a sweep can refine ([refine] classes): SSW_REFINE_CLASSES in
 * names.h. */
/** The classes whose indicators are measured by integration (the others
 * are closed forms of the tensor). */
#define SSW_REFINE_INTEGRATED                                                  \
  (SSW_REFINE_LOOPS | SSW_REFINE_SENSE | SSW_REFINE_DRIFT |                    \
   SSW_REFINE_ATTRACTOR | SSW_REFINE_CHAOS)

/** The continuous indicators whose levels are the boundaries, in the order
 * an edge solves them (the `indicator` dataset's flag_values). X(ID, value,
 * name, class, description). */
#define SSW_REFINE_INDICATORS(XM)                                              \
  XM(Z, 0, "Z", REGIME, "Z = 0: the coupling of v1 and v2 changes sign")       \
  XM(L1, 1, "L1", REGIME, "L1 = 0: the moment of mass along the blade")        \
  XM(TURNS, 2, "turns", LOOPS, "|dphi| / 2 pi = k: the k-th loop appears")     \
  XM(MINUS_Z, 3, "minus_Z", SENSE, "-Z = 0: sign(-Z) is the future sense")     \
  XM(MU2, 4, "mu2_minus_1", CRITICAL, "mu^2 - 1 = H_c / H - 1 = 0: H = H_c")   \
  XM(DRIFT_TURNS, 5, "drift_turns", DRIFT,                                     \
     "|Delta_phi| / 2 pi = n: the path drifts (H = H_n)")                      \
  XM(ATTRACTOR_CLASS, 6, "attractor", ATTRACTOR,                               \
     "the attractor or its cycle length changes (no continuous indicator: "    \
     "located by the class alone)")                                            \
  XM(LYAPUNOV, 7, "lyapunov_max", CHAOS,                                       \
     "lambda_1 = 0: the largest Lyapunov exponent changes sign (an end zero "  \
     "within its error bar is not bisected)")

#define SSW_REFINE_CLASS_ENUM_(id, bit, ...) SSW_REFINE_##id = bit,
enum { SSW_REFINE_CLASSES(SSW_REFINE_CLASS_ENUM_) };
#define SSW_REFINE_IND_ENUM_(id, value, ...) SSW_REFINE_IND_##id = value,
enum { SSW_REFINE_INDICATORS(SSW_REFINE_IND_ENUM_) SSW_REFINE_NIND };

/** Indicator names indexed by value ("Z", "L1", "turns", "minus_Z"). */
extern const char *const ssw_refine_indicator_names[SSW_REFINE_NIND];

/** A class that an indicator cannot give (a NaN transition angle). */
#define SSW_REFINE_NO_CLASS INT32_MIN

/** What refinement needs of one evaluated point: the snapped tensor's Z
 * and L1, the transition angle in turns (mean |dphi| / 2 pi), the
 * critical energy H_c and the point's energy H, the measured future
 * sense, the heading per period in turns (|Delta_phi| / 2 pi; NaN above
 * H_c), and the attractor's class (ssw_refine_attractor_class). */
typedef struct {
  double Z, L1, turns, Hc, H;
  int32_t sense;
  double drift;
  int32_t attractor;
  double lyap, lyap_err; /**< lyapunov_max and its error (NaN unforced) */
} ssw_refine_sample;

/** The largest Lyapunov exponent's class (`chaos`): +1 above
 * SSW_REFINE_LYAP_SIGMAS times its error, -1 below minus that, 0 between
 * (zero within its error: no side, never bisected on), SSW_REFINE_NO_CLASS
 * when NaN. */
#define SSW_REFINE_LYAP_SIGMAS 3.0

/** The class of the attractor a point reports (SSW_ATTRACTOR_*) with its
 * cycle length in forcing periods (periodic; else ignored):
 * SSW_REFINE_ATTRACTOR_STRIDE * attractor + cycle length, so that a
 * period doubling is a change of class; SSW_REFINE_NO_CLASS without an
 * attractor (attractor < 0: no forcing and no drag). */
#define SSW_REFINE_ATTRACTOR_STRIDE 16
int32_t ssw_refine_attractor_class(int32_t attractor, int32_t cycle_periods);

/** The sample of a finished grid point run at energy H. */
void ssw_refine_sample_of(const ssw_point_result *r, double H,
                          ssw_refine_sample *s);

/** The class of indicator `ind` at a sample: the sign of Z or L1 (0 when
 * snapped to zero), floor(turns) (SSW_REFINE_NO_CLASS when NaN), the
 * measured sense, the sign of mu^2 - 1 = H_c / H - 1 (+1 periodic). */
int32_t ssw_refine_class(int ind, const ssw_refine_sample *s);

/** What the refinement is asked for ([refine]). */
typedef struct {
  int32_t classes;      /**< OR of SSW_REFINE_* class bits (0: off) */
  double tol;           /**< bracket width to reach, in the axis's units */
  int32_t max_evals;    /**< evaluations per crossing at most */
  int32_t trajectories; /**< trajectories per evaluation at most */
  int points;           /**< each crossing's full measurements wanted */
} ssw_refine_spec;

/** The spec of a config. */
void ssw_refine_spec_of(const ssw_config *cfg, ssw_refine_spec *sp);

/** An edge of the grid to refine: grid points lo and hi = lo + stride of
 * `axis`, and the indicators whose class differs at its ends (bits 1 <<
 * SSW_REFINE_IND_*), with both ends' samples. */
typedef struct {
  uint64_t lo, hi;
  int32_t axis;
  int32_t indicators;
  ssw_refine_sample s_lo, s_hi;
} ssw_refine_edge;

/** Every edge of the grid where an indicator of sp->classes changes class,
 * in increasing (lo, axis) order, from every point's sample (flat index
 * order). *edges is malloc'd (NULL when *n is 0). Errors: SSW_ERR_MEM. */
int ssw_refine_edges(const ssw_config *cfg, const ssw_refine_spec *sp,
                     const ssw_refine_sample *samples, ssw_refine_edge **edges,
                     size_t *n);

/** How close (in turns) a counting indicator (the transition angle, the
 * heading per period) at a grid point may come to a level, on an edge
 * that does not cross it, before the edge is flagged as a near miss: 0.02
 * turn is 7.2 degrees. */
#define SSW_REFINE_NEAR_MARGIN 0.02

/** A near miss: an edge whose ends have the same loop (or drift) class,
 * where the indicator at an end comes within SSW_REFINE_NEAR_MARGIN of a
 * level (the integer above or below): a crossing pair or a tangency may
 * hide between its points (docs/refine.md, "What it cannot see"). */
typedef struct {
  uint64_t lo, hi;   /**< the edge's grid points */
  int32_t axis;      /**< SSW_AXIS_* */
  int32_t indicator; /**< SSW_REFINE_IND_TURNS or _DRIFT_TURNS */
  double level;      /**< the level come close to */
  double distance;   /**< the smaller |turns - level| of the two ends */
} ssw_refine_near;

/** Every near miss of the grid's loop and drift classes (those of
 * sp->classes), in increasing (lo, axis, indicator) order. *near is malloc'd
 * (NULL when *n is 0). Errors: SSW_ERR_MEM. */
int ssw_refine_near_misses(const ssw_config *cfg, const ssw_refine_spec *sp,
                           const ssw_refine_sample *samples,
                           ssw_refine_near **near, size_t *n);

/** Most levels one edge's counting indicator (turns, drift_turns) is
 * searched for: an edge whose classes differ by more is listed as
 * unresolved, not refined (its levels accumulate: refine the grid there). */
#define SSW_REFINE_MAX_LEVELS 64
/** Why an edge whose classes differ was not refined. X(ID, value, name,
 * description). */
#define SSW_REFINE_REASONS(XM)                                                 \
  XM(NO_CLASS_END, 0, "end_without_class",                                     \
     "an end has no class (no transition angle, or above H_c for drift): "     \
     "levels may accumulate there")                                            \
  XM(TOO_MANY_LEVELS, 1, "too_many_levels",                                    \
     "the classes differ by more than SSW_REFINE_MAX_LEVELS levels")           \
  XM(NOT_SEPARATED, 2, "not_separated",                                        \
     "an end's largest Lyapunov exponent is zero within "                      \
     "SSW_REFINE_LYAP_SIGMAS times its error: its side is noise")
#define SSW_REFINE_REASON_ENUM_(id, value, ...) SSW_REFINE_##id = value,
enum { SSW_REFINE_REASONS(SSW_REFINE_REASON_ENUM_) SSW_REFINE_NREASONS };
/** Reason names indexed by value. */
extern const char *const ssw_refine_reason_names[SSW_REFINE_NREASONS];
/** An edge a counting indicator's class changes along that is not
 * refined, and why. */
typedef struct {
  uint64_t lo, hi;            /**< the edge's grid points */
  int32_t axis;               /**< SSW_AXIS_* */
  int32_t indicator;          /**< SSW_REFINE_IND_* */
  int32_t class_lo, class_hi; /**< its classes at lo and hi */
  int32_t reason;             /**< SSW_REFINE_NO_CLASS_END, ... */
} ssw_refine_unresolved;
/** Every unresolved edge of the grid, in increasing (lo, axis, indicator)
 * order. *u is malloc'd (NULL when *n is 0). Errors: SSW_ERR_MEM. */
int ssw_refine_unresolved_edges(const ssw_config *cfg,
                                const ssw_refine_spec *sp,
                                const ssw_refine_sample *samples,
                                ssw_refine_unresolved **u, size_t *n);

/** One located crossing of a level of an indicator along an edge. */
typedef struct {
  uint64_t lo, hi;       /**< the edge's grid points (flat indices) */
  int32_t axis;          /**< SSW_AXIS_* */
  int32_t indicator;     /**< SSW_REFINE_IND_* */
  double level;          /**< the level crossed (k for turns, else 0) */
  double position;       /**< the crossing, in the axis's units */
  double position_error; /**< width of the final bracket (>= |error|) */
  int32_t class_lo;      /**< the indicator's class at grid point lo */
  int32_t class_hi;      /**< ... at grid point hi */
  int32_t evaluations;   /**< point evaluations this crossing made */
  /** Levels (a count) or crossings (a sign or class) of this indicator
   * that the edge's evaluations show beyond the net change its ends give:
   * the indicator went past a level and back between them, and those
   * crossings are not located. A lower bound (only what the evaluations
   * saw); 0 when none was seen. Fits the struct's former padding: the
   * journal's records keep their size. */
  int32_t skipped;
} ssw_refine_crossing;

/** Evaluates the point pipeline at values `v` on behalf of the edge from
 * grid point `lo` (whose key seeds the initial conditions), for the
 * indicators `indicators` (bits 1 << SSW_REFINE_IND_*; the sample's other
 * fields may then be closed forms or NaN). */
typedef int (*ssw_refine_eval_fn)(void *ctx, uint64_t lo, int32_t indicators,
                                  const ssw_grid_values *v,
                                  ssw_refine_sample *out);

/** The indicators measured by integration (the transition angle, the
 * measured sense behind minus_Z's class, the heading per period); Z, L1
 * and mu^2 - 1 are closed forms of the tensor. */
#define SSW_REFINE_MEASURED                                                    \
  ((1 << SSW_REFINE_IND_TURNS) | (1 << SSW_REFINE_IND_MINUS_Z) |               \
   (1 << SSW_REFINE_IND_DRIFT_TURNS) | (1 << SSW_REFINE_IND_ATTRACTOR_CLASS) | \
   (1 << SSW_REFINE_IND_LYAPUNOV))

/** Largest number of crossings one edge can give with max_evals: the
 * bound for the `out` array of ssw_refine_edge_solve. */
size_t ssw_refine_edge_max_crossings(const ssw_refine_edge *e);

/** Locates every crossing of an edge: for each indicator that changes
 * class, each level between the two classes, by Illinois regula falsi on
 * indicator - level (bisection on the class where the indicator is NaN),
 * every evaluation's position a function of the bracket alone, until the
 * bracket is at most sp->tol wide or sp->max_evals evaluations were made.
 * Evaluations are shared between the indicators and levels of an edge.
 * Writes *n crossings (in indicator then level order) to out (room for
 * ssw_refine_edge_max_crossings). Errors: those of `eval`, SSW_ERR_MEM. */
int ssw_refine_edge_solve(const ssw_config *cfg, const ssw_refine_spec *sp,
                          const ssw_refine_edge *e, ssw_refine_eval_fn eval,
                          void *ctx, ssw_refine_crossing *out, size_t *n);

/** The engine's evaluator: the grid-point pipeline of a run (ssw_point_setup
 * when only closed-form classes are refined, an ensemble otherwise). The
 * ensemble's indicators (the transition angle, the sense) are the same for
 * every trajectory of a point (one per arc with circulation: docs/refine.md,
 * "Evaluations"), so an evaluation integrates the first `[refine]
 * trajectories` of the point's trajectories (at most all of them), and all
 * of them where those all took the arc g < 0. */
typedef struct {
  ssw_ensemble *ens;  /**< workspace of the evaluation (NULL: tensor only) */
  ssw_ensemble *full; /**< workspace of the whole ensemble (made lazily) */
  ssw_ensemble_spec spec;    /**< the run's ensemble, trajectories reduced */
  int32_t full_trajectories; /**< the run's trajectories per point */
  uint64_t trajectories;     /**< trajectories integrated so far */
  double steps;              /**< their base steps (both directions, reruns) */
} ssw_refine_point_ctx;

/** Prepares the evaluator of a run's refinement. Errors: SSW_ERR_MEM. */
int ssw_refine_point_ctx_init(const ssw_config *cfg, const ssw_refine_spec *sp,
                              ssw_refine_point_ctx *ctx);

/** Frees an evaluator's workspaces; safe on a zeroed or freed one. */
void ssw_refine_point_ctx_free(ssw_refine_point_ctx *ctx);

/** The full measurements at a crossing (`[refine] points`): the grid-point
 * pipeline with the run's whole ensemble (keyed as grid point c->lo) at the
 * values of grid point c->lo with c->axis set to c->position. Errors: the
 * ensemble's, SSW_ERR_MEM. */
int ssw_refine_crossing_point(const ssw_config *cfg, ssw_refine_point_ctx *ctx,
                              const ssw_refine_crossing *c,
                              ssw_point_result *r);

/** ssw_refine_eval_fn over ssw_refine_point_ctx. */
int ssw_refine_point_eval(void *ctx, uint64_t lo, int32_t indicators,
                          const ssw_grid_values *v, ssw_refine_sample *out);

#ifdef __cplusplus
}
#endif
#endif
