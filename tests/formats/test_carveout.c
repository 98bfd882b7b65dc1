/* The L1 / shared-memory carveout of the ELL-family SpMV kernels
 * (em_spmat_cuda_carveout, seed 002).  cpu: the refusals (format, T,
 * percent) that need no GPU, named in the message.  gpu: every carveout
 * (driver default, 0, 25, 50, 100) on every T of sliced ELLR-T and ELLR-T
 * (and ELL's T = 1) in both precisions: accepted, and the SpMV afterwards
 * equals the one under the driver's default bit for bit and the CPU
 * reference within 1e-13 / 1e-5 (a 1000-row matrix with empty rows and one
 * row of 700 entries: sizes off the multiples of 16 and 32). */
#include "spmat_util.h"

static void refusals(void) {
  EXPECT_ERR(em_spmat_cuda_carveout(EM_FMT_CSR, EM_PREC_DOUBLE, 1, 0), EM_ERR_UNSUPPORTED);
  EXPECT_ERR(em_spmat_cuda_carveout(EM_FMT_HEC, EM_PREC_SINGLE, 1, 0), EM_ERR_UNSUPPORTED);
  EXPECT_ERR(em_spmat_cuda_carveout(EM_FMT_SELLRT, EM_PREC_DOUBLE, 3, 0), EM_ERR_ARG);
  EXPECT_ERR(em_spmat_cuda_carveout(EM_FMT_SELLRT, EM_PREC_DOUBLE, 64, 0), EM_ERR_ARG);
  EXPECT_ERR(em_spmat_cuda_carveout(EM_FMT_ELL, EM_PREC_DOUBLE, 2, 0), EM_ERR_ARG);
  EXPECT_ERR(em_spmat_cuda_carveout(EM_FMT_SELLRT, EM_PREC_DOUBLE, 4, 101), EM_ERR_ARG);
  EXPECT_ERR(em_spmat_cuda_carveout(EM_FMT_SELLRT, EM_PREC_DOUBLE, 4, -2), EM_ERR_ARG);
  em_err e = em_spmat_cuda_carveout(EM_FMT_SELLRT, EM_PREC_DOUBLE, 4, 101);
  EXPECT(strstr(em_error_message(), "101") != NULL, "message names the percent: %s",
         em_error_message());
  em_error_clear();
  (void)e;
  if (!em_cuda_built())
    EXPECT_ERR(em_spmat_cuda_carveout(EM_FMT_SELLRT, EM_PREC_DOUBLE, 4, 0), EM_ERR_UNSUPPORTED);
}

#ifdef EM_HAVE_CUDA
static void on_gpu(void) {
  em_csr *A = tu_rand_csr(1000, 1000, 40, 7, 500, 700, 3);
  const int pct[] = {-1, 0, 25, 50, 100};
  const em_format fmts[] = {EM_FMT_SELLRT, EM_FMT_ELLRT, EM_FMT_ELL};
  for (int pi = 0; pi < 2; pi++) {
    em_prec p = pi ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
    em_cplx *x = calloc(1000, sizeof *x), *y0 = calloc(1000, sizeof *y0),
            *y = calloc(1000, sizeof *y);
    unsigned long long s = 11;
    for (int i = 0; i < 1000; i++) x[i] = tu_rand_cplx(&s);
    tu_round(x, 1000, p);
    for (int fi = 0; fi < 3; fi++)
      for (int T = 1; T <= 32; T *= 2) {
        if (fmts[fi] == EM_FMT_ELL && T > 1) break;
        em_spmat_opts o;
        em_spmat_opts_default(&o);
        o.format = fmts[fi];
        o.backend = EM_BACKEND_CUDA;
        o.prec = p;
        o.threads_per_row = T;
        em_spmat *M = NULL;
        REQUIRE_OK(em_spmat_create(A, &o, &M));
        REQUIRE_OK(em_spmat_cuda_carveout(fmts[fi], p, T, -1));
        REQUIRE_OK(tu_spmv(M, x, NULL, y0));
        for (int k = 0; k < 5; k++) {
          EXPECT_OK(em_spmat_cuda_carveout(fmts[fi], p, T, pct[k]));
          EXPECT_OK(tu_spmv(M, x, NULL, y));
          EXPECT(!memcmp(y, y0, 1000 * sizeof *y), "%s T=%d %s carveout %d: differs from default",
                 em_format_name(fmts[fi]), T, pi ? "single" : "double", pct[k]);
          double e = tu_err(A, x, NULL, y);
          EXPECT(e <= tu_tol(p), "%s T=%d carveout %d: error %.2e", em_format_name(fmts[fi]), T,
                 pct[k], e);
        }
        EXPECT_OK(em_spmat_cuda_carveout(fmts[fi], p, T, -1));
        em_spmat_destroy(&M);
      }
    free(x);
    free(y0);
    free(y);
  }
  em_csr_destroy(&A);
}
#endif

int main(int argc, char **argv) {
  int gpu = argc > 1 && !strcmp(argv[1], "gpu");
  if (!gpu) {
    refusals();
    return TEST_RESULT();
  }
#ifdef EM_HAVE_CUDA
  if (!tu_gpu_available()) return EM_TEST_SKIP;
  refusals();
  on_gpu();
  return TEST_RESULT();
#else
  return EM_TEST_SKIP;
#endif
}
