/* arnoldi.h - the Arnoldi process and the Givens least-squares solve that
 * GMRES and FGMRES share (private to solver/). */
#ifndef EM_SOLVER_ARNOLDI_H
#define EM_SOLVER_ARNOLDI_H

#include "ksp_impl.h"

typedef struct ksp_arnoldi {
  int m;       /* restart length: columns of H */
  em_cplx *H;  /* (m+1) x m Hessenberg matrix, column-major, rotated in
                  place into the upper triangle R */
  double *c;   /* m Givens cosines (real) */
  em_cplx *s;  /* m Givens sines */
  em_cplx *g;  /* m+1: beta e1, rotated along */
  em_cplx *y;  /* m: least-squares coefficients */
  em_cplx *h;  /* m+1: CGS2 projections, first pass */
  em_cplx *h2; /* m+1: second pass */
} ksp_arnoldi;

em_err ksp_arnoldi_create(int m, ksp_arnoldi *a);
void ksp_arnoldi_destroy(ksp_arnoldi *a);
/* Column j of H from w = V[:, j+1] (holding A M^-1 v_j): classical
 * Gram-Schmidt twice against V[:, 0..j] (two block products, no loop of
 * dots), then h_{j+1,j} = ||w|| and w /= h_{j+1,j} when it is non-zero. */
em_err ksp_arnoldi_orth(em_ksp_ctx *k, ksp_arnoldi *a, void *V, int j);
/* Apply the earlier rotations to column j, make rotation j, rotate g.
 * Returns |g_{j+1}|, the residual norm of the least-squares solution;
 * *singular = 1 when R_jj vanished (H singular: breakdown). */
double ksp_arnoldi_rotate(ksp_arnoldi *a, int j, int *singular);
/* y[0..cols) = R^-1 g over the first cols columns. */
void ksp_arnoldi_solve(ksp_arnoldi *a, int cols);
/* One GMRES cycle from V[:, 0] = r, ||r|| = beta: up to m Arnoldi steps
 * on A M^-1 with the rotations and the stop test after each, then a.y =
 * R^-1 g.  The preconditioned directions go to Z[:, j] (FGMRES keeps them)
 * or, with Z NULL, to the one vector z.  *cols: columns made; *stop: the
 * stop test's answer (0: m columns, not converged); what: the name of a
 * breakdown ("GMRES Hessenberg pivot"). */
em_err ksp_arnoldi_cycle(em_ksp_ctx *k, ksp_arnoldi *a, double beta, void *V, void *Z, void *z,
                         const char *what, int *cols, int *stop);

#endif
