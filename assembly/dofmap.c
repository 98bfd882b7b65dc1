/* dofmap.c - global numbering of the DOFs, grouped by order and, inside a
 * group, by the smallest vertex id of the carrying entity.
 *
 * Group 1: edge slot 0.  Group 2: edge slot 1, face slots 0..1.  Group 3:
 * edge slot 2, face slots 2..5, cell slots 0..2.  Within a group the
 * entities are visited vertex by vertex (v = 0 .. n_vert-1): the edges
 * whose first vertex is v, then such faces, then such tets.  The mesh is
 * RCM-ordered and edges / faces are numbered lexicographically, so this is
 * a cheap ordering that inherits the vertex locality.  Fixed DOFs (on fixed
 * faces and their edges) get codes -1, -2, ... in the same order. */
#include <string.h>

#include "assembly_impl.h"

void em_dofmap_destroy(em_dofmap **d) {
  if (!*d) return;
  em_free(&(*d)->edge_dof);
  em_free(&(*d)->face_dof);
  em_free(&(*d)->cell_dof);
  em_free(&(*d)->fixed_group);
  em_free(d);
}

/* First slot of group g (1-based) on an entity kind, and its slot count. */
static void group_slots(int g, int kind, int *first, int *count) {
  static const int EDGE[4][2] = {{0, 0}, {0, 1}, {1, 1}, {2, 1}};
  static const int FACE[4][2] = {{0, 0}, {0, 0}, {0, 2}, {2, 4}};
  static const int CELL[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 3}};
  const int(*tab)[2] = kind == EM_ENT_EDGE ? EDGE : kind == EM_ENT_FACE ? FACE : CELL;
  *first = tab[g][0];
  *count = tab[g][1];
}

/* Number one entity's slots of group g: unknowns from *nu, fixed from *nf. */
static void number(int32_t *codes, int first, int count, int fixed, int g, int32_t *nu, int32_t *nf,
                   int8_t *fixed_group) {
  for (int s = first; s < first + count; s++) {
    if (fixed) {
      if (fixed_group) fixed_group[*nf] = (int8_t)g;
      codes[s] = -(*nf)++ - 1;
    } else {
      codes[s] = (*nu)++;
    }
  }
}

