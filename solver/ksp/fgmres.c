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
    int cols, stop;
    EM_TRY_GOTO(err,
                ksp_arnoldi_cycle(k, &a, beta, V, Z, NULL, "FGMRES Hessenberg pivot", &cols, &stop),
                done);
    if (cols > 0) {
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
