/* The ends of a solve that are not convergence, each with its documented
 * reason: breakdown of COCG (r^T r = 0 for r = [1, j]), COCR (z^T A z = 0),
 * BiCGSTAB (r0^H A p = 0) and GMRES/FGMRES (singular Hessenberg); the
 * iteration limit; stagnation (GMRES(1) on a rotation); divergence on an
 * operator that returns NaN; b = 0; an exact initial guess; bad arguments.
 * Usage: test_solver_breakdown cpu|gpu. */
#include <math.h>

#include "solver_test.h"

static em_csr *mat2(em_cplx a, em_cplx b, em_cplx c, em_cplx d) {
  int32_t ti[4] = {0, 0, 1, 1}, tj[4] = {0, 1, 0, 1};
  em_cplx tv[4] = {a, b, c, d};
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(2, 2, 4, ti, tj, tv, &A));
  return A;
}

/* solve A x = b (x0 = 0) on the backend, return the stats */
static em_ksp_stats solve(const em_csr *A, em_backend be, em_ksp_method m, const em_cplx *b,
                          em_cplx *x, int max_it, int restart) {
  test_op op;
  REQUIRE_OK(test_op_create(A, be, EM_PREC_DOUBLE, &op));
  em_ksp_opts o;
  em_ksp_opts_default(&o);
  o.method = m;
  o.max_it = max_it;
  o.restart = restart;
  em_ksp_stats st;
  memset(&st, 0, sizeof st);
  EXPECT_OK(em_ksp_solve(&op.op, NULL, b, x, &o, &st));
  test_op_destroy(&op);
  return st;
}

static void expect_reason(const char *what, em_ksp_stats st, em_ksp_reason r) {
  EXPECT(st.reason == r, "%s: reason %s after %d iterations, expected %s", what,
         em_ksp_reason_name(st.reason), st.iterations, em_ksp_reason_name(r));
}

/* an operator that turns to NaN after a few products */
typedef struct nan_op {
  const em_csr *A;
  int calls;
} nan_op;

