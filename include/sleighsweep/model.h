/* The body-plus-fluid inertia tensor of the hydrodynamic Chaplygin sleigh,
 * its regime classification and derived constants (2010 paper sec. 3;
 * docs/theory/). */
#ifndef SLEIGHSWEEP_MODEL_H
#define SLEIGHSWEEP_MODEL_H

#include <math.h>
#include <stddef.h>

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
  double Gamma; /**< circulation about the ellipse, counter-clockwise
                     positive (0: none; docs/theory/circulation.md) */
  /** Linear drag C = [[drag_w, drag_wv], [drag_wv, drag_v]] on (w, v),
   * symmetric positive semidefinite (0: none; docs/theory/drag.md). */
  double drag_w, drag_v, drag_wv;
  /** A periodic torque about the contact point (docs/theory/forcing.md;
   * off while torque_amp = 0): angular frequency Omega = forcing_freq,
   * amplitude, phase, and its shape (SSW_FORCING_SHAPES: sine, or kicks
   * of angular impulse torque_amp at t = 0+, T, 2T, ...). */
  double forcing_freq, torque_amp, forcing_phase;
  int forcing_shape;
  /** A point mass mass_p moving in body coordinates from the contact
   * point to (mass_x, mass_y + mass_amp sin(Omega t + forcing_phase))
   * (docs/theory/forcing.md, "The moving mass"; off while mass_p = 0). */
  double mass_p, mass_x, mass_y, mass_amp;
} ssw_body;

/** The body's swept parameters of one grid point, a field per body axis
 * in storage order (names.h SSW_BODY_AXES: theta a b r s A B). Lengths in
 * body units, theta in radians (blade angle from the major axis,
 * counter-clockwise). */
#define SSW_PARAMS_FIELD_(id, index, name, units, long_name, field)            \
  double field;
typedef struct {
  SSW_BODY_AXES(SSW_PARAMS_FIELD_)
} ssw_params;

/** Number of the body's parameters (fields of ssw_params, body axes). */
#define SSW_NBODY_AXES (0 SSW_BODY_AXES(SSW_NAME_COUNT))

/** The array view of ssw_params: the field of body axis `axis` (its index
 * in names.h, 0 .. SSW_NBODY_AXES - 1), for loops over the parameters. */
#define SSW_PARAMS_OFFSET_(id, index, name, units, long_name, field)           \
  [index] = offsetof(ssw_params, field),
static inline size_t ssw_params_offset(int axis) {
  static const size_t offset[] = {SSW_BODY_AXES(SSW_PARAMS_OFFSET_)};
  return offset[axis];
}
static inline double *ssw_params_at(ssw_params *p, int axis) {
  return (double *)(void *)((char *)p + ssw_params_offset(axis));
}
static inline double ssw_params_get(const ssw_params *p, int axis) {
  return *(const double *)(const void *)((const char *)p +
                                         ssw_params_offset(axis));
}

/** The constants of a body's motion: the total inertia tensor acting on
 * (omega, v1, v2), [[J, -L2, L1], [-L2, M, Z], [L1, Z, N]], and the
 * coefficients of the forces beyond inertia (0: none):
 * - circulation's lift rho Gamma Jccw V_C at the ellipse centre C = (r, s)
 *   (docs/theory/circulation.md): its torque about the contact point is
 *   kappa v, kappa = rho Gamma r, and its lateral component is
 *   lift v - lift_s w, lift = rho Gamma, lift_s = rho Gamma s;
 * - linear drag: the generalised force -C zeta on zeta = (w, v),
 *   C = [[cw, cwv], [cwv, cv]] (docs/theory/drag.md). */
typedef struct {
  double J, M, N, L1, L2, Z;
  double kappa, lift, lift_s;
  double cw, cv, cwv;
  /** The periodic torque (docs/theory/forcing.md; 0: none): its angular
   * frequency, the sine's amplitude (a torque), the kicks' angular
   * impulse (one of the two is 0) and the sine's phase. */
  double fomega, ftau, fimp, fphase;
  /** The moving internal mass (docs/theory/forcing.md; 0: none): its
   * mass, its mean position (mx, my) from the contact point, the
   * amplitude of its transverse oscillation (frequency fomega, phase
   * fphase). Not part of J .. Z: K(t) adds it at each time. */
  double mp, mx, my, mamp;
} ssw_tensor;

