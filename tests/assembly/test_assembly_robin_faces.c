/* A Robin boundary given as a list of faces (group = -1, used for the
 * first-order ABC on the outer box) assembles exactly what the same faces
 * give as a surface group. */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"

static em_err unit_material(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx, (void)t, (void)x;
  for (int d = 0; d < 3; d++) m->eps[d] = 1, m->nu[d] = 1;
  return EM_OK;
}

static em_err source_g(void *ctx, const double x[3], em_cplx g[3]) {
  (void)ctx;
  g[0] = x[1] + I * x[2], g[1] = 2 - x[0], g[2] = I * x[0] * x[1];
  return EM_OK;
}

int main(void) {
  for (int p = 1; p <= 3; p++) {
    em_mesh *m = NULL;
    REQUIRE_OK(em_mesh_box(3, 2, 2, 1.0, 0.7, 0.6, 0.15, 5, &m));
    int g = em_mesh_group_find(m, "xmax", 2);
    int32_t n = 0, faces[256];
    for (int32_t k = 0; k < m->n_tri; k++)
      if (m->tri_group[k] == g) faces[n++] = m->tri_face[k];
    em_dofmap *d = NULL;
    REQUIRE_OK(em_dofmap_build(m, p, NULL, &d));
    em_robin byg = {.group = g, .gamma = 2.0 * I, .g = source_g, .rhs = 0};
    em_robin byf = {
        .group = -1, .faces = faces, .n_faces = n, .gamma = 2.0 * I, .g = source_g, .rhs = 0};
    em_problem prob = {.k0 = 3.0, .material = unit_material, .n_robin = 1, .n_rhs = 1};
    em_system *s1 = NULL, *s2 = NULL;
    prob.robin = &byg;
    REQUIRE_OK(em_assemble(m, d, &prob, NULL, &s1));
    prob.robin = &byf;
    REQUIRE_OK(em_assemble(m, d, &prob, NULL, &s2));
    em_csr *A1 = NULL, *A2 = NULL;
    REQUIRE_OK(em_blockmat_to_csr(s1->A, &A1));
    REQUIRE_OK(em_blockmat_to_csr(s2->A, &A2));
    EXPECT(A1->nnz == A2->nnz && !memcmp(A1->val, A2->val, sizeof *A1->val * (size_t)A1->nnz),
           "p=%d: face-list Robin matrix differs from the group one", p);
    EXPECT(!memcmp(s1->b, s2->b, sizeof *s1->b * (size_t)d->n_dof), "p=%d: right-hand sides differ",
           p);
    /* and the Robin term is really there: it changes the matrix */
    prob.n_robin = 0;
    em_system *s0 = NULL;
    em_csr *A0 = NULL;
    REQUIRE_OK(em_assemble(m, d, &prob, NULL, &s0));
    REQUIRE_OK(em_blockmat_to_csr(s0->A, &A0));
    EXPECT(memcmp(A0->val, A1->val, sizeof *A1->val * (size_t)A1->nnz) != 0, "p=%d: no Robin term",
           p);
    /* a face outside the mesh is refused */
    int32_t bad = m->n_face;
    em_robin badr = {.group = -1, .faces = &bad, .n_faces = 1, .gamma = 1};
    prob.robin = &badr, prob.n_robin = 1;
    em_system *s3 = NULL;
    EXPECT_ERR(em_assemble(m, d, &prob, NULL, &s3), EM_ERR_ARG);
    em_csr_destroy(&A0), em_csr_destroy(&A1), em_csr_destroy(&A2);
    em_system_destroy(&s0), em_system_destroy(&s1), em_system_destroy(&s2);
    em_dofmap_destroy(&d);
    em_mesh_destroy(&m);
  }
  return TEST_RESULT();
}
