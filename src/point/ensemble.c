/* Ensemble of one grid point: keyed initial states, OpenMP trajectories,
 * fixed-order reductions into an ssw_point_result. */
#include "sleighsweep/ensemble.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "sleighsweep/damped.h"
#include "sleighsweep/drag.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/names.h"
#include "sleighsweep/path.h"
#include "sleighsweep/point.h"

/* Trajectories are processed in blocks: each block in parallel, then
 * reduced sequentially in index order. Memory stays bounded for any
 * ensemble size and the sums are independent of the thread count. */
#define BLOCK 1024

/* What the reduction needs of one trajectory. */
typedef struct {
  double r_future, r_past, d, dphi_abs, energy_error;
  double err_d, err_dphi, err_r, err_t0; /* err_t0 relative: see result.h */
  double blade, err_blade;               /* max |F| / H and its estimate */
  int64_t steps;
  int loops, sense_future, converged, flags;
  int arc, periodic; /* circulation: g's sign; below the critical energy */
  double period, hpp, drift, orbit, err_period, err_hpp;
  /* drag: |heading|, rest distance, path length, decay, settling time,
   * their estimates, the approach (-1 without drag) and the exact twins */
  double heading, rest, path, decay, settle;
  double err_heading, err_rest, err_path, err_decay;
  double x_heading, x_rest, x_path;
  int approach;
  /* forcing: the attractor (-1 unforced), the census's invariants, the
   * measured quantities, their estimates and closed forms (SSW_FQ_*
   * order), the smaller exponent */
  int attractor;
  ssw_census_key key;
  double fq[SSW_FQ_N], err_fq[SSW_FQ_N], x_fq[SSW_FQ_N], x_fprod, lyap2;
} traj_summary;

/* Trajectories handed to the batch kernel at once: a multiple of the SIMD
 * lanes, small enough that threads share the work evenly. */
#define BATCH 16

_Static_assert(SSW_PATH_NQ == SSW_SAMPLE_NQ,
               "path rows are laid out as the sample datasets");

struct ssw_ensemble {
  ssw_ensemble_spec sp;
  traj_summary *block;
  ssw_path *nodes; /* one per sample trajectory */
  ssw_path probe;  /* trajectory 0's path when it is not a sample */
  int recording;   /* sample trajectories wanted at this point */
  int check_path;  /* trajectory 0 against its exact path at this point */
  uint64_t key;    /* the initial conditions' key (ssw_grid_values.key) */
  double (*dense)[SSW_PATH_NQ]; /* sample_nodes rows of dense output */
  ssw_error_state *errs; /* one per batch of a block: errors of threads */
  ssw_census *census;    /* the point's attractors */
};

/* SplitMix64 finaliser (Steele, Lea & Flood 2014): a bijective mix. */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double ssw_ensemble_uniform(uint64_t seed, uint64_t index, uint64_t traj,
                            uint64_t stream) {
  const uint64_t g = 0x9E3779B97F4A7C15ULL;
  uint64_t z = mix64(seed + g);
  z = mix64(z ^ (index + 1) * g);
  z = mix64(z ^ (traj + 1) * g);
  z = mix64(z ^ (stream + 1) * g);
  return (double)(z >> 11) * 0x1p-53;
}

void ssw_ensemble_initial(const ssw_ensemble_spec *sp, const ssw_tensor *t,
                          uint64_t index, int64_t traj, double *w0,
                          double *v0) {
  const double psi =
      sp->ic == SSW_IC_LATTICE
          ? 2.0 * M_PI * ((double)traj + 0.5) / (double)sp->trajectories
          : 2.0 * M_PI *
                ssw_ensemble_uniform(sp->seed, index, (uint64_t)traj, 0);
  ssw_extract_energy_point(t, sp->energy, psi, w0, v0);
}

