/* dmat_plan.c - the communication plan of a distributed operator: the
 * ghosts (the columns of the owned rows that other ranks own), the
 * neighbours, and what each neighbour needs from this rank.  The needs are
 * told, not assumed: each rank sends every owner the list of its ghosts
 * there (counts by em_dist_allgather, lists point to point), so an
 * unsymmetric pattern works too.  Ghosts are sorted by owner, then global
 * index: the slice from each neighbour is contiguous, in the order the
 * neighbour sends it. */
#include <string.h>

#include "dmat_impl.h"

#define TAG_PLAN 32700

/* The ghost list from the marks (mark[j] != 0: global j is a ghost):
 * sorted by owner, then global index (a counting sort by owner of the
 * marks in ascending j: the order a sort by (owner, id) gives, whatever
 * order the marks were set in); gidx[j] = ghost index of j. */
em_err em_dmat_ghosts(em_dmat *M, const uint8_t *mark, const int32_t *owner, int32_t *gidx,
                      em_dmat_ghost **out) {
  int P = M->size;
  int64_t *start = NULL;
  int32_t n = 0;
  for (int32_t j = 0; j < M->n_glob; j++) n += mark[j] != 0;
  EM_TRY(em_calloc(&start, (size_t)P + 1, sizeof *start, "ghost owners"));
  em_err err = em_calloc(out, (size_t)n + 1, sizeof **out, "ghost list");
  if (err) {
    em_free(&start);
    return err;
  }
  for (int32_t j = 0; j < M->n_glob; j++)
    if (mark[j]) start[owner[j] + 1]++;
  for (int q = 0; q < P; q++) start[q + 1] += start[q];
  for (int32_t j = 0; j < M->n_glob; j++) {
    if (!mark[j]) continue;
    int32_t k = (int32_t)start[owner[j]]++;
    (*out)[k] = (em_dmat_ghost){j, owner[j]};
    gidx[j] = k;
  }
  em_free(&start);
  M->n_ghost = n;
  return EM_OK;
}

/* The ghosts of R: the columns other ranks own, marked in parallel (each
 * mark written with the same value), then listed (em_dmat_ghosts). */
static em_err find_ghosts(em_dmat *M, const em_csr *R, const int32_t *owner, int32_t *gidx,
                          em_dmat_ghost **out) {
  uint8_t *mark = NULL;
  EM_TRY(em_calloc(&mark, (size_t)M->n_glob + 1, 1, "ghost marks"));
  int me = M->rank;
#pragma omp parallel for schedule(static) if (R->nnz > 200000)
  for (int64_t q = 0; q < R->nnz; q++) {
    int32_t j = R->colind[q];
    if (owner[j] != me) em_dmat_mark(mark, j);
  }
  em_err err = em_dmat_ghosts(M, mark, owner, gidx, out);
  em_free(&mark);
  return err;
}

/* D = the owned columns of R, O = the ghost columns (sorted in each row):
 * each row's two counts, prefix sums, then the rows filled in parallel */
static em_err split_rows(const em_dmat *M, const em_csr *R, const int32_t *g2l, const int32_t *gidx,
                         em_csr **D, em_csr **O) {
  int32_t n = R->n_rows;
  int64_t *cd = NULL;
  EM_TRY(em_calloc(&cd, (size_t)n + 1, sizeof *cd, "row split"));
#pragma omp parallel for schedule(dynamic, 4096) if (n > 20000)
  for (int32_t i = 0; i < n; i++)
    for (int64_t q = R->rowptr[i]; q < R->rowptr[i + 1]; q++) cd[i] += g2l[R->colind[q]] >= 0;
  int64_t nd = 0;
  for (int32_t i = 0; i < n; i++) nd += cd[i];
  em_err err = em_csr_create(M->n_own, M->n_own, nd, D);
  if (!err) err = em_csr_create(M->n_own, M->n_ghost, R->nnz - nd, O);
  if (err) {
    em_free(&cd);
    return err;
  }
  em_csr *a = *D, *b = *O;
  for (int32_t i = 0; i < n; i++) {
    a->rowptr[i + 1] = a->rowptr[i] + cd[i];
    b->rowptr[i + 1] = b->rowptr[i] + (R->rowptr[i + 1] - R->rowptr[i] - cd[i]);
  }
  em_free(&cd);
#pragma omp parallel for schedule(dynamic, 4096) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t pd = a->rowptr[i], po = b->rowptr[i], o0 = po;
    for (int64_t q = R->rowptr[i]; q < R->rowptr[i + 1]; q++) {
      int32_t j = R->colind[q];
      if (g2l[j] >= 0) {
        a->colind[pd] = g2l[j]; /* l2g ascending: sorted as R's */
        a->val[pd++] = R->val[q];
      } else {
        b->colind[po] = gidx[j];
        b->val[po++] = R->val[q];
      }
    }
    em_dmat_sort_row(b->colind, b->val, o0, po);
  }
  return EM_OK;
}

