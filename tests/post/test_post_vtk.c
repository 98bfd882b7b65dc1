/* VTK writer: the sub-division lattice, and every way a write can fail
 * leaving no file behind (neither the final name nor the temporary one).
 * The content of good files is checked by check_vtk.py through meshio. */
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "em_post.h"
#include "em_test.h"
#include "post_impl.h"

/* Files in dir (the writer's temporaries included). */
static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* The lattice of denominator s: C(s+3,3) points with lam = k/s summing to
 * one, s^3 sub-tets each of reference volume 1/(6 s^3) and positive
 * orientation, together covering the reference volume 1/6. */
static void check_lattice(int s) {
  em_vtk_lattice *L = NULL;
  REQUIRE_OK(em_vtk_lattice_create(s, &L));
  EXPECT(L->n_pt == (s + 1) * (s + 2) * (s + 3) / 6 && L->n_sub == s * s * s, "s=%d: %d pts %d", s,
         L->n_pt, L->n_sub);
  for (int p = 0; p < L->n_pt; p++) {
    double sum = 0;
    for (int a = 0; a < 4; a++) {
      double k = L->lam[4 * p + a] * s;
      EXPECT(fabs(k - round(k)) < 1e-12 && k > -1e-12, "s=%d point %d lam %g", s, p, k);
      sum += L->lam[4 * p + a];
    }
    EXPECT_NEAR(sum, 1.0, 1e-14);
  }
  double total = 0;
  for (int k = 0; k < L->n_sub; k++) {
    const int32_t *v = L->sub + 4 * k;
    double e[3][3];
    for (int r = 0; r < 3; r++)
      for (int d = 0; d < 3; d++) e[r][d] = L->lam[4 * v[r + 1] + d + 1] - L->lam[4 * v[0] + d + 1];
    double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                 e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                 e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    EXPECT_NEAR(det / 6, 1.0 / (6.0 * s * s * s), 1e-12);
    total += det / 6;
  }
  EXPECT_NEAR(total, 1.0 / 6, 1e-13);
  em_vtk_lattice_destroy(&L);
  EXPECT(L == NULL, "destroy nulls");
}

static em_err smooth(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  (void)ctx;
  for (int c = 0; c < 3; c++) E[c] = lam[c] + I * (t + lam[3]);
  return EM_OK;
}

/* Fails (like a real field evaluation could) at the tet in *ctx. */
static em_err failing(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  if (t == *(int32_t *)ctx) return EM_RAISE(EM_ERR_INPUT, "sampler refuses tet %d", t);
  return smooth(NULL, t, lam, E);
}

/* Returns value *ctx (NaN, Inf or huge) in Ey of tet 5. */
static em_err poisoned(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  smooth(NULL, t, lam, E);
  if (t == 5) E[1] = *(double *)ctx;
  return EM_OK;
}

/* em_vtk_opts.error_late: counts its calls */
typedef struct late_ctx {
  const double *eta;
  int calls;
} late_ctx;

static const double *late_eta(void *ctx) {
  late_ctx *l = ctx;
  l->calls++;
  return l->eta;
}

