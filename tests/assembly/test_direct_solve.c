/* The test-reference direct solver (tests/common/direct_solve.c): dense and
 * RCM-banded paths give residuals ~1e-12 on random sparse complex systems
 * with a scrambled (wide) ordering, several right-hand sides, empty rows
 * of the pattern off the diagonal, 0x0 and 1x1; a singular matrix is an
 * EM_ERR_NUMERIC naming the pivot. */
#include <string.h>

#include "direct_solve.h"
#include "em_test.h"

/* A 1D-chain-like sparse matrix (bandwidth small after RCM) whose rows are
 * scrambled by a random permutation, diagonally dominant. */
static em_csr *random_matrix(int32_t n, unsigned long long *s) {
  int32_t *perm = malloc((n + 1) * sizeof *perm);
  for (int32_t i = 0; i < n; i++) perm[i] = i;
  for (int32_t i = n - 1; i > 0; i--) {
    int32_t j = (int32_t)(em_test_rand(s) * (i + 1));
    int32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  int64_t cap = 7 * (int64_t)n + 1, k = 0;
  int32_t *ti = malloc(cap * sizeof *ti), *tj = malloc(cap * sizeof *tj);
  em_cplx *tv = malloc(cap * sizeof *tv);
  for (int32_t i = 0; i < n; i++) {
    ti[k] = perm[i];
    tj[k] = perm[i];
    tv[k++] = 8 + 2 * em_test_rand(s) + I * em_test_rand(s);
    for (int d = 1; d <= 3; d++) {
      if (i + d >= n || em_test_rand(s) < 0.3) continue;
      em_cplx v = (em_test_rand(s) - 0.5) + I * (em_test_rand(s) - 0.5);
      ti[k] = perm[i];
      tj[k] = perm[i + d];
      tv[k++] = v;
      ti[k] = perm[i + d];
      tj[k] = perm[i];
      tv[k++] = 0.7 * v; /* unsymmetric values */
    }
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(n, n, k, ti, tj, tv, &A));
  free(perm);
  free(ti);
  free(tj);
  free(tv);
  return A;
}

static void check(int32_t n, int nrhs, unsigned long long *s) {
  em_csr *A = random_matrix(n, s);
  em_cplx *b = malloc(((size_t)n * nrhs + 1) * sizeof *b),
          *x = malloc(((size_t)n * nrhs + 1) * sizeof *x);
  em_cplx *r = malloc(((size_t)n + 1) * sizeof *r);
  for (int32_t i = 0; i < n * nrhs; i++) b[i] = em_test_rand(s) - 0.5 + I * em_test_rand(s);
  EXPECT_OK(em_test_dense_solve(A, nrhs, b, x));
  double worst = 0;
  for (int c = 0; c < nrhs; c++) {
    memcpy(r, b + (size_t)c * n, n * sizeof *r);
    em_csr_spmv_ref(A, -1, x + (size_t)c * n, 1, r);
    double rn = 0, bn = 0;
    for (int32_t i = 0; i < n; i++) {
      rn = fmax(rn, cabs(r[i]));
      bn = fmax(bn, cabs(b[(size_t)c * n + i]));
    }
    worst = fmax(worst, rn / (bn > 0 ? bn : 1));
  }
  int32_t bw = 0;
  if (n > 0) EXPECT_OK(em_test_bandwidth(A, &bw));
  EXPECT(worst < 1e-12, "n=%d: relative residual %g", n, worst);
  printf("n=%d nrhs=%d: bandwidth after RCM %d, relative residual %.1e\n", n, nrhs, bw, worst);
  em_csr_destroy(&A);
  free(b);
  free(x);
  free(r);
}

int main(void) {
  unsigned long long s = 4242;
  check(0, 1, &s);
  check(1, 1, &s);
  check(37, 2, &s);   /* dense path */
  check(3001, 3, &s); /* banded path, size not a multiple of anything */
  /* singular: a zero row */
  em_csr *A = NULL;
  int32_t ti[3] = {0, 1, 0}, tj[3] = {0, 1, 2};
  em_cplx tv[3] = {1, 1, 1}, b[3] = {1, 1, 1}, x[3];
  REQUIRE_OK(em_csr_from_triplets(3, 3, 3, ti, tj, tv, &A));
  EXPECT_ERR(em_test_dense_solve(A, 1, b, x), EM_ERR_NUMERIC);
  em_csr_destroy(&A);
  return TEST_RESULT();
}
