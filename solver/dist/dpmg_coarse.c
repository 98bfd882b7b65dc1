/* dpmg_coarse.c - the coarse level of the distributed V-cycle (dpmg.c):
 * the coarse set C (coarse_glob, the same on every rank) numbered
 * globally; each rank's rows of A_CC (from its local part and its ghost
 * couplings) gathered to rank 0 as triplets, assembled and factored there
 * by the sparse direct solver (on rank 0's GPU with the CUDA backend, the
 * host when it does not fit); the selection S_C of each rank's coarse rows
 * and its transpose, which scatter-adds the solution back, in the backend.
 * (MUMPS, a distributed factor, would take over where rank 0 cannot hold
 * A_CC: not built yet, docs/mpi.md.) */
#include <stdio.h>
#include <string.h>

#include "dpmg_impl.h"

/* the triplets of this rank's coarse rows, global coarse numbering, row
 * after row (each row one run: coarse_csr relies on it); counted, then
 * filled, both passes parallel over the rows */
static em_err rows(const dpmg *p, const int32_t *cidx, const int32_t *cl, int32_t **ti,
                   int32_t **tj, em_cplx **tv, int64_t *nt) {
  const em_dmat *M = p->M;
  int64_t *at = NULL; /* row q's first triplet */
  em_err err = EM_OK;
  EM_TRY(em_calloc(&at, (size_t)p->n_cl + 1, sizeof *at, "coarse rows"));
  for (int pass = 0; pass < 2; pass++) {
#pragma omp parallel for schedule(dynamic, 1024) if (p->n_cl > 20000)
    for (int32_t q = 0; q < p->n_cl; q++) {
      int32_t k = cl[q], gi = 0, row = cidx[M->l2g[k]];
      int64_t n = pass ? at[q] : 0;
      while (gi + 1 < M->nb && k >= M->offset[gi + 1]) gi++;
      for (int gj = 0; gj < M->nb; gj++) {
        const em_csr *B = M->D->blk[gi][gj];
        int32_t r = k - M->offset[gi];
        for (int64_t e = B->rowptr[r]; e < B->rowptr[r + 1]; e++) {
          int32_t c = cidx[M->l2g[M->offset[gj] + B->colind[e]]];
          if (c < 0) continue;
          if (pass) (*ti)[n] = row, (*tj)[n] = c, (*tv)[n] = B->val[e];
          n++;
        }
      }
      const em_csr *O = M->Oh;
      for (int64_t e = O && O->n_rows ? O->rowptr[k] : 0; O && O->n_rows && e < O->rowptr[k + 1];
           e++) {
        int32_t c = cidx[M->ghost_gid[O->colind[e]]];
        if (c < 0) continue;
        if (pass) (*ti)[n] = row, (*tj)[n] = c, (*tv)[n] = O->val[e];
        n++;
      }
      if (!pass) at[q + 1] = n;
    }
    if (!pass) {
      for (int32_t q = 0; q < p->n_cl; q++) at[q + 1] += at[q];
      size_t n = (size_t)at[p->n_cl] + 1;
      EM_TRY_GOTO(err, em_calloc(ti, n, sizeof **ti, "coarse rows"), done);
      EM_TRY_GOTO(err, em_calloc(tj, n, sizeof **tj, "coarse rows"), done);
      EM_TRY_GOTO(err, em_calloc(tv, n, sizeof **tv, "coarse rows"), done);
    }
  }
  *nt = at[p->n_cl];
done:
  em_free(&at);
  return err;
}

/* rank 0: A_CC (n x n) from the gathered triplets.  Each coarse row comes
 * whole from the rank that owns it, as one run of ti (rows()), so the
 * rows are placed, then sorted in parallel: em_csr_from_triplets's matrix
 * (rows sorted; a row's columns are distinct, nothing to sum), to which
 * this falls back when a row is not one run or repeats a column. */
