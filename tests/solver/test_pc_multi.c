/* The multi-column applies of the preconditioners (issue 28) against one
 * column at a time and against plain references written here:
 *   - the dense kernels of the supernodal solves (em_ds_gemm_n / _t,
 *     em_ds_trsm_n / _t) of every instruction set this CPU runs, on shapes
 *     around their tile sizes, against plain loops (1e-13), and column r
 *     of an R-column call equal to the one-column call bit for bit;
 *   - em_direct_solve with N = 1, 3, 16, 17 columns (leading dimension
 *     above n, zero columns among them) against N one-column solves (CPU:
 *     bit for bit; GPU: 1e-12) and against a column-by-column supernodal
 *     solve written here from the factor's own L, D, scaling and ordering
 *     (1e-12), on n = 1, a diagonal (supernodes of one column, nothing
 *     below), a tridiagonal chain, a dense row, random sparse, a 3D
 *     Laplacian with a separator of 256 columns (the GPU's cuBLAS path) and
 *     an order-1 curl-curl system; on the GPU also the complex single
 *     factor (its reference: its own values, in double), every variant of
 *     the solves (em_direct_gsolve), and trinv's inverses rebuilt by a
 *     refactorization with new values;
 *   - em_pc_apply_multi with N = 1, 3, 16, 17 against N em_pc_apply for the
 *     direct factor, ILU(0) and pmg on an assembled order-2 system (block
 *     Jacobi, point Jacobi and ILU(0) smoothers; the levels' own rows and
 *     the operator's residuals; a block level by ILU(0) and by its exact
 *     factor; marked coarse rows): the V-cycle on N columns equals N
 *     V-cycles (CPU: bit for bit; GPU: 1e-12).
 * Usage: test_pc_multi cpu|gpu [direct] (direct: the direct solves only,
 * e.g. under compute-sanitizer). */
#include <string.h>

#include "direct_impl.h"
#ifdef EM_HAVE_CUDA
#include "direct_gpu_impl.h" /* em_direct_download */
#endif
#include "em_assembly.h"
#include "solver_test.h"

static const int NS[] = {1, 3, 16, 17};
#define N_NS 4
#define NMAX 17

/* max |a - b| / max |b| over n entries (|a - b| when b is zero) */
static double rel_diff(const em_cplx *a, const em_cplx *b, int64_t n) {
  double e = 0, s = 0;
  for (int64_t i = 0; i < n; i++) {
    e = fmax(e, cabs(a[i] - b[i]));
    s = fmax(s, cabs(b[i]));
  }
  return s > 0 ? e / s : e;
}

static em_cplx rnd(unsigned long long *s) {
  return (2 * em_test_rand(s) - 1) + I * (2 * em_test_rand(s) - 1);
}

/* ------------------------------------------------------- dense kernels */

/* T -= A C (C negated when neg), plain */
static void ref_gemm_n(int64_t M, int R, int64_t K, const em_cplx *A, int64_t lda, const em_cplx *C,
                       int64_t ldc, int neg, em_cplx *T, int64_t ldt) {
  for (int r = 0; r < R; r++)
    for (int64_t i = 0; i < M; i++) {
      em_cplx s = 0;
      for (int64_t j = 0; j < K; j++) s += A[i + j * lda] * C[j + r * ldc];
      T[i + r * ldt] -= neg ? -s : s;
    }
}

/* X -= A^T B, plain */
static void ref_gemm_t(int64_t M, int64_t K, int R, const em_cplx *A, int64_t lda, const em_cplx *B,
                       int64_t ldb, em_cplx *X, int64_t ldx) {
  for (int r = 0; r < R; r++)
    for (int64_t j = 0; j < K; j++) {
      em_cplx s = 0;
      for (int64_t i = 0; i < M; i++) s += A[i + j * lda] * B[i + r * ldb];
      X[j + r * ldx] -= s;
    }
}

/* X = L^-1 X (t = 0) or L^-T X (t = 1), L unit lower, plain */
static void ref_trsm(int t, int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X,
                     int64_t ldx) {
  for (int r = 0; r < R; r++) {
    em_cplx *x = X + r * ldx;
    if (!t)
      for (int64_t j = 0; j < k; j++)
        for (int64_t i = j + 1; i < k; i++) x[i] -= L[i + j * ldl] * x[j];
    else
      for (int64_t j = k - 1; j >= 0; j--)
        for (int64_t i = j + 1; i < k; i++) x[j] -= L[i + j * ldl] * x[i];
  }
}

/* One kernel on (M, K, R), R columns at once against plain loops and
 * against R one-column calls. */
