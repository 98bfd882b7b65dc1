/* Bitmap LU (CPU reference, formats/bitmap_lu.c) against a dense Doolittle
 * LU without pivoting: every stored entry equals the dense factor's, every
 * nonzero of the dense factors is stored, and L U reproduces A; sizes 1,
 * 31, 32, 33, 130 (rows over three words), random sparse diagonally
 * dominant matrices and an arrow matrix (first row and column full: the
 * factors fill completely); 2^20 + 1 rows of a random banded matrix
 * against a plain band LU; zero pivots (structural, after elimination,
 * on a late row) are errors naming the row.
 *
 * Argument gpu: the same cases also through em_bitmap_lu_cuda
 * (bitmap_lu_cuda.cu), which must give the CPU's fill pattern bit for bit,
 * values within 1e-12 of each CPU value (plus 1e-15 of the largest, for
 * entries left small by cancellation) and the same zero-pivot row.  Exits
 * 77 without a GPU.  EM_TEST_SMALL (under compute-sanitizer): without the
 * 2^20 + 1 case. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap_gpu.h"
#include "em_formats.h"
#include "em_test.h"
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static int gpu = 0;

/* the GPU LU of A against the CPU's C: same words bit for bit, values close */
static void compare_gpu(const char *name, const em_spmat *A, const em_spmat *C) {
#ifdef EM_HAVE_CUDA
  em_spmat *G = NULL;
  double ms = 0;
  EXPECT_OK(em_bitmap_lu_cuda(A, &G, &ms));
  if (!G) return;
  const em_bitmap *x = G->data, *y = C->data;
  int bad = x->n_rows != y->n_rows || x->n_words != y->n_words || x->nnz != y->nnz;
  if (!bad) {
    bad += memcmp(x->wptr, y->wptr, ((size_t)x->n_rows + 1) * 8) != 0;
    bad += memcmp(x->vptr, y->vptr, ((size_t)x->n_rows + 1) * 8) != 0;
    bad += memcmp(x->widx, y->widx, (size_t)x->n_words * 4) != 0;
    bad += memcmp(x->mask, y->mask, (size_t)x->n_words * 8) != 0;
  }
  double s = 0, worst = 0; /* worst: error / (1e-12 |c| + 1e-15 max |c|) */
  const em_cplx *gv = x->val, *cv = y->val;
  for (int64_t k = 0; !bad && k < y->nnz; k++) s = fmax(s, cabs(cv[k]));
  for (int64_t k = 0; !bad && k < y->nnz; k++)
    worst = fmax(worst, cabs(gv[k] - cv[k]) / (1e-12 * cabs(cv[k]) + 1e-15 * s + 1e-300));
  EXPECT(!bad && worst <= 1, "%s: GPU LU layout %s, value error %.3g of the tolerance", name,
         bad ? "differs from the CPU's" : "equal", worst);
  em_spmat_destroy(&G);
#else
  (void)name, (void)A, (void)C;
#endif
}

/* both LUs fail with EM_ERR_NUMERIC naming row `row` */
static void expect_zero_pivot(const char *name, const em_spmat *A, int row) {
  char want[64];
  snprintf(want, sizeof want, "zero pivot at row %d ", row);
  for (int g = 0; g <= gpu; g++) {
    em_spmat *LU = NULL;
    double ms = 0;
    em_err e = EM_OK;
#ifdef EM_HAVE_CUDA
    e = g ? em_bitmap_lu_cuda(A, &LU, &ms) : em_bitmap_lu(A, &LU);
#else
    (void)ms;
    e = em_bitmap_lu(A, &LU);
#endif
    const char *msg = em_error_message();
    EXPECT(e == EM_ERR_NUMERIC && LU == NULL && msg && strstr(msg, want),
           "%s: the %s LU returned %s, \"%s\" (expected \"%s\")", name, g ? "GPU" : "CPU",
           em_err_name(e), msg ? msg : "", want);
    em_error_clear();
    em_spmat_destroy(&LU);
  }
}

static em_spmat *from_dense(int n, const em_cplx *D) {
  int64_t nnz = 0;
  for (int64_t q = 0; q < (int64_t)n * n; q++) nnz += D[q] != 0;
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(n, n, nnz, &A));
  nnz = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      if (D[(int64_t)i * n + j] != 0) A->colind[nnz] = j, A->val[nnz++] = D[(int64_t)i * n + j];
    A->rowptr[i + 1] = nnz;
  }
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_BITMAP;
  o.backend = EM_BACKEND_CPU;
  em_spmat *M = NULL;
  REQUIRE_OK(em_spmat_create(A, &o, &M));
  em_csr_destroy(&A);
  return M;
}

