/* direct_symbolic.c - the symbolic factorization: elimination tree and its
 * postorder, column counts, fundamental supernodes, relaxed amalgamation
 * (Ashcraft & Grimes 1989; the CHOLMOD rules of Chen, Davis, Hager &
 * Rajamanickam 2008), the row structure of every supernode, storage
 * offsets and the work of every front.
 *
 * The tree, the counts and the row structures are computed on the graph of
 * the supervariables that the nested dissection ordered (graph/compress.c,
 * numbered consecutively by it), ~20x fewer edges than A for order-3 FEM,
 * and expanded: indistinguishable columns stay indistinguishable in L
 * (George & Liu 1989), so a supervariable of w columns is a chain of the
 * elimination tree whose counts fall by one per column, and every row
 * structure is a union of whole supervariables.  The result is the one of
 * the whole graph, entry for entry (tests/solver/test_direct.c). */
#include <stdlib.h>
#include <string.h>

#include "direct_impl.h"

/* Amalgamation: a child merges into its parent supernode when the merged
 * block has at most RELAX_N[0] columns, or at most RELAX_N[l] columns and
 * a fraction of explicit zeros below RELAX_Z[l-1], or zeros below
 * RELAX_Z[2] whatever its size (CHOLMOD's defaults). */
static const int64_t RELAX_N[3] = {4, 16, 48};
static const double RELAX_Z[3] = {0.8, 0.1, 0.05};

/* Real flops of a front with k pivots and m rows: pivot t updates the
 * lower triangle of the r = m - t - 1 rows below it (r (r + 1) / 2 complex
 * multiply-adds, 8 flops each) and scales r entries (a complex division,
 * counted 6). */
static double front_flops(int64_t m, int64_t k) {
  double f = 0;
  for (int64_t t = 0; t < k; t++) {
    double r = (double)(m - t - 1);
    f += 4 * r * (r + 1) + 6 * r;
  }
  return f;
}

/* Fundamental supernodes of the postordered tree (parent, count), then
 * relaxed amalgamation.  On return fs[0..*nsup] are the first columns of
 * the final supernodes and fnb[s] the rows below supernode s. */
static em_err supernodes(int32_t n, const int32_t *parent, const int64_t *count, int32_t *fs,
                         int64_t *fnb, int32_t *nsup) {
  em_err err = EM_OK;
  int32_t *nchild = NULL, *fpar = NULL, *top = NULL, *colsup = NULL;
  int64_t *gk = NULL;
  double *gz = NULL;
  EM_TRY(em_calloc(&nchild, (size_t)n + 1, sizeof *nchild, "supernode work"));
  EM_TRY_GOTO(err, em_calloc(&colsup, (size_t)n + 1, sizeof *colsup, "supernode work"), done);
  for (int32_t j = 0; j < n; j++)
    if (parent[j] != -1) nchild[parent[j]]++;
  int32_t nf = 0; /* fundamental: j joins j-1 when j-1's only child is... */
  for (int32_t j = 0; j < n; j++) {
    int join = j > 0 && parent[j - 1] == j && count[j - 1] == count[j] + 1 && nchild[j] == 1;
    if (!join) fs[nf++] = j;
    colsup[j] = nf - 1;
  }
  fs[nf] = n;
  EM_TRY_GOTO(err, em_calloc(&fpar, (size_t)nf + 1, sizeof *fpar, "supernode work"), done);
  EM_TRY_GOTO(err, em_calloc(&top, (size_t)nf + 1, sizeof *top, "supernode work"), done);
  EM_TRY_GOTO(err, em_calloc(&gk, (size_t)nf + 1, sizeof *gk, "supernode work"), done);
  EM_TRY_GOTO(err, em_calloc(&gz, (size_t)nf + 1, sizeof *gz, "supernode work"), done);
  for (int32_t f = 0; f < nf; f++) {
    int32_t last = fs[f + 1] - 1;
    fpar[f] = parent[last] == -1 ? -1 : colsup[parent[last]];
    top[f] = f;
    gk[f] = fs[f + 1] - fs[f];
    fnb[f] = count[fs[f]] - gk[f];
  }
  /* Downwards: the child f-1 (postorder: the last child of f, if any)
   * merges into the group of f.  Merged, f-1's columns gain the rows of
   * every column above it in the group and of the group's rows below. */
  for (int32_t f = nf - 1; f > 0; f--) {
    int32_t c = f - 1, t = top[f];
    if (fpar[c] != f) continue;
    int64_t kc = fs[f] - fs[c], K = kc + gk[t], nb = fnb[t];
    double zeros = gz[t] + (double)kc * (double)(gk[t] + nb - fnb[c]);
    double entries = (double)K * (double)(K + 1) / 2 + (double)K * (double)nb;
    double z = zeros / entries;
    int merge = K <= RELAX_N[0] || (K <= RELAX_N[1] && z < RELAX_Z[0]) ||
                (K <= RELAX_N[2] && z < RELAX_Z[1]) || z < RELAX_Z[2];
    if (!merge) continue;
    top[c] = t;
    gk[t] = K;
    gz[t] = zeros;
  }
  int32_t ns = 0; /* groups are runs of equal top */
  for (int32_t f = 0; f < nf; f++)
    if (f == 0 || top[f] != top[f - 1]) {
      fs[ns] = fs[f];
      fnb[ns] = fnb[top[f]];
      ns++;
    }
  fs[ns] = n;
  *nsup = ns;
done:
  em_free(&nchild);
  em_free(&fpar);
  em_free(&top);
  em_free(&colsup);
  em_free(&gk);
  em_free(&gz);
  return err;
}

