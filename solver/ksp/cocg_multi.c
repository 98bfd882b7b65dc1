/* cocg_multi.c - COCG (cocg.c) on m right-hand sides in lockstep: each
 * column runs exactly the steps of em_ksp_cocg with its own rho and
 * stopping test; the operator and the preconditioner application of an
 * iteration are each one block call for the columns still running
 * (ksp_impl.h); the vector work of an iteration is fused over the columns
 * too: three reductions (p^T q with |p|, |q|; the residual norms; r^T z
 * with |z|), each one pass and one synchronisation for all columns, and
 * two launches of updates (x and r; p), each value as the single solve's
 * (bit for bit on the CPU: vec.c's em_vec_cdots and em_vec_caxpby). */
#include <math.h>

#include "ksp_impl.h"

typedef struct cg {
  em_ksp_ctx *k;
  void *x;
  void *r, *z, *p, *q;
  double rnorm;
  em_cplx rho;
  int live;
} cg;

/* rho_j = r_j^T z_j of the columns who[0..na), each tested for breakdown
 * against |r| |z|: one fused reduction for all (em_vec_cdots, each value
 * rho_of's of one column); ok[q] = 0 when column q stops. */
static em_err rho_all(cg *c, const int *who, int na, em_cplx *rho, int *ok) {
  if (!na) return EM_OK;
  em_vec *v = c[who[0]].k->v;
  const void *xs[2 * EM_KSP_MAX_BLOCK] = {0}, *ys[2 * EM_KSP_MAX_BLOCK] = {0};
  em_cplx d[2 * EM_KSP_MAX_BLOCK];
  int cs[2] = {0, 1};
  for (int q = 0; q < na; q++) {
    cg *s = &c[who[q]];
    xs[2 * q] = s->r, ys[2 * q] = s->z;         /* r^T z */
    xs[2 * q + 1] = s->z, ys[2 * q + 1] = s->z; /* z^H z */
  }
  EM_TRY(em_vec_cdots(v, na, 2, xs, ys, cs, d));
  for (int q = 0; q < na; q++) {
    cg *s = &c[who[q]];
    rho[q] = d[2 * q];
    ok[q] = !ksp_breakdown(s->k, d[2 * q], s->rnorm * sqrt(fabs(creal(d[2 * q + 1]))), "r^T z");
  }
  return EM_OK;
}

/* After q = A p for the columns who[0..na): alpha, x, r and the stopping
 * test of each, as cocg.c's step, with one fused reduction for the p^T q,
 * |p|^2, |q|^2 of all, one launch for the x and r updates of all and one
 * reduction for the new residual norms.  on[q] = 1 when column q goes on. */
