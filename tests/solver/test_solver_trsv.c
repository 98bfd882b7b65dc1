/* The level-scheduled triangular solves against a plain sequential solve on
 * awkward inputs: random symmetric, an arrow with one full first row and
 * column (one long U row, every L row depending on row 0), its mirror (one
 * long L row), a diagonal matrix (one level), a chain (one row per level),
 * sizes that are not multiples of 32, 1x1, 0x0.
 * cpu: the OpenMP solves with every segment split (all wide, all thin,
 *      the default) must equal the sequential solve of the same factors.
 * gpu: every GPU triangular solve (levels, sync-free, cuSPARSE) through the
 *      ILU(0) apply must equal the CPU apply (checked against the sequential
 *      solve in the cpu run), in both precisions.
 * Usage: test_solver_trsv cpu|gpu. */
#include "ilu_impl.h"
#include "solver_test.h"

/* y = U^-1 L^-1 y, one row after another, from the split factors */
static void sequential(const em_ilu0 *F, em_cplx *y) {
  int32_t n = F->n;
  const em_cplx *lv = F->lval, *uv = F->uval, *dinv = F->dinv;
  int32_t *t_of = calloc((size_t)n + 1, sizeof *t_of);
  for (int32_t t = 0; t < n; t++) t_of[F->urow[t]] = t;
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = F->lptr[i]; k < F->lptr[i + 1]; k++) y[i] -= lv[k] * y[F->lcol[k]];
  for (int32_t i = n - 1; i >= 0; i--) {
    int32_t t = t_of[i];
    for (int64_t k = F->uptr[t]; k < F->uptr[t + 1]; k++) y[i] -= uv[k] * y[F->ucol[k]];
    y[i] *= dinv[i];
  }
  free(t_of);
}

static void check_cpu(const char *name, const em_csr *A) {
  int32_t n = A->n_rows;
  em_ilu0 *F = NULL;
  REQUIRE_OK(em_ilu0_analyse(A, EM_ORDERING_NATURAL, 16, &F));
  REQUIRE_OK(em_ilu0_factorize(F));
  REQUIRE_OK(em_ilu0_split(F, EM_PREC_DOUBLE));
  em_cplx *r = calloc((size_t)n + 1, sizeof *r), *y = calloc((size_t)n + 1, sizeof *y);
  em_cplx *ys = calloc((size_t)n + 1, sizeof *ys);
  unsigned long long s = 3;
  for (int32_t i = 0; i < n; i++) r[i] = em_test_rand(&s) + I * em_test_rand(&s);
  memcpy(ys, r, (size_t)n * sizeof *r);
  sequential(F, ys);
  int32_t thin[3] = {0, 4, n};
  for (int c = 0; c < 3; c++) {
    em_seg *sl = NULL, *su = NULL;
    int nl = 0, nu = 0;
    REQUIRE_OK(em_levels_segments(&F->lev_l, thin[c], &sl, &nl));
    REQUIRE_OK(em_levels_segments(&F->lev_u, thin[c], &su, &nu));
    memcpy(y, r, (size_t)n * sizeof *r);
    em_trsv_lower_cpu(F, sl, nl, y);
    em_trsv_upper_cpu(F, su, nu, y);
    double e = test_rel_err(y, ys, n);
    EXPECT(e <= 1e-14, "%s (n = %d, %d + %d levels, thin <= %d): error %.2e", name, n,
           F->lev_l.n_levels, F->lev_u.n_levels, thin[c], e);
    em_free(&sl);
    em_free(&su);
  }
  em_ilu0_destroy(&F);
  free(r), free(y), free(ys);
}

