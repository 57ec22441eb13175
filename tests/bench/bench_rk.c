/* DOP853 and Verner's 9(8) pair as references of the benchmark
 * (bench_rk.h). Methods as data: each pair is a coefficient table, its
 * error norm and its step controller, copied from a public
 * implementation named beside it. One stage loop serves both; the
 * right-hand side is a constant function pointer into an always-inline
 * function, so the compiler inlines ssw_model_rhs into each pair's step
 * (this file is compiled -O3 -march=native, tests/bench/CMakeLists.txt). */
#include "bench_rk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXS 16         /* stages of the largest pair (Vern9) */
#define DIM SSW_ODE_DIM /* w, v, phi, x, y */

/* An explicit pair: y1 = y + h sum b_i k_i, error weights e (b minus
 * the embedded weights) and, for DOP853, the second estimator e3. */
typedef struct {
  const char *name;
  int s, p; /* stages, order of the propagated solution */
  double a[MAXS][MAXS], b[MAXS], c[MAXS], e[MAXS], e3[MAXS];
  int hairer_norm; /* 1: DOP853's combined norm of e and e3; 0: RMS of e */
  /* step control: q = err^beta1 / qold^beta2 / gamma, clamped to
   * [1 / qmax, 1 / qmin], h_new = h / q */
  double beta1, beta2, gamma, qmin, qmax;
  int hold_after_reject; /* 1: no growth on the step after a rejection */
} tableau;

/* Hairer's DOP853 (E. Hairer, S. P. Norsett, G. Wanner, Solving Ordinary
 * Differential Equations I, 2nd ed., Springer 1993; dop853.f), the
 * coefficients as SciPy holds them: scipy/integrate/_ivp/
 * dop853_coefficients.py (C, A rows 1-11, B = A[12], E3 = B - BHH,
 * E5). Step control of dop853.f's defaults: safety 0.9, h_new / h in
 * [1/3, 6], exponent 1/8, no growth right after a rejection. */
static const tableau dop853 = {
    .name = "dop853",
    .s = 12,
    .p = 8,
    .c = {0.0, 0.526001519587677318785587544488e-01,
          0.789002279381515978178381316732e-01,
          0.118350341907227396726757197510, 0.281649658092772603273242802490,
          0.333333333333333333333333333333, 0.25,
          0.307692307692307692307692307692, 0.651282051282051282051282051282,
          0.6, 0.857142857142857142857142857142, 1.0},
    .a =
        {
            {0},
            {5.26001519587677318785587544488e-2},
            {1.97250569845378994544595329183e-2,
             5.91751709536136983633785987549e-2},
            {2.95875854768068491816892993775e-2, 0,
             8.87627564304205475450678981324e-2},
            {2.41365134159266685502369798665e-1, 0,
             -8.84549479328286085344864962717e-1,
             9.24834003261792003115737966543e-1},
            {3.7037037037037037037037037037e-2, 0, 0,
             1.70828608729473871279604482173e-1,
             1.25467687566822425016691814123e-1},
            {3.7109375e-2, 0, 0, 1.70252211019544039314978060272e-1,
             6.02165389804559606850219397283e-2, -1.7578125e-2},
            {3.70920001185047927108779319836e-2, 0, 0,
             1.70383925712239993810214054705e-1,
             1.07262030446373284651809199168e-1,
             -1.53194377486244017527936158236e-2,
             8.27378916381402288758473766002e-3},
            {6.24110958716075717114429577812e-1, 0, 0,
             -3.36089262944694129406857109825,
             -8.68219346841726006818189891453e-1,
             2.75920996994467083049415600797e1,
             2.01540675504778934086186788979e1,
             -4.34898841810699588477366255144e1},
            {4.77662536438264365890433908527e-1, 0, 0,
             -2.48811461997166764192642586468,
             -5.90290826836842996371446475743e-1,
             2.12300514481811942347288949897e1,
             1.52792336328824235832596922938e1,
             -3.32882109689848629194453265587e1,
             -2.03312017085086261358222928593e-2},
            {-9.3714243008598732571704021658e-1, 0, 0,
             5.18637242884406370830023853209, 1.09143734899672957818500254654,
             -8.14978701074692612513997267357,
             -1.85200656599969598641566180701e1,
             2.27394870993505042818970056734e1, 2.49360555267965238987089396762,
             -3.0467644718982195003823669022},
            {2.27331014751653820792359768449, 0, 0,
             -1.05344954667372501984066689879e1,
             -2.00087205822486249909675718444,
             -1.79589318631187989172765950534e1,
             2.79488845294199600508499808837e1,
             -2.85899827713502369474065508674, -8.87285693353062954433549289258,
             1.23605671757943030647266201528e1,
             6.43392746015763530355970484046e-1},
        },
    .b = {5.42937341165687622380535766363e-2, 0, 0, 0, 0,
          4.45031289275240888144113950566, 1.89151789931450038304281599044,
          -5.8012039600105847814672114227, 3.1116436695781989440891606237e-1,
          -1.52160949662516078556178806805e-1,
          2.01365400804030348374776537501e-1,
          4.47106157277725905176885569043e-2},
    .e = {0.1312004499419488073250102996e-1, 0, 0, 0, 0,
          -0.1225156446376204440720569753e1, -0.4957589496572501915214079952,
          0.1664377182454986536961530415e1, -0.3503288487499736816886487290,
          0.3341791187130174790297318841, 0.8192320648511571246570742613e-1,
          -0.2235530786388629525884427845e-1},
    /* E3 = B - BHH: BHH1, BHH2, BHH3 on stages 0, 8 and 11 */
    .e3 = {5.42937341165687622380535766363e-2 -
               0.244094488188976377952755905512,
           0, 0, 0, 0, 4.45031289275240888144113950566,
           1.89151789931450038304281599044, -5.8012039600105847814672114227,
           3.1116436695781989440891606237e-1 - 0.733846688281611857341361741547,
           -1.52160949662516078556178806805e-1,
           2.01365400804030348374776537501e-1,
           4.47106157277725905176885569043e-2 -
               0.220588235294117647058823529412e-1},
    .hairer_norm = 1,
    .beta1 = 1.0 / 8,
    .beta2 = 0,
    .gamma = 0.9,
    .qmin = 1.0 / 3,
    .qmax = 6,
    .hold_after_reject = 1,
};

