/* gf2.c - dense matrices over GF(2), one bit per element in 32-bit words;
 * the CPU reference elimination (a row operation is one XOR per word, the
 * rows updated in parallel), rank and solve on either backend. */
#include "em_linalg.h"

#include <string.h>

em_err em_gf2_create(int32_t n_rows, int32_t n_cols, em_gf2 **A) {
  EM_CHECK(A && n_rows >= 0 && n_cols >= 0, EM_ERR_ARG, "GF(2) matrix %d x %d", n_rows, n_cols);
  *A = NULL;
  EM_TRY(em_calloc(A, 1, sizeof **A, "GF(2) matrix"));
  (*A)->n_rows = n_rows;
  (*A)->n_cols = n_cols;
  (*A)->words = (n_cols + 31) / 32;
  em_err err = em_calloc(&(*A)->w, (size_t)n_rows * (size_t)(*A)->words, sizeof(uint32_t),
                         "GF(2) matrix words");
  if (err) em_gf2_destroy(A);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

em_err em_gf2_copy(const em_gf2 *A, em_gf2 **B) {
  EM_CHECK(A, EM_ERR_ARG, "GF(2) copy of NULL");
  EM_TRY(em_gf2_create(A->n_rows, A->n_cols, B));
  memcpy((*B)->w, A->w, (size_t)A->n_rows * (size_t)A->words * sizeof(uint32_t));
  return EM_OK;
}

void em_gf2_destroy(em_gf2 **A) {
  if (!A || !*A) return;
  em_free(&(*A)->w);
  em_free(A);
}

static void gf2_swap_rows(em_gf2 *A, int32_t i, int32_t j) {
  uint32_t *a = A->w + (int64_t)i * A->words, *b = A->w + (int64_t)j * A->words;
  for (int32_t k = 0; k < A->words; k++) {
    uint32_t t = a[k];
    a[k] = b[k];
    b[k] = t;
  }
}

/* For each column c: the first row i >= r with a(i, c) = 1 becomes row r;
 * then row_j ^= row_r for every other row j (j > r unless reduced) with
 * a(j, c) = 1, over the words from c / 32 on (the pivot row is zero left of
 * c).  The GPU follows the same rule, so the results agree bit for bit. */
static void gf2_echelon_cpu(em_gf2 *A, int reduced, int32_t *rank, int32_t *pivcol) {
  int32_t r = 0, W = A->words;
  for (int32_t c = 0; c < A->n_cols && r < A->n_rows; c++) {
    int32_t i = r;
    while (i < A->n_rows && !em_gf2_get(A, i, c)) i++;
    if (i == A->n_rows) continue;
    if (i != r) gf2_swap_rows(A, i, r);
    const uint32_t *p = A->w + (int64_t)r * W;
    const int32_t w0 = c / 32, j0 = reduced ? 0 : r + 1;
    const uint32_t bit = 1u << (c % 32);
    const int64_t work = (int64_t)(A->n_rows - j0) * (W - w0);
#pragma omp parallel for schedule(static) if (work > (1 << 16))
    for (int32_t j = j0; j < A->n_rows; j++) {
      uint32_t *q = A->w + (int64_t)j * W;
      if (j == r || !(q[w0] & bit)) continue;
      for (int32_t k = w0; k < W; k++) q[k] ^= p[k];
    }
    if (pivcol) pivcol[r] = c;
    r++;
  }
  *rank = r;
}

em_err em_gf2_echelon(em_gf2 *A, int reduced, em_backend backend, int32_t *rank, int32_t *pivcol) {
  EM_CHECK(A && rank, EM_ERR_ARG, "GF(2) echelon: NULL matrix or rank");
  if (backend == EM_BACKEND_CUDA) {
#ifdef EM_HAVE_CUDA
    EM_TRY(em_gf2_echelon_cuda(A, reduced, rank, pivcol, NULL));
    return EM_OK;
#else
    return EM_RAISE(EM_ERR_UNSUPPORTED, "GF(2) elimination on the GPU: built without CUDA");
#endif
  }
  gf2_echelon_cpu(A, reduced, rank, pivcol);
  return EM_OK;
}

em_err em_gf2_rank(const em_gf2 *A, em_backend backend, int32_t *rank) {
  em_gf2 *B = NULL;
  EM_TRY(em_gf2_copy(A, &B));
  em_err err = em_gf2_echelon(B, 0, backend, rank, NULL);
  em_gf2_destroy(&B);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* [A | b] to reduced echelon form: b is in the range of A unless a pivot
 * falls in the last column; then x_{pivcol[r]} = (row r's last bit). */
em_err em_gf2_solve(const em_gf2 *A, const uint32_t *b, em_backend backend, uint32_t *x,
                    int *solvable) {
  EM_CHECK(A && b && x && solvable, EM_ERR_ARG, "GF(2) solve: a NULL argument");
  const int32_t n = A->n_cols;
  em_gf2 *Ab = NULL;
  int32_t *piv = NULL, rank = 0;
  EM_TRY(em_gf2_create(A->n_rows, n + 1, &Ab));
  em_err err = em_calloc(&piv, (size_t)A->n_rows + 1, sizeof *piv, "GF(2) pivot columns");
  for (int32_t i = 0; !err && i < A->n_rows; i++) {
    uint32_t *row = Ab->w + (int64_t)i * Ab->words;
    memcpy(row, A->w + (int64_t)i * A->words, (size_t)A->words * sizeof *row);
    if ((b[i / 32] >> (i % 32)) & 1) em_gf2_flip(Ab, i, n);
  }
  if (!err) err = em_gf2_echelon(Ab, 1, backend, &rank, piv);
  if (!err) {
    memset(x, 0, (size_t)A->words * sizeof *x);
    *solvable = !(rank > 0 && piv[rank - 1] == n);
    for (int32_t r = 0; *solvable && r < rank; r++)
      if (em_gf2_get(Ab, r, n)) x[piv[r] / 32] |= 1u << (piv[r] % 32);
  }
  em_free(&piv);
  em_gf2_destroy(&Ab);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
