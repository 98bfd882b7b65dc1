/* curved.c - second-order (curved) tets: the mid-edge nodes of Gmsh's
 * 10-node tets attached to the mesh's edges (em_mesh.edge_mid). */
#include <math.h>
#include <string.h>

#include "em_mesh.h"

/* Gmsh's 10-node tet: node 4 + k lies on the edge of vertices GMSH_EDGE[k]
 * (MTetrahedron10 in Gmsh; checked against the coordinates below). */
static const int GMSH_EDGE[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};

static double dist2(const double *a, const double *b) {
  double s = 0;
  for (int d = 0; d < 3; d++) s += (a[d] - b[d]) * (a[d] - b[d]);
  return s;
}

/* Local vertex (0..3, ascending id) of m's tet t at the coordinates p, -1
 * when none: the mesh copies coordinates exactly, so equality is exact. */
static int local_vertex(const em_mesh *m, int32_t t, const double *p) {
  for (int b = 0; b < 4; b++)
    if (!memcmp(m->xyz + 3 * (size_t)m->tet[4 * (size_t)t + b], p, 3 * sizeof *p)) return b;
  return -1;
}

/* Local edge (EM_TET_EDGE) joining local vertices a and b. */
static int local_edge(int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  for (int e = 0; e < 6; e++)
    if (EM_TET_EDGE[e][0] == lo && EM_TET_EDGE[e][1] == hi) return e;
  return -1;
}

/* One tet: the Gmsh order checked (each mid node nearest its own edge's
 * midpoint, within a quarter of that edge), then the nodes stored by
 * global edge. */
static em_err attach_tet(em_mesh *m, int32_t t, const double *xyz, const int32_t *tv,
                         const double *mid) {
  const double *x[4];
  int loc[4];
  for (int a = 0; a < 4; a++) {
    x[a] = xyz + 3 * (size_t)tv[a];
    loc[a] = local_vertex(m, t, x[a]);
    EM_CHECK(loc[a] >= 0, EM_ERR_INTERNAL, "tet %d: vertex %d not found in the mesh", t, a);
  }
  for (int k = 0; k < 6; k++) {
    const double *xm = mid + 3 * k;
    double c[6][3];
    int best = 0;
    for (int j = 0; j < 6; j++) {
      for (int d = 0; d < 3; d++) c[j][d] = 0.5 * (x[GMSH_EDGE[j][0]][d] + x[GMSH_EDGE[j][1]][d]);
      if (dist2(xm, c[j]) < dist2(xm, c[best])) best = j;
    }
    double len2 = dist2(x[GMSH_EDGE[k][0]], x[GMSH_EDGE[k][1]]);
    EM_CHECK(best == k || dist2(xm, c[best]) == dist2(xm, c[k]), EM_ERR_INPUT,
             "tet %d: second-order node %d lies nearer edge %d than its own: not Gmsh's "
             "10-node order",
             t, 4 + k, 4 + best);
    EM_CHECK(dist2(xm, c[k]) <= 0.0625 * len2, EM_ERR_INPUT,
             "tet %d: its curved edge %d bends %.3g of the edge's length away from the straight "
             "midpoint (> 0.25: the element folds); refine the mesh near that curved surface",
             t, k, sqrt(dist2(xm, c[k]) / len2));
    int e = local_edge(loc[GMSH_EDGE[k][0]], loc[GMSH_EDGE[k][1]]);
    int32_t ge = m->tet_edge[6 * (size_t)t + e];
    memcpy(m->edge_mid + 3 * (size_t)ge, xm, 3 * sizeof *xm);
  }
  return EM_OK;
}

void em_mesh_bent_edges(const em_mesh *m, int32_t *n_bent, double *max_bend) {
  *n_bent = 0;
  *max_bend = 0;
  if (!m->edge_mid) return;
  for (int32_t e = 0; e < m->n_edge; e++) {
    const double *a = m->xyz + 3 * (size_t)m->edge[2 * e],
                 *b = m->xyz + 3 * (size_t)m->edge[2 * e + 1];
    double c[3];
    for (int d = 0; d < 3; d++) c[d] = 0.5 * (a[d] + b[d]);
    double r = sqrt(dist2(m->edge_mid + 3 * (size_t)e, c) / dist2(a, b));
    if (r > 1e-10) (*n_bent)++;
    if (r > *max_bend) *max_bend = r;
  }
}

em_err em_mesh_attach_midnodes(em_mesh *m, const double *xyz, const int32_t *tets,
                               const double *mid) {
  EM_CHECK(m && xyz && tets && mid, EM_ERR_ARG, "attach mid nodes: NULL argument");
  em_err err = EM_OK;
  em_free(&m->edge_mid);
  EM_TRY(em_calloc(&m->edge_mid, 3 * (size_t)m->n_edge, sizeof *m->edge_mid, "mid-edge nodes"));
  for (int32_t t = 0; t < m->n_tet; t++)
    EM_TRY_GOTO(err, attach_tet(m, t, xyz, tets + 4 * (size_t)t, mid + 18 * (size_t)t), fail);
  return EM_OK;
fail:
  em_free(&m->edge_mid);
  return err;
}
