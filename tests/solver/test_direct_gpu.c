/* The GPU LDL^T against the CPU one (label gpu; exit 77 without a GPU):
 * the factors L and D entry by entry and the solves, on awkward matrices
 * (n = 1, 2, 33, a dense row, a tridiagonal chain of supernodes, random
 * sparse), Whitney curl-curl systems big enough for fronts above
 * EM_DG_SMALL (the cuBLAS path, for sure from order 65 with gpu_small 64;
 * and the same up to order 512, 700, 1024 by
 * the one-block kernel, em_direct_opts.gpu_small), a zero pivot that both perturb the same
 * way, refactorization on new values, several right-hand sides, the pc
 * apply on device vectors inside GMRES, and the complex single factor
 * ("mixed") inside GMRES in double.  With a matrix file as argv[2] (the
 * order-2 DRA system written by emsolve --dump-matrix) that one too.
 * Usage: test_direct_gpu gpu [FILE]. */
#include <complex.h>
#include <cuda_runtime.h>
#include <string.h>

#include "direct_gpu_impl.h"
#include "em_formats.h"
#include "solver_test.h"

/* max |a - b| / max |b| over n entries */
static double rel_diff(const em_cplx *a, const em_cplx *b, int64_t n) {
  double e = 0, s = 0;
  for (int64_t i = 0; i < n; i++) {
    e = fmax(e, cabs(a[i] - b[i]));
    s = fmax(s, cabs(b[i]));
  }
  return s > 0 ? e / s : e;
}

/* Factor A on both, compare L, D and the solves of 3 right-hand sides;
 * the GPU's fronts up to order small by the one-block kernel (0: its
 * default, em_direct_opts.gpu_small). */
static void compare_small(const char *name, const em_csr *A, double tol, double xtol, int small) {
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *C = NULL, *G = NULL;
  REQUIRE_OK(em_direct_create(A, &o, NULL, &C));
  o.backend = EM_BACKEND_CUDA;
  o.gpu_small = small;
  REQUIRE_OK(em_direct_create(A, &o, NULL, &G));
  em_direct_info ig;
  em_direct_get_info(G, &ig);
  EXPECT(!strcmp(ig.where, "gpu"), "%s: the factor is on the %s", name, ig.where);
  em_cplx *lg = NULL, *dg = NULL;
  REQUIRE_OK(em_direct_download(G, &lg, &dg));
  int64_t nl = C->S.lptr[C->S.ns];
  double el = rel_diff(lg, C->lval, nl), ed = rel_diff(dg, C->d, C->S.n);
  EXPECT(el <= tol && ed <= tol, "%s: GPU factor differs from the CPU one: L %.2e, D %.2e", name,
         el, ed);
  EXPECT(G->info.perturbed == C->info.perturbed,
         "%s: %lld pivots perturbed on the GPU, %lld on the CPU", name,
         (long long)G->info.perturbed, (long long)C->info.perturbed);
  int32_t n = A->n_rows;
  int64_t ld = n + 3;
  em_cplx *b = calloc((size_t)ld * 3 + 1, sizeof *b), *xc = calloc((size_t)ld * 3 + 1, sizeof *xc),
          *xg = calloc((size_t)ld * 3 + 1, sizeof *xg);
  unsigned long long seed = 17;
  for (int64_t i = 0; i < ld * 3; i++) b[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
  REQUIRE_OK(em_direct_solve(C, 3, b, ld, xc, ld));
  REQUIRE_OK(em_direct_solve(G, 3, b, ld, xg, ld));
  for (int r = 0; r < 3; r++) {
    double e = rel_diff(xg + r * ld, xc + r * ld, n);
    EXPECT(e <= xtol, "%s: GPU solve %d differs by %.2e", name, r, e);
  }
  if (getenv("EM_TEST_VERBOSE"))
    fprintf(stderr, "%-28s n %7d, %6d supernodes, front %5d: L %.1e D %.1e x %.1e\n", name, n,
            C->S.ns, C->S.max_front, el, ed, rel_diff(xg, xc, n));
  free(lg), free(dg), free(b), free(xc), free(xg);
  em_direct_destroy(&C);
  em_direct_destroy(&G);
}

static void compare(const char *name, const em_csr *A, double tol, double xtol) {
  compare_small(name, A, tol, xtol, 0);
}

/* A dense row and column (index n/2) on a random sparse pattern. */
static em_csr *arrow(int32_t n) {
  em_csr *R = NULL;
  REQUIRE_OK(prob_random_sym(n, 5, 3.0, 7, &R));
  int64_t cap = R->nnz + 2 * (int64_t)n;
  int32_t *ti = calloc((size_t)cap, sizeof *ti), *tj = calloc((size_t)cap, sizeof *tj);
  em_cplx *tv = calloc((size_t)cap, sizeof *tv);
  int64_t q = 0;
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

static void test_shapes(void) {
  static const int32_t sizes[] = {1, 2, 33, 500};
  for (int i = 0; i < 4; i++) {
    em_csr *A = NULL;
    char name[64];
    REQUIRE_OK(prob_random_sym(sizes[i], 6, 0.5, 3 + i, &A));
    snprintf(name, sizeof name, "random n=%d", sizes[i]);
    compare(name, A, 1e-10, 100 * 1e-10);
    em_csr_destroy(&A);
  }
  em_csr *A = arrow(700);
  compare("dense row n=700", A, 1e-10, 100 * 1e-10);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_laplace2d(1, 300, 0.3 + 0.1 * I, &A)); /* a chain: deep tree */
  compare("tridiagonal n=300", A, 1e-10, 100 * 1e-10);
  em_csr_destroy(&A);
  /* fronts above EM_DG_SMALL: the cuBLAS path */
  REQUIRE_OK(prob_curlcurl(10, 12.0, 0.01, &A));
  compare("curl-curl 10^3", A, 1e-9, 100 * 1e-9);
  /* the same fronts through cuBLAS from order 65 up (the big path for
     sure, whatever the default), by the one-block kernel up to order 512,
     1024 (all) */
  compare_small("curl-curl 10^3, small 64", A, 1e-9, 100 * 1e-9, 64);
  compare_small("curl-curl 10^3, small 512", A, 1e-9, 100 * 1e-9, 512);
  compare_small("curl-curl 10^3, small 1024", A, 1e-9, 100 * 1e-9, EM_DIRECT_GPU_SMALL_MAX);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_laplace3d(17, 16, 15, 1.5 + 0.2 * I, &A));
  compare("laplace 17x16x15", A, 1e-9, 100 * 1e-9);
  compare_small("laplace 17x16x15, small 700", A, 1e-9, 100 * 1e-9, 700);
  em_csr_destroy(&A);
}

