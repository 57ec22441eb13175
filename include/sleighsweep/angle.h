/* One grammar for angles typed by users: the config's theta axis, `point
 * --theta`, and (mirrored in analysis/sswfile.py parse_angle) the analysis
 * scripts. Reference: docs/config.md, "Angles". */
#ifndef SLEIGHSWEEP_ANGLE_H
#define SLEIGHSWEEP_ANGLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The unit an angle was written in. */
typedef enum {
  SSW_ANGLE_BARE = 0, /**< a plain number: radians, |x| <= 2 pi */
  SSW_ANGLE_DEG = 1,  /**< "60deg", "60 deg" */
  SSW_ANGLE_RAD = 2,  /**< "1.5rad", or a multiple of pi: "pi/3", "2pi/3" */
} ssw_angle_unit;

/** Largest magnitude of a bare (unit-less) angle, in radians: 2 pi. A bare
 * 180 is far more likely meant as degrees than as 28.6 turns. */
#define SSW_ANGLE_BARE_MAX (2.0 * 3.14159265358979323846)

/** Largest |theta| accepted as a blade angle (the config's theta axis,
 * `point --theta`), in radians: 4 pi = 720deg, two turns. The ellipse
 * repeats every half turn, so nothing is lost, and beyond, the rounding
 * of theta itself (its ulp, 1.8e-15 rad at 4 pi) grows toward the
 * accuracy of the results (theta = 1e300deg was accepted and computed as
 * some angle: sin and cos of a double that size say nothing about the one
 * meant). */
#define SSW_THETA_MAX (4.0 * 3.14159265358979323846)

/** Degrees to radians as (deg / 180) * pi, so that 180deg is exactly M_PI
 * and 90deg exactly M_PI / 2. */
double ssw_angle_deg_to_rad(double deg);

/** Parses one angle (surrounding blanks allowed):
 *   [+-]NUMBER            radians, refused outside [-2 pi, 2 pi]
 *   [+-]NUMBER [ ]deg     degrees
 *   [+-]NUMBER [ ]rad     radians, any size
 *   [+-][NUMBER][ ][*][ ]pi[ ][/[ ]NUMBER]   (k pi) / n, e.g. pi/3, 2pi/3
 * NUMBER is a finite decimal literal (no nan, inf or hexadecimal). On
 * success *rad is the angle in radians, *in_unit the number as written (in
 * degrees for deg, radians otherwise), *unit its ssw_angle_unit (any output
 * may be NULL). Returns SSW_SUCCESS, or SSW_ERR_USAGE with a message for
 * the user in why[0..n) (it does not raise: callers add where the text came
 * from). */
int ssw_angle_parse(const char *text, double *rad, double *in_unit, int *unit,
                    char *why, size_t n);

#ifdef __cplusplus
}
#endif
#endif
