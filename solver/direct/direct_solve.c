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
 * finished entries of its ancestors only.  Both sweeps follow the
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

/* x[i] -= a[i] c for i < n (complex, vectorised in real arithmetic) */
static void axpy_sub(int64_t n, const em_cplx *a, em_cplx c, em_cplx *x) {
  const double *pa = (const double *)a;
  double *px = (double *)x, cr = creal(c), ci = cimag(c);
#pragma omp simd
  for (int64_t i = 0; i < n; i++) {
    double ar = pa[2 * i], ai = pa[2 * i + 1];
    px[2 * i] -= ar * cr - ai * ci;
    px[2 * i + 1] -= ar * ci + ai * cr;
  }
}

/* sum a[i] b[i] for i < n (no conjugation) */
static em_cplx dotu(int64_t n, const em_cplx *a, const em_cplx *b) {
  const double *pa = (const double *)a, *pb = (const double *)b;
  double sr = 0, si = 0;
#pragma omp simd reduction(+ : sr, si)
  for (int64_t i = 0; i < n; i++) {
    double ar = pa[2 * i], ai = pa[2 * i + 1], br = pb[2 * i], bi = pb[2 * i + 1];
    sr += ar * br - ai * bi;
    si += ar * bi + ai * br;
  }
  em_cplx z; /* a complex is two doubles (C11 6.2.5); CMPLX is not in every libc */
  ((double *)&z)[0] = sr;
  ((double *)&z)[1] = si;
  return z;
}

/* One solve: what every tree step needs. */
typedef struct solve_ctx {
  const em_direct *F;
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
  /* column j of L once for every right-hand side (while it is in cache);
     each right-hand side sees the steps of a one-column solve in order */
  for (int64_t j = 0; j < k; j++) {
    const em_cplx *col = L + j * m;
    for (int r = 0; r < nrhs; r++) {
      em_cplx *x = y + r * ldy + c0, *t = ts + r * nb;
      em_cplx xj = x[j];
      axpy_sub(k - j - 1, col + j + 1, xj, x + j + 1);
      axpy_sub(nb, col + k, -xj, t); /* t += L21(:, j) x_j */
    }
  }
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
  for (int64_t j = k - 1; j >= 0; j--) { /* column j once for every right-hand side */
    const em_cplx *col = L + j * m;
    for (int r = 0; r < nrhs; r++) {
      em_cplx *x = y + r * ldy + c0;
      x[j] -= dotu(k - j - 1, col + j + 1, x + j + 1) + dotu(nb, col + k, ts + r * nb);
    }
  }
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
  solve_ctx c = {F, nrhs, y, ldy, work};
  scale(F, nt, nrhs, y, ldy); /* A^-1 = R (R A R)^-1 R */
  EM_TRY(em_dtree_up(S, S->swork, nt, forward_node, &c));
  diagonal(F, nt, nrhs, y, ldy);
  EM_TRY(em_dtree_down(S, S->swork, nt, backward_node, &c));
  scale(F, nt, nrhs, y, ldy);
  return EM_OK;
}
