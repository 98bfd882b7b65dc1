/* pml_wall.c - how much field reaches the PEC wall behind a PML.
 *
 * With amplitude attenuation a across the layer, the wave that reaches the
 * outer wall has |E|^2 ~ a^2 of what enters, and what comes back after the
 * wall's reflection is a^2 in amplitude: the ratio
 *   rho = <|E|^2> over PML tets on the outer wall / <|E|^2> over PML tets
 *         on the interface with the interior
 * (volume-weighted means, |E| at the centroid) estimates the round-trip
 * reflection of the discrete layer, 20 log10(rho) dB.  Where the stretch
 * is too weak or the layer too coarse rho stays near 1e-1 (-20 dB); a
 * working layer gives 1e-3 or less. */
#include <complex.h>
#include <math.h>

#include "em_model.h"

double em_setup_pml_wall(const em_mesh *m, const em_dofmap *d, const em_setup *s, const em_cplx *x,
                         const em_cplx *fixed) {
  const em_medium *med = s->medium;
  if (!s->has_pml) return NAN;
  double e_out = 0, v_out = 0, e_in = 0, v_in = 0;
  const double lam[4] = {0.25, 0.25, 0.25, 0.25};
  for (int32_t t = 0; t < m->n_tet; t++) {
    if (!med[m->tet_group[t]].is_pml) continue;
    int outer = 0, inner = 0;
    for (int k = 0; k < 4; k++) {
      int32_t f = m->tet_face[4 * (size_t)t + k];
      int32_t o = m->face_tet[2 * (size_t)f] == t ? m->face_tet[2 * (size_t)f + 1]
                                                  : m->face_tet[2 * (size_t)f];
      if (o < 0)
        outer |= s->face_role[f] != EM_FACE_PERIODIC; /* a cell's side is no wall */
      else if (!med[m->tet_group[o]].is_pml)
        inner = 1;
    }
    if (!outer && !inner) continue;
    em_cplx E[3];
    em_field_eval(m, d, x, fixed, t, lam, E, NULL);
    double e2 = creal(E[0] * conj(E[0]) + E[1] * conj(E[1]) + E[2] * conj(E[2]));
    double vol = fabs(em_tet_volume(m, t));
    if (outer) e_out += vol * e2, v_out += vol;
    if (inner) e_in += vol * e2, v_in += vol;
  }
  if (!(v_out > 0 && v_in > 0 && e_in > 0)) return NAN;
  return (e_out / v_out) / (e_in / v_in);
}
