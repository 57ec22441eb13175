/* MPI master/worker scheduling: work units handed out by rank 0, which
 * computes too, and collective flush epochs (include/sleighsweep/schedule.h).
 *
 * Protocol (tags TAG_REQ worker -> master, TAG_MSG master -> worker):
 *  - a worker keeps one request outstanding: {points finished since the last
 *    request, stop signal seen, largest cost of those points in ns}; the
 *    master answers it with MSG_UNIT [start, end) (every point of it not yet
 *    done), or holds it while stopping or when nothing is left;
 *  - MSG_FLUSH is sent to every worker, unasked, when an epoch is due: a
 *    worker takes it between two points, so an epoch waits for at most one
 *    point per rank, never for a whole unit;
 *  - MSG_STOP (held requests answered; msg[1] = 1 when a signal stopped the
 *    job, and the worker drops the units in hand) ends the schedule with the
 *    final epoch. */
#include "sleighsweep/schedule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleighsweep/ensemble.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/journal.h"
#include "sleighsweep/mpi_util.h"
#include "sleighsweep/progress.h"
#include "sleighsweep/sample_points.h"
#include "sleighsweep/signals.h"

enum { TAG_REQ = 101, TAG_MSG = 102 };
enum { MSG_UNIT = 1, MSG_FLUSH = 2, MSG_STOP = 3 };

/* The signal that stopped the job as rank 0 learnt it (from any rank). */
static int job_signal = 0;

int ssw_schedule_signal(void) {
  return job_signal ? job_signal : ssw_signals_received();
}

static double now(void) { return MPI_Wtime(); }

/* Per-rank state: the finished points waiting for the next epoch. */
typedef struct {
  MPI_Comm comm;
  int rank, size;
  const ssw_config *cfg;
  ssw_h5out *out;
  uint64_t npts;
  ssw_ensemble *ens;
  ssw_result_buf pend;  /* finished points waiting for the next epoch */
  uint64_t computed;    /* points computed by this rank */
  int64_t unreported;   /* computed since the last request (progress) */
  double max_cost;      /* largest point cost since the last request */
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
  ssw_params p;
  ssw_grid_params(c->cfg, index, &p);
  const int record = ssw_sample_points_slot(&c->cfg->sample_sel, index) >= 0;
  SSW_CALL(ssw_ensemble_run(c->ens, index, &p, record, &b->pts[b->n], samples));
  SSW_CALL(ssw_journal_append(c->journal, &b->pts[b->n], samples));
  c->unsynced = 1;
  b->n++;
  c->computed++;
  c->unreported++;
  const double cost = now() - t0;
  c->t_compute += cost;
  c->max_cost = fmax(c->max_cost, cost);
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
  ssw_watchdog(1);
  SSW_CALL(ssw_h5out_write_points(c->out, c->pend.pts, c->pend.n,
                                  c->pend.sdoubles ? c->pend.samples : NULL));
  SSW_CALL(ssw_h5out_flush(c->out));
  ssw_watchdog(0);
  c->pend.n = 0;
  c->epochs++;
  c->t_io += now() - t0;
  return SSW_SUCCESS;
}

/* ---- the master (rank 0) ------------------------------------------ */

/* Master state: the cursor over the flat grid and the held requests. The
 * done set lives here only: units hold undone points alone. */
typedef struct {
  const uint8_t *done;
  uint64_t cursor, remaining, todo, finished;
  uint64_t fixed;    /* the config's work_unit; 0: sized by time */
  uint64_t last_len; /* points of the last unit handed out */
  double cost;       /* conservative seconds per point; 0: none measured */
  int *held;         /* per rank: 1 while its request waits for an answer */
  int nheld;
  int stopping;
  int signal_rank;            /* rank that reported the stop signal first */
  uint64_t computed_at_epoch; /* the master's own points at the last epoch */
  double next_flush;
  ssw_progress prog;
} master;

/* A unit lasts at most this fraction of the flush interval at the
 * conservative cost, and grows at most by UNIT_GROWTH from one to the next. */
#define UNIT_FRACTION 0.25
#define UNIT_GROWTH 2
#define UNIT_MAX 4096
/* The conservative cost forgets a costly point slowly: per report. */
#define COST_DECAY 0.95

/* A cost measured on any rank: the estimate follows a rise at once and a
 * fall slowly, so units sized by it stay short when costs vary. */
