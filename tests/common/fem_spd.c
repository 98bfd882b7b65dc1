/* fem_spd.c - the SPD curl-curl plus mass matrices of fem_spd.h, assembled
 * by em_assemble with k0 = 1 and a material eps_r = -alpha, nu = 1: the
 * assembled S - k0^2 eps_r T is then S + alpha T. */
#include "fem_spd.h"

#include <stdlib.h>

#include "em_assembly.h"
#include "em_mesh.h"

/* eps_r = -alpha (k0^2 eps_r = -alpha with k0 = 1), mu_r = 1. */
static em_err spd_material(void *ctx, int32_t t, const double x[3], em_material *mat) {
  (void)t, (void)x;
  double alpha = *(const double *)ctx;
  for (int d = 0; d < 3; d++) mat->eps[d] = -alpha, mat->nu[d] = 1;
  return EM_OK;
}

em_err em_fem_spd_box(int n, int order, double alpha, em_csr **A, em_blockmat **B) {
  EM_CHECK(n >= 1 && order >= 1 && order <= EM_MAX_ORDER && alpha > 0, EM_ERR_ARG,
           "em_fem_spd_box: n %d >= 1, order %d in 1..%d and alpha %g > 0", n, order, EM_MAX_ORDER,
           alpha);
  if (A) *A = NULL;
  if (B) *B = NULL;
  em_mesh *m = NULL;
  em_dofmap *d = NULL;
  em_system *sys = NULL;
  uint8_t *fixed = NULL;
  em_err err = EM_OK;
  EM_TRY(em_mesh_box(n, n, n, 1.0, 1.0, 1.0, 0.2, 1, &m));
  EM_TRY_GOTO(err, em_calloc(&fixed, (size_t)m->n_face + 1, 1, "PEC faces"), done);
  for (int32_t f = 0; f < m->n_face; f++) fixed[f] = m->face_tet[2 * f + 1] < 0;
  EM_TRY_GOTO(err, em_dofmap_build(m, order, fixed, &d), done);
  em_problem prob = {.k0 = 1, .material = spd_material, .material_ctx = &alpha, .n_rhs = 1};
  EM_TRY_GOTO(err, em_assemble(m, d, &prob, NULL, &sys), done);
  if (A) EM_TRY_GOTO(err, em_blockmat_to_csr(sys->A, A), done);
  if (B) {
    *B = sys->A;
    sys->A = NULL;
  }
done:
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
  em_free(&fixed);
  if (err && A) em_csr_destroy(A);
  return err;
}
