/* bitmap.c - the bitmap format from CSR, the spmat plumbing, and the front
 * ends of the bitmap's own operations (argument checks, then the backend's
 * em_bitmap_xops).  Layout in bitmap_impl.h. */
#include <string.h>

#include "bitmap_impl.h"

/* wptr + vptr (8 bytes a row each), 12 bytes a word, one value an entry. */
size_t em_bitmap_bytes(const em_bitmap *bm, em_prec p) {
  return 2 * ((size_t)bm->n_rows + 1) * sizeof(int64_t) +
         (size_t)bm->n_words * (sizeof(int32_t) + sizeof(uint64_t)) +
         (size_t)bm->nnz * em_prec_size(p);
}

/* Free the arrays of a bitmap that live on backend be, and the header. */
static void bitmap_release(em_bitmap **bm, const em_fmt_backend *be) {
  if (!*bm) return;
  be->release(&(*bm)->wptr);
  be->release(&(*bm)->widx);
  be->release(&(*bm)->mask);
  be->release(&(*bm)->vptr);
  be->release(&(*bm)->val);
  em_free(bm);
}

/* A host bitmap (built by add / mul, not yet wrapped). */
void em_bitmap_free(em_bitmap **bm) {
  bitmap_release(bm, &em_fmt_backend_cpu);
}

/* The spmat's destroy: arrays where they live, then the header. */
void em_bitmap_destroy(em_spmat *M) {
  em_bitmap *bm = M->data;
  bitmap_release(&bm, M->be);
  M->data = NULL;
}

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
  M->be = &em_fmt_backend_cpu;
  M->ops = em_fmt_backend_cpu.ops[EM_FMT_BITMAP];
  M->data = *bm;
  *bm = NULL;
  *Mout = M;
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
  size_t n1 = (size_t)A->n_rows + 1;
  EM_TRY(em_calloc(&bm, 1, sizeof *bm, "bitmap header"));
  M->data = bm; /* from here on, a failure is cleaned up by em_bitmap_destroy */
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
  EM_TRY_GOTO(err, em_fmt_place(M, &h.wptr, n1 * 8, &bm->wptr, "bitmap word pointers"), done);
  EM_TRY_GOTO(err, em_fmt_place(M, &h.widx, nw * 4, &bm->widx, "bitmap word indices"), done);
  EM_TRY_GOTO(err, em_fmt_place(M, &h.mask, nw * 8, &bm->mask, "bitmap masks"), done);
  EM_TRY_GOTO(err, em_fmt_place(M, &h.vptr, n1 * 8, &bm->vptr, "bitmap value offsets"), done);
  EM_TRY_GOTO(err, em_fmt_place_vals(M, &hv, (size_t)A->nnz, &bm->val, "bitmap values"), done);
  M->info.stored = A->nnz;
  M->info.bytes = em_bitmap_bytes(bm, o->prec);
  M->info.threads_per_row = 0; /* the CUDA setup reports its warp per row */
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

/* M must be a bitmap whose backend has the bitmap operations. */
static em_err bitmap_xops(const em_spmat *M, const char *who, const em_bitmap_xops **x) {
  *x = NULL;
  EM_CHECK(M, EM_ERR_ARG, "%s: NULL matrix", who);
  EM_CHECK(M->info.format == EM_FMT_BITMAP, EM_ERR_ARG, "%s: the matrix is %s, not bitmap", who,
           em_format_name(M->info.format));
  EM_CHECK(M->be->bitmap, EM_ERR_UNSUPPORTED,
           "%s: works on CPU bitmaps only; this one lives on the GPU", who);
  *x = M->be->bitmap;
  return EM_OK;
}

em_err em_bitmap_get(const em_spmat *M, int32_t i, int32_t j, em_cplx *a) {
  const em_bitmap_xops *x = NULL;
  EM_TRY(bitmap_xops(M, "em_bitmap_get", &x));
  EM_CHECK(a, EM_ERR_ARG, "em_bitmap_get: NULL output");
  EM_CHECK(i >= 0 && i < M->info.n_rows, EM_ERR_ARG, "em_bitmap_get: row %d outside 0..%d", i,
           M->info.n_rows - 1);
  EM_CHECK(j >= 0 && j < M->info.n_cols, EM_ERR_ARG, "em_bitmap_get: column %d outside 0..%d", j,
           M->info.n_cols - 1);
  return x->get(M, i, j, a);
}

em_err em_bitmap_to_csr(const em_spmat *M, em_csr **A) {
  EM_CHECK(A, EM_ERR_ARG, "em_bitmap_to_csr: NULL output");
  *A = NULL;
  const em_bitmap_xops *x = NULL;
  EM_TRY(bitmap_xops(M, "em_bitmap_to_csr", &x));
  return x->to_csr(M, A);
}

/* Arguments of a binary operation: two bitmaps on one backend in one
 * precision. */
static em_err bitmap_operands(const em_spmat *A, const em_spmat *B, em_spmat **C, const char *who,
                              const em_bitmap_xops **x) {
  EM_CHECK(C, EM_ERR_ARG, "%s: NULL output", who);
  *C = NULL;
  const em_bitmap_xops *xb = NULL;
  EM_TRY(bitmap_xops(A, who, x));
  EM_TRY(bitmap_xops(B, who, &xb));
  EM_CHECK(A->be == B->be, EM_ERR_ARG, "%s: A and B live on different backends", who);
  EM_CHECK(A->info.prec == B->info.prec, EM_ERR_ARG,
           "%s: A is complex %s and B complex %s; convert one first", who,
           A->info.prec == EM_PREC_SINGLE ? "single" : "double",
           B->info.prec == EM_PREC_SINGLE ? "single" : "double");
  return EM_OK;
}

em_err em_bitmap_add(const em_spmat *A, const em_spmat *B, em_spmat **C) {
  const em_bitmap_xops *x = NULL;
  EM_TRY(bitmap_operands(A, B, C, "em_bitmap_add", &x));
  EM_CHECK(A->info.n_rows == B->info.n_rows && A->info.n_cols == B->info.n_cols, EM_ERR_ARG,
           "em_bitmap_add: A is %d x %d but B is %d x %d", A->info.n_rows, A->info.n_cols,
           B->info.n_rows, B->info.n_cols);
  return x->add(A, B, C);
}

em_err em_bitmap_mul(const em_spmat *A, const em_spmat *B, em_spmat **C) {
  const em_bitmap_xops *x = NULL;
  EM_TRY(bitmap_operands(A, B, C, "em_bitmap_mul", &x));
  EM_CHECK(A->info.n_cols == B->info.n_rows, EM_ERR_ARG,
           "em_bitmap_mul: A is %d x %d and B is %d x %d: inner sizes differ", A->info.n_rows,
           A->info.n_cols, B->info.n_rows, B->info.n_cols);
  return x->mul(A, B, C);
}

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
