/* Every config key has the effect its documentation promises (a
 * sweep's [integrator] rtol was parsed, stored and then ignored). One
 * declaration per key of the key table (src/config/config_keys.c): a value
 * other than the default, whether a resume with it is refused, the promise in
 * words and the checks that test_key_effects.py makes on the output of a
 * tiny sweep run with it. A key without a declaration, or a declaration of
 * no key, fails this test, so a new key cannot go untested.
 *
 * Without arguments: the declarations cover the table, ssw_config_compare
 * refuses (naming the key) exactly the values declared refused, and a
 * default written out means the same as the default left out. With
 * --write DIR it also writes, whatever those checks found, DIR/base.ini,
 * one DIR/kNN_SECTION_NAME.ini per declaration (the base with that one
 * value changed) and DIR/effects.tsv describing them, for
 * test_key_effects.py to run. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "test_util.h"

/* Two grid points: theta = 90deg has Z = 0 only to within zero_tol; one
 * sample trajectory per point, so that the [output] sample keys show. */
static const char base[] = "; test_key_effects: the sweep every case changes\n"
                           "[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
                           "[grid]\ntheta = 30deg, 90deg\na = 0.2\n"
                           "A = 0.5\nB = 0.3\n"
                           "[ensemble]\ntrajectories = 2\n"
                           "[output]\nsamples = 1\n";

/* Checks (test_key_effects.py): DS the dataset differs from the base's
 * (GROUP/: some dataset of the group does), DS< / DS> every value is below
 * / above the base's, DS=nan every value is NaN; @ATTR the root attribute
 * differs, @ATTR=V it is V; DS@ATTR the dataset's attribute differs; only:
 * every dataset not named (nor in a group named) is the same bytes as the
 * base's; at=FILE: the output is FILE in the case directory. */
typedef struct {
  const char *section, *name;
  const char *value;  /* the value tried: not the base's (nor the default) */
  const char *resume; /* "refused": a resume compares it and a refusal
                         names it ("refused: KEY": names KEY first);
                         "accepted": it may change between runs of one
                         output */
  const char *effect; /* the promise (docs/config.md) */
  const char *checks; /* what shows it */
} declared;

