/* The SPD FEM matrices of seed 000's study (tests/common/fem_spd.h):
 * A(alpha) = S + alpha T assembled by the program with k0^2 = -alpha.
 * Checked at orders 1 and 2 on 3^3 cells: every value real, A symmetric
 * bit for bit; the mass part T = A(2) - A(1) positive definite and the
 * curl-curl part S = 2 A(1) - A(2) positive semi-definite on random
 * vectors (x^T S x >= -1e-12 ||S|| ||x||^2), so x^T A x >= alpha x^T T x
 * > 0; S annihilates nothing the mass sees twice: A(1) and A(2) share one
 * pattern.  And the refusals of a bad order or alpha <= 0. */
#include "em_test.h"
#include "fem_spd.h"

static double quad(const em_csr *A, const double *x) {
  double q = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      q += x[i] * creal(A->val[k]) * x[A->colind[k]];
  return q;
}

static void check(int order) {
  em_csr *A1 = NULL, *A2 = NULL;
  REQUIRE_OK(em_fem_spd_box(3, order, 1.0, &A1, NULL));
  REQUIRE_OK(em_fem_spd_box(3, order, 2.0, &A2, NULL));
  int32_t n = A1->n_rows;
  EXPECT(n > 0 && A2->n_rows == n && A1->nnz == A2->nnz, "order %d: sizes %d / %d", order, n,
         A2->n_rows);
  EXPECT(!memcmp(A1->colind, A2->colind, sizeof(int32_t) * (size_t)A1->nnz), "patterns differ");
  double smax = 0;
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A1->rowptr[i]; k < A1->rowptr[i + 1]; k++) {
      int32_t j = A1->colind[k];
      EXPECT(cimag(A1->val[k]) == 0, "order %d: (%d, %d) imaginary %g", order, i, j,
             cimag(A1->val[k]));
      em_cplx t = 0;
      for (int64_t q = A1->rowptr[j]; q < A1->rowptr[j + 1]; q++)
        if (A1->colind[q] == i) t = A1->val[q];
      EXPECT(t == A1->val[k], "order %d: a(%d,%d) != a(%d,%d)", order, i, j, j, i);
      double s = fabs(2 * creal(A1->val[k]) - creal(A2->val[k]));
      if (s > smax) smax = s;
    }
  double *x = calloc((size_t)n, sizeof *x);
  unsigned long long seed = 7;
  for (int trial = 0; trial < 20; trial++) {
    double xx = 0;
    for (int32_t i = 0; i < n; i++) x[i] = em_test_rand(&seed) - 0.5, xx += x[i] * x[i];
    double a1 = quad(A1, x), a2 = quad(A2, x), T = a2 - a1, S = 2 * a1 - a2;
    EXPECT(T > 0, "order %d: x^T T x = %g <= 0", order, T);
    EXPECT(S >= -1e-12 * smax * xx * 64, "order %d: x^T S x = %g < 0", order, S);
    EXPECT(a1 >= T * (1 - 1e-12), "order %d: x^T A x %g < alpha x^T T x %g", order, a1, T);
  }
  free(x);
  em_csr_destroy(&A1);
  em_csr_destroy(&A2);
}

int main(void) {
  check(1);
  check(2);
  em_csr *A = NULL;
  EXPECT_ERR(em_fem_spd_box(3, 4, 1.0, &A, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_fem_spd_box(3, 1, 0.0, &A, NULL), EM_ERR_ARG);
  EXPECT(A == NULL, "output set on a refusal");
  return TEST_RESULT();
}