/* Verner's "most efficient" 9(8) pair (J. H. Verner, Numerical Algorithms
 * 53 (2010) 383-396; tables on his site), the Float64 literals of
 * SciML's OrdinaryDiffEq.jl, lib/OrdinaryDiffEqVerner/src/
 * verner_tableaus.jl (Vern9Tableau: a0201..a1613, b1, b8..b15, btilde1,
 * btilde8..btilde16; Julia's stage i is row i - 1 here, its c_i node c[i]).
 * Step control of DifferentialEquations.jl's default for it, the PI
 * controller (DiffEqDocs, docs/src/extras/timestepping.md): beta1 =
 * 7/(10 p), beta2 = 2/(5 p), gamma 0.9, h_new / h in [1/5, 10], the
 * error the RMS norm of btilde's estimate. */
static const tableau vern9 = {
    .name = "vern9",
    .s = 16,
    .p = 9,
    .c = {0.0, 0.03462, 0.09702435063878045, 0.14553652595817068, 0.561,
          0.22900791159048503, 0.544992088409515, 0.645, 0.48375, 0.06757, 0.25,
          0.6590650618730999, 0.8206, 0.9012, 1.0, 1.0},
    .a =
        {
            {0},
            {0.03462},
            {-0.03893354388572875, 0.13595789452450918},
            {0.03638413148954267, 0, 0.10915239446862801},
            {2.0257639143939694, 0, -7.638023836496291, 6.173259922102322},
            {0.05112275589406061, 0, 0, 0.17708237945550218,
             0.0008027762409222536},
            {0.13160063579752163, 0, 0, -0.2957276252669636,
             0.08781378035642955, 0.6213052975225274},
            {0.07166666666666667, 0, 0, 0, 0, 0.33055335789153195,
             0.2427799754418014},
            {0.071806640625, 0, 0, 0, 0, 0.3294380283228177, 0.1165190029271823,
             -0.034013671875},
            {0.04836757646340646, 0, 0, 0, 0, 0.03928989925676164,
             0.10547409458903446, -0.021438652846483126, -0.10412291746271944},
            {-0.026645614872014785, 0, 0, 0, 0, 0.03333333333333333,
             -0.1631072244872467, 0.03396081684127761, 0.1572319413814626,
             0.21522674780318796},
            {0.03689009248708622, 0, 0, 0, 0, -0.1465181576725543,
             0.2242577768172024, 0.02294405717066073, -0.0035850052905728597,
             0.08669223316444385, 0.43838406519683376},
            {-0.4866012215113341, 0, 0, 0, 0, -6.304602650282853,
             -0.2812456182894729, -2.679019236219849, 0.5188156639241577,
             1.3653531876033418, 5.8850910885039465, 2.8028087862720628},
            {0.4185367457753472, 0, 0, 0, 0, 6.724547581906459,
             -0.42544428016461133, 3.3432791530012653, 0.6170816631175374,
             -0.9299661239399329, -6.099948804751011, -3.002206187889399,
             0.2553202529443446},
            {-0.7793740861228848, 0, 0, 0, 0, -13.937342538107776,
             1.2520488533793563, -14.691500408016868, -0.494705058533141,
             2.2429749091462368, 13.367893803828643, 14.396650486650687,
             -0.79758133317768, 0.4409353709534278},
            {2.0580513374668867, 0, 0, 0, 0, 22.357937727968032,
             0.9094981099755646, 35.89110098240264, -3.442515027624454,
             -4.865481358036369, -18.909803813543427, -34.26354448030452,
             1.2647565216956427},
        },
    .b = {0.014611976858423152, 0, 0, 0, 0, 0, 0, -0.3915211862331339,
          0.23109325002895065, 0.12747667699928525, 0.2246434176204158,
          0.5684352689748513, 0.058258715572158275, 0.13643174034822156,
          0.030570139830827976},
    .e = {-0.005357988290444578, 0, 0, 0, 0, 0, 0, -2.583020491182464,
          0.14252253154686625, 0.013420653512688676, -0.02867296291409493,
          2.624999655215792, -0.2825509643291537, 0.13643174034822156,
          0.030570139830827976, -0.04834231373823958},
    .hairer_norm = 0,
    .beta1 = 7.0 / 90,
    .beta2 = 2.0 / 45,
    .gamma = 0.9,
    .qmin = 0.2,
    .qmax = 10,
    .hold_after_reject = 0,
};

