/* beside.c - one piece of work on a thread of its own beside the caller
 * (em_core.h; issue 24's threads beside the solve: the analysis ahead, the
 * coarse analysis ahead, the operator beside the factorization, the error
 * estimate, a sweep's outputs).  What they share: an OpenMP team of its
 * own, the stages on a background table (their lines marked
 * "(overlapped)") joined into the caller's with the wait taken off the
 * stage open there, the error kept on the thread (its message copied,
 * the trace cleared) and raised again by the joiner. */
#include <pthread.h>
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "em_core.h"

struct em_beside {
  pthread_t th;
  em_beside_fn work;
  void *ctx;
  int threads;  /* its OpenMP team (< 1: the new thread's default) */
  em_log log;   /* the caller's log on the thread's own stage table */
  em_stages st; /* that table */
  em_err err;   /* what work returned */
  char msg[512];
};

static void *beside_main(void *arg) {
  em_beside *b = arg;
#ifdef _OPENMP
  if (b->threads > 0) omp_set_num_threads(b->threads);
#endif
  em_err err = b->work(b->ctx, &b->log);
  if (err) {
    snprintf(b->msg, sizeof b->msg, "%s", em_error_message());
    em_error_clear(); /* this thread's trace: the join raises it again */
  }
  b->err = err;
  return NULL;
}

em_beside *em_beside_start(em_beside_fn work, void *ctx, int threads, const em_log *log) {
  em_beside *b = NULL;
  if (em_calloc(&b, 1, sizeof *b, "thread beside the run")) {
    em_error_clear(); /* the caller works in order */
    return NULL;
  }
  b->work = work, b->ctx = ctx, b->threads = threads;
  if (log) b->log = *log;
  em_stages_init_background(&b->st, log ? log->stages : NULL);
  b->log.stages = log && log->stages ? &b->st : NULL;
  if (pthread_create(&b->th, NULL, beside_main, b)) {
    em_free(&b);
    return NULL;
  }
  return b;
}

em_err em_beside_join(em_beside **bp, const em_log *log, double *waited, char *msg, size_t cap) {
  em_beside *b = *bp;
  if (waited) *waited = 0;
  if (!b) return EM_OK;
  double tw = em_wtime();
  pthread_join(b->th, NULL);
  em_stages_join(log, &b->st, tw);
  if (waited) *waited = em_wtime() - tw;
  em_err err = b->err;
  if (err && msg)
    snprintf(msg, cap, "%s", b->msg);
  else if (err)
    err = EM_RAISE(err, "%s", b->msg); /* the thread's message, here */
  em_free(bp);
  return err;
}

void em_beside_drop(em_beside **bp) {
  if (!*bp) return;
  pthread_join((*bp)->th, NULL);
  em_free(bp);
}
