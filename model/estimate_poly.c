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

/* E = sum_m c_m xi^e_m; dE/dxi_a and d2E/dxi_a dxi_b from the exponents,
 * then to x through g (d xi_a / dx_j). */
void est_poly_eval(const est_poly *P, const double lam[4], em_cplx E[3], em_cplx J[3][3],
                   em_cplx Hs[3][3][3]) {
  const est_fit *F = P->F;
  double pw[3][4];
  for (int a = 0; a < 3; a++) powers(lam[a + 1], pw[a]);
  em_cplx v[3] = {0}, d1[3][3] = {{0}}, d2[3][3][3] = {{{0}}};
  for (int m = 0; m < F->n; m++) {
    const int8_t *e = F->e[m];
    double f[3], df[3], ddf[3]; /* per variable: power, first and second derivative */
    for (int a = 0; a < 3; a++) {
      f[a] = pw[a][e[a]];
      df[a] = e[a] >= 1 ? e[a] * pw[a][e[a] - 1] : 0;
      ddf[a] = e[a] >= 2 ? e[a] * (e[a] - 1) * pw[a][e[a] - 2] : 0;
    }
    double val = f[0] * f[1] * f[2];
    double g1[3] = {df[0] * f[1] * f[2], f[0] * df[1] * f[2], f[0] * f[1] * df[2]};
    double g2[3][3] = {{ddf[0] * f[1] * f[2], df[0] * df[1] * f[2], df[0] * f[1] * df[2]},
                       {0, f[0] * ddf[1] * f[2], f[0] * df[1] * df[2]},
                       {0, 0, f[0] * f[1] * ddf[2]}};
    for (int k = 0; k < 3; k++) {
      em_cplx c = P->c[k][m];
      if (c == 0) continue;
      v[k] += c * val;
      for (int a = 0; a < 3; a++) d1[k][a] += c * g1[a];
      if (Hs)
        for (int a = 0; a < 3; a++)
          for (int b = a; b < 3; b++) d2[k][a][b] += c * g2[a][b];
    }
  }
  const double(*g)[3] = P->g;
  for (int k = 0; k < 3; k++) {
    E[k] = v[k];
    if (J)
      for (int j = 0; j < 3; j++)
        J[k][j] = d1[k][0] * g[0][j] + d1[k][1] * g[1][j] + d1[k][2] * g[2][j];
    if (!Hs) continue;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < a; b++) d2[k][a][b] = d2[k][b][a];
    for (int j = 0; j < 3; j++)
      for (int l = 0; l < 3; l++) {
        em_cplx s = 0;
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) s += d2[k][a][b] * g[a][j] * g[b][l];
        Hs[k][j][l] = s;
      }
  }
}