/* Storage offsets, front work, subtree ranges and the frontal stack of a
 * sequential postorder traversal. */
static void front_stats(em_dsym *S) {
  int64_t cur = 0;
  S->lptr[0] = 0;
  S->flops = S->solve_flops = 0;
  S->cb_peak = S->cb_max = 0;
  S->max_front = S->max_cols = 0;
  for (int32_t s = 0; s < S->ns; s++) S->first[s] = s;
  for (int32_t s = 0; s < S->ns; s++) {
    int64_t k = S->super[s + 1] - S->super[s], m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
    S->lptr[s + 1] = S->lptr[s] + m * k;
    S->work[s] = front_flops(m, k);
    S->swork[s] = (double)(m * k);
    S->flops += S->work[s];
    S->solve_flops += 16.0 * ((double)k * (double)(k - 1) / 2 + (double)nb * (double)k) + 6.0 * k;
    if (m > S->max_front) S->max_front = (int32_t)m;
    if (k > S->max_cols) S->max_cols = (int32_t)k;
    int32_t p = S->sparent[s];
    if (p != -1 && S->first[s] < S->first[p]) S->first[p] = S->first[s];
    cur += nb * nb; /* own update matrix, children's still alive */
    if (cur > S->cb_peak) S->cb_peak = cur;
    if (nb * nb > S->cb_max) S->cb_max = nb * nb;
    /* children are s-1, first-1 of it, ... : release them */
    for (int32_t c = s - 1; c >= S->first[s]; c = S->first[c] - 1) {
      int64_t kc = S->super[c + 1] - S->super[c], nbc = S->rptr[c + 1] - S->rptr[c] - kc;
      cur -= nbc * nbc;
    }
  }
}

/* The vertices the analysis walks: q's supervariables when perm_ord numbers
 * the members of each consecutively (at[v] = the first of their positions,
 * qord[v] = v's rank among the supervariables; *use = 1), else g's own
 * vertices (at = qord = perm_ord, *use = 0). */
