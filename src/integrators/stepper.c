/* Discrete Hamel step, its symmetric compositions, and RK4 for comparison. */
#include "sleighsweep/stepper.h"

#include "sleighsweep/dopri5.h"
#include "sleighsweep/error.h"
#include "sleighsweep/ode.h"
#include "sleighsweep/rattle.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wpsabi" /* vectors stay inside this file */

/* Composition weights. Each sequence is symmetric and sums to 1, so the
 * macro step stays symmetric (time-reversible) and variational.
 * - hamel4: Yoshida's triple jump, Phys. Lett. A 150 (1990) 262.
 * - hamel4s: Suzuki's 5-stage fractal, Phys. Lett. A 146 (1990) 319.
 * - hamel6: Kahan & Li s9odr6a, Math. Comp. 66 (1997) 1089; also Hairer,
 *   Lubich & Wanner, Geometric Numerical Integration, sec. V.3.2.
 * - hamel8: Kahan & Li s17odr8a, same references. */
#define TJ_A 1.35120719195965763405  /* 1 / (2 - 2^(1/3)) */
#define TJ_B -1.70241438391931526810 /* -2^(1/3) / (2 - 2^(1/3)) */
#define SZ_P 0.41449077179437573714  /* 1 / (4 - 4^(1/3)) */
static const double w_base[] = {1.0};
static const double w_tj[] = {TJ_A, TJ_B, TJ_A};
static const double w_suzuki[] = {SZ_P, SZ_P, 1.0 - 4.0 * SZ_P, SZ_P, SZ_P};
static const double w_kl6[] = {
    0.39216144400731413928,  0.33259913678935943860, -0.70624617255763935981,
    0.082213596293550800230, 0.79854399093482996340, 0.082213596293550800230,
    -0.70624617255763935981, 0.33259913678935943860, 0.39216144400731413928};
static const double w_kl8[] = {
    0.13020248308889008088,  0.56116298177510838456,  -0.38947496264484728641,
    0.15884190655515560090,  -0.39590389413323757734, 0.18453964097831570709,
    0.25837438768632204729,  0.29501172360931029887,  -0.60550853383003451170,
    0.29501172360931029887,  0.25837438768632204729,  0.18453964097831570709,
    -0.39590389413323757734, 0.15884190655515560090,  -0.38947496264484728641,
    0.56116298177510838456,  0.13020248308889008088};

static int bind_rattle(const ssw_tensor *t, ssw_coeffs *c);
static void advance_hamel(const ssw_coeffs *c, const double h[SSW_LANES],
                          int recon, ssw_state s[SSW_LANES]);
static void advance_rk4(const ssw_coeffs *c, const double h[SSW_LANES],
                        int recon, ssw_state s[SSW_LANES]);
static void advance_dopri5(const ssw_coeffs *c, const double h[SSW_LANES],
                           int recon, ssw_state s[SSW_LANES]);
static void advance_rattle(const ssw_coeffs *c, const double h[SSW_LANES],
                           int recon, ssw_state s[SSW_LANES]);

/* The Hamel compositions: batch kernel, exact equilibria, exact node
 * energy; the comparison schemes have none of these. */
#define HAMEL (SSW_CAP_BATCH | SSW_CAP_EXACT_EQUILIBRIA | SSW_CAP_EXACT_ENERGY)