static em_err coarse_csr(int32_t n, int64_t nt, const int32_t *ti, const int32_t *tj,
                         const em_cplx *tv, em_csr **out) {
  int64_t *from = NULL; /* row r's run in the triplets */
  em_csr *A = NULL;
  em_err err = EM_OK;
  int ok = 1;
  *out = NULL;
  EM_TRY(em_calloc(&from, (size_t)n + 1, sizeof *from, "coarse rows"));
  EM_TRY_GOTO(err, em_csr_create(n, n, nt, &A), done);
  for (int32_t r = 0; r < n; r++) from[r] = -1;
  for (int64_t k = 0, e = 0; ok && k < nt; k = e) {
    int32_t r = ti[k];
    ok = r >= 0 && r < n && from[r] < 0;
    for (e = k + 1; e < nt && ti[e] == ti[k];) e++;
    if (ok) from[r] = k, A->rowptr[r + 1] = e - k;
  }
  for (int32_t r = 0; ok && r < n; r++) A->rowptr[r + 1] += A->rowptr[r];
  if (ok) {
#pragma omp parallel for schedule(dynamic, 1024) reduction(&& : ok) if (n > 20000)
    for (int32_t r = 0; r < n; r++) {
      int64_t b = A->rowptr[r], len = A->rowptr[r + 1] - b;
      int32_t *c = A->colind + b;
      em_cplx *v = A->val + b;
      for (int64_t q = 0; q < len; q++) { /* insertion sort: rows of tens */
        int32_t cq = tj[from[r] + q];
        em_cplx vq = tv[from[r] + q];
        int64_t w = q;
        for (; w > 0 && c[w - 1] > cq; w--) c[w] = c[w - 1], v[w] = v[w - 1];
        c[w] = cq, v[w] = vq;
        ok = ok && cq >= 0 && cq < n && (w == 0 || c[w - 1] != cq);
      }
    }
  }
  if (ok) {
    *out = A;
    A = NULL;
  } else {
    err = em_csr_from_triplets(n, n, nt, ti, tj, tv, out);
  }
done:
  em_csr_destroy(&A);
  em_free(&from);
  return err;
}

/* S (n_cl x n_own) selects the coarse rows; S^T puts them back */
static em_err selections(dpmg *p, const int32_t *cl) {
  const em_dmat *M = p->M;
  em_csr *S = NULL, *St = NULL;
  em_err err = EM_OK;
  EM_TRY(em_csr_create(p->n_cl, M->n_own, p->n_cl, &S));
  EM_TRY_GOTO(err, em_csr_create(M->n_own, p->n_cl, p->n_cl, &St), done);
  for (int32_t q = 0; q < p->n_cl; q++) {
    S->colind[q] = cl[q], S->val[q] = 1, S->rowptr[q + 1] = q + 1;
    St->rowptr[cl[q] + 1] = 1;
  }
  for (int32_t i = 0; i < M->n_own; i++) St->rowptr[i + 1] += St->rowptr[i];
  for (int32_t q = 0; q < p->n_cl; q++) { /* cl ascending: one entry per row */
    St->colind[St->rowptr[cl[q]]] = q;
    St->val[St->rowptr[cl[q]]] = 1;
  }
  em_spmat_opts so;
  em_spmat_opts_default(&so);
  so.format = EM_FMT_CSR;
  so.backend = M->backend;
  EM_TRY_GOTO(err, em_spmat_create(S, &so, &p->Sc), done);
  EM_TRY_GOTO(err, em_spmat_create(St, &so, &p->ScT), done);
done:
  em_csr_destroy(&S);
  em_csr_destroy(&St);
  return err;
}

/* rank 0 on a device: Pin (row cg_all[k] takes gathered value k) and its
 * transpose Pout, so that each V-cycle's gathered rows go into the coarse
 * order, and the solution back, on the device (a product by 1: the values
 * exactly) instead of two host loops over the n_c values */
static em_err permutations(dpmg *p) {
  em_csr *P = NULL, *Q = NULL;
  int32_t n = (int32_t)p->n_c;
  em_err err = EM_OK;
  EM_TRY(em_csr_create(n, n, n, &P));
  EM_TRY_GOTO(err, em_csr_create(n, n, n, &Q), done);
  for (int32_t k = 0; k < n; k++) {
    int32_t i = p->cg_all[k];
    if (i < 0 || i >= n || P->rowptr[i + 1]) {
      err = EM_RAISE(EM_ERR_INTERNAL, "coarse unknown %d gathered twice or out of range", i);
      goto done;
    }
    P->rowptr[i + 1] = 1, P->colind[i] = k, P->val[i] = 1;
    Q->rowptr[k + 1] = k + 1, Q->colind[k] = i, Q->val[k] = 1;
  }
  for (int32_t i = 0; i < n; i++) P->rowptr[i + 1] = i + 1; /* one entry per row, checked */
  em_spmat_opts so;
  em_spmat_opts_default(&so);
  so.format = EM_FMT_CSR;
  so.backend = p->M->backend;
  so.prec = EM_PREC_DOUBLE;
  EM_TRY_GOTO(err, em_spmat_create(P, &so, &p->Pin), done);
  EM_TRY_GOTO(err, em_spmat_create(Q, &so, &p->Pout), done);
done:
  em_csr_destroy(&P);
  em_csr_destroy(&Q);
  return err;
}

