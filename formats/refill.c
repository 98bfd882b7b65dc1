/* refill.c - new values into an existing layout (em_spmat_refill): the
 * pattern is checked against the one the layout was built from (sizes, nnz
 * and a hash of the row pointers and columns), then every CSR entry k is
 * written to its slot.
 *
 * The slot map is made once per matrix, on its first refill, without a
 * line of format-specific placement code: a CPU twin of the same concrete
 * layout (format, T, S, K) is built from the CSR with value k + 1 in entry
 * k, and the twin's value arrays are read back (padding holds 0).  So the
 * map is right for every format by construction, and the CPU and CUDA
 * layouts being one layout (formats_impl.h) makes it right for both.  CSR
 * and bitmap keep the CSR's order and need no map.
 *
 * On the CPU the values are scattered through the map; on CUDA they are
 * uploaded as they are (one contiguous copy per chunk) and scattered on the
 * GPU (refill_cuda.cu): the upload is the cost either way, and a host
 * scatter of random 16-byte writes would add to it. */
#include <string.h>

#include "bitmap_impl.h"
#include "csr_impl.h"
#include "ell_impl.h"
#include "hyb_impl.h"

/* splitmix64's finaliser: every input bit moves every output bit */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#define HASH_ROWS 4096 /* rows per independently hashed block */

/* H = mix(n_rows, n_cols, nnz) + sum over row blocks b of mix(b, FNV-1a of
 * the block's row lengths and columns): a sum, so the OpenMP blocks may be
 * added in any order and the result is the same. */
uint64_t em_spmat_pattern_hash(const em_csr *A) {
  uint64_t H = mix64((uint64_t)A->n_rows * 0x9e3779b97f4a7c15ULL ^ (uint64_t)A->n_cols) ^
               mix64((uint64_t)A->nnz + 0x632be59bd9b4e019ULL);
  int64_t nblk = ((int64_t)A->n_rows + HASH_ROWS - 1) / HASH_ROWS;
  int par = A->nnz >= EM_FMT_OMP_MIN;
#pragma omp parallel for schedule(static) reduction(+ : H) if (par)
  for (int64_t b = 0; b < nblk; b++) {
    uint64_t h = 0xcbf29ce484222325ULL;
    int64_t r1 = (b + 1) * HASH_ROWS < A->n_rows ? (b + 1) * HASH_ROWS : A->n_rows;
    for (int64_t r = b * HASH_ROWS; r < r1; r++) {
      h = (h ^ (uint64_t)(A->rowptr[r + 1] - A->rowptr[r])) * 0x100000001b3ULL;
      for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++)
        h = (h ^ (uint32_t)A->colind[k]) * 0x100000001b3ULL;
    }
    H += mix64(h ^ mix64((uint64_t)b + 1));
  }
  return H;
}

int em_fmt_value_arrays(em_spmat *M, void ***arr, int64_t *len) {
  switch (M->info.format) {
    case EM_FMT_CSR:
    case EM_FMT_CSR_VECTOR:
      arr[0] = &((em_csrx *)M->data)->val;
      len[0] = M->info.nnz;
      return 1;
    case EM_FMT_BITMAP:
      arr[0] = &((em_bitmap *)M->data)->val;
      len[0] = M->info.nnz;
      return 1;
    case EM_FMT_HYB:
    case EM_FMT_HEC: {
      em_hyb *H = M->data;
      arr[0] = &H->ell_val;
      len[0] = (int64_t)H->K * H->pitch;
      arr[1] = H->hec ? &H->rem_val : &H->coo_val;
      len[1] = H->tail_nnz;
      return H->tail_nnz > 0 ? 2 : 1;
    }
    default: { /* the ELL family */
      em_ellx *E = M->data;
      arr[0] = &E->val;
      len[0] = E->stored;
      return 1;
    }
  }
}

void em_fmt_refill_free(em_spmat *M) {
  em_fmt_refill *rf = M->rf;
  if (!rf) return;
  em_free(&rf->slot);
  if (rf->dslot) M->be->release(&rf->dslot);
  em_free(&M->rf);
}

