/* DOF map and assembled system on jittered box meshes, orders 1..3:
 * group offsets and sizes, every code used exactly once, fixed DOFs exactly
 * those on fixed faces (and their edges), fixed_group; the assembled matrix
 * against a plain triplet assembly of em_element_matrices (quadrature path,
 * a different code path from the reference-tensor one the assembly uses),
 * exact symmetry A == A^T, CSR structure, and argument errors. */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"

typedef struct mat_ctx {
  double x_split; /* material 2 beyond this x */
} mat_ctx;

static em_err material(void *ctx, int32_t t, const double x[3], em_material *m) {
  const mat_ctx *c = ctx;
  (void)t;
  int two = x[0] > c->x_split;
  m->eps[0] = two ? 2.0 - 0.1 * I : 1.0;
  m->eps[1] = two ? 3.0 : 1.5 + 0.2 * I;
  m->eps[2] = 1.5 + 0.3 * x[1]; /* varies inside a tet: exercised by tet_vary */
  m->nu[0] = 1.0;
  m->nu[1] = two ? 0.5 : 0.8 - 0.05 * I;
  m->nu[2] = 2.0;
  return EM_OK;
}

static em_err bad_material(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx;
  (void)x;
  if (t == 5) return EM_RAISE(EM_ERR_INPUT, "test material refuses tet %d", t);
  for (int d = 0; d < 3; d++) m->eps[d] = m->nu[d] = 1;
  return EM_OK;
}

static em_err field(void *ctx, const double x[3], em_cplx v[3]) {
  (void)ctx;
  v[0] = sin(x[1]) + I * x[2];
  v[1] = cos(x[0] * x[2]);
  v[2] = x[0] * x[1] - 0.5 * I;
  return EM_OK;
}