#define RESULTS "changes results"
#define SAME_RESULTS "results unchanged: "
/* clang-format off */
static const declared effects[] = {
  {"body", "m", "2", "refused", RESULTS " (inertia tensor)",
   "@m=2 J M L1 center_spacing"},
  {"body", "I0", "0.3", "refused", RESULTS " (inertia tensor)",
   "@I0=0.3 J center_spacing"},
  {"body", "rho", "0.5", "refused", RESULTS " (added inertia of the fluid)",
   "@rho=0.5 J M N center_spacing"},
  {"body", "added_inertia", "lamb", "refused", RESULTS " (J's added part)",
   "@k_rot=0.125 @k_rot_convention=lamb J center_spacing"},
  /* The base is Model I (r = 0): kappa = rho Gamma r = 0, so the motion
   * is unchanged and only the blade force feels the lift (whose closed
   * form then has no twin). */
  {"body", "Gamma", "0.5", "refused",
   "Model I: only the blade force changes (lift rho Gamma Jccw V_C)",
   "@Gamma=0.5 blade_force_max blade_force_error analytic_blade_force_max=nan "
   "only"},
  /* Drag brings every trajectory to rest: no limit circles, so the
   * asymptotic datasets and their twins are NaN, and the forward-only
   * integration takes other step counts. */
  /* drag_w alone: C is singular (det C + kappa^2 = 0), the approach to
   * rest is algebraic and the extraction stops at the step cap. */
  {"body", "drag_w", "0.1", "refused",
   RESULTS " (damped: no limit circles; with drag_w alone the approach to "
   "rest is algebraic and no trajectory converges)",
   "@drag_w=0.1 center_spacing=nan analytic_center_spacing=nan steps_mean "
   "converged_fraction<"},
  {"body", "drag_v", "0.1", "refused",
   RESULTS " (damped: no limit circles; alone, as drag_w alone)",
   "@drag_v=0.1 center_spacing=nan analytic_center_spacing=nan steps_mean "
   "converged_fraction<"},
  {"body", "drag_wv", "0", "accepted",
   "the default written out (a nonzero value needs drag_w and drag_v: "
   "test_drag checks its effect on the motion)",
   "@drag_wv=0 only"},
  {"body", "forcing_freq", "2", "refused",
   SAME_RESULTS "no torque without torque_amp (test_forced measures the "
   "forced motion in `point`)", "@forcing_freq=2 only"},
  {"body", "torque_amp", "0", "accepted",
   "the default written out (a nonzero value needs forcing_freq > 0: "
   "test_forced_cli checks the forced `point`)", "@torque_amp=0 only"},
  {"body", "forcing_phase", "0.5", "refused",
   SAME_RESULTS "no torque without torque_amp (test_forced_cli: the "
   "phase moves the cycle's stroboscopic point)", "@forcing_phase=0.5 only"},
  {"body", "forcing_shape", "kicks", "refused",
   SAME_RESULTS "no torque without torque_amp (test_forced: the kicks' "
   "cycle)", "@forcing_shape=kicks only"},
  {"body", "mass_p", "0", "accepted",
   "the default written out (a nonzero value needs forcing_freq > 0: "
   "test_mass_cli checks `point`, test_forced_sweep a sweep)",
   "@mass_p=0 only"},
  {"body", "mass_x", "0.3", "refused",
   SAME_RESULTS "no moving mass without mass_p (test_mass_cli: it sets the "
   "mass's equivalent torque mass_p mass_x a Omega^2)", "@mass_x=0.3 only"},
  {"body", "mass_y", "0.2", "refused",
   SAME_RESULTS "no moving mass without mass_p (test_mass_cli: it moves "
   "K(t)'s mean)", "@mass_y=0.2 only"},
  {"body", "mass_amp", "0.1", "refused",
   SAME_RESULTS "no moving mass without mass_p (test_mass_cli: the cycle "
   "grows with it)", "@mass_amp=0.1 only"},
  {"body", "zero_tol", "0", "refused",
   RESULTS " (regime of points with L1 or Z zero to round-off)",
   "@zero_tol=0 Z regime"},
  {"body", "length_unit", "m", "refused",
   "changes units attributes only (counted on resume: they say what the "
   "numbers are)", "@length_unit=m center_spacing@units only"},
  {"body", "mass_unit", "kg", "refused",
   "changes units attributes only (counted on resume)",
   "@mass_unit=kg J@units only"},
  {"grid", "theta", "30deg, 80deg", "refused", RESULTS " (grid coordinates)",
   "theta Z center_spacing"},
  {"grid", "a", "0.3", "refused", RESULTS " (grid coordinates)",
   "a L1 center_spacing"},
  {"grid", "b", "0.1", "refused", RESULTS " (grid coordinates)",
   "b L2 center_spacing"},
  {"grid", "r", "0.05", "refused", RESULTS " (grid coordinates)",
   "r J center_spacing"},
  {"grid", "s", "0.05", "refused", RESULTS " (grid coordinates)",
   "s J center_spacing"},
  {"grid", "A", "0.6", "refused", RESULTS " (grid coordinates)",
   "A M center_spacing"},
  {"grid", "B", "0.25", "refused", RESULTS " (grid coordinates)",
   "B M center_spacing"},
  {"ensemble", "trajectories", "3", "refused", RESULTS " (ensemble size)",
   "@trajectories=3 trajectories center_spacing"},
  /* One value under [grid] is the scalar key's run (a sweep of several:
   * test_run_axes.py); a resume names the scalar key, which holds it. */
  {"grid", "Gamma", "0.5", "refused: [body] Gamma",
   "as [body] Gamma = 0.5 (Model I: only the blade force changes)",
   "@Gamma=0.5 blade_force_max blade_force_error analytic_blade_force_max=nan "
   "only"},
  {"grid", "energy", "2", "refused: [ensemble] energy",
   "as [ensemble] energy = 2 (" SAME_RESULTS "the sample trajectories' times "
   "and velocities scale with it)",
   "@energy=2 samples/t samples/omega samples/v samples/H only"},
  /* Drag's axes: one value is its [body] key's run (whose effects are
   * declared above: each costs the step cap here), several are swept and
   * checked point by point against those runs in test_run_axes.py. */
  {"grid", "drag_w", "0", "accepted",
   "as [body] drag_w = 0, the default; a sweep: test_run_axes.py",
   "@drag_w=0 only"},
  {"grid", "drag_v", "0", "accepted",
   "as [body] drag_v = 0, the default; a sweep: test_run_axes.py",
   "@drag_v=0 only"},
  {"grid", "drag_wv", "0", "accepted",
   "as [body] drag_wv = 0, the default; a sweep: test_run_axes.py",
   "@drag_wv=0 only"},
  /* The forcing's axes: one value is its [body] key's run (without
   * torque_amp no torque); a swept, forced run: test_forced_sweep.py. */
  {"grid", "forcing_freq", "2", "refused: [body] forcing_freq",
   "as [body] forcing_freq = 2 (" SAME_RESULTS "no torque without "
   "torque_amp)", "@forcing_freq=2 only"},
  {"grid", "torque_amp", "0", "accepted",
   "as [body] torque_amp = 0, the default; a sweep: test_forced_sweep.py",
   "@torque_amp=0 only"},
  {"grid", "forcing_phase", "0.5", "refused: [body] forcing_phase",
   "as [body] forcing_phase = 0.5 (" SAME_RESULTS "no torque without "
   "torque_amp)", "@forcing_phase=0.5 only"},
  /* The moving mass's axes: as the torque's (without mass_p no mass); a
   * swept mass: test_forced_sweep.py. */
  {"grid", "mass_p", "0", "accepted",
   "as [body] mass_p = 0, the default; a sweep: test_forced_sweep.py",
   "@mass_p=0 only"},
  {"grid", "mass_x", "0.3", "refused: [body] mass_x",
   "as [body] mass_x = 0.3 (" SAME_RESULTS "no moving mass without mass_p)",
   "@mass_x=0.3 only"},
  {"grid", "mass_y", "0.2", "refused: [body] mass_y",
   "as [body] mass_y = 0.2 (" SAME_RESULTS "no moving mass without mass_p)",
   "@mass_y=0.2 only"},
  {"grid", "mass_amp", "0.1", "refused: [body] mass_amp",
   "as [body] mass_amp = 0.1 (" SAME_RESULTS "no moving mass without "
   "mass_p)", "@mass_amp=0.1 only"},
  {"ensemble", "seed", "2", "refused", RESULTS " (random initial states)",
   "@seed=2 center_spacing steps_mean"},
  {"ensemble", "attractor_slots", "2", "refused",
   SAME_RESULTS "the census keeps 2 attractor slots per point (file "
   "layout; a census: test_census_sweep.py)",
   "@attractor_slots=2 attractor_slot attractor_class "
   "attractor_cycle_periods attractor_fraction attractor_mean_omega "
   "attractor_mean_v attractor_lyapunov_1 attractor_lyapunov_2 only"},
  {"ensemble", "initial", "lattice", "refused",
   RESULTS " (initial states)",
   "@initial_conditions=lattice center_spacing"},
  {"ensemble", "energy", "2", "refused",
   SAME_RESULTS "asymptotic quantities do not depend on the energy; the "
   "sample trajectories' times and velocities scale with it",
   "@energy=2 samples/t samples/omega samples/v samples/H only"},
  {"integrator", "scheme", "hamel4", "refused", RESULTS " (the method)",
   "@scheme=hamel4 steps_mean center_spacing"},
  {"integrator", "reconstruction", "midpoint", "refused",
   RESULTS " (path, hence centres)",
   "@reconstruction=midpoint center_spacing samples/x"},
  {"integrator", "rtol", "1e-6", "refused",
   "changes the rtol attribute and step counts: a looser rtol takes "
   "fewer steps, with larger error estimates",
   "@step_control=adaptive @rtol=1e-6 @tol=1e-4 steps_mean< "
   "center_spacing_error>"},
  {"integrator", "rtol", "1e-12", "refused",
   "changes the rtol attribute and step counts: a tighter rtol takes "
   "more steps",
   "@rtol=1e-12 @tol=1e-7 steps_mean> center_spacing_error<"},
  {"integrator", "rtol", "1e-10", "accepted",
   "the default written out means the default (compared by the rtol in "
   "use)", "@rtol=1e-10 only"},
  /* The first difference in key order: the rtol in use, 1e-10 and 0. */
  {"integrator", "eta", "0.5", "refused: [integrator] rtol",
   "fixed steps instead of rtol: step_control fixed, rtol attribute 0, "
   "other step counts",
   "@step_control=fixed @eta=0.5 @rtol=0 @tol=1e-5 steps_mean"},
  {"integrator", "tol", "1e-3", "refused",
   RESULTS " (the stopping point; a looser tol leaves a larger tail "
   "error, which reruns then refine)", "@tol=1e-3 steps_mean center_spacing"},
  {"integrator", "max_steps", "100", "refused",
   RESULTS " (a trajectory reaching the cap is not converged)",
   "@max_steps=100 converged_fraction< flags"},
  {"integrator", "tail", "false", "refused",
   RESULTS " (no exponential tail at the ends)", "@tail=0 radius_future"},
  {"integrator", "error_estimate", "false", "refused",
   "no second run: the *_error datasets are NaN, fewer steps",
   "@error_estimate=0 center_spacing_error=nan transition_angle_error=nan "
   "radius_error=nan t0_error=nan blade_force_error=nan steps_mean<"},
  {"output", "file", "renamed.h5", "accepted",
   "changes the output path only: identical datasets",
   "at=renamed.h5 only"},
  {"output", "samples", "2", "refused",
   SAME_RESULTS "more sample trajectories per point (file layout)",
   "@samples=2 samples/ only"},
  {"output", "sample_nodes", "64", "refused",
   SAME_RESULTS "fewer rows per sample trajectory (file layout)",
   "@sample_nodes=64 samples/ only"},
  {"output", "sample_points", "theta = 30deg", "refused",
   SAME_RESULTS "samples at the chosen points only (file layout)",
   "samples/point samples/ only"},
  {"output", "flush_interval", "0.01", "accepted",
   "changes durability timing only: not result-affecting", "only"},
  /* The base's two grid points have indices 0 and 1: every 2nd point
   * keeps point 0's comparison and drops point 1's. */
  {"output", "exact_path_every", "0", "refused",
   "no exact-path comparison: path_error_max NaN at every point, every "
   "other dataset the same", "path_error_max=nan only"},
  {"output", "exact_path_every", "2", "refused",
   "the comparison at every 2nd grid point (index 0 here), NaN at the "
   "others", "path_error_max only"},
  {"run", "work_unit", "1", "accepted",
   "changes the schedule only: not result-affecting", "only"},
  {"run", "progress_interval", "0.01", "accepted",
   "changes progress reporting only: not result-affecting", "only"},
  /* Z > 0 at 30deg, Z = 0 (snapped) at 90deg: one crossing, at 90deg. */
  {"refine", "classes", "regime", "refused",
   "adds /boundaries, the crossings of Z = 0 and L1 = 0 between grid "
   "points; the grid's datasets unchanged", "boundaries/ only"},
  {"refine", "tol", "1e-3", "refused",
   "nothing without [refine] classes (the base has none); with them the "
   "width every crossing's bracket reaches (test_refine)", "only"},
  {"refine", "max_evals", "5", "refused",
   "nothing without [refine] classes (the base has none); with them the "
   "evaluations a crossing may spend (test_refine)", "only"},
  {"refine", "trajectories", "2", "refused",
   "nothing without [refine] classes (the base has none); with them the "
   "trajectories an evaluation integrates (test_refine)", "only"},
  {"refine", "points", "yes", "refused",
   "nothing without [refine] classes (the base has none); with them every "
   "crossing's full measurements (test_refine_points)", "only"},
};
/* clang-format on */
#define NEFFECTS (sizeof effects / sizeof effects[0])