int ssw_ensemble_create(const ssw_ensemble_spec *spec, ssw_ensemble **e) {
  *e = NULL;
  ssw_ensemble *w = calloc(1, sizeof *w);
  SSW_CHECK(w, SSW_ERR_MEM, "out of memory for the ensemble workspace");
  w->sp = *spec;
  const ssw_ensemble_spec *sp = &w->sp;
  w->block = calloc(BLOCK, sizeof *w->block);
  w->errs = calloc(BLOCK / BATCH, sizeof *w->errs);
  w->census = malloc(sizeof *w->census);
  w->nodes =
      sp->samples > 0 ? calloc((size_t)sp->samples, sizeof *w->nodes) : NULL;
  w->dense = sp->samples > 0
                 ? malloc((size_t)sp->sample_nodes * sizeof *w->dense)
                 : NULL;
  if (!w->block || !w->errs || !w->census ||
      (sp->samples > 0 && (!w->nodes || !w->dense))) {
    ssw_ensemble_destroy(&w);
    return SSW_RAISE(SSW_ERR_MEM, "out of memory for the ensemble workspace");
  }
  *e = w;
  return SSW_SUCCESS;
}

void ssw_ensemble_destroy(ssw_ensemble **e) {
  if (!e || !*e) return;
  if ((*e)->nodes)
    for (int i = 0; i < (*e)->sp.samples; i++)
      ssw_path_free(&(*e)->nodes[i]);
  ssw_path_free(&(*e)->probe);
  free((*e)->dense);
  free((*e)->nodes);
  free((*e)->block);
  free((*e)->errs);
  free((*e)->census);
  free(*e);
  *e = NULL;
}

/* The exact rest of a damped trajectory where the C = c K oracle applies
 * (NaN elsewhere): |heading|, rest distance, path length. */
static void damped_twins(const ssw_point *pt, double w0, double v0,
                         traj_summary *s) {
  s->x_heading = s->x_rest = s->x_path = NAN;
  if (!(ssw_model_caps(&pt->tensor) & SSW_MCAP_COMES_TO_REST)) return;
  double phi, x, y, len;
  if (ssw_drag_exact(&pt->tensor, pt->regime, w0, v0, INFINITY, &phi, &x, &y,
                     &len) != SSW_SUCCESS) {
    ssw_error_clear();
    return;
  }
  s->x_heading = fabs(phi), s->x_rest = hypot(x, y), s->x_path = len;
}

/* A forced trajectory's measurements and census invariants. */
static void forced_summary(const ssw_traj *r, traj_summary *s) {
  ssw_census_key *k = &s->key;
  memcpy(s->fq, r->forced, sizeof s->fq);
  memcpy(s->err_fq, r->err_forced, sizeof s->err_fq);
  memcpy(s->x_fq, r->x_forced, sizeof s->x_fq);
  s->x_fprod = r->x_floquet_product;
  s->lyap2 = r->lyapunov_2;
  k->cls = r->attractor;
  k->n = r->cycle_periods;
  memcpy(k->pts, r->cycle_pts, sizeof k->pts);
  k->vel[0] = r->forced[SSW_FQ_MEAN_OMEGA],
  k->vel[1] = r->forced[SSW_FQ_MEAN_V];
  k->err_vel[0] = r->err_forced[SSW_FQ_MEAN_OMEGA];
  k->err_vel[1] = r->err_forced[SSW_FQ_MEAN_V];
  k->lyap[0] = r->forced[SSW_FQ_LYAPUNOV_MAX], k->lyap[1] = r->lyapunov_2;
  k->err_lyap[0] = r->err_forced[SSW_FQ_LYAPUNOV_MAX];
  k->err_lyap[1] = r->err_lyapunov_2;
}

/* Trajectories [first, first + cnt) of a point, stepped together in the
 * batch kernel and summarised; sample trajectories also record nodes. */
