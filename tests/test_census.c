/* The attractor classes from the exponents and the census's matcher
 * (docs/theory/forcing.md, "Classes from the exponents" and "The
 * census"), on synthetic inputs:
 * - ssw_forced_classify at T = 1: chaotic just above both SSW_CLASS_K
 *   error bars and the floor SSW_CLASS_LYAP_FLOOR / T, not just below
 *   either; quasiperiodic within SSW_CLASS_K error bars of 0 when that
 *   band lies within the floor, unresolved (exponents_undecided) when it
 *   does not; cycle_not_closed below -SSW_CLASS_K error bars; NaN
 *   undecided; the floor scales as 1 / T;
 * - the matcher: a cycle entered at another of its points (a cyclic
 *   shift) is the same attractor, moved by 0.9 of SSW_CENSUS_CYCLE_TOL
 *   still is, by 1.1 of it is not, another length is not; two chaotic
 *   keys within their error bars match, outside them (exponent or mean
 *   velocity) do not; accelerating and unresolved are one each;
 * - the census: counts exact, slots sorted by share with ties by class
 *   code, the slots beyond attractor_slots counted in the other share,
 *   the shares summing to 1 exactly (integer counts), slot 0 the point's
 *   attractor; a census over the same trajectories in another order
 *   gives the same slots. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../src/point/census.h"
#include "sleighsweep/forced.h"
#include "test_util.h"

static void classify(void) {
  const double K = SSW_CLASS_K, F = SSW_CLASS_LYAP_FLOOR;
  int fl = 0;
  EXPECT(ssw_forced_classify(1.01 * F, F / (10 * K), 1.0, &fl) ==
                 SSW_ATTRACTOR_CHAOTIC &&
             fl == 0,
         "above the floor and the error bars: chaotic");
  fl = 0;
  EXPECT(ssw_forced_classify(0.99 * F, F / (10 * K), 1.0, &fl) ==
                 SSW_ATTRACTOR_UNRESOLVED &&
             fl == SSW_TRAJ_EXPONENTS_UNDECIDED,
         "below the floor, above its error bars: undecided (flags %d)", fl);
  fl = 0;
  EXPECT(ssw_forced_classify(1.0, 1.01 / K, 1.0, &fl) ==
             SSW_ATTRACTOR_UNRESOLVED,
         "within K error bars of lambda_1: not chaotic");
  EXPECT(ssw_forced_classify(1.0, 0.99 / K, 1.0, &fl) == SSW_ATTRACTOR_CHAOTIC,
         "just beyond K error bars: chaotic");
  fl = 0;
  EXPECT(ssw_forced_classify(0.9 * F, 0.31 * F, 1.0, &fl) ==
                 SSW_ATTRACTOR_QUASIPERIODIC &&
             fl == 0,
         "zero within K error bars, the band within the floor: "
         "quasiperiodic");
  EXPECT(ssw_forced_classify(-0.5 * F, 0.2 * F, 1.0, &fl) ==
             SSW_ATTRACTOR_QUASIPERIODIC,
         "negative within its error bars: quasiperiodic");
  fl = 0;
  EXPECT(ssw_forced_classify(0.0, 0.34 * F, 1.0, &fl) ==
                 SSW_ATTRACTOR_UNRESOLVED &&
             fl == SSW_TRAJ_EXPONENTS_UNDECIDED,
         "an error band wider than the floor decides nothing");
  fl = 0;
  EXPECT(ssw_forced_classify(-0.1, 0.01, 1.0, &fl) ==
                 SSW_ATTRACTOR_UNRESOLVED &&
             fl == SSW_TRAJ_CYCLE_NOT_CLOSED,
         "negative beyond its error bars: a cycle not closed");
  fl = 0;
  EXPECT(ssw_forced_classify(NAN, 0.01, 1.0, &fl) == SSW_ATTRACTOR_UNRESOLVED &&
             fl == SSW_TRAJ_EXPONENTS_UNDECIDED,
         "NaN exponent");
  fl = 0;
  EXPECT(ssw_forced_classify(0.5, NAN, 1.0, &fl) == SSW_ATTRACTOR_UNRESOLVED &&
             fl == SSW_TRAJ_EXPONENTS_UNDECIDED,
         "no error estimate: undecided");
  EXPECT(ssw_forced_classify(1.01 * F / 4, 1e-9, 4.0, &fl) ==
             SSW_ATTRACTOR_CHAOTIC,
         "the floor is per period: F / T");
  EXPECT(ssw_forced_classify(0.99 * F / 4, 1e-9, 4.0, &fl) ==
             SSW_ATTRACTOR_UNRESOLVED,
         "below F / T");
}

/* A 3-cycle (omega, v) entered at point `shift`, each point moved by
 * `d` along omega. */
