/* Order per element (em_dofmap_build_orders) on jittered box meshes, with
 * orders by slab (regions: x < 1/3 order 3, then 2, then 1) and at random
 * per tet:
 * (1) counts: every edge / face carries the slots of the highest order of
 *     the tets around it, every cell its tet's, computed here from the
 *     mesh alone; unknowns + fixed DOFs equal that sum, the groups too;
 * (2) conformity: a random field has the same tangential trace from both
 *     tets of every interior face (1e-12 relative) - a face seen at
 *     different orders from its two sides would jump;
 * (3) the kernel: S g = 0 for g the gradient of a random continuous
 *     piecewise polynomial of the variable-order H1 space (vertex values,
 *     edge bubbles up to the edge's order, the face bubble where the face
 *     has order 3), T g != 0 (control); and the null space of S (dense
 *     dsyev, small mesh) has exactly that space's dimension minus one:
 *     V - 1 + sum_e (q_e - 1) + #{faces of order 3}, i.e. no spurious
 *     curl-free fields and none missing. */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"

extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *w, double *work, const int *lwork, int *info);

static em_err unit_material(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx;
  (void)t;
  for (int d = 0; d < 3; d++) {
    m->eps[d] = 1.0 + 0.5 * d + 0.1 * x[d];
    m->nu[d] = 1.0 + 0.25 * d;
  }
  return EM_OK;
}

static em_csr *assemble(const em_mesh *m, const em_dofmap *d, double k0) {
  em_problem prob = {.k0 = k0, .material = unit_material, .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(sys->A, &A));
  em_system_destroy(&sys);
  return A;
}

/* Tet orders: kind 0 by slab of the centroid's x, kind 1 at random. */
static int8_t *orders(const em_mesh *m, int kind, unsigned long long *s) {
  int8_t *o = calloc((size_t)m->n_tet, 1);
  for (int32_t t = 0; t < m->n_tet; t++) {
    double x = 0;
    for (int a = 0; a < 4; a++) x += 0.25 * m->xyz[3 * m->tet[4 * t + a]];
    o[t] = (int8_t)(kind          ? 1 + (int)(3 * em_test_rand(s)) % 3
                    : x < 1.0 / 3 ? 3
                    : x < 2.0 / 3 ? 2
                                  : 1);
  }
  return o;
}

/* (1) the counts from the mesh alone */
static void counts(const em_mesh *m, const int8_t *o, const uint8_t *ff, const em_dofmap *d) {
  int32_t *qe = calloc((size_t)m->n_edge, sizeof *qe), *qf = calloc((size_t)m->n_face, sizeof *qf);
  long long grp[3] = {0, 0, 0};
  for (int32_t t = 0; t < m->n_tet; t++) {
    for (int k = 0; k < 6; k++) qe[m->tet_edge[6 * t + k]] = fmax(qe[m->tet_edge[6 * t + k]], o[t]);
    for (int k = 0; k < 4; k++) qf[m->tet_face[4 * t + k]] = fmax(qf[m->tet_face[4 * t + k]], o[t]);
    grp[2] += o[t] == 3 ? 3 : 0;
  }
  for (int32_t e = 0; e < m->n_edge; e++)
    for (int g = 0; g < qe[e]; g++) grp[g]++;
  for (int32_t f = 0; f < m->n_face; f++)
    grp[1] += qf[f] >= 2 ? 2 : 0, grp[2] += qf[f] == 3 ? 4 : 0;
  long long fixed[3] = {0, 0, 0}; /* by group, from the map's fixed_group */
  for (int32_t k = 0; k < d->n_fixed; k++) fixed[d->fixed_group[k] - 1]++;
  for (int g = 0; g < 3; g++) {
    long long got = (g < d->order ? d->offset[g + 1] - d->offset[g] : 0) + fixed[g];
    EXPECT(got == grp[g], "group %d: %lld unknowns + fixed, the mesh says %lld", g + 1, got,
           grp[g]);
  }
  (void)ff;
  free(qe);
  free(qf);
}

