/* The parallel pieces of the operator's first frequency (core/csr.c,
 * blockmat.c, sort.c) against plain references on awkward inputs:
 * - em_sort_u64 and em_sort_i32 equal qsort on empty, single, sorted,
 *   reversed, all-equal, duplicate-heavy and random arrays (negative ones
 *   too) of lengths around their cut-off (16);
 * - em_csr_permute_map: B = P A Q^T entry by entry (rectangular, empty rows,
 *   a row holding every column), rows sorted, B.val[q] = A.val[map[q]];
 * - em_blockmat_permute_map: the value maps carry a second matrix of the
 *   same pattern (the next frequency) to its permuted values;
 * - em_blockmat_to_csr equals the block matrix entry by entry;
 * - em_csr_check names the first bad row whatever the thread count. */
#include <omp.h>

#include "em_test.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) { /* xorshift64 */
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static void test_sort(void) {
  const int64_t len[] = {0, 1, 2, 15, 16, 17, 33, 1000, 100000};
  for (size_t l = 0; l < sizeof len / sizeof len[0]; l++)
    for (int kind = 0; kind < 5; kind++) {
      int64_t n = len[l];
      uint64_t *a = calloc((size_t)n + 1, 8), *b = calloc((size_t)n + 1, 8);
      for (int64_t i = 0; i < n; i++)
        a[i] = kind == 0   ? next()
               : kind == 1 ? (uint64_t)i
               : kind == 2 ? (uint64_t)(n - i)
               : kind == 3 ? 7
                           : next() % 5;
      memcpy(b, a, (size_t)n * 8);
      em_sort_u64(a, n);
      qsort(b, (size_t)n, 8, cmp_u64);
      EXPECT(!memcmp(a, b, (size_t)n * 8), "em_sort_u64 differs from qsort: n %lld, kind %d",
             (long long)n, kind);
      int32_t *c = calloc((size_t)n + 1, 4), *e = calloc((size_t)n + 1, 4);
      for (int64_t i = 0; i < n; i++) /* a[] as signed 32-bit, both signs */
        c[i] = kind == 0 ? (int32_t)(uint32_t)next() : (int32_t)(b[i] % 1000) - 500;
      for (int64_t i = 0; i < n && kind == 2; i++) c[i] = (int32_t)(n - i) - 40;
      memcpy(e, c, (size_t)n * 4);
      em_sort_i32(c, n);
      qsort(e, (size_t)n, 4, cmp_i32);
      EXPECT(!memcmp(c, e, (size_t)n * 4), "em_sort_i32 differs from qsort: n %lld, kind %d",
             (long long)n, kind);
      free(a);
      free(b);
      free(c);
      free(e);
    }
}

/* a random m x n CSR: row 0 empty, row 1 full, others 0..9 random columns */
static em_csr *random_csr(int32_t m, int32_t n) {
  int32_t *ti = calloc((size_t)m * 12 + n, 4), *tj = calloc((size_t)m * 12 + n, 4);
  em_cplx *tv = calloc((size_t)m * 12 + n, sizeof *tv);
  int64_t k = 0;
  for (int32_t j = 0; m > 1 && j < n; j++) ti[k] = 1, tj[k] = j, tv[k++] = j + 0.5 * I;
  for (int32_t i = 2; i < m; i++)
    for (int c = (int)(next() % 10); c > 0; c--)
      ti[k] = i, tj[k] = (int32_t)(next() % (uint64_t)n), tv[k++] = (double)(next() % 1000) - I * i;
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(m, n, k, ti, tj, tv, &A));
  free(ti);
  free(tj);
  free(tv);
  return A;
}

static void random_perm(int32_t n, int32_t *p) {
  for (int32_t i = 0; i < n; i++) p[i] = i;
  for (int32_t i = n - 1; i > 0; i--) {
    int32_t j = (int32_t)(next() % (uint64_t)(i + 1)), t = p[i];
    p[i] = p[j], p[j] = t;
  }
}

