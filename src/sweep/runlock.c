/* The run lock of an output, by its canonical path and by its identity
 * (include/sleighsweep/runlock.h). */
#include "sleighsweep/runlock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleighsweep/error.h"

enum { NAME = 0, IDENTITY = 1 };

/* The output with every symbolic link, "." and ".." resolved: realpath of
 * the file, or of its directory joined with its name when it does not
 * exist (yet); as given when not even the directory resolves. */
static void canonical(const char *output, char *out, size_t n) {
  char real[PATH_MAX], dir[PATH_MAX];
  if (realpath(output, real)) {
    snprintf(out, n, "%s", real);
    return;
  }
  const char *slash = strrchr(output, '/');
  const char *base = slash ? slash + 1 : output;
  if (slash == output)
    snprintf(dir, sizeof dir, "/");
  else if (slash)
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - output), output);
  else
    snprintf(dir, sizeof dir, ".");
  if (realpath(dir, real))
    snprintf(out, n, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
  else
    snprintf(out, n, "%s", output);
}

/* The identity lock's file for an existing regular output (0 when there
 * is none: no such file). The inode number alone names it: every file of
 * one directory is on one file system, and NFS clients agree on inode
 * numbers (not always on device numbers). */
static int identity_path(const char *canon, char *out, size_t n) {
  struct stat st;
  if (stat(canon, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  const char *slash = strrchr(canon, '/');
  const int dir = slash ? (int)(slash - canon) : 1;
  snprintf(out, n, "%.*s/.sleighsweep-inode-%llu.lock", dir,
           slash ? canon : ".", (unsigned long long)st.st_ino);
  return 1;
}

/* The holder's "host H, PID P" from its lock file ("" when unreadable). */
static void read_holder(int fd, char *who, size_t n) {
  const ssize_t got = pread(fd, who, n - 1, 0);
  who[got > 0 ? got : 0] = '\0';
  who[strcspn(who, "\n")] = '\0';
}

/* The refusal: who holds the lock, and how this run's name of the output
 * leads to the file the holder writes. */
static int held_by(int fd, const char *output, const char *canon, int kind,
                   const char *path) {
  char who[256], what[2 * SSW_RUNLOCK_PATH];
  read_holder(fd, who, sizeof who);
  close(fd);
  if (kind == IDENTITY)
    snprintf(what, sizeof what,
             "'%s' is the same file (a hard link) as one in use", output);
  else if (strcmp(output, canon) != 0)
    snprintf(what, sizeof what, "'%s' leads to '%s', which is in use", output,
             canon);
  else
    snprintf(what, sizeof what, "'%s' is in use", output);
  return SSW_RAISE(SSW_ERR_CONFIG,
                   "[output] file %s by another sleighsweep run (%s; lock "
                   "'%s'): one output takes one run at a time; wait for it "
                   "to end, or stop it and run again to resume",
                   what, who[0] ? who : "holder unknown", path);
}

/* Takes one lock file: *fd the locked descriptor, or -1 with `why` saying
 * why there is no lock to take (no writable directory, no lock support). */
static int take_one(const char *path, const char *output, const char *canon,
                    int kind, int *fd_out, char *why, size_t n) {
  *fd_out = -1;
  for (int tries = 0; tries < 8; tries++) {
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
    struct stat a, b;
    if (fd < 0) {
      snprintf(why, n, "cannot create '%s': %s", path, strerror(errno));
      return SSW_SUCCESS; /* e.g. a read-only directory: run unprotected */
    }
    if (fstat(fd, &a) != 0 || !S_ISREG(a.st_mode)) {
      snprintf(why, n, "'%s' is not a regular file", path);
      close(fd);
      return SSW_SUCCESS;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &fl) != 0) {
      if (errno == EACCES || errno == EAGAIN)
        return held_by(fd, output, canon, kind, path);
      snprintf(why, n, "cannot lock '%s': %s (the file system has no locks)",
               path, strerror(errno));
      close(fd);
      return SSW_SUCCESS;
    }
    /* A holder that finished removes the file after we opened it: the
     * lock we got is on a name nobody else will open; take the new one. */
    if (stat(path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
      char host[256] = "", who[320];
      gethostname(host, sizeof host - 1);
      snprintf(who, sizeof who, "host %s, PID %ld\n", host, (long)getpid());
      /* The text only names the holder in the next run's message. */
      if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, who, strlen(who), 0);
      *fd_out = fd;
      return SSW_SUCCESS;
    }
    close(fd);
  }
  return SSW_RAISE(SSW_ERR_IO,
                   "cannot take the lock '%s' (it keeps being "
                   "replaced)",
                   path);
}

static void release_one(ssw_runlock *l, int k) {
  if (l->fd[k] < 0) return;
  (void)unlink(l->path[k]); /* still held: a waiter re-checks the name */
  close(l->fd[k]);
  l->fd[k] = -1;
}

void ssw_runlock_init(ssw_runlock *l) {
  l->fd[NAME] = l->fd[IDENTITY] = -1;
  l->path[NAME][0] = l->path[IDENTITY][0] = '\0';
}

int ssw_runlock_take(const char *output, ssw_runlock *l, char *why, size_t n) {
  char canon[SSW_RUNLOCK_PATH - 8], why2[512] = "";
  why[0] = '\0';
  canonical(output, canon, sizeof canon);
  snprintf(l->path[NAME], sizeof l->path[NAME], "%s.lock", canon);
  SSW_CALL(take_one(l->path[NAME], output, canon, NAME, &l->fd[NAME], why, n));
  if (!identity_path(canon, l->path[IDENTITY], sizeof l->path[IDENTITY]))
    return SSW_SUCCESS;
  const int rc = take_one(l->path[IDENTITY], output, canon, IDENTITY,
                          &l->fd[IDENTITY], why2, sizeof why2);
  if (rc != SSW_SUCCESS) release_one(l, NAME);
  if (!why[0] && why2[0]) snprintf(why, n, "%s", why2);
  return rc;
}

void ssw_runlock_follow(const char *output, ssw_runlock *l, char *why,
                        size_t n) {
  char canon[SSW_RUNLOCK_PATH - 8], path[SSW_RUNLOCK_PATH];
  why[0] = '\0';
  canonical(output, canon, sizeof canon);
  if (!identity_path(canon, path, sizeof path)) return;
  if (l->fd[IDENTITY] >= 0 && strcmp(path, l->path[IDENTITY]) == 0) return;
  release_one(l, IDENTITY);
  snprintf(l->path[IDENTITY], sizeof l->path[IDENTITY], "%s", path);
  if (take_one(path, output, canon, IDENTITY, &l->fd[IDENTITY], why, n) !=
      SSW_SUCCESS)
    snprintf(why, n, "%s", ssw_error_user_message());
}

void ssw_runlock_release(ssw_runlock *l) {
  release_one(l, IDENTITY);
  release_one(l, NAME);
}

/* A conflicting fcntl lock (POSIX or open-file-description) on `path`,
 * found with F_GETLK, which takes no lock itself: 1 held, 0 not, -1 no
 * such regular file. flock(2) locks are not visible this way on local
 * file systems (NFS maps them to fcntl locks). Never blocks: a FIFO or
 * device is not opened for reading. */
static int probe_one(const char *path, long *pid, char *holder, size_t hn) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  int held = 0;
#ifdef F_OFD_GETLK
  if (fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) held = 1;
  fl = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET};
#endif
  if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) {
    held = 1;
    *pid = fl.l_pid > 0 ? (long)fl.l_pid : -1;
  }
  if (held && holder) read_holder(fd, holder, hn);
  close(fd);
  return held;
}

int ssw_runlock_probe(const char *output, long *pid, char *holder, size_t hn,
                      char *path, size_t pn) {
  char canon[SSW_RUNLOCK_PATH - 8], files[3][SSW_RUNLOCK_PATH];
  canonical(output, canon, sizeof canon);
  snprintf(files[0], sizeof files[0], "%s.lock", canon);
  const int nfiles = 2 + identity_path(canon, files[1], sizeof files[1]);
  snprintf(files[nfiles - 1], sizeof files[0], "%s", output);
  int any = -1;
  *pid = -1;
  holder[0] = path[0] = '\0';
  for (int k = 0; k < nfiles; k++) {
    /* The output itself holds no holder text: its content is HDF5. */
    const int held =
        probe_one(files[k], pid, k < nfiles - 1 ? holder : NULL, hn);
    if (held > any) any = held;
    if (held == 1) {
      snprintf(path, pn, "%s", files[k]);
      return 1;
    }
  }
  return any;
}
