/* The vector backend (CPU OpenMP or cuBLAS + fused kernels) against plain
 * host loops, both precisions, lengths 0, 1, 31, 33, 1000, 70001 (not
 * multiples of a warp or a block); the column-set operations of the lockstep
 * methods on 1, 3, 4, 16, 17 sets.  Usage: test_solver_vec cpu|gpu. */
#include "solver_test.h"
#include "vec_impl.h"

#define K 3 /* block width for mdot / gemv */

static unsigned long long seed = 99;

static em_cplx rnd(void) {
  return em_test_rand(&seed) - 0.5 + I * (em_test_rand(&seed) - 0.5);
}

/* z rounded to complex single, part by part: GCC 12 at -O2 folds the
 * round trip (em_cplx)(em_cplxf)z of a complex value away */
static em_cplx round_f(em_cplx z) {
  return (float)creal(z) + I * (double)(float)cimag(z);
}

/* max |a - b| relative to max |b| must stay under tol */
static void expect_close(const char *what, int32_t n, const em_cplx *a, const em_cplx *b,
                         double tol) {
  double e = test_rel_err(a, b, n);
  EXPECT(e <= tol, "%s (n = %d): relative error %.3e > %.1e", what, n, e, tol);
}

static void check(em_backend be, em_prec prec, int32_t n) {
  double tol = prec == EM_PREC_SINGLE ? 2e-6 : 1e-14, rtol = prec == EM_PREC_SINGLE ? 1e-5 : 1e-12;
  em_vec *v = NULL;
  REQUIRE_OK(em_vec_create(be, prec, n, K, &v));
  size_t m = (size_t)n + 1;
  em_cplx *x = calloc(m * K, sizeof *x), *y = calloc(m, sizeof *y), *z = calloc(m, sizeof *z);
  em_cplx *out = calloc(m * K, sizeof *out), *ref = calloc(m, sizeof *ref);
  for (int32_t i = 0; i < n; i++) y[i] = rnd(), z[i] = rnd();
  for (int32_t i = 0; i < n * K; i++) x[i] = rnd();
  if (prec == EM_PREC_SINGLE) /* inputs representable exactly */
    for (int32_t i = 0; i < n; i++) {
      y[i] = round_f(y[i]), z[i] = round_f(z[i]);
      for (int j = 0; j < K; j++) x[i + j * n] = round_f(x[i + j * n]);
    }
  void *dX = NULL, *dy = NULL, *dz = NULL;
  REQUIRE_OK(v->ops->alloc(v, K, &dX));
  REQUIRE_OK(v->ops->alloc(v, 1, &dy));
  REQUIRE_OK(v->ops->alloc(v, 1, &dz));
  /* upload / download of a block column */
  for (int j = 0; j < K; j++) EXPECT_OK(v->ops->upload(v, x + (size_t)j * n, em_vec_col(v, dX, j)));
  EXPECT_OK(v->ops->download(v, em_vec_col(v, dX, 1), out));
  expect_close("upload/download", n, out, x + n, 0);
  /* set */
  EXPECT_OK(v->ops->set(v, 2 - 3 * I, dy));
  EXPECT_OK(v->ops->download(v, dy, out));
  for (int32_t i = 0; i < n; i++) ref[i] = 2 - 3 * I;
  expect_close("set", n, out, ref, 0);
  /* copy, scale */
  EXPECT_OK(v->ops->copy(v, dX, dy));
  EXPECT_OK(v->ops->scale(v, 0.5 + 2 * I, dy));
  EXPECT_OK(v->ops->download(v, dy, out));
  for (int32_t i = 0; i < n; i++) ref[i] = (0.5 + 2 * I) * x[i];
  expect_close("copy+scale", n, out, ref, tol);
  /* axpby: b = 1 (axpy), b = 0 over NaN garbage, general */
  em_cplx a = 1.5 - 0.25 * I, b = -0.75 + 0.5 * I;
  EXPECT_OK(v->ops->upload(v, y, dy));
  EXPECT_OK(em_vec_axpy(v, a, dX, dy));
  EXPECT_OK(v->ops->download(v, dy, out));
  for (int32_t i = 0; i < n; i++) ref[i] = a * x[i] + y[i];
  expect_close("axpy", n, out, ref, tol);
  for (int32_t i = 0; i < n; i++) ref[i] = NAN;
  EXPECT_OK(v->ops->upload(v, ref, dy));
  EXPECT_OK(v->ops->axpby(v, a, dX, 0, dy));
  EXPECT_OK(v->ops->download(v, dy, out));
  for (int32_t i = 0; i < n; i++) ref[i] = a * x[i];
  expect_close("axpby b=0 over NaN", n, out, ref, tol);
  EXPECT_OK(v->ops->upload(v, y, dy));
  EXPECT_OK(v->ops->axpby(v, a, dX, b, dy));
  EXPECT_OK(v->ops->download(v, dy, out));
  for (int32_t i = 0; i < n; i++) ref[i] = a * x[i] + b * y[i];
  expect_close("axpby", n, out, ref, tol);
  /* axpbypcz, general and c = 0 */
  em_cplx c = 0.125 + I;
  EXPECT_OK(v->ops->upload(v, y, dy));
  EXPECT_OK(v->ops->upload(v, z, dz));
  EXPECT_OK(v->ops->axpbypcz(v, a, dX, b, dy, c, dz));
  EXPECT_OK(v->ops->download(v, dz, out));
  for (int32_t i = 0; i < n; i++) ref[i] = a * x[i] + b * y[i] + c * z[i];
  expect_close("axpbypcz", n, out, ref, tol);
  EXPECT_OK(v->ops->axpbypcz(v, a, dX, b, dy, 0, dz));
  EXPECT_OK(v->ops->download(v, dz, out));
  for (int32_t i = 0; i < n; i++) ref[i] = a * x[i] + b * y[i];
  expect_close("axpbypcz c=0", n, out, ref, tol);
  /* fused dots: k = 1..4, conjugated and not */
  EXPECT_OK(v->ops->upload(v, z, dz));
  EXPECT_OK(v->ops->upload(v, y, dy));
  const void *xs[4] = {dX, dy, em_vec_col(v, dX, 2), dz}, *ys[4] = {dy, dz, dy, dz};
  const em_cplx *hx[4] = {x, y, x + 2 * (size_t)n, z}, *hy[4] = {y, z, y, z};
  int cs[4] = {1, 0, 0, 1};
  for (int k = 1; k <= 4; k++) {
    em_cplx d[4], e[4] = {0};
    double s[4] = {0};
    EXPECT_OK(v->ops->dots(v, k, xs, ys, cs, d));
    for (int j = 0; j < k; j++)
      for (int32_t i = 0; i < n; i++) {
        e[j] += (cs[j] ? conj(hx[j][i]) : hx[j][i]) * hy[j][i];
        s[j] += cabs(hx[j][i]) * cabs(hy[j][i]);
      }
    for (int j = 0; j < k; j++)
      EXPECT(cabs(d[j] - e[j]) <= rtol * s[j] || (n == 0 && d[j] == 0),
             "dots k=%d j=%d n=%d: %g%+gj vs %g%+gj", k, j, n, creal(d[j]), cimag(d[j]),
             creal(e[j]), cimag(e[j]));
  }
  double nrm, enrm = 0;
  EXPECT_OK(em_vec_norm(v, dz, &nrm));
  for (int32_t i = 0; i < n; i++) enrm += pow(cabs(z[i]), 2);
  EXPECT_NEAR(nrm, sqrt(enrm), rtol);
  /* mdot h = X^H z and gemv w = a X h + b w */
  em_cplx h[K], eh[K] = {0};
  EXPECT_OK(v->ops->mdot(v, K, dX, dz, h));
  for (int j = 0; j < K; j++)
    for (int32_t i = 0; i < n; i++) eh[j] += conj(x[i + (size_t)j * n]) * z[i];
  for (int j = 0; j < K; j++)
    EXPECT(cabs(h[j] - eh[j]) <= rtol * (1 + sqrt(enrm) * sqrt(n)), "mdot j=%d n=%d", j, n);
  EXPECT_OK(v->ops->upload(v, y, dy));
  em_cplx hh[K] = {1 - I, 0.5, -2 * I};
  EXPECT_OK(v->ops->gemv(v, K, a, dX, hh, b, dy));
  EXPECT_OK(v->ops->download(v, dy, out));
  for (int32_t i = 0; i < n; i++) {
    em_cplx s = 0;
    for (int j = 0; j < K; j++) s += x[i + (size_t)j * n] * hh[j];
    ref[i] = a * s + b * y[i];
  }
  expect_close("gemv", n, out, ref, 4 * tol);
  EXPECT_OK(v->ops->sync(v));
  v->ops->free(v, &dX);
  v->ops->free(v, &dy);
  v->ops->free(v, &dz);
  em_vec_destroy(&v);
  free(x), free(y), free(z), free(out), free(ref);
}

