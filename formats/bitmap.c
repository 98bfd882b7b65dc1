/* bitmap.c - the bitmap format from CSR and back, random access by popcount,
 * and the spmat plumbing.  Layout in bitmap_impl.h. */
#include <string.h>

#include "bitmap_impl.h"

/* wptr + vptr (8 bytes a row each), 12 bytes a word, one value an entry. */
size_t em_bitmap_bytes(const em_bitmap *bm, em_prec p) {
  return 2 * ((size_t)bm->n_rows + 1) * sizeof(int64_t) +
         (size_t)bm->n_words * (sizeof(int32_t) + sizeof(uint64_t)) +
         (size_t)bm->nnz * em_prec_size(p);
}

/* y (+)= A x on the matrix's backend. */
static em_err bitmap_spmv(const em_spmat *M, const void *x, void *y, int accumulate, void *stream) {
  if (M->info.backend == EM_BACKEND_CUDA) {
#ifdef EM_HAVE_CUDA
    return em_bitmap_spmv_cuda(M, x, y, accumulate, stream);
#else
    return EM_RAISE(EM_ERR_UNSUPPORTED, "bitmap SpMV on CUDA: the CUDA backend is not built in");
#endif
  }
  (void)stream;
  return em_bitmap_spmv_cpu(M, x, y, accumulate);
}

/* Free the arrays of a bitmap that live on backend b, and the header. */
static void bitmap_release(em_bitmap **bm, em_backend b) {
  if (!*bm) return;
  em_fmt_release((void **)&(*bm)->wptr, b);
  em_fmt_release((void **)&(*bm)->widx, b);
  em_fmt_release((void **)&(*bm)->mask, b);
  em_fmt_release((void **)&(*bm)->vptr, b);
  em_fmt_release(&(*bm)->val, b);
  em_free(bm);
}

/* A host bitmap (built by add / mul, not yet wrapped). */
void em_bitmap_free(em_bitmap **bm) {
  bitmap_release(bm, EM_BACKEND_CPU);
}

/* The spmat's destroy: arrays where they live, then the header. */
static void bitmap_destroy(em_spmat *M) {
  em_bitmap *bm = M->data;
  bitmap_release(&bm, M->info.backend);
  M->data = NULL;
}

static const em_spmat_ops BITMAP_OPS = {bitmap_spmv, bitmap_destroy};

/* The spmat around a host bitmap: generic info, exact bytes, bitmap ops. */
em_err em_bitmap_wrap(em_bitmap **bm, em_prec p, em_spmat **Mout) {
  *Mout = NULL;
  em_spmat *M = NULL;
  em_err err = em_calloc(&M, 1, sizeof *M, "bitmap matrix");
  if (err) {
    em_bitmap_free(bm);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  M->info.format = EM_FMT_BITMAP;
  M->info.backend = EM_BACKEND_CPU;
  M->info.prec = p;
  M->info.n_rows = (*bm)->n_rows;
  M->info.n_cols = (*bm)->n_cols;
  M->info.nnz = (*bm)->nnz;
  M->info.stored = (*bm)->nnz;
  M->info.bytes = em_bitmap_bytes(*bm, p);
  M->ops = &BITMAP_OPS;
  M->data = *bm;
  *bm = NULL;
  *Mout = M;
  return EM_OK;
}

/* The extras need the host arrays: only a CPU bitmap has them. */
em_err em_bitmap_host(const em_spmat *M, const char *who, const em_bitmap **bm) {
  *bm = NULL;
  EM_CHECK(M, EM_ERR_ARG, "%s: NULL matrix", who);
  EM_CHECK(M->info.format == EM_FMT_BITMAP, EM_ERR_ARG, "%s: the matrix is %s, not bitmap", who,
           em_format_name(M->info.format));
  EM_CHECK(M->info.backend == EM_BACKEND_CPU, EM_ERR_UNSUPPORTED,
           "%s: works on CPU bitmaps only; this one lives on the GPU", who);
  *bm = M->data;
  return EM_OK;
}

/* The builder's checks: row pointers from 0 to nnz, columns in range and
 * strictly rising within each row (the bitmap stores values in column order
 * and cannot hold a column twice). */
static em_err bitmap_check_csr(const em_csr *A) {
  EM_CHECK(A->rowptr && (A->nnz == 0 || (A->colind && A->val)), EM_ERR_ARG,
           "bitmap: the CSR matrix has no arrays");
  EM_CHECK(A->rowptr[0] == 0 && A->rowptr[A->n_rows] == A->nnz, EM_ERR_ARG,
           "bitmap: row pointers run from %lld to %lld, not 0 to nnz = %lld",
           (long long)A->rowptr[0], (long long)A->rowptr[A->n_rows], (long long)A->nnz);
  for (int32_t i = 0; i < A->n_rows; i++) {
    EM_CHECK(A->rowptr[i] <= A->rowptr[i + 1], EM_ERR_ARG,
             "bitmap: row pointers decrease at row %d", i);
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      EM_CHECK(A->colind[k] >= 0 && A->colind[k] < A->n_cols, EM_ERR_ARG,
               "bitmap: row %d has column %d outside 0..%d", i, A->colind[k], A->n_cols - 1);
      EM_CHECK(k == A->rowptr[i] || A->colind[k - 1] < A->colind[k], EM_ERR_ARG,
               "bitmap: row %d has columns out of order or repeated (%d after %d)", i, A->colind[k],
               A->colind[k - 1]);
    }
  }
  return EM_OK;
}

