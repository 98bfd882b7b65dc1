/* post_sample - writes the files that the Python checks read back with
 * independent readers (meshio, json, plain parsing):
 *
 *   post_sample vtk DIR      mesh.txt (the input mesh, plain text) and VTK
 *                            files of an analytic field, ASCII and BINARY,
 *                            double and float, subdiv 1..5; one_mesh.txt
 *                            and one_s3.vtk for a single tet
 *   post_sample json DIR     doc.json with awkward strings and numbers
 *   post_sample tables DIR   Touchstone .s1p .s2p .s3p .s5p, ports1.csv,
 *                            ports2.csv
 *   post_sample bench DIR N S [ascii]
 *                            time the output of a box of ~N tets at subdiv
 *                            S, BINARY unless "ascii" (prints seconds)
 *
 * The values are defined by formulas the checks repeat (check_*.py), so the
 * files are compared with the definitions, not with earlier output. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "em_post.h"
#include "em_test.h"

/* --------------------------------------------------------------------- VTK */

/* E = (x + 2j y, z^2, exp(j x)) at the point x = sum lam_i x_i of tet t. */
static em_err field(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  const em_mesh *m = ctx;
  double x[3] = {0, 0, 0};
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) x[d] += lam[a] * m->xyz[3 * m->tet[4 * t + a] + d];
  E[0] = x[0] + 2 * I * x[1];
  E[1] = x[2] * x[2];
  E[2] = cexp(I * x[0]);
  return EM_OK;
}

/* A jittered box of 3 x 2 x 2 cells, 1.5 x 1 x 0.75 m, with volume groups
 * by the centroid's x (air | dra | pml_xp) and a surface group in between,
 * so the material ids are 0, 2, 3. */
static em_err sample_mesh(em_mesh **out) {
  em_mesh *box = NULL;
  int32_t *grp = NULL;
  em_err err = EM_OK;
  EM_TRY(em_mesh_box(3, 2, 2, 1.5, 1.0, 0.75, 0.2, 7, &box));
  EM_TRY_GOTO(err, em_calloc(&grp, (size_t)box->n_tet, sizeof *grp, "groups"), done);
  for (int32_t t = 0; t < box->n_tet; t++) {
    double cx = 0;
    for (int a = 0; a < 4; a++) cx += 0.25 * box->xyz[3 * box->tet[4 * t + a]];
    grp[t] = cx < 0.5 ? 0 : cx < 1.0 ? 2 : 3;
  }
  em_group groups[4] = {{"air", 1, 3}, {"xmin", 2, 2}, {"dra", 3, 3}, {"pml_xp", 4, 3}};
  EM_TRY_GOTO(err,
              em_mesh_from_tets(box->n_vert, box->xyz, box->n_tet, box->tet, grp, 0, NULL, NULL, 4,
                                groups, 0, out),
              done);
done:
  em_free(&grp);
  em_mesh_destroy(&box);
  return err;
}

static em_err write_mesh_txt(const char *dir, const char *name, const em_mesh *m) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  EM_CHECK(f, EM_ERR_IO, "cannot write %s", path);
  fprintf(f, "%d %d\n", m->n_vert, m->n_tet);
  for (int32_t v = 0; v < m->n_vert; v++)
    fprintf(f, "%.17g %.17g %.17g\n", m->xyz[3 * v], m->xyz[3 * v + 1], m->xyz[3 * v + 2]);
  for (int32_t t = 0; t < m->n_tet; t++)
    fprintf(f, "%d %d %d %d %d\n", m->tet[4 * t], m->tet[4 * t + 1], m->tet[4 * t + 2],
            m->tet[4 * t + 3], m->tet_group[t]);
  EM_CHECK(fclose(f) == 0, EM_ERR_IO, "error writing %s", path);
  return EM_OK;
}

/* The smallest mesh: one tet whose ascending vertex order has negative
 * volume, so every sub-tet must be flipped. */
static em_err one_tet(em_mesh **out) {
  const double xyz[12] = {0, 0, 0, 0, 0.5, 0, 0.5, 0, 0, 0, 0, 0.5};
  const int32_t tet[4] = {0, 1, 2, 3}, grp[1] = {0};
  em_group groups[1] = {{"air", 1, 3}};
  EM_TRY(em_mesh_from_tets(4, xyz, 1, tet, grp, 0, NULL, NULL, 1, groups, 0, out));
  return EM_OK;
}

