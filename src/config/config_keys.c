/* The config's key table: every key, its section, default, kind and range
 * (docs/config.md lists the same keys in the same order). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "sleighsweep/config.h"

const char *const ssw_ic_names[SSW_IC_COUNT] = {SSW_ICS(SSW_NAME_AT)};

#define STR(x) #x
#define XSTR(x) STR(x)
#define F(field) offsetof(ssw_config, field)
#define INF HUGE_VAL
/* clang-format off */
const key_spec ssw_cfg_keys[SSW_CFG_NKEYS] = {
  {"body", "m", REQUIRED, K_REAL, F(body.m), 0, INF, 1, "body mass"},
  {"body", "I0", REQUIRED, K_REAL, F(body.I0), 0, INF, 0,
   "body moment of inertia about its centre of mass"},
  {"body", "rho", REQUIRED, K_REAL, F(body.rho), 0, INF, 0,
   "fluid density (0: the classical sleigh)"},
  {"body", "added_inertia", "papers", K_KROT, F(body.k_rot), 0, INF, 0,
   "rotational added-inertia constant k_rot"},
  {"body", "Gamma", "0", K_REAL, F(body.Gamma), -INF, INF, 0,
   "circulation about the ellipse, counter-clockwise positive"},
  {"body", "drag_w", "0", K_REAL, F(body.drag_w), 0, INF, 0,
   "linear drag on the rotation (torque per unit angular velocity)"},
  {"body", "drag_v", "0", K_REAL, F(body.drag_v), 0, INF, 0,
   "linear drag along the blade (force per unit speed)"},
  {"body", "drag_wv", "0", K_REAL, F(body.drag_wv), -INF, INF, 0,
   "linear drag coupling rotation and speed along the blade"},
  {"body", "forcing_freq", "0", K_REAL, F(body.forcing_freq), 0, INF, 0,
   "angular frequency Omega of the periodic torque"},
  {"body", "torque_amp", "0", K_REAL, F(body.torque_amp), -INF, INF, 0,
   "amplitude of the periodic torque about the contact point (0: off)"},
  {"body", "forcing_phase", "0", K_REAL, F(body.forcing_phase), -INF, INF, 0,
   "phase of the sine torque (rad)"},
  {"body", "forcing_shape", "sine", K_SHAPE, F(body.forcing_shape), 0, 0, 0,
   "shape of the periodic torque"},
  {"body", "mass_p", "0", K_REAL, F(body.mass_p), 0, INF, 0,
   "moving internal point mass (0: off)"},
  {"body", "mass_x", "0", K_REAL, F(body.mass_x), -INF, INF, 0,
   "moving mass's position along the blade"},
  {"body", "mass_y", "0", K_REAL, F(body.mass_y), -INF, INF, 0,
   "moving mass's mean position across the blade"},
  {"body", "mass_amp", "0", K_REAL, F(body.mass_amp), -INF, INF, 0,
   "amplitude of the mass's oscillation across the blade"},
  {"body", "zero_tol", XSTR(SSW_ZERO_TOL_DEFAULT), K_REAL, F(zero_tol), 0,
   1e-3, 0, "relative tolerance for exact zeros of L1 and Z"},
  {"body", "length_unit", COMPUTED, K_UNIT, F(length_unit), 0, 0, 0,
   "unit of every length, for the file's units attributes (e.g. m)"},
  {"body", "mass_unit", COMPUTED, K_UNIT, F(mass_unit), 0, 0, 0,
   "unit of every mass, for the file's units attributes (e.g. kg)"},
  {"grid", "theta", REQUIRED, K_AXIS, SSW_AXIS_THETA, 0, 0, 0, "blade angle"},
  {"grid", "a", REQUIRED, K_AXIS, SSW_AXIS_A_COM, 0, 0, 0,
   "centre of mass along the blade"},
  {"grid", "b", "0", K_AXIS, SSW_AXIS_B_COM, 0, 0, 0,
   "centre of mass across the blade"},
  {"grid", "r", "0", K_AXIS, SSW_AXIS_R_CENTRE, 0, 0, 0,
   "ellipse centre along the blade"},
  {"grid", "s", "0", K_AXIS, SSW_AXIS_S_CENTRE, 0, 0, 0,
   "ellipse centre across the blade"},
  {"grid", "A", REQUIRED, K_AXIS, SSW_AXIS_A_SEMI, 0, 0, 0, "major semi-axis"},
  {"grid", "B", REQUIRED, K_AXIS, SSW_AXIS_B_SEMI, 0, 0, 0, "minor semi-axis"},
  {"grid", "Gamma", COMPUTED, K_AXIS, SSW_AXIS_GAMMA, -INF, INF, 0,
   "circulation as a grid axis (instead of [body] Gamma)"},
  {"grid", "energy", COMPUTED, K_AXIS, SSW_AXIS_ENERGY, SSW_ENERGY_MIN,
   SSW_ENERGY_MAX, 0, "energy as a grid axis (instead of [ensemble] energy)"},
  {"grid", "drag_w", COMPUTED, K_AXIS, SSW_AXIS_DRAG_W, 0, INF, 0,
   "rotational drag as a grid axis (instead of [body] drag_w)"},
  {"grid", "drag_v", COMPUTED, K_AXIS, SSW_AXIS_DRAG_V, 0, INF, 0,
   "drag along the blade as a grid axis (instead of [body] drag_v)"},
  {"grid", "drag_wv", COMPUTED, K_AXIS, SSW_AXIS_DRAG_WV, -INF, INF, 0,
   "drag coupling as a grid axis (instead of [body] drag_wv)"},
  {"grid", "forcing_freq", COMPUTED, K_AXIS, SSW_AXIS_FORCING_FREQ, 0, INF, 0,
   "forcing frequency as a grid axis (instead of [body] forcing_freq)"},
  {"grid", "torque_amp", COMPUTED, K_AXIS, SSW_AXIS_TORQUE_AMP, -INF, INF, 0,
   "torque amplitude as a grid axis (instead of [body] torque_amp)"},
  {"grid", "forcing_phase", COMPUTED, K_AXIS, SSW_AXIS_FORCING_PHASE, -INF,
   INF, 0, "forcing phase as a grid axis (instead of [body] forcing_phase)"},
  {"grid", "mass_p", COMPUTED, K_AXIS, SSW_AXIS_MASS_P, 0, INF, 0,
   "moving mass as a grid axis (instead of [body] mass_p)"},
  {"grid", "mass_x", COMPUTED, K_AXIS, SSW_AXIS_MASS_X, -INF, INF, 0,
   "moving mass's position along the blade as a grid axis"},
  {"grid", "mass_y", COMPUTED, K_AXIS, SSW_AXIS_MASS_Y, -INF, INF, 0,
   "moving mass's mean position across the blade as a grid axis"},
  {"grid", "mass_amp", COMPUTED, K_AXIS, SSW_AXIS_MASS_AMP, -INF, INF, 0,
   "moving mass's oscillation amplitude as a grid axis"},
  {"ensemble", "trajectories", "16", K_INT32, F(trajectories), 1, 1e7, 0,
   "number of trajectories per grid point"},
  {"ensemble", "seed", "1", K_SEED, F(seed), 0, 0, 0, "random-number key"},
  {"ensemble", "attractor_slots", "4", K_INT32, F(attractor_slots), 1,
   SSW_ATTRACTOR_SLOTS_MAX, 0,
   "attractors stored per grid point (the census's slots)"},
  {"ensemble", "initial", "random", K_IC, F(ic), 0, 0, 0,
   "initial conditions"},
  {"ensemble", "energy", "0.5", K_REAL, F(energy), SSW_ENERGY_MIN,
   SSW_ENERGY_MAX, 0, "energy H of every trajectory"},
  {"integrator", "scheme", SSW_SCHEME_DEFAULT, K_SCHEME, F(integ.method), 0,
   0, 0, "method"},
  {"integrator", "reconstruction", "exp", K_RECON, F(integ.recon), 0, 0, 0,
   "path reconstruction"},
  {"integrator", "rtol", COMPUTED, K_REAL, F(integ.rtol), SSW_RTOL_MIN,
   SSW_RTOL_MAX, 1, "relative accuracy of every result"},
  {"integrator", "eta", COMPUTED, K_REAL, F(integ.eta), 0, 2, 1,
   "fixed dimensionless step (instead of rtol)"},
  {"integrator", "tol", COMPUTED, K_REAL, F(integ.tol), 0, 1e-2, 1,
   "convergence tolerance"},
  {"integrator", "max_steps", XSTR(SSW_MAX_STEPS_DEFAULT), K_INT64,
   F(integ.max_steps), 100, INF, 0, "cap on steps per direction"},
  {"integrator", "tail", "true", K_BOOL, F(integ.tail), 0, 0, 0,
   "exponential tail correction"},
  {"integrator", "error_estimate", "true", K_BOOL, F(integ.estimate), 0, 0,
   0, "error estimate by a second, coarser run"},
  {"output", "file", COMPUTED, K_FILE, F(file), 0, 0, 0, "output HDF5 file"},
  {"output", "samples", "0", K_INT32, F(samples), 0, 64, 0,
   "number of sample trajectories kept per point"},
  {"output", "sample_nodes", "256", K_INT32, F(sample_nodes), 2, 1e5, 0,
   "number of rows at evenly spaced times per sample trajectory"},
  {"output", "sample_points", "all", K_POINTS, F(sample_points), 0, 0, 0,
   "grid points whose sample trajectories are stored"},
  {"output", "flush_interval", "120", K_REAL, F(flush_interval),
   SSW_FLUSH_INTERVAL_MIN, INF, 0,
   "time in seconds between durability points"},
  {"output", "exact_path_every", "1", K_INT32, F(exact_path_every), 0, 1e9,
   0, "compare trajectory 0 with its exact path at every Nth grid point "
   "(0: none)"},
  {"run", "work_unit", "0", K_INT32, F(work_unit), 0, 1e6, 0,
   "number of grid points per work unit (0: automatic)"},
  {"run", "progress_interval", "10", K_REAL, F(progress_interval), 0, INF, 1,
   "time in seconds between progress lines"},
  {"refine", "classes", "none", K_CLASS, F(refine_classes), 0, 0, 0,
   "classes whose boundaries are refined"},
  {"refine", "tol", "1e-6", K_REAL, F(refine_tol), 0, INF, 1,
   "width of a crossing's bracket, in its axis's units"},
  {"refine", "max_evals", "40", K_INT32, F(refine_max_evals), 1, 1000, 0,
   "number of evaluations per crossing at most"},
  {"refine", "trajectories", "1", K_INT32, F(refine_trajectories), 1, 1e7, 0,
   "trajectories per refinement evaluation (at most [ensemble] trajectories)"},
  {"refine", "points", "false", K_BOOL, F(refine_points), 0, 0, 0,
   "store every crossing's full measurements (/boundaries/crossing_*)"},
};
/* clang-format on */
#undef F
_Static_assert(sizeof ssw_cfg_keys / sizeof ssw_cfg_keys[0] == SSW_CFG_NKEYS,
               "SSW_CFG_NKEYS is the length of the key table");

