/* bitmap_cpu_tmpl.h - bitmap kernels for one scalar type, included by
 * bitmap_cpu.c and bitmap_ops.c with BM_T (the complex type) and BM_FN(name)
 * (name with the precision's suffix) defined. */

/* y_i = (acc ? y_i : 0) + sum over the set bits b of row i's words w of
 * val[p++] x[64 widx[w] + b], p running from vptr[i] in bit order. */
static void BM_FN(spmv)(const em_bitmap *bm, const BM_T *x, BM_T *y, int acc) {
  const BM_T *val = (const BM_T *)bm->val;
#pragma omp parallel for schedule(static) if (bm->nnz > EM_FMT_OMP_MIN)
  for (int32_t i = 0; i < bm->n_rows; i++) {
    BM_T s = 0;
    int64_t p = bm->vptr[i];
    for (int64_t w = bm->wptr[i]; w < bm->wptr[i + 1]; w++) {
      const BM_T *xw = x + (int64_t)bm->widx[w] * 64;
      for (uint64_t m = bm->mask[w]; m; m &= m - 1) s += val[p++] * xw[__builtin_ctzll(m)];
    }
    y[i] = acc ? y[i] + s : s;
  }
}
