/* Boundary refinement of circulation's drift energies against the closed
 * form: on a (Gamma, energy) slice of a Model II body (r = 0.2) below the
 * critical energy H_c every crossing of |Delta_phi| = 2 pi n (the path
 * drifts: H = H_n) is found and located within [refine] tol, and every
 * edge from below H_c to above it, where the levels H_n accumulate, is
 * listed as unresolved, not refined. The oracle writes its own tensor
 * (docs/theory/model.md sec. 1), H_c = D kappa^2 / (2 E) and
 * H_n = H_c n (2 |c1| + n) / (|c1| + n)^2 (docs/theory/circulation.md
 * secs. 3-4); the engine measures Delta_phi by integration. Also the
 * reasons an edge goes unresolved, on made-up samples. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "refine_slice.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/refine.h"
#include "test_util.h"

#define M_BODY 1.0
#define I0_BODY 0.5
#define RHO 1.0
#define KROT 0.25

/* C = H_c / Gamma^2 and c1 of a Model II body with b = s = 0 (q = (0, r):
 * L1_F = r N_F, L2_F = -r Z_F, J_F = I_rot + r^2 N_F; c1 = sqrt(D) (Z L2 +
 * M L1) / E). */
static void oracle(const ssw_params *q, double *C, double *c1) {
  const double c = cos(q->theta), s = sin(q->theta);
  const double d2 = q->A * q->A - q->B * q->B;
  const double MF = RHO * M_PI * (q->B * q->B * c * c + q->A * q->A * s * s);
  const double NF = RHO * M_PI * (q->A * q->A * c * c + q->B * q->B * s * s);
  const double ZF = RHO * M_PI * d2 * sin(2 * q->theta) / 2;
  const double J = I0_BODY + M_BODY * q->a * q->a +
                   KROT * RHO * M_PI * d2 * d2 + q->r * q->r * NF;
  const double M = M_BODY + MF, L1 = M_BODY * q->a + q->r * NF;
  const double L2 = -q->r * ZF;
  const double D = M * J - L2 * L2;
  const double E = J * ZF * ZF + 2 * ZF * L1 * L2 + M * L1 * L1;
  *C = D * RHO * RHO * q->r * q->r / (2 * E);
  *c1 = sqrt(D) * (ZF * L2 + M * L1) / E;
}

/* H_n / H_c. */
static double drift_ratio(double c1, int n) {
  const double a = fabs(c1);
  return n * (2 * a + n) / ((a + n) * (a + n));
}

/* |Delta_phi| / 2 pi at energy H below H_c: |c1| / (nu (mu + nu)),
 * mu^2 = H_c / H, nu^2 = mu^2 - 1. */
static double drift_turns(double c1, double Hc, double H) {
  const double mu = sqrt(Hc / H), nu = sqrt(Hc / H - 1);
  return fabs(c1) / (nu * (mu + nu));
}

typedef struct {
  size_t crossings, unresolved, evals;
  double max_err, cost;
} tally;

/* A crossing of |Delta_phi| = 2 pi n: along the energy at C Gamma^2 f_n,
 * along Gamma at +-sqrt(H / (C f_n)). */
static void check_crossing(const ssw_config *cfg, const ssw_refine_spec *sp,
                           const ssw_refine_crossing *c, tally *t) {
  ssw_grid_values v;
  ssw_grid_values_at(cfg->axes, c->lo, &v);
  double C, c1;
  oracle(&v.body, &C, &c1);
  const double f = drift_ratio(c1, (int)c->level);
  double exact = C * v.Gamma * v.Gamma * f;
  if (c->axis == SSW_AXIS_GAMMA)
    exact = copysign(sqrt(v.energy / (C * f)), c->position);
  EXPECT(fabs(c->position - exact) <= sp->tol && c->position_error <= sp->tol,
         "drift level %g along %s from point %llu: at %.12g +- %.3g, exact "
         "%.12g",
         c->level, ssw_axis_names[c->axis], (unsigned long long)c->lo,
         c->position, c->position_error, exact);
  t->max_err = fmax(t->max_err, fabs(c->position - exact));
}

/* One edge: the engine's classes at its ends are the oracle's, and each
 * level between them is reported once. */
