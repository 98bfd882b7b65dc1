/* Tridiagonal solves against references: the 1-D Laplacian tridiag(-1, 2, -1)
 * with b = 1, whose solution is x_i = i (n + 1 - i) / 2 (i from 1); random
 * diagonally dominant systems, real and complex, by their residual and
 * against Thomas; batches against system-by-system Thomas; zero pivots as
 * errors.  Sizes 1, 2, 3, 31, 32, 33, 1000, 2^20 + 1.  Argument cpu: Thomas
 * and the CPU split method / batch; gpu: the GPU split method. */
#include <complex.h>
#include <string.h>

#include "em_linalg.h"
#include "em_test.h"
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static int gpu = 0;
static int flags = 0; /* GPU: 0 the split method, or EM_TRIDIAG_ORIGINAL / _MAPPED */
static double worst_r = 0, worst_d = 0, worst_lap = 0; /* printed at the end */

/* x = T^-1 b by the backend under test (batch systems of n rows). */
static em_err solve(int64_t n, int64_t batch, int cplx, const void *dl, const void *d,
                    const void *du, const void *b, void *x) {
  if (!gpu)
    return cplx ? em_tridiag_solve_cpu_z(n, batch, dl, d, du, b, x)
                : em_tridiag_solve_cpu(n, batch, dl, d, du, b, x);
#ifdef EM_HAVE_CUDA
  if (flags & EM_TRIDIAG_MAPPED) { /* host arrays read over the bus */
    int used = -1;
    em_err e = em_tridiag_solve_cuda(cplx, n, batch, dl, d, du, b, x, 1, &used);
    if (!e) EXPECT(used == EM_TRIDIAG_PATH_MAPPED, "mapped solve took path %d", used);
    return e;
  }
  size_t bytes = (size_t)(n * batch) * (cplx ? sizeof(em_cplx) : sizeof(double));
  void *dv[5] = {0};
  const void *hv[4] = {dl, d, du, b};
  for (int q = 0; q < 5; q++)
    REQUIRE_OK(em_cuda_status((int)cudaMalloc(&dv[q], bytes), "malloc", __FILE__, __LINE__));
  for (int q = 0; q < 4; q++) cudaMemcpy(dv[q], hv[q], bytes, cudaMemcpyHostToDevice);
  em_tridiag_gpu *t = NULL;
  em_err err = em_tridiag_gpu_create_opts(n, batch, cplx, flags, &t);
  if (!err) err = em_tridiag_gpu_solve(t, dv[0], dv[1], dv[2], dv[3], dv[4]);
  if (!err) cudaMemcpy(x, dv[4], bytes, cudaMemcpyDeviceToHost);
  em_tridiag_gpu_destroy(&t);
  for (int q = 0; q < 5; q++) cudaFree(dv[q]);
  return err;
#else
  return EM_RAISE(EM_ERR_UNSUPPORTED, "no CUDA");
#endif
}

/* max_i |(T x - b)_i| / max_i |b_i| of system k. */
static double resid(int64_t n, const em_cplx *dl, const em_cplx *d, const em_cplx *du,
                    const em_cplx *b, const em_cplx *x) {
  double r = 0, s = 0;
  for (int64_t i = 0; i < n; i++) {
    em_cplx t = d[i] * x[i] - b[i];
    if (i > 0) t += dl[i] * x[i - 1];
    if (i + 1 < n) t += du[i] * x[i + 1];
    r = fmax(r, cabs(t));
    s = fmax(s, cabs(b[i]));
  }
  return r / s;
}

/* Random diagonally dominant systems; complex, or real parts only. */
static void fill(int64_t N, int cplx, unsigned long long *seed, em_cplx *dl, em_cplx *d,
                 em_cplx *du, em_cplx *b) {
  for (int64_t i = 0; i < N; i++) {
    double v[8];
    for (int q = 0; q < 8; q++) v[q] = em_test_rand(seed) - 0.5;
    dl[i] = v[0] + (cplx ? I * v[1] : 0);
    du[i] = v[2] + (cplx ? I * v[3] : 0);
    d[i] = (v[4] > 0 ? 2.5 : -2.5) + v[5] + (cplx ? I * v[6] : 0);
    b[i] = v[7] + (cplx ? I * v[4] : 0);
  }
}

static void to_real(int64_t N, const em_cplx *z, double *r) {
  for (int64_t i = 0; i < N; i++) r[i] = creal(z[i]);
}

