/* Bad cases fail with the right code and a message naming the culprit:
 * missing, unreadable and wrongly named files, a .geo syntax error (Gmsh's
 * line number in the message), a corrupt .msh, no physical volume, a volume
 * in no group or in two, two groups of one name, higher-order elements,
 * surface triangles that are not tet faces, two cases open at once, bad
 * arguments.  After each failure Gmsh is free again
 * and a good case opens. */
#include <sys/stat.h>
#include <unistd.h>

#include "case_test_util.h"

static char tmpdir[256];

static const char *tmp_path(const char *name) {
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
  return buf;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f)) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

/* The file must fail to open with code, its message holding s1 and s2. */
static void open_fails(const char *path, em_err code, const char *s1, const char *s2) {
  em_case *c = NULL;
  EXPECT_FAIL(em_case_open(path, 0, NULL, 0, NULL, NULL, &c), code, s1, s2);
  EXPECT(c == NULL, "%s: a case after a failure", path);
  em_case_close(&c);
}

static void file_errors(void) {
  char p[600];
  open_fails(data_path("no_such_case.geo"), EM_ERR_IO, "no_such_case.geo",
             "No such file or directory");
  snprintf(p, sizeof p, "%s", tmp_path("notes.txt"));
  write_file(p, "SetFactory(\"OpenCASCADE\");\n");
  open_fails(p, EM_ERR_INPUT, "notes.txt", "unknown extension");
  snprintf(p, sizeof p, "%s", tmp_path("noext"));
  write_file(p, "\n");
  open_fails(p, EM_ERR_INPUT, "noext", "unknown extension");
  snprintf(p, sizeof p, "%s", tmp_path("folder.geo"));
  EXPECT(mkdir(p, 0700) == 0, "mkdir %s", p);
  open_fails(p, EM_ERR_IO, "folder.geo", "not a regular file");
  if (geteuid() != 0) { /* root reads anything */
    snprintf(p, sizeof p, "%s", tmp_path("locked.geo"));
    write_file(p, "SetFactory(\"OpenCASCADE\");\n");
    EXPECT(chmod(p, 0) == 0, "chmod %s", p);
    open_fails(p, EM_ERR_IO, "locked.geo", "Permission denied");
  }
  snprintf(p, sizeof p, "%s", tmp_path("garbage.msh"));
  write_file(p, "$MeshFormat\n9.9 7 8\n$EndMeshFormat\n$Nodes\nnonsense\n");
  open_fails(p, EM_ERR_GMSH, "garbage.msh", "cannot be read");
}

static void model_errors(void) {
  open_fails(data_path("case_syntax.geo"), EM_ERR_GMSH, "case_syntax.geo", "line 4");
  open_fails(data_path("case_novolume.geo"), EM_ERR_INPUT, "case_novolume.geo",
             "defines no physical volume; name every volume with Physical Volume(\"name\")");
  open_fails(data_path("case_orphan.geo"), EM_ERR_INPUT, "case_orphan.geo",
             "volume 2 is in no physical group");
  open_fails(data_path("case_twogroups.geo"), EM_ERR_INPUT, "case_twogroups.geo",
             "volume 2 is in 2 physical volumes ('air' and 'dra')");
  open_fails(data_path("case_dupnames.geo"), EM_ERR_INPUT, "case_dupnames.geo",
             "both called 'volume2'");
  /* a .msh opens, but its second-order tets are refused when meshing */
  em_case *c = NULL;
  REQUIRE_OK(em_case_open(data_path("case_tet10.msh"), 0, NULL, 0, NULL, NULL, &c));
  em_mesh_opts o = {.unit = 1, .reorder = 1};
  em_mesh *m = NULL;
  EXPECT_FAIL(em_case_mesh(c, &o, NULL, &m), EM_ERR_INPUT, "'air'", "Tetrahedron 10");
  EXPECT(m == NULL, "a mesh after a failure");
  o.unit = 0;
  EXPECT_FAIL(em_case_mesh(c, &o, NULL, &m), EM_ERR_INPUT, "case_tet10.msh", "unit");
  em_case_close(&c);
  /* triangles that are not faces of the tets: nodes outside the volume mesh
   * (a .geo surface beside the volume), or tet nodes but no tet face */
  const char *notface[2] = {"case_floating.geo", "case_notface.msh"};
  for (int i = 0; i < 2; i++) {
    REQUIRE_OK(em_case_open(data_path(notface[i]), 0, NULL, 0, NULL, NULL, &c));
    o.unit = 1;
    EXPECT_FAIL(em_case_mesh(c, &o, NULL, &m), EM_ERR_INPUT, notface[i],
                "surface group 'port1': a triangle is not a face of any tet");
    em_case_close(&c);
  }
}

static void usage_errors(void) {
  em_case *a = NULL, *b = NULL;
  char good[4096];
  snprintf(good, sizeof good, "%s", data_path("case_params.geo"));
  REQUIRE_OK(em_case_open(good, 0, NULL, 0, NULL, NULL, &a));
  EXPECT_FAIL(em_case_open(data_path("case_orphan.geo"), 0, NULL, 0, NULL, NULL, &b), EM_ERR_ARG,
              "case_orphan.geo", "another case is open");
  EXPECT(b == NULL, "second case");
  /* the first case is intact */
  double v = 0;
  EXPECT_OK(em_case_number(a, "Geometry/lx", &v));
  EXPECT(v == 2, "lx %g", v);
  em_case_close(&a);
  REQUIRE_OK(em_case_open(good, 0, NULL, 0, NULL, NULL, &b));
  em_case_close(&b);
  em_case_close(&b); /* closing twice is harmless */
  EXPECT_FAIL(em_case_open(NULL, 0, NULL, 0, NULL, NULL, &a), EM_ERR_ARG, "file name", NULL);
  EXPECT_FAIL(em_case_open(good, 2, NULL, 0, NULL, NULL, &a), EM_ERR_ARG, "case_params.geo",
              "overrides");
  em_param_override noname = {NULL, 0, 1, NULL};
  EXPECT_FAIL(em_case_open(good, 1, &noname, 0, NULL, NULL, &a), EM_ERR_ARG, "override 0", NULL);
  em_mesh *m = NULL;
  EXPECT_FAIL(em_case_mesh(NULL, NULL, NULL, &m), EM_ERR_ARG, "without", NULL);
  /* and Gmsh is still free */
  REQUIRE_OK(em_case_open(good, 0, NULL, 0, NULL, NULL, &a));
  em_case_close(&a);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/emsolve_case_errors_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  file_errors();
  model_errors();
  usage_errors();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd)) fprintf(stderr, "cannot remove %s\n", tmpdir);
  return TEST_RESULT();
}
