/* GF(2) elimination against a plain byte-per-element Gauss-Jordan (the
 * reduced row echelon form is unique, so it must agree bit for bit): shapes
 * 1x1, 31x33, 32x32, 33x31, 1000x100, 100x1000, 40 x (2^20 + 1); matrices of
 * known rank k (a full-column-rank factor times a full-row-rank factor);
 * plain echelon forms checked for shape and row space; solve on consistent
 * and inconsistent right-hand sides of singular systems.  Argument cpu or
 * gpu (the GPU result also equals the CPU one bit for bit).  EM_TEST_SMALL
 * (under compute-sanitizer): without the two largest shapes. */
#include <stdlib.h>
#include <string.h>

#include "em_linalg.h"
#include "em_test.h"

static em_backend be = EM_BACKEND_CPU;

/* Byte-per-element reduced echelon form of a (rows x cols), in place. */
static int ref_rref(unsigned char *a, int rows, int cols) {
  int r = 0;
  for (int c = 0; c < cols && r < rows; c++) {
    int i = r;
    while (i < rows && !a[(size_t)i * cols + c]) i++;
    if (i == rows) continue;
    for (int k = 0; k < cols; k++) {
      unsigned char t = a[(size_t)i * cols + k];
      a[(size_t)i * cols + k] = a[(size_t)r * cols + k];
      a[(size_t)r * cols + k] = t;
    }
    for (int j = 0; j < rows; j++)
      if (j != r && a[(size_t)j * cols + c])
        for (int k = 0; k < cols; k++) a[(size_t)j * cols + k] ^= a[(size_t)r * cols + k];
    r++;
  }
  return r;
}

/* A random rows x cols matrix of rank k (k <= min): X Y with X = L [I_k; R]
 * (L unit lower triangular) and Y = [I_k S] U (U unit upper triangular),
 * the columns then shuffled; density about one half. */
static unsigned char *make_rank(int rows, int cols, int k, unsigned long long *seed) {
  unsigned char *X = calloc((size_t)rows * k + 1, 1), *Y = calloc((size_t)k * cols + 1, 1);
  unsigned char *A = calloc((size_t)rows * cols + 1, 1);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < k; j++)
      X[(size_t)i * k + j] = i == j || (i > j && em_test_rand(seed) < 0.5);
  for (int i = 0; i < k; i++)
    for (int j = 0; j < cols; j++)
      Y[(size_t)i * cols + j] = i == j || (j > i && em_test_rand(seed) < 0.5);
  for (int i = 0; i < rows; i++)
    for (int l = 0; l < k; l++)
      if (X[(size_t)i * k + l])
        for (int j = 0; j < cols; j++) A[(size_t)i * cols + j] ^= Y[(size_t)l * cols + j];
  for (int j = cols - 1; j > 0; j--) { /* shuffle columns */
    int q = (int)(em_test_rand(seed) * (j + 1));
    for (int i = 0; i < rows; i++) {
      unsigned char t = A[(size_t)i * cols + j];
      A[(size_t)i * cols + j] = A[(size_t)i * cols + q];
      A[(size_t)i * cols + q] = t;
    }
  }
  free(X);
  free(Y);
  return A;
}

static em_gf2 *pack(const unsigned char *a, int rows, int cols) {
  em_gf2 *A = NULL;
  REQUIRE_OK(em_gf2_create(rows, cols, &A));
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      if (a[(size_t)i * cols + j]) em_gf2_flip(A, i, j);
  return A;
}

static int same(const em_gf2 *A, const unsigned char *a) {
  for (int i = 0; i < A->n_rows; i++)
    for (int j = 0; j < A->n_cols; j++)
      if (em_gf2_get(A, i, j) != a[(size_t)i * A->n_cols + j]) return 0;
  for (int i = 0; i < A->n_rows; i++) /* padding bits stay zero */
    if (A->n_cols % 32 && (A->w[(int64_t)i * A->words + A->words - 1] >> (A->n_cols % 32)))
      return 0;
  return 1;
}

