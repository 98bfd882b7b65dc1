/* EM_PC_DIRECT inside em_ksp_solve on an indefinite, nearly lossless
 * Whitney curl-curl system (k0 past many cavity resonances) where ILU(0)
 * stalls: BiCGSTAB, COCG and GMRES converge in at most 3 iterations to
 * 1e-10 with every ordering; single-precision Krylov vectors; a matrix
 * with an exactly zero pivot (perturbed, and the Krylov method recovers
 * the solution); the preconditioner's info and name; factors identical
 * with 1 and 2 threads.  Usage: test_direct_pc cpu|gpu. */
#include "direct_impl.h"
#include "pc_impl.h"
#ifdef EM_HAVE_CUDA
#include "direct_gpu_impl.h"
#endif
#include "solver_test.h"

/* Solve with pc and method; returns iterations (-1 when not converged) */
static int solve(const test_op *op, em_pc *pc, em_ksp_method m, int max_it, const em_cplx *b,
                 em_cplx *x, em_ksp_stats *st) {
  em_ksp_opts ko;
  em_ksp_opts_default(&ko);
  ko.method = m;
  ko.tol = 1e-10;
  ko.max_it = max_it;
  ko.restart = 50;
  memset(x, 0, (size_t)op->op.n * sizeof *x);
  EXPECT_OK(em_ksp_solve(&op->op, pc, b, x, &ko, st));
  return st->reason == EM_KSP_CONVERGED ? st->iterations : -1;
}

/* ILU(0) stalls, the direct preconditioner converges at once */
static void test_indefinite(em_backend be) {
  em_csr *A = NULL;
  REQUIRE_OK(prob_curlcurl(7, 16.0, 0.001, &A)); /* ~4.6 cells per wavelength */
  int32_t n = A->n_rows;
  em_cplx *xt = calloc((size_t)n, sizeof *xt), *b = calloc((size_t)n, sizeof *b);
  em_cplx *x = calloc((size_t)n, sizeof *x);
  prob_rhs(A, xt, b);
  test_op op;
  REQUIRE_OK(test_op_create(A, be, EM_PREC_DOUBLE, &op));
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.backend = be;
  em_ksp_stats st;
  /* the baseline: ILU(0), natural ordering, GMRES(50), 150 iterations */
  po.type = EM_PC_ILU0;
  em_pc *pc = NULL;
  REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
  int it = solve(&op, pc, EM_KSP_GMRES, 150, b, x, &st);
  EXPECT(it < 0 && st.true_rel_res > 1e-6, "ILU(0) was expected to stall: %d iterations, %.2e", it,
         st.true_rel_res);
  if (getenv("EM_TEST_VERBOSE"))
    fprintf(stderr, "n = %d: ilu0 + gmres %s, residual %.2e\n", n, em_ksp_reason_name(st.reason),
            st.true_rel_res);
  em_pc_destroy(&pc);
  po.type = EM_PC_DIRECT;
  static const em_pc_ordering ords[] = {EM_ORDERING_ND, EM_ORDERING_RCM, EM_ORDERING_NATURAL};
  static const em_ksp_method methods[] = {EM_KSP_BICGSTAB, EM_KSP_COCG, EM_KSP_GMRES};
  for (int o = 0; o < 3; o++) {
    po.ordering = ords[o];
    REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
    em_pc_info info;
    em_pc_get_info(pc, &info);
    const char *impl = be == EM_BACKEND_CPU ? "direct-ldlt" : "direct-ldlt-gpu";
    EXPECT(!strcmp(info.impl, impl) && info.type == EM_PC_DIRECT && info.ordering == ords[o] &&
               info.bytes > 0 && info.factor_nnz >= n && info.factor_flops > 0 &&
               info.perturbed == 0 && info.levels_lower == 0,
           "info: %s, %zu bytes, nnz %lld, %g flops, %lld perturbed", info.impl, info.bytes,
           (long long)info.factor_nnz, info.factor_flops, (long long)info.perturbed);
    for (int m = 0; m < 3; m++) {
      it = solve(&op, pc, methods[m], 20, b, x, &st);
      double res = test_true_res(A, x, b);
      EXPECT(it >= 0 && it <= 3 && res <= 1e-10,
             "direct (%s) + %s: %d iterations (%s), true residual %.2e", em_ordering_name(ords[o]),
             em_ksp_method_name(methods[m]), st.iterations, em_ksp_reason_name(st.reason), res);
      EXPECT(test_rel_err(x, xt, n) < 1e-6, "direct + %s: error %.2e",
             em_ksp_method_name(methods[m]), test_rel_err(x, xt, n));
      if (getenv("EM_TEST_VERBOSE"))
        fprintf(stderr, "direct %s + %s: %d iterations, residual %.2e, pc %.3f s\n",
                em_ordering_name(ords[o]), em_ksp_method_name(methods[m]), st.iterations, res,
                st.t_pc);
    }
    em_pc_destroy(&pc);
  }
  test_op_destroy(&op);
  /* Krylov vectors in single precision: the pc converts; ~1e-6 reachable */
  REQUIRE_OK(test_op_create(A, be, EM_PREC_SINGLE, &op));
  po.ordering = EM_ORDERING_ND;
  REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
  em_ksp_opts ko;
  em_ksp_opts_default(&ko);
  ko.method = EM_KSP_GMRES;
  ko.tol = 1e-5;
  memset(x, 0, (size_t)n * sizeof *x);
  EXPECT_OK(em_ksp_solve(&op.op, pc, b, x, &ko, &st));
  EXPECT(st.reason == EM_KSP_CONVERGED && st.iterations <= 3 && st.true_rel_res < 1e-5,
         "single vectors: %s in %d iterations, %.2e", em_ksp_reason_name(st.reason), st.iterations,
         st.true_rel_res);
  em_pc_destroy(&pc);
  test_op_destroy(&op);
  /* single-precision factors only on the GPU (test_direct_gpu checks them) */
  po.prec = EM_PREC_SINGLE;
  if (be == EM_BACKEND_CPU) EXPECT_ERR(em_pc_create(A, &po, NULL, &pc), EM_ERR_UNSUPPORTED);
  em_csr_destroy(&A);
  free(xt), free(b), free(x);
}