/** Asymptotic regime of a tensor: SSW_REGIME_UNIFORM (0),
 * SSW_REGIME_LINE_TO_LINE (1), SSW_REGIME_SPIN_REVERSAL (2),
 * SSW_REGIME_CIRCLE_TO_CIRCLE (3), from the list SSW_REGIMES in names.h
 * (with each one's meaning and name). */
#define SSW_REGIME_ENUM_(id, value, ...) SSW_REGIME_##id = value,
typedef enum { SSW_REGIMES(SSW_REGIME_ENUM_) SSW_REGIME_COUNT } ssw_regime;

/** Shapes of the periodic torque: SSW_FORCING_SINE (0), SSW_FORCING_KICKS
 * (1), from the list SSW_FORCING_SHAPES in names.h; their names indexed by
 * value ("sine", "kicks"). */
#define SSW_FORCING_ENUM_(id, value, ...) SSW_FORCING_##id = value,
enum { SSW_FORCING_SHAPES(SSW_FORCING_ENUM_) SSW_FORCING_COUNT };
extern const char *const ssw_forcing_shape_names[SSW_FORCING_COUNT];

/** Lower-case name of a regime ("circle_to_circle", names.h), "unknown"
 * outside the enum. */
const char *ssw_regime_name(int regime);

/** Validates the run constants (m > 0, I0 >= 0, rho >= 0, k_rot >= 0, all
 * finite; the drag matrix symmetric positive semidefinite, see
 * ssw_model_check_drag). Errors: SSW_ERR_BODY naming the offending
 * constant. */
int ssw_model_check_body(const ssw_body *body);

/** Checks a drag matrix [[cw, cwv], [cwv, cv]]: finite, cw >= 0,
 * cv >= 0 and cw cv >= cwv^2 (positive semidefinite, so the drag never
 * feeds energy in). Errors: SSW_ERR_BODY with the offending entries. */
int ssw_model_check_drag(double cw, double cv, double cwv);

/** The largest |drag_wv| that keeps [[cw, cwv], [cwv, cv]] positive
 * semidefinite: sqrt(cw cv), computed as a user would (cw, cv >= 0). The
 * one bound ssw_model_check_drag, the config and `point` apply. */
double ssw_model_drag_wv_max(double cw, double cv);

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

/** Classifies the regime. L1 counts as zero when |L1| <= tol sqrt(J M) and
 * Z when |Z| <= tol M (dimensionally natural scales); `snapped` (may alias
 * `t`) receives the tensor with those entries set to exactly 0, which is
 * what the integrator and the closed form then use. */
void ssw_model_classify(const ssw_tensor *t, double tol, ssw_tensor *snapped,
                        int *regime);

/* ---- The reduced equations: the one home of the physics -----------------
 *
 * Every scheme, the extraction, the closed form, the dense output, the
 * benchmark and the tests take the equations of motion from here. With
 * zeta = (w, v) the body's angular velocity and the contact point's speed
 * along the blade, K = [[J, -L2], [-L2, M]], D = det K = M J - L2^2 and
 * S zeta = (-v, w) (docs/theory/model.md, sec. 2):
 *
 *   K zeta' = g S zeta - C zeta,   g = L1 w + Z v - kappa
 *   w' = (g a1 - d1) / D,  v' = (g a2 - d2) / D,
 *   a1 = L2 w - M v,  a2 = J w - L2 v,  (d1, d2) = D K^-1 C zeta
 *   phi' = w,  x' = v cos phi,  y' = v sin phi
 *
 * p2 = L1 w + Z v is the lateral momentum, and kappa v the torque of the
 * circulation's lift (kappa = 0 without circulation). g vanishes on the
 * line of equilibria and obeys g' = g ht / D exactly, with
 * ht = kw2 w - kw1 v, kw1 = L1 M + Z L2, kw2 = L1 L2 + Z J without drag.
 * The energy H = zeta^T K zeta / 2 is conserved without drag; with drag
 * (C = [[cw, cwv], [cwv, cv]] positive semidefinite) it falls at the rate
 * zeta^T C zeta and the only limit is rest (docs/theory/drag.md).
 *
 * The formulas are macros over any arithmetic type, so that the SIMD
 * batch kernel (GCC vector extensions) evaluates exactly the expressions
 * the scalar code does: a result does not depend on which of them ran it.
 * They take a pointer to an ssw_reduced (its fields are the names used
 * in the formulas). A new physical effect (a torque, a lift, a drag)
 * enters as a field of ssw_reduced, set by ssw_model_reduce from the run's
 * constants, and as a term of the macros below; docs/contributing.md has
 * the recipe. */

