/* `sleighsweep point`: one trajectory, JSON with measured and closed form. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "cli_util.h"
#include "sleighsweep/analytic.h"
#include "sleighsweep/angle.h"
#include "sleighsweep/config.h"
#include "sleighsweep/damped.h"
#include "sleighsweep/drag.h"
#include "sleighsweep/effect.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/fmt.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/model.h"
#include "sleighsweep/path.h"
#include "sleighsweep/point.h"
#include "sleighsweep/version.h"

static void body_help(char *buf, size_t n);

/* The help text; the schemes and the integrator's defaults come from the
 * method table and the macros the config's key table uses. */
static void print_usage(FILE *f) {
  char schemes[256], body[2048];
  ssw_method_names(schemes, sizeof schemes);
  body_help(body, sizeof body);
  fprintf(
      f,
      "Usage: sleighsweep point [OPTIONS]\n"
      "\n"
      "Integrates one trajectory forward and backward to its limit motions "
      "and\n"
      "prints one JSON object: the measured quantities and, under "
      "\"analytic\",\n"
      "the closed form (docs/theory/model.md sec. 4). Defaults: the 2025 seed\n"
      "case. Infinite or undefined values print as null (see \"regime\").\n"
      "With drag (--drag-w, --drag-v, --drag-wv) the trajectory runs forward\n"
      "to rest instead: heading_total, rest_x, rest_y, path_length, approach,\n"
      "decay_rate and their closed forms (docs/theory/drag.md).\n"
      "\n"
      "Body and fluid (lengths in any unit, consistently):\n"
      "  --theta X     blade angle from the major axis: 60deg, pi/3, 2pi/3,\n"
      "                1.2rad, or bare radians within [-2pi, 2pi] [60deg]\n"
      "  --a X --b X   centre of mass in body coordinates [0.2, 0]\n"
      "  --r X --s X   ellipse centre in body coordinates (Model II) [0, 0]\n"
      "  --A X --B X   ellipse semi-axes, A > B > 0 [0.5, 0.3]\n"
      "  --added-inertia K  rotational added inertia k_rot rho pi "
      "(A^2-B^2)^2:\n"
      "                papers (k_rot = 1/4), lamb (1/8) or a number [papers]\n"
      "%s"
      "Initial state:\n"
      "  --omega0 X --v0 X  angular and blade-direction velocity [1.5, 1.0]\n"
      "Integrator:\n"
      "  --scheme S    %s\n"
      "                [%s] (`sleighsweep methods` describes them)\n"
      "  --reconstruction R  exp (SE(2) exponential) or midpoint [%s]\n"
      "  --rtol X      relative accuracy wanted in every result; the engine\n"
      "                chooses reversible adaptive steps to meet it [%g]\n"
      "  --eta X       fixed steps instead (for studies of the scheme):\n"
      "                h = eta / max(Arate, w_max), Arate = sqrt(2HE)/D,\n"
      "                w_max = sqrt(2HM/D); excludes --rtol\n"
      "  --tol X       stop when |L1 w + Z v| <= tol * its maximum\n"
      "                [0.1 sqrt(rtol), or %g with --eta]\n"
      "  --no-error-estimate  skip the coarser second run that estimates\n"
      "                the errors (and lets rtol refine the step)\n"
      "  --max-steps N cap on base steps per direction [%lld]\n"
      "  --no-tail     do not add the exponential tail at the ends\n"
      "Output:\n"
      "  --trajectory FILE  write the sampled path as CSV, one row per macro\n"
      "                step: t,phi,x,y,omega,v,H and the exact motion\n"
      "                phi_exact,x_exact,y_exact,omega_exact,v_exact;\n"
      "                under forcing the forced run's nodes (the exact\n"
      "                columns NaN: the driven sleigh has no closed-form\n"
      "                path) over its transient and whole cycles (or the\n"
      "                growth window), and x_avg,y_avg, the contact point's\n"
      "                average over the period each section row closes\n"
      "  -h, --help    this text\n",
      body, schemes, SSW_SCHEME_DEFAULT, ssw_recon_names[SSW_RECON_EXP],
      SSW_RTOL_DEFAULT, SSW_TOL_FIXED_DEFAULT,
      (long long)SSW_MAX_STEPS_DEFAULT);
}

typedef struct {
  ssw_config cfg; /* the body's keys (cfg.body, cfg.zero_tol) */
  ssw_params p;
  double w0, v0;
  ssw_integrator integ;
  int rtol_given, eta_given;
  const char *trajectory;
} point_opts;

enum {
  OPT_PARAM = 256, /* OPT_PARAM + i: the body's parameter i (names.h) */
  OPT_KROT = OPT_PARAM + SSW_NBODY_AXES,
  OPT_W0,
  OPT_V0,
  OPT_SCHEME,
  OPT_RECON,
  OPT_ETA,
  OPT_TOL,
  OPT_MAXSTEPS,
  OPT_NOTAIL,
  OPT_TRAJ,
  OPT_RTOL,
  OPT_NOEST,
  OPT_SHAPE,
  OPT_BODY /* OPT_BODY + i: the i-th real [body] key */
};

