/* bmp_ops.c - sum, difference and product of patent bitmaps: the pattern
 * is formed word by word (OR), the values then written in the flag order
 * (row starts from popcounts). */
#include <complex.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "em_graph.h"

/* rows with less work than this stay on one thread */
#define BMP_OMP_MIN 4096

em_err em_bmp_add(const em_bmp *A, const em_bmp *B, double beta, em_bmp **C) {
  EM_CHECK(A && B && C, EM_ERR_ARG, "bitmap sum: NULL");
  EM_CHECK(A->n_rows == B->n_rows && A->n_cols == B->n_cols, EM_ERR_ARG,
           "bitmap sum: %d x %d and %d x %d", A->n_rows, A->n_cols, B->n_rows, B->n_cols);
  EM_TRY(em_bmp_create(A->n_rows, A->n_cols, C));
  em_bmp *c = *C;
  const int64_t nw = (int64_t)A->n_rows * A->words;
  for (int64_t q = 0; q < nw; q++) c->flag[q] = A->flag[q] | B->flag[q];
  const int vals = A->val && B->val;
  em_err err = em_bmp_finish(c, vals);
  if (err) em_bmp_destroy(C);
  if (err || !vals) return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
    /* c_ij = a_ij + beta b_ij along the union, each operand's values in order */
#pragma omp parallel for schedule(static) if (A->n_rows > BMP_OMP_MIN)
  for (int32_t i = 0; i < A->n_rows; i++) {
    int64_t ka = A->rs[i], kb = B->rs[i], kc = c->rs[i];
    for (int32_t w = 0; w < A->words; w++) {
      const uint64_t ma = A->flag[(int64_t)i * A->words + w],
                     mb = B->flag[(int64_t)i * B->words + w];
      for (uint64_t m = ma | mb; m; m &= m - 1) {
        const uint64_t bit = m & -m;
        em_cplx v = 0;
        if (ma & bit) v += A->val[ka++];
        if (mb & bit) v += beta * B->val[kb++];
        c->val[kc++] = v;
      }
    }
  }
  return EM_OK;
}

/* row i of C: flags OR of B's rows k over a(i, k); values through acc */
static void bmp_mul_row(const em_bmp *A, const em_bmp *B, em_bmp *c, int32_t i, em_cplx *acc,
                        int pass) {
  const uint64_t *fa = A->flag + (int64_t)i * A->words;
  uint64_t *fc = c->flag + (int64_t)i * c->words;
  int64_t ka = A->rs[i];
  for (int32_t w = 0; w < A->words; w++)
    for (uint64_t m = fa[w]; m; m &= m - 1) {
      const int32_t k = 64 * w + __builtin_ctzll(m);
      const uint64_t *fb = B->flag + (int64_t)k * B->words;
      if (pass == 0) {
        for (int32_t v = 0; v < B->words; v++) fc[v] |= fb[v];
        continue;
      }
      const em_cplx a = A->val[ka++];
      int64_t kb = B->rs[k];
      for (int32_t v = 0; v < B->words; v++)
        for (uint64_t mm = fb[v]; mm; mm &= mm - 1)
          acc[64 * v + __builtin_ctzll(mm)] += a * B->val[kb++];
    }
  if (pass == 0) return;
  int64_t kc = c->rs[i];
  for (int32_t v = 0; v < c->words; v++)
    for (uint64_t mm = fc[v]; mm; mm &= mm - 1) {
      const int32_t j = 64 * v + __builtin_ctzll(mm);
      c->val[kc++] = acc[j];
      acc[j] = 0;
    }
}

em_err em_bmp_mul(const em_bmp *A, const em_bmp *B, em_bmp **C) {
  EM_CHECK(A && B && C, EM_ERR_ARG, "bitmap product: NULL");
  EM_CHECK(A->n_cols == B->n_rows, EM_ERR_ARG, "bitmap product: %d x %d times %d x %d", A->n_rows,
           A->n_cols, B->n_rows, B->n_cols);
  EM_TRY(em_bmp_create(A->n_rows, B->n_cols, C));
  em_bmp *c = *C;
  const int vals = A->val && B->val, par = A->n_rows > BMP_OMP_MIN;
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int32_t i = 0; i < A->n_rows; i++) bmp_mul_row(A, B, c, i, NULL, 0);
  em_err err = em_bmp_finish(c, vals);
  int nt = 1;
#ifdef _OPENMP
  if (par) nt = omp_get_max_threads();
#endif
  em_cplx *acc = NULL;
  if (!err && vals)
    err = em_calloc(&acc, (size_t)nt * B->n_cols + 1, sizeof *acc, "bitmap product row");
  if (!err && vals) {
#pragma omp parallel if (par)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num();
#endif
#pragma omp for schedule(dynamic, 64)
      for (int32_t i = 0; i < A->n_rows; i++)
        bmp_mul_row(A, B, c, i, acc + (size_t)t * B->n_cols, 1);
    }
  }
  em_free(&acc);
  if (err) em_bmp_destroy(C);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
