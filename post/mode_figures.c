/* mode_figures.c - what identifies an eigenmode beyond its frequency: the
 * electric energy per volume group (where the mode lives: the resonator,
 * the air, the PML) and the dominant dipole of its polarization current
 * (docs/eigen.md). */
#include <math.h>

#include "run_impl.h"

/* int Re(eps_r) |E|^2 per volume group (the PML's background eps). */
em_err em_mode_energy(const em_mesh *m, const em_dofmap *d, const em_medium *medium,
                      const em_cplx *x, double *w_group) {
  int p = d->order;
  em_quad q;
  EM_TRY(em_quad_tet(2 * p, &q));
  for (int g = 0; g < m->n_group; g++) w_group[g] = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_tet_geom geo;
    em_tet_geom_make(m, t, &geo);
    double s = 0;
    for (int k = 0; k < q.n; k++) {
      em_cplx E[3];
      double xq[3], grad[4][3], dv; /* a curved tet: its own volume element */
      em_tet_geom_at(&geo, q.lam + 4 * k, xq, grad, &dv);
      em_field_eval(m, d, x, NULL, t, q.lam + 4 * k, E, NULL);
      s += q.w[k] * dv *
           (creal(E[0] * conj(E[0])) + creal(E[1] * conj(E[1])) + creal(E[2] * conj(E[2])));
    }
    int g = m->tet_group[t];
    w_group[g] += creal(medium[g].eps_r) * s;
  }
  return EM_OK;
}

/* A label from symmetry: the polarization current of the dielectrics
 * (Re eps_r != 1, outside the PML), J = j omega eps0 (eps_r - 1) E, as
 * electric and magnetic dipoles about its centroid,
 *   p ~ int (eps_r - 1) E,   m / c ~ (k / 2) int (eps_r - 1) (x - x_c) x E,
 * in units that radiate alike; the largest of the six components names the
 * mode (a cylindrical DRA: HEM11delta is M_x or M_y, TE01delta M_z,
 * TM01delta P_z).  "-" without a dielectric (a hollow cavity). */
em_err em_mode_dipole(const em_mesh *m, const em_dofmap *d, const em_medium *medium,
                      const em_cplx *x, double k, char label[8]) {
  em_quad q;
  EM_TRY(em_quad_tet(2 * d->order, &q));
  em_cplx P[3] = {0, 0, 0}, X[3] = {0, 0, 0};
  double C[3] = {0, 0, 0}, W = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    const em_medium *med = &medium[m->tet_group[t]];
    double de = creal(med->eps_r) - 1;
    if (med->is_pml || fabs(de) < 1e-12) continue;
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    for (int k2 = 0; k2 < q.n; k2++) {
      const double *lam = q.lam + 4 * k2;
      double xq[3], grad[4][3], dv; /* a curved tet: the mapped point */
      em_tet_geom_at(&g, lam, xq, grad, &dv);
      double wq = q.w[k2] * dv * de;
      em_cplx E[3];
      em_field_eval(m, d, x, NULL, t, lam, E, NULL);
      for (int c = 0; c < 3; c++) {
        int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
        P[c] += wq * E[c];
        X[c] += wq * (xq[c1] * E[c2] - xq[c2] * E[c1]);
        C[c] += wq * xq[c];
      }
      W += wq;
    }
  }
  if (W == 0) {
    snprintf(label, 8, "-");
    return EM_OK;
  }
  double best = -1;
  for (int c = 0; c < 3; c++) {
    int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    /* about the centroid: m = X - x_c x P */
    em_cplx md = X[c] - (C[c1] / W * P[c2] - C[c2] / W * P[c1]);
    double vp = cabs(P[c]), vm = 0.5 * k * cabs(md);
    if (vp > best) best = vp, snprintf(label, 8, "P_%c", 'x' + c);
    if (vm > best) best = vm, snprintf(label, 8, "M_%c", 'x' + c);
  }
  return EM_OK;
}
