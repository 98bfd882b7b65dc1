/* em_eigen.h - eigenpairs of the generalized problem
 *
 *   S x = lambda T x,      S, T complex symmetric (not Hermitian with a PML),
 *
 * nearest a shift sigma, by shift-and-invert Krylov-Schur (Stewart 2001):
 * the Krylov space of OP = (S - sigma T)^-1 T, whose eigenvalues
 * theta = 1 / (lambda - sigma) are largest in magnitude for the lambda
 * nearest sigma.  S - sigma T is factored once with the sparse direct
 * LDL^T (em_direct, CPU or GPU), each OP application is a solve plus
 * iterative refinement against the exact S - sigma T.
 *
 * The curl-curl problem has a null space of gradients (S grad phi = 0,
 * lambda = 0, multiplicity about the number of vertices plus the higher
 * order gradients).  They appear in OP at theta = -1/sigma: further from
 * the wanted end than every eigenvalue with |lambda - sigma| < |sigma|, but
 * a large cluster.  Ritz values with |lambda| < null_frac |sigma| are never
 * wanted: Krylov-Schur purges them at every restart, so they cannot take
 * the places of physical modes (docs/eigen.md).
 *
 * The dense projected problems use LAPACK (zgees, ztrsen, ztrevc); a build
 * without LAPACK returns EM_ERR_UNSUPPORTED (em_eigen_built).
 */
#ifndef EM_EIGEN_H
#define EM_EIGEN_H

#include "em_core.h"
#include "em_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct em_eigen_opts {
  int nev;          /* eigenpairs wanted (>= 1) */
  int ncv;          /* Krylov subspace size (0: max(2 nev + 10, 20)) */
  double tol;       /* Ritz residual |beta y_m| <= tol |theta| (default 1e-10) */
  int max_restarts; /* default 300 */
  em_cplx sigma;    /* the shift, in lambda units */
  double null_frac; /* |lambda| < null_frac |sigma| is the null space
                       (default 1e-3) */
  int refine;       /* iterative refinement steps per solve (default 3) */
  em_direct_opts direct;
  uint64_t seed; /* start vector (default 1) */
  const em_log *log;
  const em_cancel *cancel; /* polled at every restart (the factor polls
                              direct.cancel): EM_ERR_CANCELLED (NULL: never) */
} em_eigen_opts;

void em_eigen_opts_default(em_eigen_opts *o);
/* 1 when this build has LAPACK (the eigen solver works). */
int em_eigen_built(void);

typedef struct em_eigen_result {
  int n;           /* pairs returned (<= nev), nearest sigma first */
  int32_t dim;     /* rows of each vector */
  em_cplx *lambda; /* [n] */
  em_cplx *x;      /* [dim x n] column-major, ||x||_2 = 1 */
  double *resid;   /* [n] ||S x - lambda T x|| / (||S x|| + |lambda| ||T x||) */
  int converged;   /* all nev pairs reached tol */
  int restarts;
  int64_t n_op;             /* OP applications */
  double t_factor, t_solve; /* seconds */
  em_direct_info direct;    /* the factor of S - sigma T */
} em_eigen_result;

/* S and T: the same square pattern (sorted columns).  On a failure to
 * converge within max_restarts the pairs found are returned with
 * converged = 0 (not an error). */
em_err em_eigen_solve(const em_csr *S, const em_csr *T, const em_eigen_opts *o, em_eigen_result *r);
void em_eigen_result_free(em_eigen_result *r);

#ifdef __cplusplus
}
#endif
#endif /* EM_EIGEN_H */
