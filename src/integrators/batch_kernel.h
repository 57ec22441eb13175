/* The batch kernel's body (no include guard: each kernel file includes it
 * once, with its own SSW_KW). */
#if !defined(SSW_KW)
#error "define SSW_KW first"
#endif

#include "batch.h"

#if defined(__FMA__)
#include <immintrin.h>
#endif

#include "sleighsweep/model.h"

/* The batch kernel's body, for SSW_KW lanes (4 or 8): included by
 * the kernels' files (batch4.c, the baseline; batch4_avx2.c and
 * batch8_avx512.c, compiled for those instruction sets), which set SSW_KW
 * and call compose_n. SSW_KW states
 * advance together in SIMD lanes (GCC vector extensions). Every lane
 * performs exactly the scalar sequence of IEEE operations of its own state:
 * no lane reads another, the data-dependent loops (Newton, angle halving)
 * stop per lane through masks, the build forbids implicit contraction into
 * FMA, and the multiply-adds the kernel fuses are written out (VFMA, one
 * rounding wherever it runs), so a state's result does not depend on its
 * lane, its neighbours or the instruction set. */
typedef double vd __attribute__((vector_size(SSW_KW * sizeof(double))));
typedef long long vm __attribute__((vector_size(SSW_KW * sizeof(double))));

/* Lane-wise helpers as macros and pointer arguments: no 256-bit vector is
 * passed or returned by value, whose ABI differs between the AVX2 and the
 * baseline clone (clang refuses it outright). */
#define VSEL(m, a, b) ((vd)(((vm)(a) & (m)) | ((vm)(b) & ~(m))))
#define VNEG0 (-((vd){0})) /* -0.0 in every lane */
#define VABS(x) ((vd)((vm)(x) & ~(vm)VNEG0))
#define VSPLAT(x) ((vd){0} + (x)) /* x in every lane (x != -0.0) */

/* a b + c lane by lane with one rounding, IEEE fma. The kernels compiled
 * for FMA (batch4_avx2.c, batch8_avx512.c) use the instruction; the
 * baseline (and an architecture without the instruction) calls libm's fma
 * for each lane, exactly rounded too: the same bits, slower. A file that
 * wants the instruction must be compiled for it, so that the choice is
 * the preprocessor's, never the optimiser's. */
#if defined(__FMA__) && SSW_KW == 4
#define VFMA(a, b, c) ((vd)_mm256_fmadd_pd((a), (b), (c)))
#elif defined(__FMA__) && defined(__AVX512F__) && SSW_KW == 8
#define VFMA(a, b, c) ((vd)_mm512_fmadd_pd((a), (b), (c)))
#else
/* Never nest one in another's arguments (their temporaries would
 * shadow). */
#define VFMA(a, b, c)                                                          \
  __extension__({                                                              \
    const vd fa_ = (a), fb_ = (b), fc_ = (c);                                  \
    vd r_ = fc_;                                                               \
    for (int l_ = 0; l_ < SSW_KW; l_++)                                        \
      r_[l_] = __builtin_fma(fa_[l_], fb_[l_], fc_[l_]);                       \
    r_;                                                                        \
  })
#endif

/* The model's fused multiply-adds (SSW_MODEL_HAMEL_SOLVE) on vectors; a
 * scalar operand (a field of ssw_reduced) is spread over the lanes by the
 * exact product with 1. */
#define VONE ((vd){0} + 1.0)
#define SSW_MODEL_FMA_vd(a, b, c) VFMA((a)*VONE, (b)*VONE, (c)*VONE)

/* Whether any lane of a mask (all ones or zero per lane) is set: the two
 * halves OR-ed and one movmskpd of their sign bits, an SSE2 instruction
 * that both clones have (AVX2: vpermq, vpor, vmovmskpd), rather than four
 * lane extractions and three scalar ORs. */
#if defined(__x86_64__)
typedef long long vm2 __attribute__((vector_size(2 * sizeof(double))));
typedef double vd2 __attribute__((vector_size(2 * sizeof(double))));
static inline __attribute__((always_inline)) int vany(const vm *m) {
#if SSW_KW == 4
  const vm2 lo = __builtin_shufflevector(*m, *m, 0, 1);
  const vm2 hi = __builtin_shufflevector(*m, *m, 2, 3);
  return __builtin_ia32_movmskpd((vd2)(lo | hi)) != 0;
#else
  const vm2 q0 = __builtin_shufflevector(*m, *m, 0, 1);
  const vm2 q1 = __builtin_shufflevector(*m, *m, 2, 3);
  const vm2 q2 = __builtin_shufflevector(*m, *m, 4, 5);
  const vm2 q3 = __builtin_shufflevector(*m, *m, 6, 7);
  return __builtin_ia32_movmskpd((vd2)((q0 | q1) | (q2 | q3))) != 0;
#endif
}
#else
static inline __attribute__((always_inline)) int vany(const vm *m) {
  long long r = 0;
  for (int l = 0; l < SSW_KW; l++)
    r |= (*m)[l];
  return r != 0;
}
#endif

