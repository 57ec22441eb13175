/* Closed-form radius, spacing, transition angle, loops, sense and states. */
#include "sleighsweep/analytic.h"

#include <math.h>

#include "sleighsweep/error.h"

/* d^2 = (2 pi D / Z^2) (alpha / (c1^2 + alpha^2))
 *       (cosh(alpha pi) - cos(c1 pi)) / sinh(alpha pi).
 * alpha / sinh(alpha pi) is even in alpha; for large |alpha pi| the ratio
 * (cosh - cos)/sinh tends to sign(alpha), evaluated without overflow. */
static double spacing(double D, double Z, double alpha, double c1) {
  const double x = alpha * M_PI;
  double ratio;
  if (fabs(x) > 30.0) {
    ratio = (1.0 - 2.0 * cos(c1 * M_PI) * exp(-fabs(x)) + exp(-2 * fabs(x))) /
            (1.0 - exp(-2.0 * fabs(x)));
    ratio = copysign(ratio, x);
  } else {
    /* cosh(x) - cos(y) = 2 sinh^2(x/2) + 2 sin^2(y/2): no cancellation. */
    const double sx = sinh(0.5 * x), sy = sin(0.5 * c1 * M_PI);
    ratio = 2.0 * (sx * sx + sy * sy) / sinh(x);
  }
  const double d2 = 2.0 * M_PI * D / (Z * Z) * alpha / (c1 * c1 + alpha * alpha)
                    * ratio;
  return sqrt(d2);
}

int ssw_analytic_compute(const ssw_tensor *t, int regime, ssw_analytic *out) {
  const double D = ssw_model_D(t), E = ssw_model_E(t);
  out->regime = regime;
  out->D = D;
  out->E = E;
  if (regime == SSW_REGIME_UNIFORM) {
    /* Every state is uniform motion: the radius is that of the initial
     * state, not a property of the tensor. */
    out->radius = NAN;
    out->d = 0.0;
    out->dphi_abs = 0.0;
    out->loops = 0;
    out->sense_future = 0;
    out->alpha = out->beta = out->c1 = out->c2 = 0.0;
    return SSW_SUCCESS;
  }
  const double sD = sqrt(D);
  out->alpha = -D * t->Z / E;
  out->beta = D * t->L1 / E;
  out->c1 = sD * (t->Z * t->L2 + t->M * t->L1) / E;
  out->c2 = sD * (t->L1 * t->L2 + t->Z * t->J) / E;
  out->dphi_abs = M_PI * fabs(out->c1);
  out->loops = (int)floor(out->dphi_abs / (2.0 * M_PI));
  if (regime == SSW_REGIME_LINE_TO_LINE) {
    out->radius = INFINITY;
    out->d = NAN;
    out->sense_future = 0;
  } else {
    out->radius = fabs(t->L1 / t->Z);
    out->d = spacing(D, t->Z, out->alpha, out->c1);
    out->sense_future = t->Z > 0 ? -1 : 1;
  }
  return SSW_SUCCESS;
}

double ssw_analytic_rate(const ssw_analytic *an, double H) {
  return sqrt(2.0 * H * an->E) / an->D;
}

void ssw_analytic_state(const ssw_analytic *an, double H, int sigma, double t0,
                        double t, double *w, double *v) {
  const double k = ssw_analytic_rate(an, H);
  const double x = k * (t - t0);
  const double th = tanh(x), sh = 1.0 / cosh(x);
  *w = k * (an->alpha * th + sigma * an->c1 * sh);
  *v = k * (an->beta * th + sigma * an->c2 * sh);
}

double ssw_analytic_dphi(const ssw_analytic *an, int sigma) {
  return sigma * M_PI * an->c1;
}

int ssw_analytic_sigma(const ssw_tensor *t, double w, double v) {
  const double g = t->L1 * w + t->Z * v;
  return g > 0 ? 1 : (g < 0 ? -1 : 0);
}
