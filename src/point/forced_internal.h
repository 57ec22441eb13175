/* The forced extractor's period map, shared by forced.c (the attractor
 * and its measurements) and lyapunov.c (the tangent map's QR): not an
 * API. Theory: docs/theory/forcing.md. */
#ifndef SSW_POINT_FORCED_INTERNAL_H
#define SSW_POINT_FORCED_INTERNAL_H

#include <stdint.h>

#include "sleighsweep/forced.h"
#include "sleighsweep/stepper.h"

/* ---- The period map ----------------------------------------------------
 * N macro steps of T / N from the section t = 0 (the state's time is
 * reset to 0 at each period: the equations are T-periodic, and the sine's
 * argument stays small); kicks add their impulse to W1 at t = 0+. */
typedef struct {
  ssw_coeffs c;
  int recon, N, cost;
  double T, imp;
  double floor;  /* least energy-norm scale of a difference step (the rest) */
  int64_t steps; /* base steps done */
} pmap;

/* Time integrals over periods, and the extremes of the node values. */
typedef struct {
  double time, dphi, vint, work, diss, Hint, divint, pabs;
  double wmin, wmax, vmin, vmax, Hmax;
} sums;

/* The period map of the forced tensor t at the scheme, reconstruction
 * and step cost of o (N unset). Errors: as ssw_stepper_bind. */
int ssw_pmap_init(pmap *m, const ssw_tensor *t, const ssw_integrator *o);

void ssw_pmap_sums_init(sums *a);

/* One period of the map from s (section t = 0) into s; adds its
 * integrals to *a (may be NULL). Returns 0, or -2 on a non-finite
 * state. */
int ssw_pmap_period(pmap *m, ssw_state *s, sums *a);

/* n periods of the map from the point x into y (and *a). */
int ssw_pmap_map_n(pmap *m, int n, const double x[2], double y[2], sums *a);

/* sqrt(2 |H|) of (w, v): the energy norm |z|^2 = z^T K z. */
double ssw_pmap_knorm(const ssw_reduced *e, double w, double v);

/* The Jacobian of the n-period map at x by central differences of
 * relative step `rel` (forced.c; `romberg`: Richardson over rel, rel / 2,
 * rel / 4, with *fd a bound of its error). */
int ssw_pmap_jacobian(pmap *m, int n, const double x[2], double rel,
                      int romberg, double J[2][2], double *fd);

#endif