/* One Newton iteration for f(p) = ((a p + a2) p + b) p - rhs: the next
 * iterate, and whether the error left after it can exceed 2^-54 |p|, a
 * quarter of an ulp. For a cubic that error is at most dp^2 (|f''/2| +
 * |a dp|) / f' to relative O(dp) (docs/theory/step-control.md, "Newton for
 * the cubic"), so no further iteration is needed to know it. f is summed in
 * Estrin's order with fused multiply-adds, f and f' two FMAs deep each:
 * this chain is the kernel's critical path. */
static inline __attribute__((always_inline)) void
newton(const vd *a_, const vd *a2_, const vd *b_, const vd *rhs_, const vd *p_,
       vd *pn, vm *more) {
  const vd a = *a_, a2 = *a2_, b = *b_, p = *p_;
  const vd lin = VFMA(b, p, -*rhs_), quad = VFMA(a, p, a2);
  const vd f = VFMA(quad, p * p, lin);
  const vd a3 = 3.0 * a, a3p = a3 * p; /* f''/2 = a3p + a2 */
  const vd slope = VFMA(a3, p, 2.0 * a2);
  const vd df = VFMA(slope, p, b);
  const vd dp = f / df;
  *pn = p - dp;
  const vd left = (VABS(a3p + a2) + VABS(a * dp)) * (dp * dp);
  *more = (vm)(left > 0x1p-54 * VABS(*pn * df));
}

/* Root of the cubic nearest the warm start, the previous step's p (a =
 * h^2/4, a2 = a kappa), for NV vectors of lanes at once. For the step sizes
 * in use b > 0 and a2^2 < 3 a b, so the cubic is monotone with one real
 * root and Newton converges from any start. A lane stops once its error is
 * below a quarter ulp, at any step size; whether any lane of any vector goes
 * on is first tested after the second iteration (one is never enough but
 * where p is zero or the step tiny). A lane that has stopped is masked,
 * never updated again, so neither NV nor the other vector changes a lane's
 * bits. */
static inline __attribute__((always_inline)) void
solve_cubic(const int nv, const vd *a, const vd *a2, const vd *b, const vd *rhs,
            vd *p_) {
  vd p[2], pn[2];
  vm active[2], more[2];
  for (int j = 0; j < nv; j++) /* every lane: no select */
    newton(&a[j], &a2[j], &b[j], &rhs[j], &p_[j], &p[j], &active[j]);
  for (int it = 1; it < 50; it++) {
    vm any = {0};
    for (int j = 0; j < nv; j++) {
      newton(&a[j], &a2[j], &b[j], &rhs[j], &p[j], &pn[j], &more[j]);
      p[j] = VSEL(active[j], pn[j], p[j]);
      active[j] &= more[j];
      any |= active[j];
    }
    if (!vany(&any)) break;
  }
  for (int j = 0; j < nv; j++)
    p_[j] = p[j];
}

/* cos x, sin x and sinc x = sin x / x without libm and without division:
 * Taylor series in Horner form on |x| <= 0.75 (remainder < 4e-20), after
 * halving x (exactly, by powers of two) as often as the lane needs, then
 * doubling back: cos 2y = c^2 - s^2, sin 2y = 2 s c, sinc 2y = sinc y c.
 * NV vectors at once; the loops run while any lane of any vector needs
 * them, and a lane that does not is masked. */
