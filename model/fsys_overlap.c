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
 * their lines marked "(overlapped)" (em_stages_join).
 *
 * The permuted pattern serves the operator too (em_fsys_ahead_pattern):
 * the thread makes it without values (em_blockmat_permute_pattern) with
 * the gather map of the values, and publishes the row order, the pattern
 * and the map as soon as they exist, before its ordering; the first
 * frequency's operator then copies the pattern and gathers the assembled
 * values through the map instead of planning the row order and sorting
 * every row again (the same arrays, bit for bit: the blocks' pattern
 * hashes must equal the thread's, as for the analysis).
 *
 * With the V-cycle (Solver/preconditioner pmg) the thread does the same up
 * to the published pattern, then analyses the coarse level instead of the
 * whole (issue 24): its unknowns in the row order just made
 * (em_fsys_coarse_set, the rows pmg's coarse set will be) and its pattern
 * from the mesh (em_fsys_coarse_pattern, fsys_coarse.c: the coarse rows
 * ascending, as pmg takes them out of the matrix), analysed with pmg's
 * coarse options (em_pmg_coarse_opts).  The V-cycle's set-up asks for it
 * right before its coarse factor (em_fsys_ahead_coarse, after its
 * smoothers: the thread has their time too) and takes it only when its
 * A_CC has the thread's pattern hash; the permuted pattern is freed as
 * soon as the operator has copied it.  EMSOLVE_PMG_AHEAD=0 in the
 * environment keeps pmg's analysis (and the operator's pattern) in order,
 * the rest of Solver/overlap 1 as it is (A/B runs). */
#include <pthread.h>
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
  em_beside *bs;      /* the thread (core/beside.c) */
  pthread_mutex_t mu; /* published: the pattern's phase done (p1) */
  pthread_cond_t cv;
  int p1;                   /* 0: under way, 1: perm, P, src and apat published, -1: failed */
  em_csr *P;                /* the permuted pattern (values zero): the analysis' input and
                               the operator's pattern; freed after the join */
  int64_t *src;             /* its gather map (NULL: none); the operator takes it */
  const em_assembler *asm_; /* read only by both threads (its pattern) */
  em_blockop_opts bop;      /* the operator's options: its row order */
  em_pc_opts pco;           /* the preconditioner's: the analysis' options */
  const em_fsys_desc *d;    /* read only by both threads (the mesh, the DOFs, the media) */
  int coarse;               /* 1: pmg's coarse level's analysis, with the options co */
  em_pc_opts co;
  uint64_t cpat;    /* the pattern hash of the coarse level analysed */
  int threads;      /* the analysis thread's OpenMP threads */
  int main_threads; /* this thread's before the overlap (0: unchanged) */
  /* what the thread made */
  int32_t n;
  int32_t *perm;
  uint64_t apat[EM_MAX_ORDER][EM_MAX_ORDER];
  em_direct *F;
};

static int64_t nnz_of(const em_blockmat *B) {
  int64_t nnz = 0;
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) nnz += B->blk[i][j]->nnz;
  return nnz;
}

/* pmg's coarse level in the row order perm (fsys_coarse.c), its pattern
 * hash and its analysis. */
static em_err coarse_main(em_fsys_ahead *h, const em_log *log) {
  uint8_t *cg = NULL;
  em_csr *C = NULL;
  em_stage_begin(log, EM_STAGE_ORDERING);
  em_err err = em_fsys_coarse_set(h->d, h->pco.pmg.coarse, h->perm, &cg);
  if (!err) err = em_fsys_coarse_pattern(h->d->mesh, h->d->dofs, cg, h->perm, &C);
  em_free(&cg);
  em_stage_end(log, EM_STAGE_ORDERING, "the coarse level's pattern from the mesh");
  if (!err) h->cpat = em_spmat_pattern_hash(C);
  if (!err) err = em_pc_direct_analyse(C, &h->co, log, &h->F);
  em_csr_destroy(&C);
  return err;
}

