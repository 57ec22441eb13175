/* Boundary refinement under MPI (include/sleighsweep/refine_run.h): rank 0
 * reads the grid's classes and finds the edges, every rank solves edges
 * k = rank, rank + size, ..., and rank 0 writes the crossings in edge
 * order. */
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

/* Every rank's status made common: the first failure wins. */
static int agree_any(MPI_Comm comm, int rc) {
  int worst = rc != SSW_SUCCESS ? rc : 0, all = 0;
  SSW_MPI_CALL(MPI_Allreduce(&worst, &all, 1, MPI_INT, MPI_MAX, comm));
  if (all == 0 || rc != SSW_SUCCESS) return all == 0 ? SSW_SUCCESS : rc;
  return SSW_RAISE(all, "the refinement failed on another rank");
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
    s = malloc(ssw_grid_size(cfg) * sizeof *s);
    if (!s) rc = SSW_RAISE(SSW_ERR_MEM, "out of memory for the grid's classes");
  }
  const int rrc = ssw_h5out_read_refine_samples(out, s);
  if (rc == SSW_SUCCESS) rc = rrc;
  size_t n = 0;
  for (uint64_t i = 0; rc == SSW_SUCCESS && rank == 0 && i < ssw_grid_size(cfg);
       i++)
    s[i].H = ssw_grid_value(cfg, i, SSW_AXIS_ENERGY);
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

/* Solves this rank's edges; crossings appended to f. */
static int solve_mine(MPI_Comm comm, const ssw_config *cfg,
                      const ssw_refine_spec *sp, const ssw_refine_edge *edges,
                      uint64_t ne, found *f) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ssw_refine_point_ctx ctx;
  int rc = ssw_refine_point_ctx_init(cfg, sp, &ctx);
  for (uint64_t k = (uint64_t)rank; rc == SSW_SUCCESS && k < ne;
       k += (uint64_t)size) {
    const size_t most = ssw_refine_edge_max_crossings(&edges[k]);
    if (f->n + most > f->cap) {
      const size_t cap = 2 * (f->n + most);
      tagged *t = realloc(f->t, cap * sizeof *t);
      if (!t) {
        rc = SSW_RAISE(SSW_ERR_MEM, "out of memory for crossings");
        break;
      }
      f->t = t, f->cap = cap;
    }
    ssw_refine_crossing c[64];
    ssw_refine_crossing *out = most <= 64 ? c : malloc(most * sizeof *out);
    size_t n = 0;
    rc = out ? ssw_refine_edge_solve(cfg, sp, &edges[k], ssw_refine_point_eval,
                                     &ctx, out, &n)
             : SSW_RAISE(SSW_ERR_MEM, "out of memory");
    for (size_t j = 0; rc == SSW_SUCCESS && j < n; j++)
      f->t[f->n++] = (tagged){k, j, out[j]};
    if (out != c) free(out);
  }
  f->trajectories += ctx.trajectories;
  ssw_refine_point_ctx_free(&ctx);
  return agree_any(comm, rc);
}

