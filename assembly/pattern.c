/* pattern.c - the symbolic phase: which unknowns couple, from entity
 * adjacency alone (no triplet sort).
 *
 * Two DOFs couple iff their entities lie in a common tet, so every DOF of
 * an entity E has the same columns: the unknown codes of the tets of E's
 * star (tets around an edge, the one or two tets of a face, the tet of a
 * cell).  One sorted column list per entity therefore describes all its
 * rows; the numeric phase finds an entry's position in that list. */
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "assembly_impl.h"

void em_pattern_destroy(em_pattern **pat) {
  if (!*pat) return;
  em_free(&(*pat)->ptr);
  em_free(&(*pat)->col);
  em_free(&(*pat)->gstart);
  em_free(&(*pat)->edge_ptr);
  em_free(&(*pat)->edge_tet);
  em_free(&(*pat)->row);
  em_free(&(*pat)->row_dof);
  em_free(&(*pat)->tet_in);
  em_free(pat);
}

/* Tets of entity k's star into *tets (returns the count). */
static int star(const em_pattern *pat, const em_mesh *m, int32_t k, int32_t *tets) {
  if (k < pat->face0) {
    int n = pat->edge_ptr[k + 1] - pat->edge_ptr[k];
    memcpy(tets, pat->edge_tet + pat->edge_ptr[k], (size_t)n * sizeof *tets);
    return n;
  }
  if (k < pat->cell0) {
    int32_t f = k - pat->face0;
    tets[0] = m->face_tet[2 * (size_t)f];
    tets[1] = m->face_tet[2 * (size_t)f + 1];
    return tets[1] < 0 ? 1 : 2;
  }
  tets[0] = k - pat->cell0;
  return 1;
}

/* Does entity k carry at least one unknown (a fixed edge/face has none,
 * nor a face or cell of order 1)? */
static int has_unknown(const em_pattern *pat, const em_dofmap *d, int32_t k) {
  int p = d->order;
  if (k < pat->face0) return d->edge_dof[(size_t)k * p] >= 0;
  if (k < pat->cell0) return p > 1 && d->face_dof[(size_t)(k - pat->face0) * p * (p - 1)] >= 0;
  return d->cell_dof[(size_t)(k - pat->cell0) * p * (p - 1) * (p - 2) / 2] >= 0;
}

/* Does entity k carry one of the pattern's rows?  The whole pattern: an
 * unknown; a part's: an unknown of the part. */
static int has_row(const em_pattern *pat, const em_dofmap *d, int32_t k) {
  if (!pat->row) return has_unknown(pat, d, k);
  int p = d->order, ns = p;
  const int32_t *c = d->edge_dof + (size_t)k * p;
  if (k >= pat->cell0) {
    ns = p * (p - 1) * (p - 2) / 2;
    c = d->cell_dof + (size_t)(k - pat->cell0) * ns;
  } else if (k >= pat->face0) {
    ns = p * (p - 1);
    c = d->face_dof + (size_t)(k - pat->face0) * ns;
  }
  for (int s = 0; s < ns; s++)
    if (c[s] >= 0 && pat->row[c[s]] >= 0) return 1;
  return 0;
}

/* Sorted unique unknown codes of k's star into out; mark[] (n_dof, per
 * thread) holds the last entity that saw each code.  Returns the count. */
static int32_t entity_columns(const em_pattern *pat, const em_mesh *m, const em_dofmap *d,
                              int32_t k, int32_t *tets, int32_t *mark, int32_t *out) {
  int nt = star(pat, m, k, tets), nb = em_basis_count(d->order);
  int32_t n = 0, code[EM_NB_MAX];
  for (int a = 0; a < nt; a++) {
    em_dofmap_tet(d, m, tets[a], code);
    for (int i = 0; i < nb; i++)
      if (code[i] >= 0 && mark[code[i]] != k) {
        mark[code[i]] = k;
        out[n++] = code[i];
      }
  }
  em_sort_i32(out, n); /* unique codes: any sort gives the same */
  return n;
}