static void check_kernel(em_dk_kind kind, int op, int64_t M, int64_t K, int R) {
  /* op 0 gemm_n, 1 gemm_n negated, 2 gemm_t, 3 trsm_n, 4 trsm_t (M = K = k) */
  int64_t rows = op == 2 ? K : M, lda = M + 5, ldc = (op == 2 ? M : K) + 2, ldt = rows + 3;
  size_t na = (size_t)lda * (size_t)(op >= 3 ? M : K) + 1;
  em_cplx *A = calloc(na, sizeof *A), *C = calloc((size_t)ldc * R + 1, sizeof *C);
  em_cplx *T0 = calloc((size_t)ldt * R + 1, sizeof *T0),
          *T1 = calloc((size_t)ldt * R + 1, sizeof *T1);
  em_cplx *T2 = calloc((size_t)ldt * R + 1, sizeof *T2);
  unsigned long long s = 99 + (unsigned long long)(op * 1000 + M * 37 + K * 11 + R);
  for (size_t q = 0; q < na; q++) A[q] = op >= 3 ? 0.3 * rnd(&s) : rnd(&s); /* a tame triangle */
  for (size_t q = 0; q < (size_t)ldc * R; q++) C[q] = rnd(&s);
  for (size_t q = 0; q < (size_t)ldt * R; q++) T0[q] = T1[q] = T2[q] = op >= 3 ? 0 : rnd(&s);
  if (op >= 3) /* the triangle solves work in place on T */
    for (int r = 0; r < R; r++)
      for (int64_t i = 0; i < M; i++) T0[i + r * ldt] = T1[i + r * ldt] = T2[i + r * ldt] = rnd(&s);
  switch (op) {
    case 0:
    case 1:
      ref_gemm_n(M, R, K, A, lda, C, ldc, op == 1, T0, ldt);
      em_ds_gemm_n(kind, M, R, K, A, lda, C, ldc, op == 1, T1, ldt);
      for (int r = 0; r < R; r++)
        em_ds_gemm_n(kind, M, 1, K, A, lda, C + r * ldc, ldc, op == 1, T2 + r * ldt, ldt);
      break;
    case 2:
      ref_gemm_t(M, K, R, A, lda, C, ldc, T0, ldt);
      em_ds_gemm_t(kind, M, K, R, A, lda, C, ldc, T1, ldt);
      for (int r = 0; r < R; r++)
        em_ds_gemm_t(kind, M, K, 1, A, lda, C + r * ldc, ldc, T2 + r * ldt, ldt);
      break;
    default:
      ref_trsm(op == 4, M, R, A, lda, T0, ldt);
      if (op == 3) {
        em_ds_trsm_n(kind, M, R, A, lda, T1, ldt);
        for (int r = 0; r < R; r++) em_ds_trsm_n(kind, M, 1, A, lda, T2 + r * ldt, ldt);
      } else {
        em_ds_trsm_t(kind, M, R, A, lda, T1, ldt);
        for (int r = 0; r < R; r++) em_ds_trsm_t(kind, M, 1, A, lda, T2 + r * ldt, ldt);
      }
  }
  static const char *const names[] = {"gemm_n", "gemm_n (negated)", "gemm_t", "trsm_n", "trsm_t"};
  double e = rel_diff(T1, T0, (int64_t)ldt * R);
  EXPECT(e < 1e-13, "%s %s M %lld K %lld R %d: %.2e from the plain loops", em_dk_name(kind),
         names[op], (long long)M, (long long)K, R, e);
  EXPECT(!memcmp(T1, T2, (size_t)ldt * R * sizeof *T1),
         "%s %s M %lld K %lld R %d: a column differs from its one-column call (%.2e)",
         em_dk_name(kind), names[op], (long long)M, (long long)K, R,
         rel_diff(T1, T2, (int64_t)ldt * R));
  free(A), free(C), free(T0), free(T1), free(T2);
}

static void test_kernels(void) {
  static const int64_t Ms[] = {0, 1, 3, 7, 8, 9, 16, 17, 33};
  static const int64_t Ks[] = {0, 1, 5, 16, 17};
  static const int Rs[] = {1, 2, 3, 4, 5, 9, 0, 16};
  static const int64_t ks[] = {1, 2, 15, 16, 17, 40};
  for (int kd = EM_DK_GENERIC; kd <= EM_DK_AVX512; kd++) {
    if (!em_dk_available((em_dk_kind)kd)) continue;
    for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
      for (size_t b = 0; b < sizeof Ks / sizeof *Ks; b++)
        for (size_t c = 0; c < sizeof Rs / sizeof *Rs; c++)
          for (int op = 0; op < 3; op++) check_kernel((em_dk_kind)kd, op, Ms[a], Ks[b], Rs[c]);
    for (size_t a = 0; a < sizeof ks / sizeof *ks; a++)
      for (size_t c = 0; c < sizeof Rs / sizeof *Rs; c++)
        for (int op = 3; op < 5; op++) check_kernel((em_dk_kind)kd, op, ks[a], ks[a], Rs[c]);
  }
}

/* ------------------------------------------------------- direct solves */

/* x = A^-1 b column by column from the factor's own L, D, scaling and
 * ordering: the textbook supernodal sweeps, one column of L at a time. */