static ssw_census_key cycle3(int shift, double d) {
  const double p[3][2] = {{1.0, 2.0}, {-0.5, 1.5}, {0.25, 2.5}};
  ssw_census_key k = {.cls = SSW_ATTRACTOR_PERIODIC, .n = 3};
  for (int i = 0; i < SSW_FORCED_NMAX; i++)
    k.pts[i][0] = k.pts[i][1] = NAN;
  for (int i = 0; i < 3; i++)
    k.pts[i][0] = p[(i + shift) % 3][0] + d,
    k.pts[i][1] = p[(i + shift) % 3][1];
  return k;
}

static ssw_census_key chaos(double l1, double mw) {
  return (ssw_census_key){.cls = SSW_ATTRACTOR_CHAOTIC,
                          .vel = {mw, 0.5},
                          .err_vel = {0.01, 0.01},
                          .lyap = {l1, -1.0},
                          .err_lyap = {0.01, 0.01}};
}

static void census_add(ssw_census *c, ssw_census_key k, int64_t i) {
  const double fq[SSW_FQ_N] = {0};
  const ssw_census_values v = {fq, fq, fq, 0.0, 0.0, 1};
  ssw_census_add(c, &k, i, &v);
}

static void matcher(void) {
  static ssw_census c;
  const ssw_tensor t = {.J = 1.0, .M = 1.0, .L2 = 0.0};
  ssw_census_start(&c, &t);
  /* the largest cycle point's energy norm: |(0.25, 2.5)| */
  const double scale = hypot(0.25, 2.5), tol = SSW_CENSUS_CYCLE_TOL * scale;
  census_add(&c, cycle3(0, 0.0), 0);
  ssw_census_key k = cycle3(2, 0.0);
  EXPECT(ssw_census_match(&c, &k) == 0, "a cyclic shift of the cycle");
  k = cycle3(1, 0.9 * tol);
  EXPECT(ssw_census_match(&c, &k) == 0, "0.9 tol away: the same cycle");
  k = cycle3(1, 1.1 * tol);
  EXPECT(ssw_census_match(&c, &k) == -1, "1.1 tol away: another cycle");
  k = cycle3(0, 0.0);
  k.n = 2;
  EXPECT(ssw_census_match(&c, &k) == -1, "another length");
  census_add(&c, chaos(0.5, 1.0), 1);
  k = chaos(0.5 + 0.059, 1.0);
  EXPECT(ssw_census_match(&c, &k) == 1, "exponents within K error bars");
  k = chaos(0.5 + 0.061, 1.0);
  EXPECT(ssw_census_match(&c, &k) == -1, "exponents beyond K error bars");
  k = chaos(0.5, 1.061);
  EXPECT(ssw_census_match(&c, &k) == -1, "mean velocity beyond its bars");
  k = chaos(0.5, 1.0);
  k.cls = SSW_ATTRACTOR_QUASIPERIODIC;
  EXPECT(ssw_census_match(&c, &k) == -1, "another class");
  census_add(&c, (ssw_census_key){.cls = SSW_ATTRACTOR_ACCELERATING}, 2);
  k = (ssw_census_key){.cls = SSW_ATTRACTOR_ACCELERATING, .vel = {-3, 1}};
  EXPECT(ssw_census_match(&c, &k) == 2, "accelerating: one attractor");
}

