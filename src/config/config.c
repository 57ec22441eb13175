/* Sweep configuration: INI parsing (libinih), defaults and validation.
 * The key table is in config_keys.c, value lexing in config_value.c and
 * config_axis.c, "did you mean" hints in hint.c. */
#define _XOPEN_SOURCE 700 /* strdup, M_PI */
#include "sleighsweep/config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/fmt.h"
#include "sleighsweep/hint.h"
#include "sleighsweep/sample_points.h"

/* Largest config file accepted by ssw_config_load. */
#define MAX_FILE_BYTES (16u << 20)

/* Parser state shared by the line reader and the key handler. */
typedef struct {
  const char *name; /* label of messages (the path) */
  const char *text; /* whole text */
  const char *pos;  /* reader position */
  int line;         /* line just returned by the reader */
  const char *raw;  /* that line's text in `text` (up to its newline) */
  int indented;     /* that line starts with a blank */
  int headers;      /* lines so far that look like a [section] header */
  int err;          /* first error raised (0: none) */
  int err_line;     /* its line */
  ssw_config *cfg;  /* being filled */
  int set_line[SSW_CFG_NKEYS]; /* line that set each key (0: not set) */
} parse_state;

/* ---------------------------------------------------------------------- */
/* Messages                                                               */

/* Records the first error as "NAME:LINE: [section] key: what". Later errors
 * are ignored: the first one is what the user should fix. */
__attribute__((format(printf, 5, 6))) static int fail(parse_state *st, int line,
                                                      const char *section,
                                                      const char *key,
                                                      const char *fmt, ...) {
  if (st->err) return st->err;
  char what[768], where[160] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const int has_sec = section && *section, has_key = key && *key;
  if (has_sec || has_key)
    snprintf(where, sizeof where, "%s%.40s%s%s%.60s:", has_sec ? " [" : "",
             has_sec ? section : "", has_sec ? "]" : "", has_key ? " " : "",
             has_key ? key : "");
  st->err =
      SSW_RAISE(SSW_ERR_CONFIG, "%s:%d:%s %s", st->name, line, where, what);
  st->err_line = line;
  return st->err;
}

int ssw_config_near_miss(const char *typed, const char *candidate) {
  return typed && candidate && ssw_near_miss(typed, candidate);
}

static int unknown_section(parse_state *st, const char *section,
                           const char *name) {
  for (int i = 0; i < SSW_CFG_NSECTIONS; i++)
    if (ssw_near_miss(section, ssw_cfg_sections[i]))
      return fail(st, st->line, section, name,
                  "unknown section [%.40s]; did you mean [%s]?", section,
                  ssw_cfg_sections[i]);
  return fail(st, st->line, section, name,
              "unknown section [%.40s]; valid sections are [body], [grid], "
              "[ensemble], [integrator], [output] and [run]",
              section);
}

static int unknown_key(parse_state *st, const char *section, const char *name) {
  char valid[256];
  ssw_cfg_section_keys(section, valid, sizeof valid);
  for (int k = 0; k < SSW_CFG_NKEYS; k++)
    if (strcmp(ssw_cfg_keys[k].section, section) == 0 &&
        ssw_near_miss(name, ssw_cfg_keys[k].name))
      return fail(st, st->line, section, name,
                  "unknown key '%.40s'; did you mean '%s'? (keys are "
                  "case-sensitive; valid keys: %s)",
                  name, ssw_cfg_keys[k].name, valid);
  for (int k = 0; k < SSW_CFG_NKEYS; k++)
    if (strcmp(ssw_cfg_keys[k].name, name) == 0)
      return fail(st, st->line, section, name,
                  "key '%s' belongs in section [%s], not [%s]", name,
                  ssw_cfg_keys[k].section, section);
  return fail(st, st->line, section, name,
              "unknown key '%.40s'; valid keys in [%s] are: %s", name, section,
              valid);
}

/* libinih handler: called once per "key = value" line (and again for an
 * indented continuation line, which we refuse). */
/* Whether the raw line of a sample_points key has a ';' comment that
 * holds another selection (an '=' after it): libinih has cut it off, and
 * the user meant it as a separator. */
