/* dpmg.c - the order-group V-cycle over the ranks (issue 27): pmg of one
 * rank (solver/pmg) on a distributed operator.  A level g (an order group
 * above the coarse ones) is smoothed by each rank on its own rows of the
 * group, by the serial pmg's smoothers of the rank's diagonal block D_gg
 * (entity-block Jacobi: an entity's unknowns all belong to one rank; point
 * Jacobi; ILU(0)); the local numbering keeps each group contiguous, so a
 * level is a slice; the
 * residual r - A z between steps is the distributed product; the coarse
 * set (the first `coarse` groups and the flagged rows, e.g. the PML) is
 * gathered to rank 0 and solved there by the sparse direct factor of its
 * rows (on rank 0's GPU with the CUDA backend), the solution sent back:
 *
 *   for g = nb-1 .. coarse:  z_g += omega S_g (r - A z)_g   (sweeps times)
 *   z_C += A_CC^-1 (r - A z)_C                                 (rank 0)
 *   for g = coarse .. nb-1:  z_g += omega S_g (r - A z)_g
 *
 * The steps mirror each other and every S_g and A_CC is symmetric, so M is
 * complex symmetric (COCG can use it).  One V-cycle: 2 (nb - coarse) sweeps
 * distributed products, two gathers of the coarse residual's size. */
#include <string.h>

#include "dpmg_impl.h"

static void *slice(const dpmg *p, void *x, int g) {
  return (char *)x + (size_t)p->off[g] * sizeof(em_cplx);
}

/* res = r - A z (first: r itself, z = 0) */
static em_err residual(dpmg *p, const void *r, const void *z, void *res, int first) {
  double t = em_wtime();
  if (first)
    EM_TRY(p->v->ops->copy(p->v, r, res));
  else {
    EM_TRY(p->A.apply(p->A.ctx, z, res));
    EM_TRY(p->v->ops->axpby(p->v, 1.0, r, -1.0, res));
  }
  EM_TRY(p->v->ops->sync(p->v));
  p->t_res += em_wtime() - t;
  return EM_OK;
}

static em_err smooth(dpmg *p, int g, const void *r, void *z, int *first) {
  void *res = em_vec_col(p->v, p->W, 0), *t = em_vec_col(p->v, p->W, 1);
  for (int s = 0; s < p->sweeps; s++) {
    EM_TRY(residual(p, r, z, res, *first));
    *first = 0;
    double t0 = em_wtime();
    em_vec *vg = p->vl[g];
    if (vg->n && p->dinv[g]) { /* z_g += (omega D_gg^-1) res_g */
      EM_TRY(em_spmat_spmv(p->dinv[g], slice(p, res, g), slice(p, z, g), 1, NULL));
    } else if (vg->n) {
      EM_TRY(em_pc_apply(p->sm[g], slice(p, res, g), slice(p, t, g)));
      EM_TRY(vg->ops->axpby(vg, p->omega, slice(p, t, g), 1.0, slice(p, z, g)));
    }
    EM_TRY(vg->ops->sync(vg));
    p->t_smooth += em_wtime() - t0;
  }
  return EM_OK;
}

/* rank 0: the gathered coarse residual solved, each rank's part sent back */
static em_err coarse_root(dpmg *p, em_cplx *all) {
  const em_dist *d = p->M->d;
  double t = em_wtime();
  if (p->vcs) { /* on the device: the gathered rows uploaded as they came,
                   put in the coarse order, solved and put back there (no
                   host loop over the values, no allocation per solve) */
    void *a = em_vec_col(p->vcs, p->dcs, 0), *b = em_vec_col(p->vcs, p->dcs, 1),
         *x = em_vec_col(p->vcs, p->dcs, 2);
    EM_TRY(p->vcs->ops->upload(p->vcs, all, a));
    EM_TRY(em_spmat_spmv(p->Pin, a, b, 0, NULL));
    EM_TRY(em_pc_apply(p->F, b, x));
    EM_TRY(em_spmat_spmv(p->Pout, x, a, 0, NULL));
    EM_TRY(p->vcs->ops->download(p->vcs, a, all));
  } else {
    for (int64_t k = 0; k < p->n_c; k++) p->cs[p->cg_all[k]] = all[k];
    for (int64_t k = 0; k < p->n_c; k++) all[k] = p->cs[k];
    EM_TRY(em_pc_apply(p->F, all, p->cs));
    for (int64_t k = 0; k < p->n_c; k++) all[k] = p->cs[p->cg_all[k]];
  }
  p->t_csolve += em_wtime() - t;
  memcpy(p->ch, all, (size_t)p->n_cl * sizeof *all);
  int64_t at = p->cnt[0];
  for (int r = 1; r < em_dist_size(d); r++) {
    if (p->cnt[r])
      EM_TRY(em_dist_send(d, all + at, (size_t)p->cnt[r] * sizeof *all, r, TAG_COARSE));
    at += p->cnt[r];
  }
  return EM_OK;
}