static int one_batch(const ssw_ensemble *e, const ssw_point *pt,
                     const ssw_point_result *res, int64_t first, int cnt,
                     traj_summary *out) {
  const ssw_ensemble_spec *sp = &e->sp;
  double w0[BATCH], v0[BATCH];
  void *ctx[BATCH];
  ssw_traj r[BATCH];
  int any_sample = 0;
  for (int k = 0; k < cnt; k++) {
    const int64_t traj = first + k;
    ssw_ensemble_initial(sp, &res->tensor, e->key, traj, &w0[k], &v0[k]);
    /* Trajectory 0 is recorded where its path is compared with the exact
     * one (path_error_max; [output] exact_path_every). Only the thread of
     * batch 0 touches it. */
    ssw_path *nb =
        e->recording && traj < sp->samples
            ? &e->nodes[traj]
            : (traj == 0 && e->check_path ? (ssw_path *)&e->probe : NULL);
    if (nb) {
      ssw_path_clear(nb);
      ssw_path_record(nb, 0, 0.0, 0.0, 0.0, 0.0, w0[k], v0[k],
                      SSW_MODEL_ENERGY(&res->tensor, w0[k], v0[k]));
      any_sample = 1;
    }
    ctx[k] = nb;
  }
  SSW_CALL(ssw_point_trajectories(pt, cnt, w0, v0, &sp->integ,
                                  any_sample ? ssw_path_record : NULL,
                                  any_sample ? ctx : NULL, r));
  for (int k = 0; k < cnt; k++)
    out[k] = (traj_summary){.r_future = r[k].r_future,
                            .r_past = r[k].r_past,
                            .d = r[k].d,
                            .dphi_abs = fabs(r[k].dphi),
                            .energy_error = r[k].energy_error,
                            .err_d = r[k].err_d,
                            .err_dphi = r[k].err_dphi,
                            .err_r = r[k].err_r,
                            .err_t0 =
                                r[k].err_t0 / (fabs(r[k].t0) + 1.0 / r[k].rate),
                            .blade = r[k].blade_force_max,
                            .err_blade = r[k].err_blade,
                            .steps = r[k].steps,
                            .loops = r[k].loops,
                            .sense_future = r[k].sense_future,
                            .converged = r[k].converged,
                            .flags = r[k].flags,
                            .arc = r[k].arc,
                            .periodic = r[k].periodic,
                            .period = r[k].period,
                            .hpp = r[k].heading_per_period,
                            .drift = r[k].drift_per_period,
                            .orbit = r[k].orbit_radius,
                            .err_period = r[k].err_period,
                            .err_hpp = r[k].err_heading_period,
                            .heading = fabs(r[k].heading_total),
                            .rest = r[k].rest_distance,
                            .path = r[k].path_length,
                            .decay = r[k].decay_rate,
                            .settle = r[k].settle_time,
                            .err_heading = r[k].err_heading_total,
                            .err_rest = r[k].err_rest,
                            .err_path = r[k].err_path,
                            .err_decay = r[k].err_decay,
                            .approach = r[k].approach};
  const int forced =
      (ssw_model_caps(&pt->tensor) & SSW_MCAP_TIME_PERIODIC) != 0;
  for (int k = 0; k < cnt; k++) {
    damped_twins(pt, w0[k], v0[k], &out[k]);
    out[k].attractor = forced ? r[k].attractor : -1;
    if (forced) forced_summary(&r[k], &out[k]);
  }
  return SSW_SUCCESS;
}

typedef struct {
  ssw_stat rf, rp, d, dphi, blade;
  ssw_stat period, hpp, drift, orbit; /* periodic motions */
  double err_period, err_hpp;
  double err_d, err_dphi, err_r, err_t0, err_blade; /* max of the estimates */
  int64_t conv, steps, sense[3];
  int *loops; /* one per counted trajectory, for the mode */
  int64_t nloops;
  double emax;
  int flags;
  /* drag: the rest's statistics, the exact twins', the largest estimates,
   * the counts of damped trajectories and of foci among them */
  ssw_stat heading, rest, path, decay, settle, x_heading, x_rest, x_path;
  double err_heading, err_rest, err_path, err_decay;
  int64_t damped, foci;
  ssw_census *census; /* NULL: a point without attractors */
  int forced;         /* the forced extractor's point */
} reduction;

