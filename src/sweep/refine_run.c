/* Boundary refinement under MPI (include/sleighsweep/refine_run.h): rank 0
 * reads the grid's classes and finds the edges and takes those the
 * journals hold, every rank solves its share of the others (journaling
 * each, polling the stop signals between them), and rank 0 writes the
 * crossings in edge order. */
#include "sleighsweep/refine_run.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5boundaries.h"
#include "sleighsweep/mpi_util.h"
#include "sleighsweep/refine.h"
#include "sleighsweep/refine_points.h"
#include "sleighsweep/signals.h"

/* A crossing with its edge and its rank along the edge: the sort key. */
typedef struct {
  uint64_t edge;
  uint64_t seq;
  ssw_refine_crossing c;
} tagged;

/* A rank's crossings. */
typedef struct {
  tagged *t;
  size_t n, cap;
  uint64_t trajectories; /* integrated by this rank's evaluations */
} found;

/* Every rank's status made common. */
static int agree_any(MPI_Comm comm, int rc) {
  return ssw_mpi_agree_any(comm, rc, "the refinement");
}

/* The near misses and unresolved edges found by rank 0, their numbers
 * known to every rank. */
typedef struct {
  ssw_refine_near *list;
  uint64_t n;
  ssw_refine_unresolved *unresolved;
  uint64_t nu;
} nears;

/* Rank 0 reads the grid's samples and lists the edges (every rank gets
 * them) and the near misses (rank 0 keeps them). */
static int share_edges(MPI_Comm comm, int rank, const ssw_config *cfg,
                       const ssw_refine_spec *sp, ssw_h5out *out,
                       ssw_refine_edge **edges, uint64_t *ne, nears *nm) {
  ssw_refine_sample *s = NULL;
  int rc = SSW_SUCCESS;
  if (rank == 0) {
    s = malloc(ssw_grid_size(cfg->axes) * sizeof *s);
    if (!s) rc = SSW_RAISE(SSW_ERR_MEM, "out of memory for the grid's classes");
  }
  const int rrc = ssw_h5out_read_refine_samples(out, s);
  if (rc == SSW_SUCCESS) rc = rrc;
  size_t n = 0;
  for (uint64_t i = 0;
       rc == SSW_SUCCESS && rank == 0 && i < ssw_grid_size(cfg->axes); i++)
    s[i].H = ssw_grid_value(cfg->axes, i, SSW_AXIS_ENERGY);
  if (rc == SSW_SUCCESS && rank == 0)
    rc = ssw_refine_edges(cfg, sp, s, edges, &n);
  size_t nn = 0;
  if (rc == SSW_SUCCESS && rank == 0)
    rc = ssw_refine_near_misses(cfg, sp, s, &nm->list, &nn);
  nm->n = nn;
  size_t nu = 0;
  if (rc == SSW_SUCCESS && rank == 0)
    rc = ssw_refine_unresolved_edges(cfg, sp, s, &nm->unresolved, &nu);
  nm->nu = nu;
  free(s);
  SSW_CALL(ssw_mpi_agree(comm, rc));
  *ne = n;
  SSW_MPI_CALL(MPI_Bcast(ne, 1, MPI_UINT64_T, 0, comm));
  SSW_MPI_CALL(MPI_Bcast(&nm->n, 1, MPI_UINT64_T, 0, comm));
  SSW_MPI_CALL(MPI_Bcast(&nm->nu, 1, MPI_UINT64_T, 0, comm));
  if (rank != 0) {
    *edges = malloc((*ne ? *ne : 1) * sizeof **edges);
    rc = *edges ? SSW_SUCCESS : SSW_RAISE(SSW_ERR_MEM, "out of memory");
  }
  SSW_CALL(agree_any(comm, rc));
  return ssw_mpi_bcast_bytes(comm, *edges, *ne * sizeof **edges);
}

/* Room in f for `more` crossings. */
static int grow(found *f, size_t more) {
  if (f->n + more <= f->cap) return SSW_SUCCESS;
  const size_t cap = 2 * (f->n + more);
  tagged *t = realloc(f->t, cap * sizeof *t);
  SSW_CHECK(t, SSW_ERR_MEM, "out of memory for crossings");
  f->t = t, f->cap = cap;
  return SSW_SUCCESS;
}

