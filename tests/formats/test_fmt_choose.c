/* The automatic format choice (em_fmt_choose, formats/choose.c) on
 * matrices built to trigger each step of the GPU rule, on both sides of
 * each threshold: a long tail of row lengths (CSR-vector, or HYB when the
 * longest row is long enough), no tail (sliced ELLR-T), and dense 64-column
 * blocks and FEM patterns, which never take HYB, HEC or the bitmap (the
 * SpMV bench measured them slower); CSR on the CPU for all of them.  The
 * numbers and the measurements behind them: docs/formats.md ("Choosing a
 * format"). */
#include "em_test.h"
#include "fem_pattern.h"
#include "formats_impl.h" /* em_fmt_choose and its thresholds */
#include "shape_pattern.h"

static em_format choice(const em_csr *A, em_backend b, int *T) {
  em_spmat_opts o, c;
  em_spmat_opts_default(&o);
  o.backend = b;
  em_fmt_choose(A, &o, &c);
  if (T) *T = c.threads_per_row;
  return c.format;
}

/* A chooses `want` on the GPU, CSR on the CPU, and the block operator's
 * planner sorts it for sliced ELLR-T exactly when that is the choice. */
static void expect_choice(const em_csr *A, em_format want, const char *what) {
  em_format f = choice(A, EM_BACKEND_CUDA, NULL);
  EXPECT(f == want, "%s: chose %s, expected %s", what, em_format_name(f), em_format_name(want));
  f = choice(A, EM_BACKEND_CPU, NULL);
  EXPECT(f == EM_FMT_CSR, "%s: chose %s on the CPU", what, em_format_name(f));
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.backend = EM_BACKEND_CUDA;
  int sliced = em_fmt_choose_sliced_sorted(A, &o);
  EXPECT(sliced == (want == EM_FMT_SELLRT), "%s: planner says sliced %d for %s", what, sliced,
         em_format_name(want));
}

static double mean_row(const em_csr *A) {
  return A->n_rows ? (double)A->nnz / A->n_rows : 0;
}

/* base with m rows of len: the choice expected */
static void expect_long(const em_csr *base, int32_t m, int32_t len, em_format want) {
  em_csr *L = NULL;
  char what[96];
  REQUIRE_OK(em_pattern_long_rows(base, m, len, 1, &L));
  snprintf(what, sizeof what, "%d rows of %d (max / mean %.1f)", m, len, len / mean_row(L));
  expect_choice(L, want, what);
  em_csr_destroy(&L);
}

/* 16384 rows of 48 (sliced ELLR-T: a long row pads its slice by < 10%;
 * CSR-vector T = 32) with a few long rows: at
 * each threshold and one entry short of it. */
static void check_tail(void) {
  em_csr *B = NULL;
  REQUIRE_OK(em_pattern_blocks(16384, 8, 48, 1, &B));
  expect_choice(B, EM_FMT_SELLRT, "rows of 48");
  int Tc = em_fmt_choose_threads(B, EM_FMT_CSR_VECTOR, EM_BACKEND_CUDA);
  EXPECT(Tc == 32, "rows of 48: CSR-vector T %d", Tc);
  int32_t hyb = EM_CHOOSE_HYB_STEPS * Tc;
  /* the tail starts at EM_CHOOSE_TAIL_MIN: CSR-vector below HYB's length */
  expect_long(B, 1, EM_CHOOSE_TAIL_MIN - 1, EM_FMT_SELLRT);
  expect_long(B, 1, EM_CHOOSE_TAIL_MIN, EM_FMT_CSR_VECTOR);
  expect_long(B, 1, hyb - 1, EM_FMT_CSR_VECTOR);
  expect_long(B, 1, hyb, EM_FMT_HYB);
  /* with an explicit T = 8 the warp takes 4 times the steps: HYB sooner */
  em_csr *L = NULL;
  REQUIRE_OK(em_pattern_long_rows(B, 1, EM_CHOOSE_HYB_STEPS * 8, 1, &L));
  em_spmat_opts o, c;
  em_spmat_opts_default(&o);
  o.backend = EM_BACKEND_CUDA;
  o.threads_per_row = 8;
  em_fmt_choose(L, &o, &c);
  EXPECT(c.format == EM_FMT_HYB, "T = 8, a row of %d: chose %s", EM_CHOOSE_HYB_STEPS * 8,
         em_format_name(c.format));
  em_csr_destroy(&L);
  /* rows long enough, but so many that the mean is within the ratio: the
   * smallest such m, and half of it */
  int32_t n = B->n_rows, len = hyb, m = 0;
  for (int32_t k = 1; k < n && !m; k++)
    if (len < EM_CHOOSE_TAIL_RATIO * (((double)B->nnz * (n - k) / n + (double)k * len) / n)) m = k;
  REQUIRE_OK(em_pattern_long_rows(B, m, len, 1, &L));
  EXPECT(len < EM_CHOOSE_TAIL_RATIO * mean_row(L), "%d rows of %d: max / mean %.1f", m, len,
         len / mean_row(L));
  EXPECT(choice(L, EM_BACKEND_CUDA, NULL) != EM_FMT_HYB, "%d rows of %d: HYB", m, len);
  em_csr_destroy(&L);
  expect_long(B, m / 2, len, EM_FMT_HYB);
  em_csr_destroy(&B);
}

/* Dense 64-column blocks (any fill) and FEM patterns: sliced ELLR-T once
 * sorted, never the bitmap, HEC or HYB. */
static void check_no_bitmap(void) {
  for (int fill = 1; fill <= 64; fill *= 2) {
    em_csr *B = NULL;
    char what[64];
    REQUIRE_OK(em_pattern_blocks(4096, fill, 64, 1, &B));
    snprintf(what, sizeof what, "rows of 64 in words of %d", fill);
    expect_choice(B, EM_FMT_SELLRT, what);
    em_csr_destroy(&B);
  }
  for (int order = 1; order <= 3; order++) {
    em_csr *F = NULL, *Fs = NULL;
    int32_t *perm = NULL;
    char what[64];
    REQUIRE_OK(em_fem_pattern_box(3, order, 1, &F, NULL));
    REQUIRE_OK(em_calloc(&perm, (size_t)F->n_rows, sizeof *perm, "perm"));
    REQUIRE_OK(em_sellrt_sort_perm(F, perm));
    REQUIRE_OK(em_csr_permute(F, perm, perm, &Fs));
    snprintf(what, sizeof what, "FEM order %d, sorted", order);
    expect_choice(Fs, EM_FMT_SELLRT, what);
    em_csr_destroy(&F);
    em_csr_destroy(&Fs);
    em_free(&perm);
  }
}

int main(void) {
  check_tail();
  check_no_bitmap();
  return TEST_RESULT();
}