/* batch systems of n rows: residual of each, and against Thomas. */
static void check_random(int64_t n, int64_t batch, int cplx) {
  int64_t N = n * batch;
  unsigned long long seed = 12345 + (unsigned long long)N;
  em_cplx *a = calloc(6 * (size_t)N, sizeof *a);
  em_cplx *dl = a, *d = a + N, *du = a + 2 * N, *b = a + 3 * N, *x = a + 4 * N, *xr = a + 5 * N;
  fill(N, cplx, &seed, dl, d, du, b);
  for (int64_t k = 0; k < batch; k++)
    REQUIRE_OK(em_tridiag_thomas_z(n, dl + k * n, d + k * n, du + k * n, b + k * n, xr + k * n));
  if (cplx) {
    EXPECT_OK(solve(n, batch, 1, dl, d, du, b, x));
  } else {
    double *r = calloc(5 * (size_t)N, sizeof *r);
    for (int q = 0; q < 4; q++) to_real(N, a + q * N, r + q * N);
    EXPECT_OK(solve(n, batch, 0, r, r + N, r + 2 * N, r + 3 * N, r + 4 * N));
    for (int64_t i = 0; i < N; i++) x[i] = r[4 * N + i];
    /* the real Thomas is the reference of the real case */
    for (int64_t k = 0; k < batch; k++)
      REQUIRE_OK(em_tridiag_thomas(n, r + k * n, r + N + k * n, r + 2 * N + k * n,
                                   r + 3 * N + k * n, r + 3 * N + k * n));
    for (int64_t i = 0; i < N; i++) xr[i] = r[3 * N + i];
    free(r);
  }
  double rmax = 0, dmax = 0;
  for (int64_t k = 0; k < batch; k++) {
    rmax = fmax(rmax, resid(n, dl + k * n, d + k * n, du + k * n, b + k * n, x + k * n));
    for (int64_t i = 0; i < n; i++) dmax = fmax(dmax, cabs(x[k * n + i] - xr[k * n + i]));
  }
  worst_r = fmax(worst_r, rmax);
  worst_d = fmax(worst_d, dmax);
  /* the split method rounds differently from Thomas: a few ulps more */
  EXPECT(rmax < (gpu ? 5e-15 : 2e-15) && dmax < (gpu ? 1e-14 : 2e-15),
         "%s n %lld batch %lld: residual %.3g, |x - thomas| %.3g", cplx ? "complex" : "real",
         (long long)n, (long long)batch, rmax, dmax);
  free(a);
}

/* tridiag(-1, 2, -1) x = 1: x_i = i (n + 1 - i) / 2. */
static void check_laplace(int64_t n) {
  double *a = calloc(5 * (size_t)n, sizeof *a);
  double *dl = a, *d = a + n, *du = a + 2 * n, *b = a + 3 * n, *x = a + 4 * n;
  for (int64_t i = 0; i < n; i++) dl[i] = du[i] = -1, d[i] = 2, b[i] = 1;
  EXPECT_OK(solve(n, 1, 0, dl, d, du, b, x));
  double e = 0, s = 0;
  for (int64_t i = 0; i < n; i++) {
    double xi = (double)(i + 1) * (double)(n - i) / 2;
    e = fmax(e, fabs(x[i] - xi));
    s = fmax(s, xi);
  }
  /* condition number ~ n^2: the error grows like n^2 eps (observed on the
   * CPU: 0.0017 n^2 eps at n = 1000, 0.003 n^2 eps at 2^20 + 1) */
  worst_lap = fmax(worst_lap, e / s / (2.2e-16 * (double)n * (double)n));
  EXPECT(e / s < 1e-2 * 2.2e-16 * (double)n * (double)n + 1e-15,
         "Laplacian n %lld: relative error %.3g", (long long)n, e / s);
  free(a);
}

