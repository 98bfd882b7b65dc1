/* error.c - the error trace: the one piece of global mutable state.
 *
 * A trace is a message (set where the error is detected, naming the culprit)
 * plus the file:line frames it passed through on the way up.  It is
 * thread-local, so OpenMP threads cannot garble each other's traces. */
#include "em_core.h"

#include <stdarg.h>
#include <string.h>

#define EM_TRACE_FRAMES 24
#define EM_TRACE_MSG 1024

typedef struct {
  em_err code;
  int n; /* frames recorded */
  char msg[EM_TRACE_MSG];
  char frame[EM_TRACE_FRAMES][96];
} em_trace;

static _Thread_local em_trace trace_;

const char *em_err_name(em_err code) {
  switch (code) {
    case EM_OK:
      return "EM_OK";
    case EM_ERR_ARG:
      return "EM_ERR_ARG";
    case EM_ERR_INPUT:
      return "EM_ERR_INPUT";
    case EM_ERR_IO:
      return "EM_ERR_IO";
    case EM_ERR_MEMORY:
      return "EM_ERR_MEMORY";
    case EM_ERR_GMSH:
      return "EM_ERR_GMSH";
    case EM_ERR_CUDA:
      return "EM_ERR_CUDA";
    case EM_ERR_CUSPARSE:
      return "EM_ERR_CUSPARSE";
    case EM_ERR_CUBLAS:
      return "EM_ERR_CUBLAS";
    case EM_ERR_GPU_MEMORY:
      return "EM_ERR_GPU_MEMORY";
    case EM_ERR_NUMERIC:
      return "EM_ERR_NUMERIC";
    case EM_ERR_UNSUPPORTED:
      return "EM_ERR_UNSUPPORTED";
    case EM_ERR_INTERNAL:
      return "EM_ERR_INTERNAL";
    case EM_ERR_CANCELLED:
      return "EM_ERR_CANCELLED";
    case EM_ERR_MPI:
      return "EM_ERR_MPI";
  }
  return "EM_ERR_?";
}

static void add_frame(const char *file, int line) {
  if (trace_.n >= EM_TRACE_FRAMES) return;
  const char *base = strrchr(file, '/');
  snprintf(trace_.frame[trace_.n++], sizeof trace_.frame[0], "%s:%d", base ? base + 1 : file, line);
}

em_err em_error_raise(em_err code, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  trace_.code = code;
  trace_.n = 0;
  va_start(ap, fmt);
  vsnprintf(trace_.msg, sizeof trace_.msg, fmt, ap);
  va_end(ap);
  add_frame(file, line);
  return code;
}

em_err em_error_trace(em_err code, const char *file, int line) {
  if (trace_.code == EM_OK) {
    /* An error that was never raised (a bare return code): keep a trace. */
    trace_.code = code;
    trace_.n = 0;
    snprintf(trace_.msg, sizeof trace_.msg, "%s", em_err_name(code));
  }
  add_frame(file, line);
  return code;
}

const char *em_error_message(void) {
  return trace_.code ? trace_.msg : "";
}

em_err em_error_code(void) {
  return trace_.code;
}

void em_error_print(FILE *f) {
  if (trace_.code == EM_OK) return;
  fprintf(f, "error: %s\n", trace_.msg);
  for (int i = 0; i < trace_.n; i++) fprintf(f, "  at %s\n", trace_.frame[i]);
}

void em_error_clear(void) {
  trace_.code = EM_OK;
  trace_.n = 0;
  trace_.msg[0] = '\0';
}
