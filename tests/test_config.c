/* Config parsing: the issue's example, defaults, units, and bad configs. */
#define _XOPEN_SOURCE 700 /* M_PI */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "test_util.h"

#ifndef SSW_SOURCE_DIR
#define SSW_SOURCE_DIR "."
#endif

/* Lines 1-4 and 5-9 of most test configs. */
#define BODY "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
#define GRID "[grid]\ntheta = 0\na = 0.2\nA = 0.5\nB = 0.3\n"

#define ISSUE_EXAMPLE                                                          \
  "[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\n"                                 \
  "theta = linspace(0, 180deg, 37)\na = 0.2, 0.5\nb = 0\nr = 0\ns = 0\n"       \
  "A = 0.5\nB = 0.3\n[ensemble]\ntrajectories = 100\nseed = 1\n"               \
  "[output]\nfile = sweep.h5\n"

static ssw_config *parse_ok(const char *text, const char *name) {
  ssw_config *cfg = NULL;
  const int rc = ssw_config_parse(text, name, &cfg);
  EXPECT(rc == SSW_SUCCESS && cfg, "parse of %s failed (%d): %s", name, rc,
         ssw_error_message());
  return cfg;
}

/* 1 when `file` is `rel` in `dir` (the current directory when NULL): a
 * relative [output] file is stored absolute. */
static int is_at(const char *file, const char *dir, const char *rel) {
  char cwd[PATH_MAX], want[2 * PATH_MAX];
  if (!dir) dir = getcwd(cwd, sizeof cwd);
  snprintf(want, sizeof want, "%s/%s", dir ? dir : "?", rel);
  return file && strcmp(file, want) == 0;
}

static int ulps_apart(double x, double y) {
  int n = 0;
  while (x != y && n < 100)
    x = nextafter(x, y), n++;
  return n;
}

static void check_issue_example(const ssw_config *c) {
  EXPECT(c->body.m == 1 && c->body.I0 == 0.5 && c->body.rho == 1,
         "body %g %g %g", c->body.m, c->body.I0, c->body.rho);
  EXPECT(c->body.k_rot == SSW_KROT_PAPERS &&
             strcmp(c->k_rot_name, "papers") == 0,
         "k_rot %g %s", c->body.k_rot, c->k_rot_name);
  const ssw_axis *th = &c->axes[0];
  EXPECT(th->n == 37 && th->line == 6, "theta n %d line %d", th->n, th->line);
  if (th->n != 37) return;
  EXPECT(th->values[0] == 0.0, "theta[0] = %.17g", th->values[0]);
  EXPECT(th->values[36] == M_PI, "theta[36] = %.17g", th->values[36]);
  EXPECT(ulps_apart(th->values[18], M_PI / 2) <= 1, "theta[18] = %.17g",
         th->values[18]);
  for (int i = 0; i < 37; i++)
    EXPECT(ulps_apart(th->values[i], i * M_PI / 36) <= 2,
           "theta[%d] = %.17g vs %.17g", i, th->values[i], i * M_PI / 36);
  EXPECT(c->axes[1].n == 2 && c->axes[1].values[0] == 0.2 &&
             c->axes[1].values[1] == 0.5 && c->axes[1].line == 7,
         "a n %d line %d", c->axes[1].n, c->axes[1].line);
  for (int a = 2; a <= 4; a++)
    EXPECT(c->axes[a].n == 1 && c->axes[a].values[0] == 0 &&
               c->axes[a].line == 6 + a,
           "axis %s n %d line %d", ssw_axis_names[a], c->axes[a].n,
           c->axes[a].line);
  EXPECT(c->axes[5].n == 1 && c->axes[5].values[0] == 0.5, "A");
  EXPECT(c->axes[6].n == 1 && c->axes[6].values[0] == 0.3, "B");
  EXPECT(c->trajectories == 100 && c->seed == 1, "ensemble %d %llu",
         (int)c->trajectories, (unsigned long long)c->seed);
  const size_t len = c->file ? strlen(c->file) : 0;
  EXPECT(c->file && c->file[0] == '/' && len > 9 &&
             strcmp(c->file + len - 9, "/sweep.h5") == 0,
         "file %s", c->file);
  EXPECT(ssw_grid_size(c->axes) == 74, "size %llu",
         (unsigned long long)ssw_grid_size(c->axes));
}

static void test_issue_example(void) {
  ssw_config *c = parse_ok(ISSUE_EXAMPLE, "issue.ini");
  if (c) {
    check_issue_example(c);
    EXPECT(is_at(c->file, NULL, "sweep.h5"), "file %s", c->file);
    EXPECT(strcmp(c->text, ISSUE_EXAMPLE) == 0, "text not kept");
    EXPECT(strcmp(c->path, "issue.ini") == 0, "path %s", c->path);
    EXPECT(ssw_grid_validate(c) == SSW_SUCCESS, "validate: %s",
           ssw_error_message());
  }
  ssw_config_destroy(&c);
  EXPECT(c == NULL, "destroy must reset the handle");
  ssw_config_destroy(&c); /* NULL-safe */
  ssw_config_destroy(NULL);
  /* The same from a file. */
  const char *path = SSW_SOURCE_DIR "/tests/config_cases/issue_example.ini";
  int rc = ssw_config_load(path, &c);
  EXPECT(rc == SSW_SUCCESS, "load %s: %s", path, ssw_error_message());
  if (c) check_issue_example(c);
  char dir[PATH_MAX];
  EXPECT(c && realpath(SSW_SOURCE_DIR "/tests/config_cases", dir) &&
             is_at(c->file, dir, "sweep.h5"),
         "file %s: not next to the config", c ? c->file : "");
  ssw_config_destroy(&c);
}

