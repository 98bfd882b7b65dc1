/* media.c - materials at a point: the group's medium, stretched in a PML. */
#include "em_assembly.h"

/* eps = eps_r Lambda, nu = (mu_r Lambda)^-1,
 * Lambda = diag(s_y s_z / s_x, s_x s_z / s_y, s_x s_y / s_z) (identity
 * outside the PML). */
em_err em_media_material(void *ctx, int32_t t, const double x[3], em_material *mat) {
  const em_media *md = ctx;
  const em_medium *med = &md->medium[md->mesh->tet_group[t]];
  em_cplx lam[3] = {1, 1, 1};
  if (med->is_pml && md->pml) {
    em_cplx s[3];
    em_pml_stretch(md->pml, md->k0, x, s);
    lam[0] = s[1] * s[2] / s[0];
    lam[1] = s[0] * s[2] / s[1];
    lam[2] = s[0] * s[1] / s[2];
  }
  for (int d = 0; d < 3; d++) {
    mat->eps[d] = med->eps_r * lam[d];
    mat->nu[d] = 1.0 / (med->mu_r * lam[d]);
  }
  return EM_OK;
}
