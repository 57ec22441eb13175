/* One run per output: the run lock, keyed by what the output *is*, not by
 * how it was named. Two lock files, each holding an fcntl write lock (held
 * by the kernel: a killed run leaves no stale lock) and the text "host H,
 * PID P" for the next run's message:
 *   - the name lock "<canonical output>.lock", the canonical output being
 *     the output with every symbolic link, "." and ".." resolved (realpath;
 *     its directory's realpath and its name when it does not exist yet), so
 *     a second run through a symbolic link or another spelling of the path
 *     takes the same lock;
 *   - the identity lock "<canonical directory>/.sleighsweep-inode-<N>.lock"
 *     while the output exists (N its inode number: the same for every name
 *     of the file), so a second run through a hard link in the same
 *     directory takes the same lock. It follows the file when a run
 *     replaces it (creation, --overwrite, a rebuild from the journals).
 * The output itself is never locked: MPI-IO takes fcntl locks on it (ROMIO
 * for data sieving, ompio on NFS the whole file), which a lock of ours
 * would block. A hard link in another directory is not seen (there is no
 * file both names share); docs: README "Resume and durability". */
#ifndef SLEIGHSWEEP_RUNLOCK_H
#define SLEIGHSWEEP_RUNLOCK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SSW_RUNLOCK_PATH 4200

/** The locks a run holds (fd -1: not held). */
typedef struct {
  int fd[2];                      /**< name lock, identity lock */
  char path[2][SSW_RUNLOCK_PATH]; /**< their files */
} ssw_runlock;

/** An empty lock set (nothing held). */
void ssw_runlock_init(ssw_runlock *l);

/** Takes both locks of `output` (the identity lock only when the output
 * exists). A lock that cannot be taken for want of support or of a
 * writable directory is skipped: `why` then says why (else it is "") and
 * the run goes on unprotected. Errors: SSW_ERR_CONFIG when another process
 * holds either lock (the message names its host and PID, and the other
 * name of the file when it came in through one), nothing then held. */
int ssw_runlock_take(const char *output, ssw_runlock *l, char *why, size_t n);

/** After the run replaced the output (created it, or removed and created
 * it again): the identity lock moves to the new file. Best effort: `why`
 * says what failed ("" when nothing did). */
void ssw_runlock_follow(const char *output, ssw_runlock *l, char *why,
                        size_t n);

/** Deletes the lock files and releases the locks, so an orderly run leaves
 * none; only a killed run leaves them, holding no lock. */
void ssw_runlock_release(ssw_runlock *l);

/** What `status` and `run --dry-run` see, without taking anything: 1 when
 * a process holds the output's name lock, its identity lock or an fcntl
 * lock on the output itself (*pid its PID when the kernel says, else -1;
 * `holder` the lock file's "host H, PID P" text, "" for the output
 * itself; `path` the file locked), 0 when none is held, -1 when nothing
 * could be probed (no lock file and no readable output). Never blocks
 * (a lock file that is not a regular file is not opened). */
int ssw_runlock_probe(const char *output, long *pid, char *holder, size_t hn,
                      char *path, size_t pn);

#ifdef __cplusplus
}
#endif
#endif
