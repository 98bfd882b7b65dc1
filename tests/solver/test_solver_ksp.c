/* Every Krylov method x preconditioner x ordering against a direct solution
 * (LAPACK zgesv) of small complex symmetric systems: shifted 2D and 3D
 * Laplacians with a complex (lossy) shift inside the spectrum, Whitney
 * curl-curl FEM systems with loss below and above the first cavity
 * resonance, a random diagonally dominant symmetric matrix, and a lossless
 * indefinite Laplacian (GMRES / FGMRES only).  At tol 1e-10 the solution
 * must match the direct one to 1e-7 and the reported true residual must
 * match one recomputed here.  Usage: test_solver_ksp cpu|gpu. */
#include "solver_test.h"

void zgesv_(const int *n, const int *nrhs, em_cplx *a, const int *lda, int *ipiv, em_cplx *b,
            const int *ldb, int *info);

/* x = A^-1 b by dense LU (column-major copy of A) */
static void direct_solve(const em_csr *A, const em_cplx *b, em_cplx *x) {
  int n = A->n_rows, one = 1, info = 0;
  em_cplx *D = calloc((size_t)n * n, sizeof *D);
  int *ipiv = calloc((size_t)n, sizeof *ipiv);
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      D[(size_t)A->colind[k] * n + i] = A->val[k];
  memcpy(x, b, (size_t)n * sizeof *x);
  zgesv_(&n, &one, D, &n, ipiv, x, &n, &info);
  if (info != 0) {
    fprintf(stderr, "zgesv failed: info %d\n", info);
    exit(1);
  }
  free(D), free(ipiv);
}

typedef struct pc_case {
  em_pc_type type;
  em_pc_ordering ordering;
  em_prec prec;
  double shift;
} pc_case;

static const pc_case PCS[] = {
    {EM_PC_NONE, EM_ORDERING_NATURAL, EM_PREC_DOUBLE, 0},
    {EM_PC_JACOBI, EM_ORDERING_NATURAL, EM_PREC_DOUBLE, 0},
    {EM_PC_ILU0, EM_ORDERING_NATURAL, EM_PREC_DOUBLE, 0},
    {EM_PC_ILU0, EM_ORDERING_RCM, EM_PREC_DOUBLE, 0},
    {EM_PC_ILU0, EM_ORDERING_ND, EM_PREC_DOUBLE, 0},
    {EM_PC_ILU0, EM_ORDERING_MC, EM_PREC_DOUBLE, 0},
    {EM_PC_ILU0, EM_ORDERING_BMC, EM_PREC_DOUBLE, 0},
    {EM_PC_ILU0, EM_ORDERING_NATURAL, EM_PREC_SINGLE, 0},
    {EM_PC_ILU0, EM_ORDERING_NATURAL, EM_PREC_DOUBLE, 0.1},
};

/* Solve with every method and preconditioner; `methods` is a bit mask of
 * the em_ksp_method values expected to converge. */
