/* hyb.c - HYB (ELL + COO) and HEC (ELL + CSR) from a host CSR: the ELL
 * width, the ELL part, the tail, the chunk boundaries of the COO tail, and
 * the exact memory count.  Layout and reasons in hyb_impl.h. */
#include <math.h>

#include "hyb_impl.h"

/* K = max { K : sum_{k=1..K} c_k > K n / 2 }, c_k = rows of length >= k.
 * The fill of the first K columns, sum c_k / (K n), never grows with K
 * (c_k does not), so "grow K while the fill exceeds 1/2" stops at the first
 * K that fails and that is the largest K that passes. */
em_err em_hyb_auto_width(const em_csr *A, int32_t *K) {
  *K = 0;
  int32_t n = A->n_rows;
  if (n == 0) return EM_OK;
  int64_t maxlen = 0;
  for (int32_t i = 0; i < n; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > maxlen) maxlen = A->rowptr[i + 1] - A->rowptr[i];
  int64_t *cnt = NULL; /* cnt[l] = rows of length l */
  EM_TRY(em_calloc(&cnt, (size_t)maxlen + 1, sizeof *cnt, "HYB row-length histogram"));
  for (int32_t i = 0; i < n; i++) cnt[A->rowptr[i + 1] - A->rowptr[i]]++;
  int64_t ge = n, filled = 0; /* ge = c_k, filled = sum of c_1..c_k */
  for (int64_t k = 1; k <= maxlen; k++) {
    ge -= cnt[k - 1];
    filled += ge;
    if (2 * filled <= k * (int64_t)n) break;
    *K = (int32_t)k;
  }
  em_free(&cnt);
  return EM_OK;
}

/* Free every array where it lives, then the header. */
void em_hyb_destroy(em_spmat *M) {
  em_hyb *H = M->data;
  if (!H) return;
  void **arrays[] = {(void **)&H->ell_len, (void **)&H->ell_col, &H->ell_val,
                     (void **)&H->coo_row, (void **)&H->coo_col, &H->coo_val,
                     (void **)&H->bnd_row, (void **)&H->bnd_ptr, &H->carry,
                     (void **)&H->rem_row, (void **)&H->rem_ptr, (void **)&H->rem_col,
                     &H->rem_val};
  for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++) M->be->release(arrays[k]);
  em_free(&M->data);
}

/* Row lengths, checking what the kernels will index with: row pointers
 * rising from 0 to nnz, columns inside 0..n_cols-1. */
static em_err hyb_check_csr(const em_csr *A, int64_t *maxlen) {
  EM_CHECK(A->rowptr && (A->nnz == 0 || (A->colind && A->val)), EM_ERR_ARG,
           "HYB/HEC: the CSR matrix has no arrays");
  EM_CHECK(A->rowptr[0] == 0 && A->rowptr[A->n_rows] == A->nnz, EM_ERR_ARG,
           "HYB/HEC: row pointers run from %lld to %lld, not 0 to nnz = %lld",
           (long long)A->rowptr[0], (long long)A->rowptr[A->n_rows], (long long)A->nnz);
  *maxlen = 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    int64_t l = A->rowptr[i + 1] - A->rowptr[i];
    EM_CHECK(l >= 0, EM_ERR_ARG, "HYB/HEC: row pointers decrease at row %d", i);
    if (l > *maxlen) *maxlen = l;
  }
  for (int64_t k = 0; k < A->nnz; k++)
    EM_CHECK(A->colind[k] >= 0 && A->colind[k] < A->n_cols, EM_ERR_ARG,
             "HYB/HEC: entry %lld has column %d outside 0..%d", (long long)k, A->colind[k],
             A->n_cols - 1);
  return EM_OK;
}

/* The host arrays under construction (freed by the builder's exit). */
typedef struct {
  int32_t *len, *col, *row, *bnd_row, *rem_row;
  int64_t *bnd_ptr, *rem_ptr;
  em_cplx *val, *tval;
  int32_t *tcol;
} hyb_host;

/* The COO tail's chunk boundaries: slot 2w holds the first row of chunk w,
 * slot 2w+1 its last; runs of equal slot rows are the boundary rows. */
static em_err hyb_boundaries(em_hyb *H, hyb_host *h) {
  int64_t t = H->tail_nnz, nc = (t + EM_HYB_CHUNK - 1) / EM_HYB_CHUNK;
  H->n_chunk = nc;
  H->n_bnd = 0;
  EM_TRY(em_calloc(&h->bnd_row, (size_t)(2 * nc), sizeof *h->bnd_row, "HYB boundary rows"));
  EM_TRY(em_calloc(&h->bnd_ptr, (size_t)(2 * nc + 1), sizeof *h->bnd_ptr, "HYB boundary slots"));
  for (int64_t s = 0; s < 2 * nc; s++) {
    int64_t w = s / 2, e = (w + 1) * EM_HYB_CHUNK < t ? (w + 1) * EM_HYB_CHUNK : t;
    int32_t r = h->row[s % 2 == 0 ? w * EM_HYB_CHUNK : e - 1];
    if (H->n_bnd == 0 || h->bnd_row[H->n_bnd - 1] != r) {
      h->bnd_row[H->n_bnd] = r;
      h->bnd_ptr[H->n_bnd] = s;
      H->n_bnd++;
    }
  }
  h->bnd_ptr[H->n_bnd] = 2 * nc;
  /* trim to the rows found, so the host arrays are exactly what is counted */
  EM_TRY(em_realloc(&h->bnd_row, (size_t)H->n_bnd, sizeof *h->bnd_row, "HYB boundary rows"));
  EM_TRY(em_realloc(&h->bnd_ptr, (size_t)H->n_bnd + 1, sizeof *h->bnd_ptr, "HYB boundary slots"));
  return EM_OK;
}

