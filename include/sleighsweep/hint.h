/* "Did you mean" hints: near misses of a typed name among candidates, for
 * the config's keys and sections and the command line's options. */
#ifndef SLEIGHSWEEP_HINT_H
#define SLEIGHSWEEP_HINT_H

#ifdef __cplusplus
extern "C" {
#endif

/** Optimal-string-alignment distance of s and t (insertions, deletions,
 * substitutions and adjacent swaps); 40 when either has 40 or more
 * characters (long strings are never near misses). */
int ssw_edit_distance(const char *s, const char *t);

/** 1 when `typed` is a near miss of `candidate`: the same letters in
 * another case, or at most two edits and fewer edits than the candidate
 * has letters (so "x" does not suggest "m"). */
int ssw_near_miss(const char *typed, const char *candidate);

#ifdef __cplusplus
}
#endif
#endif
