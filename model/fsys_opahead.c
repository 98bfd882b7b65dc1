/* fsys_opahead.c - the first frequency's operator beside the first
 * factorization (issue 24).  The Krylov operator (the formats of the nine
 * blocks, uploaded) is made after the preconditioner so that a GPU
 * factorization's transient peak does not meet the operator's memory; at
 * 1.4M unknowns it took 1.3 s of host time after a 2.9 s factorization in
 * which the host mostly waits for the GPU.  Where the device's free memory
 * holds the factor's estimate (its numeric peak plus L, what the analysis
 * says) and the operator (~24 bytes an entry) with a fifth to spare, a
 * thread of its own (an OpenMP team of the caller's size) builds it from
 * the permuted CSR, which both threads only read, while this one factors;
 * the set-up then takes it.  The same call on the same matrix: the same
 * operator.  A build that failed (its error stays on its thread) leaves
 * the operator to the sequential path, which then reports any error as
 * before.  Only with the analysis made ahead (Solver/overlap), the direct
 * factor, the first frequency and the GPU (EMSOLVE_ONERUN=all: any
 * backend, for the tests; EMSOLVE_ONERUN=0: never).  Its stage (operator)
 * carries its own time into the run's table, marked "(overlapped)". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fsys_impl.h"

struct em_fsys_opa {
  pthread_t th;
  const em_csr *A; /* s->Acsr, read only by both threads */
  int nb;
  int32_t offset[EM_MAX_ORDER + 1];
  em_blockop_opts bop;
  int threads;
  em_log log; /* the detail log, on the thread's own stage table */
  em_stages st;
  em_blockop *op; /* what the thread made */
  em_err err;
  char msg[256];
};

static void *opa_main(void *arg) {
  struct em_fsys_opa *h = arg;
#ifdef _OPENMP
  omp_set_num_threads(h->threads);
#endif
  em_stage_begin(&h->log, EM_STAGE_OPERATOR);
  h->err = em_blockop_create_csr(h->A, h->nb, h->offset, &h->bop, &h->op);
  em_stage_end(&h->log, EM_STAGE_OPERATOR, "formats built%s",
               h->bop.backend == EM_BACKEND_CUDA ? " and uploaded" : "");
  if (h->err) {
    snprintf(h->msg, sizeof h->msg, "%s", em_error_message());
    em_error_clear();
  }
  return NULL;
}

/* Whether the device holds the factor and the operator at once, with room. */
static int fits(const em_fsys *s, const em_direct *F) {
  if (s->d.backend != EM_BACKEND_CUDA) return 1; /* the host: EMSOLVE_ONERUN=all only */
  size_t free_b = 0, total_b = 0;
  if (!em_device_mem(&free_b, &total_b)) return 0;
  em_direct_info in;
  em_direct_get_info(F, &in);
  double need = (double)in.bytes_peak + (double)in.bytes_factor + 24.0 * (double)s->Acsr->nnz;
  return need <= 0.8 * (double)free_b;
}

void em_fsys_opa_start(em_fsys *s, const em_direct *F, const em_log *log) {
  const em_fsys_desc *d = &s->d;
  const char *ab = getenv("EMSOLVE_ONERUN");
  int all = ab && !strcmp(ab, "all");
  if (s->opa || s->op || !F || !s->Acsr || (ab && !strcmp(ab, "0")) ||
      (d->backend != EM_BACKEND_CUDA && !all) || !fits(s, F))
    return;
  struct em_fsys_opa *h = NULL;
  if (em_calloc(&h, 1, sizeof *h, "operator thread")) {
    em_error_clear(); /* in order, as before */
    return;
  }
  h->A = s->Acsr;
  h->nb = s->nb;
  memcpy(h->offset, s->offset, sizeof h->offset);
  h->bop = d->solve->bop; /* as em_fsys_solve gives them */
  h->bop.backend = d->backend;
  h->bop.prec = EM_PREC_DOUBLE;
#ifdef _OPENMP
  h->threads = omp_get_max_threads();
#endif
  if (log) h->log = *log;
  em_stages_init_background(&h->st, log ? log->stages : NULL);
  h->log.stages = log && log->stages ? &h->st : NULL;
  if (pthread_create(&h->th, NULL, opa_main, h)) {
    em_free(&h);
    return;
  }
  s->opa = h;
  em_log_verbose(log,
                 "overlap: the operator's formats built on a thread of their own beside the "
                 "factorization");
}

void em_fsys_opa_take(em_fsys *s, const em_log *log, int *made) {
  *made = 0;
  struct em_fsys_opa *h = s->opa;
  if (!h) return;
  s->opa = NULL;
  double tw = em_wtime();
  pthread_join(h->th, NULL);
  em_stages_join(log, &h->st, tw);
  if (tw < em_wtime() - 0.05)
    em_log_verbose(log, "overlap: waited %.2f s for the operator", em_wtime() - tw);
  if (h->err) {
    em_log_verbose(log,
                   "overlap: the operator made beside the factorization is not used (%s); "
                   "it is built in order",
                   h->msg);
  } else {
    s->op = h->op;
    h->op = NULL;
    *made = 1;
  }
  em_blockop_destroy(&h->op);
  em_free(&h);
}

void em_fsys_opa_free(em_fsys *s) {
  struct em_fsys_opa *h = s->opa;
  if (!h) return;
  s->opa = NULL;
  pthread_join(h->th, NULL); /* an error path: its stage is dropped */
  em_blockop_destroy(&h->op);
  em_free(&h);
}