static const ssw_method methods[] = {
    {"hamel2", "base discrete Hamel step, order 2", 2, 1, w_base, 1.0, HAMEL,
     "Xia & Zhang 2025", NULL, advance_hamel},
    {"hamel4", "triple-jump composition, order 4", 4, 3, w_tj, 1.0, HAMEL,
     "Yoshida, Phys. Lett. A 150 (1990) 262", NULL, advance_hamel},
    {"hamel4s", "5-stage composition, order 4", 4, 5, w_suzuki, 1.0, HAMEL,
     "Suzuki, Phys. Lett. A 146 (1990) 319", NULL, advance_hamel},
    {"hamel6", "9-stage composition s9odr6a, order 6", 6, 9, w_kl6, 3.0, HAMEL,
     "Kahan & Li, Math. Comp. 66 (1997) 1089", NULL, advance_hamel},
    {"hamel8", "17-stage composition s17odr8a, order 8", 8, 17, w_kl8, 4.0,
     HAMEL, "Kahan & Li, Math. Comp. 66 (1997) 1089", NULL, advance_hamel},
    {"rk4", "classical explicit Runge-Kutta, order 4 (comparison)", 4, 0, NULL,
     1.0, 0, "Kutta 1901", NULL, advance_rk4},
    {"dopri5",
     "Dormand-Prince 5(4) with DOPRI5 step control, the 2025 paper's RK45 "
     "(comparison)",
     5, 0, NULL, 1.0, SSW_CAP_OWN_STEP_CONTROL,
     "Dormand & Prince, J. Comput. Appl. Math. 6 (1980) 19; Hairer, Norsett "
     "& Wanner, Solving ODEs I, II.4-5",
     NULL, advance_dopri5},
    {"rattle",
     "nonholonomic RATTLE in lab coordinates with the blade multiplier, "
     "order 2 (comparison)",
     2, 0, NULL, 1.0, SSW_CAP_FULL_TENSOR,
     "McLachlan & Perlmutter, J. Nonlinear Sci. 16 (2006) 283", bind_rattle,
     advance_rattle},
};

const ssw_method *ssw_method_table(int *count) {
  *count = (int)(sizeof methods / sizeof methods[0]);
  return methods;
}

const ssw_method *ssw_method_find(const char *name) {
  int n;
  const ssw_method *t = ssw_method_table(&n);
  for (int i = 0; i < n; i++)
    if (strcmp(t[i].name, name) == 0) return &t[i];
  return NULL;
}

const char *const ssw_recon_names[SSW_RECON_COUNT] = {SSW_RECONS(SSW_NAME_AT)};

const char *ssw_recon_name(int recon) {
  return (recon >= 0 && recon < SSW_RECON_COUNT) ? ssw_recon_names[recon]
                                                 : NULL;
}

int ssw_recon_find(const char *name) {
  for (int i = 0; i < SSW_RECON_COUNT; i++)
    if (strcmp(ssw_recon_names[i], name) == 0) return i;
  return -1;
}

void ssw_method_names(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof methods / sizeof methods[0] && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                             methods[i].name);
}

void ssw_method_caps_text(unsigned caps, char *buf, size_t size) {
  static const struct {
    unsigned bit;
    const char *name;
  } tab[] = {
#define CAP_ROW_(id, bit, name, ...) {bit, name},
      SSW_CAPS(CAP_ROW_)
#undef CAP_ROW_
  };
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof tab / sizeof tab[0] && used < size; i++)
    if (caps & tab[i].bit)
      used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " " : "",
                               tab[i].name);
}

int ssw_stepper_bind(const ssw_tensor *t, const ssw_method *m, ssw_coeffs *c) {
  ssw_model_reduce(t, &c->e);
  c->t = *t;
  c->method = m;
  return m->bind ? m->bind(t, c) : SSW_SUCCESS;
}

void ssw_stepper_init(const ssw_coeffs *c, double w0, double v0, ssw_state *s) {
  s->phi = s->x = s->y = 0.0;
  s->ux = 1.0, s->uy = 0.0;
  ssw_model_momenta(&c->e, w0, v0, &s->W1, &s->W2);
  s->p = ssw_model_g(&c->e, w0, v0);
  s->len = s->diss = 0.0;
}

void ssw_stepper_velocity(const ssw_coeffs *c, const ssw_state *s, double *w,
                          double *v) {
  ssw_model_velocity(&c->e, s->W1, s->W2, w, v);
}

/* The batch kernel. SSW_LANES states advance together in SIMD lanes
 * (GCC vector extensions: AVX2 when the CPU has it, chosen at run time by
 * target_clones, SSE2 otherwise). Every lane performs exactly the scalar
 * sequence of IEEE operations of its own state: no lane reads another, the
 * data-dependent loops (Newton, angle halving) stop per lane through masks,
 * and the build forbids contraction into FMA, so a state's result does not
 * depend on its lane, its neighbours or the instruction set. */
