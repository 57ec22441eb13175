/* The integration schemes as data: a table of methods, each with its
 * coefficients, its capabilities and its operations (PETSc's
 * register-and-ops pattern): the discrete Hamel step (docs/theory/model.md
 * sec. 6) and its symmetric compositions, run in a SIMD batch kernel, and
 * the comparison schemes rk4, dopri5 and rattle. Every scheme takes the
 * equations of motion from the physics module (model.h); nothing outside
 * the table's file asks which scheme it is: callers test capabilities. */
#ifndef SLEIGHSWEEP_STEPPER_H
#define SLEIGHSWEEP_STEPPER_H

#include <stddef.h>

#include "sleighsweep/model.h"

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

typedef struct ssw_method ssw_method;

/** Doubles a scheme may keep of its own per body (RATTLE's inverse
 * tensor). */
#define SSW_SCHEME_OWN_DOUBLES 64

/** A method bound to one body: the reduced equations, the tensor, and
 * what the scheme derived from them for itself (ssw_stepper_bind). */
typedef struct {
  ssw_reduced e;            /**< the equations of motion (model.h) */
  ssw_tensor t;             /**< the full tensor (lab-frame schemes) */
  const ssw_method *method; /**< the scheme bound */
  double own[SSW_SCHEME_OWN_DOUBLES]; /**< the scheme's own constants */
} ssw_coeffs;

/** Integrator state at a node: time, configuration and node momenta. */
typedef struct {
  double t;         /**< time of the node (ssw_stepper_init: 0) */
  double phi, x, y; /**< heading (rad) and contact point */
  double ux, uy;    /**< (cos phi, sin phi), carried by rotations */
  double W1, W2;    /**< projected momenta W = K (w, v) at the node */
  double p; /**< last L1 w + Z v of the discrete velocity (warm start) */
  /** With drag only (0 otherwise): the signed distance travelled along
   * the blade, integral of v dt, and the energy dissipated, integral of
   * zeta^T C zeta dt, since ssw_stepper_init (the Hamel step sums its
   * exact per-step values h v_k and h zeta_k^T C zeta_k). */
  double len, diss;
} ssw_state;

/** Lanes of a batch: what ssw_stepper_advance_batch takes at most. The
 * kernel runs them 8 at a time in one AVX-512 register where the CPU has
 * AVX-512, 4 at a time (AVX2, or SSE2) otherwise, with the same results. */
#define SSW_LANES 8

/** Capabilities of a scheme (ssw_method.caps), what callers ask instead
 * of its name: X(id, bit, name, meaning).
 * - BATCH: steps SSW_LANES states at once in the SIMD batch kernel.
 * - EXACT_EQUILIBRIA: keeps the line of equilibria exactly (its fixed
 *   points are the states with g = 0), so |g| decays to any stopping
 *   tolerance; without it a leg stops where |g| stops decreasing.
 * - OWN_STEP_CONTROL: chooses its own steps (embedded error estimate) when
 *   the run is adaptive; fixed steps (eta) still step it at their size.
 * - FULL_TENSOR: needs the full 3x3 tensor positive definite (lab-frame
 *   schemes); the reduced equations need only K positive definite.
 * - EXACT_ENERGY: conserves the (node) energy exactly. */
#define SSW_CAPS(X)                                                            \
  X(BATCH, 1, "batch", "SIMD batch kernel")                                    \
  X(EXACT_EQUILIBRIA, 2, "exact-equilibria", "keeps g = 0 exactly")            \
  X(OWN_STEP_CONTROL, 4, "own-step-control", "embedded error control")         \
  X(FULL_TENSOR, 8, "full-tensor", "needs the 3x3 tensor positive definite")   \
  X(EXACT_ENERGY, 16, "exact-energy", "conserves the node energy exactly")
#define SSW_CAP_ENUM_(id, bit, ...) SSW_CAP_##id = bit,
enum { SSW_CAPS(SSW_CAP_ENUM_) };

/** The names of the capabilities in `caps`, space-separated, into buf. */
void ssw_method_caps_text(unsigned caps, char *buf, size_t size);

/** Derives what a scheme needs of one body into c->own. Errors:
 * SSW_ERR_ARG with the reason when the scheme cannot integrate it. */
typedef int (*ssw_method_bind_fn)(const ssw_tensor *t, ssw_coeffs *c);

/** One macro step of size h[l] for each of the first n (1 to SSW_LANES)
 * states of the bound body, from each state's time s[l].t to
 * s[l].t + h[l]. A failed step leaves NaN in the state (the extraction
 * flags it). */