/* The body's parameters are options named after their axes (names.h). */
#define PARAM_OPT_(id, index, name, ...)                                       \
  {name, required_argument, 0, OPT_PARAM + index},
static const struct option fixed_opts[] = {
    SSW_BODY_AXES(PARAM_OPT_) /* --theta ... --B */
    {"added-inertia", required_argument, 0, OPT_KROT},
    {"omega0", required_argument, 0, OPT_W0},
    {"v0", required_argument, 0, OPT_V0},
    {"scheme", required_argument, 0, OPT_SCHEME},
    {"reconstruction", required_argument, 0, OPT_RECON},
    {"rtol", required_argument, 0, OPT_RTOL},
    {"eta", required_argument, 0, OPT_ETA},
    {"no-error-estimate", no_argument, 0, OPT_NOEST},
    {"tol", required_argument, 0, OPT_TOL},
    {"max-steps", required_argument, 0, OPT_MAXSTEPS},
    {"no-tail", no_argument, 0, OPT_NOTAIL},
    {"trajectory", required_argument, 0, OPT_TRAJ},
    {"forcing-shape", required_argument, 0, OPT_SHAPE},
    {"help", no_argument, 0, 'h'}};
#define NFIXED ((int)(sizeof fixed_opts / sizeof fixed_opts[0]))

/* The real-valued [body] keys (m, I0, rho, Gamma, zero_tol, ...) are
 * options named after them (zero_tol: --zero-tol), from the config's key
 * table, so a key added there is an option here, in the help and in the
 * JSON. `point`'s defaults are the 2025 seed case where a sweep requires
 * the key, the table's default elsewhere. */
#define MAX_BODY 24
static ssw_config_real body_keys[MAX_BODY];
static int nbody; /* the [body] reals */
static char body_names[MAX_BODY][32];
static struct option long_opts[NFIXED + MAX_BODY + 1];
static const struct {
  const char *key, *value;
} seed_case[] = {{"m", "1"}, {"I0", "0.5"}, {"rho", "1"}};

static void build_options(void) {
  nbody = ssw_config_reals("body", body_keys, MAX_BODY);
  if (nbody > MAX_BODY) nbody = MAX_BODY;
  memcpy(long_opts, fixed_opts, sizeof fixed_opts);
  for (int i = 0; i < nbody; i++) {
    snprintf(body_names[i], sizeof body_names[i], "%s", body_keys[i].name);
    for (char *c = body_names[i]; *c; c++)
      if (*c == '_') *c = '-';
    long_opts[NFIXED + i] =
        (struct option){body_names[i], required_argument, 0, OPT_BODY + i};
  }
  long_opts[NFIXED + nbody] = (struct option){0, 0, 0, 0};
}

static const char *body_default(const ssw_config_real *k) {
  for (size_t i = 0; i < sizeof seed_case / sizeof seed_case[0]; i++)
    if (!strcmp(seed_case[i].key, k->name)) return seed_case[i].value;
  return k->def;
}

static void body_help(char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < nbody && used < n; i++) {
    char opt[48];
    snprintf(opt, sizeof opt, "%.32s X", body_names[i]);
    used += (size_t)snprintf(buf + used, n - used, "  --%-11s %s [%s]\n", opt,
                             body_keys[i].help, body_default(&body_keys[i]));
  }
  if (used < n)
    snprintf(buf + used, n - used,
             "  --forcing-shape S  sine or kicks (angular impulses "
             "torque_amp at\n"
             "                t = 0+, T, 2T, ...) [sine]\n");
}

static int body_set(point_opts *o, int i, const char *name, const char *arg) {
  char why[256];
  SSW_CHECK(ssw_config_set(&o->cfg, "body", body_keys[i].name, arg, why,
                           sizeof why) == 0,
            SSW_ERR_USAGE, "%s: %s", name, why);
  return SSW_SUCCESS;
}

static double *number_slot(point_opts *o, int c) {
  if (c >= OPT_PARAM && c < OPT_PARAM + SSW_NBODY_AXES)
    return ssw_params_at(&o->p, c - OPT_PARAM);
  switch (c) {
  case OPT_W0: return &o->w0;
  case OPT_V0: return &o->v0;
  case OPT_ETA: return &o->integ.eta;
  case OPT_RTOL: return &o->integ.rtol;
  case OPT_TOL: return &o->integ.tol;
  default: return NULL;
  }
}