typedef double vd __attribute__((vector_size(SSW_LANES * sizeof(double))));
typedef long long vm __attribute__((vector_size(SSW_LANES * sizeof(double))));

/* Lane-wise helpers as macros and pointer arguments: no 256-bit vector is
 * passed or returned by value, whose ABI differs between the AVX2 and the
 * baseline clone (clang refuses it outright). */
#define VSEL(m, a, b) ((vd)(((vm)(a) & (m)) | ((vm)(b) & ~(m))))
#define VNEG0 (-((vd){0})) /* -0.0 in every lane */
#define VABS(x) ((vd)((vm)(x) & ~(vm)VNEG0))

/* Whether any lane of a mask (all ones or zero per lane) is set: the two
 * halves OR-ed and one movmskpd of their sign bits, an SSE2 instruction
 * that both clones have (AVX2: vpermq, vpor, vmovmskpd), rather than four
 * lane extractions and three scalar ORs. */
#if defined(__x86_64__) && SSW_LANES == 4
typedef long long vm2 __attribute__((vector_size(2 * sizeof(double))));
typedef double vd2 __attribute__((vector_size(2 * sizeof(double))));
static inline __attribute__((always_inline)) int vany(const vm *m) {
  const vm2 lo = __builtin_shufflevector(*m, *m, 0, 1);
  const vm2 hi = __builtin_shufflevector(*m, *m, 2, 3);
  return __builtin_ia32_movmskpd((vd2)(lo | hi)) != 0;
}
#else
static inline __attribute__((always_inline)) int vany(const vm *m) {
  long long r = 0;
  for (int l = 0; l < SSW_LANES; l++)
    r |= (*m)[l];
  return r != 0;
}
#endif

/* One Newton iteration for f(p) = ((a p + a2) p + b) p - rhs: the next
 * iterate, and whether the error left after it can exceed 2^-54 |p|, a
 * quarter of an ulp. For a cubic that error is at most dp^2 (|f''/2| +
 * |a dp|) / f' to relative O(dp) (docs/theory/step-control.md, "Newton for
 * the cubic"), so no further iteration is needed to know it. f is summed in
 * Estrin's order: this chain is the kernel's critical path. */
static inline __attribute__((always_inline)) void
newton(const vd *a_, const vd *a2_, const vd *b_, const vd *rhs_, const vd *p_,
       vd *pn, vm *more) {
  const vd a = *a_, a2 = *a2_, b = *b_, p = *p_;
  const vd f = (a * p + a2) * (p * p) + (b * p - *rhs_);
  const vd a3p = 3.0 * a * p; /* f''/2 = a3p + a2 */
  const vd df = (a3p + 2.0 * a2) * p + b;
  const vd dp = f / df;
  *pn = p - dp;
  const vd left = (VABS(a3p + a2) + VABS(a * dp)) * (dp * dp);
  *more = (vm)(left > 0x1p-54 * VABS(*pn * df));
}

/* Root of the cubic nearest the warm start, the previous step's p (a =
 * h^2/4, a2 = a kappa). For the step sizes in use b > 0 and a2^2 < 3 a b,
 * so the cubic is monotone with one real root and Newton converges from
 * any start. A lane stops once its error is below a quarter ulp, at any
 * step size; whether any lane goes on is first asked after the second
 * iteration (one is never enough but where p is zero or the step tiny). */
static inline __attribute__((always_inline)) void
solve_cubic(const vd *a, const vd *a2, const vd *b, const vd *rhs, vd *p_) {
  vd p, pn;
  vm active, more;
  newton(a, a2, b, rhs, p_, &p, &active); /* every lane: no select */
  for (int it = 1; it < 50; it++) {
    newton(a, a2, b, rhs, &p, &pn, &more);
    p = VSEL(active, pn, p);
    active &= more;
    if (!vany(&active)) break;
  }
  *p_ = p;
}

