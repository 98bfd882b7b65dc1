/* The VTK writer and a cancel request (issue 32: emsolve's SIGINT /
 * SIGTERM flag): set while the field is sampled, or once sampling is done
 * (the writing passes), the writer stops with EM_ERR_CANCELLED within 256
 * tets and leaves no file, neither the final name nor the temporary one; a
 * flag left at 0 changes nothing. */
#include <dirent.h>
#include <string.h>

#include "em_post.h"
#include "em_test.h"

static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* A smooth field; sets *flag when it samples tet `at` (counts the tets). */
typedef struct setter {
  em_cancel *flag;
  int32_t at, last;
} setter;

static em_err field(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  setter *s = ctx;
  if (t == s->at) *s->flag = 2;
  s->last = t;
  for (int c = 0; c < 3; c++) E[c] = lam[c] + I * (t + lam[3]);
  return EM_OK;
}

int main(void) {
  char dir[] = "/tmp/em_post_cancel_XXXXXX", path[512];
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  snprintf(path, sizeof path, "%s/f.vtk", dir);
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(6, 6, 6, 1, 1, 1, 0.1, 3, &m));
  em_cancel flag = 0;
  em_vtk_opts o = {.binary = 1, .subdiv = 2, .title = "t", .cancel = &flag};
  for (int binary = 0; binary <= 1; binary++) {
    o.binary = binary;
    /* never set: the file is written */
    setter s = {&flag, -1, -1};
    flag = 0;
    EXPECT_OK(em_vtk_write(path, m, field, &s, &o));
    EXPECT(count_files(dir) == 1, "flag 0: one file (binary %d)", binary);
    remove(path);
    /* set while sampling (tet 300): stops at tet 512, the next poll */
    s = (setter){&flag, 300, -1};
    flag = 0;
    em_err e = em_vtk_write(path, m, field, &s, &o);
    EXPECT(e == EM_ERR_CANCELLED && s.last < 300 + 256 && strstr(em_error_message(), "cancelled"),
           "set at tet 300 while sampling: %s after tet %d (%s)", em_err_name(e), s.last,
           em_error_message());
    em_error_clear();
    EXPECT(count_files(dir) == 0, "cancelled while sampling: no file left (binary %d)", binary);
    /* set at the last tet sampled: the writing passes stop */
    s = (setter){&flag, m->n_tet - 1, -1};
    flag = 0;
    e = em_vtk_write(path, m, field, &s, &o);
    EXPECT(e == EM_ERR_CANCELLED && s.last == m->n_tet - 1, "set at the last tet: %s (%s)",
           em_err_name(e), em_error_message());
    em_error_clear();
    EXPECT(count_files(dir) == 0, "cancelled while writing: no file left (binary %d)", binary);
  }
  em_mesh_destroy(&m);
  remove(dir);
  return TEST_RESULT();
}
