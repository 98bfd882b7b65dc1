/* colour.c - greedy colouring of the tets for race-free parallel assembly.
 * Two tets conflict iff they share an edge (every DOF row lives on an edge,
 * a face or a cell, and sharing a face implies sharing its edges; tets that
 * touch at a vertex share no H(curl) DOF).  Processing colour after colour
 * in a fixed order also makes the sums independent of the thread count, and
 * A(r,c), A(c,r) receive the same contributions in the same order, so the
 * assembled matrix is exactly symmetric.
 *
 * The colours taken around each edge are a boolean matrix, edges x
 * colours, kept as the seed-004 patent bitmap's flags (graph/, em_bmp):
 * one 64-bit word per edge while there are at most 64 colours.  A tet's
 * colour is the lowest bit clear in the OR of its six edges' words, then
 * set in them: 6 word reads and writes per tet, where the stamps (the
 * reference, em_tet_colour_stamps) read the colour of every tet around
 * each of the six edges (about 30).  The same greedy rule: the same
 * colours (bench/bitmap_patent_bench.c measures both). */
#include "assembly_impl.h"
#include "em_graph.h"

/* colour lists from the colour of each tet */
static em_err colour_lists(int32_t n_tet, const int32_t *colour, int32_t nc, int32_t **cptr_out,
                           int32_t **ctet_out) {
  int32_t *cptr = NULL, *ctet = NULL;
  EM_TRY(em_calloc(&cptr, (size_t)nc + 1, sizeof *cptr, "colour lists"));
  em_err err = em_calloc(&ctet, (size_t)n_tet + 1, sizeof *ctet, "colour lists");
  if (err) {
    em_free(&cptr);
    return err;
  }
  for (int32_t t = 0; t < n_tet; t++) cptr[colour[t] + 1]++;
  for (int32_t c = 0; c < nc; c++) cptr[c + 1] += cptr[c];
  for (int32_t t = 0; t < n_tet; t++) ctet[cptr[colour[t]]++] = t;
  for (int32_t c = nc; c > 0; c--) cptr[c] = cptr[c - 1];
  cptr[0] = 0;
  *cptr_out = cptr;
  *ctet_out = ctet;
  return EM_OK;
}

/* the edges' flag rows widened to 64 w colours (the colours taken kept) */
static em_err colour_widen(em_bmp **F, int32_t w) {
  em_bmp *G = NULL;
  EM_TRY(em_bmp_create((*F)->n_rows, 64 * w, &G));
  for (int32_t e = 0; e < G->n_rows; e++)
    for (int32_t q = 0; q < (*F)->words; q++)
      G->flag[(int64_t)e * w + q] = (*F)->flag[(int64_t)e * (*F)->words + q];
  em_bmp_destroy(F);
  *F = G;
  return EM_OK;
}

em_err em_tet_colour(const em_mesh *m, const em_pattern *pat, int *n_colour, int32_t **cptr_out,
                     int32_t **ctet_out) {
  (void)pat;
  em_err err = EM_OK;
  int32_t *colour = NULL, nc = 0;
  em_bmp *F = NULL; /* edges x colours taken */
  EM_TRY(em_calloc(&colour, (size_t)m->n_tet + 1, sizeof *colour, "tet colours"));
  EM_TRY_GOTO(err, em_bmp_create(m->n_edge, 64, &F), done);
  for (int32_t t = 0; t < m->n_tet; t++) {
    const int32_t *te = m->tet_edge + 6 * (size_t)t;
    int32_t c = -1;
    for (int32_t q = 0; q < F->words && c < 0; q++) { /* lowest colour free on all six edges */
      uint64_t taken = 0;
      for (int le = 0; le < 6; le++) taken |= F->flag[(int64_t)te[le] * F->words + q];
      if (~taken) c = 64 * q + __builtin_ctzll(~taken);
    }
    if (c < 0) { /* every colour so far is taken around this tet: one more word */
      c = 64 * F->words;
      EM_TRY_GOTO(err, colour_widen(&F, F->words + 1), done);
    }
    for (int le = 0; le < 6; le++) F->flag[(int64_t)te[le] * F->words + c / 64] |= 1ull << (c % 64);
    colour[t] = c;
    if (c + 1 > nc) nc = c + 1;
  }
  EM_TRY_GOTO(err, colour_lists(m->n_tet, colour, nc, cptr_out, ctet_out), done);
  *n_colour = (int)nc;
done:
  em_bmp_destroy(&F);
  em_free(&colour);
  return err;
}

em_err em_tet_colour_stamps(const em_mesh *m, const em_pattern *pat, int *n_colour,
                            int32_t **cptr_out, int32_t **ctet_out) {
  em_err err = EM_OK;
  int32_t *colour = NULL, *stamp = NULL;
  int32_t nc = 0;
  EM_TRY(em_calloc(&colour, (size_t)m->n_tet, sizeof *colour, "tet colours"));
  /* a tet has at most 6 * (max star - 1) neighbours: colours stay below n_tet + 1 */
  EM_TRY_GOTO(err, em_calloc(&stamp, (size_t)m->n_tet + 1, sizeof *stamp, "colour stamps"), done);
  for (int32_t t = 0; t < m->n_tet; t++) colour[t] = -1;
  for (int32_t t = 0; t <= m->n_tet; t++) stamp[t] = -1;
  for (int32_t t = 0; t < m->n_tet; t++) {
    for (int le = 0; le < 6; le++) {
      int32_t e = m->tet_edge[6 * (size_t)t + le];
      for (int32_t k = pat->edge_ptr[e]; k < pat->edge_ptr[e + 1]; k++) {
        int32_t c = colour[pat->edge_tet[k]];
        if (c >= 0) stamp[c] = t;
      }
    }
    int32_t c = 0;
    while (stamp[c] == t) c++;
    colour[t] = c;
    if (c + 1 > nc) nc = c + 1;
  }
  EM_TRY_GOTO(err, colour_lists(m->n_tet, colour, nc, cptr_out, ctet_out), done);
  *n_colour = (int)nc;
done:
  em_free(&colour);
  em_free(&stamp);
  return err;
}

void em_tet_colour_keep(int n_colour, int32_t *cptr, int32_t *ctet, const uint8_t *keep) {
  int32_t q = 0, start = 0;
  for (int c = 0; c < n_colour; c++) {
    int32_t end = cptr[c + 1];
    for (int32_t k = start; k < end; k++)
      if (keep[ctet[k]]) ctet[q++] = ctet[k];
    start = end;
    cptr[c + 1] = q;
  }
}
