/* Bitmap random access, sum and product on the GPU against the CPU
 * versions (formats/bitmap_ops.c, bitmap.c): word layouts equal, sum values
 * equal bit for bit, product values to a few ulps (the GPU fuses multiply
 * and add); complex double and single; shapes 1x1, 31x33, 32x32, 33x31,
 * empty rows, a row spanning 2^20 + 1 columns, 1000 x 1000 at two
 * densities.  Exits 77 without a GPU. */
#include <complex.h>
#include <string.h>

#include "bitmap_gpu.h"
#include "em_formats.h"
#include "em_test.h"
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#ifdef EM_HAVE_CUDA
/* rows x cols, each entry stored with probability dens (row r % 7 == 3
 * empty), values random complex */
static em_csr *random_csr(int32_t rows, int32_t cols, double dens, unsigned long long seed) {
  int64_t cap = (int64_t)((double)rows * cols * dens * 1.2) + rows + 16;
  int32_t *ci = malloc((size_t)cap * sizeof *ci);
  int64_t *rp = calloc((size_t)rows + 1, sizeof *rp), nnz = 0;
  for (int32_t i = 0; i < rows; i++) {
    for (int32_t j = 0; j < cols && nnz < cap; j++)
      if (i % 7 != 3 && em_test_rand(&seed) < dens) ci[nnz++] = j;
    rp[i + 1] = nnz;
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(rows, cols, nnz, &A));
  memcpy(A->rowptr, rp, ((size_t)rows + 1) * sizeof *rp);
  memcpy(A->colind, ci, (size_t)nnz * sizeof *ci);
  for (int64_t k = 0; k < nnz; k++)
    A->val[k] = (em_test_rand(&seed) - 0.5) + I * (em_test_rand(&seed) - 0.5);
  free(ci);
  free(rp);
  return A;
}

static em_spmat *bitmap(const em_csr *A, em_prec p) {
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_BITMAP;
  o.prec = p;
  o.backend = EM_BACKEND_CPU;
  em_spmat *M = NULL;
  REQUIRE_OK(em_spmat_create(A, &o, &M));
  return M;
}

/* same words; values equal within tol * max |value| */
static void compare(const char *what, const em_spmat *X, const em_spmat *Y, em_prec p, double tol) {
  const em_bitmap *x = X->data, *y = Y->data;
  int bad = x->n_rows != y->n_rows || x->n_words != y->n_words || x->nnz != y->nnz;
  if (!bad) {
    bad += memcmp(x->wptr, y->wptr, ((size_t)x->n_rows + 1) * 8) != 0;
    bad += memcmp(x->vptr, y->vptr, ((size_t)x->n_rows + 1) * 8) != 0;
    bad += memcmp(x->widx, y->widx, (size_t)x->n_words * 4) != 0;
    bad += memcmp(x->mask, y->mask, (size_t)x->n_words * 8) != 0;
  }
  double e = 0, s = 0;
  for (int64_t k = 0; !bad && k < x->nnz; k++) {
    em_cplx a = p ? ((const em_cplxf *)x->val)[k] : ((const em_cplx *)x->val)[k];
    em_cplx b = p ? ((const em_cplxf *)y->val)[k] : ((const em_cplx *)y->val)[k];
    e = fmax(e, cabs(a - b));
    s = fmax(s, cabs(b));
  }
  EXPECT(!bad && e <= tol * s, "%s %s: layout %s, value error %.3g of %.3g", what,
         p ? "single" : "double", bad ? "differs" : "equal", e, s);
}

