/* port_flux.c - the power that enters the domain through a port plane,
 * from the solution itself (the check of a port's power normalisation on
 * the mesh: a faceted coax is a slightly different line than the analytic
 * mode's). */
#include <math.h>

#include "em_post.h"

/* P = 1/2 Re oint (E x H*) . n dS, n the port's inward normal,
 * H = j curl E / (k0 Z0 mu_r), by a triangle rule of degree 2p + 2. */
em_err em_port_flux(const em_port *p, const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                    const em_cplx *fixed, double *flux) {
  EM_CHECK(p && m && d && x && flux, EM_ERR_ARG, "port flux: NULL argument");
  EM_CHECK(p->k0 > 0, EM_ERR_ARG, "%s: no frequency set", p->name);
  em_quad q;
  EM_TRY(em_quad_tri(2 * d->order + 2 > 8 ? 8 : 2 * d->order + 2, &q));
  em_cplx h_of_curl = I / (p->k0 * EM_Z0 * p->mu_r);
  double sum = 0;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != p->group) continue;
    const int32_t *tv = m->tri + 3 * (size_t)k;
    const double *v[3];
    for (int a = 0; a < 3; a++) v[a] = m->xyz + 3 * (size_t)tv[a];
    double e1[3], e2[3];
    for (int c = 0; c < 3; c++) e1[c] = v[1][c] - v[0][c], e2[c] = v[2][c] - v[0][c];
    double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
           cz = e1[0] * e2[1] - e1[1] * e2[0];
    double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
    int32_t t = m->face_tet[2 * m->tri_face[k]];
    for (int i = 0; i < q.n; i++) {
      double lam[4] = {0, 0, 0, 0};
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
          if (m->tet[4 * (size_t)t + b] == tv[a]) lam[b] = q.lam[3 * i + a];
      em_cplx E[3], C[3], H[3];
      em_field_eval(m, d, x, fixed, t, lam, E, C);
      for (int c = 0; c < 3; c++) H[c] = conj(h_of_curl * C[c]);
      em_cplx S[3] = {E[1] * H[2] - E[2] * H[1], E[2] * H[0] - E[0] * H[2],
                      E[0] * H[1] - E[1] * H[0]};
      sum += 0.5 * q.w[i] * area *
             creal(S[0] * p->normal[0] + S[1] * p->normal[1] + S[2] * p->normal[2]);
    }
  }
  EM_CHECK(isfinite(sum), EM_ERR_NUMERIC, "%s: the power through the port is not finite", p->name);
  *flux = sum;
  return EM_OK;
}
