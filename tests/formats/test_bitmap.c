/* The bitmap format: layout and memory count, SpMV against em_csr_spmv_ref
 * in both precisions (on the GPU with argument "gpu"), and on the CPU random
 * access, the element-wise sum, the product and the way back to CSR against
 * dense references, on matrices whose rows span several 64-column words,
 * with empty rows, 0x0 and rectangular shapes. */
#include "bitmap_impl.h"
#include "spmat_util.h"

static em_backend backend = EM_BACKEND_CPU;

static em_spmat *make(const em_csr *A, em_prec p, em_backend b) {
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_BITMAP;
  o.prec = p;
  o.backend = b;
  em_spmat *M = NULL;
  REQUIRE_OK(em_spmat_create(A, &o, &M));
  return M;
}

/* Dense copy of a CSR, row-major. */
static em_cplx *dense(const em_csr *A) {
  em_cplx *D = calloc((size_t)A->n_rows * (size_t)A->n_cols + 1, sizeof *D);
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      D[(size_t)i * (size_t)A->n_cols + (size_t)A->colind[k]] = A->val[k];
  return D;
}

/* Words, masks and offsets against A, and the exact byte count. */
static void check_layout(const em_spmat *M, const em_csr *A, em_prec p) {
  const em_bitmap *bm = M->data;
  int64_t words = 0;
  int bad = 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    bad += bm->vptr[i] != A->rowptr[i] || bm->wptr[i] != words;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      if (k == A->rowptr[i] || A->colind[k] / 64 != A->colind[k - 1] / 64) {
        bad += bm->widx[words] != A->colind[k] / 64;
        uint64_t m = 0;
        for (int64_t q = k; q < A->rowptr[i + 1] && A->colind[q] / 64 == A->colind[k] / 64; q++)
          m |= 1ULL << (A->colind[q] % 64);
        bad += bm->mask[words] != m;
        words++;
      }
    }
  }
  EXPECT(bad == 0 && bm->n_words == words, "%d layout mismatches, %lld words (expected %lld)", bad,
         (long long)bm->n_words, (long long)words);
  size_t eb = 16 * ((size_t)A->n_rows + 1) + 12 * (size_t)words + (size_t)A->nnz * em_prec_size(p);
  EXPECT(M->info.bytes == eb, "bytes %zu, expected %zu", M->info.bytes, eb);
}

static void check_spmv(const char *name, const em_csr *A) {
  for (int p = 0; p < 2; p++) {
    em_spmat *M = make(A, (em_prec)p, backend);
    if (backend == EM_BACKEND_CPU) check_layout(M, A, (em_prec)p);
    double e = tu_check_spmat(M, A, 77);
    EXPECT(e <= tu_tol((em_prec)p), "%s %s: SpMV error %.3g", name, p ? "single" : "double", e);
    em_spmat_destroy(&M);
  }
}

/* Every a(i, j) through em_bitmap_get, and back to CSR unchanged. */
static void check_access(const char *name, const em_csr *A) {
  em_spmat *M = make(A, EM_PREC_DOUBLE, EM_BACKEND_CPU);
  em_cplx *D = dense(A);
  int bad = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int32_t j = 0; j < A->n_cols; j++) {
      em_cplx a = 1;
      EXPECT_OK(em_bitmap_get(M, i, j, &a));
      bad += a != D[(size_t)i * (size_t)A->n_cols + (size_t)j];
    }
  EXPECT(bad == 0, "%s: %d entries read wrong", name, bad);
  em_csr *C = NULL;
  EXPECT_OK(em_bitmap_to_csr(M, &C));
  if (C) {
    EXPECT_OK(em_csr_check(C, "bitmap to CSR"));
    int same = C->nnz == A->nnz &&
               !memcmp(C->rowptr, A->rowptr, sizeof *C->rowptr * ((size_t)A->n_rows + 1)) &&
               (A->nnz == 0 || (!memcmp(C->colind, A->colind, sizeof *C->colind * (size_t)A->nnz) &&
                                !memcmp(C->val, A->val, sizeof *C->val * (size_t)A->nnz)));
    EXPECT(same, "%s: CSR -> bitmap -> CSR changed the matrix", name);
  }
  em_csr_destroy(&C);
  free(D);
  em_spmat_destroy(&M);
}

/* max |C - R| / (max scale), R and scale dense references. */
static double dense_err(const em_spmat *Cm, const em_cplx *R, const double *scale, int32_t nr,
                        int32_t nc) {
  em_csr *C = NULL;
  EXPECT_OK(em_bitmap_to_csr(Cm, &C));
  if (!C) return INFINITY;
  em_cplx *D = dense(C);
  double worst = 0;
  for (size_t k = 0; k < (size_t)nr * (size_t)nc; k++) {
    double e = cabs(D[k] - R[k]);
    if (isnan(e)) return INFINITY;
    if (e > 0) e = scale[k] > 0 ? e / scale[k] : INFINITY;
    if (e > worst) worst = e;
  }
  free(D);
  em_csr_destroy(&C);
  return worst;
}