/** Parameters a time-dependent generalised force keeps (ssw_force_fn). */
#define SSW_FORCE_PARS 4

/** A time-dependent generalised force Q(t) = (Q1, Q2) acting on
 * zeta = (w, v): Q1 a torque about the contact point, Q2 a force along
 * the blade (the allowed directions; a lateral force the blade takes).
 * `par` holds the effect's constants. */
typedef void (*ssw_force_fn)(const double par[SSW_FORCE_PARS], double t,
                             double *Q1, double *Q2);

/** The constants of the reduced equations of one body. */
typedef struct {
  double J, M, L1, L2, Z; /**< the tensor entries that enter (N does not) */
  double D;               /**< det K = M J - L2^2 */
  double kw1, kw2;        /**< L1 M + Z L2 and L1 L2 + Z J */
  double kappa;           /**< torque of the lift per unit v (ssw_tensor) */
  double lift, lift_s;    /**< lateral lift = lift v - lift_s w */
  double cw, cv, cwv;     /**< the drag matrix C (ssw_tensor) */
  int drag;               /**< 1 when C != 0: the drag terms are added
                               (without, the formulas are bit for bit the
                               drag-free ones) */
  /** A time-dependent generalised force Q(t) (NULL: none, the equations
   * are autonomous and every formula is bit for bit the unforced one):
   * K zeta' gains Q(t), the Hamel step a kick at its midpoint node
   * (SSW_MODEL_HAMEL_FORCE_KICK). */
  ssw_force_fn force;
  double force_par[SSW_FORCE_PARS]; /**< the force's constants */
  /** The moving internal mass (0: none; ssw_model_mass_at): the inertia
   * becomes K(t) and the momenta K(t) zeta + sigma(t); every formula
   * above then takes the instantaneous constants of ssw_model_mass_at. */
  int mass;
  double mp, mx, my, mamp, momega, mphase;
} ssw_reduced;

/** The instantaneous constants of a body carrying the moving mass at
 * time t (docs/theory/forcing.md, eq. (M1)): `k` the reduced equations of
 * K(t) = K + mp [[x^2 + y^2, -y], [-y, 1]] with L1 + mp x and kappa -
 * mp y' in place of L1 and kappa (so that g - kappa of `k` is the
 * bracket g(t) - kappa + mp y' of the equations); sigma(t) =
 * mp (x y' - y x', x') and its rate; the rates dJ, dL2 of K(t)'s
 * entries (M's is 0); the mass's position (x, y) and the rates y', y''. */
typedef struct {
  ssw_reduced k;
  double sig1, sig2, dsig1, dsig2;
  double dJ, dL2;
  double x, y, dy, ddy;
} ssw_mass_frame;

/** Number of integrated components (w, v, phi, x, y). */
#define SSW_ODE_DIM 5

