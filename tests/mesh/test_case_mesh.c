/* Meshing cases.
 * - An OpenCASCADE box in millimetres: the sum of tet volumes is the
 *   analytic volume in cubic metres, V - E + F - T = 1 (a ball), each named
 *   face is covered by its triangles (analytic area, on its plane).
 * - A dielectric cube (index 2) in air, sized from the wavelength: the mean
 *   edge length in each region is near its target lambda / (n N), the cube's
 *   about half the air's; a smaller size set by the case (a point size, a
 *   global maximum) wins.
 * - The box written by Gmsh as .msh (versions 4 and 2) reads back with the
 *   same counts, volume and areas; a hand-written .msh with sparse node tags
 *   and unnamed groups reads with analytic volumes and areas. */
#include <gmshc.h>
#include <unistd.h>

#include "case_test_util.h"

static double tri_area(const em_mesh *m, int32_t k) {
  const double *p[3];
  for (int i = 0; i < 3; i++) p[i] = m->xyz + 3 * (size_t)m->tri[3 * k + i];
  double u[3], v[3];
  for (int d = 0; d < 3; d++) u[d] = p[1][d] - p[0][d], v[d] = p[2][d] - p[0][d];
  double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  return 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

static double group_area(const em_mesh *m, int g) {
  double a = 0;
  for (int32_t k = 0; k < m->n_tri; k++)
    if (m->tri_group[k] == g) a += tri_area(m, k);
  return a;
}

/* ------------------------------------------------------------------ box */

static const double DX = 0.030, DY = 0.020, DZ = 0.010; /* case_box.geo, metres */

static void check_box(const em_mesh *m, const char *what) {
  EXPECT(m->n_vert - m->n_edge + m->n_face - m->n_tet == 1, "%s: V-E+F-T = %d", what,
         m->n_vert - m->n_edge + m->n_face - m->n_tet);
  EXPECT_NEAR(group_volume(m, -1) / (DX * DY * DZ), 1.0, 1e-12);
  EXPECT(m->unit == 1e-3, "%s: unit %g", what, m->unit);
  const char *side[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  const double L[3] = {DX, DY, DZ};
  int32_t n_boundary = 0;
  for (int32_t f = 0; f < m->n_face; f++) n_boundary += m->face_tet[2 * f + 1] < 0;
  EXPECT(m->n_tri == n_boundary, "%s: %d triangles, %d boundary faces", what, m->n_tri, n_boundary);
  EXPECT(em_mesh_group_find(m, "box", 3) == 0, "%s: volume group first", what);
  for (int s = 0; s < 6; s++) {
    int g = em_mesh_group_find(m, side[s], 2), d = s / 2;
    EXPECT(g > 0, "%s: no group %s", what, side[s]);
    if (g <= 0) continue;
    double want = L[(d + 1) % 3] * L[(d + 2) % 3], plane = s % 2 ? L[d] : 0;
    EXPECT_NEAR(group_area(m, g) / want, 1.0, 1e-12);
    for (int32_t k = 0; k < m->n_tri; k++) {
      if (m->tri_group[k] != g) continue;
      EXPECT(m->face_tet[2 * m->tri_face[k] + 1] < 0, "%s: %s triangle inside", what, side[s]);
      for (int i = 0; i < 3; i++) {
        double x = m->xyz[3 * (size_t)m->tri[3 * k + i] + d];
        EXPECT(fabs(x - plane) < 1e-12, "%s: %s vertex at %g", what, side[s], x);
      }
    }
  }
}

/* The box meshed, then written by Gmsh as .msh v4 and v2 and read back. */
static void box_and_msh(const char *tmpdir) {
  em_case *c = NULL;
  em_mesh *m = NULL, *r = NULL;
  em_mesh_opts o = {.unit = 1e-3, .reorder = 1};
  REQUIRE_OK(em_case_open(data_path("case_box.geo"), 0, NULL, 0, NULL, NULL, &c));
  REQUIRE_OK(em_case_mesh(c, &o, NULL, &m));
  check_box(m, "box.geo");
  char msh[2][600];
  const double version[2] = {4.1, 2.2};
  for (int v = 0; v < 2; v++) {
    int ierr = 0;
    snprintf(msh[v], sizeof msh[v], "%s/box_v%d.msh", tmpdir, (int)version[v]);
    gmshOptionSetNumber("Mesh.MshFileVersion", version[v], &ierr);
    gmshWrite(msh[v], &ierr);
    EXPECT(ierr == 0, "gmshWrite %s", msh[v]);
  }
  em_case_close(&c);
  for (int v = 0; v < 2; v++) {
    REQUIRE_OK(em_case_open(msh[v], 0, NULL, 0, NULL, NULL, &c));
    EXPECT(em_case_param_count(c) == 0, "%s: %d parameters", msh[v], em_case_param_count(c));
    REQUIRE_OK(em_case_mesh(c, &o, NULL, &r));
    EXPECT(r->n_tet == m->n_tet && r->n_vert == m->n_vert && r->n_tri == m->n_tri &&
               r->n_group == m->n_group,
           "%s: %d tets %d vertices %d triangles %d groups, .geo gave %d %d %d %d", msh[v],
           r->n_tet, r->n_vert, r->n_tri, r->n_group, m->n_tet, m->n_vert, m->n_tri, m->n_group);
    for (int g = 0; g < m->n_group && g < r->n_group; g++)
      EXPECT(!strcmp(r->group[g].name, m->group[g].name) && r->group[g].dim == m->group[g].dim,
             "%s: group %d is %s", msh[v], g, r->group[g].name);
    check_box(r, msh[v]);
    em_mesh_destroy(&r);
    em_case_close(&c);
  }
  em_mesh_destroy(&m);
}

/* Two tets with node tags 10..1000000, an unused node, unnamed groups. */
static void sparse_msh(void) {
  em_case *c = NULL;
  em_mesh *m = NULL;
  em_mesh_opts o = {.unit = 2, .reorder = 0};
  REQUIRE_OK(em_case_open(data_path("case_sparse.msh"), 0, NULL, 0, NULL, NULL, &c));
  REQUIRE_OK(em_case_mesh(c, &o, NULL, &m));
  EXPECT(m->n_tet == 2 && m->n_vert == 5 && m->n_tri == 2 && m->n_group == 4,
         "sparse: %d tets %d vertices %d triangles %d groups", m->n_tet, m->n_vert, m->n_tri,
         m->n_group);
  int a = em_mesh_group_find(m, "a", 3), b = em_mesh_group_find(m, "volume7", 3);
  int bottom = em_mesh_group_find(m, "bottom", 2), s5 = em_mesh_group_find(m, "surface5", 2);
  EXPECT(a >= 0 && b >= 0 && bottom >= 0 && s5 >= 0, "sparse: groups %d %d %d %d", a, b, bottom,
         s5);
  /* coordinates doubled by the unit: volumes 8/6 and 8/3, areas 4/2 and 4 sqrt(3)/2 */
  EXPECT_NEAR(group_volume(m, a), 8.0 / 6, 1e-14);
  EXPECT_NEAR(group_volume(m, b), 8.0 / 3, 1e-14);
  EXPECT_NEAR(group_area(m, bottom), 2.0, 1e-14);
  EXPECT_NEAR(group_area(m, s5), 2.0 * sqrt(3.0), 1e-14);
  em_mesh_destroy(&m);
  em_case_close(&c);
}

/* ------------------------------------------------------------ two media */

static double index_of(void *ctx, const char *name) {
  (void)ctx;
  return strcmp(name, "diel") ? 1.0 : 2.0;
}

typedef struct {
  double mean[2]; /* mean edge length of the tets of group 0 (diel), 1 (air), metres */
  double far_air; /* the same over air tets more than 25 mm from the cube */
  int n_tet;
} sizes;

static double tet_mean_edge(const em_mesh *m, int32_t t) {
  double s = 0;
  for (int e = 0; e < 6; e++) {
    const double *p = m->xyz + 3 * (size_t)m->tet[4 * t + EM_TET_EDGE[e][0]];
    const double *q = m->xyz + 3 * (size_t)m->tet[4 * t + EM_TET_EDGE[e][1]];
    s += sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
              (p[2] - q[2]) * (p[2] - q[2]));
  }
  return s / 6;
}

/* Mesh case_two.geo (10 GHz, 4 per wavelength) with the given overrides. */
static sizes two_media(int n_over, const em_param_override *over, const em_log *log) {
  em_case *c = NULL;
  em_mesh *m = NULL;
  sizes r = {{0, 0}, 0, 0};
  em_mesh_opts o = {.unit = 1e-3,
                    .freq_max = 10e9,
                    .elements_per_wavelength = 4,
                    .index_of = index_of,
                    .reorder = 1};
  REQUIRE_OK(em_case_open(data_path("case_two.geo"), n_over, over, 0, NULL, log, &c));
  REQUIRE_OK(em_case_mesh(c, &o, log, &m));
  int diel = em_mesh_group_find(m, "diel", 3), air = em_mesh_group_find(m, "air", 3);
  EXPECT(diel == 0 && air == 1, "groups %d %d", diel, air);
  EXPECT_NEAR(group_volume(m, diel) / (0.03 * 0.03 * 0.03), 1.0, 1e-12);
  EXPECT_NEAR(group_volume(m, air) / (0.1 * 0.1 * 0.1 - 0.03 * 0.03 * 0.03), 1.0, 1e-12);
  EXPECT(m->n_vert - m->n_edge + m->n_face - m->n_tet == 1, "two media: Euler %d",
         m->n_vert - m->n_edge + m->n_face - m->n_tet);
  int outer = em_mesh_group_find(m, "outer", 2);
  EXPECT(outer >= 0 && fabs(group_area(m, outer) / (6 * 0.01) - 1) < 1e-12, "outer area %g",
         outer >= 0 ? group_area(m, outer) : 0);
  double sum[2] = {0, 0}, far = 0;
  int n[2] = {0, 0}, n_far = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    int g = m->tet_group[t];
    double h = tet_mean_edge(m, t), dmax = 0;
    sum[g] += h;
    n[g]++;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) {
        double x = fabs(m->xyz[3 * (size_t)m->tet[4 * t + a] + d]);
        dmax = x > dmax ? x : dmax;
      }
    if (g == air && dmax > 0.015 + 0.025) far += h, n_far++;
  }
  for (int g = 0; g < 2; g++) r.mean[g] = n[g] ? sum[g] / n[g] : 0;
  r.far_air = n_far ? far / n_far : 0;
  r.n_tet = m->n_tet;
  em_mesh_destroy(&m);
  em_case_close(&c);
  return r;
}

