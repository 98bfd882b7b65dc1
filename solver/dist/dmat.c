/* dmat.c - the distributed operator (issue 27, docs/mpi.md): each rank
 * holds the rows it owns, split into the local part D (owned x owned, the
 * nine order blocks in the backend's formats, em_blockop) and the
 * couplings O to the ghosts (the unknowns other ranks own, em_spmat);
 *
 *     y = D x_own + O x_ghost,
 *
 * the ghosts' values arriving by the halo exchange while D x runs:
 * gather the values the neighbours need (a selection matrix S, so the
 * gather runs where x lives), start the exchange, D x, finish, O x_ghost.
 * MPI moves host buffers (with CUDA: S x downloaded, the ghosts uploaded). */
#include <string.h>

#include "backend_impl.h"
#include "dmat_impl.h"

#define TAG_HALO 32701

static em_err dmat_apply(void *ctx, const void *x, void *y) {
  em_dmat *M = ctx;
  em_dist_xchg *xc = NULL;
  EM_CHECK(M->op, EM_ERR_INTERNAL,
           "the distributed operator applied before its local part's formats were given "
           "(em_dmat_set_op)");
  if (M->S) { /* the values the neighbours need, then on the host */
    EM_TRY(em_spmat_spmv(M->S, x, M->send_b, 0, NULL));
    if (M->vs) EM_TRY(M->vs->ops->download(M->vs, M->send_b, M->send_h));
  }
  em_dist_halo h = {M->n_nb, M->nb_rank, M->send_off, M->recv_off, TAG_HALO};
  EM_TRY(em_dist_halo_start(M->d, &h, EM_DIST_CPLX, M->send_h, M->ghost_h, &xc));
  em_err err = em_blockop_apply(M->op, x, y); /* overlaps the transfers */
  double t = em_wtime();
  em_err e2 = em_dist_halo_finish(M->d, &xc);
  M->t_halo_wait += em_wtime() - t;
  EM_TRY(err);
  EM_TRY(e2);
  if (M->O) {
    if (M->vg) EM_TRY(M->vg->ops->upload(M->vg, M->ghost_h, M->ghost_b));
    EM_TRY(em_spmat_spmv(M->O, M->ghost_b, y, 1, NULL));
  }
  M->applies++;
  return EM_OK;
}

/* S: row k selects local row send[k] */
static em_err make_gather(em_dmat *M, const int32_t *send, const em_spmat_opts *so) {
  em_csr *S = NULL;
  EM_TRY(em_csr_create(M->n_send, M->n_own, M->n_send, &S));
  for (int32_t k = 0; k < M->n_send; k++) {
    S->colind[k] = send[k];
    S->val[k] = 1;
    S->rowptr[k + 1] = k + 1;
  }
  em_err err = em_spmat_create(S, so, &M->S);
  em_csr_destroy(&S);
  return err;
}

int em_dmat_pin(em_backend b, void *h, size_t n) {
  const em_sv_backend *be = em_sv_backend_of(b);
  return be && be->pin ? be->pin(h, n * sizeof(em_cplx)) : 0;
}

void em_dmat_unpin(em_backend b, int pinned, void *h) {
  const em_sv_backend *be = em_sv_backend_of(b);
  if (pinned && be && be->unpin) be->unpin(h);
}

/* the buffers: on the host (page-locked for a device's transfers), and in
 * the backend when it is not the host */
static em_err make_buffers(em_dmat *M) {
  EM_TRY(em_calloc(&M->send_h, (size_t)M->n_send + 1, sizeof *M->send_h, "halo send buffer"));
  EM_TRY(em_calloc(&M->ghost_h, (size_t)M->n_ghost + 1, sizeof *M->ghost_h, "ghost values"));
  if (M->backend == EM_BACKEND_CPU) {
    M->send_b = M->send_h;
    M->ghost_b = M->ghost_h;
    return EM_OK;
  }
  M->pinned[0] = em_dmat_pin(M->backend, M->send_h, (size_t)M->n_send);
  M->pinned[1] = em_dmat_pin(M->backend, M->ghost_h, (size_t)M->n_ghost);
  EM_TRY(em_vec_create(M->backend, EM_PREC_DOUBLE, M->n_send, 1, &M->vs));
  EM_TRY(em_vec_create(M->backend, EM_PREC_DOUBLE, M->n_ghost, 1, &M->vg));
  EM_TRY(M->vs->ops->alloc(M->vs, 1, &M->send_b));
  EM_TRY(M->vg->ops->alloc(M->vg, 1, &M->ghost_b));
  return EM_OK;
}

/* D by order group, rows sorted as the formats want (perm): the local
 * numbering; O's rows, l2g and the send list follow it.  Each copy is
 * freed once the next is made (*Dn, then the split blocks). */
