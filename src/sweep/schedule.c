/* MPI master/worker scheduling: work units handed out by rank 0, and
 * collective flush epochs (include/sleighsweep/schedule.h, docs/scaling.md).
 *
 * Protocol (tags TAG_REQ worker -> master, TAG_MSG master -> worker):
 *  - every computing rank starts with a first unit it did not ask for: rank
 *    0 cuts the first units from the done set, one per computing rank in
 *    rank order, and scatters them (one collective), so a start-up costs no
 *    request;
 *  - a worker keeps one request outstanding once it has computed a point
 *    (so that the first requests carry a cost and arrive spread over a
 *    point's time): {points finished since the last request, stop signal
 *    seen, largest cost of those points in ns}; the master answers it with
 *    MSG_UNIT [start, end) (every point of it not yet done), or holds it
 *    while stopping or when nothing is left;
 *  - MSG_FLUSH is sent to every worker, unasked, when an epoch is due: a
 *    worker takes it between two points, so an epoch waits for at most one
 *    point per rank, never for a whole unit;
 *  - MSG_STOP ends the schedule with the final epoch: sent once every
 *    request is held at the end, or unasked as soon as the master learns of
 *    a stop signal (msg[1] = 1: the worker drops the units in hand after its
 *    point in progress and makes sure one request of its own is held).
 * Rank 0 computes too up to DEDICATED_ABOVE ranks; above, it only
 * schedules and answers within a poll interval whatever a point costs. */
#include "sleighsweep/schedule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* CPU seconds of the calling thread (the master's cost per request). */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
  int master_computes;  /* rank 0 computes points too (every rank knows) */
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
  ssw_grid_values v;
  ssw_grid_values_at(c->cfg->axes, index, &v);
  const int record = ssw_sample_points_slot(&c->cfg->sample_sel, index) >= 0;
  SSW_CALL(ssw_ensemble_run(c->ens, index, &v, record, &b->pts[b->n], samples));
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
 * SSW_JOURNAL_SYNC_INTERVAL seconds (cheap, local), so a node crash loses
 * at most that much finished work plus the point in progress. */
static int sync_journal(rank_ctx *c, int force) {
  if (!c->unsynced ||
      (!force && now() - c->last_sync < SSW_JOURNAL_SYNC_INTERVAL))
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
  int computes;      /* 1: rank 0 computes points too */
  int *held;         /* per rank: 1 while its request waits for an answer */
  int nheld;
  int stopping;
  int signal_rank;            /* rank that reported the stop signal first */
  uint64_t computed_at_epoch; /* the master's own points at the last epoch */
  double next_flush;
  uint64_t first_units, first_len; /* units handed out ahead, their length */
  int log;                         /* $SSW_LOG_SCHEDULE=1: log_schedule */
  uint64_t served;                 /* requests answered or held */
  double cpu_served; /* logging: CPU time of serve() calls that had some */
  ssw_progress prog;
  /* The next request's receive, posted ahead (from any rank): a request
   * that has arrived is then one MPI_Test, not a probe and a receive
   * that each match it. MPI_REQUEST_NULL while none is posted. */
  MPI_Request next_req;
  int64_t next_buf[3];
} master;

/* A unit lasts at most this fraction of the flush interval at the
 * conservative cost, and grows at most by UNIT_GROWTH from one to the next. */
#define UNIT_FRACTION 0.25
#define UNIT_GROWTH 2
#define UNIT_MAX 4096
/* The conservative cost forgets a costly point slowly: per report. */
#define COST_DECAY 0.95
/* The first units, cut before any cost is known: 1/FIRST_SHARE of each
 * computing rank's share of the points (guided self-scheduling's first
 * step), at most work_unit or UNIT_MAX. */
#define FIRST_SHARE 4
/* The master's time per request (measured: docs/scaling.md) and the share
 * of its time requests may take: units last at least size x REQUEST_COST /
 * MASTER_LOAD at the conservative cost, so that the requests of all ranks
 * together never outrun the master, at start-up or at the end. */
#define REQUEST_COST 4e-6
#define MASTER_LOAD 0.25
/* Rank 0 computes up to this many ranks, above it only schedules
 * (SSW_DEDICATED_MASTER_ABOVE overrides; docs/scaling.md). */
#define DEDICATED_ABOVE 64
/* A master that only schedules polls for requests this often (us). */
#define IDLE_POLL_US 100

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