/* The base with [section] name = value: its line replaced when the base
 * sets the key (returns 1), else a section of its own appended (0). */
static int variant(const char *section, const char *name, const char *value,
                   char *out, size_t n) {
  char cur[32] = "";
  size_t used = 0;
  int done = 0;
  for (const char *p = base; *p;) {
    const size_t len = strcspn(p, "\n");
    const size_t key = strcspn(p, " =");
    if (*p == '[')
      snprintf(cur, sizeof cur, "%.*s", (int)strcspn(p + 1, "]"), p + 1);
    if (!done && strcmp(cur, section) == 0 && key == strlen(name) &&
        strncmp(p, name, key) == 0) {
      used += (size_t)snprintf(out + used, n - used, "%s = %s\n", name, value);
      done = 1;
    } else {
      used += (size_t)snprintf(out + used, n - used, "%.*s\n", (int)len, p);
    }
    p += len + (p[len] == '\n');
  }
  if (!done)
    snprintf(out + used, n - used, "[%s]\n%s = %s\n", section, name, value);
  return done;
}

static ssw_config *parse(const char *text, const char *what) {
  ssw_config *c = NULL;
  EXPECT(ssw_config_parse(text, "key_effects.ini", &c) == SSW_SUCCESS,
         "%s does not parse: %s", what, ssw_error_message());
  return c;
}