/** p2 = L1 w + Z v, the lateral momentum. */
#define SSW_MODEL_P2(e, w, v) ((e)->L1 * (w) + (e)->Z * (v))
/** g = p2 - kappa: zero on the line of equilibria. */
#define SSW_MODEL_G(e, w, v) (SSW_MODEL_P2(e, w, v) - (e)->kappa)
/** ht = kw2 w - kw1 v, the rate of g: g' = g ht / D. */
#define SSW_MODEL_HT(e, w, v) ((e)->kw2 * (w) - (e)->kw1 * (v))
/** (a1, a2) = D K^-1 S zeta: zeta' = g (a1, a2) / D. */
#define SSW_MODEL_A1(e, w, v) ((e)->L2 * (w) - (e)->M * (v))
#define SSW_MODEL_A2(e, w, v) ((e)->J * (w) - (e)->L2 * (v))
/** Momenta (W1, W2) = K zeta. */
#define SSW_MODEL_W1(e, w, v) ((e)->J * (w) - (e)->L2 * (v))
#define SSW_MODEL_W2(e, w, v) (-(e)->L2 * (w) + (e)->M * (v))
/** The drag force (f1, f2) = C zeta. */
#define SSW_MODEL_F1(e, w, v) ((e)->cw * (w) + (e)->cwv * (v))
#define SSW_MODEL_F2(e, w, v) ((e)->cwv * (w) + (e)->cv * (v))
/** (d1, d2) = D K^-1 C zeta, the drag's share of D zeta'. */
#define SSW_MODEL_D1(e, w, v)                                                  \
  ((e)->M * SSW_MODEL_F1(e, w, v) + (e)->L2 * SSW_MODEL_F2(e, w, v))
#define SSW_MODEL_D2(e, w, v)                                                  \
  ((e)->L2 * SSW_MODEL_F1(e, w, v) + (e)->J * SSW_MODEL_F2(e, w, v))
/** The rate of dissipation zeta^T C zeta = -dH/dt. */
#define SSW_MODEL_DISSIPATION(e, w, v)                                         \
  ((w)*SSW_MODEL_F1(e, w, v) + (v)*SSW_MODEL_F2(e, w, v))
/** Energy zeta^T K zeta / 2. */
#define SSW_MODEL_ENERGY(e, w, v)                                              \
  (0.5 * ((e)->J * (w) * (w) + (e)->M * (v) * (v)-2.0 * (e)->L2 * (w) * (v)))
/** Lateral force of the blade on the body (docs/theory/blade-force.md):
 * F = g ht / D + w (M v - L2 w) - (lift v - lift_s w), from the lateral
 * momentum balance p2' + w p1 = F + lateral lift along the motion. With
 * drag p2' = L1 w' + Z v' loses (kw1 f1 + kw2 f2) / D, f = C zeta (the
 * drag acts in the allowed directions only, so it has no lateral part);
 * without, the literal 0.0 subtracted leaves every bit unchanged. */
#define SSW_MODEL_BLADE(e, w, v, g, ht)                                        \
  ((g) * (ht) / (e)->D + (w) * ((e)->M * (v) - (e)->L2 * (w)) -                \
   ((e)->lift * (v) - (e)->lift_s * (w)) -                                     \
   ((e)->drag ? ((e)->kw1 * SSW_MODEL_F1(e, w, v) +                            \
                 (e)->kw2 * SSW_MODEL_F2(e, w, v)) /                           \
                    (e)->D                                                     \
              : 0.0))

/* The discrete Hamel step (tau = 1/2; docs/theory/model.md sec. 6 and
 * circulation.md):
 *   K zeta_k + (h/2) g(zeta_k) R zeta_k = W_k,
 *   W_{k+1} = K zeta_k - (h/2) g(zeta_k) R zeta_k,   R zeta = (v, -w).
 * The implicit half is the cubic ((a p + a2) p + b) p - rhs = 0 in
 * p = g(zeta_k) with the coefficients below (a2 and the kappa D in rhs
 * vanish without circulation); zeta_k = (K + (h/2) p R)^-1 W_k, whose
 * determinant D + (h p / 2)^2 never vanishes. The node energy
 * W^T K^-1 W / 2 is an exact invariant: W_k and W_{k+1} both give
 * zeta^T K zeta + hc^2 (R zeta)^T K^-1 (R zeta), since zeta^T R zeta = 0.
 * Fixed points are exactly the states with g = 0. */
