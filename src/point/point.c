/* One grid point: tensor, scheme check, regime, closed form, trajectories. */
#include "sleighsweep/point.h"

#include <float.h>
#include <math.h>

#include "sleighsweep/error.h"
#include "sleighsweep/stepper.h"

int ssw_point_check(const ssw_body *body, const ssw_params *p,
                    const ssw_method *m, ssw_tensor *t) {
  SSW_CALL(ssw_model_tensor(body, p, t));
  /* The integration is scale-free (docs/theory/step-control.md, "Units"),
   * but the tensor's entries must be numbers of full precision: below
   * SSW_POINT_INERTIA_MIN the couplings L1 and Z (down to 1e-12 of the
   * tensor's scale) would be subnormal. Overflow is refused above. */
  SSW_CHECK(t->J >= SSW_POINT_INERTIA_MIN && t->M >= SSW_POINT_INERTIA_MIN,
            SSW_ERR_BODY,
            "the inertia tensor (J = %g, M = %g) is below %g, where its "
            "entries lose precision in double arithmetic; the results do not "
            "depend on the mass scale: multiply m, I0 and rho by a common "
            "factor (e.g. 1e100)",
            t->J, t->M, SSW_POINT_INERTIA_MIN);
  if (!m) return SSW_SUCCESS;
  ssw_coeffs c;
  return ssw_stepper_bind(t, m, &c);
}

int ssw_point_setup(const ssw_body *body, const ssw_params *p, double zero_tol,
                    const ssw_method *m, ssw_point *pt) {
  pt->params = *p;
  SSW_CALL(ssw_point_check(body, p, m, &pt->tensor));
  ssw_model_classify(&pt->tensor, zero_tol, &pt->tensor, &pt->regime);
  /* Only a zero_tol below 1e-12 keeps couplings this small. */
  const double L1 = fabs(pt->tensor.L1), Z = fabs(pt->tensor.Z);
  SSW_CHECK((L1 == 0 || L1 >= DBL_MIN) && (Z == 0 || Z >= DBL_MIN),
            SSW_ERR_BODY,
            "L1 = %g or Z = %g is a subnormal number (below %g), which "
            "carries few digits; raise zero_tol (%g) so that it counts as 0, "
            "or multiply m, I0 and rho by a common factor",
            pt->tensor.L1, pt->tensor.Z, DBL_MIN, zero_tol);
  return ssw_analytic_compute(&pt->tensor, pt->regime, &pt->analytic);
}

int ssw_point_trajectories(const ssw_point *pt, int n, const double *w0,
                           const double *v0, const ssw_integrator *o,
                           ssw_sample_fn sample, void *const *ctx,
                           ssw_traj *out) {
  return ssw_extract_batch(&pt->tensor, pt->regime, n, w0, v0, o, sample, ctx,
                           out);
}

double ssw_point_blade_bound(const ssw_point *pt) {
  double fa = NAN;
  if (ssw_analytic_blade_force_max(&pt->tensor, pt->regime, 1, &fa) != 0)
    ssw_error_clear(), fa = NAN;
  return fa;
}
