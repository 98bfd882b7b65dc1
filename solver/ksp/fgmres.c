/* fgmres.c - flexible GMRES(m) (Saad 1993): right preconditioning where the
 * preconditioner may change from one step to the next (an inner iteration,
 * a mixed-precision ILU), so the preconditioned directions z_j = M_j^-1 v_j
 * are kept and x += Z y.  Costs m more vectors than GMRES, saves the extra
 * preconditioner application at each restart. */
#include "arnoldi.h"

em_err em_ksp_fgmres(em_ksp_ctx *k, const void *b, void *x) {
  em_vec *v = k->v;
  int m = k->o->restart;
  em_err err = EM_OK;
  void *V = NULL, *Z = NULL;
  ksp_arnoldi a;
  EM_TRY(ksp_arnoldi_create(m, &a));
  EM_TRY_GOTO(err, ksp_alloc(k, m + 1, &V), done);
  EM_TRY_GOTO(err, ksp_alloc(k, m, &Z), done);
  double beta;
  EM_TRY_GOTO(err, ksp_residual(k, b, x, V, &beta), done); /* v0 = b - A x */
  if (ksp_stop(k, beta)) goto done;
  for (;;) {
    EM_TRY_GOTO(err, v->ops->scale(v, 1.0 / beta, V), done); /* v0 = r / beta */
    for (int i = 0; i <= m; i++) a.g[i] = 0;
    a.g[0] = beta; /* g = beta e1 */
    int cols = 0, stop = 0;
    for (int j = 0; j < m; j++) {
      void *zj = em_vec_col(v, Z, j);
      EM_TRY_GOTO(err, ksp_precond(k, em_vec_col(v, V, j), zj), done);    /* z_j = M^-1 v_j */
      EM_TRY_GOTO(err, ksp_matvec(k, zj, em_vec_col(v, V, j + 1)), done); /* w = A z_j */
      EM_TRY_GOTO(err, ksp_arnoldi_orth(k, &a, V, j), done);              /* H(:, j), v_{j+1} */
      int singular;
      double res = ksp_arnoldi_rotate(&a, j, &singular);
      if (singular) {
        stop = ksp_breakdown(k, 0, 1, "FGMRES Hessenberg pivot");
        break;
      }
      cols = j + 1;
      k->it++;
      if ((stop = ksp_stop(k, res))) break;
    }
    if (cols > 0) {
      ksp_arnoldi_solve(&a, cols);                                        /* y = R^-1 g */
      EM_TRY_GOTO(err, v->ops->gemv(v, cols, 1.0, Z, a.y, 1.0, x), done); /* x += Z y */
    }
    if (stop) break;
    EM_TRY_GOTO(err, ksp_residual(k, b, x, V, &beta), done); /* restart: v0 = b - A x */
    if (ksp_stop(k, beta)) break;
  }
done:
  ksp_free(k, &V);
  ksp_free(k, &Z);
  ksp_arnoldi_destroy(&a);
  return err;
}