/* The thread: the pattern, its row order and hashes, the permuted
 * pattern as one CSR (published), the analysis of the whole or of pmg's
 * coarse level (log: the thread's). */
static em_err ahead_main(void *arg, const em_log *log) {
  em_fsys_ahead *h = arg;
  em_blockmat *B = NULL;
  em_csr *P = NULL;
  em_err err = EM_OK;
  em_stage_begin(log, EM_STAGE_ORDERING);
  double t0 = em_wtime(), t1 = 0, t2 = 0, t3 = 0;
  err = em_assembler_pattern(h->asm_, &B);
  t1 = em_wtime();
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
  t2 = em_wtime();
  for (int i = 0; !err && i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) h->apat[i][j] = em_spmat_pattern_hash(B->blk[i][j]);
  t3 = em_wtime();
  /* the gather map only when the operator will keep one (fsys.c maps_fit) */
  int maps = !err && em_fsys_fits_host((double)nnz_of(B), 8);
  if (!err) err = em_blockmat_permute_pattern(B, h->perm, 1, &P, maps ? &h->src : NULL);
  em_blockmat_destroy(&B);
  pthread_mutex_lock(&h->mu);
  h->P = P; /* read by both threads now, freed after the join */
  h->p1 = err ? -1 : 1;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
  em_log_verbose(log, "overlap: pattern %.2f s, row order %.2f s, hashes %.2f s, permuted %.2f s",
                 t1 - t0, t2 - t1, t3 - t2, em_wtime() - t3);
  em_stage_end(log, EM_STAGE_ORDERING, "the pattern in the operator's row order");
  if (!err && h->coarse) return coarse_main(h, log); /* P: the operator's only */
  if (!err) err = em_pc_direct_analyse(P, &h->pco, log, &h->F);
  return err;
}

em_err em_fsys_ahead_start(em_fsys *s, const em_log *log) {
  const em_fsys_desc *d = &s->d;
  if (em_fsys_distributed(s) && !d->periodic)
    return em_fsys_dahead_start(s, log); /* rank 0's coarse */
  /* pmg: the coarse level's analysis (none for a V-cycle that will refuse
     its groups: its error comes without the wait) */
  em_pc_type type = d->solve->pc.type;
  int coarse = d->solve->pc.pmg.coarse;
  const char *ab = getenv("EMSOLVE_PMG_AHEAD"); /* 0: pmg's analysis in order (A/B runs) */
  if (type == EM_PC_PMG && ab && !strcmp(ab, "0")) coarse = 0;
  if (s->ahead || s->pc || s->op || !s->asm_ || !d->solve->overlap || d->periodic ||
      em_fsys_distributed(s) ||
      !(type == EM_PC_DIRECT || (type == EM_PC_PMG && coarse >= 1 && coarse < d->dofs->order)))
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
  h->pco.pattern_symmetric = 1; /* the assembler's pattern, as precondition() gives it */
  h->d = d;
  h->coarse = type == EM_PC_PMG;
  em_pmg_coarse_opts(&h->pco, &h->co); /* as pmg's set-up gives them */
  pthread_mutex_init(&h->mu, NULL);
  pthread_cond_init(&h->cv, NULL);
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
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    em_free(&h);
    return EM_OK;
  }
  s->ahead = h;
  em_log_verbose(log,
                 "overlap: the %s ordering and symbolic analysis begin on a "
                 "thread of their own beside the assembly (%d threads there, %d here)",
                 h->coarse ? "V-cycle's coarse level's" : "direct factor's", h->threads,
                 h->main_threads ? tm_now() : h->threads);
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
  em_csr_destroy(&h->P);
  em_free(&h->src);
  em_direct_destroy(&h->F);
  pthread_cond_destroy(&h->cv);
  pthread_mutex_destroy(&h->mu);
  em_free(hp);
}

