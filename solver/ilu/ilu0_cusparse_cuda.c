/* ilu0_cusparse_cuda.c - the cuSPARSE baseline of ILU(0) on the GPU: the
 * factorization by cusparseZcsrilu02 (deprecated since CUDA 12 with no
 * replacement in cuSPARSE, still present in CUDA 13; hence
 * DISABLE_CUSPARSE_DEPRECATED in this file only) on P A P^T in the pc
 * numbering, and the two triangular solves by the generic cusparseSpSV
 * (which replaced csrsv2, removed in CUDA 12), reading L (unit diagonal)
 * and U from the same CSR arrays through the fill-mode and diagonal-type
 * attributes.  Single precision factors: factored in double, then
 * converted. */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cuda_runtime.h>
#include <cusparse.h>

#include "cuda_impl.h"
#include "ilu_impl.h"
#include "pc_impl.h"

typedef struct ilu0_cusparse {
  int single; /* factors in complex single */
  int32_t n;
  cusparseHandle_t h;        /* on the legacy default stream */
  int32_t *perm, *iperm;     /* device: perm[old] = pc, iperm[pc] = old */
  int32_t *rowptr, *col;     /* device: P A P^T, 32-bit */
  void *val;                 /* device: L and U in place, factor precision */
  void *y1, *y2;             /* device: SpSV input and output */
  cusparseSpMatDescr_t L, U; /* the same arrays, lower-unit / upper views */
  cusparseDnVecDescr_t v1, v2;
  cusparseSpSVDescr_t sL, sU;
  void *bufL, *bufU; /* SpSV buffers, kept for the solves */
  size_t bytes;      /* device bytes */
} ilu0_cusparse;

static em_err apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  ilu0_cusparse *c = pc->data;
  int vs = vec_prec == EM_PREC_SINGLE;
  if (c->n == 0) return EM_OK;
  cudaDataType t = c->single ? CUDA_C_32F : CUDA_C_64F;
  cuDoubleComplex one = {1, 0};
  cuComplex onef = {1, 0};
  const void *alpha = c->single ? (const void *)&onef : (const void *)&one;
  EM_TRY(em_sv_cuda_gather(c->n, c->iperm, r, vs, c->y1, c->single, NULL)); /* y1 = P r */
  EM_CUSPARSE(cusparseSpSV_solve(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, c->L, c->v1, c->v2,
                                 t, CUSPARSE_SPSV_ALG_DEFAULT, c->sL)); /* y2 = L^-1 y1 */
  EM_CUSPARSE(cusparseSpSV_solve(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, c->U, c->v2, c->v1,
                                 t, CUSPARSE_SPSV_ALG_DEFAULT, c->sU));     /* y1 = U^-1 y2 */
  EM_TRY(em_sv_cuda_scatter(c->n, c->perm, c->y1, c->single, z, vs, NULL)); /* z = P^T y1 */
  return EM_OK;
}

static void destroy(em_pc *pc) {
  ilu0_cusparse *c = pc->data;
  if (!c) return;
  if (c->sL) cusparseSpSV_destroyDescr(c->sL);
  if (c->sU) cusparseSpSV_destroyDescr(c->sU);
  if (c->L) cusparseDestroySpMat(c->L);
  if (c->U) cusparseDestroySpMat(c->U);
  if (c->v1) cusparseDestroyDnVec(c->v1);
  if (c->v2) cusparseDestroyDnVec(c->v2);
  if (c->h) cusparseDestroy(c->h);
  void *dev[] = {c->perm, c->iperm, c->rowptr, c->col, c->val, c->y1, c->y2, c->bufL, c->bufU};
  for (size_t k = 0; k < sizeof dev / sizeof *dev; k++) em_dev_free(&dev[k]);
  em_free(&pc->data);
}

static const em_pc_ops ILU0_CUSPARSE = {apply, destroy, NULL, NULL};