const char *const ssw_cfg_sections[SSW_CFG_NSECTIONS] = {
    "body", "grid", "ensemble", "integrator", "output", "run", "refine"};

int ssw_cfg_find_key(const char *section, const char *name) {
  for (int k = 0; k < SSW_CFG_NKEYS; k++)
    if (strcmp(ssw_cfg_keys[k].section, section) == 0 &&
        strcmp(ssw_cfg_keys[k].name, name) == 0)
      return k;
  return -1;
}

int ssw_config_reals(const char *section, ssw_config_real *out, int max) {
  int n = 0;
  for (int k = 0; k < SSW_CFG_NKEYS; k++) {
    const key_spec *s = &ssw_cfg_keys[k];
    if (s->kind != K_REAL || strcmp(s->section, section) != 0) continue;
    if (n < max)
      out[n] = (ssw_config_real){s->name, s->help,
                                 s->def == REQUIRED ? NULL : s->def, s->offset};
    n++;
  }
  return n;
}

int ssw_config_set(ssw_config *cfg, const char *section, const char *key,
                   const char *value, char *why, size_t n) {
  const int k = ssw_cfg_find_key(section, key);
  if (k < 0) return snprintf(why, n, "no key [%s] %s", section, key), -1;
  return ssw_cfg_assign(cfg, &ssw_cfg_keys[k], 0, value, why, n);
}

int ssw_cfg_is_section(const char *section) {
  for (int i = 0; i < SSW_CFG_NSECTIONS; i++)
    if (strcmp(ssw_cfg_sections[i], section) == 0) return 1;
  return 0;
}

/* Comma-separated list of the keys of a section into buf. */
void ssw_cfg_section_keys(const char *section, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < SSW_CFG_NKEYS && used < size; k++)
    if (strcmp(ssw_cfg_keys[k].section, section) == 0)
      used += (size_t)snprintf(buf + used, size - used, "%s%s",
                               used ? ", " : "", ssw_cfg_keys[k].name);
}
