/* ssw_bench_pmpi: LD_PRELOAD library for the sweep benchmark. Through the
 * MPI profiling interface it times the point-to-point calls the scheduler
 * makes (MPI_Send, MPI_Recv, MPI_Irecv, MPI_Test, MPI_Iprobe, MPI_Probe)
 * and its polling sleeps
 * (usleep) on each rank, and at MPI_Finalize prints one line on stderr:
 *   ssw-bench-rank R wall S p2p S sleep S calls N vmhwm_kb K cpu S
 * (wall from process start; VmHWM = peak resident set of the process; cpu =
 * user + system time of the process, all its threads, since start). Only
 * calls made by the program itself count (the caller's address lies
 * outside every shared library): the MPI library's own sleeps during
 * start-up and any point-to-point traffic of HDF5 / MPI-IO do not. So
 * p2p + sleep is the time a rank spends handing out work, asking for it,
 * and waiting for it or for a flush epoch.
 *
 * It also counts the scheduler's work requests (tag REQ_TAG, TAG_REQ of
 * src/sweep/schedule.c): received by MPI_Recv, or by a receive posted
 * ahead that MPI_Test completes (the master), with the
 * CLOCK_MONOTONIC times and the process's CPU times at the first and the
 * last, and sent by MPI_Send (the workers), appended to the line as
 *   req_recv N req_first T req_last T req_cpu S req_sent N
 * (req_cpu: CPU seconds between the first and the last), so that requests
 * per second of the master's busy span, and its CPU time per request, can
 * be read from any build of the engine. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define REQ_TAG 101

static double t_p2p, t_sleep, t_init, t_load;
static long n_calls;
static long req_recv, req_sent;
static double req_first, req_last, req_cpu0, req_cpu1;

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Process start, as near as a preloaded library sees it: the CPU time
 * reported at the end covers the same span as this wall time. */
__attribute__((constructor)) static void on_load(void) { t_load = mono(); }

/* 1 when the call comes from the main program, not a shared library
 * (dladdr, remembered for the last few call sites: it costs about as much
 * as the call it classifies). */
static int from_program(const void *ra) {
  static const void *seen[8];
  static int verdict[8], next;
  for (int i = 0; i < 8; i++)
    if (seen[i] == ra) return verdict[i];
  Dl_info di;
  const int mine =
      !dladdr(ra, &di) || !di.dli_fname || !strstr(di.dli_fname, ".so");
  seen[next] = ra, verdict[next] = mine;
  next = (next + 1) % 8;
  return mine;
}

#define TIMED(counter, call)                                                   \
  do {                                                                         \
    const int mine_ = t_init > 0 && from_program(__builtin_return_address(0)); \
    const double t0_ = mine_ ? mono() : 0.0;                                   \
    const int rc_ = (call);                                                    \
    if (mine_) {                                                               \
      counter += mono() - t0_;                                                 \
      n_calls++;                                                               \
    }                                                                          \
    return rc_;                                                                \
  } while (0)

int MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  t_init = mono();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  t_init = mono();
  return rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
             MPI_Comm comm) {
  const int mine = t_init > 0 && from_program(__builtin_return_address(0));
  const double t0 = mine ? mono() : 0.0;
  const int rc = PMPI_Send(buf, count, type, dest, tag, comm);
  if (mine) {
    t_p2p += mono() - t0;
    n_calls++;
    req_sent += tag == REQ_TAG;
  }
  return rc;
}

/* A work request taken by the master at time t1: counted, with the
 * process's CPU time at the first and the last. */
static void request_received(double t1) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  req_cpu1 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  req_last = t1;
  if (req_recv++ == 0) req_first = t1, req_cpu0 = req_cpu1;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  const int mine = t_init > 0 && from_program(__builtin_return_address(0));
  const double t0 = mine ? mono() : 0.0;
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
  if (mine) {
    const double t1 = mono();
    t_p2p += t1 - t0;
    n_calls++;
    if (tag == REQ_TAG) request_received(t1);
  }
  return rc;
}

/* The master's receive posted ahead (MPI_Irecv, completed by MPI_Test):
 * a request counts when its test completes it, as MPI_Recv's does. */
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
              MPI_Comm comm, MPI_Request *request) {
  TIMED(t_p2p, PMPI_Irecv(buf, count, type, source, tag, comm, request));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  const int mine = t_init > 0 && from_program(__builtin_return_address(0));
  const double t0 = mine ? mono() : 0.0;
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Test(request, flag, st);
  if (mine) {
    const double t1 = mono();
    t_p2p += t1 - t0;
    n_calls++;
    if (*flag && st->MPI_TAG == REQ_TAG) request_received(t1);
  }
  return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
               MPI_Status *status) {
  TIMED(t_p2p, PMPI_Iprobe(source, tag, comm, flag, status));
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  TIMED(t_p2p, PMPI_Probe(source, tag, comm, status));
}

int usleep(useconds_t us) {
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  TIMED(t_sleep, nanosleep(&ts, NULL));
}

static long vmhwm_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) {
      sscanf(line + 6, "%ld", &kb);
      break;
    }
  fclose(f);
  return kb;
}

int MPI_Finalize(void) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct rusage ru;
  double cpu = -1;
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
          (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
  fprintf(stderr,
          "ssw-bench-rank %d wall %.6f p2p %.6f sleep %.6f calls %ld "
          "vmhwm_kb %ld cpu %.6f req_recv %ld req_first %.6f req_last %.6f "
          "req_cpu %.6f req_sent %ld\n",
          rank, mono() - t_load, t_p2p, t_sleep, n_calls, vmhwm_kb(), cpu,
          req_recv, req_first, req_last, req_cpu1 - req_cpu0, req_sent);
  fflush(stderr);
  t_init = 0;
  return PMPI_Finalize();
}
