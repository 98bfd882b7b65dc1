/* cusparse_op.c - cuSPARSE's CSR SpMV as an em_operator, the baseline of
 * seed 000's solves: y = A x by cusparseSpMV (CUSPARSE_SPMV_CSR_ALG1,
 * 32-bit indices, complex double) on the legacy default stream, where the
 * Krylov methods' vector work runs.  The dense-vector descriptors are
 * re-pointed at each call's x and y (cusparseDnVecSetValues: no copy). */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdint.h>

#include "solve_formats.h"

struct bench_csop {
  cusparseHandle_t h;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t x, y;
  void *rp, *ci, *val, *buf;
};

static em_err csop_apply(void *ctx, const void *x, void *y) {
  bench_csop *s = ctx;
  em_cplx one = 1, zero = 0;
  EM_CUSPARSE(cusparseDnVecSetValues(s->x, (void *)x));
  EM_CUSPARSE(cusparseDnVecSetValues(s->y, y));
  EM_CUSPARSE(cusparseSpMV(s->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->A, s->x, &zero, s->y,
                           CUDA_C_64F, CUSPARSE_SPMV_CSR_ALG1, s->buf));
  return EM_OK;
}

void bench_csop_destroy(bench_csop **s) {
  if (!*s) return;
  bench_csop *c = *s;
  if (c->A) cusparseDestroySpMat(c->A);
  if (c->x) cusparseDestroyDnVec(c->x);
  if (c->y) cusparseDestroyDnVec(c->y);
  if (c->h) cusparseDestroy(c->h);
  em_dev_free(&c->rp);
  em_dev_free(&c->ci);
  em_dev_free(&c->val);
  em_dev_free(&c->buf);
  em_free(s);
}

em_err bench_csop_create(const em_csr *A, bench_csop **s, em_operator *op) {
  EM_CHECK(A->n_rows == A->n_cols && A->nnz <= INT32_MAX, EM_ERR_ARG,
           "cuSPARSE operator: %d x %d with %lld entries (square, under 2^31)", A->n_rows,
           A->n_cols, (long long)A->nnz);
  EM_TRY(em_calloc(s, 1, sizeof **s, "cuSPARSE operator"));
  bench_csop *c = *s;
  int32_t *rp = NULL;
  em_err err = EM_OK;
  int32_t n = A->n_rows;
  em_cplx one = 1, zero = 0;
  size_t size = 0;
  EM_TRY_GOTO(err, em_calloc(&rp, (size_t)n + 1, sizeof *rp, "row offsets"), done);
  for (int32_t i = 0; i <= n; i++) rp[i] = (int32_t)A->rowptr[i];
  EM_TRY_GOTO(err, em_dev_alloc(&c->rp, rp, ((size_t)n + 1) * 4, NULL, "cuSPARSE row offsets"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc(&c->ci, A->colind, (size_t)A->nnz * 4, NULL, "cuSPARSE columns"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc(&c->val, A->val, (size_t)A->nnz * 16, NULL, "cuSPARSE values"),
              done);
  /* the vector descriptors need an address until the first apply */
  EM_TRY_GOTO(err, em_dev_alloc(&c->buf, NULL, ((size_t)n + 1) * 16, NULL, "cuSPARSE probe"), done);
  EM_CUSPARSE_GOTO(err, cusparseCreate(&c->h), done);
  EM_CUSPARSE_GOTO(err,
                   cusparseCreateCsr(&c->A, n, n, A->nnz, c->rp, c->ci, c->val, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_C_64F),
                   done);
  EM_CUSPARSE_GOTO(err, cusparseCreateDnVec(&c->x, n, c->buf, CUDA_C_64F), done);
  EM_CUSPARSE_GOTO(err, cusparseCreateDnVec(&c->y, n, c->buf, CUDA_C_64F), done);
  EM_CUSPARSE_GOTO(err,
                   cusparseSpMV_bufferSize(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->A, c->x,
                                           &zero, c->y, CUDA_C_64F, CUSPARSE_SPMV_CSR_ALG1, &size),
                   done);
  em_dev_free(&c->buf);
  EM_TRY_GOTO(err, em_dev_alloc(&c->buf, NULL, size ? size : 16, NULL, "cuSPARSE SpMV buffer"),
              done);
  op->n = n;
  op->backend = EM_BACKEND_CUDA;
  op->prec = EM_PREC_DOUBLE;
  op->ctx = c;
  op->apply = csop_apply;
  op->apply_multi = NULL;
  op->dist = NULL;
  op->apply_rows = NULL;
done:
  em_free(&rp);
  if (err) bench_csop_destroy(s);
  return err;
}
