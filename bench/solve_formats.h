/* solve_formats.h - seed 000's experiment (solve_bench --formats): ILU(0)
 * preconditioned CG and BiCGSTAB with the operator's SpMV in each format
 * (emsolve CSR, CSR-vector, sliced ELLR-T, HYB, HEC, AUTO, and cuSPARSE CSR
 * on the GPU), the triangular solves in each implementation, iterations
 * and the total time with the transfers, side by side in one run. */
#ifndef EM_SOLVE_FORMATS_H
#define EM_SOLVE_FORMATS_H

#include "em_solver.h"

typedef struct sf_opts {
  const char *formats; /* "csr,csr-vector,sellr-t,hyb,hec,auto,cusparse" */
  const char *methods; /* "cg,bicgstab" (cg: COCG, which is CG on real data) */
  const char *trsv;    /* GPU triangular solves: "levels,cusparse" */
  int use_cpu, use_gpu;
  double tol;
  int max_it;
  em_pc_ordering ordering;
  double shift;       /* ILU(0) diagonal shift */
  const char *source; /* what the matrix is, for the report */
  const char *out;    /* directory for formats.md, or NULL */
  int strict;         /* a solve that fails or does not converge is wrong */
} sf_opts;

/* Run the study on A x = b (host arrays); *wrong = 1 when a solve that
 * says converged has a true residual above 100 tol, or that failed (with
 * strict: that did not converge). */
em_err sf_study(const em_csr *A, const em_cplx *b, const sf_opts *o, int *wrong);

/* The cuSPARSE CSR SpMV (CUSPARSE_SPMV_CSR_ALG1, 32-bit indices, complex
 * double) as an em_operator on the GPU (bench/cusparse_op.c; CUDA builds). */
typedef struct bench_csop bench_csop;
em_err bench_csop_create(const em_csr *A, bench_csop **s, em_operator *op);
void bench_csop_destroy(bench_csop **s);

#endif
