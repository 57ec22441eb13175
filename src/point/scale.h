/* Scale-free integration (internal to extract.c): the reduced motion's
 * shape depends neither on the energy nor on the mass or length scale, so
 * every trajectory is integrated in units where the tensor's entries and
 * the energy are near 1, and its results are scaled back. The units are
 * powers of two: the scaling is exact, and since every operation of the
 * extraction is homogeneous in the units, a body whose arithmetic stayed
 * in range gets bit for bit the results it got before (theory:
 * docs/theory/step-control.md, "Units"). */
#ifndef SLEIGHSWEEP_SCALE_H
#define SLEIGHSWEEP_SCALE_H

#include "sleighsweep/effect.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"

/* The units of one trajectory, as exponents of two: mass 2^mass, length
 * 2^len (both from the tensor) and velocity: (w, v) = 2^speed (w', v' 2^len)
 * with (w', v') the integrated state, so time is 2^-speed. */
typedef struct {
  int mass, len, speed;
  int fixed; /* circulation: the speed unit is the body's, not the state's */
} ssw_units;

/* The tensor in units of mass and length near its own M and sqrt(J / M):
 * fills u->mass, u->len and the scaled tensor `s` (exact). With
 * circulation the lift's coefficients carry a velocity, and every
 * trajectory of the body must share the tensor: the speed unit is then
 * fixed here, near kappa / (M sqrt(J / M)) (near the lift's own scale when
 * kappa = 0), and u->fixed is set. The motion depends on the energy then
 * (H / H_c): no unit can make it scale-free. */
void ssw_units_body(const ssw_tensor *t, ssw_units *u, ssw_tensor *s);

/* Sets u->speed, the velocity unit of the state (w, v) of a body in units
 * u (its energy becomes about 1), and gives the state in those units
 * (exact). */
void ssw_units_state(ssw_units *u, const ssw_tensor *s, double w, double v,
                     double *ws, double *vs);

/* A field of ssw_traj: a double with its dimension, or an integer. */
typedef struct {
  ssw_field_dim dim; /* name, offset and (doubles) dimension */
  size_t size;       /* bytes */
  int is_double;     /* 1: rescaled by its dimension; 0: an integer */
} ssw_traj_field;

/* Every field of ssw_traj (`count` receives their number). */
const ssw_traj_field *ssw_units_traj_fields(int *count);

/* A result computed in units u, back in the caller's units: every double
 * field by its dimension (ssw_units_traj_fields). */
void ssw_units_result(const ssw_units *u, ssw_traj *r);

/* A sample callback of the caller behind one in scaled units. */
typedef struct {
  ssw_sample_fn fn;
  void *ctx;
  ssw_units u;
} ssw_units_sample;

/* The ssw_sample_fn for ctx = an ssw_units_sample: scales back, then calls
 * the caller's. */
void ssw_units_sample_fn(void *ctx, int dir, double t, double phi, double x,
                         double y, double w, double v, double H);

#endif