static int lost_selection(const parse_state *st) {
  const char *eol = strchr(st->raw, '\n');
  const char *eq = strchr(st->raw, '=');
  const char *semi = eq ? strchr(eq, ';') : NULL;
  if (!semi || (eol && semi > eol)) return 0;
  const char *more = strchr(semi, '=');
  return more && (!eol || more < eol);
}

static int handle_key(void *user, const char *section, const char *name,
                      const char *value) {
  parse_state *st = user;
  if (st->err) return 1; /* the first error is kept; inih saw it */
  if (!*section)
    return fail(st, st->line, NULL, name,
                st->headers ? "key '%.40s' is in a section with an empty "
                              "name ('[]'); name the section"
                            : "key '%.40s' comes before any [section] header",
                name),
           0;
  if (!ssw_cfg_is_section(section))
    return unknown_section(st, section, name), 0;
  if (!*name)
    return fail(st, st->line, section, NULL,
                "a line has no key before "
                "'='"),
           0;
  const int k = ssw_cfg_find_key(section, name);
  if (k < 0) return unknown_key(st, section, name), 0;
  if (st->set_line[k])
    return fail(st, st->line, section, name,
                "duplicate key '%s' (first set on line %d)%s", name,
                st->set_line[k],
                st->indented ? "; this indented line is read as a "
                               "continuation of it, and continuation lines "
                               "are not supported: write the value on one "
                               "line"
                             : "; give every key once"),
           0;
  st->set_line[k] = st->line;
  if (ssw_cfg_keys[k].kind == K_POINTS && lost_selection(st))
    return fail(st, st->line, section, name,
                "a ';' after a blank starts a comment, so the selection "
                "after it would be ignored: separate selections with '|'"),
           0;
  char why[512];
  if (!*value)
    snprintf(why, sizeof why, "no value given (%s)", ssw_cfg_keys[k].help);
  else if (ssw_cfg_assign(st->cfg, &ssw_cfg_keys[k], st->line, value, why,
                          sizeof why) == 0)
    return 1;
  return fail(st, st->line, section, name, "%s", why), 0;
}

/* ---------------------------------------------------------------------- */
/* Reading and finishing                                                  */

/* libinih reader over the text: one line per call, so that st->line is the
 * line of every handler call. Over-long lines are refused whole (libinih
 * would split them into several lines). */
static char *read_line(char *buf, int size, void *stream) {
  parse_state *st = stream;
  if (*st->pos == '\0' || size < 2) return NULL;
  const char *eol = strchr(st->pos, '\n');
  const size_t len = eol ? (size_t)(eol - st->pos) + 1 : strlen(st->pos);
  st->line++;
  st->raw = st->pos;
  st->indented = *st->pos == ' ' || *st->pos == '\t';
  st->headers += st->pos[strspn(st->pos, " \t")] == '[';
  if (len > (size_t)size - 1) {
    fail(st, st->line, NULL, NULL,
         "the line is longer than %d characters (the limit of libinih); "
         "shorten it, e.g. write a long axis as linspace(start, stop, n)",
         size - 2);
    strcpy(buf, "\n");
  } else {
    memcpy(buf, st->pos, len);
    buf[len] = '\0';
  }
  st->pos += len;
  return buf;
}

