/* Betti numbers over Z2 (post/topology.c) against the known topology:
 * a structured box (1 0 0 0; its faces are discs, 1 0 0), a box with a
 * closed cavity (tests/data/box_void.geo: 1 0 1 0; the cavity's surface a
 * sphere, 1 0 1), the coax line (tests/data/coax_line.geo: 1 1 0 0; its
 * ports annuli, 1 1 0), the shipped cases WR-90 (cases/waveguide.geo: 1 0 0
 * 0, ports rectangles 1 0 0) and DRA (cases/dra.geo: 1 0 1 0, the coax
 * port an annulus 1 1 0).  On the smaller meshes the collapse-then-rank result
 * is checked against the ranks of the full incidence matrices by dense
 * GF(2) elimination, and the dimension of the null space of the discrete
 * curl (edges -> faces), E - rank d1, against V - b0 + b1.  Argument gpu:
 * the ranks on the GPU. */
#include <string.h>

#include "em_linalg.h"
#include "em_test.h"
#include "em_post.h"

static em_backend be = EM_BACKEND_CPU;

/* tests/data/<name> from the source tree (ctest sets EM_SOURCE_DIR). */
static const char *data_path(const char *name) {
  static char buf[4096];
  const char *root = getenv("EM_SOURCE_DIR");
  snprintf(buf, sizeof buf, "%s/tests/data/%s", root ? root : ".", name);
  return buf;
}

/* rank of the full incidence of d-cells on (d-1)-cells of the volume */
static int32_t full_rank(const em_mesh *m, int d) {
  int32_t rows = d == 1 ? m->n_edge : d == 2 ? m->n_face : m->n_tet;
  int32_t cols = d == 1 ? m->n_vert : d == 2 ? m->n_edge : m->n_face;
  em_gf2 *A = NULL;
  REQUIRE_OK(em_gf2_create(rows, cols, &A));
  for (int32_t t = 0; t < m->n_tet; t++) {
    if (d == 3)
      for (int f = 0; f < 4; f++) {
        if (!em_gf2_get(A, t, m->tet_face[4 * t + f])) em_gf2_flip(A, t, m->tet_face[4 * t + f]);
      }
    if (d == 2)
      for (int f = 0; f < 4; f++) {
        int32_t gf = m->tet_face[4 * t + f];
        for (int e = 0; e < 6; e++)
          if (EM_TET_EDGE[e][0] != f && EM_TET_EDGE[e][1] != f &&
              !em_gf2_get(A, gf, m->tet_edge[6 * t + e]))
            em_gf2_flip(A, gf, m->tet_edge[6 * t + e]);
      }
  }
  if (d == 1)
    for (int32_t e = 0; e < m->n_edge; e++) {
      em_gf2_flip(A, e, m->edge[2 * e]);
      em_gf2_flip(A, e, m->edge[2 * e + 1]);
    }
  int32_t r = -1;
  REQUIRE_OK(em_gf2_rank(A, be, &r));
  em_gf2_destroy(&A);
  return r;
}

static void check_volume(const char *what, const em_mesh *m, const int want[4], int dense) {
  em_betti b;
  REQUIRE_OK(em_post_betti(m, -1, be, &b));
  EXPECT(!memcmp(b.b, want, sizeof b.b), "%s: b %d %d %d %d, expected %d %d %d %d", what, b.b[0],
         b.b[1], b.b[2], b.b[3], want[0], want[1], want[2], want[3]);
  printf("%s: V %d E %d F %d T %d, b %d %d %d %d, core %lld %lld %lld %lld\n", what, m->n_vert,
         m->n_edge, m->n_face, m->n_tet, b.b[0], b.b[1], b.b[2], b.b[3], (long long)b.core[0],
         (long long)b.core[1], (long long)b.core[2], (long long)b.core[3]);
  if (!dense) return;
  int32_t r1 = full_rank(m, 1), r2 = full_rank(m, 2), r3 = full_rank(m, 3);
  EXPECT(r1 == b.rank[1] && r2 == b.rank[2] && r3 == b.rank[3],
         "%s: full ranks %d %d %d, collapsed %lld %lld %lld", what, r1, r2, r3,
         (long long)b.rank[1], (long long)b.rank[2], (long long)b.rank[3]);
  int32_t null_curl = m->n_edge - r2;
  EXPECT(null_curl == m->n_vert - want[0] + want[1], "%s: curl null space %d, V - b0 + b1 = %d",
         what, null_curl, m->n_vert - want[0] + want[1]);
}

