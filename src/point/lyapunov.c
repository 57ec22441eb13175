/* The Lyapunov spectrum of a forced trajectory: the tangent map of the
 * period map (central differences of the scheme's own map, forced.c)
 * carried along the orbit and re-orthonormalised once per period (QR,
 * Benettin), its error from the spread over blocks of periods and a
 * coarse run, and the exact identity its sum must meet. Theory:
 * docs/theory/forcing.md, "The Lyapunov spectrum". */
#include <float.h>
#include <math.h>
#include <string.h>

#include "forced_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"

/* One window: both exponents per block, the divergence's mean, the
 * differences' error in each exponent. */
typedef struct {
  double block[SSW_LYAP_BLOCKS][2];
  double lyap[2], div;
  double fd[2];
  double vel[2], vblock[SSW_LYAP_BLOCKS][2]; /* QR window: (<w>, <v>) */
} window;

/* Q (columns orthonormal in the scaled coordinates u = s W) times the
 * segment's Jacobian J in the state's momenta W: the new Q and the
 * logarithms of R's diagonal (Gram-Schmidt). */
static void qr_step(const double J[2][2], const double s[2], double Q[2][2],
                    double lr[2]) {
  double A[2][2]; /* (s J s^-1) Q, column j = A[.][j] */
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 2; j++)
      A[k][j] = s[k] * (J[k][0] * Q[0][j] / s[0] + J[k][1] * Q[1][j] / s[1]);
  const double r11 = hypot(A[0][0], A[1][0]);
  const double q1[2] = {A[0][0] / r11, A[1][0] / r11};
  const double r12 = q1[0] * A[0][1] + q1[1] * A[1][1];
  const double c2[2] = {A[0][1] - r12 * q1[0], A[1][1] - r12 * q1[1]};
  const double r22 = hypot(c2[0], c2[1]);
  Q[0][0] = q1[0], Q[1][0] = q1[1];
  Q[0][1] = c2[0] / r22, Q[1][1] = c2[1] / r22;
  lr[0] = log(r11), lr[1] = log(r22);
}

/* Segments per period: SSW_LYAP_SEGMENTS, or one per step where a
 * period has fewer (N is a power of two). */
static int nseg(const pmap *m) {
  return m->N < SSW_LYAP_SEGMENTS ? m->N : SSW_LYAP_SEGMENTS;
}

/* The Jacobians of the SSW_LYAP_SEGMENTS segments of one period in the
 * state's momenta W, by central differences of relative step `rel` (in
 * the energy norm, per momentum's axis): the four perturbed states
 * advanced side by side in the batch kernel, from the base state at
 * each segment's start (b: the period's start, after a kick; its
 * segments' states are the period map's own, in the same order of
 * operations). */
static void segments(const pmap *m, const ssw_state *b, double rel,
                     double J[SSW_LYAP_SEGMENTS][2][2]) {
  const int per = m->N / nseg(m);
  const double h = m->T / m->N, hs[SSW_LANES] = {h, h, h, h, h, h, h, h};
  ssw_state base = *b, lane[SSW_LANES];
  for (int g = 0; g < nseg(m); g++) {
    double w, v;
    ssw_stepper_velocity(&m->c, &base, &w, &v);
    const double sc = fmax(ssw_pmap_knorm(&m->c.e, w, v), m->floor);
    const double d[2] = {rel * sc * sqrt(m->c.e.J), rel * sc * sqrt(m->c.e.M)};
    for (int l = 0; l < 4; l++) {
      lane[l] = base;
      *(l < 2 ? &lane[l].W1 : &lane[l].W2) += l % 2 ? -d[l / 2] : d[l / 2];
    }
    for (int j = 0; j < per; j++) {
      const int step = g * per + j;
      ssw_stepper_advance_batch(&m->c, hs, m->recon, lane, 4);
      ssw_stepper_advance(&m->c, h, m->recon, &base);
      for (int l = 0; l < 4; l++)
        lane[l].t = (step + 1) * h;
      base.t = (step + 1) * h;
    }
    for (int i = 0; i < 2; i++) {
      J[g][0][i] = (lane[2 * i].W1 - lane[2 * i + 1].W1) / (2.0 * d[i]);
      J[g][1][i] = (lane[2 * i].W2 - lane[2 * i + 1].W2) / (2.0 * d[i]);
    }
  }
}

