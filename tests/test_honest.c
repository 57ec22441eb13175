/* No silent wrong answer: over the whole accepted range of energies
 * (1e-200 to 1e200) and mass scales, on the wide domain and on near
 * line-to-line bodies (hundreds of loops), every result is within the
 * promise (10 rtol) of the closed form or carries a failure flag, and the
 * error estimates bound the true errors of at least 99% of the results.
 * The truth comes from the closed form of the normalised tensor
 * (tests/scaled_truth.h). README "Accuracy" and
 * docs/theory/step-control.md state what is promised here. */
#include <stdlib.h>
#include <string.h>

#include "scaled_truth.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "test_util.h"
#include "wide_batch.h"

#define NTRAJ 4      /* initial states per body */
#define PROMISE 1e-9 /* README: every quantity within 10 rtol */
#define BOUND 0.99   /* estimates bound at least this share of errors */
#define FAILURES                                                               \
  (SSW_TRAJ_FWD_CAP | SSW_TRAJ_BWD_CAP | SSW_TRAJ_NONFINITE | SSW_TRAJ_NO_PEAK)

/* A near line-to-line body: the major axis within delta of the blade's
 * normal (or of the blade), so Z is small and the circles huge; the centre
 * of mass far across the blade, so the transition makes up to hundreds of
 * loops. */
static int draw_line(uint64_t seed, int i, ssw_body *bd, ssw_params *p) {
  uint64_t s = seed * 0x100000001B3ULL + (uint64_t)i * 0x9E3779B97F4A7C15ULL;
  bd->m = wb_log(&s, 0.1, 10);
  bd->I0 = wb_log(&s, 0.01, 5);
  bd->rho = wb_log(&s, 0.1, 10);
  bd->k_rot = SSW_KROT_PAPERS;
  p->A = wb_log(&s, 0.5, 5);
  p->B = p->A * wb_log(&s, 0.005, 0.5);
  const double delta = wb_log(&s, 1e-9, 1e-3);
  const double where = test_u01(&s);
  p->theta =
      where < 0.5 ? M_PI / 2 - delta : (where < 0.75 ? delta : M_PI - delta);
  p->a = (test_u01(&s) < 0.5 ? -1 : 1) * wb_log(&s, 0.02, 1);
  p->b = wb_lin(&s, -5, 5);
  p->r = wb_lin(&s, -0.5, 0.5);
  p->s = wb_lin(&s, -0.5, 0.5);
  return 0;
}

/* Statistics over the results of a grid. */
typedef struct {
  long n[ST_NQ], bound[ST_NQ], flagged, rtol_not_met, trajs;
  double worst[ST_NQ], worst_ratio[ST_NQ];
  long steps[1 << 14];
  int nsteps;
} tally;

/* One body at one mass scale and energy: NTRAJ states on the energy
 * ellipse, every result judged. Returns 0 when the body was integrated. */