static void check(int rows, int cols, int k) {
  unsigned long long seed =
      99 + (unsigned long long)rows * 7919 + (unsigned long long)cols * 31 + k;
  unsigned char *a = make_rank(rows, cols, k, &seed);
  em_gf2 *A = pack(a, rows, cols), *R = NULL, *E = NULL;
  REQUIRE_OK(em_gf2_copy(A, &R));
  REQUIRE_OK(em_gf2_copy(A, &E));
  int32_t *piv = calloc((size_t)rows + 1, sizeof *piv), rank = -1, rank_e = -1;
  int rk = ref_rref(a, rows, cols);
  EXPECT(rk == k, "%dx%d: reference rank %d, built %d", rows, cols, rk, k);
  EXPECT_OK(em_gf2_echelon(R, 1, be, &rank, piv));
  EXPECT(rank == k && same(R, a), "%dx%d rank %d: reduced echelon rank %d%s", rows, cols, k, rank,
         same(R, a) ? "" : ", differs from the reference");
  for (int r = 1; r < rank; r++) EXPECT(piv[r] > piv[r - 1], "pivot columns not increasing");
  /* plain echelon: leading ones at the same pivot columns, zero below; the
   * same row space (its reduced form is the reference) */
  EXPECT_OK(em_gf2_echelon(E, 0, be, &rank_e, NULL));
  int bad = rank_e != k;
  for (int r = 0; r < rows && !bad; r++)
    for (int j = 0; j < (r < rank_e ? piv[r] : cols); j++) bad += em_gf2_get(E, r, j);
  for (int r = 0; r < rank_e && !bad; r++) bad += !em_gf2_get(E, r, piv[r]);
  int32_t rr = 0;
  if (be == EM_BACKEND_CUDA) { /* the GPU's plain echelon equals the CPU's */
    em_gf2 *C = NULL;
    REQUIRE_OK(em_gf2_copy(A, &C));
    REQUIRE_OK(em_gf2_echelon(C, 0, EM_BACKEND_CPU, &rr, NULL));
    bad += memcmp(C->w, E->w, (size_t)rows * E->words * 4) != 0;
    em_gf2_destroy(&C);
  }
  REQUIRE_OK(em_gf2_echelon(E, 1, EM_BACKEND_CPU, &rr, NULL));
  bad += !same(E, a);
  EXPECT(!bad, "%dx%d rank %d: plain echelon form wrong", rows, cols, k);
  int32_t rk2 = -1;
  EXPECT_OK(em_gf2_rank(A, be, &rk2));
  EXPECT(rk2 == k, "%dx%d: rank %d, expected %d", rows, cols, rk2, k);
  free(a);
  free(piv);
  em_gf2_destroy(&A);
  em_gf2_destroy(&R);
  em_gf2_destroy(&E);
}

/* A x = b with b = A x0 (solvable, A x = b checked), and with b having a 1
 * where A has a zero row (not solvable). */
static void check_solve(int rows, int cols, int k) {
  unsigned long long seed = 4242 + (unsigned long long)rows + cols;
  unsigned char *a = make_rank(rows, cols, k, &seed);
  for (int j = 0; j < cols; j++) a[(size_t)(rows - 1) * cols + j] = 0; /* a zero last row */
  em_gf2 *A = pack(a, rows, cols);
  uint32_t *x0 = calloc((size_t)A->words + 1, 4), *x = calloc((size_t)A->words + 1, 4);
  uint32_t *b = calloc((size_t)rows / 32 + 2, 4);
  for (int j = 0; j < cols; j++)
    if (em_test_rand(&seed) < 0.5) x0[j / 32] |= 1u << (j % 32);
  for (int i = 0; i < rows; i++) {
    int s = 0;
    for (int j = 0; j < cols; j++)
      s ^= a[(size_t)i * cols + j] & (int)((x0[j / 32] >> (j % 32)) & 1);
    if (s) b[i / 32] |= 1u << (i % 32);
  }
  int ok = -1;
  EXPECT_OK(em_gf2_solve(A, b, be, x, &ok));
  int bad = 0;
  for (int i = 0; i < rows; i++) {
    int s = 0;
    for (int j = 0; j < cols; j++)
      s ^= a[(size_t)i * cols + j] & (int)((x[j / 32] >> (j % 32)) & 1);
    bad += s != (int)((b[i / 32] >> (i % 32)) & 1);
  }
  EXPECT(ok == 1 && !bad, "%dx%d rank %d: solvable %d, %d rows of A x != b", rows, cols, k, ok,
         bad);
  b[(rows - 1) / 32] ^= 1u << ((rows - 1) % 32);
  EXPECT_OK(em_gf2_solve(A, b, be, x, &ok));
  EXPECT(ok == 0, "%dx%d: b outside the range reported solvable", rows, cols);
  free(a);
  free(x0);
  free(x);
  free(b);
  em_gf2_destroy(&A);
}

int main(int argc, char **argv) {
  be = test_backend(argc, argv);
  const int shape[][3] = {{1, 1, 1},        {1, 1, 0},          {31, 33, 31},
                          {31, 33, 20},     {32, 32, 32},       {32, 32, 31},
                          {33, 31, 31},     {33, 31, 1},        {33, 33, 0},
                          {1000, 100, 100}, {1000, 100, 57},    {100, 1000, 100},
                          {100, 1000, 99},  {1200, 1100, 1033}, {40, (1 << 20) + 1, 37}};
  /* EM_TEST_SMALL (under compute-sanitizer, where each column's two kernel
   * launches are slow): without 1200 x 1100 and 40 x (2^20 + 1) */
  const size_t n_shapes = sizeof shape / sizeof *shape - (getenv("EM_TEST_SMALL") ? 2 : 0);
  for (size_t s = 0; s < n_shapes; s++) check(shape[s][0], shape[s][1], shape[s][2]);
  check_solve(33, 31, 20);
  check_solve(64, 64, 63);
  check_solve(100, 1000, 60);
  check_solve(1000, 100, 100);
  em_gf2 *E = NULL; /* 0 x 0 */
  int32_t rank = -1;
  REQUIRE_OK(em_gf2_create(0, 0, &E));
  EXPECT_OK(em_gf2_echelon(E, 1, be, &rank, NULL));
  EXPECT(rank == 0, "0x0 rank %d", rank);
  em_gf2_destroy(&E);
  return TEST_RESULT();
}