static int parse_one(point_opts *o, int c, const char *name, const char *arg) {
  double *slot = number_slot(o, c);
  o->rtol_given |= c == OPT_RTOL;
  o->eta_given |= c == OPT_ETA;
  if (slot)
    return ssw_cli_number(name, arg, c == OPT_PARAM + SSW_AXIS_THETA, slot);
  if (c >= OPT_BODY && c < OPT_BODY + nbody)
    return body_set(o, c - OPT_BODY, name, arg);
  long long n;
  switch (c) {
  case OPT_KROT: return ssw_cli_added_inertia(name, arg, &o->cfg.body.k_rot);
  case OPT_SCHEME:
    o->integ.method = ssw_method_find(arg);
    SSW_CHECK(o->integ.method, SSW_ERR_USAGE,
              "%s: unknown scheme '%s' (see `sleighsweep methods`)", name, arg);
    return SSW_SUCCESS;
  case OPT_RECON:
    o->integ.recon = ssw_recon_find(arg);
    SSW_CHECK(o->integ.recon >= 0, SSW_ERR_USAGE,
              "%s: '%s' must be exp or midpoint", name, arg);
    return SSW_SUCCESS;
  case OPT_MAXSTEPS:
    SSW_CALL(ssw_cli_integer(name, arg, 100, (long long)1 << 50, &n));
    o->integ.max_steps = n;
    return SSW_SUCCESS;
  case OPT_NOTAIL: o->integ.tail = 0; return SSW_SUCCESS;
  case OPT_NOEST: o->integ.estimate = 0; return SSW_SUCCESS;
  case OPT_TRAJ: o->trajectory = arg; return SSW_SUCCESS;
  case OPT_SHAPE: {
    char why[256];
    SSW_CHECK(ssw_config_set(&o->cfg, "body", "forcing_shape", arg, why,
                             sizeof why) == 0,
              SSW_ERR_USAGE, "%s: %s", name, why);
    return SSW_SUCCESS;
  }
  default: return SSW_RAISE(SSW_ERR_INTERNAL, "unhandled option %d", c);
  }
}

static int parse(int argc, char **argv, point_opts *o, int *help) {
  *o = (point_opts){.p = {.theta = M_PI / 3.0, .a = 0.2, .A = 0.5, .B = 0.3},
                    .w0 = 1.5,
                    .v0 = 1.0};
  o->cfg.body.k_rot = SSW_KROT_PAPERS;
  for (int i = 0; i < nbody; i++)
    SSW_CALL(body_set(o, i, body_names[i], body_default(&body_keys[i])));
  ssw_integrator_defaults(&o->integ);
  *help = 0;
  opterr = 0;
  optind = 1;
  for (;;) {
    int idx = -1;
    const int c = getopt_long(argc, argv, ":h", long_opts, &idx);
    if (c == -1) break;
    if (c == 'h') {
      *help = 1;
      return SSW_SUCCESS;
    }
    if (c == '?' || c == ':')
      return ssw_cli_bad_option(argv[optind - 1], c, long_opts);
    char name[64];
    snprintf(name, sizeof name, "--%s", long_opts[idx].name);
    SSW_CALL(parse_one(o, c, name, optarg));
  }
  SSW_CHECK(optind == argc, SSW_ERR_USAGE, "unexpected argument '%s'",
            argv[optind]);
  SSW_CHECK(o->cfg.body.Gamma == 0.0 || o->cfg.body.rho > 0.0, SSW_ERR_USAGE,
            "--Gamma %g with --rho 0: without a fluid there is no lift, so "
            "the circulation would change nothing",
            o->cfg.body.Gamma);
  const double wv_max =
      ssw_model_drag_wv_max(o->cfg.body.drag_w, o->cfg.body.drag_v);
  if (!(fabs(o->cfg.body.drag_wv) <= wv_max)) {
    char wv[SSW_FMT_SHORTEST], bound[SSW_FMT_SHORTEST];
    return SSW_RAISE(SSW_ERR_USAGE,
                     "--drag-wv %s: the drag matrix [[drag_w, drag_wv], "
                     "[drag_wv, drag_v]] must be positive semidefinite, "
                     "|drag_wv| <= sqrt(drag_w drag_v) = %s, or some motion "
                     "would gain energy",
                     ssw_fmt_shortest(o->cfg.body.drag_wv, wv),
                     ssw_fmt_shortest(wv_max, bound));
  }
  SSW_CHECK(fabs(o->p.theta) <= SSW_THETA_MAX, SSW_ERR_USAGE,
            "--theta: %.17g rad (%.10g deg) is outside [-720deg, 720deg]; the "
            "ellipse repeats every 180deg: give the angle modulo 180deg",
            o->p.theta, o->p.theta / SSW_THETA_MAX * 720.0);
  SSW_CHECK(!(o->rtol_given && o->eta_given), SSW_ERR_USAGE,
            "--rtol and --eta exclude each other: --rtol asks for an "
            "accuracy and lets the engine choose the steps, --eta fixes "
            "the step");
  if (o->eta_given) o->integ.rtol = 0.0;
  if (o->rtol_given)
    SSW_CHECK(o->integ.rtol > SSW_RTOL_MIN && o->integ.rtol <= SSW_RTOL_MAX,
              SSW_ERR_USAGE, "--rtol: %g must be in (%g, %g]", o->integ.rtol,
              SSW_RTOL_MIN, SSW_RTOL_MAX);
  if (o->eta_given)
    SSW_CHECK(o->integ.eta > 0 && o->integ.eta <= 2, SSW_ERR_USAGE,
              "--eta: %g must be in (0, 2]", o->integ.eta);
  if (o->integ.tol != 0.0)
    SSW_CHECK(o->integ.tol > 0 && o->integ.tol <= 1e-2, SSW_ERR_USAGE,
              "--tol: %g must be in (0, 1e-2]", o->integ.tol);
  return SSW_SUCCESS;
}