/* libinih only reports the line of a syntax error; quote that line. */
static int syntax_error(parse_state *st, int line) {
  const char *p = st->text;
  for (int i = 1; i < line && p; i++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  char quote[64] = "";
  size_t q = 0;
  while (p && *p == ' ')
    p++;
  for (; p && *p && *p != '\n' && *p != '\r' && q + 1 < sizeof quote; p++)
    quote[q++] = isprint((unsigned char)*p) ? *p : '?';
  quote[q] = '\0';
  st->err = 0;
  if (quote[0] == '[')
    return fail(st, line, NULL, NULL,
                "'%s' is not a valid section header; expected [name]", quote);
  return fail(st, line, NULL, NULL,
              "'%s' is not a [section], a 'key = value' line or a comment "
              "(';' or '#')",
              quote);
}

/* Default output: the config's file name with its extension replaced by
 * .h5, in the config's directory (absolute_output adds the directory). */
static int default_output(parse_state *st) {
  const char *name = st->name, *slash = strrchr(name, '/');
  const char *base = slash ? slash + 1 : name, *dot = strrchr(base, '.');
  if (dot && strcmp(dot, ".h5") == 0)
    return fail(st, st->line, "output", "file",
                "the default output (the config name with extension .h5) "
                "would overwrite the config itself; set file explicitly");
  const size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  st->cfg->file = malloc(stem + 4);
  if (!st->cfg->file) return SSW_RAISE(SSW_ERR_MEM, "out of memory");
  memcpy(st->cfg->file, base, stem);
  strcpy(st->cfg->file + stem, ".h5");
  return SSW_SUCCESS;
}

/* "a" + "/" + "b" into a new string (NULL: out of memory). */
static char *join(const char *a, const char *b) {
  const size_t n = strlen(a) + strlen(b) + 2;
  char *s = malloc(n);
  if (s)
    snprintf(s, n, "%s%s%s", a, a[0] && a[strlen(a) - 1] == '/' ? "" : "/", b);
  return s;
}

/* The absolute directory of the config file: its directory as named,
 * after the current directory when relative (lexically when getcwd fails:
 * then it stays relative). */
static char *config_dir(const char *name) {
  const char *slash = strrchr(name, '/');
  char dir[4096];
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash == name ? 1 : slash - name),
             name);
  char cwd[4096];
  if (dir[0] == '/' || !getcwd(cwd, sizeof cwd)) return strdup(dir);
  return strcmp(dir, ".") == 0 ? strdup(cwd) : join(cwd, dir);
}

/* A relative [output] file is relative to the config's directory, whatever
 * the current directory (docs/config.md, [output]); cfg->file becomes
 * absolute, its directory resolved by realpath when it exists (else the
 * lexical join). Ranks parse the same text under the same name, so they
 * agree as long as they see the same directories. */
static int absolute_output(parse_state *st) {
  ssw_config *c = st->cfg;
  char *dir = c->file[0] == '/' ? NULL : config_dir(st->name);
  char *path = c->file[0] == '/' ? strdup(c->file)
               : dir             ? join(dir, c->file)
                                 : NULL;
  free(dir);
  if (!path) return SSW_RAISE(SSW_ERR_MEM, "out of memory");
  char *slash = strrchr(path, '/'), real[PATH_MAX];
  *slash = '\0';
  char *resolved =
      realpath(slash == path ? "/" : path, real) ? join(real, slash + 1) : NULL;
  *slash = '/';
  free(c->file);
  if (resolved) free(path);
  c->file = resolved ? resolved : path;
  return SSW_SUCCESS;
}

/* Keys the file did not set take the table's default text (axes get line
 * 0); a default that does not parse is a bug of the table. */
static int apply_defaults(parse_state *st) {
  char why[512];
  for (int k = 0; k < SSW_CFG_NKEYS; k++) {
    if (st->set_line[k] || !ssw_cfg_keys[k].def || !*ssw_cfg_keys[k].def)
      continue;
    SSW_CHECK(ssw_cfg_assign(st->cfg, &ssw_cfg_keys[k], 0, ssw_cfg_keys[k].def,
                             why, sizeof why) == 0,
              SSW_ERR_INTERNAL, "default of [%s] %s: %s",
              ssw_cfg_keys[k].section, ssw_cfg_keys[k].name, why);
  }
  return SSW_SUCCESS;
}

/* rtol (adaptive, default) and eta (fixed step) exclude each other: the
 * rtol given is used, eta alone leaves rtol 0 (fixed steps), and neither
 * takes the default rtol. */
static int integrator_mode(parse_state *st) {
  const int kr = ssw_cfg_find_key("integrator", "rtol");
  const int ke = ssw_cfg_find_key("integrator", "eta");
  if (st->set_line[kr] && st->set_line[ke])
    return fail(st, st->set_line[ke], "integrator", "eta",
                "rtol (line %d) and eta exclude each other: rtol asks for "
                "an accuracy and lets the engine choose the steps, eta "
                "fixes the step; give one of them",
                st->set_line[kr]);
  if (!st->set_line[kr] && !st->set_line[ke])
    st->cfg->integ.rtol = SSW_RTOL_DEFAULT;
  return SSW_SUCCESS;
}

