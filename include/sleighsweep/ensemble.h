/* The ensemble of one grid point: initial states from a counter-based
 * generator, OpenMP across trajectories, reductions in a fixed order. */
#ifndef SLEIGHSWEEP_ENSEMBLE_H
#define SLEIGHSWEEP_ENSEMBLE_H

#include <stdint.h>

#include "sleighsweep/config.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Workspace for the ensembles of one rank (opaque). */
typedef struct ssw_ensemble ssw_ensemble;

/** Integrator settings of a config. */
void ssw_ensemble_integrator(const ssw_config *cfg, ssw_integrator *o);

/** Counter-based uniform double in [0, 1) keyed by (seed, grid index,
 * trajectory index, stream): the same value whatever rank or thread asks. */
double ssw_ensemble_uniform(uint64_t seed, uint64_t index, uint64_t traj,
                            uint64_t stream);

/** Initial state of trajectory `traj` of grid point `index`: a point on the
 * energy ellipse (w, v) K (w, v)^T = 2 H at angle psi (Cholesky
 * parametrisation), psi = 2 pi (traj + 1/2) / n for the lattice and
 * 2 pi U(seed, index, traj) for random draws. */
void ssw_ensemble_initial(const ssw_config *cfg, const ssw_tensor *t,
                          uint64_t index, int64_t traj, double *w0, double *v0);

/** Creates a workspace for a config (kept by pointer, must outlive it).
 * Errors: SSW_ERR_MEM. */
int ssw_ensemble_create(const ssw_config *cfg, ssw_ensemble **e);

/** Destroys a workspace; NULL-safe, sets *e to NULL. */
void ssw_ensemble_destroy(ssw_ensemble **e);

/** Computes grid point `index`: tensor, regime, closed form, and the
 * ensemble statistics (OpenMP across trajectories; the result is
 * bit-identical for any thread count). When cfg->samples > 0 and `samples`
 * is not NULL, it receives the first cfg->samples trajectories as
 * cfg->sample_nodes rows at evenly spaced times over their computed span
 * (ssw_path_dense), laid out as in h5out.h ([quantity][sample][node]);
 * with NULL no path is kept (a grid point not chosen for samples).
 * Errors: SSW_ERR_BODY for an invalid body (validation should have caught
 * it), SSW_ERR_MEM. Numerical failures of trajectories are not errors:
 * they show in converged_fraction and flags. */
int ssw_ensemble_run(ssw_ensemble *e, uint64_t index, ssw_point_result *res,
                     double *samples);

#ifdef __cplusplus
}
#endif
#endif