void ssw_cli_json_num(FILE *f, const char *key, double x, int comma) {
  if (isfinite(x))
    fprintf(f, "\"%s\": %.17g%s", key, x, comma ? ", " : "");
  else
    fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
}

static void jpair(FILE *f, const char *key, const double xy[2], int comma) {
  fprintf(f, "\"%s\": ", key);
  if (isfinite(xy[0]) && isfinite(xy[1]))
    fprintf(f, "[%.17g, %.17g]", xy[0], xy[1]);
  else
    fprintf(f, "null");
  fputs(comma ? ", " : "", f);
}

/* Circulation's arc, and the period's quantities below its critical
 * energy (null elsewhere). */
static void print_period(FILE *f, const ssw_traj *r) {
  fprintf(f, "\"arc\": %d, ", r->arc);
  ssw_cli_json_num(f, "period", r->period, 1);
  ssw_cli_json_num(f, "heading_per_period", r->heading_per_period, 1);
  ssw_cli_json_num(f, "drift_per_period", r->drift_per_period, 1);
  const double orbit = r->orbit_radius;
  if (r->periodic && isinf(orbit)) /* a drift resonance */
    fprintf(f, "\"orbit_radius\": \"inf\", ");
  else
    ssw_cli_json_num(f, "orbit_radius", orbit, 1);
  if (r->periodic)
    fprintf(f, "\"resonance\": %d,\n ", r->resonance);
  else
    fprintf(f, "\"resonance\": null,\n ");
}

static double rel_err(double x, double ref) {
  if (!isfinite(x) || !isfinite(ref)) return (x == ref) ? 0.0 : NAN;
  return ref != 0.0 ? fabs(x - ref) / fabs(ref) : fabs(x);
}

/* The computed path against the exact one, and the blade force's closed
 * form (docs/theory/exact-path.md, blade-force.md). */
typedef struct {
  double pos, head; /* largest contact-point distance, heading difference */
  double blade;     /* closed-form max |F| / H */
} path_cmp;

/* The exact path of the recorded one; with circulation out of reach near
 * the critical energy: NaN, said in the JSON as null. */
static int exact_path(const ssw_path *s, const ssw_tensor *t, int regime,
                      const point_opts *o, double (*exact)[SSW_PATH_NEXACT],
                      path_cmp *cmp) {
  const int rc =
      ssw_path_exact(s, t, regime, o->w0, o->v0, exact, &cmp->pos, &cmp->head);
  /* The 2010 quadrature is always in reach; circulation's may not be. */
  if (rc == SSW_SUCCESS || (ssw_model_caps(t) & SSW_MCAP_CLOSED_FORM_2010))
    return rc;
  ssw_error_clear();
  cmp->pos = cmp->head = NAN;
  for (size_t i = 0; i < s->n; i++)
    for (int q = 0; q < SSW_PATH_NEXACT; q++)
      exact[i][q] = NAN;
  return SSW_SUCCESS;
}

/* The closed form's twins, and the measurements' errors against them. */
/* The closed form's twins of one trajectory's measurements. */
typedef struct {
  double r_past, r_future, d, dphi;
  double period, hpp, drift, orbit;
} twins;

static twins twins_of(const ssw_point *pt, const ssw_traj *r, int sigma) {
  const ssw_analytic *an = &pt->analytic;
  const int uni = an->regime == SSW_REGIME_UNIFORM;
  twins w = {uni ? r->r_past : an->radius,
             uni ? r->r_future : an->radius,
             an->d,
             isnan(an->dphi_abs) ? NAN : ssw_analytic_dphi(an, sigma),
             NAN,
             NAN,
             NAN,
             NAN};
  if (!(ssw_model_caps(&pt->tensor) & SSW_MCAP_CIRC_CLOSED_FORM)) return w;
  ssw_point_circ c;
  ssw_point_circulation(pt, r->H0, &c);
  const int up = r->arc > 0;
  return (twins){c.r_past,
                 c.r_future,
                 up ? c.d_up : c.d_down,
                 up ? c.dphi_up : c.dphi_down,
                 c.period,
                 c.heading_per_period,
                 c.drift_per_period,
                 c.orbit_radius};
}

