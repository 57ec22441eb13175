/* MPI master/worker scheduling: guided work units handed out by rank 0,
 * which computes too; collective flush epochs; progress and signals. */
#include "sleighsweep/schedule.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sleighsweep/ensemble.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/journal.h"

enum { TAG_REQ = 101, TAG_REPLY = 102 };
enum { MSG_UNIT = 1, MSG_FLUSH = 2, MSG_STOP = 3 };

static volatile sig_atomic_t stop_signal = 0;
/* This rank's journal while a schedule runs (-1: none), and the signal
 * that stopped the job as rank 0 learnt it (from any rank). */
static volatile sig_atomic_t journal_fd = -1;
static int job_signal = 0;

/* Makes every appended record durable at once (fdatasync is async-signal-
 * safe): under mpirun a Ctrl-C becomes SIGTERM followed by SIGKILL about a
 * second later, so what is finished must not wait for the final epoch. */
static void on_signal(int sig) {
  const int saved = errno;
  stop_signal = sig;
  if (journal_fd >= 0) fdatasync(journal_fd);
  errno = saved;
}

/* Watchdog for collective HDF5 calls: parallel HDF5 cannot recover from a
 * write failing on one rank (the ranks then wait in different collectives
 * forever). If a flush epoch has not returned after SSW_IO_TIMEOUT seconds
 * (default 900), the rank exits: mpirun/srun then end the job, and what
 * is durable (the journals) is kept for the next run. */
static void on_alarm(int sig) {
  static const char msg[] =
      "sleighsweep: an HDF5 write did not finish within SSW_IO_TIMEOUT "
      "seconds (a rank failed mid-write?); aborting, finished work is in the "
      "journals: rerun to resume\n";
  ssize_t rc = write(2, msg, sizeof msg - 1);
  (void)rc;
  _exit(128 + sig);
}

void ssw_schedule_watchdog(int on) {
  static unsigned seconds = 0;
  if (seconds == 0) {
    const char *env = getenv("SSW_IO_TIMEOUT");
    const long v = env ? strtol(env, NULL, 10) : 0;
    seconds = v > 0 ? (unsigned)v : 900;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
  }
  alarm(on ? seconds : 0);
}

void ssw_schedule_install_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
}

int ssw_schedule_signal(void) {
  return job_signal ? job_signal : (int)stop_signal;
}

int ssw_mpi_error(int rc, const char *call, const char *file, int line) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  text[len] = '\0';
  return ssw_error_raise(SSW_ERR_MPI, file, line, "MPI", "%s failed: %s", call,
                         len ? text : "unknown MPI error");
}

static double now(void) { return MPI_Wtime(); }

/* Per-rank state: the finished points waiting for the next epoch. */
typedef struct {
  MPI_Comm comm;
  int rank, size, quiet;
  const ssw_config *cfg;
  ssw_h5out *out;
  const uint8_t *done;
  uint64_t npts;
  ssw_ensemble *ens;
  ssw_result_buf pend;  /* finished points waiting for the next epoch */
  uint64_t computed;    /* points computed by this rank */
  int64_t unreported;   /* computed since the last request (progress) */
  ssw_journal *journal; /* this rank's durable record of its points */
  double last_sync;     /* time of the last journal sync */
  int unsynced;         /* appended since the last sync */
  double t_compute, t_io, t_idle, t_service;
  int epochs;
} rank_ctx;

static int compute_point(rank_ctx *c, uint64_t index) {
  ssw_result_buf *b = &c->pend;
  SSW_CALL(ssw_result_buf_reserve(b, b->n + 1));
  const double t0 = now();
  double *samples = ssw_result_buf_samples(b, b->n);
  SSW_CALL(ssw_ensemble_run(c->ens, index, &b->pts[b->n], samples));
  SSW_CALL(ssw_journal_append(c->journal, &b->pts[b->n], samples));
  c->unsynced = 1;
  b->n++;
  c->computed++;
  c->unreported++;
  c->t_compute += now() - t0;
  return SSW_SUCCESS;
}

/* Durability point: the journal is synced at most once per
 * SYNC_INTERVAL seconds (cheap, local), so a kill -9 loses at most that
 * much finished work plus the point in progress. */
#define SYNC_INTERVAL 1.0

static int sync_journal(rank_ctx *c, int force) {
  if (!c->unsynced || (!force && now() - c->last_sync < SYNC_INTERVAL))
    return SSW_SUCCESS;
  const double t0 = now();
  SSW_CALL(ssw_journal_sync(c->journal));
  c->unsynced = 0;
  c->last_sync = now();
  c->t_io += c->last_sync - t0;
  return SSW_SUCCESS;
}

