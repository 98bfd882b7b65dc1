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

/* s_axis = 1 exactly (em_pml_stretch) at both x_axis - dl and x_axis + dl:
 * the other two stretches are those of x at both points, so the two
 * materials are the same bits.  Outside a PML every point is flat. */
int em_media_flat(void *ctx, int32_t t, const double x[3], int axis, double dl) {
  const em_media *md = ctx;
  const em_pml *p = md->pml;
  if (!md->medium[md->mesh->tet_group[t]].is_pml || !p) return 1;
  for (int side = -1; side <= 1; side += 2) {
    double xd = x[axis] + side * dl;
    if ((p->thick[2 * axis] > 0 && xd < p->inner[2 * axis]) ||
        (p->thick[2 * axis + 1] > 0 && xd > p->inner[2 * axis + 1]))
      return 0;
  }
  return 1;
}
