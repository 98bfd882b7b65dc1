/* hyb_cpu_tmpl.h - the HYB / HEC host kernels for one scalar type, included
 * by hyb_cpu.c once per precision with HYB_T (the complex type) and
 * HYB_FN(name) (name with the precision's suffix) defined. */

/* y_i = (acc ? y_i : 0) + sum_{k < len_i} val[k pitch + i] x[col[k pitch + i]].
 * Rows go in tiles of HYB_TILE so that each ELL column is read contiguously
 * (the layout is column-major for the GPU's coalescing). */
static void HYB_FN(ell)(const em_hyb *H, const HYB_T *x, HYB_T *y, int acc) {
  const HYB_T *val = (const HYB_T *)H->ell_val;
  const int32_t n = H->n_rows;
  const int64_t ntile = ((int64_t)n + HYB_TILE - 1) / HYB_TILE;
#pragma omp parallel for schedule(static) if ((int64_t)n * H->K > EM_FMT_OMP_MIN)
  for (int64_t t = 0; t < ntile; t++) {
    HYB_T s[HYB_TILE];
    const int32_t i0 = (int32_t)(t * HYB_TILE);
    const int32_t i1 = n - i0 < HYB_TILE ? n : i0 + HYB_TILE;
    int32_t kmax = 0;
    for (int32_t i = i0; i < i1; i++) {
      s[i - i0] = 0;
      if (H->ell_len[i] > kmax) kmax = H->ell_len[i];
    }
    for (int32_t k = 0; k < kmax; k++) {
      const int64_t o = (int64_t)k * H->pitch;
      for (int32_t i = i0; i < i1; i++)
        if (k < H->ell_len[i]) s[i - i0] += val[o + i] * x[H->ell_col[o + i]];
    }
    for (int32_t i = i0; i < i1; i++) y[i] = acc ? y[i] + s[i - i0] : s[i - i0];
  }
}

/* COO tail, y += T x: chunk w sums its rows in order; a row inside the chunk
 * goes straight to y, the chunk's first and last rows to carry[2w] and
 * carry[2w+1]; then each boundary row adds its carries in slot order. */
static void HYB_FN(coo)(const em_hyb *H, const HYB_T *x, HYB_T *y) {
  const HYB_T *val = (const HYB_T *)H->coo_val;
  HYB_T *carry = (HYB_T *)H->carry;
  const int64_t t = H->tail_nnz;
#pragma omp parallel for schedule(static) if (t > EM_FMT_OMP_MIN)
  for (int64_t w = 0; w < H->n_chunk; w++) {
    const int64_t b = w * EM_HYB_CHUNK, e = t - b < EM_HYB_CHUNK ? t : b + EM_HYB_CHUNK;
    const int32_t fr = H->coo_row[b], lr = H->coo_row[e - 1];
    if (fr == lr) carry[2 * w + 1] = 0;
    int32_t r = fr;
    HYB_T s = 0;
    for (int64_t k = b; k <= e; k++) {
      if (k == e || H->coo_row[k] != r) {
        if (r == fr)
          carry[2 * w] = s;
        else if (r == lr)
          carry[2 * w + 1] = s;
        else
          y[r] += s;
        if (k == e) break;
        r = H->coo_row[k];
        s = 0;
      }
      s += val[k] * x[H->coo_col[k]];
    }
  }
#pragma omp parallel for schedule(static) if (H->n_bnd > EM_FMT_OMP_MIN)
  for (int64_t q = 0; q < H->n_bnd; q++) {
    HYB_T s = 0;
    for (int64_t p = H->bnd_ptr[q]; p < H->bnd_ptr[q + 1]; p++) s += carry[p];
    y[H->bnd_row[q]] += s;
  }
}

/* HEC tail, y += T x: one task per overflowing row. */
static void HYB_FN(hec)(const em_hyb *H, const HYB_T *x, HYB_T *y) {
  const HYB_T *val = (const HYB_T *)H->rem_val;
#pragma omp parallel for schedule(dynamic, 64) if (H->tail_nnz > EM_FMT_OMP_MIN)
  for (int32_t q = 0; q < H->n_rem; q++) {
    HYB_T s = 0;
    for (int64_t k = H->rem_ptr[q]; k < H->rem_ptr[q + 1]; k++) s += val[k] * x[H->rem_col[k]];
    y[H->rem_row[q]] += s;
  }
}

/* y = A x (acc == 0) or y += A x: the ELL part writes or accumulates every
 * row, then the tail adds its entries. */
static void HYB_FN(spmv)(const em_hyb *H, const HYB_T *x, HYB_T *y, int acc) {
  if (!acc || H->K > 0) HYB_FN(ell)(H, x, y, acc);
  if (H->tail_nnz == 0) return;
  if (H->hec)
    HYB_FN(hec)(H, x, y);
  else
    HYB_FN(coo)(H, x, y);
}