static void ref_solve(const em_direct *F, const em_cplx *lval, const em_cplx *d, int nrhs,
                      const em_cplx *b, int64_t ldb, em_cplx *x, int64_t ldx) {
  const em_dsym *S = &F->S;
  int32_t n = S->n;
  em_cplx *y = calloc((size_t)n + 1, sizeof *y);
  for (int r = 0; r < nrhs; r++) {
    for (int32_t i = 0; i < n; i++) y[S->perm[i]] = b[r * ldb + i] * F->scale[S->perm[i]];
    for (int32_t s = 0; s < S->ns; s++) { /* forward: y(rows) -= L(:, j) y_j */
      int64_t k = S->super[s + 1] - S->super[s], m = S->rptr[s + 1] - S->rptr[s];
      const int32_t *rows = S->rows + S->rptr[s];
      for (int64_t jj = 0; jj < k; jj++) {
        em_cplx yj = y[rows[jj]];
        for (int64_t p = jj + 1; p < m; p++) y[rows[p]] -= lval[S->lptr[s] + p + jj * m] * yj;
      }
    }
    for (int32_t i = 0; i < n; i++) y[i] /= d[i];
    for (int32_t s = S->ns - 1; s >= 0; s--) /* backward: y_j -= L(:, j)^T y(rows) */
      for (int64_t jj = S->super[s + 1] - S->super[s] - 1; jj >= 0; jj--) {
        int64_t m = S->rptr[s + 1] - S->rptr[s];
        const int32_t *rows = S->rows + S->rptr[s];
        for (int64_t p = jj + 1; p < m; p++)
          y[rows[jj]] -= lval[S->lptr[s] + p + jj * m] * y[rows[p]];
      }
    for (int32_t i = 0; i < n; i++) x[r * ldx + i] = y[S->perm[i]] * F->scale[S->perm[i]];
  }
  free(y);
}

/* The block solves of A (N columns, ld n + 4, columns 1 and N - 2 zero)
 * against one-column solves and the reference. */
static void check_direct_variant(const char *name, em_direct *F, const em_csr *A, em_backend be,
                                 em_prec prec, const char *vname);

/* The GPU solves' variants (em_direct_gsolve): all but trinv on, none,
 * each alone, trinv (the wide triangles by their inverse, built at the
 * first solve that asks) alone, with streams and interleaved; the level
 * kernels on 512, 1024 (or what the kernel's registers allow) and 96
 * threads per block (a multiple of 32 below 128), by the level (-1) and
 * graded (-2); the backward products alone by the own kernel with several
 * columns (big_own 3), with streams and interleaved; the wide triangles'
 * columns on streams of their own (col_streams), with and without the
 * slots' streams, with the own backward product, and under trinv (which
 * then solves the triangles); trinv capped (trinv_max: the wider
 * supernodes by TRSM in the same solve); the inverse's product by the
 * own kernel (trinv_own) with the own products, for every column count,
 * for blocks interleaved, and capped; one variant on the CPU (it ignores
 * them). */