void em_dmat_pmg_coarse_opts(const em_pc_opts *o, em_backend be, em_pc_opts *co) {
  em_pc_opts_default(co);
  co->type = EM_PC_DIRECT;
  co->ordering = o->ordering == EM_ORDERING_NATURAL ? EM_ORDERING_ND : o->ordering;
  co->backend = be;
  co->prec = be == EM_BACKEND_CPU ? EM_PREC_DOUBLE : o->prec; /* single: CUDA only */
  co->cancel = o->cancel;
  co->block_columns = o->block_columns;
  co->gsolve = o->gsolve;
}

/* rank 0: A_CC from the gathered triplets, factored as pmg's coarse level
 * is on one rank (the direct preconditioner in the pc's precision: complex
 * single with Solver/precision mixed on a GPU, the Krylov method refines),
 * on the analysis made ahead (ah) when A_CC has its pattern */
static em_err factor(dpmg *p, const int32_t *ti, const int32_t *tj, const em_cplx *tv, int64_t nt,
                     const em_pc_opts *o, em_dmat_coarse_ahead *ah, const em_log *log,
                     double t_gather, size_t *bytes) {
  em_csr *A = NULL;
  double t = em_wtime();
  EM_TRY(coarse_csr((int32_t)p->n_c, nt, ti, tj, tv, &A));
  double t_csr = em_wtime() - t;
  em_pc_opts co;
  em_dmat_pmg_coarse_opts(o, p->M->backend, &co);
  em_err err = EM_OK;
  int taken = 0;
  if (ah && ah->F) {
    taken = ah->pattern == em_spmat_pattern_hash(A);
    if (!taken) {
      em_log_verbose(log,
                     "distributed pmg: the coarse analysis made ahead is not used (the "
                     "gathered coarse level has another pattern); it runs in order");
      em_direct_destroy(&ah->F);
    }
  }
  if (taken)
    err = em_pc_create_analysed(A, &co, &ah->F, log, &p->F);
  else
    err = em_pc_create(A, &co, log, &p->F);
  em_csr_destroy(&A);
  EM_TRY(err);
  if (p->M->backend != EM_BACKEND_CPU) {
    EM_TRY(em_vec_create(p->M->backend, EM_PREC_DOUBLE, p->n_c, 1, &p->vcs));
    EM_TRY(p->vcs->ops->alloc(p->vcs, 3, &p->dcs));
    EM_TRY(permutations(p));
  }
  em_pc_info ci;
  em_pc_get_info(p->F, &ci);
  *bytes = ci.bytes;
  em_log_info(
      log,
      "distributed pmg: coarse level of %lld unknowns (%lld entries) gathered to rank 0 "
      "(%.2f s) and factored there (%s, %s, %lld entries of L, %.1f MB; %.2f s the "
      "matrix, %.2f s the factor%s)",
      (long long)p->n_c, (long long)nt, t_gather, co.backend == EM_BACKEND_CPU ? "cpu" : "gpu",
      co.prec == EM_PREC_SINGLE ? "complex single" : "complex double", (long long)ci.factor_nnz,
      ci.bytes / 1e6, t_csr, ci.t_setup, taken ? " on its analysis made ahead" : "");
  return EM_OK;
}