/* A computed bitmap is a well-formed one: its CSR is valid, its layout and
 * byte count match that CSR, its SpMV agrees with it. */
static void check_result(const char *name, const char *what, const em_spmat *Cm, em_prec p) {
  em_csr *C = NULL;
  EXPECT_OK(em_bitmap_to_csr(Cm, &C));
  if (!C) return;
  EXPECT_OK(em_csr_check(C, what));
  check_layout(Cm, C, p);
  double e = tu_check_spmat(Cm, C, 5);
  EXPECT(e <= tu_tol(p), "%s: SpMV of %s error %.3g", name, what, e);
  em_csr_destroy(&C);
}

/* Stored entries of a product: (i, j) with some k where a_ik and b_kj are
 * both stored.  Counted densely for the pattern check. */
static int64_t product_pattern(const em_csr *A, const em_csr *B) {
  int64_t n = 0;
  char *hit = calloc((size_t)B->n_cols + 1, 1);
  for (int32_t i = 0; i < A->n_rows; i++) {
    memset(hit, 0, (size_t)B->n_cols);
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      for (int64_t q = B->rowptr[A->colind[k]]; q < B->rowptr[A->colind[k] + 1]; q++)
        if (!hit[B->colind[q]]) hit[B->colind[q]] = 1, n++;
  }
  free(hit);
  return n;
}

static em_csr *rounded(const em_csr *A, em_prec p) {
  em_csr *C = NULL;
  REQUIRE_OK(em_csr_copy(A, &C));
  tu_round(C->val, (size_t)C->nnz, p);
  return C;
}