static void print_analytic(FILE *f, const ssw_tensor *t, const ssw_traj *r,
                           const ssw_analytic *an, const twins *w,
                           const path_cmp *cmp) {
  fprintf(f, " \"analytic\": {\"regime\": \"%s\", ",
          ssw_regime_name(an->regime));
  ssw_cli_json_num(f, "critical_energy", ssw_model_critical_energy(t), 1);
  ssw_cli_json_num(f, "r_past", w->r_past, 1),
      ssw_cli_json_num(f, "r_future", w->r_future, 1);
  ssw_cli_json_num(f, "d", w->d, 1), ssw_cli_json_num(f, "dphi", w->dphi, 1);
  ssw_cli_json_num(f, "period", w->period, 1);
  ssw_cli_json_num(f, "heading_per_period", w->hpp, 1);
  ssw_cli_json_num(f, "drift_per_period", w->drift, 1);
  ssw_cli_json_num(f, "orbit_radius", w->orbit, 1);
  ssw_cli_json_num(f, "blade_force_max", cmp->blade, 1);
  fprintf(f, "\"loops\": %d, \"sense_future\": %d},\n", an->loops,
          an->sense_future);
  fprintf(f, " \"relative_error\": {");
  /* Uniform motion's radius is the state's own: no twin to compare. */
  const int uni = an->regime == SSW_REGIME_UNIFORM;
  ssw_cli_json_num(f, "r_future", rel_err(r->r_future, uni ? NAN : w->r_future),
                   1);
  ssw_cli_json_num(f, "r_past", rel_err(r->r_past, uni ? NAN : w->r_past), 1);
  ssw_cli_json_num(f, "d", rel_err(r->d, w->d), 1);
  ssw_cli_json_num(f, "dphi", rel_err(r->dphi, w->dphi), 1);
  ssw_cli_json_num(f, "period", rel_err(r->period, w->period), 1);
  ssw_cli_json_num(f, "heading_per_period",
                   rel_err(r->heading_per_period, w->hpp), 1);
  ssw_cli_json_num(f, "blade_force_max",
                   rel_err(r->blade_force_max, cmp->blade), 0);
}

/* The forcing's keys, which the JSON has under `forcing` (cli_forced.c),
 * not under `params`: the run axes of the torque and the moving mass
 * (names.h). */
static int forcing_key(const char *name) {
  static const int axes[] = {SSW_AXIS_FORCING_FREQ,  SSW_AXIS_TORQUE_AMP,
                             SSW_AXIS_FORCING_PHASE, SSW_AXIS_MASS_P,
                             SSW_AXIS_MASS_X,        SSW_AXIS_MASS_Y,
                             SSW_AXIS_MASS_AMP};
  for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
    if (!strcmp(name, ssw_axis_names[axes[i]])) return 1;
  return 0;
}

/* The JSON's opening: program, params, tensor, conventions, integrator. */
static void print_header(FILE *f, const point_opts *o, const ssw_point *pt) {
  const ssw_tensor *t = &pt->tensor;
  fprintf(f,
          "{\"program\": \"sleighsweep\", \"version\": \"%s\", "
          "\"git_revision\": \"%s\",\n",
          ssw_version_string(), ssw_version_git());
  fprintf(f, " \"params\": {");
  for (int i = 0; i < SSW_NBODY_AXES; i++)
    ssw_cli_json_num(f, ssw_axis_names[i], ssw_params_get(&o->p, i), 1);
  for (int i = 0; i < nbody; i++)
    if (!forcing_key(body_keys[i].name))
      ssw_cli_json_num(f, body_keys[i].name,
                       ssw_config_real_get(&o->cfg, &body_keys[i]), 1);
  ssw_cli_json_num(f, "k_rot", o->cfg.body.k_rot, 1),
      ssw_cli_json_num(f, "omega0", o->w0, 1);
  ssw_cli_json_num(f, "v0", o->v0, 0);
  fprintf(f, "},\n \"tensor\": {");
  ssw_cli_json_num(f, "J", t->J, 1), ssw_cli_json_num(f, "M", t->M, 1),
      ssw_cli_json_num(f, "N", t->N, 1);
  ssw_cli_json_num(f, "L1", t->L1, 1), ssw_cli_json_num(f, "L2", t->L2, 1),
      ssw_cli_json_num(f, "Z", t->Z, 1);
  ssw_cli_json_num(f, "kappa", t->kappa, 0);
  fprintf(f, "},\n \"conventions\": {\"Gamma\": \"circulation about the "
             "ellipse, counter-clockwise positive; kappa = rho Gamma r\"");
  const ssw_integrator *g = &o->integ;
  fprintf(f,
          "},\n \"integrator\": {\"scheme\": \"%s\", \"reconstruction\": "
          "\"%s\", \"step_control\": \"%s\", ",
          g->method->name, ssw_recon_name(g->recon),
          g->rtol > 0 ? "adaptive" : "fixed");
  ssw_cli_json_num(f, "rtol", g->rtol > 0 ? g->rtol : NAN, 1);
  ssw_cli_json_num(f, "eta", g->eta > 0 ? g->eta : NAN, 1);
  ssw_cli_json_num(f, "tol", ssw_integrator_stop_tol(g), 1);
  fprintf(f, "\"max_steps\": %lld, \"tail\": %s, \"error_estimate\": %s},\n",
          (long long)g->max_steps, g->tail ? "true" : "false",
          g->estimate ? "true" : "false");
}

