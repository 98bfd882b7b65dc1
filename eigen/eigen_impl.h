/* eigen_impl.h - private pieces of the eigen solver. */
#ifndef EM_EIGEN_IMPL_H
#define EM_EIGEN_IMPL_H

#include "em_eigen.h"

/* ---- dense projected problem (LAPACK, dense.c) */

/* Schur form B = Z R Z^H of the m x m matrix B (column-major, ld m): on
 * return B holds R (upper triangular), Z the unitary Schur vectors, w the
 * eigenvalues diag(R). */
em_err em_eigen_schur(int m, em_cplx *B, em_cplx *Z, em_cplx *w);
/* Reorder the Schur form so the eigenvalues with keep[i] != 0 lead
 * (R and Z updated, w = the new diagonal). */
em_err em_eigen_schur_reorder(int m, const int *keep, em_cplx *R, em_cplx *Z, em_cplx *w);
/* Eigenvectors X (m x m, column i for w[i], unit 2-norm) of the upper
 * triangular R, back-transformed by Z: eigenvectors of Z R Z^H. */
em_err em_eigen_trivec(int m, const em_cplx *R, const em_cplx *Z, em_cplx *X);

/* ---- the shift-and-invert operator (shift_invert.c) */

typedef struct em_eigen_op {
  const em_csr *S, *T;
  em_csr *A; /* S - sigma T */
  em_direct *F;
  int refine;
  em_cplx *r, *d; /* work */
  int64_t n_apply;
  double t_solve;
} em_eigen_op;

/* Build S - sigma T and factor it. */
em_err em_eigen_op_create(const em_csr *S, const em_csr *T, em_cplx sigma, const em_eigen_opts *o,
                          em_eigen_op *op);
/* y = (S - sigma T)^-1 T x, refined against the exact S - sigma T. */
em_err em_eigen_op_apply(em_eigen_op *op, const em_cplx *x, em_cplx *y);
void em_eigen_op_destroy(em_eigen_op *op);

#endif
