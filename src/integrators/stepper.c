/* Discrete Hamel step, its symmetric compositions, and RK4 for comparison. */
#include "sleighsweep/stepper.h"

#include "batch.h"

#include "sleighsweep/dopri5.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/fmt.h"
#include "sleighsweep/ode.h"
#include "sleighsweep/rattle.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* Their nodes, the sub-steps' midpoints c_i = gamma_1 + ... + gamma_{i-1}
 * + gamma_i / 2 (computed to 40 digits from the weights above; the
 * schemes' test checks them against the weights), where the base step
 * kicks with a time-dependent force (model.h). */
static const double c_base[] = {0.5};
static const double c_tj[] = {0.67560359597982877489, 0.5,
                              0.3243964040201711696};
static const double c_suzuki[] = {
    0.20724538589718785597, 0.62173615769156365118, 0.5, 0.37826384230843640433,
    0.79275461410281211627};
static const double c_kl6[] = {0.19608072200365705973,
                               0.55846101240199386151,
                               0.37163749451785388356,
                               0.059621206385809616402,
                               0.5,
                               0.94037879361419041135,
                               0.62836250548214611644,
                               0.44153898759800613849,
                               0.80391927799634288476};
static const double c_kl8[] = {
    0.065101241544445034859, 0.41078397397644428324, 0.4966279835415748356,
    0.38131145549672895712,  0.26278046170768798451, 0.15709833513022705698,
    0.37855534946254593143,  0.65524840511036208657, 0.5,
    0.34475159488963791343,  0.62144465053745401306, 0.84290166486977291527,
    0.73721953829231201549,  0.61868854450327104288, 0.50337201645842521991,
    0.58921602602355571676,  0.93489875845555492351};
/* rk4's nodes (Kutta 1901); dopri5's are its tableau's (dopri5.h); rattle
 * evaluates at its step's two ends. */
static const double c_rk4[] = {0.0, 0.5, 0.5, 1.0};
static const double c_rattle[] = {0.0, 1.0};
#define NODES(c) (int)(sizeof c / sizeof c[0]), c

static int bind_rattle(const ssw_tensor *t, ssw_coeffs *c);
static void advance_hamel(const ssw_coeffs *c, const double h[SSW_LANES],
                          int recon, ssw_state s[SSW_LANES], int n);
static void advance_rk4(const ssw_coeffs *c, const double h[SSW_LANES],
                        int recon, ssw_state s[SSW_LANES], int n);
static void advance_dopri5(const ssw_coeffs *c, const double h[SSW_LANES],
                           int recon, ssw_state s[SSW_LANES], int n);
static void advance_rattle(const ssw_coeffs *c, const double h[SSW_LANES],
                           int recon, ssw_state s[SSW_LANES], int n);

/* The Hamel compositions: batch kernel, exact equilibria, exact node
 * energy; the comparison schemes have none of these. */
#define HAMEL (SSW_CAP_BATCH | SSW_CAP_EXACT_EQUILIBRIA | SSW_CAP_EXACT_ENERGY)

/* eps_scale (the adaptive fictive step eps = eps_scale rtol^(1/q)) is
 * calibrated on the benchmark's wide batch at the default rtol: the
 * fewest base steps at which the median body's largest error in d
 * reaches 0.1 rtol (docs/theory/step-control.md, "Steps sized to the
 * accuracy asked"); hamel2 and the comparison schemes are not. */
static const ssw_method methods[] = {
    {"hamel2", "base discrete Hamel step, order 2", 2, 1, w_base, NODES(c_base),
     1.0, HAMEL, "Xia & Zhang 2025", NULL, advance_hamel},
    {"hamel4", "triple-jump composition, order 4", 4, 3, w_tj, NODES(c_tj), 2.0,
     HAMEL, "Yoshida, Phys. Lett. A 150 (1990) 262", NULL, advance_hamel},
    {"hamel4s", "5-stage composition, order 4", 4, 5, w_suzuki, NODES(c_suzuki),
     5.0, HAMEL, "Suzuki, Phys. Lett. A 146 (1990) 319", NULL, advance_hamel},
    {"hamel6", "9-stage composition s9odr6a, order 6", 6, 9, w_kl6,
     NODES(c_kl6), 5.4, HAMEL, "Kahan & Li, Math. Comp. 66 (1997) 1089", NULL,
     advance_hamel},
    {"hamel8", "17-stage composition s17odr8a, order 8", 8, 17, w_kl8,
     NODES(c_kl8), 5.4, HAMEL, "Kahan & Li, Math. Comp. 66 (1997) 1089", NULL,
     advance_hamel},
    {"rk4", "classical explicit Runge-Kutta, order 4 (comparison)", 4, 0, NULL,
     NODES(c_rk4), 1.0, 0, "Kutta 1901", NULL, advance_rk4},
    {"dopri5",
     "Dormand-Prince 5(4) with DOPRI5 step control, the 2025 paper's RK45 "
     "(comparison)",
     5, 0, NULL, SSW_DOPRI5_NODES, ssw_dopri5_nodes, 1.0,
     SSW_CAP_OWN_STEP_CONTROL,
     "Dormand & Prince, J. Comput. Appl. Math. 6 (1980) 19; Hairer, Norsett "
     "& Wanner, Solving ODEs I, II.4-5",
     NULL, advance_dopri5},
    {"rattle",
     "nonholonomic RATTLE in lab coordinates with the blade multiplier, "
     "order 2 (comparison)",
     2, 0, NULL, NODES(c_rattle), 1.0, SSW_CAP_FULL_TENSOR,
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
  static const ssw_fmt_flag tab[] = {
#define CAP_ROW_(id, bit, name, ...) {bit, name},
      SSW_CAPS(CAP_ROW_)
#undef CAP_ROW_
  };
  ssw_fmt_flags(caps, tab, sizeof tab / sizeof tab[0], " ", buf, size);
}

int ssw_stepper_bind(const ssw_tensor *t, const ssw_method *m, ssw_coeffs *c) {
  ssw_model_reduce(t, &c->e);
  c->t = *t;
  c->method = m;
  return m->bind ? m->bind(t, c) : SSW_SUCCESS;
}

void ssw_stepper_init(const ssw_coeffs *c, double w0, double v0, ssw_state *s) {
  s->t = s->phi = s->x = s->y = 0.0;
  s->ux = 1.0, s->uy = 0.0;
  ssw_model_momenta_at(&c->e, 0.0, w0, v0, &s->W1, &s->W2);
  s->p = ssw_model_g(&c->e, w0, v0);
  s->len = s->diss = 0.0;
}

void ssw_stepper_velocity(const ssw_coeffs *c, const ssw_state *s, double *w,
                          double *v) {
  ssw_model_velocity_at(&c->e, s->t, s->W1, s->W2, w, v);
}

/* The first n lanes in kernels of 8 lanes where more than 4 lanes are
 * asked for (one AVX-512 vector where the CPU has it, else two 4-lane
 * vectors whose latency chains overlap), of 4 otherwise; a kernel's lanes
 * past n carry copies of lane 0 (any state would do: no lane reads
 * another). */
static void advance_hamel(const ssw_coeffs *c, const double h[SSW_LANES],
                          int recon, ssw_state s[SSW_LANES], int n) {
  if (c->e.mass) { /* K(t): one lane at a time (mass_step.c) */
    for (int l = 0; l < n; l++)
      ssw_mass_compose(c, h[l], recon, &s[l]);
    return;
  }
  const int kw = ssw_stepper_kernel_lanes(n);
  for (int l0 = 0; l0 < n; l0 += kw) {
    const int m = n - l0 < kw ? n - l0 : kw;
    ssw_state ls[SSW_KW_WIDE];
    double lh[SSW_KW_WIDE];
    for (int l = 0; l < kw; l++)
      ls[l] = s[l0 + (l < m ? l : 0)], lh[l] = h[l0 + (l < m ? l : 0)];
    if (kw == SSW_KW_WIDE && ssw_batch_wide_available())
      ssw_batch_compose8(c, lh, recon, ls);
    else if (kw == SSW_KW_WIDE)
      ssw_batch_compose4x2(c, lh, recon, ls);
    else
      ssw_batch_compose4(c, lh, recon, ls);
    for (int l = 0; l < m; l++)
      s[l0 + l] = ls[l];
  }
}

int ssw_stepper_kernel_lanes(int n) {
  return n > SSW_KW_NARROW && !ssw_batch_narrow_forced() ? SSW_KW_WIDE
                                                         : SSW_KW_NARROW;
}

/* The comparison schemes step the plain state (w, v, phi, x, y); the node
 * state keeps W = K (w, v) for uniformity. */
static void to_plain(const ssw_coeffs *c, const ssw_state *s,
                     ssw_ode_state *a) {
  ssw_stepper_velocity(c, s, &a->w, &a->v);
  a->phi = s->phi, a->x = s->x, a->y = s->y, a->t = s->t;
}

/* The step from a to b into the node state. The momenta move by K times
 * the velocity's increment (b - a is the rounded increment exactly): were
 * they recomputed as K b, every step would round the round trip W -> (w, v)
 * -> W by cond(K) ulp, a bias that adds up over the steps (6e-10 of a
 * period's drift after 2e4 rk4 steps at cond(K) = 128). */
static void from_plain(const ssw_coeffs *c, const ssw_ode_state *a,
                       const ssw_ode_state *b, ssw_state *s) {
  double dW1, dW2;
  if (c->e.mass) /* W = K(t) zeta + sigma(t) at the new node */
    ssw_model_momenta_at(&c->e, b->t, b->w, b->v, &s->W1, &s->W2);
  else {
    ssw_model_momenta(&c->e, b->w - a->w, b->v - a->v, &dW1, &dW2);
    s->W1 += dW1, s->W2 += dW2;
  }
  s->t = b->t, s->phi = b->phi, s->x = b->x, s->y = b->y;
  s->ux = cos(b->phi), s->uy = sin(b->phi);
  s->p = ssw_model_g(&c->e, b->w, b->v);
}

static void rk4_step(const ssw_coeffs *c, double h, ssw_state *s) {
  double y[5], k[4][5], stage[4][5];
  ssw_stepper_velocity(c, s, &y[0], &y[1]);
  y[2] = s->phi, y[3] = s->x, y[4] = s->y;
  const double t = s->t;
  const ssw_ode_state a = {y[0], y[1], y[2], y[3], y[4], t};
  ssw_model_rhs(&c->e, t + c_rk4[0] * h, y, k[0]);
  for (int i = 0; i < 5; i++)
    stage[1][i] = y[i] + 0.5 * h * k[0][i];
  ssw_model_rhs(&c->e, t + c_rk4[1] * h, stage[1], k[1]);
  for (int i = 0; i < 5; i++)
    stage[2][i] = y[i] + 0.5 * h * k[1][i];
  ssw_model_rhs(&c->e, t + c_rk4[2] * h, stage[2], k[2]);
  for (int i = 0; i < 5; i++)
    stage[3][i] = y[i] + h * k[2][i];
  ssw_model_rhs(&c->e, t + c_rk4[3] * h, stage[3], k[3]);
  double q[4][2] = {{0}};
  if (ssw_model_dissipative(
          &c->e)) /* v and zeta^T C zeta at the stages, for len and diss */
    for (int j = 0; j < 4; j++) {
      const double *z = j == 0 ? y : stage[j];
      q[j][0] = z[1], q[j][1] = SSW_MODEL_DISSIPATION(&c->e, z[0], z[1]);
    }
  for (int i = 0; i < 5; i++)
    y[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
  const ssw_ode_state b = {y[0], y[1], y[2], y[3], y[4], t + h};
  from_plain(c, &a, &b, s);
  if (ssw_model_dissipative(&c->e)) {
    s->len += h / 6.0 * (q[0][0] + 2.0 * q[1][0] + 2.0 * q[2][0] + q[3][0]);
    s->diss += h / 6.0 * (q[0][1] + 2.0 * q[1][1] + 2.0 * q[2][1] + q[3][1]);
  }
}

static void advance_rk4(const ssw_coeffs *c, const double h[SSW_LANES],
                        int recon, ssw_state s[SSW_LANES], int n) {
  (void)recon;
  for (int l = 0; l < n; l++)
    rk4_step(c, h[l], &s[l]);
}

/* dopri5's len and diss: the integrals of v and zeta^T C zeta over the
 * step by the two-point Hermite rule (order 4; the step's own stages stay
 * inside dopri5.c). */
static void hermite_len_diss(const ssw_coeffs *c, const ssw_ode_state *a,
                             const ssw_ode_state *b, double h, ssw_state *s) {
  const ssw_reduced *e = &c->e;
  const double ya[SSW_ODE_DIM] = {a->w, a->v, a->phi, a->x, a->y};
  const double yb[SSW_ODE_DIM] = {b->w, b->v, b->phi, b->x, b->y};
  double fa[SSW_ODE_DIM], fb[SSW_ODE_DIM];
  ssw_model_rhs(e, a->t, ya, fa); /* the rates with any force */
  ssw_model_rhs(e, b->t, yb, fb);
  const double wa = fa[0], va = fa[1], wb = fb[0], vb = fb[1];
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
                           int recon, ssw_state s[SSW_LANES], int n) {
  (void)recon;
  ssw_dopri5_opts o;
  ssw_dopri5_defaults(&o);
  for (int l = 0; l < n; l++) {
    ssw_ode_state a, b;
    double err;
    to_plain(c, &s[l], &a);
    ssw_dopri5_step(&c->e, &o, &a, h[l], NULL, NULL, &b, &err);
    from_plain(c, &a, &b, &s[l]);
    if (ssw_model_dissipative(&c->e)) hermite_len_diss(c, &a, &b, h[l], &s[l]);
  }
}

/* RATTLE keeps its inverse tensor in the bound coefficients. */
_Static_assert(sizeof(ssw_rattle) <= sizeof(((ssw_coeffs *)0)->own),
               "ssw_coeffs.own holds a scheme's constants");

static int bind_rattle(const ssw_tensor *t, ssw_coeffs *c) {
  /* The model's capabilities (effect.h): a lab-frame Hamiltonian is
   * autonomous and conservative. */
  const unsigned caps = ssw_model_caps(t);
  SSW_CHECK(caps & SSW_MCAP_AUTONOMOUS, SSW_ERR_ARG,
            "scheme rattle integrates an autonomous lab-frame Hamiltonian, "
            "which has no time-dependent force; use a hamel scheme, rk4 or "
            "dopri5");
  SSW_CHECK(caps & SSW_MCAP_CONSERVATIVE, SSW_ERR_ARG,
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
                           int recon, ssw_state s[SSW_LANES], int n) {
  (void)recon;
  ssw_rattle r;
  memcpy(&r, c->own, sizeof r);
  for (int l = 0; l < n; l++) {
    ssw_ode_state a, b;
    to_plain(c, &s[l], &a);
    if (ssw_rattle_step(&r, &a, h[l], &b, NULL, NULL) != 0) {
      ssw_error_clear();
      b = a, b.w = b.v = NAN;
    }
    from_plain(c, &a, &b, &s[l]);
  }
}

void ssw_stepper_advance_batch(const ssw_coeffs *c, const double h[SSW_LANES],
                               int recon, ssw_state s[SSW_LANES], int n) {
  c->method->advance(c, h, recon, s, n);
}

void ssw_stepper_advance(const ssw_coeffs *c, double h, int recon,
                         ssw_state *s) {
  double hl[SSW_LANES] = {h};
  ssw_stepper_advance_batch(c, hl, recon, s, 1);
}

int ssw_stepper_kernel_avx512(void) { return ssw_batch_wide_available(); }
