/* geometry.c - the map of one tet: vertex coordinates, gradients of the
 * barycentric coordinates, volume; for a curved (second-order) tet the
 * quadratic map point by point. */
#include "em_assembly.h"
#include "quadrature_impl.h"

#include <math.h>
#include <string.h>

static void cross(const double *p, const double *q, double *r) {
  r[0] = p[1] * q[2] - p[2] * q[1];
  r[1] = p[2] * q[0] - p[0] * q[2];
  r[2] = p[0] * q[1] - p[1] * q[0];
}

static double dot(const double *p, const double *q) {
  return p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
}

/* With columns a, b, c of J and D = a.(b x c): the rows of J^-1 are
 * (b x c)/D, (c x a)/D, (a x b)/D = the gradients of lam_1..3, and
 * grad lam_0 = -(g1 + g2 + g3) since the barycentrics sum to 1.  Returns D. */
static double invert(const double e[3][3], double grad[4][3]) {
  for (int i = 0; i < 3; i++) cross(e[(i + 1) % 3], e[(i + 2) % 3], grad[i + 1]);
  double D = dot(e[0], grad[1]);
  for (int i = 1; i < 4; i++)
    for (int d = 0; d < 3; d++) grad[i][d] /= D;
  for (int d = 0; d < 3; d++) grad[0][d] = -(grad[1][d] + grad[2][d] + grad[3][d]);
  return D;
}

/* Affine part from the vertices (e_i = x_i - x_0, vol = |D|/6); the tet is
 * curved when some mid-edge node is off its straight midpoint by more than
 * EM_CURVED_TOL of the edge's length. */
void em_tet_geom_make(const em_mesh *m, int32_t t, em_tet_geom *g) {
  const int32_t *v = m->tet + 4 * (size_t)t;
  for (int i = 0; i < 4; i++)
    for (int d = 0; d < 3; d++) g->x[i][d] = m->xyz[3 * (size_t)v[i] + d];
  double e[3][3];
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) e[i][d] = g->x[i + 1][d] - g->x[0][d];
  g->vol = fabs(invert(e, g->grad)) / 6;
  g->curved = 0;
  if (!m->edge_mid) return;
  for (int k = 0; k < 6; k++) {
    const double *xm = m->edge_mid + 3 * (size_t)m->tet_edge[6 * (size_t)t + k];
    const double *a = g->x[EM_TET_EDGE[k][0]], *b = g->x[EM_TET_EDGE[k][1]];
    double off = 0, len = 0;
    for (int d = 0; d < 3; d++) {
      g->xm[k][d] = xm[d];
      off += (xm[d] - 0.5 * (a[d] + b[d])) * (xm[d] - 0.5 * (a[d] + b[d]));
      len += (b[d] - a[d]) * (b[d] - a[d]);
    }
    if (off > EM_CURVED_TOL * EM_CURVED_TOL * len) g->curved = 1;
  }
}

/* Quadratic map: dx/dlam_a = (4 lam_a - 1) x_a + sum over the edges (a, b)
 * at a of 4 lam_b xm_ab; with reference coordinates xi_k = lam_k (k = 1..3)
 * and lam_0 = 1 - sum xi, column k of J is dx/dlam_k - dx/dlam_0. */
int em_tet_geom_at(const em_tet_geom *g, const double lam[4], double x[3], double grad[4][3],
                   double *dv) {
  if (!g->curved) {
    for (int d = 0; d < 3; d++) x[d] = 0;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) x[d] += lam[a] * g->x[a][d];
    memcpy(grad, g->grad, sizeof g->grad);
    *dv = g->vol;
    return 0;
  }
  double dl[4][3];
  for (int d = 0; d < 3; d++) x[d] = 0;
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) {
      x[d] += lam[a] * (2 * lam[a] - 1) * g->x[a][d];
      dl[a][d] = (4 * lam[a] - 1) * g->x[a][d];
    }
  for (int k = 0; k < 6; k++) {
    int a = EM_TET_EDGE[k][0], b = EM_TET_EDGE[k][1];
    for (int d = 0; d < 3; d++) {
      x[d] += 4 * lam[a] * lam[b] * g->xm[k][d];
      dl[a][d] += 4 * lam[b] * g->xm[k][d];
      dl[b][d] += 4 * lam[a] * g->xm[k][d];
    }
  }
  double e[3][3], e0[3][3], g0[4][3];
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) {
      e[i][d] = dl[i + 1][d] - dl[0][d];
      e0[i][d] = g->x[i + 1][d] - g->x[0][d];
    }
  double D = invert(e, grad), D0 = invert(e0, g0);
  *dv = fabs(D) / 6;
  return D * D0 > 0 && isfinite(D) ? 0 : -1;
}

int em_tet_local_face(const em_mesh *m, int32_t t, int32_t f) {
  for (int lf = 0; lf < 4; lf++)
    if (m->tet_face[4 * (size_t)t + lf] == f) return lf;
  return -1;
}