static const tableau *const pairs[BENCH_RK_N] = {&dop853, &vern9};

struct bench_rk {
  const tableau *T;
  double eps;
  double k1[DIM]; /* f at the current node, when k1_ok */
  int k1_ok;
  double qold;  /* the last accepted error (PI control) */
  int rejected; /* the last attempt was rejected */
};

bench_rk *bench_rk_create(int kind) {
  if (kind < 0 || kind >= BENCH_RK_N) return NULL;
  bench_rk *r = calloc(1, sizeof *r);
  if (r) r->T = pairs[kind];
  return r;
}

void bench_rk_destroy(bench_rk *r) { free(r); }

const char *bench_rk_name(int kind) {
  return kind >= 0 && kind < BENCH_RK_N ? pairs[kind]->name : "?";
}

void bench_rk_reset(bench_rk *r, double eps) {
  r->eps = eps, r->k1_ok = 0, r->qold = 1e-4, r->rejected = 0;
}

typedef void (*rhs_fn)(const void *ctx, double t, const double *y, double *f);

/* The stages of one attempt from (t, y) with k[0] = f(t, y): the new
 * node y1 and the estimates' components (without the factor h). */
static inline __attribute__((always_inline)) void
attempt(const tableau *T, rhs_fn f, const void *ctx, double t, double h,
        const double *y, double k[MAXS][DIM], double *y1, double *err,
        double *err3) {
#pragma GCC unroll 16
  for (int i = 1; i < T->s; i++) {
    double acc[DIM] = {0}, yi[DIM];
#pragma GCC unroll 16
    for (int j = 0; j < i; j++)
      if (T->a[i][j] != 0)
        for (int d = 0; d < DIM; d++)
          acc[d] += T->a[i][j] * k[j][d];
    for (int d = 0; d < DIM; d++)
      yi[d] = y[d] + h * acc[d];
    f(ctx, t + T->c[i] * h, yi, k[i]);
  }
  for (int d = 0; d < DIM; d++) {
    double sb = 0, se = 0, se3 = 0;
#pragma GCC unroll 16
    for (int i = 0; i < T->s; i++) {
      if (T->b[i] != 0) sb += T->b[i] * k[i][d];
      if (T->e[i] != 0) se += T->e[i] * k[i][d];
      if (T->e3[i] != 0) se3 += T->e3[i] * k[i][d];
    }
    y1[d] = y[d] + h * sb, err[d] = se, err3[d] = se3;
  }
}

/* The scaled error of an attempt (<= 1: accepted). */
static double error_norm(const tableau *T, double eps, double h,
                         const double *y, const double *y1, const double *err,
                         const double *err3) {
  double s5 = 0, s3 = 0;
  for (int d = 0; d < DIM; d++) {
    const double sk = eps + eps * fmax(fabs(y[d]), fabs(y1[d]));
    s5 += (err[d] / sk) * (err[d] / sk);
    s3 += (err3[d] / sk) * (err3[d] / sk);
  }
  if (!T->hairer_norm) return fabs(h) * sqrt(s5 / DIM);
  double deno = s5 + 0.01 * s3; /* dop853.f */
  if (deno <= 0) deno = 1;
  return fabs(h) * s5 / sqrt(DIM * deno);
}

/* One accepted step for any right-hand side f (inlined where f is a
 * constant). */
