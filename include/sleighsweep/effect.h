/* The physical effects as data: a table of effects (the ideal fluid's
 * inertia, circulation, drag), each with its configuration keys, the
 * fields of the tensor it fills and their dimensions (how the scaler
 * rescales them), the time unit it fixes, and the capabilities the model
 * keeps or gains with it (PETSc's register-and-ops pattern, as the
 * schemes' table in stepper.h). A model's capabilities follow from its
 * effects: consumers (schemes, extractors, the closed form, the exact
 * path, the blade bound, the scaler, the error estimate) ask a
 * capability, never which effect is on. Theory: docs/theory/effects.md. */
#ifndef SLEIGHSWEEP_EFFECT_H
#define SLEIGHSWEEP_EFFECT_H

#include <stddef.h>

#include "sleighsweep/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Capabilities of a model (ssw_model_caps): X(id, bit, name, meaning).
 * - AUTONOMOUS: no explicit time dependence.
 * - CONSERVATIVE: the energy H = zeta^T K zeta / 2 is conserved.
 * - EQUILIBRIA_LINE: the relative equilibria fill the line g = 0, which
 *   every motion approaches at both ends (limit circles) or circles
 *   around (periodic below H_c).
 * - CLOSED_FORM_2010: the 2010 closed form (radius, d, dphi, loops) and
 *   its quadrature of the path apply.
 * - BLADE_CLOSED_FORM: the closed form's bound on the blade force applies.
 * - EXACT_PATH: the path has a closed form by one quadrature (the 2010
 *   one, or circulation's, which may be out of reach near H_c).
 * - TIME_REVERSIBLE: reversing time maps motions onto motions.
 * - COMES_TO_REST: the energy falls and rest is the only limit.
 * - CIRC_CLOSED_FORM: circulation's closed form applies (circulation.md:
 *   the critical energy, the periodic motion below it, the two
 *   transitions above it, its path by one quadrature).
 * - TIME_PERIODIC: the equations repeat with a known period T (a periodic
 *   forcing): the stroboscopic period map is defined (forcing.md). */
#define SSW_MODEL_CAPS(X)                                                      \
  X(AUTONOMOUS, 1u, "autonomous", "no explicit time dependence")               \
  X(CONSERVATIVE, 2u, "conservative", "the energy is conserved")               \
  X(EQUILIBRIA_LINE, 4u, "line-of-equilibria",                                 \
    "relative equilibria on the line g = 0")                                   \
  X(CLOSED_FORM_2010, 8u, "closed-form-2010", "the 2010 closed form applies")  \
  X(BLADE_CLOSED_FORM, 16u, "blade-closed-form",                               \
    "the blade force's closed-form bound applies")                             \
  X(EXACT_PATH, 32u, "exact-path", "the path by one quadrature applies")       \
  X(TIME_REVERSIBLE, 64u, "time-reversible",                                   \
    "reversing time maps motions onto motions")                                \
  X(COMES_TO_REST, 128u, "comes-to-rest", "the energy falls to rest")          \
  X(CIRC_CLOSED_FORM, 256u, "circulation-closed-form",                         \
    "circulation's closed form (H_c, periodic motion, two transitions)")       \
  X(TIME_PERIODIC, 512u, "time-periodic",                                      \
    "the equations repeat with the forcing period")
#define SSW_MCAP_ENUM_(id, bit, ...) SSW_MCAP_##id = bit,
enum { SSW_MODEL_CAPS(SSW_MCAP_ENUM_) };

/** The names of the capabilities in `caps`, space-separated, into buf. */
void ssw_model_caps_text(unsigned caps, char *buf, size_t size);

/** A field of a struct of doubles and its dimension: the exponents of
 * mass, length and time (kappa, mass length / time: 1, 1, -1). */
typedef struct {
  const char *name;
  size_t offset;
  signed char mass, length, time;
} ssw_field_dim;

/** The most fields and keys an effect declares. */
#define SSW_EFFECT_FIELDS 8
#define SSW_EFFECT_KEYS 4

/** A physical effect and its operations. */
typedef struct {
  const char *name;        /**< "ideal_fluid", "circulation", "drag" */
  const char *description; /**< one line */
  const char *theory;      /**< its theory page under docs/theory/ */
  /** Its [body] configuration keys (NULL-terminated). */
  const char *keys[SSW_EFFECT_KEYS + 1];
  /** The ssw_tensor fields it fills, with their dimensions
   * (`n_fields` of them): the scaler rescales exactly these. */
  int n_fields;
  ssw_field_dim fields[SSW_EFFECT_FIELDS];
  /** Whether the effect acts on this tensor (always, for the ideal
   * fluid). */
  int (*on)(const ssw_tensor *t);
  /** The capabilities the model loses with the effect on (may depend
   * on the tensor: a circulation whose torque vanishes keeps the 2010
   * closed form), and those it gains: a model has the capabilities some
   * effect gains and none loses. */
  unsigned (*loses)(const ssw_tensor *t);
  unsigned gains;
  /** The effect fixes the time unit of the scaled integration (its
   * constants carry a time: a circulation, a drag rate, a forcing
   * period): the exponent k of the time unit 2^-k in units where mass
   * is 2^m and length 2^l. NULL: it fixes no unit. Asked in table
   * order; the first effect that is on and fixes one wins. */
  int (*time_unit)(const ssw_tensor *t, int m, int l);
  /** The fastest angular frequency of the effect's own (a forcing's
   * Omega), in the tensor's time unit, which the step control must
   * resolve whatever the motion does: the step density's floor
   * (step-control.md). NULL: none. */
  double (*rate)(const ssw_tensor *t);
} ssw_effect;

/** Most effects the table holds (built-in and registered). */
#define SSW_EFFECT_MAX 8

/** The effect table; `count` receives its length. */
const ssw_effect *ssw_effect_table(int *count);

/** Appends an effect to the table (tests: an effect no extractor serves),
 * before anything runs; not thread-safe. Returns 0, or -1 when the table
 * is full. */
int ssw_effect_register(const ssw_effect *e);

/** The capabilities of the model of a tensor: those an effect that is on
 * gains and none that is on loses. */
unsigned ssw_model_caps(const ssw_tensor *t);

/** The first effect that is on and lacks one of the capabilities
 * `needed` (NULL when none: the model has them all). */
const ssw_effect *ssw_effect_lacking(const ssw_tensor *t, unsigned needed);

/** The largest rate (ssw_effect.rate) of the effects that are on, 0 when
 * none declares one. */
double ssw_effect_rate(const ssw_tensor *t);

/** The time-unit exponent the effects fix for a tensor in units 2^m,
 * 2^l: 1 and `*k` set when one does, 0 otherwise. */
int ssw_effect_time_unit(const ssw_tensor *t, int m, int l, int *k);

#ifdef __cplusplus
}
#endif
#endif
