/* direct_rows.c - the row structure of every supernode and the positions
 * of its rows among its parent's (the index maps of the extend-add).
 *
 * rows(s) = cols(s) + ( adj(cols(s)) + sum over children c of below(c) )
 *           restricted to rows > cols(s), sorted,
 * computed on the graph of the supervariables (direct_impl.h,
 * em_dsym_quot): the columns of one vertex of that graph are consecutive
 * and share their rows, so a supernode holds whole vertices, every row
 * structure is a union of whole vertices' column ranges, and the union is
 * formed and sorted on vertices, then expanded: the work is that of the
 * quotient graph (~20x fewer edges than A for order-3 FEM) and of the
 * vertices of the row structures, not of A's entries and L's rows.
 * Supernodes of one level of the tree are independent: each subtree is a
 * task (em_dtree_up), and the result does not depend on the thread count. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "direct_impl.h"

/* Per-thread scratch: mark[k] == s when vertex k is already a row of s,
 * the vertices found (at most nq). */
typedef struct {
  const em_dsym_quot *Q;
  em_dsym *S;
  int32_t *head, *next; /* children lists of the supernodes */
  int32_t **mark, **vbuf;
  int32_t bad; /* a supernode whose count disagreed (-1: none) */
} rows_ctx;

/* Vertices of the rows of supernode s below its columns, sorted, into v;
 * returns their count. */
static int64_t row_vertices(const rows_ctx *c, int32_t s, int32_t *mark, int32_t *v) {
  const em_dsym_quot *Q = c->Q;
  const em_dsym *S = c->S;
  int32_t c1 = S->super[s + 1];
  int64_t m = 0;
  for (int32_t j = S->super[s]; j < c1; j += Q->wk[Q->colq[j]]) {
    int32_t u = Q->ipq[Q->colq[j]];
    for (int64_t p = Q->qptr[u]; p < Q->qptr[u + 1]; p++) {
      int32_t k = Q->pq[Q->qadj[p]];
      if (Q->nf[k] < c1 || mark[k] == s) continue;
      mark[k] = s;
      v[m++] = k;
    }
  }
  for (int32_t ch = c->head[s]; ch != -1; ch = c->next[ch]) {
    int64_t e = S->rptr[ch + 1];
    for (int64_t p = S->rptr[ch] + (S->super[ch + 1] - S->super[ch]); p < e;) {
      int32_t k = Q->colq[S->rows[p]];
      p += Q->wk[k]; /* a whole vertex's columns */
      if (Q->nf[k] < c1 || mark[k] == s) continue;
      mark[k] = s;
      v[m++] = k;
    }
  }
  em_sort_i32(v, m); /* vertex order = column order (unique: any sort) */
  return m;
}

/* rows(s) into S->rows + S->rptr[s], checked against its count */
static void rows_step(void *ctx, int32_t s) {
  rows_ctx *c = ctx;
  const em_dsym_quot *Q = c->Q;
  em_dsym *S = c->S;
  int t = 0;
#ifdef _OPENMP
  t = omp_get_thread_num();
#endif
  int32_t *v = c->vbuf[t], *r = S->rows + S->rptr[s];
  int64_t cap = S->rptr[s + 1] - S->rptr[s], m = 0;
  int64_t nv = row_vertices(c, s, c->mark[t], v);
  for (int32_t j = S->super[s]; j < S->super[s + 1]; j++) r[m++] = j;
  for (int64_t a = 0; a < nv; a++) {
    int32_t k = v[a];
    if (m + Q->wk[k] > cap) break;
    for (int32_t j = Q->nf[k]; j < Q->nf[k + 1]; j++) r[m++] = j;
  }
  if (m != cap || (nv > 0 && r[m - 1] != Q->nf[v[nv - 1] + 1] - 1)) {
#pragma omp critical(em_dsym_rows_bad)
    if (c->bad == -1 || s < c->bad) c->bad = s;
  }
}