/* (2) tangential continuity across interior faces; returns the worst */
static double conform(const em_mesh *m, const em_dofmap *d, unsigned long long *s) {
  em_cplx *x = calloc((size_t)d->n_dof + 1, sizeof *x);
  for (int32_t i = 0; i < d->n_dof; i++) x[i] = (2 * em_test_rand(s) - 1) + I * em_test_rand(s);
  double worst = 0, max_n = 0;
  for (int32_t f = 0; f < m->n_face; f++) {
    int32_t t[2] = {m->face_tet[2 * f], m->face_tet[2 * f + 1]};
    if (t[1] < 0) continue;
    double mu[3], sum = 0, nrm[3];
    for (int k = 0; k < 3; k++) sum += mu[k] = 0.02 + em_test_rand(s);
    em_cplx E[2][3];
    for (int side = 0; side < 2; side++) {
      int lf = 0;
      while (m->tet_face[4 * t[side] + lf] != f) lf++;
      double lam[4] = {0, 0, 0, 0};
      for (int k = 0; k < 3; k++) lam[EM_TET_FACE[lf][k]] = mu[k] / sum;
      em_field_eval(m, d, x, NULL, t[side], lam, E[side], NULL);
      if (!side) {
        em_tet_geom g;
        em_tet_geom_make(m, t[0], &g);
        double gn = sqrt(g.grad[lf][0] * g.grad[lf][0] + g.grad[lf][1] * g.grad[lf][1] +
                         g.grad[lf][2] * g.grad[lf][2]);
        for (int c = 0; c < 3; c++) nrm[c] = g.grad[lf][c] / gn;
      }
    }
    em_cplx jn = 0;
    double scale = 0, jt = 0;
    for (int c = 0; c < 3; c++)
      jn += nrm[c] * (E[0][c] - E[1][c]), scale = fmax(scale, cabs(E[0][c]));
    for (int c = 0; c < 3; c++) jt = fmax(jt, cabs(E[0][c] - E[1][c] - jn * nrm[c]));
    worst = fmax(worst, jt / scale);
    max_n = fmax(max_n, cabs(jn) / scale);
  }
  EXPECT(max_n > 1e-3, "the normal component never jumps (%g): the check is blind", max_n);
  free(x);
  return worst;
}

/* (3a) S g = 0 for g = grad(phi), phi in the variable-order H1 space */
static void gradients(const em_mesh *m, const em_dofmap *d, unsigned long long *s) {
  em_cplx *g = calloc((size_t)d->n_dof + 1, sizeof *g),
          *y = calloc((size_t)d->n_dof + 1, sizeof *y);
  double *av = malloc(m->n_vert * sizeof *av);
  int p = d->order, nf = p * (p - 1);
  for (int32_t v = 0; v < m->n_vert; v++) av[v] = 2 * em_test_rand(s) - 1;
  for (int32_t e = 0; e < m->n_edge; e++) {
    g[d->edge_dof[e * p]] = av[m->edge[2 * e + 1]] - av[m->edge[2 * e]];
    for (int k = 1; k < d->edge_order[e]; k++) g[d->edge_dof[e * p + k]] = 2 * em_test_rand(s) - 1;
  }
  for (int32_t f = 0; f < m->n_face; f++)
    if (d->face_order[f] == 3) g[d->face_dof[f * nf + 2]] = 2 * em_test_rand(s) - 1;
  em_csr *S = assemble(m, d, 0), *A = assemble(m, d, 3.0);
  em_csr_spmv_ref(S, 1, g, 0, y);
  double ns = 0, ny = 0, ng = 0, nt = 0;
  for (int64_t k = 0; k < S->nnz; k++) ns = fmax(ns, cabs(S->val[k]));
  for (int32_t i = 0; i < d->n_dof; i++) ny = fmax(ny, cabs(y[i])), ng = fmax(ng, cabs(g[i]));
  em_csr_spmv_ref(A, 1, g, 0, y);
  for (int32_t i = 0; i < d->n_dof; i++) nt = fmax(nt, cabs(y[i]));
  EXPECT(ny <= 1e-10 * ns * ng, "|S grad phi| = %g, |S| %g |g| %g", ny, ns, ng);
  EXPECT(nt > 1e-6 * ns * ng, "T grad phi vanishes too (%g): the check is blind", nt);
  printf("  |S g|/(|S||g|) = %.2e; |(S - 9T) g| = %.2e (control)\n", ny / (ns * ng), nt);
  em_csr_destroy(&S);
  em_csr_destroy(&A);
  free(g);
  free(y);
  free(av);
}

