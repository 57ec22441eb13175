/* Boundary refinement against the closed form: on an (a, theta) and a
 * (theta, B) slice of an ideal-fluid Model I body (r = s = b = 0) every
 * crossing of Z = 0, L1 = 0, |dphi| = 2 pi k and of the sense is found and
 * located within [refine] tol, and nothing else is reported. The oracle
 * writes its own tensor and transition angle from docs/theory/model.md
 * (secs. 1 and 4) and finds the exact crossings along each edge by dense
 * sampling and bisection to round-off; the engine measures the transition
 * angle by integration. Prints the evaluations per edge and the cost
 * against the coarse grid's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refine_slice.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/refine.h"
#include "test_util.h"

/* ---- the oracle: docs/theory/model.md, Model I, b = r = s = 0 ------ */

#define M_BODY 1.0
#define I0_BODY 0.5
#define RHO 1.0
#define KROT 0.25

typedef struct {
  double theta, a, A, B;
} body4;

/* Z, L1 and |dphi| / 2 pi = |c1| / 2, c1 = sqrt(D) (Z L2 + M L1) / E with
 * L2 = 0, D = M J, E = J Z^2 + M L1^2 (sec. 4). */
static void oracle(const body4 *p, double *Z, double *L1, double *turns) {
  const double c = cos(p->theta), s = sin(p->theta);
  const double d2 = p->A * p->A - p->B * p->B;
  const double M =
      M_BODY + RHO * M_PI * (p->B * p->B * c * c + p->A * p->A * s * s);
  const double J = I0_BODY + M_BODY * p->a * p->a + KROT * RHO * M_PI * d2 * d2;
  *Z = RHO * M_PI * d2 * sin(2 * p->theta) / 2;
  *L1 = M_BODY * p->a;
  const double E = J * *Z * *Z + M * *L1 * *L1;
  *turns = fabs(sqrt(M * J) * M * *L1 / E) / 2;
}

/* The oracle's indicator `ind` minus `level` at coordinate x of `axis`. */
static double oracle_f(body4 p, int axis, double x, int ind, double level) {
  if (axis == SSW_AXIS_THETA) p.theta = x;
  if (axis == SSW_AXIS_A_COM) p.a = x;
  if (axis == SSW_AXIS_B_SEMI) p.B = x;
  double Z, L1, turns;
  oracle(&p, &Z, &L1, &turns);
  if (ind == SSW_REFINE_IND_Z) return Z - level;
  if (ind == SSW_REFINE_IND_L1) return L1 - level;
  if (ind == SSW_REFINE_IND_TURNS) return turns - level;
  return -Z - level;
}

#define DENSE 4000
#define MAX_ROOTS 16

/* Every exact crossing of `level` by indicator `ind` on [x0, x1]: sign
 * changes on DENSE subintervals, each bisected to round-off. */
static int oracle_roots(body4 p, int axis, double x0, double x1, int ind,
                        double level, double *roots) {
  int n = 0;
  double xa = x0, fa = oracle_f(p, axis, x0, ind, level);
  for (int k = 1; k <= DENSE; k++) {
    const double xb = x0 + (x1 - x0) * k / DENSE;
    const double fb = oracle_f(p, axis, xb, ind, level);
    if ((fa < 0) != (fb < 0) && n < MAX_ROOTS) {
      double lo = xa, hi = xb, flo = fa;
      for (int it = 0; it < 200 && hi - lo > 1e-15 * (1 + fabs(lo)); it++) {
        const double mid = 0.5 * (lo + hi);
        const double fm = oracle_f(p, axis, mid, ind, level);
        if ((fm < 0) == (flo < 0))
          lo = mid, flo = fm;
        else
          hi = mid;
      }
      roots[n++] = 0.5 * (lo + hi);
    }
    xa = xb, fa = fb;
  }
  return n;
}

typedef struct {
  size_t edges, crossings, evals, coarse, checked, invisible;
  size_t near;    /* near misses */
  double max_err; /* largest |position - exact| */
  double cost;    /* the refinement's cost over the coarse grid's */
} tally;

