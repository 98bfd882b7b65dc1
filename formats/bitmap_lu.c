/* bitmap_lu.c - LU factorization without pivoting of a square CPU bitmap
 * matrix, A = L U with L unit lower triangular and U upper triangular, both
 * returned in one bitmap (L below the diagonal, U on and above): the CPU
 * reference of the bitmap LU.
 *
 * Row by row (Doolittle, up-looking): row i of A is scattered into a dense
 * accumulator with one 64-bit mask per column word; then for the stored
 * columns k < i in ascending order
 *   l_ik = w_k / u_kk,   w_j -= l_ik u_kj  for the stored u_kj, j > k,
 * where each u_kj ORs its bit into the masks (fill), so a fill column
 * between k and i is met later in the same ascending sweep.  The row is
 * written in word order; rows k < i are read back from the result.  A zero
 * (or unstored) pivot u_ii is an EM_ERR_NUMERIC error naming the row. */
#include <stdlib.h>
#include <string.h>

#include "bitmap_gpu.h"

static int lu_cmp_i32(const void *p, const void *q) {
  int32_t x = *(const int32_t *)p, y = *(const int32_t *)q;
  return (x > y) - (x < y);
}

/* room for at least `need` more words and values in the growing result */
static em_err lu_grow(em_bitmap *c, int64_t *cap_w, int64_t *cap_v, int64_t need_w,
                      int64_t need_v) {
  if (c->n_words + need_w > *cap_w) {
    *cap_w = 2 * (c->n_words + need_w);
    EM_TRY(em_realloc(&c->widx, (size_t)*cap_w, sizeof *c->widx, "LU word indices"));
    EM_TRY(em_realloc(&c->mask, (size_t)*cap_w, sizeof *c->mask, "LU masks"));
  }
  if (c->nnz + need_v > *cap_v) {
    *cap_v = 2 * (c->nnz + need_v);
    EM_TRY(em_realloc(&c->val, (size_t)*cap_v, sizeof(em_cplx), "LU values"));
  }
  return EM_OK;
}

/* row i: eliminate with rows k < i of c (already factored) */
static em_err lu_row(const em_bitmap *a, em_bitmap *c, int32_t i, em_cplx *acc, uint64_t *wmask,
                     int32_t *touched, int64_t *cap_w, int64_t *cap_v) {
  const em_cplx *av = a->val;
  em_cplx *cv = c->val;
  int64_t nt = 0, pa = a->vptr[i];
  /* fill only lands right of a column already met: no set word left of A's first */
  const int32_t lo = a->wptr[i] < a->wptr[i + 1] ? a->widx[a->wptr[i]] : (i >> 6) + 1;
  for (int64_t w = a->wptr[i]; w < a->wptr[i + 1]; w++) { /* scatter A(i, :) */
    const int32_t wi = a->widx[w];
    if (!wmask[wi]) touched[nt++] = wi;
    wmask[wi] |= a->mask[w];
    for (uint64_t m = a->mask[w]; m; m &= m - 1)
      acc[(int64_t)wi * 64 + __builtin_ctzll(m)] = av[pa++];
  }
  for (int32_t wk = lo; wk <= i >> 6; wk++) { /* columns k < i, ascending, fill included */
    const uint64_t below = wk < i >> 6 ? ~0ull : ((1ull << (i & 63)) - 1);
    uint64_t done = 0, m;
    while ((m = wmask[wk] & below & ~done)) {
      const uint64_t bit = m & (~m + 1);
      done |= bit;
      const int32_t k = wk * 64 + __builtin_ctzll(bit);
      /* row k's U part: words from k's word on; its diagonal first */
      int64_t w = c->wptr[k], p = c->vptr[k];
      while (c->widx[w] < wk) p += __builtin_popcountll(c->mask[w++]);
      p += __builtin_popcountll(c->mask[w] & (bit - 1));
      const em_cplx l = acc[k] / cv[p++];
      acc[k] = l;
      for (uint64_t um = c->mask[w] & ~(bit | (bit - 1)); um; um &= um - 1) {
        acc[(int64_t)wk * 64 + __builtin_ctzll(um)] -= l * cv[p++];
        wmask[wk] |= um & (~um + 1);
      }
      for (w++; w < c->wptr[k + 1]; w++) {
        const int32_t wj = c->widx[w];
        if (!wmask[wj]) touched[nt++] = wj;
        wmask[wj] |= c->mask[w];
        for (uint64_t um = c->mask[w]; um; um &= um - 1)
          acc[(int64_t)wj * 64 + __builtin_ctzll(um)] -= l * cv[p++];
      }
    }
  }
  EM_CHECK(((wmask[i >> 6] >> (i & 63)) & 1) && acc[i] != 0, EM_ERR_NUMERIC,
           "bitmap LU: zero pivot at row %d (no pivoting)", i);
  qsort(touched, (size_t)nt, sizeof *touched, lu_cmp_i32);
  int64_t nz = 0;
  for (int64_t t = 0; t < nt; t++) nz += __builtin_popcountll(wmask[touched[t]]);
  EM_TRY(lu_grow(c, cap_w, cap_v, nt, nz));
  cv = c->val;
  for (int64_t t = 0; t < nt; t++) { /* the row in word order, workspace cleared */
    const int32_t w = touched[t];
    c->widx[c->n_words] = w;
    c->mask[c->n_words++] = wmask[w];
    for (uint64_t m = wmask[w]; m; m &= m - 1) {
      em_cplx *e = acc + (int64_t)w * 64 + __builtin_ctzll(m);
      cv[c->nnz++] = *e;
      *e = 0;
    }
    wmask[w] = 0;
  }
  c->wptr[i + 1] = c->n_words;
  c->vptr[i + 1] = c->nnz;
  return EM_OK;
}

