/* Sliced ELLR-T against the reference (every T, several slice heights, rows
 * as given and sorted by em_sellrt_sort_perm), the sort permutation itself,
 * and the automatic choice (em_fmt_choose through EM_FMT_AUTO).
 * Argument: cpu (default) or gpu (77 when no GPU answers). */
#include "formats_impl.h" /* em_fmt_choose */
#include "spmat_check.h"

/* Rows sorted by em_sellrt_sort_perm (columns too when square: symmetric). */
static em_csr *sorted_copy(const em_csr *A) {
  int32_t *perm = calloc((size_t)A->n_rows + 1, sizeof *perm);
  REQUIRE_OK(em_sellrt_sort_perm(A, perm));
  em_csr *B = NULL;
  REQUIRE_OK(em_csr_permute(A, perm, A->n_rows == A->n_cols ? perm : NULL, &B));
  free(perm);
  return B;
}

/* perm is a bijection, lengths never grow along the new order, and rows of
 * equal length keep their relative order. */
static void check_sort_perm(const em_csr *A, const char *name) {
  int32_t n = A->n_rows;
  int32_t *perm = calloc((size_t)n + 1, sizeof *perm), *inv = calloc((size_t)n + 1, sizeof *inv);
  for (int32_t i = 0; i < n; i++) inv[i] = -1;
  EXPECT_OK(em_sellrt_sort_perm(A, perm));
  int ok = 1;
  for (int32_t i = 0; i < n && ok; i++) {
    ok = perm[i] >= 0 && perm[i] < n && inv[perm[i]] < 0;
    if (ok) inv[perm[i]] = i;
  }
  EXPECT(ok, "%s: sort perm is not a permutation", name);
  for (int32_t r = 1; r < n && ok; r++) {
    int64_t la = A->rowptr[inv[r - 1] + 1] - A->rowptr[inv[r - 1]];
    int64_t lb = A->rowptr[inv[r] + 1] - A->rowptr[inv[r]];
    EXPECT(la > lb || (la == lb && inv[r - 1] < inv[r]),
           "%s: new rows %d, %d out of order (lengths %lld, %lld; old %d, %d)", name, r - 1, r,
           (long long)la, (long long)lb, inv[r - 1], inv[r]);
    if (!(la > lb || (la == lb && inv[r - 1] < inv[r]))) break;
  }
  free(perm);
  free(inv);
}

/* Every T at the default slice height; other heights (1, not a multiple
 * of 32 / T, larger than a warp) with T from the rule and one fixed T. */
static void check_sliced(const em_csr *A, em_backend b, const char *name, int heights) {
  for (int T = 1; T <= 32; T *= 2) check_both(A, b, EM_FMT_SELLRT, T, 0, name);
  if (!heights) return;
  check_both(A, b, EM_FMT_SELLRT, 0, 0, name);
  check_both(A, b, EM_FMT_SELLRT, 1, 1, name);
  check_both(A, b, EM_FMT_SELLRT, 4, 7, name);
  check_both(A, b, EM_FMT_SELLRT, 32, 64, name);
}

/* Padding of sliced ELLR-T never grows when the rows are sorted. */
static void check_sort_pads_less(const em_csr *A, const em_csr *As, const char *name) {
  for (int T = 1; T <= 32; T *= 2) {
    int64_t st, ss;
    size_t by;
    t_expected(A, EM_FMT_SELLRT, T, 32, EM_PREC_DOUBLE, &st, &by);
    t_expected(As, EM_FMT_SELLRT, T, 32, EM_PREC_DOUBLE, &ss, &by);
    EXPECT(ss <= st, "%s: sorted rows pad more (%lld > %lld slots, T=%d)", name, (long long)ss,
           (long long)st, T);
  }
}

static em_format auto_format(const em_csr *A, em_backend b, int *T) {
  em_spmat_opts o, c;
  em_spmat_opts_default(&o);
  o.backend = b;
  em_fmt_choose(A, &o, &c);
  *T = c.threads_per_row;
  return c.format;
}