em_err em_dpmg_coarse_build(dpmg *p, const uint8_t *coarse_glob, const em_pc_opts *o,
                            em_dmat_coarse_ahead *ah, const em_log *log, size_t *bytes) {
  const em_dmat *M = p->M;
  const em_dist *d = M->d;
  int root = M->rank == 0;
  int32_t *cidx = NULL, *cl = NULL, *ti = NULL, *tj = NULL, *cg = NULL;
  int32_t *ai = NULL, *aj = NULL;
  em_cplx *tv = NULL, *av = NULL;
  int64_t nt = 0, *tcnt = NULL;
  em_err err = EM_OK;
  *bytes = 0;
  EM_TRY(em_calloc(&cidx, (size_t)M->n_glob + 1, sizeof *cidx, "coarse numbering"));
  p->n_c = 0;
  for (int32_t j = 0; j < M->n_glob; j++) cidx[j] = coarse_glob[j] ? (int32_t)p->n_c++ : -1;
  EM_TRY_GOTO(err, em_calloc(&cl, (size_t)M->n_own + 1, sizeof *cl, "coarse rows"), done);
  p->n_cl = 0;
  for (int32_t k = 0; k < M->n_own; k++)
    if (cidx[M->l2g[k]] >= 0) cl[p->n_cl++] = k;
  EM_TRY_GOTO(err, em_calloc(&cg, (size_t)p->n_cl + 1, sizeof *cg, "coarse rows"), done);
  for (int32_t q = 0; q < p->n_cl; q++) cg[q] = cidx[M->l2g[cl[q]]];
  EM_TRY_GOTO(err, em_calloc(&p->ch, (size_t)p->n_cl + 1, sizeof *p->ch, "coarse values"), done);
  if (root) {
    EM_TRY_GOTO(err, em_calloc(&p->cnt, (size_t)M->size, sizeof *p->cnt, "coarse counts"), done);
    EM_TRY_GOTO(err, em_calloc(&tcnt, (size_t)M->size, sizeof *tcnt, "coarse counts"), done);
    EM_TRY_GOTO(err, em_calloc(&p->cs, (size_t)p->n_c + 1, sizeof *p->cs, "coarse vector"), done);
    EM_TRY_GOTO(err, em_calloc(&p->all, (size_t)p->n_c + 1, sizeof *p->all, "coarse rows"), done);
  }
  EM_TRY_GOTO(err,
              em_dist_gatherv(d, cg, (size_t)p->n_cl, EM_DIST_INT, (void **)&p->cg_all, p->cnt, 0),
              done);
  double t_gather = em_wtime();
  EM_TRY_GOTO(err, rows(p, cidx, cl, &ti, &tj, &tv, &nt), done);
  EM_TRY_GOTO(err, em_dist_gatherv(d, ti, (size_t)nt, EM_DIST_INT, (void **)&ai, tcnt, 0), done);
  EM_TRY_GOTO(err, em_dist_gatherv(d, tj, (size_t)nt, EM_DIST_INT, (void **)&aj, NULL, 0), done);
  EM_TRY_GOTO(err, em_dist_gatherv(d, tv, (size_t)nt, EM_DIST_CPLX, (void **)&av, NULL, 0), done);
  em_free(&ti), em_free(&tj), em_free(&tv);
  if (root) {
    int64_t total = 0;
    for (int r = 0; r < M->size; r++) total += tcnt[r];
    err = factor(p, ai, aj, av, total, o, ah, log, em_wtime() - t_gather, bytes);
  }
  /* a failed factor on rank 0 fails every rank, each with rank 0's reason:
     the first rank to stop aborts them all, maybe before rank 0 prints */
  int bad = err != EM_OK;
  em_err e2 = em_dist_allreduce(d, &bad, 1, EM_DIST_INT, EM_DIST_MAX);
  if (!err && e2) err = e2;
  if (bad && !e2) {
    char why[400] = "";
    if (root && err) snprintf(why, sizeof why, "%s", em_error_message());
    if (!em_dist_bcast(d, why, sizeof why, EM_DIST_BYTE, 0) && !root)
      err = EM_RAISE(EM_ERR_INTERNAL, "the coarse factor failed on rank 0: %.399s", why);
  }
  if (err) goto done;
  EM_TRY_GOTO(err, selections(p, cl), done);
  if (M->backend != EM_BACKEND_CPU) { /* the buffers each V-cycle moves, page-locked */
    p->pinned[0] = em_dmat_pin(M->backend, p->ch, (size_t)p->n_cl);
    if (root) p->pinned[1] = em_dmat_pin(M->backend, p->all, (size_t)p->n_c);
    EM_TRY_GOTO(err, em_vec_create(M->backend, EM_PREC_DOUBLE, p->n_cl, 1, &p->vc), done);
    EM_TRY_GOTO(err, p->vc->ops->alloc(p->vc, 1, &p->cb), done);
  }
done:
  em_free(&cidx), em_free(&cl), em_free(&cg);
  em_free(&ti), em_free(&tj), em_free(&tv);
  em_free(&ai), em_free(&aj), em_free(&av);
  em_free(&tcnt);
  return err;
}
