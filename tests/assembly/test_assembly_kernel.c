/* Gradients are exactly the kernel of the curl-curl matrix S.
 * (1) On a jittered box, grad(phi) of a random continuous piecewise
 *     polynomial phi of degree p has exact coefficients in this basis:
 *     grad lam_v = sum over edges (a,b) of (+1 if v = b, -1 if v = a) W_ab,
 *     and the edge / face H1 bubbles lam_a lam_b, lam_a lam_b (lam_b - lam_a),
 *     lam_a lam_b lam_c are potentials of basis functions; S g = 0 to 1e-10
 *     relative while T g != 0.
 * (2) The null space dimension of the global S (dense dsyev, tiny mesh)
 *     equals dim H1_p - 1 = V + (p-1)E + (p-1)(p-2)/2 F - 1 (no cell H1
 *     bubbles below degree 4), and with every boundary face fixed (PEC) the
 *     interior H1 dimension. */
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

/* A = S - k0^2 T over the unknowns as one CSR. */
static em_csr *assemble(const em_mesh *m, const em_dofmap *d, double k0) {
  em_problem prob = {.k0 = k0, .material = unit_material, .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(sys->A, &A));
  em_system_destroy(&sys);
  return A;
}

static void gradients_in_kernel(int p) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(3, 2, 2, 1.0, 0.7, 0.8, 0.25, 5 + p, &m));
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, NULL, &d));
  unsigned long long s = 77 + p;
  em_cplx *g = calloc((size_t)d->n_dof, sizeof *g), *y = calloc((size_t)d->n_dof, sizeof *y);
  double *av = malloc(m->n_vert * sizeof *av);
  for (int32_t v = 0; v < m->n_vert; v++) av[v] = 2 * em_test_rand(&s) - 1;
  int nf = p * (p - 1);
  for (int32_t e = 0; e < m->n_edge; e++) {
    g[d->edge_dof[e * p]] = av[m->edge[2 * e + 1]] - av[m->edge[2 * e]];
    for (int k = 1; k < p; k++) g[d->edge_dof[e * p + k]] = 2 * em_test_rand(&s) - 1;
  }
  if (p == 3)
    for (int32_t f = 0; f < m->n_face; f++) g[d->face_dof[f * nf + 2]] = 2 * em_test_rand(&s) - 1;
  em_csr *S = assemble(m, d, 0), *A = assemble(m, d, 3.0);
  em_csr_spmv_ref(S, 1, g, 0, y);
  double ny = 0, ng = 0, ns = 0, nt = 0;
  for (int64_t k = 0; k < S->nnz; k++) ns = fmax(ns, cabs(S->val[k]));
  for (int32_t i = 0; i < d->n_dof; i++) {
    ny = fmax(ny, cabs(y[i]));
    ng = fmax(ng, cabs(g[i]));
  }
  em_csr_spmv_ref(A, 1, g, 0, y); /* (S - 9 T) g = -9 T g: must not vanish */
  for (int32_t i = 0; i < d->n_dof; i++) nt = fmax(nt, cabs(y[i]));
  EXPECT(ny <= 1e-10 * ns * ng, "p=%d: |S grad phi| = %g, |S| %g |g| %g", p, ny, ns, ng);
  EXPECT(nt > 1e-3 * ns * ng * 1e-3, "p=%d: T grad phi vanishes too (%g): the check is blind", p,
         nt);
  printf("p=%d: |S g|/(|S||g|) = %.2e with %d unknowns; |(S - 9T) g| = %.2e (control)\n", p,
         ny / (ns * ng), d->n_dof, nt);
  em_csr_destroy(&S);
  em_csr_destroy(&A);
  free(g);
  free(y);
  free(av);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

/* Eigenvalues of the (real) S below tol * max count as zero. */
static int null_dim(const em_csr *S, double *gap_lo, double *gap_hi) {
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
  *gap_lo = z > 0 ? fabs(ev[z - 1]) / ev[n - 1] : 0;
  *gap_hi = z < n ? ev[z] / ev[n - 1] : 0;
  for (int i = 0; i < n; i++)
    EXPECT(ev[i] > -1e-9 * ev[n - 1], "S has a negative eigenvalue %g", ev[i]);
  free(M);
  free(ev);
  free(work);
  return z;
}

static void null_space(int p) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(2, 2, 2, 1.0, 1.1, 0.9, 0.2, 3, &m));
  for (int pec = 0; pec < 2; pec++) {
    uint8_t *ff = calloc((size_t)m->n_face, 1), *vb = calloc((size_t)m->n_vert, 1),
            *eb = calloc((size_t)m->n_edge, 1);
    int32_t Fi = 0, Ei = 0, Vi = 0;
    for (int32_t f = 0; f < m->n_face; f++) {
      if (m->face_tet[2 * f + 1] >= 0) {
        Fi++;
        continue;
      }
      ff[f] = (uint8_t)pec;
      for (int k = 0; k < 3; k++) vb[m->face[3 * f + k]] = 1;
    }
    for (int32_t e = 0; e < m->n_edge; e++)
      eb[e] = vb[m->edge[2 * e]] && vb[m->edge[2 * e + 1]] ? 1 : 0;
    /* a box edge with both ends on the boundary may still cross the inside:
     * it is on the boundary iff it belongs to a boundary face */
    memset(eb, 0, m->n_edge);
    for (int32_t t = 0; t < m->n_tet; t++)
      for (int lf = 0; lf < 4; lf++)
        if (m->face_tet[2 * m->tet_face[4 * t + lf] + 1] < 0)
          for (int le = 0; le < 6; le++)
            if (EM_TET_EDGE[le][0] != lf && EM_TET_EDGE[le][1] != lf)
              eb[m->tet_edge[6 * t + le]] = 1;
    for (int32_t e = 0; e < m->n_edge; e++) Ei += !eb[e];
    for (int32_t v = 0; v < m->n_vert; v++) Vi += !vb[v];
    em_dofmap *d = NULL;
    REQUIRE_OK(em_dofmap_build(m, p, ff, &d));
    em_csr *S = assemble(m, d, 0);
    double lo, hi;
    int z = null_dim(S, &lo, &hi);
    int want = pec ? Vi + (p - 1) * Ei + (p - 1) * (p - 2) / 2 * Fi
                   : m->n_vert + (p - 1) * m->n_edge + (p - 1) * (p - 2) / 2 * m->n_face - 1;
    EXPECT(z == want, "p=%d %s: null space of S has dimension %d, expected %d", p,
           pec ? "PEC" : "free", z, want);
    printf(
        "p=%d %s: %d unknowns, null space %d (H1 count %d), largest zero %.1e, smallest "
        "non-zero %.1e (relative)\n",
        p, pec ? "PEC " : "free", d->n_dof, z, want, lo, hi);
    em_csr_destroy(&S);
    em_dofmap_destroy(&d);
    free(ff);
    free(vb);
    free(eb);
  }
  em_mesh_destroy(&m);
}

int main(void) {
  for (int p = 1; p <= 3; p++) gradients_in_kernel(p);
  for (int p = 1; p <= 3; p++) null_space(p);
  return TEST_RESULT();
}