/* Collective: every rank writes its finished points, then flush. Journals
 * are synced first, so the file never holds a point the journals lack. */
static int epoch(rank_ctx *c) {
  SSW_CALL(sync_journal(c, 1));
  /* Waiting for the slowest rank is idle time, not I/O: measure apart. */
  const double tb = now();
  SSW_MPI_CALL(MPI_Barrier(c->comm));
  c->t_idle += now() - tb;
  const double t0 = now();
  ssw_schedule_watchdog(1);
  SSW_CALL(ssw_h5out_write_points(c->out, c->pend.pts, c->pend.n,
                                  c->pend.sdoubles ? c->pend.samples : NULL));
  SSW_CALL(ssw_h5out_flush(c->out));
  ssw_schedule_watchdog(0);
  c->pend.n = 0;
  c->epochs++;
  c->t_io += now() - t0;
  return SSW_SUCCESS;
}

/* Master state: the cursor over the flat grid and the held requests. */
typedef struct {
  uint64_t cursor, remaining, todo, finished;
  uint64_t cap; /* largest unit (points); 0: sized by time */
  int *held;    /* per rank: 1 while its request waits for an answer */
  int nheld;
  int flush_pending, stopping;
  int signal_rank;            /* rank that reported the stop signal first */
  uint64_t computed_at_epoch; /* the master's own points at the last epoch */
  double start, next_flush, next_progress;
} master;

/* Largest unit: the config's work_unit, or else as many points as take
 * about a tenth of the flush interval at the master's measured cost per
 * point (4 until it has measured one). An epoch waits for the units in
 * flight, so this keeps flush_interval (and a signal's reaction time)
 * honoured whatever a point costs. */
static uint64_t unit_cap(const master *m, const rank_ctx *c) {
  if (m->cap) return m->cap;
  if (c->computed == 0) return 4;
  const double per_point = c->t_compute / (double)c->computed;
  const double n = 0.1 * c->cfg->flush_interval / per_point;
  return n < 1 ? 1 : (n > 4096 ? 4096 : (uint64_t)n);
}

/* Guided self-scheduling: a quarter of the per-rank share of what is left,
 * so units shrink towards the end and uneven costs balance. Returns the
 * flat range [start, end) holding `len` points not yet done. */
static void next_unit(master *m, const rank_ctx *c, uint64_t *start,
                      uint64_t *end) {
  uint64_t len =
      (m->remaining + 4 * (uint64_t)c->size - 1) / (4 * (uint64_t)c->size);
  if (len > unit_cap(m, c)) len = unit_cap(m, c);
  if (len < 1) len = 1;
  if (len > m->remaining) len = m->remaining;
  *start = m->cursor;
  uint64_t i = m->cursor, got = 0;
  while (got < len && i < c->npts)
    got += !c->done[i++];
  *end = i;
  m->cursor = i;
  m->remaining -= got;
}

static void format_duration(double s, char *buf, size_t n) {
  if (!isfinite(s) || s < 0) {
    snprintf(buf, n, "?");
    return;
  }
  const long t = lround(s);
  if (t >= 3600)
    snprintf(buf, n, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60)
    snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
  else
    snprintf(buf, n, "%lds", t);
}

static void progress(master *m, const rank_ctx *c, int force) {
  const double t = now();
  if (c->quiet || (!force && t < m->next_progress)) return;
  m->next_progress = t + c->cfg->progress_interval;
  const double el = t - m->start;
  const double rate = el > 0 ? (double)m->finished / el : 0.0;
  char eta[32], elapsed[32];
  format_duration(rate > 0 ? (double)(m->todo - m->finished) / rate : NAN, eta,
                  sizeof eta);
  format_duration(el, elapsed, sizeof elapsed);
  fprintf(stderr,
          "sleighsweep: %llu/%llu points (%.1f%%), %.3g points/s, elapsed "
          "%s, ETA %s\n",
          (unsigned long long)m->finished, (unsigned long long)m->todo,
          m->todo ? 100.0 * (double)m->finished / (double)m->todo : 100.0, rate,
          elapsed, eta);
}

static int reply(const rank_ctx *c, int dest, int64_t kind, uint64_t a,
                 uint64_t b) {
  const int64_t msg[3] = {kind, (int64_t)a, (int64_t)b};
  SSW_MPI_CALL(MPI_Send(msg, 3, MPI_INT64_T, dest, TAG_REPLY, c->comm));
  return SSW_SUCCESS;
}

/* Answers every request that has arrived; holds them while an epoch or
 * the end is pending (the answer then comes from the epoch logic). */