/* Smallest unit sized by time: long enough that `size` ranks asking once
 * per unit keep the master busy at most MASTER_LOAD of its time. */
static uint64_t unit_floor(const master *m, const rank_ctx *c) {
  if (m->fixed || m->cost <= 0) return 1;
  const double n = ceil((double)c->size * REQUEST_COST / MASTER_LOAD / m->cost);
  return n < 1 ? 1 : (n > UNIT_MAX ? UNIT_MAX : (uint64_t)n);
}

/* The flat range [start, end) of at most `len` consecutive points not yet
 * done, from the cursor on (empty when none is left). */
static void take_unit(master *m, const rank_ctx *c, uint64_t len,
                      uint64_t *start, uint64_t *end) {
  uint64_t i = m->cursor;
  while (m->remaining > 0 && i < c->npts && m->done[i])
    i++;
  *start = i;
  while (m->remaining > 0 && i < c->npts && i - *start < len && !m->done[i])
    i++;
  *end = i;
  m->cursor = i;
  m->remaining -= i - *start;
  m->last_len = i - *start;
}

/* Guided self-scheduling: a quarter of the per-rank share of what is left,
 * so units shrink towards the end and uneven costs balance; within the
 * cap by time and above the floor of the master's load. */
static void next_unit(master *m, const rank_ctx *c, uint64_t *start,
                      uint64_t *end) {
  uint64_t len =
      (m->remaining + 4 * (uint64_t)c->size - 1) / (4 * (uint64_t)c->size);
  const uint64_t cap = unit_cap(m, c), floor = unit_floor(m, c);
  if (len > cap) len = cap;
  if (len < floor) len = floor;
  if (len < 1) len = 1;
  take_unit(m, c, len, start, end);
}

/* The first units, one per rank in rank order ([0, 0) for a master that
 * does not compute), into `units` (2 per rank). */
static void first_units(master *m, const rank_ctx *c, uint64_t *units) {
  const uint64_t ncomp = (uint64_t)c->size - (m->computes ? 0 : 1);
  const uint64_t cap = m->fixed ? m->fixed : UNIT_MAX;
  uint64_t len = (m->todo + FIRST_SHARE * ncomp - 1) / (FIRST_SHARE * ncomp);
  len = len < 1 ? 1 : (len > cap ? cap : len);
  for (int r = 0; r < c->size; r++) {
    units[2 * r] = units[2 * r + 1] = 0;
    if (r == 0 && !m->computes) continue;
    take_unit(m, c, len, &units[2 * r], &units[2 * r + 1]);
    m->first_units += units[2 * r + 1] > units[2 * r];
  }
  m->first_len = len;
  m->last_len = len;
}

static int send_msg(const rank_ctx *c, int dest, int64_t kind, uint64_t a,
                    uint64_t b) {
  const int64_t msg[3] = {kind, (int64_t)a, (int64_t)b};
  SSW_MPI_CALL(MPI_Send(msg, 3, MPI_INT64_T, dest, TAG_MSG, c->comm));
  return SSW_SUCCESS;
}

/* Takes a stop signal (its own or a worker's) into account once: every
 * worker is told at once, and stops after its point in progress. */
static int notice_signal(master *m, const rank_ctx *c) {
  const int own = ssw_signals_received();
  if (own && !job_signal) job_signal = own;
  if (!job_signal || m->stopping) return SSW_SUCCESS;
  m->stopping = 1;
  if (!m->prog.quiet)
    fprintf(stderr,
            "sleighsweep: signal %d received by rank %d: no new work, "
            "saving what is finished\n",
            job_signal, m->signal_rank);
  for (int r = 1; r < c->size; r++)
    SSW_CALL(send_msg(c, r, MSG_STOP, 1, 0));
  return SSW_SUCCESS;
}

/* Answers every request that has arrived with a unit; holds them while
 * stopping or when nothing is left (answered by MSG_STOP at the end).
 * *served: the requests taken. */
static int post_request(master *m, const rank_ctx *c) {
  SSW_MPI_CALL(MPI_Irecv(m->next_buf, 3, MPI_INT64_T, MPI_ANY_SOURCE, TAG_REQ,
                         c->comm, &m->next_req));
  return SSW_SUCCESS;
}

