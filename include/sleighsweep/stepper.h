/* The discrete Hamel (variational) integrator (docs/theory/model.md sec. 6),
 * symmetric compositions (methods as coefficient tables) and a classical RK4
 * on the same equations for comparison.
 *
 * Reduced equations (2010 paper eq. 3.3), D = M J - L2^2:
 *   w' = (L1 w + Z v)(L2 w - M v) / D,   v' = (L1 w + Z v)(J w - L2 v) / D,
 *   phi' = w,  x' = v cos(phi),  y' = v sin(phi).
 * Hamel step (tau = 1/2), K = [[J, -L2], [-L2, M]], p = L1 w + Z v,
 * R (w, v) = (v, -w):
 *   K zeta_k + (h/2) p R zeta_k = W_k,  W_{k+1} = K zeta_k - (h/2) p R zeta_k.
 */
#ifndef SLEIGHSWEEP_STEPPER_H
#define SLEIGHSWEEP_STEPPER_H

#include "sleighsweep/model.h"
#include "sleighsweep/rattle.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reconstruction of the spatial path from the body velocity:
 * SSW_RECON_EXP (0, SE(2) exponential: exact arc of each step) and
 * SSW_RECON_MIDPOINT (1, coordinate midpoint, as in the 2025 paper), from
 * the list SSW_RECONS in names.h. */
#define SSW_RECON_ENUM_(id, value, ...) SSW_RECON_##id = value,
typedef enum { SSW_RECONS(SSW_RECON_ENUM_) SSW_RECON_COUNT } ssw_recon;

/** Reconstruction names indexed by value ("exp", "midpoint"; names.h). */
extern const char *const ssw_recon_names[SSW_RECON_COUNT];

/** Lower-case name of a reconstruction ("exp", "midpoint"); NULL if none. */
const char *ssw_recon_name(int recon);
/** Looks a reconstruction up by name; -1 if unknown. */
int ssw_recon_find(const char *name);

/** Constants of the reduced equations for one tensor. */
typedef struct {
  double J, M, L1, L2, Z, D;
  double kw1, kw2;   /**< L1 M + Z L2 and L1 L2 + Z J (cubic right-hand side) */
  ssw_tensor t;      /**< the tensor itself (comparison schemes) */
  int rattle_ok;     /**< the 3x3 tensor allows the lab-frame RATTLE */
  ssw_rattle rattle; /**< its constants when rattle_ok */
} ssw_coeffs;

/** Integrator state at a node: time, configuration and node momenta. */
typedef struct {
  double phi, x, y; /**< heading (rad) and contact point */
  double ux, uy;    /**< (cos phi, sin phi), carried by rotations */
  double W1, W2;    /**< projected momenta W = K (w, v) at the node */
  double p; /**< last L1 w + Z v of the discrete velocity (warm start) */
} ssw_state;

/** Kinds of method. Compositions run in the batch kernel; the others are
 * comparison schemes stepped lane by lane. */
typedef enum {
  SSW_KIND_HAMEL = 0, /**< symmetric composition of the base Hamel step */
  SSW_KIND_RK4,       /**< classical Runge-Kutta 4 */
  SSW_KIND_DOPRI5,    /**< Dormand-Prince 5(4) with its own step control */
  SSW_KIND_RATTLE,    /**< nonholonomic RATTLE in lab coordinates */
} ssw_method_kind;

/** A method: a symmetric composition of the base Hamel step with the given
 * sub-step weights (summing to 1), or a comparison scheme (stages = 0). */
typedef struct {
  const char *name;        /**< "hamel2", "hamel4", ..., "rk4" */
  const char *description; /**< one line with the reference */
  int order;               /**< classical order of the macro step */
  int stages;              /**< number of base steps per macro step */
  const double *gamma;     /**< sub-step weights, `stages` of them */
  double eps_scale;        /**< adaptive: fictive step eps = eps_scale
                                rtol^(1/order) (calibrated, see the
                                benchmark) */
  int kind;                /**< ssw_method_kind */
  const char *reference;   /**< where the method comes from */
} ssw_method;

/** The method table; `count` receives its length. */
const ssw_method *ssw_method_table(int *count);
/** Looks a method up by name; NULL if unknown. */
const ssw_method *ssw_method_find(const char *name);

/** Fills the reduced-equation constants from a tensor. */
void ssw_stepper_coeffs(const ssw_tensor *t, ssw_coeffs *c);

/** Initial state at the origin with heading 0 and velocity (w0, v0). */
void ssw_stepper_init(const ssw_coeffs *c, double w0, double v0, ssw_state *s);

/** Node velocity (w, v) = K^-1 W of a state. */
void ssw_stepper_velocity(const ssw_coeffs *c, const ssw_state *s, double *w,
                          double *v);

/** One base Hamel step of size h (negative h integrates backward: the scheme
 * is symmetric). The implicit half is the scalar depressed cubic in p,
 * solved by Newton from the previous p to full double precision. */
void ssw_hamel_step(const ssw_coeffs *c, double h, int recon, ssw_state *s);

/** Lanes of the batch kernel (one AVX2 register of doubles). */
#define SSW_LANES 4

/** One macro step of a method for SSW_LANES independent states of the same
 * tensor, lane l with its own size h[l]. A lane's result is bit-identical
 * to the same state advanced in any other lane, with any neighbours, on any
 * instruction set (the scalar entry below is this kernel with one state). */
void ssw_stepper_advance_batch(const ssw_coeffs *c, const ssw_method *m,
                               const double h[SSW_LANES], int recon,
                               ssw_state s[SSW_LANES]);

/** One macro step of size h with a method (composition or RK4). */
void ssw_stepper_advance(const ssw_coeffs *c, const ssw_method *m, double h,
                         int recon, ssw_state *s);

/** Right-hand side of the reduced equations at (w, v). */
static inline void ssw_stepper_rhs(const ssw_coeffs *c, double w, double v,
                                   double *dw, double *dv) {
  const double g = c->L1 * w + c->Z * v;
  *dw = g * (c->L2 * w - c->M * v) / c->D;
  *dv = g * (c->J * w - c->L2 * v) / c->D;
}

/** g = L1 w + Z v, which vanishes on the line of equilibria: the stopping
 * rule is |g| <= gstop (ssw_extract_gstop). g' = g ht / D exactly, with
 * ht = (L1 L2 + Z J) w - (L1 M + Z L2) v, so |g| peaks where ht = 0 (t0)
 * and the approach to the line is exponential at the rate ht / D. */
static inline double ssw_stepper_g(const ssw_coeffs *c, double w, double v) {
  return c->L1 * w + c->Z * v;
}
static inline double ssw_stepper_ht(const ssw_coeffs *c, double w, double v) {
  return c->kw2 * w - c->kw1 * v;
}

#ifdef __cplusplus
}
#endif
#endif
