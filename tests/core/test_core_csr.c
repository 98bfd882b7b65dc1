/* CSR construction from triplets, permutation and the block split agree
 * with a dense reference built from the same triplets. */
#include <string.h>

#include "em_test.h"

#define N 37

static void dense_of(const em_csr *A, em_cplx *D) {
  memset(D, 0, sizeof(em_cplx) * (size_t)A->n_rows * (size_t)A->n_cols);
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      D[i * A->n_cols + A->colind[k]] += A->val[k];
}

int main(void) {
  unsigned long long s = 12345;
  /* random triplets with many duplicates, an empty row and one long row */
  int64_t nt = 2000;
  int32_t *ti = malloc(sizeof *ti * nt), *tj = malloc(sizeof *tj * nt);
  em_cplx *tv = malloc(sizeof *tv * nt);
  static em_cplx D[N * N], E[N * N];
  memset(D, 0, sizeof D);
  for (int64_t k = 0; k < nt; k++) {
    ti[k] = (int32_t)(em_test_rand(&s) * N);
    if (ti[k] == 5) ti[k] = 6;  /* row 5 stays empty */
    if (k % 7 == 0) ti[k] = 11; /* row 11 is long */
    tj[k] = (int32_t)(em_test_rand(&s) * N);
    tv[k] = em_test_rand(&s) - 0.5 + I * (em_test_rand(&s) - 0.5);
    D[ti[k] * N + tj[k]] += tv[k];
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(N, N, nt, ti, tj, tv, &A));
  EXPECT_OK(em_csr_check(A, "A"));
  EXPECT(A->rowptr[6] == A->rowptr[5], "row 5 not empty");
  dense_of(A, E);
  double err = 0;
  for (int i = 0; i < N * N; i++) err = fmax(err, cabs(E[i] - D[i]));
  EXPECT(err < 1e-13, "triplet sum error %g", err);

  /* SpMV reference against the dense product */
  em_cplx x[N], y[N], yd[N];
  for (int i = 0; i < N; i++) x[i] = em_test_rand(&s) + I * em_test_rand(&s), y[i] = 1;
  em_csr_spmv_ref(A, 2.0, x, 0.5, y);
  for (int i = 0; i < N; i++) {
    yd[i] = 0.5;
    for (int j = 0; j < N; j++) yd[i] += 2.0 * D[i * N + j] * x[j];
    EXPECT(cabs(y[i] - yd[i]) < 1e-12, "spmv row %d", i);
  }

  /* symmetric permutation: B(p[i], p[j]) = A(i, j) */
  int32_t p[N];
  for (int i = 0; i < N; i++) p[i] = (i * 17 + 3) % N; /* 17 coprime with 37 */
  em_csr *B = NULL;
  REQUIRE_OK(em_csr_permute(A, p, p, &B));
  EXPECT_OK(em_csr_check(B, "B"));
  dense_of(B, E);
  err = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) err = fmax(err, cabs(E[p[i] * N + p[j]] - D[i * N + j]));
  EXPECT(err == 0, "permutation error %g", err);

  /* block split by groups and back */
  int32_t off[4] = {0, 10, 25, N};
  em_blockmat *BM = NULL;
  REQUIRE_OK(em_blockmat_from_csr(A, 3, off, &BM));
  int64_t total = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      EXPECT_OK(em_csr_check(BM->blk[i][j], "block"));
      EXPECT(BM->blk[i][j]->n_rows == off[i + 1] - off[i] &&
                 BM->blk[i][j]->n_cols == off[j + 1] - off[j],
             "block %d%d shape", i, j);
      total += BM->blk[i][j]->nnz;
    }
  EXPECT(total == A->nnz, "blocks hold %lld of %lld", (long long)total, (long long)A->nnz);
  em_csr *C = NULL;
  REQUIRE_OK(em_blockmat_to_csr(BM, &C));
  EXPECT(C->nnz == A->nnz && !memcmp(C->rowptr, A->rowptr, sizeof *A->rowptr * (N + 1)) &&
             !memcmp(C->colind, A->colind, sizeof *A->colind * (size_t)A->nnz) &&
             !memcmp(C->val, A->val, sizeof *A->val * (size_t)A->nnz),
         "block round trip differs");

  /* group-preserving permutation: reverse inside each group */
  int32_t q[N];
  for (int g = 0; g < 3; g++)
    for (int i = off[g]; i < off[g + 1]; i++) q[i] = off[g + 1] - 1 - (i - off[g]);
  em_blockmat *PM = NULL;
  REQUIRE_OK(em_blockmat_permute(BM, q, &PM));
  em_csr *PC = NULL;
  REQUIRE_OK(em_blockmat_to_csr(PM, &PC));
  dense_of(PC, E);
  err = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) err = fmax(err, cabs(E[q[i] * N + q[j]] - D[i * N + j]));
  EXPECT(err < 1e-13, "block permutation error %g", err);
  q[0] = off[1]; /* moves DOF 0 into group 2: refused */
  em_blockmat *bad = NULL;
  EXPECT_ERR(em_blockmat_permute(BM, q, &bad), EM_ERR_ARG);

  /* 0 x 0 and triplets out of range */
  em_csr *Z = NULL;
  EXPECT_OK(em_csr_from_triplets(0, 0, 0, NULL, NULL, NULL, &Z));
  EXPECT(Z && Z->nnz == 0, "empty matrix");
  int32_t bi = 3, bj = 40;
  em_cplx bv = 1;
  em_csr *W = NULL;
  EXPECT_ERR(em_csr_from_triplets(N, N, 1, &bi, &bj, &bv, &W), EM_ERR_ARG);

  em_csr_destroy(&A);
  em_csr_destroy(&B);
  em_csr_destroy(&C);
  em_csr_destroy(&PC);
  em_csr_destroy(&Z);
  em_blockmat_destroy(&BM);
  em_blockmat_destroy(&PM);
  free(ti);
  free(tj);
  free(tv);
  return TEST_RESULT();
}