/* The differences' error in the exponents, from one period once the
 * basis is aligned: the R diagonal's logarithms with the step doubled
 * differ by 3 times the O(step^2) truncation and by the quotients'
 * round-off, so the whole difference is taken; per period over its
 * length (on a cycle every period repeats the same error). */
static void fd_error(const pmap *m, const ssw_state *b, const double s[2],
                     const double Q[2][2],
                     const double J[SSW_LYAP_SEGMENTS][2][2], double fd[2]) {
  double J2[SSW_LYAP_SEGMENTS][2][2], Q1[2][2], Q2[2][2];
  double l1[2] = {0, 0}, l2[2] = {0, 0}, lr[2];
  segments(m, b, 2.0 * SSW_LYAP_FD_STEP, J2);
  memcpy(Q1, Q, sizeof Q1), memcpy(Q2, Q, sizeof Q2);
  for (int g = 0; g < nseg(m); g++) {
    qr_step(J[g], s, Q1, lr), l1[0] += lr[0], l1[1] += lr[1];
    qr_step(J2[g], s, Q2, lr), l2[0] += lr[0], l2[1] += lr[1];
  }
  for (int i = 0; i < 2; i++)
    fd[i] = fabs(l1[i] - l2[i]) / m->T;
}

/* The divergence's time mean over the periods summed in a: without the
 * moving mass ht / D - tr(K^-1 C) is linear in (w, v), so its integral
 * is that of the scheme's own integrals of w (the heading) and v (with
 * drag the state's exact per-step sum; else the corrected trapezoid),
 * consistent with the map the differences take; with the mass (D(t)
 * varies) the node values' corrected trapezoid sum. */
static double window_divergence(const ssw_reduced *e, const sums *a) {
  if (e->mass) return a->divint / a->time;
  const double trKC = (e->M * e->cw + 2.0 * e->L2 * e->cwv + e->J * e->cv);
  return (SSW_MODEL_HT(e, a->dphi, a->vint) / a->time - trKC) / e->D;
}

/* One cycle of n periods from its point x0: the monodromy's exponents
 * ln |mu_i| / (n T) from the segments' Jacobians at step rel, its
 * determinant's logarithm summed segment by segment (a product that
 * contracts by 1e-20 keeps every digit), its trace from their product
 * (the dominant part); a complex pair shares ln |det| / 2. Adds the
 * cycle's integrals to *a (may be NULL). */
static int cycle_spectrum(pmap *m, const double x0[2], int n, double rel,
                          double lyap[2], sums *a) {
  double M[2][2] = {{1.0, 0.0}, {0.0, 1.0}}, lndet = 0.0, sign = 1.0;
  ssw_state st;
  ssw_stepper_init(&m->c, x0[0], x0[1], &st);
  for (int k = 0; k < n; k++) {
    double J[SSW_LYAP_SEGMENTS][2][2];
    ssw_state b = st;
    b.t = 0.0;
    b.W1 += m->imp;
    if (ssw_pmap_period(m, &st, a)) return -2;
    segments(m, &b, rel, J);
    m->steps += 5 * (int64_t)m->N * m->cost;
    for (int g = 0; g < nseg(m); g++) {
      const double det = J[g][0][0] * J[g][1][1] - J[g][0][1] * J[g][1][0];
      lndet += log(fabs(det)), sign *= det < 0 ? -1.0 : 1.0;
      double P[2][2];
      for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
          P[r][c] = J[g][r][0] * M[0][c] + J[g][r][1] * M[1][c];
      memcpy(M, P, sizeof M);
    }
  }
  const double nT = n * m->T, tr = M[0][0] + M[1][1];
  const double det = sign * exp(lndet), disc = 0.25 * tr * tr - det;
  if (!isfinite(lndet) || !isfinite(tr)) return -2;
  if (disc < 0.0) {
    lyap[0] = lyap[1] = 0.5 * lndet / nT;
    return 0;
  }
  const double l1 = log(fabs(0.5 * tr + copysign(sqrt(disc), tr)));
  lyap[0] = l1 / nT, lyap[1] = (lndet - l1) / nT;
  return 0;
}

/* A cycle's window: its exponents at the step and at twice it (their
 * difference the differences' error), the divergence over the cycle. */