static void check_dofmap(const em_mesh *m, const em_dofmap *d, const uint8_t *face_fixed) {
  int p = d->order, nf = p * (p - 1), nc = p * (p - 1) * (p - 2) / 2;
  uint8_t *edge_fixed = calloc((size_t)m->n_edge, 1);
  int32_t n_fe = 0, n_ff = 0;
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int lf = 0; lf < 4; lf++)
      if (face_fixed && face_fixed[m->tet_face[4 * t + lf]])
        for (int le = 0; le < 6; le++)
          if (EM_TET_EDGE[le][0] != lf && EM_TET_EDGE[le][1] != lf)
            edge_fixed[m->tet_edge[6 * t + le]] = 1;
  for (int32_t e = 0; e < m->n_edge; e++) n_fe += edge_fixed[e];
  for (int32_t f = 0; f < m->n_face; f++) n_ff += face_fixed && face_fixed[f];
  int32_t ue = m->n_edge - n_fe, uf = m->n_face - n_ff;
  int32_t want[3] = {ue, ue + 2 * uf, ue + 4 * uf + 3 * m->n_tet};
  EXPECT(d->offset[0] == 0, "offset[0] = %d", d->offset[0]);
  for (int g = 1; g <= p; g++)
    EXPECT(d->offset[g] - d->offset[g - 1] == want[g - 1], "p=%d group %d has %d DOFs, expected %d",
           p, g, d->offset[g] - d->offset[g - 1], want[g - 1]);
  EXPECT(d->offset[p] == d->n_dof, "offset[p] %d != n_dof %d", d->offset[p], d->n_dof);
  EXPECT(d->n_fixed == p * n_fe + nf * n_ff, "p=%d: %d fixed DOFs, expected %d", p, d->n_fixed,
         p * n_fe + nf * n_ff);
  int *used = calloc((size_t)d->n_dof + 1, sizeof *used),
      *fused = calloc((size_t)d->n_fixed + 1, sizeof *fused);
  /* slot -> group, and fixed iff on a fixed entity */
  for (int32_t e = 0; e < m->n_edge; e++)
    for (int s = 0; s < p; s++) {
      int32_t c = d->edge_dof[e * p + s];
      EXPECT((c < 0) == edge_fixed[e], "edge %d slot %d code %d, fixed %d", e, s, c, edge_fixed[e]);
      if (c >= 0) {
        EXPECT(c >= d->offset[s] && c < d->offset[s + 1], "edge %d slot %d code %d not in group %d",
               e, s, c, s + 1);
        if (c < d->n_dof) used[c]++;
      } else if (-c - 1 < d->n_fixed) {
        fused[-c - 1]++;
        EXPECT(d->fixed_group[-c - 1] == s + 1, "fixed edge DOF group %d", d->fixed_group[-c - 1]);
      }
    }
  for (int32_t f = 0; f < m->n_face; f++)
    for (int s = 0; s < nf; s++) {
      int32_t c = d->face_dof[f * nf + s];
      int g = s < 2 ? 2 : 3, fx = face_fixed && face_fixed[f];
      EXPECT((c < 0) == fx, "face %d slot %d code %d, fixed %d", f, s, c, fx);
      if (c >= 0) {
        EXPECT(c >= d->offset[g - 1] && c < d->offset[g], "face %d slot %d not in group %d", f, s,
               g);
        if (c < d->n_dof) used[c]++;
      } else if (-c - 1 < d->n_fixed) {
        fused[-c - 1]++;
        EXPECT(d->fixed_group[-c - 1] == g, "fixed face DOF group %d", d->fixed_group[-c - 1]);
      }
    }
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int s = 0; s < nc; s++) {
      int32_t c = d->cell_dof[t * nc + s];
      EXPECT(c >= d->offset[2] && c < d->offset[3], "cell %d slot %d code %d", t, s, c);
      if (c >= 0 && c < d->n_dof) used[c]++;
    }
  for (int32_t c = 0; c < d->n_dof; c++)
    EXPECT(used[c] == 1, "unknown %d used %d times", c, used[c]);
  for (int32_t c = 0; c < d->n_fixed; c++)
    EXPECT(fused[c] == 1, "fixed %d used %d times", c, fused[c]);
  /* em_dofmap_tet agrees with the tables */
  const em_basis_fn *tab = em_basis_table(p);
  for (int32_t t = 0; t < m->n_tet; t++) {
    int32_t code[45];
    em_dofmap_tet(d, m, t, code);
    for (int i = 0; i < em_basis_count(p); i++) {
      int32_t want_c = tab[i].kind == EM_ENT_EDGE
                           ? d->edge_dof[m->tet_edge[6 * t + tab[i].entity] * p + tab[i].slot]
                       : tab[i].kind == EM_ENT_FACE
                           ? d->face_dof[m->tet_face[4 * t + tab[i].entity] * nf + tab[i].slot]
                           : d->cell_dof[t * nc + tab[i].slot];
      EXPECT(code[i] == want_c, "tet %d fn %d", t, i);
    }
  }
  free(used);
  free(fused);
  free(edge_fixed);
}

/* Triplet reference of A = S - k0^2 T (unknown x unknown) from the
 * quadrature path, and of b = -A_uf fixed. */
static em_csr *reference(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                         const em_cplx *fixed, em_cplx *b) {
  int n = em_basis_count(d->order);
  int64_t cap = (int64_t)m->n_tet * n * n, k = 0;
  int32_t *ti = malloc(cap * sizeof *ti), *tj = malloc(cap * sizeof *tj);
  em_cplx *tv = malloc(cap * sizeof *tv), *S = malloc(n * n * sizeof *S),
          *T = malloc(n * n * sizeof *T);
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_tet_geom g;
    int32_t code[45];
    em_tet_geom_make(m, t, &g);
    em_dofmap_tet(d, m, t, code);
    int vary = prob->tet_vary && prob->tet_vary[t];
    REQUIRE_OK(
        em_element_matrices(d->order, &g, prob->material, prob->material_ctx, t, vary, S, T));
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        em_cplx a = S[i * n + j] - prob->k0 * prob->k0 * T[i * n + j];
        if (code[i] < 0) continue;
        if (code[j] >= 0) {
          ti[k] = code[i];
          tj[k] = code[j];
          tv[k++] = a;
        } else {
          b[code[i]] -= a * fixed[-code[j] - 1];
        }
      }
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(d->n_dof, d->n_dof, k, ti, tj, tv, &A));
  free(ti);
  free(tj);
  free(tv);
  free(S);
  free(T);
  return A;
}

