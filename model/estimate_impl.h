/* estimate_impl.h - private to model/estimate*.c: the discrete field of a
 * straight tet as a polynomial in local coordinates, so that the residual
 * estimator (estimate.c) gets the exact first and second derivatives of
 * E_h that curl(nu curl E_h) and div(eps E_h) need; the basis itself only
 * gives values and curls. */
#ifndef EM_ESTIMATE_IMPL_H
#define EM_ESTIMATE_IMPL_H

#include "em_model.h"

#define EST_NM 20 /* monomials of total degree <= 3 in 3 variables */
#define EST_NB 45 /* em_basis_count(3) */

/* Interpolation of a vector field of degree <= p on a tet: the monomials
 * xi^e = xi_1^e1 xi_2^e2 xi_3^e3 (xi_a = lambda_a, a = 1..3, so lambda_0 =
 * 1 - xi_1 - xi_2 - xi_3), |e| <= p, are unisolvent on the principal
 * lattice lambda = i / p (sum i = p); vinv is the inverse of the lattice
 * Vandermonde matrix V[i][m] = xi_i^e_m. */
typedef struct est_fit {
  int p;                 /* degree, 1..3 */
  int n;                 /* monomials = lattice points = (p+1)(p+2)(p+3)/6 */
  int8_t e[EST_NM][3];   /* exponents of monomial m */
  double lam[EST_NM][4]; /* barycentric coordinates of lattice point i */
  double vinv[EST_NM][EST_NM];
} est_fit;

/* The lattice, the exponents and V^-1 (Gaussian elimination, partial
 * pivoting); EM_ERR_NUMERIC if V is singular (it is not). */
em_err est_fit_init(int p, est_fit *F);

/* A field of one tet: coefficients c[k][m] of component k (x, y, z) in the
 * monomials, and the gradients g[a][j] = d xi_a / d x_j (metres^-1). */
typedef struct est_poly {
  const est_fit *F;
  em_cplx c[3][EST_NM];
  double g[3][3];
} est_poly;

/* The field at barycentric point lam and its derivatives in x:
 * E[k], J[k][j] = dE_k/dx_j, Hs[k][j][l] = d2E_k/dx_j dx_l for j != k
 * only (those the curl of a curl reads; the others are not written)
 * (J, Hs NULL: not wanted). */
void est_poly_eval(const est_poly *P, const double lam[4], em_cplx E[3], em_cplx J[3][3],
                   em_cplx Hs[3][3][3]);

/* The monomials' terms at lam: b[m][0] = xi^e_m, b[m][1 + a] its first
 * derivative in xi_a, b[m][4 ..] its second ones (00 01 02 11 12 22);
 * they depend on the point alone, so a rule's are made once (estimate.c)
 * and est_poly_eval_terms reads them (est_poly_eval = both). */
#define EST_NT 10
void est_poly_terms(const est_fit *F, const double lam[4], double b[EST_NM][EST_NT]);
void est_poly_eval_terms(const est_poly *P, const double (*b)[EST_NT], em_cplx E[3],
                         em_cplx J[3][3], em_cplx Hs[3][3][3]);

#endif