/* Circulation's critical energy H_c = C Gamma^2 of a Model II body with
 * b = s = 0 (docs/theory/model.md sec. 1: q = (0, r), so L1_F = r N_F,
 * -L2_F = r Z_F, J_F = I_rot + r^2 N_F; docs/theory/circulation.md sec. 3:
 * H_c = D kappa^2 / (2 E), kappa = rho Gamma r): returns C. */
static double oracle_hc_per_gamma2(double theta, double a, double r, double A,
                                   double B) {
  const double c = cos(theta), s = sin(theta), d2 = A * A - B * B;
  const double MF = RHO * M_PI * (B * B * c * c + A * A * s * s);
  const double NF = RHO * M_PI * (A * A * c * c + B * B * s * s);
  const double ZF = RHO * M_PI * d2 * sin(2 * theta) / 2;
  const double J =
      I0_BODY + M_BODY * a * a + KROT * RHO * M_PI * d2 * d2 + r * r * NF;
  const double M = M_BODY + MF, L1 = M_BODY * a + r * NF, L2 = -r * ZF;
  const double D = M * J - L2 * L2;
  const double E = J * ZF * ZF + 2 * ZF * L1 * L2 + M * L1 * L1;
  return D * RHO * RHO * r * r / (2 * E);
}

/* A crossing of H = H_c against the closed form: along Gamma at
 * +-sqrt(H / C), along the energy at C Gamma^2. */
static void check_critical(const ssw_config *cfg, const ssw_refine_spec *sp,
                           const ssw_refine_crossing *c, tally *t) {
  ssw_grid_values v;
  ssw_grid_values_at(cfg->axes, c->lo, &v);
  const double C = oracle_hc_per_gamma2(v.body.theta, v.body.a, v.body.r,
                                        v.body.A, v.body.B);
  double exact = C * v.Gamma * v.Gamma;
  if (c->axis == SSW_AXIS_GAMMA)
    exact = copysign(sqrt(v.energy / C), c->position);
  EXPECT(c->axis == SSW_AXIS_GAMMA || c->axis == SSW_AXIS_ENERGY,
         "H = H_c crossed along axis %d", c->axis);
  EXPECT(fabs(c->position - exact) <= sp->tol && c->position_error <= sp->tol,
         "H = H_c along %s from point %llu: at %.12g +- %.3g, exact %.12g",
         ssw_axis_names[c->axis], (unsigned long long)c->lo, c->position,
         c->position_error, exact);
  t->max_err = fmax(t->max_err, fabs(c->position - exact));
  t->checked++;
}

/* ---- a slice through the engine ------------------------------------ */

static body4 body_at(const ssw_config *cfg, uint64_t i) {
  ssw_params q;
  ssw_grid_params(cfg->axes, i, &q);
  return (body4){q.theta, q.a, q.A, q.B};
}

/* Levels of ind crossed between the classes at the edge's ends. */
static int oracle_levels(int ind, const ssw_refine_edge *e, double *lv) {
  const int32_t c0 = ssw_refine_class(ind, &e->s_lo);
  const int32_t c1 = ssw_refine_class(ind, &e->s_hi);
  if (ind != SSW_REFINE_IND_TURNS) return lv[0] = 0, 1;
  const int32_t lo = c0 < c1 ? c0 : c1, hi = c0 < c1 ? c1 : c0;
  int n = 0;
  for (int32_t k = lo + 1; k <= hi && n < 64; k++)
    lv[n++] = k;
  return n;
}

/* One edge's crossings against the oracle: a level crossed once (the
 * classes differ) is found within tol, each reported crossing is within
 * tol of an exact one of its level, and no level is reported twice. */
