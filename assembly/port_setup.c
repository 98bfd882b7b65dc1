/* port_setup.c - a port's geometry from its triangles: plane, inward normal,
 * the coaxial annulus or the rectangle, and the medium that fills it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "em_assembly.h"

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
static void normalize3(double *a) {
  double n = sqrt(dot3(a, a));
  for (int i = 0; i < 3; i++) a[i] /= n;
}

/* Area-weighted centroid, unit normal (orientation of the largest
 * triangle), total area, and the largest vertex distance from the centroid. */
static void plane_of(const em_mesh *m, int group, double c[3], double n[3], double *area) {
  double best = -1, acc[3] = {0, 0, 0};
  *area = 0;
  c[0] = c[1] = c[2] = 0;
  n[0] = n[1] = n[2] = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int32_t k = 0; k < m->n_tri; k++) {
      if (m->tri_group[k] != group) continue;
      const double *p0 = m->xyz + 3 * (size_t)m->tri[3 * k],
                   *p1 = m->xyz + 3 * (size_t)m->tri[3 * k + 1],
                   *p2 = m->xyz + 3 * (size_t)m->tri[3 * k + 2];
      double e1[3], e2[3], t[3];
      for (int d = 0; d < 3; d++) e1[d] = p1[d] - p0[d], e2[d] = p2[d] - p0[d];
      cross3(e1, e2, t);
      double A = 0.5 * sqrt(dot3(t, t));
      if (pass == 0) {
        if (A > best) best = A, memcpy(n, t, sizeof t);
        *area += A;
        for (int d = 0; d < 3; d++) c[d] += A * (p0[d] + p1[d] + p2[d]) / 3;
      } else {
        double sgn = dot3(t, n) >= 0 ? 1 : -1;
        for (int d = 0; d < 3; d++) acc[d] += sgn * t[d];
      }
    }
  for (int d = 0; d < 3; d++) c[d] /= *area;
  memcpy(n, acc, sizeof acc);
  normalize3(n);
}

typedef struct {
  int32_t a, b;
} vpair;

static int i32_cmp(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

static int vpair_cmp(const void *x, const void *y) {
  const vpair *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}

/* The port's outline: the edges used by one port triangle only, as sorted
 * vertex pairs in *e (em_free), *ne of them. */
static em_err outline_edges(const em_mesh *m, int group, vpair **e, int32_t *ne) {
  int32_t nt = 0, n = 0;
  for (int32_t k = 0; k < m->n_tri; k++) nt += m->tri_group[k] == group;
  EM_TRY(em_calloc(e, 3 * (size_t)nt + 1, sizeof **e, "port outline"));
  vpair *E = *e;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != group) continue;
    for (int i = 0; i < 3; i++) {
      int32_t x = m->tri[3 * k + i], y = m->tri[3 * k + (i + 1) % 3];
      E[n++] = (vpair){x < y ? x : y, x < y ? y : x};
    }
  }
  qsort(E, (size_t)n, sizeof *E, vpair_cmp);
  int32_t once = 0;
  for (int32_t i = 0; i < n; i++)
    if ((i == 0 || vpair_cmp(E + i, E + i - 1)) && (i + 1 == n || vpair_cmp(E + i, E + i + 1)))
      E[once++] = E[i];
  *ne = once;
  return EM_OK;
}

/* In-plane axis of a rectangular port from its outline: the edges used by
 * one port triangle only lie on the four sides; u is the length-weighted
 * mean direction of the outline edges parallel to the longest one.  (A
 * principal axis of the vertices tilts when the triangulation is not
 * symmetric, which breaks the rectangle check on fine meshes.) */
static em_err outline_axis(const em_mesh *m, int group, const double n[3], double u[3]) {
  vpair *e = NULL;
  int32_t ne = 0;
  EM_TRY(outline_edges(m, group, &e, &ne));
  double best = 0, ref[3] = {0, 0, 0};
  for (int pass = 0; pass < 2; pass++) {
    double acc[3] = {0, 0, 0};
    for (int32_t i = 0; i < ne; i++) {
      const double *pa = m->xyz + 3 * (size_t)e[i].a, *pb = m->xyz + 3 * (size_t)e[i].b;
      double d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]}, len = sqrt(dot3(d, d));
      if (pass == 0) {
        if (len > best) best = len, memcpy(ref, d, sizeof d);
        continue;
      }
      double c = dot3(d, ref) / (len * sqrt(dot3(ref, ref)));
      if (fabs(c) < 0.99) continue;
      for (int k = 0; k < 3; k++) acc[k] += (c > 0 ? 1 : -1) * d[k];
    }
    if (pass == 1) memcpy(u, acc, sizeof acc);
  }
  em_free(&e);
  double s = dot3(u, n);
  for (int k = 0; k < 3; k++) u[k] -= s * n[k];
  EM_CHECK(dot3(u, u) > 0, EM_ERR_INPUT, "port group %d: no straight outline edge", group);
  normalize3(u);
  return EM_OK;
}