static void test_defaults(void) {
  ssw_config *c = parse_ok(BODY GRID, "runs/study.v2/first.ini");
  if (!c) return;
  EXPECT(c->zero_tol == SSW_ZERO_TOL_DEFAULT, "zero_tol %g", c->zero_tol);
  for (int a = 2; a <= 4; a++)
    EXPECT(c->axes[a].n == 1 && c->axes[a].values[0] == 0 &&
               c->axes[a].line == 0,
           "default axis %s", ssw_axis_names[a]);
  EXPECT(c->trajectories == 16 && c->seed == 1 && c->ic == SSW_IC_RANDOM &&
             c->energy == 0.5,
         "ensemble defaults");
  /* The config's integrator defaults are the library's own. */
  ssw_integrator def;
  ssw_integrator_defaults(&def);
  EXPECT(c->integ.method == def.method && c->integ.recon == def.recon &&
             c->integ.rtol == def.rtol && c->integ.eta == def.eta &&
             c->integ.tol == def.tol && c->integ.max_steps == def.max_steps &&
             c->integ.tail == def.tail && c->integ.estimate == def.estimate,
         "integrator defaults differ from ssw_integrator_defaults");
  EXPECT(c->integ.rtol == 1e-10 && c->integ.eta == 0,
         "default step control: rtol %g eta %g", c->integ.rtol, c->integ.eta);
  EXPECT(is_at(c->file, NULL, "runs/study.v2/first.h5"), "file %s", c->file);
  EXPECT(c->samples == 0 && c->sample_nodes == 256 && c->flush_interval == 120,
         "output defaults");
  EXPECT(c->work_unit == 0 && c->progress_interval == 10, "run defaults");
  ssw_config_destroy(&c);
  const char *names[][2] = {{"noext", "noext.h5"},
                            {"dir.d/noext", "dir.d/noext.h5"},
                            {"x.cfg", "x.h5"},
                            {NULL, "config.h5"}};
  for (int i = 0; i < 4; i++) {
    c = parse_ok(BODY GRID, names[i][0]);
    if (c)
      EXPECT(is_at(c->file, NULL, names[i][1]), "file %s, expected %s", c->file,
             names[i][1]);
    ssw_config_destroy(&c);
  }
}

/* theta values in radians for a [grid] theta value. */
static void expect_theta(const char *value, int n, const double *want) {
  char text[512];
  snprintf(text, sizeof text,
           BODY "[grid]\ntheta = %s\na = 0.2\nA = 0.5\nB = 0.3\n", value);
  ssw_config *c = parse_ok(text, "deg.ini");
  if (!c) return;
  EXPECT(c->axes[0].n == n, "theta = %s: %d values, expected %d", value,
         c->axes[0].n, n);
  for (int i = 0; i < n && i < c->axes[0].n; i++)
    EXPECT(c->axes[0].values[i] == want[i],
           "theta = %s: value %d is %.17g, expected %.17g", value, i,
           c->axes[0].values[i], want[i]);
  ssw_config_destroy(&c);
}

static void test_units_and_syntax(void) {
  expect_theta("60deg", 1, (double[]){(60.0 / 180.0) * M_PI});
  expect_theta("180 deg", 1, (double[]){M_PI});
  expect_theta("90deg", 1, (double[]){M_PI / 2});
  expect_theta("1.5rad", 1, (double[]){1.5});
  expect_theta("-45deg, 0, 90deg", 3, (double[]){-M_PI / 4, 0, M_PI / 2});
  expect_theta("0.5, 1rad", 2, (double[]){0.5, 1});
  expect_theta("linspace(0, 180deg, 5)", 5,
               (double[]){0, M_PI / 4, M_PI / 2, 0.75 * M_PI, M_PI});
  expect_theta("linspace( 0.1 , 0.1 , 1 )", 1, (double[]){0.1});
  /* The angle grammar (src/config/angle.c): multiples of pi, bare radians up to
   * 2 pi, explicit rad beyond. */
  expect_theta("pi/3, 2pi/3, pi", 3, (double[]){M_PI / 3, 2 * M_PI / 3, M_PI});
  expect_theta("linspace(0, pi, 3)", 3, (double[]){0, M_PI / 2, M_PI});
  expect_theta("-2*pi/4, 6.28", 2, (double[]){-2 * M_PI / 4, 6.28});
  expect_theta("7rad", 1, (double[]){7});
  /* The ends of the accepted blade angles (angle.h SSW_THETA_MAX). */
  expect_theta("-720deg, 720deg", 2, (double[]){-4 * M_PI, 4 * M_PI});
  expect_theta("-4pi, 4pi", 2, (double[]){-4 * M_PI, 4 * M_PI});
  expect_theta("linspace(0, 1, 3)", 3, (double[]){0, 0.5, 1});
  expect_theta("0.1,0.2 , 0.3", 3, (double[]){0.1, 0.2, 0.3});
  expect_theta("1e-1 ; an inline comment", 1, (double[]){0.1});
  ssw_config *c = parse_ok("\xEF\xBB\xBF[body]\r\nm: 2\r\nI0 = 0\r\nrho = "
                           "1\r\nadded_inertia = lamb\r\n" GRID
                           "[ensemble]\nseed = 18446744073709551615\n"
                           "initial = lattice\n[integrator]\nscheme = "
                           "hamel4\nreconstruction = midpoint\ntail = no\n"
                           "[output]\nsamples = 16\n",
                           "syntax.ini");
  if (c) {
    EXPECT(c->body.m == 2 && c->body.I0 == 0, "m %g I0 %g", c->body.m,
           c->body.I0);
    EXPECT(c->body.k_rot == SSW_KROT_LAMB && !strcmp(c->k_rot_name, "lamb"),
           "lamb");
    EXPECT(c->seed == UINT64_MAX && c->ic == SSW_IC_LATTICE, "seed/ic");
    EXPECT(c->integ.method == ssw_method_find("hamel4") &&
               c->integ.recon == SSW_RECON_MIDPOINT && c->integ.tail == 0,
           "integrator");
  }
  ssw_config_destroy(&c);
  c = parse_ok(BODY "added_inertia = 0.2\n" GRID, "custom.ini");
  if (c)
    EXPECT(c->body.k_rot == 0.2 && !strcmp(c->k_rot_name, "custom"),
           "custom k_rot %g %s", c->body.k_rot, c->k_rot_name);
  ssw_config_destroy(&c);
}