static inline __attribute__((always_inline)) void
half_turn(const int nv, const vd *x, vd *c, vd *s, vd *sinc) {
  vd y[2], halvings[2];
  for (int j = 0; j < nv; j++)
    y[j] = x[j], halvings[j] = y[j] - y[j];
  for (int k = 0; k < 60; k++) {
    vm big[2], any = {0};
    for (int j = 0; j < nv; j++) {
      big[j] = (vm)(VABS(y[j]) > 0.75);
      any |= big[j];
    }
    if (!vany(&any)) break;
    for (int j = 0; j < nv; j++) {
      y[j] = VSEL(big[j], 0.5 * y[j], y[j]);
      halvings[j] = VSEL(big[j], halvings[j] + 1.0, halvings[j]);
    }
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
  vd sc[2], cc[2], ss[2];
  const vd one = VSPLAT(1.0);
  for (int j = 0; j < nv; j++) {
    const vd y2 = y[j] * y[j], y4 = y2 * y2, y8 = y4 * y4;
    const vd s12 = VFMA(VSPLAT(S2), y2, VSPLAT(S1)),
             s34 = VFMA(VSPLAT(S4), y2, VSPLAT(S3)),
             s56 = VFMA(VSPLAT(S6), y2, VSPLAT(S5)),
             s78 = VFMA(VSPLAT(S8), y2, VSPLAT(S7));
    const vd slo = VFMA(s34, y4, s12), shi = VFMA(s78, y4, s56);
    const vd ssum = VFMA(shi, y8, slo);
    sc[j] = VFMA(y2, ssum, one);
    const vd c12 = VFMA(VSPLAT(C2), y2, VSPLAT(C1)),
             c34 = VFMA(VSPLAT(C4), y2, VSPLAT(C3)),
             c56 = VFMA(VSPLAT(C6), y2, VSPLAT(C5)),
             c78 = VFMA(VSPLAT(C8), y2, VSPLAT(C7));
    const vd c79 = VFMA(VSPLAT(C9), y4, c78);
    const vd clo = VFMA(c34, y4, c12), chi = VFMA(c79, y4, c56);
    const vd csum = VFMA(chi, y8, clo);
    cc[j] = VFMA(y2, csum, one);
    ss[j] = y[j] * sc[j];
  }
  for (int k = 0; k < 60; k++) {
    vm more[2], any = {0};
    for (int j = 0; j < nv; j++) {
      more[j] = (vm)(halvings[j] > 0.0);
      any |= more[j];
    }
    if (!vany(&any)) break;
    for (int j = 0; j < nv; j++) {
      const vd c2 = VFMA(cc[j], cc[j], -(ss[j] * ss[j])),
               s2 = 2.0 * ss[j] * cc[j], sc2 = sc[j] * cc[j];
      cc[j] = VSEL(more[j], c2, cc[j]), ss[j] = VSEL(more[j], s2, ss[j]);
      sc[j] = VSEL(more[j], sc2, sc[j]);
      halvings[j] = VSEL(more[j], halvings[j] - 1.0, halvings[j]);
    }
  }
  for (int j = 0; j < nv; j++)
    c[j] = cc[j], s[j] = ss[j], sinc[j] = sc[j];
}

/* The lanes' states as vectors. */
typedef struct {
  vd t, phi, x, y, ux, uy, W1, W2, p, len, diss;
} vstate;

static void load(const ssw_state s[SSW_KW], vstate *v) {
  for (int l = 0; l < SSW_KW; l++) {
    v->t[l] = s[l].t;
    v->phi[l] = s[l].phi, v->x[l] = s[l].x, v->y[l] = s[l].y;
    v->ux[l] = s[l].ux, v->uy[l] = s[l].uy;
    v->W1[l] = s[l].W1, v->W2[l] = s[l].W2, v->p[l] = s[l].p;
    v->len[l] = s[l].len, v->diss[l] = s[l].diss;
  }
}

static void store(const vstate *v, ssw_state s[SSW_KW]) {
  for (int l = 0; l < SSW_KW; l++) {
    s[l].t = v->t[l];
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

/* The time-dependent force Q(tm) of each lane (the model's force, lane by
 * lane: each lane's scalar call, so its bits do not depend on the lane). */
static inline __attribute__((always_inline)) void
lane_force(const ssw_reduced *e, const vd *tm, vd *Q1, vd *Q2) {
  for (int l = 0; l < SSW_KW; l++) {
    double q1, q2;
    e->force(e->force_par, (*tm)[l], &q1, &q2);
    (*Q1)[l] = q1, (*Q2)[l] = q2;
  }
}

/* One base Hamel step of size h (per lane) on every lane of NV vectors:
 * the physics module's discrete equations (SSW_MODEL_HAMEL_*) on vectors.
 * `drag` and `forced` are constants at each call, so the drag-free and
 * autonomous steps compile as before; with `forced`, the model's force at
 * the midpoint times tm kicks W before the implicit half and after it
 * (SSW_MODEL_HAMEL_FORCE_KICK). */
static inline __attribute__((always_inline)) void
base_step(const int nv, const ssw_reduced *e, const vd *h, const vd *tm,
          int recon, int drag, int forced, vstate *s) {
  vd a[2], a2[2], b[2], rhs[2], w[2], v[2], p[2], Q1[2], Q2[2];
  if (forced)
    for (int j = 0; j < nv; j++) {
      lane_force(e, &tm[j], &Q1[j], &Q2[j]);
      SSW_MODEL_HAMEL_FORCE_KICK(h[j], Q1[j], Q2[j], s[j].W1, s[j].W2);
    }
  if (drag) {
    vinertia k[2];
    for (int j = 0; j < nv; j++) {
      SSW_MODEL_HAMEL_DRAG_INERTIA(e, h[j], &k[j]);
      SSW_MODEL_HAMEL_CUBIC(&k[j], h[j], s[j].W1, s[j].W2, a[j], a2[j], b[j],
                            rhs[j]);
      p[j] = s[j].p;
    }
    solve_cubic(nv, a, a2, b, rhs, p);
    for (int j = 0; j < nv; j++) {
      SSW_MODEL_HAMEL_SOLVE(vd, &k[j], h[j], p[j], s[j].W1, s[j].W2, w[j],
                            v[j]);
      SSW_MODEL_HAMEL_DRAG_KICK(e, h[j], w[j], v[j], s[j].W1, s[j].W2);
      s[j].len = VFMA(h[j], v[j], s[j].len);
      s[j].diss = VFMA(h[j], SSW_MODEL_DISSIPATION(e, w[j], v[j]), s[j].diss);
    }
  } else {
    for (int j = 0; j < nv; j++) {
      SSW_MODEL_HAMEL_CUBIC(e, h[j], s[j].W1, s[j].W2, a[j], a2[j], b[j],
                            rhs[j]);
      p[j] = s[j].p;
    }
    solve_cubic(nv, a, a2, b, rhs, p);
    for (int j = 0; j < nv; j++)
      SSW_MODEL_HAMEL_SOLVE(vd, e, h[j], p[j], s[j].W1, s[j].W2, w[j], v[j]);
  }
  if (forced)
    for (int j = 0; j < nv; j++)
      SSW_MODEL_HAMEL_FORCE_KICK(h[j], Q1[j], Q2[j], s[j].W1, s[j].W2);
  /* Both reconstructions move along the chord direction phi + h w / 2; the
   * exponential one shortens it by sinc(h w / 2) to lie on the exact arc.
   * The heading's unit vector is turned by two half-turns, so no
   * trigonometry of phi itself is needed. */
  vd ch[2], sh[2], sinc[2], half[2];
  for (int j = 0; j < nv; j++) {
    s[j].p = p[j];
    half[j] = 0.5 * h[j] * w[j];
  }
  half_turn(nv, half, ch, sh, sinc);
  for (int j = 0; j < nv; j++) {
    vstate *q = &s[j];
    const vd dx = VFMA(q->ux, ch[j], -(q->uy * sh[j]));
    const vd dy = VFMA(q->ux, sh[j], q->uy * ch[j]);
    const vd len = recon == SSW_RECON_EXP ? h[j] * v[j] * sinc[j] : h[j] * v[j];
    q->x = VFMA(len, dx, q->x);
    q->y = VFMA(len, dy, q->y);
    q->ux = VFMA(dx, ch[j], -(dy * sh[j]));
    q->uy = VFMA(dx, sh[j], dy * ch[j]);
    q->phi = VFMA(h[j], w[j], q->phi);
  }
}

/* One macro step of the composition on NV vectors of SSW_KW lanes (states
 * s[0 .. NV SSW_KW), steps h[...]). */
static inline __attribute__((always_inline)) void
compose_n(const int nv, const ssw_coeffs *c, const double *h, int recon,
          ssw_state *s) {
  const ssw_method *m = c->method;
  vstate v[2];
  vd hv[2];
  for (int j = 0; j < nv; j++) {
    load(s + j * SSW_KW, &v[j]);
    hv[j] = (vd){0};
    for (int l = 0; l < SSW_KW; l++)
      hv[j][l] = h[j * SSW_KW + l];
  }
  if (c->e.force)
    /* Each sub-step kicks at its midpoint, the method's node c_i. */
    for (int i = 0; i < m->stages; i++) {
      vd hi[2], tm[2];
      for (int j = 0; j < nv; j++)
        hi[j] = m->gamma[i] * hv[j], tm[j] = v[j].t + m->nodes[i] * hv[j];
      if (ssw_model_dissipative(&c->e))
        base_step(nv, &c->e, hi, tm, recon, 1, 1, v);
      else
        base_step(nv, &c->e, hi, tm, recon, 0, 1, v);
    }
  else if (ssw_model_dissipative(&c->e))
    for (int i = 0; i < m->stages; i++) {
      vd hi[2];
      for (int j = 0; j < nv; j++)
        hi[j] = m->gamma[i] * hv[j];
      base_step(nv, &c->e, hi, hv, recon, 1, 0, v);
    }
  else
    for (int i = 0; i < m->stages; i++) {
      vd hi[2];
      for (int j = 0; j < nv; j++)
        hi[j] = m->gamma[i] * hv[j];
      base_step(nv, &c->e, hi, hv, recon, 0, 0, v);
    }
  /* Keep the heading vector on the unit circle (one Newton step for
   * 1/sqrt: rotations only add round-off to its length). */
  for (int j = 0; j < nv; j++) {
    const vd r = 1.5 - 0.5 * VFMA(v[j].ux, v[j].ux, v[j].uy * v[j].uy);
    v[j].ux *= r, v[j].uy *= r;
    v[j].t += hv[j]; /* the macro node: t + h, whatever the sub-steps */
    store(&v[j], s + j * SSW_KW);
  }
}
