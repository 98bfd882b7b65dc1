/* fsys_opbeside.c - the first operator built beside the GPU factorization
 * or pmg's set-up (issue 24).  At the first frequency the operator (the nine blocks'
 * formats, built on the host and uploaded) is made after the
 * preconditioner, so that a GPU factorization's transient peak never
 * meets the operator's memory; with the direct factor on the GPU that
 * leaves the host idle while the GPU factors, then the GPU idle while the
 * host builds formats (1.3 s at 1.36M unknowns).  When the factor's
 * analysis is known before its numeric phase (made ahead of the values,
 * fsys_overlap.c), its device estimate says whether the factor and the
 * operator fit together; then a thread of its own builds the operator from
 * the permuted matrix (read only, by both threads) while this one checks,
 * scales and factors.  pmg's set-up (block smoothers on the host, the
 * coarse level's analysis and GPU factor) leaves the same gap before its
 * operator (4.3 s at 4.87M unknowns): there the operator goes beside it
 * when it takes at most an eighth of the free device memory.
 *
 * The operator is the one the sequential run builds (the same call on the
 * same matrix: the same bits).  When the thread fails (its error stays on
 * its thread and is logged) the operator is built in order after the
 * preconditioner as before, so any error is the sequential run's.  Its
 * stage carries its own duration into the run's table, its line marked
 * "(overlapped)".  EMSOLVE_OPBESIDE=0 keeps the build in order (the A/B
 * of scripts/device-onerun.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fsys_impl.h"

struct em_fsys_opb {
  em_beside *bs;   /* the thread (core/beside.c) */
  const em_csr *A; /* s->Acsr, read only while the thread runs */
  int nb;
  int32_t offset[EM_MAX_ORDER + 1];
  em_blockop_opts bop;
  int threads;        /* the thread's OpenMP team */
  const char *beside; /* "the factorization" or "pmg's set-up", for the lines */
  int vmap;           /* a sweep's refills follow: the operator's value map made too */
  double t_vmap;      /* its seconds (0: not made) */
  int pinned;         /* with the map: A's values page-locked (em_host_pin) for the refills'
                         uploads, 1 done, -1 refused */
  em_blockop *op;     /* what it made */
};

/* The thread (log: its own): the operator, and with vmap its value map. */
static em_err opb_main(void *arg, const em_log *log) {
  em_fsys_opb *h = arg;
  em_stage_begin(log, EM_STAGE_OPERATOR);
  em_err err = em_blockop_create_csr(h->A, h->nb, h->offset, &h->bop, &h->op);
  em_stage_end(log, EM_STAGE_OPERATOR, "formats built and uploaded beside %s", h->beside);
  if (err) {
    em_blockop_destroy(&h->op);
  } else if (h->vmap) { /* the first refill then only writes values (issue 24: its map took
                           1.4 s of the default order-3 DRA sweep's second frequency); a
                           failure leaves it to that refill, which reports */
    double t0 = em_wtime();
    if (em_blockop_values_map(h->op, h->A))
      em_error_clear();
    else
      h->t_vmap = em_wtime() - t0;
#ifdef EM_HAVE_CUDA /* the refills upload from A's values directly (fsys.c, acsr_pin) */
    h->pinned = em_host_pin(h->A->val, (size_t)h->A->nnz * sizeof *h->A->val) ? 1 : -1;
#endif
  }
  return err;
}

/* Device bytes the operator of A will take: ~20 an entry measured
 * (complex double values, 32-bit columns, the sliced formats' padding),
 * 32 with room for the upload's staging. */
static double op_device_bytes(const em_csr *A) {
  return 32.0 * (double)A->nnz + 64.0 * (double)A->n_rows;
}