static void reduce_damped(reduction *a, const traj_summary *s) {
  ssw_stat_add(&a->heading, s->heading);
  ssw_stat_add(&a->rest, s->rest);
  ssw_stat_add(&a->path, s->path);
  ssw_stat_add(&a->decay, s->decay);
  ssw_stat_add(&a->settle, s->settle);
  ssw_stat_add(&a->x_heading, s->x_heading);
  ssw_stat_add(&a->x_rest, s->x_rest);
  ssw_stat_add(&a->x_path, s->x_path);
  a->err_heading = fmax(a->err_heading, s->err_heading);
  a->err_rest = fmax(a->err_rest, s->err_rest);
  a->err_path = fmax(a->err_path, s->err_path);
  a->err_decay = fmax(a->err_decay, s->err_decay);
  a->damped++;
  a->foci += s->approach == SSW_APPROACH_FOCUS;
}

/* The census of a forced point, or of an unforced one whose model comes
 * to rest (drag: the drag extractor's end, so that a sweep's torque_amp =
 * 0 has a class beside the forced points); NULL elsewhere. */
static ssw_census *census_start(const ssw_tensor *t, ssw_census *c) {
  const unsigned caps = ssw_model_caps(t);
  if (!(caps & (SSW_MCAP_TIME_PERIODIC | SSW_MCAP_COMES_TO_REST))) return NULL;
  ssw_census_start(c, t);
  return c;
}

/* Trajectory `index` into the census: a forced one with its invariants
 * and measurements, a damped one as `rest` (converged) or `unresolved`. */
static void reduce_census(ssw_census *c, int forced, const traj_summary *s,
                          int64_t index) {
  const ssw_census_values v = {s->fq,      s->err_fq, s->x_fq,
                               s->x_fprod, s->lyap2,  s->converged};
  if (forced) {
    ssw_census_add(c, &s->key, index, &v);
    return;
  }
  const ssw_census_key k = {.cls = s->converged ? SSW_ATTRACTOR_REST
                                                : SSW_ATTRACTOR_UNRESOLVED};
  const ssw_census_values none = {.converged = 0};
  ssw_census_add(c, &k, index, &none);
}

static void reduce_periodic(reduction *a, const traj_summary *s) {
  ssw_stat_add(&a->period, s->period);
  ssw_stat_add(&a->hpp, s->hpp);
  ssw_stat_add(&a->drift, s->drift);
  ssw_stat_add(&a->orbit, s->orbit);
  a->err_period = fmax(a->err_period, s->err_period);
  a->err_hpp = fmax(a->err_hpp, s->err_hpp);
}

/* One trajectory into the point's statistics. `lower` (NULL without
 * circulation) takes the arc g < 0's transition angles, spacings and
 * loops: the two arcs are two populations, never one mean. */
static void reduce_one(reduction *a, reduction *lower, const traj_summary *s,
                       int64_t index) {
  a->steps += s->steps;
  a->flags |= s->flags;
  if (s->energy_error > a->emax) a->emax = s->energy_error;
  if (a->census) reduce_census(a->census, a->forced, s, index);
  if (!s->converged) return;
  if (a->forced) {
    a->conv++;
    return;
  }
  a->conv++;
  if (s->flags & SSW_TRAJ_EQUILIBRIUM) return;
  if (s->periodic) {
    reduce_periodic(a, s);
    return;
  }
  reduction *arc = lower && s->arc < 0 ? lower : a;
  /* fmax ignores NaN (no estimate, or undefined in the regime). */
  a->err_d = fmax(a->err_d, s->err_d);
  a->err_dphi = fmax(a->err_dphi, s->err_dphi);
  a->err_r = fmax(a->err_r, s->err_r);
  a->err_t0 = fmax(a->err_t0, s->err_t0);
  a->err_blade = fmax(a->err_blade, s->err_blade);
  ssw_stat_add(&a->rf, s->r_future);
  ssw_stat_add(&a->rp, s->r_past);
  if (!isnan(s->d)) ssw_stat_add(&arc->d, s->d);
  ssw_stat_add(&arc->dphi, s->dphi_abs);
  ssw_stat_add(&a->blade, s->blade);
  a->sense[s->sense_future + 1]++;
  arc->loops[arc->nloops++] = s->loops;
  if (s->approach >= 0) reduce_damped(a, s);
}