static void check_surface(const char *what, const em_mesh *m, const char *group,
                          const int want[3]) {
  int g = em_mesh_group_find(m, group, 2);
  EXPECT(g >= 0, "%s: no group %s", what, group);
  if (g < 0) return;
  em_betti b;
  REQUIRE_OK(em_post_betti(m, g, be, &b));
  EXPECT(b.b[0] == want[0] && b.b[1] == want[1] && b.b[2] == want[2],
         "%s %s: b %d %d %d, expected %d %d %d", what, group, b.b[0], b.b[1], b.b[2], want[0],
         want[1], want[2]);
}

static em_mesh *load(const char *file, double size) {
  em_case *c = NULL;
  em_mesh *m = NULL;
  em_param_override o = {"Mesh/size", 0, size, NULL};
  em_mesh_opts mo = {.unit = 1e-3, .reorder = 1};
  REQUIRE_OK(em_case_open(data_path(file), 1, &o, 0, NULL, NULL, &c));
  REQUIRE_OK(em_case_mesh(c, &mo, NULL, &m));
  em_case_close(&c);
  return m;
}

/* cases/<file> (the shipped antenna cases), meshed coarsely: 3 elements
 * per wavelength at f (the case's own fine sizes, the DRA's probe, stay) */
static em_mesh *load_case(const char *file, double f) {
  static char path[4096];
  const char *root = getenv("EM_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/cases/%s", root ? root : ".", file);
  em_case *c = NULL;
  em_mesh *m = NULL;
  em_mesh_opts mo = {.unit = 1e-3, .freq_max = f, .elements_per_wavelength = 3, .reorder = 1};
  REQUIRE_OK(em_case_open(path, 0, NULL, 0, NULL, NULL, &c));
  REQUIRE_OK(em_case_mesh(c, &mo, NULL, &m));
  em_case_close(&c);
  return m;
}

int main(int argc, char **argv) {
  be = test_backend(argc, argv);
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(4, 3, 2, 1, 1, 1, 0.2, 7, &m));
  const int ball[4] = {1, 0, 0, 0}, disc[3] = {1, 0, 0};
  check_volume("box", m, ball, 1);
  check_surface("box", m, "xmin", disc);
  check_surface("box", m, "zmax", disc);
  em_mesh_destroy(&m);

  m = load("box_void.geo", 0.8);
  const int shell[4] = {1, 0, 1, 0}, sphere[3] = {1, 0, 1};
  check_volume("box with a cavity", m, shell, m->n_face < 20000);
  check_surface("box with a cavity", m, "pec", sphere);
  em_mesh_destroy(&m);

  m = load("coax_line.geo", 2.0);
  const int ring[4] = {1, 1, 0, 0}, annulus[3] = {1, 1, 0};
  check_volume("coax line", m, ring, m->n_face < 20000);
  check_surface("coax line", m, "port1", annulus);
  check_surface("coax line", m, "port2", annulus);
  em_mesh_destroy(&m);

  /* WR-90 between two ports: a box, its ports rectangles */
  m = load_case("waveguide.geo", 10e9);
  check_volume("WR-90", m, ball, m->n_face < 20000);
  check_surface("WR-90", m, "port1", disc);
  check_surface("WR-90", m, "port2", disc);
  em_mesh_destroy(&m);

  /* the DRA: the ground plate, the coax jacket and the probe are one metal
   * body (the probe stands on the jacket's cap at the port plane) inside
   * the air box and PML: a shell, 1 0 1 0; the coax port an annulus */
  m = load_case("dra.geo", 7.5e9);
  check_volume("DRA", m, shell, m->n_face < 20000);
  check_surface("DRA", m, "port1", annulus);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