/* Words of a CSR: one per run of columns with the same c / 64. */
static em_err bitmap_words(const em_csr *A, em_bitmap *h) {
  int64_t nw = 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    h->wptr[i] = nw;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (k == A->rowptr[i] || A->colind[k] >> 6 != A->colind[k - 1] >> 6) nw++;
  }
  h->wptr[A->n_rows] = nw;
  h->n_words = nw;
  EM_TRY(em_calloc(&h->widx, (size_t)nw, sizeof *h->widx, "bitmap word indices"));
  EM_TRY(em_calloc(&h->mask, (size_t)nw, sizeof *h->mask, "bitmap masks"));
  int64_t w = -1;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      if (k == A->rowptr[i] || A->colind[k] >> 6 != A->colind[k - 1] >> 6)
        h->widx[++w] = A->colind[k] >> 6;
      h->mask[w] |= 1ULL << (A->colind[k] & 63);
    }
  return EM_OK;
}

/* Bitmap from CSR: words and masks from the column runs, values and row
 * offsets copied (the CSR's value order is already column order). */
em_err em_fmt_bitmap_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  EM_CHECK(A && o && M, EM_ERR_ARG, "em_fmt_bitmap_build: NULL argument");
  EM_TRY(bitmap_check_csr(A));
  em_err err = EM_OK;
  em_bitmap h = {0}, *bm = NULL;
  em_cplx *hv = NULL;
  em_backend b = o->backend;
  size_t n1 = (size_t)A->n_rows + 1;
  EM_TRY(em_calloc(&bm, 1, sizeof *bm, "bitmap header"));
  M->data = bm;
  M->ops = &BITMAP_OPS; /* from here on, a failure is cleaned up by bitmap_destroy */
  bm->n_rows = h.n_rows = A->n_rows;
  bm->n_cols = h.n_cols = A->n_cols;
  bm->nnz = h.nnz = A->nnz;
  EM_TRY_GOTO(err, em_calloc(&h.wptr, n1, sizeof *h.wptr, "bitmap word pointers"), done);
  EM_TRY_GOTO(err, em_calloc(&h.vptr, n1, sizeof *h.vptr, "bitmap value offsets"), done);
  EM_TRY_GOTO(err, bitmap_words(A, &h), done);
  bm->n_words = h.n_words;
  memcpy(h.vptr, A->rowptr, n1 * sizeof *h.vptr);
  EM_TRY_GOTO(err, em_calloc(&hv, (size_t)A->nnz, sizeof *hv, "bitmap values"), done);
  if (A->nnz > 0) memcpy(hv, A->val, (size_t)A->nnz * sizeof *hv);
  size_t nw = (size_t)h.n_words;
  EM_TRY_GOTO(err,
              em_fmt_place((void **)&h.wptr, n1 * 8, b, (void **)&bm->wptr, "bitmap word pointers"),
              done);
  EM_TRY_GOTO(err,
              em_fmt_place((void **)&h.widx, nw * 4, b, (void **)&bm->widx, "bitmap word indices"),
              done);
  EM_TRY_GOTO(err, em_fmt_place((void **)&h.mask, nw * 8, b, (void **)&bm->mask, "bitmap masks"),
              done);
  EM_TRY_GOTO(err,
              em_fmt_place((void **)&h.vptr, n1 * 8, b, (void **)&bm->vptr, "bitmap value offsets"),
              done);
  EM_TRY_GOTO(err, em_fmt_place_vals(&hv, (size_t)A->nnz, o->prec, b, &bm->val, "bitmap values"),
              done);
  M->info.stored = A->nnz;
  M->info.bytes = em_bitmap_bytes(bm, o->prec);
  M->info.threads_per_row = b == EM_BACKEND_CUDA ? 32 : 0; /* a warp per row on the GPU */
  M->info.slice_rows = 0;
  M->info.ell_width = 0;
