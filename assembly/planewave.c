/* planewave.c - an incident plane wave and the scattered-field sources it
 * induces (formulas in em_assembly.h). */
#include <math.h>
#include <string.h>

#include "em_assembly.h"

/* khat = (sin th cos ph, sin th sin ph, cos th),
 * theta_hat = (cos th cos ph, cos th sin ph, -sin th), phi_hat = (-sin ph, cos ph, 0),
 * e0 = E0 (cos psi theta_hat + sin psi phi_hat). */
em_err em_planewave_make(double k0, double theta, double phi, double psi, double amplitude,
                         em_cplx eps_b, em_cplx mu_b, em_planewave *pw) {
  EM_CHECK(pw, EM_ERR_ARG, "plane wave: NULL output");
  memset(pw, 0, sizeof *pw);
  EM_CHECK(isfinite(k0) && k0 > 0, EM_ERR_INPUT, "plane wave: wavenumber %g must be > 0", k0);
  EM_CHECK(isfinite(theta) && isfinite(phi) && isfinite(psi), EM_ERR_INPUT,
           "plane wave: angles (%g, %g, %g) rad are not finite", theta, phi, psi);
  EM_CHECK(isfinite(amplitude) && amplitude > 0, EM_ERR_INPUT,
           "plane wave: amplitude %g V/m must be > 0", amplitude);
  EM_CHECK(cimag(eps_b) == 0 && cimag(mu_b) == 0 && creal(eps_b) > 0 && creal(mu_b) > 0,
           EM_ERR_INPUT,
           "plane wave: the background medium (eps_r %g%+gj, mu_r %g%+gj) must be lossless and "
           "positive",
           creal(eps_b), cimag(eps_b), creal(mu_b), cimag(mu_b));
  pw->k0 = k0;
  pw->eps_b = creal(eps_b);
  pw->mu_b = creal(mu_b);
  pw->k = k0 * sqrt(pw->eps_b * pw->mu_b);
  pw->amplitude = amplitude;
  double st = sin(theta), ct = cos(theta), sp = sin(phi), cp = cos(phi);
  double th[3] = {ct * cp, ct * sp, -st}, ph[3] = {-sp, cp, 0};
  pw->khat[0] = st * cp;
  pw->khat[1] = st * sp;
  pw->khat[2] = ct;
  for (int d = 0; d < 3; d++) pw->e0[d] = amplitude * (cos(psi) * th[d] + sin(psi) * ph[d]);
  return EM_OK;
}

/* E = e0 exp(-j k khat . x), curl E = -j k khat x E */
void em_planewave_field(const em_planewave *pw, const double x[3], em_cplx E[3], em_cplx curlE[3]) {
  const double *k = pw->khat;
  em_cplx ph = cexp(-I * pw->k * (k[0] * x[0] + k[1] * x[1] + k[2] * x[2]));
  for (int d = 0; d < 3; d++) E[d] = pw->e0[d] * ph;
  if (!curlE) return;
  em_cplx c = -I * pw->k;
  curlE[0] = c * (k[1] * E[2] - k[2] * E[1]);
  curlE[1] = c * (k[2] * E[0] - k[0] * E[2]);
  curlE[2] = c * (k[0] * E[1] - k[1] * E[0]);
}

/* f = k0^2 (eps_r - eps_b) E_inc, h = -(1/mu_r - 1/mu_b) curl E_inc outside the PML */
em_err em_scatter_source(void *ctx, int32_t t, const double x[3], em_cplx f[3], em_cplx h[3]) {
  const em_scatter *s = ctx;
  const em_medium *med = &s->medium[s->mesh->tet_group[t]];
  if (med->is_pml) return EM_OK;
  em_cplx de = med->eps_r - s->pw->eps_b, dn = 1.0 / med->mu_r - 1.0 / s->pw->mu_b;
  if (de == 0 && dn == 0) return EM_OK;
  em_cplx E[3], C[3];
  em_planewave_field(s->pw, x, E, C);
  double k2 = s->pw->k0 * s->pw->k0;
  for (int d = 0; d < 3; d++) {
    f[d] = k2 * de * E[d];
    h[d] = -dn * C[d];
  }
  return EM_OK;
}

/* E_s = -E_inc on the scatterer's PEC, 0 on the walls behind the PML */
em_err em_scatter_dirichlet(void *ctx, const double x[3], em_cplx E[3]) {
  const em_scatter *s = ctx;
  if (s->pml) {
    const double *b = s->pml->inner;
    double size = fmax(b[1] - b[0], fmax(b[3] - b[2], b[5] - b[4])), tol = 1e-9 * size;
    for (int d = 0; d < 3; d++)
      if (x[d] < b[2 * d] - tol || x[d] > b[2 * d + 1] + tol) {
        E[0] = E[1] = E[2] = 0;
        return EM_OK;
      }
  }
  em_planewave_field(s->pw, x, E, NULL);
  for (int d = 0; d < 3; d++) E[d] = -E[d];
  return EM_OK;
}

/* A port's Robin boundary as a matched termination of the total field
 * E = E_s + E_inc:  n x nu curl E + gamma n x (n x E) = 0 (wave port; n out
 * of the domain), the load sheet gamma (E . v) v (lumped).  For the unknown
 * E_s that leaves the source g = n x nu curl E_inc + gamma n x (n x E_inc)
 * (wave port; the code's Robin form is g = -U of n x nu curl E + gamma
 * n x (n x E) = U), g = -gamma (E_inc . v) v (lumped load). */
em_err em_scatter_port_source(void *ctx, const double x[3], em_cplx g[3]) {
  const em_scatter_port *sp = ctx;
  const em_port *p = sp->port;
  em_cplx E[3], C[3];
  em_planewave_field(sp->sc->pw, x, E, C);
  if (p->type == EM_PORT_LUMPED) {
    em_cplx ev = E[0] * p->v[0] + E[1] * p->v[1] + E[2] * p->v[2];
    for (int d = 0; d < 3; d++) g[d] = -sp->gamma * ev * p->v[d];
    return EM_OK;
  }
  double n[3] = {-p->normal[0], -p->normal[1], -p->normal[2]}; /* out of the domain */
  em_cplx nu = 1 / p->mu_r, nc[3], nE[3], nnE[3];
  for (int d = 0; d < 3; d++) C[d] *= nu;
  nc[0] = n[1] * C[2] - n[2] * C[1];
  nc[1] = n[2] * C[0] - n[0] * C[2];
  nc[2] = n[0] * C[1] - n[1] * C[0];
  nE[0] = n[1] * E[2] - n[2] * E[1];
  nE[1] = n[2] * E[0] - n[0] * E[2];
  nE[2] = n[0] * E[1] - n[1] * E[0];
  nnE[0] = n[1] * nE[2] - n[2] * nE[1];
  nnE[1] = n[2] * nE[0] - n[0] * nE[2];
  nnE[2] = n[0] * nE[1] - n[1] * nE[0];
  for (int d = 0; d < 3; d++) g[d] = nc[d] + sp->gamma * nnE[d];
  return EM_OK;
}