static void print_json(FILE *f, const point_opts *o, const ssw_point *pt,
                       const ssw_traj *r, const twins *w, const path_cmp *cmp) {
  const ssw_tensor *t = &pt->tensor;
  const ssw_analytic *an = &pt->analytic;
  print_header(f, o, pt);
  fprintf(f, " \"regime\": \"%s\", ",
          ssw_regime_name(r->periodic ? SSW_REGIME_PERIODIC : r->regime));
  print_period(f, r);
  ssw_cli_json_num(f, "r_past", r->r_past, 1),
      ssw_cli_json_num(f, "r_future", r->r_future, 1);
  jpair(f, "center_past", r->center_past, 1);
  jpair(f, "center_future", r->center_future, 1);
  ssw_cli_json_num(f, "d", r->d, 1), ssw_cli_json_num(f, "dphi", r->dphi, 1);
  fprintf(f, "\"loops\": %d, \"sense_past\": %d, \"sense_future\": %d, ",
          r->loops, r->sense_past, r->sense_future);
  ssw_cli_json_num(f, "t0", r->t0, 1), ssw_cli_json_num(f, "rate", r->rate, 1);
  ssw_cli_json_num(f, "energy_error", r->energy_error, 1);
  ssw_cli_json_num(f, "blade_force_max", r->blade_force_max, 1);
  ssw_cli_json_num(f, "path_error_max", cmp->pos, 1);
  ssw_cli_json_num(f, "heading_error_max", cmp->head, 1);
  fprintf(f,
          "\"steps\": %lld, \"converged\": %s, \"flags\": %d, "
          "\"refinements\": %d,\n",
          (long long)r->steps, r->converged ? "true" : "false", r->flags,
          r->refinements);
  /* Absolute error estimates (null: undefined in the regime, or not
   * estimated); docs/output.md says against what rtol judges each. */
  fprintf(f, " \"error_estimate\": {");
  ssw_cli_json_num(f, "d", r->err_d, 1),
      ssw_cli_json_num(f, "dphi", r->err_dphi, 1);
  ssw_cli_json_num(f, "r", r->err_r, 1),
      ssw_cli_json_num(f, "t0", r->err_t0, 1);
  ssw_cli_json_num(f, "center", r->err_center, 1);
  ssw_cli_json_num(f, "period", r->err_period, 1);
  ssw_cli_json_num(f, "heading_per_period", r->err_heading_period, 1);
  ssw_cli_json_num(f, "drift_per_period", r->err_drift, 1);
  ssw_cli_json_num(f, "orbit_radius", r->err_orbit, 1);
  ssw_cli_json_num(f, "blade_force_max", r->err_blade, 0);
  fprintf(f, "},\n");
  print_analytic(f, t, r, an, w, cmp);
  fprintf(f, "}}\n");
}

static int write_csv(FILE *f, const char *path, const ssw_path *s,
                     const double (*exact)[SSW_PATH_NEXACT]) {
  fprintf(f, "t,phi,x,y,omega,v,H,phi_exact,x_exact,y_exact,omega_exact,"
             "v_exact\n");
  for (size_t i = 0; i < s->n; i++) {
    for (int q = 0; q < SSW_PATH_NQ; q++)
      fprintf(f, "%.17g,", s->rows[i][q]);
    for (int q = 0; q < SSW_PATH_NEXACT; q++)
      fprintf(f, "%.17g%c", exact[i][q], q + 1 < SSW_PATH_NEXACT ? ',' : '\n');
  }
  SSW_CHECK(fflush(f) == 0 && !ferror(f), SSW_ERR_IO,
            "--trajectory: error writing '%s': %s", path, strerror(errno));
  return SSW_SUCCESS;
}

/* The initial energy must lie where the arithmetic holds (SSW_ENERGY_MIN
 * to _MAX, as for a sweep's [ensemble] energy). Computed in scaled form so
 * that the check itself cannot overflow: H = s^2 H(w/s, v/s). */
static int check_energy(const point_opts *o, const ssw_tensor *t) {
  const double s = fmax(fabs(o->w0), fabs(o->v0));
  if (s == 0) return SSW_SUCCESS; /* an equilibrium start: flagged later */
  const double h = SSW_MODEL_ENERGY(t, o->w0 / s, o->v0 / s);
  const double log10_h = 2 * log10(s) + log10(h);
  SSW_CHECK(h > 0 && log10_h >= log10(SSW_ENERGY_MIN) &&
                log10_h <= log10(SSW_ENERGY_MAX),
            SSW_ERR_USAGE,
            "--omega0 %g --v0 %g: the initial energy H = (J w^2 + M v^2 - 2 "
            "L2 w v)/2 is about 1e%+.0f, outside [%g, %g] where the "
            "integration's arithmetic neither overflows nor underflows; the "
            "asymptotic quantities do not depend on the energy: scale omega0 "
            "and v0 by a common factor",
            o->w0, o->v0, log10_h, SSW_ENERGY_MIN, SSW_ENERGY_MAX);
  return SSW_SUCCESS;
}

/* ---- Damped trajectories (drag): forward to rest ----------------------- */

/* The closed forms beside a damped trajectory's measurements: the rest's
 * eigenvalues, and for C = c K without circulation the exact rest. */
