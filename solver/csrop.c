/* csrop.c - the solver's own CSR operator: y = A x with OpenMP over row
 * ranges of equal nonzero counts (each thread first-touches the rows it
 * will multiply), or cuSPARSE on the GPU (csrop_cuda.c). */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "csrop_impl.h"

/* y_i = sum_k a_ik x_k over rows r0..r1-1, complex products in real
 * arithmetic so the loop stays branch-free */
#define CSR_ROWS(VT, RT, CRE, CIM)                                \
  do {                                                            \
    const VT *a = c->val, *xx = x;                                \
    VT *yy = y;                                                   \
    for (int32_t i = r0; i < r1; i++) {                           \
      RT sr = 0, si = 0;                                          \
      for (int64_t k = c->rowptr[i]; k < c->rowptr[i + 1]; k++) { \
        VT av = a[k], xv = xx[c->colind[k]];                      \
        sr += CRE(av) * CRE(xv) - CIM(av) * CIM(xv);              \
        si += CRE(av) * CIM(xv) + CIM(av) * CRE(xv);              \
      }                                                           \
      yy[i] = sr + I * si;                                        \
    }                                                             \
  } while (0)

static em_err csrop_apply(void *ctx, const void *x, void *y) {
  em_csrop *c = ctx;
#ifdef EM_HAVE_CUDA
  if (c->backend == EM_BACKEND_CUDA) return em_csrop_cuda_apply(c, x, y);
#endif
#pragma omp parallel for schedule(static, 1) if (c->n_part > 1)
  for (int t = 0; t < c->n_part; t++) {
    int32_t r0 = c->part[t], r1 = c->part[t + 1];
    if (c->prec == EM_PREC_SINGLE)
      CSR_ROWS(em_cplxf, float, crealf, cimagf);
    else
      CSR_ROWS(em_cplx, double, creal, cimag);
  }
  return EM_OK;
}

/* row bounds of n_part ranges holding about nnz / n_part entries each */
static void partition(const em_csr *A, int n_part, int32_t *part) {
  int32_t i = 0;
  part[0] = 0;
  for (int t = 1; t < n_part; t++) {
    int64_t target = A->nnz / n_part * t + (A->nnz % n_part) * t / n_part;
    while (i < A->n_rows && A->rowptr[i] < target) i++;
    part[t] = i;
  }
  part[n_part] = A->n_rows;
}

static em_err cpu_copy(em_csrop *c, const em_csr *A) {
#ifdef _OPENMP
  c->n_part = A->n_rows > 4096 ? omp_get_max_threads() : 1;
#else
  c->n_part = 1;
#endif
  size_t es = em_prec_size(c->prec);
  EM_TRY(em_calloc(&c->part, (size_t)c->n_part + 1, sizeof *c->part, "CSR row partition"));
  EM_TRY(em_calloc(&c->rowptr, (size_t)A->n_rows + 1, sizeof *c->rowptr, "CSR row pointers"));
  EM_TRY(em_calloc(&c->colind, (size_t)A->nnz, sizeof *c->colind, "CSR column indices"));
  EM_TRY(em_calloc(&c->val, (size_t)A->nnz, es, "CSR values"));
  partition(A, c->n_part, c->part);
  int single = c->prec == EM_PREC_SINGLE;
#pragma omp parallel for schedule(static, 1) if (c->n_part > 1)
  for (int t = 0; t < c->n_part; t++) {
    for (int32_t i = c->part[t]; i < c->part[t + 1]; i++) {
      c->rowptr[i + 1] = A->rowptr[i + 1];
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        c->colind[k] = A->colind[k];
        if (single)
          ((em_cplxf *)c->val)[k] = (em_cplxf)A->val[k];
        else
          ((em_cplx *)c->val)[k] = A->val[k];
      }
    }
  }
  c->bytes = (size_t)A->nnz * (es + sizeof(int32_t)) + ((size_t)A->n_rows + 1) * sizeof(int64_t);
  return EM_OK;
}

em_err em_csrop_create(const em_csr *A, em_backend backend, em_prec prec, em_csrop **out) {
  EM_CHECK(out, EM_ERR_ARG, "em_csrop_create: NULL result pointer");
  *out = NULL;
  EM_CHECK(A, EM_ERR_ARG, "em_csrop_create: NULL matrix");
  EM_CHECK(A->n_rows == A->n_cols, EM_ERR_ARG,
           "em_csrop_create: an operator needs a square matrix, not %d x %d", A->n_rows, A->n_cols);
  EM_CHECK(prec == EM_PREC_DOUBLE || prec == EM_PREC_SINGLE, EM_ERR_ARG,
           "em_csrop_create: unknown precision %d", (int)prec);
  EM_CHECK(backend == EM_BACKEND_CPU || backend == EM_BACKEND_CUDA, EM_ERR_ARG,
           "em_csrop_create: unknown backend %d", (int)backend);
#ifndef EM_HAVE_CUDA
  EM_CHECK(backend == EM_BACKEND_CPU, EM_ERR_UNSUPPORTED,
           "em_csrop_create: the CUDA backend was requested but this build has no CUDA");
#endif
  EM_TRY(em_csr_check(A, "operator matrix"));
  em_csrop *c = NULL;
  EM_TRY(em_calloc(&c, 1, sizeof *c, "CSR operator"));
  c->backend = backend;
  c->prec = prec;
  c->n = A->n_rows;
  c->nnz = A->nnz;
  em_err err;
#ifdef EM_HAVE_CUDA
  if (backend == EM_BACKEND_CUDA)
    err = em_csrop_cuda_create(c, A);
  else
#endif
    err = cpu_copy(c, A);
  if (err) {
    em_error_trace(err, __FILE__, __LINE__);
    em_csrop_destroy(&c);
    return err;
  }
  *out = c;
  return EM_OK;
}

void em_csrop_operator(em_csrop *c, em_operator *op) {
  op->n = c->n;
  op->backend = c->backend;
  op->prec = c->prec;
  op->ctx = c;
  op->apply = csrop_apply;
}

size_t em_csrop_bytes(const em_csrop *c) {
  return c->bytes;
}

void em_csrop_destroy(em_csrop **c) {
  if (!*c) return;
#ifdef EM_HAVE_CUDA
  if ((*c)->cuda) em_csrop_cuda_destroy(*c);
#endif
  em_free(&(*c)->part);
  em_free(&(*c)->rowptr);
  em_free(&(*c)->colind);
  em_free(&(*c)->val);
  em_free(c);
}
