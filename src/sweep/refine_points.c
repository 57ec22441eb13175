/* Every crossing's full measurements (include/sleighsweep/refine_points.h):
 * the crossings broadcast from rank 0, crossing k computed by rank
 * k mod size, the results gathered to rank 0 and put in crossing order. */
#include "sleighsweep/refine_points.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"
#include "sleighsweep/mpi_util.h"

/* Every rank's status made common: the first failure wins. */
static int agree(MPI_Comm comm, int rc) {
  int mine = rc != SSW_SUCCESS ? rc : 0, all = 0;
  SSW_MPI_CALL(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, comm));
  if (all == 0 || rc != SSW_SUCCESS) return all == 0 ? SSW_SUCCESS : rc;
  return SSW_RAISE(all, "the crossings' measurements failed on another rank");
}

/* This rank's crossings k = rank, rank + size, ... into mine[0 ..]. */
static int compute(const ssw_config *cfg, const ssw_refine_crossing *c,
                   uint64_t n, int rank, int size, ssw_point_result *mine,
                   uint64_t *trajectories) {
  ssw_refine_spec sp;
  ssw_refine_spec_of(cfg, &sp);
  ssw_refine_point_ctx ctx;
  int rc = ssw_refine_point_ctx_init(cfg, &sp, &ctx);
  size_t j = 0;
  for (uint64_t k = (uint64_t)rank; rc == SSW_SUCCESS && k < n;
       k += (uint64_t)size)
    rc = ssw_refine_crossing_point(cfg, &ctx, &c[k], &mine[j++]);
  *trajectories = ctx.trajectories;
  ssw_refine_point_ctx_free(&ctx);
  return rc;
}

/* Rank 0 gathers every rank's results (rank r's j-th is crossing
 * r + j size) into crossing order. */
static int gather(MPI_Comm comm, int rank, int size, uint64_t n,
                  const ssw_point_result *mine, size_t nmine,
                  ssw_point_result *out) {
  const size_t one = sizeof *mine;
  int count = (int)(nmine * one), *counts = NULL, *displs = NULL;
  char *all = NULL;
  int rc = SSW_SUCCESS;
  if (rank == 0) {
    counts = calloc((size_t)size, sizeof *counts);
    displs = calloc((size_t)size, sizeof *displs);
    all = malloc(n ? n * one : 1);
    if (!counts || !displs || !all)
      rc = SSW_RAISE(SSW_ERR_MEM, "out of memory for %llu measurements",
                     (unsigned long long)n);
  }
  rc = agree(comm, rc);
  if (rc == SSW_SUCCESS && MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0,
                                      comm) != MPI_SUCCESS)
    rc = SSW_RAISE(SSW_ERR_MPI, "MPI_Gather of the measurements' sizes");
  for (int r = 1; rc == SSW_SUCCESS && rank == 0 && r < size; r++)
    displs[r] = displs[r - 1] + counts[r - 1];
  if (rc == SSW_SUCCESS &&
      MPI_Gatherv(mine, count, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                  comm) != MPI_SUCCESS)
    rc = SSW_RAISE(SSW_ERR_MPI, "MPI_Gatherv of the measurements");
  for (uint64_t k = 0; rc == SSW_SUCCESS && rank == 0 && k < n; k++) {
    const int r = (int)(k % (uint64_t)size);
    memcpy(&out[k], all + (size_t)displs[r] + (k / (uint64_t)size) * one, one);
  }
  free(counts);
  free(displs);
  free(all);
  return rc;
}

int ssw_refine_points(MPI_Comm comm, const ssw_config *cfg,
                      const ssw_refine_crossing *c, uint64_t n,
                      ssw_point_result **out, uint64_t *trajectories) {
  int rank, size;
  SSW_MPI_CALL(MPI_Comm_rank(comm, &rank));
  SSW_MPI_CALL(MPI_Comm_size(comm, &size));
  *out = NULL;
  *trajectories = 0;
  const size_t nmine =
      (size_t)((n + (uint64_t)(size - 1 - rank)) / (uint64_t)size);
  ssw_refine_crossing *all = rank == 0 ? (ssw_refine_crossing *)c : NULL;
  ssw_point_result *mine = malloc((nmine ? nmine : 1) * sizeof *mine);
  ssw_point_result *res = rank == 0 ? malloc((n ? n : 1) * sizeof *res) : NULL;
  if (rank != 0) all = malloc((n ? n : 1) * sizeof *all);
  int rc = mine && all && (rank != 0 || res)
               ? SSW_SUCCESS
               : SSW_RAISE(SSW_ERR_MEM, "out of memory for %llu crossings",
                           (unsigned long long)n);
  if (rc == SSW_SUCCESS && nmine * sizeof *mine > (size_t)INT_MAX)
    rc = SSW_RAISE(SSW_ERR_ARG,
                   "%zu crossings on one rank: above what one "
                   "gather carries",
                   nmine);
  rc = agree(comm, rc);
  if (rc == SSW_SUCCESS) rc = ssw_mpi_bcast_bytes(comm, all, n * sizeof *all);
  uint64_t t = 0;
  if (rc == SSW_SUCCESS) rc = compute(cfg, all, n, rank, size, mine, &t);
  rc = agree(comm, rc);
  if (rc == SSW_SUCCESS) rc = gather(comm, rank, size, n, mine, nmine, res);
  if (rc == SSW_SUCCESS && MPI_Allreduce(&t, trajectories, 1, MPI_UINT64_T,
                                         MPI_SUM, comm) != MPI_SUCCESS)
    rc = SSW_RAISE(SSW_ERR_MPI, "MPI_Allreduce of the trajectories");
  if (rank != 0) free(all);
  free(mine);
  if (rc == SSW_SUCCESS && rank == 0)
    *out = res;
  else
    free(res);
  return rc;
}