static const struct {
  const char *name;
  em_direct_gsolve g;
} VARIANTS[] = {
    {"default", {1, 1, 1, 0, 0, 0, 0, 0, 0}},
    {"old", {0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"interleave", {1, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"own", {0, 1, 0, 0, 0, 0, 0, 0, 0}},
    {"streams", {0, 0, 1, 0, 0, 0, 0, 0, 0}},
    {"trinv", {0, 0, 0, 0, 1, 0, 0, 0, 0}},
    {"trinv+streams", {0, 0, 1, 0, 1, 0, 0, 0, 0}},
    {"il+trinv", {1, 0, 0, 0, 1, 0, 0, 0, 0}},
    {"il+own+profile", {1, 1, 0, 1, 0, 0, 0, 0, 0}},
    {"levels on 512 threads", {0, 0, 1, 0, 1, 512, 0, 0, 0}},
    {"levels on 96 threads", {1, 0, 0, 0, 0, 96, 0, 0, 0}},
    {"levels by the level", {0, 0, 1, 0, 1, -1, 0, 0, 0}},
    {"levels graded", {0, 0, 1, 0, 1, -2, 0, 0, 0}},
    {"levels on 1024 threads", {0, 0, 0, 0, 0, 1024, 0, 0, 0}},
    {"own backward for blocks", {0, 3, 1, 0, 0, -1, 0, 0, 0}},
    {"il + own backward for blocks", {2, 3, 0, 0, 0, 0, 0, 0, 0}},
    {"column streams", {0, 0, 1, 0, 0, -1, 0, 1, 0}},
    {"column streams alone", {0, 0, 0, 0, 0, 0, 0, 1, 0}},
    {"column streams + own backward", {0, 3, 1, 0, 0, -1, 0, 1, 0}},
    {"column streams + trinv (trinv wins)", {0, 0, 1, 0, 2, -1, 0, 1, 0}},
    {"trinv up to 192 columns (193 by TRSM)", {0, 0, 1, 0, 1, -1, 192, 0, 0}},
    {"trinv up to 400 columns, blocks only", {0, 0, 1, 0, 2, -1, 400, 0, 0}},
    {"trinv up to 300 columns, blocks only, column streams", {0, 0, 1, 0, 2, -1, 300, 1, 0}},
    {"own + trinv by the own kernel", {0, 1, 1, 0, 1, -1, 0, 0, 1}},
    {"blocks: il, own, trinv by the own kernel", {2, 2, 1, 0, 2, -1, 0, 0, 2}},
    {"own + trinv by the own kernel up to 192 columns", {0, 1, 0, 0, 1, 0, 192, 0, 1}},
    {"em_direct_opts_default's", {0, 2, 1, 0, 2, -1, 0, 0, 2}}};
#define N_VARIANTS ((int)(sizeof VARIANTS / sizeof VARIANTS[0]))

#ifdef EM_HAVE_CUDA
/* Variant trinv set before a refactorization of the GPU factor with new
 * values (the diagonal times 1.25 - 0.1i): the inverses come from the new
 * factor (stale ones would miss the reference, solved with its L). */
static void check_refactor_trinv(const char *name, em_direct *F, const em_csr *A, em_prec prec) {
  em_csr *A2 = NULL;
  REQUIRE_OK(em_csr_copy(A, &A2));
  for (int32_t i = 0; i < A2->n_rows; i++)
    for (int64_t p = A2->rowptr[i]; p < A2->rowptr[i + 1]; p++)
      if (A2->colind[p] == i) A2->val[p] *= 1.25 - 0.1 * I;
  em_direct_gsolve g = {0, 0, 1, 0, 1, 0, 0, 0, 0};
  em_direct_set_gsolve(F, &g);
  EXPECT_OK(em_direct_factor(F, A2, NULL));
  check_direct_variant(name, F, A2, EM_BACKEND_CUDA, prec, "trinv+streams refactored");
  em_csr_destroy(&A2);
}
#endif

static void check_direct_ord(const char *name, const em_csr *A, em_backend be, em_prec prec,
                             em_pc_ordering ord) {
  em_direct_opts o;
  em_direct_opts_default(&o);
  o.backend = be;
  o.prec = prec;
  o.ordering = ord;
  em_direct *F = NULL;
  REQUIRE_OK(em_direct_create(A, &o, NULL, &F));
  for (int v = 0; v < (be == EM_BACKEND_CPU ? 1 : N_VARIANTS); v++) {
    em_direct_set_gsolve(F, &VARIANTS[v].g);
    check_direct_variant(name, F, A, be, prec, VARIANTS[v].name);
  }
#ifdef EM_HAVE_CUDA
  if (be != EM_BACKEND_CPU && F->gpu) check_refactor_trinv(name, F, A, prec);
#endif
#ifdef EM_HAVE_CUDA
  if (be != EM_BACKEND_CPU && F->gpu) { /* the profile saw every solve of its variant */
    em_direct_gprofile p;
    em_direct_gprofile_get(F, &p);
    int64_t cols = 0;
    for (int c = 0; c < N_NS; c++) cols += 2 * NS[c]; /* a block solve, then N single ones */
    EXPECT(p.columns == cols && p.solves > 0 && p.total_ms > 0 && p.levels > 0,
           "%s: the profile counted %lld columns in %lld solves (expected %lld)", name,
           (long long)p.columns, (long long)p.solves, (long long)cols);
    EXPECT(p.launches[EM_DGP_PERMUTE_IN] == p.solves && p.launches[EM_DGP_DIAG] == p.solves,
           "%s: the profile's permute / diagonal launches %lld, %lld for %lld solves", name,
           (long long)p.launches[EM_DGP_PERMUTE_IN], (long long)p.launches[EM_DGP_DIAG],
           (long long)p.solves);
    EXPECT(p.small + p.big == F->S.ns, "%s: the profile's supernodes %d + %d of %d", name, p.small,
           p.big, F->S.ns);
  }
#endif
  em_direct_destroy(&F);
}

static void check_direct(const char *name, const em_csr *A, em_backend be, em_prec prec) {
  check_direct_ord(name, A, be, prec, EM_ORDERING_ND);
}

static void check_direct_variant(const char *name, em_direct *F, const em_csr *A, em_backend be,
                                 em_prec prec, const char *vname) {
  const em_cplx *lval = F->lval, *d = F->d;
  em_cplx *lg = NULL, *dg = NULL;
#ifdef EM_HAVE_CUDA
  if (F->gpu) { /* the factor's own values, in double */
    REQUIRE_OK(em_direct_download(F, &lg, &dg));
    lval = lg, d = dg;
  }
#endif
  int32_t n = A->n_rows;
  int64_t ld = n + 4;
  size_t tot = (size_t)ld * NMAX + 1;
  em_cplx *B = calloc(tot, sizeof *B), *X = calloc(tot, sizeof *X), *X1 = calloc(tot, sizeof *X1);
  em_cplx *Xr = calloc(tot, sizeof *Xr);
  for (int c = 0; c < N_NS; c++) {
    int N = NS[c];
    unsigned long long s = 7 + (unsigned long long)N;
    for (size_t q = 0; q < tot; q++) B[q] = rnd(&s), X[q] = X1[q] = Xr[q] = 0;
    for (int r = 0; r < N; r++)
      if (r == 1 || r == N - 2) memset(B + r * ld, 0, (size_t)n * sizeof *B); /* empty columns */
    EXPECT_OK(em_direct_solve(F, N, B, ld, X, ld));
    for (int r = 0; r < N; r++) EXPECT_OK(em_direct_solve(F, 1, B + r * ld, ld, X1 + r * ld, ld));
    ref_solve(F, lval, d, N, B, ld, Xr, ld);
    double e1 = 0, er = 0;
    int same = 1;
    for (int r = 0; r < N; r++) {
      e1 = fmax(e1, rel_diff(X + r * ld, X1 + r * ld, n));
      er = fmax(er, rel_diff(X + r * ld, Xr + r * ld, n));
      same &= !memcmp(X + r * ld, X1 + r * ld, (size_t)n * sizeof *X);
      if ((r == 1 || r == N - 2) && r < N)
        for (int32_t i = 0; i < n; i++)
          if (X[r * ld + i] != 0) {
            EXPECT(0, "%s, N = %d: the zero column %d has a nonzero solution", name, N, r);
            break;
          }
    }
    char bn[64] = "cpu";
    if (be != EM_BACKEND_CPU)
      snprintf(bn, sizeof bn, "%s %s", prec == EM_PREC_SINGLE ? "gpu single" : "gpu", vname);
    /* the GPU's level kernels sum in double whatever the factor's
       precision; the wide supernodes (EM_DG_SOLVE_BIG columns or more) go
       through cuBLAS, in single arithmetic for a single factor (CTRSM /
       CGEMM on single vectors; their blocking also depends on N): there
       the rounding is single's, u = 6e-8 (observed 4e-7 .. 1.1e-6 on the
       16^3 Laplacian, H100 2026-11-28), so 2e-5, else 1e-12 */
    double tol = 1e-12;
#ifdef EM_HAVE_CUDA
    if (be != EM_BACKEND_CPU && prec == EM_PREC_SINGLE && F->S.max_cols >= EM_DG_SOLVE_BIG)
      tol = 2e-5;
#endif
    if (be == EM_BACKEND_CPU)
      EXPECT(same, "%s (%s), N = %d: block columns differ from one-column solves (%.2e)", name, bn,
             N, e1);
    else
      EXPECT(e1 < tol, "%s (%s), N = %d: block columns differ from one-column solves by %.2e", name,
             bn, N, e1);
    EXPECT(er < tol, "%s (%s), N = %d: block solve differs from the reference by %.2e", name, bn, N,
           er);
    if (getenv("EM_TEST_VERBOSE"))
      fprintf(stderr,
              "%-24s %-10s N %2d: %6d supernodes (widest %5d): vs one-column %.1e, vs "
              "reference %.1e\n",
              name, bn, N, F->S.ns, F->S.max_cols, e1, er);
  }
  free(B), free(X), free(X1), free(Xr), free(lg), free(dg);
}

/* A diagonal matrix: every supernode one column with no rows below. */
static em_csr *diagonal(int32_t n) {
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(n, n, n, &A));
  for (int32_t i = 0; i < n; i++) {
    A->rowptr[i + 1] = i + 1;
    A->colind[i] = i;
    A->val[i] = 1.5 + 0.1 * i - 0.2 * I;
  }
  return A;
}

/* A dense row and column (n / 2) on a random sparse pattern. */
static em_csr *arrow(int32_t n) {
  em_csr *R = NULL;
  REQUIRE_OK(prob_random_sym(n, 5, 3.0, 7, &R));
  int64_t cap = R->nnz + 2 * (int64_t)n, q = 0;
  int32_t *ti = calloc((size_t)cap, sizeof *ti), *tj = calloc((size_t)cap, sizeof *tj);
  em_cplx *tv = calloc((size_t)cap, sizeof *tv);
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = R->rowptr[i]; p < R->rowptr[i + 1]; p++)
      ti[q] = i, tj[q] = R->colind[p], tv[q++] = R->val[p];
  for (int32_t i = 0; i < n; i++)
    if (i != n / 2) {
      ti[q] = i, tj[q] = n / 2, tv[q++] = 0.1 + 0.01 * i * I;
      ti[q] = n / 2, tj[q] = i, tv[q++] = 0.1 + 0.01 * i * I;
    }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(n, n, q, ti, tj, tv, &A));
  free(ti), free(tj), free(tv);
  em_csr_destroy(&R);
  return A;
}

