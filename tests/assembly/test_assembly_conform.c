/* Conformity of the global space on jittered random box meshes, p = 1..3:
 * a field with random coefficients has the same tangential trace n x E from
 * both tets at random points of every interior face (1e-12 relative), and
 * the same normal curl n . curl E; the normal component n . E does jump
 * (control: the comparison would see a discontinuity). */
#include "em_assembly.h"
#include "em_test.h"

static void check(int p, unsigned seed) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(3, 3, 3, 1.0, 1.3, 0.9, 0.25, seed, &m));
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, NULL, &d));
  unsigned long long s = seed * 7919ULL + 1;
  em_cplx *x = calloc((size_t)d->n_dof, sizeof *x);
  for (int32_t i = 0; i < d->n_dof; i++)
    x[i] = (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
  double worst_t = 0, worst_c = 0, max_n = 0;
  int faces = 0;
  for (int32_t f = 0; f < m->n_face; f++) {
    int32_t t[2] = {m->face_tet[2 * f], m->face_tet[2 * f + 1]};
    if (t[1] < 0) continue;
    faces++;
    double mu[3], sum = 0;
    for (int k = 0; k < 3; k++) sum += mu[k] = 0.02 + em_test_rand(&s);
    em_cplx E[2][3], C[2][3];
    double nrm[3] = {0, 0, 0};
    for (int side = 0; side < 2; side++) {
      int lf = 0;
      while (m->tet_face[4 * t[side] + lf] != f) lf++;
      double lam[4] = {0, 0, 0, 0};
      for (int k = 0; k < 3; k++) lam[EM_TET_FACE[lf][k]] = mu[k] / sum;
      em_field_eval(m, d, x, NULL, t[side], lam, E[side], C[side]);
      if (!side) {
        em_tet_geom g;
        em_tet_geom_make(m, t[0], &g);
        double gn = sqrt(g.grad[lf][0] * g.grad[lf][0] + g.grad[lf][1] * g.grad[lf][1] +
                         g.grad[lf][2] * g.grad[lf][2]);
        for (int c = 0; c < 3; c++) nrm[c] = g.grad[lf][c] / gn;
      }
    }
    double scale = 0, cscale = 0, jt = 0;
    em_cplx jn = 0, jc = 0;
    for (int c = 0; c < 3; c++) {
      scale = fmax(scale, cabs(E[0][c]));
      cscale = fmax(cscale, cabs(C[0][c]));
      jn += nrm[c] * (E[0][c] - E[1][c]);
      jc += nrm[c] * (C[0][c] - C[1][c]);
    }
    for (int c = 0; c < 3; c++) {
      em_cplx dt = (E[0][c] - E[1][c]) - jn * nrm[c]; /* tangential part of the jump */
      jt = fmax(jt, cabs(dt));
    }
    worst_t = fmax(worst_t, jt / scale);
    worst_c = fmax(worst_c, cabs(jc) / cscale);
    max_n = fmax(max_n, cabs(jn) / scale);
    EXPECT(jt <= 1e-12 * scale, "p=%d face %d: tangential jump %g (|E| %g)", p, f, jt, scale);
    EXPECT(cabs(jc) <= 1e-11 * cscale, "p=%d face %d: normal curl jump %g (|curl E| %g)", p, f,
           cabs(jc), cscale);
  }
  EXPECT(max_n > 1e-3, "p=%d: the normal component never jumps (%g): the check is blind", p, max_n);
  printf(
      "p=%d: %d interior faces, max relative tangential jump %.2e, normal-curl jump %.2e, "
      "normal jump (control) %.2e\n",
      p, faces, worst_t, worst_c, max_n);
  free(x);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

int main(void) {
  for (int p = 1; p <= 3; p++) check(p, 11 + p);
  return TEST_RESULT();
}