/* cos x, sin x and sinc x = sin x / x without libm and without division:
 * Taylor series in Horner form on |x| <= 0.75 (remainder < 4e-20), after
 * halving x (exactly, by powers of two) as often as the lane needs, then
 * doubling back: cos 2y = c^2 - s^2, sin 2y = 2 s c, sinc 2y = sinc y c. */
static inline __attribute__((always_inline)) void half_turn(const vd *x, vd *c,
                                                            vd *s, vd *sinc) {
  vd y = *x;
  vd halvings = y - y;
  for (int k = 0; k < 60; k++) {
    const vm big = (vm)(VABS(y) > 0.75);
    if (!vany(&big)) break;
    y = VSEL(big, 0.5 * y, y);
    halvings = VSEL(big, halvings + 1.0, halvings);
  }
  /* (-1)^k / (2k+1)! and (-1)^k / (2k)!, folded at compile time. */
  static const double S1 = -1.0 / 6, S2 = 1.0 / 120, S3 = -1.0 / 5040,
                      S4 = 1.0 / 362880, S5 = -1.0 / 39916800,
                      S6 = 1.0 / 6227020800.0, S7 = -1.0 / 1307674368000.0,
                      S8 = 1.0 / 355687428096000.0;
  static const double C1 = -1.0 / 2, C2 = 1.0 / 24, C3 = -1.0 / 720,
                      C4 = 1.0 / 40320, C5 = -1.0 / 3628800,
                      C6 = 1.0 / 479001600, C7 = -1.0 / 87178291200.0,
                      C8 = 1.0 / 20922789888000.0,
                      C9 = -1.0 / 6402373705728000.0;
  /* Estrin's order (pairs, then powers y^4, y^8): 8 operations deep where
   * Horner's takes 16-18, and the half-turn lies on the step's critical
   * path as much as Newton does. */
  const vd y2 = y * y, y4 = y2 * y2, y8 = y4 * y4;
  vd sc = 1.0 + y2 * (((S1 + S2 * y2) + (S3 + S4 * y2) * y4) +
                      ((S5 + S6 * y2) + (S7 + S8 * y2) * y4) * y8);
  vd cc = 1.0 + y2 * (((C1 + C2 * y2) + (C3 + C4 * y2) * y4) +
                      ((C5 + C6 * y2) + ((C7 + C8 * y2) + C9 * y4) * y4) * y8);
  vd ss = y * sc;
  for (int k = 0; k < 60; k++) {
    const vm more = (vm)(halvings > 0.0);
    if (!vany(&more)) break;
    const vd c2 = cc * cc - ss * ss, s2 = 2.0 * ss * cc, sc2 = sc * cc;
    cc = VSEL(more, c2, cc), ss = VSEL(more, s2, ss), sc = VSEL(more, sc2, sc);
    halvings = VSEL(more, halvings - 1.0, halvings);
  }
  *c = cc, *s = ss, *sinc = sc;
}

/* The lanes' states as vectors. */
typedef struct {
  vd phi, x, y, ux, uy, W1, W2, p, len, diss;
} vstate;

static void load(const ssw_state s[SSW_LANES], vstate *v) {
  for (int l = 0; l < SSW_LANES; l++) {
    v->phi[l] = s[l].phi, v->x[l] = s[l].x, v->y[l] = s[l].y;
    v->ux[l] = s[l].ux, v->uy[l] = s[l].uy;
    v->W1[l] = s[l].W1, v->W2[l] = s[l].W2, v->p[l] = s[l].p;
    v->len[l] = s[l].len, v->diss[l] = s[l].diss;
  }
}

static void store(const vstate *v, ssw_state s[SSW_LANES]) {
  for (int l = 0; l < SSW_LANES; l++) {
    s[l].phi = v->phi[l], s[l].x = v->x[l], s[l].y = v->y[l];
    s[l].ux = v->ux[l], s[l].uy = v->uy[l];
    s[l].W1 = v->W1[l], s[l].W2 = v->W2[l], s[l].p = v->p[l];
    s[l].len = v->len[l], s[l].diss = v->diss[l];
  }
}