/* A stop signal during the refinement: the rank that receives one tells
 * every other rank at once (TAG_STOP), each looks for word between two
 * edges, and at the end all agree on it (stop_agree). */
enum { TAG_STOP = 103 };
typedef struct {
  MPI_Comm comm;
  int rank, size;
  int sig;           /* this rank's own signal, once told to the others */
  int stop;          /* a stop is known: solve no more edges */
  int *heard;        /* per rank: its word received; then every rank's sig */
  MPI_Request *sent; /* this rank's words in flight (size - 1) */
} stopper;

/* Tells the others of this rank's signal (once) and takes their word. */
static int stop_poll(stopper *s) {
  const int own = ssw_signals_received();
  if (own && !s->sig) {
    s->sig = own, s->stop = 1;
    for (int r = 0, n = 0; r < s->size; r++)
      if (r != s->rank)
        SSW_MPI_CALL(MPI_Isend(&s->sig, 1, MPI_INT, r, TAG_STOP, s->comm,
                               &s->sent[n++]));
  }
  for (;;) {
    int flag = 0, sig = 0;
    MPI_Status st;
    SSW_MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, TAG_STOP, s->comm, &flag, &st));
    if (!flag) return SSW_SUCCESS;
    SSW_MPI_CALL(MPI_Recv(&sig, 1, MPI_INT, st.MPI_SOURCE, TAG_STOP, s->comm,
                          MPI_STATUS_IGNORE));
    s->heard[st.MPI_SOURCE] = 1, s->stop = 1;
  }
}

/* Collective, once every rank has left its edges: the signal that stopped
 * the refinement (0: none) and the first rank that received one, the same
 * on every rank; every word sent is received. */
static int stop_agree(stopper *s, int *sig, int *by) {
  SSW_CALL(stop_poll(s));
  int *all = s->heard + s->size;
  SSW_MPI_CALL(MPI_Allgather(&s->sig, 1, MPI_INT, all, 1, MPI_INT, s->comm));
  *sig = 0, *by = -1;
  for (int r = 0; r < s->size; r++) {
    if (!all[r]) continue;
    if (!*sig) *sig = all[r], *by = r;
    int x;
    if (r != s->rank && !s->heard[r])
      SSW_MPI_CALL(
          MPI_Recv(&x, 1, MPI_INT, r, TAG_STOP, s->comm, MPI_STATUS_IGNORE));
  }
  SSW_MPI_CALL(MPI_Waitall(s->size - 1, s->sent, MPI_STATUSES_IGNORE));
  return SSW_SUCCESS;
}

/* One refinement under way on this rank. */
typedef struct {
  MPI_Comm comm;
  int rank, size;
  const ssw_config *cfg;
  ssw_refine_spec sp;
  ssw_refine_edge *edges;
  uint64_t ne;
  uint8_t *todo;        /* per edge: 1 when no journal holds it */
  ssw_journal *journal; /* this rank's */
  stopper stop;
  found f;         /* this rank's crossings (rank 0: the journaled too) */
  uint64_t solved; /* edges this rank solved */
} refining;

/* (c's lo, axis) before edge e's. */
static int before(const ssw_journal_crossing *c, const ssw_refine_edge *e) {
  return c->lo < e->lo || (c->lo == e->lo && c->axis < e->axis);
}

/* Rank 0 takes the crossings of every edge the journals hold into its own
 * (they are not solved again) and every rank learns which edges are left
 * to do; st->journaled: the edges taken. */