done:
  em_free(&h.wptr);
  em_free(&h.widx);
  em_free(&h.mask);
  em_free(&h.vptr);
  em_free(&hv);
  return err;
}

/* a(i, j) = val[vptr[i] + popcount(earlier words of row i)
 *                       + popcount(mask of j's word below bit j % 64)],
 * the word found by binary search; 0 when (i, j) is not stored. */
em_err em_bitmap_get(const em_spmat *M, int32_t i, int32_t j, em_cplx *a) {
  const em_bitmap *bm = NULL;
  EM_TRY(em_bitmap_host(M, "em_bitmap_get", &bm));
  EM_CHECK(a, EM_ERR_ARG, "em_bitmap_get: NULL output");
  EM_CHECK(i >= 0 && i < bm->n_rows, EM_ERR_ARG, "em_bitmap_get: row %d outside 0..%d", i,
           bm->n_rows - 1);
  EM_CHECK(j >= 0 && j < bm->n_cols, EM_ERR_ARG, "em_bitmap_get: column %d outside 0..%d", j,
           bm->n_cols - 1);
  *a = 0;
  int64_t lo = bm->wptr[i], hi = bm->wptr[i + 1]; /* search widx[lo..hi) for j / 64 */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (bm->widx[mid] < j >> 6)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint64_t bit = 1ULL << (j & 63);
  if (lo == bm->wptr[i + 1] || bm->widx[lo] != j >> 6 || !(bm->mask[lo] & bit)) return EM_OK;
  int64_t p = bm->vptr[i] + __builtin_popcountll(bm->mask[lo] & (bit - 1));
  for (int64_t w = bm->wptr[i]; w < lo; w++) p += __builtin_popcountll(bm->mask[w]);
  if (M->info.prec == EM_PREC_SINGLE)
    *a = ((const em_cplxf *)bm->val)[p];
  else
    *a = ((const em_cplx *)bm->val)[p];
  return EM_OK;
}

/* CSR in complex double: set bits in order give the columns. */
em_err em_bitmap_to_csr(const em_spmat *M, em_csr **Aout) {
  const em_bitmap *bm = NULL;
  EM_CHECK(Aout, EM_ERR_ARG, "em_bitmap_to_csr: NULL output");
  *Aout = NULL;
  EM_TRY(em_bitmap_host(M, "em_bitmap_to_csr", &bm));
  em_csr *A = NULL;
  EM_TRY(em_csr_create(bm->n_rows, bm->n_cols, bm->nnz, &A));
  memcpy(A->rowptr, bm->vptr, ((size_t)bm->n_rows + 1) * sizeof *A->rowptr);
  int64_t p = 0;
  for (int64_t w = 0; w < bm->n_words; w++)
    for (uint64_t m = bm->mask[w]; m; m &= m - 1)
      A->colind[p++] = bm->widx[w] * 64 + __builtin_ctzll(m);
  for (int64_t k = 0; k < bm->nnz; k++)
    A->val[k] = M->info.prec == EM_PREC_SINGLE ? (em_cplx)((const em_cplxf *)bm->val)[k]
                                               : ((const em_cplx *)bm->val)[k];
  *Aout = A;
  return EM_OK;
}
