/* color.c - greedy (block) multicolouring, which trades Krylov iterations
 * for a short level schedule of the ILU(0) triangular solves (Iwashita,
 * Nakashima & Takahashi 2012, "Algebraic block multi-color ordering method
 * for parallel multi-threaded sparse triangular solver in ICCG method"). */
#include "em_graph.h"

/* Blocks of up to `block` vertices grown breadth-first from the lowest
 * unassigned vertex, blocks coloured greedily so that no two coupled blocks
 * share a colour, then the new order: colour by colour, blocks in the order
 * they were made, vertices in the order they joined their block.  block = 1
 * is plain greedy multicolouring. */
em_err em_order_color(const em_graph *g, int block, int32_t *perm, int *colors) {
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