static void check_problem(const char *name, const em_csr *A, em_backend be, unsigned methods,
                          int restart) {
  int32_t n = A->n_rows;
  em_cplx *xt = calloc((size_t)n, sizeof *xt), *b = calloc((size_t)n, sizeof *b);
  em_cplx *xd = calloc((size_t)n, sizeof *xd), *x = calloc((size_t)n, sizeof *x);
  prob_rhs(A, xt, b);
  direct_solve(A, b, xd);
  test_op op;
  REQUIRE_OK(test_op_create(A, be, EM_PREC_DOUBLE, &op));
  em_pc_trsv trsv[3];
  int nt = test_trsv_list(be, trsv);
  for (size_t p = 0; p < sizeof PCS / sizeof *PCS; p++)
    for (int t = 0; t < (PCS[p].type == EM_PC_ILU0 ? nt : 1); t++) {
      em_pc_opts po;
      em_pc_opts_default(&po);
      po.type = PCS[p].type;
      po.ordering = PCS[p].ordering;
      po.prec = PCS[p].prec;
      po.shift = PCS[p].shift;
      po.backend = be;
      po.trsv = trsv[t];
      em_pc *pc = NULL;
      EXPECT_OK(em_pc_create(A, &po, NULL, &pc));
      if (!pc) continue;
      em_pc_info info;
      em_pc_get_info(pc, &info);
      for (int m = EM_KSP_BICGSTAB; m <= EM_KSP_FGMRES; m++) {
        if (!(methods >> m & 1)) continue;
        /* COCR keeps z = M^-1 r by updates: cuSPARSE's single-precision
         * solve is linear only to ~1e-7 and stalls it (test_solver_single) */
        if (m == EM_KSP_COCR && po.prec == EM_PREC_SINGLE && po.trsv == EM_TRSV_CUSPARSE) continue;
        double t0 = em_wtime();
        em_ksp_opts ko;
        em_ksp_opts_default(&ko);
        ko.method = (em_ksp_method)m;
        ko.tol = 1e-10;
        ko.max_it = 20000;
        ko.restart = restart;
        em_ksp_stats st;
        unsigned long long s = 11; /* a non-zero initial guess */
        for (int32_t i = 0; i < n; i++) x[i] = 0.1 * (em_test_rand(&s) - 0.5);
        EXPECT_OK(em_ksp_solve(&op.op, pc, b, x, &ko, &st));
        double err = test_rel_err(x, xd, n), res = test_true_res(A, x, b);
        const char *what = em_ksp_method_name(ko.method);
        EXPECT(st.reason == EM_KSP_CONVERGED, "%s, %s + %s (%s, %s, %s): %s after %d iterations",
               name, what, em_pc_type_name(po.type), em_ordering_name(po.ordering),
               po.prec ? "single" : "double", info.impl, em_ksp_reason_name(st.reason),
               st.iterations);
        EXPECT(err <= 1e-7, "%s, %s + %s (%s, %s, %s): error %.2e to the direct solution", name,
               what, em_pc_type_name(po.type), em_ordering_name(po.ordering),
               po.prec ? "single" : "double", info.impl, err);
        EXPECT(fabs(st.true_rel_res - res) <= 1e-3 * res + 1e-15,
               "%s, %s: reported true residual %.3e, recomputed %.3e", name, what, st.true_rel_res,
               res);
        EXPECT(st.true_rel_res <= ko.tol || st.restarts == 3,
               "%s, %s: converged with true residual %.3e > tol", name, what, st.true_rel_res);
        EXPECT(st.n_spmv >= st.iterations && st.n_pc >= st.iterations,
               "%s, %s: %lld SpMV and %lld pc applications for %d iterations", name, what,
               (long long)st.n_spmv, (long long)st.n_pc, st.iterations);
        if (getenv("EM_TEST_VERBOSE"))
          fprintf(stderr, "%-32s %-8s %-6s %-7s %-6s %5d it %.3f s\n", name, what,
                  em_pc_type_name(po.type), em_ordering_name(po.ordering),
                  po.prec ? "single" : "double", st.iterations, em_wtime() - t0);
      }
      em_pc_destroy(&pc);
    }
  test_op_destroy(&op);
  free(xt), free(b), free(xd), free(x);
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  unsigned all = 0x1f, gmres = 1u << EM_KSP_GMRES | 1u << EM_KSP_FGMRES;
  em_csr *A = NULL;
  REQUIRE_OK(prob_laplace2d(16, 13, 1.0 + 0.2 * I, &A)); /* indefinite, lossy */
  check_problem("2D Laplacian - (1 + 0.2j)", A, be, all, 30);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_laplace3d(7, 6, 5, 2.0 + 0.4 * I, &A));
  check_problem("3D Laplacian - (2 + 0.4j)", A, be, all, 30);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_curlcurl(4, 3.0, 0.05, &A)); /* below the first resonance (4.44) */
  check_problem("curl-curl k0 = 3, tan d = 0.05", A, be, all, 50);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_curlcurl(3, 6.0, 0.1, &A)); /* above it */
  check_problem("curl-curl k0 = 6, tan d = 0.1", A, be, all, 50);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_random_sym(250, 10, 1.5, 17, &A));
  check_problem("random symmetric, restart 5", A, be, all, 5);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_laplace2d(15, 13, 0.9, &A)); /* lossless indefinite */
  check_problem("2D Laplacian - 0.9 (lossless)", A, be, gmres, 200);
  em_csr_destroy(&A);
  return TEST_RESULT();
}
