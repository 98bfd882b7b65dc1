/* dpart.c - the parts of a distributed solve (issue 27, docs/mpi.md): the
 * tets split into P parts by METIS k-way on the dual graph (tets joined by
 * a shared face), each tet weighted by its unknowns; an unknown belongs to
 * the lowest part among the tets that hold it (a fixed rule every rank
 * applies alike to the same mesh).  In a run, rank 0 alone runs METIS (a
 * serial pass over the whole mesh, 0.5-0.8 s at 340k tets, that no rank
 * needs to repeat) and sends the tets' parts; each rank derives the
 * owners. */
#include <string.h>

#include "em_dist.h"
#include "em_graph.h"
#include "em_model.h"

/* tet_part by METIS on the dual graph, each tet weighted by its unknowns */
static em_err parts(const em_mesh *m, const em_dofmap *d, int P, int32_t *tet_part) {
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
  err = em_graph_partition(nt, ptr, adj, w, P, tet_part);
done:
  em_free(&ptr);
  em_free(&adj);
  em_free(&w);
  em_free(&fill);
  return err;
}

/* owner[i] = min over the tets t holding unknown i of tet_part[t] */
static em_err owners(const em_mesh *m, const em_dofmap *d, int P, const int32_t *tet_part,
                     int32_t *owner) {
  int32_t code[64];
  int nbf = em_basis_count(d->order);
  for (int32_t i = 0; i < d->n_dof; i++) owner[i] = P;
  for (int32_t t = 0; t < m->n_tet; t++) {
    EM_CHECK(tet_part[t] >= 0 && tet_part[t] < P, EM_ERR_INTERNAL, "tet %d in part %d of %d", t,
             tet_part[t], P);
    em_dofmap_tet(d, m, t, code);
    for (int k = 0; k < nbf; k++)
      if (code[k] >= 0 && tet_part[t] < owner[code[k]]) owner[code[k]] = tet_part[t];
  }
  for (int32_t i = 0; i < d->n_dof; i++)
    EM_CHECK(owner[i] < P, EM_ERR_INTERNAL, "unknown %d is in no tet", i);
  return EM_OK;
}

em_err em_dpart_build(const em_mesh *m, const em_dofmap *d, int P, int32_t *tet_part,
                      int32_t *owner) {
  EM_CHECK(P >= 1, EM_ERR_ARG, "a distributed solve over %d ranks", P);
  EM_TRY(parts(m, d, P, tet_part));
  return owners(m, d, P, tet_part, owner);
}

em_err em_dpart_share(const struct em_dist *dist, const em_mesh *m, const em_dofmap *d,
                      int32_t *tet_part, int32_t *owner) {
  int P = em_dist_size(dist), root = em_dist_rank(dist) == 0, bad = 0;
  em_err err = root ? parts(m, d, P, tet_part) : EM_OK;
  bad = err != EM_OK; /* the others stop too; rank 0 returns its reason */
  EM_TRY(em_dist_bcast(dist, &bad, 1, EM_DIST_INT, 0));
  if (err) return err;
  EM_CHECK(!bad, EM_ERR_INPUT, "the METIS parts of the mesh failed on rank 0 (its log says why)");
  EM_TRY(em_dist_bcast(dist, tet_part, (size_t)m->n_tet, EM_DIST_INT, 0));
  return owners(m, d, P, tet_part, owner);
}
