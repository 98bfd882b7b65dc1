/* bicgstab.c - BiCGSTAB (van der Vorst 1992) with right preconditioning:
 * the recursive residual is the true, unpreconditioned one.  Hermitian inner
 * products; works for any nonsingular A.  Per iteration: 2 operator and
 * 2 preconditioner applications, 4 synchronising reductions (fused).
 * When rho = r0^H r, r0^H A p or omega vanish (the shadow residual r0 has
 * lost its grip on r), the method restarts from the current residual with
 * r0 = r; only a vanishing denominator right after a (re)start is a
 * breakdown. */
#include <math.h>

#include "ksp_impl.h"

/* a denominator vanished: restart (1), or a breakdown right after one (0) */
static int restart_or_break(em_ksp_ctx *k, int since, em_cplx d, double scale, const char *what) {
  if (since == 0) return !ksp_breakdown(k, d, scale, what);
  em_log_verbose(k->o->log, "bicgstab: %s vanished at iteration %d: restart with r0 = r", what,
                 k->it);
  return 1;
}

em_err em_ksp_bicgstab(em_ksp_ctx *k, const void *b, void *x) {
  em_vec *v = k->v;
  const em_vec_ops *op = v->ops;
  em_err err = EM_OK;
  void *W = NULL;
  EM_TRY(ksp_alloc(k, 7, &W));
  void *r = em_vec_col(v, W, 0), *rh = em_vec_col(v, W, 1), *p = em_vec_col(v, W, 2);
  void *ph = em_vec_col(v, W, 3), *vv = em_vec_col(v, W, 4), *sh = em_vec_col(v, W, 5);
  void *t = em_vec_col(v, W, 6);
  double rnorm, rhnorm = 0, snorm, tnorm;
  em_cplx rho = 0, rho_old = 1, alpha = 1, omega = 1, d[2];
  int since = -1; /* iterations since the last (re)start; -1: start now */
  EM_TRY_GOTO(err, ksp_residual(k, b, x, r, &rnorm), done); /* r = b - A x */
  if (ksp_stop(k, rnorm)) goto done;
  for (;;) {
    if (since < 0) {
      EM_TRY_GOTO(err, op->copy(v, r, rh), done); /* r0 = r */
      EM_TRY_GOTO(err, op->copy(v, r, p), done);  /* p = r */
      rhnorm = rnorm;
      rho = rnorm * rnorm; /* rho = r0^H r */
      since = 0;
    } else {
      em_cplx beta = (rho / rho_old) * (alpha / omega); /* p = r + beta (p - w v) */
      EM_TRY_GOTO(err, op->axpbypcz(v, 1.0, r, -beta * omega, vv, beta, p), done);
    }
    EM_TRY_GOTO(err, ksp_precond(k, p, ph), done); /* p^ = M^-1 p */
    EM_TRY_GOTO(err, ksp_matvec(k, ph, vv), done); /* v = A p^ */
    {
      const void *xs[2] = {rh, vv}, *ys[2] = {vv, vv};
      int cs[2] = {1, 1};
      EM_TRY_GOTO(err, op->dots(v, 2, xs, ys, cs, d), done); /* r0^H v, v^H v */
    }
    if (ksp_vanished(k, d[0], rhnorm * sqrt(fabs(creal(d[1]))))) {
      if (!restart_or_break(k, since, d[0], rhnorm * sqrt(fabs(creal(d[1]))), "r0^H A p")) break;
      since = -1;
      continue;
    }
    alpha = rho / d[0];                                    /* alpha = rho / r0^H v */
    EM_TRY_GOTO(err, em_vec_axpy(v, -alpha, vv, r), done); /* s = r - alpha v (in r) */
    EM_TRY_GOTO(err, em_vec_norm(v, r, &snorm), done);
    if (snorm <= k->o->tol * k->bnorm) {                    /* half step converged */
      EM_TRY_GOTO(err, em_vec_axpy(v, alpha, ph, x), done); /* x += alpha p^ */
      k->it++;
      ksp_stop(k, snorm);
      break;
    }
    EM_TRY_GOTO(err, ksp_precond(k, r, sh), done); /* s^ = M^-1 s */
    EM_TRY_GOTO(err, ksp_matvec(k, sh, t), done);  /* t = A s^ */
    {
      const void *xs[2] = {t, t}, *ys[2] = {r, t};
      int cs[2] = {1, 1};
      EM_TRY_GOTO(err, op->dots(v, 2, xs, ys, cs, d), done); /* t^H s, t^H t */
    }
    tnorm = sqrt(fabs(creal(d[1])));
    if (ksp_breakdown(k, d[1], 0, "t^H t")) break; /* exact 0 only: A s^ = 0 */
    omega = d[0] / d[1];                           /* omega = t^H s / t^H t */
    EM_TRY_GOTO(err, op->axpbypcz(v, alpha, ph, omega, sh, 1.0, x), done); /* x += a p^ + w s^ */
    EM_TRY_GOTO(err, em_vec_axpy(v, -omega, t, r), done);                  /* r = s - omega t */
    {
      const void *xs[2] = {r, rh}, *ys[2] = {r, r};
      int cs[2] = {1, 1};
      EM_TRY_GOTO(err, op->dots(v, 2, xs, ys, cs, d), done); /* r^H r, r0^H r */
    }
    rnorm = sqrt(fabs(creal(d[0])));
    rho_old = rho;
    rho = d[1];
    k->it++;
    since++;
    if (ksp_stop(k, rnorm)) break;
    if (ksp_vanished(k, omega, snorm / (tnorm > 0 ? tnorm : 1)) ||
        ksp_vanished(k, rho, rhnorm * rnorm)) { /* omega or rho vanished */
      em_log_verbose(k->o->log, "bicgstab: omega or rho vanished at iteration %d: restart", k->it);
      since = -1;
    }
  }
done:
  ksp_free(k, &W);
  return err;
}