static void check(const char *name, int n, const em_cplx *D) {
  em_cplx *F = malloc((size_t)n * n * sizeof *F), *R = calloc((size_t)n * n, sizeof *R);
  memcpy(F, D, (size_t)n * n * sizeof *F);
  for (int k = 0; k < n; k++) /* dense Doolittle: F = L + U - I */
    for (int i = k + 1; i < n; i++) {
      F[(int64_t)i * n + k] /= F[(int64_t)k * n + k];
      for (int j = k + 1; j < n; j++)
        F[(int64_t)i * n + j] -= F[(int64_t)i * n + k] * F[(int64_t)k * n + j];
    }
  em_spmat *A = from_dense(n, D), *LU = NULL;
  EXPECT_OK(em_bitmap_lu(A, &LU));
  if (!LU) return;
  em_csr *C = NULL;
  REQUIRE_OK(em_bitmap_to_csr(LU, &C));
  double e = 0, s = 0;
  int missing = 0;
  unsigned char *stored = calloc((size_t)n * n, 1);
  for (int i = 0; i < n; i++)
    for (int64_t k = C->rowptr[i]; k < C->rowptr[i + 1]; k++) {
      int64_t q = (int64_t)i * n + C->colind[k];
      stored[q] = 1;
      e = fmax(e, cabs(C->val[k] - F[q]));
      R[q] = C->val[k];
    }
  for (int64_t q = 0; q < (int64_t)n * n; q++) {
    s = fmax(s, cabs(F[q]));
    missing += F[q] != 0 && !stored[q];
  }
  double r = 0; /* |L U - A| from the bitmap's factors */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      em_cplx t = 0;
      for (int k = 0; k <= (i < j ? i : j); k++)
        t += (k == i ? 1 : R[(int64_t)i * n + k]) * R[(int64_t)k * n + j];
      r = fmax(r, cabs(t - D[(int64_t)i * n + j]));
    }
  EXPECT(e <= 1e-15 * s && missing == 0 && r < 2e-15 * s, /* observed: 0 and 7e-16 s */
         "%s: factor error %.3g of %.3g, %d nonzeros not stored, |LU - A| %.3g", name, e, s,
         missing, r);
  if (gpu) compare_gpu(name, A, LU);
  free(F);
  free(R);
  free(stored);
  em_csr_destroy(&C);
  em_spmat_destroy(&A);
  em_spmat_destroy(&LU);
}

/* n rows (2^20 + 1), entries within |i - j| <= B at random (the diagonal
 * always), factored by a plain band Doolittle: the bitmap LU holds exactly
 * the band factor's nonzeros, values to 1e-13 of the largest */
