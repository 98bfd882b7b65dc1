/* csrop_impl.h - the solver's own CSR operator (private to solver/). */
#ifndef EM_SOLVER_CSROP_IMPL_H
#define EM_SOLVER_CSROP_IMPL_H

#include "em_solver.h"

struct em_csrop {
  em_backend backend; /* where the copy lives */
  em_prec prec;       /* of the values and the vectors */
  int32_t n;          /* rows = columns */
  int64_t nnz;
  int64_t *rowptr; /* CPU copy (NULL on the GPU) */
  int32_t *colind;
  void *val;     /* em_cplx or em_cplxf */
  int32_t *part; /* CPU: n_part + 1 row bounds, equal nonzeros each */
  int n_part;
  void *cuda;   /* GPU: cuSPARSE state (csrop_cuda.c) */
  size_t bytes; /* of the copy */
};

#ifdef EM_HAVE_CUDA
em_err em_csrop_cuda_create(em_csrop *c, const em_csr *A);
em_err em_csrop_cuda_apply(em_csrop *c, const void *x, void *y);
void em_csrop_cuda_destroy(em_csrop *c);
#endif

#endif