/* B(rp[i], cp[j]) == A(i, j) for every entry, and the counts agree */
static int same_permuted(const em_csr *A, const em_csr *B, const int32_t *rp, const int32_t *cp) {
  if (B->nnz != A->nnz) return 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int32_t r = rp[i], c = cp[A->colind[p]];
      int found = 0;
      for (int64_t q = B->rowptr[r]; q < B->rowptr[r + 1]; q++)
        if (B->colind[q] == c) found = B->val[q] == A->val[p];
      if (!found) return 0;
    }
  return 1;
}

static void test_csr_permute(void) {
  for (int t = 1; t <= 3; t += 2) {
    omp_set_num_threads(t);
    em_csr *A = random_csr(3000, 2500), *B = NULL;
    int32_t *rp = calloc(3000, 4), *cp = calloc(2500, 4);
    random_perm(3000, rp);
    random_perm(2500, cp);
    int64_t *map = calloc((size_t)A->nnz + 1, 8);
    REQUIRE_OK(em_csr_permute_map(A, rp, cp, &B, map));
    EXPECT_OK(em_csr_check(B, "permuted"));
    EXPECT(same_permuted(A, B, rp, cp), "%d threads: B is not P A Q^T", t);
    int bad = 0;
    for (int64_t q = 0; q < B->nnz; q++) bad += B->val[q] != A->val[map[q]];
    EXPECT(!bad, "%d threads: %d values not at map[q]", t, bad);
    em_csr_destroy(&B);
    REQUIRE_OK(em_csr_permute(A, NULL, NULL, &B)); /* identity: a copy */
    EXPECT(B->nnz == A->nnz && !memcmp(B->colind, A->colind, (size_t)A->nnz * 4),
           "identity permutation changed the pattern");
    em_csr_destroy(&B);
    em_csr_destroy(&A);
    free(rp);
    free(cp);
    free(map);
  }
  omp_set_num_threads(2);
}

static void test_blockmat(void) {
  const int32_t off[4] = {0, 700, 1900, 4000};
  em_csr *W = random_csr(4000, 4000), *W2 = NULL;
  REQUIRE_OK(em_csr_copy(W, &W2));
  for (int64_t p = 0; p < W2->nnz; p++) W2->val[p] = W2->val[p] * 3 - 1; /* the next frequency */
  em_blockmat *B = NULL, *B2 = NULL, *P = NULL, *P2 = NULL;
  REQUIRE_OK(em_blockmat_from_csr(W, 3, off, &B));
  REQUIRE_OK(em_blockmat_from_csr(W2, 3, off, &B2));
  em_csr *M = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &M));
  EXPECT(M->nnz == W->nnz && !memcmp(M->rowptr, W->rowptr, 4001 * 8) &&
             !memcmp(M->colind, W->colind, (size_t)W->nnz * 4) &&
             !memcmp(M->val, W->val, (size_t)W->nnz * sizeof *W->val),
         "em_blockmat_to_csr does not give the matrix back");
  int32_t perm[4000];
  for (int g = 0; g < 3; g++) random_perm(off[g + 1] - off[g], perm + off[g]);
  for (int g = 0; g < 3; g++)
    for (int32_t i = off[g]; i < off[g + 1]; i++) perm[i] += off[g];
  int64_t *map[EM_MAX_ORDER][EM_MAX_ORDER] = {{0}};
  REQUIRE_OK(em_blockmat_permute_map(B, perm, &P, map));
  REQUIRE_OK(em_blockmat_permute(B2, perm, &P2));
  int bad = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (int64_t q = 0; q < P->blk[i][j]->nnz; q++)
        bad += P2->blk[i][j]->val[q] != B2->blk[i][j]->val[map[i][j][q]];
  EXPECT(!bad, "%d values of the next frequency not carried by the value maps", bad);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) em_free(&map[i][j]);
  em_blockmat_destroy(&B);
  em_blockmat_destroy(&B2);
  em_blockmat_destroy(&P);
  em_blockmat_destroy(&P2);
  em_csr_destroy(&M);
  em_csr_destroy(&W);
  em_csr_destroy(&W2);
}