static int by_key(const void *x, const void *y) {
  const tagged *a = x, *b = y;
  if (a->edge != b->edge) return a->edge < b->edge ? -1 : 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Rank 0 gathers every rank's crossings, sorted by (edge, rank along it).
 */
static int gather(MPI_Comm comm, int rank, int size, const found *f,
                  tagged **all, uint64_t *n) {
  SSW_CHECK(f->n <= INT_MAX / sizeof *f->t, SSW_ERR_ARG,
            "%zu crossings on one rank: above what one gather carries", f->n);
  int mine = (int)(f->n * sizeof *f->t), *counts = NULL, *displs = NULL;
  if (rank == 0) {
    counts = calloc((size_t)size, sizeof *counts);
    displs = calloc((size_t)size, sizeof *displs);
  }
  SSW_MPI_CALL(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  uint64_t bytes = 0;
  for (int r = 0; rank == 0 && r < size; r++)
    displs[r] = (int)bytes, bytes += (uint64_t)counts[r];
  if (rank == 0) *all = malloc(bytes ? bytes : 1);
  const int rc = MPI_Gatherv(f->t, mine, MPI_BYTE, rank == 0 ? *all : NULL,
                             counts, displs, MPI_BYTE, 0, comm);
  free(counts);
  free(displs);
  if (rc != MPI_SUCCESS)
    return ssw_mpi_error(rc, "MPI_Gatherv", __FILE__, __LINE__);
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

int ssw_refine_sweep(MPI_Comm comm, const ssw_config *cfg, ssw_h5out *out,
                     int quiet, ssw_refine_stats *st) {
  const double t0 = MPI_Wtime();
  int rank, size;
  SSW_MPI_CALL(MPI_Comm_rank(comm, &rank));
  SSW_MPI_CALL(MPI_Comm_size(comm, &size));
  ssw_refine_spec sp;
  ssw_refine_spec_of(cfg, &sp);
  *st = (ssw_refine_stats){.coarse_points = ssw_grid_size(cfg)};
  if (sp.classes & SSW_REFINE_INTEGRATED)
    st->coarse_trajectories = st->coarse_points * (uint64_t)cfg->trajectories;
  ssw_refine_edge *edges = NULL;
  found f = {NULL, 0, 0, 0};
  tagged *all = NULL;
  uint64_t ne = 0, n = 0;
  nears nm = {NULL, 0, NULL, 0};
  int rc = share_edges(comm, rank, cfg, &sp, out, &edges, &ne, &nm);
  if (rc == SSW_SUCCESS) rc = solve_mine(comm, cfg, &sp, edges, ne, &f);
  if (rc == SSW_SUCCESS) rc = gather(comm, rank, size, &f, &all, &n);
  if (rc == SSW_SUCCESS) /* every rank's sum */
    rc = MPI_Allreduce(&f.trajectories, &st->trajectories, 1, MPI_UINT64_T,
                       MPI_SUM, comm) == MPI_SUCCESS
             ? SSW_SUCCESS
             : SSW_RAISE(SSW_ERR_MPI, "MPI_Allreduce failed");
  st->edges = ne;
  if (rc == SSW_SUCCESS && rank == 0) summarise(all, n, st);
  if (rc == SSW_SUCCESS) /* rank 0's figures, stored alike by every rank */
    rc = ssw_mpi_bcast_bytes(comm, st, sizeof *st);
  const ssw_h5_boundaries_info info = {&sp,
                                       st->coarse_points,
                                       ne,
                                       st->evaluations,
                                       st->trajectories,
                                       st->coarse_trajectories,
                                       nm.list,
                                       nm.n,
                                       nm.unresolved,
                                       nm.nu};
  if (rc == SSW_SUCCESS)
    rc = ssw_h5out_write_boundaries(out, (ssw_refine_crossing *)(void *)all,
                                    (size_t)n, &info);
  st->wall_s = MPI_Wtime() - t0;
  if (rc == SSW_SUCCESS && rank == 0 && !quiet)
    fprintf(stderr,
            "sleighsweep: refinement: %llu edge(s), %llu crossing(s), %llu "
            "evaluation(s) (%.2f per edge, %.3f per grid point), widest "
            "bracket %.3g, %llu near miss(es), %llu unresolved edge(s), "
            "%.3g s; %llu trajectories (%.3f times the grid's)\n",
            (unsigned long long)ne, (unsigned long long)n,
            (unsigned long long)st->evaluations,
            ne ? (double)st->evaluations / (double)ne : 0.0,
            (double)st->evaluations / (double)st->coarse_points,
            st->max_position_error, (unsigned long long)nm.n,
            (unsigned long long)nm.nu, st->wall_s,
            (unsigned long long)st->trajectories,
            st->coarse_trajectories
                ? (double)st->trajectories / (double)st->coarse_trajectories
                : 0.0);
  free(edges);
  free(nm.list);
  free(nm.unresolved);
  free(f.t);
  free(all);
  return rc;
}
