/* cocg.c - conjugate orthogonal CG (van der Vorst & Melissen 1990) for
 * complex symmetric A = A^T: CG with the unconjugated form x^T y, and a
 * symmetric preconditioner M = M^T (Jacobi; ILU(0) of a symmetric matrix,
 * U = D L^T).  Per iteration: 1 operator and 1 preconditioner application,
 * 3 synchronising reductions.  Breaks down when r^T z or p^T A p vanishes,
 * which can happen for a non-zero vector (r = [1, j]: r^T r = 0). */
#include <math.h>

#include "ksp_impl.h"

em_err em_ksp_cocg(em_ksp_ctx *k, const void *b, void *x) {
  em_vec *v = k->v;
  const em_vec_ops *op = v->ops;
  em_err err = EM_OK;
  void *W = NULL;
  EM_TRY(ksp_alloc(k, 4, &W));
  void *r = em_vec_col(v, W, 0), *z = em_vec_col(v, W, 1), *p = em_vec_col(v, W, 2);
  void *q = em_vec_col(v, W, 3);
  double rnorm;
  em_cplx rho, d[3];
  EM_TRY_GOTO(err, ksp_residual(k, b, x, r, &rnorm), done); /* r = b - A x */
  if (ksp_stop(k, rnorm)) goto done;
  EM_TRY_GOTO(err, ksp_precond(k, r, z), done); /* z = M^-1 r */
  {
    const void *xs[2] = {r, z}, *ys[2] = {z, z};
    int cs[2] = {0, 1};
    EM_TRY_GOTO(err, op->dots(v, 2, xs, ys, cs, d), done); /* r^T z, z^H z */
  }
  rho = d[0];
  if (ksp_breakdown(k, rho, rnorm * sqrt(fabs(creal(d[1]))), "r^T z")) goto done;
  EM_TRY_GOTO(err, op->copy(v, z, p), done); /* p = z */
  for (;;) {
    EM_TRY_GOTO(err, ksp_matvec(k, p, q), done); /* q = A p */
    {
      const void *xs[3] = {p, p, q}, *ys[3] = {q, p, q};
      int cs[3] = {0, 1, 1};
      EM_TRY_GOTO(err, op->dots(v, 3, xs, ys, cs, d), done); /* p^T q, |p|^2, |q|^2 */
    }
    if (ksp_breakdown(k, d[0], sqrt(fabs(creal(d[1])) * fabs(creal(d[2]))), "p^T A p")) break;
    em_cplx alpha = rho / d[0];                           /* alpha = rho / p^T A p */
    EM_TRY_GOTO(err, em_vec_axpy(v, alpha, p, x), done);  /* x += alpha p */
    EM_TRY_GOTO(err, em_vec_axpy(v, -alpha, q, r), done); /* r -= alpha q */
    EM_TRY_GOTO(err, em_vec_norm(v, r, &rnorm), done);
    k->it++;
    if (ksp_stop(k, rnorm)) break;
    EM_TRY_GOTO(err, ksp_precond(k, r, z), done); /* z = M^-1 r */
    {
      const void *xs[2] = {r, z}, *ys[2] = {z, z};
      int cs[2] = {0, 1};
      EM_TRY_GOTO(err, op->dots(v, 2, xs, ys, cs, d), done); /* r^T z, z^H z */
    }
    if (ksp_breakdown(k, d[0], rnorm * sqrt(fabs(creal(d[1]))), "r^T z")) break;
    em_cplx beta = d[0] / rho; /* beta = rho_new / rho */
    rho = d[0];
    EM_TRY_GOTO(err, op->axpby(v, 1.0, z, beta, p), done); /* p = z + beta p */
  }
done:
  ksp_free(k, &W);
  return err;
}
