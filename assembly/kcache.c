/* kcache.c - the frequency-independent part of the assembly, kept by an
 * em_assembler between passes (a sweep).
 *
 * A tet with a material constant inside it (tet_vary 0) has the element
 * matrix A_e = S_e - k0^2 T_e, S_e and T_e functions of its geometry and of
 * the material at its centroid only (em_element_ref_apply).  Where that
 * material is the same at every k0, so are S_e and T_e: their assembled sums
 * S and T over those tets (on the pattern, plus the unknown x fixed
 * couplings for the Dirichlet lift) are kept, and a pass's matrix is
 * S - k0^2 T plus what the other tets (the PML's) and the Robin terms add.
 *
 * Which materials do not depend on k0 is not declared by em_problem: the
 * material callback's context may carry k0 (em_media does, for the PML
 * stretch; a conductivity or dispersive medium would in every tet).  So the
 * cache keeps each kept tet's centroid material bit for bit, and every pass
 * evaluates it again (one callback per tet): a tet whose value differs, or
 * that the pass marks varying, leaves the cache for good (the cache is
 * rebuilt without it) and is assembled per pass like a PML tet.  The kept
 * sums are thus exactly what the plain assembly computes at that material,
 * up to the rounding of forming S - k0^2 T after the sum instead of per
 * element (a few ulp of |S| + k0^2 |T|).  A part's assembler (a
 * distributed solve's rank, em_assembler_create_part) keeps its rows only,
 * from the tets that hold one. */
#include <string.h>

#include "assembly_impl.h"

struct em_kcache {
  int32_t n_kept;                         /* tets in the cache */
  uint8_t *dyn;                           /* [n_tet] 1: assembled per pass */
  em_material *mat;                       /* [n_tet] the centroid material of the kept tets */
  em_blockmat *S;                         /* the pattern's blocks with the sum of S_e */
  em_cplx *T[EM_MAX_ORDER][EM_MAX_ORDER]; /* the sum of T_e, parallel to S's values */
  int64_t n_lift;                         /* unknown x fixed couplings of kept tets */
  int32_t *lift_row, *lift_fix;           /* row (em_pattern_row), fixed DOF number */
  em_cplx *lift_s, *lift_t;
  int32_t *dptr, *dtet; /* the per-pass tets by colour */
  double mib;           /* memory held */
};

void em_kcache_destroy(em_kcache **cp) {
  em_kcache *c = *cp;
  if (!c) return;
  em_free(&c->dyn);
  em_free(&c->mat);
  if (c->S)
    for (int i = 0; i < c->S->nb; i++)
      for (int j = 0; j < c->S->nb; j++) em_free(&c->T[i][j]);
  em_blockmat_destroy(&c->S);
  em_free(&c->lift_row);
  em_free(&c->lift_fix);
  em_free(&c->lift_s);
  em_free(&c->lift_t);
  em_free(&c->dptr);
  em_free(&c->dtet);
  em_free(cp);
}

/* Centroid, as element() in assemble.c computes it (the same bits). */
static void centroid(const em_tet_geom *g, double xc[3]) {
  xc[0] = xc[1] = xc[2] = 0;
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) xc[d] += 0.25 * g->x[a][d];
}

/* Packed upper-triangle index of (i, j). */
static int64_t packed(int n, int i, int j) {
  if (i > j) {
    int k = i;
    i = j;
    j = k;
  }
  return (int64_t)i * n - (int64_t)i * (i - 1) / 2 + (j - i);
}

/* Add the packed S_e and T_e of tet t to S's values and T (the pattern's
 * rows x unknowns), as assemble.c's scatter places A_e. */
static void scatter2(const em_mesh *m, const em_dofmap *d, const em_pattern *pat, int32_t t,
                     const int32_t *code, const em_cplx *Se, const em_cplx *Te, em_kcache *c) {
  int n = em_basis_count(d->elem_order[t]);
  em_tet_slots sl;
  em_tet_slots_make(m, d, pat, t, code, &sl);
  const int32_t *ent = sl.ent, *le = sl.le;
  const int *grp = sl.grp;
  int32_t(*pos)[EM_NB_MAX] = sl.pos;
  for (int i = 0; i < n; i++) {
    if (code[i] < 0) continue;
    int32_t row = em_pattern_row(pat, code[i]);
    if (row < 0) continue; /* another part's */
    int gi = grp[i];
    const int32_t *gs = pat->gstart + 3 * (size_t)ent[le[i]];
    row -= pat->row_off[gi];
    for (int j = 0; j < n; j++) {
      if (code[j] < 0) continue;
      int gj = grp[j];
      int64_t q = c->S->blk[gi][gj]->rowptr[row] - gs[gj] + pos[le[i]][j];
      int64_t k = packed(n, i, j);
      c->S->blk[gi][gj]->val[q] += Se[k];
      c->T[gi][gj][q] += Te[k];
    }
  }
}

