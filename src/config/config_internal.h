/* Private to the config parser (src/config*.c): the key table, the value
 * parsers and the error helper they share. Not installed. */
#ifndef SLEIGHSWEEP_CONFIG_INTERNAL_H
#define SLEIGHSWEEP_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/config.h"

/* Kinds of values; each has one parser (config_value.c, config_axis.c). */
enum kind {
  K_REAL,   /* finite double in [lo, hi] (lo excluded when lo_open) */
  K_INT32,  /* decimal integer in [lo, hi] */
  K_INT64,  /* decimal integer >= lo */
  K_SEED,   /* unsigned 64-bit decimal integer */
  K_BOOL,   /* true|false|yes|no|1|0 */
  K_AXIS,   /* number, list or linspace(start, stop, n) */
  K_KROT,   /* papers | lamb | number >= 0 */
  K_SCHEME, /* ssw_method_find */
  K_RECON,  /* ssw_recon_find */
  K_IC,     /* random | lattice */
  K_FILE,   /* non-empty path */
  K_UNIT,   /* a unit symbol (letters), into a char[32] field */
  K_POINTS, /* a sample_points selection, kept as text until the grid is
               known (sample_points.h) */
  K_CLASS,  /* none | comma list of SSW_REFINE_CLASSES names (refine.h) */
  K_SHAPE,  /* SSW_FORCING_SHAPES name, into an int */
};

/* One key: where it lives, its default written as the user would write it
 * (REQUIRED: none; COMPUTED: derived after parsing), its kind and range. */
typedef struct {
  const char *section, *name, *def;
  int kind;
  size_t offset; /* field of ssw_config (axis index for K_AXIS) */
  double lo, hi; /* range (K_AXIS: of every value when hi > lo) */
  int lo_open;
  const char *help; /* what the key means, for messages */
} key_spec;

#define REQUIRED NULL
#define COMPUTED ""

/* The key table (config_keys.c), in the order of the docs and of the
 * canonical text; its length is checked against SSW_CFG_NKEYS there. */
#define SSW_CFG_NKEYS 64
extern const key_spec ssw_cfg_keys[SSW_CFG_NKEYS];
#define SSW_CFG_NSECTIONS 7
extern const char *const ssw_cfg_sections[SSW_CFG_NSECTIONS];

/* Index of [section] name in the table, or -1. */
int ssw_cfg_find_key(const char *section, const char *name);
/* 1 when `section` is one of ours. */
int ssw_cfg_is_section(const char *section);
/* Comma-separated list of the keys of a section into buf. */
void ssw_cfg_section_keys(const char *section, char *buf, size_t size);

/* Value lexing (config_lex.c, which calls no other config file). Each
 * returns 0, or -1 with `why` set. */
char *ssw_cfg_trim(char *s);
int ssw_cfg_parse_real(const char *tok, double *v, char *why, size_t n);
int ssw_cfg_parse_integer(const char *tok, int is_unsigned, long long *sv,
                          unsigned long long *uv, char *why, size_t n);
/* Parses `value` for key k and stores it into cfg (line: of the file, 0
 * for a default). */
int ssw_cfg_assign(ssw_config *cfg, const key_spec *k, int line,
                   const char *value, char *why, size_t n);
/* The canonical text of [refine] classes bits ("none", "regime, loops"). */
void ssw_cfg_classes_text(int32_t bits, char *buf, size_t n);
/* An axis value (number, list or linspace) into its axis (config_axis.c). */
int ssw_cfg_assign_axis(ssw_config *cfg, const key_spec *k, int line,
                        const char *value, char *why, size_t n);

#endif