/* The two files hold the same bytes. */
static int same_bytes(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  int same = fa && fb, ca, cb;
  while (same && (ca = fgetc(fa)) != EOF) same = ca == (cb = fgetc(fb));
  if (same) same = fgetc(fb) == EOF;
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

int main(void) {
  for (int s = 1; s <= 7; s++) check_lattice(s);
  em_vtk_lattice *L = NULL;
  EXPECT_ERR(em_vtk_lattice_create(0, &L), EM_ERR_ARG);
  EXPECT_ERR(em_vtk_lattice_create(65, &L), EM_ERR_ARG);

  char dir[] = "/tmp/em_post_vtk_XXXXXX", path[512];
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  snprintf(path, sizeof path, "%s/f.vtk", dir);
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(2, 2, 2, 1, 1, 1, 0.1, 3, &m));
  em_vtk_opts o = {.binary = 1, .subdiv = 2, .title = "t"};

  /* arguments */
  EXPECT_ERR(em_vtk_write(NULL, m, smooth, NULL, &o), EM_ERR_ARG);
  EXPECT_ERR(em_vtk_write(path, NULL, smooth, NULL, &o), EM_ERR_ARG);
  EXPECT_ERR(em_vtk_write(path, m, NULL, NULL, &o), EM_ERR_ARG);
  EXPECT_ERR(em_vtk_write(path, m, smooth, NULL, NULL), EM_ERR_ARG);
  o.subdiv = 0;
  EXPECT_ERR(em_vtk_write(path, m, smooth, NULL, &o), EM_ERR_ARG);
  o.subdiv = 65;
  EXPECT_ERR(em_vtk_write(path, m, smooth, NULL, &o), EM_ERR_ARG);
  o.subdiv = 2;
  m->tet_group[3] = m->n_group;
  em_err e = em_vtk_write(path, m, smooth, NULL, &o);
  EXPECT(e == EM_ERR_ARG && strstr(em_error_message(), "tet 3"), "bad group: %s",
         em_error_message());
  em_error_clear();
  m->tet_group[3] = 0;
  EXPECT(count_files(dir) == 0, "argument errors left files");

  /* an unwritable place: EM_ERR_IO naming it */
  e = em_vtk_write("/nonexistent-emsolve-dir/f.vtk", m, smooth, NULL, &o);
  EXPECT(e == EM_ERR_IO && strstr(em_error_message(), "/nonexistent-emsolve-dir/f.vtk"),
         "unwritable: %s %s", em_err_name(e), em_error_message());
  em_error_clear();

  /* a sampler error aborts the file; its own message comes through */
  for (int binary = 0; binary <= 1; binary++) {
    o.binary = binary;
    int32_t bad = m->n_tet - 1;
    e = em_vtk_write(path, m, failing, &bad, &o);
    EXPECT(e == EM_ERR_INPUT && strstr(em_error_message(), "refuses tet"), "sampler: %s %s",
           em_err_name(e), em_error_message());
    em_error_clear();
    EXPECT(count_files(dir) == 0, "a sampler error left a file (binary %d)", binary);
  }

  /* NaN and Inf never reach the file: EM_ERR_NUMERIC naming the tet */
  double values[] = {NAN, INFINITY, -INFINITY};
  for (int k = 0; k < 3; k++) {
    e = em_vtk_write(path, m, poisoned, &values[k], &o);
    EXPECT(e == EM_ERR_NUMERIC && strstr(em_error_message(), "tet 5,"), "%g: %s %s", values[k],
           em_err_name(e), em_error_message());
    em_error_clear();
    EXPECT(count_files(dir) == 0, "a non-finite field left a file");
  }
  /* 1e39 is fine as a double, not as a float */
  double huge = 1e39;
  EXPECT_OK(em_vtk_write(path, m, poisoned, &huge, &o));
  remove(path);
  o.single = 1;
  e = em_vtk_write(path, m, poisoned, &huge, &o);
  EXPECT(e == EM_ERR_NUMERIC && strstr(em_error_message(), "float"), "float range: %s",
         em_error_message());
  em_error_clear();
  o.single = 0;
  EXPECT(count_files(dir) == 0, "a field beyond float range left a file");

  /* a write error (file size limit standing in for a full disk) */
  struct rlimit old, lim;
  signal(SIGXFSZ, SIG_IGN);
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = 8192;
  for (int binary = 0; binary <= 1; binary++) {
    o.binary = binary;
    REQUIRE_OK(setrlimit(RLIMIT_FSIZE, &lim) == 0 ? EM_OK : EM_ERR_IO);
    e = em_vtk_write(path, m, smooth, NULL, &o);
    setrlimit(RLIMIT_FSIZE, &old);
    EXPECT(e == EM_ERR_IO && strstr(em_error_message(), path), "full disk: %s %s", em_err_name(e),
           em_error_message());
    em_error_clear();
    EXPECT(count_files(dir) == 0, "a failed write left a file (binary %d)", binary);
  }

  /* the error indicator given late (em_vtk_opts.error_late, issue 24):
     called once, after the sampling, and the same bytes as given at once;
     a non-finite one leaves no file; a sampler error stops the writer
     before the call */
  {
    double *eta = NULL;
    REQUIRE_OK(em_calloc(&eta, (size_t)m->n_tet, sizeof *eta, "eta"));
    for (int32_t t = 0; t < m->n_tet; t++) eta[t] = 1e-3 * (t + 1) / 7.0;
    char p2[600];
    snprintf(p2, sizeof p2, "%s/g.vtk", dir);
    for (int binary = 0; binary <= 1; binary++) {
      em_vtk_opts a = {.binary = binary, .subdiv = 2, .title = "t", .error = eta};
      em_vtk_opts b = {.binary = binary, .subdiv = 2, .title = "t"};
      late_ctx lc = {.eta = eta};
      b.error_late = late_eta, b.error_ctx = &lc;
      EXPECT_OK(em_vtk_write(path, m, smooth, NULL, &a));
      EXPECT_OK(em_vtk_write(p2, m, smooth, NULL, &b));
      EXPECT(lc.calls == 1, "error_late called %d times", lc.calls);
      EXPECT(same_bytes(path, p2), "binary %d: error_late wrote other bytes than error", binary);
      remove(path);
      remove(p2);
      lc.calls = 0, lc.eta = NULL; /* none: no error field, as error NULL */
      a.error = NULL;
      EXPECT_OK(em_vtk_write(path, m, smooth, NULL, &a));
      EXPECT_OK(em_vtk_write(p2, m, smooth, NULL, &b));
      EXPECT(lc.calls == 1 && same_bytes(path, p2), "binary %d: error_late NULL", binary);
      remove(path);
      remove(p2);
      eta[2] = NAN; /* caught after the call, the file dropped */
      lc.calls = 0, lc.eta = eta;
      e = em_vtk_write(p2, m, smooth, NULL, &b);
      EXPECT(e == EM_ERR_NUMERIC && strstr(em_error_message(), "error indicator of tet 2"),
             "late NaN: %s %s", em_err_name(e), em_error_message());
      em_error_clear();
      EXPECT(count_files(dir) == 0, "a late non-finite indicator left a file");
      eta[2] = 1e-3;
      lc.calls = 0;
      int32_t bad = 1;
      e = em_vtk_write(p2, m, failing, &bad, &b);
      EXPECT(e == EM_ERR_INPUT && lc.calls == 0, "sampler error: %s, error_late called %d",
             em_err_name(e), lc.calls);
      em_error_clear();
      EXPECT(count_files(dir) == 0, "a sampler error left a file (late error)");
    }
    em_free(&eta);
  }

  /* and a good file appears under its name only */
  EXPECT_OK(em_vtk_write(path, m, smooth, NULL, &o));
  EXPECT(count_files(dir) == 1 && access(path, R_OK) == 0, "good write: %d files",
         count_files(dir));
  remove(path);
  rmdir(dir);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
