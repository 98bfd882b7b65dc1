/* dofmap.c - global numbering of the DOFs, grouped by order and, inside a
 * group, by the smallest vertex id of the carrying entity.
 *
 * Group 1: edge slot 0.  Group 2: edge slot 1, face slots 0..1.  Group 3:
 * edge slot 2, face slots 2..5, cell slots 0..2.  Within a group the
 * entities are visited vertex by vertex (v = 0 .. n_vert-1): the edges
 * whose first vertex is v, then such faces, then such tets.  The mesh is
 * RCM-ordered and edges / faces are numbered lexicographically, so this is
 * a cheap ordering that inherits the vertex locality.  Fixed DOFs (on fixed
 * faces and their edges) get codes -1, -2, ... in the same order.
 *
 * Order per tet: an edge or face takes the highest order of the tets
 * around it and numbers only the slots of its order (group g of an entity
 * of order q < g does not exist: EM_DOF_NONE), a cell its tet's. */
#include <string.h>

#include "assembly_impl.h"

void em_dofmap_destroy(em_dofmap **d) {
  if (!*d) return;
  em_free(&(*d)->edge_dof);
  em_free(&(*d)->face_dof);
  em_free(&(*d)->cell_dof);
  em_free(&(*d)->fixed_group);
  em_free(&(*d)->tet_order);
  em_free(&(*d)->elem_order);
  em_free(&(*d)->edge_order);
  em_free(&(*d)->face_order);
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

/* The orders of the entities from the tets': an edge or face the highest
 * of the tets around it, a tet's element the highest of its edges (edges
 * >= faces >= cell, since every tet of a face holds its edges). */
static em_err entity_orders(const em_mesh *m, const int8_t *tet_order, em_dofmap *d) {
  EM_TRY(em_calloc(&d->tet_order, (size_t)m->n_tet + 1, 1, "tet orders"));
  EM_TRY(em_calloc(&d->elem_order, (size_t)m->n_tet + 1, 1, "element orders"));
  EM_TRY(em_calloc(&d->edge_order, (size_t)m->n_edge + 1, 1, "edge orders"));
  EM_TRY(em_calloc(&d->face_order, (size_t)m->n_face + 1, 1, "face orders"));
  int lo = EM_MAX_ORDER, hi = 1;
  for (int32_t t = 0; t < m->n_tet; t++) {
    int q = tet_order[t];
    EM_CHECK(q >= 1 && q <= EM_MAX_ORDER, EM_ERR_INPUT, "tet %d: basis order %d not in 1..%d", t, q,
             EM_MAX_ORDER);
    d->tet_order[t] = (int8_t)q;
    lo = q < lo ? q : lo;
    hi = q > hi ? q : hi;
    for (int k = 0; k < 6; k++) {
      int8_t *e = d->edge_order + m->tet_edge[6 * (size_t)t + k];
      if (*e < q) *e = (int8_t)q;
    }
    for (int k = 0; k < 4; k++) {
      int8_t *f = d->face_order + m->tet_face[4 * (size_t)t + k];
      if (*f < q) *f = (int8_t)q;
    }
  }
  for (int32_t t = 0; t < m->n_tet; t++) {
    int8_t q = d->tet_order[t];
    for (int k = 0; k < 6; k++) {
      int8_t e = d->edge_order[m->tet_edge[6 * (size_t)t + k]];
      if (e > q) q = e;
    }
    d->elem_order[t] = q;
  }
  d->order = hi;
  d->uniform = lo == hi;
  return EM_OK;
}

em_err em_dofmap_build(const em_mesh *m, int order, const uint8_t *face_fixed, em_dofmap **out) {
  EM_CHECK(out, EM_ERR_ARG, "dofmap: NULL output");
  *out = NULL;
  EM_CHECK(m, EM_ERR_ARG, "dofmap: NULL mesh");
  EM_CHECK(order >= 1 && order <= EM_MAX_ORDER, EM_ERR_INPUT, "basis order %d not in 1..%d", order,
           EM_MAX_ORDER);
  int8_t *to = NULL;
  EM_TRY(em_calloc(&to, (size_t)m->n_tet + 1, 1, "tet orders"));
  memset(to, order, (size_t)m->n_tet);
  em_err err = em_dofmap_build_orders(m, to, face_fixed, out);
  em_free(&to);
  return err;
}

em_err em_dofmap_build_orders(const em_mesh *m, const int8_t *tet_order, const uint8_t *face_fixed,
                              em_dofmap **out) {
  EM_CHECK(out, EM_ERR_ARG, "dofmap: NULL output");
  *out = NULL;
  EM_CHECK(m && tet_order, EM_ERR_ARG, "dofmap: NULL mesh or tet orders");
  EM_CHECK(m->n_tet > 0, EM_ERR_INPUT, "dofmap: the mesh has no tetrahedra");
  em_err err = EM_OK;
  em_dofmap *d = NULL;
  uint8_t *edge_fixed = NULL;
  int32_t *tet_ptr = NULL, *tet_by_v = NULL, *face_ptr = NULL, *edge_ptr = NULL;
  EM_TRY(em_calloc(&d, 1, sizeof *d, "dofmap"));
  EM_TRY_GOTO(err, entity_orders(m, tet_order, d), fail);
  int p = d->order, ne = p, nf = p * (p - 1), nc = p * (p - 1) * (p - 2) / 2;
  EM_TRY_GOTO(err, em_calloc(&d->edge_dof, (size_t)m->n_edge * ne, sizeof(int32_t), "edge DOFs"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&d->face_dof, (size_t)m->n_face * nf, sizeof(int32_t), "face DOFs"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&d->cell_dof, (size_t)m->n_tet * nc, sizeof(int32_t), "cell DOFs"),
              fail);
  for (size_t k = 0; k < (size_t)m->n_edge * ne; k++) d->edge_dof[k] = EM_DOF_NONE;
  for (size_t k = 0; k < (size_t)m->n_face * nf; k++) d->face_dof[k] = EM_DOF_NONE;
  for (size_t k = 0; k < (size_t)m->n_tet * nc; k++) d->cell_dof[k] = EM_DOF_NONE;
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
  for (int32_t e = 0; e < m->n_edge; e++) n_fixed += edge_fixed[e] ? d->edge_order[e] : 0;
  if (face_fixed)
    for (int32_t f = 0; f < m->n_face; f++) {
      int q = d->face_order[f];
      n_fixed += face_fixed[f] ? q * (q - 1) : 0;
    }
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
        if (d->edge_order[e] >= g)
          number(d->edge_dof + (size_t)e * ne, ef, ec, edge_fixed[e], g, &nu, &nfx, d->fixed_group);
      if (fc)
        for (int32_t f = face_ptr[v]; f < face_ptr[v + 1]; f++)
          if (d->face_order[f] >= g)
            number(d->face_dof + (size_t)f * nf, ff, fc, face_fixed && face_fixed[f], g, &nu, &nfx,
                   d->fixed_group);
      if (cc)
        for (int32_t k = tet_ptr[v]; k < tet_ptr[v + 1]; k++)
          if (d->tet_order[tet_by_v[k]] >= g)
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

/* code[i] of local function i from the entity tables (table order); the
 * functions past the element's order are absent. */
int em_dofmap_tet(const em_dofmap *d, const em_mesh *m, int32_t t, int32_t *code) {
  int p = d->order, q = d->elem_order[t], n = em_basis_count(q), nf = p * (p - 1),
      nc = p * (p - 1) * (p - 2) / 2;
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
  for (int i = n; i < em_basis_count(p); i++) code[i] = EM_DOF_NONE;
  return q;
}

/* Per unknown the (order, group) of the region it takes its order from:
 * the highest tet order around its entity, the lowest group among equals. */
em_err em_dofmap_region_counts(const em_dofmap *d, const em_mesh *m, int32_t *count) {
  int8_t *best = NULL;
  int32_t *grp = NULL, code[64];
  em_err err = EM_OK;
  memset(count, 0, (size_t)m->n_group * EM_MAX_ORDER * sizeof *count);
  EM_TRY(em_calloc(&best, (size_t)d->n_dof + 1, 1, "region counts"));
  EM_TRY_GOTO(err, em_calloc(&grp, (size_t)d->n_dof + 1, sizeof *grp, "region counts"), done);
  for (int32_t t = 0; t < m->n_tet; t++) {
    int q = em_basis_count(em_dofmap_tet(d, m, t, code)), o = d->tet_order[t];
    int32_t g = m->tet_group[t];
    for (int i = 0; i < q; i++) {
      int32_t c = code[i];
      if (c < 0) continue;
      if (o > best[c] || (o == best[c] && g < grp[c])) best[c] = (int8_t)o, grp[c] = g;
    }
  }
  for (int32_t c = 0; c < d->n_dof; c++) {
    int k = 0;
    while (k + 1 < d->order && c >= d->offset[k + 1]) k++;
    if (grp[c] >= 0 && grp[c] < m->n_group) count[(size_t)grp[c] * EM_MAX_ORDER + k]++;
  }
done:
  em_free(&best);
  em_free(&grp);
  return err;
}
