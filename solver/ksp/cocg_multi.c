/* cocg_multi.c - COCG (cocg.c) on m right-hand sides in lockstep: each
 * column runs exactly the steps of em_ksp_cocg with its own rho and
 * stopping test; the operator and the preconditioner application of an
 * iteration are each one block call for the columns still running
 * (ksp_impl.h). */
#include <math.h>

#include "ksp_impl.h"

typedef struct cg {
  em_ksp_ctx *k;
  void *x, *W;
  void *r, *z, *p, *q;
  double rnorm;
  em_cplx rho;
  int live;
} cg;

/* rho = r^T z (breakdown test against |r| |z|); 0 when the column stops */
static em_err rho_of(cg *c, em_cplx *rho, int *ok) {
  em_vec *v = c->k->v;
  em_cplx d[2];
  const void *xs[2] = {c->r, c->z}, *ys[2] = {c->z, c->z};
  int cs[2] = {0, 1};
  EM_TRY(v->ops->dots(v, 2, xs, ys, cs, d)); /* r^T z, z^H z */
  *rho = d[0];
  *ok = !ksp_breakdown(c->k, d[0], c->rnorm * sqrt(fabs(creal(d[1]))), "r^T z");
  return EM_OK;
}

/* After q = A p: alpha, x, r and the stopping test; 1 when it goes on. */
static em_err step(cg *c, int *goes_on) {
  em_ksp_ctx *k = c->k;
  em_vec *v = k->v;
  em_cplx d[3];
  *goes_on = 0;
  const void *xs[3] = {c->p, c->p, c->q}, *ys[3] = {c->q, c->p, c->q};
  int cs[3] = {0, 1, 1};
  EM_TRY(v->ops->dots(v, 3, xs, ys, cs, d)); /* p^T q, |p|^2, |q|^2 */
  if (ksp_breakdown(k, d[0], sqrt(fabs(creal(d[1])) * fabs(creal(d[2]))), "p^T A p")) {
    c->live = 0;
    return EM_OK;
  }
  em_cplx alpha = c->rho / d[0];              /* alpha = rho / p^T A p */
  EM_TRY(em_vec_axpy(v, alpha, c->p, c->x));  /* x += alpha p */
  EM_TRY(em_vec_axpy(v, -alpha, c->q, c->r)); /* r -= alpha q */
  EM_TRY(em_vec_norm(v, c->r, &c->rnorm));
  k->it++;
  if (ksp_stop(k, c->rnorm)) {
    c->live = 0;
    return EM_OK;
  }
  *goes_on = 1;
  return EM_OK;
}

em_err em_ksp_cocg_multi(em_ksp_ctx *const *ks, int m, const void *const *b, void *const *x) {
  em_err err = EM_OK;
  cg *c = NULL;
  em_ksp_ctx *act[EM_KSP_MAX_BLOCK];
  const void *in[EM_KSP_MAX_BLOCK];
  void *out[EM_KSP_MAX_BLOCK], *rs[EM_KSP_MAX_BLOCK];
  int who[EM_KSP_MAX_BLOCK];
  double rn[EM_KSP_MAX_BLOCK];
  EM_TRY(em_calloc(&c, (size_t)m, sizeof *c, "lockstep COCG columns"));
  for (int j = 0; j < m; j++) {
    em_vec *v = ks[j]->v;
    c[j] = (cg){.k = ks[j], .x = x[j], .live = 1};
    EM_TRY_GOTO(err, ksp_alloc(ks[j], 4, &c[j].W), done);
    c[j].r = em_vec_col(v, c[j].W, 0), c[j].z = em_vec_col(v, c[j].W, 1);
    c[j].p = em_vec_col(v, c[j].W, 2), c[j].q = em_vec_col(v, c[j].W, 3);
    rs[j] = c[j].r;
  }
  EM_TRY_GOTO(err, ksp_residual_k(ks, m, b, (const void *const *)x, rs, rn),
              done); /* r = b - A x */
  int na = 0;
  for (int j = 0; j < m; j++) {
    c[j].rnorm = rn[j];
    if (ksp_stop(ks[j], rn[j]))
      c[j].live = 0;
    else
      act[na] = ks[j], who[na] = j, na++;
  }
  for (int q = 0; q < na; q++) in[q] = c[who[q]].r, out[q] = c[who[q]].z;
  EM_TRY_GOTO(err, ksp_precond_k(act, na, in, out), done); /* z = M^-1 r */
  for (int q = 0; q < na; q++) {
    cg *s = &c[who[q]];
    int ok;
    EM_TRY_GOTO(err, rho_of(s, &s->rho, &ok), done);
    if (!ok) {
      s->live = 0;
      continue;
    }
    EM_TRY_GOTO(err, s->k->v->ops->copy(s->k->v, s->z, s->p), done); /* p = z */
  }
  for (;;) {
    na = 0;
    for (int j = 0; j < m; j++)
      if (c[j].live) act[na] = c[j].k, who[na] = j, na++;
    if (!na) break;
    for (int q = 0; q < na; q++) in[q] = c[who[q]].p, out[q] = c[who[q]].q;
    EM_TRY_GOTO(err, ksp_matvec_k(act, na, in, out), done); /* q = A p */
    int nb = 0;
    for (int q = 0; q < na; q++) {
      int on;
      EM_TRY_GOTO(err, step(&c[who[q]], &on), done);
      if (on) act[nb] = act[q], who[nb] = who[q], nb++;
    }
    for (int q = 0; q < nb; q++) in[q] = c[who[q]].r, out[q] = c[who[q]].z;
    EM_TRY_GOTO(err, ksp_precond_k(act, nb, in, out), done); /* z = M^-1 r */
    for (int q = 0; q < nb; q++) {
      cg *s = &c[who[q]];
      em_cplx rho;
      int ok;
      EM_TRY_GOTO(err, rho_of(s, &rho, &ok), done);
      if (!ok) {
        s->live = 0;
        continue;
      }
      em_cplx beta = rho / s->rho; /* beta = rho_new / rho */
      s->rho = rho;
      EM_TRY_GOTO(err, s->k->v->ops->axpby(s->k->v, 1.0, s->z, beta, s->p),
                  done); /* p = z + beta p */
    }
  }
done:
  for (int j = 0; j < m; j++)
    if (c[j].k) ksp_free(c[j].k, &c[j].W);
  em_free(&c);
  return err;
}
