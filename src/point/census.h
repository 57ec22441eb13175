/* The attractor census of one grid point (docs/theory/forcing.md, "The
 * census"): the ensemble's trajectories matched into attractors by their
 * invariants on the period map, in trajectory index order, and the
 * attractors sorted into the point's slots. Shared by ensemble.c and its
 * tests: not an API. Pure: no I/O, no allocation. */
#ifndef SSW_POINT_CENSUS_H
#define SSW_POINT_CENSUS_H

#include <stdint.h>

#include "sleighsweep/extract.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/result.h"

/* Running statistics of one quantity. */
typedef struct {
  double sum, lo, hi;
  int64_t n;
} ssw_stat;

void ssw_stat_add(ssw_stat *s, double x);
/* The mean; NaN when empty. */
double ssw_stat_mean(const ssw_stat *s);
/* max - min; 0 when all equal (including all infinite), NaN when empty. */
double ssw_stat_spread(const ssw_stat *s);

/* Distinct attractors one point tracks; a trajectory that matches none
 * of them once they are all taken is counted in the point's `other`
 * share (attractor_other_fraction), never dropped. */
#define SSW_CENSUS_TRACK 64
/* Two cycles of the same length are one attractor when, up to a cyclic
 * shift, each point of one lies within this distance of the other's,
 * relative to the cycle's largest point (energy norm): the transient
 * detector's tolerance (a cycle is Newton-polished to 1e-12, distinct
 * cycles lie O(1) apart). */
#define SSW_CENSUS_CYCLE_TOL SSW_FORCED_DETECT

/* What the census needs of one trajectory: its class, for a periodic one
 * its cycle (n points on the section in map order), its mean velocity
 * (mean_omega, mean_v) and both exponents, with their errors. */
typedef struct {
  int cls, n;
  double pts[SSW_FORCED_NMAX][2];
  double vel[2], err_vel[2];
  double lyap[2], err_lyap[2];
} ssw_census_key;

/* A trajectory's measurements (SSW_FQ_* order), their errors and closed
 * forms, the closed Floquet product and the smaller exponent: the slot's
 * statistics over its converged members. */
typedef struct {
  const double *fq, *err_fq, *x_fq;
  double x_fprod, lyap2;
  int converged;
} ssw_census_values;

/* One attractor: its first member's key and index, the lexicographically
 * smallest point of its cycle (the shift-invariant sort key), its member
 * count and its converged members' statistics. */
typedef struct {
  ssw_census_key rep;
  double low[2];
  int64_t first, count, conv;
  ssw_stat q[SSW_FQ_N], x[SSW_FQ_N], prod, lyap2;
  double err[SSW_FQ_N];
} ssw_census_entry;

typedef struct {
  double J, L2, M; /* the energy norm's metric (the tensor's K) */
  int n;
  int64_t untracked;
  ssw_census_entry e[SSW_CENSUS_TRACK];
} ssw_census;

/* An empty census with the energy norm of tensor t. */
void ssw_census_start(ssw_census *c, const ssw_tensor *t);

/* The first attractor (in the order they were found) that key k matches,
 * or -1: periodic, the same cycle length and its points within
 * SSW_CENSUS_CYCLE_TOL up to a cyclic shift (a cycle not measured, NaN,
 * matches an unmeasured one of its length); quasiperiodic or chaotic, the
 * same class with both exponents and both mean velocities within
 * SSW_CLASS_K times their two errors summed; any other class, its class. */
int ssw_census_match(const ssw_census *c, const ssw_census_key *k);

/* Trajectory `index` (reduced in index order) into the census. */
void ssw_census_add(ssw_census *c, const ssw_census_key *k, int64_t index,
                    const ssw_census_values *v);

/* The census of n trajectories into res: the attractors sorted (members
 * descending, ties by class code, cycle length, the cycle's smallest
 * point, mean_omega, first member), the first `slots` into the slot
 * arrays (the rest and the untracked share into
 * attractor_other_fraction), attractor_count, and slot 0 into the
 * point's attractor, cycle_periods and forced quantities. Sorts c->e;
 * c NULL is an empty census. */
void ssw_census_finish(ssw_census *c, int slots, int64_t n,
                       ssw_point_result *res);

#endif