/* Fill the ELL part and the tail (COO or CSR) on the host. */
static em_err hyb_fill(const em_csr *A, em_hyb *H, hyb_host *h) {
  int32_t n = A->n_rows, K = H->K;
  size_t slots = (size_t)K * (size_t)H->pitch;
  EM_TRY(em_calloc(&h->len, (size_t)n, sizeof *h->len, "HYB ELL row lengths"));
  EM_TRY(em_calloc(&h->col, slots, sizeof *h->col, "HYB ELL columns"));
  EM_TRY(em_calloc(&h->val, slots, sizeof *h->val, "HYB ELL values"));
  H->tail_nnz = 0;
  H->n_rem = 0;
  for (int32_t i = 0; i < n; i++) {
    int64_t b = A->rowptr[i], l = A->rowptr[i + 1] - b;
    h->len[i] = (int32_t)(l < K ? l : K);
    for (int64_t k = 0; k < h->len[i]; k++) {
      h->col[k * H->pitch + i] = A->colind[b + k];
      h->val[k * H->pitch + i] = A->val[b + k];
    }
    if (l > K) {
      H->tail_nnz += l - K;
      H->n_rem++;
    }
  }
  int64_t t = H->tail_nnz;
  if (t == 0) return EM_OK;
  EM_TRY(em_calloc(&h->tcol, (size_t)t, sizeof *h->tcol, "HYB tail columns"));
  EM_TRY(em_calloc(&h->tval, (size_t)t, sizeof *h->tval, "HYB tail values"));
  if (H->hec) {
    EM_TRY(em_calloc(&h->rem_row, (size_t)H->n_rem, sizeof *h->rem_row, "HEC tail rows"));
    EM_TRY(em_calloc(&h->rem_ptr, (size_t)H->n_rem + 1, sizeof *h->rem_ptr, "HEC tail pointers"));
  } else {
    EM_TRY(em_calloc(&h->row, (size_t)t, sizeof *h->row, "HYB COO rows"));
  }
  int64_t p = 0;
  int32_t q = 0;
  for (int32_t i = 0; i < n; i++) {
    if (A->rowptr[i + 1] - A->rowptr[i] <= K) continue;
    if (H->hec) {
      h->rem_row[q] = i;
      h->rem_ptr[q++] = p;
    }
    for (int64_t k = A->rowptr[i] + K; k < A->rowptr[i + 1]; k++, p++) {
      if (!H->hec) h->row[p] = i;
      h->tcol[p] = A->colind[k];
      h->tval[p] = A->val[k];
    }
  }
  if (H->hec) h->rem_ptr[q] = p;
  if (!H->hec) EM_TRY(hyb_boundaries(H, h));
  return EM_OK;
}

/* The GPU lanes (the layout does not depend on them).  ELL part: T given
 * (above EM_HYB_MAX_T taken as it), else as sliced ELLR-T's rule on the
 * mean ELL row m = sum min(len, K) / n: the largest T <= EM_HYB_MAX_T with
 * m >= 16 T (16 slots per lane).  HEC tail: the largest power of two in
 * 4..32 not above the mean tail length, so that short tails do not leave
 * most of a warp idle. */
static void hyb_lanes(const em_csr *A, int T_given, em_hyb *H) {
  int64_t ell = 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    int64_t l = A->rowptr[i + 1] - A->rowptr[i];
    ell += l < H->K ? l : H->K;
  }
  double m = A->n_rows ? (double)ell / A->n_rows : 0;
  int T = 1;
  if (T_given > 0)
    T = T_given < EM_HYB_MAX_T ? T_given : EM_HYB_MAX_T;
  else
    while (2 * T <= EM_HYB_MAX_T && m >= 16.0 * 2 * T) T *= 2;
  H->T = T;
  double mt = H->n_rem ? (double)H->tail_nnz / H->n_rem : 0;
  int TT = 4;
  while (2 * TT <= 32 && mt >= 2 * TT) TT *= 2;
  H->TT = TT;
}