#define SSW_MODEL_HAMEL_CUBIC(e, h, W1, W2, a, a2, b, rhs)                     \
  do {                                                                         \
    (a) = 0.25 * (h) * (h);                                                    \
    (a2) = (a) * (e)->kappa;                                                   \
    (b) = (e)->D - 0.5 * (h) * ((e)->Z * (W1) - (e)->L1 * (W2));               \
    (rhs) = (e)->kw1 * (W1) + (e)->kw2 * (W2) - (e)->kappa * (e)->D;           \
  } while (0)
/** Given the cubic's root p: the step's velocity (w, v) and the next
 * node's momenta, updated in place in (W1, W2). The products of p's
 * terms are fused into their sums (IEEE fma, one rounding:
 * SSW_MODEL_FMA_<T>), which shortens the step's chain of dependent
 * operations; contraction is otherwise off, so every type gives the same
 * bits. */
#define SSW_MODEL_HAMEL_SOLVE(T, e, h, p, W1, W2, w, v)                        \
  do {                                                                         \
    const T hc_ = 0.5 * (h) * (p);                                             \
    const T inv_ = 1.0 / SSW_MODEL_FMA_##T(hc_, hc_, (e)->D);                  \
    const T mw_ = (e)->M * (W1), jw_ = (e)->J * (W2);                          \
    (w) = SSW_MODEL_FMA_##T((e)->L2 - hc_, W2, mw_) * inv_;                    \
    (v) = SSW_MODEL_FMA_##T((e)->L2 + hc_, W1, jw_) * inv_;                    \
    (W1) = SSW_MODEL_FMA_##T(-2.0 * hc_, v, W1);                               \
    (W2) = SSW_MODEL_FMA_##T(2.0 * hc_, w, W2);                                \
  } while (0)
/** fma(a, b, c) = a b + c with one rounding for the scalar type (C's
 * fma); the SIMD batch kernel defines its vector's
 * (src/integrators/batch_kernel.h). */
#define SSW_MODEL_FMA_double(a, b, c) fma((a), (b), (c))

/* Drag in the discrete step (docs/theory/drag.md):
 *   (K + (h/2) C) zeta_k + (h/2) g(zeta_k) R zeta_k = W_k,
 *   W_{k+1} = (K - (h/2) C) zeta_k - (h/2) g(zeta_k) R zeta_k.
 * The implicit half is the drag-free one with K + (h/2) C in place of K:
 * SSW_MODEL_HAMEL_DRAG_INERTIA fills `k` (a struct with the fields of
 * ssw_reduced the two macros above read) with that matrix's J, M, L2, D,
 * kw1, kw2; SSW_MODEL_HAMEL_CUBIC and SSW_MODEL_HAMEL_SOLVE on `k` then
 * give zeta_k and W_k - h g R zeta_k, and SSW_MODEL_HAMEL_DRAG_KICK
 * subtracts h C zeta_k. The node energy W^T K^-1 W / 2 falls by exactly
 * h zeta_k^T C zeta_k per step; exchanging the nodes with h -> -h maps
 * the step onto itself (it stays symmetric). */
#define SSW_MODEL_HAMEL_DRAG_INERTIA(e, h, k)                                  \
  do {                                                                         \
    (k)->J = (e)->J + 0.5 * (h) * (e)->cw;                                     \
    (k)->M = (e)->M + 0.5 * (h) * (e)->cv;                                     \
    (k)->L2 = (e)->L2 - 0.5 * (h) * (e)->cwv;                                  \
    (k)->L1 = (e)->L1;                                                         \
    (k)->Z = (e)->Z;                                                           \
    (k)->kappa = (e)->kappa;                                                   \
    (k)->D = (k)->M * (k)->J - (k)->L2 * (k)->L2;                              \
    (k)->kw1 = (k)->L1 * (k)->M + (k)->Z * (k)->L2;                            \
    (k)->kw2 = (k)->L1 * (k)->L2 + (k)->Z * (k)->J;                            \
  } while (0)
#define SSW_MODEL_HAMEL_DRAG_KICK(e, h, w, v, W1, W2)                          \
  do {                                                                         \
    (W1) = (W1) - (h)*SSW_MODEL_F1(e, w, v);                                   \
    (W2) = (W2) - (h)*SSW_MODEL_F2(e, w, v);                                   \
  } while (0)

