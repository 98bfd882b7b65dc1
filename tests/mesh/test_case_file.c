/* The mesh as a file (mesh/case_file.c): a mesh saved with
 * em_case_save_mesh and loaded back with em_case_load_mesh into the same
 * case is the same em_mesh, bit for bit: vertices (the binary MSH keeps the
 * doubles), tets, their groups, the group triangles, the group names and
 * dimensions; with reordering too (RCM starts from the same numbering).
 * The case's geometry is untouched by the load (its groups are checked
 * against the file's).  Errors name the file: missing, not .msh,
 * truncated, a mesh of another case (a group it lacks), a second load; a
 * save into a folder that does not exist leaves nothing. */
#include <unistd.h>

#include "case_test_util.h"

static char dir[256]; /* the test's temporary folder (mkdtemp) */

/* dir/name in a static buffer: valid until the next call. */
static const char *tmp_path(const char *name) {
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/%s", dir, name);
  return buf;
}

/* Open case `geo`, mesh it with its own sizes (unit 1e-3), optionally save. */
static em_mesh *mesh_case(const char *geo, const char *save) {
  em_case *c = NULL;
  em_mesh *m = NULL;
  em_mesh_opts o = {.unit = 1e-3, .reorder = 1};
  REQUIRE_OK(em_case_open(data_path(geo), 0, NULL, 0, NULL, NULL, &c));
  REQUIRE_OK(em_case_mesh(c, &o, NULL, &m));
  if (save) EXPECT_OK(em_case_save_mesh(c, save, NULL));
  em_case_close(&c);
  return m;
}

/* Every array of a and b equal bit for bit (reported when not). */
static int same_mesh(const em_mesh *a, const em_mesh *b) {
  int ok = a->n_vert == b->n_vert && a->n_tet == b->n_tet && a->n_tri == b->n_tri &&
           a->n_edge == b->n_edge && a->n_face == b->n_face && a->n_group == b->n_group &&
           a->unit == b->unit;
  EXPECT(ok, "counts: %d/%d vertices, %d/%d tets, %d/%d triangles, %d/%d groups", a->n_vert,
         b->n_vert, a->n_tet, b->n_tet, a->n_tri, b->n_tri, a->n_group, b->n_group);
  if (!ok) return 0;
  ok &= !memcmp(a->xyz, b->xyz, sizeof *a->xyz * 3 * (size_t)a->n_vert);
  ok &= !memcmp(a->tet, b->tet, sizeof *a->tet * 4 * (size_t)a->n_tet);
  ok &= !memcmp(a->tet_group, b->tet_group, sizeof *a->tet_group * (size_t)a->n_tet);
  ok &= !memcmp(a->tri, b->tri, sizeof *a->tri * 3 * (size_t)a->n_tri);
  ok &= !memcmp(a->tri_group, b->tri_group, sizeof *a->tri_group * (size_t)a->n_tri);
  for (int g = 0; g < a->n_group; g++)
    ok &= !strcmp(a->group[g].name, b->group[g].name) && a->group[g].dim == b->group[g].dim;
  EXPECT(ok, "the loaded mesh differs from the saved one");
  return ok;
}

/* Mesh, save, reopen the case, load: the same em_mesh; a second load refused. */
static void test_round_trip(const char *geo) {
  char msh[512];
  snprintf(msh, sizeof msh, "%s", tmp_path("saved.msh"));
  em_mesh *a = mesh_case(geo, msh), *b = NULL;
  em_case *c = NULL;
  em_mesh_opts o = {.unit = 1e-3, .reorder = 1};
  REQUIRE_OK(em_case_open(data_path(geo), 0, NULL, 0, NULL, NULL, &c));
  EXPECT_OK(em_case_load_mesh(c, msh, &o, NULL, &b));
  if (b && same_mesh(a, b))
    printf("%s: %d tets, %d vertices read back bit for bit\n", geo, b->n_tet, b->n_vert);
  em_mesh *again = NULL;
  EXPECT_FAIL(em_case_load_mesh(c, msh, &o, NULL, &again), EM_ERR_ARG, "already loaded", NULL);
  EXPECT_FAIL(em_case_mesh(c, &o, NULL, &again), EM_ERR_ARG, "loaded from a file", NULL);
  em_case_close(&c);
  em_mesh_destroy(&a);
  em_mesh_destroy(&b);
  unlink(msh);
}

/* Bad files on load and bad names / folders on save, each named. */
static void test_errors(void) {
  char box[512], trunc[512], none[512];
  snprintf(box, sizeof box, "%s", tmp_path("box.msh"));
  snprintf(trunc, sizeof trunc, "%s", tmp_path("trunc.msh"));
  snprintf(none, sizeof none, "%s", tmp_path("none.msh"));
  em_mesh *m = mesh_case("case_box.geo", box);
  em_mesh_destroy(&m);
  FILE *in = fopen(box, "rb"), *out = fopen(trunc, "wb");
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf, in); /* the header and part of the nodes */
  fwrite(buf, 1, n / 2, out);
  fclose(in), fclose(out);
  em_mesh_opts o = {.unit = 1e-3, .reorder = 1};
  struct {
    const char *geo, *path;
    em_err code;
    const char *s1, *s2;
  } bad[] = {
      {"case_box.geo", none, EM_ERR_IO, "none.msh", "No such file"},
      {"case_box.geo", data_path("case_box.geo"), EM_ERR_INPUT, "case_box.geo", ".msh"},
      {"case_box.geo", trunc, EM_ERR_GMSH, "trunc.msh", "cannot be read"},
      {"case_two.geo", box, EM_ERR_INPUT, "box.msh", "lacks the volume group 'diel'"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    em_case *c = NULL;
    REQUIRE_OK(em_case_open(data_path(bad[k].geo), 0, NULL, 0, NULL, NULL, &c));
    EXPECT_FAIL(em_case_load_mesh(c, bad[k].path, &o, NULL, &m), bad[k].code, bad[k].s1, bad[k].s2);
    EXPECT(!m, "no mesh after a failed load");
    em_case_close(&c);
  }
  /* a save that cannot be written: an error naming it, nothing left */
  em_case *c = NULL;
  REQUIRE_OK(em_case_open(data_path("case_box.geo"), 0, NULL, 0, NULL, NULL, &c));
  REQUIRE_OK(em_case_mesh(c, &o, NULL, &m));
  EXPECT_FAIL(em_case_save_mesh(c, tmp_path("no/such/dir.msh"), NULL), EM_ERR_GMSH, "dir.msh",
              NULL);
  EXPECT_FAIL(em_case_save_mesh(c, tmp_path("box.vtk"), NULL), EM_ERR_INPUT, "box.vtk", ".msh");
  EXPECT(access(tmp_path("box.vtk"), F_OK) != 0, "no file from a refused save");
  char tmpname[600];
  snprintf(tmpname, sizeof tmpname, "%s/no", dir);
  EXPECT(access(tmpname, F_OK) != 0, "no folder made by a failed save");
  em_mesh_destroy(&m);
  em_case_close(&c);
  unlink(box);
  unlink(trunc);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/em_case_file_XXXXXX");
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  test_round_trip("case_box.geo");
  test_round_trip("case_two.geo");
  test_errors();
  rmdir(dir);
  return TEST_RESULT();
}