/* An exactly zero pivot (natural ordering): perturbed by both alike. */
static void test_zero_pivot(void) {
  em_csr *A = NULL;
  REQUIRE_OK(prob_laplace2d(12, 11, 1.0 + 0.1 * I, &A));
  for (int64_t p = A->rowptr[0]; p < A->rowptr[1]; p++)
    if (A->colind[p] == 0) A->val[p] = 0;
  compare("zero pivot", A, 1e-10, 1e-7); /* a near-singular system: 1.1e-8 seen */
  em_direct_opts o;
  em_direct_opts_default(&o);
  o.backend = EM_BACKEND_CUDA;
  o.ordering = EM_ORDERING_NATURAL;
  o.pivot_eps = 0; /* no perturbation: the zero pivot is an error naming row 0 */
  em_direct *G = NULL;
  em_err e = em_direct_create(A, &o, NULL, &G);
  EXPECT(e == EM_ERR_NUMERIC && strstr(em_error_message(), "row 0"),
         "zero pivot without perturbation: %s, message: %s", em_err_name(e), em_error_message());
  em_error_clear();
  em_csr_destroy(&A);
}

/* Refactorization with the values of another frequency: equal to a fresh
 * GPU factorization bit for bit (same kernels, same order). */
static void test_refactor(void) {
  em_csr *A1 = NULL, *A2 = NULL;
  REQUIRE_OK(prob_curlcurl(8, 6.0, 0.01, &A1));
  REQUIRE_OK(prob_curlcurl(8, 9.0, 0.01, &A2));
  em_direct_opts o;
  em_direct_opts_default(&o);
  o.backend = EM_BACKEND_CUDA;
  em_direct *F = NULL, *G = NULL;
  REQUIRE_OK(em_direct_create(A1, &o, NULL, &F));
  REQUIRE_OK(em_direct_factor(F, A2, NULL));
  REQUIRE_OK(em_direct_create(A2, &o, NULL, &G));
  em_cplx *l1, *d1, *l2, *d2;
  REQUIRE_OK(em_direct_download(F, &l1, &d1));
  REQUIRE_OK(em_direct_download(G, &l2, &d2));
  int64_t nl = F->S.lptr[F->S.ns];
  double e = rel_diff(l1, l2, nl);
  EXPECT(e <= 1e-14 && rel_diff(d1, d2, F->S.n) <= 1e-14,
         "refactored and fresh GPU factors differ by %.2e", e);
  free(l1), free(d1), free(l2), free(d2);
  em_direct_destroy(&F);
  em_direct_destroy(&G);
  em_csr_destroy(&A1);
  em_csr_destroy(&A2);
}