/* Row 1's pivot is 1 - 1 * 1 = 0 exactly: an error, not a NaN. */
static void check_zero_pivot(int cplx) {
  em_cplx dl[3] = {0, 1, 1}, d[3] = {1, 1, 4}, du[3] = {1, 1, 0}, b[3] = {1, 2, 3}, x[3];
  double r[15];
  if (cplx) {
    EXPECT_ERR(solve(3, 1, 1, dl, d, du, b, x), EM_ERR_NUMERIC);
  } else {
    for (int i = 0; i < 3; i++)
      r[i] = creal(dl[i]), r[3 + i] = creal(d[i]), r[6 + i] = creal(du[i]), r[9 + i] = creal(b[i]);
    EXPECT_ERR(solve(3, 1, 0, r, r + 3, r + 6, r + 9, r + 12), EM_ERR_NUMERIC);
  }
  /* one-row systems, the second of the batch with d = 0 */
  em_cplx z[2] = {0, 0}, zd[2] = {1, 0}, one[2] = {1, 1}, zx[2];
  double rz[2] = {0, 0}, rd[2] = {1, 0}, r1[2] = {1, 1}, rx[2];
  EXPECT_ERR(cplx ? solve(1, 2, 1, z, zd, z, one, zx) : solve(1, 2, 0, rz, rd, rz, r1, rx),
             EM_ERR_NUMERIC);
}

/* em_tridiag_solve on the CUDA backend: the GPU where there is one, else
 * the CPU (fallback); the answer against Thomas either way. */
static void check_front_end(void) {
  const int64_t n = 33, batch = 3, N = n * batch;
  unsigned long long seed = 99;
  em_cplx *a = calloc(6 * (size_t)N, sizeof *a);
  em_cplx *dl = a, *d = a + N, *du = a + 2 * N, *b = a + 3 * N, *x = a + 4 * N, *xr = a + 5 * N;
  fill(N, 1, &seed, dl, d, du, b);
  for (int64_t k = 0; k < batch; k++)
    REQUIRE_OK(em_tridiag_thomas_z(n, dl + k * n, d + k * n, du + k * n, b + k * n, xr + k * n));
  int used = -1;
  EXPECT_OK(em_tridiag_solve(EM_BACKEND_CUDA, 1, n, batch, dl, d, du, b, x, &used));
  /* cpu run: the CPU unless the machine has a GPU after all */
  EXPECT(used == EM_TRIDIAG_PATH_GPU || (!gpu && used == EM_TRIDIAG_PATH_CPU),
         "front end took path %d", used);
  double e = 0;
  for (int64_t i = 0; i < N; i++) e = fmax(e, cabs(x[i] - xr[i]));
  EXPECT(e < 1e-14, "front end: |x - thomas| %.3g", e);
  /* a zero pivot stays an error on every path (no silent fallback) */
  em_cplx zl[3] = {0, 1, 1}, zd[3] = {1, 1, 4}, zu[3] = {1, 1, 0}, zb[3] = {1, 2, 3}, zx[3];
  EXPECT_ERR(em_tridiag_solve(EM_BACKEND_CUDA, 1, 3, 1, zl, zd, zu, zb, zx, NULL), EM_ERR_NUMERIC);
  EXPECT_ERR(em_tridiag_solve(EM_BACKEND_CPU, 1, 0, 1, dl, d, du, b, x, NULL), EM_ERR_ARG);
  free(a);
}

static void run_all(int small) {
  const int64_t sizes[] = {1, 2, 3, 31, 32, 33, 1000, (1 << 20) + 1};
  for (int cplx = 0; cplx < 2; cplx++) {
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes - (size_t)small; s++)
      check_random(sizes[s], 1, cplx);
    const int64_t bn[] = {1, 2, 31, 33, 1000}, bb[] = {2, 31, 32, 33, 1000};
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 5; j++)
        if (bn[i] * bb[j] <= 100000) check_random(bn[i], bb[j], cplx);
    check_zero_pivot(cplx);
  }
  check_laplace(1000);
  if (!small) {
    check_random(1 << 10, 1 << 10, 1);
    check_laplace((1 << 20) + 1);
  }
}

int main(int argc, char **argv) {
  gpu = test_backend(argc, argv) == EM_BACKEND_CUDA;
  /* EM_TEST_SMALL (under compute-sanitizer): without the 2^20 + 1 systems */
  const int small = getenv("EM_TEST_SMALL") != NULL;
  run_all(small);
  check_front_end();
  if (gpu) { /* the original split method and the mapped data path, the same checks */
    flags = EM_TRIDIAG_ORIGINAL;
    run_all(small);
    flags = EM_TRIDIAG_MAPPED;
    run_all(small);
  }
  printf("%s: worst residual %.3g, worst |x - thomas| %.3g, Laplacian error %.3g n^2 eps\n",
         gpu ? "gpu" : "cpu", worst_r, worst_d, worst_lap);
  return TEST_RESULT();
}
