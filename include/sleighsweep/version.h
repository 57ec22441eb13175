/* Program version and the git revision it was built from. */
#ifndef SLEIGHSWEEP_VERSION_H
#define SLEIGHSWEEP_VERSION_H

/** Semantic version of the program, e.g. "0.1.0". */
const char *ssw_version_string(void);
/** `git describe --always --dirty` of the source tree at build time. */
const char *ssw_version_git(void);

#endif