#define B 5
static void check_band(int32_t n) {
  em_cplx *F = calloc((size_t)n * (2 * B + 1), sizeof *F); /* F[i][j - i + B] */
  unsigned long long seed = 17;
  int64_t nnz = 0;
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = i - B; j <= i + B; j++)
      if (j >= 0 && j < n && (j == i || em_test_rand(&seed) < 0.4)) {
        F[(int64_t)i * (2 * B + 1) + j - i + B] =
            j == i ? 4.0 + 1.0 * I : (em_test_rand(&seed) - 0.5) + I * (em_test_rand(&seed) - 0.5);
        nnz++;
      }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(n, n, nnz, &A));
  nnz = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int32_t j = i - B; j <= i + B; j++)
      if (j >= 0 && j < n && F[(int64_t)i * (2 * B + 1) + j - i + B] != 0)
        A->colind[nnz] = j, A->val[nnz++] = F[(int64_t)i * (2 * B + 1) + j - i + B];
    A->rowptr[i + 1] = nnz;
  }
  for (int32_t k = 0; k < n; k++) /* band Doolittle */
    for (int32_t i = k + 1; i <= k + B && i < n; i++) {
      em_cplx *ri = F + (int64_t)i * (2 * B + 1) - i + B,
              *rk = F + (int64_t)k * (2 * B + 1) - k + B;
      if (ri[k] == 0) continue; /* no fill from an unstored l_ik (the bitmap LU stores it) */
      ri[k] /= rk[k];
      for (int32_t j = k + 1; j <= k + B && j < n; j++) ri[j] -= ri[k] * rk[j];
    }
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_BITMAP;
  o.backend = EM_BACKEND_CPU;
  em_spmat *M = NULL, *LU = NULL;
  REQUIRE_OK(em_spmat_create(A, &o, &M));
  EXPECT_OK(em_bitmap_lu(M, &LU));
  if (LU) {
    em_csr *C = NULL;
    REQUIRE_OK(em_bitmap_to_csr(LU, &C));
    double e = 0, s = 0;
    int64_t outside = 0, stored = 0, want = 0;
    for (int32_t i = 0; i < n; i++)
      for (int64_t k = C->rowptr[i]; k < C->rowptr[i + 1]; k++) {
        const int32_t j = C->colind[k];
        if (j < i - B || j > i + B) {
          outside++;
          continue;
        }
        const em_cplx f = F[(int64_t)i * (2 * B + 1) + j - i + B];
        e = fmax(e, cabs(C->val[k] - f));
        stored += f != 0;
      }
    for (int64_t q = 0; q < (int64_t)n * (2 * B + 1); q++) {
      s = fmax(s, cabs(F[q]));
      want += F[q] != 0;
    }
    EXPECT(outside == 0 && stored == want && e <= 1e-13 * s,
           "band %d: %lld entries outside the band, %lld of %lld nonzeros stored, error %.3g of "
           "%.3g",
           n, (long long)outside, (long long)stored, (long long)want, e, s);
    if (gpu) compare_gpu("band 2^20 + 1", M, LU);
    em_csr_destroy(&C);
  }
  em_spmat_destroy(&LU);
  em_spmat_destroy(&M);
  em_csr_destroy(&A);
  free(F);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "gpu")) {
#ifdef EM_HAVE_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      fprintf(stderr, "skipped: no GPU\n");
      return EM_TEST_SKIP;
    }
    gpu = 1;
#else
    fprintf(stderr, "skipped: built without CUDA\n");
    return EM_TEST_SKIP;
#endif
  }
  unsigned long long seed = 3;
  const int sizes[] = {1, 31, 32, 33, 130};
  for (int s = 0; s < 5; s++) {
    const int n = sizes[s];
    em_cplx *D = calloc((size_t)n * n, sizeof *D);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if (i == j)
          D[(int64_t)i * n + j] = 6 + I;
        else if (em_test_rand(&seed) < 0.06)
          D[(int64_t)i * n + j] = (em_test_rand(&seed) - 0.5) + I * (em_test_rand(&seed) - 0.5);
    char name[32];
    snprintf(name, sizeof name, "random %d", n);
    check(name, n, D);
    memset(D, 0, (size_t)n * n * sizeof *D); /* arrow: full first row and column */
    for (int i = 0; i < n; i++) {
      D[(int64_t)i * n + i] = n + 1.0;
      D[i] = D[(int64_t)i * n] = 1;
    }
    D[0] = n + 1.0;
    snprintf(name, sizeof name, "arrow %d", n);
    check(name, n, D);
    free(D);
  }
  if (!getenv("EM_TEST_SMALL")) check_band((1 << 20) + 1);
  em_cplx Z1[4] = {0, 1, 1, 1}, Z2[4] = {1, 1, 1, 1};
  em_spmat *A = from_dense(2, Z1);
  expect_zero_pivot("a(0,0) not stored", A, 0);
  em_spmat_destroy(&A);
  A = from_dense(2, Z2);
  expect_zero_pivot("1 - 1 * 1 = 0", A, 1);
  em_spmat_destroy(&A);
  /* 100 x 100: rows 0..69 fine (diagonal 4), row 70 = row 69's multiple in
   * the two columns 69, 70 (a(70,70) = a(70,69) a(69,70) / a(69,69) + 0:
   * cancels exactly), row 90 without a diagonal; the first, 70, is named */
  const int n = 100;
  em_cplx *D = calloc((size_t)n * n, sizeof *D);
  for (int i = 0; i < n; i++) D[(int64_t)i * n + i] = 4;
  D[69 * n + 70] = 2, D[70 * n + 69] = 2, D[70 * n + 70] = 1; /* 1 - (2 / 4) 2 = 0 */
  D[90 * n + 90] = 0, D[90 * n + 10] = 1;
  A = from_dense(n, D);
  expect_zero_pivot("late zero pivot", A, 70);
  em_spmat_destroy(&A);
  D[70 * n + 70] = 3; /* now only the structural one at row 90 */
  A = from_dense(n, D);
  expect_zero_pivot("late missing diagonal", A, 90);
  em_spmat_destroy(&A);
  free(D);
  return TEST_RESULT();
}