static void print_damped_analytic(FILE *f, const ssw_point *pt,
                                  const ssw_drag_rest *rest, const double ex[4],
                                  double small, const ssw_damped *r) {
  fprintf(f, " \"analytic\": {\"regime\": \"%s\", \"eigenvalues\": [",
          ssw_regime_name(pt->analytic.regime));
  for (int k = 0; k < 2; k++) {
    fprintf(f, "{");
    ssw_cli_json_num(f, "re", rest->re[k], 1),
        ssw_cli_json_num(f, "im", rest->im[k], 0);
    fprintf(f, "}%s", k ? "], " : ", ");
  }
  fprintf(
      f, "\"approach\": \"%s\", ",
      ssw_approach_name(rest->focus ? SSW_APPROACH_FOCUS : SSW_APPROACH_NODE));
  ssw_cli_json_num(f, "decay_rate", rest->decay, 1);
  ssw_cli_json_num(f, "decay_frequency", rest->im[0], 1);
  ssw_cli_json_num(f, "heading_total", ex[0], 1);
  ssw_cli_json_num(f, "rest_x", ex[1], 1),
      ssw_cli_json_num(f, "rest_y", ex[2], 1);
  ssw_cli_json_num(f, "rest_distance", hypot(ex[1], ex[2]), 1);
  ssw_cli_json_num(f, "path_length", ex[3], 1);
  ssw_cli_json_num(f, "small_drag_heading", small, 0);
  fprintf(f, "},\n \"relative_error\": {");
  ssw_cli_json_num(f, "heading_total", rel_err(r->heading_total, ex[0]), 1);
  ssw_cli_json_num(f, "rest_point",
                   hypot(r->rest_x - ex[1], r->rest_y - ex[2]) / ex[3], 1);
  ssw_cli_json_num(f, "path_length", rel_err(r->path_length, ex[3]), 1);
  ssw_cli_json_num(f, "decay_rate", rel_err(r->decay_rate, rest->decay), 0);
}

static void print_damped(FILE *f, const point_opts *o, const ssw_point *pt,
                         const ssw_damped *r) {
  ssw_drag_rest rest;
  double ex[4];
  if (ssw_drag_rest_eigen(&pt->tensor, &rest) != SSW_SUCCESS) ssw_error_clear();
  if (ssw_drag_exact(&pt->tensor, pt->regime, o->w0, o->v0, INFINITY, &ex[0],
                     &ex[1], &ex[2], &ex[3]) != SSW_SUCCESS)
    ssw_error_clear();
  const double small =
      ssw_drag_small_heading(&pt->tensor, pt->regime, o->w0, o->v0);
  fprintf(f, "\"motion\": \"damped\", \"regime\": \"%s\", ",
          ssw_regime_name(pt->regime));
  fprintf(f, "\"approach\": \"%s\", ", ssw_approach_name(r->approach));
  ssw_cli_json_num(f, "heading_total", r->heading_total, 1);
  ssw_cli_json_num(f, "rest_x", r->rest_x, 1),
      ssw_cli_json_num(f, "rest_y", r->rest_y, 1);
  ssw_cli_json_num(f, "rest_distance", r->rest_distance, 1);
  ssw_cli_json_num(f, "path_length", r->path_length, 1);
  fprintf(f, "\"loops\": %d, ", r->loops);
  ssw_cli_json_num(f, "decay_rate", r->decay_rate, 1);
  ssw_cli_json_num(f, "decay_frequency", r->decay_freq, 1);
  ssw_cli_json_num(f, "settle_fraction", SSW_DAMPED_SETTLE, 1);
  ssw_cli_json_num(f, "t_settle", r->t_settle, 1);
  ssw_cli_json_num(f, "t_end", r->t_end, 1),
      ssw_cli_json_num(f, "energy_end", r->energy_end, 1);
  ssw_cli_json_num(f, "energy_error", r->energy_error, 1);
  ssw_cli_json_num(f, "H0", r->H0, 1);
  fprintf(f,
          "\"steps\": %lld, \"converged\": %s, \"flags\": %d, "
          "\"refinements\": %d,\n",
          (long long)r->steps, r->converged ? "true" : "false", r->flags,
          r->refinements);
  fprintf(f, " \"error_estimate\": {");
  ssw_cli_json_num(f, "heading_total", r->err_heading, 1);
  ssw_cli_json_num(f, "rest_x", r->err_rest, 1),
      ssw_cli_json_num(f, "rest_y", r->err_rest, 1);
  ssw_cli_json_num(f, "rest_distance", r->err_rest, 1);
  ssw_cli_json_num(f, "path_length", r->err_path, 1);
  ssw_cli_json_num(f, "decay_rate", r->err_decay, 1);
  ssw_cli_json_num(f, "t_settle", r->err_settle, 0);
  fprintf(f, "},\n");
  print_damped_analytic(f, pt, &rest, ex, small, r);
  fprintf(f, "}}\n");
}

/* The recorded damped path (exact columns NaN: the exact damped path is
 * compared in tests/test_drag.c). */