/* dx/dlam_a of the map (the straight one: x_a), as in em_tet_geom_at */
static void map_dlam(const em_tet_geom *g, const double lam[4], double dl[4][3]) {
  if (!g->curved) {
    memcpy(dl, g->x, sizeof g->x);
    return;
  }
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) dl[a][d] = (4 * lam[a] - 1) * g->x[a][d];
  for (int k = 0; k < 6; k++) {
    int a = EM_TET_EDGE[k][0], b = EM_TET_EDGE[k][1];
    for (int d = 0; d < 3; d++) {
      dl[a][d] += 4 * lam[b] * g->xm[k][d];
      dl[b][d] += 4 * lam[a] * g->xm[k][d];
    }
  }
}

/* The face f = EM_TET_FACE[lf] = (a, b, c) parametrised by (s, t) with
 * lam_a = 1 - s - t, lam_b = s, lam_c = t: T1 = dx/ds = dx/dlam_b -
 * dx/dlam_a, T2 = dx/dt = dx/dlam_c - dx/dlam_a, dA = |T1 x T2| ds dt; the
 * reference triangle has area 1/2, so with weights summing to 1 the area
 * element per weight is |T1 x T2| / 2 (the area itself for a flat face). */
void em_tet_face_at(const em_tet_geom *g, int lf, const double mu[3], double lam[4], double x[3],
                    double grad[4][3], double *da, double n[3], double tan[2][3]) {
  const int *fv = EM_TET_FACE[lf];
  lam[0] = lam[1] = lam[2] = lam[3] = 0;
  for (int v = 0; v < 3; v++) lam[fv[v]] = mu[v];
  double dv;
  em_tet_geom_at(g, lam, x, grad, &dv);
  double dl[4][3], t1[3], t2[3], N[3];
  map_dlam(g, lam, dl);
  for (int d = 0; d < 3; d++) {
    t1[d] = dl[fv[1]][d] - dl[fv[0]][d];
    t2[d] = dl[fv[2]][d] - dl[fv[0]][d];
  }
  N[0] = t1[1] * t2[2] - t1[2] * t2[1];
  N[1] = t1[2] * t2[0] - t1[0] * t2[2];
  N[2] = t1[0] * t2[1] - t1[1] * t2[0];
  double nn = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]), s = 0;
  for (int d = 0; d < 3; d++) s += N[d] * (g->x[fv[0]][d] - g->x[lf][d]); /* out of the tet */
  *da = 0.5 * nn;
  for (int d = 0; d < 3; d++) n[d] = nn > 0 ? (s < 0 ? -1 : 1) * N[d] / nn : 0;
  if (tan) {
    memcpy(tan[0], t1, sizeof t1);
    memcpy(tan[1], t2, sizeof t2);
  }
}

/* Whether the map of tet t keeps the sign of det J at the points where the
 * assembly and the field evaluation take it: the highest tet rule (the
 * curved element matrices, the sources), the vertices and the centroid. */
static int folds(const em_mesh *m, int32_t t, const em_quad *q) {
  em_tet_geom g;
  em_tet_geom_make(m, t, &g);
  if (!g.curved) return 0;
  double x[3], grad[4][3], dv;
  for (int k = 0; k < q->n; k++)
    if (em_tet_geom_at(&g, q->lam + 4 * k, x, grad, &dv)) return 1;
  static const double V[5][4] = {
      {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {0.25, 0.25, 0.25, 0.25}};
  for (int k = 0; k < 5; k++)
    if (em_tet_geom_at(&g, V[k], x, grad, &dv)) return 1;
  return 0;
}

/* A tet whose quadratic map folds gets its six edges straightened (mid
 * node at the midpoint: the edge is shared, so every tet around it sees
 * the same straight edge and the mesh stays conforming); repeated until no
 * tet folds (a straight tet never does). */
em_err em_curved_unfold(em_mesh *m, int32_t *n_edges) {
  *n_edges = 0;
  if (!m->edge_mid) return EM_OK;
  em_quad q;
  EM_TRY(em_quad_tet(EM_QUAD_MAX_DEGREE, &q));
  for (int pass = 0; pass < 16; pass++) {
    int32_t fixed = 0;
    for (int32_t t = 0; t < m->n_tet; t++) {
      if (!folds(m, t, &q)) continue;
      for (int k = 0; k < 6; k++) {
        int32_t e = m->tet_edge[6 * (size_t)t + k];
        const double *a = m->xyz + 3 * (size_t)m->edge[2 * (size_t)e],
                     *b = m->xyz + 3 * (size_t)m->edge[2 * (size_t)e + 1];
        for (int d = 0; d < 3; d++) m->edge_mid[3 * (size_t)e + d] = 0.5 * (a[d] + b[d]);
      }
      fixed++;
    }
    *n_edges += 6 * fixed;
    if (!fixed) return EM_OK;
  }
  return EM_RAISE(EM_ERR_INTERNAL, "curved tets still fold after straightening their edges");
}