/* The sample_points selection, once the grid is known. */
static int sample_points(parse_state *st) {
  ssw_config *c = st->cfg;
  char why[512] = "";
  const int rc = ssw_sample_points_parse(c, c->sample_points, &c->sample_sel,
                                         why, sizeof why);
  if (rc == SSW_ERR_CONFIG)
    return fail(st, st->set_line[ssw_cfg_find_key("output", "sample_points")],
                "output", "sample_points", "%s", why);
  return rc;
}

/* The run axes (names.h SSW_RUN_AXES): [grid] Gamma, energy, drag_w,
 * drag_v and drag_wv sweep what [body] Gamma, [ensemble] energy and
 * [body] drag_w, drag_v, drag_wv fix. A quantity is given
 * once: a list under [grid], or one value under its own section (or its
 * default), which then becomes the axis's one value. An axis of one value
 * also sets the scalar, so both spellings of a run are the same config. */
#define RUN_AXIS_(id, index, name, units, long_name, field, section, home)     \
  {SSW_AXIS_##id, section, offsetof(ssw_config, home)},
static int run_axes(parse_state *st) {
  static const struct {
    int axis;
    const char *section;
    size_t offset;
  } run[] = {SSW_RUN_AXES(RUN_AXIS_)};
  ssw_config *c = st->cfg;
  for (size_t i = 0; i < sizeof run / sizeof run[0]; i++) {
    const char *name = ssw_axis_names[run[i].axis];
    const int kg = ssw_cfg_find_key("grid", name);
    const int ks = ssw_cfg_find_key(run[i].section, name);
    double *scalar = (double *)(void *)((char *)c + run[i].offset);
    ssw_axis *ax = &c->axes[run[i].axis];
    if (st->set_line[kg] && st->set_line[ks])
      return fail(st, st->set_line[kg], "grid", name,
                  "[%s] %s (line %d) already gives %s one value; give it "
                  "once: one value under [%s], or an axis (a list or "
                  "linspace) under [grid]",
                  run[i].section, name, st->set_line[ks], name, run[i].section);
    if (!st->set_line[kg]) {
      free(ax->values);
      ax->values = malloc(sizeof *ax->values);
      SSW_CHECK(ax->values, SSW_ERR_MEM, "out of memory");
      ax->n = 1;
      ax->values[0] = *scalar;
      ax->line = st->set_line[ks];
    } else if (ax->n == 1) {
      *scalar = ax->values[0];
    }
  }
  return SSW_SUCCESS;
}

/* Circulation needs a fluid: lift is rho Gamma, so Gamma != 0 anywhere on
 * the grid with rho = 0 would change nothing the user asked for. */
static int circulation_fluid(parse_state *st) {
  const ssw_config *c = st->cfg;
  const ssw_axis *g = &c->axes[SSW_AXIS_GAMMA];
  if (c->body.rho != 0.0) return SSW_SUCCESS;
  for (int i = 0; i < g->n; i++)
    if (g->values[i] != 0.0) {
      const int kg = ssw_cfg_find_key("grid", "Gamma");
      const int kb = ssw_cfg_find_key("body", "Gamma");
      const int swept = st->set_line[kg] != 0;
      return fail(st, swept ? st->set_line[kg] : st->set_line[kb],
                  swept ? "grid" : "body", "Gamma",
                  "Gamma = %g with rho = 0: without a fluid there is no "
                  "lift, so the circulation would change nothing; set rho > "
                  "0 or remove Gamma",
                  g->values[i]);
    }
  return SSW_SUCCESS;
}

/* The drag matrix C = [[drag_w, drag_wv], [drag_wv, drag_v]] positive
 * semidefinite at every grid point. Every combination of the axes' values
 * is a point, so the worst is the largest |drag_wv| with the smallest
 * drag_w and drag_v (values increase: the ends). */
static int drag_psd(parse_state *st) {
  const ssw_config *c = st->cfg;
  const ssw_axis *w = &c->axes[SSW_AXIS_DRAG_W], *v = &c->axes[SSW_AXIS_DRAG_V];
  const ssw_axis *wv = &c->axes[SSW_AXIS_DRAG_WV];
  const double cw = w->values[0], cv = v->values[0];
  const double cwv = fmax(fabs(wv->values[0]), fabs(wv->values[wv->n - 1]));
  if (ssw_model_check_drag(cw, cv, cwv) == SSW_SUCCESS) return SSW_SUCCESS;
  ssw_error_clear();
  const int swept = wv->n > 1 || w->n > 1 || v->n > 1;
  /* Blame drag_wv where the file set it: [grid] (even with one value) or
   * [body]. */
  const int kg = ssw_cfg_find_key("grid", "drag_wv");
  const int in_grid = st->set_line[kg] != 0;
  const int line = in_grid ? st->set_line[kg]
                           : st->set_line[ssw_cfg_find_key("body", "drag_wv")];
  char w_[SSW_FMT_SHORTEST], v_[SSW_FMT_SHORTEST], wv_[SSW_FMT_SHORTEST],
      b_[SSW_FMT_SHORTEST];
  return fail(st, line, in_grid ? "grid" : "body", "drag_wv",
              "the drag matrix [[drag_w, drag_wv], [drag_wv, drag_v]] = "
              "[[%s, %s], [%s, %s]]%s is not positive semidefinite: "
              "|drag_wv| must be at most sqrt(drag_w drag_v) = %s, or some "
              "motion would gain energy from the drag",
              ssw_fmt_shortest(cw, w_), ssw_fmt_shortest(cwv, wv_), wv_,
              ssw_fmt_shortest(cv, v_), swept ? " (at a grid point)" : "",
              ssw_fmt_shortest(ssw_model_drag_wv_max(cw, cv), b_));
}

/* The first axis that forces a grid point (torque_amp or mass_p nonzero
 * somewhere on the grid) and that value; -1 when none does. */
static int forcing_axis(const ssw_config *c, double *value) {
  static const int axes[] = {SSW_AXIS_TORQUE_AMP, SSW_AXIS_MASS_P};
  for (size_t a = 0; a < sizeof axes / sizeof axes[0]; a++)
    for (int i = 0; i < c->axes[axes[a]].n; i++)
      if (c->axes[axes[a]].values[i] != 0.0)
        return *value = c->axes[axes[a]].values[i], axes[a];
  return -1;
}

/* [refine] classes = attractor (chaos) refines where a point's attractor
 * (the sign of its largest Lyapunov exponent) changes: without forcing on
 * the grid every point has the same (rest, or none), and the refinement
 * would silently find nothing. */
#define CFG_CLASS_(id, bit, ...) CFG_CLASS_##id = bit,
enum { SSW_REFINE_CLASSES(CFG_CLASS_) };
static int attractor_needs_forcing(parse_state *st) {
  double x;
  const int32_t bits = st->cfg->refine_classes;
  if (!(bits & (CFG_CLASS_ATTRACTOR | CFG_CLASS_CHAOS)) ||
      forcing_axis(st->cfg, &x) >= 0)
    return SSW_SUCCESS;
  const int k = ssw_cfg_find_key("refine", "classes");
  return fail(st, st->set_line[k], "refine", "classes",
              "%s: no grid point is forced (torque_amp = mass_p = 0 "
              "everywhere), so no attractor changes; give [body] or [grid] "
              "torque_amp or mass_p a nonzero value",
              bits & CFG_CLASS_ATTRACTOR ? "attractor" : "chaos");
}

/* Checks that need the whole file: syntax, required keys, cross-key. */
static int finish(parse_state *st, int rc) {
  if (rc == -2) return SSW_RAISE(SSW_ERR_MEM, "libinih: out of memory");
  if (rc > 0 && (!st->err || rc < st->err_line)) return syntax_error(st, rc);
  if (st->err) return st->err;
  for (int k = 0; k < SSW_CFG_NKEYS; k++)
    if (ssw_cfg_keys[k].def == REQUIRED && !st->set_line[k])
      return fail(st, st->line, ssw_cfg_keys[k].section, ssw_cfg_keys[k].name,
                  "required key is missing (%s); add '%s = ...' to the "
                  "[%s] section",
                  ssw_cfg_keys[k].help, ssw_cfg_keys[k].name,
                  ssw_cfg_keys[k].section);
  SSW_CALL(apply_defaults(st));
  SSW_CALL(integrator_mode(st));
  SSW_CALL(run_axes(st));
  SSW_CALL(circulation_fluid(st));
  SSW_CALL(drag_psd(st));
  SSW_CALL(attractor_needs_forcing(st));
  const ssw_config *c = st->cfg;
  if (c->samples > c->trajectories) {
    const int k = ssw_cfg_find_key("output", "samples");
    return fail(st, st->set_line[k], "output", "samples",
                "samples = %d exceeds [ensemble] trajectories = %d; the "
                "samples are taken from the ensemble",
                (int)c->samples, (int)c->trajectories);
  }
  if (c->refine_trajectories > c->trajectories) {
    const int k = ssw_cfg_find_key("refine", "trajectories");
    return fail(st, st->set_line[k], "refine", "trajectories",
                "trajectories = %d exceeds [ensemble] trajectories = %d; a "
                "refinement evaluation runs the first of the ensemble's "
                "trajectories",
                (int)c->refine_trajectories, (int)c->trajectories);
  }
  SSW_CALL(sample_points(st));
  if (!c->file) SSW_CALL(default_output(st));
  return absolute_output(st);
}

/* A carriage return that does not end a line (CR LF does: libinih takes
 * it as blank space). A file with CR alone between its lines (classic
 * Mac OS) would read as one long line; it is refused, saying so, rather
 * than guessed at: the stored text and its line numbers stay the file's. */
static int lone_cr(parse_state *st) {
  const char *cr = st->text;
  while ((cr = strchr(cr, '\r')) && cr[1] == '\n')
    cr += 2;
  if (!cr) return SSW_SUCCESS;
  int line = 1;
  for (const char *p = st->text; p < cr; p++)
    line += *p == '\n';
  if (!strchr(st->text, '\n'))
    return fail(st, line, NULL, NULL,
                "the file separates its lines by carriage returns alone (CR, "
                "old Mac OS line endings); write it with newlines (LF) or "
                "CR LF, e.g. tr '\\r' '\\n' < OLD > NEW");
  return fail(st, line, NULL, NULL,
              "a carriage return (CR) inside the line, not before a newline "
              "(mixed line endings?); write the file with newlines (LF) or "
              "CR LF only");
}

/* ---------------------------------------------------------------------- */
/* Public functions                                                       */

static int parse_into(ssw_config *cfg, const char *text, const char *name) {
  cfg->path = strdup(name);
  cfg->text = strdup(text);
  SSW_CHECK(cfg->path && cfg->text, SSW_ERR_MEM, "out of memory");
  parse_state st = {.name = name, .text = text, .pos = text, .cfg = cfg};
  SSW_CALL(lone_cr(&st));
  const int rc = ini_parse_stream(read_line, &st, handle_key, &st);
  return finish(&st, rc);
}

void ssw_config_ensemble(const ssw_config *cfg, ssw_ensemble_spec *sp) {
  *sp = (ssw_ensemble_spec){.body = cfg->body,
                            .zero_tol = cfg->zero_tol,
                            .integ = cfg->integ,
                            .trajectories = cfg->trajectories,
                            .attractor_slots = cfg->attractor_slots,
                            .seed = cfg->seed,
                            .ic = cfg->ic,
                            .energy = cfg->energy,
                            .samples = cfg->samples,
                            .sample_nodes = cfg->sample_nodes,
                            .no_exact_path = cfg->exact_path_every == 0,
                            .path_every = cfg->exact_path_every};
}

int ssw_config_parse(const char *text, const char *name, ssw_config **cfg) {
  SSW_CHECK(cfg, SSW_ERR_ARG, "ssw_config_parse: cfg is NULL");
  *cfg = NULL;
  SSW_CHECK(text, SSW_ERR_ARG, "ssw_config_parse: text is NULL");
  ssw_config *c = calloc(1, sizeof *c);
  SSW_CHECK(c, SSW_ERR_MEM, "out of memory");
  const int status = parse_into(c, text, name ? name : "config");
  if (status != SSW_SUCCESS) {
    ssw_config_destroy(&c);
    return status;
  }
  *cfg = c;
  return SSW_SUCCESS;
}

/* Whole file into a NUL-terminated buffer (*text, caller frees). */
static int read_file(const char *path, char **text, size_t *len) {
  FILE *f = fopen(path, "rb");
  SSW_CHECK(f, SSW_ERR_IO, "cannot open config file '%s': %s", path,
            strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  int status = buf ? SSW_SUCCESS : SSW_RAISE(SSW_ERR_MEM, "out of memory");
  while (status == SSW_SUCCESS) {
    n += fread(buf + n, 1, cap - 1 - n, f);
    if (ferror(f)) {
      status = SSW_RAISE(SSW_ERR_IO, "cannot read config file '%s': %s", path,
                         strerror(errno));
    } else if (feof(f)) {
      break;
    } else if (cap >= MAX_FILE_BYTES) {
      status = SSW_RAISE(SSW_ERR_CONFIG,
                         "%s:0: the config file is larger "
                         "than %u bytes",
                         path, MAX_FILE_BYTES);
    } else {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger)
        status = SSW_RAISE(SSW_ERR_MEM, "out of memory");
      else
        buf = bigger;
    }
  }
  fclose(f);
  if (status != SSW_SUCCESS) return free(buf), status;
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return SSW_SUCCESS;
}

int ssw_config_load(const char *path, ssw_config **cfg) {
  SSW_CHECK(cfg, SSW_ERR_ARG, "ssw_config_load: cfg is NULL");
  *cfg = NULL;
  SSW_CHECK(path, SSW_ERR_ARG, "ssw_config_load: path is NULL");
  char *text = NULL;
  size_t len = 0;
  SSW_CALL(read_file(path, &text, &len));
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    int line = 1;
    for (const char *p = text; p < nul; p++)
      line += *p == '\n';
    free(text);
    return SSW_RAISE(SSW_ERR_CONFIG,
                     "%s:%d: the file contains a NUL byte; "
                     "a config must be a text file",
                     path, line);
  }
  const int status = ssw_config_parse(text, path, cfg);
  free(text);
  return status;
}