int em_fsys_ahead_pattern(em_fsys *s, const uint64_t apat[EM_MAX_ORDER][EM_MAX_ORDER], int maps,
                          const em_log *log, em_fsys_pattern *out) {
  memset(out, 0, sizeof *out);
  em_fsys_ahead *h = s->ahead;
  if (!h) return 0;
  double tw = em_wtime();
  pthread_mutex_lock(&h->mu);
  while (!h->p1) pthread_cond_wait(&h->cv, &h->mu);
  int ok = h->p1 == 1;
  pthread_mutex_unlock(&h->mu);
  if (em_wtime() - tw > 0.05)
    em_log_verbose(log, "overlap: waited %.2f s for the permuted pattern", em_wtime() - tw);
  const char *why = NULL;
  if (!ok)
    why = "it failed";
  else if (h->n != s->offset[s->nb] || memcmp(h->apat, apat, sizeof h->apat))
    why = "the assembled pattern differs from the assembler's";
  else if (maps && !h->src)
    why = "it has no value map";
  if (why) {
    em_log_verbose(log, "overlap: the operator's pattern is made in order (the thread's: %s)", why);
    if (ok && h->coarse) em_csr_destroy(&h->P); /* the thread is done with it */
    return 0;
  }
  out->perm = h->perm;
  out->P = h->P;
  if (maps) { /* the map is the operator's now (the thread never reads it) */
    out->src = h->src;
    h->src = NULL;
  }
  return 1;
}

void em_fsys_ahead_copied(em_fsys *s) {
  if (s->ahead && s->ahead->coarse) em_csr_destroy(&s->ahead->P); /* the thread's is done */
}

/* s->ahead joined, its stages into the run's table (the wait taken off
 * the stage open here), checked against s (its error's message kept for
 * the line) and freed: its analysis, when valid, or NULL. */
static em_direct *ahead_join(em_fsys *s, const em_log *log, uint64_t *cpat) {
  em_fsys_ahead *h = s->ahead;
  s->ahead = NULL;
  double waited;
  char msg[256] = "";
  em_err err = em_beside_join(&h->bs, log, &waited, msg, sizeof msg);
  const char *what = h->coarse ? "coarse analysis" : "analysis";
  if (waited > 0.05) em_log_verbose(log, "overlap: waited %.2f s for the %s", waited, what);
  const char *why = NULL;
  if (err)
    why = msg;
  else if (h->n != s->offset[s->nb] || memcmp(h->perm, s->perm, (size_t)h->n * sizeof *h->perm))
    why = "the row order differs from the first frequency's";
  else if (memcmp(h->apat, s->apat, sizeof h->apat))
    why = "the assembled pattern differs from the assembler's";
  em_direct *F = NULL;
  if (why) {
    em_log_verbose(log, "overlap: the %s made ahead is not used (%s); it runs in order", what, why);
  } else {
    F = h->F;
    h->F = NULL;
    *cpat = h->cpat;
  }
  ahead_free(&h);
  return F;
}

void em_fsys_ahead_take(em_fsys *s, const em_log *log, em_direct **F) {
  uint64_t cpat = 0;
  /* pmg's coarse analysis waits for the V-cycle's set-up to ask for it */
  *F = s->ahead && !s->ahead->coarse ? ahead_join(s, log, &cpat) : NULL;
}

void em_fsys_ahead_coarse(void *ctx, const em_log *log, em_coarse_ahead *ah) {
  em_fsys *s = ctx;
  memset(ah, 0, sizeof *ah);
  if (s->ahead && s->ahead->coarse) ah->F = ahead_join(s, log, &ah->pattern);
}

void em_fsys_ahead_free(em_fsys *s) {
  if (!s->ahead) return;
  em_fsys_ahead_assembled(s);    /* this thread's team as it was */
  em_beside_drop(&s->ahead->bs); /* an error path: the thread's table is dropped */
  ahead_free(&s->ahead);
}