static int judge_body(ssw_body bd, const ssw_params *p, double mass, double H,
                      const char *what, tally *T) {
  bd.m *= mass, bd.I0 *= mass, bd.rho *= mass;
  ssw_tensor t;
  int regime;
  if (ssw_model_tensor(&bd, p, &t) != 0) return -1;
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  if (regime == SSW_REGIME_UNIFORM) return -1;
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  double w0[NTRAJ], v0[NTRAJ];
  for (int k = 0; k < NTRAJ; k++)
    ssw_extract_energy_point(&t, H, 2 * M_PI * (k + 0.37) / NTRAJ, &w0[k],
                             &v0[k]);
  ssw_traj r[NTRAJ];
  if (ssw_extract_batch(&t, regime, NTRAJ, w0, v0, &o, NULL, NULL, r) != 0) {
    EXPECT(0, "%s: extraction failed: %s", what, ssw_error_message());
    ssw_error_clear();
    return 0;
  }
  for (int k = 0; k < NTRAJ; k++) {
    if (r[k].flags & SSW_TRAJ_EQUILIBRIUM) continue;
    T->trajs++;
    if (T->nsteps < (1 << 14)) T->steps[T->nsteps++] = (long)r[k].steps;
    const int failed = !r[k].converged || (r[k].flags & FAILURES);
    EXPECT(r[k].converged == !(r[k].flags & FAILURES),
           "%s traj %d: converged %d but flags %d", what, k, r[k].converged,
           r[k].flags);
    if (failed) {
      T->flagged++;
      continue;
    }
    T->rtol_not_met += (r[k].flags & SSW_TRAJ_RTOL) != 0;
    st_truth x;
    st_truth_of(&t, regime, w0[k], v0[k], &x);
    double err[ST_NQ], est[ST_NQ];
    st_errors(&x, regime, &r[k], err, est);
    for (int q = 0; q < ST_NQ; q++) {
      if (isnan(err[q])) continue;
      T->n[q]++;
      T->bound[q] += est[q] >= err[q];
      T->worst[q] = fmax(T->worst[q], err[q]);
      if (err[q] > 0)
        T->worst_ratio[q] = fmax(T->worst_ratio[q], err[q] / est[q]);
      EXPECT(err[q] <= PROMISE,
             "%s traj %d: %s error %.3g > %.0e, estimate %.3g, flags %d "
             "(mass x %.3g, H %.3g)",
             what, k, st_names[q], err[q], PROMISE, est[q], r[k].flags, mass,
             H);
    }
  }
  return 0;
}

static int cmp_long(const void *a, const void *b) {
  const long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static void report(const char *name, tally *T) {
  long n = 0, b = 0;
  for (int q = 0; q < ST_NQ; q++) {
    printf("%s %-5s n %5ld  bounded %5.1f%%  worst %.2e  worst error / "
           "estimate %.3g\n",
           name, st_names[q], T->n[q], 100.0 * T->bound[q] / fmax(1, T->n[q]),
           T->worst[q], T->worst_ratio[q]);
    n += T->n[q], b += T->bound[q];
  }
  qsort(T->steps, (size_t)T->nsteps, sizeof(long), cmp_long);
  printf("%s: %ld trajectories, %ld flagged as failures, %ld rtol_not_met; "
         "estimates bound %.2f%% of %ld results; median steps %ld\n",
         name, T->trajs, T->flagged, T->rtol_not_met, 100.0 * b / fmax(1, n), n,
         T->steps[T->nsteps / 2]);
  EXPECT(b >= BOUND * n, "%s: estimates bound only %.2f%% of the errors", name,
         100.0 * b / n);
  EXPECT(T->flagged == 0, "%s: %ld failures", name, T->flagged);
}

/* The wide domain and the near line-to-line family, each body at a mass
 * scale drawn from 1e-250 to 1e250 and an energy from 1e-200 to 1e200
 * (log-uniform): every accepted energy, every mass scale well inside the
 * accepted range (its ends: test_range_ends). */
static void test_wide_scales(void) {
  static tally wide, line;
  uint64_t s = 42;
  int bodies = 0;
  for (int i = 0; bodies < 120; i++) {
    wb_draw d;
    if (wb_draw_one(20261124, i, &d) != 0) continue;
    const double mass = pow(10, wb_lin(&s, -250, 250));
    const double H = pow(10, wb_lin(&s, -200, 200));
    char what[64];
    snprintf(what, sizeof what, "wide draw %d", i);
    bodies += judge_body(d.body, &d.p, mass, H, what, &wide) == 0;
  }
  report("wide", &wide);
  bodies = 0;
  for (int i = 0; bodies < 120; i++) {
    ssw_body bd = {0}; /* every effect off (draw_line sets the rest) */
    ssw_params p;
    draw_line(77, i, &bd, &p);
    const double mass = pow(10, wb_lin(&s, -250, 250));
    const double H = pow(10, wb_lin(&s, -200, 200));
    char what[64];
    snprintf(what, sizeof what, "line draw %d", i);
    bodies += judge_body(bd, &p, mass, H, what, &line) == 0;
  }
  report("near line-to-line", &line);
}

int main(void) {
  test_wide_scales();
  return TEST_RESULT();
}