static em_err quot_view(const em_graph *g, const em_graph_quot *q, const int32_t *perm_ord,
                        int32_t **at, int32_t **qord, int *use) {
  *use = 0;
  *at = *qord = (int32_t *)perm_ord;
  if (!q || !q->sv || q->g.n >= g->n) return EM_OK;
  int32_t n = g->n, nq = q->g.n, *a = NULL, *r = NULL, *slot = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&a, (size_t)nq + 1, sizeof *a, "supervariable positions"));
  EM_TRY_GOTO(err, em_calloc(&r, (size_t)nq + 1, sizeof *r, "supervariable ranks"), fail);
  EM_TRY_GOTO(err, em_calloc(&slot, (size_t)n + 1, sizeof *slot, "supervariable ranks"), fail);
  int consecutive = 1; /* members distinct: a span of wgt positions is all of them */
  for (int32_t v = 0; v < nq && consecutive; v++) {
    int32_t lo = INT32_MAX, hi = -1;
    for (int32_t k = q->start[v]; k < q->start[v + 1]; k++) {
      int32_t p = perm_ord[q->member[k]];
      lo = p < lo ? p : lo;
      hi = p > hi ? p : hi;
    }
    a[v] = lo;
    consecutive = hi - lo + 1 == q->wgt[v];
  }
  if (!consecutive) goto fail; /* an ordering of other vertices: g itself */
  for (int32_t i = 0; i < n; i++) slot[i] = -1;
  for (int32_t v = 0; v < nq; v++) slot[a[v]] = v;
  for (int32_t i = 0, k = 0; i < n; i++)
    if (slot[i] != -1) r[slot[i]] = k++;
  em_free(&slot);
  *at = a;
  *qord = r;
  *use = 1;
  return EM_OK;
fail:
  em_free(&a);
  em_free(&r);
  em_free(&slot);
  return err;
}

/* The tree, postorder and column counts of the vertices of the view,
 * expanded to the columns: a supervariable's w columns are a chain of the
 * elimination tree, postordered together, with counts c, c - 1, ..,
 * c - w + 1 (c: its weighted count).  Fills S->perm, S->iperm, Q, the
 * column tree par2 and count. */