static int take_journaled(refining *r, const ssw_journal_set *js,
                          ssw_refine_stats *st) {
  int rc = SSW_SUCCESS;
  memset(r->todo, 1, r->ne);
  const ssw_journal_crossing *c = r->rank == 0 && js ? js->crossings : NULL;
  const size_t nc = c ? js->ncrossings : 0;
  size_t i = 0;
  for (uint64_t k = 0; rc == SSW_SUCCESS && k < r->ne && i < nc; k++) {
    const ssw_refine_edge *e = &r->edges[k];
    while (i < nc && before(&c[i], e))
      i++;
    size_t n = 0; /* the records of edge k: [i, i + n) */
    while (i + n < nc && c[i + n].lo == e->lo && c[i + n].axis == e->axis)
      n++;
    if (n == 0) continue;
    rc = grow(&r->f, n);
    for (size_t j = 0; rc == SSW_SUCCESS && j < n && c[i].count; j++)
      r->f.t[r->f.n++] = (tagged){k, j, c[i + j].c};
    r->f.trajectories += c[i].trajectories;
    r->todo[k] = 0;
    st->journaled++;
    i += n;
  }
  SSW_CALL(agree_any(r->comm, rc));
  SSW_MPI_CALL(MPI_Bcast(&st->journaled, 1, MPI_UINT64_T, 0, r->comm));
  return ssw_mpi_bcast_bytes(r->comm, r->todo, r->ne);
}

/* Solves edge k, journals its crossings and appends them to r->f. */
static int solve_edge(refining *r, ssw_refine_point_ctx *ctx, uint64_t k) {
  const ssw_refine_edge *e = &r->edges[k];
  const size_t most = ssw_refine_edge_max_crossings(e);
  SSW_CALL(grow(&r->f, most));
  ssw_refine_crossing c[64];
  ssw_refine_crossing *out = most <= 64 ? c : malloc(most * sizeof *out);
  SSW_CHECK(out, SSW_ERR_MEM, "out of memory");
  memset(out, 0, most * sizeof *out); /* the padding journaled too */
  size_t n = 0;
  const uint64_t t0 = ctx->trajectories;
  int rc = ssw_refine_edge_solve(r->cfg, &r->sp, e, ssw_refine_point_eval, ctx,
                                 out, &n);
  const uint64_t traj = ctx->trajectories - t0;
  if (rc == SSW_SUCCESS)
    rc = ssw_journal_append_edge(r->journal, e->lo, e->axis, out, n, traj);
  for (size_t j = 0; rc == SSW_SUCCESS && j < n; j++)
    r->f.t[r->f.n++] = (tagged){k, j, out[j]};
  r->f.trajectories += traj;
  if (out != c) free(out);
  return rc;
}

/* Solves this rank's edges: of those left to do the j-th goes to rank
 * j mod size. The journal is synced every SSW_JOURNAL_SYNC_INTERVAL s; a
 * stop signal (this rank's or another's) ends the loop between edges. */
static int solve_mine(refining *r) {
  ssw_refine_point_ctx ctx;
  int rc = ssw_refine_point_ctx_init(r->cfg, &r->sp, &ctx);
  double synced = MPI_Wtime();
  uint64_t j = 0; /* edges to do seen so far */
  for (uint64_t k = 0; rc == SSW_SUCCESS && k < r->ne; k++) {
    if (!r->todo[k] || j++ % (uint64_t)r->size != (uint64_t)r->rank) continue;
    rc = stop_poll(&r->stop);
    if (rc != SSW_SUCCESS || r->stop.stop) break;
    rc = solve_edge(r, &ctx, k);
    r->solved++;
    if (rc == SSW_SUCCESS &&
        MPI_Wtime() - synced >= SSW_JOURNAL_SYNC_INTERVAL) {
      rc = ssw_journal_sync(r->journal);
      synced = MPI_Wtime();
    }
  }
  ssw_refine_point_ctx_free(&ctx);
  return rc;
}

/* Solves what is left to do with this rank's journal open (synced at once
 * by a stop signal's handler, and when closed); then every rank agrees on
 * the errors, the edges solved and the stop signal (st->signal, 0: none
 * or no edge left to solve; *by: the rank that received it). */
