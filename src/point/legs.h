/* Legs: one direction of integration of many trajectories of one tensor,
 * stepped together in the batch kernel's lanes under the reversible step
 * control, to the line of equilibria (internal to extract.c; theory:
 * docs/theory/step-control.md). */
#ifndef SLEIGHSWEEP_LEGS_H
#define SLEIGHSWEEP_LEGS_H

#include <stdint.h>

#include "sleighsweep/extract.h"
#include "sleighsweep/stepper.h"

/* ---- Step density (docs/theory/step-control.md) ------------------------
 * rho = kappa A^(1/16):  kappa^4 = (nu^2 + w^2)^2 + w'^2 resolves the
 * transition (nu^2 = (ht^2 + D g^2) / D^2, constant along the motion),
 * the rotation and the rotation's chirp; A = (g/G)^2 + delta^2 (G the
 * largest |g| on the energy level) lets steps grow as (G/|g|)^(1/8), up to
 * SSW_GROWTH_MAX, while the motion settles on a limit circle, where the
 * exponential reconstruction is exact for a constant velocity. Square
 * roots only (exact IEEE operations): no libm. */
typedef struct {
  double nu2, G2, delta2;
} clock_par;

/* A node of a leg: time, configuration (with the heading's unit vector
 * (ux, uy) as the scheme carries it), velocity, g and ht. */
typedef struct {
  double t, phi, x, y, ux, uy, w, v, g, ht;
} leg_node;

/* A peak of |F| between two nodes whose series is still to be summed:
 * the node nearer the peak (w, v), the interval [lo, hi] of time from it
 * and Newton's first guess (legs.c, fpeak_add). */
typedef struct {
  double w, v, lo, hi, guess;
} leg_peak;

/* Peaks a leg keeps for ssw_legs_peaks; any more are summed at once. */
#define LEG_PEAKS 4

/* End state of one direction of integration. */
typedef struct {
  double t, phi, x, y, w, v, g, ht;
  double ux, uy; /* the heading's unit vector as the scheme carries it */
  /* The last node with |g| >= 4 gstop (or the start): the tail added
   * there and at the end differ by the tail's O(g^2) remainder, which
   * estimates it (extract.c, docs/theory/step-control.md). */
  leg_node anchor;
  int64_t steps;
  double emax;
  int converged, nonfinite;
  int stalled; /* stopped at the scheme's own equilibrium (see after_step) */
  double fmax; /* largest |F| of the blade force over the nodes (refined:
                  with the peaks[0..npeaks) still to come) */
  int npeaks;
  leg_peak peaks[LEG_PEAKS];
  double fterms; /* largest magnitude of F's terms over the nodes: the scale
                    of its round-off where the terms cancel */
  int found_peak;
  double t_peak;
  /* Periodic legs (circulation below its critical energy): the first two
   * crossings of the section (the peaks of |g|), as (t, phi, x, y). */
  int sections;
  double sec[2][4];
  /* Local error of the macro step that located t_peak (Richardson with two
   * half steps; 0 when not checked): the coarse run may share it. */
  double t_peak_local;
  /* The leg's start w0 and the sum over the steps that t_peak_local sums
   * of each one's time shift times the largest |w - w0| at its ends: a
   * shift made at w moves the heading relative to the limit behind the
   * leg by (w - w_behind) per unit time (extract.c bounds it by
   * |w - w0| + |w0 - w_behind|). */
  double w_start, t_peak_wlocal;
} leg;

/* One leg to integrate: initial state, direction, step, trajectory. */
typedef struct {
  double w0, v0;
  int dir;
  double step; /* eps (adaptive) or the fixed macro step h (time units) */
  double H0, gstop;
  double stop_ht; /* with circulation: also |g| <= stop_ht |ht| (0: none) */
  int periodic;   /* stop after two sections, not at the line of equilibria */
  int skip;       /* not integrated (a periodic motion's backward leg) */
  clock_par clock;
  int check_peak; /* measure the local error of the step locating t0 */
  void *ctx;      /* sample callback context, NULL for none */
  leg out;
} leg_job;

/* Shared by every leg of a batch: the tensor and the settings. */
typedef struct {
  const ssw_coeffs *c;
  const ssw_integrator *o;
  int adaptive, stages; /* stages: base steps per macro step */
  ssw_sample_fn sample;
} leg_run;

/** Integrates every job (filling job.out), SSW_LANES at a time: a lane
 * that finishes its leg takes the next job, in `order` (a permutation of
 * 0..njobs) or, when NULL, in turn. Lanes never interact, so a leg's
 * result does not depend on which lane ran it, when, or alongside which
 * other legs: the order changes the time only. */
void ssw_legs_run(const leg_run *R, leg_job *jobs, const int *order, int njobs);

/** Completes the legs' fmax after ssw_legs_run: the series of the peaks of
 * |F| that the legs kept (leg.peaks), summed four at a time in SIMD lanes
 * (one series is a chain of dependent sums: four cost about one), each
 * lane bit for bit the scalar sum. fmax is a maximum, so the order in which
 * the peaks enter it does not change it. */
void ssw_legs_peaks(const leg_run *R, leg_job *jobs, int njobs);

#endif
