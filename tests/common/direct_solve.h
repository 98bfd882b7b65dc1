/* direct_solve.h - a plain direct solver for test references (LAPACK).
 *
 * Small systems go to dense LU (zgesv); larger ones are reordered by reverse
 * Cuthill-McKee on the symmetrised graph of A and solved by banded LU with
 * partial pivoting (zgbsv).  Memory ~ n (3 bw + 1) 16 bytes, time ~ 2 n bw^2:
 * fine for test meshes of a few thousand unknowns, not for production.
 * Link with LAPACK::LAPACK and em_mesh (for the RCM ordering). */
#ifndef EM_TEST_DIRECT_SOLVE_H
#define EM_TEST_DIRECT_SOLVE_H

#include "em_core.h"

/* x = A^-1 b for nrhs right-hand sides (b and x column-major n x nrhs, may
 * alias).  EM_ERR_NUMERIC names the zero pivot when A is singular. */
em_err em_test_dense_solve(const em_csr *A, int nrhs, const em_cplx *b, em_cplx *x);

/* Half bandwidth max |perm[i] - perm[j]| after the RCM ordering the solver
 * would use (for logs and for choosing test sizes). */
em_err em_test_bandwidth(const em_csr *A, int32_t *bw);

#endif