static int solve_journaled(refining *r, ssw_refine_stats *st, int *by) {
  int rc = ssw_journal_open(r->cfg->file, r->rank, r->cfg, &r->journal);
  if (rc == SSW_SUCCESS) {
    ssw_signals_sync_fd(ssw_journal_fileno(r->journal));
    rc = solve_mine(r);
    ssw_signals_sync_fd(-1);
  }
  const int jrc = ssw_journal_close(&r->journal);
  SSW_CALL(agree_any(r->comm, rc != SSW_SUCCESS ? rc : jrc));
  SSW_MPI_CALL(MPI_Allreduce(&r->solved, &st->solved, 1, MPI_UINT64_T, MPI_SUM,
                             r->comm));
  SSW_CALL(stop_agree(&r->stop, &st->signal, by));
  if (st->journaled + st->solved == r->ne) st->signal = 0; /* all solved */
  return SSW_SUCCESS;
}

static int by_key(const void *x, const void *y) {
  const tagged *a = x, *b = y;
  if (a->edge != b->edge) return a->edge < b->edge ? -1 : 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Rank 0 gathers every rank's crossings, sorted by (edge, rank along it).
 */
static int gather(MPI_Comm comm, int rank, const found *f, tagged **all,
                  uint64_t *n) {
  void *buf = NULL;
  uint64_t bytes = 0;
  SSW_CALL(ssw_mpi_gather_bytes(comm, f->t, f->n * sizeof *f->t, &buf, &bytes,
                                NULL));
  *all = buf;
  *n = bytes / sizeof(tagged);
  if (rank == 0) qsort(*all, *n, sizeof **all, by_key);
  SSW_MPI_CALL(MPI_Bcast(n, 1, MPI_UINT64_T, 0, comm));
  return SSW_SUCCESS;
}

/* Rank 0's figures and the crossings without their tags. */
static void summarise(tagged *all, uint64_t n, ssw_refine_stats *st) {
  ssw_refine_crossing *c = (ssw_refine_crossing *)(void *)all;
  for (uint64_t i = 0; i < n; i++) {
    const ssw_refine_crossing x = all[i].c;
    st->evaluations += (uint64_t)x.evaluations;
    if (x.position_error > st->max_position_error)
      st->max_position_error = x.position_error;
    memmove(&c[i], &x, sizeof x);
  }
  st->crossings = n;
}

/* Gathers the crossings to rank 0, sums the trajectories and writes
 * /boundaries; rank 0's figures in st on every rank. */
static int collect(refining *r, ssw_h5out *out, const nears *nm,
                   ssw_refine_stats *st) {
  tagged *all = NULL;
  uint64_t n = 0;
  int rc = gather(r->comm, r->rank, &r->f, &all, &n);
  if (rc == SSW_SUCCESS) /* every rank's sum */
    rc = MPI_Allreduce(&r->f.trajectories, &st->trajectories, 1, MPI_UINT64_T,
                       MPI_SUM, r->comm) == MPI_SUCCESS
             ? SSW_SUCCESS
             : SSW_RAISE(SSW_ERR_MPI, "MPI_Allreduce failed");
  st->edges = r->ne;
  if (rc == SSW_SUCCESS && r->rank == 0) summarise(all, n, st);
  if (rc == SSW_SUCCESS) /* rank 0's figures, stored alike by every rank */
    rc = ssw_mpi_bcast_bytes(r->comm, st, sizeof *st);
  ssw_h5_boundaries_info info = {&r->sp,
                                 st->coarse_points,
                                 r->ne,
                                 st->evaluations,
                                 st->trajectories,
                                 st->coarse_trajectories,
                                 nm->list,
                                 nm->n,
                                 nm->unresolved,
                                 nm->nu,
                                 NULL};
  ssw_point_result *points = NULL; /* [refine] points: rank 0's */
  uint64_t ptraj = 0;
  if (rc == SSW_SUCCESS && r->sp.points)
    rc = ssw_refine_points(r->comm, r->cfg, (ssw_refine_crossing *)(void *)all,
                           n, &points, &ptraj);
  info.points = points;
  if (rc == SSW_SUCCESS)
    rc = ssw_h5out_write_boundaries(out, (ssw_refine_crossing *)(void *)all,
                                    (size_t)n, &info);
  free(points);
  free(all);
  return rc;
}

/* Rank 0's line: the refinement's figures, or where a stop left it. */
static void report(const ssw_refine_stats *st, const nears *nm, int by) {
  if (st->signal) {
    fprintf(stderr,
            "sleighsweep: signal %d received by rank %d: refinement stopped "
            "with %llu of %llu edge(s) solved and journaled (%llu by this "
            "run)\n",
            st->signal, by, (unsigned long long)(st->journaled + st->solved),
            (unsigned long long)st->edges, (unsigned long long)st->solved);
    return;
  }
  char from[64] = "";
  if (st->journaled)
    snprintf(from, sizeof from, " (%llu from the journals)",
             (unsigned long long)st->journaled);
  fprintf(stderr,
          "sleighsweep: refinement: %llu edge(s)%s, %llu crossing(s), %llu "
          "evaluation(s) (%.2f per edge, %.3f per grid point), widest "
          "bracket %.3g, %llu near miss(es), %llu unresolved edge(s), %.3g "
          "s; %llu trajectories (%.3f times the grid's)\n",
          (unsigned long long)st->edges, from,
          (unsigned long long)st->crossings,
          (unsigned long long)st->evaluations,
          st->edges ? (double)st->evaluations / (double)st->edges : 0.0,
          (double)st->evaluations / (double)st->coarse_points,
          st->max_position_error, (unsigned long long)nm->n,
          (unsigned long long)nm->nu, st->wall_s,
          (unsigned long long)st->trajectories,
          st->coarse_trajectories
              ? (double)st->trajectories / (double)st->coarse_trajectories
              : 0.0);
}

/* Every rank's arrays: the edges' to-do marks, the stop's. */
static int alloc_run(refining *r) {
  r->todo = malloc(r->ne ? r->ne : 1);
  r->stop.heard = calloc(2 * (size_t)r->size, sizeof *r->stop.heard);
  r->stop.sent = malloc((size_t)r->size * sizeof *r->stop.sent);
  for (int k = 0; r->stop.sent && k < r->size; k++)
    r->stop.sent[k] = MPI_REQUEST_NULL;
  const int ok = r->todo && r->stop.heard && r->stop.sent;
  return agree_any(r->comm,
                   ok ? SSW_SUCCESS : SSW_RAISE(SSW_ERR_MEM, "out of memory"));
}

int ssw_refine_sweep(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     const ssw_journal_set *journaled, int quiet,
                     ssw_refine_stats *st) {
  const double t0 = MPI_Wtime();
  refining r = {.comm = comm, .cfg = cfg};
  SSW_MPI_CALL(MPI_Comm_rank(comm, &r.rank));
  SSW_MPI_CALL(MPI_Comm_size(comm, &r.size));
  r.stop = (stopper){.comm = comm, .rank = r.rank, .size = r.size};
  ssw_refine_spec_of(cfg, &r.sp);
  *st = (ssw_refine_stats){.coarse_points = ssw_grid_size(cfg->axes)};
  if (r.sp.classes & SSW_REFINE_INTEGRATED)
    st->coarse_trajectories = st->coarse_points * (uint64_t)cfg->trajectories;
  nears nm = {NULL, 0, NULL, 0};
  int by = -1;
  int rc = share_edges(comm, r.rank, cfg, &r.sp, out, &r.edges, &r.ne, &nm);
  st->edges = r.ne;
  if (rc == SSW_SUCCESS) rc = alloc_run(&r);
  if (rc == SSW_SUCCESS) rc = take_journaled(&r, journaled, st);
  if (rc == SSW_SUCCESS) rc = solve_journaled(&r, st, &by);
  if (rc == SSW_SUCCESS && !st->signal) rc = collect(&r, out, &nm, st);
  st->wall_s = MPI_Wtime() - t0;
  if (rc == SSW_SUCCESS && r.rank == 0 && !quiet) report(st, &nm, by);
  free(r.edges);
  free(r.todo);
  free(r.stop.heard);
  free(r.stop.sent);
  free(nm.list);
  free(nm.unresolved);
  free(r.f.t);
  return rc;
}