static void wavelength_sizes(const char *tmpdir) {
  const double lambda = EM_C0 / 10e9, h_air = lambda / 4, h_diel = lambda / 8;
  char logname[600];
  snprintf(logname, sizeof logname, "%s/mesh.log", tmpdir);
  FILE *lf = fopen(logname, "w+");
  em_log log;
  em_log_init(&log, lf, EM_LOG_INFO);
  sizes s = two_media(0, NULL, &log);
  fprintf(stderr,
          "wavelength sizes: diel %.2f mm (target %.2f), air %.2f mm (target %.2f), "
          "far air %.2f mm, %d tets\n",
          s.mean[0] * 1e3, h_diel * 1e3, s.mean[1] * 1e3, h_air * 1e3, s.far_air * 1e3, s.n_tet);
  /* Gmsh aims at edges of unit length in the size metric: means within
   * [0.6, 1.4] of the target; the air near the cube is finer (transition). */
  EXPECT(s.mean[0] > 0.6 * h_diel && s.mean[0] < 1.4 * h_diel, "diel mean edge %g", s.mean[0]);
  EXPECT(s.far_air > 0.6 * h_air && s.far_air < 1.4 * h_air, "far air mean edge %g", s.far_air);
  EXPECT(s.mean[1] > 0.5 * h_air && s.mean[1] < 1.4 * h_air, "air mean edge %g", s.mean[1]);
  double ratio = s.mean[0] / s.far_air;
  EXPECT(ratio > 0.35 && ratio < 0.65, "diel / air edge ratio %g, expected about 1/2", ratio);
  /* the progress lines */
  char text[4096] = "";
  rewind(lf);
  size_t got = fread(text, 1, sizeof text - 1, lf);
  text[got] = '\0';
  fclose(lf);
  EXPECT(strstr(text, "meshing case_two") && strstr(text, "meshed case_two in") &&
             strstr(text, "tets") && strstr(text, "quality min") && strstr(text, "diel"),
         "log lacks progress lines:\n%s", text);

  /* sizes the case sets below ours win: a point size on the cube (inside
   * it) and a global maximum below the air's size (in the air) */
  const em_param_override own[] = {{"Mesh/cube_size", 0, 2.5, NULL}, /* mm */
                                   {"Mesh/max_size", 0, 5.0, NULL}};
  sizes p = two_media(2, own, NULL);
  fprintf(stderr, "cube point size 2.5 mm, max size 5 mm: diel %.2f mm, far air %.2f mm, %d tets\n",
          p.mean[0] * 1e3, p.far_air * 1e3, p.n_tet);
  EXPECT(p.mean[0] < 0.8 * s.mean[0] && p.mean[0] > 0.6 * 2.5e-3 && p.mean[0] < 1.4 * 2.5e-3,
         "cube size: diel mean edge %g", p.mean[0]);
  EXPECT(p.far_air < 0.8 * s.far_air && p.far_air > 0.6 * 5e-3 && p.far_air < 1.4 * 5e-3,
         "max size: far air mean edge %g", p.far_air);
}

