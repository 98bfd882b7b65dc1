/* geometry.c - affine map of one tet: vertex coordinates, gradients of the
 * barycentric coordinates, volume. */
#include "em_assembly.h"

#include <math.h>

/* With a, b, c the edges x1-x0, x2-x0, x3-x0 and D = a.(b x c):
 * g1 = (b x c)/D, g2 = (c x a)/D, g3 = (a x b)/D (rows of J^-1),
 * g0 = -(g1 + g2 + g3) since the barycentrics sum to 1; vol = |D|/6. */
void em_tet_geom_make(const em_mesh *m, int32_t t, em_tet_geom *g) {
  const int32_t *v = m->tet + 4 * (size_t)t;
  for (int i = 0; i < 4; i++)
    for (int d = 0; d < 3; d++) g->x[i][d] = m->xyz[3 * (size_t)v[i] + d];
  double e[3][3];
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) e[i][d] = g->x[i + 1][d] - g->x[0][d];
  for (int i = 0; i < 3; i++) {
    const double *p = e[(i + 1) % 3], *q = e[(i + 2) % 3];
    g->grad[i + 1][0] = p[1] * q[2] - p[2] * q[1];
    g->grad[i + 1][1] = p[2] * q[0] - p[0] * q[2];
    g->grad[i + 1][2] = p[0] * q[1] - p[1] * q[0];
  }
  double D = e[0][0] * g->grad[1][0] + e[0][1] * g->grad[1][1] + e[0][2] * g->grad[1][2];
  for (int i = 1; i < 4; i++)
    for (int d = 0; d < 3; d++) g->grad[i][d] /= D;
  for (int d = 0; d < 3; d++) g->grad[0][d] = -(g->grad[1][d] + g->grad[2][d] + g->grad[3][d]);
  g->vol = fabs(D) / 6;
}
