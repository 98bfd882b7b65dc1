/* fsys_coarse.c - the V-cycle's coarse level from the mesh and the DOF
 * map, before any value exists: its unknowns (the first PMG/coarse order
 * groups and, with PMG/pml_coarse, the PML's unknowns) and the pattern of
 * its block A_CC (two unknowns couple iff a tet holds both:
 * assembly/pattern.c's rule).  One definition for every user: the serial
 * V-cycle's marked rows (fsys.c), the distributed one's coarse set
 * (dfsys.c) and the two analyses made ahead of the values from them
 * (fsys_overlap.c on one rank, dfsys_ahead.c on rank 0); each is checked
 * against the matrix factored in the end (its pattern hash), so a
 * difference costs the overlap, never the result. */
#include <stdlib.h>
#include <string.h>

#include "fsys_impl.h"

int em_fsys_pml_groups(const em_fsys_desc *d) {
  int nc = d->solve->pmg_pml_coarse;
  if (!d->setup->has_pml || !nc) return 0;
  if (nc > 0) return nc;
  for (int32_t t = 0; t < d->mesh->n_tet; t++) /* auto: the PML tets' highest order */
    if (d->setup->medium[d->mesh->tet_group[t]].is_pml && d->dofs->tet_order[t] > nc)
      nc = d->dofs->tet_order[t];
  return nc;
}

/* the order group of DOF c (groups are kept by the operator's row order) */
static int group_of(const em_dofmap *d, int32_t c) {
  int g = 0;
  while (g + 1 < d->order && c >= d->offset[g + 1]) g++;
  return g;
}

void em_fsys_pml_mark(const em_fsys_desc *d, int below, const int32_t *perm, uint8_t *mark) {
  const em_mesh *m = d->mesh;
  int32_t code[64];
  int nbf = em_basis_count(d->dofs->order);
  for (int32_t t = 0; t < m->n_tet; t++) {
    if (!d->setup->medium[m->tet_group[t]].is_pml) continue;
    em_dofmap_tet(d->dofs, m, t, code);
    for (int k = 0; k < nbf; k++)
      if (code[k] >= 0 && group_of(d->dofs, code[k]) < below)
        mark[perm ? perm[code[k]] : code[k]] = 1;
  }
}

em_err em_fsys_coarse_set(const em_fsys_desc *d, int coarse, const int32_t *perm, uint8_t **cg) {
  const em_dofmap *dm = d->dofs;
  EM_TRY(em_calloc(cg, (size_t)dm->n_dof + 1, 1, "coarse unknowns"));
  /* the first groups: the same rows in either numbering (a count out of
     range is the V-cycle's to refuse, with its message) */
  int c = coarse < 0 ? 0 : coarse > dm->order ? dm->order : coarse;
  memset(*cg, 1, (size_t)dm->offset[c]);
  int nc = em_fsys_pml_groups(d);
  if (nc) em_fsys_pml_mark(d, nc, perm, *cg);
  return EM_OK;
}

/* P (nc x nc, values 0) = the pattern of A_CC, coarse unknown j numbered
 * cidx[j] (-1: not coarse): row i's columns are the coarse codes of the
 * tets holding i (unknown -> tets, then a mark per thread); counted, then
 * filled and sorted, both passes parallel over the rows. */