/* The implicit half's inertia K + (h/2) C with drag, per lane
 * (SSW_MODEL_HAMEL_DRAG_INERTIA). */
typedef struct {
  vd J, M, L2, D, kw1, kw2;
  double L1, Z, kappa;
} vinertia;

/* One base Hamel step of size h (per lane) on every lane: the physics
 * module's discrete equations (SSW_MODEL_HAMEL_*) on vectors. `drag` is a
 * constant at each call, so the drag-free step compiles as before. */
static inline __attribute__((always_inline)) void
base_step(const ssw_reduced *e, const vd *h_, int recon, int drag, vstate *s) {
  const vd h = *h_;
  vd a, a2, b, rhs, w, v;
  vd p = s->p;
  if (drag) {
    vinertia k;
    SSW_MODEL_HAMEL_DRAG_INERTIA(e, h, &k);
    SSW_MODEL_HAMEL_CUBIC(&k, h, s->W1, s->W2, a, a2, b, rhs);
    solve_cubic(&a, &a2, &b, &rhs, &p);
    SSW_MODEL_HAMEL_SOLVE(vd, &k, h, p, s->W1, s->W2, w, v);
    SSW_MODEL_HAMEL_DRAG_KICK(e, h, w, v, s->W1, s->W2);
    s->len += h * v;
    s->diss += h * SSW_MODEL_DISSIPATION(e, w, v);
  } else {
    SSW_MODEL_HAMEL_CUBIC(e, h, s->W1, s->W2, a, a2, b, rhs);
    solve_cubic(&a, &a2, &b, &rhs, &p);
    SSW_MODEL_HAMEL_SOLVE(vd, e, h, p, s->W1, s->W2, w, v);
  }
  s->p = p;
  /* Both reconstructions move along the chord direction phi + h w / 2; the
   * exponential one shortens it by sinc(h w / 2) to lie on the exact arc.
   * The heading's unit vector is turned by two half-turns, so no
   * trigonometry of phi itself is needed. */
  vd ch, sh, sinc;
  const vd half = 0.5 * h * w;
  half_turn(&half, &ch, &sh, &sinc);
  const vd dx = s->ux * ch - s->uy * sh, dy = s->ux * sh + s->uy * ch;
  const vd len = recon == SSW_RECON_EXP ? h * v * sinc : h * v;
  s->x += len * dx;
  s->y += len * dy;
  s->ux = dx * ch - dy * sh;
  s->uy = dx * sh + dy * ch;
  s->phi += h * w;
}

/* Run-time choice of AVX2 (an ifunc). ThreadSanitizer's runtime must start
 * before any instrumented code and cannot run an ifunc resolver at
 * relocation time, so its builds take the baseline path. */
#if defined(__SANITIZE_THREAD__)
#define SSW_CLONES
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SSW_CLONES
#endif
#endif
#ifndef SSW_CLONES
#define SSW_CLONES __attribute__((target_clones("avx2", "default")))
#endif

SSW_CLONES static void compose(const ssw_coeffs *c, const double h[SSW_LANES],
                               int recon, ssw_state s[SSW_LANES]) {
  const ssw_method *m = c->method;
  vstate v;
  vd hv = {0};
  load(s, &v);
  for (int l = 0; l < SSW_LANES; l++)
    hv[l] = h[l];
  if (c->e.drag)
    for (int i = 0; i < m->stages; i++) {
      const vd hi = m->gamma[i] * hv;
      base_step(&c->e, &hi, recon, 1, &v);
    }
  else
    for (int i = 0; i < m->stages; i++) {
      const vd hi = m->gamma[i] * hv;
      base_step(&c->e, &hi, recon, 0, &v);
    }
  /* Keep the heading vector on the unit circle (one Newton step for
   * 1/sqrt: rotations only add round-off to its length). */
  const vd r = 1.5 - 0.5 * (v.ux * v.ux + v.uy * v.uy);
  v.ux *= r, v.uy *= r;
  store(&v, s);
}