em_err em_dsym_rows(const em_dsym_quot *Q, em_dsym *S) {
  int32_t ns = S->ns;
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  em_err err = EM_OK;
  rows_ctx c = {Q, S, NULL, NULL, NULL, NULL, -1};
  double *work = NULL;
  EM_TRY(em_calloc(&c.head, (size_t)ns + 1, sizeof *c.head, "supernode children"));
  EM_TRY_GOTO(err, em_calloc(&c.next, (size_t)ns + 1, sizeof *c.next, "supernode children"), done);
  EM_TRY_GOTO(err, em_calloc(&c.mark, (size_t)nt, sizeof *c.mark, "row structure marks"), done);
  EM_TRY_GOTO(err, em_calloc(&c.vbuf, (size_t)nt, sizeof *c.vbuf, "row structure marks"), done);
  EM_TRY_GOTO(err, em_calloc(&work, (size_t)ns + 1, sizeof *work, "row structure work"), done);
  for (int t = 0; t < nt; t++) {
    EM_TRY_GOTO(err, em_calloc(&c.mark[t], (size_t)Q->nq + 1, sizeof *c.mark[t], "row marks"),
                done);
    EM_TRY_GOTO(err, em_calloc(&c.vbuf[t], (size_t)Q->nq + 1, sizeof *c.vbuf[t], "row marks"),
                done);
    for (int32_t k = 0; k < Q->nq; k++) c.mark[t][k] = -1;
  }
  for (int32_t s = 0; s < ns; s++) c.head[s] = -1;
  for (int32_t s = ns - 1; s >= 0; s--)
    if (S->sparent[s] != -1) {
      c.next[s] = c.head[S->sparent[s]];
      c.head[S->sparent[s]] = s;
    }
  /* the work of a step: its vertices' edges and its children's rows */
  for (int32_t s = 0; s < ns; s++)
    work[s] = (double)(S->rptr[s + 1] - S->rptr[s]) + (double)(S->super[s + 1] - S->super[s]);
  EM_TRY_GOTO(err, em_dtree_up(S, work, nt, rows_step, &c), done);
  if (c.bad != -1)
    err = EM_RAISE(EM_ERR_INTERNAL,
                   "direct symbolic: supernode %d (columns %d..%d) has other rows than the %lld "
                   "its column counts predict",
                   c.bad, S->super[c.bad], S->super[c.bad + 1] - 1,
                   (long long)(S->rptr[c.bad + 1] - S->rptr[c.bad]));
done:
  for (int t = 0; c.mark && t < nt; t++) em_free(&c.mark[t]);
  for (int t = 0; c.vbuf && t < nt; t++) em_free(&c.vbuf[t]);
  em_free(&c.mark);
  em_free(&c.vbuf);
  em_free(&c.head);
  em_free(&c.next);
  em_free(&work);
  return err;
}

/* prel[p] = q where rows(parent)[q] = rows(s)[p], for the rows below s (a
 * sorted subset of the parent's rows: one merge per supernode, each
 * independent of the others). */
em_err em_dsym_positions(em_dsym *S) {
  int32_t bad = -1, badrow = -1;
#pragma omp parallel for schedule(dynamic, 64) if (S->ns > 4096)
  for (int32_t s = 0; s < S->ns; s++) {
    int64_t k = S->super[s + 1] - S->super[s], b = S->rptr[s], e = S->rptr[s + 1];
    for (int64_t p = b; p < b + k; p++) S->prel[p] = -1;
    int32_t par = S->sparent[s], wrong = -2;
    if (par == -1) {
      if (e > b + k) wrong = -1;
    } else {
      const int32_t *pr = S->rows + S->rptr[par];
      int64_t pm = S->rptr[par + 1] - S->rptr[par], q = 0;
      for (int64_t p = b + k; p < e; p++) {
        while (q < pm && pr[q] < S->rows[p]) q++;
        if (q == pm || pr[q] != S->rows[p]) {
          wrong = S->rows[p];
          break;
        }
        S->prel[p] = (int32_t)q;
      }
    }
    if (wrong != -2) {
#pragma omp critical(em_dsym_positions_bad)
      if (bad == -1 || s < bad) bad = s, badrow = wrong;
    }
  }
  if (bad != -1 && badrow == -1)
    return EM_RAISE(EM_ERR_INTERNAL, "direct symbolic: root supernode %d has rows below", bad);
  if (bad != -1)
    return EM_RAISE(EM_ERR_INTERNAL,
                    "direct symbolic: row %d below supernode %d is not a row of its parent %d",
                    badrow, bad, S->sparent[bad]);
  return EM_OK;
}