/* Geometry and split element matrices of kept tet t at its stored material. */
static em_err split(const em_mesh *m, const em_element_ref *ref, const em_kcache *c, int32_t t,
                    em_cplx *Se, em_cplx *Te) {
  em_tet_geom g;
  em_tet_geom_make(m, t, &g);
  EM_CHECK(g.vol > 0, EM_ERR_INPUT, "tet %d is degenerate (zero volume)", t);
  em_element_ref_split(ref, &g, &c->mat[t], Se, Te);
  return EM_OK;
}

/* The couplings of kept tets to fixed DOFs, for the lift -A_uf E_f (the
 * pattern's rows). */
static em_err build_lift(const em_mesh *m, const em_dofmap *d, const em_pattern *pat,
                         em_element_ref *const *ref, em_kcache *c) {
  int32_t code[EM_NB_MAX];
  em_cplx *Se = NULL, *Te = NULL;
  em_err err = EM_OK;
  if (!d->n_fixed) return EM_OK;
  EM_TRY(em_calloc(&Se, (size_t)ref[d->order]->npack, sizeof *Se, "element matrix"));
  EM_TRY_GOTO(err, em_calloc(&Te, (size_t)ref[d->order]->npack, sizeof *Te, "element matrix"),
              done);
  for (int pass = 0; pass < 2; pass++) {
    int64_t k = 0;
    for (int32_t t = 0; t < m->n_tet; t++) {
      if (c->dyn[t]) continue;
      int q = em_dofmap_tet(d, m, t, code), n = em_basis_count(q), nu = 0, nf = 0;
      for (int i = 0; i < n; i++)
        nu += code[i] >= 0 && em_pattern_row(pat, code[i]) >= 0, nf += em_dof_fixed(code[i]);
      if (!nu || !nf) continue;
      if (pass == 0) {
        k += (int64_t)nu * nf;
        continue;
      }
      EM_TRY_GOTO(err, split(m, ref[q], c, t, Se, Te), done);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          if (code[i] < 0 || !em_dof_fixed(code[j]) || em_pattern_row(pat, code[i]) < 0) continue;
          c->lift_row[k] = em_pattern_row(pat, code[i]);
          c->lift_fix[k] = -code[j] - 1;
          c->lift_s[k] = Se[packed(n, i, j)];
          c->lift_t[k] = Te[packed(n, i, j)];
          k++;
        }
    }
    if (pass == 0) {
      c->n_lift = k;
      EM_TRY_GOTO(err, em_calloc(&c->lift_row, (size_t)k + 1, sizeof(int32_t), "lift"), done);
      EM_TRY_GOTO(err, em_calloc(&c->lift_fix, (size_t)k + 1, sizeof(int32_t), "lift"), done);
      EM_TRY_GOTO(err, em_calloc(&c->lift_s, (size_t)k + 1, sizeof(em_cplx), "lift"), done);
      EM_TRY_GOTO(err, em_calloc(&c->lift_t, (size_t)k + 1, sizeof(em_cplx), "lift"), done);
    }
  }
done:
  em_free(&Se);
  em_free(&Te);
  return err;
}

/* The per-pass tets by colour (the colour lists restricted to dyn). */
static em_err build_dyn_lists(const em_mesh *m, int n_colour, const int32_t *cptr,
                              const int32_t *ctet, em_kcache *c) {
  EM_TRY(em_calloc(&c->dptr, (size_t)n_colour + 1, sizeof *c->dptr, "colour lists"));
  EM_TRY(em_calloc(&c->dtet, (size_t)m->n_tet - c->n_kept + 1, sizeof *c->dtet, "colour lists"));
  int32_t q = 0;
  for (int col = 0; col < n_colour; col++) {
    for (int32_t k = cptr[col]; k < cptr[col + 1]; k++)
      if (c->dyn[ctet[k]]) c->dtet[q++] = ctet[k];
    c->dptr[col + 1] = q;
  }
  return EM_OK;
}