static void check_system(const em_mesh *m, int p, const uint8_t *face_fixed, int dirichlet) {
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, face_fixed, &d));
  check_dofmap(m, d, face_fixed);
  mat_ctx mc = {0.5};
  uint8_t *vary = calloc((size_t)(uint32_t)m->n_tet + 1, 1);
  for (int32_t t = 0; t < m->n_tet; t += 3) vary[t] = 1;
  em_problem prob = {.k0 = 2.5,
                     .material = material,
                     .material_ctx = &mc,
                     .tet_vary = vary,
                     .dirichlet = dirichlet ? field : NULL,
                     .n_rhs = 2};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  EXPECT(sys->A->nb == p, "nb %d", sys->A->nb);
  for (int i = 0; i < p; i++)
    for (int j = 0; j < p; j++) EXPECT_OK(em_csr_check(sys->A->blk[i][j], "assembled block"));
  em_csr *A = NULL, *At = NULL;
  REQUIRE_OK(em_blockmat_to_csr(sys->A, &A));
  /* exact symmetry: the transpose by triplets is compared bitwise */
  {
    int32_t *ti = malloc(A->nnz * sizeof *ti), *tj = malloc(A->nnz * sizeof *tj);
    for (int32_t r = 0; r < A->n_rows; r++)
      for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
        ti[k] = A->colind[k];
        tj[k] = r;
      }
    REQUIRE_OK(em_csr_from_triplets(A->n_rows, A->n_cols, A->nnz, ti, tj, A->val, &At));
    int same = At->nnz == A->nnz &&
               !memcmp(At->rowptr, A->rowptr, (A->n_rows + 1) * sizeof *A->rowptr) &&
               !memcmp(At->colind, A->colind, A->nnz * sizeof *A->colind) &&
               !memcmp(At->val, A->val, A->nnz * sizeof *A->val);
    EXPECT(same, "p=%d: assembled matrix is not exactly symmetric", p);
    free(ti);
    free(tj);
  }
  em_cplx *bref = calloc((size_t)d->n_dof + 1, sizeof *bref);
  em_csr *R = reference(m, d, &prob, sys->fixed, bref);
  EXPECT(R->nnz <= A->nnz, "reference has %lld entries, assembled %lld", (long long)R->nnz,
         (long long)A->nnz);
  double amax = 0, dmax = 0;
  for (int32_t r = 0; r < A->n_rows; r++) {
    int64_t q = A->rowptr[r];
    for (int64_t k = R->rowptr[r]; k < R->rowptr[r + 1]; k++) {
      while (q < A->rowptr[r + 1] && A->colind[q] < R->colind[k]) q++;
      int found = q < A->rowptr[r + 1] && A->colind[q] == R->colind[k];
      EXPECT(found, "p=%d: entry (%d, %d) missing from the pattern", p, r, R->colind[k]);
      if (found) dmax = fmax(dmax, cabs(A->val[q] - R->val[k]));
      amax = fmax(amax, cabs(R->val[k]));
    }
  }
  EXPECT(dmax <= 1e-12 * amax, "p=%d: assembled vs reference differ by %g (scale %g)", p, dmax,
         amax);
  double bmax = 0, bd = 0;
  for (int32_t i = 0; i < d->n_dof; i++) {
    bmax = fmax(bmax, cabs(bref[i]));
    for (int c = 0; c < 2; c++) bd = fmax(bd, cabs(sys->b[(size_t)c * d->n_dof + i] - bref[i]));
  }
  EXPECT(bd <= 1e-12 * fmax(bmax, 1e-300), "p=%d: Dirichlet lift differs by %g (scale %g)", p, bd,
         bmax);
  if (dirichlet) EXPECT(bmax > 0, "p=%d: Dirichlet data gave no lift", p);
  printf(
      "p=%d: %d unknowns, %d fixed, nnz %lld; |A - A_ref| = %.2e of %.2e, |b - b_ref| = %.2e of "
      "%.2e\n",
      p, d->n_dof, d->n_fixed, (long long)A->nnz, dmax, amax, bd, bmax);
  em_csr_destroy(&A);
  em_csr_destroy(&At);
  em_csr_destroy(&R);
  free(bref);
  free(vary);
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
}

