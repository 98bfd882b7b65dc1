/* direct_symbolic.c - the symbolic factorization: elimination tree and its
 * postorder, column counts, fundamental supernodes, relaxed amalgamation
 * (Ashcraft & Grimes 1989; the CHOLMOD rules of Chen, Davis, Hager &
 * Rajamanickam 2008), the row structure of every supernode, storage
 * offsets and the work of every front. */
#include <stdlib.h>
#include <string.h>

#include "direct_impl.h"

/* Amalgamation: a child merges into its parent supernode when the merged
 * block has at most RELAX_N[0] columns, or at most RELAX_N[l] columns and
 * a fraction of explicit zeros below RELAX_Z[l-1], or zeros below
 * RELAX_Z[2] whatever its size (CHOLMOD's defaults). */
static const int64_t RELAX_N[3] = {4, 16, 48};
static const double RELAX_Z[3] = {0.8, 0.1, 0.05};

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

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

/* Rows of supernode s (its columns, then the union of the rows below it
 * of its columns' entries of A and of its children's row structures,
 * sorted) into r, which has room for exactly cap rows.  Returns the count
 * found, or -1 when it exceeds cap. */
static int64_t rows_of(const em_graph *g, const em_dsym *S, int32_t s, const int32_t *head,
                       const int32_t *next, int32_t *mark, int32_t *r, int64_t cap) {
  int32_t c0 = S->super[s], c1 = S->super[s + 1];
  int64_t m = 0;
  for (int32_t j = c0; j < c1; j++) r[m++] = j;
  for (int32_t j = c0; j < c1; j++) {
    int32_t u = S->iperm[j];
    for (int64_t p = g->ptr[u]; p < g->ptr[u + 1]; p++) {
      int32_t i = S->perm[g->adj[p]];
      if (i < c1 || mark[i] == s) continue;
      if (m == cap) return -1;
      mark[i] = s;
      r[m++] = i;
    }
  }
  for (int32_t ch = head[s]; ch != -1; ch = next[ch])
    for (int64_t p = S->rptr[ch] + (S->super[ch + 1] - S->super[ch]); p < S->rptr[ch + 1]; p++) {
      int32_t i = S->rows[p];
      if (i < c1 || mark[i] == s) continue;
      if (m == cap) return -1;
      mark[i] = s;
      r[m++] = i;
    }
  qsort(r + (c1 - c0), (size_t)(m - (c1 - c0)), sizeof *r, cmp_i32);
  return m;
}

/* Row structure of every supernode, checked against the counts that the
 * column counts predicted (S->rptr). */
static em_err row_structure(const em_graph *g, em_dsym *S) {
  int32_t n = S->n, ns = S->ns;
  em_err err = EM_OK;
  int32_t *mark = NULL, *head = NULL, *next = NULL;
  EM_TRY(em_calloc(&mark, (size_t)n + 1, sizeof *mark, "row structure marks"));
  EM_TRY_GOTO(err, em_calloc(&head, (size_t)ns + 1, sizeof *head, "supernode children"), done);
  EM_TRY_GOTO(err, em_calloc(&next, (size_t)ns + 1, sizeof *next, "supernode children"), done);
  for (int32_t i = 0; i < n; i++) mark[i] = -1;
  for (int32_t s = 0; s < ns; s++) head[s] = -1;
  for (int32_t s = ns - 1; s >= 0; s--)
    if (S->sparent[s] != -1) {
      next[s] = head[S->sparent[s]];
      head[S->sparent[s]] = s;
    }
  for (int32_t s = 0; s < ns; s++) {
    int64_t cap = S->rptr[s + 1] - S->rptr[s];
    int64_t m = rows_of(g, S, s, head, next, mark, S->rows + S->rptr[s], cap);
    if (m != cap) {
      err = EM_RAISE(EM_ERR_INTERNAL,
                     "direct symbolic: supernode %d (columns %d..%d) has %s rows than the %lld "
                     "its column counts predict",
                     s, S->super[s], S->super[s + 1] - 1, m < 0 ? "more" : "fewer", (long long)cap);
      goto done;
    }
  }
done:
  em_free(&mark);
  em_free(&head);
  em_free(&next);
  return err;
}

/* Position of every row below a supernode among its parent's rows (a
 * sorted subset of them). */