/* Deterministic sign of an axis: its largest component positive, so two
 * ports of the same shape and orientation get the same mode, whatever the
 * triangulation. */
static void canonical_sign(double a[3]) {
  int k = 0;
  for (int i = 1; i < 3; i++)
    if (fabs(a[i]) > fabs(a[k]) + 1e-12) k = i;
  if (a[k] < 0)
    for (int i = 0; i < 3; i++) a[i] = -a[i];
}

/* Extent of the port's vertices along axis u: [lo, hi]. */
static void extent(const em_mesh *m, int group, const double c[3], const double u[3], double *lo,
                   double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != group) continue;
    for (int a = 0; a < 3; a++) {
      const double *p = m->xyz + 3 * (size_t)m->tri[3 * k + a];
      double r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]}, s = dot3(r, u);
      *lo = fmin(*lo, s), *hi = fmax(*hi, s);
    }
  }
}

static em_err rectangle(const em_mesh *m, em_port *p, const double dir[3]) {
  double u[3], lo_u, hi_u, lo_v, hi_v;
  int given = dir && (dir[0] != 0 || dir[1] != 0 || dir[2] != 0);
  if (given) { /* v = the given direction projected into the plane */
    double v[3] = {dir[0], dir[1], dir[2]}, s = dot3(v, p->normal);
    for (int d = 0; d < 3; d++) v[d] -= s * p->normal[d];
    EM_CHECK(dot3(v, v) > 1e-20, EM_ERR_INPUT,
             "%s: the lumped port direction (%g, %g, %g) is normal to the port plane", p->name,
             dir[0], dir[1], dir[2]);
    normalize3(v);
    cross3(v, p->normal, u);
  } else {
    EM_TRY(outline_axis(m, p->group, p->normal, u));
  }
  double v[3];
  cross3(p->normal, u, v);
  extent(m, p->group, p->center, u, &lo_u, &hi_u);
  extent(m, p->group, p->center, v, &lo_v, &hi_v);
  double lu = hi_u - lo_u, lv = hi_v - lo_v;
  EM_CHECK(fabs(lu * lv - p->area) <= 0.01 * p->area, EM_ERR_INPUT,
           "%s is not a rectangle aligned with its axes: area %g m^2, bounding rectangle "
           "%g x %g m",
           p->name, p->area, lu, lv);
  /* recentre on the rectangle */
  for (int d = 0; d < 3; d++)
    p->center[d] += 0.5 * (lo_u + hi_u) * u[d] + 0.5 * (lo_v + hi_v) * v[d];
  if (p->type == EM_PORT_WAVEGUIDE || (!given && lv > lu)) {
    /* waveguide: u along the broad side a; lumped default: E (v) along the shorter side */
    int swap = p->type == EM_PORT_WAVEGUIDE ? lv > lu : 1;
    if (swap) {
      double t[3];
      memcpy(t, u, sizeof t), memcpy(u, v, sizeof t), memcpy(v, t, sizeof t);
      double x = lu;
      lu = lv, lv = x;
    }
  }
  if (!given) canonical_sign(v); /* a given direction keeps its sign */
  canonical_sign(u);
  memcpy(p->u, u, sizeof p->u);
  memcpy(p->v, v, sizeof p->v);
  p->a = lu;
  p->b = lv;
  return EM_OK;
}

/* The vertices of the port's outline (the edges of one port triangle
 * only), each once: *vs (em_free), *nv of them. */
static em_err outline_vertices(const em_mesh *m, int group, int32_t **vs, int32_t *nv) {
  int32_t ne = 0;
  vpair *e = NULL;
  int32_t *v = NULL;
  em_err err = EM_OK;
  *nv = 0;
  EM_TRY(outline_edges(m, group, &e, &ne));
  EM_TRY_GOTO(err, em_calloc(&v, 2 * (size_t)ne + 1, sizeof *v, "port outline"), done);
  int32_t n = 0;
  for (int32_t i = 0; i < ne; i++) v[n++] = e[i].a, v[n++] = e[i].b;
  qsort(v, (size_t)n, sizeof *v, i32_cmp);
  int32_t u = 0;
  for (int32_t i = 0; i < n; i++)
    if (i == 0 || v[i] != v[i - 1]) v[u++] = v[i];
  *vs = v;
  *nv = u;
  v = NULL;
done:
  em_free(&e);
  em_free(&v);
  return err;
}

