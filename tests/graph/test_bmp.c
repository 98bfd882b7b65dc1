/* The patent bitmap (graph/bmp*.c) against plain dense references: access
 * by popcount, A + B, A - B, A B and the LU without pivoting (L U
 * multiplied back gives A; the factors equal a dense Doolittle's), on
 * random patterns with empty rows and columns, sizes 1, 31, 32, 33, 63,
 * 64, 65, 130 (not all multiples of 32 or 64); a zero pivot and a missing
 * diagonal as errors naming the row; CSR round trips; bad input named. */
#include <complex.h>
#include <string.h>

#include "em_graph.h"
#include "em_test.h"

/* a random n x m CSR, density dens, rows i % 7 == 3 empty; diag: every
 * diagonal entry stored, |a_ii| = row sum + 1 (no pivoting needed) */
static em_csr *rnd_csr(int32_t n, int32_t m, double dens, int diag, unsigned long long *s) {
  em_cplx *d = calloc((size_t)n * m + 1, sizeof *d);
  int64_t nnz = 0;
  for (int32_t i = 0; i < n; i++) {
    double sum = 0;
    for (int32_t j = 0; j < m; j++)
      if (i % 7 != 3 && em_test_rand(s) < dens) {
        d[(size_t)i * m + j] = (em_test_rand(s) - 0.5) + I * (em_test_rand(s) - 0.5);
        if (d[(size_t)i * m + j] == 0) d[(size_t)i * m + j] = 1;
        sum += cabs(d[(size_t)i * m + j]);
      }
    if (diag && i < m) d[(size_t)i * m + i] = sum + 1 + 0.5 * I;
  }
  for (size_t q = 0; q < (size_t)n * m; q++) nnz += d[q] != 0;
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(n, m, nnz, &A));
  int64_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int32_t j = 0; j < m; j++)
      if (d[(size_t)i * m + j] != 0) A->colind[k] = j, A->val[k++] = d[(size_t)i * m + j];
    A->rowptr[i + 1] = k;
  }
  free(d);
  return A;
}

static void dense_of(const em_bmp *B, em_cplx *d) {
  for (int32_t i = 0; i < B->n_rows; i++)
    for (int32_t j = 0; j < B->n_cols; j++) d[(size_t)i * B->n_cols + j] = em_bmp_get(B, i, j);
}

static double maxdiff(size_t n, const em_cplx *a, const em_cplx *b) {
  double e = 0;
  for (size_t q = 0; q < n; q++) e = fmax(e, cabs(a[q] - b[q]));
  return e;
}

static void check_ops(int32_t n, int32_t m, double dens) {
  unsigned long long s = 1000 + (unsigned long long)n * 77 + (unsigned long long)m;
  em_csr *Ac = rnd_csr(n, m, dens, 0, &s), *Bc = rnd_csr(n, m, dens, 0, &s),
         *Cc = rnd_csr(m, n, dens, 0, &s);
  em_bmp *A = NULL, *B = NULL, *C = NULL, *S = NULL, *D = NULL, *P = NULL;
  REQUIRE_OK(em_bmp_from_csr(Ac, 1, &A));
  REQUIRE_OK(em_bmp_from_csr(Bc, 1, &B));
  REQUIRE_OK(em_bmp_from_csr(Cc, 1, &C));
  em_cplx *a = calloc((size_t)n * m + 1, sizeof *a), *b = calloc((size_t)n * m + 1, sizeof *b),
          *c = calloc((size_t)m * n + 1, sizeof *c),
          *r = calloc((size_t)n * n + (size_t)n * m + 1, sizeof *r),
          *x = calloc((size_t)n * n + (size_t)n * m + 1, sizeof *x);
  dense_of(A, a);
  dense_of(B, b);
  dense_of(C, c);
  /* access: every stored entry of the CSR, by popcount */
  int bad = 0;
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = Ac->rowptr[i]; k < Ac->rowptr[i + 1]; k++)
      bad |=
          em_bmp_index(A, i, Ac->colind[k]) != k || em_bmp_get(A, i, Ac->colind[k]) != Ac->val[k];
  EXPECT(!bad, "%dx%d: access by popcount", n, m);
  EXPECT(em_bmp_index(A, -1, 0) == -1 && em_bmp_index(A, 0, m) == -1, "out of range access");
  for (int sign = 1; sign >= -1; sign -= 2) { /* A + B, A - B */
    em_bmp *X = NULL;
    REQUIRE_OK(em_bmp_add(A, B, sign, &X));
    dense_of(X, x);
    for (size_t q = 0; q < (size_t)n * m; q++) r[q] = a[q] + sign * b[q];
    EXPECT(maxdiff((size_t)n * m, x, r) == 0, "%dx%d: A %c B", n, m, sign > 0 ? '+' : '-');
    int64_t want = 0; /* the pattern is the union */
    for (size_t q = 0; q < (size_t)n * m; q++) want += a[q] != 0 || b[q] != 0;
    EXPECT(X->rs[n] == want, "%dx%d: sum pattern %lld, union %lld", n, m, (long long)X->rs[n],
           (long long)want);
    if (sign > 0)
      S = X;
    else
      D = X;
  }
  REQUIRE_OK(em_bmp_mul(A, C, &P)); /* (n x m)(m x n) */
  dense_of(P, x);
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < n; j++) {
      em_cplx v = 0;
      for (int32_t k = 0; k < m; k++) v += a[(size_t)i * m + k] * c[(size_t)k * n + j];
      r[(size_t)i * n + j] = v;
    }
  EXPECT(maxdiff((size_t)n * n, x, r) < 1e-13, "%dx%d: A C", n, m);
  /* CSR round trip */
  em_csr *Rc = NULL;
  REQUIRE_OK(em_bmp_to_csr(A, &Rc));
  EXPECT(Rc->nnz == Ac->nnz &&
             !memcmp(Rc->rowptr, Ac->rowptr, (size_t)(n + 1) * sizeof *Rc->rowptr) &&
             !memcmp(Rc->colind, Ac->colind, (size_t)Ac->nnz * sizeof *Rc->colind),
         "%dx%d: CSR round trip", n, m);
  em_csr_destroy(&Rc);
  em_bmp *Bs = NULL;
  EXPECT_ERR(em_bmp_add(A, P, 1, &Bs), n == m ? EM_OK : EM_ERR_ARG);
  em_bmp_destroy(&Bs);
  free(a), free(b), free(c), free(r), free(x);
  em_bmp_destroy(&A), em_bmp_destroy(&B), em_bmp_destroy(&C), em_bmp_destroy(&S);
  em_bmp_destroy(&D), em_bmp_destroy(&P);
  em_csr_destroy(&Ac), em_csr_destroy(&Bc), em_csr_destroy(&Cc);
}