/* In the natural order: a dense block of w columns, then a path of t
 * rows whose even ones are coupled to every column of the block (after
 * the block their fill is a clique of the even rows, which the path's odd
 * rows keep from joining the block's supernode): one supernode of exactly
 * w columns with t / 2 rows below. */
static em_csr *block_path(int32_t w, int32_t t) {
  int32_t n = w + t;
  int64_t cap = (int64_t)w * w + 3 * (int64_t)t + 2 * (int64_t)w * t, q = 0;
  int32_t *ti = calloc((size_t)cap, sizeof *ti), *tj = calloc((size_t)cap, sizeof *tj);
  em_cplx *tv = calloc((size_t)cap, sizeof *tv);
  for (int32_t i = 0; i < w; i++)
    for (int32_t j = 0; j < w; j++)
      ti[q] = i, tj[q] = j,
      tv[q++] = i == j ? 4.0 * w + 0.5 * I : 0.3 / (1 + abs(i - j)) + 0.01 * I;
  for (int32_t r = 0; r < t; r++) {
    int32_t i = w + r;
    ti[q] = i, tj[q] = i, tv[q++] = 4.0 * w - 0.3 * I;
    if (r + 1 < t) {
      ti[q] = i, tj[q] = i + 1, tv[q++] = -1.0 + 0.1 * I;
      ti[q] = i + 1, tj[q] = i, tv[q++] = -1.0 + 0.1 * I;
    }
    if (r % 2 == 0)
      for (int32_t j = 0; j < w; j++) {
        ti[q] = i, tj[q] = j, tv[q++] = 0.05 + 0.002 * j * I;
        ti[q] = j, tj[q] = i, tv[q++] = 0.05 + 0.002 * j * I;
      }
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(n, n, q, ti, tj, tv, &A));
  free(ti), free(tj), free(tv);
  return A;
}

