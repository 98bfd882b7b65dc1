/* stats.c - mesh statistics: counts, sizes, element quality. */
#include "em_mesh.h"

#include <math.h>

static void sub(const double *a, const double *b, double *c) {
  for (int i = 0; i < 3; i++) c[i] = a[i] - b[i];
}
static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
static double dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* V = (x1-x0) . ((x2-x0) x (x3-x0)) / 6 */
double em_tet_volume(const em_mesh *m, int32_t t) {
  const double *p[4];
  for (int a = 0; a < 4; a++) p[a] = m->xyz + 3 * (size_t)m->tet[4 * t + a];
  double u[3], v[3], w[3], c[3];
  sub(p[1], p[0], u);
  sub(p[2], p[0], v);
  sub(p[3], p[0], w);
  cross(v, w, c);
  return dot(u, c) / 6.0;
}

/* q = 3 r_in / r_circ, r_in = 3V / sum(face areas), r_circ = |c - x0| with the
 * circumcentre c solving 2 (x_i - x0) . c' = |x_i - x0|^2 (c' = c - x0). */
double em_tet_quality(const em_mesh *m, int32_t t) {
  const double *p[4];
  for (int a = 0; a < 4; a++) p[a] = m->xyz + 3 * (size_t)m->tet[4 * t + a];
  double V = fabs(em_tet_volume(m, t));
  double area = 0;
  for (int f = 0; f < 4; f++) {
    double u[3], v[3], c[3];
    const double *a = p[EM_TET_FACE[f][0]], *b = p[EM_TET_FACE[f][1]], *d = p[EM_TET_FACE[f][2]];
    sub(b, a, u);
    sub(d, a, v);
    cross(u, v, c);
    area += 0.5 * sqrt(dot(c, c));
  }
  if (V <= 0 || area <= 0) return 0;
  double r_in = 3 * V / area;
  double e1[3], e2[3], e3[3], c23[3], c31[3], c12[3];
  sub(p[1], p[0], e1);
  sub(p[2], p[0], e2);
  sub(p[3], p[0], e3);
  cross(e2, e3, c23);
  cross(e3, e1, c31);
  cross(e1, e2, c12);
  double det = 2 * dot(e1, c23);
  double l1 = dot(e1, e1), l2 = dot(e2, e2), l3 = dot(e3, e3), c[3];
  for (int i = 0; i < 3; i++) c[i] = (l1 * c23[i] + l2 * c31[i] + l3 * c12[i]) / det;
  double r_circ = sqrt(dot(c, c));
  return 3 * r_in / r_circ;
}

void em_mesh_stats_compute(const em_mesh *m, em_mesh_stats *s) {
  s->n_vert = m->n_vert;
  s->n_tet = m->n_tet;
  s->n_edge = m->n_edge;
  s->n_face = m->n_face;
  s->n_tri = m->n_tri;
  s->n_boundary_face = 0;
  for (int32_t f = 0; f < m->n_face; f++) s->n_boundary_face += m->face_tet[2 * f + 1] < 0;
  s->q_min = 1;
  s->q_mean = 0;
  s->volume = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    double q = em_tet_quality(m, t);
    if (q < s->q_min) s->q_min = q;
    s->q_mean += q;
    s->volume += fabs(em_tet_volume(m, t));
  }
  s->q_mean /= m->n_tet > 0 ? m->n_tet : 1;
  s->h_min = INFINITY;
  s->h_max = 0;
  for (int32_t e = 0; e < m->n_edge; e++) {
    double d[3];
    sub(m->xyz + 3 * (size_t)m->edge[2 * e + 1], m->xyz + 3 * (size_t)m->edge[2 * e], d);
    double h = sqrt(dot(d, d));
    if (h < s->h_min) s->h_min = h;
    if (h > s->h_max) s->h_max = h;
  }
  for (int d = 0; d < 3; d++) {
    s->bbox[2 * d] = INFINITY;
    s->bbox[2 * d + 1] = -INFINITY;
  }
  for (int32_t v = 0; v < m->n_vert; v++)
    for (int d = 0; d < 3; d++) {
      double x = m->xyz[3 * (size_t)v + d];
      if (x < s->bbox[2 * d]) s->bbox[2 * d] = x;
      if (x > s->bbox[2 * d + 1]) s->bbox[2 * d + 1] = x;
    }
}