/* A time-dependent generalised force in the discrete step
 * (docs/theory/forcing.md): with Q = Q(t_k + h/2), the force at the
 * step's midpoint node,
 *   K zeta_k + (h/2) g(zeta_k) R zeta_k = W_k + (h/2) Q,
 *   W_{k+1} = K zeta_k - (h/2) g(zeta_k) R zeta_k + (h/2) Q:
 * the kick (h/2) Q is added to W_k before the implicit half and again
 * to its result. The node energy W^T K^-1 W / 2 then changes by exactly
 * h Q^T zeta_k, the work of the midpoint force over the step's
 * velocity; exchanging the nodes with h -> -h maps the step onto itself
 * (the midpoint node stays where it is). */
#define SSW_MODEL_HAMEL_FORCE_KICK(h, Q1, Q2, W1, W2)                          \
  do {                                                                         \
    (W1) = (W1) + 0.5 * (h) * (Q1);                                            \
    (W2) = (W2) + 0.5 * (h) * (Q2);                                            \
  } while (0)

/** The reduced equations of a tensor. */
void ssw_model_reduce(const ssw_tensor *t, ssw_reduced *e);

/** g = L1 w + Z v (SSW_MODEL_G). */
/** Which terms a body's effects add, asked by the integrators (which
 * specialise their kernels and skip exact zeros that would turn a -0.0
 * into +0.0) instead of testing the coefficients themselves: the drag
 * terms (C != 0), the circulation's kappa, the lateral lift. */
static inline int ssw_model_dissipative(const ssw_reduced *e) {
  return e->drag;
}
static inline int ssw_model_has_kappa(const ssw_tensor *t) {
  return t->kappa != 0.0;
}
static inline int ssw_model_has_lift(const ssw_tensor *t) {
  return t->lift != 0.0 || t->lift_s != 0.0;
}

static inline double ssw_model_g(const ssw_reduced *e, double w, double v) {
  return SSW_MODEL_G(e, w, v);
}
/** ht = kw2 w - kw1 v (SSW_MODEL_HT). */
static inline double ssw_model_ht(const ssw_reduced *e, double w, double v) {
  return SSW_MODEL_HT(e, w, v);
}

/** (w', v') of the reduced equations at (w, v). */
static inline void ssw_model_zeta_rate(const ssw_reduced *e, double w, double v,
                                       double *dw, double *dv) {
  const double g = SSW_MODEL_G(e, w, v);
  if (e->drag) {
    *dw = (g * SSW_MODEL_A1(e, w, v) - SSW_MODEL_D1(e, w, v)) / e->D;
    *dv = (g * SSW_MODEL_A2(e, w, v) - SSW_MODEL_D2(e, w, v)) / e->D;
    return;
  }
  *dw = g * SSW_MODEL_A1(e, w, v) / e->D;
  *dv = g * SSW_MODEL_A2(e, w, v) / e->D;
}

void ssw_model_mass_at(const ssw_reduced *e, double t, ssw_mass_frame *f);

/** (w', v', phi', x', y') with the moving mass (e->mass):
 * zeta' = K(t)^-1 [(g - kappa + mp y') S zeta - C zeta + Q(t) - K'(t) zeta
 * - sigma'(t)]. */
void ssw_model_mass_rhs(const ssw_reduced *e, double t,
                        const double y[SSW_ODE_DIM], double f[SSW_ODE_DIM]);

/** Velocity zeta = K^-1 W of momenta. */
static inline void ssw_model_velocity(const ssw_reduced *e, double W1,
                                      double W2, double *w, double *v) {
  *w = (e->M * W1 + e->L2 * W2) / e->D;
  *v = (e->L2 * W1 + e->J * W2) / e->D;
}

/** Right-hand side of the reduced and reconstruction equations at time t
 * and y = (w, v, phi, x, y): the autonomous rate (ssw_model_zeta_rate)
 * plus K^-1 Q(t) where the model has a time-dependent force. */
