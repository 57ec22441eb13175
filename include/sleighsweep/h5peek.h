/* Serial, read-only looks into an output file (no MPI, no file locking,
 * nothing written): for `status`, `run --dry-run` and the run's check that
 * a finished sweep needs nothing. */
#ifndef SLEIGHSWEEP_H5PEEK_H
#define SLEIGHSWEEP_H5PEEK_H

#include <hdf5.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A string attribute of the root (fixed or variable length) in a fresh
 * buffer (free it); NULL when absent or not a string. */
char *ssw_h5peek_root_str(hid_t f, const char *name);

/** 1 when the file at `path` opens read-only, its `status` attribute is
 * "complete" and its `config` attribute equals `config_text` byte for byte
 * (the resume's check); 0 otherwise. Writes nothing, not even metadata. */
int ssw_h5peek_complete(const char *path, const char *config_text);

#ifdef __cplusplus
}
#endif
#endif