static int cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Most frequent value; ties go to the smaller value. -1 when empty. */
static int mode_of(int *v, int64_t n) {
  if (n == 0) return -1;
  qsort(v, (size_t)n, sizeof *v, cmp_int);
  int best = v[0];
  int64_t best_n = 0, run = 0;
  for (int64_t i = 0; i < n; i++) {
    run = (i > 0 && v[i] == v[i - 1]) ? run + 1 : 1;
    if (run > best_n) best_n = run, best = v[i];
  }
  return best;
}

/* No estimate yet: fmax ignores the NaN. */
static void reduction_init(reduction *a) {
  a->err_d = a->err_dphi = a->err_r = a->err_t0 = a->err_blade = NAN;
  a->err_period = a->err_hpp = NAN;
  a->err_heading = a->err_rest = a->err_path = a->err_decay = NAN;
}

/* The point's attractors (census.c): slot 0 is its attractor, whose
 * converged members' statistics are the forced quantities'. Without a
 * census: -1 and NaN. */
static void finish_census(const reduction *a, int slots, int64_t n,
                          ssw_point_result *res) {
  res->attractor = res->cycle_periods = -1;
  res->analytic_floquet_product = NAN;
  for (int k = 0; k < SSW_FQ_N; k++)
    res->forced[k] = res->forced_spread[k] = res->forced_error[k] =
        res->analytic_forced[k] = NAN;
  ssw_census_finish(a->census, slots, n, res);
  if (a->census) return;
  res->attractor_count = -1;
  res->attractor_other_fraction = NAN;
}

static void finish(const reduction *a, int slots, int64_t n,
                   ssw_point_result *res) {
  res->radius_future = ssw_stat_mean(&a->rf);
  res->radius_past = ssw_stat_mean(&a->rp);
  res->center_spacing = ssw_stat_mean(&a->d);
  res->transition_angle = ssw_stat_mean(&a->dphi);
  res->blade_force_max = ssw_stat_mean(&a->blade);
  res->radius_future_spread = ssw_stat_spread(&a->rf);
  res->radius_past_spread = ssw_stat_spread(&a->rp);
  res->center_spacing_spread = ssw_stat_spread(&a->d);
  res->transition_angle_spread = ssw_stat_spread(&a->dphi);
  res->converged_fraction = (double)a->conv / (double)n;
  res->energy_error_max = a->emax;
  res->steps_mean = (double)a->steps / (double)n;
  res->trajectories = (int32_t)n;
  res->flags = a->flags;
  res->center_spacing_error = a->err_d;
  res->transition_angle_error = a->err_dphi;
  res->radius_error = a->err_r;
  res->t0_error = a->err_t0;
  res->blade_force_error = a->err_blade;
  int s = 1; /* sense 0 when no counted trajectory */
  if (a->sense[0] > a->sense[s]) s = 0;
  if (a->sense[2] > a->sense[s]) s = 2;
  res->sense_future = s - 1;
  res->period = ssw_stat_mean(&a->period);
  res->heading_per_period = ssw_stat_mean(&a->hpp);
  res->drift_per_period = ssw_stat_mean(&a->drift);
  res->orbit_radius = ssw_stat_mean(&a->orbit);
  res->period_error = a->err_period;
  res->heading_per_period_error = a->err_hpp;
  res->heading_total = ssw_stat_mean(&a->heading);
  res->rest_distance = ssw_stat_mean(&a->rest);
  res->path_length = ssw_stat_mean(&a->path);
  res->decay_rate = ssw_stat_mean(&a->decay);
  res->settle_time = ssw_stat_mean(&a->settle);
  res->heading_total_error = a->err_heading;
  res->rest_distance_error = a->err_rest;
  res->path_length_error = a->err_path;
  res->decay_rate_error = a->err_decay;
  res->focus_fraction = a->damped ? (double)a->foci / (double)a->damped : NAN;
  res->analytic_heading_total = ssw_stat_mean(&a->x_heading);
  res->analytic_rest_distance = ssw_stat_mean(&a->x_rest);
  res->analytic_path_length = ssw_stat_mean(&a->x_path);
  finish_census(a, slots, n, res);
}

