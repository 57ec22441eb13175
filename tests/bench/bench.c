/* ssw_bench: the benchmark of sleighsweep (docs/benchmark.md).
 *
 *   ssw_bench            full mode (minutes): cost to accuracy on the seed
 *                        case and a batch of random bodies, GSL comparison,
 *                        sweep scaling and the 10^4-point headline sweep
 *   ssw_bench --quick    under a minute: accuracy at the defaults, error
 *                        estimates, batch kernel, time against rk8pd
 *   ssw_bench --smoke    seconds; registered as the CTest bench_smoke
 *
 * Human-readable tables on stdout, then one JSON object as the last line. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "sleighsweep/stepper.h"
#include "sleighsweep/version.h"

#ifndef SSW_BENCH_ENGINE
#define SSW_BENCH_ENGINE "sleighsweep"
#endif
#ifndef SSW_BENCH_MPIEXEC
#define SSW_BENCH_MPIEXEC "mpirun"
#endif
#ifndef SSW_BENCH_SHIM
#define SSW_BENCH_SHIM ""
#endif
#ifndef SSW_BENCH_FLAGS
#define SSW_BENCH_FLAGS ""
#endif

void sb_printf(sbuf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const size_t room = b->cap - b->n;
    const int k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if ((size_t)k < room) {
      b->n += (size_t)k;
      return;
    }
    const size_t cap = (b->cap + (size_t)k + 1) * 2;
    char *s = realloc(b->s, cap);
    if (!s) abort();
    b->s = s;
    b->cap = cap;
  }
}

void sb_num(sbuf *b, double x) {
  if (isfinite(x))
    sb_printf(b, "%.6g", x);
  else
    sb_printf(b, "null");
}

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_loadavg(void) {
  double l = NAN;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = NAN;
    fclose(f);
  }
  return l;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(const double *x, int n) {
  double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(x[i])) v[m++] = x[i];
  double r = NAN;
  if (m > 0) {
    qsort(v, (size_t)m, sizeof *v, cmp_double);
    r = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
  }
  free(v);
  return r;
}

double bench_max(const double *x, int n) {
  double r = NAN;
  for (int i = 0; i < n; i++)
    if (isfinite(x[i]) && !(x[i] <= r)) r = x[i];
  return r;
}

/* The reasons of bench_not_ok, as a JSON array's members. */
static sbuf not_ok;
static int n_not_ok;

void bench_not_ok(const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  printf("NOT OK: %s\n", text);
  sb_printf(&not_ok, "%s\"", n_not_ok++ ? ", " : "");
  for (const char *c = text; *c; c++)
    sb_printf(&not_ok, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
  sb_printf(&not_ok, "\"");
}

static const char usage[] =
    "Usage: ssw_bench [--quick | --smoke] [OPTIONS]\n"
    "\n"
    "Benchmark of sleighsweep (docs/benchmark.md): cost to accuracy of the\n"
    "Hamel integrators and RK4 against GSL rk8pd/rkf45 on the seed case and\n"
    "random bodies, and sweep throughput of `sleighsweep run` on 1-2 ranks\n"
    "x 1-2 threads with the HDF5 and scheduling shares and peak memory.\n"
    "Tables on stdout; the last line is one JSON object.\n"
    "\n"
    "  --quick          under a minute: accuracy of the defaults on the wide\n"
    "                   random batch, error-estimate bound fraction, batch\n"
    "                   kernel ns per base step, time per trajectory vs\n"
    "                   rk8pd, Bulirsch-Stoer, DOP853 and Vern9 (each at one\n"
    "                   batch-wide setting meeting 1e-10 in d) and of\n"
    "                   hamel8 at the default rtol\n"
    "  --smoke          seconds-long mode (the CTest bench_smoke)\n"
    "  --no-kernels     skip the per-trajectory part\n"
    "  --no-sweep       skip the sweep part (no MPI needed)\n"
    "  --no-headline    skip the big headline sweep (full mode: 10^4 points)\n"
    "  --no-scaling     skip the 1-2 ranks x 1-2 threads sweep runs\n"
    "  --no-master      skip the master-load runs (requests per second)\n"
    "  --master-ranks N ranks of the master-load runs [full 32, smoke 6]\n"
    "  --batch N        random bodies in the batch [full 24, smoke 2]\n"
    "  --rounds N       timing rounds, median taken [full 7, smoke 3]\n"
    "  --engine PATH    sleighsweep binary [" SSW_BENCH_ENGINE "]\n"
    "  --mpiexec PATH   MPI launcher [" SSW_BENCH_MPIEXEC "]\n"
    "  --shim PATH      MPI timing preload library [" SSW_BENCH_SHIM "]\n"
    "  --workdir DIR    directory for configs and HDF5 files [new dir in\n"
    "                   $TMPDIR or /tmp, removed at the end]\n"
    "  --keep           keep the work directory\n"
    "  -h, --help       this text\n";

static void machine_info(sbuf *json) {
  char cpu[256] = "?";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (strncmp(line, "model name", 10) == 0) {
        const char *c = strchr(line, ':');
        if (c) snprintf(cpu, sizeof cpu, "%s", c + 2);
        cpu[strcspn(cpu, "\n")] = '\0';
        break;
      }
    fclose(f);
  }
  struct utsname u;
  uname(&u);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  char date[32];
  const time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  printf("sleighsweep benchmark: %s, engine %s (git %s)\n", date,
         ssw_version_string(), ssw_version_git());
  printf("machine: %s, %ld cores, %s %s, host %s\n", cpu, ncpu, u.sysname,
         u.release, host);
  printf("compiler: gcc %s, flags: %s\n", __VERSION__, SSW_BENCH_FLAGS);
  const int lanes = ssw_stepper_kernel_lanes(SSW_LANES);
  const int avx512 = ssw_stepper_kernel_avx512();
  printf("batch kernel: %d lanes for a full batch of %d (%s)\n", lanes,
         SSW_LANES,
         lanes == 4 ? "one 4-lane vector"
         : avx512   ? "one AVX-512 vector"
                    : "two 4-lane vectors side by side");
  sb_printf(json,
            "\"date\": \"%s\", \"engine_version\": \"%s\", \"git\": \"%s\", "
            "\"machine\": {\"cpu\": \"%s\", \"cores\": %ld, \"kernel\": "
            "\"%s\", \"compiler\": \"gcc %s\", \"flags\": \"%s\", "
            "\"kernel_lanes\": %d, \"kernel_avx512\": %d}, ",
            date, ssw_version_string(), ssw_version_git(), cpu, ncpu, u.release,
            __VERSION__, SSW_BENCH_FLAGS, lanes, avx512);
}