static int serve(master *m, rank_ctx *c) {
  const double t0 = now();
  for (;;) {
    int flag = 0;
    MPI_Status st;
    SSW_MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQ, c->comm, &flag, &st));
    if (!flag) break;
    int64_t req[2] = {0, 0}; /* points finished since, stop signal seen */
    SSW_MPI_CALL(MPI_Recv(req, 2, MPI_INT64_T, st.MPI_SOURCE, TAG_REQ, c->comm,
                          MPI_STATUS_IGNORE));
    m->finished += (uint64_t)req[0];
    if (req[1] && !job_signal) {
      job_signal = (int)req[1];
      m->signal_rank = st.MPI_SOURCE;
    }
    if (m->flush_pending || m->stopping || m->remaining == 0) {
      m->held[st.MPI_SOURCE] = 1;
      m->nheld++;
      continue;
    }
    uint64_t a, b;
    next_unit(m, c, &a, &b);
    SSW_CALL(reply(c, st.MPI_SOURCE, MSG_UNIT, a, b));
  }
  if (stop_signal && !job_signal) job_signal = (int)stop_signal;
  if (job_signal && !m->stopping) {
    m->stopping = 1;
    if (!c->quiet)
      fprintf(stderr,
              "sleighsweep: signal %d received by rank %d: no new work, "
              "saving what is finished\n",
              job_signal, m->signal_rank);
  }
  if (!m->flush_pending && now() >= m->next_flush) m->flush_pending = 1;
  progress(m, c, 0);
  c->t_service += now() - t0;
  return SSW_SUCCESS;
}

/* Waits (polling, so progress keeps its cadence) until every worker's
 * request is held, then answers them all with `kind`. */
static int gather_workers(master *m, rank_ctx *c, int64_t kind) {
  const double t0 = now();
  while (m->nheld < c->size - 1) {
    SSW_CALL(serve(m, c));
    if (m->nheld < c->size - 1) usleep(500);
  }
  for (int r = 1; r < c->size; r++)
    SSW_CALL(reply(c, r, kind, 0, 0));
  memset(m->held, 0, (size_t)c->size * sizeof *m->held);
  m->nheld = 0;
  c->t_idle += now() - t0;
  return SSW_SUCCESS;
}

static int run_master(rank_ctx *c, master *m) {
  uint64_t b = 0, i = 0; /* the master's own unit [i, b) */
  for (;;) {
    SSW_CALL(serve(m, c));
    /* An epoch waits until the master has computed a point of its own
     * since the last one (when it has any to compute): an epoch longer
     * than flush_interval must not make epochs follow back to back. */
    const int progressed =
        c->computed > m->computed_at_epoch || (i >= b && m->remaining == 0);
    if (m->flush_pending && !m->stopping && m->remaining + (b - i) > 0 &&
        progressed) {
      SSW_CALL(gather_workers(m, c, MSG_FLUSH));
      SSW_CALL(epoch(c));
      m->flush_pending = 0;
      m->computed_at_epoch = c->computed;
      m->next_flush = now() + c->cfg->flush_interval;
      continue;
    }
    while (i < b && c->done[i])
      i++;
    if (i < b && !m->stopping) {
      SSW_CALL(compute_point(c, i++));
      SSW_CALL(sync_journal(c, 0));
      m->finished++;
      continue;
    }
    if (!m->stopping && m->remaining > 0) {
      next_unit(m, c, &i, &b);
      continue;
    }
    break;
  }
  SSW_CALL(gather_workers(m, c, MSG_STOP));
  return epoch(c);
}

/* Asks for work, reporting the points finished since the last request and
 * any stop signal this rank received (a scheduler may signal one task). */
static int request(rank_ctx *c) {
  const int64_t req[2] = {c->unreported, (int64_t)stop_signal};
  SSW_MPI_CALL(MPI_Send(req, 2, MPI_INT64_T, 0, TAG_REQ, c->comm));
  c->unreported = 0;
  return SSW_SUCCESS;
}

/* Workers ask for the next unit as soon as they receive one (prefetch), so
 * the master's answer, delayed by at most the point it is computing, is
 * waiting when the unit is finished. A worker that receives a stop signal
 * leaves its unit after the point in progress (undone points stay undone)
 * and tells the master with its next request, which stops the job. */