static int cycle_window(pmap *m, const double x0[2], int n, window *w) {
  double l2[2];
  sums a;
  ssw_pmap_sums_init(&a);
  memset(w, 0, sizeof *w);
  int rc = cycle_spectrum(m, x0, n, SSW_LYAP_FD_STEP, w->lyap, &a);
  if (!rc) rc = cycle_spectrum(m, x0, n, 2.0 * SSW_LYAP_FD_STEP, l2, NULL);
  if (rc) return rc;
  for (int i = 0; i < 2; i++) {
    w->fd[i] = fabs(w->lyap[i] - l2[i]);
    for (int b = 0; b < SSW_LYAP_BLOCKS; b++)
      w->block[b][i] = w->lyap[i]; /* no sampling error on a cycle */
  }
  w->div = window_divergence(&m->c.e, &a);
  return 0;
}

/* A block's mean velocity (<w>, <v>) from the window's running sums a;
 * prev holds their (time, dphi, vint) at the block's start. */
static void block_velocity(const sums *a, double blk[2], double prev[3]) {
  const double dt = a->time - prev[0];
  blk[0] = (a->dphi - prev[1]) / dt, blk[1] = (a->vint - prev[2]) / dt;
  prev[0] = a->time, prev[1] = a->dphi, prev[2] = a->vint;
}

/* SSW_LYAP_BURN periods to align the basis, then SSW_LYAP_BLOCKS blocks
 * of SSW_LYAP_BLOCK periods from x at the map's step: the exponents per
 * block and over the window, and the divergence's time mean over the
 * window (the same periods). Returns 0, or nonzero on a non-finite
 * state. */
static int run_window(pmap *m, const double x0[2], window *w) {
  const ssw_reduced *e = &m->c.e;
  const double s[2] = {1.0 / sqrt(e->J), 1.0 / sqrt(e->M)};
  double Q[2][2] = {{1.0, 0.0}, {0.0, 1.0}}, prev[3] = {0.0, 0.0, 0.0};
  ssw_state st;
  sums a;
  ssw_stepper_init(&m->c, x0[0], x0[1], &st);
  ssw_pmap_sums_init(&a);
  memset(w, 0, sizeof *w);
  const int total = SSW_LYAP_BURN + SSW_LYAP_BLOCKS * SSW_LYAP_BLOCK;
  for (int k = 0; k < total; k++) {
    double J[SSW_LYAP_SEGMENTS][2][2], lr[2], sum[2] = {0, 0};
    const int on = k >= SSW_LYAP_BURN;
    ssw_state b = st; /* the period's start, after its kick */
    b.t = 0.0;
    b.W1 += m->imp;
    if (ssw_pmap_period(m, &st, on ? &a : NULL)) return -2;
    segments(m, &b, SSW_LYAP_FD_STEP, J);
    m->steps += 5 * (int64_t)m->N * m->cost;
    if (k == SSW_LYAP_BURN) { /* the differences' error, once aligned */
      fd_error(m, &b, s, Q, J, w->fd);
      m->steps += 5 * (int64_t)m->N * m->cost;
    }
    for (int g = 0; g < nseg(m); g++) {
      qr_step(J[g], s, Q, lr);
      sum[0] += lr[0], sum[1] += lr[1];
    }
    if (!isfinite(sum[0]) || !isfinite(sum[1])) return -2;
    if (!on) continue;
    const int blk = (k - SSW_LYAP_BURN) / SSW_LYAP_BLOCK;
    for (int i = 0; i < 2; i++)
      w->block[blk][i] += sum[i] / (SSW_LYAP_BLOCK * m->T);
    if ((k - SSW_LYAP_BURN) % SSW_LYAP_BLOCK == SSW_LYAP_BLOCK - 1)
      block_velocity(&a, w->vblock[blk], prev);
  }
  for (int b = 0; b < SSW_LYAP_BLOCKS; b++)
    for (int i = 0; i < 2; i++)
      w->lyap[i] += w->block[b][i] / SSW_LYAP_BLOCKS;
  w->div = window_divergence(e, &a);
  w->vel[0] = a.dphi / a.time, w->vel[1] = a.vint / a.time;
  if (w->lyap[0] < w->lyap[1]) { /* finite-time values may cross: sorted */
    double t = w->lyap[0];
    w->lyap[0] = w->lyap[1], w->lyap[1] = t;
    t = w->fd[0], w->fd[0] = w->fd[1], w->fd[1] = t;
    for (int b = 0; b < SSW_LYAP_BLOCKS; b++)
      t = w->block[b][0], w->block[b][0] = w->block[b][1], w->block[b][1] = t;
  }
  return 0;
}