static em_err parent_positions(em_dsym *S) {
  for (int32_t s = 0; s < S->ns; s++) {
    int64_t k = S->super[s + 1] - S->super[s], b = S->rptr[s], e = S->rptr[s + 1];
    for (int64_t p = b; p < b + k; p++) S->prel[p] = -1;
    int32_t par = S->sparent[s];
    if (par == -1) {
      if (e > b + k)
        return EM_RAISE(EM_ERR_INTERNAL, "direct symbolic: root supernode %d has rows below", s);
      continue;
    }
    const int32_t *pr = S->rows + S->rptr[par];
    int64_t pm = S->rptr[par + 1] - S->rptr[par], q = 0;
    for (int64_t p = b + k; p < e; p++) {
      while (q < pm && pr[q] < S->rows[p]) q++;
      if (q == pm || pr[q] != S->rows[p])
        return EM_RAISE(EM_ERR_INTERNAL,
                        "direct symbolic: row %d below supernode %d is not a row of its parent %d",
                        S->rows[p], s, par);
      S->prel[p] = (int32_t)q;
    }
  }
  return EM_OK;
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

em_err em_dsym_build(const em_graph *g, const int32_t *perm_ord, em_dsym *S) {
  int32_t n = g->n;
  em_err err = EM_OK;
  int32_t *iord = NULL, *parent = NULL, *post = NULL, *par2 = NULL, *fs = NULL;
  int64_t *count = NULL, *fnb = NULL;
  memset(S, 0, sizeof *S);
  S->n = n;
  EM_TRY(em_calloc(&S->perm, (size_t)n + 1, sizeof *S->perm, "direct permutation"));
  EM_TRY(em_calloc(&S->iperm, (size_t)n + 1, sizeof *S->iperm, "direct permutation"));
  EM_TRY(em_calloc(&iord, (size_t)n + 1, sizeof *iord, "ordering inverse"));
  EM_TRY_GOTO(err, em_calloc(&parent, (size_t)n + 1, sizeof *parent, "elimination tree"), done);
  EM_TRY_GOTO(err, em_calloc(&post, (size_t)n + 1, sizeof *post, "postorder"), done);
  EM_TRY_GOTO(err, em_calloc(&par2, (size_t)n + 1, sizeof *par2, "elimination tree"), done);
  EM_TRY_GOTO(err, em_calloc(&count, (size_t)n + 1, sizeof *count, "column counts"), done);
  for (int32_t i = 0; i < n; i++) iord[perm_ord[i]] = i;
  EM_TRY_GOTO(err, em_dsym_etree(n, g->ptr, g->adj, perm_ord, iord, parent), done);
  EM_TRY_GOTO(err, em_dsym_postorder(n, parent, post), done);
  for (int32_t k = 0; k < n; k++) S->iperm[k] = iord[post[k]]; /* new k = old iperm[k] */
  for (int32_t k = 0; k < n; k++) S->perm[S->iperm[k]] = k;
  for (int32_t k = 0; k < n; k++) { /* the tree in the postordered numbering */
    int32_t p = parent[post[k]];
    par2[k] = p == -1 ? -1 : S->perm[iord[p]];
  }
  EM_TRY_GOTO(err, em_dsym_colcounts(n, g->ptr, g->adj, S->perm, S->iperm, par2, count), done);
  S->nnz_l = 0;
  for (int32_t j = 0; j < n; j++) S->nnz_l += count[j];
  S->nnz_a = n;
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = g->ptr[i]; p < g->ptr[i + 1]; p++)
      if (S->perm[g->adj[p]] > S->perm[i]) S->nnz_a++;

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
  for (int32_t s = 0; s < ns; s++) /* reuse post as the column -> supernode map */
    for (int32_t j = S->super[s]; j < S->super[s + 1]; j++) post[j] = s;
  S->rptr[0] = 0;
  for (int32_t s = 0; s < ns; s++) {
    int32_t last = S->super[s + 1] - 1;
    S->sparent[s] = par2[last] == -1 ? -1 : post[par2[last]];
    S->rptr[s + 1] = S->rptr[s] + (S->super[s + 1] - S->super[s]) + fnb[s];
  }
  EM_TRY_GOTO(err, em_calloc(&S->rows, (size_t)S->rptr[ns] + 1, sizeof *S->rows, "row structure"),
              done);
  EM_TRY_GOTO(err, row_structure(g, S), done);
  EM_TRY_GOTO(err, em_calloc(&S->prel, (size_t)S->rptr[ns] + 1, sizeof *S->prel, "row positions"),
              done);
  EM_TRY_GOTO(err, parent_positions(S), done);
  front_stats(S);
done:
  em_free(&iord);
  em_free(&parent);
  em_free(&post);
  em_free(&par2);
  em_free(&count);
  em_free(&fs);
  em_free(&fnb);
  if (err) em_dsym_free(S);
  return err;
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