static int run_worker(rank_ctx *c) {
  SSW_CALL(request(c));
  for (;;) {
    int64_t msg[3];
    const double t0 = now();
    SSW_MPI_CALL(MPI_Recv(msg, 3, MPI_INT64_T, 0, TAG_REPLY, c->comm,
                          MPI_STATUS_IGNORE));
    c->t_idle += now() - t0;
    if (msg[0] == MSG_UNIT) {
      SSW_CALL(request(c));
      for (uint64_t i = (uint64_t)msg[1]; i < (uint64_t)msg[2]; i++) {
        if (stop_signal) break;
        if (!c->done[i]) {
          SSW_CALL(compute_point(c, i));
          SSW_CALL(sync_journal(c, 0));
        }
      }
      if (stop_signal) SSW_CALL(sync_journal(c, 1));
    } else if (msg[0] == MSG_FLUSH) {
      SSW_CALL(epoch(c));
      SSW_CALL(request(c));
    } else {
      break;
    }
  }
  return epoch(c);
}

static int reduce_stats(rank_ctx *c, uint64_t done0, double start,
                        ssw_schedule_stats *s) {
  double local[4] = {c->t_compute, c->t_io, c->t_idle, c->t_service};
  double maxv[4];
  uint64_t run = 0, mine = c->computed;
  SSW_MPI_CALL(MPI_Allreduce(local, maxv, 4, MPI_DOUBLE, MPI_MAX, c->comm));
  SSW_MPI_CALL(MPI_Allreduce(&mine, &run, 1, MPI_UINT64_T, MPI_SUM, c->comm));
  s->points_run = run;
  s->points_done = done0 + run;
  s->wall_s = now() - start;
  s->compute_s = maxv[0], s->io_s = maxv[1], s->idle_s = maxv[2];
  s->service_s = c->t_service;
  s->epochs = c->epochs;
  int sig = stop_signal ? 1 : 0, any = 0;
  SSW_MPI_CALL(MPI_Allreduce(&sig, &any, 1, MPI_INT, MPI_MAX, c->comm));
  s->interrupted = any && s->points_done < c->npts;
  return SSW_SUCCESS;
}

/* Queues points recovered from journals for the next epoch (rank 0). */
static int preload(rank_ctx *c, const ssw_journal_set *rec) {
  for (size_t k = 0; rec && k < rec->recs.n; k++)
    SSW_CALL(ssw_result_buf_push(&c->pend, &rec->recs.pts[k],
                                 ssw_result_buf_samples(&rec->recs, k)));
  return SSW_SUCCESS;
}

int ssw_schedule_run(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     uint8_t *done, const ssw_journal_set *recovered, int quiet,
                     ssw_schedule_stats *stats) {
  rank_ctx c = {.comm = comm,
                .quiet = quiet,
                .cfg = cfg,
                .out = out,
                .done = done,
                .npts = ssw_grid_size(cfg),
                .pend = {.sdoubles = ssw_h5out_sample_doubles(cfg)}};
  SSW_MPI_CALL(MPI_Comm_rank(comm, &c.rank));
  SSW_MPI_CALL(MPI_Comm_size(comm, &c.size));
  memset(stats, 0, sizeof *stats);
  uint64_t done0 = 0;
  for (uint64_t i = 0; i < c.npts; i++)
    done0 += done[i];
  const double start = now();
  master m = {.remaining = c.npts - done0,
              .todo = c.npts - done0,
              .cap = cfg->work_unit > 0 ? (uint64_t)cfg->work_unit : 0,
              .start = start,
              .next_flush = start + cfg->flush_interval,
              .next_progress = start + cfg->progress_interval};
  int rc = ssw_ensemble_create(cfg, &c.ens);
  if (rc == SSW_SUCCESS)
    rc = ssw_journal_open(cfg->file, c.rank, cfg, &c.journal);
  if (rc == SSW_SUCCESS) journal_fd = ssw_journal_fileno(c.journal);
  if (rc == SSW_SUCCESS && c.rank == 0) rc = preload(&c, recovered);
  c.last_sync = start;
  if (rc == SSW_SUCCESS && c.rank == 0) {
    m.held = calloc((size_t)c.size, sizeof *m.held);
    rc = m.held ? SSW_SUCCESS : SSW_RAISE(SSW_ERR_MEM, "out of memory");
  }
  if (rc == SSW_SUCCESS) rc = c.rank == 0 ? run_master(&c, &m) : run_worker(&c);
  if (rc == SSW_SUCCESS) rc = reduce_stats(&c, done0, start, stats);
  if (rc == SSW_SUCCESS && c.rank == 0 && !quiet) {
    m.finished = stats->points_run;
    progress(&m, &c, 1);
  }
  journal_fd = -1;
  const int jrc = ssw_journal_close(&c.journal);
  if (rc == SSW_SUCCESS) rc = jrc;
  ssw_ensemble_destroy(&c.ens);
  free(m.held);
  ssw_result_buf_free(&c.pend);
  return rc;
}
