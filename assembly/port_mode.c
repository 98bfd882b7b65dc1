/* port_mode.c - port modes in closed form, their propagation constants,
 * impedances and power normalisation, and the Robin terms that match and
 * excite them. */
#include <math.h>
#include <string.h>

#include "em_assembly.h"

/* sqrt on the branch of decaying waves: exp(-j beta z) decays, Im beta <= 0. */
static em_cplx decaying_sqrt(em_cplx z) {
  em_cplx r = csqrt(z);
  return cimag(r) > 0 ? -r : r;
}

em_err em_port_set_frequency(em_port *p, double k0) {
  EM_CHECK(k0 > 0, EM_ERR_ARG, "%s: wavenumber %g must be > 0", p->name, k0);
  p->k0 = k0;
  em_cplx k = k0 * decaying_sqrt(p->eps_r * p->mu_r);
  em_cplx eta = EM_Z0 * csqrt(p->mu_r / p->eps_r);
  double int_e2 = 1;  /* oint |e_hat|^2 dS of the unnormalised mode */
  em_cplx z_wave = 1; /* E_t / H_t of the mode: what carries the power */
  switch (p->type) {
    case EM_PORT_COAX:
      /* TEM: beta = k, Z0 = eta ln(b/a) / 2 pi, e_hat = r_hat / r */
      p->beta = k;
      p->z_mode = eta * log(p->b / p->a) / (2 * M_PI);
      z_wave = eta; /* TEM: the line impedance is V/I, the wave's is eta */
      int_e2 = 2 * M_PI * log(p->b / p->a);
      break;
    case EM_PORT_WAVEGUIDE: {
      /* TE10: beta = sqrt(k^2 - (pi/a)^2), Z_TE = k0 eta0 mu_r / beta, e_hat = v sin(pi u / a) */
      double kc = M_PI / p->a;
      double fc = kc * EM_C0 / (2 * M_PI * creal(csqrt(p->eps_r * p->mu_r)));
      EM_CHECK(creal(k * k) > kc * kc, EM_ERR_INPUT,
               "%s: the TE10 mode is cut off at %.6g GHz (a = %g mm): this frequency "
               "(%.6g GHz) cannot drive a waveguide port",
               p->name, fc * 1e-9, p->a * 1e3, k0 * EM_C0 / (2 * M_PI) * 1e-9);
      p->beta = decaying_sqrt(k * k - kc * kc);
      p->z_mode = k0 * EM_Z0 * p->mu_r / p->beta;
      z_wave = p->z_mode;
      int_e2 = p->a * p->b / 2;
      break;
    }
    case EM_PORT_LUMPED:
      p->beta = 0;
      p->z_mode = p->z_ref > 0 ? p->z_ref : 50.0;
      break;
  }
  /* P = 1/2 oint Re(E x H*) . n = 1/2 Re(1/Z_wave) N^2 oint |e_hat|^2 = 1 W */
  p->norm = sqrt(2 / (creal(1 / z_wave) * int_e2));
  return EM_OK;
}

void em_port_mode(const em_port *p, const double x[3], double e[3]) {
  double r[3] = {x[0] - p->center[0], x[1] - p->center[1], x[2] - p->center[2]};
  double s = r[0] * p->normal[0] + r[1] * p->normal[1] + r[2] * p->normal[2];
  for (int d = 0; d < 3; d++) r[d] -= s * p->normal[d];
  switch (p->type) {
    case EM_PORT_COAX: {
      double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      for (int d = 0; d < 3; d++) e[d] = p->norm * r[d] / r2;
      break;
    }
    case EM_PORT_WAVEGUIDE: {
      double u = r[0] * p->u[0] + r[1] * p->u[1] + r[2] * p->u[2] + 0.5 * p->a;
      double amp = p->norm * sin(M_PI * u / p->a);
      for (int d = 0; d < 3; d++) e[d] = amp * p->v[d];
      break;
    }
    case EM_PORT_LUMPED:
      for (int d = 0; d < 3; d++) e[d] = p->v[d] / p->b;
      break;
  }
}

/* g = 2 j beta nu e (wave ports): from n x nu curl E + j beta nu n x n x E =
 * -2 j beta nu e_inc with g = -U. */
static em_err wave_source(void *ctx, const double x[3], em_cplx g[3]) {
  const em_port *p = ctx;
  double e[3];
  em_port_mode(p, x, e);
  em_cplx c = 2 * I * p->beta / p->mu_r;
  for (int d = 0; d < 3; d++) g[d] = c * e[d];
  return EM_OK;
}

/* g = -j k0 eta0 J_s with J_s = (1 A / w) v, the port's source current. */
static em_err lumped_source(void *ctx, const double x[3], em_cplx g[3]) {
  const em_port *p = ctx;
  (void)x;
  em_cplx c = -I * p->k0 * EM_Z0 / p->a;
  for (int d = 0; d < 3; d++) g[d] = c * p->v[d];
  return EM_OK;
}

void em_port_robin(em_port *p, int excite, int rhs, em_robin *r) {
  memset(r, 0, sizeof *r);
  r->group = p->group;
  r->rhs = rhs;
  r->g_ctx = p;
  if (p->type == EM_PORT_LUMPED) {
    /* a pure current source, open when not driven: the reference R is a
     * circuit element of the port's S (em_port_sparams), not a resistive
     * sheet in the mesh, whose uneven current over the gap would add an
     * R-dependent loss to a lossless structure */
    r->gamma = 0;
    r->g = excite ? lumped_source : NULL;
  } else {
    r->gamma = I * p->beta / p->mu_r;
    r->g = excite ? wave_source : NULL;
  }
}

void em_port_robin_load(em_port *p, em_robin *r) {
  em_port_robin(p, 0, 0, r);
  if (p->type != EM_PORT_LUMPED) return;
  double R = p->z_ref > 0 ? p->z_ref : 50;
  r->gamma = I * p->k0 * EM_Z0 * p->b / (R * p->a); /* sheet conductivity l / (R w) */
  r->dir = p->v;
}
