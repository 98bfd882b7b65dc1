/* port_measure.c - what a port sees of a solution: the modal amplitude on
 * a wave port, the voltage across a lumped port. */
#include <math.h>
#include <string.h>

#include "em_assembly.h"

/* c = oint E . e dS / oint e . e dS (wave ports); V = -(1/w) oint E . v dS
 * (lumped), by a triangle rule of degree 2p + 2. */
em_err em_port_measure(const em_port *p, const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                       const em_cplx *fixed, em_cplx *c) {
  em_quad q;
  EM_TRY(em_quad_tri(m->edge_mid ? 8 : 2 * d->order + 2, &q));
  em_cplx num = 0;
  double den = 0;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != p->group) continue;
    int32_t f = m->tri_face[k], t = m->face_tet[2 * f];
    int lf = em_tet_local_face(m, t, f);
    em_tet_geom g; /* a curved face: its own points and area element */
    em_tet_geom_make(m, t, &g);
    for (int i = 0; i < q.n; i++) {
      double lam[4], xq[3], grad[4][3], da, n[3], e[3];
      em_tet_face_at(&g, lf, q.lam + 3 * i, lam, xq, grad, &da, n, NULL);
      em_cplx E[3];
      em_field_eval(m, d, x, fixed, t, lam, E, NULL);
      double w = q.w[i] * da;
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

em_err em_port_measure_fn(const em_port *p, const em_mesh *m, int order, em_vector_fn Efn,
                          void *ctx, em_cplx *c) {
  em_quad q;
  EM_TRY(em_quad_tri(m->edge_mid ? 8 : 2 * order + 2, &q));
  em_cplx num = 0;
  double den = 0;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != p->group) continue;
    int32_t f = m->tri_face[k], t = m->face_tet[2 * f];
    int lf = em_tet_local_face(m, t, f);
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    for (int i = 0; i < q.n; i++) {
      double lam[4], xq[3], grad[4][3], da, n[3], e[3];
      em_tet_face_at(&g, lf, q.lam + 3 * i, lam, xq, grad, &da, n, NULL);
      em_cplx E[3];
      EM_TRY(Efn(ctx, xq, E));
      double w = q.w[i] * da;
      if (p->type == EM_PORT_LUMPED) {
        num += w * (E[0] * p->v[0] + E[1] * p->v[1] + E[2] * p->v[2]);
      } else {
        em_port_mode(p, xq, e);
        num += w * (E[0] * e[0] + E[1] * e[1] + E[2] * e[2]);
        den += w * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
      }
    }
  }
  *c = p->type == EM_PORT_LUMPED ? -num / p->a : num / den;
  return EM_OK;
}