/* The circle through points (x_i, y_i) in the least-squares sense of
 * Kasa: x^2 + y^2 + D x + E y + F = 0, centre (-D/2, -E/2), radius
 * sqrt(D^2/4 + E^2/4 - F); coordinates scaled by s for the normal
 * equations' conditioning.  0 when fewer than 3 points or singular. */
static int circle_fit(const double *x, const double *y, int32_t n, double s, double c[2],
                      double *r) {
  if (n < 3) return 0;
  double M[3][4] = {{0}};
  for (int32_t i = 0; i < n; i++) {
    double a[3] = {x[i] / s, y[i] / s, 1}, rhs = -(a[0] * a[0] + a[1] * a[1]);
    for (int j = 0; j < 3; j++) {
      for (int k = 0; k < 3; k++) M[j][k] += a[j] * a[k];
      M[j][3] += a[j] * rhs;
    }
  }
  for (int col = 0; col < 3; col++) { /* Gauss-Jordan, partial pivoting */
    int p = col;
    for (int j = col + 1; j < 3; j++)
      if (fabs(M[j][col]) > fabs(M[p][col])) p = j;
    if (!(fabs(M[p][col]) > 1e-12 * n)) return 0;
    for (int k = 0; k < 4; k++) {
      double t = M[col][k];
      M[col][k] = M[p][k], M[p][k] = t;
    }
    for (int j = 0; j < 3; j++) {
      if (j == col) continue;
      double f = M[j][col] / M[col][col];
      for (int k = col; k < 4; k++) M[j][k] -= f * M[col][k];
    }
  }
  double D = M[0][3] / M[0][0], E = M[1][3] / M[1][1], F = M[2][3] / M[2][2];
  double r2 = 0.25 * (D * D + E * E) - F;
  if (!(r2 > 0)) return 0;
  c[0] = -0.5 * D * s, c[1] = -0.5 * E * s;
  *r = sqrt(r2) * s;
  return 1;
}

/* A coaxial port: the circles of its outline (Gmsh puts the outline's
 * vertices on the CAD circles), split into inner and outer at the middle
 * distance from the area centroid and each fitted by circle_fit; the
 * centre is the mean of the two fits' centres.  The area centroid alone
 * is off the axis when the facets are uneven (a remeshed port, a refined
 * seam), and so were radii taken as the nearest and farthest vertex from
 * it: 0.9905 / 2.309 mm for 1 / 2.3 mm after an adaptive pass, 50.76 ohm
 * for 49.94.  Fewer than 3 outline vertices on a circle: the nearest and
 * farthest vertex. */
static em_err annulus(const em_mesh *m, em_port *p) {
  double t[3] = {1, 0, 0};
  if (fabs(p->normal[0]) > 0.9) t[0] = 0, t[1] = 1;
  double s = dot3(t, p->normal);
  for (int d = 0; d < 3; d++) t[d] -= s * p->normal[d];
  normalize3(t);
  memcpy(p->u, t, sizeof t);
  cross3(p->normal, p->u, p->v);
  int32_t *vs = NULL, nv = 0;
  double *px = NULL, *py = NULL;
  em_err err = EM_OK;
  EM_TRY(outline_vertices(m, p->group, &vs, &nv));
  EM_TRY_GOTO(err, em_calloc(&px, 2 * (size_t)nv + 2, sizeof *px, "port outline"), done);
  EM_TRY_GOTO(err, em_calloc(&py, 2 * (size_t)nv + 2, sizeof *py, "port outline"), done);
  double rmin = INFINITY, rmax = 0;
  for (int32_t i = 0; i < nv; i++) {
    const double *x = m->xyz + 3 * (size_t)vs[i];
    double r[3] = {x[0] - p->center[0], x[1] - p->center[1], x[2] - p->center[2]};
    px[i] = dot3(r, p->u), py[i] = dot3(r, p->v);
    double len = hypot(px[i], py[i]);
    rmin = fmin(rmin, len), rmax = fmax(rmax, len);
  }
  /* inner points first in px/py[0..ni), the outer ones after nv */
  double mid = 0.5 * (rmin + rmax), ci[2], co[2], a = rmin, b = rmax;
  int32_t ni = 0, no = 0;
  for (int32_t i = 0; i < nv; i++) {
    if (hypot(px[i], py[i]) < mid) {
      px[ni] = px[i], py[ni] = py[i], ni++;
    } else {
      px[nv + 1 + no] = px[i], py[nv + 1 + no] = py[i], no++;
    }
  }
  if (rmax > 0 && circle_fit(px, py, ni, rmax, ci, &a) &&
      circle_fit(px + nv + 1, py + nv + 1, no, rmax, co, &b)) {
    double cu = 0.5 * (ci[0] + co[0]), cv = 0.5 * (ci[1] + co[1]);
    for (int d = 0; d < 3; d++) p->center[d] += cu * p->u[d] + cv * p->v[d];
  } else {
    a = rmin, b = rmax;
  }
  double ideal = M_PI * (b * b - a * a);
  if (!(a > 1e-3 * b && fabs(p->area - ideal) <= 0.1 * ideal)) {
    err = EM_RAISE(EM_ERR_INPUT,
                   "%s does not look like a coaxial annulus: radii %g .. %g m give area %g m^2, "
                   "the triangles cover %g m^2",
                   p->name, a, b, ideal, p->area);
    goto done;
  }
  p->a = a;
  p->b = b;
done:
  em_free(&vs);
  em_free(&px);
  em_free(&py);
  return err;
}