static em_err tree_and_counts(const em_graph *g, const em_graph_quot *q, const int32_t *perm_ord,
                              em_dsym_quot *Q, em_dsym *S, int32_t *par2, int64_t *count) {
  int32_t n = g->n, nq = Q->nq, *at = NULL, *qord = NULL;
  int32_t *qiord = NULL, *qpar = NULL, *qpost = NULL, *qpar2 = NULL;
  int64_t *qcount = NULL;
  int use = 0;
  em_err err = EM_OK;
  double t = em_wtime();
  EM_TRY(quot_view(g, q, perm_ord, &at, &qord, &use));
  if (!use) { /* g's vertices */
    nq = Q->nq = n;
    Q->qptr = g->ptr;
    Q->qadj = g->adj;
  }
  EM_TRY_GOTO(err, em_calloc(&qiord, (size_t)nq + 1, sizeof *qiord, "elimination tree"), done);
  EM_TRY_GOTO(err, em_calloc(&qpar, (size_t)nq + 1, sizeof *qpar, "elimination tree"), done);
  EM_TRY_GOTO(err, em_calloc(&qpost, (size_t)nq + 1, sizeof *qpost, "postorder"), done);
  EM_TRY_GOTO(err, em_calloc(&qpar2, (size_t)nq + 1, sizeof *qpar2, "elimination tree"), done);
  EM_TRY_GOTO(err, em_calloc(&qcount, (size_t)nq + 1, sizeof *qcount, "column counts"), done);
  EM_TRY_GOTO(err, em_calloc(&Q->pq, (size_t)nq + 1, sizeof *Q->pq, "postorder"), done);
  EM_TRY_GOTO(err, em_calloc(&Q->ipq, (size_t)nq + 1, sizeof *Q->ipq, "postorder"), done);
  EM_TRY_GOTO(err, em_calloc(&Q->wk, (size_t)nq + 1, sizeof *Q->wk, "supervariable sizes"), done);
  EM_TRY_GOTO(err, em_calloc(&Q->nf, (size_t)nq + 1, sizeof *Q->nf, "supervariable columns"), done);
  for (int32_t v = 0; v < nq; v++) qiord[qord[v]] = v;
  EM_TRY_GOTO(err, em_dsym_etree(nq, Q->qptr, Q->qadj, qord, qiord, qpar), done);
  S->t.etree = em_wtime() - t;
  t = em_wtime();
  EM_TRY_GOTO(err, em_dsym_postorder(nq, qpar, qpost), done);
  for (int32_t k = 0; k < nq; k++) { /* the tree in the postordered numbering */
    int32_t v = qiord[qpost[k]], p = qpar[qpost[k]];
    Q->ipq[k] = v;
    Q->pq[v] = k;
    Q->wk[k] = use ? q->wgt[v] : 1;
    Q->nf[k + 1] = Q->nf[k] + Q->wk[k];
    qpar2[k] = p; /* in qord's numbering until all of pq is known */
  }
  for (int32_t k = 0; k < nq; k++) qpar2[k] = qpar2[k] == -1 ? -1 : Q->pq[qiord[qpar2[k]]];
  for (int32_t u = 0; u < n; u++) { /* members keep their order within their range */
    int32_t v = use ? q->sv[u] : u, j = Q->nf[Q->pq[v]] + (perm_ord[u] - at[v]);
    S->perm[u] = j;
    S->iperm[j] = u;
  }
  S->t.postorder = em_wtime() - t;
  t = em_wtime();
  EM_TRY_GOTO(
      err,
      em_dsym_colcounts(nq, Q->qptr, Q->qadj, Q->pq, Q->ipq, qpar2, use ? Q->wk : NULL, qcount),
      done);
  for (int32_t k = 0; k < nq; k++)
    for (int32_t c = 0, j = Q->nf[k]; c < Q->wk[k]; c++, j++) {
      Q->colq[j] = k;
      count[j] = qcount[k] - c;
      par2[j] = c < Q->wk[k] - 1 ? j + 1 : qpar2[k] == -1 ? -1 : Q->nf[qpar2[k]];
    }
  /* tril(P A P^T): a supervariable's own triangle and its edges to later ones */
  S->nnz_a = n;
  for (int32_t k = 0; k < nq; k++) {
    int64_t w = Q->wk[k], e = w * (w - 1) / 2;
    int32_t v = Q->ipq[k];
    for (int64_t p = Q->qptr[v]; p < Q->qptr[v + 1]; p++)
      if (Q->pq[Q->qadj[p]] > k) e += w * Q->wk[Q->pq[Q->qadj[p]]];
    S->nnz_a += e;
  }
  S->nnz_l = 0;
  for (int32_t j = 0; j < n; j++) S->nnz_l += count[j];
  S->t.counts = em_wtime() - t;
done:
  if (use) {
    em_free(&at);
    em_free(&qord);
  }
  em_free(&qiord);
  em_free(&qpar);
  em_free(&qpost);
  em_free(&qpar2);
  em_free(&qcount);
  return err;
}