static em_err nan_apply(void *ctx, const void *x, void *y) {
  nan_op *o = ctx;
  em_csr_spmv_ref(o->A, 1, x, 0, y);
  if (++o->calls > 5) ((em_cplx *)y)[0] = NAN;
  return EM_OK;
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  em_cplx b[2] = {1, I}, x[2] = {0, 0};
  em_ksp_stats st;

  em_csr *A = mat2(1, I, I, -1); /* complex symmetric, r = b: r^T r = 1 + j^2 = 0 */
  st = solve(A, be, EM_KSP_COCG, b, x, 100, 0);
  expect_reason("COCG, r^T r = 0", st, EM_KSP_BREAKDOWN);
  EXPECT(st.iterations == 0, "COCG breakdown after %d iterations", st.iterations);
  EXPECT_NEAR(st.true_rel_res, 1, 1e-14);
  em_csr_destroy(&A);

  A = mat2(1, 0, 0, 1); /* z^T A z = b^T b = 0 */
  st = solve(A, be, EM_KSP_COCR, b, x, 100, 0);
  expect_reason("COCR, z^T A z = 0", st, EM_KSP_BREAKDOWN);
  /* ... while BiCGSTAB and GMRES solve it in one step */
  st = solve(A, be, EM_KSP_BICGSTAB, b, x, 100, 0);
  expect_reason("BiCGSTAB on I", st, EM_KSP_CONVERGED);
  EXPECT(cabs(x[0] - 1) + cabs(x[1] - I) < 1e-14, "BiCGSTAB on I: x = %g%+gj, %g%+gj", creal(x[0]),
         cimag(x[0]), creal(x[1]), cimag(x[1]));
  em_csr_destroy(&A);

  A = mat2(0, 1, 1, 0); /* r0 = e1, A p = e2: r0^H A p = 0 */
  em_cplx e1[2] = {1, 0};
  x[0] = x[1] = 0;
  st = solve(A, be, EM_KSP_BICGSTAB, e1, x, 100, 0);
  expect_reason("BiCGSTAB, r0^H A p = 0", st, EM_KSP_BREAKDOWN);
  em_csr_destroy(&A);

  A = mat2(0, 1, 0, 0); /* singular: A e1 = 0 */
  for (int m = EM_KSP_GMRES; m <= EM_KSP_FGMRES; m++) {
    x[0] = x[1] = 0;
    st = solve(A, be, (em_ksp_method)m, e1, x, 100, 10);
    expect_reason(m == EM_KSP_GMRES ? "GMRES, singular" : "FGMRES, singular", st, EM_KSP_BREAKDOWN);
    EXPECT(isfinite(creal(x[0])) && isfinite(creal(x[1])), "GMRES breakdown left NaN in x");
  }
  em_csr_destroy(&A);

  A = mat2(0, 1, -1, 0); /* rotation: GMRES(1) makes no progress at all */
  x[0] = x[1] = 0;
  st = solve(A, be, EM_KSP_GMRES, e1, x, 100000, 1);
  expect_reason("GMRES(1) on a rotation", st, EM_KSP_STAGNATED);
  EXPECT(st.iterations <= 1001, "stagnation took %d iterations", st.iterations);
  em_csr_destroy(&A);

  /* the iteration limit, with the true residual reported honestly */
  REQUIRE_OK(prob_laplace2d(20, 17, 1.0 + 0.2 * I, &A));
  int32_t n = A->n_rows;
  em_cplx *xt = calloc((size_t)n, sizeof *xt), *bb = calloc((size_t)n, sizeof *bb);
  em_cplx *xx = calloc((size_t)n, sizeof *xx);
  prob_rhs(A, xt, bb);
  for (int m = EM_KSP_BICGSTAB; m <= EM_KSP_FGMRES; m++) {
    memset(xx, 0, (size_t)n * sizeof *xx);
    st = solve(A, be, (em_ksp_method)m, bb, xx, 3, 50);
    expect_reason(em_ksp_method_name((em_ksp_method)m), st, EM_KSP_MAX_ITER);
    EXPECT(st.iterations == 3, "%s: %d iterations for a limit of 3",
           em_ksp_method_name((em_ksp_method)m), st.iterations);
    double res = test_true_res(A, xx, bb);
    EXPECT(fabs(st.true_rel_res - res) <= 1e-6 * res && res < 1,
           "%s: true residual %.6e reported, %.6e recomputed", em_ksp_method_name((em_ksp_method)m),
           st.true_rel_res, res);
  }
  /* an exact initial guess: converged at once */
  memcpy(xx, xt, (size_t)n * sizeof *xx);
  st = solve(A, be, EM_KSP_BICGSTAB, bb, xx, 100, 0);
  expect_reason("exact initial guess", st, EM_KSP_CONVERGED);
  EXPECT(st.iterations == 0, "exact initial guess took %d iterations", st.iterations);
  /* b = 0: x = 0 whatever the initial guess, 0 iterations */
  memset(bb, 0, (size_t)n * sizeof *bb);
  for (int m = EM_KSP_BICGSTAB; m <= EM_KSP_FGMRES; m++) {
    for (int32_t i = 0; i < n; i++) xx[i] = 1 + I;
    st = solve(A, be, (em_ksp_method)m, bb, xx, 100, 50);
    expect_reason("b = 0", st, EM_KSP_CONVERGED);
    double mx = 0;
    for (int32_t i = 0; i < n; i++) mx = fmax(mx, cabs(xx[i]));
    EXPECT(st.iterations == 0 && mx == 0 && st.true_rel_res == 0,
           "b = 0: %d iterations, max |x| %g, residual %g", st.iterations, mx, st.true_rel_res);
  }
  /* divergence: an operator that returns NaN (CPU operator) */
  if (be == EM_BACKEND_CPU) {
    prob_rhs(A, xt, bb);
    nan_op no = {A, 0};
    em_operator op = {n, EM_BACKEND_CPU, EM_PREC_DOUBLE, &no, nan_apply, NULL, NULL, NULL};
    em_ksp_opts o;
    em_ksp_opts_default(&o);
    for (int m = EM_KSP_BICGSTAB; m <= EM_KSP_FGMRES; m++) {
      no.calls = 0;
      o.method = (em_ksp_method)m;
      memset(xx, 0, (size_t)n * sizeof *xx);
      EXPECT_OK(em_ksp_solve(&op, NULL, bb, xx, &o, &st));
      EXPECT(st.reason == EM_KSP_DIVERGED || st.reason == EM_KSP_BREAKDOWN,
             "%s on a NaN operator: %s", em_ksp_method_name(o.method),
             em_ksp_reason_name(st.reason));
    }
  }
  /* bad arguments: errors naming the culprit, no crash */
  test_op op;
  REQUIRE_OK(test_op_create(A, be, EM_PREC_DOUBLE, &op));
  em_ksp_opts o;
  em_ksp_opts_default(&o);
  o.tol = 0;
  EXPECT_ERR(em_ksp_solve(&op.op, NULL, bb, xx, &o, &st), EM_ERR_ARG);
  em_ksp_opts_default(&o);
  o.max_it = -1;
  EXPECT_ERR(em_ksp_solve(&op.op, NULL, bb, xx, &o, &st), EM_ERR_ARG);
  em_ksp_opts_default(&o);
  o.method = EM_KSP_GMRES;
  o.restart = 0;
  EXPECT_ERR(em_ksp_solve(&op.op, NULL, bb, xx, &o, &st), EM_ERR_ARG);
  em_ksp_opts_default(&o);
  o.method = (em_ksp_method)9;
  EXPECT_ERR(em_ksp_solve(&op.op, NULL, bb, xx, &o, &st), EM_ERR_ARG);
  em_ksp_opts_default(&o);
  EXPECT_ERR(em_ksp_solve(NULL, NULL, bb, xx, &o, &st), EM_ERR_ARG);
  bb[3] = NAN;
  EXPECT_ERR(em_ksp_solve(&op.op, NULL, bb, xx, &o, &st), EM_ERR_NUMERIC);
  bb[3] = 0;
  em_pc_opts po; /* a preconditioner of the wrong size */
  em_pc_opts_default(&po);
  po.type = EM_PC_JACOBI;
  po.backend = be;
  em_csr *S = mat2(1, 0, 0, 1);
  em_pc *pc = NULL;
  REQUIRE_OK(em_pc_create(S, &po, NULL, &pc));
  EXPECT_ERR(em_ksp_solve(&op.op, pc, bb, xx, &o, &st), EM_ERR_ARG);
  em_pc_destroy(&pc);
  if (be == EM_BACKEND_CUDA) { /* a CPU pc with a GPU operator */
    po.backend = EM_BACKEND_CPU;
    REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
    EXPECT_ERR(em_ksp_solve(&op.op, pc, bb, xx, &o, &st), EM_ERR_ARG);
    em_pc_destroy(&pc);
  }
  test_op_destroy(&op);
  em_csr_destroy(&S);
  em_csr_destroy(&A);
  free(xt), free(bb), free(xx);
  return TEST_RESULT();
}