static void note_cost(master *m, double cost) {
  if (cost > 0) m->cost = fmax(cost, m->cost * COST_DECAY);
}

/* Largest unit: the config's work_unit, else as many points as take
 * UNIT_FRACTION of the flush interval at the conservative cost, at most
 * UNIT_GROWTH times the last unit; one point until a cost is measured. */
static uint64_t unit_cap(const master *m, const rank_ctx *c) {
  if (m->fixed) return m->fixed;
  if (m->cost <= 0) return 1;
  const double n = UNIT_FRACTION * c->cfg->flush_interval / m->cost;
  const uint64_t cap = n < 1 ? 1 : (n > UNIT_MAX ? UNIT_MAX : (uint64_t)n);
  const uint64_t grow = m->last_len ? UNIT_GROWTH * m->last_len : 1;
  return cap < grow ? cap : grow;
}

/* Guided self-scheduling: a quarter of the per-rank share of what is left,
 * so units shrink towards the end and uneven costs balance. Returns the
 * flat range [start, end) of consecutive points not yet done. */
static void next_unit(master *m, const rank_ctx *c, uint64_t *start,
                      uint64_t *end) {
  uint64_t len =
      (m->remaining + 4 * (uint64_t)c->size - 1) / (4 * (uint64_t)c->size);
  const uint64_t cap = unit_cap(m, c);
  if (len > cap) len = cap;
  if (len < 1) len = 1;
  uint64_t i = m->cursor;
  while (i < c->npts && m->done[i])
    i++;
  *start = i;
  while (i < c->npts && i - *start < len && !m->done[i])
    i++;
  *end = i;
  m->cursor = i;
  m->remaining -= i - *start;
  m->last_len = i - *start;
}

static int send_msg(const rank_ctx *c, int dest, int64_t kind, uint64_t a,
                    uint64_t b) {
  const int64_t msg[3] = {kind, (int64_t)a, (int64_t)b};
  SSW_MPI_CALL(MPI_Send(msg, 3, MPI_INT64_T, dest, TAG_MSG, c->comm));
  return SSW_SUCCESS;
}

/* Takes a stop signal (its own or a worker's) into account once. */
static void notice_signal(master *m) {
  const int own = ssw_signals_received();
  if (own && !job_signal) job_signal = own;
  if (job_signal && !m->stopping) {
    m->stopping = 1;
    if (!m->prog.quiet)
      fprintf(stderr,
              "sleighsweep: signal %d received by rank %d: no new work, "
              "saving what is finished\n",
              job_signal, m->signal_rank);
  }
}

/* Answers every request that has arrived with a unit; holds them while
 * stopping or when nothing is left (answered by MSG_STOP at the end). */
static int serve(master *m, rank_ctx *c) {
  const double t0 = now();
  for (;;) {
    int flag = 0;
    MPI_Status st;
    SSW_MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQ, c->comm, &flag, &st));
    if (!flag) break;
    int64_t req[3] = {0, 0, 0}; /* points finished, stop signal, cost ns */
    SSW_MPI_CALL(MPI_Recv(req, 3, MPI_INT64_T, st.MPI_SOURCE, TAG_REQ, c->comm,
                          MPI_STATUS_IGNORE));
    m->finished += (uint64_t)req[0];
    note_cost(m, (double)req[2] * 1e-9);
    if (req[1] && !job_signal) {
      job_signal = (int)req[1];
      m->signal_rank = st.MPI_SOURCE;
    }
    notice_signal(m);
    if (m->stopping || m->remaining == 0) {
      m->held[st.MPI_SOURCE] = 1;
      m->nheld++;
      continue;
    }
    uint64_t a, b;
    next_unit(m, c, &a, &b);
    SSW_CALL(send_msg(c, st.MPI_SOURCE, MSG_UNIT, a, b));
  }
  notice_signal(m);
  ssw_progress_report(&m->prog, now(), m->finished, m->todo, 0);
  c->t_service += now() - t0;
  return SSW_SUCCESS;
}

/* A flush epoch now: every worker is told (it joins after its point in
 * progress), and rank 0 writes its own points too. */
