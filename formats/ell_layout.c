/* ell_layout.c - CSR to the ELL-family layout of ell_impl.h on the host:
 * slice widths, slice offsets, row lengths, and the slots filled through
 * em_ellx_slot, the same formula the kernels read with. */
#include <string.h>

#include "ell_impl.h"

static int64_t round_up(int64_t a, int64_t m) {
  return (a + m - 1) / m * m;
}

void em_ellx_free_host(em_ellx *E) {
  em_free(&E->slice_ptr);
  em_free(&E->rowlen);
  em_free(&E->col);
  em_free(&E->val);
}

/* bytes = stored (column + value) + row lengths + slice offsets */
size_t em_ellx_bytes(const em_ellx *E, em_prec p) {
  size_t b = (size_t)E->stored * (sizeof(int32_t) + em_prec_size(p));
  if (E->rowlen) b += (size_t)E->n_rows * sizeof(int32_t);
  if (E->slice_ptr) b += ((size_t)E->n_slices + 1) * sizeof(int64_t);
  return b;
}

/* Geometry of the one-slice formats: S = rows padded to EM_ELL_ROW_ALIGN,
 * width = longest row (ELLR-T: padded to a multiple of max(16, T)). */
static em_err one_slice_shape(const em_csr *A, em_format kind, int T, int64_t longest, em_ellx *E) {
  int64_t n_pad = round_up(A->n_rows, EM_ELL_ROW_ALIGN);
  int64_t align = kind == EM_FMT_ELLRT ? (T > EM_ELLRT_WIDTH_ALIGN ? T : EM_ELLRT_WIDTH_ALIGN) : 1;
  int64_t width = round_up(longest, align);
  EM_CHECK(n_pad <= INT32_MAX && width <= INT32_MAX, EM_ERR_ARG,
           "%s layout of %d rows, longest %lld: too large", em_format_name(kind), A->n_rows,
           (long long)longest);
  E->S = n_pad > 0 ? (int32_t)n_pad : EM_ELL_ROW_ALIGN;
  E->width = (int32_t)width;
  E->n_slices = 1;
  E->stored = n_pad * width;
  return EM_OK;
}

/* Geometry of sliced ELLR-T: slice s holds rows sS..sS+S-1 (the last one
 * padded with empty rows), width = its longest row rounded up to T. */
static em_err sliced_shape(const em_csr *A, int T, int S, em_ellx *E) {
  int64_t ns = ((int64_t)A->n_rows + S - 1) / S;
  E->S = S;
  E->n_slices = ns;
  EM_TRY(em_calloc(&E->slice_ptr, (size_t)ns + 1, sizeof *E->slice_ptr, "slice offsets"));
  int64_t widest = 0;
  for (int64_t s = 0; s < ns; s++) {
    int64_t w = 0;
    for (int64_t i = s * S; i < (s + 1) * S && i < A->n_rows; i++)
      if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
    w = round_up(w, T);
    if (w > widest) widest = w;
    E->slice_ptr[s + 1] = E->slice_ptr[s] + w * S;
  }
  EM_CHECK(widest <= INT32_MAX, EM_ERR_ARG, "sliced ELLR-T: slice width %lld too large",
           (long long)widest);
  E->width = (int32_t)widest;
  E->stored = E->slice_ptr[ns];
  return EM_OK;
}

em_err em_ellx_layout(const em_csr *A, em_format kind, int T, int S, em_ellx *E, em_cplx **valout) {
  memset(E, 0, sizeof *E);
  *valout = NULL;
  EM_CHECK(
      kind == EM_FMT_ELL || kind == EM_FMT_ELLR || kind == EM_FMT_ELLRT || kind == EM_FMT_SELLRT,
      EM_ERR_INTERNAL, "em_ellx_layout: format %s is not of the ELL family", em_format_name(kind));
  EM_CHECK(T >= 1 && T <= 32 && (T & (T - 1)) == 0, EM_ERR_ARG,
           "%s: threads per row %d not in 1, 2, 4, 8, 16, 32", em_format_name(kind), T);
  EM_CHECK(kind != EM_FMT_SELLRT || (S >= 1 && S <= EM_SELLRT_MAX_S), EM_ERR_ARG,
           "sliced ELLR-T: slice_rows %d outside 1..%d", S, EM_SELLRT_MAX_S);
  em_err err = EM_OK;
  em_cplx *val = NULL;
  int32_t n = A->n_rows;
  int64_t longest = 0;
  for (int32_t i = 0; i < n; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > longest) longest = A->rowptr[i + 1] - A->rowptr[i];
  E->n_rows = n;
  E->T = T;
  if (kind == EM_FMT_SELLRT)
    EM_TRY_GOTO(err, sliced_shape(A, T, S, E), fail);
  else
    EM_TRY_GOTO(err, one_slice_shape(A, kind, T, longest, E), fail);
  if (kind != EM_FMT_ELL) {
    EM_TRY_GOTO(err, em_calloc(&E->rowlen, (size_t)n, sizeof *E->rowlen, "row lengths"), fail);
    for (int32_t i = 0; i < n; i++) E->rowlen[i] = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
  }
  EM_TRY_GOTO(err, em_calloc(&E->col, (size_t)E->stored, sizeof *E->col, "column slots"), fail);
  EM_TRY_GOTO(err, em_calloc(&val, (size_t)E->stored, sizeof *val, "value slots"), fail);
  int32_t *col = E->col;
  int par = E->stored >= EM_FMT_OMP_MIN;
#pragma omp parallel for schedule(static) if (par)
  for (int64_t k = 0; k < E->stored; k++) col[k] = -1;
#pragma omp parallel for schedule(dynamic, 256) if (par)
  for (int32_t i = 0; i < n; i++) {
    int64_t b = A->rowptr[i];
    for (int32_t k = 0; k < (int32_t)(A->rowptr[i + 1] - b); k++) {
      int64_t q = em_ellx_slot(E->slice_ptr, E->S, T, i, k);
      col[q] = A->colind[b + k];
      val[q] = A->val[b + k];
    }
  }
  *valout = val;
  return EM_OK;
fail:
  em_ellx_free_host(E);
  em_free(&val);
  return err;
}