static int do_vtk(const char *dir) {
  em_mesh *m = NULL;
  char path[1024];
  REQUIRE_OK(one_tet(&m));
  REQUIRE_OK(write_mesh_txt(dir, "one_mesh.txt", m));
  em_vtk_opts o1 = {.binary = 1, .subdiv = 3, .title = "one tet"};
  snprintf(path, sizeof path, "%s/one_s3.vtk", dir);
  EXPECT_OK(em_vtk_write(path, m, field, m, &o1));
  em_mesh_destroy(&m);
  REQUIRE_OK(sample_mesh(&m));
  REQUIRE_OK(write_mesh_txt(dir, "mesh.txt", m));
  /* name, binary, subdiv, single (check_vtk.py has the same table) */
  struct {
    const char *name;
    int binary, subdiv, single;
  } cases[] = {{"ascii_s1", 0, 1, 0},  {"ascii_s2", 0, 2, 0},  {"ascii_s3", 0, 3, 0},
               {"binary_s2", 1, 2, 0}, {"binary_s3", 1, 3, 0}, {"binary_s4", 1, 4, 0},
               {"binary_s5", 1, 5, 0}, {"float_s3", 1, 3, 1},  {"ascii_float_s2", 0, 2, 1}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    em_vtk_opts o = {.binary = cases[k].binary,
                     .subdiv = cases[k].subdiv,
                     .title = "box test",
                     .single = cases[k].single};
    snprintf(path, sizeof path, "%s/%s.vtk", dir, cases[k].name);
    EXPECT_OK(em_vtk_write(path, m, field, m, &o));
  }
  /* a title far beyond the legacy 256 characters, with a line break, a tab
   * and multi-byte UTF-8 (2-byte and 4-byte) straddling the cut */
  char title[600];
  size_t n = 0;
  n += (size_t)snprintf(title + n, sizeof title - n, "line\nbreak\ttab x ");
  while (n + 8 < sizeof title)
    n += (size_t)snprintf(title + n, sizeof title - n, "\xc2\xb5\xf0\x9f\x98\x80");
  em_vtk_opts o = {.binary = 1, .subdiv = 2, .title = title};
  snprintf(path, sizeof path, "%s/long_title.vtk", dir);
  EXPECT_OK(em_vtk_write(path, m, field, m, &o));
  em_mesh_destroy(&m);
  return TEST_RESULT();
}

/* -------------------------------------------------------------------- JSON */

static int do_json(const char *dir) {
  char path[1024], controls[40], key[8];
  snprintf(path, sizeof path, "%s/doc.json", dir);
  for (int c = 1; c < 32; c++) controls[c - 1] = (char)c;
  controls[31] = 0x7f;
  controls[32] = '\0';
  em_json j;
  REQUIRE_OK(em_json_open(&j, path));
  em_json_begin_object(&j, NULL);
  em_json_string(&j, "name", "emsolve");
  em_json_string(&j, "quote", "say \"hi\"");
  em_json_string(&j, "backslash", "C:\\dir\\file /x");
  em_json_string(&j, "controls", controls);
  em_json_string(&j, "utf8", "\xc2\xb5-\xce\xa9-\xf0\x9f\x98\x80");
  em_json_string(&j, "bad_utf8", "a\xff b\xc3( c\xed\xa0\x80 d\xc0\xaf");
  em_json_int(&j, "tab\tkey\"", 1);
  em_json_begin_array(&j, "numbers");
  double nums[] = {0.1, 1.0 / 3.0, -0.0,        1e-300, 5e-324,          DBL_MAX,
                   3.0, -2.5e20,   123456789.0, 1e21,   2.0 / 3.0 * 1e-7};
  for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) em_json_number(&j, NULL, nums[k]);
  em_json_end_array(&j);
  em_json_begin_array(&j, "nonfinite");
  em_json_number(&j, NULL, NAN);
  em_json_number(&j, NULL, INFINITY);
  em_json_number(&j, NULL, -INFINITY);
  em_json_end_array(&j);
  em_json_begin_array(&j, "ints");
  int64_t ints[] = {0, -1, INT64_MAX, INT64_MIN, 9007199254740993LL};
  for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) em_json_int(&j, NULL, ints[k]);
  em_json_end_array(&j);
  em_json_begin_array(&j, "bools");
  em_json_bool(&j, NULL, 1);
  em_json_bool(&j, NULL, 0);
  em_json_bool(&j, NULL, 7);
  em_json_end_array(&j);
  em_json_string(&j, "null_string", NULL);
  em_json_begin_object(&j, "empty_object");
  em_json_end_object(&j);
  em_json_begin_array(&j, "empty_array");
  em_json_end_array(&j);
  /* the top-level object is depth 1: 30 arrays reach the limit of 31 */
  for (int d = 2; d <= EM_JSON_MAX_DEPTH; d++) em_json_begin_array(&j, d == 2 ? "deep" : NULL);
  em_json_int(&j, NULL, 42);
  for (int d = 2; d <= EM_JSON_MAX_DEPTH; d++) em_json_end_array(&j);
  em_json_begin_array(&j, "objects");
  for (int k = 0; k < 3; k++) {
    em_json_begin_object(&j, NULL);
    snprintf(key, sizeof key, "k%d", k);
    em_json_int(&j, key, k);
    em_json_end_object(&j);
  }
  em_json_end_array(&j);
  /* left open on purpose: em_json_close closes it and the top object */
  em_json_begin_object(&j, "auto_closed");
  em_json_begin_array(&j, "list");
  em_json_number(&j, NULL, 1.5);
  EXPECT_OK(em_json_close(&j));
  return TEST_RESULT();
}