static int flush_all(master *m, rank_ctx *c) {
  for (int r = 1; r < c->size; r++)
    SSW_CALL(send_msg(c, r, MSG_FLUSH, 0, 0));
  const size_t n = c->pend.n;
  SSW_CALL(epoch(c));
  ssw_progress_epoch(&m->prog, now(), c->epochs, n);
  m->computed_at_epoch = c->computed;
  m->next_flush = now() + c->cfg->flush_interval;
  return SSW_SUCCESS;
}

static int run_master(rank_ctx *c, master *m) {
  uint64_t b = 0, i = 0; /* the master's own unit [i, b), all undone */
  for (;;) {
    SSW_CALL(serve(m, c));
    /* An epoch waits until the master has computed a point of its own
     * since the last one (when it has any to compute): an epoch longer
     * than flush_interval must not make epochs follow back to back. */
    const int progressed =
        c->computed > m->computed_at_epoch || (i >= b && m->remaining == 0);
    if (!m->stopping && progressed && now() >= m->next_flush) {
      SSW_CALL(flush_all(m, c));
      continue;
    }
    if (i < b && !m->stopping) {
      SSW_CALL(compute_point(c, i++));
      note_cost(m, c->max_cost);
      c->max_cost = 0;
      SSW_CALL(sync_journal(c, 0));
      m->finished++;
      continue;
    }
    if (!m->stopping && m->remaining > 0) {
      next_unit(m, c, &i, &b);
      continue;
    }
    if (m->nheld == c->size - 1) break;
    const double t0 = now();
    usleep(500);
    c->t_idle += now() - t0;
  }
  for (int r = 1; r < c->size; r++)
    SSW_CALL(send_msg(c, r, MSG_STOP, (uint64_t)m->stopping, 0));
  const size_t n = c->pend.n;
  SSW_CALL(epoch(c));
  ssw_progress_epoch(&m->prog, now(), c->epochs, n);
  return SSW_SUCCESS;
}

/* ---- the workers ---------------------------------------------------- */

/* A worker's units: the one in progress and the one received meanwhile. */
typedef struct {
  uint64_t cur, end;       /* the unit in progress [cur, end) */
  uint64_t next, next_end; /* the unit received while computing */
  int outstanding;         /* a request waits for its unit */
  int stop;                /* MSG_STOP received: final epoch when idle */
} worker;

/* Asks for work, reporting the points finished since the last request,
 * their largest cost and any stop signal this rank received (a scheduler
 * may signal one task). */
static int request(rank_ctx *c, worker *w) {
  const int64_t req[3] = {c->unreported, (int64_t)ssw_signals_received(),
                          (int64_t)(c->max_cost * 1e9)};
  SSW_MPI_CALL(MPI_Send(req, 3, MPI_INT64_T, 0, TAG_REQ, c->comm));
  c->unreported = 0;
  c->max_cost = 0;
  w->outstanding = 1;
  return SSW_SUCCESS;
}

/* Takes one message of the master; `block`: waits for it, else only when
 * one has arrived. A unit received while one is in progress waits. */
static int receive(rank_ctx *c, worker *w, int block) {
  int flag = 1;
  if (!block)
    SSW_MPI_CALL(MPI_Iprobe(0, TAG_MSG, c->comm, &flag, MPI_STATUS_IGNORE));
  if (!flag) return SSW_SUCCESS;
  int64_t msg[3];
  const double t0 = now();
  SSW_MPI_CALL(
      MPI_Recv(msg, 3, MPI_INT64_T, 0, TAG_MSG, c->comm, MPI_STATUS_IGNORE));
  if (block) c->t_idle += now() - t0;
  if (msg[0] == MSG_FLUSH) return epoch(c);
  if (msg[0] == MSG_STOP) {
    w->stop = 1;
    if (msg[1]) w->cur = w->end = w->next = w->next_end = 0;
    return SSW_SUCCESS;
  }
  w->outstanding = 0;
  if (w->cur < w->end) {
    w->next = (uint64_t)msg[1], w->next_end = (uint64_t)msg[2];
    return SSW_SUCCESS;
  }
  w->cur = (uint64_t)msg[1], w->end = (uint64_t)msg[2];
  return request(c, w); /* prefetch: the next unit is there in time */
}

/* Workers ask for the next unit as soon as they start one (prefetch), so
 * the master's answer, delayed by at most the point it is computing, is
 * waiting when the unit is finished. A worker that receives a stop signal
 * drops its units after the point in progress (undone points stay undone)
 * and tells the master with a request, which stops the job. */