/* Edge -> tets adjacency (CSR), used for the stars and the colouring. */
static em_err edge_star(const em_mesh *m, em_pattern *pat) {
  EM_TRY(em_calloc(&pat->edge_ptr, (size_t)m->n_edge + 1, sizeof(int32_t), "edge stars"));
  EM_TRY(em_calloc(&pat->edge_tet, 6 * (size_t)m->n_tet, sizeof(int32_t), "edge stars"));
  for (size_t k = 0; k < 6 * (size_t)m->n_tet; k++) pat->edge_ptr[m->tet_edge[k] + 1]++;
  for (int32_t e = 0; e < m->n_edge; e++) pat->edge_ptr[e + 1] += pat->edge_ptr[e];
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int le = 0; le < 6; le++) {
      int32_t e = m->tet_edge[6 * (size_t)t + le];
      pat->edge_tet[pat->edge_ptr[e]++] = t;
    }
  for (int32_t e = m->n_edge; e > 0; e--) pat->edge_ptr[e] = pat->edge_ptr[e - 1];
  pat->edge_ptr[0] = 0;
  return EM_OK;
}

/* A part's rows: row[c] numbers the part's unknowns in ascending order
 * (so by order group), row_dof the inverse, tet_in the tets holding one. */
static em_err part_rows(const em_mesh *m, const em_dofmap *d, const int32_t *owner, int part,
                        em_pattern *pat) {
  EM_TRY(em_calloc(&pat->row, (size_t)d->n_dof + 1, sizeof *pat->row, "part rows"));
  EM_TRY(em_calloc(&pat->tet_in, (size_t)m->n_tet + 1, 1, "part tets"));
  int32_t n = 0, code[EM_NB_MAX];
  for (int g = 0; g < d->order; g++) {
    pat->row_off[g] = n;
    for (int32_t c = d->offset[g]; c < d->offset[g + 1]; c++)
      pat->row[c] = owner[c] == part ? n++ : -1;
  }
  for (int g = d->order; g <= EM_MAX_ORDER; g++) pat->row_off[g] = n;
  pat->n_row = n;
  EM_TRY(em_calloc(&pat->row_dof, (size_t)n + 1, sizeof *pat->row_dof, "part rows"));
  for (int32_t c = 0; c < d->n_dof; c++)
    if (pat->row[c] >= 0) pat->row_dof[pat->row[c]] = c;
  int nb = em_basis_count(d->order);
  pat->n_tet_in = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_dofmap_tet(d, m, t, code);
    for (int i = 0; i < nb && !pat->tet_in[t]; i++)
      pat->tet_in[t] = code[i] >= 0 && owner[code[i]] == part;
    pat->n_tet_in += pat->tet_in[t];
  }
  return EM_OK;
}