static void check_edge(const ssw_config *cfg, const ssw_refine_spec *sp,
                       const ssw_refine_edge *e, const ssw_refine_crossing *c,
                       size_t nc, tally *t) {
  const body4 p = body_at(cfg, e->lo);
  const double x0 = ssw_grid_value(cfg->axes, e->lo, e->axis);
  const double x1 = ssw_grid_value(cfg->axes, e->hi, e->axis);
  int crit = 0;
  for (size_t k = 0; k < nc; k++)
    if (c[k].indicator == SSW_REFINE_IND_MU2)
      check_critical(cfg, sp, &c[k], t), crit++;
  EXPECT(crit == !!(e->indicators & (1 << SSW_REFINE_IND_MU2)),
         "edge %llu-%llu: %d crossings of H = H_c", (unsigned long long)e->lo,
         (unsigned long long)e->hi, crit);
  for (int ind = 0; ind < SSW_REFINE_IND_MU2; ind++) {
    if (!(e->indicators & (1 << ind))) continue;
    double lv[64];
    const int nl = oracle_levels(ind, e, lv);
    for (int l = 0; l < nl; l++) {
      double roots[MAX_ROOTS];
      const int nr = oracle_roots(p, e->axis, x0, x1, ind, lv[l], roots);
      int found = 0;
      for (size_t k = 0; k < nc; k++) {
        if (c[k].indicator != ind || c[k].level != lv[l]) continue;
        found++;
        double best = INFINITY;
        for (int r = 0; r < nr; r++)
          best = fmin(best, fabs(c[k].position - roots[r]));
        EXPECT(best <= sp->tol && c[k].position_error <= sp->tol,
               "edge %llu-%llu axis %d %s = %g: at %.12g +- %.3g, exact "
               "crossing %.3g away (%d exact)",
               (unsigned long long)e->lo, (unsigned long long)e->hi, e->axis,
               ssw_refine_indicator_names[ind], lv[l], c[k].position,
               c[k].position_error, best, nr);
        if (best < INFINITY) t->max_err = fmax(t->max_err, best);
      }
      EXPECT(found == 1, "edge %llu-%llu %s = %g reported %d times",
             (unsigned long long)e->lo, (unsigned long long)e->hi,
             ssw_refine_indicator_names[ind], lv[l], found);
      EXPECT(nr % 2 == 1, "edge %llu-%llu %s = %g: classes differ, %d exact",
             (unsigned long long)e->lo, (unsigned long long)e->hi,
             ssw_refine_indicator_names[ind], lv[l], nr);
      t->checked++;
      t->invisible += nr > 1 ? (size_t)(nr - 1) : 0;
    }
  }
}

/* Exact crossings of the oracle on the edge lo -> lo + stride, by level,
 * that the classes of the two ends cannot see (an even number of them). */
static void count_unseen(const ssw_config *cfg, uint64_t lo, uint64_t hi,
                         int axis, tally *t) {
  const body4 p = body_at(cfg, lo);
  const double x0 = ssw_grid_value(cfg->axes, lo, axis);
  const double x1 = ssw_grid_value(cfg->axes, hi, axis);
  double roots[MAX_ROOTS];
  for (int k = 1; k < 40; k++) {
    const int nr =
        oracle_roots(p, axis, x0, x1, SSW_REFINE_IND_TURNS, k, roots);
    if (nr % 2 == 0) t->invisible += (size_t)nr;
  }
}

/* The near misses against the closed form: an edge is listed exactly
 * when the oracle's turns at its ends have the same floor k and one of
 * them lies within SSW_REFINE_NEAR_MARGIN of k or k + 1 (edges within
 * 1e-6 of the margin, where the integration's error could decide, are
 * not judged); the listed level and distance are the oracle's to 1e-8. */
