/* log.c - progress lines on a stream, prefixed with the time since start. */
#include "em_core.h"

#include <stdarg.h>
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

static void vput(const em_log *log, const char *tag, const char *fmt, va_list ap) {
  fprintf(log->stream, "[%8.2fs] %.*s%s", em_wtime() - log->t0, (int)sizeof log->tag, log->tag,
          tag);
  vfprintf(log->stream, fmt, ap);
  fputc('\n', log->stream);
  fflush(log->stream);
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
