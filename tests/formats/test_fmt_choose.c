/* The automatic format choice (em_fmt_choose, formats/choose.c) on
 * matrices built to trigger each step of the GPU rule, on both sides of
 * each threshold: HYB for a long tail of row lengths, the bitmap for dense
 * 64-column words, sliced ELLR-T for an FEM pattern; CSR on the CPU for
 * all of them.  The rule's numbers and the SpMV measurements behind them:
 * docs/formats.md ("Choosing a format"). */
#include "em_test.h"
#include "fem_pattern.h"
#include "formats_impl.h" /* em_fmt_choose and its thresholds */
#include "shape_pattern.h"

static em_format choice(const em_csr *A, em_backend b) {
  em_spmat_opts o, c;
  em_spmat_opts_default(&o);
  o.backend = b;
  em_fmt_choose(A, &o, &c);
  return c.format;
}

/* A chooses `want` on the GPU, CSR on the CPU, and the block operator's
 * planner sorts it for sliced ELLR-T exactly when that is the choice. */
static void expect_choice(const em_csr *A, em_format want, const char *what) {
  em_format f = choice(A, EM_BACKEND_CUDA);
  EXPECT(f == want, "%s: chose %s, expected %s", what, em_format_name(f), em_format_name(want));
  f = choice(A, EM_BACKEND_CPU);
  EXPECT(f == EM_FMT_CSR, "%s: chose %s on the CPU", what, em_format_name(f));
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.backend = EM_BACKEND_CUDA;
  int sliced = em_fmt_choose_sliced_sorted(A, &o);
  EXPECT(sliced == (want == EM_FMT_SELLRT), "%s: planner says sliced %d for %s", what, sliced,
         em_format_name(want));
}

/* The mean row of A. */
static double mean_row(const em_csr *A) {
  return A->n_rows ? (double)A->nnz / A->n_rows : 0;
}

/* HYB: an FEM pattern (sorted, so sliced ELLR-T without the tail) with
 * a few long rows: at the thresholds and one entry short of each. */
static void check_tail(void) {
  em_csr *F = NULL, *L = NULL;
  int32_t *perm = NULL;
  REQUIRE_OK(em_fem_pattern_box(4, 3, 1, &F, NULL)); /* 7k rows, mean ~70 */
  REQUIRE_OK(em_calloc(&perm, (size_t)F->n_rows, sizeof *perm, "perm"));
  REQUIRE_OK(em_sellrt_sort_perm(F, perm));
  em_csr *Fs = NULL;
  REQUIRE_OK(em_csr_permute(F, perm, perm, &Fs));
  expect_choice(Fs, EM_FMT_SELLRT, "FEM order 3, sorted");
  /* one long row of EM_CHOOSE_TAIL_MIN entries: ratio far above the bound */
  REQUIRE_OK(em_pattern_long_rows(Fs, 1, EM_CHOOSE_TAIL_MIN, 1, &L));
  expect_choice(L, EM_FMT_HYB, "FEM + 1 row at the tail minimum");
  em_csr_destroy(&L);
  REQUIRE_OK(em_pattern_long_rows(Fs, 1, EM_CHOOSE_TAIL_MIN - 1, 1, &L));
  EXPECT(choice(L, EM_BACKEND_CUDA) != EM_FMT_HYB, "FEM + 1 row one short of the minimum: HYB");
  em_csr_destroy(&L);
  /* rows long enough, but so many that the mean row is within the ratio:
   * m rows of len with len = ratio * mean exactly, then len - 1 */
  int32_t n = Fs->n_rows, len = 4096, m = 0;
  for (int32_t k = 1; k < n; k++) { /* smallest m with len < ratio * mean */
    double mean = ((double)Fs->nnz * (n - k) / n + (double)k * len) / n;
    if (len < EM_CHOOSE_TAIL_RATIO * mean) {
      m = k;
      break;
    }
  }
  REQUIRE_OK(em_pattern_long_rows(Fs, m, len, 1, &L));
  EXPECT(len < EM_CHOOSE_TAIL_RATIO * mean_row(L) && choice(L, EM_BACKEND_CUDA) != EM_FMT_HYB,
         "%d rows of %d (max / mean %.1f): HYB", m, len, len / mean_row(L));
  em_csr_destroy(&L);
  REQUIRE_OK(em_pattern_long_rows(Fs, m / 2, len, 1, &L));
  EXPECT(len >= EM_CHOOSE_TAIL_RATIO * mean_row(L), "%d rows of %d: max / mean %.1f", m / 2, len,
         len / mean_row(L));
  expect_choice(L, EM_FMT_HYB, "FEM + many long rows within the ratio");
  em_csr_destroy(&L);
  em_csr_destroy(&Fs);
  em_csr_destroy(&F);
  em_free(&perm);
}

/* Bitmap: rows of 128 entries in words of `fill` bits; dense words at and
 * above EM_CHOOSE_BITMAP_FILL, not below.  An FEM pattern never is. */
static void check_blocks(void) {
  for (int fill = 1; fill <= 64; fill *= 2) {
    em_csr *B = NULL;
    char what[64];
    REQUIRE_OK(em_pattern_blocks(8192, fill, 128, 1, &B));
    snprintf(what, sizeof what, "rows of 128 in words of %d", fill);
    em_format f = choice(B, EM_BACKEND_CUDA);
    if (fill >= EM_CHOOSE_BITMAP_FILL)
      expect_choice(B, EM_FMT_BITMAP, what);
    else
      EXPECT(f != EM_FMT_BITMAP, "%s: chose the bitmap", what);
    em_csr_destroy(&B);
  }
  for (int order = 1; order <= 3; order++) {
    em_csr *F = NULL;
    REQUIRE_OK(em_fem_pattern_box(4, order, 1, &F, NULL));
    em_format f = choice(F, EM_BACKEND_CUDA);
    EXPECT(f != EM_FMT_BITMAP && f != EM_FMT_HYB, "FEM order %d chose %s", order,
           em_format_name(f));
    em_csr_destroy(&F);
  }
}

int main(void) {
  check_tail();
  check_blocks();
  return TEST_RESULT();
}