em_err em_kcache_build(const em_mesh *m, const em_dofmap *d, const em_pattern *pat,
                       em_element_ref *const *ref, int n_colour, const int32_t *cptr,
                       const int32_t *ctet, const em_problem *prob, const uint8_t *evicted,
                       em_kcache **out) {
  *out = NULL;
  em_err err = EM_OK;
  em_kcache *c = NULL;
  EM_TRY(em_calloc(&c, 1, sizeof *c, "assembly cache"));
  EM_TRY_GOTO(err, em_calloc(&c->dyn, (size_t)m->n_tet, 1, "assembly cache"), fail);
  EM_TRY_GOTO(err, em_calloc(&c->mat, (size_t)m->n_tet, sizeof *c->mat, "assembly cache"), fail);
  for (int32_t t = 0; t < m->n_tet; t++) {
    if (pat->tet_in && !pat->tet_in[t]) { /* another part's: neither kept nor assembled */
      c->dyn[t] = 1;
      continue;
    }
    /* a curved tet's matrices come by quadrature at every pass (element()),
       never from the straight reference tensors */
    int curved = 0;
    if (m->edge_mid) {
      em_tet_geom g;
      em_tet_geom_make(m, t, &g);
      curved = g.curved;
    }
    c->dyn[t] = (prob->tet_vary && prob->tet_vary[t]) || (evicted && evicted[t]) || curved;
    c->n_kept += !c->dyn[t];
  }
  EM_TRY_GOTO(err, em_pattern_blockmat(pat, m, d, &c->S), fail);
  /* the cache saves the frequency-independent work of later passes; it is
     not worth the run: beyond a third of the host's available memory (the
     pass itself still needs the assembled matrix, the operator, the
     preconditioner) it is not kept (a 20M-unknown order-3 DRA wanted 94 GiB
     of a 128 GiB host and was killed) */
  double est = 0, avail = em_host_mem_available();
  for (int i = 0; i < c->S->nb; i++)
    for (int j = 0; j < c->S->nb; j++)
      est += (double)c->S->blk[i][j]->nnz * (2 * sizeof(em_cplx) + sizeof(int32_t));
  if (avail > 0 && est > avail / 3) {
    err = EM_RAISE(EM_ERR_MEMORY,
                   "assembly cache: %.1f GiB would take more than a third of the %.1f GiB of host "
                   "memory available",
                   est / (1 << 30), avail / (1 << 30));
    goto fail;
  }
  double bytes = (double)m->n_tet * (sizeof *c->mat + 1);
  for (int i = 0; i < c->S->nb; i++)
    for (int j = 0; j < c->S->nb; j++) {
      const em_csr *B = c->S->blk[i][j];
      EM_TRY_GOTO(err, em_calloc(&c->T[i][j], (size_t)B->nnz + 1, sizeof(em_cplx), "cache T"),
                  fail);
      bytes += (double)B->nnz * (2 * sizeof(em_cplx) + sizeof(int32_t)) +
               (B->n_rows + 1.0) * sizeof(int64_t);
    }
  /* the kept tets' sums, colour by colour (no two tets of a colour share a
     DOF; the order of the sums does not depend on the threads) */
  int32_t bad = -1;
  for (int col = 0; col < n_colour && bad < 0; col++) {
#pragma omp parallel
    {
      em_cplx Se[EM_NB_MAX * (EM_NB_MAX + 1) / 2], Te[EM_NB_MAX * (EM_NB_MAX + 1) / 2];
      int32_t code[EM_NB_MAX];
#pragma omp for schedule(dynamic, 64)
      for (int32_t k = cptr[col]; k < cptr[col + 1]; k++) {
        int32_t t = ctet[k];
        if (c->dyn[t]) continue;
        em_tet_geom g;
        em_tet_geom_make(m, t, &g);
        double xc[3];
        centroid(&g, xc);
        if (!(g.vol > 0) || prob->material(prob->material_ctx, t, xc, &c->mat[t]) ||
            em_material_check(&c->mat[t], t)) {
#pragma omp critical(em_kcache_bad)
          if (bad < 0 || t < bad) bad = t;
          continue;
        }
        int q = em_dofmap_tet(d, m, t, code);
        em_element_ref_split(ref[q], &g, &c->mat[t], Se, Te);
        scatter2(m, d, pat, t, code, Se, Te, c);
      }
    }
  }
  if (bad >= 0) {
    /* the plain pass reports the tet's error with its message */
    err = EM_RAISE(EM_ERR_INPUT, "assembly cache: tet %d has no valid material", bad);
    goto fail;
  }
  EM_TRY_GOTO(err, build_lift(m, d, pat, ref, c), fail);
  EM_TRY_GOTO(err, build_dyn_lists(m, n_colour, cptr, ctet, c), fail);
  bytes += (double)c->n_lift * (2 * sizeof(int32_t) + 2 * sizeof(em_cplx));
  c->mib = bytes / (1024.0 * 1024.0);
  *out = c;
  return EM_OK;
fail:
  em_kcache_destroy(&c);
  return err;
}

