/* port_sparams.c - scattering parameters and input impedances from what
 * the ports measured (formulas in em_post.h). */
#include <math.h>
#include <string.h>

#include "em_post.h"

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
  EM_CHECK(n >= 1 && n <= EM_MAX_PORTS, EM_ERR_ARG, "%d ports (1..%d supported)", n, EM_MAX_PORTS);
  for (int i = 0; i < n; i++)
    EM_CHECK(R[i] > 0 && Rn[i] > 0 && isfinite(R[i]) && isfinite(Rn[i]), EM_ERR_ARG,
             "port %d: renormalisation from %g to %g ohm", i + 1, R[i], Rn[i]);
  em_cplx A[EM_MAX_PORTS * EM_MAX_PORTS], B[EM_MAX_PORTS * EM_MAX_PORTS];
  /* (1 - S)^T Z^T = ((1 + S) ...)^T: solve with transposes so that the
   * right factor is inverted: Z = sqrt R (1+S) (1-S)^-1 sqrt R */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = (i == j) - S[j * n + i]; /* (1 - S)^T */
      B[i * n + j] = (i == j) + S[j * n + i]; /* (1 + S)^T */
    }
  EM_TRY(solve_small(n, A, B)); /* B = ((1+S)(1-S)^-1)^T */
  em_cplx Z[EM_MAX_PORTS * EM_MAX_PORTS];
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

/* The solve drives each port in turn with the others passive: a wave port
 * by its unit-power mode (x = a = sqrt 2, others matched), a lumped port by
 * 1 A of current with no resistor across it (x = I, other lumped ports
 * open).  The response y_j = H_ji x_i is b_j = sqrt 2 (c_j - delta_ij) at a
 * wave port and V_j = c_j at a lumped one.  Power waves of a lumped port
 * with reference R: a = (V + R I) / (2 sqrt R), b = (V - R I) / (2 sqrt R),
 * so a = P x, b = Q x with P, Q from H, and S = Q P^-1 (P^T S^T = Q^T).
 * R enters only here: a lossless structure gives a Z = V / I with Re Z = 0
 * whatever the reference (a resistive sheet of R in the mesh would spread
 * its current unevenly over the gap and add loss that depends on R). */
em_err em_port_sparams(int n, const em_port *ports, const em_cplx *meas, em_cplx *S, double *zref,
                       em_cplx *zin) {
  EM_CHECK(n >= 1 && n <= EM_MAX_PORTS, EM_ERR_ARG, "%d ports (1..%d supported)", n, EM_MAX_PORTS);
  double Rm[EM_MAX_PORTS];
  int renorm = 0;
  for (int i = 0; i < n; i++) {
    Rm[i] = creal(ports[i].z_mode);
    zref[i] = ports[i].z_ref > 0 ? ports[i].z_ref : Rm[i];
    renorm |= fabs(zref[i] - Rm[i]) > 1e-12 * Rm[i];
  }
  em_cplx H[EM_MAX_PORTS * EM_MAX_PORTS]; /* H[j * n + i]: y_j for x_i = 1 */
  for (int i = 0; i < n; i++) {           /* excitation i */
    const em_port *pi = &ports[i];
    double x = pi->type == EM_PORT_LUMPED ? 1.0 : sqrt(2.0);
    for (int j = 0; j < n; j++) {
      const em_port *pj = &ports[j];
      em_cplx c = meas[i * n + j];
      em_cplx y = pj->type == EM_PORT_LUMPED ? c : sqrt(2.0) * (c - (i == j ? 1.0 : 0.0));
      em_cplx h = y / x;
      /* moved reference planes: a_i -> a_i e^{-j beta d}, b_j -> b_j e^{j beta d} */
      if (pi->type != EM_PORT_LUMPED) h *= cexp(I * pi->beta * pi->deembed);
      if (pj->type != EM_PORT_LUMPED) h *= cexp(I * pj->beta * pj->deembed);
      H[j * n + i] = h;
    }
  }
  em_cplx P[EM_MAX_PORTS * EM_MAX_PORTS], Q[EM_MAX_PORTS * EM_MAX_PORTS];
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++) {
      em_cplx h = H[k * n + i], p, q;
      if (ports[k].type == EM_PORT_LUMPED) {
        double R = Rm[k], d = (k == i) * R;
        p = (h + d) / (2 * sqrt(R));
        q = (h - d) / (2 * sqrt(R));
      } else {
        p = (k == i);
        q = h;
      }
      P[i * n + k] = p; /* transposed: P^T S^T = Q^T */
      Q[i * n + k] = q;
    }
  EM_TRY(solve_small(n, P, Q)); /* Q = S^T */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) S[i * n + j] = Q[j * n + i];
  if (renorm) EM_TRY(em_port_renormalise(n, S, Rm, zref));
  for (int i = 0; i < n; i++) {
    em_cplx s = S[i * n + i];
    zin[i] = cabs(1 - s) > 1e-300 ? zref[i] * (1 + s) / (1 - s) : INFINITY;
  }
  return EM_OK;
}

