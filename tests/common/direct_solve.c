/* direct_solve.c - dense or RCM-banded LU through LAPACK (see the header). */
#include "direct_solve.h"

#include <string.h>

#include "em_mesh.h"

extern void zgesv_(const int *n, const int *nrhs, em_cplx *a, const int *lda, int *ipiv, em_cplx *b,
                   const int *ldb, int *info);
extern void zgbsv_(const int *n, const int *kl, const int *ku, const int *nrhs, em_cplx *ab,
                   const int *ldab, int *ipiv, em_cplx *b, const int *ldb, int *info);

#define DENSE_MAX 400

/* RCM permutation of the pattern of A + A^T (self loops dropped). */
static em_err rcm(const em_csr *A, int32_t *perm) {
  em_err err = EM_OK;
  int32_t n = A->n_rows;
  int64_t *ptr = NULL;
  int32_t *adj = NULL, *fill = NULL;
  EM_TRY(em_calloc(&ptr, (size_t)n + 1, sizeof *ptr, "RCM graph"));
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] != i) {
        ptr[i + 1]++;
        ptr[A->colind[k] + 1]++;
      }
  for (int32_t i = 0; i < n; i++) ptr[i + 1] += ptr[i];
  EM_TRY_GOTO(err, em_calloc(&adj, (size_t)ptr[n], sizeof *adj, "RCM graph"), done);
  EM_TRY_GOTO(err, em_calloc(&fill, (size_t)n, sizeof *fill, "RCM graph"), done);
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int32_t j = A->colind[k];
      if (j == i) continue;
      adj[ptr[i] + fill[i]++] = j;
      adj[ptr[j] + fill[j]++] = i;
    }
  /* duplicates (i,j) and (j,i) are harmless for the BFS */
  EM_TRY_GOTO(err, em_order_rcm(n, ptr, adj, perm), done);
done:
  em_free(&ptr);
  em_free(&adj);
  em_free(&fill);
  return err;
}

static void bands(const em_csr *A, const int32_t *perm, int *kl, int *ku) {
  *kl = *ku = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int d = perm[i] - perm[A->colind[k]];
      if (d > *kl) *kl = d;
      if (-d > *ku) *ku = -d;
    }
}

em_err em_test_bandwidth(const em_csr *A, int32_t *bw) {
  int32_t *perm = NULL;
  EM_TRY(em_calloc(&perm, (size_t)A->n_rows + 1, sizeof *perm, "RCM permutation"));
  em_err err = rcm(A, perm);
  if (!err) {
    int kl, ku;
    bands(A, perm, &kl, &ku);
    *bw = kl > ku ? kl : ku;
  }
  em_free(&perm);
  return err;
}

em_err em_test_dense_solve(const em_csr *A, int nrhs, const em_cplx *b, em_cplx *x) {
  EM_CHECK(A && b && x && nrhs >= 1, EM_ERR_ARG, "direct solve: bad arguments");
  EM_CHECK(A->n_rows == A->n_cols, EM_ERR_ARG, "direct solve: matrix %d x %d is not square",
           A->n_rows, A->n_cols);
  int n = A->n_rows, info = 0;
  if (n == 0) return EM_OK;
  em_err err = EM_OK;
  em_cplx *M = NULL, *B = NULL;
  int32_t *perm = NULL;
  int *ipiv = NULL;
  EM_TRY(em_calloc(&perm, (size_t)n, sizeof *perm, "solver permutation"));
  EM_TRY_GOTO(err, em_calloc(&ipiv, (size_t)n, sizeof *ipiv, "pivots"), done);
  EM_TRY_GOTO(err, em_calloc(&B, (size_t)n * nrhs, sizeof *B, "solver right-hand sides"), done);
  int kl = n - 1, ku = n - 1;
  if (n > DENSE_MAX) {
    EM_TRY_GOTO(err, rcm(A, perm), done);
    bands(A, perm, &kl, &ku);
  } else {
    for (int i = 0; i < n; i++) perm[i] = i;
  }
  int dense = n <= DENSE_MAX || (double)(2 * kl + ku + 1) >= n;
  if (dense)
    for (int i = 0; i < n; i++) perm[i] = i;
  for (int c = 0; c < nrhs; c++)
    for (int i = 0; i < n; i++) B[(size_t)c * n + perm[i]] = b[(size_t)c * n + i];
  if (dense) {
    EM_TRY_GOTO(err, em_calloc(&M, (size_t)n * n, sizeof *M, "dense matrix"), done);
    for (int i = 0; i < n; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        M[(size_t)A->colind[k] * n + i] += A->val[k];
    zgesv_(&n, &nrhs, M, &n, ipiv, B, &n, &info);
  } else {
    int ldab = 2 * kl + ku + 1;
    EM_TRY_GOTO(err, em_calloc(&M, (size_t)ldab * n, sizeof *M, "band matrix"), done);
    for (int i = 0; i < n; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        int pi = perm[i], pj = perm[A->colind[k]];
        M[(size_t)pj * ldab + kl + ku + pi - pj] += A->val[k];
      }
    zgbsv_(&n, &kl, &ku, &nrhs, M, &ldab, ipiv, B, &n, &info);
  }
  if (info != 0) {
    err = EM_RAISE(info > 0 ? EM_ERR_NUMERIC : EM_ERR_INTERNAL,
                   "direct solve (%s, n = %d): LAPACK info %d%s", dense ? "zgesv" : "zgbsv", n,
                   info, info > 0 ? " (exactly zero pivot: singular matrix)" : "");
    goto done;
  }
  for (int c = 0; c < nrhs; c++)
    for (int i = 0; i < n; i++) x[(size_t)c * n + i] = B[(size_t)c * n + perm[i]];
done:
  em_free(&M);
  em_free(&B);
  em_free(&perm);
  em_free(&ipiv);
  return err;
}