/* The rest's closed-form decay rate and frequency (NaN without drag). */
static void drag_twins(const ssw_tensor *t, ssw_point_result *res) {
  ssw_drag_rest rest;
  res->analytic_decay_rate = res->analytic_decay_frequency = NAN;
  if (!(ssw_model_caps(t) & SSW_MCAP_COMES_TO_REST) ||
      ssw_drag_rest_eigen(t, &rest) != SSW_SUCCESS)
    return;
  res->analytic_decay_rate = rest.decay;
  res->analytic_decay_frequency = rest.im[0];
}

/* The arc g < 0's population, where the ensemble splits by arc. */
static void finish_lower(const reduction *a, reduction *low,
                         ssw_point_result *res) {
  res->transition_angle_lower = low ? ssw_stat_mean(&low->dphi) : NAN;
  res->center_spacing_lower = low ? ssw_stat_mean(&low->d) : NAN;
  res->loops_lower = low ? mode_of(low->loops, low->nloops) : -1;
  const double up = (double)a->dphi.n, down = low ? (double)low->dphi.n : 0;
  res->upper_fraction = low && up + down > 0 ? up / (up + down) : NAN;
}

/* A forced trajectory's rows: the last N of its period map's points
 * (recorded in time order, the initial state first), NaN after them
 * when it has fewer. */
static void section_rows(const ssw_path *b, size_t N,
                         double (*rows)[SSW_PATH_NQ]) {
  const size_t first = b->n > N ? b->n - N : 0;
  for (size_t k = 0; k < N; k++)
    for (size_t q = 0; q < SSW_PATH_NQ; q++)
      rows[k][q] = first + k < b->n ? b->rows[first + k][q] : NAN;
}

/* Each recorded sample trajectory as sample_nodes rows, laid out
 * [quantity][sample][node]: at evenly spaced times over its computed
 * span (ssw_path_dense), or for a forced point its Poincare section (the
 * period map's last points: docs/output.md). */
static int store_samples(const ssw_ensemble *e, const ssw_tensor *t,
                         double *out) {
  const size_t S = (size_t)e->sp.samples, N = (size_t)e->sp.sample_nodes;
  const int forced = (ssw_model_caps(t) & SSW_MCAP_TIME_PERIODIC) != 0;
  for (size_t s = 0; s < S; s++) {
    ssw_path *b = &e->nodes[s];
    SSW_CALL(ssw_path_sort(b));
    if (forced)
      section_rows(b, N, e->dense);
    else
      ssw_path_dense(b, t, N, e->dense);
    for (size_t k = 0; k < N; k++)
      for (size_t q = 0; q < SSW_SAMPLE_NQ; q++)
        out[q * S * N + s * N + k] = e->dense[k][q];
  }
  return SSW_SUCCESS;
}