static void check_errors(const em_mesh *m) {
  em_dofmap *d = NULL;
  EXPECT_ERR(em_dofmap_build(m, 4, NULL, &d), EM_ERR_INPUT);
  EXPECT(d == NULL, "no dofmap on error");
  REQUIRE_OK(em_dofmap_build(m, 2, NULL, &d));
  em_system *sys = NULL;
  /* the basis order is the DOF map's alone: no problem can disagree with it */
  em_problem prob = {.k0 = 1, .material = bad_material, .n_rhs = 0};
  EXPECT_ERR(em_assemble(m, d, &prob, NULL, &sys), EM_ERR_ARG);
  prob.n_rhs = 1;
  prob.k0 = NAN;
  EXPECT_ERR(em_assemble(m, d, &prob, NULL, &sys), EM_ERR_INPUT);
  prob.k0 = 1;
  em_robin rb = {.group = 0, .gamma = 1}; /* group 0 is the volume */
  prob.n_robin = 1;
  prob.robin = &rb;
  EXPECT_ERR(em_assemble(m, d, &prob, NULL, &sys), EM_ERR_INPUT);
  prob.n_robin = 0;
  /* a failing material callback in a worker thread: its message reaches us */
  em_err e = em_assemble(m, d, &prob, NULL, &sys);
  EXPECT(e == EM_ERR_INPUT && strstr(em_error_message(), "refuses tet 5"),
         "material error lost: %s / '%s'", em_err_name(e), em_error_message());
  em_error_clear();
  EXPECT(sys == NULL, "no system on error");
  em_dofmap_destroy(&d);
}

/* Awkward sizes: one tet with every face fixed has no unknown at p = 1
 * (0 x 0 system) and only its cell DOFs at p = 3. */
static void check_tiny(void) {
  double xyz[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  int32_t tet[4] = {0, 1, 2, 3}, grp = 0;
  em_group gr = {"v", 1, 3};
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_from_tets(4, xyz, 1, tet, &grp, 0, NULL, NULL, 1, &gr, 0, &m));
  uint8_t ff[4] = {1, 1, 1, 1};
  mat_ctx mc = {0.5};
  for (int p = 1; p <= 3; p++) {
    em_dofmap *d = NULL;
    REQUIRE_OK(em_dofmap_build(m, p, ff, &d));
    EXPECT(d->n_dof == (p == 3 ? 3 : 0), "p=%d: %d unknowns on a fully fixed tet", p, d->n_dof);
    EXPECT(d->n_fixed == 6 * p + 4 * p * (p - 1), "p=%d: %d fixed", p, d->n_fixed);
    em_problem prob = {.k0 = 1,
                       .material = material,
                       .material_ctx = &mc,
                       .dirichlet = field,
                       .source = field,
                       .n_rhs = 1};
    em_system *sys = NULL;
    REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
    for (int i = 0; i < p; i++)
      for (int j = 0; j < p; j++) {
        const em_csr *B = sys->A->blk[i][j];
        int wr = i == 2 ? 3 : 0, wc = j == 2 ? 3 : 0;
        EXPECT(B->n_rows == wr && B->n_cols == wc, "p=%d block %d%d is %d x %d", p, i, j, B->n_rows,
               B->n_cols);
        EXPECT_OK(em_csr_check(B, "tiny block"));
      }
    int nonzero = 0;
    for (int32_t k = 0; k < d->n_fixed; k++) nonzero += cabs(sys->fixed[k]) > 0;
    EXPECT(nonzero > 0, "p=%d: Dirichlet values all zero", p);
    em_system_destroy(&sys);
    em_dofmap_destroy(&d);
  }
  em_mesh_destroy(&m);
}

int main(void) {
  check_tiny();
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(2, 2, 3, 1.0, 0.8, 1.2, 0.2, 3, &m));
  uint8_t *ff = calloc((size_t)m->n_face, 1);
  int xmin = em_mesh_group_find(m, "xmin", 2), ymax = em_mesh_group_find(m, "ymax", 2);
  for (int32_t k = 0; k < m->n_tri; k++)
    if (m->tri_group[k] == xmin || m->tri_group[k] == ymax) ff[m->tri_face[k]] = 1;
  for (int p = 1; p <= 3; p++) {
    check_system(m, p, NULL, 0);
    check_system(m, p, ff, 0);
    check_system(m, p, ff, 1);
  }
  check_errors(m);
  free(ff);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
