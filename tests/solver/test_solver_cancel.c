/* Cancellation (issue 32): the flag emsolve's signal handler sets stops
 * 1. every Krylov method within the iteration during which it was set
 *    (EM_ERR_CANCELLED; an operator that sets it at its 10th application
 *    sees at most 2 more: BiCGStab's second product of that iteration),
 * 2. the direct factorization before its next supernode (GPU: level), on
 *    one thread and on a team, alone and as a preconditioner;
 * and a flag left at 0 changes nothing (the same solves converge, the
 * factor is made).  Usage: test_solver_cancel cpu|gpu. */
#include "solver_test.h"

/* An operator that sets *flag at its at-th application and counts them. */
typedef struct counting {
  test_op *op;
  em_cancel *flag;
  int n, at;
} counting;

static em_err counting_apply(void *ctx, const void *x, void *y) {
  counting *c = ctx;
  if (++c->n == c->at) *c->flag = 15; /* SIGTERM, as the handler stores it */
  return c->op->op.apply(c->op->op.ctx, x, y);
}

static void krylov(const em_csr *A, em_backend be) {
  int32_t n = A->n_rows;
  em_cplx *xt = calloc((size_t)n, sizeof *xt), *b = calloc((size_t)n, sizeof *b);
  em_cplx *x = calloc((size_t)n, sizeof *x);
  prob_rhs(A, xt, b);
  test_op op;
  REQUIRE_OK(test_op_create(A, be, EM_PREC_DOUBLE, &op));
  for (int m = EM_KSP_BICGSTAB; m <= EM_KSP_FGMRES; m++) {
    em_cancel flag = 0;
    for (int at = 0; at <= 10; at += 10) { /* 0: never set (the control) */
      counting c = {&op, &flag, 0, at};
      em_operator A2 = op.op;
      A2.ctx = &c;
      A2.apply = counting_apply;
      em_ksp_opts ko;
      em_ksp_opts_default(&ko);
      ko.method = (em_ksp_method)m;
      ko.tol = 1e-10;
      ko.max_it = 2000;
      ko.restart = 30;
      ko.cancel = &flag;
      em_ksp_stats st;
      flag = 0;
      memset(x, 0, (size_t)n * sizeof *x);
      em_err e = em_ksp_solve(&A2, NULL, b, x, &ko, &st);
      if (!at) {
        EXPECT(e == EM_OK && st.reason == EM_KSP_CONVERGED && c.n > 30,
               "%s, flag never set: %s after %d products (%s)", em_ksp_method_name(ko.method),
               em_ksp_reason_name(st.reason), c.n, e ? em_error_message() : "ok");
      } else {
        EXPECT(e == EM_ERR_CANCELLED && c.n >= at && c.n <= at + 2 &&
                   strstr(em_error_message(), "cancelled"),
               "%s, flag set at product %d: %s after %d products (%s)",
               em_ksp_method_name(ko.method), at, em_err_name(e), c.n, em_error_message());
      }
      em_error_clear();
    }
  }
  test_op_destroy(&op);
  free(xt), free(b), free(x);
}

static void direct(const em_csr *A, em_backend be, int threads) {
  em_cancel flag = 0;
  em_direct_opts o;
  em_direct_opts_default(&o);
  o.backend = be;
  o.threads = threads;
  o.cancel = &flag;
  em_direct *F = NULL;
  em_err e = em_direct_create(A, &o, NULL, &F);
  EXPECT(e == EM_OK, "direct (%d threads), flag 0: %s", threads, e ? em_error_message() : "ok");
  em_direct_destroy(&F);
  em_error_clear();
  flag = 2; /* SIGINT */
  e = em_direct_create(A, &o, NULL, &F);
  EXPECT(e == EM_ERR_CANCELLED && !F && strstr(em_error_message(), "cancelled"),
         "direct (%d threads), flag set: %s (%s)", threads, em_err_name(e), em_error_message());
  em_direct_destroy(&F);
  em_error_clear();
  /* the preconditioner passes its flag down */
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.type = EM_PC_DIRECT;
  po.ordering = EM_ORDERING_ND;
  po.backend = be;
  po.cancel = &flag;
  em_pc *pc = NULL;
  e = em_pc_create(A, &po, NULL, &pc);
  EXPECT(e == EM_ERR_CANCELLED && !pc, "direct preconditioner, flag set: %s (%s)", em_err_name(e),
         em_error_message());
  em_pc_destroy(&pc);
  em_error_clear();
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  em_csr *A = NULL;
  REQUIRE_OK(prob_curlcurl(5, 3.0, 0.05, &A));
  krylov(A, be);
  direct(A, be, 1);
  em_csr_destroy(&A);
  /* big enough for a team of threads (1e7 flops per thread, direct_numeric.c) */
  REQUIRE_OK(prob_laplace3d(24, 24, 24, 0.1 + 0.2 * I, &A));
  direct(A, be, 2);
  em_csr_destroy(&A);
  return TEST_RESULT();
}