/* C = A + B and C = A B against dense sums and products. */
static void check_algebra(const char *name, const em_csr *A0, const em_csr *B0, const em_csr *P0,
                          em_prec p) {
  double tol = tu_tol(p);
  em_csr *A = rounded(A0, p), *B = rounded(B0, p), *P = rounded(P0, p);
  em_spmat *Am = make(A, p, EM_BACKEND_CPU), *Bm = make(B, p, EM_BACKEND_CPU),
           *Pm = make(P, p, EM_BACKEND_CPU), *Cm = NULL;
  int32_t n = A->n_rows, m = A->n_cols, q = P->n_cols;
  em_cplx *Da = dense(A), *Db = dense(B), *Dp = dense(P);
  em_cplx *R = calloc((size_t)n * (size_t)(m > q ? m : q) + 1, sizeof *R);
  double *S = calloc((size_t)n * (size_t)(m > q ? m : q) + 1, sizeof *S);

  for (size_t k = 0; k < (size_t)n * (size_t)m; k++)
    R[k] = Da[k] + Db[k], S[k] = cabs(Da[k]) + cabs(Db[k]);
  EXPECT_OK(em_bitmap_add(Am, Bm, &Cm));
  if (Cm) {
    double e = dense_err(Cm, R, S, n, m);
    EXPECT(e <= tol, "%s %s: A + B error %.3g", name, p ? "single" : "double", e);
    /* the pattern is the union: count it */
    int64_t u = 0;
    for (size_t k = 0; k < (size_t)n * (size_t)m; k++) u += Da[k] != 0 || Db[k] != 0;
    EXPECT(Cm->info.nnz == u, "%s: A + B stores %lld, union has %lld", name,
           (long long)Cm->info.nnz, (long long)u);
    EXPECT(Cm->info.prec == p && Cm->info.format == EM_FMT_BITMAP, "%s: A + B info", name);
    check_result(name, "A + B", Cm, p);
  }
  em_spmat_destroy(&Cm);

  memset(R, 0, sizeof *R * (size_t)n * (size_t)q);
  memset(S, 0, sizeof *S * (size_t)n * (size_t)q);
  for (int32_t i = 0; i < n; i++)
    for (int32_t k = 0; k < m; k++) {
      em_cplx a = Da[(size_t)i * m + k];
      if (a == 0) continue;
      for (int32_t j = 0; j < q; j++) {
        R[(size_t)i * q + j] += a * Dp[(size_t)k * q + j];
        S[(size_t)i * q + j] += cabs(a) * cabs(Dp[(size_t)k * q + j]);
      }
    }
  EXPECT_OK(em_bitmap_mul(Am, Pm, &Cm));
  if (Cm) {
    double e = dense_err(Cm, R, S, n, q);
    EXPECT(e <= tol, "%s %s: A B error %.3g", name, p ? "single" : "double", e);
    int64_t np = product_pattern(A, P);
    EXPECT(Cm->info.nnz == np, "%s: A B stores %lld, pattern has %lld", name,
           (long long)Cm->info.nnz, (long long)np);
    check_result(name, "A B", Cm, p);
  }
  em_spmat_destroy(&Cm);
  free(Da), free(Db), free(Dp), free(R), free(S);
  em_spmat_destroy(&Am), em_spmat_destroy(&Bm), em_spmat_destroy(&Pm);
  em_csr_destroy(&A), em_csr_destroy(&B), em_csr_destroy(&P);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "gpu")) {
    if (!tu_gpu_available()) return EM_TEST_SKIP;
    backend = EM_BACKEND_CUDA;
  }
  struct {
    const char *name;
    int32_t nr, nc;
    int maxlen, empty;
    int32_t long_row, long_len;
  } cases[] = {
      {"0x0", 0, 0, 0, 0, -1, 0},
      {"1x1", 1, 1, 1, 0, 0, 1},
      {"1x1 empty", 1, 1, 0, 0, -1, 0},
      {"97x300", 97, 300, 60, 5, 3, 300},
      {"300x97", 300, 97, 20, 4, -1, 0},
      {"1x640", 1, 640, 640, 0, 0, 640},
      {"513x513", 513, 513, 90, 11, 500, 513},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    em_csr *A = tu_rand_csr(cases[c].nr, cases[c].nc, cases[c].maxlen, cases[c].empty,
                            cases[c].long_row, cases[c].long_len, 10 + c);
    check_spmv(cases[c].name, A);
    if (backend == EM_BACKEND_CPU) check_access(cases[c].name, A);
    em_csr_destroy(&A);
  }
  em_csr *A = tu_rand_csr(1237, 6011, 30, 7, 611, 5000, 3);
  check_spmv("1237x6011, row of 5000", A);
  em_csr_destroy(&A);
  em_blockmat *F = NULL;
  tu_fem_blockmat(2, 3, 6, &F);
  for (int i = 0; i < F->nb; i++)
    for (int j = 0; j < F->nb; j++) check_spmv("FEM order 3 block", F->blk[i][j]);
  em_blockmat_destroy(&F);

  if (backend == EM_BACKEND_CPU) {
    for (int p = 0; p < 2; p++) {
      struct {
        int32_t n, m, q;
      } shapes[] = {{0, 0, 0}, {1, 1, 1}, {70, 200, 130}, {150, 150, 150}, {5, 300, 1}};
      for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int32_t n = shapes[s].n, m = shapes[s].m, q = shapes[s].q;
        em_csr *X = tu_rand_csr(n, m, m / 4 + 1, 6, n / 2, m, 20 + s);
        em_csr *Y = tu_rand_csr(n, m, m / 3 + 1, 5, -1, 0, 30 + s);
        em_csr *Z = tu_rand_csr(m, q, q / 5 + 1, 4, m / 3, q, 40 + s);
        char name[64];
        snprintf(name, sizeof name, "%dx%d * %dx%d", n, m, m, q);
        check_algebra(name, X, Y, Z, (em_prec)p);
        check_algebra("A + A", X, X, Z, (em_prec)p);
        em_csr_destroy(&X), em_csr_destroy(&Y), em_csr_destroy(&Z);
      }
    }
  }

  /* refusals, each naming the culprit */
  A = tu_rand_csr(20, 130, 10, 0, -1, 0, 50);
  em_csr *W = tu_rand_csr(21, 130, 10, 0, -1, 0, 51);
  em_spmat *M = make(A, EM_PREC_DOUBLE, EM_BACKEND_CPU),
           *N = make(W, EM_PREC_DOUBLE, EM_BACKEND_CPU);
  em_spmat *Ms = make(A, EM_PREC_SINGLE, EM_BACKEND_CPU), *C = NULL;
  em_cplx a;
  EXPECT_ERR(em_bitmap_get(M, 20, 0, &a), EM_ERR_ARG);
  EXPECT_ERR(em_bitmap_get(M, 0, -1, &a), EM_ERR_ARG);
  EXPECT_ERR(em_bitmap_get(M, 0, 130, &a), EM_ERR_ARG);
  EXPECT_ERR(em_bitmap_add(M, N, &C), EM_ERR_ARG);
  EXPECT_ERR(em_bitmap_add(M, Ms, &C), EM_ERR_ARG);
  EXPECT_ERR(em_bitmap_mul(M, N, &C), EM_ERR_ARG);
  EXPECT(C == NULL, "no result after an error");
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_HYB;
  em_spmat *H = NULL;
  REQUIRE_OK(em_spmat_create(A, &o, &H));
  EXPECT_ERR(em_bitmap_get(H, 0, 0, &a), EM_ERR_ARG);
  em_csr *back = NULL;
  EXPECT_ERR(em_bitmap_to_csr(H, &back), EM_ERR_ARG);
  if (backend == EM_BACKEND_CUDA) {
    em_spmat *G = make(A, EM_PREC_DOUBLE, EM_BACKEND_CUDA);
    EXPECT_ERR(em_bitmap_get(G, 0, 0, &a), EM_ERR_UNSUPPORTED);
    em_spmat_destroy(&G);
  }
  A->colind[1] = A->colind[0]; /* a repeated column cannot be a bitmap */
  o.format = EM_FMT_BITMAP;
  em_spmat *R = NULL;
  if (A->rowptr[1] >= 2) EXPECT_ERR(em_spmat_create(A, &o, &R), EM_ERR_ARG);
  em_spmat_destroy(&H), em_spmat_destroy(&M), em_spmat_destroy(&N), em_spmat_destroy(&Ms);
  em_csr_destroy(&A), em_csr_destroy(&W);
  return TEST_RESULT();
}