/* Largest distance of trajectory 0's nodes from its exact path. With
 * circulation the exact path may be out of reach (within ~1e-13 of the
 * critical energy, or no closed form for E = 0): NaN, not an error. */
static int path_error(ssw_ensemble *e, ssw_point_result *res, int regime) {
  ssw_path *p = e->recording ? &e->nodes[0] : &e->probe;
  double w0, v0, head;
  ssw_ensemble_initial(&e->sp, &res->tensor, e->key, 0, &w0, &v0);
  SSW_CALL(ssw_path_sort(p));
  const unsigned caps = ssw_model_caps(&res->tensor);
  if (!(caps & SSW_MCAP_EXACT_PATH)) { /* no exact damped path in general */
    res->path_error_max = NAN;
    return SSW_SUCCESS;
  }
  const int rc = ssw_path_exact_sampled(p, &res->tensor, regime, w0, v0,
                                        SSW_PATH_COMPARE_ROWS, NULL,
                                        &res->path_error_max, &head);
  if (rc == SSW_SUCCESS || (caps & SSW_MCAP_CLOSED_FORM_2010)) return rc;
  ssw_error_clear();
  res->path_error_max = NAN;
  return SSW_SUCCESS;
}

/* The closed-form twins with circulation (none needed without: the 2010
 * closed form's radius serves both ends). */
static void circulation_twins(const ssw_point *pt, double H,
                              ssw_point_result *res) {
  ssw_point_circ c;
  ssw_point_circulation(pt, H, &c);
  const int circ =
      (ssw_model_caps(&pt->tensor) & SSW_MCAP_CIRC_CLOSED_FORM) != 0;
  res->analytic_radius_past = circ ? c.r_past : pt->analytic.radius;
  res->analytic_radius_future = circ ? c.r_future : pt->analytic.radius;
  res->analytic_period = c.period;
  res->analytic_heading_per_period = c.heading_per_period;
  res->analytic_drift_per_period = c.drift_per_period;
  res->analytic_orbit_radius = c.orbit_radius;
  res->analytic_transition_angle_lower = fabs(c.dphi_down);
  res->analytic_center_spacing_lower = c.d_down;
  if (!circ) return;
  ssw_analytic *an = &res->analytic;
  an->dphi_abs = fabs(c.dphi_up);
  an->d = c.d_up;
  an->loops =
      isfinite(an->dphi_abs) ? (int)floor(an->dphi_abs / (2.0 * M_PI)) : -1;
}

/* The workspace for one point: its run values replace the spec's (the
 * batches read them from the workspace), sample paths are recorded only
 * at the chosen grid points (elsewhere the buffer is NaN, not stored in
 * the file), and trajectory 0 is compared with its exact path only at
 * every path_every-th grid index. */
static void start_point(ssw_ensemble *e, uint64_t index,
                        const ssw_grid_values *v, int record, double *samples) {
  ssw_ensemble_spec *sp = &e->sp;
  ssw_grid_values_put(v, sp);
  e->key = v->key;
  e->check_path = !sp->no_exact_path && (sp->path_every <= 1 ||
                                         index % (uint64_t)sp->path_every == 0);
  e->recording = sp->samples > 0 && samples != NULL && record;
  if (sp->samples > 0 && samples != NULL && !e->recording)
    for (size_t k = 0;
         k < ssw_result_sample_doubles(sp->samples, sp->sample_nodes); k++)
      samples[k] = NAN;
}

