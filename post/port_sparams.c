/* port_sparams.c - scattering parameters and input impedances from what
 * the ports measured (formulas in em_post.h). */
#include <math.h>
#include <string.h>

#include "em_post.h"

#define EM_PORTS_MAX 16

/* X = A^-1 B for n x n complex matrices (Gauss-Jordan, partial pivoting). */
static em_err solve_small(int n, em_cplx *A, em_cplx *B) {
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (cabs(A[r * n + c]) > cabs(A[piv * n + c])) piv = r;
    EM_CHECK(cabs(A[piv * n + c]) > 1e-300, EM_ERR_NUMERIC,
             "port renormalisation: the impedance matrix is singular (a port sees a short or "
             "an open)");
    for (int k = 0; k < n; k++) {
      em_cplx t = A[c * n + k];
      A[c * n + k] = A[piv * n + k], A[piv * n + k] = t;
      t = B[c * n + k];
      B[c * n + k] = B[piv * n + k], B[piv * n + k] = t;
    }
    em_cplx d = A[c * n + c];
    for (int k = 0; k < n; k++) A[c * n + k] /= d, B[c * n + k] /= d;
    for (int r = 0; r < n; r++) {
      if (r == c) continue;
      em_cplx f = A[r * n + c];
      for (int k = 0; k < n; k++)
        A[r * n + k] -= f * A[c * n + k], B[r * n + k] -= f * B[c * n + k];
    }
  }
  return EM_OK;
}

/* Z = sqrt(R) (1 + S)(1 - S)^-1 sqrt(R); S' = D (Z - R')(Z + R')^-1 D^-1,
 * D = diag(1 / sqrt(R')) (power waves, real references).  In place on S. */
em_err em_port_renormalise(int n, em_cplx *S, const double *R, const double *Rn) {
  EM_CHECK(n >= 1 && n <= EM_PORTS_MAX, EM_ERR_ARG, "%d ports (1..%d supported)", n, EM_PORTS_MAX);
  for (int i = 0; i < n; i++)
    EM_CHECK(R[i] > 0 && Rn[i] > 0 && isfinite(R[i]) && isfinite(Rn[i]), EM_ERR_ARG,
             "port %d: renormalisation from %g to %g ohm", i + 1, R[i], Rn[i]);
  em_cplx A[EM_PORTS_MAX * EM_PORTS_MAX], B[EM_PORTS_MAX * EM_PORTS_MAX];
  /* (1 - S)^T Z^T = ((1 + S) ...)^T: solve with transposes so that the
   * right factor is inverted: Z = sqrt R (1+S) (1-S)^-1 sqrt R */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = (i == j) - S[j * n + i]; /* (1 - S)^T */
      B[i * n + j] = (i == j) + S[j * n + i]; /* (1 + S)^T */
    }
  EM_TRY(solve_small(n, A, B)); /* B = ((1+S)(1-S)^-1)^T */
  em_cplx Z[EM_PORTS_MAX * EM_PORTS_MAX];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) Z[i * n + j] = sqrt(R[i]) * B[j * n + i] * sqrt(R[j]);
  /* X = (Z - R')(Z + R')^-1: X^T = (Z + R')^-T (Z - R')^T */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = Z[j * n + i] + (i == j) * Rn[i];
      B[i * n + j] = Z[j * n + i] - (i == j) * Rn[i];
    }
  EM_TRY(solve_small(n, A, B));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) S[i * n + j] = B[j * n + i] * sqrt(Rn[j]) / sqrt(Rn[i]);
  return EM_OK;
}

em_err em_port_sparams(int n, const em_port *ports, const em_cplx *meas, em_cplx *S, double *zref,
                       em_cplx *zin) {
  EM_CHECK(n >= 1 && n <= EM_PORTS_MAX, EM_ERR_ARG, "%d ports (1..%d supported)", n, EM_PORTS_MAX);
  double Rm[EM_PORTS_MAX];
  int renorm = 0;
  for (int i = 0; i < n; i++) {
    Rm[i] = creal(ports[i].z_mode);
    zref[i] = ports[i].z_ref > 0 ? ports[i].z_ref : Rm[i];
    renorm |= fabs(zref[i] - Rm[i]) > 1e-12 * Rm[i];
  }
  for (int i = 0; i < n; i++) { /* excitation i */
    const em_port *pi = &ports[i];
    double a = pi->type == EM_PORT_LUMPED ? sqrt(Rm[i]) / 2 : sqrt(2.0);
    for (int j = 0; j < n; j++) {
      const em_port *pj = &ports[j];
      em_cplx c = meas[i * n + j], b;
      if (pj->type == EM_PORT_LUMPED) {
        em_cplx I_j = (i == j ? 1.0 : 0.0) - c / Rm[j]; /* current into the structure */
        b = (c - Rm[j] * I_j) / (2 * sqrt(Rm[j]));
      } else {
        b = sqrt(2.0) * (c - (i == j ? 1.0 : 0.0));
      }
      em_cplx s = b / a;
      if (pi->type != EM_PORT_LUMPED) s *= cexp(I * pi->beta * pi->deembed);
      if (pj->type != EM_PORT_LUMPED) s *= cexp(I * pj->beta * pj->deembed);
      S[j * n + i] = s;
    }
  }
  if (renorm) EM_TRY(em_port_renormalise(n, S, Rm, zref));
  for (int i = 0; i < n; i++) {
    em_cplx s = S[i * n + i];
    zin[i] = cabs(1 - s) > 1e-300 ? zref[i] * (1 + s) / (1 - s) : INFINITY;
  }
  return EM_OK;
}

/* Wave port: a = sqrt 2 (1 W), b = sqrt 2 (c - 1): P_acc = 1 - |c - 1|^2.
 * Lumped: a = sqrt(R) / 2 (R / 8 W), P_acc = 1/2 Re(V conj(I)), I = 1 - V / R. */
void em_port_power(const em_port *p, em_cplx meas, double *p_inc, double *p_acc) {
  if (p->type == EM_PORT_LUMPED) {
    double R = creal(p->z_mode);
    em_cplx I_in = 1 - meas / R;
    *p_inc = R / 8;
    *p_acc = 0.5 * creal(meas * conj(I_in));
  } else {
    em_cplx b = meas - 1;
    *p_inc = 1;
    *p_acc = 1 - creal(b * conj(b));
  }
}
