/* Grid indexing, sizes, and grid-wide validation (A > B, positive tensor). */
#define _XOPEN_SOURCE 700 /* clock_gettime */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "test_util.h"

#define BODY "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"

static ssw_config *parse(const char *text) {
  ssw_config *cfg = NULL;
  const int rc = ssw_config_parse(text, "grid.ini", &cfg);
  EXPECT(rc == SSW_SUCCESS, "parse failed: %s", ssw_error_message());
  return cfg;
}

/* Shape 3 x 2 x 1 x 4 x 1 x 5 x 2 = 240 points. */
static void test_indexing(void) {
  ssw_config *c = parse(BODY "[grid]\ntheta = 0, 1, 2\na = 0.1, 0.2\n"
                             "r = 0, 0.01, 0.02, 0.03\nA = 1, 2, 3, 4, 5\n"
                             "B = 0.1, 0.2\n");
  if (!c) return;
  const uint64_t size = ssw_grid_size(c->axes);
  EXPECT(size == 240, "size %llu", (unsigned long long)size);
  int idx[SSW_NAXES];
  for (uint64_t i = 0; i < size; i++) {
    ssw_grid_unravel(c->axes, i, idx);
    for (int a = 0; a < SSW_NAXES; a++)
      EXPECT(idx[a] >= 0 && idx[a] < c->axes[a].n, "index %llu axis %d: %d",
             (unsigned long long)i, a, idx[a]);
    EXPECT(ssw_grid_ravel(c->axes, idx) == i, "round trip of %llu gives %llu",
           (unsigned long long)i,
           (unsigned long long)ssw_grid_ravel(c->axes, idx));
  }
  /* B fastest, then A, ..., theta slowest. */
  ssw_grid_unravel(c->axes, 1, idx);
  EXPECT(idx[6] == 1 && idx[5] == 0, "index 1: A %d B %d", idx[5], idx[6]);
  ssw_grid_unravel(c->axes, 2, idx);
  EXPECT(idx[6] == 0 && idx[5] == 1, "index 2: A %d B %d", idx[5], idx[6]);
  ssw_grid_unravel(c->axes, 80, idx);
  EXPECT(idx[0] == 1 && idx[1] == 0 && idx[3] == 0 && idx[6] == 0,
         "index 80: theta %d", idx[0]);
  /* 107 = 1*80 + 0*40 + 2*10 + 3*2 + 1. */
  ssw_params p;
  ssw_grid_params(c->axes, 107, &p);
  EXPECT(p.theta == 1 && p.a == 0.1 && p.b == 0 && p.r == 0.02 && p.s == 0 &&
             p.A == 4 && p.B == 0.2,
         "params(107) = %g %g %g %g %g %g %g", p.theta, p.a, p.b, p.r, p.s, p.A,
         p.B);
  ssw_grid_params(c->axes, 239, &p);
  EXPECT(p.theta == 2 && p.a == 0.2 && p.r == 0.03 && p.A == 5 && p.B == 0.2,
         "params(239)");
  EXPECT(ssw_grid_validate(c) == SSW_SUCCESS, "validate: %s",
         ssw_error_message());
  ssw_config_destroy(&c);
}

static void expect_invalid(const char *text, const char *n1, const char *n2,
                           const char *what) {
  ssw_config *c = parse(text);
  if (!c) return;
  const int rc = ssw_grid_validate(c);
  const char *msg = ssw_error_user_message();
  EXPECT(rc == SSW_ERR_CONFIG, "%s: rc %d: %s", what, rc, msg);
  EXPECT(strstr(msg, n1), "%s: message '%s' lacks '%s'", what, msg, n1);
  EXPECT(!n2 || strstr(msg, n2), "%s: message '%s' lacks '%s'", what, msg, n2);
  ssw_config_destroy(&c);
}

static void test_sizes(void) {
  const char *big = BODY "[grid]\ntheta = linspace(0, 1, 1000)\n"
                         "a = linspace(0, 1, 1000)\nb = linspace(0, 1, 1000)"
                         "\nr = 0, 0.1, 0.2\nA = 0.5\nB = 0.3\n";
  ssw_config *c = parse(big);
  if (c)
    EXPECT(ssw_grid_size(c->axes) == 3000000000ull, "size %llu",
           (unsigned long long)ssw_grid_size(c->axes));
  ssw_config_destroy(&c);
  expect_invalid(big, "grid.ini:6: [grid] theta:", "3000000000", "3e9");
  /* 1000^7 = 1e21 overflows 64 bits: saturated, still refused. */
  const char *huge =
      BODY "[grid]\ntheta = linspace(0, 1, 1000)\na = linspace(0, 1, 1000)\n"
           "b = linspace(0, 1, 1000)\nr = linspace(0, 1, 1000)\n"
           "s = linspace(0, 1, 1000)\nA = linspace(2, 3, 1000)\n"
           "B = linspace(0.5, 1, 1000)\n";
  c = parse(huge);
  if (c)
    EXPECT(ssw_grid_size(c->axes) == UINT64_MAX, "saturated size %llu",
           (unsigned long long)ssw_grid_size(c->axes));
  ssw_config_destroy(&c);
  expect_invalid(huge, "1e+21", "theta(1000) x a(1000)", "1e21");
  /* Exactly 2^31 passes the size check (then A <= B is reported). */
  expect_invalid(BODY "[grid]\ntheta = linspace(0, 1, 1024)\n"
                      "a = linspace(0, 1, 1024)\nb = linspace(0, 1, 2048)\n"
                      "A = 0.3\nB = 0.3\n",
                 "[grid] A:", "A > B", "2^31");
}