/* Move the host arrays to the backend and count their bytes exactly. */
static em_err hyb_place_all(const em_spmat *M, em_hyb *H, hyb_host *h, size_t *bytes) {
  const em_spmat_info *o = &M->info;
  size_t s = em_prec_size(o->prec), n = (size_t)H->n_rows, t = (size_t)H->tail_nnz;
  size_t slots = (size_t)H->K * (size_t)H->pitch;
  *bytes = n * 4 + slots * (4 + s);
  EM_TRY(em_fmt_place(M, &h->len, n * 4, &H->ell_len, "HYB ELL row lengths"));
  EM_TRY(em_fmt_place(M, &h->col, slots * 4, &H->ell_col, "HYB ELL columns"));
  EM_TRY(em_fmt_place_vals(M, &h->val, slots, &H->ell_val, "HYB ELL values"));
  if (t == 0) return EM_OK;
  if (H->hec) {
    size_t m = (size_t)H->n_rem;
    *bytes += m * 4 + (m + 1) * 8 + t * (4 + s);
    EM_TRY(em_fmt_place(M, &h->rem_row, m * 4, &H->rem_row, "HEC tail rows"));
    EM_TRY(em_fmt_place(M, &h->rem_ptr, (m + 1) * 8, &H->rem_ptr, "HEC tail pointers"));
    EM_TRY(em_fmt_place(M, &h->tcol, t * 4, &H->rem_col, "HEC tail columns"));
    EM_TRY(em_fmt_place_vals(M, &h->tval, t, &H->rem_val, "HEC tail values"));
    return EM_OK;
  }
  size_t nb = (size_t)H->n_bnd, slots2 = 2 * (size_t)H->n_chunk;
  *bytes += t * (8 + s) + nb * 4 + (nb + 1) * 8 + slots2 * s;
  EM_TRY(em_fmt_place(M, &h->row, t * 4, &H->coo_row, "HYB COO rows"));
  EM_TRY(em_fmt_place(M, &h->tcol, t * 4, &H->coo_col, "HYB COO columns"));
  EM_TRY(em_fmt_place_vals(M, &h->tval, t, &H->coo_val, "HYB COO values"));
  EM_TRY(em_fmt_place(M, &h->bnd_row, nb * 4, &H->bnd_row, "HYB boundary rows"));
  EM_TRY(em_fmt_place(M, &h->bnd_ptr, (nb + 1) * 8, &H->bnd_ptr, "HYB boundary slots"));
  /* scratch that every SpMV writes before reading: start it as NaN so that a
   * slot read before it is written shows in y instead of hiding as 0 */
  em_cplx *carry = NULL;
  EM_TRY(em_calloc(&carry, slots2, sizeof *carry, "HYB chunk carries"));
  for (size_t k = 0; k < slots2; k++) carry[k] = NAN;
  EM_TRY(em_fmt_place_vals(M, &carry, slots2, &H->carry, "HYB chunk carries"));
  return EM_OK;
}

/* HYB / HEC from CSR with K = o->ell_width (clipped to the longest row, as
 * wider ELL columns would hold padding only) or K from the rule (-1). */
em_err em_fmt_hyb_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  EM_CHECK(A && o && M, EM_ERR_ARG, "em_fmt_hyb_build: NULL argument");
  EM_CHECK(o->format == EM_FMT_HYB || o->format == EM_FMT_HEC, EM_ERR_INTERNAL,
           "em_fmt_hyb_build called for format %s", em_format_name(o->format));
  int64_t maxlen = 0;
  EM_TRY(hyb_check_csr(A, &maxlen));
  em_err err = EM_OK;
  hyb_host h = {0};
  em_hyb *H = NULL;
  EM_TRY(em_calloc(&H, 1, sizeof *H, "HYB header"));
  M->data = H; /* from here on, a failure is cleaned up by em_hyb_destroy */
  H->hec = o->format == EM_FMT_HEC;
  H->n_rows = A->n_rows;
  if (o->ell_width < 0) {
    EM_TRY_GOTO(err, em_hyb_auto_width(A, &H->K), done);
  } else {
    H->K = (int32_t)(o->ell_width < maxlen ? o->ell_width : maxlen);
  }
  H->pitch = ((int64_t)A->n_rows + EM_HYB_PITCH - 1) / EM_HYB_PITCH * EM_HYB_PITCH;
  EM_TRY_GOTO(err, hyb_fill(A, H, &h), done);
  hyb_lanes(A, o->threads_per_row, H);
  size_t bytes = 0;
  EM_TRY_GOTO(err, hyb_place_all(M, H, &h, &bytes), done);
  M->info.bytes = bytes;
  M->info.stored = (int64_t)H->K * H->pitch + H->tail_nnz;
  M->info.ell_width = H->K;
  M->info.threads_per_row = H->T;
  M->info.slice_rows = 0;
done:
  em_free(&h.len);
  em_free(&h.col);
  em_free(&h.row);
  em_free(&h.bnd_row);
  em_free(&h.rem_row);
  em_free(&h.bnd_ptr);
  em_free(&h.rem_ptr);
  em_free(&h.val);
  em_free(&h.tval);
  em_free(&h.tcol);
  return err;
}