static em_err make_local(em_dmat *M, em_csr **Dn, em_csr **O, int32_t *send,
                         const em_blockop_opts *bop) {
  em_blockmat *Db = NULL;
  em_csr *Op = NULL;
  int32_t *perm = NULL, *l2g = NULL;
  em_err err = EM_OK;
  EM_TRY(em_blockmat_from_csr(*Dn, M->nb, M->offset, &Db));
  em_csr_destroy(Dn);
  EM_TRY_GOTO(err, em_calloc(&perm, (size_t)M->n_own + 1, sizeof *perm, "local order"), done);
  EM_TRY_GOTO(err, em_calloc(&l2g, (size_t)M->n_own + 1, sizeof *l2g, "local unknowns"), done);
  EM_TRY_GOTO(err, em_blockop_plan_perm(Db, bop, perm), done);
  EM_TRY_GOTO(err, em_blockmat_permute(Db, perm, &M->D), done);
  em_blockmat_destroy(&Db);
  EM_TRY_GOTO(err, em_csr_permute(*O, perm, NULL, &Op), done);
  for (int32_t i = 0; i < M->n_own; i++) l2g[perm[i]] = M->l2g[i];
  for (int32_t k = 0; k < M->n_send; k++) send[k] = perm[send[k]];
  em_free(&M->l2g);
  M->l2g = l2g, l2g = NULL;
  em_csr_destroy(O);
  *O = Op, Op = NULL;
done:
  em_blockmat_destroy(&Db);
  em_csr_destroy(&Op);
  em_free(&perm);
  em_free(&l2g);
  return err;
}

em_err em_dmat_create(const struct em_dist *d, const em_dmat_desc *ds, const em_blockop_opts *bop,
                      em_dmat **out) {
  *out = NULL;
  EM_CHECK(ds && ds->owner && bop, EM_ERR_ARG, "em_dmat_create: NULL argument");
  int given = !!ds->R + (ds->A_give && *ds->A_give);
  EM_CHECK(given == 1, EM_ERR_ARG, "em_dmat_create: %s", given ? "rows given twice" : "no rows");
  const em_csr *R = ds->R;
  EM_CHECK(ds->nb >= 1 && ds->nb <= EM_MAX_ORDER && ds->offset[0] == 0 &&
               ds->offset[ds->nb] == ds->n_glob,
           EM_ERR_ARG, "em_dmat_create: order groups do not cover the %d unknowns", ds->n_glob);
  EM_CHECK(bop->prec == EM_PREC_DOUBLE, EM_ERR_UNSUPPORTED,
           "em_dmat_create: a distributed operator in complex double only");
  em_dmat *M = NULL;
  em_csr *Dn = NULL, *O = NULL;
  int32_t *g2l = NULL, *send = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&M, 1, sizeof *M, "distributed operator"));
  M->d = d, M->rank = em_dist_rank(d), M->size = em_dist_size(d);
  M->backend = bop->backend, M->n_glob = ds->n_glob, M->nb = ds->nb;
  M->bop = *bop;
  EM_TRY_GOTO(err, em_calloc(&g2l, (size_t)M->n_glob + 1, sizeof *g2l, "global to local"), fail);
  for (int32_t j = 0; j < M->n_glob; j++) g2l[j] = ds->owner[j] == M->rank ? M->n_own++ : -1;
  if (R && (R->n_rows != M->n_own || R->n_cols != M->n_glob)) {
    err =
        EM_RAISE(EM_ERR_ARG, "em_dmat_create: rank %d owns %d unknowns but was given %d x %d rows",
                 M->rank, M->n_own, R->n_rows, R->n_cols);
    goto fail;
  }
  EM_TRY_GOTO(err, em_calloc(&M->l2g, (size_t)M->n_own + 1, sizeof *M->l2g, "local unknowns"),
              fail);
  for (int32_t j = 0; j < M->n_glob; j++)
    if (g2l[j] >= 0) M->l2g[g2l[j]] = j;
  for (int g = 0; g < M->nb; g++) /* the local groups: the owned of each global one */
    for (int32_t j = ds->offset[g]; j < ds->offset[g + 1]; j++) M->offset[g + 1] += g2l[j] >= 0;
  for (int g = 0; g < M->nb; g++) M->offset[g + 1] += M->offset[g];
  double t = em_wtime();
  if (R) {
    EM_TRY_GOTO(err, em_dmat_plan(M, R, ds->owner, g2l, &Dn, &O, &send), fail);
    M->t_build[0] = em_wtime() - t, t = em_wtime();
    EM_TRY_GOTO(err, make_local(M, &Dn, &O, send, bop), fail);
    M->t_build[1] = em_wtime() - t;
  } else { /* straight from the blocks (dmat_blocks.c) */
    EM_TRY_GOTO(
        err, em_dmat_split_blocks(M, ds->A_give, ds->offset, ds->owner, g2l, bop, &O, &send), fail);
  }
  t = em_wtime();
  if (!ds->defer_op) EM_TRY_GOTO(err, em_dmat_make_op(M, &M->op), fail);
  M->t_build[2] = ds->defer_op ? 0 : em_wtime() - t, t = em_wtime();
  em_spmat_opts so;
  em_spmat_opts_default(&so);
  so.backend = M->backend;
  so.prec = EM_PREC_DOUBLE;
  if (M->n_ghost && O->nnz) EM_TRY_GOTO(err, em_spmat_create(O, &so, &M->O), fail);
  M->Oh = O, O = NULL; /* kept: the coarse level's rows (dpmg.c) */
  so.format = EM_FMT_CSR;
  if (M->n_send) EM_TRY_GOTO(err, make_gather(M, send, &so), fail);
  EM_TRY_GOTO(err, make_buffers(M), fail);
  EM_TRY_GOTO(
      err, em_dist_gatherv(d, M->l2g, (size_t)M->n_own, EM_DIST_INT, (void **)&M->all_l2g, NULL, 0),
      fail);
  if (M->rank == 0) {
    EM_TRY_GOTO(err, em_calloc(&M->all_count, (size_t)M->size, sizeof *M->all_count, "counts"),
                fail);
  }
  {
    int64_t n = M->n_own;
    int64_t *cnt = M->rank == 0 ? M->all_count : &n;
    EM_TRY_GOTO(err, em_dist_gather(d, &n, 1, EM_DIST_INT64, cnt, 0), fail);
  }
  M->t_build[3] = em_wtime() - t;
  *out = M;
  goto done;
