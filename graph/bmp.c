/* bmp.c - the bitmap of the seed-004 patent (em_graph.h): dense per-row
 * flag words, row starts, popcount access; to and from CSR. */
#include <string.h>

#include "em_graph.h"

em_err em_bmp_create(int32_t n_rows, int32_t n_cols, em_bmp **B) {
  EM_CHECK(B && n_rows >= 0 && n_cols >= 0, EM_ERR_ARG, "bitmap %d x %d", n_rows, n_cols);
  *B = NULL;
  EM_TRY(em_calloc(B, 1, sizeof **B, "bitmap"));
  em_bmp *b = *B;
  b->n_rows = n_rows;
  b->n_cols = n_cols;
  b->words = (n_cols + 63) / 64;
  em_err err = em_calloc(&b->flag, (size_t)n_rows * b->words + 1, sizeof *b->flag, "bitmap flags");
  if (!err) err = em_calloc(&b->rs, (size_t)n_rows + 1, sizeof *b->rs, "bitmap row starts");
  if (err) em_bmp_destroy(B);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

void em_bmp_destroy(em_bmp **B) {
  if (!B || !*B) return;
  em_free(&(*B)->flag);
  em_free(&(*B)->rs);
  em_free(&(*B)->val);
  em_free(B);
}

/* rs[i + 1] = rs[i] + popcount(row i) */
em_err em_bmp_finish(em_bmp *B, int with_values) {
  EM_CHECK(B, EM_ERR_ARG, "bitmap: NULL");
  B->rs[0] = 0;
  for (int32_t i = 0; i < B->n_rows; i++) {
    const uint64_t *f = B->flag + (int64_t)i * B->words;
    int64_t c = 0;
    for (int32_t w = 0; w < B->words; w++) c += __builtin_popcountll(f[w]);
    B->rs[i + 1] = B->rs[i] + c;
  }
  em_free(&B->val);
  if (with_values)
    EM_TRY(em_calloc(&B->val, (size_t)B->rs[B->n_rows] + 1, sizeof *B->val, "bitmap values"));
  return EM_OK;
}

int64_t em_bmp_index(const em_bmp *B, int32_t i, int32_t j) {
  if (i < 0 || j < 0 || i >= B->n_rows || j >= B->n_cols || !em_bmp_has(B, i, j)) return -1;
  const uint64_t *f = B->flag + (int64_t)i * B->words;
  int64_t k = B->rs[i];
  for (int32_t w = 0; w < j / 64; w++) k += __builtin_popcountll(f[w]);
  return k + __builtin_popcountll(f[j / 64] & ((1ull << (j % 64)) - 1));
}

em_cplx em_bmp_get(const em_bmp *B, int32_t i, int32_t j) {
  int64_t k = B->val ? em_bmp_index(B, i, j) : -1;
  return k < 0 ? 0 : B->val[k];
}

em_err em_bmp_from_csr(const em_csr *A, int with_values, em_bmp **B) {
  EM_CHECK(A && B, EM_ERR_ARG, "bitmap from CSR: NULL");
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      EM_CHECK(A->colind[k] >= 0 && A->colind[k] < A->n_cols &&
                   (k == A->rowptr[i] || A->colind[k] > A->colind[k - 1]),
               EM_ERR_ARG, "bitmap from CSR: row %d: column %d out of range or not ascending", i,
               A->colind[k]);
  EM_TRY(em_bmp_create(A->n_rows, A->n_cols, B));
  em_bmp *b = *B;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      b->flag[(int64_t)i * b->words + A->colind[k] / 64] |= 1ull << (A->colind[k] % 64);
  em_err err = em_bmp_finish(b, with_values && A->val);
  if (!err && b->val) memcpy(b->val, A->val, (size_t)A->nnz * sizeof *b->val);
  if (err) em_bmp_destroy(B);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

em_err em_bmp_to_csr(const em_bmp *B, em_csr **A) {
  EM_CHECK(B && A, EM_ERR_ARG, "bitmap to CSR: NULL");
  EM_TRY(em_csr_create(B->n_rows, B->n_cols, B->rs[B->n_rows], A));
  em_csr *a = *A;
  for (int32_t i = 0; i < B->n_rows; i++) {
    const uint64_t *f = B->flag + (int64_t)i * B->words;
    int64_t k = B->rs[i];
    for (int32_t w = 0; w < B->words; w++)
      for (uint64_t m = f[w]; m; m &= m - 1) {
        a->colind[k] = 64 * w + __builtin_ctzll(m);
        a->val[k] = B->val ? B->val[k] : 0;
        k++;
      }
    a->rowptr[i + 1] = k;
  }
  return EM_OK;
}
