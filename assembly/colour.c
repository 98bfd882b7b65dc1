/* colour.c - greedy colouring of the tets for race-free parallel assembly.
 * Two tets conflict iff they share an edge (every DOF row lives on an edge,
 * a face or a cell, and sharing a face implies sharing its edges; tets that
 * touch at a vertex share no H(curl) DOF).  Processing colour after colour
 * in a fixed order also makes the sums independent of the thread count, and
 * A(r,c), A(c,r) receive the same contributions in the same order, so the
 * assembled matrix is exactly symmetric. */
#include "assembly_impl.h"

em_err em_tet_colour(const em_mesh *m, const em_pattern *pat, int *n_colour, int32_t **cptr_out,
                     int32_t **ctet_out) {
  em_err err = EM_OK;
  int32_t *colour = NULL, *stamp = NULL, *cptr = NULL, *ctet = NULL;
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
  EM_TRY_GOTO(err, em_calloc(&cptr, (size_t)nc + 1, sizeof *cptr, "colour lists"), done);
  EM_TRY_GOTO(err, em_calloc(&ctet, (size_t)m->n_tet, sizeof *ctet, "colour lists"), done);
  for (int32_t t = 0; t < m->n_tet; t++) cptr[colour[t] + 1]++;
  for (int32_t c = 0; c < nc; c++) cptr[c + 1] += cptr[c];
  for (int32_t t = 0; t < m->n_tet; t++) ctet[cptr[colour[t]]++] = t;
  for (int32_t c = nc; c > 0; c--) cptr[c] = cptr[c - 1];
  cptr[0] = 0;
  *n_colour = (int)nc;
  *cptr_out = cptr;
  *ctet_out = ctet;
  cptr = ctet = NULL;
done:
  em_free(&colour);
  em_free(&stamp);
  em_free(&cptr);
  em_free(&ctet);
  return err;
}
