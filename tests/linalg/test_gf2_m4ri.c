/* GF(2) elimination against M4RI (Debian's libm4ri-dev), an independent
 * implementation: the reduced row echelon form is unique, so ours and
 * M4RI's (mzd_echelonize_m4ri and mzd_echelonize_pluq, full = 1) must agree
 * bit for bit, and the ranks of the plain echelon forms must agree.  Columns
 * 1, 31, 32, 33, 64, 65, 1000 (word and M4RI's 64-bit word boundaries);
 * for each: square of full rank, square singular (rank n - 1), tall
 * rank-deficient, one row, wide, the zero matrix and the all-ones matrix
 * (rank 1); each of known rank.  Argument cpu or gpu (gpu: exit 77 when
 * none answers). */
#include <string.h>

#include "em_linalg.h"
#include "em_test.h"
#include "gf2_m4ri.h"
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static em_backend be = EM_BACKEND_CPU;

/* A random rows x cols matrix of rank k (k <= min(rows, cols)): X Y with X
 * (rows x k) unit lower triangular on top and Y (k x cols) unit upper
 * triangular on the left, random below / right (density about one half);
 * Y's columns and the product's rows then shuffled.  ones: all ones (k 1). */
static em_gf2 *make_rank(int rows, int cols, int k, int ones, unsigned long long *seed) {
  em_gf2 *A = NULL, *Y = NULL;
  REQUIRE_OK(em_gf2_create(rows, cols, &A));
  if (ones) {
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++) em_gf2_flip(A, i, j);
    return A;
  }
  REQUIRE_OK(em_gf2_create(k, cols, &Y));
  for (int l = 0; l < k; l++)
    for (int j = l; j < cols; j++)
      if (j == l || em_test_rand(seed) < 0.5) em_gf2_flip(Y, l, j);
  for (int j = cols - 1; j > 0; j--) { /* shuffle Y's columns */
    int q = (int)(em_test_rand(seed) * (j + 1));
    for (int l = 0; l < k; l++)
      if (em_gf2_get(Y, l, j) != em_gf2_get(Y, l, q)) {
        em_gf2_flip(Y, l, j);
        em_gf2_flip(Y, l, q);
      }
  }
  for (int i = 0; i < rows; i++) /* row i of X Y: the rows l of Y with x(i, l) = 1 */
    for (int l = 0; l < k && l <= i; l++)
      if (l == i || em_test_rand(seed) < 0.5)
        for (int w = 0; w < A->words; w++)
          A->w[(int64_t)i * A->words + w] ^= Y->w[(int64_t)l * Y->words + w];
  for (int i = rows - 1; i > 0; i--) { /* shuffle the rows */
    int q = (int)(em_test_rand(seed) * (i + 1));
    for (int w = 0; w < A->words; w++) {
      uint32_t t = A->w[(int64_t)i * A->words + w];
      A->w[(int64_t)i * A->words + w] = A->w[(int64_t)q * A->words + w];
      A->w[(int64_t)q * A->words + w] = t;
    }
  }
  em_gf2_destroy(&Y);
  return A;
}

static void check(int rows, int cols, int k, int ones) {
  unsigned long long seed = 7 + (unsigned long long)rows * 104729 + (unsigned long long)cols * 31 +
                            (unsigned long long)k * 3 + (unsigned long long)ones;
  em_gf2 *A = make_rank(rows, cols, k, ones, &seed), *R = NULL, *E = NULL;
  REQUIRE_OK(em_gf2_copy(A, &R));
  REQUIRE_OK(em_gf2_copy(A, &E));
  int32_t rank = -1, rank_e = -1, row = -1;
  EXPECT_OK(em_gf2_echelon(R, 1, be, &rank, NULL));
  EXPECT_OK(em_gf2_echelon(E, 0, be, &rank_e, NULL));
  mzd_t *M4 = em_test_gf2_to_mzd(A), *PL = em_test_gf2_to_mzd(A), *PE = em_test_gf2_to_mzd(A);
  EXPECT(em_test_gf2_equal_mzd(A, M4, &row), "%dx%d: the conversion to M4RI differs at row %d",
         rows, cols, row);
  const int r_m4 = mzd_echelonize_m4ri(M4, 1, 0), r_pl = mzd_echelonize_pluq(PL, 1);
  const int r_pe = mzd_echelonize_pluq(PE, 0);
  EXPECT(rank == k && r_m4 == k && r_pl == k && rank_e == k && r_pe == k,
         "%dx%d built rank %d: ours %d (plain echelon %d), M4RI m4ri %d, pluq %d (plain %d)", rows,
         cols, k, rank, rank_e, r_m4, r_pl, r_pe);
  EXPECT(em_test_gf2_equal_mzd(R, M4, &row),
         "%dx%d rank %d: reduced echelon form differs from M4RI's (mzd_echelonize_m4ri) at row %d",
         rows, cols, k, row);
  EXPECT(em_test_gf2_equal_mzd(R, PL, &row),
         "%dx%d rank %d: reduced echelon form differs from M4RI's (mzd_echelonize_pluq) at row %d",
         rows, cols, k, row);
  mzd_free(M4);
  mzd_free(PL);
  mzd_free(PE);
  em_gf2_destroy(&A);
  em_gf2_destroy(&R);
  em_gf2_destroy(&E);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "gpu")) {
#ifdef EM_HAVE_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      fprintf(stderr, "skipped: no GPU\n");
      return EM_TEST_SKIP;
    }
    be = EM_BACKEND_CUDA;
#else
    fprintf(stderr, "skipped: built without CUDA\n");
    return EM_TEST_SKIP;
#endif
  }
  const int cols[] = {1, 31, 32, 33, 64, 65, 1000};
  for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
    const int n = cols[c];
    check(n, n, n, 0);                     /* square, full rank */
    check(n, n, n - 1, 0);                 /* square, singular */
    check(n + 17, n, n / 2, 0);            /* tall, rank deficient */
    check(1, n, 1, 0);                     /* one row */
    check((n + 1) / 2, n, (n + 1) / 2, 0); /* wide, full row rank */
    check(n, n, 0, 0);                     /* zero */
    check(n, n, 1, 1);                     /* all ones */
  }
  return TEST_RESULT();
}
