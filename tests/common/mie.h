/* mie.h - the Mie series for a sphere in a plane wave (docs/validation.md
 * R6; Bohren & Huffman, "Absorption and Scattering of Light by Small
 * Particles", ch. 4), the reference of the scattering tests.
 *
 * Size parameter x = k a, relative refractive index m (real, mu_r = 1), or
 * a perfectly conducting sphere.  For a wave travelling along +z with E
 * along x, the bistatic cross section at scattering angle theta (from the
 * forward direction) and azimuth phi is
 *   sigma = 4 pi / k^2 (|S2(theta)|^2 cos^2 phi + |S1(theta)|^2 sin^2 phi). */
#ifndef EM_TEST_MIE_H
#define EM_TEST_MIE_H

#include "em_core.h"

#define MIE_NMAX 40

typedef struct mie {
  int n;                                    /* terms used */
  double x;                                 /* k a */
  em_cplx a[MIE_NMAX + 1], b[MIE_NMAX + 1]; /* a_n, b_n for n = 1..n */
} mie;

/* pec != 0: perfectly conducting (m ignored). */
void mie_init(mie *s, double x, double m, int pec);
/* S1, S2 at theta (radians). */
void mie_s12(const mie *s, double theta, em_cplx *S1, em_cplx *S2);
/* sigma / (pi a^2) at (theta, phi). */
double mie_sigma_norm(const mie *s, double theta, double phi);

#endif