/* Twice the standard error of the block means blk[.][i] about mean. */
static double block_se2(const double blk[SSW_LYAP_BLOCKS][2], int i,
                        double mean) {
  double ss = 0.0;
  for (int b = 0; b < SSW_LYAP_BLOCKS; b++)
    ss += (blk[b][i] - mean) * (blk[b][i] - mean);
  return 2.0 * sqrt(ss / (SSW_LYAP_BLOCKS - 1) / SSW_LYAP_BLOCKS);
}

/* Twice the standard error of the block means of exponent i. */
static double block_error(const window *w, int i) {
  return block_se2(w->block, i, w->lyap[i]);
}

/* The differences' round-off, which the step doubling can miss (the two
 * steps' round-off may cancel by chance): each segment's Jacobian entries
 * carry about an ulp of the state over the difference's step,
 * DBL_EPSILON / SSW_LYAP_FD_STEP relative, the segments' add at random,
 * and per period over its length (docs/theory/forcing.md, "The Lyapunov
 * spectrum"). Not part of the step's error that refinement drives down. */
static double fd_roundoff(const pmap *m) {
  return sqrt((double)nseg(m)) * DBL_EPSILON / SSW_LYAP_FD_STEP / m->T;
}

/* Off a cycle: the window's mean velocity and its errors (the blocks'
 * spread and, with a coarse window c, Richardson's difference). */
static void window_velocity(const window *f, const window *c, double div,
                            ssw_forced *out) {
  double e[2];
  for (int i = 0; i < 2; i++)
    e[i] = block_se2(f->vblock, i, f->vel[i]) +
           (c ? SSW_EST_SAFETY * fabs(f->vel[i] - c->vel[i]) / div : NAN);
  out->q.mean_omega = f->vel[0], out->err.mean_omega = e[0];
  out->q.mean_v = f->vel[1], out->err.mean_v = e[1];
  out->q.mean_path_radius = f->vel[1] / f->vel[0];
  out->err.mean_path_radius = fabs(out->q.mean_path_radius) *
                              (e[1] / fabs(f->vel[1]) + e[0] / fabs(f->vel[0]));
}

/* Both exponents, the sum's defect and (with `estimate`) the errors from
 * the fine window at m's step and a coarse one at half of it. */
/* The window at m's step: a cycle's (n > 0) or the QR's. */
static int window_at(pmap *m, const double x[2], int n, window *w) {
  return n > 0 ? cycle_window(m, x, n, w) : run_window(m, x, w);
}

/* The step's part of the errors (the differences' and Richardson's) over
 * the exponents' scale max(|lambda_1|, |lambda_2|, 1 / T). */
static double step_error(const pmap *m, const window *f, const window *c,
                         double div, double e[2]) {
  const double sc = fmax(fmax(fabs(f->lyap[0]), fabs(f->lyap[1])), 1.0 / m->T);
  for (int i = 0; i < 2; i++)
    e[i] = SSW_EST_SAFETY * (f->fd[i] + fabs(f->lyap[i] - c->lyap[i]) / div);
  const double rel = fmax(e[0], e[1]) / sc;
  return isfinite(rel) ? rel : INFINITY;
}

/* Both exponents and the sum's defect from the window at m's step; with
 * an estimate, a coarse window at half the step, the step doubled (the
 * fine window becoming the coarse one) while the step's part of the
 * errors exceeds rtol of the exponents' scale, as the cycle's
 * measurements are refined (forced.c), and the errors: that part plus
 * twice the block means' standard error. */
