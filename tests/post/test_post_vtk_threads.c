/* VTK writers with thread-safe samplers (em_vtk_opts.parallel, .tet) and
 * the threads' array encoder (post/vtk_array.c): the files are those of
 * the one-thread writer, byte for byte, for 1 and 3 threads, in BINARY and
 * ASCII, double and float; a sampler error, a value that is not finite or
 * a cancel request in the threaded sampling leaves no file and names the
 * first bad tet as the serial writer does.  (The serial files' content is
 * checked against their formulas by check_vtk.py.) */
#include <dirent.h>
#include <omp.h>
#include <string.h>

#include "em_post.h"
#include "em_test.h"
#include "post_impl.h"

static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* The whole file into *buf (malloc'd); its length, -1 when unreadable. */
static long slurp(const char *path, char **buf) {
  FILE *f = fopen(path, "rb");
  *buf = NULL;
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *buf = malloc((size_t)n + 1);
  if (!*buf || fread(*buf, 1, (size_t)n, f) != (size_t)n) n = -1;
  fclose(f);
  return n;
}

/* path and ref hold the same bytes */
static int same_file(const char *a, const char *b) {
  char *x = NULL, *y = NULL;
  long n = slurp(a, &x), m = slurp(b, &y);
  int same = n >= 0 && n == m && memcmp(x, y, (size_t)n) == 0;
  free(x);
  free(y);
  return same;
}

/* E = (x + j t, y^2 - j, exp(z) + j lam_0 / 3): values of every length in
 * ASCII; H = (E_y, E_z, E_x) / 377. */
static em_err field_e(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  const em_mesh *m = ctx;
  double x[3] = {0, 0, 0};
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) x[d] += lam[a] * m->xyz[3 * m->tet[4 * t + a] + d];
  E[0] = x[0] + I * t;
  E[1] = x[1] * x[1] - I;
  E[2] = exp(x[2]) + I * lam[0] / 3;
  return EM_OK;
}

static em_err field_h(void *ctx, int32_t t, const double lam[4], em_cplx H[3]) {
  em_cplx E[3];
  field_e(ctx, t, lam, E);
  for (int c = 0; c < 3; c++) H[c] = E[(c + 1) % 3] / 377;
  return EM_OK;
}

/* Both at the n points of tet t; fails at the tet bad_tet, NaN at nan_tet. */
static int32_t bad_tet = -1, nan_tet = -1;
static em_err field_tet(void *ctx, int32_t t, int n, const double *lam, em_cplx *E, em_cplx *H) {
  if (t == bad_tet) return EM_RAISE(EM_ERR_INPUT, "sampler refuses tet %d", t);
  for (int k = 0; k < n; k++) {
    field_e(ctx, t, lam + 4 * k, E + 3 * k);
    if (H) field_h(ctx, t, lam + 4 * k, H + 3 * k);
  }
  if (t == nan_tet) E[1] = NAN;
  return EM_OK;
}

/* J = (x, j y, z) on a face: the face's point and value. */
static em_err field_face(void *ctx, int32_t k, const double lam[3], double x[3], em_cplx v[3]) {
  const em_mesh *m = ctx;
  for (int d = 0; d < 3; d++) {
    x[d] = 0;
    for (int a = 0; a < 3; a++) x[d] += lam[a] * m->xyz[3 * m->face[3 * k + a] + d];
  }
  v[0] = x[0], v[1] = I * x[1], v[2] = x[2] + I * k;
  return EM_OK;
}

/* em_vtk_stream_*_array against record by record, n around the slabs. */
static void get_real(const void *ctx, int64_t i, double *v) {
  (void)ctx;
  for (int c = 0; c < 3; c++) v[c] = (double)i / 7 - c * 1e-300;
}
static void get_int(const void *ctx, int64_t i, int32_t *v) {
  (void)ctx;
  v[0] = (int32_t)i, v[1] = -(int32_t)(i % 1000);
}

/* 16 ints a record: in ASCII (512 bytes a record at most) 98311 records
 * are several slabs of 3 threads' 8 MB parts. */
static void get_wide(const void *ctx, int64_t i, int32_t *v) {
  (void)ctx;
  for (int c = 0; c < 16; c++) v[c] = (int32_t)(i * 16 + c);
}

static void check_slabs(const char *a, const char *b) {
  int64_t n = 98311;
  for (int w = 0; w < 2; w++) {
    FILE *f = fopen(w ? b : a, "wb");
    REQUIRE_OK(f ? EM_OK : EM_ERR_IO);
    em_vtk_stream s;
    REQUIRE_OK(em_vtk_stream_init(&s, f, 0, 0));
    omp_set_num_threads(3);
    if (w) EXPECT(!em_vtk_stream_int_array(&s, n, 16, get_wide, NULL, NULL), "not cancelled");
    for (int64_t i = 0; !w && i < n; i++) {
      int32_t v[16];
      get_wide(NULL, i, v);
      em_vtk_stream_ints(&s, v, 16);
    }
    EXPECT_OK(em_vtk_stream_flush(&s, w ? b : a));
    em_vtk_stream_free(&s);
    fclose(f);
  }
  EXPECT(same_file(a, b), "an array of several slabs differs");
}

