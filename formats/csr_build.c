/* csr_build.c - the CSR format: a copy of the caller's CSR (values in the
 * matrix precision) in the backend's memory, SpMV by one thread per row
 * ("scalar") or T threads per row ("vector", T = 1..32; on the CPU one row
 * per iteration either way). */
#include "csr_impl.h"

void em_csrx_destroy(em_spmat *M) {
  em_csrx *C = (em_csrx *)M->data;
  if (!C) return;
  M->be->release(&C->rowptr);
  M->be->release(&C->colind);
  M->be->release(&C->val);
  em_free(&M->data);
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
  C->T = T;
  M->info.stored = A->nnz;
  M->info.bytes = em_csr_bytes(A, o->prec);
  M->info.threads_per_row = o->format == EM_FMT_CSR_VECTOR ? T : 0;
  const em_fmt_backend *be = M->be;
  EM_TRY(be->copy((void **)&C->rowptr, A->rowptr, ((size_t)A->n_rows + 1) * sizeof *A->rowptr,
                  "CSR row pointers"));
  EM_TRY(be->copy((void **)&C->colind, A->colind, (size_t)A->nnz * sizeof *A->colind,
                  "CSR column indices"));
  EM_TRY(be->copy_vals(&C->val, A->val, (size_t)A->nnz, o->prec, "CSR values"));
  return EM_OK;
}
