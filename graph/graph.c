/* graph.c - the adjacency graph of A + A^T, shared by every ordering. */
#include <stdlib.h>
#include <string.h>

#include "em_graph.h"

/* 1 when j appears in the sorted row i of A */
static int row_has(const em_csr *A, int32_t i, int32_t j) {
  int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (A->colind[mid] == j) return 1;
    if (A->colind[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* pattern of A + A^T: both directions of every entry, sorted, unique */
static em_err symmetrize(const em_csr *A, em_graph *g) {
  int32_t n = A->n_rows;
  em_err err = EM_OK;
  int64_t *cnt = NULL;
  EM_TRY(em_calloc(&g->ptr, (size_t)n + 1, sizeof *g->ptr, "graph offsets"));
  EM_TRY(em_calloc(&cnt, (size_t)n + 1, sizeof *cnt, "graph counts"));
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      cnt[i + 1]++;
      cnt[A->colind[k] + 1]++;
    }
  for (int32_t i = 0; i < n; i++) cnt[i + 1] += cnt[i];
  EM_TRY_GOTO(err, em_calloc(&g->adj, (size_t)cnt[n], sizeof *g->adj, "graph adjacency"), done);
  memcpy(g->ptr, cnt, ((size_t)n + 1) * sizeof *cnt);
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      g->adj[cnt[i]++] = A->colind[k];
      g->adj[cnt[A->colind[k]]++] = i;
    }
  int64_t w = 0; /* sort, drop duplicates, compact */
  for (int32_t i = 0; i < n; i++) {
    int64_t b = g->ptr[i], e = g->ptr[i + 1];
    qsort(g->adj + b, (size_t)(e - b), sizeof *g->adj, cmp_i32);
    g->ptr[i] = w;
    for (int64_t k = b; k < e; k++)
      if (k == b || g->adj[k] != g->adj[k - 1]) g->adj[w++] = g->adj[k];
  }
  g->ptr[n] = w;
done:
  em_free(&cnt);
  return err;
}

em_err em_graph_of(const em_csr *A, em_graph *g) {
  g->n = A->n_rows;
  g->ptr = NULL;
  g->adj = NULL;
  g->owned = 0;
  int sym = 1;
#pragma omp parallel for schedule(dynamic, 1024) reduction(&& : sym)
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] != i && !row_has(A, A->colind[k], i)) sym = 0;
  if (sym) { /* FEM matrices: no copy */
    g->ptr = A->rowptr;
    g->adj = A->colind;
    return EM_OK;
  }
  g->owned = 1;
  em_err err = symmetrize(A, g);
  if (err) em_graph_free(g);
  return err;
}

void em_graph_free(em_graph *g) {
  if (g->owned) {
    em_free(&g->ptr);
    em_free(&g->adj);
  }
  g->ptr = NULL;
  g->adj = NULL;
}
