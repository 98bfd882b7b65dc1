/* csrop_cuda.c - the solver's own CSR operator on the GPU: cuSPARSE SpMV
 * (generic API, default algorithm) with 32-bit indices, descriptors made
 * once, the vectors rebound on every product (no allocation per call). */
#include <cuda_runtime.h>
#include <cusparse.h>

#include "csrop_impl.h"
#include "cuda_impl.h"

typedef struct csrop_cuda {
  cusparseHandle_t h;    /* on the legacy default stream */
  int32_t *rowptr, *col; /* device */
  void *val;             /* device, in the operator's precision */
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t x, y; /* rebound to the caller's vectors per product */
  void *buf;                 /* SpMV workspace */
} csrop_cuda;

em_err em_csrop_cuda_apply(em_csrop *c, const void *x, void *y) {
  csrop_cuda *g = c->cuda;
  if (c->n == 0) return EM_OK;
  cudaDataType t = c->prec == EM_PREC_SINGLE ? CUDA_C_32F : CUDA_C_64F;
  cuDoubleComplex one = {1, 0}, zero = {0, 0};
  cuComplex onef = {1, 0}, zerof = {0, 0};
  const void *a = t == CUDA_C_32F ? (const void *)&onef : (const void *)&one;
  const void *b = t == CUDA_C_32F ? (const void *)&zerof : (const void *)&zero;
  EM_CUSPARSE(cusparseDnVecSetValues(g->x, (void *)x));
  EM_CUSPARSE(cusparseDnVecSetValues(g->y, y));
  EM_CUSPARSE(cusparseSpMV(g->h, CUSPARSE_OPERATION_NON_TRANSPOSE, a, g->A, g->x, b, g->y, t,
                           CUSPARSE_SPMV_ALG_DEFAULT, g->buf));
  return EM_OK;
}

void em_csrop_cuda_destroy(em_csrop *c) {
  csrop_cuda *g = c->cuda;
  if (!g) return;
  if (g->A) cusparseDestroySpMat(g->A);
  if (g->x) cusparseDestroyDnVec(g->x);
  if (g->y) cusparseDestroyDnVec(g->y);
  if (g->h) cusparseDestroy(g->h);
  void *dev[] = {g->rowptr, g->col, g->val, g->buf};
  for (size_t k = 0; k < sizeof dev / sizeof *dev; k++)
    if (dev[k]) cudaFree(dev[k]);
  em_free(&c->cuda);
}

em_err em_csrop_cuda_create(em_csrop *c, const em_csr *A) {
  EM_CHECK(A->nnz < INT32_MAX, EM_ERR_UNSUPPORTED,
           "the GPU CSR operator takes 32-bit offsets: %lld nonzeros are too many",
           (long long)A->nnz);
  csrop_cuda *g = NULL;
  em_err err = EM_OK;
  int32_t *rp = NULL;
  void *hv = NULL, *tmp = NULL;
  EM_TRY(em_calloc(&g, 1, sizeof *g, "GPU CSR operator"));
  c->cuda = g; /* from here on, destroy frees whatever was made */
  size_t n = (size_t)A->n_rows, nnz = (size_t)A->nnz, es = em_prec_size(c->prec);
  cudaDataType t = c->prec == EM_PREC_SINGLE ? CUDA_C_32F : CUDA_C_64F;
  EM_TRY_GOTO(err, em_calloc(&rp, n + 1, sizeof *rp, "32-bit row offsets"), done);
  for (size_t i = 0; i <= n; i++) rp[i] = (int32_t)A->rowptr[i];
  hv = A->val;
  if (c->prec == EM_PREC_SINGLE) {
    em_cplxf *f = NULL;
    EM_TRY_GOTO(err, em_calloc(&f, nnz, sizeof *f, "single-precision values"), done);
    for (size_t k = 0; k < nnz; k++) f[k] = (em_cplxf)A->val[k];
    hv = f;
  }
  EM_TRY_GOTO(err, em_dev_alloc((void **)&g->rowptr, rp, (n + 1) * 4, NULL, "CSR row offsets"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc((void **)&g->col, A->colind, nnz * 4, NULL, "CSR columns"), done);
  EM_TRY_GOTO(err, em_dev_alloc(&g->val, hv, nnz * es, NULL, "CSR values"), done);
  c->bytes = (n + 1) * 4 + nnz * (4 + es);
  if (n == 0) goto done;
  EM_CUSPARSE_GOTO(err, cusparseCreate(&g->h), done);
  EM_CUSPARSE_GOTO(err, cusparseSetStream(g->h, 0), done);
  EM_CUSPARSE_GOTO(
      err,
      cusparseCreateCsr(&g->A, A->n_rows, A->n_cols, (int64_t)nnz, g->rowptr, g->col, g->val,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t),
      done);
  /* the workspace query needs vectors: bind scratch ones, rebound per product */
  EM_TRY_GOTO(err, em_dev_alloc(&tmp, NULL, 2 * n * es, NULL, "SpMV scratch vectors"), done);
  EM_CUSPARSE_GOTO(err, cusparseCreateDnVec(&g->x, A->n_cols, tmp, t), done);
  EM_CUSPARSE_GOTO(err, cusparseCreateDnVec(&g->y, A->n_rows, (char *)tmp + n * es, t), done);
  cuDoubleComplex one = {1, 0}, zero = {0, 0};
  cuComplex onef = {1, 0}, zerof = {0, 0};
  const void *a = t == CUDA_C_32F ? (const void *)&onef : (const void *)&one;
  const void *b = t == CUDA_C_32F ? (const void *)&zerof : (const void *)&zero;
  size_t bytes = 0;
  EM_CUSPARSE_GOTO(err,
                   cusparseSpMV_bufferSize(g->h, CUSPARSE_OPERATION_NON_TRANSPOSE, a, g->A, g->x, b,
                                           g->y, t, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
                   done);
  EM_TRY_GOTO(err, em_dev_alloc(&g->buf, NULL, bytes, NULL, "SpMV workspace"), done);
done:
  if (tmp) cudaFree(tmp);
  if (hv != A->val) em_free(&hv);
  em_free(&rp);
  return err;
}