int ssw_ensemble_run(ssw_ensemble *e, uint64_t index, const ssw_grid_values *v,
                     int record, ssw_point_result *res, double *samples) {
  start_point(e, index, v, record, samples);
  const ssw_ensemble_spec *sp = &e->sp;
  const ssw_params *p = &v->body;
  memset(res, 0, sizeof *res);
  res->index = index;
  ssw_point pt;
  SSW_CALL(ssw_point_setup(&sp->body, p, sp->zero_tol, sp->integ.method, &pt));
  ssw_point_set_energy(&pt, sp->energy);
  const int regime = pt.regime;
  res->tensor = pt.tensor;
  res->analytic = pt.analytic;
  circulation_twins(&pt, sp->energy, res);
  const int64_t n = sp->trajectories;
  reduction acc = {0}, low = {0};
  reduction_init(&acc);
  acc.census = census_start(&pt.tensor, e->census);
  acc.forced = (ssw_model_caps(&pt.tensor) & SSW_MCAP_TIME_PERIODIC) != 0;
  /* With circulation's torque the arcs g > 0 and g < 0 are reduced apart. */
  reduction *lower =
      (ssw_model_caps(&pt.tensor) & SSW_MCAP_CIRC_CLOSED_FORM) ? &low : NULL;
  acc.loops = malloc((size_t)n * sizeof *acc.loops);
  low.loops = lower ? malloc((size_t)n * sizeof *low.loops) : NULL;
  if (!acc.loops || (lower && !low.loops)) {
    free(acc.loops), free(low.loops);
    return SSW_RAISE(SSW_ERR_MEM, "out of memory for %lld trajectories",
                     (long long)n);
  }
  int status = SSW_SUCCESS;
  for (int64_t start = 0; start < n && status == SSW_SUCCESS; start += BLOCK) {
    const int cnt = (int)(n - start < BLOCK ? n - start : BLOCK);
    traj_summary *blk = e->block;
    const int nb = (cnt + BATCH - 1) / BATCH;
    ssw_error_state *errs = e->errs;
    /* One batch (a lone trajectory: a refinement's evaluation, `point`)
     * has nothing to share: no team, whose idle threads would spin. */
#pragma omp parallel for schedule(dynamic, 1) default(none)                    \
    shared(e, res, blk, start, cnt, nb, errs, pt) if (nb > 1)
    for (int b = 0; b < nb; b++) {
      const int k0 = b * BATCH;
      const int m = cnt - k0 < BATCH ? cnt - k0 : BATCH;
      const int r = one_batch(e, &pt, res, start + k0, m, &blk[k0]);
      errs[b].code = r;
      if (r != SSW_SUCCESS) ssw_error_save(r, &errs[b]);
    }
    /* The first failing batch (by index, whatever thread ran it) carries
     * its code and message out of the parallel region. */
    for (int b = 0; b < nb && status == SSW_SUCCESS; b++)
      if (errs[b].code != SSW_SUCCESS) status = ssw_error_restore(&errs[b]);
    for (int i = 0; i < cnt && status == SSW_SUCCESS; i++)
      reduce_one(&acc, lower, &blk[i], start + i);
  }
  if (status == SSW_SUCCESS) {
    finish(&acc, sp->attractor_slots, n, res);
    finish_lower(&acc, lower, res);
    drag_twins(&res->tensor, res);
    res->critical_energy = ssw_model_critical_energy(&res->tensor);
    res->loops = mode_of(acc.loops, acc.nloops);
    /* Uniform motion keeps each initial rotation sense: no sense of the
     * body to report (the closed form says 0 too). */
    if (regime == SSW_REGIME_UNIFORM) res->sense_future = 0;
    if (!e->check_path)
      res->path_error_max = NAN;
    else
      status = path_error(e, res, regime);
    /* Uniform motion: each trajectory keeps its own constant force, so
     * the bound over the energy level is no twin of the ensemble's mean. */
    res->analytic_blade_force_max =
        regime == SSW_REGIME_UNIFORM ? NAN : ssw_point_blade_bound(&pt);
    if (status == SSW_SUCCESS && e->recording)
      status = store_samples(e, &res->tensor, samples);
  }
  free(acc.loops);
  free(low.loops);
  if (status != SSW_SUCCESS && ssw_error_message()[0] == '\0')
    status = SSW_RAISE(status, "trajectory failed at grid point %llu",
                       (unsigned long long)index);
  return status;
}
