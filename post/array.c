/* array.c - what an array's excitations make of the per-port solutions
 * (docs/farfield.md, "Arrays"):
 *
 *   weights   a_i: the complex amplitude of the wave incident on port i at
 *             its reference plane (where S refers to: the port plane moved
 *             by Ports/<i>/deembed) relative to the 1 W of its own solve
 *             (|a_i|^2 W in); from a list "amp@deg, ..." or from a scan
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
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "em_post.h"

em_err em_array_parse_weights(const char *s, int n, em_cplx *a) {
  EM_CHECK(s && a && n >= 1, EM_ERR_ARG, "array weights: NULL argument or %d ports", n);
  const char *p = s;
  int k = 0;
  double total = 0;
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    EM_CHECK(k < n, EM_ERR_INPUT,
             "Array/weights \"%s\": more than %d weights (the case has %d ports)", s, n, n);
    char *end;
    double amp = strtod(p, &end), ph = 0;
    EM_CHECK(end != p && isfinite(amp) && amp >= 0, EM_ERR_INPUT,
             "Array/weights \"%s\": weight %d is not an amplitude >= 0 (write amp or amp@deg, "
             "comma-separated)",
             s, k + 1);
    p = end;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '@') {
      p++;
      ph = strtod(p, &end);
      EM_CHECK(end != p && isfinite(ph), EM_ERR_INPUT,
               "Array/weights \"%s\": the phase of weight %d is not a number of degrees", s, k + 1);
      p = end;
      while (isspace((unsigned char)*p)) p++;
    }
    EM_CHECK(*p == ',' || !*p, EM_ERR_INPUT,
             "Array/weights \"%s\": unexpected '%c' after weight %d (write amp or amp@deg, "
             "comma-separated)",
             s, *p, k + 1);
    /* exact for the phases of whole right angles (1@90 is j, 1@180 is -1) */
    double r = fmod(ph, 360.0);
    if (r < 0) r += 360;
    em_cplx u = r == 0     ? 1
                : r == 90  ? I
                : r == 180 ? -1
                : r == 270 ? -I
                           : cexp(I * ph * M_PI / 180);
    a[k++] = amp * u;
    total += amp * amp;
    if (*p == ',') p++;
  }
  EM_CHECK(k == n, EM_ERR_INPUT, "Array/weights \"%s\": %d weights for %d ports", s, k, n);
  EM_CHECK(total > 0, EM_ERR_INPUT, "Array/weights \"%s\": every amplitude is zero", s);
  return EM_OK;
}

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
