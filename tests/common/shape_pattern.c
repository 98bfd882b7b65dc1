/* shape_pattern.c - the long-tail and dense-block matrices of
 * shape_pattern.h. */
#include "shape_pattern.h"

#include <stdlib.h>

#include "fem_pattern.h"

/* Is row i one of the m long rows of an n-row matrix?  The long rows are
 * (2k + 1) n / (2m): row i is one when i = (2k + 1) n / (2m) for the k
 * nearest to i m / n. */
static int is_long(int64_t i, int64_t n, int64_t m) {
  if (m <= 0) return 0;
  int64_t k = (2 * i * m) / (2 * n);
  for (int64_t q = k > 0 ? k - 1 : 0; q <= k + 1 && q < m; q++)
    if ((2 * q + 1) * n / (2 * m) == i) return 1;
  return 0;
}

em_err em_pattern_long_rows(const em_csr *A, int32_t m, int32_t len, unsigned seed, em_csr **out) {
  *out = NULL;
  int32_t n = A->n_rows;
  EM_CHECK(A->n_cols == n && m >= 0 && m <= n && len >= 1 && len <= n, EM_ERR_ARG,
           "long rows: %d rows of %d entries in a %d x %d matrix", m, len, n, A->n_cols);
  int64_t nnz = 0;
  for (int32_t i = 0; i < n; i++) nnz += is_long(i, n, m) ? len : A->rowptr[i + 1] - A->rowptr[i];
  em_csr *B = NULL;
  EM_TRY(em_csr_create(n, n, nnz, &B));
  int64_t p = 0;
  for (int32_t i = 0; i < n; i++) {
    if (is_long(i, n, m)) {
      for (int64_t k = 0; k < len; k++, p++) {
        B->colind[p] = (int32_t)(k * n / len);
        B->val[p] = em_fem_pair_value(i, B->colind[p], seed);
      }
    } else {
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++, p++) {
        B->colind[p] = A->colind[k];
        B->val[p] = A->val[k];
      }
    }
    B->rowptr[i + 1] = p;
  }
  *out = B;
  return EM_OK;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

em_err em_pattern_blocks(int32_t n, int fill, int row_len, unsigned seed, em_csr **out) {
  *out = NULL;
  EM_CHECK(n > 0 && n % 64 == 0 && fill >= 1 && fill <= 64 && 64 % fill == 0 && row_len >= fill &&
               row_len % fill == 0 && row_len / fill <= n / 64,
           EM_ERR_ARG,
           "blocks: n %d (a multiple of 64), fill %d (divides 64), row %d (words <= n/64)", n, fill,
           row_len);
  int32_t nw = n / 64, words = row_len / fill, s = 64 / fill;
  em_csr *B = NULL;
  int32_t *w = NULL;
  EM_TRY(em_csr_create(n, n, (int64_t)n * row_len, &B));
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&w, (size_t)words, sizeof *w, "block words"), fail);
  for (int32_t i = 0; i < n; i++) {
    for (int32_t k = 0; k < words; k++) w[k] = (i / 64 + k) % nw;
    qsort(w, (size_t)words, sizeof *w, cmp_i32); /* the band wraps around */
    int64_t p = (int64_t)i * row_len;
    for (int32_t k = 0; k < words; k++)
      for (int32_t b = 0; b < fill; b++, p++) {
        B->colind[p] = 64 * w[k] + i % s + b * s;
        B->val[p] = em_fem_pair_value(i, B->colind[p], seed);
      }
    B->rowptr[i + 1] = p;
  }
  em_free(&w);
  *out = B;
  return EM_OK;
fail:
  em_csr_destroy(&B);
  return err;
}