/* slot[k] from the twin: value v = k + 1 at slot q of the arrays end to
 * end means entry k lives at q; every entry must turn up exactly once. */
static em_err map_from_twin(em_spmat *twin, int64_t nnz, em_fmt_refill *rf) {
  void **arr[2];
  int64_t len[2] = {0, 0};
  int ns = em_fmt_value_arrays(twin, arr, len);
  for (int64_t k = 0; k < nnz; k++) rf->slot[k] = -1;
  int64_t base = 0;
  for (int s = 0; s < ns; s++) {
    const em_cplx *v = *arr[s];
    for (int64_t q = 0; q < len[s]; q++) {
      double d = creal(v[q]);
      if (d == 0) continue; /* padding */
      int64_t k = (int64_t)d - 1;
      EM_CHECK(k >= 0 && k < nnz && rf->slot[k] < 0, EM_ERR_INTERNAL,
               "refill map of %s: slot %lld holds entry %lld twice or out of range",
               em_format_name(twin->info.format), (long long)(base + q), (long long)k);
      rf->slot[k] = base + q;
    }
    base += len[s];
  }
  for (int64_t k = 0; k < nnz; k++)
    EM_CHECK(rf->slot[k] >= 0, EM_ERR_INTERNAL, "refill map of %s: entry %lld has no slot",
             em_format_name(twin->info.format), (long long)k);
  return EM_OK;
}

em_err em_fmt_slot_map(const em_spmat *M, const em_csr *A, int64_t **slot) {
  *slot = NULL;
  em_format f = M->info.format;
  if (f == EM_FMT_CSR || f == EM_FMT_CSR_VECTOR || f == EM_FMT_BITMAP) return EM_OK;
  em_err err = EM_OK;
  em_cplx *idx = NULL;
  em_spmat *twin = NULL;
  em_fmt_refill rf = {0};
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = f;
  o.threads_per_row = M->info.threads_per_row;
  o.slice_rows = M->info.slice_rows;
  o.ell_width = (f == EM_FMT_HYB || f == EM_FMT_HEC) ? M->info.ell_width : -1;
  EM_TRY(em_calloc(&idx, (size_t)A->nnz + 1, sizeof *idx, "refill map values"));
  for (int64_t k = 0; k < A->nnz; k++) idx[k] = (double)(k + 1);
  em_csr Ik = *A;
  Ik.val = idx;
  EM_TRY_GOTO(err, em_spmat_create(&Ik, &o, &twin), done);
  EM_TRY_GOTO(err, em_calloc(&rf.slot, (size_t)A->nnz + 1, sizeof *rf.slot, "refill slot map"),
              done);
  EM_TRY_GOTO(err, map_from_twin(twin, A->nnz, &rf), done);
  *slot = rf.slot;
  rf.slot = NULL;
done:
  em_free(&rf.slot);
  em_free(&idx);
  em_spmat_destroy(&twin);
  return err;
}

/* The map of M (pattern of A): identity for CSR and bitmap, else from a
 * CPU twin of M's concrete layout (em_fmt_slot_map); on CUDA moved to the
 * GPU (int32 when the slots allow). */