/* em_blockmat_permute_csr (consuming the blocks, with and without the
 * scatter maps) against em_blockmat_permute + em_blockmat_to_csr, bit for
 * bit; a second frequency's values through the maps and permuted again;
 * em_csr_block cuts the blocks back out, empty groups included. */
static void test_permute_csr(void) {
  const int32_t offs[2][4] = {{0, 700, 1900, 4001}, {0, 0, 1300, 4001}}; /* group 1 empty */
  for (int c = 0; c < 2; c++) {
    const int32_t *off = offs[c];
    em_csr *W = random_csr(4001, 4001), *W2 = NULL;
    REQUIRE_OK(em_csr_copy(W, &W2));
    for (int64_t p = 0; p < W2->nnz; p++) W2->val[p] = W2->val[p] * 3 - 1;
    int32_t perm[4001];
    for (int g = 0; g < 3; g++) random_perm(off[g + 1] - off[g], perm + off[g]);
    for (int g = 0; g < 3; g++)
      for (int32_t i = off[g]; i < off[g + 1]; i++) perm[i] += off[g];
    em_blockmat *B = NULL, *P = NULL;
    em_csr *want = NULL, *want2 = NULL;
    REQUIRE_OK(em_blockmat_from_csr(W, 3, off, &B));
    REQUIRE_OK(em_blockmat_permute(B, perm, &P));
    REQUIRE_OK(em_blockmat_to_csr(P, &want));
    em_blockmat_destroy(&B);
    em_blockmat_destroy(&P);
    REQUIRE_OK(em_blockmat_from_csr(W2, 3, off, &B));
    REQUIRE_OK(em_blockmat_permute(B, perm, &P));
    REQUIRE_OK(em_blockmat_to_csr(P, &want2));
    em_blockmat_destroy(&B);
    em_blockmat_destroy(&P);
    for (int maps = 0; maps < 2; maps++) {
      int64_t *src = NULL;
      em_csr *A = NULL;
      REQUIRE_OK(em_blockmat_from_csr(W, 3, off, &B));
      REQUIRE_OK(em_blockmat_permute_csr(B, perm, 1, &A, maps ? &src : NULL));
      int freed = 1;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) freed &= B->blk[i][j] == NULL;
      EXPECT(freed, "case %d: consumed blocks not freed", c);
      em_blockmat_destroy(&B);
      EXPECT(A->nnz == want->nnz && !memcmp(A->rowptr, want->rowptr, 4002 * 8) &&
                 !memcmp(A->colind, want->colind, (size_t)A->nnz * 4) &&
                 !memcmp(A->val, want->val, (size_t)A->nnz * sizeof *A->val),
             "case %d, maps %d: the permuted CSR differs from permute + to_csr", c, maps);
      EXPECT_OK(em_csr_check(A, "permuted"));
      REQUIRE_OK(em_blockmat_from_csr(W2, 3, off, &B));
      REQUIRE_OK(em_blockmat_permute_csr_values(B, perm, 0, A, src));
      EXPECT(B->blk[2][2] != NULL, "blocks freed without consume");
      EXPECT(!memcmp(A->val, want2->val, (size_t)A->nnz * sizeof *A->val) &&
                 !memcmp(A->colind, want2->colind, (size_t)A->nnz * 4),
             "case %d, maps %d: the second frequency's values differ", c, maps);
      /* the blocks cut back out of the CSR are the permuted blocks */
      REQUIRE_OK(em_blockmat_permute(B, perm, &P));
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          em_csr *K = NULL;
          REQUIRE_OK(em_csr_block(A, off[i], off[i + 1], off[j], off[j + 1], &K));
          const em_csr *Q = P->blk[i][j];
          EXPECT(K->n_rows == Q->n_rows && K->n_cols == Q->n_cols && K->nnz == Q->nnz &&
                     !memcmp(K->rowptr, Q->rowptr, ((size_t)Q->n_rows + 1) * 8) &&
                     !memcmp(K->colind, Q->colind, (size_t)Q->nnz * 4) &&
                     !memcmp(K->val, Q->val, (size_t)Q->nnz * sizeof *Q->val),
                 "case %d: em_csr_block (%d, %d) differs from the permuted block", c, i, j);
          em_csr_destroy(&K);
        }
      em_csr *K = NULL;
      EXPECT_ERR(em_csr_block(A, 10, 5, 0, 1, &K), EM_ERR_ARG);
      EXPECT_ERR(em_csr_block(A, 0, 1, 0, 4002, &K), EM_ERR_ARG);
      em_error_clear();
      em_blockmat_destroy(&B);
      em_blockmat_destroy(&P);
      /* the pattern alone (values zero) and its map: the same columns and
         map; the values gathered through that map are the permuted ones */
      em_csr *Q = NULL;
      int64_t *qsrc = NULL;
      REQUIRE_OK(em_blockmat_from_csr(W, 3, off, &B));
      REQUIRE_OK(em_blockmat_permute_pattern(B, perm, 1, &Q, maps ? &qsrc : NULL));
      em_blockmat_destroy(&B);
      int zero = 1;
      for (int64_t p = 0; p < Q->nnz; p++) zero &= Q->val[p] == 0;
      EXPECT(zero && Q->nnz == want->nnz && !memcmp(Q->rowptr, want->rowptr, 4002 * 8) &&
                 !memcmp(Q->colind, want->colind, (size_t)Q->nnz * 4) &&
                 (!maps || !memcmp(qsrc, src, (size_t)Q->nnz * sizeof *src)),
             "case %d, maps %d: the permuted pattern differs", c, maps);
      REQUIRE_OK(em_blockmat_from_csr(W2, 3, off, &B));
      REQUIRE_OK(em_blockmat_permute_csr_values(B, perm, 1, Q, qsrc));
      EXPECT(!memcmp(Q->val, want2->val, (size_t)Q->nnz * sizeof *Q->val),
             "case %d, maps %d: values through the pattern's map differ", c, maps);
      em_blockmat_destroy(&B);
      em_free(&qsrc);
      em_csr_destroy(&Q);
      em_free(&src);
      em_csr_destroy(&A);
    }
    em_csr_destroy(&want);
    em_csr_destroy(&want2);
    em_csr_destroy(&W);
    em_csr_destroy(&W2);
  }
}

static void test_check(void) {
  em_csr *A = random_csr(50000, 100);
  A->colind[A->rowptr[41000]] = 100; /* out of range, and an unsorted row earlier */
  int32_t r = 30000;
  while (A->rowptr[r + 1] - A->rowptr[r] < 2) r++;
  A->colind[A->rowptr[r]] = A->colind[A->rowptr[r] + 1];
  for (int t = 1; t <= 4; t *= 2) {
    omp_set_num_threads(t);
    EXPECT_ERR(em_csr_check(A, "test"), EM_ERR_INPUT);
    EXPECT_ERR(em_csr_check(A, "test"), EM_ERR_INPUT);
  }
  em_error_clear();
  em_err e = em_csr_check(A, "test");
  char want[64];
  snprintf(want, sizeof want, "row %d columns not sorted", r);
  EXPECT(e == EM_ERR_INPUT && strstr(em_error_message(), want), "message: %s (want '%s')",
         em_error_message(), want);
  em_error_clear();
  omp_set_num_threads(2);
  em_csr_destroy(&A);
}

int main(void) {
  test_sort();
  test_csr_permute();
  test_blockmat();
  test_permute_csr();
  test_check();
  return TEST_RESULT();
}
