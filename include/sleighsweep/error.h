/* Error codes, messages and the SSW_CALL / SSW_CHECK propagation macros. */
#ifndef SLEIGHSWEEP_ERROR_H
#define SLEIGHSWEEP_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One table generates the codes and their short descriptions (X-macro).
 * Exit status of the program: 0 success, 2 for SSW_ERR_USAGE/CONFIG/BODY
 * (the user's input is wrong), 3 for an interrupted but durable run,
 * 1 for everything else. */
#define SSW_ERROR_TABLE(X)                                                     \
  X(SSW_SUCCESS, "success")                                                    \
  X(SSW_ERR_USAGE, "invalid command-line usage")                               \
  X(SSW_ERR_CONFIG, "invalid configuration")                                   \
  X(SSW_ERR_BODY, "non-physical body parameters")                              \
  X(SSW_ERR_ARG, "invalid argument")                                           \
  X(SSW_ERR_MEM, "out of memory")                                              \
  X(SSW_ERR_IO, "input/output error")                                          \
  X(SSW_ERR_MPI, "MPI error")                                                  \
  X(SSW_ERR_HDF5, "HDF5 error")                                                \
  X(SSW_ERR_NUMERIC, "numerical failure")                                      \
  X(SSW_ERR_INTERRUPTED, "interrupted by a signal")                            \
  X(SSW_ERR_INTERNAL, "internal error")

typedef enum {
#define SSW_ERROR_ENUM(code, text) code,
  SSW_ERROR_TABLE(SSW_ERROR_ENUM)
#undef SSW_ERROR_ENUM
      SSW_ERROR_COUNT
} ssw_error_code;

/** Short description of an error code ("invalid configuration"). */
const char *ssw_error_name(int code);

/** Records an error with its origin and a printf-style message, and returns
 * the code so that it can be used in a return statement. Thread-safe: the
 * message buffer is thread-local. */
int ssw_error_raise(int code, const char *file, int line, const char *func,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/** An error carried from one thread to another: the code and this thread's
 * whole message (for errors raised inside OpenMP regions). */
typedef struct {
  int code;
  size_t user_offset;
  char message[1024];
} ssw_error_state;

/** Saves `code` and this thread's last message into `s`. */
void ssw_error_save(int code, ssw_error_state *s);

/** Makes `s` the last error of this thread; returns its code. */
int ssw_error_restore(const ssw_error_state *s);

/** The last message raised on this thread (empty when none). */
const char *ssw_error_message(void);

/** The message without the "file:line (func): " origin prefix, for users. */
const char *ssw_error_user_message(void);

/** Forgets the last message. */
void ssw_error_clear(void);

/** Process exit status for an error code (see the table comment). */
int ssw_error_exit_status(int code);

/** Propagate a non-zero status from a call. */
#define SSW_CALL(expr)                                                         \
  do {                                                                         \
    int ssw_call_status_ = (expr);                                             \
    if (ssw_call_status_ != SSW_SUCCESS) return ssw_call_status_;              \
  } while (0)

/** Raise `code` with a message when `cond` is false. */
#define SSW_CHECK(cond, code, ...)                                             \
  do {                                                                         \
    if (!(cond))                                                               \
      return ssw_error_raise((code), __FILE__, __LINE__, __func__,             \
                             __VA_ARGS__);                                     \
  } while (0)

/** Raise unconditionally (for use inside expressions and cleanup paths). */
#define SSW_RAISE(code, ...)                                                   \
  ssw_error_raise((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
