/* ilu0.c - ILU(0) analysis and factorization on the host:
 *
 *   for each row i (pc numbering), for k < i with a_ik != 0, ascending:
 *       a_ik /= a_kk;   a_ij -= a_ik a_kj  for j > k with a_ij != 0
 *
 * Row i reads only rows of lower levels, so the rows of one L level are
 * factored in parallel (OpenMP), thin levels by one thread.  The same
 * level sets then schedule the triangular solves on the CPU and the GPU. */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ilu_impl.h"

static int max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static int thread_id(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* stable counting sort of items 0..n-1 by key: order[t] = item, ptr[key]
 * = first position of the key (nk + 1 entries) */
static em_err sort_by_level(int32_t n, const int32_t *key, int nk, int32_t *order, int32_t *ptr) {
  for (int l = 0; l <= nk; l++) ptr[l] = 0;
  for (int32_t i = 0; i < n; i++) ptr[key[i] + 1]++;
  for (int l = 0; l < nk; l++) ptr[l + 1] += ptr[l];
  int32_t *next = NULL;
  EM_TRY(em_calloc(&next, (size_t)nk + 1, sizeof *next, "level cursor"));
  for (int l = 0; l <= nk; l++) next[l] = ptr[l];
  for (int32_t i = 0; i < n; i++) order[next[key[i]]++] = i;
  em_free(&next);
  return EM_OK;
}

/* L levels in the ordered numbering: lev[p] = 1 + max lev[q] over the
 * neighbours q < p (graph of A + A^T, so coupled rows never share a level
 * and the level sort keeps their order) */
static int lower_levels(const em_graph *g, const int32_t *perm, const int32_t *iperm,
                        int32_t *lev) {
  int nl = 0;
  for (int32_t p = 0; p < g->n; p++) {
    int32_t old = iperm[p], l = 0;
    for (int64_t k = g->ptr[old]; k < g->ptr[old + 1]; k++) {
      int32_t q = perm[g->adj[k]];
      if (q < p && lev[q] + 1 > l) l = lev[q] + 1;
    }
    lev[p] = l;
    if (l + 1 > nl) nl = l + 1;
  }
  return nl;
}

/* U levels of the pc rows: lev[i] = 1 + max lev[j] over a_ij != 0, j > i */
static int upper_levels(const em_csr *A, int32_t *lev) {
  int nl = 0;
  for (int32_t i = A->n_rows - 1; i >= 0; i--) {
    int32_t l = 0;
    for (int64_t k = A->rowptr[i + 1] - 1; k >= A->rowptr[i] && A->colind[k] > i; k--)
      if (lev[A->colind[k]] + 1 > l) l = lev[A->colind[k]] + 1;
    lev[i] = l;
    if (l + 1 > nl) nl = l + 1;
  }
  return nl;
}

em_err em_ilu0_analyse(const em_csr *A, em_pc_ordering o, int block, em_ilu0 **out) {
  *out = NULL;
  int32_t n = A->n_rows;
  em_err err = EM_OK;
  em_graph g = {0, NULL, NULL, 0};
  int32_t *pord = NULL, *iord = NULL, *lev = NULL, *ls = NULL;
  em_ilu0 *F = NULL;
  EM_TRY(em_calloc(&F, 1, sizeof *F, "ILU(0) factors"));
  F->n = n;
  EM_TRY_GOTO(err, em_calloc(&F->perm, (size_t)n, sizeof(int32_t), "ILU permutation"), fail);
  EM_TRY_GOTO(err, em_calloc(&F->iperm, (size_t)n, sizeof(int32_t), "ILU permutation"), fail);
  EM_TRY_GOTO(err, em_calloc(&pord, (size_t)n, sizeof *pord, "ordering"), fail);
  EM_TRY_GOTO(err, em_calloc(&iord, (size_t)n, sizeof *iord, "ordering"), fail);
  EM_TRY_GOTO(err, em_calloc(&lev, (size_t)n, sizeof *lev, "levels"), fail);
  EM_TRY_GOTO(err, em_calloc(&ls, (size_t)n, sizeof *ls, "level order"), fail);
  EM_TRY_GOTO(err, em_graph_of(A, &g), fail);
  EM_TRY_GOTO(err, em_graph_order(&g, o, block, pord, &F->colors), fail);
  for (int32_t i = 0; i < n; i++) iord[i] = -1;
  for (int32_t i = 0; i < n; i++) {
    if (pord[i] < 0 || pord[i] >= n || iord[pord[i]] >= 0) {
      err = EM_RAISE(EM_ERR_INTERNAL, "ordering %s is not a permutation (row %d -> %d)",
                     em_ordering_name(o), i, pord[i]);
      goto fail;
    }
    iord[pord[i]] = i;
  }
  /* level sort: pc index = position by (L level, ordered index) */
  F->lev_l.n_levels = lower_levels(&g, pord, iord, lev);
  EM_TRY_GOTO(err,
              em_calloc(&F->lev_l.ptr, (size_t)F->lev_l.n_levels + 1, sizeof(int32_t), "L levels"),
              fail);
  EM_TRY_GOTO(err, sort_by_level(n, lev, F->lev_l.n_levels, ls, F->lev_l.ptr), fail);
  for (int32_t t = 0; t < n; t++) F->iperm[t] = iord[ls[t]];
  for (int32_t t = 0; t < n; t++) F->perm[F->iperm[t]] = t;
  EM_TRY_GOTO(err, em_ilu0_permute(A, F->perm, F->iperm, &F->Apc), fail);
  /* U schedule on the permuted pattern */
  F->lev_u.n_levels = upper_levels(F->Apc, lev);
  EM_TRY_GOTO(err,
              em_calloc(&F->lev_u.ptr, (size_t)F->lev_u.n_levels + 1, sizeof(int32_t), "U levels"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&F->urow, (size_t)n, sizeof(int32_t), "U schedule"), fail);
  EM_TRY_GOTO(err, sort_by_level(n, lev, F->lev_u.n_levels, F->urow, F->lev_u.ptr), fail);
  EM_TRY_GOTO(err, em_calloc(&F->diag, (size_t)n, sizeof(int64_t), "ILU diagonal positions"), fail);
#pragma omp parallel for schedule(static) if (n > 4096)
  for (int32_t i = 0; i < n; i++) {
    F->diag[i] = -1;
    for (int64_t k = F->Apc->rowptr[i]; k < F->Apc->rowptr[i + 1]; k++)
      if (F->Apc->colind[k] == i) F->diag[i] = k;
  }
  for (int32_t i = 0; i < n; i++)
    if (F->diag[i] < 0) {
      err = EM_RAISE(EM_ERR_NUMERIC, "ILU(0): row %d has no diagonal entry", F->iperm[i]);
      goto fail;
    }
  *out = F;
  F = NULL;
fail:
  em_graph_free(&g);
  em_free(&pord);
  em_free(&iord);
  em_free(&lev);
  em_free(&ls);
  em_ilu0_destroy(&F);
  return err;
}

/* one row of the factorization; pos[] (offsets within row i) is -1
 * everywhere on entry and exit.  Returns 1 when the pivot is zero or not
 * finite, 0 otherwise */
static int factor_row(em_ilu0 *F, int32_t i, int32_t *pos) {
  const em_csr *A = F->Apc;
  em_cplx *val = A->val;
  int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
  for (int64_t k = b; k < e; k++) pos[A->colind[k]] = (int32_t)(k - b);
  for (int64_t k = b; k < e && A->colind[k] < i; k++) {
    int32_t c = A->colind[k];
    em_cplx lik = val[k] / val[F->diag[c]]; /* l_ik = a_ik / u_kk */
    val[k] = lik;
    for (int64_t m = F->diag[c] + 1; m < A->rowptr[c + 1]; m++) {
      int32_t q = pos[A->colind[m]];
      if (q >= 0) val[b + q] -= lik * val[m]; /* a_ij -= l_ik u_kj */
    }
  }
  for (int64_t k = b; k < e; k++) pos[A->colind[k]] = -1;
  em_cplx d = val[F->diag[i]];
  return !(d != 0 && isfinite(creal(d)) && isfinite(cimag(d)));
}

em_err em_ilu0_factorize(em_ilu0 *F) {
  int32_t n = F->n;
  int nt = max_threads();
  em_seg *seg = NULL;
  int ns = 0;
  int32_t *pos = NULL;
  EM_TRY(em_calloc(&pos, (size_t)nt * (size_t)n + 1, sizeof *pos, "ILU row markers"));
  for (size_t k = 0; k < (size_t)nt * (size_t)n; k++) pos[k] = -1;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_levels_segments(&F->lev_l, 2 * nt, &seg, &ns), done);
  int32_t bad = n; /* lowest pc row with a bad pivot */
#pragma omp parallel if (n > 4096)
  {
    int32_t *mine = pos + (size_t)thread_id() * (size_t)n;
    for (int s = 0; s < ns; s++) {
      int32_t r0 = F->lev_l.ptr[seg[s].l0], r1 = F->lev_l.ptr[seg[s].l1];
      if (seg[s].thin) {
#pragma omp single
        for (int32_t i = r0; i < r1; i++)
          if (factor_row(F, i, mine) && i < bad) bad = i;
      } else {
#pragma omp for schedule(dynamic, 32)
        for (int32_t i = r0; i < r1; i++)
          if (factor_row(F, i, mine)) {
#pragma omp critical(ilu0_bad_pivot)
            if (i < bad) bad = i;
          }
      }
    }
  }
  if (bad < n) {
    em_cplx d = F->Apc->val[F->diag[bad]];
    err = EM_RAISE(EM_ERR_NUMERIC,
                   "ILU(0): pivot of row %d is %s (%g%+gj); a diagonal shift or another "
                   "ordering / preconditioner is needed",
                   F->iperm[bad], d == 0 ? "zero" : "not finite", creal(d), cimag(d));
  }
done:
  em_free(&pos);
  em_free(&seg);
  return err;
}