/* Every key has a declaration, and every declaration is of a key. */
static void check_coverage(void) {
  for (int k = 0; k < SSW_CFG_NKEYS; k++) {
    int n = 0;
    for (size_t i = 0; i < NEFFECTS; i++)
      n += strcmp(effects[i].section, ssw_cfg_keys[k].section) == 0 &&
           strcmp(effects[i].name, ssw_cfg_keys[k].name) == 0;
    EXPECT(n > 0,
           "[%s] %s has no declared effect: add what docs/config.md "
           "promises it does to effects[] in tests/test_key_effects.c",
           ssw_cfg_keys[k].section, ssw_cfg_keys[k].name);
  }
  for (size_t i = 0; i < NEFFECTS; i++)
    EXPECT(ssw_cfg_find_key(effects[i].section, effects[i].name) >= 0,
           "effects[] declares [%s] %s, which is not a config key",
           effects[i].section, effects[i].name);
}

/* The key a refusal of e names, "[section] name" (NULL: accepted). */
static const char *refusal(const declared *e, char *buf, size_t n) {
  if (strcmp(e->resume, "accepted") == 0) return NULL;
  const char *names = strchr(e->resume, ':');
  if (names)
    snprintf(buf, n, "%s", names + 2);
  else
    snprintf(buf, n, "[%s] %s", e->section, e->name);
  return buf;
}