em_err em_dofmap_build(const em_mesh *m, int order, const uint8_t *face_fixed, em_dofmap **out) {
  EM_CHECK(out, EM_ERR_ARG, "dofmap: NULL output");
  *out = NULL;
  EM_CHECK(m, EM_ERR_ARG, "dofmap: NULL mesh");
  EM_CHECK(order >= 1 && order <= EM_MAX_ORDER, EM_ERR_INPUT, "basis order %d not in 1..%d", order,
           EM_MAX_ORDER);
  em_err err = EM_OK;
  em_dofmap *d = NULL;
  uint8_t *edge_fixed = NULL;
  int32_t *tet_ptr = NULL, *tet_by_v = NULL, *face_ptr = NULL, *edge_ptr = NULL;
  int p = order, ne = p, nf = p * (p - 1), nc = p * (p - 1) * (p - 2) / 2;
  EM_TRY(em_calloc(&d, 1, sizeof *d, "dofmap"));
  d->order = p;
  EM_TRY_GOTO(err, em_calloc(&d->edge_dof, (size_t)m->n_edge * ne, sizeof(int32_t), "edge DOFs"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&d->face_dof, (size_t)m->n_face * nf, sizeof(int32_t), "face DOFs"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&d->cell_dof, (size_t)m->n_tet * nc, sizeof(int32_t), "cell DOFs"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&edge_fixed, (size_t)m->n_edge, 1, "fixed edges"), fail);
  if (face_fixed)
    for (int32_t t = 0; t < m->n_tet; t++)
      for (int lf = 0; lf < 4; lf++)
        if (face_fixed[m->tet_face[4 * (size_t)t + lf]])
          for (int le = 0; le < 6; le++)
            if (EM_TET_EDGE[le][0] != lf && EM_TET_EDGE[le][1] != lf)
              edge_fixed[m->tet_edge[6 * (size_t)t + le]] = 1;
  /* entities bucketed by first vertex: edges and faces are lexicographic, so
   * each bucket is a contiguous range; tets need a counting sort */
  EM_TRY_GOTO(err, em_calloc(&edge_ptr, (size_t)m->n_vert + 1, sizeof(int32_t), "edge buckets"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&face_ptr, (size_t)m->n_vert + 1, sizeof(int32_t), "face buckets"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&tet_ptr, (size_t)m->n_vert + 1, sizeof(int32_t), "tet buckets"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&tet_by_v, (size_t)m->n_tet, sizeof(int32_t), "tet buckets"), fail);
  for (int32_t e = 0; e < m->n_edge; e++) edge_ptr[m->edge[2 * (size_t)e] + 1]++;
  for (int32_t f = 0; f < m->n_face; f++) face_ptr[m->face[3 * (size_t)f] + 1]++;
  for (int32_t t = 0; t < m->n_tet; t++) tet_ptr[m->tet[4 * (size_t)t] + 1]++;
  for (int32_t v = 0; v < m->n_vert; v++) {
    edge_ptr[v + 1] += edge_ptr[v];
    face_ptr[v + 1] += face_ptr[v];
    tet_ptr[v + 1] += tet_ptr[v];
  }
  for (int32_t t = 0; t < m->n_tet; t++) tet_by_v[tet_ptr[m->tet[4 * (size_t)t]]++] = t;
  for (int32_t v = m->n_vert; v > 0; v--) tet_ptr[v] = tet_ptr[v - 1];
  tet_ptr[0] = 0;
  /* count fixed DOFs first so fixed_group can be filled in the same pass */
  int32_t n_fixed = 0;
  for (int32_t e = 0; e < m->n_edge; e++) n_fixed += edge_fixed[e] ? ne : 0;
  if (face_fixed)
    for (int32_t f = 0; f < m->n_face; f++) n_fixed += face_fixed[f] ? nf : 0;
  EM_TRY_GOTO(err, em_calloc(&d->fixed_group, (size_t)n_fixed, 1, "fixed DOF groups"), fail);
  int32_t nu = 0, nfx = 0;
  for (int g = 1; g <= p; g++) {
    d->offset[g - 1] = nu;
    int ef, ec, ff, fc, cf, cc;
    group_slots(g, EM_ENT_EDGE, &ef, &ec);
    group_slots(g, EM_ENT_FACE, &ff, &fc);
    group_slots(g, EM_ENT_CELL, &cf, &cc);
    for (int32_t v = 0; v < m->n_vert; v++) {
      for (int32_t e = edge_ptr[v]; e < edge_ptr[v + 1]; e++)
        number(d->edge_dof + (size_t)e * ne, ef, ec, edge_fixed[e], g, &nu, &nfx, d->fixed_group);
      if (fc)
        for (int32_t f = face_ptr[v]; f < face_ptr[v + 1]; f++)
          number(d->face_dof + (size_t)f * nf, ff, fc, face_fixed && face_fixed[f], g, &nu, &nfx,
                 d->fixed_group);
      if (cc)
        for (int32_t k = tet_ptr[v]; k < tet_ptr[v + 1]; k++)
          number(d->cell_dof + (size_t)tet_by_v[k] * nc, cf, cc, 0, g, &nu, &nfx, NULL);
    }
  }
  d->offset[p] = nu;
  for (int g = p + 1; g <= EM_MAX_ORDER; g++) d->offset[g] = nu;
  d->n_dof = nu;
  d->n_fixed = nfx;
  if (nfx != n_fixed) {
    err = EM_RAISE(EM_ERR_INTERNAL, "dofmap numbered %d fixed DOFs, counted %d", nfx, n_fixed);
    goto fail;
  }
  *out = d;
  d = NULL;
fail:
  em_dofmap_destroy(&d);
  em_free(&edge_fixed);
  em_free(&edge_ptr);
  em_free(&face_ptr);
  em_free(&tet_ptr);
  em_free(&tet_by_v);
  return err;
}

/* code[i] of local function i from the entity tables (table order). */
void em_dofmap_tet(const em_dofmap *d, const em_mesh *m, int32_t t, int32_t *code) {
  int p = d->order, n = em_basis_count(p), nf = p * (p - 1), nc = p * (p - 1) * (p - 2) / 2;
  const em_basis_fn *tab = em_basis_table(p);
  for (int i = 0; i < n; i++) {
    const em_basis_fn *fn = tab + i;
    if (fn->kind == EM_ENT_EDGE)
      code[i] = d->edge_dof[(size_t)m->tet_edge[6 * (size_t)t + fn->entity] * p + fn->slot];
    else if (fn->kind == EM_ENT_FACE)
      code[i] = d->face_dof[(size_t)m->tet_face[4 * (size_t)t + fn->entity] * nf + fn->slot];
    else
      code[i] = d->cell_dof[(size_t)t * nc + fn->slot];
  }
}