/* The mode's sizes (smoke or full), then --batch / --rounds / headline. */
static void mode_defaults(bench_opts *o, int batch, int rounds, int headline,
                          int master) {
  if (o->smoke) {
    o->batch = 2, o->rounds = 3, o->min_time = 0.3e-3, o->bisect = 3;
    o->step_cap = 2e5;
    o->scale_points = 8, o->scale_traj = 4;
    o->big_points = 16, o->big_traj = 4, o->big_ranks = 2;
    o->master_ranks = 6, o->master_points = 1000, o->master_repeats = 1;
  } else {
    o->batch = 24, o->rounds = 7, o->min_time = 4e-3, o->bisect = 6;
    o->step_cap = 4e6;
    o->scale_points = 1000, o->scale_traj = 100;
    o->big_points = 10000, o->big_traj = 100, o->big_ranks = 2;
    o->master_ranks = 32, o->master_points = 20000, o->master_repeats = 3;
  }
  if (!headline) o->big_points = 0;
  if (master >= 0) o->master_ranks = master;
  if (batch >= 0) o->batch = batch;
  if (rounds > 0) o->rounds = rounds;
}

/* Options into o; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, bench_opts *o) {
  int batch = -1, rounds = -1, headline = 1, master = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const int more = i + 1 < argc;
    if (!strcmp(a, "--smoke"))
      o->smoke = 1;
    else if (!strcmp(a, "--quick"))
      o->quick = 1;
    else if (!strcmp(a, "--no-kernels"))
      o->kernels = 0;
    else if (!strcmp(a, "--no-sweep"))
      o->sweep = 0;
    else if (!strcmp(a, "--no-headline"))
      headline = 0;
    else if (!strcmp(a, "--no-scaling"))
      o->scaling = 0;
    else if (!strcmp(a, "--no-master"))
      master = 0;
    else if (!strcmp(a, "--master-ranks") && more)
      master = atoi(argv[++i]);
    else if (!strcmp(a, "--keep"))
      o->keep = 1;
    else if (!strcmp(a, "--batch") && more)
      batch = atoi(argv[++i]);
    else if (!strcmp(a, "--rounds") && more)
      rounds = atoi(argv[++i]);
    else if (!strcmp(a, "--engine") && more)
      o->engine = argv[++i];
    else if (!strcmp(a, "--mpiexec") && more)
      o->mpiexec = argv[++i];
    else if (!strcmp(a, "--shim") && more)
      o->shim = argv[++i];
    else if (!strcmp(a, "--workdir") && more)
      o->workdir = argv[++i];
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 0;
    } else {
      fprintf(stderr,
              "ssw_bench: unknown or incomplete option '%s' (see "
              "--help)\n",
              a);
      return 2;
    }
  }
  mode_defaults(o, batch, rounds, headline, master);
  return -1;
}

int main(int argc, char **argv) {
  bench_opts o = {0};
  o.kernels = o.sweep = o.scaling = 1;
  o.engine = SSW_BENCH_ENGINE;
  o.mpiexec = SSW_BENCH_MPIEXEC;
  o.shim = SSW_BENCH_SHIM;
  const int st = parse_args(argc, argv, &o);
  if (st >= 0) return st;

  setvbuf(stdout, NULL, _IOLBF, 0);
  sbuf json = {0};
  const char *mode = o.quick ? "quick" : (o.smoke ? "smoke" : "full");
  sb_printf(&json, "{\"bench\": \"sleighsweep\", \"mode\": \"%s\", ", mode);
  machine_info(&json);
  const double t0 = bench_now();
  int rc = 0;
  printf("\n");
  rc |= bench_quick(&o, &json);
  sb_printf(&json, ", ");
  rc |= bench_refine(&o, &json);
  sb_printf(&json, ", ");
  printf("\n");
  rc |= bench_forced(&o, &json);
  sb_printf(&json, ", ");
  if (o.quick) o.kernels = o.sweep = 0;
  if (o.kernels) {
    printf("\n");
    rc |= bench_kernels(&o, &json);
    sb_printf(&json, ", ");
  }
  if (o.sweep) {
    printf("\n");
    rc |= bench_sweep(&o, &json);
    sb_printf(&json, ", ");
  }
  const double total = bench_now() - t0;
  printf("\nbenchmark %s in %.1f s (%s mode)\n", rc ? "FAILED" : "done", total,
         mode);
  sb_printf(&json, "\"ok\": %s, \"not_ok_reasons\": [%s], \"total_s\": %.3g}",
            rc || n_not_ok ? "false" : "true", n_not_ok ? not_ok.s : "", total);
  printf("%s\n", json.s);
  free(json.s);
  free(not_ok.s);
  return rc ? 1 : 0;
}
