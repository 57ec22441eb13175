/* The ensemble of one grid point: initial states from a counter-based
 * generator, OpenMP across trajectories, reductions in a fixed order. */
#ifndef SLEIGHSWEEP_ENSEMBLE_H
#define SLEIGHSWEEP_ENSEMBLE_H

#include <stdint.h>

#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "sleighsweep/names.h"
#include "sleighsweep/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Workspace for the ensembles of one rank (opaque). */
typedef struct ssw_ensemble ssw_ensemble;

/** How the initial (omega0, v0) of an ensemble are drawn: SSW_IC_RANDOM
 * (0, uniform angle on the energy ellipse, keyed RNG) and SSW_IC_LATTICE
 * (1, evenly spaced angles on the energy ellipse), from the list SSW_ICS
 * in names.h. */
#define SSW_IC_ENUM_(id, value, ...) SSW_IC_##id = value,
typedef enum { SSW_ICS(SSW_IC_ENUM_) SSW_IC_COUNT } ssw_ic_kind;
/** Initial-condition names indexed by value ("random", "lattice"). */
extern const char *const ssw_ic_names[SSW_IC_COUNT];

/** What the ensemble of a grid point needs of a run: the body, the
 * integrator, and the ensemble's own settings (ssw_config_ensemble fills
 * it from a config). */
typedef struct {
  ssw_body body;        /**< run constants */
  double zero_tol;      /**< exact zeros of L1 and Z (ssw_model_classify) */
  ssw_integrator integ; /**< scheme and accuracy */
  int64_t trajectories; /**< initial conditions per point */
  int attractor_slots;  /**< attractors stored per point (census) */
  uint64_t seed;        /**< key of the initial conditions */
  int ic;               /**< SSW_IC_RANDOM or SSW_IC_LATTICE (names.h) */
  double energy;        /**< energy H of every trajectory */
  int samples;          /**< sample trajectories kept at chosen points */
  int sample_nodes;     /**< rows per sample trajectory */
  int no_exact_path;    /**< skip path_error_max (NaN): the comparison of
                             trajectory 0 with its exact path, which costs
                             as much as a trajectory for a lone one */
  int path_every;       /**< unless no_exact_path, compare at the grid
                             points whose index is a multiple of it
                             ([output] exact_path_every; <= 1: every
                             point), NaN at the others */
} ssw_ensemble_spec;

/** What varies from one grid point to the next (the grid's axes, names.h
 * SSW_AXES): the body's parameters and a field per run axis (circulation,
 * energy, drag). A point's run uses these in place of the spec's (each run
 * axis's `home`: body.Gamma, energy, body.drag_*). Its initial conditions
 * are keyed by `key`, the point's flat index over the body's axes: points
 * that differ only in run values start at the same angles on their energy
 * ellipses, so a (Gamma, energy) map compares like with like, and a point
 * of a swept run is bit for bit the run that fixes its run values. */
#define SSW_GRID_VALUES_FIELD_(id, index, name, units, long_name, field, ...)  \
  double field;
typedef struct {
  ssw_params body; /**< theta a b r s A B */
  SSW_RUN_AXES(SSW_GRID_VALUES_FIELD_)
  uint64_t key; /**< flat index over the body's axes */
} ssw_grid_values;

/** Puts a point's run values into a spec (each run axis's `home`). */
#define SSW_GRID_VALUES_PUT_(id, index, name, units, long_name, field,         \
                             section, home)                                    \
  sp->home = v->field;
static inline void ssw_grid_values_put(const ssw_grid_values *v,
                                       ssw_ensemble_spec *sp) {
  SSW_RUN_AXES(SSW_GRID_VALUES_PUT_)
}

/** Puts a point's run values into a body (those whose home is the body:
 * Gamma and the drag entries). */
static inline void ssw_grid_values_apply(const ssw_grid_values *v,
                                         ssw_body *body) {
  ssw_ensemble_spec sp = {.body = *body};
  ssw_grid_values_put(v, &sp);
  *body = sp.body;
}

/** Counter-based uniform double in [0, 1) keyed by (seed, grid index,
 * trajectory index, stream): the same value whatever rank or thread asks. */
double ssw_ensemble_uniform(uint64_t seed, uint64_t index, uint64_t traj,
                            uint64_t stream);

/** Initial state of trajectory `traj` of grid point `index`: a point on the
 * energy ellipse (w, v) K (w, v)^T = 2 H at angle psi (Cholesky
 * parametrisation), psi = 2 pi (traj + 1/2) / n for the lattice and
 * 2 pi U(seed, index, traj) for random draws. */
void ssw_ensemble_initial(const ssw_ensemble_spec *sp, const ssw_tensor *t,
                          uint64_t index, int64_t traj, double *w0, double *v0);

/** Creates a workspace for a spec (copied). Errors: SSW_ERR_MEM. */
int ssw_ensemble_create(const ssw_ensemble_spec *sp, ssw_ensemble **e);

/** Destroys a workspace; NULL-safe, sets *e to NULL. */
void ssw_ensemble_destroy(ssw_ensemble **e);

/** Computes grid point `index` at values `v` (its body parameters, and
 * its Gamma and energy, which replace the spec's): the grid-point
 * pipeline (point.h), the ensemble statistics (OpenMP across trajectories;
 * the result is bit-identical for any thread count) and the closed form.
 * `samples` (NULL: none) receives, when sp->samples > 0, the first
 * sp->samples trajectories as sp->sample_nodes rows at evenly spaced times
 * over their computed span (ssw_path_dense), laid out as
 * ssw_result_sample_doubles says, if `record` is set, and NaN otherwise (a
 * point not chosen for samples). Errors: SSW_ERR_BODY for an invalid body
 * (validation should have caught it), SSW_ERR_ARG, SSW_ERR_MEM. Numerical
 * failures of trajectories are not errors: they show in
 * converged_fraction and flags. */
int ssw_ensemble_run(ssw_ensemble *e, uint64_t index, const ssw_grid_values *v,
                     int record, ssw_point_result *res, double *samples);

#ifdef __cplusplus
}
#endif
#endif