/* An exactly zero pivot (natural ordering, a_00 = 0): perturbed, counted,
 * and GMRES recovers the solution in a few iterations. */
static void test_zero_pivot(em_backend be) {
  em_csr *A = NULL;
  REQUIRE_OK(prob_laplace2d(12, 11, 1.0 + 0.1 * I, &A));
  int32_t n = A->n_rows;
  for (int64_t p = A->rowptr[0]; p < A->rowptr[1]; p++)
    if (A->colind[p] == 0) A->val[p] = 0;
  em_cplx *xt = calloc((size_t)n, sizeof *xt), *b = calloc((size_t)n, sizeof *b);
  em_cplx *x = calloc((size_t)n, sizeof *x);
  prob_rhs(A, xt, b);
  test_op op;
  REQUIRE_OK(test_op_create(A, be, EM_PREC_DOUBLE, &op));
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.backend = be;
  po.type = EM_PC_DIRECT;
  po.ordering = EM_ORDERING_NATURAL;
  em_pc *pc = NULL;
  REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
  em_pc_info info;
  em_pc_get_info(pc, &info);
  EXPECT(info.perturbed == 1, "%lld pivots perturbed", (long long)info.perturbed);
  em_ksp_stats st;
  int it = solve(&op, pc, EM_KSP_GMRES, 30, b, x, &st);
  EXPECT(it >= 2 && it <= 6, "zero pivot: GMRES in %d iterations (%s), residual %.2e",
         st.iterations, em_ksp_reason_name(st.reason), st.true_rel_res);
  EXPECT(test_rel_err(x, xt, n) < 1e-7, "zero pivot: error %.2e", test_rel_err(x, xt, n));
  em_pc_destroy(&pc);
  test_op_destroy(&op);
  em_csr_destroy(&A);
  free(xt), free(b), free(x);
}

/* The parallel factorization (tree tasks and tiles) and solves give the
 * sequential results bit for bit: every entry is computed in the same
 * order whatever the schedule. */