static int run_damped(const point_opts *o, const ssw_point *pt, FILE *csv) {
  ssw_path s = {0};
  ssw_damped r;
  int rc = ssw_damped_run(&pt->tensor, o->w0, o->v0, &o->integ,
                          csv ? ssw_path_record : NULL, csv ? &s : NULL, &r);
  if (rc == SSW_SUCCESS && csv) {
    ssw_path_record(&s, 0, 0.0, 0.0, 0.0, 0.0, o->w0, o->v0, r.H0);
    rc = ssw_path_sort(&s);
  }
  double(*exact)[SSW_PATH_NEXACT] = NULL;
  if (rc == SSW_SUCCESS && csv) {
    exact = malloc((s.n ? s.n : 1) * sizeof *exact);
    if (!exact) rc = SSW_RAISE(SSW_ERR_MEM, "out of memory for the path");
    for (size_t i = 0; exact && i < s.n; i++)
      for (int q = 0; q < SSW_PATH_NEXACT; q++)
        exact[i][q] = NAN;
    if (rc == SSW_SUCCESS) rc = write_csv(csv, o->trajectory, &s, exact);
  }
  ssw_path_free(&s);
  free(exact);
  if (csv && fclose(csv) != 0 && rc == SSW_SUCCESS)
    rc = SSW_RAISE(SSW_ERR_IO, "--trajectory: error closing '%s'",
                   o->trajectory);
  if (rc != SSW_SUCCESS) return rc;
  print_header(stdout, o, pt);
  print_damped(stdout, o, pt, &r);
  return SSW_SUCCESS;
}

static int run_point(const point_opts *o) {
  ssw_point pt;
  SSW_CALL(ssw_point_setup(&o->cfg.body, &o->p, o->cfg.zero_tol,
                           o->integ.method, &pt));
  SSW_CALL(check_energy(o, &pt.tensor));
  const ssw_tensor *t = &pt.tensor;
  const int regime = pt.regime;
  FILE *csv = NULL;
  if (o->trajectory) {
    /* Opened first: a bad path is a usage error, before any work. */
    csv = fopen(o->trajectory, "w");
    SSW_CHECK(csv, SSW_ERR_USAGE, "--trajectory: cannot write '%s': %s",
              o->trajectory, strerror(errno));
  }
  if (ssw_model_caps(t) & SSW_MCAP_COMES_TO_REST)
    return run_damped(o, &pt, csv);
  if (ssw_model_caps(t) & SSW_MCAP_TIME_PERIODIC) {
    ssw_forced r;
    int rc = ssw_forced_run(t, o->w0, o->v0, &o->integ, &r);
    if (rc == SSW_SUCCESS && csv)
      rc = ssw_cli_forced_csv(csv, o->trajectory, t, o->w0, o->v0, &o->integ,
                              &r);
    if (csv && fclose(csv) != 0 && rc == SSW_SUCCESS)
      rc = SSW_RAISE(SSW_ERR_IO, "--trajectory: error closing '%s'",
                     o->trajectory);
    if (rc == SSW_SUCCESS) rc = ssw_forced_lyapunov(t, &o->integ, &r);
    if (rc != SSW_SUCCESS) return rc;
    print_header(stdout, o, &pt);
    ssw_cli_forced_json(stdout, t, &r);
    return SSW_SUCCESS;
  }
  /* The path is always recorded: the JSON compares it with the exact one
   * (path_error_max, heading_error_max). */
  ssw_path s = {0};
  ssw_traj r;
  double(*exact)[SSW_PATH_NEXACT] = NULL;
  path_cmp cmp = {NAN, NAN, NAN};
  void *const ctx[1] = {&s};
  int rc = ssw_point_trajectories(&pt, 1, &o->w0, &o->v0, &o->integ,
                                  ssw_path_record, ctx, &r);
  if (rc == SSW_SUCCESS) {
    ssw_path_record(&s, 0, 0.0, 0.0, 0.0, 0.0, o->w0, o->v0, r.H0);
    rc = ssw_path_sort(&s);
  }
  if (rc == SSW_SUCCESS) {
    exact = malloc((s.n ? s.n : 1) * sizeof *exact);
    if (!exact)
      rc = SSW_RAISE(SSW_ERR_MEM, "out of memory for the exact path");
    else
      rc = exact_path(&s, t, regime, o, exact, &cmp);
    cmp.blade = ssw_point_blade_bound(&pt);
  }
  if (rc == SSW_SUCCESS && csv) rc = write_csv(csv, o->trajectory, &s, exact);
  ssw_path_free(&s);
  free(exact);
  if (csv && fclose(csv) != 0 && rc == SSW_SUCCESS)
    rc = SSW_RAISE(SSW_ERR_IO, "--trajectory: error closing '%s'",
                   o->trajectory);
  if (rc != SSW_SUCCESS) return rc;
  ssw_point_set_energy(&pt, r.H0);
  const twins w = twins_of(&pt, &r, ssw_analytic_sigma(t, o->w0, o->v0));
  if (ssw_model_caps(&pt.tensor) & SSW_MCAP_CIRC_CLOSED_FORM) /* its arc */
    pt.analytic.loops =
        isfinite(w.dphi) ? (int)floor(fabs(w.dphi) / (2.0 * M_PI)) : -1;
  print_json(stdout, o, &pt, &r, &w, &cmp);
  return SSW_SUCCESS;
}

int ssw_cli_point(int argc, char **argv) {
  build_options();
  static point_opts o; /* holds a config: off the stack */
  int help;
  int rc = parse(argc, argv, &o, &help);
  if (rc == SSW_SUCCESS && help) {
    print_usage(stdout);
    return 0;
  }
  if (rc == SSW_SUCCESS) rc = run_point(&o);
  if (rc == SSW_ERR_ARG) rc = SSW_ERR_USAGE;
  return rc == SSW_SUCCESS ? 0 : ssw_cli_fail("point", rc);
}
