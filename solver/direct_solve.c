/* direct_solve.c - y = (L D L^T)^-1 y in the new numbering, for nrhs
 * right-hand sides, supernode by supernode:
 *
 *   forward   x_s = L11^-1 (y_s - pulled updates),  t_s = L21 x_s
 *   diagonal  y = D^-1 y
 *   backward  x_s = L11^-T (y_s - L21^T y(rows below s))
 *
 * The forward sweep is "pull" style: supernode s subtracts its children's
 * update vectors t_c (kept in work) from its own entries and accumulates
 * the rest into t_s; it writes nothing outside its own columns, so
 * independent subtrees may run concurrently.  The backward sweep reads the
 * finished entries of its ancestors only.  Both sweeps follow the
 * factorization's schedule on OpenMP threads when F->threads > 1: subtrees
 * of small work as one task, the supernodes above them after their
 * children (forward) or their parent (backward). */
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

/* Forward sweep at supernode s. */
static void forward_node(const em_direct *F, int32_t s, int nrhs, em_cplx *y, int64_t ldy,
                         em_cplx *work) {
  const em_dsym *S = &F->S;
  int32_t c0 = S->super[s];
  int64_t k = S->super[s + 1] - c0, m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
  const em_cplx *L = F->lval + S->lptr[s];
  em_cplx *ts = tvec(S, s, nrhs, work);
  memset(ts, 0, (size_t)(nb * nrhs) * sizeof *ts);
  for (int32_t c = s - 1; c >= S->first[s]; c = S->first[c] - 1) {
    int64_t kc = S->super[c + 1] - S->super[c], nbc = S->rptr[c + 1] - S->rptr[c] - kc;
    const int32_t *rel = S->prel + S->rptr[c] + kc;
    const em_cplx *tc = tvec(S, c, nrhs, work);
    for (int r = 0; r < nrhs; r++)
      for (int64_t i = 0; i < nbc; i++) {
        int64_t q = rel[i];
        if (q < k)
          y[r * ldy + c0 + q] -= tc[i + r * nbc];
        else
          ts[q - k + r * nb] += tc[i + r * nbc];
      }
  }
  for (int r = 0; r < nrhs; r++) {
    em_cplx *x = y + r * ldy + c0, *t = ts + r * nb;
    for (int64_t j = 0; j < k; j++) {
      const em_cplx *col = L + j * m;
      em_cplx xj = x[j];
      for (int64_t i = j + 1; i < k; i++) x[i] -= col[i] * xj;
      for (int64_t i = 0; i < nb; i++) t[i] += col[k + i] * xj;
    }
  }
}

/* Backward sweep at supernode s (its ancestors finished). */
static void backward_node(const em_direct *F, int32_t s, int nrhs, em_cplx *y, int64_t ldy,
                          em_cplx *work) {
  const em_dsym *S = &F->S;
  int32_t c0 = S->super[s];
  int64_t k = S->super[s + 1] - c0, m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
  const em_cplx *L = F->lval + S->lptr[s];
  const int32_t *below = S->rows + S->rptr[s] + k;
  em_cplx *ts = tvec(S, s, nrhs, work); /* the gathered y(rows below s) */
  for (int r = 0; r < nrhs; r++)
    for (int64_t i = 0; i < nb; i++) ts[i + r * nb] = y[r * ldy + below[i]];
  for (int r = 0; r < nrhs; r++) {
    em_cplx *x = y + r * ldy + c0;
    const em_cplx *t = ts + r * nb;
    for (int64_t j = k - 1; j >= 0; j--) {
      const em_cplx *col = L + j * m;
      em_cplx sum = 0;
      for (int64_t i = j + 1; i < k; i++) sum += col[i] * x[i];
      for (int64_t i = 0; i < nb; i++) sum += col[k + i] * t[i];
      x[j] -= sum;
    }
  }
}

/* y = D^-1 y */
static void diagonal(const em_direct *F, int nrhs, em_cplx *y, int64_t ldy) {
  int32_t n = F->S.n;
  for (int r = 0; r < nrhs; r++) {
    em_cplx *x = y + r * ldy;
#pragma omp parallel for schedule(static) num_threads(F->threads) if (n > 50000 && F->threads > 1)
    for (int32_t i = 0; i < n; i++) x[i] /= F->d[i];
  }
}

int64_t em_direct_solve_work(const em_direct *F) {
  return F->S.ns > 0 ? F->S.rptr[F->S.ns] - F->S.n + 1 : 1;
}

void em_direct_solve_perm(const em_direct *F, int nrhs, em_cplx *y, int64_t ldy, em_cplx *work) {
  const em_dsym *S = &F->S;
  for (int32_t s = 0; s < S->ns; s++) forward_node(F, s, nrhs, y, ldy, work);
  diagonal(F, nrhs, y, ldy);
  for (int32_t s = S->ns - 1; s >= 0; s--) backward_node(F, s, nrhs, y, ldy, work);
}
