/* array.c - what an array's excitations make of the per-port solutions
 * (docs/farfield.md, "Arrays"):
 *
 *   weights   a_i: the complex amplitude of the wave incident on port i at
 *             its reference plane (where S refers to: the port plane moved
 *             by Ports/<i>/deembed) relative to the 1 W of its own solve
 *             (|a_i|^2 W in); from a list "amp@deg, ..." (Array/weights,
 *             read by model/config_array.c) or from a scan
 *             direction u0 (theta0, phi0): a_i = exp(-j k0 u0 . r_i), r_i
 *             the centre of that plane, the progressive phase that puts the
 *             array factor sum_i a_i exp(j k0 u . r_i) at its maximum in u0;
 *   active    Gamma_i = sum_j S_ij a_j / a_i: the reflection port i sees
 *             when every port is driven by a (the others' coupling adds to
 *             its own reflection), against the scan angle;
 *   solution  x_a = sum_i c_i x_i, c_i = a_i exp(j beta_i d_i) (the wave
 *             a_i at the reference plane is a_i exp(j beta d) at the port
 *             plane, where x_i has its 1 W): by linearity the field of the
 *             array excitation (the ports' matched loads are in every x_i),
 *             from which its far field, gain and accepted power follow. */
#include <math.h>

#include "em_post.h"

void em_array_scan_weights(int n, const em_port *ports, double k0, double theta, double phi,
                           em_cplx *a) {
  double u[3] = {sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta)};
  for (int i = 0; i < n; i++) {
    const em_port *p = &ports[i];
    double r[3]; /* the reference plane's centre: deembed along the inward normal */
    for (int d = 0; d < 3; d++) r[d] = p->center[d] + p->deembed * p->normal[d];
    a[i] = cexp(-I * k0 * (u[0] * r[0] + u[1] * r[1] + u[2] * r[2]));
  }
}

void em_array_active(int n, const em_cplx *S, const em_cplx *a, em_cplx *gamma) {
  for (int i = 0; i < n; i++) {
    em_cplx b = 0;
    for (int j = 0; j < n; j++) b += S[i * n + j] * a[j];
    gamma[i] = a[i] != 0 ? b / a[i] : NAN;
  }
}

void em_array_combine(int n, int64_t len, const em_cplx *x, const em_cplx *a, em_cplx *xa) {
#pragma omp parallel for schedule(static) if (len > 100000)
  for (int64_t q = 0; q < len; q++) {
    em_cplx s = 0;
    for (int i = 0; i < n; i++)
      if (a[i] != 0) s += a[i] * x[(size_t)i * len + q];
    xa[q] = s;
  }
}
