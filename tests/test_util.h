/* Minimal test assertions: silent on success, print the failing values. */
#ifndef SSW_TEST_UTIL_H
#define SSW_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/model.h"

/* Unused where only the generator is wanted (the benchmark). */
static int test_failures __attribute__((unused)) = 0;

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);        \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      test_failures++;                                                         \
    }                                                                          \
  } while (0)

/* |x - ref| <= tol |ref| (relative; absolute when ref == 0). */
#define EXPECT_REL(x, ref, tol, what)                                          \
  do {                                                                         \
    const double x_ = (x), r_ = (ref), t_ = (tol);                             \
    const double e_ = r_ != 0 ? fabs(x_ - r_) / fabs(r_) : fabs(x_);           \
    EXPECT(e_ <= t_, "%s: got %.17g, expected %.17g, rel. error %.3g > %.3g",  \
           (what), x_, r_, e_, t_);                                            \
  } while (0)

#define EXPECT_ABS(x, ref, tol, what)                                          \
  do {                                                                         \
    const double x_ = (x), r_ = (ref), t_ = (tol);                             \
    EXPECT(fabs(x_ - r_) <= t_,                                                \
           "%s: got %.17g, expected %.17g, abs. error %.3g > %.3g", (what),    \
           x_, r_, fabs(x_ - r_), t_);                                         \
  } while (0)

#define TEST_RESULT()                                                          \
  (test_failures ? (fprintf(stderr, "%d check(s) failed\n", test_failures), 1) \
                 : 0)

/* The 2025 paper's seed case (docs/theory/model.md sec. 7). */
#define SEED_BODY                                                              \
  ((ssw_body){.m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS})
#define SEED_PARAMS(bval)                                                      \
  ((ssw_params){M_PI / 3.0, 0.2, (bval), 0.0, 0.0, 0.5, 0.3})

/* SplitMix64 (Steele, Lea & Flood 2014), the one generator of the tests
 * and the benchmark: the next number of the sequence, uniform in [0, 1). */
/* The engine's blade force (model.h) at a tensor. */
static inline double test_blade(const ssw_tensor *t, double w, double v) {
  ssw_reduced e;
  ssw_model_reduce(t, &e);
  return ssw_model_blade_force(&e, w, v);
}

static inline double test_u01(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1p-53;
}

/* Uniform in [lo, hi) from the state *s (deterministic sampled tests). */
static inline double test_uniform(unsigned long long *s, double lo, double hi) {
  uint64_t u = *s;
  const double x = test_u01(&u);
  *s = u;
  return lo + (hi - lo) * x;
}

/* A batch size n, or n / 3 (at least 4) in a sanitized build
 * (SSW_TEST_SANITIZED, tests/CMakeLists.txt): the sanitizers look for
 * memory and undefined behaviour, which a few bodies of a batch exercise
 * as well as all of them, at ten times the time each; the plain build
 * keeps the whole batch and its statistics. */
static inline int test_batch_size(int n) {
  const char *s = getenv("SSW_TEST_SANITIZED");
  if (!s || strcmp(s, "1") != 0) return n;
  return n / 3 > 4 ? n / 3 : (n < 4 ? n : 4);
}

#endif
