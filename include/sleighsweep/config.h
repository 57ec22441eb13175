/* Sweep configuration: INI parsing (libinih), defaults and validation. */
#ifndef SLEIGHSWEEP_CONFIG_H
#define SLEIGHSWEEP_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sleighsweep/ensemble.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/model.h"
#include "sleighsweep/stepper.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Energies H the integration's arithmetic takes with a wide margin: the
 * velocities scale as sqrt(H), and products of two velocities and tensor
 * entries must neither overflow nor underflow (point --omega0 1e160 overflows
 * H; 1e-160 underflows it). The asymptotic quantities do not depend on H
 * (docs/theory/model.md, the closed form), so nothing is lost by the bound. */
#define SSW_ENERGY_MIN 1e-200
#define SSW_ENERGY_MAX 1e200
/** Shortest flush interval (s): an epoch is a collective HDF5 write and
 * flush; shorter intervals only make epochs follow back to back. */
#define SSW_FLUSH_INTERVAL_MIN 0.01

/** Grid points chosen for sample trajectories (`[output] sample_points`,
 * sample_points.h): every point, or sorted distinct flat indices. */
typedef struct {
  uint64_t *index; /**< n flat grid indices, increasing (NULL when all) */
  size_t n;        /**< number of chosen points */
  int all;         /**< 1: every grid point (index is NULL, n the grid size) */
} ssw_sample_points;

/** A validated configuration. Every field has a documented default. */
typedef struct {
  /* [body] */
  ssw_body body;        /**< m, I0, rho (required), k_rot */
  char k_rot_name[16];  /**< "papers" (1/4), "lamb" (1/8) or "custom" */
  double zero_tol;      /**< regime zero tolerance (SSW_ZERO_TOL_DEFAULT) */
  char length_unit[32]; /**< UDUNITS symbol of lengths, "" if not given */
  char mass_unit[32];   /**< UDUNITS symbol of masses, "" if not given */
  /* [grid] */
  ssw_axis axes[SSW_NAXES];
  /* [ensemble] */
  int32_t trajectories;    /**< per grid point (default 16) */
  int32_t attractor_slots; /**< attractors stored per point (4, at most
                                SSW_ATTRACTOR_SLOTS_MAX) */
  uint64_t seed;           /**< RNG key (default 1) */
  int ic;                  /**< ssw_ic_kind (default random) */
  double energy;           /**< energy H of every trajectory (default 0.5) */
  /* [integrator]: the extraction's own settings (defaults in extract.h) */
  ssw_integrator integ;
  /* [output] */
  char *file;      /**< absolute output path: a relative [output] file (default:
                      the config name .h5) is in the config's directory */
  int32_t samples; /**< sample trajectories kept per point (0) */
  int32_t sample_nodes; /**< rows at even times per sample trajectory (256) */
  int32_t exact_path_every; /**< trajectory 0 against its exact path at
                                 grid points whose index is a multiple of
                                 it (1: every point; 0: none) */
  char *sample_points; /**< grid points keeping samples, as written ("all") */
  ssw_sample_points sample_sel; /**< those points, parsed */
  double flush_interval;        /**< seconds between durability points (120) */
  /* [run] */
  int32_t work_unit;        /**< grid points per work unit (0: automatic) */
  double progress_interval; /**< seconds between progress lines (10) */
  /* [refine]: boundary refinement after the grid (refine.h) */
  int32_t refine_classes;   /**< OR of SSW_REFINE_* bits (0: none, default) */
  double refine_tol;        /**< bracket width to reach, axis units (1e-6) */
  int32_t refine_max_evals; /**< evaluations per crossing at most (40) */
  int32_t refine_trajectories; /**< trajectories per evaluation (1) */
  int refine_points; /**< store each crossing's full measurements (0) */
  /* provenance */
  char *path; /**< the config file path as given */
  char *text; /**< the whole config text, stored in every output */
} ssw_config;

/** The axes that are dimensions of the output, in storage order: the
 * body's always, a run axis (Gamma, energy, drag) only when it holds more
 * than one value. Fills out[0 .. count) with axis indices and returns the
 * count (SSW_NBODY_AXES to SSW_NAXES). Dropping axes of one value leaves every
 * flat index as it is (row-major). */
int ssw_config_file_axes(const ssw_config *cfg, int out[SSW_NAXES]);