/* Meshing twice re-meshes with the new sizes. */
static void remesh(void) {
  em_case *c = NULL;
  em_mesh *m1 = NULL, *m2 = NULL;
  em_mesh_opts o = {.unit = 1e-3, .freq_max = 10e9, .elements_per_wavelength = 3, .reorder = 0};
  REQUIRE_OK(em_case_open(data_path("case_two.geo"), 0, NULL, 0, NULL, NULL, &c));
  REQUIRE_OK(em_case_mesh(c, &o, NULL, &m1));
  o.elements_per_wavelength = 4;
  REQUIRE_OK(em_case_mesh(c, &o, NULL, &m2));
  /* element count goes as N^3: (4/3)^3 = 2.4 */
  double ratio = (double)m2->n_tet / m1->n_tet;
  EXPECT(ratio > 1.6 && ratio < 3.5, "remesh: %d then %d tets", m1->n_tet, m2->n_tet);
  o.freq_max = 0;
  em_mesh *m3 = NULL;
  EXPECT_FAIL(em_case_mesh(c, &o, NULL, &m3), EM_ERR_INPUT, "case_two.geo", "frequency");
  em_mesh_destroy(&m1);
  em_mesh_destroy(&m2);
  em_case_close(&c);
}

int main(void) {
  char tmpdir[256] = "/tmp/emsolve_case_mesh_XXXXXX";
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  box_and_msh(tmpdir);
  sparse_msh();
  wavelength_sizes(tmpdir);
  remesh();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd)) fprintf(stderr, "cannot remove %s\n", tmpdir);
  return TEST_RESULT();
}