/* The pattern of the whole (owner NULL) or of a part. */
static em_err build(const em_mesh *m, const em_dofmap *d, const int32_t *owner, int part,
                    em_pattern **out) {
  EM_CHECK(m && d && out, EM_ERR_ARG, "pattern: NULL argument");
  em_err err = EM_OK;
  em_pattern *pat = NULL;
  int32_t *len = NULL;
  EM_TRY(em_calloc(&pat, 1, sizeof *pat, "pattern"));
  int p = d->order;
  pat->p = p;
  pat->face0 = m->n_edge;
  pat->cell0 = m->n_edge + m->n_face;
  pat->n_ent = pat->cell0 + (p == 3 ? m->n_tet : 0);
  pat->n_row = d->n_dof;
  memcpy(pat->row_off, d->offset, sizeof pat->row_off);
  pat->n_tet_in = m->n_tet;
  if (owner) EM_TRY_GOTO(err, part_rows(m, d, owner, part, pat), fail);
  EM_TRY_GOTO(err, edge_star(m, pat), fail);
  int32_t max_star = 2;
  for (int32_t e = 0; e < m->n_edge; e++)
    if (pat->edge_ptr[e + 1] - pat->edge_ptr[e] > max_star)
      max_star = pat->edge_ptr[e + 1] - pat->edge_ptr[e];
  size_t cap = (size_t)max_star * em_basis_count(p);
  EM_TRY_GOTO(err, em_calloc(&pat->ptr, (size_t)pat->n_ent + 1, sizeof(int64_t), "pattern rows"),
              fail);
  EM_TRY_GOTO(err,
              em_calloc(&pat->gstart, 3 * (size_t)pat->n_ent, sizeof(int32_t), "pattern groups"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&len, (size_t)pat->n_ent, sizeof(int32_t), "pattern lengths"), fail);
  /* pass 0 counts, pass 1 fills: recomputing is cheaper than a second copy */
  for (int pass = 0; pass < 2; pass++) {
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
      int32_t *tets = NULL, *mark = NULL, *buf = NULL;
      failed = em_calloc(&tets, (size_t)max_star, sizeof *tets, "star buffer") ||
               em_calloc(&mark, (size_t)d->n_dof + 1, sizeof *mark, "pattern marks") ||
               em_calloc(&buf, cap, sizeof *buf, "pattern buffer");
      if (!failed) {
        for (int32_t i = 0; i <= d->n_dof; i++) mark[i] = -1;
#pragma omp for schedule(dynamic, 256)
        for (int32_t k = 0; k < pat->n_ent; k++) {
          if (!has_row(pat, d, k)) continue;
          int32_t n = entity_columns(pat, m, d, k, tets, mark, pass ? pat->col + pat->ptr[k] : buf);
          if (!pass) {
            len[k] = n;
            continue;
          }
          const int32_t *c = pat->col + pat->ptr[k];
          for (int g = 0, q = 0; g < 3; g++) {
            while (q < n && g < p && c[q] < d->offset[g]) q++;
            pat->gstart[3 * (size_t)k + g] = g < p ? q : n;
          }
        }
      }
      em_free(&tets);
      em_free(&mark);
      em_free(&buf);
    }
    if (failed) {
      err = EM_RAISE(EM_ERR_MEMORY, "pattern: thread buffers of %zu entries", cap);
      goto fail;
    }
    if (!pass) {
      for (int32_t k = 0; k < pat->n_ent; k++) pat->ptr[k + 1] = pat->ptr[k] + len[k];
      EM_TRY_GOTO(
          err,
          em_calloc(&pat->col, (size_t)pat->ptr[pat->n_ent], sizeof(int32_t), "pattern columns"),
          fail);
    }
  }
  em_free(&len);
  *out = pat;
  return EM_OK;
fail:
  em_free(&len);
  em_pattern_destroy(&pat);
  return err;
}

em_err em_pattern_build(const em_mesh *m, const em_dofmap *d, em_pattern **out) {
  return build(m, d, NULL, 0, out);
}

em_err em_pattern_build_part(const em_mesh *m, const em_dofmap *d, const int32_t *owner, int part,
                             em_pattern **out) {
  EM_CHECK(owner, EM_ERR_ARG, "pattern of a part without the owners");
  return build(m, d, owner, part, out);
}

/* Row l of block (gi, gj): entity k's list cut to group gj (its start in
 * *c, its length returned). */
static int32_t block_row(const em_pattern *pat, int32_t k, int gj, const int32_t **c) {
  const int32_t *gs = pat->gstart + 3 * (size_t)k;
  int32_t end = gj + 1 < 3 ? gs[gj + 1] : (int32_t)(pat->ptr[k + 1] - pat->ptr[k]);
  *c = pat->col + pat->ptr[k] + gs[gj];
  return end - gs[gj];
}

/* Block (gi, gj) (rows r0.. of group gi, lrow[r] their block rows, -1: not
 * the pattern's): the row lengths and the copies in parallel (issue 24:
 * 110M entries at 1M unknowns, ~0.4 s on one thread, twice per run). */