typedef void (*ssw_method_advance_fn)(const ssw_coeffs *c,
                                      const double h[SSW_LANES], int recon,
                                      ssw_state s[SSW_LANES], int n);

/** A method: a symmetric composition of the base Hamel step with the given
 * sub-step weights (summing to 1), or a comparison scheme (stages = 0),
 * with its capabilities and operations. Its nodes are the times, in units
 * of the macro step from its start, at which it evaluates a
 * time-dependent force: a composition's are its sub-steps' midpoints
 * (c_i = gamma_1 + ... + gamma_{i-1} + gamma_i / 2, where the base step
 * kicks), rk4's and dopri5's their tableaux' c_i, rattle's its step's two
 * ends. */
struct ssw_method {
  const char *name;        /**< "hamel2", "hamel4", ..., "rk4" */
  const char *description; /**< one line with the reference */
  int order;               /**< classical order of the macro step */
  int stages;              /**< number of base steps per macro step */
  const double *gamma;     /**< sub-step weights, `stages` of them */
  int n_nodes;             /**< number of nodes */
  const double *nodes;     /**< the nodes c_i, `n_nodes` of them */
  double eps_scale;        /**< adaptive: fictive step eps = eps_scale
                                rtol^(1/order) (calibrated, see the
                                benchmark) */
  unsigned caps;           /**< SSW_CAP_* */
  const char *reference;   /**< where the method comes from */
  ssw_method_bind_fn bind; /**< NULL: nothing of its own to derive */
  ssw_method_advance_fn advance;
};

/** Base steps a macro step of the method costs (at least 1). */
static inline int ssw_method_cost(const ssw_method *m) {
  return m->stages > 0 ? m->stages : 1;
}

/** The method table; `count` receives its length. */
const ssw_method *ssw_method_table(int *count);
/** Looks a method up by name; NULL if unknown. */
const ssw_method *ssw_method_find(const char *name);

/** Comma-separated names of the methods ("hamel2, hamel4, ...") into
 * buf (for messages and help texts). */
void ssw_method_names(char *buf, size_t size);

/** Binds a method to a tensor: the reduced equations, and whatever the
 * scheme derives for itself. Errors: SSW_ERR_ARG when the scheme cannot
 * integrate this body (rattle on a singular 3x3 tensor), with the reason
 * and what to use instead. */
int ssw_stepper_bind(const ssw_tensor *t, const ssw_method *m, ssw_coeffs *c);

/** Initial state at the origin with heading 0 and velocity (w0, v0). */
void ssw_stepper_init(const ssw_coeffs *c, double w0, double v0, ssw_state *s);

/** Node velocity (w, v) = K^-1 W of a state. */
void ssw_stepper_velocity(const ssw_coeffs *c, const ssw_state *s, double *w,
                          double *v);

/** One base Hamel step of size h from time s->t (negative h integrates
 * backward: the scheme is symmetric), a time-dependent force kicking at
 * its midpoint node s->t + h/2. The implicit half is the scalar depressed
 * cubic in p, solved by Newton from the previous p to full double
 * precision. */
void ssw_hamel_step(const ssw_coeffs *c, double h, int recon, ssw_state *s);

/** One macro step of the bound method for the first n (1 to SSW_LANES)
 * of SSW_LANES independent states, lane l with its own size h[l]; states
 * from n on are left as they are. A lane's result is bit-identical to the
 * same state advanced in any other lane, with any neighbours, any n, on
 * any instruction set. Callers pack the states they advance first: fewer
 * lanes cost less (a Hamel composition on n <= 4 runs one 4-lane kernel). */
void ssw_stepper_advance_batch(const ssw_coeffs *c, const double h[SSW_LANES],
                               int recon, ssw_state s[SSW_LANES], int n);

/** The lanes of the kernel that advances n states of a Hamel
 * composition: 8 where n > 4 (one AVX-512 vector where the CPU has it,
 * else two 4-lane vectors side by side) unless the environment sets
 * SSW_KERNEL_LANES=4, else 4. */
int ssw_stepper_kernel_lanes(int n);

/** Whether the 8-lane kernel is one AVX-512 vector (1) or two 4-lane
 * vectors (0) on this CPU and build. */
int ssw_stepper_kernel_avx512(void);

/** One macro step of size h with a method (composition or RK4). */
void ssw_stepper_advance(const ssw_coeffs *c, double h, int recon,
                         ssw_state *s);

#ifdef __cplusplus
}
#endif
#endif