static void check_arrays(const char *dir) {
  char a[512], b[512];
  snprintf(a, sizeof a, "%s/a.bin", dir);
  snprintf(b, sizeof b, "%s/b.bin", dir);
  const int64_t sizes[] = {0, 1, 16383, 16384, 40961};
  for (int mode = 0; mode < 4; mode++)
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
      int64_t n = sizes[k];
      for (int w = 0; w < 2; w++) {
        FILE *f = fopen(w ? b : a, "wb");
        REQUIRE_OK(f ? EM_OK : EM_ERR_IO);
        em_vtk_stream s;
        REQUIRE_OK(em_vtk_stream_init(&s, f, mode & 1, mode >> 1));
        for (int part = 0; part < 2; part++) {
          if (w) {
            omp_set_num_threads(3);
            EXPECT(!(part ? em_vtk_stream_int_array(&s, n, 2, get_int, NULL, NULL)
                          : em_vtk_stream_real_array(&s, n, 3, get_real, NULL, NULL)),
                   "array not cancelled");
          } else {
            for (int64_t i = 0; i < n; i++) {
              double v[3];
              int32_t u[2];
              if (part)
                get_int(NULL, i, u), em_vtk_stream_ints(&s, u, 2);
              else
                get_real(NULL, i, v), em_vtk_stream_reals(&s, v, 3);
            }
          }
          em_vtk_stream_end_array(&s);
        }
        EXPECT_OK(em_vtk_stream_flush(&s, w ? b : a));
        em_vtk_stream_free(&s);
        fclose(f);
      }
      EXPECT(same_file(a, b), "arrays of %lld records, binary %d single %d differ", (long long)n,
             mode & 1, mode >> 1);
    }
  check_slabs(a, b);
  em_cancel stop = 1;
  FILE *f = fopen(a, "wb");
  REQUIRE_OK(f ? EM_OK : EM_ERR_IO);
  em_vtk_stream s;
  REQUIRE_OK(em_vtk_stream_init(&s, f, 1, 0));
  EXPECT(em_vtk_stream_real_array(&s, 70001, 3, get_real, NULL, &stop) == 1, "cancel: 1");
  em_vtk_stream_free(&s);
  fclose(f);
  remove(a);
  remove(b);
}

int main(void) {
  char dir[] = "/tmp/em_post_vtk_threads_XXXXXX", ref[512], path[512];
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  snprintf(ref, sizeof ref, "%s/ref.vtk", dir);
  snprintf(path, sizeof path, "%s/f.vtk", dir);
  check_arrays(dir);
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(6, 6, 6, 1, 1, 1, 0.1, 3, &m)); /* ~1300 tets: 26000 points at s 3 */
  int8_t *order = calloc((size_t)m->n_tet, 1);
  double *error = calloc((size_t)m->n_tet, sizeof *error);
  REQUIRE_OK(order && error ? EM_OK : EM_ERR_MEMORY);
  for (int32_t t = 0; t < m->n_tet; t++) order[t] = (int8_t)(1 + t % 3), error[t] = 1.0 / (t + 1);
  int32_t *faces = malloc((size_t)m->n_face * sizeof *faces);
  REQUIRE_OK(faces ? EM_OK : EM_ERR_MEMORY);
  for (int32_t k = 0; k < m->n_face; k++) faces[k] = k;

  for (int mode = 0; mode < 4; mode++) {
    em_vtk_opts o = {.binary = mode & 1,
                     .single = mode >> 1,
                     .subdiv = 3,
                     .title = "threads",
                     .H = field_h,
                     .order = order,
                     .error = error};
    omp_set_num_threads(1);
    REQUIRE_OK(em_vtk_write(ref, m, field_e, m, &o));
    for (int nt = 1; nt <= 3; nt += 2) {
      omp_set_num_threads(nt);
      em_vtk_opts p = o;
      p.parallel = 1; /* E and H point by point, from the threads */
      EXPECT_OK(em_vtk_write(path, m, field_e, m, &p));
      EXPECT(same_file(ref, path), "parallel, %d threads, mode %d: not the serial file", nt, mode);
      p.tet = field_tet, p.tet_h = 1; /* a tet at once, E given NULL */
      EXPECT_OK(em_vtk_write(path, m, NULL, m, &p));
      EXPECT(same_file(ref, path), "tet sampler, %d threads, mode %d: not the serial file", nt,
             mode);
    }
    /* the surface writer */
    omp_set_num_threads(1);
    REQUIRE_OK(em_vtk_surface_write(ref, m, m->n_face, faces, faces, field_face, m, "J", &o));
    omp_set_num_threads(3);
    em_vtk_opts p = o;
    p.parallel = 1;
    EXPECT_OK(em_vtk_surface_write(path, m, m->n_face, faces, faces, field_face, m, "J", &p));
    EXPECT(same_file(ref, path), "surface, 3 threads, mode %d: not the serial file", mode);
  }
  remove(ref);
  remove(path);

  /* failures in the threads: the first bad tet named, no file */
  omp_set_num_threads(3);
  em_vtk_opts o = {.binary = 1, .subdiv = 2, .title = "t", .tet = field_tet, .tet_h = 1};
  bad_tet = m->n_tet - 2;
  em_err e = em_vtk_write(path, m, NULL, m, &o);
  EXPECT(e == EM_ERR_INPUT && strstr(em_error_message(), "refuses tet"), "sampler: %s %s",
         em_err_name(e), em_error_message());
  em_error_clear();
  bad_tet = -1;
  nan_tet = 700;
  e = em_vtk_write(path, m, NULL, m, &o);
  EXPECT(e == EM_ERR_NUMERIC && strstr(em_error_message(), "tet 700,"), "NaN: %s %s",
         em_err_name(e), em_error_message());
  em_error_clear();
  nan_tet = -1;
  em_cancel stop = 1;
  o.cancel = &stop;
  e = em_vtk_write(path, m, NULL, m, &o);
  EXPECT(e == EM_ERR_CANCELLED, "cancel: %s %s", em_err_name(e), em_error_message());
  em_error_clear();
  EXPECT(count_files(dir) == 0, "a failed threaded write left a file");

  free(order);
  free(error);
  free(faces);
  em_mesh_destroy(&m);
  remove(dir);
  return TEST_RESULT();
}
