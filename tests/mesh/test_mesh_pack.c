/* em_mesh_pack / em_mesh_unpack (a distributed solve's rank 0 sends its
 * mesh to the others): a jittered box with its groups, and the same with
 * mid-edge nodes (a curved mesh) and a unit, come back the same em_mesh bit
 * for bit - vertices, tets, groups, triangles, and the edges, faces and
 * adjacency built again; a truncated buffer, one with bytes beyond its end
 * and a foreign one are errors (no crash, no mesh). */
#include <string.h>

#include "em_mesh.h"
#include "em_test.h"

#define SAME(a, b, n) ((n) == 0 || !memcmp((a), (b), (size_t)(n) * sizeof *(a)))

static int same_mesh(const em_mesh *a, const em_mesh *b) {
  int ok = a->n_vert == b->n_vert && a->n_tet == b->n_tet && a->n_edge == b->n_edge &&
           a->n_face == b->n_face && a->n_tri == b->n_tri && a->n_group == b->n_group &&
           !memcmp(&a->unit, &b->unit, sizeof a->unit) && !a->edge_mid == !b->edge_mid;
  if (!ok) return 0;
  ok = SAME(a->xyz, b->xyz, 3 * a->n_vert) && SAME(a->tet, b->tet, 4 * a->n_tet) &&
       SAME(a->tet_group, b->tet_group, a->n_tet) && SAME(a->edge, b->edge, 2 * a->n_edge) &&
       SAME(a->tet_edge, b->tet_edge, 6 * a->n_tet) && SAME(a->face, b->face, 3 * a->n_face) &&
       SAME(a->tet_face, b->tet_face, 4 * a->n_tet) &&
       SAME(a->face_tet, b->face_tet, 2 * a->n_face) && SAME(a->tri, b->tri, 3 * a->n_tri) &&
       SAME(a->tri_face, b->tri_face, a->n_tri) && SAME(a->tri_group, b->tri_group, a->n_tri);
  for (int g = 0; ok && g < a->n_group; g++)
    ok = a->group[g].tag == b->group[g].tag && a->group[g].dim == b->group[g].dim &&
         !strcmp(a->group[g].name, b->group[g].name);
  if (ok && a->edge_mid) ok = SAME(a->edge_mid, b->edge_mid, 3 * a->n_edge);
  return ok;
}

static void round_trip(em_mesh *m, const char *what) {
  void *buf = NULL;
  size_t n = 0;
  em_mesh *b = NULL;
  REQUIRE_OK(em_mesh_pack(m, &buf, &n));
  EXPECT_OK(em_mesh_unpack(buf, n, &b));
  EXPECT(b && same_mesh(m, b), "%s: the unpacked mesh differs", what);
  printf("%s: %d tets, %d edges, %d groups in %zu bytes: the same mesh\n", what, m->n_tet,
         m->n_edge, m->n_group, n);
  em_mesh_destroy(&b);
  EXPECT_ERR(em_mesh_unpack(buf, n - 1, &b), EM_ERR_INPUT); /* truncated */
  EXPECT(!b, "%s: a mesh from a truncated buffer", what);
  char *big = calloc(n + 8, 1);
  memcpy(big, buf, n);
  EXPECT_ERR(em_mesh_unpack(big, n + 8, &b), EM_ERR_INPUT); /* bytes beyond */
  EXPECT(!b, "%s: a mesh from a buffer with bytes beyond it", what);
  big[0] ^= 0x5a; /* the magic */
  EXPECT_ERR(em_mesh_unpack(big, n, &b), EM_ERR_INPUT);
  EXPECT(!b, "%s: a mesh from a foreign buffer", what);
  EXPECT_ERR(em_mesh_unpack(big, 3, &b), EM_ERR_INPUT); /* shorter than the header */
  free(big);
  em_free(&buf);
}

int main(void) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(4, 3, 5, 1.0, 0.8, 1.2, 0.2, 7, &m));
  round_trip(m, "box");
  /* mid-edge nodes off the midpoints, a unit */
  m->unit = 1e-3;
  REQUIRE_OK(em_calloc(&m->edge_mid, 3 * (size_t)m->n_edge, sizeof *m->edge_mid, "mid nodes"));
  for (int32_t e = 0; e < m->n_edge; e++)
    for (int d = 0; d < 3; d++)
      m->edge_mid[3 * e + d] =
          0.5 * (m->xyz[3 * m->edge[2 * e] + d] + m->xyz[3 * m->edge[2 * e + 1] + d]) +
          1e-3 * sin(e + d);
  round_trip(m, "curved box");
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