static em_err fill_blockrows(const em_pattern *pat, const int32_t *row_ent, const int32_t *lrow,
                             int32_t r0, int32_t nr, int32_t nl, int gj, int32_t c0, int32_t ncol,
                             em_csr **out) {
  em_csr *B = NULL;
  em_err err = EM_OK;
  EM_TRY(em_csr_create(nl, ncol, 0, &B));
#pragma omp parallel for schedule(static) if (nr > 20000)
  for (int32_t r = 0; r < nr; r++) {
    const int32_t *c;
    if (lrow[r] >= 0) B->rowptr[lrow[r] + 1] = block_row(pat, row_ent[r0 + r], gj, &c);
  }
  for (int32_t l = 0; l < nl; l++) B->rowptr[l + 1] += B->rowptr[l];
  B->nnz = B->rowptr[nl];
  em_free(&B->colind); /* made for 0 entries: now the count is known */
  em_free(&B->val);
  EM_TRY_GOTO(err, em_calloc(&B->colind, (size_t)B->nnz + 1, sizeof *B->colind, "block"), fail);
  EM_TRY_GOTO(err, em_calloc(&B->val, (size_t)B->nnz + 1, sizeof *B->val, "block"), fail);
#pragma omp parallel for schedule(dynamic, 1024) if (nr > 20000)
  for (int32_t r = 0; r < nr; r++) {
    if (lrow[r] < 0) continue;
    const int32_t *c;
    int32_t len = block_row(pat, row_ent[r0 + r], gj, &c);
    int32_t *dst = B->colind + B->rowptr[lrow[r]];
    for (int32_t x = 0; x < len; x++) dst[x] = c[x] - c0;
  }
  *out = B;
  return EM_OK;
fail:
  em_csr_destroy(&B);
  return err;
}

/* Each row copies its entity's list, cut by column group: block (gi, gj)
 * holds the rows of group gi (all its unknowns, or a part's) and the
 * columns of group gj. */
em_err em_pattern_blockmat(const em_pattern *pat, const em_mesh *m, const em_dofmap *d,
                           em_blockmat **out) {
  em_err err = EM_OK;
  em_blockmat *A = NULL;
  int32_t *row_ent = NULL, *lrow = NULL;
  int p = d->order;
  EM_TRY(em_calloc(&row_ent, (size_t)d->n_dof + 1, sizeof *row_ent, "row entities"));
  EM_TRY_GOTO(err, em_calloc(&lrow, (size_t)d->n_dof + 1, sizeof *lrow, "block rows"), done);
  int nf = p * (p - 1), nc = p * (p - 1) * (p - 2) / 2;
  for (int32_t e = 0; e < m->n_edge; e++)
    for (int s = 0; s < p; s++)
      if (d->edge_dof[(size_t)e * p + s] >= 0) row_ent[d->edge_dof[(size_t)e * p + s]] = e;
  for (int32_t f = 0; f < m->n_face; f++)
    for (int s = 0; s < nf; s++)
      if (d->face_dof[(size_t)f * nf + s] >= 0)
        row_ent[d->face_dof[(size_t)f * nf + s]] = pat->face0 + f;
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int s = 0; s < nc; s++)
      if (d->cell_dof[(size_t)t * nc + s] >= 0)
        row_ent[d->cell_dof[(size_t)t * nc + s]] = pat->cell0 + t;
  EM_TRY_GOTO(err, em_calloc(&A, 1, sizeof *A, "block matrix"), done);
  A->nb = p;
  memcpy(A->offset, d->offset, sizeof A->offset);
  for (int gi = 0; gi < p; gi++) {
    int32_t r0 = d->offset[gi], nr = d->offset[gi + 1] - r0;
    int32_t nl = pat->row_off[gi + 1] - pat->row_off[gi]; /* the block's rows */
    for (int32_t r = 0, l = 0; r < nr; r++) lrow[r] = em_pattern_row(pat, r0 + r) < 0 ? -1 : l++;
    for (int gj = 0; gj < p; gj++) {
      int32_t c0 = d->offset[gj], ncol = d->offset[gj + 1] - c0;
      EM_TRY_GOTO(
          err, fill_blockrows(pat, row_ent, lrow, r0, nr, nl, gj, c0, ncol, &A->blk[gi][gj]), done);
    }
  }
  *out = A;
  A = NULL;
