/* ell_build.c - builders of ELL, ELLR, ELLR-T and sliced ELLR-T: one host
 * layout (ell_layout.c), kept on the host for the CPU backend or uploaded
 * for the CUDA backend, and one ops table. */
#include <string.h>

#include "ell_impl.h"

static void ellx_destroy(em_spmat *M) {
  em_ellx *E = (em_ellx *)M->data;
  if (!E) return;
#ifdef EM_HAVE_CUDA
  if (E->device) {
    em_fmt_dev_free((void **)&E->slice_ptr);
    em_fmt_dev_free((void **)&E->rowlen);
    em_fmt_dev_free((void **)&E->col);
    em_fmt_dev_free(&E->val);
  }
#endif
  if (!E->device) em_ellx_free_host(E);
  em_free(&M->data);
}

/* y = A x (+ y): hand over to the backend's kernel. */
static em_err ellx_spmv(const em_spmat *M, const void *x, void *y, int accumulate, void *stream) {
  const em_ellx *E = (const em_ellx *)M->data;
  if (!E->device) {
    (void)stream;
    em_ellx_spmv_cpu(E, M->info.prec, x, y, accumulate);
    return EM_OK;
  }
#ifdef EM_HAVE_CUDA
  EM_TRY(em_ellx_spmv_cuda(E, M->info.prec, x, y, accumulate, stream));
  return EM_OK;
#else
  return EM_RAISE(EM_ERR_INTERNAL, "ELL-family matrix on the GPU in a build without CUDA");
#endif
}

static const em_spmat_ops ELLX_OPS = {ellx_spmv, ellx_destroy};

#ifdef EM_HAVE_CUDA
/* Replace the host arrays of E by device copies (val: host values in
 * double, converted to p on upload). */
static em_err ellx_upload(em_ellx *E, em_cplx *val, em_prec p) {
  em_ellx h = *E;
  E->slice_ptr = NULL;
  E->rowlen = NULL;
  E->col = NULL;
  E->val = NULL;
  E->device = 1;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_fmt_cuda_grid_cap(&E->grid_cap), done);
  if (h.slice_ptr)
    EM_TRY_GOTO(err,
                em_fmt_dev_upload((void **)&E->slice_ptr, h.slice_ptr,
                                  ((size_t)h.n_slices + 1) * sizeof *h.slice_ptr, "slice offsets"),
                done);
  if (h.rowlen)
    EM_TRY_GOTO(err,
                em_fmt_dev_upload((void **)&E->rowlen, h.rowlen,
                                  (size_t)h.n_rows * sizeof *h.rowlen, "row lengths"),
                done);
  EM_TRY_GOTO(
      err,
      em_fmt_dev_upload((void **)&E->col, h.col, (size_t)h.stored * sizeof *h.col, "column slots"),
      done);
  EM_TRY_GOTO(err, em_fmt_dev_upload_vals(&E->val, val, (size_t)h.stored, p, "value slots"), done);
done:
  em_ellx_free_host(&h);
  return err;
}
#endif

/* Host values in precision p: the double array itself, or a single copy. */
static em_err ellx_host_vals(em_ellx *E, em_cplx **val, em_prec p) {
  if (p == EM_PREC_DOUBLE) {
    E->val = *val;
    *val = NULL;
    return EM_OK;
  }
  em_cplxf *s = NULL;
  EM_TRY(em_calloc(&s, (size_t)E->stored, sizeof *s, "value slots"));
  for (int64_t k = 0; k < E->stored; k++) s[k] = (em_cplxf)(*val)[k];
  E->val = s;
  em_free(val);
  return EM_OK;
}

em_err em_ellx_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  EM_CHECK(A->rowptr && (A->nnz == 0 || (A->colind && A->val)), EM_ERR_ARG,
           "%s build: matrix %d x %d without its arrays", em_format_name(o->format), A->n_rows,
           A->n_cols);
  em_format kind = o->format;
  int T = 1, S = 0;
  if (kind == EM_FMT_ELLRT || kind == EM_FMT_SELLRT)
    T = o->threads_per_row ? o->threads_per_row : em_fmt_choose_threads(A, kind, o->backend);
  if (kind == EM_FMT_SELLRT) S = o->slice_rows ? o->slice_rows : EM_SELLRT_DEFAULT_S;
  em_ellx *E = NULL;
  em_cplx *val = NULL;
  EM_TRY(em_calloc(&E, 1, sizeof *E, "ELL-family format"));
  M->data = E;
  M->ops = &ELLX_OPS;
  EM_TRY(em_ellx_layout(A, kind, T, S, E, &val));
  M->info.stored = E->stored;
  M->info.bytes = em_ellx_bytes(E, o->prec);
  M->info.threads_per_row = (kind == EM_FMT_ELLRT || kind == EM_FMT_SELLRT) ? T : 0;
  M->info.slice_rows = kind == EM_FMT_SELLRT ? S : 0;
  em_err err = EM_OK;
  if (o->backend == EM_BACKEND_CPU) {
    err = ellx_host_vals(E, &val, o->prec);
  } else {
#ifdef EM_HAVE_CUDA
    err = ellx_upload(E, val, o->prec);
#else
    err =
        EM_RAISE(EM_ERR_UNSUPPORTED, "%s on the GPU: this build has no CUDA", em_format_name(kind));
#endif
  }
  em_free(&val);
  if (err) return em_error_trace(err, __FILE__, __LINE__);
  return EM_OK;
}

em_err em_fmt_ell_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  EM_CHECK(o->format == EM_FMT_ELL || o->format == EM_FMT_ELLR, EM_ERR_INTERNAL,
           "em_fmt_ell_build called for %s", em_format_name(o->format));
  EM_TRY(em_ellx_build(A, o, M));
  return EM_OK;
}

em_err em_fmt_ellrt_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  EM_CHECK(o->format == EM_FMT_ELLRT, EM_ERR_INTERNAL, "em_fmt_ellrt_build called for %s",
           em_format_name(o->format));
  EM_TRY(em_ellx_build(A, o, M));
  return EM_OK;
}

em_err em_fmt_sellrt_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  EM_CHECK(o->format == EM_FMT_SELLRT, EM_ERR_INTERNAL, "em_fmt_sellrt_build called for %s",
           em_format_name(o->format));
  EM_CHECK(o->slice_rows >= 0, EM_ERR_ARG, "sliced ELLR-T: slice_rows %d < 0", o->slice_rows);
  EM_TRY(em_ellx_build(A, o, M));
  return EM_OK;
}
