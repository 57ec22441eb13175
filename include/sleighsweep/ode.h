/* The plain state (w, v, phi, x, y, t) on which the comparison schemes
 * (dopri5, rattle) step, and the right-hand side they share. */
#ifndef SLEIGHSWEEP_ODE_H
#define SLEIGHSWEEP_ODE_H

#include <math.h>

#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reduced velocity, configuration and time: a trajectory's state with no
 * scheme-specific fields, so an extraction loop can drive any scheme. */
typedef struct {
  double w, v;      /**< angular velocity and speed of the contact point */
  double phi, x, y; /**< heading (rad) and contact point */
  double t;         /**< time */
} ssw_ode_state;

/** Number of integrated components (w, v, phi, x, y). */
#define SSW_ODE_DIM 5

/** Right-hand side of the reduced and reconstruction equations
 *   w' = g (L2 w - M v) / D,  v' = g (J w - L2 v) / D,  g = L1 w + Z v,
 *   phi' = w,  x' = v cos phi,  y' = v sin phi,
 * at y = (w, v, phi, x, y); D = M J - L2^2 is passed in. */
static inline void ssw_ode_rhs(const ssw_tensor *t, double D,
                               const double y[SSW_ODE_DIM],
                               double f[SSW_ODE_DIM]) {
  const double g = t->L1 * y[0] + t->Z * y[1];
  f[0] = g * (t->L2 * y[0] - t->M * y[1]) / D;
  f[1] = g * (t->J * y[0] - t->L2 * y[1]) / D;
  f[2] = y[0];
  f[3] = y[1] * cos(y[2]);
  f[4] = y[1] * sin(y[2]);
}

#ifdef __cplusplus
}
#endif
#endif