static em_err pattern_of(const em_mesh *m, const em_dofmap *d, const int32_t *cidx, int32_t nc,
                         em_csr **out) {
  int32_t code[64];
  int nbf = em_basis_count(d->order);
  int32_t *tptr = NULL, *ttet = NULL, *fill = NULL;
  int64_t *rp = NULL;
  em_csr *P = NULL;
  em_err err = EM_OK, bad = EM_OK;
  *out = NULL;
  EM_TRY_GOTO(err, em_calloc(&tptr, (size_t)nc + 1, sizeof *tptr, "coarse tets"), done);
  EM_TRY_GOTO(err, em_calloc(&fill, (size_t)nc + 1, sizeof *fill, "coarse tets"), done);
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_dofmap_tet(d, m, t, code);
    for (int k = 0; k < nbf; k++)
      if (code[k] >= 0 && cidx[code[k]] >= 0) tptr[cidx[code[k]] + 1]++;
  }
  for (int32_t i = 0; i < nc; i++) tptr[i + 1] += tptr[i];
  EM_TRY_GOTO(err, em_calloc(&ttet, (size_t)tptr[nc] + 1, sizeof *ttet, "coarse tets"), done);
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_dofmap_tet(d, m, t, code);
    for (int k = 0; k < nbf; k++)
      if (code[k] >= 0 && cidx[code[k]] >= 0) {
        int32_t i = cidx[code[k]];
        ttet[tptr[i] + fill[i]++] = t;
      }
  }
  EM_TRY_GOTO(err, em_calloc(&rp, (size_t)nc + 1, sizeof *rp, "coarse pattern"), done);
  for (int pass = 0; pass < 2; pass++) {
#pragma omp parallel
    {
      int32_t *mark = NULL, c[64];
      em_err e = em_calloc(&mark, (size_t)nc + 1, sizeof *mark, "coarse pattern");
      if (e) {
#pragma omp critical(em_fsys_coarse_bad)
        bad = e;
      }
      for (int32_t i = 0; mark && i < nc; i++) mark[i] = -1;
#pragma omp for schedule(dynamic, 1024)
      for (int32_t i = 0; i < nc; i++) {
        if (!mark) continue;
        int64_t w = pass ? P->rowptr[i] : 0;
        for (int32_t q = tptr[i]; q < tptr[i + 1]; q++) {
          em_dofmap_tet(d, m, ttet[q], c);
          for (int k = 0; k < nbf; k++) {
            int32_t j = c[k] >= 0 ? cidx[c[k]] : -1;
            if (j < 0 || mark[j] == i) continue;
            mark[j] = i;
            if (pass) P->colind[w] = j;
            w++;
          }
        }
        if (pass)
          em_sort_i32(P->colind + P->rowptr[i], w - P->rowptr[i]); /* qsort's order */
        else
          rp[i + 1] = w;
      }
      em_free(&mark);
    }
    if (bad) {
      err = bad;
      break;
    }
    if (!pass) {
      for (int32_t i = 0; i < nc; i++) rp[i + 1] += rp[i];
      err = em_csr_create(nc, nc, rp[nc], &P);
      if (err) break;
      memcpy(P->rowptr, rp, ((size_t)nc + 1) * sizeof *rp);
      memset(P->val, 0, (size_t)rp[nc] * sizeof *P->val);
    }
  }
  if (!err) {
    *out = P;
    P = NULL;
  }
done:
  em_csr_destroy(&P);
  em_free(&rp);
  em_free(&tptr);
  em_free(&ttet);
  em_free(&fill);
  return err;
}

em_err em_fsys_coarse_pattern(const em_mesh *m, const em_dofmap *d, const uint8_t *cg,
                              const int32_t *perm, em_csr **P) {
  int32_t n = d->n_dof, nc = 0, *cidx = NULL, *rank = NULL;
  *P = NULL;
  EM_TRY(em_calloc(&cidx, (size_t)n + 1, sizeof *cidx, "coarse numbering"));
  em_err err = EM_OK;
  if (perm) { /* the coarse rows ascending in perm's numbering */
    err = em_calloc(&rank, (size_t)n + 1, sizeof *rank, "coarse numbering");
    for (int32_t r = 0; !err && r < n; r++) rank[r] = cg[r] ? nc++ : -1;
    for (int32_t j = 0; !err && j < n; j++) cidx[j] = rank[perm[j]];
  } else {
    for (int32_t j = 0; j < n; j++) cidx[j] = cg[j] ? nc++ : -1;
  }
  if (!err) err = pattern_of(m, d, cidx, nc, P);
  em_free(&rank);
  em_free(&cidx);
  return err;
}
