/* mesh_chains.c - the boundary matrices d1, d2, d3 of a tet mesh mod 2. */
#include "mesh_chains.h"

#include <stdlib.h>

static int chain_cmp(const void *p, const void *q) {
  int32_t a = *(const int32_t *)p, b = *(const int32_t *)q;
  return (a > b) - (a < b);
}

/* Column c of d_k holds the k+1 (k-1)-cells of cell c: the vertices of an
 * edge, the edges of a face (face f of a tet is opposite local vertex f:
 * its edges are those not touching f), the faces of a tet. */
em_err em_mesh_chain(const em_mesh *m, int k, em_gf2_sp *A) {
  EM_CHECK(m && A && k >= 1 && k <= 3, EM_ERR_ARG, "boundary matrix d%d", k);
  const int32_t nc = k == 1 ? m->n_edge : k == 2 ? m->n_face : m->n_tet;
  const int nb = k + 1;
  int64_t *ptr = NULL;
  int32_t *idx = NULL;
  EM_TRY(em_calloc(&ptr, (size_t)nc + 1, sizeof *ptr, "chain columns"));
  em_err err = em_calloc(&idx, (size_t)nb * nc + 1, sizeof *idx, "chain rows");
  for (int32_t c = 0; !err && c <= nc; c++) ptr[c] = (int64_t)nb * c;
  if (!err && k == 1)
    for (int64_t q = 0; q < 2 * (int64_t)nc; q++) idx[q] = m->edge[q];
  if (!err && k == 3)
    for (int64_t q = 0; q < 4 * (int64_t)nc; q++) idx[q] = m->tet_face[q];
  if (!err && k == 2)
    for (int32_t t = 0; t < m->n_tet; t++)
      for (int f = 0; f < 4; f++) {
        int32_t *e3 = idx + 3 * (size_t)m->tet_face[4 * t + f];
        int n = 0;
        for (int e = 0; e < 6; e++)
          if (EM_TET_EDGE[e][0] != f && EM_TET_EDGE[e][1] != f) e3[n++] = m->tet_edge[6 * t + e];
      }
  for (int32_t c = 0; !err && c < nc; c++) qsort(idx + (size_t)nb * c, nb, sizeof *idx, chain_cmp);
  if (err) {
    em_free(&ptr);
    em_free(&idx);
    return err;
  }
  A->n_rows = k == 1 ? m->n_vert : k == 2 ? m->n_edge : m->n_face;
  A->n_cols = nc;
  A->ptr = ptr;
  A->idx = idx;
  return EM_OK;
}

void em_mesh_chain_free(em_gf2_sp *A) {
  if (!A) return;
  int64_t *p = (int64_t *)A->ptr;
  int32_t *i = (int32_t *)A->idx;
  em_free(&p);
  em_free(&i);
  A->ptr = NULL;
  A->idx = NULL;
}
