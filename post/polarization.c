/* polarization.c - circular components of a far field and its axial
 * ratio (IEEE Std 145; phasors exp(+j w t)).  With (theta_hat, phi_hat,
 * r_hat) right-handed, a right-hand circular wave travelling along r_hat
 * is u_R = (theta_hat - j phi_hat) / sqrt 2 (E turns from theta_hat to
 * phi_hat: counter-clockwise seen from behind the wave), the left-hand one
 * u_L = (theta_hat + j phi_hat) / sqrt 2.  They are orthonormal, so
 *   F = F_R u_R + F_L u_L,  F_R = (F_theta + j F_phi) / sqrt 2,
 *                           F_L = (F_theta - j F_phi) / sqrt 2,
 * |F|^2 = |F_R|^2 + |F_L|^2, and the polarisation ellipse has the axes
 * |F_R| + |F_L| and ||F_R| - |F_L||: AR = (|F_R| + |F_L|) / ||F_R| - |F_L||
 * (1: circular, inf: linear), 20 log10 AR in dB. */
#include <math.h>

#include "em_post.h"

void em_ff_circular(em_cplx f_theta, em_cplx f_phi, em_cplx *f_r, em_cplx *f_l, double *ar_db) {
  em_cplx r = (f_theta + I * f_phi) / sqrt(2.0), l = (f_theta - I * f_phi) / sqrt(2.0);
  if (f_r) *f_r = r;
  if (f_l) *f_l = l;
  if (ar_db) {
    double a = cabs(r), b = cabs(l), major = a + b, minor = fabs(a - b);
    *ar_db = major == 0 ? NAN : minor == 0 ? INFINITY : 20 * log10(major / minor);
  }
}
