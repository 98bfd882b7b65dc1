/* fsys_overlap.c - the direct factor's analysis ahead of the values
 * (Solver/overlap 1, issue 24): the fill-reducing ordering and the
 * symbolic factorization depend on the pattern only, which the assembler
 * holds before the first frequency's values exist.  A thread of its own
 * (its own OpenMP team, as many threads as this one's) takes the
 * pattern, puts it in the operator's row order (em_blockop_plan_perm, as
 * the first frequency will) and analyses it (em_pc_direct_analyse, the
 * preconditioner's own options) while this thread assembles the values;
 * the set-up then factors on it (em_pc_create_analysed).
 *
 * The result is the sequential run's bit for bit: the same pattern gives
 * the same row order and the same analysis (the nested dissection is a
 * function of the graph, on any number of threads: graph/nd_tree.c).  It
 * is taken only when the assembled blocks' pattern hashes and the row
 * order equal the thread's; else, or when the thread failed (its error
 * stays on its thread and is logged), the set-up analyses in order, so
 * any error is the one the sequential run gives.  The thread's stages
 * (ordering, symbolic) carry their own durations into the run's table,
 * their lines marked "(overlapped)" (em_stages_join). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fsys_impl.h"

/* this thread's OpenMP threads now */
static int tm_now(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

struct em_fsys_ahead {
  em_beside *bs;            /* the thread (core/beside.c) */
  const em_assembler *asm_; /* read only by both threads (its pattern) */
  em_blockop_opts bop;      /* the operator's options: its row order */
  em_pc_opts pco;           /* the preconditioner's: the analysis' options */
  int threads;              /* the analysis thread's OpenMP threads */
  int main_threads;         /* this thread's before the overlap (0: unchanged) */
  /* what the thread made */
  int32_t n;
  int32_t *perm;
  uint64_t apat[EM_MAX_ORDER][EM_MAX_ORDER];
  em_direct *F;
};

/* The thread: the pattern, its row order and hashes, the permuted
 * pattern as one CSR, the analysis (log: the thread's). */
static em_err ahead_main(void *arg, const em_log *log) {
  em_fsys_ahead *h = arg;
  em_blockmat *B = NULL;
  em_csr *P = NULL;
  em_err err = EM_OK;
  em_stage_begin(log, EM_STAGE_ORDERING);
  err = em_assembler_pattern(h->asm_, &B);
  if (!err) { /* B and its permuted copy (~20 bytes an entry each) beside
                 the assembly: within the budget, or the analysis in order */
    double nnz = 0;
    for (int i = 0; i < B->nb; i++)
      for (int j = 0; j < B->nb; j++) nnz += (double)B->blk[i][j]->nnz;
    if (!em_fsys_fits_host(nnz, 40))
      err = EM_RAISE(EM_ERR_MEMORY,
                     "the pattern's copies (%.2f GiB) would exceed a quarter of "
                     "the host's available memory",
                     40 * nnz / (1024.0 * 1024.0 * 1024.0));
  }
  if (!err) {
    h->n = B->offset[B->nb];
    err = em_calloc(&h->perm, (size_t)h->n + 1, sizeof *h->perm, "permutation");
  }
  if (!err) err = em_blockop_plan_perm(B, &h->bop, h->perm);
  for (int i = 0; !err && i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) h->apat[i][j] = em_spmat_pattern_hash(B->blk[i][j]);
  if (!err) err = em_blockmat_permute_csr(B, h->perm, 1, &P, NULL);
  em_blockmat_destroy(&B);
  em_stage_end(log, EM_STAGE_ORDERING, "the pattern in the operator's row order");
  if (!err) err = em_pc_direct_analyse(P, &h->pco, log, &h->F);
  em_csr_destroy(&P);
  return err;
}

em_err em_fsys_ahead_start(em_fsys *s, const em_log *log) {
  const em_fsys_desc *d = &s->d;
  if (em_fsys_distributed(s) && !d->periodic)
    return em_fsys_dahead_start(s, log); /* rank 0's coarse */
  if (s->ahead || s->pc || s->op || !s->asm_ || !d->solve->overlap || d->periodic ||
      em_fsys_distributed(s) || d->solve->pc.type != EM_PC_DIRECT)
    return EM_OK;
  em_fsys_ahead *h = NULL;
  if (em_calloc(&h, 1, sizeof *h, "overlapped analysis")) { /* then in order */
    em_error_clear();
    return EM_OK;
  }
  h->asm_ = s->asm_;
  h->bop = d->solve->bop; /* as em_fsys_solve gives them */
  h->bop.backend = d->backend;
  h->bop.prec = EM_PREC_DOUBLE;
  h->pco = d->solve->pc; /* as precondition() gives them (the direct factor's) */
  h->pco.backend = d->backend;
#ifdef _OPENMP
  h->threads = omp_get_max_threads();
  /* EMSOLVE_OVERLAP_THREADS=a[:m] (scripts/device-onerun.sh): the
     analysis on a threads, the assembly beside it on m (each 1 .. the
     caller's; unset or 0: the caller's, both); the bits do not depend on
     either (the nested dissection and the coloured assembly are
     thread-count independent) */
  const char *tt = getenv("EMSOLVE_OVERLAP_THREADS");
  int ta = 0, tm = 0, all = h->threads;
  if (tt && sscanf(tt, "%d:%d", &ta, &tm) >= 1) {
    if (ta > 0 && ta < all) h->threads = ta;
    if (tm > 0 && tm < all) {
      h->main_threads = all;
      omp_set_num_threads(tm);
    }
  }
#endif
  h->bs = em_beside_start(ahead_main, h, h->threads, log);
  if (!h->bs) { /* no thread: in order, as before */
    em_log_verbose(log, "overlap: no thread for the analysis; it runs in order");
#ifdef _OPENMP
    if (h->main_threads) omp_set_num_threads(h->main_threads);
#endif
    em_free(&h);
    return EM_OK;
  }
  s->ahead = h;
  em_log_verbose(log,
                 "overlap: the direct factor's ordering and symbolic analysis begin on a "
                 "thread of their own beside the assembly (%d threads there, %d here)",
                 h->threads, h->main_threads ? tm_now() : h->threads);
  return EM_OK;
}

void em_fsys_ahead_assembled(em_fsys *s) {
  em_fsys_ahead *h = s->ahead;
  if (!h || !h->main_threads) return;
#ifdef _OPENMP
  omp_set_num_threads(h->main_threads);
#endif
  h->main_threads = 0;
}

static void ahead_free(em_fsys_ahead **hp) {
#ifdef _OPENMP
  if ((*hp)->main_threads) omp_set_num_threads((*hp)->main_threads);
#endif
  em_fsys_ahead *h = *hp;
  em_free(&h->perm);
  em_direct_destroy(&h->F);
  em_free(hp);
}

void em_fsys_ahead_take(em_fsys *s, const em_log *log, em_direct **F) {
  *F = NULL;
  em_fsys_ahead *h = s->ahead;
  if (!h) return;
  s->ahead = NULL;
  /* the thread joined, its stages into the run's table (the wait taken
     off the stage open here); its error's message kept for the line */
  double waited;
  char msg[256] = "";
  em_err err = em_beside_join(&h->bs, log, &waited, msg, sizeof msg);
  if (waited > 0.05) em_log_verbose(log, "overlap: waited %.2f s for the analysis", waited);
  const char *why = NULL;
  if (err)
    why = msg;
  else if (h->n != s->offset[s->nb] || memcmp(h->perm, s->perm, (size_t)h->n * sizeof *h->perm))
    why = "the row order differs from the first frequency's";
  else if (memcmp(h->apat, s->apat, sizeof h->apat))
    why = "the assembled pattern differs from the assembler's";
  if (why) {
    em_log_verbose(log, "overlap: the analysis made ahead is not used (%s); it runs in order", why);
  } else {
    *F = h->F;
    h->F = NULL;
  }
  ahead_free(&h);
}

void em_fsys_ahead_free(em_fsys *s) {
  if (!s->ahead) return;
  em_fsys_ahead_assembled(s);    /* this thread's team as it was */
  em_beside_drop(&s->ahead->bs); /* an error path: the thread's table is dropped */
  ahead_free(&s->ahead);
}