int ssw_config_file_axes(const ssw_config *cfg, int out[SSW_NAXES]) {
  int count = 0;
  for (int a = 0; a < SSW_NAXES; a++)
    if (a < SSW_NBODY_AXES || cfg->axes[a].n > 1) out[count++] = a;
  return count;
}

void ssw_config_print_axes(const ssw_config *cfg, FILE *f) {
  int width = 0; /* the longest axis name: the columns line up */
  for (int a = 0; a < SSW_NAXES; a++)
    if ((int)strlen(ssw_axis_names[a]) > width)
      width = (int)strlen(ssw_axis_names[a]);
  for (int a = 0; a < SSW_NAXES; a++) {
    const ssw_axis *ax = &cfg->axes[a];
    const double lo = ax->values[0], hi = ax->values[ax->n - 1];
    fprintf(f, "  %-*s %7d value%s  ", width, ssw_axis_names[a], ax->n,
            ax->n == 1 ? " " : "s");
    if (ax->n == 1)
      fprintf(f, "%.10g", lo);
    else
      fprintf(f, "%.10g to %.10g", lo, hi);
    if (a == 0) /* radians, and the degrees the user most likely meant */
      fprintf(f, ax->n == 1 ? " rad (%.10g deg)" : " rad (%.10g to %.10g deg)",
              lo * (180.0 / M_PI), hi * (180.0 / M_PI));
    else if (cfg->length_unit[0] && a < SSW_NBODY_AXES)
      fprintf(f, " %s", cfg->length_unit);
    fputc('\n', f);
  }
}

void ssw_config_destroy(ssw_config **cfg) {
  if (!cfg || !*cfg) return;
  ssw_config *c = *cfg;
  for (int a = 0; a < SSW_NAXES; a++)
    free(c->axes[a].values);
  free(c->file);
  free(c->sample_points);
  ssw_sample_points_free(&c->sample_sel);
  free(c->path);
  free(c->text);
  free(c);
  *cfg = NULL;
}
