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
  EM_TRY(em_quad_tri(2 * d->order + 2 > 8 || m->edge_mid ? 8 : 2 * d->order + 2, &q));
  em_cplx h_of_curl = I / (p->k0 * EM_Z0 * p->mu_r);
  double sum = 0;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != p->group) continue;
    int32_t f = m->tri_face[k], t = m->face_tet[2 * f];
    int lf = em_tet_local_face(m, t, f);
    em_tet_geom g; /* a curved face: its own points and area element */
    em_tet_geom_make(m, t, &g);
    for (int i = 0; i < q.n; i++) {
      double lam[4], xq[3], grad[4][3], da, n[3];
      em_tet_face_at(&g, lf, q.lam + 3 * i, lam, xq, grad, &da, n, NULL);
      em_cplx E[3], C[3], H[3];
      em_field_eval(m, d, x, fixed, t, lam, E, C);
      for (int c = 0; c < 3; c++) H[c] = conj(h_of_curl * C[c]);
      em_cplx S[3] = {E[1] * H[2] - E[2] * H[1], E[2] * H[0] - E[0] * H[2],
                      E[0] * H[1] - E[1] * H[0]};
      sum += 0.5 * q.w[i] * da *
             creal(S[0] * p->normal[0] + S[1] * p->normal[1] + S[2] * p->normal[2]);
    }
  }
  EM_CHECK(isfinite(sum), EM_ERR_NUMERIC, "%s: the power through the port is not finite", p->name);
  *flux = sum;
  return EM_OK;
}