/** Parses and validates a config file. On error returns SSW_ERR_CONFIG (or
 * SSW_ERR_IO if unreadable) with a message "PATH:LINE: [section] key: what
 * is wrong", and *cfg is NULL. Grid-wide physics checks are separate
 * (ssw_grid_validate). */
int ssw_config_load(const char *path, ssw_config **cfg);

/** As ssw_config_load, from text in memory; `name` labels messages. */
int ssw_config_parse(const char *text, const char *name, ssw_config **cfg);

/** Checks every grid point before any work starts: size <= 2^31, A > B
 * everywhere, and a positive definite tensor at each point. Errors:
 * SSW_ERR_CONFIG naming the config line of the responsible axis and the
 * first offending point. */
int ssw_grid_validate(const ssw_config *cfg);

/** A key of the key table that holds one real number. */
typedef struct {
  const char *name; /**< the key ("m", "Gamma", "zero_tol") */
  const char *help; /**< what it means */
  const char *def;  /**< its default as written; NULL: required */
  size_t offset;    /**< where ssw_config holds it (ssw_config_real_at) */
} ssw_config_real;

/** The keys of [section] that hold one real number, in the key table's
 * order: fills out[0 .. max) and returns their count. The command line's
 * body options, the file's body attributes and the JSON's body fields
 * follow from this list, so a key added to the table reaches them all. */
int ssw_config_reals(const char *section, ssw_config_real *out, int max);

/** The value of a real key in a config. */
static inline double *ssw_config_real_at(ssw_config *cfg,
                                         const ssw_config_real *k) {
  return (double *)(void *)((char *)cfg + k->offset);
}
static inline double ssw_config_real_get(const ssw_config *cfg,
                                         const ssw_config_real *k) {
  return *(const double *)(const void *)((const char *)cfg + k->offset);
}

/** Sets [section] key from `value` with the config file's own parser and
 * range; 0, or -1 with the reason in `why`. */
int ssw_config_set(ssw_config *cfg, const char *section, const char *key,
                   const char *value, char *why, size_t n);

/** What the ensemble of every grid point needs of a config. */
void ssw_config_ensemble(const ssw_config *cfg, ssw_ensemble_spec *sp);

/** 1 when `typed` is a near miss of `candidate` (the same letters in
 * another case, or at most two edits), for "did you mean" hints of the
 * config and the command line. */
int ssw_config_near_miss(const char *typed, const char *candidate);

/** Compares what two configs mean: every key's parsed value (doubles
 * bit-exact, words exactly, axes by their values), in key-table order,
 * except the keys that do not change results ([output] file and
 * flush_interval, [run] work_unit and progress_interval: docs/config.md,
 * "What a resume compares"). Comments, blank space, the order of lines and
 * how a number is written do not count. Returns 0 when they mean the same,
 * else 1 with `why` naming the first differing key, e.g. "[body] m: 1.5 in
 * the file, 2 in the config" (`a` is the stored config, `b` the current
 * one; values in canonical form). */
int ssw_config_compare(const ssw_config *a, const ssw_config *b, char *why,
                       size_t n);

/** The canonical text of a config: "[section] key = value\n" for each key
 * ssw_config_compare compares, in key-table order, numbers in their
 * shortest exact form (axes of more than 16 values as their length, ends
 * and a checksum of the values). Two configs have the same canonical text
 * exactly when ssw_config_compare finds them the same. *text is malloc'd.
 * Errors: SSW_ERR_MEM. */
int ssw_config_canonical(const ssw_config *cfg, char **text);

/** Compares two canonical texts line by line: 0 when equal, else 1 with
 * `why` = "[section] key: VALUE_A LABEL_A, VALUE_B LABEL_B" for the first
 * differing key (labels such as "in the journal", "in the config"). */
int ssw_config_canonical_diff(const char *a, const char *b, const char *label_a,
                              const char *label_b, char *why, size_t n);

/** Prints one line per axis: its name, number of values and range (theta
 * in radians and in degrees), for `run --dry-run`. */
void ssw_config_print_axes(const ssw_config *cfg, FILE *f);

/** Frees a config; NULL-safe, sets *cfg to NULL. */
void ssw_config_destroy(ssw_config **cfg);

#ifdef __cplusplus
}
#endif
#endif