static void check_edge(const ssw_config *cfg, const ssw_refine_spec *sp,
                       const ssw_refine_edge *e, const ssw_refine_crossing *c,
                       size_t nc, tally *t) {
  const ssw_refine_sample *ends[2] = {&e->s_lo, &e->s_hi};
  const uint64_t at[2] = {e->lo, e->hi};
  int32_t cls[2];
  for (int k = 0; k < 2; k++) {
    ssw_grid_values v;
    ssw_grid_values_at(cfg->axes, at[k], &v);
    double C, c1;
    oracle(&v.body, &C, &c1);
    const double x = drift_turns(c1, C * v.Gamma * v.Gamma, v.energy);
    EXPECT(fabs(ends[k]->drift - x) <= 1e-8 * x,
           "point %llu: |Delta_phi| / 2 pi %.12g, closed form %.12g",
           (unsigned long long)at[k], ends[k]->drift, x);
    cls[k] = ssw_refine_class(SSW_REFINE_IND_DRIFT_TURNS, ends[k]);
  }
  const int32_t lo = cls[0] < cls[1] ? cls[0] : cls[1];
  const int32_t hi = cls[0] < cls[1] ? cls[1] : cls[0];
  size_t n = 0;
  for (size_t k = 0; k < nc; k++) {
    if (c[k].indicator != SSW_REFINE_IND_DRIFT_TURNS) continue;
    EXPECT(c[k].level == lo + 1 + (int32_t)n, "level %g, expected %d",
           c[k].level, lo + 1 + (int)n);
    check_crossing(cfg, sp, &c[k], t);
    t->evals += (size_t)c[k].evaluations;
    n++;
  }
  EXPECT(n == (size_t)(hi - lo), "edge %llu-%llu: %zu crossings for %d levels",
         (unsigned long long)e->lo, (unsigned long long)e->hi, n, hi - lo);
  t->crossings += n;
}

/* The unresolved edges: exactly those from below H_c to above it (the
 * oracle's), each for drift_turns with reason end_without_class. */
static void check_unresolved(const ssw_config *cfg, const ssw_refine_spec *sp,
                             const ssw_refine_sample *s, tally *t) {
  ssw_refine_unresolved *u = NULL;
  size_t nu = 0, expected = 0;
  EXPECT(ssw_refine_unresolved_edges(cfg, sp, s, &u, &nu) == SSW_SUCCESS,
         "unresolved");
  const uint64_t size = ssw_grid_size(cfg->axes);
  for (uint64_t i = 0; i < size; i++) {
    int idx[SSW_NAXES];
    ssw_grid_unravel(cfg->axes, i, idx);
    uint64_t stride = 1;
    for (int a = SSW_NAXES - 1; a >= 0;
         stride *= (uint64_t)cfg->axes[a].n, a--) {
      if (idx[a] + 1 >= cfg->axes[a].n) continue;
      int above = 0;
      for (uint64_t j = i; j <= i + stride; j += stride) {
        ssw_grid_values v;
        ssw_grid_values_at(cfg->axes, j, &v);
        double C, c1;
        oracle(&v.body, &C, &c1);
        above += v.energy > C * v.Gamma * v.Gamma;
      }
      expected += above == 1;
    }
  }
  for (size_t k = 0; k < nu; k++) {
    ssw_grid_values lo, hi;
    ssw_grid_values_at(cfg->axes, u[k].lo, &lo);
    ssw_grid_values_at(cfg->axes, u[k].hi, &hi);
    double C, c1;
    oracle(&lo.body, &C, &c1);
    const int above_lo = lo.energy > C * lo.Gamma * lo.Gamma;
    const int above_hi = hi.energy > C * hi.Gamma * hi.Gamma;
    EXPECT(u[k].indicator == SSW_REFINE_IND_DRIFT_TURNS &&
               u[k].reason == SSW_REFINE_NO_CLASS_END && above_lo != above_hi,
           "unresolved edge %llu-%llu: indicator %d, reason %d, above H_c "
           "%d %d",
           (unsigned long long)u[k].lo, (unsigned long long)u[k].hi,
           u[k].indicator, u[k].reason, above_lo, above_hi);
  }
  EXPECT(nu == expected, "%zu unresolved edges, %zu cross H_c", nu, expected);
  t->unresolved = nu;
  free(u);
}

