/* Error table, thread-local last-error message and exit-status mapping. */
#include "sleighsweep/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[1024];
static _Thread_local size_t user_offset;

static const char *const error_names[] = {
#define SSW_ERROR_NAME(code, text) text,
    SSW_ERROR_TABLE(SSW_ERROR_NAME)
#undef SSW_ERROR_NAME
};

const char *ssw_error_name(int code) {
  if (code < 0 || code >= SSW_ERROR_COUNT) return "unknown error";
  return error_names[code];
}

int ssw_error_raise(int code, const char *file, int line, const char *func,
                    const char *fmt, ...) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  int n = snprintf(last_message, sizeof last_message, "%s:%d (%s): ", base,
                   line, func);
  if (n < 0 || (size_t)n >= sizeof last_message) n = 0;
  user_offset = (size_t)n;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message + n, sizeof last_message - (size_t)n, fmt, ap);
  va_end(ap);
  return code;
}

const char *ssw_error_message(void) { return last_message; }

void ssw_error_save(int code, ssw_error_state *s) {
  s->code = code;
  s->user_offset = user_offset;
  memcpy(s->message, last_message, sizeof s->message);
}

int ssw_error_restore(const ssw_error_state *s) {
  _Static_assert(sizeof last_message == sizeof s->message, "same buffers");
  memcpy(last_message, s->message, sizeof last_message);
  user_offset = s->user_offset;
  return s->code;
}

const char *ssw_error_user_message(void) {
  return last_message + (user_offset < sizeof last_message ? user_offset : 0);
}

void ssw_error_clear(void) {
  last_message[0] = '\0';
  user_offset = 0;
}

int ssw_error_exit_status(int code) {
  switch (code) {
  case SSW_SUCCESS: return 0;
  case SSW_ERR_USAGE:
  case SSW_ERR_CONFIG:
  case SSW_ERR_BODY:
  case SSW_ERR_ARG: return 2;
  case SSW_ERR_INTERRUPTED: return 3;
  default: return 1;
  }
}