/* The widest supernode of the natural-order analysis of A, its rows below. */
static int32_t widest(const em_csr *A, int64_t *nb) {
  em_direct_opts o;
  em_direct_opts_default(&o);
  o.ordering = EM_ORDERING_NATURAL;
  em_direct *F = NULL;
  REQUIRE_OK(em_direct_analyse(A, &o, NULL, &F));
  int32_t w = 0;
  for (int32_t s = 0; s < F->S.ns; s++)
    if (F->S.super[s + 1] - F->S.super[s] > w) {
      w = F->S.super[s + 1] - F->S.super[s];
      *nb = F->S.rptr[s + 1] - F->S.rptr[s] - w;
    }
  em_direct_destroy(&F);
  return w;
}

/* Supernodes of exactly 191, 192 (the first through the GPU's wide path,
 * EM_DG_SOLVE_BIG) and 193 columns, with rows below. */
static void test_direct_edges(em_backend be) {
  static const int32_t W[] = {191, 192, 193};
  for (int i = 0; i < 3; i++) {
    em_csr *A = block_path(W[i], 301);
    int64_t nb = 0;
    int32_t w = widest(A, &nb);
    EXPECT(w == W[i] && nb > 0, "block + path %d: the widest supernode has %d columns, %lld below",
           W[i], w, (long long)nb);
    char name[64];
    snprintf(name, sizeof name, "block %d + path (natural)", W[i]);
    check_direct_ord(name, A, be, EM_PREC_DOUBLE, EM_ORDERING_NATURAL);
    if (be == EM_BACKEND_CUDA) check_direct_ord(name, A, be, EM_PREC_SINGLE, EM_ORDERING_NATURAL);
    em_csr_destroy(&A);
  }
}

static void test_direct(em_backend be) {
  const char *name[7];
  em_csr *M[7];
  int nm = 0;
  REQUIRE_OK(prob_random_sym(1, 3, 0.5, 5, &M[nm]));
  name[nm++] = "n = 1";
  M[nm] = diagonal(60);
  name[nm++] = "diagonal n = 60";
  REQUIRE_OK(prob_laplace2d(1, 300, 0.3 + 0.1 * I, &M[nm]));
  name[nm++] = "tridiagonal n = 300";
  M[nm] = arrow(500);
  name[nm++] = "dense row n = 500";
  REQUIRE_OK(prob_random_sym(700, 6, 0.5, 11, &M[nm]));
  name[nm++] = "random n = 700";
  REQUIRE_OK(prob_laplace3d(16, 16, 16, 1.5 + 0.2 * I, &M[nm]));
  name[nm++] = "laplace 16^3";
  REQUIRE_OK(prob_curlcurl(6, 9.0, 0.02, &M[nm]));
  name[nm++] = "curl-curl 6^3";
  for (int i = 0; i < nm; i++) {
    check_direct(name[i], M[i], be, EM_PREC_DOUBLE);
    if (be == EM_BACKEND_CUDA) check_direct(name[i], M[i], be, EM_PREC_SINGLE);
    em_csr_destroy(&M[i]);
  }
}

/* ------------------------------------------------ preconditioner applies */

static em_err lossy(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx, (void)t, (void)x;
  for (int c = 0; c < 3; c++) m->eps[c] = 2.0 - 0.05 * I, m->nu[c] = 1;
  return EM_OK;
}