static void check_near(const ssw_config *cfg, const ssw_refine_spec *sp,
                       const ssw_refine_sample *s, tally *t) {
  ssw_refine_near *nm = NULL;
  size_t nn = 0, k = 0;
  EXPECT(ssw_refine_near_misses(cfg, sp, s, &nm, &nn) == SSW_SUCCESS, "near");
  const uint64_t n = ssw_grid_size(cfg->axes);
  for (uint64_t i = 0; i < n; i++) {
    int idx[SSW_NAXES];
    ssw_grid_unravel(cfg->axes, i, idx);
    uint64_t stride[SSW_NAXES], st = 1;
    for (int a = SSW_NAXES - 1; a >= 0; st *= (uint64_t)cfg->axes[a].n, a--)
      stride[a] = st;
    for (int a = 0; a < SSW_NAXES; a++) {
      if (idx[a] + 1 >= cfg->axes[a].n) continue;
      double z, l1, t0, t1;
      const body4 p = body_at(cfg, i), q = body_at(cfg, i + stride[a]);
      oracle(&p, &z, &l1, &t0);
      oracle(&q, &z, &l1, &t1);
      const double f = floor(t0);
      const double d = fmin(fmin(t0, t1) - f, f + 1 - fmax(t0, t1));
      const int want = f == floor(t1) && d < SSW_REFINE_NEAR_MARGIN;
      const int got = k < nn && nm[k].lo == i && nm[k].axis == a;
      if (fabs(d - SSW_REFINE_NEAR_MARGIN) > 1e-6)
        EXPECT(want == got, "edge %llu axis %d: near miss %d, closed form %d",
               (unsigned long long)i, a, got, want);
      if (got && want)
        EXPECT(fabs(nm[k].distance - d) <= 1e-8,
               "near miss distance %.12g, "
               "closed form %.12g",
               nm[k].distance, d);
      t->near += (size_t)got;
      k += (size_t)got;
    }
  }
  EXPECT(k == nn, "%zu near misses, %zu matched", nn, k);
  free(nm);
}

/* Runs the refinement of a slice: coarse samples by the engine's
 * evaluator, the edges, each edge solved and checked. */
static void run_slice(const char *name, const char *text, tally *t) {
  refine_slice r;
  if (!refine_slice_open(&r, name, text)) {
    refine_slice_close(&r);
    return;
  }
  const ssw_config *cfg = r.cfg;
  const ssw_refine_spec *sp = &r.sp;
  const int integrate = sp->classes & SSW_REFINE_INTEGRATED;
  const uint64_t n = ssw_grid_size(cfg->axes);
  *t = (tally){.edges = r.ne, .coarse = n};
  for (size_t k = 0; k < r.ne; k++) {
    ssw_refine_crossing c[128];
    size_t nc = 0;
    EXPECT(ssw_refine_edge_max_crossings(&r.edges[k]) <= 128, "too many");
    EXPECT(ssw_refine_edge_solve(cfg, sp, &r.edges[k], ssw_refine_point_eval,
                                 &r.ctx, c, &nc) == SSW_SUCCESS,
           "solve: %s", ssw_error_message());
    t->crossings += nc;
    for (size_t j = 0; j < nc; j++)
      t->evals += (size_t)c[j].evaluations;
    check_edge(cfg, sp, &r.edges[k], c, nc, t);
  }
  if (integrate) check_near(cfg, sp, r.s, t);
  for (uint64_t i = 0; i < n; i++) {
    int idx[SSW_NAXES];
    ssw_grid_unravel(cfg->axes, i, idx);
    uint64_t stride = 1;
    for (int a = SSW_NAXES - 1; a >= 0; a--) {
      if (integrate && idx[a] + 1 < cfg->axes[a].n)
        count_unseen(cfg, i, i + stride, a, t);
      stride *= (uint64_t)cfg->axes[a].n;
    }
  }
  /* The cost: base steps integrated where the classes integrate, else
   * evaluations of the tensor, against the grid's. */
  t->cost =
      integrate ? r.ctx.steps / r.grid.steps : (double)t->evals / (double)n;
  if (integrate)
    printf("%s: %llu trajectories of %.4g base steps (grid), %llu of %.4g "
           "(refinement)\n",
           name, (unsigned long long)r.grid.trajectories, r.grid.steps,
           (unsigned long long)r.ctx.trajectories, r.ctx.steps);
  printf("%s: %llu coarse points, %zu edges, %zu crossings, %zu evaluations "
         "(%.2f per edge, %.2f per crossing, cost ratio %.3f), largest "
         "|position - exact| %.3g (tol %g); %zu exact loop crossings "
         "invisible to the classes, %zu near misses\n",
         name, (unsigned long long)n, t->edges, t->crossings, t->evals,
         r.ne ? (double)t->evals / (double)r.ne : 0.0,
         t->crossings ? (double)t->evals / (double)t->crossings : 0.0, t->cost,
         t->max_err, sp->tol, t->invisible, t->near);
  refine_slice_close(&r);
}

