/* pmg_impl.h - the order-group V-cycle (private to solver/pmg): levels,
 * their smoothers, the coarse factor, and the few vector operations the
 * cycle needs on each backend.
 *
 * Numbering: the operator's (DOFs by order group, permuted inside groups
 * only), so group g is the row range offset[g] .. offset[g+1]-1 and the
 * restriction to the first groups is a leading sub-vector. */
#ifndef EM_SOLVER_PMG_IMPL_H
#define EM_SOLVER_PMG_IMPL_H

#include "pc_impl.h"

/* Largest entity block of the block-Jacobi smoother. */
#define EM_PMG_MAX_BLOCK 8

/* Vector operations on the pc's backend, complex double. */
typedef struct pmg_vops {
  em_err (*zero)(int32_t n, void *x);                              /* x = 0 */
  em_err (*copy)(int32_t n, const void *x, void *y);               /* y = x */
  em_err (*sub)(int32_t n, const void *a, const void *b, void *c); /* c = a - b */
  em_err (*axpy)(int32_t n, double w, const void *x, void *y);     /* y += w x */
  em_err (*sync)(void);                 /* wait for queued work (timings) */
  em_err (*alloc)(int32_t n, void **x); /* a work vector of n entries */
  void (*release)(void **x);            /* free it; *x = NULL */
} pmg_vops;

extern const pmg_vops em_pmg_vops_cpu;
#ifdef EM_HAVE_CUDA
extern const pmg_vops em_pmg_vops_cuda;
/* Launchers of pmg_kernels.cu: c = a - b, y += w x (complex double). */
em_err em_pmg_cuda_sub(int32_t n, const void *a, const void *b, void *c);
em_err em_pmg_cuda_axpy(int32_t n, double w, const void *x, void *y);
#endif

/* One smoothed level: rows a .. b-1. */
typedef struct pmg_level {
  int32_t a, b;
  em_spmat *rows; /* A(a:b, :), for the level's residual */
  em_spmat *dinv; /* omega times the inverse of the block diagonal of
                     A(a:b, a:b) (Jacobi, block); NULL with ILU(0) */
  em_pc *ilu;     /* ILU(0) of A(a:b, a:b) */
  double omega;
  int32_t blocks; /* diagonal blocks found (block Jacobi) */
} pmg_level;

typedef struct em_pmg {
  em_pmg_opts o;
  int32_t n;
  int nlev; /* smoothed levels, the highest first */
  pmg_level lev[EM_MAX_ORDER];
  int32_t nc;      /* coarse unknowns: the first nc */
  em_spmat *crows; /* A(0:nc, :) */
  em_pc *coarse;   /* direct factor of A(0:nc, 0:nc) */
  void *t, *w, *u; /* work vectors, n entries each */
  const pmg_vops *v;
  em_backend be;
} em_pmg;

/* The block-diagonal inverse of A(a:b, a:b) + j shift |diag|, times omega,
 * as a CSR in local indices: blocks of the rows with identical patterns
 * (at most EM_PMG_MAX_BLOCK; 1 for point Jacobi).  EM_ERR_NUMERIC names a
 * singular block. */
em_err em_pmg_block_inverse(const em_csr *A, int32_t a, int32_t b, int block, double shift,
                            double omega, em_csr **Dinv, int32_t *n_blocks);

/* A(r0:r1, c0:c1) as a CSR in local indices. */
em_err em_pmg_submatrix(const em_csr *A, int32_t r0, int32_t r1, int32_t c0, int32_t c1,
                        em_csr **B);

#endif