fail:
  em_dmat_destroy(&M);
done:
  em_csr_destroy(&Dn);
  em_csr_destroy(&O);
  em_free(&g2l);
  em_free(&send);
  return err;
}

/* D in the formats of M->bop: reads M->D and M->bop only (no MPI) */
em_err em_dmat_make_op(const em_dmat *M, em_blockop **op) {
  EM_CHECK(M && op, EM_ERR_ARG, "em_dmat_make_op: NULL argument");
  return em_blockop_create(M->D, &M->bop, op);
}

void em_dmat_set_op(em_dmat *M, em_blockop *op, double seconds) {
  em_blockop_destroy(&M->op);
  M->op = op;
  M->t_build[2] = seconds;
}

void em_dmat_destroy(em_dmat **pm) {
  em_dmat *M = *pm;
  if (!M) return;
  em_blockop_destroy(&M->op);
  em_blockmat_destroy(&M->D);
  em_spmat_destroy(&M->O);
  em_csr_destroy(&M->Oh);
  em_spmat_destroy(&M->S);
  if (M->vs) {
    if (M->send_b) M->vs->ops->free(M->vs, &M->send_b);
    em_vec_destroy(&M->vs);
  }
  if (M->vg) {
    if (M->ghost_b) M->vg->ops->free(M->vg, &M->ghost_b);
    em_vec_destroy(&M->vg);
  }
  em_dmat_unpin(M->backend, M->pinned[0], M->send_h);
  em_dmat_unpin(M->backend, M->pinned[1], M->ghost_h);
  em_free(&M->send_h);
  em_free(&M->ghost_h);
  em_free(&M->l2g);
  em_free(&M->ghost_gid);
  em_free(&M->nb_rank);
  em_free(&M->send_off);
  em_free(&M->recv_off);
  em_free(&M->all_l2g);
  em_free(&M->all_count);
  em_free(pm);
}

em_err em_dmat_operator(em_dmat *M, em_operator *op) {
  EM_CHECK(M && op, EM_ERR_ARG, "em_dmat_operator: NULL argument");
  memset(op, 0, sizeof *op);
  op->n = M->n_own;
  op->backend = M->backend;
  op->prec = EM_PREC_DOUBLE;
  op->ctx = M;
  op->apply = dmat_apply;
  op->dist = M->d;
  return EM_OK;
}

void em_dmat_get_info(const em_dmat *M, em_dmat_info *info) {
  memset(info, 0, sizeof *info);
  info->n_own = M->n_own, info->n_ghost = M->n_ghost, info->n_send = M->n_send;
  info->n_neighbour = M->n_nb, info->nb = M->nb;
  memcpy(info->offset, M->offset, sizeof info->offset);
  for (int i = 0; i < M->nb; i++)
    for (int j = 0; j < M->nb; j++) info->nnz_local += M->D->blk[i][j]->nnz;
  if (M->O) {
    em_spmat_info si;
    em_spmat_get_info(M->O, &si);
    info->nnz_ghost = si.nnz;
  }
  info->l2g = M->l2g;
  info->ghost_gid = M->ghost_gid;
  info->Oh = M->Oh;
  info->D = M->D;
  info->op = M->op;
  info->t_halo_wait = M->t_halo_wait;
  info->applies = M->applies;
  memcpy(info->t_build, M->t_build, sizeof info->t_build);
}

void em_dmat_take(const em_dmat *M, const em_cplx *xg, em_cplx *xl) {
  for (int32_t k = 0; k < M->n_own; k++) xl[k] = xg[M->l2g[k]];
}

em_err em_dmat_gather(const em_dmat *M, const em_cplx *xl, em_cplx *xg) {
  em_cplx *all = NULL;
  EM_TRY(em_dist_gatherv(M->d, xl, (size_t)M->n_own, EM_DIST_CPLX, (void **)&all, NULL, 0));
  if (M->rank == 0) { /* every rank's values in its l2g order, one after the other */
    int64_t total = 0;
    for (int r = 0; r < M->size; r++) total += M->all_count[r];
    for (int64_t k = 0; k < total; k++) xg[M->all_l2g[k]] = all[k];
  }
  em_free(&all);
  return EM_OK;
}
