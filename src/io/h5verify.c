/* Reading a finished output back before anyone trusts it
 * (sleighsweep/h5peek.h, ssw_h5peek_verify): every group, dataset and
 * attribute opens, the small datasets read whole, the large ones' chunk
 * indices are walked. Serial and read-only; each part in a child process
 * (HDF5 may abort on a damaged file, or corrupt its own heap). */
#include "sleighsweep/h5peek.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sleighsweep/error.h"

/* Datasets up to this size are read whole (every /boundaries and
 * /segments dataset of a real sweep, and a small grid's columns); larger
 * ones have their chunk index walked instead: a status of a 10^9-point
 * grid must not read 300 GB. */
#define READ_WHOLE_BYTES ((hsize_t)1 << 20)

/* The two parts read apart (each in a child process: HDF5 may abort, or
 * corrupt its heap, on a damaged file), so a crash tells which. */
enum { PART_GRID, PART_BOUNDARIES };

typedef struct {
  ssw_h5peek_verdict *v;
  int part;
  char name[256]; /* the object being read, from the root */
} visit;

/* Records the first damage found: in /boundaries, or in the grid. */
static void damaged(visit *x, const char *what) {
  const int in_boundaries = strncmp(x->name, "boundaries", 10) == 0 &&
                            (x->name[10] == '\0' || x->name[10] == '/');
  int *ok = in_boundaries ? &x->v->boundaries_ok : &x->v->grid_ok;
  if (x->v->why[0] == '\0' || (*ok && !in_boundaries))
    snprintf(x->v->why, sizeof x->v->why, "/%s %s", x->name, what);
  *ok = 0;
}

static herr_t open_attr(hid_t loc, const char *name, const H5A_info_t *info,
                        void *op) {
  (void)info, (void)op;
  const hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  const hid_t t = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
  const int ok = a >= 0 && t >= 0;
  if (t >= 0) H5Tclose(t);
  if (a >= 0) H5Aclose(a);
  return ok ? 0 : -1;
}

/* Every attribute, through each index the object keeps. */
static int attrs_read(hid_t obj, hid_t ocpl) {
  unsigned order = 0;
  if (ocpl >= 0) H5Pget_attr_creation_order(ocpl, &order);
  if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, open_attr, NULL) < 0)
    return -1;
  if ((order & H5P_CRT_ORDER_INDEXED) &&
      H5Aiterate2(obj, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, open_attr, NULL) <
          0)
    return -1;
  return 0;
}

/* A small dataset read whole in its own type (vlen types: their storage
 * only); a large chunked one's index walked to its chunk count. */
static int dataset_read(hid_t d, hid_t dcpl) {
  int ok = -1;
  const hid_t space = H5Dget_space(d), type = H5Dget_type(d);
  const hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  const size_t size = type >= 0 ? H5Tget_size(type) : 0;
  if (n < 0 || size == 0) goto done;
  const hsize_t bytes = (hsize_t)n * size;
  if (H5Tdetect_class(type, H5T_VLEN) > 0 ||
      H5Tdetect_class(type, H5T_REFERENCE) > 0 ||
      H5Tis_variable_str(type) > 0) {
    ok = 0; /* opened with its header: enough for these small tables */
  } else if (bytes <= READ_WHOLE_BYTES) {
    void *buf = malloc(bytes ? bytes : 1);
    ok = buf && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 ? 0
                                                                          : -1;
    free(buf);
  } else if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
    hsize_t chunks = 0;
    ok = H5Dget_num_chunks(d, space, &chunks) >= 0 ? 0 : -1;
  } else {
    ok = 0; /* contiguous and large: its header opened */
  }
done:
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  return ok;
}

static herr_t check_object(hid_t g, const char *name, const H5L_info_t *info,
                           void *op);

/* A group's members, one by one (not H5Lvisit: it stops at the first
 * member whose header does not read, and reads the skipped group's). */
static int check_members(hid_t g, visit *x) {
  const size_t len = strlen(x->name);
  const int rc =
      H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, check_object, x) < 0 ? -1
                                                                           : 0;
  x->name[len] = '\0';
  return rc;
}

/* One object of the file: opened, its attributes and (datasets) data
 * read, (groups) its members. Damage is recorded and the walk goes on. */