em_err em_port_setup(const em_mesh *m, int group, em_port_type type, const em_medium *med,
                     const double dir[3], em_port *p) {
  memset(p, 0, sizeof *p);
  EM_CHECK(group >= 0 && group < m->n_group && m->group[group].dim == 2, EM_ERR_ARG,
           "port group %d is not a surface group", group);
  snprintf(p->name, sizeof p->name, "%s", m->group[group].name);
  p->group = group;
  p->type = type;
  sscanf(p->name, "port%d", &p->number);
  int32_t n = 0;
  for (int32_t k = 0; k < m->n_tri; k++) n += m->tri_group[k] == group;
  EM_CHECK(n > 0, EM_ERR_INPUT, "%s has no triangles in the mesh", p->name);
  plane_of(m, group, p->center, p->normal, &p->area);
  /* planarity, boundary position, inward normal, homogeneous filling */
  double size = sqrt(p->area), dev = 0;
  int32_t medium_group = -1, inward = 0, outward = 0;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != group) continue;
    for (int a = 0; a < 3; a++) {
      const double *x = m->xyz + 3 * (size_t)m->tri[3 * k + a];
      double r[3] = {x[0] - p->center[0], x[1] - p->center[1], x[2] - p->center[2]};
      dev = fmax(dev, fabs(dot3(r, p->normal)));
    }
    int32_t f = m->tri_face[k], t = m->face_tet[2 * f];
    EM_CHECK(type == EM_PORT_LUMPED || m->face_tet[2 * f + 1] < 0, EM_ERR_INPUT,
             "%s is not on the outer boundary of the mesh: a %s port terminates the domain (use "
             "a lumped port inside it)",
             p->name, type == EM_PORT_COAX ? "coaxial" : "waveguide");
    double tc[3] = {0, 0, 0}, r[3];
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) tc[d] += 0.25 * m->xyz[3 * (size_t)m->tet[4 * t + a] + d];
    for (int d = 0; d < 3; d++) r[d] = tc[d] - p->center[d];
    if (dot3(r, p->normal) > 0)
      inward++;
    else
      outward++;
    int32_t g = m->tet_group[t];
    if (medium_group < 0) medium_group = g;
    EM_CHECK(type == EM_PORT_LUMPED ||
                 (med[g].eps_r == med[medium_group].eps_r && med[g].mu_r == med[medium_group].mu_r),
             EM_ERR_INPUT,
             "%s touches volumes of different media ('%s' and '%s'): a wave port "
             "needs a homogeneous filling",
             p->name, m->group[g].name, m->group[medium_group].name);
  }
  EM_CHECK(dev <= 1e-6 * size, EM_ERR_INPUT,
           "%s is not planar: a vertex lies %g m off its mean plane (port size %g m)", p->name, dev,
           size);
  if (type != EM_PORT_LUMPED) {
    EM_CHECK(inward == 0 || outward == 0, EM_ERR_INPUT,
             "%s: its triangles face the domain from both sides", p->name);
    if (outward)
      for (int d = 0; d < 3; d++) p->normal[d] = -p->normal[d];
  }
  EM_CHECK(!med[medium_group].is_pml, EM_ERR_INPUT, "%s touches a PML volume ('%s')", p->name,
           m->group[medium_group].name);
  p->eps_r = med[medium_group].eps_r;
  p->mu_r = med[medium_group].mu_r;
  if (type == EM_PORT_COAX)
    EM_TRY(annulus(m, p));
  else
    EM_TRY(rectangle(m, p, dir));
  return EM_OK;
}
