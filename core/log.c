/* log.c - progress lines on a stream, prefixed with the time since start. */
#include "em_core.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double em_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void em_log_init(em_log *log, FILE *stream, int level) {
  log->stream = stream;
  log->level = level;
  log->t0 = em_wtime();
  log->progress = 0;
  log->tag[0] = '\0';
  log->stages = NULL;
}

/* The line is formatted whole and written by one fwrite: stderr is
 * unbuffered, and the ranks of an MPI run share it, so a line written in
 * pieces (prefix, message, newline) interleaves with another rank's.  A
 * line longer than the stack buffer is formatted again on the heap. */
static void vput(const em_log *log, const char *tag, const char *fmt, va_list ap) {
  char stack[2048], *line = stack;
  va_list aq;
  va_copy(aq, ap);
  int n = snprintf(stack, sizeof stack, "[%8.2fs] %.*s%s", em_wtime() - log->t0,
                   (int)sizeof log->tag, log->tag, tag);
  if (n < 0 || (size_t)n >= sizeof stack) n = 0; /* a tag that long: none */
  int m = vsnprintf(stack + n, sizeof stack - (size_t)n, fmt, ap);
  if (m < 0) m = 0;
  size_t len = (size_t)n + (size_t)m;
  if (len + 1 >= sizeof stack) { /* too long for the stack buffer */
    char *heap = malloc(len + 2);
    if (heap) {
      memcpy(heap, stack, (size_t)n);
      vsnprintf(heap + n, (size_t)m + 1, fmt, aq);
      line = heap;
    } else {
      len = sizeof stack - 2; /* cut */
    }
  }
  va_end(aq);
  line[len] = '\n';
  fwrite(line, 1, len + 1, log->stream);
  fflush(log->stream);
  if (line != stack) free(line);
}

void em_log_info(const em_log *log, const char *fmt, ...) {
  if (!log || !log->stream || log->level < EM_LOG_INFO) return;
  va_list ap;
  va_start(ap, fmt);
  vput(log, "", fmt, ap);
  va_end(ap);
}

void em_log_verbose(const em_log *log, const char *fmt, ...) {
  if (!log || !log->stream || log->level < EM_LOG_VERBOSE) return;
  va_list ap;
  va_start(ap, fmt);
  vput(log, "", fmt, ap);
  va_end(ap);
}

void em_log_warn(const em_log *log, const char *fmt, ...) {
  if (!log || !log->stream) return;
  va_list ap;
  va_start(ap, fmt);
  vput(log, "warning: ", fmt, ap);
  va_end(ap);
}

void em_log_progress(const em_log *log, const char *fmt, ...) {
  if (!log || !log->stream || (log->level < EM_LOG_INFO && !log->progress)) return;
  va_list ap;
  va_start(ap, fmt);
  vput(log, "", fmt, ap);
  va_end(ap);
}
