/* One grid point, the pipeline every command shares: from the swept
 * parameters to the body's tensor, the check that the scheme can integrate
 * it, the regime (exact zeros snapped), the closed form, and then the
 * trajectories with their closed-form twins. `run` (through the ensemble),
 * `point` and the dry run all go through here. */
#ifndef SLEIGHSWEEP_POINT_H
#define SLEIGHSWEEP_POINT_H

#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A grid point set up for integration. */
typedef struct {
  ssw_params params;     /**< the swept parameters */
  ssw_tensor tensor;     /**< total tensor, exact zeros of L1, Z snapped */
  int regime;            /**< ssw_regime of the snapped tensor */
  ssw_analytic analytic; /**< the closed form (the test oracle) */
} ssw_point;

/** Smallest accepted J and M of a body's tensor (2^-960, about 1.1e-289):
 * below it the couplings L1 and Z, down to 1e-12 of the tensor's scale,
 * would be subnormal numbers. The results do not depend on the mass scale,
 * so a lighter body is the same problem with m, I0 and rho scaled up. */
#define SSW_POINT_INERTIA_MIN 0x1p-960

/** An extractor: what measures a model's motions, the capabilities
 * (SSW_MCAP_*, effect.h) it needs of the model, the quantities it fills
 * and how it runs n trajectories of a point (ssw_point_trajectories). */
typedef struct {
  const char *name;        /**< "limit_circles", "periodic", "rest" */
  const char *description; /**< one line */
  unsigned needs;          /**< SSW_MCAP_* the model must have */
  const char *fills;       /**< the ssw_traj quantities it fills */
  int (*run)(const ssw_point *pt, int n, const double *w0, const double *v0,
             const ssw_integrator *o, ssw_sample_fn sample, void *const *ctx,
             ssw_traj *out);
} ssw_extractor;

/** The extractor table; `count` receives its length. */
const ssw_extractor *ssw_extractor_table(int *count);

/** The first extractor whose needs the tensor's model meets; NULL when
 * none serves it. */
const ssw_extractor *ssw_extractor_for(const ssw_tensor *t);

/** Refuses a model that no extractor serves. Errors: SSW_ERR_BODY naming,
 * for each extractor, the capabilities it misses and the effect that takes
 * them away. */
int ssw_point_served(const ssw_tensor *t);

/** Builds the tensor of a body at parameters `p` and checks that an
 * extractor serves its model (ssw_point_served) and that the scheme `m`
 * (NULL: any) can integrate it, without classifying: the grid's
 * validation of every point before a sweep. Errors: SSW_ERR_BODY for an
 * invalid body (ssw_model_tensor), one whose J or M is below
 * SSW_POINT_INERTIA_MIN or one no extractor serves, SSW_ERR_ARG when the
 * scheme cannot integrate it (ssw_stepper_bind); the message says why. */
int ssw_point_check(const ssw_body *body, const ssw_params *p,
                    const ssw_method *m, ssw_tensor *t);

/** Sets up a grid point: ssw_point_check, the regime with zeros below
 * `zero_tol` snapped (ssw_model_classify), and the closed form. Errors: as
 * ssw_point_check, and SSW_ERR_BODY when a coupling L1 or Z that was not
 * snapped is a subnormal number (zero_tol below 1e-12). */
int ssw_point_setup(const ssw_body *body, const ssw_params *p, double zero_tol,
                    const ssw_method *m, ssw_point *pt);

/** 1 when the point's motion is the one the 2010 closed form (and its
 * exact path) describe: its model has SSW_MCAP_CLOSED_FORM_2010 (no
 * circulation torque, no drag). The one place that decides it; otherwise
 * ssw_point_setup leaves the closed form's predictions NaN. */
int ssw_point_closed_form(const ssw_point *pt);

/** The energy's part in the point's regime: with circulation, at or below
 * the critical energy (|kappa| at least the largest |L1 w + Z v| on the
 * energy level H, sqrt(2 H E / D)) every motion is periodic, and
 * analytic.regime says SSW_REGIME_PERIODIC (the extraction decides the
 * same from each trajectory's own energy). */
void ssw_point_set_energy(ssw_point *pt, double H);

/** Circulation's closed form at energy H (docs/theory/circulation.md),
 * the twins of the measurements where kappa != 0; NaN where a quantity
 * does not apply (below or above the critical energy) or the closed form
 * cannot give it (a critical level, E = 0). `up` is the arc g > 0, `down`
 * the arc g < 0. */
typedef struct {
  double Hc;                         /**< critical energy */
  double period, heading_per_period; /**< below H_c */
  double drift_per_period, orbit_radius;
  double dphi_up, dphi_down; /**< signed transition angles, above H_c */
  double d_up, d_down;       /**< centre spacings */
  double r_past, r_future;   /**< limit radii (both arcs) */
} ssw_point_circ;

/** Fills `out` for the point at energy H. */
void ssw_point_circulation(const ssw_point *pt, double H, ssw_point_circ *out);

/** Extracts n trajectories of the point from the initial states (w0[i],
 * v0[i]) (ssw_extract_batch: SIMD lanes, bit-identical to each alone). */
int ssw_point_trajectories(const ssw_point *pt, int n, const double *w0,
                           const double *v0, const ssw_integrator *o,
                           ssw_sample_fn sample, void *const *ctx,
                           ssw_traj *out);

/** The closed form's largest blade force per unit energy over a motion of
 * the point (ssw_analytic_blade_force_max, sigma = +1; it does not depend
 * on sigma). In the uniform regime every state keeps its own constant
 * force, and this is the bound over the whole energy level. NaN when the
 * closed form fails or does not apply (circulation's lift). */
double ssw_point_blade_bound(const ssw_point *pt);

#ifdef __cplusplus
}
#endif
#endif