static void check_gpu(const char *name, const em_csr *A) {
  int32_t n = A->n_rows;
  em_cplx *r = calloc((size_t)n + 1, sizeof *r), *z = calloc((size_t)n + 1, sizeof *z);
  em_cplx *zc = calloc((size_t)n + 1, sizeof *zc);
  unsigned long long s = 3;
  for (int32_t i = 0; i < n; i++) r[i] = em_test_rand(&s) + I * em_test_rand(&s);
  em_pc_trsv trsv[3];
  int nt = test_trsv_list(EM_BACKEND_CUDA, trsv);
  for (int p = 0; p < 2; p++) {
    em_pc_opts o;
    em_pc_opts_default(&o);
    o.type = EM_PC_ILU0;
    o.prec = p ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
    em_pc *pc = NULL;
    REQUIRE_OK(em_pc_create(A, &o, NULL, &pc));
    REQUIRE_OK(test_pc_apply_host(pc, EM_BACKEND_CPU, EM_PREC_DOUBLE, n, r, zc));
    em_pc_destroy(&pc);
    o.backend = EM_BACKEND_CUDA;
    for (int t = 0; t < nt; t++) {
      o.trsv = trsv[t];
      EXPECT_OK(em_pc_create(A, &o, NULL, &pc));
      if (!pc) continue;
      for (int rep = 0; rep < 3; rep++) { /* flags and tickets reset between applies */
        EXPECT_OK(test_pc_apply_host(pc, EM_BACKEND_CUDA, EM_PREC_DOUBLE, n, r, z));
        double e = test_rel_err(z, zc, n), tol = p ? 1e-5 : 1e-12;
        EXPECT(e <= tol, "%s (n = %d), %s, %s factors, apply %d: error %.2e", name, n,
               em_pc_trsv_name(o.trsv), p ? "single" : "double", rep, e);
      }
      em_pc_destroy(&pc);
    }
  }
  free(r), free(z), free(zc);
}

/* a matrix from triplets of a pattern rule */
static em_csr *pattern(int32_t n, int kind) {
  int64_t cap = 8 * (int64_t)n + 16, m = 0;
  int32_t *ti = calloc((size_t)cap, sizeof *ti), *tj = calloc((size_t)cap, sizeof *tj);
  em_cplx *tv = calloc((size_t)cap, sizeof *tv);
  for (int32_t i = 0; i < n; i++) {
    ti[m] = tj[m] = i, tv[m++] = 4.0 * n + i + I;
    int32_t hub = kind == 1 ? 0 : n - 1; /* arrow: row/column 0, or n-1 */
    if ((kind == 1 || kind == 2) && i != hub) {
      ti[m] = i, tj[m] = hub, tv[m++] = 0.5 - 0.25 * I;
      ti[m] = hub, tj[m] = i, tv[m++] = 0.5 - 0.25 * I;
    }
    if (kind == 3 && i > 0) { /* chain: one row per level */
      ti[m] = i, tj[m] = i - 1, tv[m++] = -1;
      ti[m] = i - 1, tj[m] = i, tv[m++] = -1;
    }
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(n, n, m, ti, tj, tv, &A));
  free(ti), free(tj), free(tv);
  return A;
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  void (*check)(const char *, const em_csr *) = be == EM_BACKEND_CPU ? check_cpu : check_gpu;
  em_csr *A = NULL;
  int32_t sizes[] = {5003, 97, 33, 1};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int32_t n = sizes[s];
    REQUIRE_OK(prob_random_sym(n, 12, 1.1, 9 + n, &A));
    check("random symmetric", A);
    em_csr_destroy(&A);
    const char *names[4] = {"diagonal", "arrow (long U row)", "arrow (long L row)", "chain"};
    for (int k = 0; k < 4; k++) {
      A = pattern(n, k);
      check(names[k], A);
      em_csr_destroy(&A);
    }
  }
  REQUIRE_OK(prob_curlcurl(8, 3.0, 0.05, &A));
  check("curl-curl", A);
  em_csr_destroy(&A);
  REQUIRE_OK(em_csr_create(0, 0, 0, &A));
  check("0x0", A);
  em_csr_destroy(&A);
  return TEST_RESULT();
}