void em_fsys_opb_start(em_fsys *s, const em_direct *F, int pmg, const em_blockop_opts *bop,
                       const em_log *log) {
  const char *ab = getenv("EMSOLVE_OPBESIDE");
  if (s->opb || s->op || (!F && !pmg) || !s->Acsr || bop->backend != EM_BACKEND_CUDA ||
      (ab && !strcmp(ab, "0")))
    return;
  const em_csr *A = s->Acsr;
  /* a sweep (the next frequency under way, the value maps kept): the value
     map too, 4 bytes an entry on the GPU */
  int vmap = s->next && s->src;
  double need = F ? em_direct_device_need(F, A->nnz) : 0,
         opb = op_device_bytes(A) + (vmap ? 4.0 * (double)A->nnz : 0);
  double free_b = (double)em_device_mem_free(), gib = 1024.0 * 1024.0 * 1024.0;
  /* the factor checks need <= 0.92 x free when it starts: hold that with
     the operator already there, and half a GiB to spare.  pmg's set-up
     peak is not known before it runs (its coarse analysis is part of it);
     it is about the operator's size or less where the coarse level is ~8 %
     of the unknowns (the 4.87M DRA: 5.1 GB against the operator's 12.9),
     so the operator goes beside it when it takes at most an eighth of the
     free memory (the largest runs, 20M on one GPU, keep the order) */
  int fits = F ? need > 0 && need <= 0.92 * (free_b - opb) - 0.5 * gib : opb <= free_b / 8;
  if (!fits) {
    em_log_verbose(log,
                   "operator: built after the %s (%s ~%.2f GiB + operator ~%.2f GiB of %.2f GiB "
                   "free)",
                   F ? "factorization" : "V-cycle's set-up", F ? "factor" : "pmg", need / gib,
                   opb / gib, free_b / gib);
    return;
  }
  if (!em_fsys_fits_host((double)A->nnz, 24)) return; /* the formats' host copies */
  em_fsys_opb *h = NULL;
  if (em_calloc(&h, 1, sizeof *h, "operator beside the factorization")) {
    em_error_clear();
    return;
  }
  h->A = A;
  h->beside = F ? "the factorization" : "pmg's set-up";
  h->vmap = vmap;
  h->nb = s->nb;
  memcpy(h->offset, s->offset, sizeof h->offset);
  h->bop = *bop;
#ifdef _OPENMP
  /* half the host: the factorization's own host work (value checks, the
     scatter map) runs meanwhile */
  h->threads = omp_get_max_threads() / 2 > 0 ? omp_get_max_threads() / 2 : 1;
#else
  h->threads = 1;
#endif
  h->bs = em_beside_start(opb_main, h, h->threads, log);
  if (!h->bs) {
    em_free(&h);
    return;
  }
  s->opb = h;
  if (F)
    em_log_verbose(log,
                   "operator: built on a thread of its own beside the factorization (factor "
                   "~%.2f GiB + operator ~%.2f GiB of %.2f GiB free)",
                   need / gib, opb / gib, free_b / gib);
  else
    em_log_verbose(log,
                   "operator: built on a thread of its own beside pmg's set-up (operator ~%.2f GiB "
                   "of %.2f GiB free)",
                   opb / gib, free_b / gib);
}

em_blockop *em_fsys_opb_take(em_fsys *s, const em_log *log) {
  em_fsys_opb *h = s->opb;
  if (!h) return NULL;
  s->opb = NULL;
  double waited;
  char msg[256] = "";
  em_err err = em_beside_join(&h->bs, log, &waited, msg, sizeof msg);
  if (waited > 0.05)
    em_log_verbose(log, "operator: waited %.2f s for the thread building it", waited);
  em_blockop *op = h->op;
  if (h->pinned) s->pinned = h->pinned; /* unpinned with the matrix (fsys.c) */
  if (h->t_vmap > 0)
    em_log_verbose(log,
                   "operator: its value map for the sweep's refills made beside the "
                   "factorization too (%.2f s)",
                   h->t_vmap);
  if (err)
    em_log_verbose(log, "operator: the thread beside the factorization failed (%s); built in order",
                   msg);
  em_free(&h);
  return op;
}

void em_fsys_opb_free(em_fsys *s) {
  em_fsys_opb *h = s->opb;
  if (!h) return;
  s->opb = NULL;
  em_beside_drop(&h->bs);               /* an error path: the thread's table is dropped */
  if (h->pinned) s->pinned = h->pinned; /* unpinned with the matrix (fsys.c) */
  em_blockop_destroy(&h->op);
  em_free(&h);
}