static void test_semi_axes(void) {
  expect_invalid(BODY "[grid]\ntheta = 0\na = 0.2\nA = 0.3, 0.5\n"
                      "B = 0.2, 0.3\n",
                 "grid.ini:8: [grid] A:", "(line 9)", "A <= B");
  expect_invalid(BODY "[grid]\ntheta = 0\na = 0.2\nA = 0.5\nB = 0, 0.1\n",
                 "grid.ini:9: [grid] B:", "> 0", "B = 0");
  expect_invalid(BODY "[grid]\ntheta = 0\na = 0.2\nA = 0.5\nB = -1, 0.1\n",
                 "[grid] B:", "-1", "B < 0");
}

/* With I0 = 0 the body alone is singular (rotation about the centre of
 * mass costs no energy); with rho = 0 nothing else helps, and with
 * added_inertia = 0 the fluid costs nothing for rotation about the ellipse
 * centre, so the tensor is singular exactly where (a, b) = (r, s). */
static void test_positive_definite(void) {
  expect_invalid("[body]\nm = 1\nI0 = 0\nrho = 0\n[grid]\ntheta = 0, 1\n"
                 "a = 0, 0.1\nA = 0.5\nB = 0.3\n",
                 "grid point 0 (theta=0 a=0 b=0 r=0 s=0 A=0.5 B=0.3)",
                 "not positive definite", "classical, I0 = 0");
  expect_invalid("[body]\nm = 1\nI0 = 0\nrho = 1\nadded_inertia = 0\n"
                 "[grid]\ntheta = 0, 1\na = -0.1, 0, 0.1\nA = 0.5\n"
                 "B = 0.2, 0.3\n",
                 "grid point 2 (theta=0 a=0 b=0 r=0 s=0 A=0.5 B=0.2)",
                 "not positive definite", "a = r, b = s");
  /* Bad points in many blocks: the smallest index wins, for any number of
   * threads. a = 0 is entry 1000 of 2001, B has 50 values. */
  expect_invalid("[body]\nm = 1\nI0 = 0\nrho = 1\nadded_inertia = 0\n"
                 "[grid]\ntheta = 0, 1\na = linspace(-1, 1, 2001)\nA = 2\n"
                 "B = linspace(0.1, 1, 50)\n",
                 "grid point 50000 ", "a=0 ", "first of many");
}

/* The tensor's entries must be full-precision numbers: J and M of at least
 * SSW_POINT_INERTIA_MIN (point.h); the results do not depend on the mass
 * scale, and the message says to scale the masses. Overflow of an entry is
 * refused too. */
static void test_mass_scale(void) {
  expect_invalid("[body]\nm = 1e-300\nI0 = 1e-300\nrho = 1e-300\n[grid]\n"
                 "theta = 0, 1\na = 0.2\nA = 0.5\nB = 0.3\n",
                 "grid point 0 ", "multiply m, I0 and rho", "light body");
  expect_invalid("[body]\nm = 1e308\nI0 = 0.5\nrho = 1\n[grid]\n"
                 "theta = 0\na = 2\nA = 0.5\nB = 0.3\n",
                 "grid point 0 ", "overflows", "heavy body");
  ssw_config *c = parse("[body]\nm = 2e-289\nI0 = 1e-289\nrho = 2e-289\n"
                        "[grid]\ntheta = 0, 1\na = 0.2\nA = 0.5\nB = 0.3\n");
  if (c)
    EXPECT(ssw_grid_validate(c) == SSW_SUCCESS, "lightest body: %s",
           ssw_error_message());
  ssw_config_destroy(&c);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_timing(void) {
  ssw_config *c = parse(BODY "[grid]\ntheta = linspace(0, 180deg, 100)\n"
                             "a = linspace(0.1, 1, 10)\n"
                             "b = linspace(0, 0.5, 10)\nr = 0, 0.1\n"
                             "s = 0, 0.1\nA = linspace(0.5, 1, 5)\n"
                             "B = 0.2, 0.3, 0.4, 0.45, 0.49\n");
  if (!c) return;
  const double t0 = now();
  const int rc = ssw_grid_validate(c);
  const double t1 = now();
  EXPECT(rc == SSW_SUCCESS, "validate: %s", ssw_error_message());
  printf("ssw_grid_validate: %llu points in %.3f s\n",
         (unsigned long long)ssw_grid_size(c->axes), t1 - t0);
  ssw_config_destroy(&c);
}

int main(void) {
  test_indexing();
  test_sizes();
  test_semi_axes();
  test_positive_definite();
  test_mass_scale();
  test_timing();
  return TEST_RESULT();
}
