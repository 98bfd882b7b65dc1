/* csr_build.c - the CSR format on either backend: a copy of the caller's CSR
 * (values in the matrix precision), SpMV by one thread per row ("scalar") or
 * T threads per row ("vector", T = 1..32; on the CPU one row per iteration). */
#include <string.h>

#include "ell_impl.h"

static void csr_destroy(em_spmat *M) {
  em_csrx *C = (em_csrx *)M->data;
  if (!C) return;
#ifdef EM_HAVE_CUDA
  if (C->device) {
    em_fmt_dev_free((void **)&C->rowptr);
    em_fmt_dev_free((void **)&C->colind);
    em_fmt_dev_free(&C->val);
  }
#endif
  if (!C->device) {
    em_free(&C->rowptr);
    em_free(&C->colind);
    em_free(&C->val);
  }
  em_free(&M->data);
}

/* y = A x (+ y): hand over to the backend's kernel. */
static em_err csr_spmv(const em_spmat *M, const void *x, void *y, int accumulate, void *stream) {
  const em_csrx *C = (const em_csrx *)M->data;
  if (!C->device) {
    (void)stream;
    em_csrx_spmv_cpu(C, M->info.n_rows, M->info.prec, x, y, accumulate);
    return EM_OK;
  }
#ifdef EM_HAVE_CUDA
  EM_TRY(em_csrx_spmv_cuda(C, M->info.n_rows, M->info.prec, x, y, accumulate, stream));
  return EM_OK;
#else
  return EM_RAISE(EM_ERR_INTERNAL, "CSR matrix on the GPU in a build without CUDA");
#endif
}

static const em_spmat_ops CSR_OPS = {csr_spmv, csr_destroy};

/* Host copy in precision p: rowptr, colind as they are, values converted. */
static em_err csr_host_copy(const em_csr *A, em_prec p, em_csrx *C) {
  size_t n1 = (size_t)A->n_rows + 1, nnz = (size_t)A->nnz;
  EM_TRY(em_calloc(&C->rowptr, n1, sizeof *C->rowptr, "CSR row pointers"));
  memcpy(C->rowptr, A->rowptr, n1 * sizeof *C->rowptr);
  EM_TRY(em_calloc(&C->colind, nnz, sizeof *C->colind, "CSR column indices"));
  memcpy(C->colind, A->colind, nnz * sizeof *C->colind);
  EM_TRY(em_calloc(&C->val, nnz, em_prec_size(p), "CSR values"));
  if (p == EM_PREC_DOUBLE) {
    memcpy(C->val, A->val, nnz * sizeof *A->val);
  } else {
    em_cplxf *v = (em_cplxf *)C->val;
    for (size_t k = 0; k < nnz; k++) v[k] = (em_cplxf)A->val[k];
  }
  return EM_OK;
}

em_err em_fmt_csr_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  EM_CHECK(A->rowptr && (A->nnz == 0 || (A->colind && A->val)), EM_ERR_ARG,
           "CSR build: matrix %d x %d without its arrays", A->n_rows, A->n_cols);
  int T = 1;
  if (o->format == EM_FMT_CSR_VECTOR)
    T = o->threads_per_row ? o->threads_per_row : em_fmt_choose_threads(A, o->format, o->backend);
  em_csrx *C = NULL;
  EM_TRY(em_calloc(&C, 1, sizeof *C, "CSR format"));
  M->data = C;
  M->ops = &CSR_OPS;
  C->T = T;
  M->info.stored = A->nnz;
  M->info.bytes = em_csr_bytes(A, o->prec);
  M->info.threads_per_row = o->format == EM_FMT_CSR_VECTOR ? T : 0;
  if (o->backend == EM_BACKEND_CPU) {
    EM_TRY(csr_host_copy(A, o->prec, C));
    return EM_OK;
  }
#ifdef EM_HAVE_CUDA
  C->device = 1;
  EM_TRY(em_fmt_cuda_grid_cap(&C->grid_cap));
  EM_TRY(em_fmt_dev_upload((void **)&C->rowptr, A->rowptr,
                           ((size_t)A->n_rows + 1) * sizeof *A->rowptr, "CSR row pointers"));
  EM_TRY(em_fmt_dev_upload((void **)&C->colind, A->colind, (size_t)A->nnz * sizeof *A->colind,
                           "CSR column indices"));
  EM_TRY(em_fmt_dev_upload_vals(&C->val, A->val, (size_t)A->nnz, o->prec, "CSR values"));
  return EM_OK;
#else
  return EM_RAISE(EM_ERR_UNSUPPORTED, "CSR on the GPU: this build has no CUDA");
#endif
}