/* Only the columns of the excited ports (Excitation/ports): with wave
 * ports on their own references P = 1 above, so S = H column by column
 * and a column needs its own solve alone; the columns not solved are NaN
 * (as their Zin).  Lumped ports and renormalisation mix the columns: they
 * need all (model/excite.c refuses a subset with them). */
em_err em_port_sparams_cols(int n, const em_port *ports, uint32_t excited, const em_cplx *meas,
                            em_cplx *S, double *zref, em_cplx *zin) {
  EM_CHECK(n >= 1 && n <= EM_MAX_PORTS, EM_ERR_ARG, "%d ports (1..%d supported)", n, EM_MAX_PORTS);
  uint32_t all = n >= 32 ? 0xffffffffu : (1u << n) - 1;
  if ((excited & all) == all) return em_port_sparams(n, ports, meas, S, zref, zin);
  for (int i = 0; i < n; i++) {
    double Rm = creal(ports[i].z_mode);
    zref[i] = ports[i].z_ref > 0 ? ports[i].z_ref : Rm;
    EM_CHECK(ports[i].type != EM_PORT_LUMPED && fabs(zref[i] - Rm) <= 1e-12 * Rm, EM_ERR_INPUT,
             "%s: a %s needs every port excited (Excitation/ports all)", ports[i].name,
             ports[i].type == EM_PORT_LUMPED ? "lumped port" : "renormalised reference");
  }
  for (int i = 0; i < n; i++) { /* excitation i */
    const em_port *pi = &ports[i];
    int on = excited >> i & 1u;
    for (int j = 0; j < n; j++) {
      const em_port *pj = &ports[j];
      if (!on) {
        S[j * n + i] = CMPLX(NAN, NAN);
        continue;
      }
      /* as em_port_sparams: h = y / x = c - delta_ij, the reference planes moved */
      em_cplx h = meas[i * n + j] - (i == j ? 1.0 : 0.0);
      h *= cexp(I * pi->beta * pi->deembed);
      h *= cexp(I * pj->beta * pj->deembed);
      S[j * n + i] = h;
    }
    em_cplx sii = S[i * n + i];
    zin[i] = !on                      ? CMPLX(NAN, NAN)
             : cabs(1 - sii) > 1e-300 ? zref[i] * (1 + sii) / (1 - sii)
                                      : INFINITY;
  }
  return EM_OK;
}

/* Wave port: a = sqrt 2 (1 W), b = sqrt 2 (c - 1): P_acc = 1 - |c - 1|^2.
 * Lumped, driven by I = 1 A: a = (V + R) / (2 sqrt R), P_inc = |a|^2 / 2 =
 * |V + R|^2 / (8 R), P_acc = 1/2 Re(V I*) = Re V / 2. */
void em_port_power(const em_port *p, em_cplx meas, double *p_inc, double *p_acc) {
  if (p->type == EM_PORT_LUMPED) {
    double R = creal(p->z_mode);
    em_cplx a = meas + R;
    *p_inc = creal(a * conj(a)) / (8 * R);
    *p_acc = 0.5 * creal(meas);
  } else {
    em_cplx b = meas - 1;
    *p_inc = 1;
    *p_acc = 1 - creal(b * conj(b));
  }
}