static em_err refill_map(em_spmat *M, const em_csr *A) {
  em_err err = EM_OK;
  em_fmt_refill *rf = NULL;
  EM_TRY(em_calloc(&rf, 1, sizeof *rf, "refill map"));
  M->rf = rf; /* freed by em_fmt_refill_free from here on */
  void **arr[2];
  rf->nseg = em_fmt_value_arrays(M, arr, rf->seg_len);
  em_format f = M->info.format;
  rf->identity = f == EM_FMT_CSR || f == EM_FMT_CSR_VECTOR || f == EM_FMT_BITMAP;
  if (rf->identity) return EM_OK;
  EM_TRY_GOTO(err, em_fmt_slot_map(M, A, &rf->slot), fail);
  if (!M->be->host) {
    int64_t total = rf->seg_len[0] + rf->seg_len[1];
    rf->wide = total > INT32_MAX;
    int32_t *s32 = NULL;
    if (!rf->wide) { /* 4 bytes per entry on the GPU */
      EM_TRY_GOTO(err, em_calloc(&s32, (size_t)A->nnz + 1, sizeof *s32, "refill slot map"), fail);
      for (int64_t k = 0; k < A->nnz; k++) s32[k] = (int32_t)rf->slot[k];
    }
    size_t bytes = (size_t)A->nnz * (rf->wide ? sizeof(int64_t) : sizeof(int32_t));
    err = M->be->copy(&rf->dslot, rf->wide ? (void *)rf->slot : (void *)s32, bytes,
                      "refill slot map");
    em_free(&s32);
    if (err) goto fail;
    em_free(&rf->slot);
  }
  return EM_OK;
fail:
  em_fmt_refill_free(M);
  return err;
}

/* val_seg(q)[...] = A->val[k] at q = slot[k], converted to M's precision. */
static void refill_host(em_spmat *M, const em_fmt_refill *rf, void **arr, const em_csr *A) {
  int par = A->nnz >= EM_FMT_OMP_MIN;
  int64_t l0 = rf->seg_len[0];
  if (M->info.prec == EM_PREC_DOUBLE) {
    em_cplx *a0 = arr[0], *a1 = rf->nseg > 1 ? arr[1] : NULL;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t k = 0; k < A->nnz; k++) {
      int64_t q = rf->identity ? k : rf->slot[k];
      if (q < l0)
        a0[q] = A->val[k];
      else
        a1[q - l0] = A->val[k];
    }
  } else {
    em_cplxf *a0 = arr[0], *a1 = rf->nseg > 1 ? arr[1] : NULL;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t k = 0; k < A->nnz; k++) {
      int64_t q = rf->identity ? k : rf->slot[k];
      if (q < l0)
        a0[q] = (em_cplxf)A->val[k];
      else
        a1[q - l0] = (em_cplxf)A->val[k];
    }
  }
}

em_err em_spmat_refill(em_spmat *M, const em_csr *A) {
  EM_CHECK(M && A, EM_ERR_ARG, "em_spmat_refill: NULL argument");
  EM_CHECK(A->n_rows == M->info.n_rows && A->n_cols == M->info.n_cols && A->nnz == M->info.nnz,
           EM_ERR_ARG,
           "refill: the new matrix is %d x %d with %lld entries, the %s layout holds %d x %d with "
           "%lld; a new pattern needs a new matrix (em_spmat_create)",
           A->n_rows, A->n_cols, (long long)A->nnz, em_format_name(M->info.format), M->info.n_rows,
           M->info.n_cols, (long long)M->info.nnz);
  EM_CHECK(A->rowptr && (A->nnz == 0 || (A->colind && A->val)), EM_ERR_ARG,
           "refill: the new %d x %d matrix has no arrays", A->n_rows, A->n_cols);
  EM_CHECK(em_spmat_pattern_hash(A) == M->pattern, EM_ERR_ARG,
           "refill: the new %d x %d matrix has the same size and %lld entries but other columns "
           "than the %s layout was built for; a new pattern needs a new matrix",
           A->n_rows, A->n_cols, (long long)A->nnz, em_format_name(M->info.format));
  if (!M->rf) EM_TRY(refill_map(M, A));
  if (A->nnz == 0) return EM_OK;
  void **arr[2];
  int64_t len[2];
  int ns = em_fmt_value_arrays(M, arr, len);
  void *a[2] = {*arr[0], ns > 1 ? *arr[1] : NULL};
  if (M->be->host) {
    refill_host(M, M->rf, a, A);
    return EM_OK;
  }
#ifdef EM_HAVE_CUDA
  return em_fmt_refill_cuda(M, M->rf, a, A->val, A->nnz);
#else
  return EM_RAISE(EM_ERR_INTERNAL, "refill: a device matrix in a build without CUDA");
#endif
}