static void check(const char *name, const em_csr *A, const em_csr *B, const em_csr *Bm) {
  for (int p = 0; p < 2; p++) {
    em_spmat *MA = bitmap(A, (em_prec)p), *MB = bitmap(B, (em_prec)p),
             *MBm = bitmap(Bm, (em_prec)p);
    em_spmat *Cc = NULL, *Cg = NULL;
    /* random access: every stored entry, and as many unstored places */
    int64_t n = 2 * A->nnz + 2;
    int32_t *qi = malloc((size_t)n * 4), *qj = malloc((size_t)n * 4);
    em_cplx *ag = malloc((size_t)n * sizeof *ag);
    unsigned long long seed = 5;
    int64_t q = 0;
    for (int32_t i = 0; i < A->n_rows; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) qi[q] = i, qj[q++] = A->colind[k];
    while (q < n) {
      qi[q] = (int32_t)(em_test_rand(&seed) * A->n_rows);
      qj[q++] = (int32_t)(em_test_rand(&seed) * A->n_cols);
    }
    double ms = 0;
    EXPECT_OK(em_bitmap_get_cuda(MA, n, qi, qj, ag, &ms));
    int bad = 0;
    for (q = 0; q < n; q++) {
      em_cplx ac = 0;
      REQUIRE_OK(em_bitmap_get(MA, qi[q], qj[q], &ac));
      bad += ac != ag[q];
    }
    EXPECT(bad == 0, "%s %s: %d of %lld GPU reads differ", name, p ? "single" : "double", bad,
           (long long)n);
    REQUIRE_OK(em_bitmap_add(MA, MB, &Cc));
    EXPECT_OK(em_bitmap_add_cuda(MA, MB, &Cg, &ms));
    if (Cg) compare(name, Cg, Cc, (em_prec)p, 0);
    em_spmat_destroy(&Cc);
    em_spmat_destroy(&Cg);
    REQUIRE_OK(em_bitmap_mul(MA, MBm, &Cc));
    EXPECT_OK(em_bitmap_mul_cuda(MA, MBm, &Cg, &ms));
    if (Cg) compare(name, Cg, Cc, (em_prec)p, p ? 1e-5 : 1e-13);
    em_spmat_destroy(&Cc);
    em_spmat_destroy(&Cg);
    em_spmat_destroy(&MA);
    em_spmat_destroy(&MB);
    em_spmat_destroy(&MBm);
    free(qi);
    free(qj);
    free(ag);
  }
}

int main(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "skipped: no GPU\n");
    return EM_TEST_SKIP;
  }
  const int32_t shape[][3] = {{1, 1, 1},    {31, 33, 40},     {32, 32, 32},
                              {33, 31, 29}, {200, 1000, 300}, {1000, 1000, 1000}};
  /* EM_TEST_SMALL (under compute-sanitizer): the small shapes only */
  const int small = getenv("EM_TEST_SMALL") != NULL;
  for (size_t s = 0; s < sizeof shape / sizeof *shape - (small ? 2 : 0); s++) {
    const int32_t r = shape[s][0], c = shape[s][1], c2 = shape[s][2];
    for (int d = 0; d < 2; d++) {
      double dens = d ? 0.3 : 0.02;
      em_csr *A = random_csr(r, c, dens, 11 + s), *B = random_csr(r, c, dens, 12 + s),
             *Bm = random_csr(c, c2, dens, 13 + s);
      char name[64];
      snprintf(name, sizeof name, "%dx%d density %.2f", r, c, dens);
      check(name, A, B, Bm);
      em_csr_destroy(&A);
      em_csr_destroy(&B);
      em_csr_destroy(&Bm);
    }
  }
  if (small) return TEST_RESULT();
  /* one row across 2^20 + 1 columns, times a (2^20 + 1) x 33 matrix */
  em_csr *A = random_csr(2, (1 << 20) + 1, 0.01, 21), *B = random_csr(2, (1 << 20) + 1, 0.01, 22),
         *Bm = random_csr((1 << 20) + 1, 33, 0.05, 23);
  check("wide row", A, B, Bm);
  em_csr_destroy(&A);
  em_csr_destroy(&B);
  em_csr_destroy(&Bm);
  return TEST_RESULT();
}
#else
int main(void) {
  (void)em_test_failures_;
  fprintf(stderr, "skipped: built without CUDA\n");
  return EM_TEST_SKIP;
}
#endif