static inline __attribute__((always_inline)) int
step_with(const tableau *T, bench_rk *r, rhs_fn f, const void *ctx, double *t,
          double *h, double *y, long *nfev) {
  double k[MAXS][DIM], y1[DIM], err[DIM], err3[DIM];
  if (!r->k1_ok) f(ctx, *t, y, r->k1), ++*nfev, r->k1_ok = 1;
  for (int tries = 0; tries < 100; tries++) {
    if (!isfinite(*h) || *h == 0) return -1;
    memcpy(k[0], r->k1, sizeof r->k1);
    attempt(T, f, ctx, *t, *h, y, k, y1, err, err3);
    *nfev += T->s - 1;
    const double en = error_norm(T, r->eps, *h, y, y1, err, err3);
    const double q11 = pow(en, T->beta1);
    if (en <= 1) {
      double q = q11 / pow(r->qold, T->beta2) / T->gamma;
      q = fmax(1 / T->qmax, fmin(1 / T->qmin, q));
      if (r->rejected && T->hold_after_reject) q = fmax(q, 1.0);
      *t += *h;
      memcpy(y, y1, sizeof y1);
      *h /= q;
      r->qold = fmax(en, 1e-4), r->k1_ok = 0, r->rejected = 0;
      return 0;
    }
    *h /= fmin(1 / T->qmin, q11 / T->gamma);
    r->rejected = 1;
  }
  return -1;
}

static inline __attribute__((always_inline)) void
sleigh_rhs(const void *ctx, double t, const double *y, double *f) {
  ssw_model_rhs((const ssw_reduced *)ctx, t, y, f);
}

int bench_rk_step(bench_rk *r, const ssw_reduced *e, double *t, double *h,
                  double y[SSW_ODE_DIM], long *nfev) {
  /* each pair's own copy, its table a constant */
  if (r->T == &dop853)
    return step_with(&dop853, r, sleigh_rhs, e, t, h, y, nfev);
  return step_with(&vern9, r, sleigh_rhs, e, t, h, y, nfev);
}

/* The Kepler problem (x, y, vx, vy; the fifth component idle): a
 * nonlinear test with a closed form. With semi-major axis 1 and mu 1 the
 * orbit from the pericentre (1 - e, 0) reaches the apocentre (-(1 + e), 0)
 * after half its period, pi. */
static void kepler(const void *ctx, double t, const double *y, double *f) {
  (void)ctx, (void)t;
  const double r2 = y[0] * y[0] + y[1] * y[1], r3 = r2 * sqrt(r2);
  f[0] = y[2], f[1] = y[3], f[2] = -y[0] / r3, f[3] = -y[1] / r3, f[4] = 0;
}

#define KEPLER_E 0.6

/* Largest error at the apocentre after n fixed steps of the pair (its
 * propagated solution alone: no step control). */
static double kepler_error(const tableau *T, int n) {
  const double e = KEPLER_E;
  const double y0[DIM] = {1 - e, 0, 0, sqrt((1 + e) / (1 - e)), 0};
  const double ya[DIM] = {-(1 + e), 0, 0, -sqrt((1 - e) / (1 + e)), 0};
  double y[DIM], k[MAXS][DIM], y1[DIM], err[DIM], err3[DIM];
  memcpy(y, y0, sizeof y);
  const double h = M_PI / n;
  for (int i = 0; i < n; i++) {
    kepler(NULL, i * h, y, k[0]);
    attempt(T, kepler, NULL, i * h, h, y, k, y1, err, err3);
    memcpy(y, y1, sizeof y);
  }
  double m = 0;
  for (int d = 0; d < DIM; d++)
    m = fmax(m, fabs(y[d] - ya[d]));
  return m;
}

void bench_rk_selfcheck(int kind, double *observed, int *nominal,
                        double *rowsum) {
  const tableau *T = pairs[kind];
  *nominal = T->p;
  *rowsum = 0;
  for (int i = 0; i < T->s; i++) {
    double s = 0;
    for (int j = 0; j < i; j++)
      s += T->a[i][j];
    *rowsum = fmax(*rowsum, fabs(s - T->c[i]));
  }
  /* Least-squares slope of log(error) over log(steps), steps 16 to 1024
   * by factors 2^(1/4), on the errors between 1e-12 (rounding is near
   * 1e-15) and 1e-4 (past the pre-asymptotic range): the error constant
   * of an eccentric orbit wobbles with the steps' phase at pericentre, so
   * two step counts alone misjudge the order by up to 1.5. */
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int m = 0;
  for (int i = 0; i <= 24; i++) {
    const int n = (int)lround(16 * pow(2, i / 4.0));
    const double err = kepler_error(T, n);
    if (!(err > 1e-12 && err < 1e-4)) continue;
    const double x = log((double)n), y = log(err);
    sx += x, sy += y, sxx += x * x, sxy += x * y, m++;
  }
  *observed = m >= 3 ? -(m * sxy - sx * sy) / (m * sxx - sx * sx) : NAN;
}
