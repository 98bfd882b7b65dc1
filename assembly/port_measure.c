/* port_measure.c - what a port sees of a solution: the modal amplitude on
 * a wave port, the voltage across a lumped port. */
#include <math.h>
#include <string.h>

#include "em_assembly.h"

/* Barycentric coordinates in tet t of the point with barycentric
 * coordinates mu on triangle k. */
static void tri_to_tet(const em_mesh *m, int32_t k, int32_t t, const double mu[3], double lam[4]) {
  memset(lam, 0, 4 * sizeof *lam);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 4; b++)
      if (m->tet[4 * t + b] == m->tri[3 * k + a]) lam[b] = mu[a];
}

/* c = oint E . e dS / oint e . e dS (wave ports); V = -(1/w) oint E . v dS
 * (lumped), by a triangle rule of degree 2p + 2. */
em_err em_port_measure(const em_port *p, const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                       const em_cplx *fixed, em_cplx *c) {
  em_quad q;
  EM_TRY(em_quad_tri(2 * d->order + 2, &q));
  em_cplx num = 0;
  double den = 0;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != p->group) continue;
    const double *v0 = m->xyz + 3 * (size_t)m->tri[3 * k],
                 *v1 = m->xyz + 3 * (size_t)m->tri[3 * k + 1],
                 *v2 = m->xyz + 3 * (size_t)m->tri[3 * k + 2];
    double e1[3], e2[3];
    for (int i = 0; i < 3; i++) e1[i] = v1[i] - v0[i], e2[i] = v2[i] - v0[i];
    double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0]};
    double area = 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    int32_t t = m->face_tet[2 * m->tri_face[k]];
    for (int i = 0; i < q.n; i++) {
      const double *mu = q.lam + 3 * i;
      double lam[4], xq[3], e[3];
      tri_to_tet(m, k, t, mu, lam);
      for (int j = 0; j < 3; j++) xq[j] = mu[0] * v0[j] + mu[1] * v1[j] + mu[2] * v2[j];
      em_cplx E[3];
      em_field_eval(m, d, x, fixed, t, lam, E, NULL);
      double w = q.w[i] * area;
      if (p->type == EM_PORT_LUMPED) {
        num += w * (E[0] * p->v[0] + E[1] * p->v[1] + E[2] * p->v[2]);
      } else {
        em_port_mode(p, xq, e);
        num += w * (E[0] * e[0] + E[1] * e[1] + E[2] * e[2]);
        den += w * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
      }
    }
  }
  if (p->type == EM_PORT_LUMPED) {
    *c = -num / p->a;
  } else {
    EM_CHECK(den > 0, EM_ERR_INTERNAL, "%s: zero mode norm", p->name);
    *c = num / den;
  }
  EM_CHECK(isfinite(creal(*c)) && isfinite(cimag(*c)), EM_ERR_NUMERIC,
           "%s: the measured port quantity is not finite (did the solve fail?)", p->name);
  return EM_OK;
}