/* Withdraws the receive posted ahead once every worker's request is held:
 * no request can come then (a worker has at most one outstanding), and
 * one that did would need no answer, as before when none was posted. */
static int cancel_request(master *m) {
  if (m->next_req == MPI_REQUEST_NULL) return SSW_SUCCESS;
  SSW_MPI_CALL(MPI_Cancel(&m->next_req));
  SSW_MPI_CALL(MPI_Wait(&m->next_req, MPI_STATUS_IGNORE));
  return SSW_SUCCESS;
}

static int serve(master *m, rank_ctx *c, int *served) {
  const double t0 = now(), cpu0 = m->log ? cpu_now() : 0.0;
  *served = 0;
  if (m->next_req == MPI_REQUEST_NULL) SSW_CALL(post_request(m, c));
  for (;;) {
    int flag = 0;
    MPI_Status st;
    SSW_MPI_CALL(MPI_Test(&m->next_req, &flag, &st));
    if (!flag) break;
    /* points finished, stop signal, cost ns */
    const int64_t req[3] = {m->next_buf[0], m->next_buf[1], m->next_buf[2]};
    SSW_CALL(post_request(m, c));
    (*served)++;
    m->finished += (uint64_t)req[0];
    note_cost(m, (double)req[2] * 1e-9);
    if (req[1] && !job_signal) {
      job_signal = (int)req[1];
      m->signal_rank = st.MPI_SOURCE;
    }
    SSW_CALL(notice_signal(m, c));
    if (m->stopping || m->remaining == 0) {
      m->held[st.MPI_SOURCE] = 1;
      m->nheld++;
      continue;
    }
    uint64_t a, b;
    next_unit(m, c, &a, &b);
    SSW_CALL(send_msg(c, st.MPI_SOURCE, MSG_UNIT, a, b));
  }
  SSW_CALL(notice_signal(m, c));
  ssw_progress_report(&m->prog, now(), m->finished, m->todo, 0);
  c->t_service += now() - t0;
  m->served += (uint64_t)*served;
  if (*served && m->log) m->cpu_served += cpu_now() - cpu0;
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

/* One of the master's own points (a master that computes). */
static int own_point(master *m, rank_ctx *c, uint64_t index) {
  SSW_CALL(compute_point(c, index));
  note_cost(m, c->max_cost);
  c->max_cost = 0;
  SSW_CALL(sync_journal(c, 0));
  m->finished++;
  return SSW_SUCCESS;
}

/* The master's loop: requests answered between its own points (or, when
 * it only schedules, as they come), epochs when due; `first` is its own
 * first unit. Ends with every worker's request held, then the final
 * epoch. */
static int run_master(rank_ctx *c, master *m, const uint64_t first[2]) {
  uint64_t i = first[0], b = first[1]; /* its own unit [i, b), all undone */
  for (;;) {
    int served = 0;
    SSW_CALL(serve(m, c, &served));
    /* An epoch waits until a computing master has computed a point of its
     * own since the last one (when it has any to compute): an epoch longer
     * than flush_interval must not make epochs follow back to back. */
    const int progressed = !m->computes || c->computed > m->computed_at_epoch ||
                           (i >= b && m->remaining == 0);
    if (!m->stopping && progressed && now() >= m->next_flush) {
      SSW_CALL(flush_all(m, c));
      continue;
    }
    if (i < b && !m->stopping) {
      SSW_CALL(own_point(m, c, i++));
      continue;
    }
    if (m->computes && !m->stopping && m->remaining > 0) {
      next_unit(m, c, &i, &b);
      continue;
    }
    if (m->nheld == c->size - 1) break;
    if (served) continue;
    const double t0 = now();
    usleep(m->computes ? 500 : IDLE_POLL_US);
    c->t_idle += now() - t0;
  }
  SSW_CALL(cancel_request(m));
  for (int r = 1; r < c->size && !m->stopping; r++)
    SSW_CALL(send_msg(c, r, MSG_STOP, 0, 0));
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
    if (!msg[1]) return SSW_SUCCESS; /* the end: its request is held */
    /* Stopped by a signal: the master waits for one request per worker. */
    w->cur = w->end = w->next = w->next_end = 0;
    return w->outstanding ? SSW_SUCCESS : request(c, w);
  }
  w->outstanding = 0;
  if (w->cur < w->end) {
    w->next = (uint64_t)msg[1], w->next_end = (uint64_t)msg[2];
    return SSW_SUCCESS;
  }
  w->cur = (uint64_t)msg[1], w->end = (uint64_t)msg[2];
  return SSW_SUCCESS;
}

