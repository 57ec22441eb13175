/* The effect table: the ideal fluid's inertia, circulation and drag, each
 * with its keys, tensor fields and dimensions, the time unit it fixes and
 * the capabilities it takes from or gives to the model
 * (docs/theory/effects.md). A new effect is a row here, its terms in
 * model.h and its fields in ssw_tensor. */
#include "sleighsweep/effect.h"

#include <math.h>
#include <stdio.h>

#include "sleighsweep/fmt.h"

#define FIELD(f, mass, len, time)                                              \
  { #f, offsetof(ssw_tensor, f), mass, len, time }

/* Everything an ideal fluid's model has: autonomous and conservative,
 * motions between limit circles on the line of equilibria, the 2010 closed
 * form, the blade bound and the exact path, time-reversible. */
#define IDEAL_CAPS                                                             \
  (SSW_MCAP_AUTONOMOUS | SSW_MCAP_CONSERVATIVE | SSW_MCAP_EQUILIBRIA_LINE |    \
   SSW_MCAP_CLOSED_FORM_2010 | SSW_MCAP_BLADE_CLOSED_FORM |                    \
   SSW_MCAP_EXACT_PATH | SSW_MCAP_TIME_REVERSIBLE)

static int always(const ssw_tensor *t) {
  (void)t;
  return 1;
}
static unsigned loses_nothing(const ssw_tensor *t) {
  (void)t;
  return 0u;
}

/* Circulation (circulation.md): the lift's torque kappa v moves the line
 * of equilibria off the origin (no 2010 closed form, not reversible:
 * reversing time needs -Gamma); a lift without torque (r = 0) changes only
 * the blade force. */
static int circ_on(const ssw_tensor *t) {
  return t->kappa != 0.0 || t->lift != 0.0 || t->lift_s != 0.0;
}
static unsigned circ_loses(const ssw_tensor *t) {
  return t->kappa != 0.0
             ? SSW_MCAP_CLOSED_FORM_2010 | SSW_MCAP_BLADE_CLOSED_FORM |
                   SSW_MCAP_TIME_REVERSIBLE
             : SSW_MCAP_BLADE_CLOSED_FORM | SSW_MCAP_CIRC_CLOSED_FORM;
}
/* kappa: mass length / time (near kappa / (M sqrt(J / M)) in speed);
 * else the lift's own scale, mass / time. */
static int circ_time(const ssw_tensor *t, int m, int l) {
  return t->kappa != 0.0 ? ilogb(t->kappa) - m - l : ilogb(t->lift) - m;
}

/* Linear drag (drag.md): the energy falls to rest. */
static int drag_on(const ssw_tensor *t) {
  return t->cw != 0.0 || t->cv != 0.0 || t->cwv != 0.0;
}
static unsigned drag_loses(const ssw_tensor *t) {
  (void)t;
  return SSW_MCAP_CONSERVATIVE | SSW_MCAP_EQUILIBRIA_LINE |
         SSW_MCAP_CLOSED_FORM_2010 | SSW_MCAP_BLADE_CLOSED_FORM |
         SSW_MCAP_EXACT_PATH | SSW_MCAP_TIME_REVERSIBLE;
}
/* C / K: 1 / time. */
static int drag_time(const ssw_tensor *t, int m, int l) {
  (void)m, (void)l;
  return ilogb(t->cw / t->J + t->cv / t->M);
}

/* The periodic torque about the contact point (forcing.md): it does work,
 * so the energy is not conserved, g = 0 holds no equilibria, and the
 * motion does not come to rest; the equations repeat with the period
 * 2 pi / Omega (the forced extractor's period map). Omega fixes the time
 * unit and is the step control's floor rate. */
static int forcing_on(const ssw_tensor *t) {
  return t->ftau != 0.0 || t->fimp != 0.0;
}
static unsigned forcing_loses(const ssw_tensor *t) {
  (void)t;
  return SSW_MCAP_AUTONOMOUS | SSW_MCAP_CONSERVATIVE |
         SSW_MCAP_EQUILIBRIA_LINE | SSW_MCAP_CLOSED_FORM_2010 |
         SSW_MCAP_BLADE_CLOSED_FORM | SSW_MCAP_EXACT_PATH |
         SSW_MCAP_TIME_REVERSIBLE | SSW_MCAP_COMES_TO_REST |
         SSW_MCAP_CIRC_CLOSED_FORM;
}
static int forcing_time(const ssw_tensor *t, int m, int l) {
  (void)m, (void)l;
  return ilogb(t->fomega);
}
static double forcing_rate(const ssw_tensor *t) { return t->fomega; }

/* The moving internal mass (forcing.md, "The moving mass"): a
 * time-dependent inertia K(t) at the forcing's Omega; it does work on
 * the body as the torque does, and loses what the torque loses. */
static int mass_on(const ssw_tensor *t) { return t->mp != 0.0; }

/* The built-in effects, then any registered (ssw_effect_register). */
static ssw_effect effects[SSW_EFFECT_MAX] = {
    {"ideal_fluid",
     "the body's and the ideal fluid's inertia (2010 paper eq. 3.2)",
     "model.md",
     {"m", "I0", "rho", "k_rot", NULL},
     6,
     {FIELD(J, 1, 2, 0), FIELD(M, 1, 0, 0), FIELD(N, 1, 0, 0),
      FIELD(L1, 1, 1, 0), FIELD(L2, 1, 1, 0), FIELD(Z, 1, 0, 0)},
     always,
     loses_nothing,
     IDEAL_CAPS,
     NULL,
     NULL},
    {"circulation",
     "circulation about the ellipse: the lift rho Gamma Jccw V_C",
     "circulation.md",
     {"Gamma", NULL},
     3,
     {FIELD(kappa, 1, 1, -1), FIELD(lift, 1, 0, -1), FIELD(lift_s, 1, 1, -1)},
     circ_on,
     circ_loses,
     SSW_MCAP_CIRC_CLOSED_FORM,
     circ_time,
     NULL},
    {"drag",
     "linear drag -C zeta in the blade's allowed directions",
     "drag.md",
     {"drag_w", "drag_v", "drag_wv", NULL},
     3,
     {FIELD(cw, 1, 2, -1), FIELD(cv, 1, 0, -1), FIELD(cwv, 1, 1, -1)},
     drag_on,
     drag_loses,
     SSW_MCAP_COMES_TO_REST,
     drag_time,
     NULL},
    {"forcing",
     "a periodic torque about the contact point: a sine or kicks",
     "forcing.md",
     {"forcing_freq", "torque_amp", "forcing_phase", "forcing_shape", NULL},
     4,
     {FIELD(fomega, 0, 0, -1), FIELD(ftau, 1, 2, -2), FIELD(fimp, 1, 2, -1),
      FIELD(fphase, 0, 0, 0)},
     forcing_on,
     forcing_loses,
     SSW_MCAP_TIME_PERIODIC,
     forcing_time,
     forcing_rate},
    {"moving_mass",
     "a point mass moving across the blade: K(t) and its momentum sigma(t)",
     "forcing.md",
     {"mass_p", "mass_x", "mass_y", "mass_amp", NULL},
     4,
     {FIELD(mp, 1, 0, 0), FIELD(mx, 0, 1, 0), FIELD(my, 0, 1, 0),
      FIELD(mamp, 0, 1, 0)},
     mass_on,
     forcing_loses,
     SSW_MCAP_TIME_PERIODIC,
     forcing_time,
     forcing_rate},
};

/* The rows in use: the built-in ones (up to the first empty row), then
 * the registered ones. */
static int n_effects_ = -1;
static int effects_in_use(void) {
  if (n_effects_ < 0) {
    int n = 0;
    while (n < SSW_EFFECT_MAX && effects[n].name)
      n++;
    n_effects_ = n;
  }
  return n_effects_;
}
#define n_effects effects_in_use()

const ssw_effect *ssw_effect_table(int *count) {
  *count = n_effects;
  return effects;
}

int ssw_effect_register(const ssw_effect *e) {
  if (n_effects >= SSW_EFFECT_MAX) return -1;
  n_effects_++;
  effects[n_effects_ - 1] = *e;
  return 0;
}

unsigned ssw_model_caps(const ssw_tensor *t) {
  unsigned gains = 0u, loses = 0u;
  for (int i = 0; i < n_effects; i++)
    if (effects[i].on(t)) {
      gains |= effects[i].gains;
      loses |= effects[i].loses(t);
    }
  return gains & ~loses;
}

const ssw_effect *ssw_effect_lacking(const ssw_tensor *t, unsigned needed) {
  for (int i = 0; i < n_effects; i++)
    if (effects[i].on(t) && (effects[i].loses(t) & needed)) return &effects[i];
  return NULL;
}

double ssw_effect_rate(const ssw_tensor *t) {
  double nu = 0.0;
  for (int i = 0; i < n_effects; i++)
    if (effects[i].rate && effects[i].on(t)) nu = fmax(nu, effects[i].rate(t));
  return nu;
}

int ssw_effect_time_unit(const ssw_tensor *t, int m, int l, int *k) {
  for (int i = 0; i < n_effects; i++)
    if (effects[i].time_unit && effects[i].on(t)) {
      *k = effects[i].time_unit(t, m, l);
      return 1;
    }
  return 0;
}

void ssw_model_caps_text(unsigned caps, char *buf, size_t size) {
  static const ssw_fmt_flag tab[] = {
#define MCAP_ROW_(id, bit, name, ...) {bit, name},
      SSW_MODEL_CAPS(MCAP_ROW_)
#undef MCAP_ROW_
  };
  ssw_fmt_flags(caps, tab, sizeof tab / sizeof tab[0], " ", buf, size);
}
