/* estimate_poly.c - a degree-p vector field on a straight tet as monomials
 * in the local coordinates xi = (lambda_1, lambda_2, lambda_3), fitted on
 * the principal lattice (estimate_impl.h).  First-kind Nedelec fields of
 * order p are polynomials of degree p in x, hence in xi: the fit
 * reproduces E_h exactly (to rounding) and its derivatives follow by the
 * chain rule d/dx_j = sum_a (d xi_a / dx_j) d/dxi_a. */
#include <math.h>
#include <string.h>

#include "estimate_impl.h"

/* V^-1 by Gauss-Jordan elimination with partial pivoting on [V | I]. */
static em_err invert(int n, double V[EST_NM][EST_NM], double Vi[EST_NM][EST_NM]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) Vi[i][j] = i == j;
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(V[r][c]) > fabs(V[piv][c])) piv = r;
    EM_CHECK(fabs(V[piv][c]) > 1e-12, EM_ERR_NUMERIC,
             "error estimate: the lattice Vandermonde matrix is singular at column %d", c);
    for (int j = 0; j < n; j++) {
      double t = V[c][j];
      V[c][j] = V[piv][j], V[piv][j] = t;
      t = Vi[c][j];
      Vi[c][j] = Vi[piv][j], Vi[piv][j] = t;
    }
    double d = V[c][c];
    for (int j = 0; j < n; j++) V[c][j] /= d, Vi[c][j] /= d;
    for (int r = 0; r < n; r++) {
      if (r == c || V[r][c] == 0) continue;
      double f = V[r][c];
      for (int j = 0; j < n; j++) V[r][j] -= f * V[c][j], Vi[r][j] -= f * Vi[c][j];
    }
  }
  return EM_OK;
}

/* x^k for k = 0..3 */
static void powers(double x, double pw[4]) {
  pw[0] = 1, pw[1] = x, pw[2] = x * x, pw[3] = x * x * x;
}

em_err est_fit_init(int p, est_fit *F) {
  EM_CHECK(p >= 1 && p <= 3, EM_ERR_ARG, "error estimate: order %d outside 1..3", p);
  memset(F, 0, sizeof *F);
  F->p = p;
  int n = 0, k = 0;
  for (int s = 0; s <= p; s++) /* monomials by total degree */
    for (int a = s; a >= 0; a--)
      for (int b = s - a; b >= 0; b--, n++)
        F->e[n][0] = (int8_t)a, F->e[n][1] = (int8_t)b, F->e[n][2] = (int8_t)(s - a - b);
  for (int i1 = 0; i1 <= p; i1++) /* lattice points i / p */
    for (int i2 = 0; i1 + i2 <= p; i2++)
      for (int i3 = 0; i1 + i2 + i3 <= p; i3++, k++) {
        F->lam[k][0] = (double)(p - i1 - i2 - i3) / p;
        F->lam[k][1] = (double)i1 / p, F->lam[k][2] = (double)i2 / p, F->lam[k][3] = (double)i3 / p;
      }
  F->n = n;
  double V[EST_NM][EST_NM];
  for (int i = 0; i < n; i++) {
    double pw[3][4];
    for (int a = 0; a < 3; a++) powers(F->lam[i][a + 1], pw[a]);
    for (int m = 0; m < n; m++) V[i][m] = pw[0][F->e[m][0]] * pw[1][F->e[m][1]] * pw[2][F->e[m][2]];
  }
  return invert(n, V, F->vinv);
}

void est_poly_terms(const est_fit *F, const double lam[4], double b[EST_NM][EST_NT]) {
  double pw[3][4], d1w[3][4], d2w[3][4];
  for (int a = 0; a < 3; a++) {
    powers(lam[a + 1], pw[a]);
    for (int e = 0; e < 4; e++) {
      d1w[a][e] = e >= 1 ? e * pw[a][e - 1] : 0;
      d2w[a][e] = e >= 2 ? e * (e - 1) * pw[a][e - 2] : 0;
    }
  }
  for (int m = 0; m < F->n; m++) {
    const int8_t *e = F->e[m];
    double f0 = pw[0][e[0]], f1 = pw[1][e[1]], f2 = pw[2][e[2]];
    double df0 = d1w[0][e[0]], df1 = d1w[1][e[1]], df2 = d1w[2][e[2]];
    double *t = b[m];
    t[0] = f0 * f1 * f2;
    t[1] = df0 * f1 * f2, t[2] = f0 * df1 * f2, t[3] = f0 * f1 * df2;
    t[4] = d2w[0][e[0]] * f1 * f2, t[5] = df0 * df1 * f2, t[6] = df0 * f1 * df2;
    t[7] = f0 * d2w[1][e[1]] * f2, t[8] = f0 * df1 * df2, t[9] = f0 * f1 * d2w[2][e[2]];
  }
}

/* E = sum_m c_m xi^e_m; dE/dxi_a and d2E/dxi_a dxi_b from the terms, then
 * to x through g (d xi_a / dx_j).  The sums run over the monomials in
 * order into split real and imaginary parts (a complex times a real is
 * two real products; a zero coefficient adds a signed zero to a sum that
 * is never -0, which leaves it as it is), and only the second derivatives
 * the curl of a curl reads (k != j) are formed: the same bits as the
 * plain complex loops, several times faster (issue 24). */
void est_poly_eval_terms(const est_poly *P, const double (*b)[EST_NT], em_cplx E[3],
                         em_cplx J[3][3], em_cplx Hs[3][3][3]) {
  const est_fit *F = P->F;
  /* rows 2k, 2k+1: Re, Im of component k; columns: est_poly_terms' */
  double acc[6][EST_NT] = {{0}};
  for (int m = 0; m < F->n; m++) {
    double cv[6];
    for (int k = 0; k < 3; k++) cv[2 * k] = creal(P->c[k][m]), cv[2 * k + 1] = cimag(P->c[k][m]);
    const double *t = b[m];
    for (int r = 0; r < 6; r++)
      for (int u = 0; u < EST_NT; u++) acc[r][u] += cv[r] * t[u];
  }
  static const int ab[3][3] = {{4, 5, 6}, {5, 7, 8}, {6, 8, 9}};
  const double(*g)[3] = P->g;
  for (int k = 0; k < 3; k++) {
    const double *re = acc[2 * k], *im = acc[2 * k + 1];
    E[k] = CMPLX(re[0], im[0]);
    if (J)
      for (int j = 0; j < 3; j++) {
        double sr = re[1] * g[0][j] + re[2] * g[1][j] + re[3] * g[2][j];
        double si = im[1] * g[0][j] + im[2] * g[1][j] + im[3] * g[2][j];
        J[k][j] = CMPLX(sr, si);
      }
    if (!Hs) continue;
    for (int j = 0; j < 3; j++) {
      if (j == k) continue; /* d2E_k/dx_k dx_l: not read (estimate.c) */
      for (int l = 0; l < 3; l++) {
        double sr = 0, si = 0;
        for (int a = 0; a < 3; a++)
          for (int b2 = 0; b2 < 3; b2++) {
            double w = g[a][j], w2 = g[b2][l];
            sr += re[ab[a][b2]] * w * w2;
            si += im[ab[a][b2]] * w * w2;
          }
        Hs[k][j][l] = CMPLX(sr, si);
      }
    }
  }
}

void est_poly_eval(const est_poly *P, const double lam[4], em_cplx E[3], em_cplx J[3][3],
                   em_cplx Hs[3][3][3]) {
  double b[EST_NM][EST_NT];
  est_poly_terms(P->F, lam, b);
  est_poly_eval_terms(P, (const double(*)[EST_NT])b, E, J, Hs);
}
