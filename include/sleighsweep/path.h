/* A recorded path: the nodes an extraction reports through its sample
 * callback, kept as rows (t, phi, x, y, omega, v, H) and put in time order.
 * Used by `point --trajectory` and by the sweep's sample trajectories. */
#ifndef SLEIGHSWEEP_PATH_H
#define SLEIGHSWEEP_PATH_H

#include <stddef.h>

#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Quantities of a row: t, phi, x, y, omega, v, H (the order of the sample
 * datasets of the output file, SSW_SAMPLE_* in h5out.h). */
#define SSW_PATH_NQ 7
/** Exact quantities per row from ssw_path_exact: phi, x, y, omega, v. */
#define SSW_PATH_NEXACT 5

/** A growable list of rows. Zero-initialise; free with ssw_path_free. */
typedef struct {
  double (*rows)[SSW_PATH_NQ];
  size_t n, cap;
  int failed; /**< an append ran out of memory (rows are then incomplete) */
} ssw_path;

/** Appends one row; an ssw_sample_fn (extract.h) with ctx = the path.
 * `dir` is ignored: ssw_path_sort orders both directions by time. */
void ssw_path_record(void *ctx, int dir, double t, double phi, double x,
                     double y, double w, double v, double H);

/** Sorts the rows by time. Errors: SSW_ERR_MEM if an append failed. */
int ssw_path_sort(ssw_path *p);

/** Forgets the rows, keeping the memory for reuse. */
void ssw_path_clear(ssw_path *p);

/** Compares a time-sorted path of the trajectory through (w0, v0) (heading
 * 0 and contact point at the origin at t = 0) with its exact path: the
 * largest distance of the contact points (length) and difference of the
 * headings (rad) over the rows. `exact` (may be NULL) receives the exact
 * (phi, x, y, omega, v) of every row; with circulation (t->kappa != 0)
 * the exact motion is circulation.h's. Errors: as ssw_analytic_orbit or
 * ssw_circ_orbit_init and ssw_circ_orbit_advance. */
int ssw_path_exact(const ssw_path *p, const ssw_tensor *t, int regime,
                   double w0, double v0, double (*exact)[SSW_PATH_NEXACT],
                   double *pos_err, double *head_err);

/** Rows per leg a sweep compares with the exact path (path_error_max):
 * every k-th row of a leg, k = rows / SSW_PATH_COMPARE_ROWS, and its last
 * (docs/theory/exact-path.md, "What a sweep compares"). */
#define SSW_PATH_COMPARE_ROWS 16

/** ssw_path_exact at about per_leg rows of each leg (every k-th row, k =
 * rows / per_leg, and the leg's last; all rows when per_leg <= 0 or
 * `exact` is given). */
int ssw_path_exact_sampled(const ssw_path *p, const ssw_tensor *t, int regime,
                           double w0, double v0, int per_leg,
                           double (*exact)[SSW_PATH_NEXACT], double *pos_err,
                           double *head_err);

/** Dense output of a time-sorted path: `n` rows at evenly spaced times
 * t_k = t_first + k (t_last - t_first) / (n - 1), k = 0..n-1 (the first and
 * last node's times exactly), written to out[k][0..SSW_PATH_NQ). Between two
 * nodes, (phi, x, y, omega, v) are integrated from each node with
 * Dormand-Prince steps (ssw_dopri5_step, tensor `t`) of at most 1/32 of the
 * node spacing and blended linearly (weight 1 at a row's own node), as
 * accurate as the nodes themselves (docs/config.md,
 * "Sample trajectories", states the promise); H, constant along the
 * motion, is interpolated linearly. A path
 * of one node gives that node in row 0 and NaN elsewhere; an empty path NaN
 * everywhere. n >= 2. */
void ssw_path_dense(const ssw_path *p, const ssw_tensor *t, size_t n,
                    double (*out)[SSW_PATH_NQ]);

/** Frees the rows (NULL-safe) and zeroes the path. */
void ssw_path_free(ssw_path *p);

#ifdef __cplusplus
}
#endif
#endif