static void test_threads(void) {
  em_csr *A = NULL;
  REQUIRE_OK(prob_curlcurl(7, 6.0, 0.05, &A)); /* 0.1 GFlop: tasks and tiles */
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F1 = NULL, *F2 = NULL;
  o.threads = 1;
  REQUIRE_OK(em_direct_create(A, &o, NULL, &F1));
  o.threads = 2;
  REQUIRE_OK(em_direct_create(A, &o, NULL, &F2));
  int64_t nl = F1->S.lptr[F1->S.ns];
  EXPECT(nl == F2->S.lptr[F2->S.ns], "same structure");
  EXPECT(F1->info.flops > 2e7 * 2, "big enough for the parallel path: %.2g flops", F1->info.flops);
  int same = nl == F2->S.lptr[F2->S.ns] &&
             !memcmp(F1->lval, F2->lval, (size_t)nl * sizeof *F1->lval) &&
             !memcmp(F1->d, F2->d, (size_t)F1->S.n * sizeof *F1->d);
  EXPECT(same, "factors with 1 and 2 threads differ");
  /* the solves: 3 right-hand sides make them big enough for tasks */
  int32_t n = A->n_rows;
  em_cplx *b = calloc((size_t)n * 3, sizeof *b), *x1 = calloc((size_t)n * 3, sizeof *x1),
          *x2 = calloc((size_t)n * 3, sizeof *x2);
  unsigned long long seed = 5;
  for (int32_t i = 0; i < 3 * n; i++) b[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
  EXPECT((double)nl * 3 >= 4e5, "big enough for the parallel solve: %lld entries", (long long)nl);
  EXPECT_OK(em_direct_solve(F1, 3, b, n, x1, n));
  EXPECT_OK(em_direct_solve(F2, 3, b, n, x2, n));
  EXPECT(!memcmp(x1, x2, (size_t)n * 3 * sizeof *x1), "solves with 1 and 2 threads differ");
  for (int r = 0; r < 3; r++)
    EXPECT(test_true_res(A, x1 + (size_t)r * n, b + (size_t)r * n) < 1e-12, "residual of rhs %d",
           r);
  free(b), free(x1), free(x2);
  em_direct_destroy(&F1);
  em_direct_destroy(&F2);
  em_csr_destroy(&A);
}

/* A frequency sweep: em_pc_update with the values of another frequency
 * (same pattern) refactors on the kept analysis and gives the factor of a
 * fresh em_pc_create on those values bit for bit; ILU(0) and Jacobi are
 * rebuilt and give the same z as fresh ones. */
static void test_update(em_backend be) {
  em_csr *A1 = NULL, *A2 = NULL;
  REQUIRE_OK(prob_curlcurl(6, 6.0, 0.01, &A1));
  REQUIRE_OK(prob_curlcurl(6, 7.5, 0.01, &A2));
  EXPECT(A1->nnz == A2->nnz && !memcmp(A1->colind, A2->colind, (size_t)A1->nnz * 4),
         "the two frequencies have different patterns");
  int32_t n = A1->n_rows;
  em_cplx *r = calloc((size_t)n, sizeof *r), *z1 = calloc((size_t)n, sizeof *z1),
          *z2 = calloc((size_t)n, sizeof *z2);
  unsigned long long seed = 9;
  for (int32_t i = 0; i < n; i++) r[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
  static const em_pc_type types[] = {EM_PC_DIRECT, EM_PC_ILU0, EM_PC_JACOBI};
  for (int t = 0; t < 3; t++) {
    em_pc_opts po;
    em_pc_opts_default(&po);
    po.backend = be;
    po.type = types[t];
    po.ordering = types[t] == EM_PC_DIRECT ? EM_ORDERING_ND : EM_ORDERING_RCM;
    em_pc *pc = NULL, *fresh = NULL;
    REQUIRE_OK(em_pc_create(A1, &po, NULL, &pc));
    REQUIRE_OK(em_pc_update(pc, A2, NULL));
    REQUIRE_OK(em_pc_create(A2, &po, NULL, &fresh));
    em_pc_info in;
    em_pc_get_info(pc, &in);
    EXPECT(in.updates == 1, "%s: %d updates counted", em_pc_type_name(types[t]), in.updates);
    if (types[t] == EM_PC_DIRECT) {
      const em_direct *F = ((em_direct_pc *)pc->data)->F, *G = ((em_direct_pc *)fresh->data)->F;
      int64_t nl = F->S.lptr[F->S.ns];
      em_cplx *fl = F->lval, *fd = F->d, *gl = G->lval, *gd = G->d;
#ifdef EM_HAVE_CUDA
      if (F->gpu) { /* the factors live on the device */
        REQUIRE_OK(em_direct_download(F, &fl, &fd));
        REQUIRE_OK(em_direct_download(G, &gl, &gd));
      }
#endif
      EXPECT(nl == G->S.lptr[G->S.ns] && !memcmp(fl, gl, (size_t)nl * sizeof *fl) &&
                 !memcmp(fd, gd, (size_t)n * sizeof *fd),
             "refactored and fresh factors differ");
      if (fl != F->lval) free(fl), free(fd), free(gl), free(gd);
      em_direct_info di;
      em_direct_get_info(F, &di);
      EXPECT(di.t_order >= 0, "info");
    }
    if (be == EM_BACKEND_CPU) { /* host vectors */
      REQUIRE_OK(em_pc_apply(pc, r, z1));
      REQUIRE_OK(em_pc_apply(fresh, r, z2));
      EXPECT(!memcmp(z1, z2, (size_t)n * sizeof *z1), "%s: updated and fresh z differ",
             em_pc_type_name(types[t]));
    }
    em_pc_destroy(&pc);
    em_pc_destroy(&fresh);
  }
  free(r), free(z1), free(z2);
  em_csr_destroy(&A1);
  em_csr_destroy(&A2);
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  em_pc_type t;
  EXPECT_OK(em_pc_type_parse("direct", &t));
  EXPECT(t == EM_PC_DIRECT && !strcmp(em_pc_type_name(EM_PC_DIRECT), "direct"), "name");
  test_indefinite(be);
  test_zero_pivot(be);
  test_update(be);
  if (be == EM_BACKEND_CPU) test_threads();
  return TEST_RESULT();
}