em_err em_bitmap_lu(const em_spmat *A, em_spmat **LU) {
  const em_bitmap *a = NULL;
  EM_CHECK(LU, EM_ERR_ARG, "em_bitmap_lu: NULL output");
  *LU = NULL;
  EM_TRY(em_bitmap_host(A, "em_bitmap_lu", &a));
  EM_CHECK(a->n_rows == a->n_cols, EM_ERR_ARG, "em_bitmap_lu: the matrix is %d x %d, not square",
           a->n_rows, a->n_cols);
  EM_CHECK(A->info.prec == EM_PREC_DOUBLE, EM_ERR_UNSUPPORTED,
           "em_bitmap_lu: complex double only (the matrix is single)");
  const int32_t n = a->n_rows, nw = (n + 63) / 64;
  em_bitmap *c = NULL;
  em_cplx *acc = NULL;
  uint64_t *wmask = NULL;
  int32_t *touched = NULL;
  int64_t cap_w = 0, cap_v = 0;
  em_err err = em_calloc(&c, 1, sizeof *c, "LU header");
  if (!err) {
    c->n_rows = c->n_cols = n;
    err = em_calloc(&c->wptr, (size_t)n + 1, sizeof *c->wptr, "LU word pointers");
  }
  if (!err) err = em_calloc(&c->vptr, (size_t)n + 1, sizeof *c->vptr, "LU value offsets");
  if (!err) err = em_calloc(&acc, (size_t)nw * 64 + 1, sizeof *acc, "LU accumulator");
  if (!err) err = em_calloc(&wmask, (size_t)nw + 1, sizeof *wmask, "LU word masks");
  if (!err) err = em_calloc(&touched, (size_t)nw + 1, sizeof *touched, "LU touched words");
  if (!err) err = lu_grow(c, &cap_w, &cap_v, a->n_words + 1, a->nnz + 1);
  for (int32_t i = 0; !err && i < n; i++)
    err = lu_row(a, c, i, acc, wmask, touched, &cap_w, &cap_v);
  if (!err) err = em_bitmap_wrap(&c, EM_PREC_DOUBLE, LU);
  em_bitmap_free(&c);
  em_free(&acc);
  em_free(&wmask);
  em_free(&touched);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
