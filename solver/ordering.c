/* ordering.c - the graph of A + A^T and the orderings applied before an
 * ILU(0) factorization: natural, RCM and METIS nested dissection (mesh/),
 * and greedy (block) multicolouring, which trades iterations for a short
 * level schedule (Iwashita, Nakashima & Takahashi 2012, "Algebraic block
 * multi-color ordering method for parallel multi-threaded sparse triangular
 * solver in ICCG method"). */
#include <stdlib.h>
#include <string.h>

#include "em_mesh.h"
#include "ilu_impl.h"

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

/* Blocks of up to `block` vertices grown breadth-first from the lowest
 * unassigned vertex, blocks coloured greedily so that no two coupled blocks
 * share a colour, then the new order: colour by colour, blocks in the order
 * they were made, vertices in the order they joined their block.  block = 1
 * is plain greedy multicolouring. */
static em_err color_order(const em_graph *g, int block, int32_t *perm, int *colors) {
  int32_t n = g->n;
  em_err err = EM_OK;
  int32_t *bid = NULL, *order = NULL, *bstart = NULL, *bcol = NULL, *used = NULL, *cstart = NULL;
  EM_TRY(em_calloc(&bid, (size_t)n, sizeof *bid, "colouring block ids"));
  EM_TRY_GOTO(err, em_calloc(&order, (size_t)n, sizeof *order, "colouring order"), done);
  EM_TRY_GOTO(err, em_calloc(&bstart, (size_t)n + 1, sizeof *bstart, "colouring blocks"), done);
  for (int32_t i = 0; i < n; i++) bid[i] = -1;
  int32_t nb = 0, qn = 0;
  for (int32_t s = 0; s < n; s++) { /* blocks: breadth-first growth */
    if (bid[s] >= 0) continue;
    int32_t head = qn, size = 1;
    bstart[nb] = qn;
    bid[s] = nb;
    order[qn++] = s;
    while (head < qn && size < block) {
      int32_t u = order[head++];
      for (int64_t k = g->ptr[u]; k < g->ptr[u + 1] && size < block; k++) {
        int32_t w = g->adj[k];
        if (bid[w] >= 0) continue;
        bid[w] = nb;
        order[qn++] = w;
        size++;
      }
    }
    nb++;
  }
  bstart[nb] = qn;
  EM_TRY_GOTO(err, em_calloc(&bcol, (size_t)nb + 1, sizeof *bcol, "block colours"), done);
  EM_TRY_GOTO(err, em_calloc(&used, (size_t)nb + 2, sizeof *used, "colour marks"), done);
  for (int32_t b = 0; b < nb; b++) bcol[b] = -1;
  for (int32_t b = 0; b <= nb; b++) used[b] = -1;
  int nc = 0;
  for (int32_t b = 0; b < nb; b++) { /* greedy: smallest colour no neighbour has */
    for (int32_t q = bstart[b]; q < bstart[b + 1]; q++) {
      int32_t u = order[q];
      for (int64_t k = g->ptr[u]; k < g->ptr[u + 1]; k++) {
        int32_t c = bcol[bid[g->adj[k]]];
        if (c >= 0) used[c] = b;
      }
    }
    int32_t c = 0;
    while (used[c] == b) c++;
    bcol[b] = c;
    if (c + 1 > nc) nc = c + 1;
  }
  EM_TRY_GOTO(err, em_calloc(&cstart, (size_t)nc + 1, sizeof *cstart, "colour counts"), done);
  for (int32_t b = 0; b < nb; b++) cstart[bcol[b] + 1] += bstart[b + 1] - bstart[b];
  for (int c = 0; c < nc; c++) cstart[c + 1] += cstart[c];
  for (int32_t b = 0; b < nb; b++) /* blocks in creation order within a colour */
    for (int32_t q = bstart[b]; q < bstart[b + 1]; q++) perm[order[q]] = cstart[bcol[b]]++;
  *colors = nc;
done:
  em_free(&bid);
  em_free(&order);
  em_free(&bstart);
  em_free(&bcol);
  em_free(&used);
  em_free(&cstart);
  return err;
}

em_err em_pc_order(const em_graph *g, em_pc_ordering o, int block, int32_t *perm, int *colors) {
  *colors = 0;
  switch (o) {
    case EM_ORDERING_NATURAL:
      for (int32_t i = 0; i < g->n; i++) perm[i] = i;
      return EM_OK;
    case EM_ORDERING_RCM:
      EM_TRY(em_order_rcm(g->n, g->ptr, g->adj, perm));
      return EM_OK;
    case EM_ORDERING_ND:
      EM_TRY(em_order_nd(g->n, g->ptr, g->adj, perm));
      return EM_OK;
    case EM_ORDERING_MC:
      EM_TRY(color_order(g, 1, perm, colors));
      return EM_OK;
    case EM_ORDERING_BMC:
      EM_TRY(color_order(g, block, perm, colors));
      return EM_OK;
  }
  return EM_RAISE(EM_ERR_ARG, "unknown ordering %d", (int)o);
}