typedef struct {
  const char *text;
  int line;
  const char *needle;  /* in the message: usually the key */
  const char *needle2; /* optional second fragment */
} bad_case;

static const bad_case bad_cases[] = {
    /* Fuzzing finds (tests/fuzz/regressions/): an overflowing range, an
     * empty section name, and seven long axes refused before allocating. */
    {"[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\ntheta = 0\na = "
     "linspace(-1e308, 1e308, 2)\nA = 0.5\nB = 0.3\n",
     7, "[grid] a:", "wider than double precision"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\ntheta = linspace(-1e308rad, "
     "1e308rad, 2)\na = 0.2\nA = 0.5\nB = 0.3\n",
     6, "[grid] theta:", "wider than double precision"},
    {"[]\nm = 1\n", 2, "key 'm'", "empty name"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\ntheta = linspace(0, 1, "
     "10000000)\na = linspace(0, 1, 10000000)\nA = 0.5\nB = 0.3\n",
     7, "[grid] a:", "values in all"},
    {BODY GRID "[outptu]\nfile = x.h5\n", 11, "[outptu]", "[output]"},
    /* sample_points: a selection a ';' comment would silently drop, one
     * that survives, and a value off the grid. */
    {BODY GRID "[output]\nsamples = 1\nsample_points = a = 0.2 ; theta = 0\n",
     12, "[output] sample_points:", "separate selections with '|'"},
    {BODY GRID "[output]\nsamples = 1\nsample_points = a = 0.2;\n", 12,
     "[output] sample_points:", "not ';'"},
    {BODY GRID "[output]\nsamples = 1\nsample_points = a = 0.3\n", 12,
     "[output] sample_points:", "nearest: 0.2"},
    {BODY GRID "[Body]\nm = 1\n", 11, "[Body]", "[body]"},
    {BODY "mass = 2\n" GRID, 5, "mass", "valid keys"},
    {BODY GRID "[ensemble]\ntrajectoris = 5\n", 11, "trajectoris",
     "did you mean 'trajectories'"},
    {BODY "M = 2\n" GRID, 5, "[body] M:", "'m'"},
    {BODY "seed = 2\n" GRID, 5, "seed", "[ensemble]"},
    {BODY "m = 2\n" GRID, 5, "duplicate key 'm'", "line 2"},
    {"[body]\nm = 1\n  2\nI0 = 0.5\nrho = 1\n" GRID, 3, "duplicate key 'm'",
     "continuation"},
    {"[body]\nm = 1.2.3\nI0 = 0.5\nrho = 1\n" GRID, 2, "[body] m:", "1.2.3"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = nan\n" GRID, 4, "rho", "nan"},
    {BODY "[grid]\ntheta = 0\na = inf\nA = 0.5\nB = 0.3\n", 7,
     "[grid] a:", "inf"},
    {"[body]\nm = 1\nI0 = 0x1p-1\nrho = 1\n" GRID, 3, "I0", "0x1p-1"},
    {BODY "[grid]\ntheta = 0\na = 0.2\nA =\nB = 0.3\n", 8,
     "[grid] A:", "no value"},
    {BODY "[grid]\ntheta = linspace(0, 1, 0)\na = 0.2\nA = 0.5\nB = 0.3\n", 6,
     "theta", "count"},
    {BODY "[grid]\ntheta = linspace(1, 0, 5)\na = 0.2\nA = 0.5\nB = 0.3\n", 6,
     "theta", "start < stop"},
    {BODY "[grid]\ntheta = linspace(0, 1, 1)\na = 0.2\nA = 0.5\nB = 0.3\n", 6,
     "theta", "n = 1"},
    {BODY "[grid]\ntheta = linspace(0, 1)\na = 0.2\nA = 0.5\nB = 0.3\n", 6,
     "theta", "3 arguments"},
    {BODY "[grid]\ntheta = linspace(0, 1, 2) x\na = 0.2\nA = 0.5\nB = 0.3\n", 6,
     "theta", "linspace("},
    {BODY "[grid]\ntheta = 0\na = 0.5, 0.2\nA = 0.5\nB = 0.3\n", 7,
     "[grid] a:", "entries 1 and 2"},
    {BODY "[grid]\ntheta = 0\na = 0.1, 0.2, 0.2\nA = 0.5\nB = 0.3\n", 7,
     "[grid] a:", "entries 2 and 3"},
    {BODY "[grid]\ntheta = 0\na = 0.1,,0.2\nA = 0.5\nB = 0.3\n", 7,
     "[grid] a:", "empty"},
    {BODY "[grid]\ntheta = 0\na = 0.2 0.5\nA = 0.5\nB = 0.3\n", 7,
     "[grid] a:", "commas"},
    {BODY "[grid]\ntheta = 0\na = 0.2deg\nA = 0.5\nB = 0.3\n", 7,
     "[grid] a:", "suffix"},
    {BODY "[grid]\ntheta = 0deg, 1rad\na = 0.2\nA = 0.5\nB = 0.3\n", 6, "theta",
     "mixes"},
    {BODY "[grid]\ntheta = 60 degrees\na = 0.2\nA = 0.5\nB = 0.3\n", 6, "theta",
     "degrees"},
    {BODY "[grid]\ntheta = 0.5, 90deg\na = 0.2\nA = 0.5\nB = 0.3\n", 6, "theta",
     "no unit"},
    {BODY "[grid]\ntheta = linspace(1, 170deg, 5)\na = 0.2\nA = 0.5\n"
          "B = 0.3\n",
     6, "theta", "write deg on every number"},
    /* Blade angles beyond two turns are refused (angle.h SSW_THETA_MAX):
     * 1e300deg was computed as some angle no one meant. */
    {BODY "[grid]\ntheta = 1e300deg\na = 0.2\nA = 0.5\nB = 0.3\n", 6,
     "[grid] theta:", "outside [-720deg, 720deg]"},
    {BODY "[grid]\ntheta = linspace(0, 720.001deg, 3)\na = 0.2\nA = 0.5\n"
          "B = 0.3\n",
     6, "[grid] theta:", "modulo 180deg"},
    {BODY "[grid]\ntheta = -12.6rad, 0\na = 0.2\nA = 0.5\nB = 0.3\n", 6,
     "[grid] theta:", "outside [-720deg, 720deg]"},
    /* Bare angles beyond 2 pi are refused: they were meant as degrees. */
    {BODY "[grid]\ntheta = 180\na = 0.2\nA = 0.5\nB = 0.3\n", 6, "theta",
     "did you mean 180deg?"},
    {BODY "[grid]\ntheta = linspace(0, 180, 7)\na = 0.2\nA = 0.5\n"
          "B = 0.3\n",
     6, "theta", "did you mean 180deg?"},
    {BODY "[grid]\ntheta = 0, 90\na = 0.2\nA = 0.5\nB = 0.3\n", 6, "theta",
     "did you mean 90deg?"},
    {BODY "[grid]\ntheta = linspace(0deg, pi, 3)\na = 0.2\nA = 0.5\n"
          "B = 0.3\n",
     6, "theta", "mixes"},
    {BODY "[grid]\ntheta = 0\na = pi/4\nA = 0.5\nB = 0.3\n", 7,
     "[grid] a:", "only allowed on theta"},
    {BODY "[grid]\ntheta = linspace(0.6, 0.6, 2)\na = 0.2\nA = 0.5\n"
          "B = 0.3\n",
     6, "theta", "start = 0.6, stop = 0.6)"},
    {"[body]\nm = -1\nI0 = 0.5\nrho = 1\n" GRID, 2, "[body] m:", "> 0"},
    {"[body]\nm = 0\nI0 = 0.5\nrho = 1\n" GRID, 2, "[body] m:", "> 0"},
    {"[body]\nm = 1 kg\nI0 = 0.5\nrho = 1\n" GRID, 2, "[body] m:", "kg"},
    {"[body]\nm = 1 # mass\nI0 = 0.5\nrho = 1\n" GRID, 2, "[body] m:", " ;"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = -0.1\n" GRID, 4, "[body] rho:", ">= 0"},
    {"[body]\nm = 1\nI0 = -2\nrho = 1\n" GRID, 3, "[body] I0:", ">= 0"},
    /* Circulation: finite, and only with a fluid to lift the body. */
    {"[body]\nm = 1\nI0 = 0.5\nrho = 1\nGamma = nan\n" GRID, 5,
     "[body] Gamma:", "nan"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = 1\nGamma = inf\n" GRID, 5,
     "[body] Gamma:", "inf"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = 1\nGamma = 1e999\n" GRID, 5,
     "[body] Gamma:", "range"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = 0\nGamma = 0.3\n" GRID, 5,
     "[body] Gamma:", "no lift"},
    {BODY "added_inertia = classical\n" GRID, 5, "added_inertia", "lamb"},
    {BODY "added_inertia = -0.1\n" GRID, 5, "added_inertia", "papers"},
    {BODY "zero_tol = 0.01\n" GRID, 5, "zero_tol", "0.001"},
    {BODY GRID "[integrator]\nscheme = hamel5\n", 11,
     "[integrator] scheme:", "hamel6"},
    {BODY GRID "[integrator]\neta = 2.5\n", 11, "[integrator] eta:", "(0, 2]"},
    {BODY GRID "[integrator]\neta = 0\n", 11, "[integrator] eta:", "(0, 2]"},
    {BODY GRID "[integrator]\nrtol = 1e-15\n", 11,
     "[integrator] rtol:", "1e-14"},
    {BODY GRID "[integrator]\nrtol = 1e-14\n", 11,
     "[integrator] rtol:", "1e-14"},
    {BODY GRID "[integrator]\nrtol = 0.1\n", 11, "[integrator] rtol:", "0.01"},
    {BODY GRID "[integrator]\nrtol = nan\n", 11, "[integrator] rtol:", NULL},
    {BODY GRID "[integrator]\nrtol = 1e-8\neta = 0.5\n", 12,
     "[integrator] eta:", "rtol (line 11)"},
    {BODY GRID "[integrator]\nerror_estimate = maybe\n", 11,
     "[integrator] error_estimate:", NULL},
    {BODY GRID "[integrator]\ntol = 0\n", 11, "[integrator] tol:", "0.01"},
    {BODY GRID "[integrator]\nmax_steps = 10\n", 11, "max_steps", ">= 100"},
    {BODY GRID "[integrator]\nreconstruction = rk\n", 11, "reconstruction",
     "midpoint"},
    {BODY GRID "[integrator]\ntail = maybe\n", 11, "tail", "yes"},
    {BODY GRID "[ensemble]\ntrajectories = 0\n", 11, "trajectories",
     "10000000"},
    {BODY GRID "[ensemble]\ntrajectories = 1e3\n", 11, "trajectories", "1e3"},
    {BODY GRID "[ensemble]\nseed = -1\n", 11,
     "[ensemble] seed:", "non-negative"},
    {BODY GRID "[ensemble]\nseed = 18446744073709551616\n", 11, "seed",
     "too large"},
    {BODY GRID "[ensemble]\ninitial = grid\n", 11, "initial", "lattice"},
    {BODY GRID "[ensemble]\nenergy = 0\n", 11, "energy", "[1e-200, "},
    /* values that once passed and then crashed or hung the engine */
    {BODY GRID "[ensemble]\nenergy = 1e308\n", 11, "energy", "1e+200]"},
    {BODY GRID "[output]\nflush_interval = 1e-9\n", 11, "flush_interval",
     ">= 0.01"},
    {BODY GRID "[output]\nsamples = 65\n", 11, "samples", "64"},
    {BODY GRID "[output]\nsamples = 20\n", 11, "samples", "trajectories"},
    {BODY GRID "[output]\nsample_nodes = 1\n", 11, "sample_nodes", "[2,"},
    {BODY GRID "[output]\nflush_interval = 0\n", 11, "flush_interval",
     ">= 0.01"},
    {BODY GRID "[output]\nfile =\n", 11, "[output] file:", "no value"},
    {BODY GRID "[run]\nwork_unit = -1\n", 11, "work_unit", "1000000"},
    {BODY GRID "[run]\nprogress_interval = -1\n", 11, "progress_interval",
     "> 0"},
    {"[body]\nI0 = 0.5\nrho = 1\n" GRID, 8, "[body] m:", "missing"},
    {BODY "[grid]\na = 0.2\nA = 0.5\nB = 0.3\n", 8, "[grid] theta:", "missing"},
    {"", 0, "[body] m:", "missing"},
    {"[body]\nm = 1\nhello world\nI0 = 0.5\nrho = 1\n" GRID, 3, "hello world",
     "key = value"},
    {"m = 1\n" BODY GRID, 1, "m:", "before any [section]"},
    {"[body\nm = 1\n", 1, "[body", "section header"},
    /* old Mac OS line endings (CR alone) are named as such, not
     * reported as an over-long line; CR LF is accepted (case below) */
    {"[body]\rm = 1\rI0 = 0.5\rrho = 1\r", 1, "carriage returns alone",
     "old Mac OS"},
    {BODY "; a comment\rwith a lone CR\n" GRID, 5, "carriage return (CR)",
     "mixed line endings"},
    {BODY "= 5\n" GRID, 5, "[body]:", "no key"},
    {BODY GRID "[grid]\ntheta = 1\n", 11, "duplicate key 'theta'", "line 6"},
    {BODY GRID "[ensemble]\nenergy = "
               "1.00000000000000000000000000000000000000000000000000000000000"
               "00000000000000000000000000000000000000000000000000000000000000"
               "00000000000000000000000000000000000000000000000000000000000000"
               "0000000000000\n",
     11, "longer than", "linspace"},
    {BODY GRID "[ensemble]\ntrajectories = 4\n[output]\nsamples = 5\n", 13,
     "samples", "4"},
    /* The run axes: one spelling each, their ranges, circulation's fluid. */
    {BODY "Gamma = 1\n" GRID "Gamma = 0, 1\n", 11, "[grid] Gamma",
     "[body] Gamma (line 5)"},
    {BODY GRID "energy = 1, 2\n[ensemble]\nenergy = 0.5\n", 10, "[grid] energy",
     "[ensemble] energy (line 12)"},
    {BODY GRID "energy = 0, 1\n", 10, "[grid] energy", "out of range"},
    {BODY GRID "energy = 1, 1e201\n", 10, "[grid] energy", "out of range"},
    {BODY GRID "Gamma = 0, nan\n", 10, "[grid] Gamma", "nan"},
    {BODY GRID "energy = logspace(0, 1, 3)\n", 10, "[grid] energy",
     "0 < start"},
    {BODY GRID "drag_w = -0.1, 0.1\n", 10, "[grid] drag_w", "out of range"},
    {BODY GRID "drag_w = 0.01, 1\ndrag_v = 0.04, 1\ndrag_wv = -0.03, 0\n", 12,
     "[grid] drag_wv", "not positive semidefinite"},
    /* a one-value [grid] drag_wv is blamed where it was set */
    {BODY "drag_w = 0.1\ndrag_v = 0.1\n" GRID "drag_wv = 0.5\n", 12,
     "[grid] drag_wv", "at most sqrt(drag_w drag_v) = 0.1,"},
    {BODY "drag_w = 0.1\ndrag_v = 0.1\ndrag_wv = 0.5\n" GRID, 7,
     "[body] drag_wv", "not positive semidefinite"},
    /* [refine] classes: a strict comma list, each class once, every name
     * in the message; [refine] trajectories at most the ensemble's */
    {BODY GRID "[refine]\nclasses = regime, regime\n", 11,
     "[refine] classes:", "twice"},
    {BODY GRID "[refine]\nclasses = regime,\n", 11,
     "[refine] classes:", "empty class"},
    {BODY GRID "[refine]\nclasses = regime,, loops\n", 11,
     "[refine] classes:", "empty class"},
    {BODY GRID "[refine]\nclasses = regimes\n", 11,
     "[refine] classes:", "attractor or chaos"},
    {BODY GRID "[ensemble]\ntrajectories = 4\n[refine]\ntrajectories = 5\n", 13,
     "[refine] trajectories:", "exceeds [ensemble] trajectories = 4"},
    {BODY "drag_w = 1\n" GRID "drag_w = 1, 2\n", 11, "[grid] drag_w",
     "[body] drag_w (line 5)"},
    {BODY GRID "energy = logspace(1, 0.1, 3)\n", 10, "[grid] energy",
     "start < stop"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\ntheta = logspace(1, 2, 3)\n"
     "a = 0.2\nA = 0.5\nB = 0.3\n",
     6, "[grid] theta", "logspace is for positive axes"},
    {"[body]\nm = 1\nI0 = 0.5\nrho = 0\n" GRID "Gamma = -1, 0, 2\n", 10,
     "[grid] Gamma", "rho = 0"},
};

static void test_bad_configs(void) {
  const int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
  for (int i = 0; i < n; i++) {
    const bad_case *b = &bad_cases[i];
    static ssw_config sentinel;
    ssw_config *c = &sentinel; /* must be reset to NULL */
    ssw_error_clear();
    const int rc = ssw_config_parse(b->text, "bad.ini", &c);
    const char *msg = ssw_error_user_message();
    char where[32];
    snprintf(where, sizeof where, "bad.ini:%d: ", b->line);
    EXPECT(rc == SSW_ERR_CONFIG && c == NULL,
           "case %d: rc %d (expected %d), message '%s'", i, rc, SSW_ERR_CONFIG,
           msg);
    EXPECT(strncmp(msg, where, strlen(where)) == 0,
           "case %d: message '%s' does not start with '%s'", i, msg, where);
    EXPECT(strstr(msg, b->needle), "case %d: message '%s' lacks '%s'", i, msg,
           b->needle);
    EXPECT(!b->needle2 || strstr(msg, b->needle2),
           "case %d: message '%s' lacks '%s'", i, msg, b->needle2);
    if (rc == SSW_SUCCESS) ssw_config_destroy(&c);
  }
  EXPECT(n >= 25, "only %d bad cases", n);
}

static void test_files(void) {
  ssw_config *c = NULL;
  int rc = ssw_config_load("/nonexistent/dir/x.ini", &c);
  EXPECT(rc == SSW_ERR_IO && c == NULL, "missing file: rc %d", rc);
  EXPECT(strstr(ssw_error_user_message(), "/nonexistent/dir/x.ini") &&
             strstr(ssw_error_user_message(), strerror(ENOENT)),
         "missing file message: %s", ssw_error_user_message());
  const char *nul = SSW_SOURCE_DIR "/tests/config_cases/nul_byte.ini";
  rc = ssw_config_load(nul, &c);
  EXPECT(rc == SSW_ERR_CONFIG && c == NULL &&
             strstr(ssw_error_user_message(), "nul_byte.ini:2:"),
         "NUL byte: rc %d %s", rc, ssw_error_user_message());
  rc = ssw_config_parse(BODY GRID, "results.h5", &c);
  EXPECT(rc == SSW_ERR_CONFIG && strstr(ssw_error_user_message(), "file"),
         "config named .h5: rc %d %s", rc, ssw_error_user_message());
  ssw_config_destroy(&c);
}

/* Every example job parses, validates and has the intended size. */
static void test_examples(void) {
  const struct {
    const char *name;
    uint64_t min, max;
    int trajectories;
  } ex[] = {{"fig6_theta_sweep.ini", 37, 37, 0},
            {"small_7d.ini", 64, 200, 8},
            {"tiny.ini", 6, 12, 4}};
  for (int i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/jobs/examples/%s", SSW_SOURCE_DIR,
             ex[i].name);
    ssw_config *c = NULL;
    int rc = ssw_config_load(path, &c);
    EXPECT(rc == SSW_SUCCESS, "%s: %s", ex[i].name, ssw_error_message());
    if (!c) continue;
    rc = ssw_grid_validate(c);
    EXPECT(rc == SSW_SUCCESS, "%s: %s", ex[i].name, ssw_error_message());
    const uint64_t size = ssw_grid_size(c->axes);
    EXPECT(size >= ex[i].min && size <= ex[i].max, "%s: %llu points",
           ex[i].name, (unsigned long long)size);
    EXPECT(!ex[i].trajectories || c->trajectories == ex[i].trajectories,
           "%s: %d trajectories", ex[i].name, (int)c->trajectories);
    ssw_config_destroy(&c);
  }
}

/* Mutated configs must parse or fail cleanly (run under ASan/valgrind). */
static void test_mutations(void) {
  static const char alphabet[] = "[]=:,;#() \n\t0123456789.eE+-degradlinspace"
                                 "mABrhoI";
  unsigned long long seed = 11;
  char text[1024];
  int ok = 0;
  for (int iter = 0; iter < 20000; iter++) {
    strcpy(text, ISSUE_EXAMPLE);
    const int edits = 1 + (int)test_uniform(&seed, 0, 4);
    for (int e = 0; e < edits; e++) {
      const size_t len = strlen(text);
      const size_t at = (size_t)test_uniform(&seed, 0, (double)len);
      const char ch =
          alphabet[(int)test_uniform(&seed, 0, sizeof alphabet - 1)];
      if (test_uniform(&seed, 0, 1) < 0.5)
        text[at] = ch; /* replace */
      else if (len + 2 < sizeof text) {
        memmove(text + at + 1, text + at, len - at + 1);
        text[at] = ch; /* insert */
      }
    }
    ssw_config *c = NULL;
    const int rc = ssw_config_parse(text, "mut.ini", &c);
    EXPECT(rc == SSW_SUCCESS || rc == SSW_ERR_CONFIG, "mutation %d: rc %d: %s",
           iter, rc, ssw_error_message());
    EXPECT((rc == SSW_SUCCESS) == (c != NULL), "mutation %d: handle", iter);
    if (c) {
      ok++;
      ssw_grid_validate(c);
    }
    ssw_config_destroy(&c);
  }
  EXPECT(ok > 100, "only %d mutated configs parsed", ok);
}

/* Compares the configs of two texts: 0 or 1, and `why` when 1; also checks
 * that the canonical texts agree with the comparison. */
static int compare_texts(const char *a, const char *b, char *why, size_t n) {
  ssw_config *ca = parse_ok(a, "a.ini"), *cb = parse_ok(b, "b.ini");
  if (!ca || !cb) return ssw_config_destroy(&ca), ssw_config_destroy(&cb), -1;
  const int differ = ssw_config_compare(ca, cb, why, n);
  char *ta = NULL, *tb = NULL, diff[512];
  EXPECT(ssw_config_canonical(ca, &ta) == SSW_SUCCESS &&
             ssw_config_canonical(cb, &tb) == SSW_SUCCESS,
         "canonical: %s", ssw_error_message());
  if (ta && tb) {
    EXPECT((strcmp(ta, tb) != 0) == differ, "canonical texts %s:\n%s---\n%s",
           differ ? "equal, configs differ" : "differ, configs equal", ta, tb);
    const int d =
        ssw_config_canonical_diff(ta, tb, "in A", "in B", diff, sizeof diff);
    EXPECT(d == differ, "canonical diff %d: %s", d, diff);
    /* the same key named from the texts as from the configs */
    EXPECT(!d || strncmp(diff, why, strcspn(why, ":")) == 0,
           "canonical diff names '%s', compare '%s'", diff, why);
  }
  free(ta);
  free(tb);
  ssw_config_destroy(&ca);
  ssw_config_destroy(&cb);
  return differ;
}

/* A resume compares meaning: comments, blank space,
 * order, number spelling, defaults written out, the output path and the
 * run's pacing may change; any value may not, and the first differing key
 * in table order is named with both values. */
static void test_compare(void) {
  char why[1024];
  static const char same[] =
      "; the same sweep, written differently\n"
      "[grid]\nB = 0.30\nA   =   0.5   ; semi-axis\ntheta = linspace(0deg, 180 "
      "deg, "
      "37)\na = 0.2, 5e-1\nb = 0\n\n"
      "[body]\nrho = 1.0\nI0 = 0.5\nm = 1\nadded_inertia = 0.25\n"
      "# another comment\n[ensemble]\nseed = 1\ntrajectories = 100\n"
      "energy = 0.5\n[output]\nfile = elsewhere/other.h5\nflush_interval = 5\n"
      "[run]\nprogress_interval = 1\nwork_unit = 3\n";
  EXPECT(compare_texts(ISSUE_EXAMPLE, same, why, sizeof why) == 0,
         "same meaning refused: %s", why);
  static const struct {
    const char *from, *to, *why;
  } changes[] = {
      {"m = 1\n", "m = 2\n",
       "[body] m: 1 in the file, 2 in the config "
       "(line 2: m = 2)"},
      {"seed = 1\n", "seed = 2\n",
       "[ensemble] seed: 1 in the file, 2 in the "
       "config (line 15: seed = 2)"},
      {"a = 0.2, 0.5\n", "a = 0.2, 0.50000000000000011\n",
       "[grid] a: 0.2, 0.5 in the file, 0.2, 0.5000000000000001 in the "
       "config (line 7: a = 0.2, 0.50000000000000011)"},
      {"180deg, 37)", "180deg, 38)",
       "[grid] theta: 37 values from 0 to "
       "3.141592653589793 (checksum "},
      {"[output]\n", "[integrator]\ntail = false\n[output]\n",
       "[integrator] tail: true in the file, false in the config (line 17: "
       "tail = false)"},
      {"[output]\n", "[output]\nsamples = 2\n",
       "[output] samples: 0 in the file, 2 in the config"},
      {"[output]\n", "[body]\nlength_unit = m\n[output]\n",
       "[body] length_unit:  in the file, m in the config"},
  };
  for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
    char text[1024];
    const char *at = strstr(ISSUE_EXAMPLE, changes[i].from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - ISSUE_EXAMPLE),
             ISSUE_EXAMPLE, changes[i].to, at + strlen(changes[i].from));
    EXPECT(compare_texts(ISSUE_EXAMPLE, text, why, sizeof why) == 1 &&
               strncmp(why, changes[i].why, strlen(changes[i].why)) == 0,
           "change %zu: got '%s', want '%s'", i, why, changes[i].why);
  }
  /* Two changes: the first key in table order is named. */
  char text[1024];
  snprintf(text, sizeof text, "%s", ISSUE_EXAMPLE);
  strstr(text, "seed = 1")[7] = '9';
  strstr(text, "rho = 1")[6] = '3';
  EXPECT(compare_texts(ISSUE_EXAMPLE, text, why, sizeof why) == 1 &&
             strncmp(why, "[body] rho: 1 in the file, 3", 28) == 0,
         "two changes: %s", why);
}

/* Writes `text` to `path`. */
static void put_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  EXPECT(f, "cannot write %s", path);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* The output path of a config loaded as `path` from directory `cwd`. */
static char *output_of(const char *cwd, const char *path) {
  ssw_config *c = NULL;
  EXPECT(chdir(cwd) == 0, "chdir %s", cwd);
  const int rc = ssw_config_load(path, &c);
  EXPECT(rc == SSW_SUCCESS, "load %s from %s: %s", path, cwd,
         ssw_error_message());
  char *file = c ? strdup(c->file) : NULL;
  ssw_config_destroy(&c);
  return file;
}

/* One rule for a relative [output] file: relative to the
 * config's directory, stored absolute, whichever directory the command
 * runs from; a symlinked directory resolves to the same file; parsing the
 * text under the config's name (as ranks do) gives the same. */
static void test_output_paths(void) {
  char top[] = "/tmp/test_config_paths.XXXXXX", cwd[PATH_MAX], sub[PATH_MAX],
       path[2 * PATH_MAX], want[2 * PATH_MAX], real[PATH_MAX];
  EXPECT(getcwd(cwd, sizeof cwd) && mkdtemp(top), "mkdtemp");
  snprintf(sub, sizeof sub, "%s/sub", top);
  snprintf(path, sizeof path, "%s/out", sub);
  EXPECT(mkdir(sub, 0755) == 0 && mkdir(path, 0755) == 0, "mkdir");
  snprintf(path, sizeof path, "%s/x.ini", sub);
  put_file(path, BODY GRID "[output]\nfile = out/r.h5\n");
  snprintf(path, sizeof path, "%s/y.ini", sub);
  put_file(path, BODY GRID);
  snprintf(path, sizeof path, "%s/link", top);
  EXPECT(symlink("sub", path) == 0, "symlink");
  EXPECT(realpath(sub, real) != NULL, "realpath");
  snprintf(want, sizeof want, "%s/out/r.h5", real);
  const char *const from[][2] = {{top, "sub/x.ini"},
                                 {sub, "x.ini"},
                                 {sub, "./../sub/x.ini"},
                                 {"/", "(absolute)"},
                                 {top, "link/x.ini"}};
  char abs_link[3 * PATH_MAX];
  snprintf(abs_link, sizeof abs_link, "%s/x.ini", path);
  for (size_t i = 0; i < sizeof from / sizeof from[0]; i++) {
    const char *p = i == 3 ? abs_link + 1 : from[i][1];
    char *file = output_of(from[i][0], p);
    EXPECT(file && strcmp(file, want) == 0,
           "run %s from %s: output %s, want %s", p, from[i][0],
           file ? file : "", want);
    free(file);
  }
  /* The default is next to the config too. */
  snprintf(want, sizeof want, "%s/y.h5", real);
  char *file = output_of(top, "sub/y.ini");
  EXPECT(file && strcmp(file, want) == 0, "default output %s", file);
  free(file);
  /* Ranks parse the broadcast text under the same name: the same file. */
  ssw_config *c = NULL;
  EXPECT(chdir(top) == 0, "chdir");
  EXPECT(ssw_config_parse(BODY GRID "[output]\nfile = out/r.h5\n", "sub/x.ini",
                          &c) == SSW_SUCCESS,
         "parse: %s", ssw_error_message());
  snprintf(want, sizeof want, "%s/out/r.h5", real);
  EXPECT(c && strcmp(c->file, want) == 0, "parsed: %s", c ? c->file : "");
  ssw_config_destroy(&c);
  /* An absolute path stays as written when its directory does not exist;
   * a missing relative directory is joined lexically. */
  EXPECT(ssw_config_parse(BODY GRID "[output]\nfile = /no/such/dir/r.h5\n",
                          "sub/x.ini", &c) == SSW_SUCCESS &&
             strcmp(c->file, "/no/such/dir/r.h5") == 0,
         "absolute: %s", c ? c->file : "");
  ssw_config_destroy(&c);
  EXPECT(ssw_config_parse(BODY GRID "[output]\nfile = new/r.h5\n", "sub/x.ini",
                          &c) == SSW_SUCCESS &&
             is_at(c->file, NULL, "sub/new/r.h5"),
         "missing directory: %s", c ? c->file : "");
  ssw_config_destroy(&c);
  EXPECT(chdir(cwd) == 0, "chdir back");
  const char *const junk[] = {"sub/x.ini", "sub/y.ini", "link"};
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", top, junk[i]);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/out", sub);
  rmdir(path);
  rmdir(sub);
  rmdir(top);
}

