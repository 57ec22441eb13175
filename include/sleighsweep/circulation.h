/* The sleigh with circulation about the ellipse in closed form
 * (docs/theory/circulation.md): the energy levels' classification, the
 * period and heading per period below the critical energy, the transitions
 * above it, and the exact path (one quadrature). Pure functions, no I/O;
 * the test oracle of the circulation model. kappa = rho Gamma r is the only
 * combination of the circulation Gamma that enters the motion; every
 * function takes it as an argument and reads only the inertia of the
 * tensor (J, M, L1, L2, Z), not its kappa field. In the notation here g
 * is L1 w + Z v (model.h's p2) and the equilibria are g = kappa. */
#ifndef SLEIGHSWEEP_CIRCULATION_H
#define SLEIGHSWEEP_CIRCULATION_H

#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Kind of reduced motion on an energy level (circulation.md sec. 3). */
typedef enum {
  SSW_CIRC_PERIODIC = 0,     /**< H < H_c: one periodic motion per level */
  SSW_CIRC_CRITICAL = 1,     /**< |mu| = 1 in floating point: not covered */
  SSW_CIRC_HETEROCLINIC = 2, /**< H > H_c: two arcs between two equilibria */
} ssw_circ_kind;

/** Closed-form description of one energy level H of a tensor with lift
 * constant kappa. Quantities that do not exist for the level's kind are
 * NaN (sec. 3-5 of circulation.md give the formulas). */
typedef struct {
  double kappa, H; /**< inputs */
  int arc;         /**< sign of g - kappa on the motion; below H_c always
                        -sign(kappa) (the level is one closed motion) */
  int kind;        /**< ssw_circ_kind */
  double D, E;     /**< M J - L2^2, J Z^2 + 2 Z L1 L2 + M L1^2 */
  double alpha, beta, c1, c2; /**< model.md sec. 4 */
  double Hc;                  /**< critical energy D kappa^2 / (2 E) */
  double gm;                  /**< largest g on the level, sqrt(2 H E / D) */
  double mu;                  /**< kappa / gm */
  double rate;                /**< gm / sqrt(D) (the kappa = 0 Arate) */
  double nu;                  /**< sqrt|1 - mu^2| */
  /* Below H_c (SSW_CIRC_PERIODIC). */
  double period;      /**< 2 pi D / sqrt(2 E (Hc - H)) */
  double dphi_period; /**< heading change per period */
  double turns;       /**< dphi_period / (2 pi): the path drifts when an
                           integer, is bounded otherwise */
  int n_near;         /**< nearest resonance index n >= 1 (0 if c1 = 0) */
  double H_near;      /**< its drift energy H_n */
  /* Above H_c (SSW_CIRC_HETEROCLINIC). */
  double psi_e;    /**< acos(mu): the equilibria at psi = +-psi_e */
  double lambda;   /**< approach rate sqrt(2 E (H - Hc)) / D at both ends */
  double dphi_pos; /**< transition angle on the arc g > kappa: 2 c1 psi_e */
  double dphi_neg; /**< on the arc g < kappa: -2 c1 (pi - psi_e) */
  double dphi;     /**< the transition angle of `arc` */
  double w_past, v_past, w_future, v_future; /**< limit states (both arcs) */
  double r_past, r_future; /**< |v / w| at the limit states (inf if w = 0) */
} ssw_circ_level;

/** kappa = rho Gamma r: fluid density, circulation (counter-clockwise
 * positive) and the ellipse centre's coordinate along the blade. Model I
 * (r = 0) gives 0: the circulation does not change its motion. */
double ssw_circ_kappa(double rho, double Gamma, double r);

/** Critical energy H_c = D kappa^2 / (2 E) of a snapped tensor (+inf when
 * E = 0 and kappa != 0, 0 when kappa = 0). */
double ssw_circ_critical_energy(const ssw_tensor *t, double kappa);

/** Drift energy H_n = H_c n (2|c1| + n) / (|c1| + n)^2 (n >= 1), at which
 * the heading turns by exactly 2 pi n per period and the path drifts;
 * NaN for n < 1 or E = 0. */
double ssw_circ_drift_energy(const ssw_tensor *t, double kappa, int n);