#define BODY "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
#define ENSEMBLE "" /* the defaults: 16 random trajectories per point */
#define REFINE "[refine]\nclasses = regime, loops, sense\ntol = 1e-6\n"

int main(void) {
  /* a crosses 0 between grid points; theta = 90deg is no grid point. */
  static const char a_theta[] =
      BODY "[grid]\ntheta = linspace(5deg, 175deg, 18)\n"
           "a = linspace(-0.3, 0.5, 5)\nA = 0.5\nB = 0.3\n" ENSEMBLE REFINE;
  static const char theta_b[] =
      BODY "[grid]\ntheta = linspace(5deg, 175deg, 18)\na = 0.2\nA = 0.5\n"
           "B = linspace(0.1, 0.45, 6)\n" ENSEMBLE REFINE;
  /* Circulation on a Model II body (r = 0.2): the critical energy
   * H_c = C Gamma^2 parts periodic from heteroclinic motion. */
  static const char gamma_energy[] =
      BODY "[grid]\ntheta = 60deg\na = 0.2\nr = 0.2\nA = 0.5\nB = 0.3\n"
           "Gamma = linspace(-6, 6, 9)\nenergy = linspace(0.2, 2, 7)\n"
           "[refine]\nclasses = critical\ntol = 1e-6\n";
  tally t1, t2, t3;
  run_slice("(a, theta)", a_theta, &t1);
  run_slice("(theta, B)", theta_b, &t2);
  run_slice("(Gamma, energy)", gamma_energy, &t3);
  EXPECT(t3.crossings >= 8, "(Gamma, energy): %zu crossings of H = H_c",
         t3.crossings);
  /* Evaluations: at most 8 per edge over the three slices; the cost at
   * most twice the coarse grid's on each slice (base steps integrated at
   * the default ensemble and [refine] trajectories; evaluations of the
   * tensor for the critical energy). The (a, theta) slice is the hard
   * case: its loop lines accumulate at a = 0, theta = 90deg (|dphi| =
   * pi sqrt(D) / |L1| there), so a 5 x 18 grid has more crossings than
   * points. */
  const size_t edges = t1.edges + t2.edges + t3.edges;
  const size_t evals = t1.evals + t2.evals + t3.evals;
  EXPECT(edges > 40, "only %zu edges", edges);
  EXPECT((double)evals <= 8.0 * (double)edges,
         "%zu evaluations for %zu edges: above 8 per edge", evals, edges);
  const tally *slices[] = {&t1, &t2, &t3};
  for (int k = 0; k < 3; k++)
    EXPECT(slices[k]->cost <= 2.0,
           "slice %d: the refinement cost %.3f times the coarse grid", k + 1,
           slices[k]->cost);
  /* [refine] trajectories: four trajectories per evaluation cost about four
   * times the default's one, at the same crossings (run_slice checks them
   * against the closed form). */
  static const char theta_b_4[] =
      BODY "[grid]\ntheta = linspace(5deg, 175deg, 18)\na = 0.2\nA = 0.5\n"
           "B = linspace(0.1, 0.45, 6)\n" ENSEMBLE REFINE "trajectories = 4\n";
  tally t4;
  run_slice("(theta, B), four trajectories per evaluation", theta_b_4, &t4);
  EXPECT(t4.crossings == t2.crossings && t4.cost > 3 * t2.cost,
         "[refine] trajectories = 4: %zu crossings (%zu), cost %.3f (%.3f)",
         t4.crossings, t2.crossings, t4.cost, t2.cost);
  printf("three slices: %.2f evaluations per edge\n",
         (double)evals / (double)edges);

  /* Without [refine] nothing is refined. */
  ssw_config *cfg = NULL;
  EXPECT(ssw_config_parse(BODY "[grid]\ntheta = 30deg\na = 0.2\nA = 0.5\n"
                               "B = 0.3\n",
                          "plain", &cfg) == SSW_SUCCESS,
         "plain config");
  EXPECT(cfg && cfg->refine_classes == 0, "refinement on by default");
  ssw_config_destroy(&cfg);
  return TEST_RESULT();
}