/* The order-2 system of a PEC 2 x 2 x 2 box (30 mm) past its first modes. */
static em_blockmat *order2(void) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(2, 2, 2, 0.03, 0.03, 0.03, 0.15, 1, &m));
  uint8_t *ff = calloc((size_t)m->n_face, 1);
  for (int32_t f = 0; f < m->n_face; f++) ff[f] = m->face_tet[2 * f + 1] < 0;
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, 2, ff, &d));
  em_problem prob = {.k0 = 180, .material = lossy, .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_blockmat *B = sys->A;
  sys->A = NULL;
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
  free(ff);
  return B;
}

/* z_j = M^-1 r_j as one block apply of N columns and as N applies, the
 * block's outputs in shuffled order (not one strided block). */
static void check_apply(em_pc *pc, em_backend be, int32_t n, const char *label) {
  em_vec *v = NULL;
  void *R = NULL, *Z1 = NULL, *Z2 = NULL;
  REQUIRE_OK(em_vec_create(be, EM_PREC_DOUBLE, n, 1, &v));
  REQUIRE_OK(v->ops->alloc(v, NMAX, &R));
  REQUIRE_OK(v->ops->alloc(v, NMAX, &Z1));
  REQUIRE_OK(v->ops->alloc(v, NMAX, &Z2));
  em_cplx *h = calloc((size_t)NMAX * n, sizeof *h), *z1 = calloc((size_t)NMAX * n, sizeof *z1);
  em_cplx *z2 = calloc((size_t)NMAX * n, sizeof *z2);
  unsigned long long s = 23;
  for (size_t q = 0; q < (size_t)NMAX * n; q++) h[q] = rnd(&s);
  memset(h + n, 0, (size_t)n * sizeof *h); /* column 1: zero */
  for (int j = 0; j < NMAX; j++)
    REQUIRE_OK(v->ops->upload(v, h + (size_t)j * n, em_vec_col(v, R, j)));
  for (int c = 0; c < N_NS; c++) {
    int N = NS[c];
    const void *r[NMAX];
    void *z[NMAX];
    for (int j = 0; j < N; j++) {
      r[j] = em_vec_col(v, R, j);
      z[j] = em_vec_col(v, Z2, (j * 5) % N); /* shuffled when N > 1 */
      EXPECT_OK(em_pc_apply(pc, r[j], em_vec_col(v, Z1, (j * 5) % N)));
    }
    EXPECT_OK(em_pc_apply_multi(pc, EM_PREC_DOUBLE, N, r, z));
    for (int j = 0; j < N; j++) {
      REQUIRE_OK(v->ops->download(v, em_vec_col(v, Z1, j), z1 + (size_t)j * n));
      REQUIRE_OK(v->ops->download(v, em_vec_col(v, Z2, j), z2 + (size_t)j * n));
    }
    double e = rel_diff(z2, z1, (int64_t)N * n);
    if (be == EM_BACKEND_CPU)
      EXPECT(!memcmp(z1, z2, (size_t)N * n * sizeof *z1),
             "%s, N = %d: the block apply differs from N applies (%.2e)", label, N, e);
    else
      EXPECT(e < 1e-12, "%s, N = %d: the block apply differs from N applies by %.2e", label, N, e);
    if (getenv("EM_TEST_VERBOSE")) fprintf(stderr, "%-44s N %2d: %.1e\n", label, N, e);
  }
  free(h), free(z1), free(z2);
  v->ops->free(v, &R), v->ops->free(v, &Z1), v->ops->free(v, &Z2);
  em_vec_destroy(&v);
}

/* pmg's residuals from the operator's rows of a level's groups
 * (em_operator.apply_rows) against whole products (the same operator
 * without apply_rows): CPU bit for bit, GPU 1e-12, N = 3. */