em_err em_ilu0_split(em_ilu0 *F, em_prec prec) {
  const em_csr *A = F->Apc;
  int32_t n = F->n;
  size_t es = em_prec_size(prec);
  int64_t nl = 0, nu = 0;
  for (int32_t i = 0; i < n; i++) {
    nl += F->diag[i] - A->rowptr[i];
    nu += A->rowptr[i + 1] - 1 - F->diag[i];
  }
  F->prec = prec;
  EM_TRY(em_calloc(&F->lptr, (size_t)n + 1, sizeof *F->lptr, "ILU L offsets"));
  EM_TRY(em_calloc(&F->lcol, (size_t)nl, sizeof *F->lcol, "ILU L columns"));
  EM_TRY(em_calloc(&F->lval, (size_t)nl, es, "ILU L values"));
  EM_TRY(em_calloc(&F->uptr, (size_t)n + 1, sizeof *F->uptr, "ILU U offsets"));
  EM_TRY(em_calloc(&F->ucol, (size_t)nu, sizeof *F->ucol, "ILU U columns"));
  EM_TRY(em_calloc(&F->uval, (size_t)nu, es, "ILU U values"));
  EM_TRY(em_calloc(&F->dinv, (size_t)n, es, "ILU inverse diagonal"));
  em_cplx *ld = F->lval, *ud = F->uval, *dd = F->dinv;
  em_cplxf *lf = F->lval, *uf = F->uval, *df = F->dinv;
  int single = prec == EM_PREC_SINGLE;
  for (int32_t i = 0; i < n; i++) /* offsets: L by pc row, U by schedule position */
    F->lptr[i + 1] = F->lptr[i] + (F->diag[i] - A->rowptr[i]);
  for (int32_t t = 0; t < n; t++)
    F->uptr[t + 1] = F->uptr[t] + (A->rowptr[F->urow[t] + 1] - 1 - F->diag[F->urow[t]]);
#pragma omp parallel for schedule(static) if (n > 4096)
  for (int32_t i = 0; i < n; i++) {
    int64_t w = F->lptr[i];
    for (int64_t k = A->rowptr[i]; k < F->diag[i]; k++, w++) {
      F->lcol[w] = A->colind[k];
      if (single)
        lf[w] = (em_cplxf)A->val[k];
      else
        ld[w] = A->val[k];
    }
    em_cplx di = 1.0 / A->val[F->diag[i]];
    if (single)
      df[i] = (em_cplxf)di;
    else
      dd[i] = di;
  }
#pragma omp parallel for schedule(static) if (n > 4096)
  for (int32_t t = 0; t < n; t++) {
    int32_t i = F->urow[t];
    int64_t w = F->uptr[t];
    for (int64_t k = F->diag[i] + 1; k < A->rowptr[i + 1]; k++, w++) {
      F->ucol[w] = A->colind[k];
      if (single)
        uf[w] = (em_cplxf)A->val[k];
      else
        ud[w] = A->val[k];
    }
  }
  em_csr_destroy(&F->Apc);
  em_free(&F->diag);
  return EM_OK;
}

size_t em_ilu0_bytes(const em_ilu0 *F) {
  size_t es = em_prec_size(F->prec), n = (size_t)F->n;
  size_t nl = F->lptr ? (size_t)F->lptr[n] : 0, nu = F->uptr ? (size_t)F->uptr[n] : 0;
  return (nl + nu) * (es + sizeof(int32_t)) + 2 * (n + 1) * sizeof(int64_t) + n * es +
         3 * n * sizeof(int32_t); /* values and columns, offsets, 1/diag, perm/iperm/urow */
}

void em_ilu0_destroy(em_ilu0 **F) {
  if (!*F) return;
  em_ilu0 *f = *F;
  em_free(&f->perm);
  em_free(&f->iperm);
  em_csr_destroy(&f->Apc);
  em_free(&f->diag);
  em_levels_free(&f->lev_l);
  em_levels_free(&f->lev_u);
  em_free(&f->urow);
  em_free(&f->lptr);
  em_free(&f->lcol);
  em_free(&f->lval);
  em_free(&f->uptr);
  em_free(&f->ucol);
  em_free(&f->uval);
  em_free(&f->dinv);
  em_free(F);
}
