/* direct_beside.c - the factorization's value checks and symmetry test
 * (em_direct_checks) on a host thread of their own while the device
 * factors (issue 24: ~0.3 s of host work at 1M unknowns ahead of the GPU's
 * fronts).  The thread's OpenMP team is a quarter of the caller's
 * threads: the upload of the values and the GPU factor's launching threads
 * (one per stream) run on the host beside it.  Errors
 * stay on the thread (its message logged by the join): the caller checks
 * again in order to raise them where the in-order run does. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "direct_impl.h"

struct em_direct_beside {
  pthread_t th;
  em_direct *F;
  const em_csr *A;
  int threads;
  em_direct_chk c;
  em_err err;
  char msg[256];
};

static void *beside_main(void *arg) {
  em_direct_beside *b = arg;
#ifdef _OPENMP
  omp_set_num_threads(b->threads);
#endif
  b->err = em_direct_checks(b->F, b->A, &b->c);
  if (b->err) {
    snprintf(b->msg, sizeof b->msg, "%s", em_error_message());
    em_error_clear();
  }
  return NULL;
}

int em_direct_beside_start(em_direct *F, const em_csr *A, em_direct_beside **bp) {
  *bp = NULL;
  const char *env = getenv("EMSOLVE_CHECKS_BESIDE"); /* 0: never, 1: the host's factor too */
  const char *hp = getenv("EMSOLVE_HOSTPATH");       /* the A/B of the host path, model/fsys.c */
  if ((env && !strcmp(env, "0")) || (hp && !strcmp(hp, "0"))) return 1;
  if (F->be->host && !(env && !strcmp(env, "1"))) return 1;
  em_direct_beside *b = NULL;
  if (em_calloc(&b, 1, sizeof *b, "checks beside the factorization")) {
    em_error_clear();
    return 1;
  }
  b->F = F, b->A = A;
  /* a quarter of the threads: the GPU factor's launching threads (one per
     stream) and the values' upload share the host with it */
  b->threads = F->threads >= 4 ? F->threads / 4 : 1;
  if (pthread_create(&b->th, NULL, beside_main, b)) {
    em_free(&b);
    return 1;
  }
  *bp = b;
  return 0;
}

em_err em_direct_beside_join(em_direct_beside **bp, em_direct_chk *c, const em_log *log) {
  em_direct_beside *b = *bp;
  double tw = em_wtime();
  pthread_join(b->th, NULL);
  *c = b->c;
  em_err err = b->err;
  if (err)
    em_log_verbose(log, "direct: the checks beside the factorization failed: %s", b->msg);
  else
    em_log_verbose(log,
                   "direct: values checked (%.2f s), symmetric to %.1e (%.2f s) beside the "
                   "factorization (waited %.2f s)",
                   c->t_values, c->anorm > 0 ? c->asym / c->anorm : 0.0, c->t_sym, em_wtime() - tw);
  em_free(bp);
  return err;
}