static void check_rows_residual(em_pc *pc, const em_pc_opts *po, const em_csr *A, em_backend be,
                                const char *label) {
  EXPECT(po->pmg.op->apply_rows, "%s: the block operator offers no row products", label);
  em_operator whole = *po->pmg.op;
  whole.apply_rows = NULL;
  em_pc_opts pw = *po;
  pw.pmg.op = &whole;
  em_pc *pcw = NULL;
  REQUIRE_OK(em_pc_create(A, &pw, NULL, &pcw));
  int32_t n = A->n_rows;
  em_vec *v = NULL;
  void *R = NULL, *Z1 = NULL, *Z2 = NULL;
  REQUIRE_OK(em_vec_create(be, EM_PREC_DOUBLE, n, 1, &v));
  REQUIRE_OK(v->ops->alloc(v, 3, &R));
  REQUIRE_OK(v->ops->alloc(v, 3, &Z1));
  REQUIRE_OK(v->ops->alloc(v, 3, &Z2));
  em_cplx *h = calloc((size_t)3 * n, sizeof *h), *z1 = calloc((size_t)3 * n, sizeof *z1);
  em_cplx *z2 = calloc((size_t)3 * n, sizeof *z2);
  unsigned long long s = 31;
  for (size_t q = 0; q < (size_t)3 * n; q++) h[q] = rnd(&s);
  const void *r[3];
  void *za[3], *zb[3];
  for (int j = 0; j < 3; j++) {
    REQUIRE_OK(v->ops->upload(v, h + (size_t)j * n, em_vec_col(v, R, j)));
    r[j] = em_vec_col(v, R, j), za[j] = em_vec_col(v, Z1, j), zb[j] = em_vec_col(v, Z2, j);
  }
  EXPECT_OK(em_pc_apply_multi(pc, EM_PREC_DOUBLE, 3, r, za));
  EXPECT_OK(em_pc_apply_multi(pcw, EM_PREC_DOUBLE, 3, r, zb));
  for (int j = 0; j < 3; j++) {
    REQUIRE_OK(v->ops->download(v, za[j], z1 + (size_t)j * n));
    REQUIRE_OK(v->ops->download(v, zb[j], z2 + (size_t)j * n));
  }
  double e = rel_diff(z1, z2, 3 * (int64_t)n);
  if (be == EM_BACKEND_CPU)
    EXPECT(!memcmp(z1, z2, (size_t)3 * n * sizeof *z1),
           "%s: residuals on the groups' rows differ from whole products (%.2e)", label, e);
  else
    EXPECT(e < 1e-12, "%s: residuals on the groups' rows differ from whole products by %.2e", label,
           e);
  free(h), free(z1), free(z2);
  v->ops->free(v, &R), v->ops->free(v, &Z1), v->ops->free(v, &Z2);
  em_vec_destroy(&v);
  em_pc_destroy(&pcw);
}

static void test_applies(em_backend be) {
  em_blockmat *B = order2();
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  int32_t n = A->n_rows;
  em_blockop_opts bo;
  em_blockop_opts_default(&bo);
  bo.backend = be;
  em_blockop *bop = NULL;
  em_operator op;
  REQUIRE_OK(em_blockop_create(B, &bo, &bop));
  REQUIRE_OK(em_blockop_operator(bop, &op));
  /* a block level and marked coarse rows: the last rows of group 2, every
     tenth row of group 1 */
  uint8_t *blk = calloc((size_t)n, 1), *crs = calloc((size_t)n, 1);
  for (int32_t i = B->offset[1] + (B->offset[2] - B->offset[1]) * 3 / 4; i < n; i++) blk[i] = 1;
  for (int32_t i = B->offset[1]; i < B->offset[2]; i += 10)
    if (!blk[i]) crs[i] = 1;
  struct {
    const char *name;
    em_pc_type type;
    em_pmg_smoother sm;
    int use_op, block, block_direct, marked;
  } C[] = {
      {"direct", EM_PC_DIRECT, 0, 0, 0, 0, 0},
      {"ilu0", EM_PC_ILU0, 0, 0, 0, 0, 0},
      {"pmg block Jacobi", EM_PC_PMG, EM_PMG_BLOCK, 0, 0, 0, 0},
      {"pmg block Jacobi, operator", EM_PC_PMG, EM_PMG_BLOCK, 1, 0, 0, 0},
      {"pmg Jacobi, marked coarse rows", EM_PC_PMG, EM_PMG_JACOBI, 1, 0, 0, 1},
      {"pmg ILU(0)", EM_PC_PMG, EM_PMG_ILU0, 0, 0, 0, 0},
      {"pmg block level ILU(0)", EM_PC_PMG, EM_PMG_BLOCK, 1, 1, 0, 0},
      {"pmg block level direct", EM_PC_PMG, EM_PMG_BLOCK, 0, 1, 1, 0},
  };
  for (size_t c = 0; c < sizeof C / sizeof *C; c++) {
    em_pc_opts po;
    em_pc_opts_default(&po);
    po.type = C[c].type;
    po.backend = be;
    po.ordering = C[c].type == EM_PC_ILU0 ? EM_ORDERING_RCM : EM_ORDERING_ND;
    po.pmg.nb = B->nb;
    memcpy(po.pmg.offset, B->offset, sizeof po.pmg.offset);
    po.pmg.coarse = 1;
    po.pmg.sweeps = 2;
    po.pmg.smoother = C[c].sm;
    po.pmg.op = C[c].use_op ? &op : NULL;
    po.pmg.block_rows = C[c].block ? blk : NULL;
    po.pmg.block_direct = C[c].block_direct;
    po.pmg.coarse_rows = C[c].marked ? crs : NULL;
    em_pc *pc = NULL;
    em_err e = em_pc_create(A, &po, NULL, &pc);
    EXPECT_OK(e);
    if (e) continue;
    check_apply(pc, be, n, C[c].name);
    if (C[c].use_op) check_rows_residual(pc, &po, A, be, C[c].name);
    em_pc_destroy(&pc);
  }
  free(blk), free(crs);
  em_blockop_destroy(&bop);
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  if (be == EM_BACKEND_CPU) test_kernels();
  test_direct(be);
  test_direct_edges(be);
  if (argc < 3 || strcmp(argv[2], "direct")) test_applies(be); /* "direct": the solves only */
  return TEST_RESULT();
}
