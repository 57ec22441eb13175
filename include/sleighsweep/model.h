/* The body-plus-fluid inertia tensor of the hydrodynamic Chaplygin sleigh,
 * its regime classification and derived constants (2010 paper sec. 3;
 * docs/theory/). */
#ifndef SLEIGHSWEEP_MODEL_H
#define SLEIGHSWEEP_MODEL_H

#include "sleighsweep/names.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Rotational added-inertia constant of both source papers (default). */
#define SSW_KROT_PAPERS 0.25
/** Classical hydrodynamics value (Lamb, Hydrodynamics sec. 72). */
#define SSW_KROT_LAMB 0.125

/** Default relative tolerance under which L1 and Z count as exact zeros.
 * Grids put sin(pi), cos(pi/2) and linspace round-off (~1e-16 relative)
 * where the user means zero; 1e-12 is far above that round-off and far
 * below any physically distinct body (a circle of radius 1e12 body
 * lengths). */
#define SSW_ZERO_TOL_DEFAULT 1e-12

/** Smallest accepted D / (M J), D = M J - L2^2. M J - L2^2 is formed with
 * a rounding error of a few ulp of M J; at 1e-12 it still has ~4 correct
 * digits, below that the reduced velocities are numerically undetermined. */
#define SSW_D_REL_MIN 1e-12

/** Constants fixed for a whole run. */
typedef struct {
  double m;     /**< body mass */
  double I0;    /**< body moment of inertia about its centre of mass */
  double rho;   /**< fluid density (0: classical sleigh) */
  double k_rot; /**< rotational added inertia = k_rot rho pi (A^2-B^2)^2 */
} ssw_body;

/** The seven swept parameters of one grid point. Lengths in body units,
 * theta in radians (blade angle from the major axis, counter-clockwise). */
typedef struct {
  double theta, a, b, r, s, A, B;
} ssw_params;

/** Total inertia tensor acting on (omega, v1, v2):
 * [[J, -L2, L1], [-L2, M, Z], [L1, Z, N]]. */
typedef struct {
  double J, M, N, L1, L2, Z;
} ssw_tensor;

/** Asymptotic regime of a tensor: SSW_REGIME_UNIFORM (0),
 * SSW_REGIME_LINE_TO_LINE (1), SSW_REGIME_SPIN_REVERSAL (2),
 * SSW_REGIME_CIRCLE_TO_CIRCLE (3), from the list SSW_REGIMES in names.h
 * (with each one's meaning and name). */
#define SSW_REGIME_ENUM_(id, value, ...) SSW_REGIME_##id = value,
typedef enum { SSW_REGIMES(SSW_REGIME_ENUM_) SSW_REGIME_COUNT } ssw_regime;

/** Lower-case name of a regime ("circle_to_circle", names.h), "unknown"
 * outside the enum. */
const char *ssw_regime_name(int regime);

/** Validates the run constants (m > 0, I0 >= 0, rho >= 0, k_rot >= 0, all
 * finite). Errors: SSW_ERR_BODY naming the offending constant. */
int ssw_model_check_body(const ssw_body *body);

/** Builds the total tensor (2010 paper eq. 3.2; Model II by the rigid
 * change of reference point; (r, s) = (0, 0) is Model I exactly).
 * Accepts every body whose reduced dynamics are regular
 * (ssw_model_regular), e.g. I0 = 0 on a dry plane with a != 0, whose 3x3
 * tensor is singular. Errors: SSW_ERR_BODY if a parameter is not finite,
 * A <= B, B <= 0, an entry overflows, or the reduced inertia is singular;
 * the message names the parameter or the reason. */
int ssw_model_tensor(const ssw_body *body, const ssw_params *p,
                     ssw_tensor *out);

/** True (1) when the 3x3 tensor is positive definite (Sylvester). Not
 * required by the reduced dynamics (see ssw_model_regular); the lab-frame
 * RATTLE scheme needs it. */
int ssw_model_positive_definite(const ssw_tensor *t);

/** True (1) when the reduced inertia K = [[J, -L2], [-L2, M]] is positive
 * definite relative to its scale: J > 0, M > 0, D / (M J) > SSW_D_REL_MIN,
 * computed without forming M J (scale-free). `d_rel` (may be NULL)
 * receives D / (M J) (0 when J or M is not positive). */
int ssw_model_regular(const ssw_tensor *t, double *d_rel);

/** Lateral force F (body axis E2, newtons in the tensor's units) that the
 * blade exerts on the body at the reduced state (w, v), from the momentum
 * balance across the blade: F = g ht / D + w (M v - L2 w), g = L1 w + Z v,
 * ht = (L1 L2 + Z J) w - (L1 M + Z L2) v (docs/theory/blade-force.md). */
double ssw_model_blade_force(const ssw_tensor *t, double w, double v);

/** Classifies the regime. L1 counts as zero when |L1| <= tol sqrt(J M) and
 * Z when |Z| <= tol M (dimensionally natural scales); `snapped` (may alias
 * `t`) receives the tensor with those entries set to exactly 0, which is
 * what the integrator and the closed form then use. */
void ssw_model_classify(const ssw_tensor *t, double tol, ssw_tensor *snapped,
                        int *regime);

/** D = M J - L2^2 (> 0 for a positive definite tensor). */
static inline double ssw_model_D(const ssw_tensor *t) {
  return t->M * t->J - t->L2 * t->L2;
}

/** E = J Z^2 + 2 Z L1 L2 + M L1^2 (> 0 unless L1 = Z = 0). */
static inline double ssw_model_E(const ssw_tensor *t) {
  return t->J * t->Z * t->Z + 2.0 * t->Z * t->L1 * t->L2 + t->M * t->L1 * t->L1;
}

/** Energy H = (J w^2 + M v^2 - 2 L2 w v) / 2 of the reduced state. */
static inline double ssw_model_energy(const ssw_tensor *t, double w, double v) {
  return 0.5 * (t->J * w * w + t->M * v * v - 2.0 * t->L2 * w * v);
}

#ifdef __cplusplus
}
#endif
#endif
