/* The plain state (w, v, phi, x, y, t) on which the comparison schemes
 * (dopri5, rattle) step; their right-hand side is the physics module's
 * ssw_model_rhs. */
#ifndef SLEIGHSWEEP_ODE_H
#define SLEIGHSWEEP_ODE_H

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

#ifdef __cplusplus
}
#endif
#endif
