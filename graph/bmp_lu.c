/* bmp_lu.c - LU without pivoting of a square patent bitmap (em_graph.h):
 *
 *   symbolic: row i's flags start as A's; for the stored columns k < i in
 *     ascending order (a cursor: a fill bit lands right of k, so it is met
 *     later in the same sweep) the U part of row k (its bits right of k)
 *     is ORed in - a word-wide OR, the reason for the dense flags;
 *   numeric (Doolittle, up-looking): row i scattered into a dense
 *     accumulator; for the stored k < i, l_ik = w_k / u_kk and
 *     w_j -= l_ik u_kj over row k's U entries; the row then written in
 *     flag order.  A zero pivot u_ii names row i. */
#include <complex.h>

#include "em_graph.h"

/* the lowest set bit of the row at column >= p and < end, or -1 */
static int32_t bmp_next(const uint64_t *f, int32_t p, int32_t end) {
  for (int32_t w = p / 64; 64 * w < end; w++) {
    uint64_t m = f[w] & (~0ull << (p > 64 * w ? p - 64 * w : 0));
    if (m) {
      int32_t j = 64 * w + __builtin_ctzll(m);
      return j < end ? j : -1;
    }
  }
  return -1;
}

static void bmp_lu_symbolic(em_bmp *lu, int32_t i) {
  uint64_t *f = lu->flag + (int64_t)i * lu->words;
  for (int32_t k = bmp_next(f, 0, i); k >= 0; k = bmp_next(f, k + 1, i)) {
    const uint64_t *u = lu->flag + (int64_t)k * lu->words;
    const int32_t w0 = (k + 1) / 64;
    if ((k + 1) % 64)
      f[w0] |= u[w0] & (~0ull << ((k + 1) % 64));
    else
      f[w0] |= u[w0];
    for (int32_t w = w0 + 1; w < lu->words; w++) f[w] |= u[w];
  }
}

static em_err bmp_lu_numeric(const em_bmp *a, em_bmp *lu, int32_t i, em_cplx *acc) {
  const uint64_t *fa = a->flag + (int64_t)i * a->words, *f = lu->flag + (int64_t)i * lu->words;
  int64_t ka = a->rs[i];
  for (int32_t w = 0; w < a->words; w++)
    for (uint64_t m = fa[w]; m; m &= m - 1) acc[64 * w + __builtin_ctzll(m)] = a->val[ka++];
  for (int32_t k = bmp_next(f, 0, i); k >= 0; k = bmp_next(f, k + 1, i)) {
    int64_t kk = em_bmp_index(lu, k, k); /* u_kk, then row k's U entries in order */
    const em_cplx l = acc[k] / lu->val[kk];
    acc[k] = l;
    const uint64_t *u = lu->flag + (int64_t)k * lu->words;
    const double lr = creal(l), li = cimag(l);
    const int32_t w0 = (k + 1) / 64; /* row k's U entries: the bits right of k */
    for (int32_t w = w0; w < lu->words; w++) {
      uint64_t m = w == w0 && (k + 1) % 64 ? u[w] & (~0ull << ((k + 1) % 64)) : u[w];
      for (; m; m &= m - 1) { /* acc_j -= l u_kj in real arithmetic (no __muldc3) */
        const em_cplx v = lu->val[++kk];
        double *a = (double *)&acc[64 * w + __builtin_ctzll(m)];
        a[0] -= lr * creal(v) - li * cimag(v);
        a[1] -= lr * cimag(v) + li * creal(v);
      }
    }
  }
  EM_CHECK(acc[i] != 0, EM_ERR_NUMERIC, "bitmap LU: zero pivot at row %d (no pivoting)", i);
  int64_t k = lu->rs[i];
  for (int32_t w = 0; w < lu->words; w++)
    for (uint64_t m = f[w]; m; m &= m - 1) {
      const int32_t j = 64 * w + __builtin_ctzll(m);
      lu->val[k++] = acc[j];
      acc[j] = 0;
    }
  return EM_OK;
}

em_err em_bmp_lu(const em_bmp *A, em_bmp **LU) {
  EM_CHECK(A && LU && A->val, EM_ERR_ARG, "bitmap LU: NULL or pattern-only matrix");
  EM_CHECK(A->n_rows == A->n_cols, EM_ERR_ARG, "bitmap LU of a %d x %d matrix", A->n_rows,
           A->n_cols);
  EM_TRY(em_bmp_create(A->n_rows, A->n_cols, LU));
  em_bmp *lu = *LU;
  em_err err = EM_OK;
  const int64_t nw = (int64_t)A->n_rows * A->words;
  for (int64_t q = 0; q < nw; q++) lu->flag[q] = A->flag[q];
  for (int32_t i = 0; i < A->n_rows; i++) {
    bmp_lu_symbolic(lu, i);
    if (!em_bmp_has(lu, i, i)) {
      err = EM_RAISE(EM_ERR_NUMERIC, "bitmap LU: no pivot stored at row %d (no pivoting)", i);
      break;
    }
  }
  em_cplx *acc = NULL;
  if (!err) err = em_bmp_finish(lu, 1);
  if (!err) err = em_calloc(&acc, (size_t)A->n_cols + 1, sizeof *acc, "bitmap LU row");
  for (int32_t i = 0; !err && i < A->n_rows; i++) err = bmp_lu_numeric(A, lu, i, acc);
  em_free(&acc);
  if (err) em_bmp_destroy(LU);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