static inline void ssw_model_rhs(const ssw_reduced *e, double t,
                                 const double y[SSW_ODE_DIM],
                                 double f[SSW_ODE_DIM]) {
  if (e->mass) {
    ssw_model_mass_rhs(e, t, y, f);
    return;
  }
  ssw_model_zeta_rate(e, y[0], y[1], &f[0], &f[1]);
  if (e->force) {
    double Q1, Q2, dw, dv;
    e->force(e->force_par, t, &Q1, &Q2);
    ssw_model_velocity(e, Q1, Q2, &dw, &dv);
    f[0] += dw, f[1] += dv;
  }
  f[2] = y[0];
  f[3] = y[1] * cos(y[2]);
  f[4] = y[1] * sin(y[2]);
}

/** Momenta W = K zeta of a velocity. */
static inline void ssw_model_momenta(const ssw_reduced *e, double w, double v,
                                     double *W1, double *W2) {
  *W1 = SSW_MODEL_W1(e, w, v);
  *W2 = SSW_MODEL_W2(e, w, v);
}

/** The velocity zeta = K(t)^-1 (W - sigma(t)) of the momenta at time t
 * and its inverse W = K(t) zeta + sigma(t): the plain ones without the
 * moving mass. */
void ssw_model_velocity_at(const ssw_reduced *e, double t, double W1, double W2,
                           double *w, double *v);
void ssw_model_momenta_at(const ssw_reduced *e, double t, double w, double v,
                          double *W1, double *W2);

/** Energy H = zeta^T K zeta / 2 of the reduced state (w, v). */
static inline double ssw_model_energy(const ssw_reduced *e, double w,
                                      double v) {
  return SSW_MODEL_ENERGY(e, w, v);
}

/** Lateral force F (body axis E2, force units of the tensor) that the
 * blade exerts on the body at the reduced state (w, v) (SSW_MODEL_BLADE). */
static inline double ssw_model_blade_force(const ssw_reduced *e, double w,
                                           double v) {
  return SSW_MODEL_BLADE(e, w, v, SSW_MODEL_G(e, w, v), SSW_MODEL_HT(e, w, v));
}

/** F and its time derivative dF/dt along the motion at (w, v). */
void ssw_model_blade_rate(const ssw_reduced *e, double w, double v, double *f,
                          double *df);

/** F(w, v) as a symmetric quadratic form F = Fww w^2 + 2 Fwv w v + Fvv v^2
 * (the closed form's bound on it uses this): F's form without circulation,
 * whose lift adds terms of first and zeroth order. */
void ssw_model_blade_form(const ssw_reduced *e, double *Fww, double *Fwv,
                          double *Fvv);

/** Taylor coefficients F[0..n-1] of the blade force F(t0 + s) in s, from
 * the state (w, v) at t0, by the recurrence of the reduced equations
 * (quadratic in zeta, so the series of zeta follows term by term). n is
 * at most SSW_MODEL_SERIES_MAX. */
#define SSW_MODEL_SERIES_MAX 32
void ssw_model_blade_series(const ssw_reduced *e, double w, double v, int n,
                            double *F);

/** Four doubles, one per lane (GCC vector extension). */
typedef double ssw_model_v4 __attribute__((vector_size(4 * sizeof(double))));

/* SIMD code comes in an AVX2 and a baseline (SSE2) clone, chosen at run
 * time by target_clones (an ifunc): the four-lane series functions here
 * (the batch kernel chooses its own: src/integrators/batch8.c). Every lane
 * performs the scalar's operations, so both clones give the same bits.
 * ThreadSanitizer's runtime must start before any instrumented code and
 * cannot run an ifunc resolver at relocation time, so its builds
 * (SSW_NO_IFUNC) take the baseline path, as do other architectures. */
#if defined(__SANITIZE_THREAD__)
#define SSW_NO_IFUNC 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SSW_NO_IFUNC 1
#endif
#endif
#if defined(SSW_NO_IFUNC) || !defined(__x86_64__)
#define SSW_SIMD_CLONES
#else
#define SSW_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#endif

/** ssw_model_blade_series for four states at once, lane l of w, v and of
 * each F[k] being one state's: bit for bit the scalar's results (every
 * lane performs the scalar's sequence of operations), at about the cost
 * of one, whose recurrence is a chain of dependent sums. */
