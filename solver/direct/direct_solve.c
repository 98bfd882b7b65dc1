/* direct_solve.c - y = (L D L^T)^-1 y in the new numbering, for nrhs
 * right-hand sides, supernode by supernode:
 *
 *   scaling   y = R y  (the factor is of R P A P^T R, R the equilibration)
 *   forward   x_s = L11^-1 (y_s - pulled updates),  t_s = L21 x_s
 *   diagonal  y = D^-1 y
 *   backward  x_s = L11^-T (y_s - L21^T y(rows below s))
 *   scaling   y = R y
 *
 * The forward sweep is "pull" style: supernode s subtracts its children's
 * update vectors t_c (kept in work) from its own entries and accumulates
 * the rest into t_s; it writes nothing outside its own columns, so
 * independent subtrees may run concurrently.  The backward sweep reads the
 * finished entries of its ancestors only.  The dense steps take the nrhs
 * columns together (em_ds_*: each block of L read once for all of them, in
 * register tiles of several columns), each column computed as alone.  Both sweeps follow the
 * tree schedule of direct_sched.c on F->threads OpenMP threads, weighted
 * by the entries of each block. */
#include <complex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "direct_impl.h"

/* Update vectors of s in work: nb x nrhs, column-major, at the sum of the
 * row counts below the supernodes before s. */
static em_cplx *tvec(const em_dsym *S, int32_t s, int nrhs, em_cplx *work) {
  return work + (S->rptr[s] - S->super[s]) * (int64_t)nrhs;
}

/* One solve: what every tree step needs. */
typedef struct solve_ctx {
  const em_direct *F;
  em_dk_kind kind; /* the dense kernels (em_ds_kind) */
  int nrhs;
  em_cplx *y;
  int64_t ldy;
  em_cplx *work;
} solve_ctx;

/* Forward sweep at supernode s: pull the children's update vectors, solve
 * with L11, t_s = L21 x_s (plus what the children passed up). */
static void forward_node(void *ctx, int32_t s) {
  const solve_ctx *c = ctx;
  const em_dsym *S = &c->F->S;
  int nrhs = c->nrhs;
  int64_t ldy = c->ldy;
  em_cplx *y = c->y;
  int32_t c0 = S->super[s];
  int64_t k = S->super[s + 1] - c0, m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
  const em_cplx *L = c->F->lval + S->lptr[s];
  em_cplx *ts = tvec(S, s, nrhs, c->work);
  memset(ts, 0, (size_t)(nb * nrhs) * sizeof *ts);
  for (int32_t ch = s - 1; ch >= S->first[s]; ch = S->first[ch] - 1) {
    int64_t kc = S->super[ch + 1] - S->super[ch], nbc = S->rptr[ch + 1] - S->rptr[ch] - kc;
    const int32_t *rel = S->prel + S->rptr[ch] + kc;
    const em_cplx *tc = tvec(S, ch, nrhs, c->work);
    for (int r = 0; r < nrhs; r++)
      for (int64_t i = 0; i < nbc; i++) {
        int64_t q = rel[i];
        if (q < k)
          y[r * ldy + c0 + q] -= tc[i + r * nbc];
        else
          ts[q - k + r * nb] += tc[i + r * nbc];
      }
  }
  em_cplx *x = y + c0;
  em_ds_trsm_n(c->kind, k, nrhs, L, m, x, ldy);                    /* x_s = L11^-1 x_s */
  em_ds_gemm_n(c->kind, nb, nrhs, k, L + k, m, x, ldy, 1, ts, nb); /* t_s += L21 x_s */
}

/* Backward sweep at supernode s (its ancestors are finished). */
static void backward_node(void *ctx, int32_t s) {
  const solve_ctx *c = ctx;
  const em_dsym *S = &c->F->S;
  int nrhs = c->nrhs;
  int64_t ldy = c->ldy;
  em_cplx *y = c->y;
  int32_t c0 = S->super[s];
  int64_t k = S->super[s + 1] - c0, m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
  const em_cplx *L = c->F->lval + S->lptr[s];
  const int32_t *below = S->rows + S->rptr[s] + k;
  em_cplx *ts = tvec(S, s, nrhs, c->work); /* the gathered y(rows below s) */
  for (int r = 0; r < nrhs; r++)
    for (int64_t i = 0; i < nb; i++) ts[i + r * nb] = y[r * ldy + below[i]];
  em_cplx *x = y + c0;
  em_ds_gemm_t(c->kind, nb, k, nrhs, L + k, m, ts, nb, x, ldy); /* x_s -= L21^T y(below) */
  em_ds_trsm_t(c->kind, k, nrhs, L, m, x, ldy);                 /* x_s = L11^-T x_s */
}

/* y = R y, R the equilibration */
static void scale(const em_direct *F, int nt, int nrhs, em_cplx *y, int64_t ldy) {
  int32_t n = F->S.n;
  for (int r = 0; r < nrhs; r++) {
    em_cplx *x = y + r * ldy;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int32_t i = 0; i < n; i++) x[i] *= F->scale[i];
  }
}

/* y = D^-1 y */
static void diagonal(const em_direct *F, int nt, int nrhs, em_cplx *y, int64_t ldy) {
  int32_t n = F->S.n;
  for (int r = 0; r < nrhs; r++) {
    em_cplx *x = y + r * ldy;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int32_t i = 0; i < n; i++) x[i] /= F->d[i];
  }
}

int64_t em_direct_solve_work(const em_direct *F) {
  return F->S.ns > 0 ? F->S.rptr[F->S.ns] - F->S.n + 1 : 1;
}

em_err em_direct_solve_perm(const em_direct *F, int nrhs, em_cplx *y, int64_t ldy, em_cplx *work) {
  const em_dsym *S = &F->S;
  /* a team only pays off on a few hundred thousand entries of L */
  int nt = (double)(S->ns > 0 ? S->lptr[S->ns] : 0) * nrhs < 4e5 ? 1 : F->threads;
  solve_ctx c = {F, em_ds_kind(F->kind), nrhs, y, ldy, work};
  scale(F, nt, nrhs, y, ldy); /* A^-1 = R (R A R)^-1 R */
  EM_TRY(em_dtree_up(S, S->swork, nt, forward_node, &c));
  diagonal(F, nt, nrhs, y, ldy);
  EM_TRY(em_dtree_down(S, S->swork, nt, backward_node, &c));
  scale(F, nt, nrhs, y, ldy);
  return EM_OK;
}