/* A resume refuses exactly the values declared refused, naming the key. */
static void check_compare(const ssw_config *b) {
  for (size_t i = 0; i < NEFFECTS; i++) {
    const declared *e = &effects[i];
    char text[2048], why[2600], what[128], key[80];
    variant(e->section, e->name, e->value, text, sizeof text);
    snprintf(what, sizeof what, "[%s] %s = %s", e->section, e->name, e->value);
    ssw_config *c = parse(text, what);
    if (!c) continue;
    const int differ = ssw_config_compare(b, c, why, sizeof why);
    if (refusal(e, key, sizeof key))
      EXPECT(differ && strncmp(why, key, strlen(key)) == 0 &&
                 why[strlen(key)] == ':',
             "%s: a resume must refuse it naming %s (%s); it %s%s", what, key,
             e->effect, differ ? "names another: " : "accepts it", why);
    else
      EXPECT(!differ, "%s: a resume must accept it (%s); it refuses: %s", what,
             e->effect, why);
    ssw_config_destroy(&c);
  }
}

/* A default written out means what the default left out does (keys the
 * base leaves out). */
static void check_defaults(const ssw_config *b) {
  for (int k = 0; k < SSW_CFG_NKEYS; k++) {
    const key_spec *s = &ssw_cfg_keys[k];
    if (s->def == REQUIRED || !*s->def) continue;
    char text[2048], why[2600], what[128];
    if (variant(s->section, s->name, s->def, text, sizeof text)) continue;
    snprintf(what, sizeof what, "[%s] %s = %s", s->section, s->name, s->def);
    ssw_config *c = parse(text, what);
    EXPECT(c && ssw_config_compare(b, c, why, sizeof why) == 0,
           "%s (the default, written out) differs from the default: %s", what,
           why);
    ssw_config_destroy(&c);
  }
}

