/* cocr.c - conjugate orthogonal conjugate residual (Sogabe & Zhang 2007)
 * for complex symmetric A, preconditioned with a symmetric M: the CR
 * recurrences for M^-1 A with x^T y in place of x^H y.  It minimises a
 * smoother residual than COCG at the cost of one more vector update.
 * Per iteration: 1 operator and 1 preconditioner application, 3
 * synchronising reductions. */
#include <math.h>

#include "ksp_impl.h"

em_err em_ksp_cocr(em_ksp_ctx *k, const void *b, void *x) {
  em_vec *v = k->v;
  const em_vec_ops *op = v->ops;
  em_err err = EM_OK;
  void *W = NULL;
  EM_TRY(ksp_alloc(k, 6, &W));
  void *r = em_vec_col(v, W, 0), *z = em_vec_col(v, W, 1), *w = em_vec_col(v, W, 2);
  void *p = em_vec_col(v, W, 3), *q = em_vec_col(v, W, 4), *u = em_vec_col(v, W, 5);
  double rnorm;
  em_cplx rho, d[3];
  EM_TRY_GOTO(err, ksp_residual(k, b, x, r, &rnorm), done); /* r = b - A x */
  if (ksp_stop(k, rnorm)) goto done;
  EM_TRY_GOTO(err, ksp_precond(k, r, z), done); /* z = M^-1 r */
  EM_TRY_GOTO(err, ksp_matvec(k, z, w), done);  /* w = A z */
  {
    const void *xs[3] = {z, z, w}, *ys[3] = {w, z, w};
    int cs[3] = {0, 1, 1};
    EM_TRY_GOTO(err, op->dots(v, 3, xs, ys, cs, d), done); /* z^T w, |z|^2, |w|^2 */
  }
  rho = d[0];
  if (ksp_breakdown(k, rho, sqrt(fabs(creal(d[1])) * fabs(creal(d[2]))), "z^T A z")) goto done;
  EM_TRY_GOTO(err, op->copy(v, z, p), done); /* p = z */
  EM_TRY_GOTO(err, op->copy(v, w, q), done); /* q = w = A p */
  for (;;) {
    EM_TRY_GOTO(err, ksp_precond(k, q, u), done); /* u = M^-1 q */
    {
      const void *xs[3] = {q, q, u}, *ys[3] = {u, q, u};
      int cs[3] = {0, 1, 1};
      EM_TRY_GOTO(err, op->dots(v, 3, xs, ys, cs, d), done); /* q^T u, |q|^2, |u|^2 */
    }
    if (ksp_breakdown(k, d[0], sqrt(fabs(creal(d[1])) * fabs(creal(d[2]))), "q^T M^-1 q")) break;
    em_cplx alpha = rho / d[0];                           /* alpha = z^T A z / q^T M^-1 q */
    EM_TRY_GOTO(err, em_vec_axpy(v, alpha, p, x), done);  /* x += alpha p */
    EM_TRY_GOTO(err, em_vec_axpy(v, -alpha, q, r), done); /* r -= alpha q */
    EM_TRY_GOTO(err, em_vec_axpy(v, -alpha, u, z), done); /* z -= alpha u */
    EM_TRY_GOTO(err, em_vec_norm(v, r, &rnorm), done);
    k->it++;
    if (ksp_stop(k, rnorm)) break;
    EM_TRY_GOTO(err, ksp_matvec(k, z, w), done); /* w = A z */
    {
      const void *xs[3] = {z, z, w}, *ys[3] = {w, z, w};
      int cs[3] = {0, 1, 1};
      EM_TRY_GOTO(err, op->dots(v, 3, xs, ys, cs, d), done); /* z^T w, |z|^2, |w|^2 */
    }
    if (ksp_breakdown(k, d[0], sqrt(fabs(creal(d[1])) * fabs(creal(d[2]))), "z^T A z")) break;
    em_cplx beta = d[0] / rho; /* beta = rho_new / rho */
    rho = d[0];
    EM_TRY_GOTO(err, op->axpby(v, 1.0, z, beta, p), done); /* p = z + beta p */
    EM_TRY_GOTO(err, op->axpby(v, 1.0, w, beta, q), done); /* q = w + beta q */
  }
done:
  ksp_free(k, &W);
  return err;
}
