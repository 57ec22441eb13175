/* MPI helpers of the sweep: error reporting and rank-0 broadcasts. */
#include "sleighsweep/mpi_util.h"

#include <stdio.h>
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