static em_err coarse(dpmg *p, const void *r, void *z, int first) {
  void *res = em_vec_col(p->v, p->W, 0);
  EM_TRY(residual(p, r, z, res, first));
  double t = em_wtime();
  void *cb = p->vc ? p->cb : p->ch;
  if (p->n_cl) {
    EM_TRY(em_spmat_spmv(p->Sc, res, cb, 0, NULL));
    if (p->vc) EM_TRY(p->vc->ops->download(p->vc, cb, p->ch));
  }
  /* the rows to rank 0 into its kept buffer: the counts are known since
     the set-up, so no gather of them nor an allocation per V-cycle */
  const em_dist *d = p->M->d;
  size_t es = sizeof *p->ch;
  if (p->M->rank == 0) {
    memcpy(p->all, p->ch, (size_t)p->n_cl * es);
    int64_t at = p->cnt[0];
    for (int r = 1; r < em_dist_size(d); at += p->cnt[r++])
      if (p->cnt[r])
        EM_TRY(em_dist_recv(d, p->all + at, (size_t)p->cnt[r] * es, r, TAG_COARSE_UP, NULL, NULL));
    EM_TRY(coarse_root(p, p->all));
  } else if (p->n_cl) {
    EM_TRY(em_dist_send(d, p->ch, (size_t)p->n_cl * es, 0, TAG_COARSE_UP));
    EM_TRY(em_dist_recv(d, p->ch, (size_t)p->n_cl * es, 0, TAG_COARSE, NULL, NULL));
  }
  if (p->n_cl) {
    if (p->vc) EM_TRY(p->vc->ops->upload(p->vc, p->ch, cb));
    EM_TRY(em_spmat_spmv(p->ScT, cb, z, 1, NULL));
  }
  EM_TRY(p->v->ops->sync(p->v));
  p->t_coarse += em_wtime() - t;
  return EM_OK;
}

static em_err dpmg_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  dpmg *p = pc->data;
  EM_CHECK(vec_prec == EM_PREC_DOUBLE, EM_ERR_UNSUPPORTED,
           "the distributed V-cycle takes complex double vectors");
  int first = 1;
  EM_TRY(p->v->ops->set(p->v, 0, z));
  for (int g = p->nb - 1; g >= p->coarse; g--) EM_TRY(smooth(p, g, r, z, &first));
  EM_TRY(coarse(p, r, z, first));
  first = 0;
  for (int g = p->coarse; g < p->nb; g++) EM_TRY(smooth(p, g, r, z, &first));
  pc->info.applies++;
  pc->info.t_smooth = p->t_smooth;
  pc->info.t_coarse = p->t_coarse;
  pc->info.t_residual = p->t_res;
  return EM_OK;
}

static void dpmg_destroy(em_pc *pc) {
  dpmg *p = pc->data;
  if (!p) return;
  for (int g = 0; g < EM_MAX_ORDER; g++) {
    em_pc_destroy(&p->sm[g]);
    em_spmat_destroy(&p->dinv[g]);
    em_vec_destroy(&p->vl[g]);
  }
  if (p->W) p->v->ops->free(p->v, &p->W);
  em_vec_destroy(&p->v);
  em_spmat_destroy(&p->Sc);
  em_spmat_destroy(&p->ScT);
  if (p->cb) p->vc->ops->free(p->vc, &p->cb);
  em_vec_destroy(&p->vc);
  em_dmat_unpin(p->backend, p->pinned[0], p->ch);
  em_dmat_unpin(p->backend, p->pinned[1], p->all);
  em_free(&p->ch);
  em_free(&p->cnt);
  em_free(&p->cg_all);
  em_free(&p->cs);
  em_free(&p->all);
  if (p->dcs) p->vcs->ops->free(p->vcs, &p->dcs);
  em_vec_destroy(&p->vcs);
  em_spmat_destroy(&p->Pin);
  em_spmat_destroy(&p->Pout);
  em_pc_destroy(&p->F);
  em_free(&pc->data);
}

static const em_pc_ops DPMG_OPS = {dpmg_apply, dpmg_destroy, NULL, NULL};

void em_dmat_pmg_times(const em_pc *pc, double t[4]) {
  const dpmg *p = pc && pc->ops == &DPMG_OPS ? pc->data : NULL;
  t[0] = p ? p->t_smooth : 0, t[1] = p ? p->t_res : 0;
  t[2] = p ? p->t_coarse - p->t_csolve : 0, t[3] = p ? p->t_csolve : 0;
}

