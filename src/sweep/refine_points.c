/* Every crossing's full measurements (include/sleighsweep/refine_points.h):
 * the crossings broadcast from rank 0, crossing k computed by rank
 * k mod size, the results gathered to rank 0 and put in crossing order. */
#include "sleighsweep/refine_points.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"
#include "sleighsweep/mpi_util.h"

/* Every rank's status made common. */
static int agree(MPI_Comm comm, int rc) {
  return ssw_mpi_agree_any(comm, rc, "the crossings' measurements");
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
  void *all = NULL;
  uint64_t bytes = 0;
  int *displs = NULL;
  SSW_CALL(
      ssw_mpi_gather_bytes(comm, mine, nmine * one, &all, &bytes, &displs));
  for (uint64_t k = 0; rank == 0 && k < n; k++) {
    const int r = (int)(k % (uint64_t)size);
    memcpy(&out[k],
           (char *)all + (size_t)displs[r] + (k / (uint64_t)size) * one, one);
  }
  free(all);
  free(displs);
  return SSW_SUCCESS;
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
