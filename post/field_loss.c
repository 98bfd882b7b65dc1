/* field_loss.c - power dissipated in the media by a solution (for the
 * radiation efficiency of an antenna). */
#include <math.h>

#include "em_post.h"

/* Time-averaged loss density, exp(+j w t), eps = eps' - j eps'':
 *   p = w eps0 eps'' |E|^2 / 2 + w mu0 mu'' |H|^2 / 2,  H = j curl E / (k0 Z0 mu_r),
 * with w eps0 = k0 / Z0 and w mu0 = k0 Z0:
 *   p = k0 / (2 Z0) (-Im eps_r) |E|^2 + (-Im mu_r) / (2 k0 Z0 |mu_r|^2) |curl E|^2,
 * integrated by a tet rule of degree 2p over the lossy non-PML tets; the
 * tets' parts by all threads, added in tet order (the same bits for any
 * number of threads). */
em_err em_field_loss(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                     const em_medium *medium, double k0, double *p_loss) {
  EM_CHECK(m && d && x && medium && p_loss, EM_ERR_ARG, "field loss: NULL argument");
  EM_CHECK(isfinite(k0) && k0 > 0, EM_ERR_ARG, "field loss: wavenumber %g", k0);
  em_quad q;
  EM_TRY(em_quad_tet(2 * d->order, &q));
  double total = 0, *part = NULL;
  EM_TRY(em_calloc(&part, (size_t)m->n_tet + 1, sizeof *part, "field loss"));
#pragma omp parallel for schedule(dynamic, 256)
  for (int32_t t = 0; t < m->n_tet; t++) {
    const em_medium *md = &medium[m->tet_group[t]];
    double ce = -cimag(md->eps_r), cm = -cimag(md->mu_r);
    if (md->is_pml || (ce == 0 && cm == 0)) continue; /* part 0: adds nothing */
    ce *= k0 / (2 * EM_Z0);
    cm /= 2 * k0 * EM_Z0 * creal(md->mu_r * conj(md->mu_r));
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    double s = 0;
    for (int k = 0; k < q.n; k++) {
      em_cplx E[3], C[3];
      double xq[3], grad[4][3], dv; /* a curved tet: its own volume element */
      em_tet_geom_at(&g, q.lam + 4 * k, xq, grad, &dv);
      em_field_eval(m, d, x, fixed, t, q.lam + 4 * k, E, cm != 0 ? C : NULL);
      double e2 = 0, c2 = 0;
      for (int c = 0; c < 3; c++) {
        e2 += creal(E[c] * conj(E[c]));
        if (cm != 0) c2 += creal(C[c] * conj(C[c]));
      }
      s += q.w[k] * dv * (ce * e2 + cm * c2);
    }
    part[t] = s;
  }
  for (int32_t t = 0; t < m->n_tet; t++) total += part[t];
  em_free(&part);
  EM_CHECK(isfinite(total), EM_ERR_NUMERIC, "field loss is not finite (did the solve fail?)");
  *p_loss = total;
  return EM_OK;
}