void ssw_hamel_step(const ssw_coeffs *c, double h, int recon, ssw_state *s) {
  vstate v;
  ssw_state lanes[SSW_LANES];
  for (int l = 0; l < SSW_LANES; l++)
    lanes[l] = *s;
  load(lanes, &v);
  const vd hv = (vd){0} + h;
  if (c->e.drag)
    base_step(&c->e, &hv, recon, 1, &v);
  else
    base_step(&c->e, &hv, recon, 0, &v);
  store(&v, lanes);
  *s = lanes[0];
}

static void advance_hamel(const ssw_coeffs *c, const double h[SSW_LANES],
                          int recon, ssw_state s[SSW_LANES]) {
  compose(c, h, recon, s);
}

/* The comparison schemes step the plain state (w, v, phi, x, y); the node
 * state keeps W = K (w, v) for uniformity. */
static void to_plain(const ssw_coeffs *c, const ssw_state *s,
                     ssw_ode_state *a) {
  ssw_stepper_velocity(c, s, &a->w, &a->v);
  a->phi = s->phi, a->x = s->x, a->y = s->y, a->t = 0.0;
}

static void from_plain(const ssw_coeffs *c, const ssw_ode_state *b,
                       ssw_state *s) {
  ssw_model_momenta(&c->e, b->w, b->v, &s->W1, &s->W2);
  s->phi = b->phi, s->x = b->x, s->y = b->y;
  s->ux = cos(b->phi), s->uy = sin(b->phi);
  s->p = ssw_model_g(&c->e, b->w, b->v);
}