/* csrilu02 in place on c->val (double), zero pivots named in the old numbering */
static em_err factor(ilu0_cusparse *c, const em_ilu0 *F, int nnz) {
  em_err err = EM_OK;
  cusparseMatDescr_t d = NULL;
  csrilu02Info_t info = NULL;
  void *buf = NULL;
  int bytes = 0, pos = -1;
  EM_CUSPARSE(cusparseCreateMatDescr(&d));
  EM_CUSPARSE_GOTO(err, cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL), done);
  EM_CUSPARSE_GOTO(err, cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ZERO), done);
  EM_CUSPARSE_GOTO(err, cusparseCreateCsrilu02Info(&info), done);
  EM_CUSPARSE_GOTO(
      err,
      cusparseZcsrilu02_bufferSize(c->h, c->n, nnz, d, c->val, c->rowptr, c->col, info, &bytes),
      done);
  EM_TRY_GOTO(err, em_dev_alloc(&buf, NULL, bytes > 0 ? (size_t)bytes : 0, NULL, "csrilu02 buffer"),
              done);
  EM_CUSPARSE_GOTO(err,
                   cusparseZcsrilu02_analysis(c->h, c->n, nnz, d, c->val, c->rowptr, c->col, info,
                                              CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf),
                   done);
  if (cusparseXcsrilu02_zeroPivot(c->h, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) {
    err = EM_RAISE(EM_ERR_NUMERIC, "ILU(0) (cuSPARSE): row %d has no diagonal entry",
                   pos >= 0 && pos < c->n ? F->iperm[pos] : pos);
    goto done;
  }
  EM_CUSPARSE_GOTO(err,
                   cusparseZcsrilu02(c->h, c->n, nnz, d, c->val, c->rowptr, c->col, info,
                                     CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf),
                   done);
  if (cusparseXcsrilu02_zeroPivot(c->h, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) {
    err = EM_RAISE(EM_ERR_NUMERIC, "ILU(0) (cuSPARSE): pivot of row %d is zero",
                   pos >= 0 && pos < c->n ? F->iperm[pos] : pos);
    goto done;
  }
done:
  em_dev_free(&buf);
  if (info) cusparseDestroyCsrilu02Info(info);
  cusparseDestroyMatDescr(d);
  return err;
}

/* SpSV descriptors, buffers and analysis for one triangle */
static em_err spsv_setup(ilu0_cusparse *c, int upper, int nnz) {
  cusparseSpMatDescr_t *m = upper ? &c->U : &c->L;
  cusparseSpSVDescr_t *s = upper ? &c->sU : &c->sL;
  void **buf = upper ? &c->bufU : &c->bufL;
  cudaDataType t = c->single ? CUDA_C_32F : CUDA_C_64F;
  cusparseFillMode_t fill = upper ? CUSPARSE_FILL_MODE_UPPER : CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t diag = upper ? CUSPARSE_DIAG_TYPE_NON_UNIT : CUSPARSE_DIAG_TYPE_UNIT;
  cuDoubleComplex one = {1, 0};
  cuComplex onef = {1, 0};
  const void *alpha = c->single ? (const void *)&onef : (const void *)&one;
  size_t bytes = 0;
  EM_CUSPARSE(cusparseCreateCsr(m, c->n, c->n, nnz, c->rowptr, c->col, c->val, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t));
  EM_CUSPARSE(cusparseSpMatSetAttribute(*m, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
  EM_CUSPARSE(cusparseSpMatSetAttribute(*m, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
  EM_CUSPARSE(cusparseSpSV_createDescr(s));
  cusparseDnVecDescr_t in = upper ? c->v2 : c->v1, out = upper ? c->v1 : c->v2;
  EM_CUSPARSE(cusparseSpSV_bufferSize(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, *m, in, out, t,
                                      CUSPARSE_SPSV_ALG_DEFAULT, *s, &bytes));
  EM_TRY(em_dev_alloc(buf, NULL, bytes, &c->bytes, "cusparseSpSV buffer"));
  EM_CUSPARSE(cusparseSpSV_analysis(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, *m, in, out, t,
                                    CUSPARSE_SPSV_ALG_DEFAULT, *s, *buf));
  return EM_OK;
}

static em_err build(ilu0_cusparse *c, const em_ilu0 *F) {
  const em_csr *A = F->Apc;
  size_t n = (size_t)A->n_rows, nnz = (size_t)A->nnz;
  int32_t *rp = NULL;
  em_err err = EM_OK;
  EM_CHECK(A->nnz < INT32_MAX, EM_ERR_UNSUPPORTED,
           "the cuSPARSE ILU(0) takes 32-bit offsets: %lld nonzeros are too many (use the "
           "'levels' triangular solve)",
           (long long)A->nnz);
  EM_CUSPARSE(cusparseCreate(&c->h));
  EM_CUSPARSE(cusparseSetStream(c->h, 0));
  EM_TRY(em_calloc(&rp, n + 1, sizeof *rp, "32-bit row offsets"));
  for (size_t i = 0; i <= n; i++) rp[i] = (int32_t)A->rowptr[i];
  EM_TRY_GOTO(err, em_dev_alloc((void **)&c->rowptr, rp, (n + 1) * 4, &c->bytes, "ILU row offsets"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc((void **)&c->col, A->colind, nnz * 4, &c->bytes, "ILU columns"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc(&c->val, A->val, nnz * 16, &c->bytes, "ILU values"), done);
  EM_TRY_GOTO(err, em_dev_alloc((void **)&c->perm, F->perm, n * 4, &c->bytes, "ILU permutation"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc((void **)&c->iperm, F->iperm, n * 4, &c->bytes, "ILU permutation"),
              done);
  EM_TRY_GOTO(err, factor(c, F, (int)nnz), done);
  if (c->single) { /* convert the factors, free the double copy */
    void *f = NULL;
    EM_TRY_GOTO(err, em_dev_alloc(&f, NULL, nnz * 8, &c->bytes, "ILU single values"), done);
    err = em_sv_cuda_convert((int64_t)nnz, c->val, 0, f, 1, NULL);
    em_dev_free(&c->val);
    c->bytes -= nnz * 16;
    c->val = f;
    if (err) goto done;
  }
  size_t es = c->single ? 8 : 16;
  cudaDataType t = c->single ? CUDA_C_32F : CUDA_C_64F;
  EM_TRY_GOTO(err, em_dev_alloc(&c->y1, NULL, n * es, &c->bytes, "ILU work vector"), done);
  EM_TRY_GOTO(err, em_dev_alloc(&c->y2, NULL, n * es, &c->bytes, "ILU work vector"), done);
  EM_CUSPARSE_GOTO(err, cusparseCreateDnVec(&c->v1, c->n, c->y1, t), done);
  EM_CUSPARSE_GOTO(err, cusparseCreateDnVec(&c->v2, c->n, c->y2, t), done);
  EM_TRY_GOTO(err, spsv_setup(c, 0, (int)nnz), done);
  EM_TRY_GOTO(err, spsv_setup(c, 1, (int)nnz), done);
done:
  em_free(&rp);
  return err;
}

em_err em_pc_ilu0_build_cusparse(em_ilu0 *F, em_pc *pc) {
  ilu0_cusparse *c = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&c, 1, sizeof *c, "cuSPARSE ILU(0) preconditioner"), done);
  pc->data = c;
  pc->ops = &ILU0_CUSPARSE; /* from here on, destroy frees whatever was made */
  pc->info.impl = "cusparse-spsv";
  c->n = F->n;
  c->single = pc->opts.prec == EM_PREC_SINGLE;
  if (c->n > 0) EM_TRY_GOTO(err, build(c, F), done);
  pc->info.bytes = c->bytes;
done:
  em_ilu0_destroy(&F);
  return err;
}
