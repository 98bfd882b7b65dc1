/* mie.c - Mie coefficients and scattering amplitudes (see mie.h). */
#include "mie.h"

#include <math.h>

/* Spherical Bessel j_n(z), n = 0..N, real z > 0, by downward recurrence
 * j_{n-1} = (2n+1)/z j_n - j_{n+1} from far above N (stable), normalised by
 * j_0 = sin z / z. */
static void sph_j(int N, double z, double *j) {
  int top = N + 30 + (int)z;
  /* from 1e-200 the values grow by at most ~1e120 on the way down (z >= 1e-1
   * and top <= 100): no overflow */
  double jp = 0, jc = 1e-200, tmp[MIE_NMAX + 2];
  for (int n = top; n >= 1; n--) {
    double jm = (2 * n + 1) / z * jc - jp;
    jp = jc;
    jc = jm;
    if (n - 1 <= N) tmp[n - 1] = jc;
  }
  double s = sin(z) / z / tmp[0];
  for (int n = 0; n <= N; n++) j[n] = tmp[n] * s;
}

/* y_n(z) by upward recurrence (stable for y). */
static void sph_y(int N, double z, double *y) {
  y[0] = -cos(z) / z;
  if (N >= 1) y[1] = -cos(z) / (z * z) - sin(z) / z;
  for (int n = 1; n < N; n++) y[n + 1] = (2 * n + 1) / z * y[n] - y[n - 1];
}

/* Riccati-Bessel psi_n = z j_n, xi_n = z (j_n + i y_n) and their
 * derivatives f_n' = f_{n-1} - n f_n / z, n = 1..N. */
static void riccati(int N, double z, double *psi, double *dpsi, em_cplx *xi, em_cplx *dxi) {
  double j[MIE_NMAX + 2], y[MIE_NMAX + 2];
  sph_j(N, z, j);
  sph_y(N, z, y);
  for (int n = 0; n <= N; n++) {
    psi[n] = z * j[n];
    if (xi) xi[n] = z * (j[n] + I * y[n]);
  }
  for (int n = 1; n <= N; n++) {
    dpsi[n] = psi[n - 1] - n * psi[n] / z;
    if (xi) dxi[n] = xi[n - 1] - n * xi[n] / z;
  }
}

void mie_init(mie *s, double x, double m, int pec) {
  int N = (int)ceil(x + 4 * cbrt(x) + 8);
  if (N > MIE_NMAX) N = MIE_NMAX;
  s->n = N;
  s->x = x;
  double psi[MIE_NMAX + 2], dpsi[MIE_NMAX + 2], psm[MIE_NMAX + 2], dpsm[MIE_NMAX + 2];
  em_cplx xi[MIE_NMAX + 2], dxi[MIE_NMAX + 2];
  riccati(N, x, psi, dpsi, xi, dxi);
  if (!pec) riccati(N, m * x, psm, dpsm, NULL, NULL);
  for (int n = 1; n <= N; n++) {
    if (pec) {
      s->a[n] = dpsi[n] / dxi[n];
      s->b[n] = psi[n] / xi[n];
    } else {
      s->a[n] = (m * psm[n] * dpsi[n] - psi[n] * dpsm[n]) / (m * psm[n] * dxi[n] - xi[n] * dpsm[n]);
      s->b[n] = (psm[n] * dpsi[n] - m * psi[n] * dpsm[n]) / (psm[n] * dxi[n] - m * xi[n] * dpsm[n]);
    }
  }
}

/* pi_n = (2n-1)/(n-1) mu pi_{n-1} - n/(n-1) pi_{n-2}, pi_0 = 0, pi_1 = 1;
 * tau_n = n mu pi_n - (n+1) pi_{n-1};
 * S1 = sum (2n+1)/(n(n+1)) (a_n pi_n + b_n tau_n), S2 = the same with pi, tau swapped. */
void mie_s12(const mie *s, double theta, em_cplx *S1, em_cplx *S2) {
  double mu = cos(theta), pm = 0, pc = 1;
  *S1 = *S2 = 0;
  for (int n = 1; n <= s->n; n++) {
    if (n > 1) {
      double pn = (2.0 * n - 1) / (n - 1) * mu * pc - (double)n / (n - 1) * pm;
      pm = pc;
      pc = pn;
    }
    double tau = n * mu * pc - (n + 1) * pm, c = (2.0 * n + 1) / (n * (n + 1.0));
    *S1 += c * (s->a[n] * pc + s->b[n] * tau);
    *S2 += c * (s->a[n] * tau + s->b[n] * pc);
  }
}

double mie_sigma_norm(const mie *s, double theta, double phi) {
  em_cplx S1, S2;
  mie_s12(s, theta, &S1, &S2);
  double c = cos(phi), sn = sin(phi);
  double v = creal(S2 * conj(S2)) * c * c + creal(S1 * conj(S1)) * sn * sn;
  return 4 * v / (s->x * s->x);
}
