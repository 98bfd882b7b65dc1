/* gmres.c - restarted GMRES(m) with right preconditioning (Saad & Schultz
 * 1986): Arnoldi on A M^-1 (CGS2), complex Givens rotations, x += M^-1 V y
 * at the end of each cycle.  The residual estimate |g_{j+1}| is that of
 * the unpreconditioned system.  Needs no symmetry; robust on indefinite
 * systems where the short recurrences break down, at m+3 vectors of memory. */
#include "arnoldi.h"

em_err em_ksp_gmres(em_ksp_ctx *k, const void *b, void *x) {
  em_vec *v = k->v;
  int m = k->o->restart;
  em_err err = EM_OK;
  void *V = NULL, *W = NULL;
  ksp_arnoldi a;
  EM_TRY(ksp_arnoldi_create(m, &a));
  EM_TRY_GOTO(err, ksp_alloc(k, m + 1, &V), done);
  EM_TRY_GOTO(err, ksp_alloc(k, 2, &W), done);
  void *z = em_vec_col(v, W, 0), *w = em_vec_col(v, W, 1);
  double beta;
  EM_TRY_GOTO(err, ksp_residual(k, b, x, V, &beta), done); /* v0 = b - A x */
  if (ksp_stop(k, beta)) goto done;
  for (;;) {
    int cols, stop;
    EM_TRY_GOTO(err,
                ksp_arnoldi_cycle(k, &a, beta, V, NULL, z, "GMRES Hessenberg pivot", &cols, &stop),
                done);
    if (cols > 0) {
      EM_TRY_GOTO(err, v->ops->gemv(v, cols, 1.0, V, a.y, 0.0, w), done); /* w = V y */
      EM_TRY_GOTO(err, ksp_precond(k, w, z), done);                       /* x += M^-1 w */
      EM_TRY_GOTO(err, em_vec_axpy(v, 1.0, z, x), done);
    }
    if (stop) break;
    EM_TRY_GOTO(err, ksp_residual(k, b, x, V, &beta), done); /* restart: v0 = b - A x */
    if (ksp_stop(k, beta)) break;
  }
done:
  ksp_free(k, &V);
  ksp_free(k, &W);
  ksp_arnoldi_destroy(&a);
  return err;
}