/* The preconditioner on device vectors: GMRES converges at once; complex
 * single factor ("mixed"): GMRES in double refines to 1e-10. */
static void test_pc(const em_csr *A, const char *name, int max_it_mixed) {
  int32_t n = A->n_rows;
  em_cplx *xt = calloc((size_t)n + 1, sizeof *xt), *b = calloc((size_t)n + 1, sizeof *b),
          *x = calloc((size_t)n + 1, sizeof *x);
  prob_rhs(A, xt, b);
  test_op op;
  REQUIRE_OK(test_op_create(A, EM_BACKEND_CUDA, EM_PREC_DOUBLE, &op));
  for (int single = 0; single < 2; single++) {
    em_pc_opts po;
    em_pc_opts_default(&po);
    po.backend = EM_BACKEND_CUDA;
    po.type = EM_PC_DIRECT;
    po.ordering = EM_ORDERING_ND;
    po.prec = single ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
    em_pc *pc = NULL;
    REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
    em_pc_info info;
    em_pc_get_info(pc, &info);
    EXPECT(!strcmp(info.impl, "direct-ldlt-gpu"), "%s: impl %s", name, info.impl);
    em_ksp_opts ko;
    em_ksp_opts_default(&ko);
    ko.method = EM_KSP_GMRES;
    ko.tol = 1e-10;
    ko.max_it = 60;
    em_ksp_stats st;
    memset(x, 0, (size_t)n * sizeof *x);
    REQUIRE_OK(em_ksp_solve(&op.op, pc, b, x, &ko, &st));
    int lim = single ? max_it_mixed : 3;
    EXPECT(st.reason == EM_KSP_CONVERGED && st.iterations <= lim && st.true_rel_res <= 1e-10,
           "%s %s: %s in %d iterations (limit %d), true residual %.2e", name,
           single ? "mixed" : "double", em_ksp_reason_name(st.reason), st.iterations, lim,
           st.true_rel_res);
    if (getenv("EM_TEST_VERBOSE"))
      fprintf(stderr, "%s, %s factor: %d GMRES iterations, true residual %.2e, pc %.4f s\n", name,
              single ? "single" : "double", st.iterations, st.true_rel_res, st.t_pc);
    em_pc_destroy(&pc);
  }
  test_op_destroy(&op);
  free(xt), free(b), free(x);
}

int main(int argc, char **argv) {
  test_backend(argc, argv); /* exits 77 without a GPU */
  if (argc > 1 && !strcmp(argv[1], "cpu")) {
    fprintf(stderr, "skipped: the GPU factorization needs a GPU\n");
    return EM_TEST_SKIP;
  }
  test_shapes();
  test_zero_pivot();
  test_refactor();
  em_csr *A = NULL;
  REQUIRE_OK(prob_curlcurl(9, 16.0, 0.001, &A)); /* indefinite, past many resonances */
  test_pc(A, "curl-curl 9^3", 8);
  em_csr_destroy(&A);
  if (argc > 2) { /* the order-2 DRA system */
    em_blockmat *B = NULL;
    int nrhs = 0;
    em_cplx *rhs = NULL;
    REQUIRE_OK(em_matfile_read(argv[2], &B, &nrhs, &rhs));
    REQUIRE_OK(em_blockmat_to_csr(B, &A));
    compare("DRA order 2", A, 1e-8, 100 * 1e-8);
    compare_small("DRA order 2, small 512", A, 1e-8, 100 * 1e-8, 512);
    test_pc(A, "DRA order 2", 12);
    em_csr_destroy(&A);
    em_blockmat_destroy(&B);
    free(rhs);
  }
  return TEST_RESULT();
}
