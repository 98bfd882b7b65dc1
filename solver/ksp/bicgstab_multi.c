/* bicgstab_multi.c - BiCGSTAB (bicgstab.c) on m right-hand sides in
 * lockstep: each column runs exactly the steps of em_ksp_bicgstab with its
 * own scalars (rho, alpha, omega), restarts and stopping test, while the
 * two preconditioner and two operator applications of an iteration are
 * each one block call for the columns that reach them (ksp_impl.h).  A
 * column that restarts skips the rest of its iteration and rejoins at the
 * next one, as the one-column loop's `continue` does.  The vector work is
 * fused over the columns too, as COCG's (cocg_multi.c): per iteration four
 * reductions (r0^H v with v^H v; |s|; t^H s with t^H t; r^H r with r0^H r),
 * each one pass and one synchronisation for all columns, and four update
 * launches (p; s; x; r), each value the single solve's (bit for bit on the
 * CPU: em_vec_cdots, em_vec_caxpby, em_vec_caxpbypcz fall back to the
 * one-column operations there). */
#include <math.h>

#include "ksp_impl.h"

typedef struct bcg {
  em_ksp_ctx *k;
  const void *b;
  void *x;
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

/* The first half of an iteration after the block products v = A M^-1 p,
 * for the columns who[0..na): alpha, s = r - alpha v, |s| with one fused
 * reduction for every column's r0^H v and v^H v, one launch for the s
 * updates and one reduction for the norms.  on[q] = 1 when column q goes
 * on; 0 when it leaves this iteration (restart, breakdown, or converged at
 * the half step). */
static em_err half_all(bcg *c, const int *who, int na, int *on) {
  if (!na) return EM_OK;
  em_vec *v = c[who[0]].k->v;
  const void *xs[2 * EM_KSP_MAX_BLOCK], *ys[2 * EM_KSP_MAX_BLOCK];
  em_cplx d[2 * EM_KSP_MAX_BLOCK];
  int cs[2] = {1, 1};
  for (int q = 0; q < na; q++) {
    bcg *b = &c[who[q]];
    xs[2 * q] = b->rh, ys[2 * q] = b->vv;         /* r0^H v */
    xs[2 * q + 1] = b->vv, ys[2 * q + 1] = b->vv; /* v^H v */
  }
  EM_TRY(em_vec_cdots(v, na, 2, xs, ys, cs, d));
  em_cplx a[EM_KSP_MAX_BLOCK], one[EM_KSP_MAX_BLOCK];
  const void *ax[EM_KSP_MAX_BLOCK];
  void *ay[EM_KSP_MAX_BLOCK];
  int go[EM_KSP_MAX_BLOCK], ng = 0;
  for (int q = 0; q < na; q++) {
    bcg *b = &c[who[q]];
    em_ksp_ctx *k = b->k;
    on[q] = 0;
    double scale = b->rhnorm * sqrt(fabs(creal(d[2 * q + 1])));
    if (ksp_vanished(k, d[2 * q], scale)) {
      if (!restart_or_break(k, b->since, d[2 * q], scale, "r0^H A p"))
        b->live = 0;
      else
        b->since = -1;
      continue;
    }
    b->alpha = b->rho / d[2 * q];                                    /* alpha = rho / r0^H v */
    a[ng] = -b->alpha, ax[ng] = b->vv, one[ng] = 1.0, ay[ng] = b->r; /* s = r - alpha v (in r) */
    go[ng++] = q;
  }
  EM_TRY(em_vec_caxpby(v, ng, a, ax, one, ay));
  double sn[EM_KSP_MAX_BLOCK];
  EM_TRY(em_vec_cnorms(v, ng, (const void *const *)ay, sn));
  for (int g = 0; g < ng; g++) {
    bcg *b = &c[who[go[g]]];
    em_ksp_ctx *k = b->k;
    b->snorm = sn[g];
    if (b->snorm <= k->o->tol * k->bnorm) {          /* half step converged */
      EM_TRY(em_vec_axpy(v, b->alpha, b->ph, b->x)); /* x += alpha p^ */
      k->it++;
      ksp_stop(k, b->snorm);
      b->live = 0;
      continue;
    }
    on[go[g]] = 1;
  }
  return EM_OK;
}

/* The second half after t = A s^ for the columns who[0..nb): omega, x and
 * r, the stopping test; one fused reduction for every column's t^H s and
 * t^H t, one launch for the x updates, one for the r updates, one
 * reduction for r^H r and r0^H r. */
static em_err full_all(bcg *c, const int *who, int nb) {
  if (!nb) return EM_OK;
  em_vec *v = c[who[0]].k->v;
  const void *xs[2 * EM_KSP_MAX_BLOCK], *ys[2 * EM_KSP_MAX_BLOCK];
  em_cplx d[2 * EM_KSP_MAX_BLOCK];
  int cs[2] = {1, 1};
  for (int q = 0; q < nb; q++) {
    bcg *b = &c[who[q]];
    xs[2 * q] = b->t, ys[2 * q] = b->r;         /* t^H s */
    xs[2 * q + 1] = b->t, ys[2 * q + 1] = b->t; /* t^H t */
  }
  EM_TRY(em_vec_cdots(v, nb, 2, xs, ys, cs, d));
  em_cplx al[EM_KSP_MAX_BLOCK], om[EM_KSP_MAX_BLOCK], one[EM_KSP_MAX_BLOCK], mom[EM_KSP_MAX_BLOCK];
  const void *ph[EM_KSP_MAX_BLOCK], *sh[EM_KSP_MAX_BLOCK], *tt[EM_KSP_MAX_BLOCK];
  void *xx[EM_KSP_MAX_BLOCK], *rr[EM_KSP_MAX_BLOCK];
  int go[EM_KSP_MAX_BLOCK], ng = 0;
  for (int q = 0; q < nb; q++) {
    bcg *b = &c[who[q]];
    b->tnorm = sqrt(fabs(creal(d[2 * q + 1])));
    if (ksp_breakdown(b->k, d[2 * q + 1], 0, "t^H t")) { /* exact 0 only: A s^ = 0 */
      b->live = 0;
      continue;
    }
    b->omega = d[2 * q] / d[2 * q + 1]; /* omega = t^H s / t^H t */
    al[ng] = b->alpha, ph[ng] = b->ph, om[ng] = b->omega, sh[ng] = b->sh, one[ng] = 1.0;
    xx[ng] = b->x;                                     /* x += a p^ + w s^ */
    mom[ng] = -b->omega, tt[ng] = b->t, rr[ng] = b->r; /* r = s - omega t */
    go[ng++] = q;
  }
  EM_TRY(em_vec_caxpbypcz(v, ng, al, ph, om, sh, one, xx));
  EM_TRY(em_vec_caxpby(v, ng, mom, tt, one, rr));
  for (int g = 0; g < ng; g++) {
    bcg *b = &c[who[go[g]]];
    xs[2 * g] = b->r, ys[2 * g] = b->r;          /* r^H r */
    xs[2 * g + 1] = b->rh, ys[2 * g + 1] = b->r; /* r0^H r */
  }
  EM_TRY(em_vec_cdots(v, ng, 2, xs, ys, cs, d));
  for (int g = 0; g < ng; g++) {
    bcg *b = &c[who[go[g]]];
    em_ksp_ctx *k = b->k;
    b->rnorm = sqrt(fabs(creal(d[2 * g])));
    b->rho_old = b->rho;
    b->rho = d[2 * g + 1];
    k->it++;
    b->since++;
    if (ksp_stop(k, b->rnorm)) {
      b->live = 0;
      continue;
    }
    if (ksp_vanished(k, b->omega, b->snorm / (b->tnorm > 0 ? b->tnorm : 1)) ||
        ksp_vanished(k, b->rho, b->rhnorm * b->rnorm)) { /* omega or rho vanished */
      em_log_verbose(k->o->log, "bicgstab%s: omega or rho vanished at iteration %d: restart",
                     k->tag, k->it);
      b->since = -1;
    }
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
  void *W = NULL; /* the seven vectors of every column: one block (ksp_alloc_cols) */
  EM_TRY(em_calloc(&c, (size_t)m, sizeof *c, "lockstep BiCGSTAB columns"));
  EM_TRY_GOTO(err, ksp_alloc_cols(ks, m, 7, &W), done);
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
    c[j].r = em_vec_col(v, W, j), c[j].rh = em_vec_col(v, W, m + j);
    c[j].p = em_vec_col(v, W, 2 * m + j), c[j].ph = em_vec_col(v, W, 3 * m + j);
    c[j].vv = em_vec_col(v, W, 4 * m + j), c[j].sh = em_vec_col(v, W, 5 * m + j);
    c[j].t = em_vec_col(v, W, 6 * m + j);
    rs[j] = c[j].r;
  }
  EM_TRY_GOTO(err, ksp_residual_k(ks, m, b, (const void *const *)x, rs, rn),
              done); /* r = b - A x */
  for (int j = 0; j < m; j++) {
    c[j].rnorm = rn[j];
    if (ksp_stop(ks[j], rn[j])) c[j].live = 0;
  }
  for (;;) {
    int na = 0, nu = 0;
    em_cplx one[EM_KSP_MAX_BLOCK], mbw[EM_KSP_MAX_BLOCK], beta[EM_KSP_MAX_BLOCK];
    const void *rr[EM_KSP_MAX_BLOCK], *vs[EM_KSP_MAX_BLOCK];
    void *ps[EM_KSP_MAX_BLOCK];
    for (int j = 0; j < m; j++) {
      if (!c[j].live) continue;
      em_vec *v = c[j].k->v;
      if (c[j].since < 0) {
        EM_TRY_GOTO(err, v->ops->copy(v, c[j].r, c[j].rh), done); /* r0 = r */
        EM_TRY_GOTO(err, v->ops->copy(v, c[j].r, c[j].p), done);  /* p = r */
        c[j].rhnorm = c[j].rnorm;
        c[j].rho = c[j].rnorm * c[j].rnorm; /* rho = r0^H r */
        c[j].since = 0;
      } else { /* p = r + beta (p - w v): one launch for all below */
        beta[nu] = (c[j].rho / c[j].rho_old) * (c[j].alpha / c[j].omega);
        mbw[nu] = -beta[nu] * c[j].omega, one[nu] = 1.0;
        rr[nu] = c[j].r, vs[nu] = c[j].vv, ps[nu] = c[j].p;
        nu++;
      }
      act[na] = c[j].k, who[na] = j, na++;
    }
    if (!na) break;
    EM_TRY_GOTO(err, em_vec_caxpbypcz(ks[0]->v, nu, one, rr, mbw, vs, beta, ps), done);
    for (int q = 0; q < na; q++) in[q] = c[who[q]].p, out[q] = c[who[q]].ph;
    EM_TRY_GOTO(err, ksp_precond_k(act, na, in, out), done); /* p^ = M^-1 p */
    for (int q = 0; q < na; q++) in[q] = c[who[q]].ph, out[q] = c[who[q]].vv;
    EM_TRY_GOTO(err, ksp_matvec_k(act, na, in, out), done); /* v = A p^ */
    int on[EM_KSP_MAX_BLOCK], nb = 0;
    EM_TRY_GOTO(err, half_all(c, who, na, on), done);
    for (int q = 0; q < na; q++)
      if (on[q]) act[nb] = act[q], who[nb] = who[q], nb++;
    for (int q = 0; q < nb; q++) in[q] = c[who[q]].r, out[q] = c[who[q]].sh;
    EM_TRY_GOTO(err, ksp_precond_k(act, nb, in, out), done); /* s^ = M^-1 s */
    for (int q = 0; q < nb; q++) in[q] = c[who[q]].sh, out[q] = c[who[q]].t;
    EM_TRY_GOTO(err, ksp_matvec_k(act, nb, in, out), done); /* t = A s^ */
    EM_TRY_GOTO(err, full_all(c, who, nb), done);
  }
done:
  ksp_free(ks[0], &W);
  em_free(&c);
  return err;
}