/* the neighbours and, by message, the unknowns each needs from this rank */
em_err em_dmat_exchange(em_dmat *M, const em_dmat_ghost *g, const int32_t *g2l,
                        int32_t **send_idx) {
  int P = M->size, me = M->rank;
  em_err err = EM_OK;
  int64_t *need = NULL, *all = NULL;
  int32_t *ids = NULL, *sidx = NULL;
  em_dist_req **req = NULL;
  EM_TRY(em_calloc(&need, (size_t)P, sizeof *need, "halo counts"));
  EM_TRY_GOTO(err, em_calloc(&all, (size_t)P * P, sizeof *all, "halo counts"), done);
  EM_TRY_GOTO(err, em_calloc(&ids, (size_t)M->n_ghost + 1, sizeof *ids, "ghost ids"), done);
  EM_TRY_GOTO(err, em_calloc(&req, (size_t)P, sizeof *req, "halo requests"), done);
  for (int32_t k = 0; k < M->n_ghost; k++) need[g[k].owner]++, ids[k] = g[k].id;
  EM_TRY_GOTO(err, em_dist_allgather(M->d, need, (size_t)P, EM_DIST_INT64, all), done);
  EM_TRY_GOTO(err, em_calloc(&M->nb_rank, (size_t)P, sizeof *M->nb_rank, "neighbours"), done);
  EM_TRY_GOTO(err, em_calloc(&M->send_off, (size_t)P + 1, sizeof *M->send_off, "halo plan"), done);
  EM_TRY_GOTO(err, em_calloc(&M->recv_off, (size_t)P + 1, sizeof *M->recv_off, "halo plan"), done);
  M->n_nb = 0;
  for (int q = 0; q < P; q++) {
    int64_t s = all[(size_t)q * P + me], r = need[q]; /* q needs s from me, I r from q */
    if (q == me || (!s && !r)) continue;
    int i = M->n_nb++;
    M->nb_rank[i] = q;
    M->send_off[i + 1] = M->send_off[i] + s;
    M->recv_off[i + 1] = M->recv_off[i] + r;
  }
  M->n_send = (int32_t)M->send_off[M->n_nb];
  EM_TRY_GOTO(err, em_calloc(&sidx, (size_t)M->n_send + 1, sizeof *sidx, "send list"), done);
  for (int i = 0; i < M->n_nb; i++) { /* my ghosts' ids to their owners */
    size_t bytes = (size_t)(M->recv_off[i + 1] - M->recv_off[i]) * sizeof *ids;
    if (bytes)
      EM_TRY_GOTO(
          err, em_dist_isend(M->d, ids + M->recv_off[i], bytes, M->nb_rank[i], TAG_PLAN, &req[i]),
          wait);
  }
  for (int i = 0; i < M->n_nb; i++) { /* theirs from me */
    size_t bytes = (size_t)(M->send_off[i + 1] - M->send_off[i]) * sizeof *sidx, got = 0;
    if (!bytes) continue;
    EM_TRY_GOTO(
        err, em_dist_recv(M->d, sidx + M->send_off[i], bytes, M->nb_rank[i], TAG_PLAN, NULL, &got),
        wait);
    if (got != bytes) {
      err = EM_RAISE(EM_ERR_INTERNAL, "rank %d asked for %zu bytes of ghosts, not %zu",
                     M->nb_rank[i], got, bytes);
      goto wait;
    }
  }
  for (int32_t k = 0; k < M->n_send; k++) {
    int32_t l = g2l[sidx[k]];
    if (l < 0) {
      err = EM_RAISE(EM_ERR_INTERNAL, "a rank asked rank %d for unknown %d, which it does not own",
                     me, sidx[k]);
      goto wait;
    }
    sidx[k] = l;
  }
wait:
  for (int i = 0; i < P; i++) {
    em_err e = em_dist_wait(M->d, &req[i], EM_DIST_BLOCK);
    if (!err) err = e;
  }
done:
  if (!err) *send_idx = sidx, sidx = NULL;
  em_free(&need);
  em_free(&all);
  em_free(&ids);
  em_free(&sidx);
  em_free(&req);
  return err;
}

em_err em_dmat_plan(em_dmat *M, const em_csr *R, const int32_t *owner, const int32_t *g2l,
                    em_csr **D, em_csr **O, int32_t **send_idx) {
  int32_t *gidx = NULL;
  em_dmat_ghost *g = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&gidx, (size_t)M->n_glob + 1, sizeof *gidx, "ghost map"));
  for (int32_t j = 0; j < M->n_glob; j++) gidx[j] = -1;
  EM_TRY_GOTO(err, find_ghosts(M, R, owner, gidx, &g), done);
  EM_TRY_GOTO(err, split_rows(M, R, g2l, gidx, D, O), done);
  EM_TRY_GOTO(err, em_calloc(&M->ghost_gid, (size_t)M->n_ghost + 1, sizeof *M->ghost_gid, "ghosts"),
              done);
  for (int32_t k = 0; k < M->n_ghost; k++) M->ghost_gid[k] = g[k].id;
  EM_TRY_GOTO(err, em_dmat_exchange(M, g, g2l, send_idx), done);
done:
  em_free(&gidx);
  em_free(&g);
  return err;
}