static herr_t check_object(hid_t g, const char *name, const H5L_info_t *info,
                           void *op) {
  visit *x = op;
  const size_t len = strlen(x->name);
  snprintf(x->name + len, sizeof x->name - len, "%s%s", len ? "/" : "", name);
  const int top = len == 0, bound = !strcmp(x->name, "boundaries");
  const int skip = info->type != H5L_TYPE_HARD ||
                   !strcmp(x->name, SSW_H5_DAMAGED_GROUP) ||
                   (top && bound != (x->part == PART_BOUNDARIES));
  const hid_t obj = skip ? H5I_INVALID_HID : H5Oopen(g, name, H5P_DEFAULT);
  if (!skip && obj < 0) damaged(x, "does not open");
  const H5I_type_t kind = obj >= 0 ? H5Iget_type(obj) : H5I_BADID;
  const hid_t cpl = kind == H5I_DATASET ? H5Dget_create_plist(obj)
                    : kind == H5I_GROUP ? H5Gget_create_plist(obj)
                                        : H5I_INVALID_HID;
  if (obj >= 0 && attrs_read(obj, cpl) < 0)
    damaged(x, "has attributes that do not read");
  if (kind == H5I_DATASET && dataset_read(obj, cpl) < 0)
    damaged(x, "does not read");
  if (kind == H5I_GROUP && check_members(obj, x) < 0)
    damaged(x, "has members whose links do not read");
  if (cpl >= 0) H5Pclose(cpl);
  if (obj >= 0) H5Oclose(obj);
  x->name[len] = '\0';
  return 0;
}

/* One part, in this process. */
static void verify_part(hid_t f, int part, int want_boundaries,
                        ssw_h5peek_verdict *v) {
  *v = (ssw_h5peek_verdict){1, 1, ""};
  visit x = {v, part, ""};
  if (part == PART_GRID) {
    const hid_t fcpl = H5Fget_create_plist(f);
    const int root = attrs_read(f, fcpl);
    if (fcpl >= 0) H5Pclose(fcpl);
    if (root < 0) damaged(&x, "(the root) has attributes that do not read");
  }
  if (check_members(f, &x) < 0)
    damaged(&x, "(the root) has members whose links do not read");
  static const char *const needed[] = {"done", "regime", "segments",
                                       "boundaries"};
  for (size_t i = 0; i < 4; i++) {
    if ((i == 3) != (part == PART_BOUNDARIES) || (i == 3 && !want_boundaries))
      continue;
    if (H5Lexists(f, needed[i], H5P_DEFAULT) <= 0) {
      snprintf(x.name, sizeof x.name, "%s", needed[i]);
      damaged(&x, "is missing");
    }
  }
  H5Eclear2(H5E_DEFAULT);
}

/* One part in a child process, its verdict sent back through a pipe; a
 * child that dies (HDF5 aborted on the damage) makes the part damaged. */
static void isolated(hid_t f, int part, int want_boundaries,
                     ssw_h5peek_verdict *v) {
  int fd[2];
  if (pipe(fd) != 0) return verify_part(f, part, want_boundaries, v);
  fflush(NULL);
  const pid_t pid = fork();
  if (pid == 0) {
    static const int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
      signal(sigs[i], SIG_DFL); /* not the MPI library's handlers */
    close(fd[0]);
    const int null = open("/dev/null", O_WRONLY); /* glibc's abort text */
    if (null >= 0) dup2(null, 2);
    verify_part(f, part, want_boundaries, v);
    _exit(write(fd[1], v, sizeof *v) == (ssize_t)sizeof *v ? 0 : 1);
  }
  close(fd[1]);
  if (pid < 0) {
    close(fd[0]);
    return verify_part(f, part, want_boundaries, v);
  }
  size_t got = 0;
  for (ssize_t r; got < sizeof *v; got += (size_t)r) {
    r = read(fd[0], (char *)v + got, sizeof *v - got);
    if (r <= 0) break;
  }
  close(fd[0]);
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
    ;
  if (got == sizeof *v && WIFEXITED(ws) && WEXITSTATUS(ws) == 0) return;
  *v = (ssw_h5peek_verdict){part != PART_GRID, part != PART_BOUNDARIES, ""};
  snprintf(v->why, sizeof v->why, "%s makes HDF5 fail while reading it (%s %d)",
           part == PART_GRID ? "the grid" : "/boundaries",
           WIFSIGNALED(ws) ? "signal" : "exit status",
           WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
}

int ssw_h5peek_verify(hid_t f, int want_boundaries, ssw_h5peek_verdict *v) {
  ssw_h5peek_verdict b;
  isolated(f, PART_GRID, want_boundaries, v);
  isolated(f, PART_BOUNDARIES, want_boundaries, &b);
  v->boundaries_ok = b.boundaries_ok;
  if (v->grid_ok && !b.boundaries_ok)
    snprintf(v->why, sizeof v->why, "%s", b.why);
  SSW_CHECK(v->grid_ok && v->boundaries_ok, SSW_ERR_IO, "%s", v->why);
  return SSW_SUCCESS;
}