static void rk4_step(const ssw_coeffs *c, double h, ssw_state *s) {
  double y[5], k[4][5], stage[4][5];
  ssw_stepper_velocity(c, s, &y[0], &y[1]);
  y[2] = s->phi, y[3] = s->x, y[4] = s->y;
  ssw_model_rhs(&c->e, y, k[0]);
  for (int i = 0; i < 5; i++)
    stage[1][i] = y[i] + 0.5 * h * k[0][i];
  ssw_model_rhs(&c->e, stage[1], k[1]);
  for (int i = 0; i < 5; i++)
    stage[2][i] = y[i] + 0.5 * h * k[1][i];
  ssw_model_rhs(&c->e, stage[2], k[2]);
  for (int i = 0; i < 5; i++)
    stage[3][i] = y[i] + h * k[2][i];
  ssw_model_rhs(&c->e, stage[3], k[3]);
  double q[4][2] = {{0}};
  if (c->e.drag) /* v and zeta^T C zeta at the stages, for len and diss */
    for (int j = 0; j < 4; j++) {
      const double *z = j == 0 ? y : stage[j];
      q[j][0] = z[1], q[j][1] = SSW_MODEL_DISSIPATION(&c->e, z[0], z[1]);
    }
  for (int i = 0; i < 5; i++)
    y[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
  const ssw_ode_state b = {y[0], y[1], y[2], y[3], y[4], 0.0};
  from_plain(c, &b, s);
  if (c->e.drag) {
    s->len += h / 6.0 * (q[0][0] + 2.0 * q[1][0] + 2.0 * q[2][0] + q[3][0]);
    s->diss += h / 6.0 * (q[0][1] + 2.0 * q[1][1] + 2.0 * q[2][1] + q[3][1]);
  }
}

static void advance_rk4(const ssw_coeffs *c, const double h[SSW_LANES],
                        int recon, ssw_state s[SSW_LANES]) {
  (void)recon;
  for (int l = 0; l < SSW_LANES; l++)
    rk4_step(c, h[l], &s[l]);
}

/* dopri5's len and diss: the integrals of v and zeta^T C zeta over the
 * step by the two-point Hermite rule (order 4; the step's own stages stay
 * inside dopri5.c). */
static void hermite_len_diss(const ssw_coeffs *c, const ssw_ode_state *a,
                             const ssw_ode_state *b, double h, ssw_state *s) {
  const ssw_reduced *e = &c->e;
  double wa, va, wb, vb;
  ssw_model_zeta_rate(e, a->w, a->v, &wa, &va);
  ssw_model_zeta_rate(e, b->w, b->v, &wb, &vb);
  const double qa = SSW_MODEL_DISSIPATION(e, a->w, a->v);
  const double qb = SSW_MODEL_DISSIPATION(e, b->w, b->v);
  const double dqa = 2.0 * (wa * SSW_MODEL_F1(e, a->w, a->v) +
                            va * SSW_MODEL_F2(e, a->w, a->v));
  const double dqb = 2.0 * (wb * SSW_MODEL_F1(e, b->w, b->v) +
                            vb * SSW_MODEL_F2(e, b->w, b->v));
  s->len += 0.5 * h * (a->v + b->v) + h * h / 12.0 * (va - vb);
  s->diss += 0.5 * h * (qa + qb) + h * h / 12.0 * (dqa - dqb);
}

static void advance_dopri5(const ssw_coeffs *c, const double h[SSW_LANES],
                           int recon, ssw_state s[SSW_LANES]) {
  (void)recon;
  ssw_dopri5_opts o;
  ssw_dopri5_defaults(&o);
  for (int l = 0; l < SSW_LANES; l++) {
    ssw_ode_state a, b;
    double err;
    to_plain(c, &s[l], &a);
    ssw_dopri5_step(&c->e, &o, &a, h[l], NULL, NULL, &b, &err);
    from_plain(c, &b, &s[l]);
    if (c->e.drag) hermite_len_diss(c, &a, &b, h[l], &s[l]);
  }
}

/* RATTLE keeps its inverse tensor in the bound coefficients. */
_Static_assert(sizeof(ssw_rattle) <= sizeof(((ssw_coeffs *)0)->own),
               "ssw_coeffs.own holds a scheme's constants");

static int bind_rattle(const ssw_tensor *t, ssw_coeffs *c) {
  SSW_CHECK(t->cw == 0.0 && t->cv == 0.0 && t->cwv == 0.0, SSW_ERR_ARG,
            "scheme rattle integrates a conservative lab-frame Hamiltonian, "
            "which has no drag; with drag_w, drag_v or drag_wv != 0 use a "
            "hamel scheme, rk4 or dopri5");
  ssw_rattle r;
  if (ssw_rattle_setup(t, &r) != SSW_SUCCESS) {
    char why[512];
    snprintf(why, sizeof why, "%s", ssw_error_user_message());
    return SSW_RAISE(SSW_ERR_ARG,
                     "scheme rattle needs a positive definite 3x3 tensor "
                     "(its lab-frame Hamiltonian inverts it), and this one "
                     "is singular (I0 = 0 on a dry plane?); use a hamel "
                     "scheme or dopri5 (%s)",
                     why);
  }
  memcpy(c->own, &r, sizeof r);
  return SSW_SUCCESS;
}

/* A failed step (RATTLE's Newton) leaves NaN, which the extraction flags. */
static void advance_rattle(const ssw_coeffs *c, const double h[SSW_LANES],
                           int recon, ssw_state s[SSW_LANES]) {
  (void)recon;
  ssw_rattle r;
  memcpy(&r, c->own, sizeof r);
  for (int l = 0; l < SSW_LANES; l++) {
    ssw_ode_state a, b;
    to_plain(c, &s[l], &a);
    if (ssw_rattle_step(&r, &a, h[l], &b, NULL, NULL) != 0) {
      ssw_error_clear();
      b = a, b.w = b.v = NAN;
    }
    from_plain(c, &b, &s[l]);
  }
}

void ssw_stepper_advance_batch(const ssw_coeffs *c, const double h[SSW_LANES],
                               int recon, ssw_state s[SSW_LANES]) {
  c->method->advance(c, h, recon, s);
}

void ssw_stepper_advance(const ssw_coeffs *c, double h, int recon,
                         ssw_state *s) {
  ssw_state lanes[SSW_LANES];
  double hl[SSW_LANES];
  for (int l = 0; l < SSW_LANES; l++)
    lanes[l] = *s, hl[l] = h;
  ssw_stepper_advance_batch(c, hl, recon, lanes);
  *s = lanes[0];
}