em_err em_dmat_pmg(em_dmat *M, const em_pc_opts *o, const uint8_t *coarse_glob, const em_log *log,
                   em_pc **out) {
  return em_dmat_pmg_ahead(M, o, coarse_glob, NULL, log, out);
}

em_err em_dmat_pmg_ahead(em_dmat *M, const em_pc_opts *o, const uint8_t *coarse_glob,
                         em_dmat_coarse_ahead *ah, const em_log *log, em_pc **out) {
  *out = NULL;
  EM_CHECK(M && o && coarse_glob, EM_ERR_ARG, "em_dmat_pmg: NULL argument");
  const em_pmg_opts *g = &o->pmg;
  EM_CHECK(g->coarse >= 1 && g->coarse <= M->nb, EM_ERR_ARG, "em_dmat_pmg: %d coarse groups of %d",
           g->coarse, M->nb);
  EM_CHECK(g->sweeps >= 1, EM_ERR_ARG, "em_dmat_pmg: %d sweeps", g->sweeps);
  double t0 = em_wtime();
  em_pc *pc = NULL;
  dpmg *p = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&pc, 1, sizeof *pc, "preconditioner"));
  EM_TRY_GOTO(err, em_calloc(&p, 1, sizeof *p, "distributed V-cycle"), fail);
  pc->opts = *o;
  pc->n = M->n_own;
  pc->be = em_sv_backend_of(M->backend);
  pc->ops = &DPMG_OPS;
  pc->data = p;
  p->M = M;
  p->backend = M->backend;
  p->nb = M->nb, p->coarse = g->coarse, p->sweeps = g->sweeps;
  memcpy(p->off, M->offset, sizeof p->off);
  int ilu = g->smoother == EM_PMG_ILU0;
  p->omega = g->damping > 0 ? g->damping : ilu ? 1.0 : 0.5;
  EM_TRY_GOTO(err, em_dmat_operator(M, &p->A), fail);
  EM_TRY_GOTO(err, em_vec_create(M->backend, EM_PREC_DOUBLE, M->n_own, 1, &p->v), fail);
  EM_TRY_GOTO(err, p->v->ops->alloc(p->v, 2, &p->W), fail);
  size_t sbytes = 0;
  for (int l = p->coarse; l < p->nb; l++) {
    int32_t len = p->off[l + 1] - p->off[l];
    EM_TRY_GOTO(err, em_vec_create(M->backend, EM_PREC_DOUBLE, len, 1, &p->vl[l]), fail);
    if (!len) continue;
    if (!ilu) {
      em_csr *Di = NULL;
      int32_t *rows = NULL, nblk = 0;
      EM_TRY_GOTO(err, em_calloc(&rows, (size_t)len, sizeof *rows, "smoother rows"), fail);
      for (int32_t k = 0; k < len; k++) rows[k] = k;
      err = em_pmg_block_inverse(M->D->blk[l][l], rows, len,
                                 g->smoother == EM_PMG_BLOCK ? EM_PMG_MAX_BLOCK : 1, g->shift,
                                 p->omega, &Di, &nblk);
      em_free(&rows);
      if (!err) {
        em_spmat_opts so;
        em_spmat_opts_default(&so);
        so.backend = M->backend;
        err = em_spmat_create(Di, &so, &p->dinv[l]);
        sbytes += em_csr_bytes(Di, EM_PREC_DOUBLE);
      }
      em_csr_destroy(&Di);
      if (err) goto fail;
      continue;
    }
    em_pc_opts so;
    em_pc_opts_default(&so);
    so.type = EM_PC_ILU0;
    so.ordering = EM_ORDERING_RCM;
    so.backend = M->backend;
    so.trsv = o->trsv;
    so.shift = g->shift;
    EM_TRY_GOTO(err, em_pc_create(M->D->blk[l][l], &so, log, &p->sm[l]), fail);
    em_pc_info si;
    em_pc_get_info(p->sm[l], &si);
    sbytes += si.bytes;
  }
  size_t cbytes = 0;
  EM_TRY_GOTO(err, em_dpmg_coarse_build(p, coarse_glob, o, ah, log, &cbytes), fail);
  pc->info.type = EM_PC_PMG;
  pc->info.ordering = o->ordering;
  pc->info.prec = EM_PREC_DOUBLE;
  pc->info.impl = "distributed-pmg";
  pc->info.coarse_n = (int32_t)p->n_c;
  pc->info.coarse_bytes = cbytes;
  pc->info.coarse_factor_bytes = cbytes;
  pc->info.smoother_bytes = sbytes;
  pc->info.work_bytes = 2 * (size_t)M->n_own * sizeof(em_cplx);
  pc->info.bytes = sbytes + cbytes + pc->info.work_bytes;
  pc->info.t_setup = em_wtime() - t0;
  *out = pc;
  return EM_OK;
fail:
  em_pc_destroy(&pc);
  return err;
}