/* A worker starts with its first unit, asks for the next after its first
 * point and from then on as soon as it starts a unit (prefetch), so the
 * master's answer is waiting when the unit is finished. A worker that
 * receives a stop signal drops its units after the point in progress
 * (undone points stay undone) and tells the master with a request, which
 * stops the job. */
static int run_worker(rank_ctx *c, const uint64_t first[2]) {
  worker w = {.cur = first[0], .end = first[1]};
  for (;;) {
    if (ssw_signals_received() && (w.cur < w.end || w.next < w.next_end)) {
      w.cur = w.end = w.next = w.next_end = 0;
      SSW_CALL(sync_journal(c, 1));
    }
    if (w.cur >= w.end && w.next < w.next_end) {
      w.cur = w.next, w.end = w.next_end;
      w.next = w.next_end = 0;
    }
    const int idle = w.cur >= w.end;
    if (!w.outstanding && !w.stop && w.next >= w.next_end &&
        (idle || c->computed > 0))
      SSW_CALL(request(c, &w));
    if (!idle) {
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

/* Figures of the schedule on every rank; `points` gets the fewest and the
 * most points a computing rank computed. */
static int reduce_stats(rank_ctx *c, uint64_t done0, double start,
                        ssw_schedule_stats *s, double points[2]) {
  const int idle_master = c->rank == 0 && !c->master_computes;
  double local[6] = {c->t_compute,
                     c->t_io,
                     c->t_idle,
                     c->t_service,
                     idle_master ? -INFINITY : -(double)c->computed,
                     (double)c->computed};
  double maxv[6];
  uint64_t run = 0, mine = c->computed;
  SSW_MPI_CALL(MPI_Allreduce(local, maxv, 6, MPI_DOUBLE, MPI_MAX, c->comm));
  SSW_MPI_CALL(MPI_Allreduce(&mine, &run, 1, MPI_UINT64_T, MPI_SUM, c->comm));
  s->points_run = run;
  s->points_done = done0 + run;
  s->wall_s = now() - start;
  s->compute_s = maxv[0], s->io_s = maxv[1], s->idle_s = maxv[2];
  s->service_s = c->t_service;
  s->epochs = c->epochs;
  points[0] = -maxv[4], points[1] = maxv[5];
  int sig = ssw_signals_received() ? 1 : 0, any = 0;
  SSW_MPI_CALL(MPI_Allreduce(&sig, &any, 1, MPI_INT, MPI_MAX, c->comm));
  s->interrupted = any && s->points_done < c->npts;
  return SSW_SUCCESS;
}

/* With SSW_LOG_SCHEDULE=1, rank 0 says how the work was handed out. */
static void log_schedule(const rank_ctx *c, const master *m,
                         const double points[2]) {
  if (c->rank != 0 || !m->log) return;
  fprintf(stderr,
          "sleighsweep: schedule: %d rank(s), rank 0 %s; %llu first unit(s) "
          "of %llu point(s) handed out ahead; %llu request(s) taken, %.3g us "
          "CPU each; %.0f to %.0f point(s) per computing rank\n",
          c->size, m->computes ? "computes" : "only schedules",
          (unsigned long long)m->first_units, (unsigned long long)m->first_len,
          (unsigned long long)m->served,
          m->served ? 1e6 * m->cpu_served / (double)m->served : 0.0, points[0],
          points[1]);
}

/* Queues points recovered from journals for the next epoch (rank 0). */
static int preload(rank_ctx *c, const ssw_journal_set *rec) {
  for (size_t k = 0; rec && k < rec->recs.n; k++)
    SSW_CALL(ssw_result_buf_push(&c->pend, &rec->recs.pts[k],
                                 ssw_result_buf_samples(&rec->recs, k)));
  return SSW_SUCCESS;
}

/* Whether rank 0 computes in a job of `size` ranks: always alone, never
 * above DEDICATED_ABOVE ranks (or $SSW_DEDICATED_MASTER_ABOVE, >= 1). */
static int master_computes(int size) {
  long above = DEDICATED_ABOVE;
  const char *env = getenv("SSW_DEDICATED_MASTER_ABOVE");
  char *end = NULL;
  const long v = env ? strtol(env, &end, 10) : 0;
  if (env && end != env && *end == '\0' && v >= 1) above = v;
  return size <= above;
}

/* Rank 0's master state and the first units: the points already done and
 * whether rank 0 computes, known to every rank, and each rank's first
 * unit in `first`, scattered by rank 0. */
static int setup(rank_ctx *c, master *m, const uint8_t *done, int quiet,
                 double start, uint64_t *done0, uint64_t first[2]) {
  uint64_t shared[2] = {0, (uint64_t)master_computes(c->size)};
  for (uint64_t i = 0; c->rank == 0 && i < c->npts; i++)
    shared[0] += done[i] != 0;
  SSW_MPI_CALL(MPI_Bcast(shared, 2, MPI_UINT64_T, 0, c->comm));
  *done0 = shared[0];
  c->master_computes = (int)shared[1];
  uint64_t *units = NULL;
  int rc = SSW_SUCCESS;
  if (c->rank == 0) {
    m->done = done;
    m->computes = c->master_computes;
    const char *log = getenv("SSW_LOG_SCHEDULE");
    m->log = log && strcmp(log, "1") == 0;
    m->remaining = m->todo = c->npts - *done0;
    m->fixed = c->cfg->work_unit > 0 ? (uint64_t)c->cfg->work_unit : 0;
    m->next_flush = start + c->cfg->flush_interval;
    ssw_progress_init(&m->prog, start, c->cfg->progress_interval, quiet);
    m->held = calloc((size_t)c->size, sizeof *m->held);
    units = calloc(2 * (size_t)c->size, sizeof *units);
    if (m->held && units)
      first_units(m, c, units);
    else
      rc = SSW_RAISE(SSW_ERR_MEM, "out of memory");
  }
  SSW_CALL(ssw_mpi_agree(c->comm, rc));
  const int mrc =
      MPI_Scatter(units, 2, MPI_UINT64_T, first, 2, MPI_UINT64_T, 0, c->comm);
  free(units);
  SSW_MPI_CALL(mrc);
  return SSW_SUCCESS;
}

int ssw_schedule_run(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     const uint8_t *done, const ssw_journal_set *recovered,
                     int quiet, ssw_schedule_stats *stats) {
  rank_ctx c = {.comm = comm,
                .cfg = cfg,
                .out = out,
                .npts = ssw_grid_size(cfg->axes),
                .pend = {.sdoubles = ssw_result_sample_doubles(
                             cfg->samples, cfg->sample_nodes)}};
  SSW_MPI_CALL(MPI_Comm_rank(comm, &c.rank));
  SSW_MPI_CALL(MPI_Comm_size(comm, &c.size));
  memset(stats, 0, sizeof *stats);
  const double start = now();
  master m = {.next_req = MPI_REQUEST_NULL};
  uint64_t done0 = 0, first[2] = {0, 0};
  double points[2] = {0, 0};
  int rc = setup(&c, &m, done, quiet, start, &done0, first);
  ssw_ensemble_spec spec;
  ssw_config_ensemble(cfg, &spec);
  if (rc == SSW_SUCCESS) rc = ssw_ensemble_create(&spec, &c.ens);
  if (rc == SSW_SUCCESS)
    rc = ssw_journal_open(cfg->file, c.rank, cfg, &c.journal);
  if (rc == SSW_SUCCESS) ssw_signals_sync_fd(ssw_journal_fileno(c.journal));
  if (rc == SSW_SUCCESS && c.rank == 0) rc = preload(&c, recovered);
  c.last_sync = start;
  if (rc == SSW_SUCCESS)
    rc = c.rank == 0 ? run_master(&c, &m, first) : run_worker(&c, first);
  if (rc == SSW_SUCCESS) rc = reduce_stats(&c, done0, start, stats, points);
  if (rc == SSW_SUCCESS && c.rank == 0) {
    ssw_progress_report(&m.prog, now(), stats->points_run, m.todo, 1);
    log_schedule(&c, &m, points);
  }
  ssw_signals_sync_fd(-1);
  const int jrc = ssw_journal_close(&c.journal);
  if (rc == SSW_SUCCESS) rc = jrc;
  ssw_ensemble_destroy(&c.ens);
  free(m.held);
  ssw_result_buf_free(&c.pend);
  return rc;
}