/* The column-set operations of the lockstep methods (issue 28): m sets of k
 * dot products (em_vec_cdots) bit for bit the per-set dots and near the
 * host sums, m axpby pairs (em_vec_caxpby, b = 0 over NaN included) against
 * host loops, the norms (em_vec_cnorms) bit for bit em_vec_norm, m
 * axpbypcz triples (em_vec_caxpbypcz, c = 0 over NaN included) bit for bit
 * axpbypcz; m = 1, 3, 4, 16, 17 (past one backend call's EM_VEC_MAX_COLS). */
static void check_cols(em_backend be, em_prec prec, int32_t n, int m) {
  double tol = prec == EM_PREC_SINGLE ? 2e-6 : 1e-14, rtol = prec == EM_PREC_SINGLE ? 1e-5 : 1e-12;
  em_vec *v = NULL;
  REQUIRE_OK(em_vec_create(be, prec, n, 1, &v));
  size_t nn = (size_t)n + 1;
  int nv = m + 1; /* vectors: set j reads j and j + 1 */
  em_cplx *h = calloc(nn * (size_t)nv, sizeof *h), *out = calloc(nn, sizeof *out);
  em_cplx *ref = calloc(nn, sizeof *ref), *nan_ = calloc(nn, sizeof *nan_);
  void *d = NULL;
  REQUIRE_OK(v->ops->alloc(v, nv, &d));
  for (size_t i = 0; i < (size_t)n * nv; i++)
    h[i] = prec == EM_PREC_SINGLE ? round_f(rnd()) : rnd();
  for (int j = 0; j < nv; j++) EXPECT_OK(v->ops->upload(v, h + (size_t)j * n, em_vec_col(v, d, j)));
  const void *xs[4 * 17], *ys[4 * 17];
  int cs[4] = {0, 1, 1, 0};
  for (int k = 1; k <= 4; k++) {
    em_cplx got[4 * 17], one[4];
    for (int j = 0; j < m; j++)
      for (int i = 0; i < k; i++) {
        xs[j * k + i] = em_vec_col(v, d, (j + i) % nv);
        ys[j * k + i] = em_vec_col(v, d, (j + i + 1) % nv);
      }
    EXPECT_OK(em_vec_cdots(v, m, k, xs, ys, cs, got));
    for (int j = 0; j < m; j++) {
      EXPECT_OK(v->ops->dots(v, k, xs + j * k, ys + j * k, cs, one));
      for (int i = 0; i < k; i++) {
        EXPECT(got[j * k + i] == one[i], "cdots m=%d k=%d set %d dot %d n=%d: not the dots' value",
               m, k, j, i, n);
        const em_cplx *a = h + (size_t)((j + i) % nv) * n, *b = h + (size_t)((j + i + 1) % nv) * n;
        em_cplx e = 0;
        double sc = 0;
        for (int32_t q = 0; q < n; q++) {
          e += (cs[i] ? conj(a[q]) : a[q]) * b[q];
          sc += cabs(a[q]) * cabs(b[q]);
        }
        EXPECT(cabs(got[j * k + i] - e) <= rtol * sc || (n == 0 && got[j * k + i] == 0),
               "cdots m=%d k=%d set %d dot %d n=%d: %g%+gj vs %g%+gj", m, k, j, i, n,
               creal(got[j * k + i]), cimag(got[j * k + i]), creal(e), cimag(e));
      }
    }
  }
  double nr[17], one_nr;
  for (int j = 0; j < m; j++) xs[j] = em_vec_col(v, d, j);
  EXPECT_OK(em_vec_cnorms(v, m, xs, nr));
  for (int j = 0; j < m; j++) {
    EXPECT_OK(em_vec_norm(v, xs[j], &one_nr));
    EXPECT(nr[j] == one_nr, "cnorms m=%d column %d n=%d: %.17g vs em_vec_norm %.17g", m, j, n,
           nr[j], one_nr);
  }
  /* y_j = a_j x_j + b_j y_j with y_j = column j + 1, x_j = column 0;
     b_j = 0 for odd j over NaN */
  em_cplx a[17], b[17];
  void *yv[17];
  for (int32_t q = 0; q < n; q++) nan_[q] = NAN;
  for (int j = 0; j < m; j++) {
    a[j] = 0.5 * (j + 1) - 0.25 * I;
    b[j] = j % 2 ? 0 : -0.75 + 0.125 * j * I;
    xs[j] = em_vec_col(v, d, 0);
    yv[j] = em_vec_col(v, d, j + 1);
    if (j % 2) EXPECT_OK(v->ops->upload(v, nan_, yv[j]));
  }
  EXPECT_OK(em_vec_caxpby(v, m, a, xs, b, yv));
  for (int j = 0; j < m; j++) {
    EXPECT_OK(v->ops->download(v, yv[j], out));
    const em_cplx *x0 = h, *y0 = h + (size_t)(j + 1) * n;
    for (int32_t q = 0; q < n; q++) ref[q] = a[j] * x0[q] + (j % 2 ? 0 : b[j] * y0[q]);
    char what[64];
    snprintf(what, sizeof what, "caxpby m=%d pair %d", m, j);
    expect_close(what, n, out, ref, tol);
  }
  /* z_j = a_j x_j + b_j y_j + c_j z_j (em_vec_caxpbypcz) bit for bit
     axpbypcz on a copy of each z_j; c_j = 0 for odd j over NaN */
  void *Z = NULL, *Zr = NULL;
  void *zs[17], *zr[17];
  const void *ys2[17];
  em_cplx c3[17];
  REQUIRE_OK(v->ops->alloc(v, m, &Z));
  REQUIRE_OK(v->ops->alloc(v, m, &Zr));
  for (int j = 0; j < m; j++) {
    zs[j] = em_vec_col(v, Z, j), zr[j] = em_vec_col(v, Zr, j);
    ys2[j] = em_vec_col(v, d, j + 1);
    c3[j] = j % 2 ? 0 : 0.375 - 0.5 * j * I;
    EXPECT_OK(v->ops->upload(v, j % 2 ? nan_ : h + (size_t)j * n, zs[j]));
    EXPECT_OK(v->ops->upload(v, j % 2 ? nan_ : h + (size_t)j * n, zr[j]));
  }
  EXPECT_OK(em_vec_caxpbypcz(v, m, a, xs, b, ys2, c3, zs));
  for (int j = 0; j < m; j++) {
    EXPECT_OK(v->ops->axpbypcz(v, a[j], xs[j], b[j], ys2[j], c3[j], zr[j]));
    EXPECT_OK(v->ops->download(v, zs[j], out));
    EXPECT_OK(v->ops->download(v, zr[j], ref));
    int same = 1;
    for (int32_t q = 0; q < n; q++) same &= memcmp(&out[q], &ref[q], sizeof out[q]) == 0;
    EXPECT(same, "caxpbypcz m=%d triple %d n=%d: not axpbypcz's values", m, j, n);
  }
  v->ops->free(v, &Z);
  v->ops->free(v, &Zr);
  v->ops->free(v, &d);
  em_vec_destroy(&v);
  free(h), free(out), free(ref), free(nan_);
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  int32_t sizes[] = {0, 1, 31, 33, 1000, 70001};
  for (int p = 0; p < 2; p++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
      check(be, p ? EM_PREC_SINGLE : EM_PREC_DOUBLE, sizes[s]);
  int ms[] = {1, 3, 4, 16, 17};
  for (int p = 0; p < 2; p++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
      for (size_t q = 0; q < sizeof ms / sizeof *ms; q++)
        if (sizes[s] <= 1000 || ms[q] == 4 || ms[q] == 17)
          check_cols(be, p ? EM_PREC_SINGLE : EM_PREC_DOUBLE, sizes[s], ms[q]);
  /* bad arguments name the culprit */
  em_vec *v = NULL;
  EXPECT_ERR(em_vec_create(be, EM_PREC_DOUBLE, -1, 1, &v), EM_ERR_ARG);
  EXPECT_ERR(em_vec_create(be, EM_PREC_DOUBLE, 10, 0, &v), EM_ERR_ARG);
  return TEST_RESULT();
}
