/* MPI helpers of the output and the sweep: error reporting and rank-0
 * broadcasts. */
#include "sleighsweep/mpi_util.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"

int ssw_mpi_error(int rc, const char *call, const char *file, int line) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  text[len] = '\0';
  /* The function's name leads the message: "MPI_Bcast failed (...)". */
  const size_t name = strcspn(call, "( ");
  return ssw_error_raise(SSW_ERR_MPI, file, line, "MPI", "%.*s failed: %s (%s)",
                         (int)name, call, len ? text : "unknown MPI error",
                         call);
}

int ssw_mpi_agree(MPI_Comm comm, int rc) {
  SSW_MPI_CALL(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  return rc;
}

int ssw_mpi_bcast_int(MPI_Comm comm, int *v) {
  SSW_MPI_CALL(MPI_Bcast(v, 1, MPI_INT, 0, comm));
  return SSW_SUCCESS;
}

int ssw_mpi_bcast_bytes(MPI_Comm comm, void *buf, uint64_t n) {
  const uint64_t piece = (uint64_t)1 << 30;
  for (uint64_t off = 0; off < n; off += piece) {
    const int cnt = (int)(n - off < piece ? n - off : piece);
    SSW_MPI_CALL(MPI_Bcast((char *)buf + off, cnt, MPI_BYTE, 0, comm));
  }
  return SSW_SUCCESS;
}

int ssw_mpi_bcast_str(MPI_Comm comm, const char *s, char **out) {
  int rank = 0;
  uint64_t len = 0;
  *out = NULL;
  SSW_MPI_CALL(MPI_Comm_rank(comm, &rank));
  if (rank == 0) len = s ? strlen(s) : 0;
  SSW_MPI_CALL(MPI_Bcast(&len, 1, MPI_UINT64_T, 0, comm));
  char *text = malloc(len + 1);
  SSW_CHECK(text, SSW_ERR_MEM, "out of memory for a %" PRIu64 "-byte string",
            len);
  if (rank == 0 && len) memcpy(text, s, len);
  const int rc = ssw_mpi_bcast_bytes(comm, text, len);
  if (rc != SSW_SUCCESS) return free(text), rc;
  text[len] = '\0';
  *out = text;
  return SSW_SUCCESS;
}

int ssw_mpi_agree_any(MPI_Comm comm, int rc, const char *what) {
  int worst = rc != SSW_SUCCESS ? rc : 0, all = 0;
  SSW_MPI_CALL(MPI_Allreduce(&worst, &all, 1, MPI_INT, MPI_MAX, comm));
  if (all == 0 || rc != SSW_SUCCESS) return all == 0 ? SSW_SUCCESS : rc;
  return SSW_RAISE(all, "%s failed on another rank", what);
}

int ssw_mpi_gather_bytes(MPI_Comm comm, const void *mine, uint64_t nbytes,
                         void **all, uint64_t *total, int **displs) {
  int rank, size;
  SSW_MPI_CALL(MPI_Comm_rank(comm, &rank));
  SSW_MPI_CALL(MPI_Comm_size(comm, &size));
  *all = NULL, *total = 0;
  if (displs) *displs = NULL;
  int rc = nbytes <= INT_MAX ? SSW_SUCCESS
                             : SSW_RAISE(SSW_ERR_ARG,
                                         "%" PRIu64 " bytes on one rank: above "
                                         "what one gather carries",
                                         nbytes);
  SSW_CALL(ssw_mpi_agree_any(comm, rc, "a gather"));
  const int count = (int)nbytes;
  int *counts = NULL, *at = NULL;
  if (rank == 0) {
    counts = calloc((size_t)size, sizeof *counts);
    at = calloc((size_t)size, sizeof *at);
  }
  rc = MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
  if (rc != MPI_SUCCESS) {
    free(counts), free(at);
    return ssw_mpi_error(rc, "MPI_Gather", __FILE__, __LINE__);
  }
  uint64_t bytes = 0;
  for (int r = 0; rank == 0 && counts && at && r < size; r++)
    at[r] = (int)bytes, bytes += (uint64_t)counts[r];
  char *buf = rank == 0 && bytes <= INT_MAX ? malloc(bytes ? bytes : 1) : NULL;
  rc = rank != 0 || (counts && at && buf)
           ? SSW_SUCCESS
           : SSW_RAISE(SSW_ERR_MEM, "out of memory gathering %" PRIu64 " bytes",
                       bytes);
  rc = ssw_mpi_agree(comm, rc);
  if (rc == SSW_SUCCESS) {
    const int mrc =
        MPI_Gatherv(mine, count, MPI_BYTE, buf, counts, at, MPI_BYTE, 0, comm);
    if (mrc != MPI_SUCCESS)
      rc = ssw_mpi_error(mrc, "MPI_Gatherv", __FILE__, __LINE__);
  }
  free(counts);
  if (rc != SSW_SUCCESS) {
    free(buf), free(at);
    return rc;
  }
  *all = buf, *total = bytes;
  if (displs)
    *displs = at;
  else
    free(at);
  return SSW_SUCCESS;
}