/* ------------------------------------------------------------ port tables */

/* S_ij at frequency k (0-based i, j): quotients that check_tables.py forms
 * with the same IEEE operations, so the values are known exactly;
 * f_k = 1e9 (1 + k/7). */
static em_cplx s_value(int k, int i, int jj) {
  return (1.0 + i + 2 * jj + 3 * k) / 17.0 - I * ((2.0 + i * jj + k) / 29.0);
}

static int write_tables(const char *dir, int n_ports, int n_freq) {
  double freq[8];
  em_cplx S[8 * 25];
  for (int k = 0; k < n_freq; k++) {
    freq[k] = 1e9 * (1 + k / 7.0);
    for (int i = 0; i < n_ports; i++)
      for (int jj = 0; jj < n_ports; jj++) S[(k * n_ports + i) * n_ports + jj] = s_value(k, i, jj);
  }
  /* awkward reflections: open circuit (Zin infinite) and a matched port */
  S[(1 * n_ports + 0) * n_ports + 0] = 1;
  S[(2 * n_ports + 0) * n_ports + 0] = 0;
  char path[1024];
  snprintf(path, sizeof path, "%s/sample.s%dp", dir, n_ports);
  EXPECT_OK(em_touchstone_write(path, n_ports, n_freq, freq, S, 50,
                                "case: sample\nsecond line\twith tab"));
  if (n_ports <= 2) {
    double z0[2] = {50, 75};
    snprintf(path, sizeof path, "%s/ports%d.csv", dir, n_ports);
    EXPECT_OK(em_ports_csv_write(path, n_ports, n_freq, freq, S, z0));
  }
  if (n_ports == 2) { /* references that differ, and change at frequency 1 */
    double z0[2] = {50, 75}, zrow[16];
    for (int k = 0; k < n_freq; k++) zrow[2 * k] = 50, zrow[2 * k + 1] = k == 1 ? 75.5 : 75;
    snprintf(path, sizeof path, "%s/sample_ref.s2p", dir);
    EXPECT_OK(em_touchstone_write_ref(path, 2, n_freq, freq, S, z0, zrow, "case: sample"));
  }
  return TEST_RESULT();
}

static int do_tables(const char *dir) {
  write_tables(dir, 1, 5);
  write_tables(dir, 2, 4);
  write_tables(dir, 3, 3);
  return write_tables(dir, 5, 3);
}

/* ------------------------------------------------------------------- bench */

static em_err zero_field(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  (void)ctx;
  E[0] = t + lam[1];
  E[1] = I * lam[2];
  E[2] = lam[3];
  return EM_OK;
}

static int do_bench(const char *dir, int n_tet, int subdiv, int binary) {
  int n = (int)ceil(cbrt(n_tet / 6.0));
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(n, n, n, 1, 1, 1, 0.1, 1, &m));
  char path[1024];
  snprintf(path, sizeof path, "%s/bench.vtk", dir);
  em_vtk_opts o = {.binary = binary, .subdiv = subdiv, .title = "bench"};
  double t0 = em_wtime();
  EXPECT_OK(em_vtk_write(path, m, zero_field, NULL, &o));
  printf("%d tets, subdiv %d, %lld sub-tets, %s: %.3f s\n", m->n_tet, subdiv,
         (long long)m->n_tet * subdiv * subdiv * subdiv, binary ? "BINARY" : "ASCII",
         em_wtime() - t0);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "vtk")) return do_vtk(argv[2]);
  if (argc == 3 && !strcmp(argv[1], "json")) return do_json(argv[2]);
  if (argc == 3 && !strcmp(argv[1], "tables")) return do_tables(argv[2]);
  if ((argc == 5 || argc == 6) && !strcmp(argv[1], "bench"))
    return do_bench(argv[2], atoi(argv[3]), atoi(argv[4]), argc == 5 || strcmp(argv[5], "ascii"));
  fprintf(stderr, "usage: post_sample vtk|json|tables DIR | bench DIR N_TET SUBDIV [ascii]\n");
  return 2;
}