/* (3b) dimension of the null space of S against the variable H1 count */
static void null_space(const em_mesh *m, const em_dofmap *d) {
  em_csr *S = assemble(m, d, 0);
  int n = S->n_rows, info, lwork = -1;
  double *M = calloc((size_t)n * n, sizeof *M), *ev = malloc(n * sizeof *ev), wq;
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
      M[(size_t)S->colind[k] * n + i] = creal(S->val[k]);
  dsyev_("N", "L", &n, M, &n, ev, &wq, &lwork, &info);
  lwork = (int)wq;
  double *work = malloc(lwork * sizeof *work);
  dsyev_("N", "L", &n, M, &n, ev, work, &lwork, &info);
  EXPECT(info == 0, "dsyev info %d", info);
  int z = 0;
  while (z < n && fabs(ev[z]) < 1e-9 * ev[n - 1]) z++;
  int want = m->n_vert - 1;
  for (int32_t e = 0; e < m->n_edge; e++) want += d->edge_order[e] - 1;
  for (int32_t f = 0; f < m->n_face; f++) want += d->face_order[f] == 3;
  EXPECT(z == want, "null space of S has dimension %d, the H1 count is %d", z, want);
  printf("  %d unknowns, null space %d (H1 count %d), gap %.1e / %.1e\n", n, z, want,
         z ? fabs(ev[z - 1]) / ev[n - 1] : 0, z < n ? ev[z] / ev[n - 1] : 0);
  free(M);
  free(ev);
  free(work);
  em_csr_destroy(&S);
}

int main(void) {
  unsigned long long s = 2024;
  for (int kind = 0; kind < 2; kind++) {
    em_mesh *m = NULL;
    REQUIRE_OK(em_mesh_box(3, 3, 3, 1.0, 1.2, 0.9, 0.25, 7 + kind, &m));
    int8_t *o = orders(m, kind, &s);
    uint8_t *ff = calloc((size_t)m->n_face, 1);
    for (int32_t k = 0; k < m->n_tri; k++) ff[m->tri_face[k]] = k % 3 == 0; /* some fixed */
    em_dofmap *d = NULL;
    REQUIRE_OK(em_dofmap_build_orders(m, o, ff, &d));
    EXPECT(!d->uniform && d->order == 3, "orders %s: the map is uniform", kind ? "random" : "slab");
    printf("orders %s: %d unknowns (%d / %d / %d by order), %d fixed\n",
           kind ? "random" : "by slab", d->n_dof, d->offset[1], d->offset[2] - d->offset[1],
           d->offset[3] - d->offset[2], d->n_fixed);
    counts(m, o, ff, d);
    double w = conform(m, d, &s);
    EXPECT(w <= 1e-12, "tangential jump %.2e across an interior face", w);
    printf("  max relative tangential jump %.2e\n", w);
    em_dofmap_destroy(&d);
    REQUIRE_OK(em_dofmap_build_orders(m, o, NULL, &d));
    gradients(m, d, &s);
    em_dofmap_destroy(&d);
    free(o);
    free(ff);
    em_mesh_destroy(&m);
  }
  /* the null space on a small mesh (dense eigenvalues) */
  for (int kind = 0; kind < 2; kind++) {
    em_mesh *m = NULL;
    REQUIRE_OK(em_mesh_box(2, 2, 2, 1.0, 1.1, 0.9, 0.2, 3 + kind, &m));
    int8_t *o = orders(m, kind, &s);
    em_dofmap *d = NULL;
    REQUIRE_OK(em_dofmap_build_orders(m, o, NULL, &d));
    null_space(m, d);
    em_dofmap_destroy(&d);
    free(o);
    em_mesh_destroy(&m);
  }
  /* a bad order names the tet */
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(1, 1, 1, 1.0, 1.0, 1.0, 0.0, 1, &m));
  int8_t *o = calloc((size_t)m->n_tet, 1);
  memset(o, 2, (size_t)m->n_tet);
  o[m->n_tet - 1] = 4;
  em_dofmap *d = NULL;
  EXPECT(em_dofmap_build_orders(m, o, NULL, &d) == EM_ERR_INPUT && !d, "order 4 accepted");
  em_error_clear();
  free(o);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