/* Gamma and energy as grid axes: their values at every point, the file's
 * dimensions, and the same config in both spellings when single-valued. */
static void test_run_axes(void) {
  ssw_config *c = parse_ok(BODY GRID "r = 0.1\nGamma = linspace(-2, 2, 5)\n"
                                     "energy = 0.25, 4\n",
                           "run_axes.ini");
  if (!c) return;
  EXPECT(ssw_grid_size(c->axes) == 10, "grid size %llu",
         (unsigned long long)ssw_grid_size(c->axes));
  int axis[SSW_NAXES];
  /* The body's axes, then the two swept run axes. */
  const int nb = SSW_NBODY_AXES;
  EXPECT(ssw_config_file_axes(c, axis) == nb + 2 &&
             axis[nb] == SSW_AXIS_GAMMA && axis[nb + 1] == SSW_AXIS_ENERGY,
         "file axes");
  for (uint64_t i = 0; i < 10; i++) {
    ssw_grid_values v;
    ssw_grid_values_at(c->axes, i, &v);
    /* Row-major, energy fastest: index = 2 * Gamma index + energy index. */
    EXPECT(v.Gamma == -2.0 + (double)(i / 2) && v.energy == (i % 2 ? 4 : 0.25),
           "point %llu: Gamma %g energy %g", (unsigned long long)i, v.Gamma,
           v.energy);
    EXPECT(v.body.r == 0.1 && v.body.A == 0.5, "point %llu body",
           (unsigned long long)i);
  }
  ssw_config_destroy(&c);
  /* One value: no dimension, and the same config as the scalar keys. */
  ssw_config *g = parse_ok(BODY GRID "Gamma = 1.5\nenergy = 2\n", "one.ini");
  ssw_config *b = parse_ok(BODY "Gamma = 1.5\n" GRID "[ensemble]\nenergy = 2\n",
                           "scalar.ini");
  if (g && b) {
    char why[256];
    EXPECT(ssw_config_file_axes(g, axis) == SSW_NBODY_AXES,
           "one value is no dimension");
    EXPECT(ssw_config_compare(g, b, why, sizeof why) == 0,
           "both spellings differ: %s", why);
    EXPECT(g->body.Gamma == 1.5 && g->energy == 2.0, "scalars %g %g",
           g->body.Gamma, g->energy);
    EXPECT(b->axes[SSW_AXIS_GAMMA].n == 1 &&
               b->axes[SSW_AXIS_GAMMA].values[0] == 1.5 &&
               b->axes[SSW_AXIS_ENERGY].values[0] == 2.0,
           "scalar keys as axes");
  }
  ssw_config_destroy(&g);
  ssw_config_destroy(&b);
  /* logspace: whole decades exact, both ends exact, evenly spaced logs. */
  ssw_config *l = parse_ok(BODY GRID "energy = logspace(0.01, 100, 5)\n"
                                     "Gamma = logspace(0.3, 7, 13)\n",
                           "logspace.ini");
  if (l) {
    const ssw_axis *en = &l->axes[SSW_AXIS_ENERGY];
    const ssw_axis *ga = &l->axes[SSW_AXIS_GAMMA];
    const double decades[5] = {0.01, 0.1, 1, 10, 100};
    EXPECT(en->n == 5 && memcmp(en->values, decades, sizeof decades) == 0,
           "logspace(0.01, 100, 5): %g %g %g %g %g", en->values[0],
           en->values[1], en->values[2], en->values[3], en->values[4]);
    EXPECT(ga->n == 13 && ga->values[0] == 0.3 && ga->values[12] == 7.0,
           "logspace ends");
    /* Equal ratios to 4 ulp: log10 of each ratio is (log10 7/0.3) / 12. */
    for (int i = 1; i < ga->n; i++)
      EXPECT(fabs(log10(ga->values[i] / ga->values[i - 1]) -
                  log10(7.0 / 0.3) / 12) <= 1e-14,
             "logspace ratio %d", i);
  }
  ssw_config_destroy(&l);
  /* The energy axis at the ends of its accepted range. */
  ssw_config *e = parse_ok(BODY GRID "energy = 1e-200, 1e200\n", "ends.ini");
  if (e)
    EXPECT(e->axes[SSW_AXIS_ENERGY].values[0] == SSW_ENERGY_MIN &&
               e->axes[SSW_AXIS_ENERGY].values[1] == SSW_ENERGY_MAX,
           "energy ends");
  ssw_config_destroy(&e);
}

int main(void) {
  test_run_axes();
  test_issue_example();
  test_defaults();
  test_units_and_syntax();
  test_bad_configs();
  test_files();
  test_examples();
  test_mutations();
  test_compare();
  test_output_paths();
  return TEST_RESULT();
}