static int put_file(const char *dir, const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  const int ok = f && fputs(text, f) >= 0;
  EXPECT(ok && fclose(f) == 0, "cannot write %s", path);
  return ok;
}

/* base.ini, one config per declaration and effects.tsv: file, section,
 * name, value, refused|accepted, the key a refusal names, checks, effect
 * (one line each). */
static void write_cases(const char *dir) {
  put_file(dir, "base.ini", base);
  char tsv[16384];
  size_t used = 0;
  for (size_t i = 0; i < NEFFECTS; i++) {
    const declared *e = &effects[i];
    char name[96], text[2048], key[80];
    snprintf(name, sizeof name, "k%02zu_%s_%s.ini", i, e->section, e->name);
    variant(e->section, e->name, e->value, text, sizeof text);
    put_file(dir, name, text);
    used += (size_t)snprintf(
        tsv + used, sizeof tsv - used, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name,
        e->section, e->name, e->value,
        refusal(e, key, sizeof key) ? "refused" : "accepted",
        refusal(e, key, sizeof key) ? key : "-", e->checks, e->effect);
  }
  EXPECT(used < sizeof tsv, "effects.tsv is longer than %zu bytes", sizeof tsv);
  put_file(dir, "effects.tsv", tsv);
}

/* Every grid axis of names.h is a [grid] key of its name that fills that
 * axis, and every run axis has its scalar key in its section, stored where
 * the axis's `home` says (the config's run axes rely on both). */
#define RUN_HOME_(id, index, name, units, long_name, field, section, home)     \
  {index, section, offsetof(ssw_config, home)},
static void check_axis_keys(void) {
  for (int a = 0; a < SSW_NAXES; a++) {
    const int k = ssw_cfg_find_key("grid", ssw_axis_names[a]);
    EXPECT(k >= 0 && ssw_cfg_keys[k].kind == K_AXIS &&
               ssw_cfg_keys[k].offset == (size_t)a,
           "axis %s: no [grid] key of that name that fills it",
           ssw_axis_names[a]);
  }
  static const struct {
    int axis;
    const char *section;
    size_t offset;
  } run[] = {SSW_RUN_AXES(RUN_HOME_)};
  for (size_t i = 0; i < sizeof run / sizeof run[0]; i++) {
    const int k = ssw_cfg_find_key(run[i].section, ssw_axis_names[run[i].axis]);
    EXPECT(k >= 0 && ssw_cfg_keys[k].kind == K_REAL &&
               ssw_cfg_keys[k].offset == run[i].offset,
           "run axis %s: no real [%s] %s stored at its home",
           ssw_axis_names[run[i].axis], run[i].section,
           ssw_axis_names[run[i].axis]);
  }
}

int main(int argc, char **argv) {
  check_axis_keys();
  check_coverage();
  ssw_config *b = parse(base, "the base config");
  if (b) {
    check_compare(b);
    check_defaults(b);
  }
  ssw_config_destroy(&b);
  if (argc == 3 && strcmp(argv[1], "--write") == 0)
    write_cases(argv[2]);
  else if (argc != 1)
    EXPECT(argc == 3 && strcmp(argv[1], "--write") == 0,
           "usage: %s [--write DIR]", argv[0]);
  return TEST_RESULT();
}
