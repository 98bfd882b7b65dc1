/* bicgstab_multi.c - BiCGSTAB (bicgstab.c) on m right-hand sides in
 * lockstep: each column runs exactly the steps of em_ksp_bicgstab with its
 * own scalars (rho, alpha, omega), restarts and stopping test, while the
 * two preconditioner and two operator applications of an iteration are
 * each one block call for the columns that reach them (ksp_impl.h).  A
 * column that restarts skips the rest of its iteration and rejoins at the
 * next one, as the one-column loop's `continue` does. */
#include <math.h>

#include "ksp_impl.h"

typedef struct bcg {
  em_ksp_ctx *k;
  const void *b;
  void *x, *W;
  void *r, *rh, *p, *ph, *vv, *sh, *t;
  double rnorm, rhnorm, snorm, tnorm;
  em_cplx rho, rho_old, alpha, omega;
  int since; /* iterations since the last (re)start; -1: start now */
  int live;  /* still iterating */
} bcg;

/* a denominator vanished: restart (1), or a breakdown right after one (0) */
static int restart_or_break(em_ksp_ctx *k, int since, em_cplx d, double scale, const char *what) {
  if (since == 0) return !ksp_breakdown(k, d, scale, what);
  em_log_verbose(k->o->log, "bicgstab%s: %s vanished at iteration %d: restart with r0 = r", k->tag,
                 what, k->it);
  return 1;
}

/* The first half of an iteration after the block products v = A M^-1 p:
 * alpha, s = r - alpha v; 0 when the column leaves this iteration (restart,
 * breakdown, or converged at the half step), 1 when it goes on. */
static em_err half_step(bcg *c, int *goes_on) {
  em_ksp_ctx *k = c->k;
  em_vec *v = k->v;
  em_cplx d[2];
  *goes_on = 0;
  const void *xs[2] = {c->rh, c->vv}, *ys[2] = {c->vv, c->vv};
  int cs[2] = {1, 1};
  EM_TRY(v->ops->dots(v, 2, xs, ys, cs, d)); /* r0^H v, v^H v */
  double scale = c->rhnorm * sqrt(fabs(creal(d[1])));
  if (ksp_vanished(k, d[0], scale)) {
    if (!restart_or_break(k, c->since, d[0], scale, "r0^H A p"))
      c->live = 0;
    else
      c->since = -1;
    return EM_OK;
  }
  c->alpha = c->rho / d[0];                       /* alpha = rho / r0^H v */
  EM_TRY(em_vec_axpy(v, -c->alpha, c->vv, c->r)); /* s = r - alpha v (in r) */
  EM_TRY(em_vec_norm(v, c->r, &c->snorm));
  if (c->snorm <= k->o->tol * k->bnorm) {          /* half step converged */
    EM_TRY(em_vec_axpy(v, c->alpha, c->ph, c->x)); /* x += alpha p^ */
    k->it++;
    ksp_stop(k, c->snorm);
    c->live = 0;
    return EM_OK;
  }
  *goes_on = 1;
  return EM_OK;
}

/* The second half after t = A M^-1 s: omega, x and r, the stopping test. */
static em_err full_step(bcg *c) {
  em_ksp_ctx *k = c->k;
  em_vec *v = k->v;
  const em_vec_ops *op = v->ops;
  em_cplx d[2];
  {
    const void *xs[2] = {c->t, c->t}, *ys[2] = {c->r, c->t};
    int cs[2] = {1, 1};
    EM_TRY(op->dots(v, 2, xs, ys, cs, d)); /* t^H s, t^H t */
  }
  c->tnorm = sqrt(fabs(creal(d[1])));
  if (ksp_breakdown(k, d[1], 0, "t^H t")) { /* exact 0 only: A s^ = 0 */
    c->live = 0;
    return EM_OK;
  }
  c->omega = d[0] / d[1];                                               /* omega = t^H s / t^H t */
  EM_TRY(op->axpbypcz(v, c->alpha, c->ph, c->omega, c->sh, 1.0, c->x)); /* x += a p^ + w s^ */
  EM_TRY(em_vec_axpy(v, -c->omega, c->t, c->r));                        /* r = s - omega t */
  {
    const void *xs[2] = {c->r, c->rh}, *ys[2] = {c->r, c->r};
    int cs[2] = {1, 1};
    EM_TRY(op->dots(v, 2, xs, ys, cs, d)); /* r^H r, r0^H r */
  }
  c->rnorm = sqrt(fabs(creal(d[0])));
  c->rho_old = c->rho;
  c->rho = d[1];
  k->it++;
  c->since++;
  if (ksp_stop(k, c->rnorm)) {
    c->live = 0;
    return EM_OK;
  }
  if (ksp_vanished(k, c->omega, c->snorm / (c->tnorm > 0 ? c->tnorm : 1)) ||
      ksp_vanished(k, c->rho, c->rhnorm * c->rnorm)) { /* omega or rho vanished */
    em_log_verbose(k->o->log, "bicgstab%s: omega or rho vanished at iteration %d: restart", k->tag,
                   k->it);
    c->since = -1;
  }
  return EM_OK;
}

