/* Topology of structured and jittered box meshes: Euler's formula for a
 * ball (V - E + F - T = 1), orientation by ascending ids, consistent
 * edge/face maps, face adjacency, boundary triangles, positive volumes. */
#include <string.h>

#include "em_mesh.h"
#include "em_test.h"

static void check_mesh(const em_mesh *m, int n) {
  EXPECT(m->n_vert - m->n_edge + m->n_face - m->n_tet == 1, "Euler: V-E+F-T = %d",
         m->n_vert - m->n_edge + m->n_face - m->n_tet);
  EXPECT(m->n_tet == 6 * n * n * n, "tets %d", m->n_tet);
  double vol = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    const int32_t *v = m->tet + 4 * t;
    EXPECT(v[0] < v[1] && v[1] < v[2] && v[2] < v[3], "tet %d not ascending", t);
    for (int e = 0; e < 6; e++) {
      const int32_t *ev = m->edge + 2 * m->tet_edge[6 * t + e];
      EXPECT(ev[0] == v[EM_TET_EDGE[e][0]] && ev[1] == v[EM_TET_EDGE[e][1]], "tet %d edge %d", t,
             e);
    }
    for (int f = 0; f < 4; f++) {
      int32_t g = m->tet_face[4 * t + f];
      const int32_t *fv = m->face + 3 * g;
      for (int i = 0; i < 3; i++) EXPECT(fv[i] == v[EM_TET_FACE[f][i]], "tet %d face %d", t, f);
      EXPECT(m->face_tet[2 * g] == t || m->face_tet[2 * g + 1] == t, "face_tet of %d", g);
    }
    double V = em_tet_volume(m, t);
    EXPECT(V != 0, "flat tet %d", t);
    vol += fabs(V);
  }
  EXPECT_NEAR(vol, 2.0 * 3.0 * 0.5, 1e-12);
  int32_t nb = 0;
  for (int32_t f = 0; f < m->n_face; f++) nb += m->face_tet[2 * f + 1] < 0;
  EXPECT(nb == 2 * 6 * n * n, "boundary faces %d", nb);
  EXPECT(m->n_tri == nb, "triangles %d", m->n_tri);
  int per_side[7] = {0};
  for (int32_t k = 0; k < m->n_tri; k++) {
    per_side[m->tri_group[k]]++;
    EXPECT(m->face_tet[2 * m->tri_face[k] + 1] < 0, "triangle %d not on boundary", k);
    EXPECT(!memcmp(m->tri + 3 * k, m->face + 3 * m->tri_face[k], 3 * sizeof(int32_t)), "tri %d", k);
  }
  for (int g = 1; g <= 6; g++) EXPECT(per_side[g] == 2 * n * n, "side %d: %d", g, per_side[g]);
  EXPECT(em_mesh_group_find(m, "xmax", 2) == 2 && em_mesh_group_find(m, "box", 3) == 0 &&
             em_mesh_group_find(m, "box", 2) == -1,
         "group lookup");
  em_mesh_stats st;
  em_mesh_stats_compute(m, &st);
  EXPECT(st.q_min > 0 && st.q_mean <= 1 && st.q_min <= st.q_mean, "quality %g %g", st.q_min,
         st.q_mean);
  EXPECT_NEAR(st.bbox[1], 2.0, 1e-14);
  EXPECT_NEAR(st.volume, 3.0, 1e-12);
}

int main(void) {
  for (int n = 1; n <= 4; n++) {
    em_mesh *m = NULL;
    REQUIRE_OK(em_mesh_box(n, n, n, 2.0, 3.0, 0.5, n > 2 ? 0.2 : 0.0, 7, &m));
    check_mesh(m, n);
    em_mesh_destroy(&m);
  }
  /* Kuhn tets of a cube: r_in = 3V/A = (1/2)/(1+sqrt 2), r_circ = sqrt(3)/2 */
  {
    em_mesh *c = NULL;
    REQUIRE_OK(em_mesh_box(3, 3, 3, 1.0, 1.0, 1.0, 0.0, 1, &c));
    em_mesh_stats st;
    em_mesh_stats_compute(c, &st);
    double q = 3 * (0.5 / (1 + sqrt(2.0))) / (sqrt(3.0) / 2);
    EXPECT_NEAR(st.q_min, q, 1e-12);
    EXPECT_NEAR(st.q_mean, q, 1e-12);
    EXPECT_NEAR(st.h_min, 1.0 / 3, 1e-12);
    EXPECT_NEAR(st.h_max, sqrt(3.0) / 3, 1e-12);
    em_mesh_destroy(&c);
  }
  /* quality of a regular tet is 1 */
  double xyz[12] = {1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1};
  int32_t tet[4] = {0, 1, 2, 3}, tg = 0;
  em_group g = {"v", 1, 3};
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_from_tets(4, xyz, 1, tet, &tg, 0, NULL, NULL, 1, &g, 0, &m));
  EXPECT_NEAR(em_tet_quality(m, 0), 1.0, 1e-12);
  em_mesh_destroy(&m);
  /* bad input: repeated vertex, triangle not on the mesh */
  int32_t badtet[4] = {0, 1, 1, 3};
  EXPECT_ERR(em_mesh_from_tets(4, xyz, 1, badtet, &tg, 0, NULL, NULL, 1, &g, 0, &m), EM_ERR_INPUT);
  em_group gs[2] = {{"v", 1, 3}, {"s", 2, 2}};
  double xyz5[15] = {1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1, 5, 5, 5};
  int32_t tri[3] = {0, 1, 4}, trig = 1;
  EXPECT_ERR(em_mesh_from_tets(5, xyz5, 1, tet, &tg, 1, tri, &trig, 2, gs, 0, &m), EM_ERR_INPUT);
  return TEST_RESULT();
}