done:
  em_blockmat_destroy(&A);
  em_free(&row_ent);
  em_free(&lrow);
  return err;
}

/* Position of code c in entity k's list, within group gj's range
 * (binary search), or -1 when absent. */
int32_t em_pattern_find(const em_pattern *pat, int32_t k, int gj, int32_t c) {
  const int32_t *col = pat->col + pat->ptr[k], *gs = pat->gstart + 3 * (size_t)k;
  int32_t lo = gs[gj],
          hi = (gj + 1 < 3 ? gs[gj + 1] : (int32_t)(pat->ptr[k + 1] - pat->ptr[k])) - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (col[mid] == c) return mid;
    if (col[mid] < c)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* A(r, c) += v: row r's block row is its entity's list cut at group gj. */
em_err em_pattern_add(const em_pattern *pat, em_blockmat *A, int32_t k, int32_t r, int32_t c,
                      em_cplx v) {
  int gi = 0, gj = 0;
  while (gi + 1 < A->nb && r >= A->offset[gi + 1]) gi++;
  while (gj + 1 < A->nb && c >= A->offset[gj + 1]) gj++;
  int32_t pos = em_pattern_find(pat, k, gj, c), row = em_pattern_row(pat, r);
  EM_CHECK(pos >= 0 && row >= 0, EM_ERR_INTERNAL,
           "entry (%d, %d) is not in the pattern of entity %d", r, c, k);
  em_csr *B = A->blk[gi][gj];
  B->val[B->rowptr[row - pat->row_off[gi]] + pos - pat->gstart[3 * (size_t)k + gj]] += v;
  return EM_OK;
}

/* Local entity (0..5 edges, 6..9 faces, 10 cell) of a table entry. */
static int local_entity(const em_basis_fn *fn) {
  return fn->kind == EM_ENT_EDGE ? fn->entity : fn->kind == EM_ENT_FACE ? 6 + fn->entity : 10;
}

void em_tet_slots_make(const em_mesh *m, const em_dofmap *d, const em_pattern *pat, int32_t t,
                       const int32_t *code, em_tet_slots *s) {
  int p = d->elem_order[t], n = em_basis_count(p);
  const em_basis_fn *tab = em_basis_table(p);
  for (int i = 0; i < n; i++) {
    s->le[i] = local_entity(tab + i);
    s->ent[s->le[i]] = em_pattern_entity(pat, m, t, tab + i);
    s->grp[i] = code[i] >= 0 ? em_dof_group(d, code[i]) : -1;
  }
  /* each entity's list against the tet's unknowns sorted by code: one
     merge per entity (the lists ascend) instead of a binary search per
     (entity, unknown), ~1/5 of the assembly's time at order 3 */
  uint64_t key[EM_NB_MAX];
  int nk = 0;
  for (int j = 0; j < n; j++)
    if (code[j] >= 0) key[nk++] = (uint64_t)code[j] << 32 | (uint64_t)j;
  em_sort_u64(key, nk);
  int n_le = p == 1 ? 6 : p == 2 ? 10 : 11;
  for (int e = 0; e < n_le; e++) {
    const int32_t *col = pat->col + pat->ptr[s->ent[e]];
    int32_t len = (int32_t)(pat->ptr[s->ent[e] + 1] - pat->ptr[s->ent[e]]), x = 0;
    for (int j = 0; j < n; j++) s->pos[e][j] = -1;
    for (int q = 0; q < nk; q++) {
      int32_t c = (int32_t)(key[q] >> 32);
      while (x < len && col[x] < c) x++;
      if (x < len && col[x] == c) s->pos[e][key[q] & 0xffffffffu] = x;
    }
  }
}