static int spectrum(pmap *m, const double x[2], int n, const ssw_integrator *o,
                    ssw_forced *out) {
  window fine, coarse;
  int rc = window_at(m, x, n, &fine);
  double e[2] = {NAN, NAN}, div = NAN;
  if (!rc && o->estimate) {
    pmap mc = *m;
    mc.N = m->N / 2;
    rc = window_at(&mc, x, n, &coarse);
    m->steps = mc.steps;
    div = pow(2.0, o->method->order) - 1.0;
    for (int k = 0; !rc; k++) {
      const double rel = step_error(m, &fine, &coarse, div, e) /
                         (o->rtol > 0 ? o->rtol : INFINITY);
      if (rel <= 1.0 || o->eta > 0 || k >= SSW_REFINE_MAX) break;
      coarse = fine;
      m->N *= 2;
      rc = window_at(m, x, n, &fine);
    }
  }
  if (rc) return rc;
  for (int i = 0; i < 2; i++)
    out->q.lyapunov[i] = fine.lyap[i],
    out->err.lyapunov[i] = e[i] + block_error(&fine, i) + fd_roundoff(m);
  out->lyapunov_divergence = fine.div;
  out->lyapunov_sum_defect = fine.lyap[0] + fine.lyap[1] - fine.div;
  if (n == 0) window_velocity(&fine, o->estimate ? &coarse : NULL, div, out);
  return 0;
}

int ssw_forced_classify(double l1, double e1, double T, int *flags) {
  const double band = SSW_CLASS_K * e1, floor = SSW_CLASS_LYAP_FLOOR / T;
  if (!isfinite(l1) || !isfinite(band)) {
    *flags |= SSW_TRAJ_EXPONENTS_UNDECIDED;
    return SSW_ATTRACTOR_UNRESOLVED;
  }
  if (l1 > band && l1 > floor) return SSW_ATTRACTOR_CHAOTIC;
  if (fabs(l1) <= band && band <= floor) return SSW_ATTRACTOR_QUASIPERIODIC;
  *flags |=
      l1 < -band ? SSW_TRAJ_CYCLE_NOT_CLOSED : SSW_TRAJ_EXPONENTS_UNDECIDED;
  return SSW_ATTRACTOR_UNRESOLVED;
}

int ssw_forced_lyapunov(const ssw_tensor *t, const ssw_integrator *o,
                        ssw_forced *r) {
  /* the rest (0, 0) is a cycle of one period; its differences' steps are
   * sized by the initial state's scale, its own being 0 */
  const int periodic = r->attractor == SSW_ATTRACTOR_PERIODIC ||
                       r->attractor == SSW_ATTRACTOR_REST;
  const double x[2] = {periodic ? r->cycle_w : r->end_w,
                       periodic ? r->cycle_v : r->end_v};
  if (r->attractor == SSW_ATTRACTOR_ACCELERATING ||
      (r->flags & SSW_TRAJ_NONFINITE) || !isfinite(x[0]) || !isfinite(x[1]))
    return SSW_SUCCESS;
  pmap m;
  SSW_CALL(ssw_pmap_init(&m, t, o));
  m.N = r->steps_per_period;
  if (r->attractor == SSW_ATTRACTOR_REST) /* as forced.c rest() */
    m.floor =
        SSW_FORCED_REST_DETECT * (r->H0 != 0.0 ? sqrt(2.0 * fabs(r->H0)) : 1.0);
  if (spectrum(&m, x, periodic ? r->cycle_periods : 0, o, r) != 0) {
    r->q.lyapunov[0] = r->q.lyapunov[1] = NAN;
    r->err.lyapunov[0] = r->err.lyapunov[1] = NAN;
    r->lyapunov_divergence = r->lyapunov_sum_defect = NAN;
  }
  r->steps += m.steps;
  if (r->attractor == SSW_ATTRACTOR_UNRESOLVED) {
    r->attractor = ssw_forced_classify(r->q.lyapunov[0], r->err.lyapunov[0],
                                       r->period, &r->flags);
    r->converged = r->attractor != SSW_ATTRACTOR_UNRESOLVED;
  }
  return SSW_SUCCESS;
}

int ssw_forced_lyapunov_sweep(const ssw_tensor *t, const ssw_integrator *o,
                              ssw_forced *r) {
  if (r->attractor != SSW_ATTRACTOR_PERIODIC)
    return ssw_forced_lyapunov(t, o, r);
  const double nT = r->cycle_periods * r->period;
  for (int i = 0; i < 2; i++) {
    const double mu = r->q.floquet_abs[i];
    r->q.lyapunov[i] = log(mu) / nT;
    r->err.lyapunov[i] = r->err.floquet_abs[i] / mu / nT;
  }
  r->lyapunov_divergence = r->mean_divergence;
  r->lyapunov_sum_defect =
      r->q.lyapunov[0] + r->q.lyapunov[1] - r->mean_divergence;
  return SSW_SUCCESS;
}