int32_t em_kcache_kept(const em_kcache *c) {
  return c ? c->n_kept : 0;
}

double em_kcache_mib(const em_kcache *c) {
  return c ? c->mib : 0;
}

const uint8_t *em_kcache_dynamic(const em_kcache *c, const int32_t **dptr, const int32_t **dtet) {
  *dptr = c->dptr;
  *dtet = c->dtet;
  return c->dyn;
}

em_err em_kcache_check(const em_kcache *c, const em_mesh *m, const em_problem *prob,
                       uint8_t *changed, int32_t *n_changed) {
  int32_t nc = 0;
#pragma omp parallel for schedule(static) reduction(+ : nc)
  for (int32_t t = 0; t < m->n_tet; t++) {
    changed[t] = 0;
    if (c->dyn[t]) continue;
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    double xc[3];
    centroid(&g, xc);
    em_material mat;
    memset(&mat, 0, sizeof mat);
    /* a callback error or a different value: the tet leaves the cache (the
       plain pass then reports the error) */
    int same = !(prob->tet_vary && prob->tet_vary[t]) &&
               !prob->material(prob->material_ctx, t, xc, &mat) &&
               !memcmp(&mat, &c->mat[t], sizeof mat);
    if (!same) changed[t] = 1, nc++;
  }
  *n_changed = nc;
  return EM_OK;
}

em_err em_kcache_matrix(const em_kcache *c, double k0, em_blockmat **out) {
  *out = NULL;
  em_err err = EM_OK;
  em_blockmat *A = NULL;
  double k2 = k0 * k0;
  EM_TRY(em_calloc(&A, 1, sizeof *A, "block matrix"));
  A->nb = c->S->nb;
  memcpy(A->offset, c->S->offset, sizeof A->offset);
  for (int i = 0; i < A->nb; i++)
    for (int j = 0; j < A->nb; j++) {
      const em_csr *B = c->S->blk[i][j];
      EM_TRY_GOTO(err, em_csr_create(B->n_rows, B->n_cols, B->nnz, &A->blk[i][j]), fail);
      em_csr *C = A->blk[i][j];
      const em_cplx *S = B->val, *T = c->T[i][j];
      memcpy(C->rowptr, B->rowptr, ((size_t)B->n_rows + 1) * sizeof *C->rowptr);
#pragma omp parallel for schedule(static)
      for (int64_t q = 0; q < B->nnz; q++) {
        C->colind[q] = B->colind[q];
        C->val[q] = S[q] - k2 * T[q];
      }
    }
  *out = A;
  return EM_OK;
fail:
  em_blockmat_destroy(&A);
  return err;
}

void em_kcache_lift(const em_kcache *c, double k0, const em_cplx *fixed, int n_rhs, int32_t n_row,
                    em_cplx *b) {
  double k2 = k0 * k0;
  for (int64_t e = 0; e < c->n_lift; e++) {
    em_cplx f = fixed[c->lift_fix[e]];
    if (f == 0) continue;
    em_cplx v = (c->lift_s[e] - k2 * c->lift_t[e]) * f;
    for (int col = 0; col < n_rhs; col++) b[(size_t)col * n_row + c->lift_row[e]] -= v;
  }
}