em_err em_dsym_build_quot(const em_graph *g, const em_graph_quot *q, const int32_t *perm_ord,
                          em_dsym *S) {
  int32_t n = g->n;
  em_err err = EM_OK;
  int32_t *par2 = NULL, *fs = NULL;
  int64_t *count = NULL, *fnb = NULL;
  em_dsym_quot Q = {q && q->sv ? q->g.n : n,
                    q ? q->g.ptr : NULL,
                    q ? q->g.adj : NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL};
  memset(S, 0, sizeof *S);
  S->n = n;
  EM_TRY(em_calloc(&S->perm, (size_t)n + 1, sizeof *S->perm, "direct permutation"));
  EM_TRY_GOTO(err, em_calloc(&S->iperm, (size_t)n + 1, sizeof *S->iperm, "direct permutation"),
              done);
  EM_TRY_GOTO(err, em_calloc(&par2, (size_t)n + 1, sizeof *par2, "elimination tree"), done);
  EM_TRY_GOTO(err, em_calloc(&count, (size_t)n + 1, sizeof *count, "column counts"), done);
  EM_TRY_GOTO(err, em_calloc(&Q.colq, (size_t)n + 1, sizeof *Q.colq, "column vertices"), done);
  EM_TRY_GOTO(err, tree_and_counts(g, q, perm_ord, &Q, S, par2, count), done);

  double t = em_wtime();
  EM_TRY_GOTO(err, em_calloc(&fs, (size_t)n + 1, sizeof *fs, "supernodes"), done);
  EM_TRY_GOTO(err, em_calloc(&fnb, (size_t)n + 1, sizeof *fnb, "supernodes"), done);
  EM_TRY_GOTO(err, supernodes(n, par2, count, fs, fnb, &S->ns), done);
  int32_t ns = S->ns;
  EM_TRY_GOTO(err, em_calloc(&S->super, (size_t)ns + 1, sizeof *S->super, "supernodes"), done);
  EM_TRY_GOTO(err, em_calloc(&S->sparent, (size_t)ns + 1, sizeof *S->sparent, "supernodes"), done);
  EM_TRY_GOTO(err, em_calloc(&S->first, (size_t)ns + 1, sizeof *S->first, "supernodes"), done);
  EM_TRY_GOTO(err, em_calloc(&S->rptr, (size_t)ns + 1, sizeof *S->rptr, "supernodes"), done);
  EM_TRY_GOTO(err, em_calloc(&S->lptr, (size_t)ns + 1, sizeof *S->lptr, "supernodes"), done);
  EM_TRY_GOTO(err, em_calloc(&S->work, (size_t)ns + 1, sizeof *S->work, "supernodes"), done);
  EM_TRY_GOTO(err, em_calloc(&S->swork, (size_t)ns + 1, sizeof *S->swork, "supernodes"), done);
  memcpy(S->super, fs, ((size_t)ns + 1) * sizeof *fs);
  for (int32_t s = 0; s < ns; s++) /* reuse count as the column -> supernode map */
    for (int32_t j = S->super[s]; j < S->super[s + 1]; j++) count[j] = s;
  S->rptr[0] = 0;
  for (int32_t s = 0; s < ns; s++) {
    int32_t last = S->super[s + 1] - 1;
    S->sparent[s] = par2[last] == -1 ? -1 : (int32_t)count[par2[last]];
    S->rptr[s + 1] = S->rptr[s] + (S->super[s + 1] - S->super[s]) + fnb[s];
    S->first[s] = s;
  }
  for (int32_t s = 0; s < ns; s++) /* children before parents */
    if (S->sparent[s] != -1 && S->first[s] < S->first[S->sparent[s]])
      S->first[S->sparent[s]] = S->first[s];
  S->t.supernodes = em_wtime() - t;
  t = em_wtime();
  EM_TRY_GOTO(err, em_calloc(&S->rows, (size_t)S->rptr[ns] + 1, sizeof *S->rows, "row structure"),
              done);
  EM_TRY_GOTO(err, em_dsym_rows(&Q, S), done);
  S->t.rows = em_wtime() - t;
  t = em_wtime();
  EM_TRY_GOTO(err, em_calloc(&S->prel, (size_t)S->rptr[ns] + 1, sizeof *S->prel, "row positions"),
              done);
  EM_TRY_GOTO(err, em_dsym_positions(S), done);
  S->t.positions = em_wtime() - t;
  t = em_wtime();
  front_stats(S);
  S->t.stats = em_wtime() - t;
done:
  em_free(&par2);
  em_free(&count);
  em_free(&fs);
  em_free(&fnb);
  em_free(&Q.pq);
  em_free(&Q.ipq);
  em_free(&Q.wk);
  em_free(&Q.nf);
  em_free(&Q.colq);
  if (err) em_dsym_free(S);
  return err;
}

em_err em_dsym_build(const em_graph *g, const int32_t *perm_ord, em_dsym *S) {
  return em_dsym_build_quot(g, NULL, perm_ord, S);
}

void em_dsym_free(em_dsym *S) {
  em_free(&S->perm);
  em_free(&S->iperm);
  em_free(&S->super);
  em_free(&S->sparent);
  em_free(&S->first);
  em_free(&S->rptr);
  em_free(&S->rows);
  em_free(&S->prel);
  em_free(&S->lptr);
  em_free(&S->work);
  em_free(&S->swork);
}
