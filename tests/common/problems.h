/* problems.h - test systems for the solver tests and the solver benchmark:
 * complex symmetric matrices with known structure, built on the host. */
#ifndef EM_SOLVER_TEST_PROBLEMS_H
#define EM_SOLVER_TEST_PROBLEMS_H

#include "em_core.h"

/* 5-point Laplacian on an nx x ny grid (Dirichlet), diagonal 4 - shift. */
em_err prob_laplace2d(int nx, int ny, em_cplx shift, em_csr **A);
/* 7-point Laplacian on nx x ny x nz, diagonal 6 - shift. */
em_err prob_laplace3d(int nx, int ny, int nz, em_cplx shift, em_csr **A);
/* Lowest-order Nedelec (Whitney) edge elements on the unit box cut into
 * n^3 cells (6 tets each, jittered): curl-curl - k0^2 eps_r mass with
 * eps_r = 1 - j tan_delta, PEC walls (boundary edges removed).  A real FEM
 * matrix of the kind assembly/ produces at order 1: complex symmetric,
 * indefinite once k0 passes the first cavity resonance. */
em_err prob_curlcurl(int n, double k0, double tan_delta, em_csr **A);
/* Random symmetric pattern (about deg entries per row), random complex
 * values, diagonal dominant by a factor dom (> 1: definite-ish). */
em_err prob_random_sym(int32_t n, int deg, double dom, unsigned long long seed, em_csr **A);
/* b = A x_true for a smooth complex x_true (x_i = exp(j 0.01 i)). */
void prob_rhs(const em_csr *A, em_cplx *x_true, em_cplx *b);

#endif
