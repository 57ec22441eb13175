/* MPI helpers of the output and the sweep (io tier): error reporting and
 * the "rank 0 decides, everyone gets it" broadcasts. */
#ifndef SLEIGHSWEEP_MPI_UTIL_H
#define SLEIGHSWEEP_MPI_UTIL_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Checks an MPI return code; on failure returns SSW_ERR_MPI raised with the
 * MPI function's name (the text before its parenthesis), the call and
 * MPI_Error_string's text. */
#define SSW_MPI_CALL(call)                                                     \
  do {                                                                         \
    const int ssw_mpi_rc_ = (call);                                            \
    if (ssw_mpi_rc_ != MPI_SUCCESS)                                            \
      return ssw_mpi_error(ssw_mpi_rc_, #call, __FILE__, __LINE__);            \
  } while (0)

/** Raises SSW_ERR_MPI naming the failed call with the text of its MPI error
 * code; returns SSW_ERR_MPI. */
int ssw_mpi_error(int rc, const char *call, const char *file, int line);

/** Rank 0 decides a status, every rank gets it: broadcasts rank 0's `rc`
 * and returns it (an SSW_ERR_MPI of its own if the broadcast fails).
 * Collective. */
int ssw_mpi_agree(MPI_Comm comm, int rc);

/** Every rank's status made common: when any rank failed, every rank
 * returns an error, its own or else the largest failing code, raised as
 * "<what> failed on another rank". Collective. */
int ssw_mpi_agree_any(MPI_Comm comm, int rc, const char *what);

/** Gathers every rank's `nbytes` bytes at `mine` to rank 0, in rank order:
 * rank 0 gets the malloc'd concatenation in *all (at least 1 byte), its
 * length in *total and, when displs is not NULL, the malloc'd offset of
 * each rank's part in *displs; other ranks get NULL and 0. Collective.
 * Errors (on every rank): SSW_ERR_ARG above 2^31 bytes on one rank,
 * SSW_ERR_MEM, SSW_ERR_MPI. */
int ssw_mpi_gather_bytes(MPI_Comm comm, const void *mine, uint64_t nbytes,
                         void **all, uint64_t *total, int **displs);

/** Broadcasts one int from rank 0 into *v. Collective. */
int ssw_mpi_bcast_int(MPI_Comm comm, int *v);

/** Broadcasts n bytes from rank 0, in pieces within MPI's int counts (n may
 * exceed 2^31). Collective. Errors: SSW_ERR_MPI. */
int ssw_mpi_bcast_bytes(MPI_Comm comm, void *buf, uint64_t n);

/** Rank 0's string s (NULL: "") on every rank as a malloc'd copy in *out
 * (NULL on failure), sent in pieces by ssw_mpi_bcast_bytes. Collective.
 * Errors: SSW_ERR_MPI, SSW_ERR_MEM. */
int ssw_mpi_bcast_str(MPI_Comm comm, const char *s, char **out);

#ifdef __cplusplus
}
#endif
#endif
