/* Grid points chosen for sample trajectories: the `[output] sample_points`
 * selection (docs/config.md, "Sample trajectories"). */
#ifndef SLEIGHSWEEP_SAMPLE_POINTS_H
#define SLEIGHSWEEP_SAMPLE_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "sleighsweep/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Parses a selection against the grid of `cfg` (its axes must be set):
 *   all                          every grid point
 *   none                         no grid point
 *   SEL [| SEL ...]              the union of the selections
 * where a selection SEL is one or more terms `axis = value` separated by
 * blanks or commas, naming each axis at most once; it chooses the points
 * whose named axes have those values (an axis not named: every value).
 * Axis names as in ssw_axis_names; theta values in the angle grammar
 * (angle.h), others decimal numbers. A value must be one of its axis's
 * values (to 1e-9 of the axis's scale). On error returns SSW_ERR_CONFIG
 * with a message for the user in why[0..n) (it does not raise: the
 * caller adds where the text came from), and *sp is empty; SSW_ERR_MEM
 * (raised). Memory is proportional to the chosen points, not the grid. */
int ssw_sample_points_parse(const ssw_config *cfg, const char *text,
                            ssw_sample_points *sp, char *why, size_t n);

/** Position of grid point `index` among the chosen points, or -1. */
int64_t ssw_sample_points_slot(const ssw_sample_points *sp, uint64_t index);

/** Frees the list (NULL-safe) and empties it. */
void ssw_sample_points_free(ssw_sample_points *sp);

#ifdef __cplusplus
}
#endif
#endif