static em_err step_all(cg *c, const int *who, int na, int *on) {
  if (!na) return EM_OK;
  em_vec *v = c[who[0]].k->v;
  const void *xs[3 * EM_KSP_MAX_BLOCK] = {0}, *ys[3 * EM_KSP_MAX_BLOCK] = {0};
  em_cplx d[3 * EM_KSP_MAX_BLOCK];
  int cs[3] = {0, 1, 1};
  for (int q = 0; q < na; q++) {
    cg *s = &c[who[q]];
    xs[3 * q] = s->p, ys[3 * q] = s->q;         /* p^T q */
    xs[3 * q + 1] = s->p, ys[3 * q + 1] = s->p; /* |p|^2 */
    xs[3 * q + 2] = s->q, ys[3 * q + 2] = s->q; /* |q|^2 */
  }
  EM_TRY(em_vec_cdots(v, na, 3, xs, ys, cs, d));
  em_cplx a[2 * EM_KSP_MAX_BLOCK], one[2 * EM_KSP_MAX_BLOCK];
  const void *ax[2 * EM_KSP_MAX_BLOCK];
  void *ay[2 * EM_KSP_MAX_BLOCK], *rs[EM_KSP_MAX_BLOCK];
  int go[EM_KSP_MAX_BLOCK], ng = 0;
  for (int q = 0; q < na; q++) {
    cg *s = &c[who[q]];
    const em_cplx *e = d + 3 * q;
    on[q] = 0;
    if (ksp_breakdown(s->k, e[0], sqrt(fabs(creal(e[1])) * fabs(creal(e[2]))), "p^T A p")) {
      s->live = 0;
      continue;
    }
    em_cplx alpha = s->rho / e[0];                           /* alpha = rho / p^T A p */
    a[2 * ng] = alpha, ax[2 * ng] = s->p, ay[2 * ng] = s->x; /* x += alpha p */
    a[2 * ng + 1] = -alpha, ax[2 * ng + 1] = s->q, ay[2 * ng + 1] = s->r; /* r -= alpha q */
    one[2 * ng] = one[2 * ng + 1] = 1.0;
    rs[ng] = s->r;
    go[ng++] = q;
  }
  EM_TRY(em_vec_caxpby(v, 2 * ng, a, ax, one, ay));
  double rn[EM_KSP_MAX_BLOCK];
  EM_TRY(em_vec_cnorms(v, ng, (const void *const *)rs, rn));
  for (int g = 0; g < ng; g++) {
    cg *s = &c[who[go[g]]];
    s->rnorm = rn[g];
    s->k->it++;
    if (ksp_stop(s->k, s->rnorm))
      s->live = 0;
    else
      on[go[g]] = 1;
  }
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
  void *W = NULL; /* r, z, p, q of every column: one block (ksp_alloc_cols) */
  EM_TRY(em_calloc(&c, (size_t)m, sizeof *c, "lockstep COCG columns"));
  EM_TRY_GOTO(err, ksp_alloc_cols(ks, m, 4, &W), done);
  for (int j = 0; j < m; j++) {
    em_vec *v = ks[j]->v;
    c[j] = (cg){.k = ks[j], .x = x[j], .live = 1};
    c[j].r = em_vec_col(v, W, j), c[j].z = em_vec_col(v, W, m + j);
    c[j].p = em_vec_col(v, W, 2 * m + j), c[j].q = em_vec_col(v, W, 3 * m + j);
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
  {
    em_cplx rho[EM_KSP_MAX_BLOCK];
    int ok[EM_KSP_MAX_BLOCK];
    EM_TRY_GOTO(err, rho_all(c, who, na, rho, ok), done);
    for (int q = 0; q < na; q++) {
      cg *s = &c[who[q]];
      s->rho = rho[q];
      if (!ok[q]) {
        s->live = 0;
        continue;
      }
      EM_TRY_GOTO(err, s->k->v->ops->copy(s->k->v, s->z, s->p), done); /* p = z */
    }
  }
  for (;;) {
    na = 0;
    for (int j = 0; j < m; j++)
      if (c[j].live) act[na] = c[j].k, who[na] = j, na++;
    if (!na) break;
    for (int q = 0; q < na; q++) in[q] = c[who[q]].p, out[q] = c[who[q]].q;
    EM_TRY_GOTO(err, ksp_matvec_k(act, na, in, out), done); /* q = A p */
    int on[EM_KSP_MAX_BLOCK], nb = 0;
    EM_TRY_GOTO(err, step_all(c, who, na, on), done);
    for (int q = 0; q < na; q++)
      if (on[q]) act[nb] = act[q], who[nb] = who[q], nb++;
    for (int q = 0; q < nb; q++) in[q] = c[who[q]].r, out[q] = c[who[q]].z;
    EM_TRY_GOTO(err, ksp_precond_k(act, nb, in, out), done); /* z = M^-1 r */
    em_cplx rho[EM_KSP_MAX_BLOCK], beta[EM_KSP_MAX_BLOCK], one[EM_KSP_MAX_BLOCK];
    int ok[EM_KSP_MAX_BLOCK], nu = 0;
    const void *zs[EM_KSP_MAX_BLOCK];
    void *ps[EM_KSP_MAX_BLOCK];
    EM_TRY_GOTO(err, rho_all(c, who, nb, rho, ok), done);
    for (int q = 0; q < nb; q++) {
      cg *s = &c[who[q]];
      if (!ok[q]) {
        s->live = 0;
        continue;
      }
      beta[nu] = rho[q] / s->rho; /* beta = rho_new / rho */
      s->rho = rho[q];
      one[nu] = 1.0, zs[nu] = s->z, ps[nu] = s->p;
      nu++;
    }
    EM_TRY_GOTO(err, em_vec_caxpby(c[0].k->v, nu, one, zs, beta, ps), done); /* p = z + beta p */
  }
done:
  ksp_free(ks[0], &W);
  em_free(&c);
  return err;
}
