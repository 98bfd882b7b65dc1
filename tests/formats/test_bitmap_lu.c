/* Bitmap LU (CPU reference, formats/bitmap_lu.c) against a dense Doolittle
 * LU without pivoting: every stored entry equals the dense factor's, every
 * nonzero of the dense factors is stored, and L U reproduces A; sizes 1,
 * 31, 32, 33, 130 (rows over three words), random sparse diagonally
 * dominant matrices and an arrow matrix (first row and column full: the
 * factors fill completely); zero pivots (structural and after elimination)
 * are errors naming the row. */
#include <complex.h>
#include <string.h>

#include "bitmap_gpu.h"
#include "em_formats.h"
#include "em_test.h"

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
  free(F);
  free(R);
  free(stored);
  em_csr_destroy(&C);
  em_spmat_destroy(&A);
  em_spmat_destroy(&LU);
}

int main(void) {
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
  em_cplx Z1[4] = {0, 1, 1, 1}, Z2[4] = {1, 1, 1, 1};
  em_spmat *A = from_dense(2, Z1), *LU = NULL;
  EXPECT_ERR(em_bitmap_lu(A, &LU), EM_ERR_NUMERIC); /* a(0,0) not stored */
  em_spmat_destroy(&A);
  A = from_dense(2, Z2);
  EXPECT_ERR(em_bitmap_lu(A, &LU), EM_ERR_NUMERIC); /* 1 - 1 * 1 = 0 */
  EXPECT(LU == NULL, "a failed LU returned a matrix");
  em_spmat_destroy(&A);
  return TEST_RESULT();
}