/* Rows alternating between length 1 and 200: fine once sorted, but
 * every slice of the given order is 200 wide. */
static em_csr *alternating(void) {
  int32_t n = 640;
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(n, n, (int64_t)320 * 201, &A));
  int64_t p = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t len = i % 2 ? 200 : 1;
    for (int32_t k = 0; k < len; k++, p++) {
      A->colind[p] = 3 * k;
      A->val[p] = 1;
    }
    A->rowptr[i + 1] = p;
  }
  REQUIRE_OK(em_csr_check(A, "alternating"));
  return A;
}

static void check_choice(tcase *c, int n) {
  int T;
  for (int i = 0; i < n; i++) {
    EXPECT(auto_format(c[i].A, EM_BACKEND_CPU, &T) == EM_FMT_CSR, "%s: CPU choice not CSR",
           c[i].name);
    em_format f = auto_format(c[i].A, EM_BACKEND_CUDA, &T);
    if (c[i].A->nnz == 0) EXPECT(f == EM_FMT_CSR, "%s: empty matrix not CSR", c[i].name);
    if (!strncmp(c[i].name, "FEM", 3)) {
      /* sorted by length, an FEM matrix pads < 5% at T = 1: sliced ELLR-T,
       * with at least 16 slots per thread on the mean row */
      double mean = (double)c[i].A->nnz / c[i].A->n_rows;
      em_csr *As = sorted_copy(c[i].A);
      f = auto_format(As, EM_BACKEND_CUDA, &T);
      EXPECT(f == EM_FMT_SELLRT && T >= 1 && 16 * T <= (mean > 16 ? mean : 16),
             "%s, sorted: GPU choice %s T=%d for mean row %.1f", c[i].name, em_format_name(f), T,
             mean);
      em_csr_destroy(&As);
    }
    if (!strcmp(c[i].name, "100x6000 long row"))
      EXPECT(f == EM_FMT_CSR_VECTOR, "%s: one 5000-entry row among short ones chose %s", c[i].name,
             em_format_name(f));
  }
  em_csr *A = alternating();
  em_format f = auto_format(A, EM_BACKEND_CUDA, &T);
  EXPECT(f == EM_FMT_CSR_VECTOR && T == 32, "alternating rows (unsorted) chose %s T=%d",
         em_format_name(f), T);
  em_csr *As = sorted_copy(A);
  f = auto_format(As, EM_BACKEND_CUDA, &T);
  EXPECT(f == EM_FMT_SELLRT, "alternating rows, sorted, chose %s", em_format_name(f));
  em_csr_destroy(&A);
  em_csr_destroy(&As);
  /* AUTO through the front end on the CPU */
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  em_spmat *M = NULL;
  EXPECT_OK(em_spmat_create(c[n - 1].A, &o, &M));
  em_spmat_info info;
  if (M) {
    em_spmat_get_info(M, &info);
    EXPECT(info.format == EM_FMT_CSR, "AUTO on the CPU built %s", em_format_name(info.format));
  }
  em_spmat_destroy(&M);
}

int main(int argc, char **argv) {
  em_backend b = test_backend(argc, argv);
  tcase c[32];
  int n = suite_build(c, 1);
  for (int i = 0; i < n; i++) {
    char name[96];
    check_sort_perm(c[i].A, c[i].name);
    check_sliced(c[i].A, b, c[i].name, 1);
    em_csr *As = sorted_copy(c[i].A);
    snprintf(name, sizeof name, "%.60s, sorted", c[i].name);
    check_sliced(As, b, name, 0);
    check_sort_pads_less(c[i].A, As, c[i].name);
    em_csr_destroy(&As);
  }
  if (b == EM_BACKEND_CPU) check_choice(c, n);
  suite_free(c, n);
  return TEST_RESULT();
}