static int run_worker(rank_ctx *c) {
  worker w = {0};
  SSW_CALL(request(c, &w));
  for (;;) {
    if (ssw_signals_received() && (w.cur < w.end || w.next < w.next_end)) {
      w.cur = w.end = w.next = w.next_end = 0;
      SSW_CALL(sync_journal(c, 1));
      if (!w.outstanding && !w.stop) SSW_CALL(request(c, &w));
    }
    if (w.cur >= w.end && w.next < w.next_end) {
      w.cur = w.next, w.end = w.next_end;
      w.next = w.next_end = 0;
      if (!w.stop) SSW_CALL(request(c, &w));
    }
    if (w.cur < w.end) {
      SSW_CALL(receive(c, &w, 0));
      if (w.cur < w.end && !ssw_signals_received()) {
        SSW_CALL(compute_point(c, w.cur++));
        SSW_CALL(sync_journal(c, 0));
      }
      continue;
    }
    if (w.stop) break;
    SSW_CALL(receive(c, &w, 1));
  }
  return epoch(c);
}

/* ---- the whole schedule --------------------------------------------- */

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
  int sig = ssw_signals_received() ? 1 : 0, any = 0;
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

/* Rank 0's master state; the points already done, known to every rank. */
static int setup(rank_ctx *c, master *m, const uint8_t *done, int quiet,
                 double start, uint64_t *done0) {
  *done0 = 0;
  for (uint64_t i = 0; c->rank == 0 && i < c->npts; i++)
    *done0 += done[i] != 0;
  SSW_MPI_CALL(MPI_Bcast(done0, 1, MPI_UINT64_T, 0, c->comm));
  if (c->rank != 0) return SSW_SUCCESS;
  m->done = done;
  m->remaining = m->todo = c->npts - *done0;
  m->fixed = c->cfg->work_unit > 0 ? (uint64_t)c->cfg->work_unit : 0;
  m->next_flush = start + c->cfg->flush_interval;
  ssw_progress_init(&m->prog, start, c->cfg->progress_interval, quiet);
  m->held = calloc((size_t)c->size, sizeof *m->held);
  return m->held ? SSW_SUCCESS : SSW_RAISE(SSW_ERR_MEM, "out of memory");
}

int ssw_schedule_run(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     const uint8_t *done, const ssw_journal_set *recovered,
                     int quiet, ssw_schedule_stats *stats) {
  rank_ctx c = {.comm = comm,
                .cfg = cfg,
                .out = out,
                .npts = ssw_grid_size(cfg),
                .pend = {.sdoubles = ssw_result_sample_doubles(
                             cfg->samples, cfg->sample_nodes)}};
  SSW_MPI_CALL(MPI_Comm_rank(comm, &c.rank));
  SSW_MPI_CALL(MPI_Comm_size(comm, &c.size));
  memset(stats, 0, sizeof *stats);
  const double start = now();
  master m = {0};
  uint64_t done0 = 0;
  int rc = setup(&c, &m, done, quiet, start, &done0);
  ssw_ensemble_spec spec;
  ssw_config_ensemble(cfg, &spec);
  if (rc == SSW_SUCCESS) rc = ssw_ensemble_create(&spec, &c.ens);
  if (rc == SSW_SUCCESS)
    rc = ssw_journal_open(cfg->file, c.rank, cfg, &c.journal);
  if (rc == SSW_SUCCESS) ssw_signals_sync_fd(ssw_journal_fileno(c.journal));
  if (rc == SSW_SUCCESS && c.rank == 0) rc = preload(&c, recovered);
  c.last_sync = start;
  if (rc == SSW_SUCCESS) rc = c.rank == 0 ? run_master(&c, &m) : run_worker(&c);
  if (rc == SSW_SUCCESS) rc = reduce_stats(&c, done0, start, stats);
  if (rc == SSW_SUCCESS && c.rank == 0)
    ssw_progress_report(&m.prog, now(), stats->points_run, m.todo, 1);
  ssw_signals_sync_fd(-1);
  const int jrc = ssw_journal_close(&c.journal);
  if (rc == SSW_SUCCESS) rc = jrc;
  ssw_ensemble_destroy(&c.ens);
  free(m.held);
  ssw_result_buf_free(&c.pend);
  return rc;
}