/* 10 trajectories: 3 on the cycle (entered at different points), 3
 * chaotic, 2 accelerating, 1 unresolved, 1 on a second cycle; added in
 * the order `perm`. */
static void census_of(const int *perm, int slots, ssw_point_result *res) {
  static ssw_census c;
  const ssw_tensor t = {.J = 1.0, .M = 1.0, .L2 = 0.0};
  ssw_census_key keys[10] = {cycle3(0, 0.0),
                             cycle3(1, 0.0),
                             cycle3(2, 1e-9),
                             chaos(0.5, 1.0),
                             chaos(0.51, 1.0),
                             chaos(0.49, 1.01),
                             {.cls = SSW_ATTRACTOR_ACCELERATING},
                             {.cls = SSW_ATTRACTOR_ACCELERATING},
                             {.cls = SSW_ATTRACTOR_UNRESOLVED},
                             cycle3(0, 1.0)};
  ssw_census_start(&c, &t);
  for (int i = 0; i < 10; i++)
    census_add(&c, keys[perm[i]], perm[i]);
  memset(res, 0, sizeof *res);
  ssw_census_finish(&c, slots, 10, res);
}

static void census(void) {
  const int order[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const int other[10] = {9, 5, 8, 3, 7, 1, 4, 0, 6, 2};
  ssw_point_result a, b;
  census_of(order, 3, &a);
  EXPECT(a.attractor_count == 4, "4 attractors (unresolved is none): %d",
         a.attractor_count);
  /* periodic (code 1) before chaotic (5) at 3 each, then accelerating */
  EXPECT(a.attractor_class[0] == SSW_ATTRACTOR_PERIODIC &&
             a.attractor_class[1] == SSW_ATTRACTOR_CHAOTIC &&
             a.attractor_class[2] == SSW_ATTRACTOR_ACCELERATING &&
             a.attractor_class[3] == -1,
         "slots by share, ties by class: %d %d %d %d", a.attractor_class[0],
         a.attractor_class[1], a.attractor_class[2], a.attractor_class[3]);
  EXPECT(a.attractor_fraction[0] == 0.3 && a.attractor_fraction[1] == 0.3 &&
             a.attractor_fraction[2] == 0.2 && isnan(a.attractor_fraction[3]),
         "fractions: counts / n");
  EXPECT(a.attractor_other_fraction == 0.2, "other: the unresolved one and "
                                            "the second cycle");
  EXPECT(a.attractor_cycle_periods[0] == 3 &&
             a.attractor_cycle_periods[1] == -1,
         "cycle length");
  EXPECT(a.attractor == SSW_ATTRACTOR_PERIODIC && a.cycle_periods == 3,
         "slot 0 is the point's attractor");
  int64_t counts = 0;
  for (int s = 0; s < 3; s++)
    counts += (int64_t)llround(a.attractor_fraction[s] * 10);
  counts += (int64_t)llround(a.attractor_other_fraction * 10);
  EXPECT(counts == 10, "the counts sum to n: %lld", (long long)counts);
  census_of(other, 3, &b);
  EXPECT(memcmp(a.attractor_class, b.attractor_class,
                sizeof a.attractor_class) == 0 &&
             memcmp(a.attractor_fraction, b.attractor_fraction,
                    3 * sizeof(double)) == 0,
         "another order of the same trajectories: the same slots");
  census_of(order, 16, &b);
  EXPECT(b.attractor_other_fraction == 0.0 && b.attractor_count == 4 &&
             b.attractor_class[3] == SSW_ATTRACTOR_UNRESOLVED &&
             b.attractor_class[4] == SSW_ATTRACTOR_PERIODIC,
         "16 slots: nothing beyond them");
}

int main(void) {
  classify();
  matcher();
  census();
  return TEST_RESULT();
}