/* LU of a diagonally dominant random matrix against dense Doolittle, and
 * L U against A */
static void check_lu(int32_t n, double dens) {
  unsigned long long s = 77 + (unsigned long long)n;
  em_csr *Ac = rnd_csr(n, n, dens, 1, &s);
  em_bmp *A = NULL, *LU = NULL;
  REQUIRE_OK(em_bmp_from_csr(Ac, 1, &A));
  REQUIRE_OK(em_bmp_lu(A, &LU));
  em_cplx *d = calloc((size_t)n * n, sizeof *d), *x = calloc((size_t)n * n, sizeof *x);
  dense_of(A, d);
  for (int32_t k = 0; k < n; k++) /* dense Doolittle in place */
    for (int32_t i = k + 1; i < n; i++) {
      em_cplx l = d[(size_t)i * n + k] /= d[(size_t)k * n + k];
      for (int32_t j = k + 1; j < n; j++) d[(size_t)i * n + j] -= l * d[(size_t)k * n + j];
    }
  dense_of(LU, x);
  double scale = 0;
  for (size_t q = 0; q < (size_t)n * n; q++) scale = fmax(scale, cabs(d[q]));
  EXPECT(maxdiff((size_t)n * n, x, d) <= 1e-13 * scale, "LU %d: factors differ from dense by %.3g",
         n, maxdiff((size_t)n * n, x, d));
  /* every non-zero of the dense factors is stored (the fill is complete) */
  int miss = 0;
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < n; j++) miss |= d[(size_t)i * n + j] != 0 && !em_bmp_has(LU, i, j);
  EXPECT(!miss, "LU %d: a fill entry is not stored", n);
  double e = 0; /* (L U)_ij = sum_k<=min(i,j) l_ik u_kj, l_ii = 1 */
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < n; j++) {
      em_cplx v = 0;
      for (int32_t k = 0; k <= (i < j ? i : j); k++)
        v += (k == i ? 1 : em_bmp_get(LU, i, k)) * em_bmp_get(LU, k, j);
      e = fmax(e, cabs(v - em_bmp_get(A, i, j)));
    }
  EXPECT(e < 1e-12 * scale, "LU %d: |L U - A| = %.3g", n, e);
  free(d), free(x);
  em_bmp_destroy(&A), em_bmp_destroy(&LU), em_csr_destroy(&Ac);
}

static void check_pivots(void) {
  /* [[1 1] [1 1]]: u_11 = 0 exactly; [[0 1] [1 0]]: no diagonal stored */
  int64_t rp[3] = {0, 2, 4};
  int32_t ci[4] = {0, 1, 0, 1}, cz[2] = {1, 0};
  em_cplx v[4] = {1, 1, 1, 1};
  int64_t rz[3] = {0, 1, 2};
  em_csr A = {2, 2, 4, rp, ci, v}, Z = {2, 2, 2, rz, cz, v};
  em_bmp *B = NULL, *LU = NULL;
  REQUIRE_OK(em_bmp_from_csr(&A, 1, &B));
  EXPECT(em_bmp_lu(B, &LU) == EM_ERR_NUMERIC && strstr(em_error_message(), "row 1") != NULL,
         "zero pivot names row 1: %s", em_error_message());
  em_error_clear();
  em_bmp_destroy(&B);
  REQUIRE_OK(em_bmp_from_csr(&Z, 1, &B));
  EXPECT(em_bmp_lu(B, &LU) == EM_ERR_NUMERIC && strstr(em_error_message(), "row 0") != NULL,
         "missing pivot names row 0: %s", em_error_message());
  em_error_clear();
  em_bmp_destroy(&B);
  int32_t bad[4] = {1, 0, 0, 1}; /* not ascending */
  em_csr X = {2, 2, 4, rp, bad, v};
  EXPECT_ERR(em_bmp_from_csr(&X, 1, &B), EM_ERR_ARG);
  em_bmp *E = NULL; /* 0 x 0 */
  REQUIRE_OK(em_bmp_create(0, 0, &E));
  REQUIRE_OK(em_bmp_finish(E, 1));
  em_bmp_destroy(&E);
}

int main(void) {
  const int32_t sz[] = {1, 31, 32, 33, 63, 64, 65, 130};
  for (size_t a = 0; a < sizeof sz / sizeof *sz; a++) {
    check_ops(sz[a], sz[(a + 3) % 8], 0.1);
    check_ops(sz[a], sz[a], 0.6);
    check_lu(sz[a], 0.05);
    check_lu(sz[a], 0.3);
  }
  check_pivots();
  return TEST_RESULT();
}
