/* MPI helpers of the sweep: error reporting and rank-0 broadcasts. */
#include "sleighsweep/mpi_util.h"

#include <inttypes.h>
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