em_err em_ksp_bicgstab_multi(em_ksp_ctx *const *ks, int m, const void *const *b, void *const *x) {
  em_err err = EM_OK;
  bcg *c = NULL;
  em_ksp_ctx *act[EM_KSP_MAX_BLOCK];
  const void *in[EM_KSP_MAX_BLOCK];
  void *out[EM_KSP_MAX_BLOCK], *rs[EM_KSP_MAX_BLOCK];
  int who[EM_KSP_MAX_BLOCK];
  double rn[EM_KSP_MAX_BLOCK];
  EM_TRY(em_calloc(&c, (size_t)m, sizeof *c, "lockstep BiCGSTAB columns"));
  for (int j = 0; j < m; j++) {
    em_vec *v = ks[j]->v;
    c[j] = (bcg){.k = ks[j],
                 .b = b[j],
                 .x = x[j],
                 .rho_old = 1,
                 .alpha = 1,
                 .omega = 1,
                 .since = -1,
                 .live = 1};
    EM_TRY_GOTO(err, ksp_alloc(ks[j], 7, &c[j].W), done);
    c[j].r = em_vec_col(v, c[j].W, 0), c[j].rh = em_vec_col(v, c[j].W, 1);
    c[j].p = em_vec_col(v, c[j].W, 2), c[j].ph = em_vec_col(v, c[j].W, 3);
    c[j].vv = em_vec_col(v, c[j].W, 4), c[j].sh = em_vec_col(v, c[j].W, 5);
    c[j].t = em_vec_col(v, c[j].W, 6);
    rs[j] = c[j].r;
  }
  EM_TRY_GOTO(err, ksp_residual_k(ks, m, b, (const void *const *)x, rs, rn),
              done); /* r = b - A x */
  for (int j = 0; j < m; j++) {
    c[j].rnorm = rn[j];
    if (ksp_stop(ks[j], rn[j])) c[j].live = 0;
  }
  for (;;) {
    int na = 0;
    for (int j = 0; j < m; j++) {
      if (!c[j].live) continue;
      em_vec *v = c[j].k->v;
      if (c[j].since < 0) {
        EM_TRY_GOTO(err, v->ops->copy(v, c[j].r, c[j].rh), done); /* r0 = r */
        EM_TRY_GOTO(err, v->ops->copy(v, c[j].r, c[j].p), done);  /* p = r */
        c[j].rhnorm = c[j].rnorm;
        c[j].rho = c[j].rnorm * c[j].rnorm; /* rho = r0^H r */
        c[j].since = 0;
      } else { /* p = r + beta (p - w v) */
        em_cplx beta = (c[j].rho / c[j].rho_old) * (c[j].alpha / c[j].omega);
        EM_TRY_GOTO(
            err, v->ops->axpbypcz(v, 1.0, c[j].r, -beta * c[j].omega, c[j].vv, beta, c[j].p), done);
      }
      act[na] = c[j].k, who[na] = j, na++;
    }
    if (!na) break;
    for (int q = 0; q < na; q++) in[q] = c[who[q]].p, out[q] = c[who[q]].ph;
    EM_TRY_GOTO(err, ksp_precond_k(act, na, in, out), done); /* p^ = M^-1 p */
    for (int q = 0; q < na; q++) in[q] = c[who[q]].ph, out[q] = c[who[q]].vv;
    EM_TRY_GOTO(err, ksp_matvec_k(act, na, in, out), done); /* v = A p^ */
    int nb = 0;
    for (int q = 0; q < na; q++) {
      int on;
      EM_TRY_GOTO(err, half_step(&c[who[q]], &on), done);
      if (on) act[nb] = act[q], who[nb] = who[q], nb++;
    }
    for (int q = 0; q < nb; q++) in[q] = c[who[q]].r, out[q] = c[who[q]].sh;
    EM_TRY_GOTO(err, ksp_precond_k(act, nb, in, out), done); /* s^ = M^-1 s */
    for (int q = 0; q < nb; q++) in[q] = c[who[q]].sh, out[q] = c[who[q]].t;
    EM_TRY_GOTO(err, ksp_matvec_k(act, nb, in, out), done); /* t = A s^ */
    for (int q = 0; q < nb; q++) EM_TRY_GOTO(err, full_step(&c[who[q]]), done);
  }
done:
  for (int j = 0; j < m; j++)
    if (c[j].k) ksp_free(c[j].k, &c[j].W);
  em_free(&c);
  return err;
}
