/* dpart.c - the parts of a distributed solve (issue 27, docs/mpi.md): the
 * tets split into P parts by METIS k-way on the dual graph (tets joined by
 * a shared face), each tet weighted by its unknowns; an unknown belongs to
 * the lowest part among the tets that hold it (a fixed rule every rank
 * applies alike to the same mesh). */
#include <string.h>

#include "em_graph.h"
#include "em_model.h"

em_err em_dpart_build(const em_mesh *m, const em_dofmap *d, int P, int32_t *tet_part,
                      int32_t *owner) {
  EM_CHECK(P >= 1, EM_ERR_ARG, "a distributed solve over %d ranks", P);
  int32_t nt = m->n_tet, code[64];
  int nbf = em_basis_count(d->order);
  int64_t *ptr = NULL;
  int32_t *adj = NULL, *w = NULL, *fill = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&ptr, (size_t)nt + 1, sizeof *ptr, "tet graph"));
  EM_TRY_GOTO(err, em_calloc(&w, (size_t)nt + 1, sizeof *w, "tet weights"), done);
  EM_TRY_GOTO(err, em_calloc(&fill, (size_t)nt + 1, sizeof *fill, "tet graph"), done);
  for (int32_t f = 0; f < m->n_face; f++) /* the dual graph: interior faces */
    if (m->face_tet[2 * f + 1] >= 0)
      ptr[m->face_tet[2 * f] + 1]++, ptr[m->face_tet[2 * f + 1] + 1]++;
  for (int32_t t = 0; t < nt; t++) ptr[t + 1] += ptr[t];
  EM_TRY_GOTO(err, em_calloc(&adj, (size_t)ptr[nt] + 1, sizeof *adj, "tet graph"), done);
  for (int32_t f = 0; f < m->n_face; f++) {
    int32_t a = m->face_tet[2 * f], b = m->face_tet[2 * f + 1];
    if (b < 0) continue;
    adj[ptr[a] + fill[a]++] = b;
    adj[ptr[b] + fill[b]++] = a;
  }
  for (int32_t t = 0; t < nt; t++) { /* weight: the tet's unknowns */
    em_dofmap_tet(d, m, t, code);
    for (int k = 0; k < nbf; k++) w[t] += code[k] >= 0;
  }
  EM_TRY_GOTO(err, em_graph_partition(nt, ptr, adj, w, P, tet_part), done);
  for (int32_t i = 0; i < d->n_dof; i++) owner[i] = P;
  for (int32_t t = 0; t < nt; t++) {
    em_dofmap_tet(d, m, t, code);
    for (int k = 0; k < nbf; k++)
      if (code[k] >= 0 && tet_part[t] < owner[code[k]]) owner[code[k]] = tet_part[t];
  }
  for (int32_t i = 0; i < d->n_dof && !err; i++)
    if (owner[i] == P) err = EM_RAISE(EM_ERR_INTERNAL, "unknown %d is in no tet", i);
done:
  em_free(&ptr);
  em_free(&adj);
  em_free(&w);
  em_free(&fill);
  return err;
}
