/* locate.c - which tet holds a point. */
#include <math.h>

#include "em_mesh.h"

/* lam_1..3 solve [x1-x0 x2-x0 x3-x0] lam = x - x0 (Cramer), lam_0 = 1 - sum. */
static int barycentric(const em_mesh *m, int32_t t, const double x[3], double lam[4]) {
  const double *p0 = m->xyz + 3 * (size_t)m->tet[4 * t];
  double a[3][3], r[3];
  for (int k = 0; k < 3; k++) {
    const double *p = m->xyz + 3 * (size_t)m->tet[4 * t + k + 1];
    for (int d = 0; d < 3; d++) a[d][k] = p[d] - p0[d];
  }
  for (int d = 0; d < 3; d++) r[d] = x[d] - p0[d];
  double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
               a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  if (det == 0) return 0;
  for (int k = 0; k < 3; k++) {
    double b[3][3];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) b[i][j] = j == k ? r[i] : a[i][j];
    lam[k + 1] = (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
                  b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                  b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0])) /
                 det;
  }
  lam[0] = 1 - lam[1] - lam[2] - lam[3];
  const double tol = -1e-10;
  return lam[0] >= tol && lam[1] >= tol && lam[2] >= tol && lam[3] >= tol;
}

void em_mesh_locate(const em_mesh *m, const double x[3], int32_t *t, double lam[4]) {
  *t = -1;
  for (int32_t k = 0; k < m->n_tet; k++) {
    int out = 0;
    for (int d = 0; d < 3 && !out; d++) {
      double lo = INFINITY, hi = -INFINITY;
      for (int a = 0; a < 4; a++) {
        double c = m->xyz[3 * (size_t)m->tet[4 * k + a] + d];
        lo = fmin(lo, c), hi = fmax(hi, c);
      }
      double pad = 1e-12 * (hi - lo);
      out = x[d] < lo - pad || x[d] > hi + pad;
    }
    if (!out && barycentric(m, k, x, lam)) {
      *t = k;
      return;
    }
  }
}