void ssw_model_blade_series4(const ssw_reduced *e, const ssw_model_v4 *w,
                             const ssw_model_v4 *v, int n, ssw_model_v4 *F);

/** The first-order exponential tail at a state (w, v) near the line of
 * equilibria: g decays as exp(ht t / D), so with q = g / ht the limit
 * velocity is (w, v) - (a1, a2) q and the heading line's intercept moves
 * by -shift, shift = D a1 q / ht; all with O(g^2) error. */
static inline void ssw_model_tail(const ssw_reduced *e, double w, double v,
                                  double q, double ht, double *w_inf,
                                  double *v_inf, double *shift) {
  const double a1 = SSW_MODEL_A1(e, w, v), a2 = SSW_MODEL_A2(e, w, v);
  *w_inf = w - a1 * q;
  *v_inf = v - a2 * q;
  *shift = e->D * a1 * q / ht;
}

/** Centre (cx, cy) of the limit circle a motion approaches, from its
 * state at heading (ux, uy) = (cos phi, sin phi), contact point (x, y) and
 * velocity (w, v), g, ht near the line of
 * equilibria and the limit velocity (w_inf, v_inf). The centre is the
 * material point (0, v_inf / w_inf) of the limit motion (0, -L1 / Z
 * without circulation, the same for every limit); with `tail` its
 * remaining displacement, u e^{i phi} / (ht / D + i w) for a point moving
 * at speed u = v - w y along the heading, is subtracted (O(g^2) error).
 * NaN when the limit is a straight line. */
void ssw_model_centre(const ssw_reduced *e, double ux, double uy, double x,
                      double y, double w, double v, double g, double ht,
                      int tail, double w_inf, double v_inf, double *cx,
                      double *cy);

/** Largest |g| on the energy level H: sqrt(2 H E / D) (E, D of the
 * tensor). */
static inline double ssw_model_gmax(const ssw_tensor *t, double H);

/** Displacement (dx, dy) of the contact point from ta to tb in uniform
 * motion with body velocity (w, v) and heading w t (heading 0 at t = 0):
 * the exact arc of radius |v / w|, a segment when w = 0. */
void ssw_model_arc(double w, double v, double ta, double tb, double *dx,
                   double *dy);

/** The point of the energy ellipse zeta^T K zeta = 2 H at angle psi of the
 * Cholesky parametrisation K = L L^T, L = [[sqrt J, 0], [-L2 / sqrt J,
 * sqrt(D / J)]]: zeta = L^-T (sqrt(2 H) cos psi, sqrt(2 H) sin psi). */
void ssw_model_energy_point(const ssw_tensor *t, double H, double psi,
                            double *w, double *v);

/** D = M J - L2^2 (> 0 for a positive definite tensor). */
static inline double ssw_model_D(const ssw_tensor *t) {
  return t->M * t->J - t->L2 * t->L2;
}

/** E = J Z^2 + 2 Z L1 L2 + M L1^2 (> 0 unless L1 = Z = 0). */
static inline double ssw_model_E(const ssw_tensor *t) {
  return t->J * t->Z * t->Z + 2.0 * t->Z * t->L1 * t->L2 + t->M * t->L1 * t->L1;
}

static inline double ssw_model_gmax(const ssw_tensor *t, double H) {
  return sqrt(2.0 * H * ssw_model_E(t) / ssw_model_D(t));
}

/** Critical energy of circulation, H_c = D kappa^2 / (2 E): below it the
 * line of equilibria g = 0 misses the energy ellipse and the reduced
 * motion is periodic (docs/theory/circulation.md); +inf when E = 0 and
 * kappa != 0, 0 without circulation. */
static inline double ssw_model_critical_energy(const ssw_tensor *t) {
  if (t->kappa == 0.0) return 0.0;
  const double E = ssw_model_E(t);
  return E > 0.0 ? ssw_model_D(t) * t->kappa * t->kappa / (2.0 * E) : INFINITY;
}

#ifdef __cplusplus
}
#endif
#endif