/** Fills `out` for the level H > 0 of a snapped tensor with E > 0 and
 * kappa. `arc` (+1: g > kappa, -1: g < kappa) selects the transition
 * angle above H_c and is ignored below it. Errors: SSW_ERR_ARG for E = 0
 * (L1 = Z = 0: g vanishes identically, not covered), a singular reduced
 * inertia, H <= 0, non-finite input or arc not +-1. */
int ssw_circ_level_compute(const ssw_tensor *t, double kappa, double H, int arc,
                           ssw_circ_level *out);

/** One exact motion, fixed by its reduced state (w0, v0) at t = 0 with
 * heading 0 and the contact point at the origin. */
typedef struct {
  ssw_circ_level lv; /**< its energy level (arc = side) */
  double w0, v0;     /**< initial reduced state */
  int side;          /**< sign of g0 - kappa; 0: on the line of equilibria
                          (uniform motion for ever) */
  double m;          /**< side * mu */
  double ratio;      /**< rho = sqrt((1-m)/(1+m)) above H_c,
                          sqrt((m-1)/(m+1)) below */
  double theta0;     /**< phase at t = 0; theta = theta0 + dtheta_dt t */
  double dtheta_dt;  /**< side nu rate / 2 */
  double t0;         /**< time of the largest |g - kappa| (theta = 0) */
  double chi0, ell0; /**< chi and ln((cos chi - m) / (1 - m)) at theta0 */
  double slope;      /**< 2 c1 m / nu: the heading's part linear in theta */
  double panel;      /**< quadrature panel length in theta */
} ssw_circ_orbit;

/** Sets up the exact motion through (w0, v0). Errors: as
 * ssw_circ_level_compute, a zero or non-finite state, or a critical level
 * (|mu| = 1 in floating point). */
int ssw_circ_orbit_init(const ssw_tensor *t, double kappa, double w0, double v0,
                        ssw_circ_orbit *o);

/** The motion of level H on `arc` through its instant of largest
 * |g - kappa| (psi = 0 for arc +1, pi for -1) at t = 0, so t0 = 0. Below
 * H_c the arc is forced (ignored). Errors: as ssw_circ_level_compute. */
int ssw_circ_orbit_level(const ssw_tensor *t, double kappa, double H, int arc,
                         ssw_circ_orbit *o);

/** Exact reduced state (w, v) at time t. */
void ssw_circ_orbit_state(const ssw_circ_orbit *o, double t, double *w,
                          double *v);

/** Exact heading phi(t), phi(0) = 0 (elementary; circulation.md sec. 6). */
double ssw_circ_orbit_heading(const ssw_circ_orbit *o, double t);

/** Exact displacement of the contact point from ta to tb (composite
 * 20-point Gauss-Legendre in theta). Errors: SSW_ERR_NUMERIC when the
 * span needs more than SSW_CIRC_PANELS_MAX panels (a level within ~1e-13
 * of H_c, or a span of ~1e8 turns). */
#define SSW_CIRC_PANELS_MAX 100000000L
int ssw_circ_orbit_advance(const ssw_circ_orbit *o, double ta, double tb,
                           double *dx, double *dy);

/** Below H_c: the displacement (zx, zy) over the period starting at t = 0
 * and the radius |z_T| / |2 sin(dphi_period / 2)| of the circle on which
 * the contact point lies at t = k T (inf at a drift energy). Errors:
 * SSW_ERR_ARG on another kind of level or on the line of equilibria; as
 * ssw_circ_orbit_advance. */
int ssw_circ_orbit_period(const ssw_circ_orbit *o, double *zx, double *zy,
                          double *radius);

/** Above H_c: the centres of the past and future limit circles in the
 * orbit's frame (heading 0, contact point at the origin at t = 0) and
 * their distance d. NaN when a limit state has w = 0 (a limit straight
 * line). Errors: SSW_ERR_ARG on another kind of level or on the line of
 * equilibria; as ssw_circ_orbit_advance. */
int ssw_circ_orbit_centres(const ssw_circ_orbit *o, double past[2],
                           double future[2], double *d);

#ifdef __cplusplus
}
#endif
#endif
