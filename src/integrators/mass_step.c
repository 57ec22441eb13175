/* The Hamel compositions with the moving internal mass: a time-dependent
 * inertia K(t) and momentum sigma(t), one lane at a time
 * (docs/theory/forcing.md, "The discrete step with the moving mass"). */
#include "batch.h"

#include <math.h>

#include "sleighsweep/model.h"

/* The cubic's root nearest the warm start p (model.h,
 * SSW_MODEL_HAMEL_CUBIC): Newton to a quarter ulp, as the batch kernel. */
static double cubic_root(double a, double a2, double b, double rhs, double p) {
  for (int it = 0; it < 50; it++) {
    const double f = (a * p + a2) * (p * p) + (b * p - rhs);
    const double df = (3.0 * a * p + 2.0 * a2) * p + b;
    const double dp = f / df;
    p -= dp;
    if (!(fabs(dp) > 0x1p-54 * fabs(p))) break;
  }
  return p;
}

/* One base step of size h whose midpoint node is tm: the autonomous
 * step (with drag and force) of the frame K(tm), sigma(tm) on the momenta
 * W - sigma(tm), then sigma(tm) added back. Symmetric: h -> -h from the
 * other end has the same midpoint and the same equations. */
static void base_step(const ssw_reduced *e, double h, double tm, int recon,
                      ssw_state *s) {
  ssw_mass_frame fr;
  ssw_model_mass_at(e, tm, &fr);
  const ssw_reduced *k = &fr.k;
  double W1 = s->W1 - fr.sig1, W2 = s->W2 - fr.sig2, Q1 = 0.0, Q2 = 0.0;
  double a, a2, b, rhs, w, v;
  if (e->force) {
    e->force(e->force_par, tm, &Q1, &Q2);
    SSW_MODEL_HAMEL_FORCE_KICK(h, Q1, Q2, W1, W2);
  }
  if (e->drag) {
    ssw_reduced kd;
    SSW_MODEL_HAMEL_DRAG_INERTIA(k, h, &kd);
    SSW_MODEL_HAMEL_CUBIC(&kd, h, W1, W2, a, a2, b, rhs);
    const double p = cubic_root(a, a2, b, rhs, s->p);
    SSW_MODEL_HAMEL_SOLVE(double, &kd, h, p, W1, W2, w, v);
    SSW_MODEL_HAMEL_DRAG_KICK(k, h, w, v, W1, W2);
    s->len += h * v;
    s->diss += h * SSW_MODEL_DISSIPATION(k, w, v);
    s->p = p;
  } else {
    SSW_MODEL_HAMEL_CUBIC(k, h, W1, W2, a, a2, b, rhs);
    const double p = cubic_root(a, a2, b, rhs, s->p);
    SSW_MODEL_HAMEL_SOLVE(double, k, h, p, W1, W2, w, v);
    s->p = p;
  }
  if (e->force) SSW_MODEL_HAMEL_FORCE_KICK(h, Q1, Q2, W1, W2);
  s->W1 = W1 + fr.sig1, s->W2 = W2 + fr.sig2;
  /* The chord along phi + h w / 2, shortened by sinc(h w / 2) onto the
   * exact arc in the exponential reconstruction (as the batch kernel). */
  const double half = 0.5 * h * w, ch = cos(half), sh = sin(half);
  const double sinc = half != 0.0 ? sh / half : 1.0;
  const double dx = s->ux * ch - s->uy * sh, dy = s->ux * sh + s->uy * ch;
  const double len = recon == SSW_RECON_EXP ? h * v * sinc : h * v;
  s->x += len * dx, s->y += len * dy;
  s->ux = dx * ch - dy * sh, s->uy = dx * sh + dy * ch;
  s->phi += h * w;
}

void ssw_mass_compose(const ssw_coeffs *c, double h, int recon, ssw_state *s) {
  const ssw_method *m = c->method;
  for (int i = 0; i < m->stages; i++)
    base_step(&c->e, m->gamma[i] * h, s->t + m->nodes[i] * h, recon, s);
  const double r = 1.5 - 0.5 * (s->ux * s->ux + s->uy * s->uy);
  s->ux *= r, s->uy *= r;
  s->t += h;
}

void ssw_mass_hamel_step(const ssw_coeffs *c, double h, int recon,
                         ssw_state *s) {
  base_step(&c->e, h, s->t + 0.5 * h, recon, s);
  s->t += h;
}