static void run_slice(const char *text, tally *t) {
  refine_slice r;
  if (!refine_slice_open(&r, "drift", text)) {
    refine_slice_close(&r);
    return;
  }
  for (size_t k = 0; k < r.ne; k++) {
    ssw_refine_crossing c[SSW_REFINE_MAX_LEVELS + 8];
    size_t nc = 0;
    EXPECT(ssw_refine_edge_max_crossings(&r.edges[k]) <= SSW_REFINE_MAX_LEVELS,
           "an edge above the level cap");
    EXPECT(ssw_refine_edge_solve(r.cfg, &r.sp, &r.edges[k],
                                 ssw_refine_point_eval, &r.ctx, c,
                                 &nc) == SSW_SUCCESS,
           "solve: %s", ssw_error_message());
    check_edge(r.cfg, &r.sp, &r.edges[k], c, nc, t);
  }
  check_unresolved(r.cfg, &r.sp, r.s, t);
  t->cost = r.ctx.steps / r.grid.steps;
  printf("(Gamma, energy) drift: %llu points, %zu edges, %zu crossings of "
         "|Delta_phi| = 2 pi n, %zu evaluations (%.2f per crossing), cost "
         "%.3f of the grid's, largest |position - exact| %.3g (tol %g), %zu "
         "unresolved edges (across H_c)\n",
         (unsigned long long)ssw_grid_size(r.cfg->axes), r.ne, t->crossings,
         t->evals, t->crossings ? (double)t->evals / (double)t->crossings : 0.0,
         t->cost, t->max_err, r.sp.tol, t->unresolved);
  refine_slice_close(&r);
}

/* The reasons on made-up samples along a two-point theta axis: a count
 * without class at an end, a jump above SSW_REFINE_MAX_LEVELS, and a jump
 * within it (an edge, not unresolved). */
static void check_reasons(void) {
  ssw_config *cfg = NULL;
  EXPECT(ssw_config_parse("[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\n"
                          "theta = 10deg, 20deg\na = 0.2\nA = 0.5\nB = 0.3\n"
                          "[refine]\nclasses = loops\n",
                          "reasons", &cfg) == SSW_SUCCESS,
         "config");
  if (!cfg) return;
  ssw_refine_spec sp;
  ssw_refine_spec_of(cfg, &sp);
  const double far = 1.5 + SSW_REFINE_MAX_LEVELS;
  const double ends[][2] = {{1.5, NAN}, {0.5, far}, {0.5, far - 1}};
  const int reason[] = {SSW_REFINE_NO_CLASS_END, SSW_REFINE_TOO_MANY_LEVELS,
                        -1};
  for (int k = 0; k < 3; k++) {
    ssw_refine_sample s[2] = {{.Z = 1, .L1 = 1, .turns = ends[k][0]},
                              {.Z = 1, .L1 = 1, .turns = ends[k][1]}};
    ssw_refine_unresolved *u = NULL;
    ssw_refine_edge *e = NULL;
    size_t nu = 0, ne = 0;
    EXPECT(ssw_refine_unresolved_edges(cfg, &sp, s, &u, &nu) == SSW_SUCCESS &&
               ssw_refine_edges(cfg, &sp, s, &e, &ne) == SSW_SUCCESS,
           "lists");
    if (reason[k] < 0)
      EXPECT(nu == 0 && ne == 1 &&
                 ssw_refine_edge_max_crossings(e) == SSW_REFINE_MAX_LEVELS,
             "turns %g to %g: %zu unresolved, %zu edges", ends[k][0],
             ends[k][1], nu, ne);
    else
      EXPECT(nu == 1 && ne == 0 && u[0].reason == reason[k] &&
                 u[0].indicator == SSW_REFINE_IND_TURNS,
             "turns %g to %g: %zu unresolved (reason %d), %zu edges",
             ends[k][0], ends[k][1], nu, nu ? u[0].reason : -1, ne);
    free(u);
    free(e);
  }
  ssw_config_destroy(&cfg);
}

int main(void) {
  /* H_c = C Gamma^2 with C = 0.124 and |c1| = 2.91: H_1 = 0.446 H_c, H_2 =
   * 0.648 H_c, ... accumulating at H_c, which the energy axis crosses at
   * every Gamma. */
  static const char slice[] =
      "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
      "[grid]\ntheta = 60deg\na = 0.2\nr = 0.2\nA = 0.5\nB = 0.3\n"
      "Gamma = linspace(2, 6, 5)\nenergy = linspace(0.15, 2.85, 10)\n"
      "[refine]\nclasses = drift\ntol = 1e-6\n";
  tally t = {0};
  run_slice(slice, &t);
  EXPECT(t.crossings >= 10, "%zu drift crossings", t.crossings);
  /* At most 8 evaluations per crossing (the bound per edge, here
   * per crossing: an edge along the energy holds several levels as they
   * accumulate at H_c, so the cost follows the crossings, printed). */
  EXPECT(t.evals <= 8 * t.crossings, "%zu evaluations for %zu crossings",
         t.evals, t.crossings);
  check_reasons();
  return TEST_RESULT();
}
