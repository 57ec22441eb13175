/* The [output] sample_points selection (sample_points.h): every form of the
 * grammar against an explicit enumeration of the grid, and each refusal. */
#include <string.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/sample_points.h"
#include "test_util.h"

static const char grid_text[] = "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
                                "[grid]\ntheta = linspace(0, 180deg, 7)\n"
                                "a = 0.2, 0.5, 1.5\nb = 0\nr = -1, 0.25\n"
                                "s = 0\nA = 0.5\nB = 0.3\n";

/* Whether point i has theta index t (or any: -1), a index ai, r index ri. */
static int chosen(const ssw_config *cfg, uint64_t i, int t, int ai, int ri) {
  int idx[SSW_NAXES];
  ssw_grid_unravel(cfg->axes, i, idx);
  return (t < 0 || idx[0] == t) && (ai < 0 || idx[1] == ai) &&
         (ri < 0 || idx[3] == ri);
}

/* The selection `text` must be exactly the union of the (t, a, r) index
 * triples in want[0..k) (-1: every value of that axis). */
static void expect_sel(const ssw_config *cfg, const char *text,
                       const int (*want)[3], int k) {
  ssw_sample_points sp;
  char why[256] = "";
  const int rc = ssw_sample_points_parse(cfg, text, &sp, why, sizeof why);
  EXPECT(rc == SSW_SUCCESS, "'%s' refused: %s", text, why);
  if (rc != SSW_SUCCESS) return;
  size_t count = 0;
  for (uint64_t i = 0; i < ssw_grid_size(cfg->axes); i++) {
    int in = 0;
    for (int j = 0; j < k; j++)
      in |= chosen(cfg, i, want[j][0], want[j][1], want[j][2]);
    const int64_t slot = ssw_sample_points_slot(&sp, i);
    EXPECT(in == (slot >= 0), "'%s': point %llu %s", text,
           (unsigned long long)i, in ? "missing" : "chosen wrongly");
    if (in) {
      EXPECT(slot == (int64_t)count, "'%s': point %llu in slot %lld, not %zu",
             text, (unsigned long long)i, (long long)slot, count);
      count++;
    }
  }
  EXPECT(sp.n == count, "'%s': %zu points, expected %zu", text, sp.n, count);
  ssw_sample_points_free(&sp);
}

static void expect_refused(const ssw_config *cfg, const char *text,
                           const char *hint) {
  ssw_sample_points sp;
  char why[256] = "";
  const int rc = ssw_sample_points_parse(cfg, text, &sp, why, sizeof why);
  EXPECT(rc == SSW_ERR_CONFIG && strstr(why, hint) && sp.n == 0,
         "'%s': rc %d, message '%s' (expected '%s')", text, rc, why, hint);
}

int main(void) {
  ssw_config *cfg = NULL;
  EXPECT(ssw_config_parse(grid_text, "grid.ini", &cfg) == SSW_SUCCESS, "%s",
         ssw_error_message());
  if (!cfg) return TEST_RESULT();
  const int all[][3] = {{-1, -1, -1}};
  expect_sel(cfg, "all", all, 1);
  expect_sel(cfg, " none ", all, 0);
  const int one[][3] = {{2, 2, 1}};
  expect_sel(cfg, "theta = 60deg, a = 1.5, r = 0.25", one, 1);
  expect_sel(cfg, "r=0.25 a=1.5 theta=pi/3", one, 1);
  const int slice[][3] = {{6, -1, -1}};
  expect_sel(cfg, "theta = 180deg", slice, 1);
  expect_sel(cfg, "theta = pi", slice, 1);
  const int two[][3] = {{0, 0, -1}, {-1, -1, 0}};
  expect_sel(cfg, "theta=0 a=0.2 | r = -1", two, 2);
  expect_sel(cfg, "theta = 2 pi / 3 | theta = 2pi/3",
             (const int[][3]){{4, -1, -1}}, 1);
  expect_refused(cfg, "theta = 61deg", "nearest: 1.04719755 rad = 60deg");
  expect_refused(cfg, "a = 0.3", "not a value of the a axis (nearest: 0.2)");
  expect_refused(cfg, "c = 1", "not a term 'axis = value'");
  expect_refused(cfg, "a = 0.2 a = 0.5", "a named twice");
  expect_refused(cfg, "a = 0.2 |", "an empty selection");
  expect_refused(cfg, "a = 0.2; r = -1", "separate selections with '|'");
  expect_refused(cfg, "a = x", "a = x: not a number");
  expect_refused(cfg, "theta = 180", "did you mean 180deg?");
  expect_refused(cfg, "a =", "a: missing value");
  ssw_config_destroy(&cfg);
  return TEST_RESULT();
}
