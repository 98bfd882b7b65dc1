/* Several right-hand sides as a block (em_ksp_solve_multi, em_pc_apply_multi)
 * against the same solves one at a time (em_ksp_solve, em_pc_apply):
 *   - every preconditioner type's block apply equals its k single applies
 *     (bit for bit on the CPU; to 1e-12 on the GPU, whose direct factor's
 *     dense kernels may round differently with k columns);
 *   - BiCGSTAB and COCG (lockstep) with none, Jacobi, ILU(0), the direct
 *     factor and pmg, and GMRES (one after another) with the direct
 *     factor, on an order-1
 *     curl-curl system and on an assembled order-3 block system through the
 *     nine-block operator: column j of the block solve has the iterates of
 *     its own solve (the same solution bit for bit, iteration count and
 *     reason on the CPU; on the GPU the same count within 2 and the
 *     solution to 1e-6), its true residual below the tolerance;
 *   - awkward columns: a zero right-hand side (x = 0, no iteration), one
 *     whose initial guess already solves it (0 iterations), one that needs
 *     a true-residual restart is not constructed: the others are enough to
 *     make columns leave the block at different iterations;
 *   - the columns in another numbering (em_ksp_opts.perm, as model/fsys.c
 *     hands the DOF-numbered columns; COCG and GMRES): the block and a
 *     single solve give
 *     the permuted solutions of the same solves in the operator's
 *     numbering (bit for bit on the CPU, the GPU's permutation kernels
 *     move values without arithmetic: 1e-6 there as above, its block
 *     solves' atomics round differently from call to call);
 *   - bad input: too many columns, a leading dimension below n, a
 *     permutation with a distributed operator is checked in test_dsolve.
 * Usage: test_ksp_block cpu|gpu. */
#include <string.h>

#include "em_assembly.h"
#include "solver_test.h"

#define K 5

static em_err lossy(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx, (void)t, (void)x;
  for (int d = 0; d < 3; d++) m->eps[d] = 2.0 - 0.05 * I, m->nu[d] = 1;
  return EM_OK;
}

/* The order-3 system of a PEC 3 x 3 x 3 box (30 mm) past its first modes. */
static em_blockmat *order3(void) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(2, 2, 2, 0.03, 0.03, 0.03, 0.15, 1, &m));
  uint8_t *ff = calloc((size_t)m->n_face, 1);
  for (int32_t f = 0; f < m->n_face; f++) ff[f] = m->face_tet[2 * f + 1] < 0;
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, 3, ff, &d));
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

/* K right-hand sides: random, zero (column 1), and A x0 with x0 the
 * initial guess of column 3 (already solved). */
static void rhs(const em_csr *A, em_cplx *B, em_cplx *X0) {
  int32_t n = A->n_rows;
  unsigned long long s = 5;
  memset(X0, 0, (size_t)K * n * sizeof *X0);
  for (int j = 0; j < K; j++)
    for (int32_t i = 0; i < n; i++)
      B[(size_t)j * n + i] =
          j == 1 ? 0 : (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
  for (int32_t i = 0; i < n; i++) X0[3 * (size_t)n + i] = cexp(I * 0.1 * i);
  em_csr_spmv_ref(A, 1, X0 + 3 * (size_t)n, 0, B + 3 * (size_t)n);
}

/* z_j = M^-1 r_j as one block apply and as K applies. */
static void check_pc_apply(em_pc *pc, em_backend be, int32_t n, const char *label) {
  em_vec *v = NULL;
  void *R = NULL, *Z1 = NULL, *Z2 = NULL;
  REQUIRE_OK(em_vec_create(be, EM_PREC_DOUBLE, n, 1, &v));
  REQUIRE_OK(v->ops->alloc(v, K, &R));
  REQUIRE_OK(v->ops->alloc(v, K, &Z1));
  REQUIRE_OK(v->ops->alloc(v, K, &Z2));
  em_cplx *h = calloc((size_t)K * n, sizeof *h), *z1 = calloc((size_t)K * n, sizeof *z1);
  em_cplx *z2 = calloc((size_t)K * n, sizeof *z2);
  unsigned long long s = 17;
  for (size_t q = 0; q < (size_t)K * n; q++)
    h[q] = (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
  const void *r[K];
  void *z[K];
  for (int j = 0; j < K; j++) {
    REQUIRE_OK(v->ops->upload(v, h + (size_t)j * n, em_vec_col(v, R, j)));
    /* every other column: not one strided block (the GPU factor stages) */
    r[j] = em_vec_col(v, R, j);
    z[j] = em_vec_col(v, Z2, (j * 2) % K);
    EXPECT_OK(em_pc_apply(pc, r[j], em_vec_col(v, Z1, (j * 2) % K)));
  }
  EXPECT_OK(em_pc_apply_multi(pc, EM_PREC_DOUBLE, K, r, z));
  for (int j = 0; j < K; j++) {
    REQUIRE_OK(v->ops->download(v, em_vec_col(v, Z1, j), z1 + (size_t)j * n));
    REQUIRE_OK(v->ops->download(v, em_vec_col(v, Z2, j), z2 + (size_t)j * n));
  }
  double e = test_rel_err(z2, z1, K * n);
  if (be == EM_BACKEND_CPU)
    EXPECT(!memcmp(z1, z2, (size_t)K * n * sizeof *z1), "%s: block apply differs (%.2e)", label, e);
  else
    EXPECT(e < 1e-12, "%s: block apply differs by %.2e", label, e);
  EXPECT_ERR(em_pc_apply_multi(pc, EM_PREC_DOUBLE, 2, r, (void *const *)r), EM_ERR_ARG);
  free(h), free(z1), free(z2);
  v->ops->free(v, &R), v->ops->free(v, &Z1), v->ops->free(v, &Z2);
  em_vec_destroy(&v);
}

/* The block solve against K single ones. */
static void check_solve(const em_operator *A, em_pc *pc, const em_csr *Ah, em_ksp_method meth,
                        em_backend be, const char *label) {
  int32_t n = A->n;
  em_cplx *B = calloc((size_t)K * n, sizeof *B), *X0 = calloc((size_t)K * n, sizeof *X0);
  em_cplx *X1 = calloc((size_t)K * n, sizeof *X1), *X2 = calloc((size_t)K * n, sizeof *X2);
  rhs(Ah, B, X0);
  em_ksp_opts o;
  em_ksp_opts_default(&o);
  o.method = meth;
  o.tol = 1e-9;
  o.max_it = 3000;
  o.restart = 30;
  em_ksp_stats s1[K], s2[K];
  memcpy(X1, X0, (size_t)K * n * sizeof *X1);
  memcpy(X2, X0, (size_t)K * n * sizeof *X2);
  for (int j = 0; j < K; j++)
    EXPECT_OK(em_ksp_solve(A, pc, B + (size_t)j * n, X1 + (size_t)j * n, &o, &s1[j]));
  EXPECT_OK(em_ksp_solve_multi(A, pc, K, B, n, X2, n, &o, s2));
  for (int j = 0; j < K; j++) {
    const em_cplx *x1 = X1 + (size_t)j * n, *x2 = X2 + (size_t)j * n;
    double e = test_rel_err(x2, x1, n), res = test_true_res(Ah, x2, B + (size_t)j * n);
    if (j == 1) {
      EXPECT(s2[j].iterations == 0 && test_rel_err(x2, x1, n) == 0 && cabs(x2[0]) == 0,
             "%s column 2 (b = 0): %d iterations", label, s2[j].iterations);
      continue;
    }
    EXPECT(s2[j].reason == EM_KSP_CONVERGED && res < 1e-8, "%s column %d: %s, true residual %.2e",
           label, j + 1, em_ksp_reason_name(s2[j].reason), res);
    if (j == 3)
      EXPECT(s2[j].iterations == 0, "%s column 4 (solved): %d iterations", label, s2[j].iterations);
    if (be == EM_BACKEND_CPU) {
      EXPECT(!memcmp(x1, x2, (size_t)n * sizeof *x1) && s1[j].iterations == s2[j].iterations &&
                 s1[j].reason == s2[j].reason,
             "%s column %d: block %d iterations, alone %d; solutions differ by %.2e", label, j + 1,
             s2[j].iterations, s1[j].iterations, e);
    } else {
      /* the GPU's SpMM and multi-column preconditioner sum in another order
         than its SpMV (and its factor's fronts add with atomics): the
         columns round differently, and the counts move with rounding.
         COCG / GMRES: within 2 + 10 %.  BiCGSTAB's count is chaotic under
         rounding on the order-3 box (H200 2026-11-27: 224 vs 245, 253 vs
         271; H100 2026-11-28: 273 vs 233; H200 2026-11-28: 295 vs 235, the
         same build passing the call before): no bound on it separates a
         defect from rounding, so BiCGSTAB is held to what is stable, the
         converged solution (1e-6 against the columns solved alone, the
         true residual above); the block apply itself is compared with
         single applies column by column in test_pc_multi_gpu, and the
         lockstep iteration bit for bit on the CPU above */
      if (meth == EM_KSP_BICGSTAB) {
        EXPECT(e < 1e-6, "%s column %d: block and alone differ by %.2e (%d / %d iterations)", label,
               j + 1, e, s2[j].iterations, s1[j].iterations);
        continue;
      }
      int spread = 2 + s1[j].iterations / 10;
      EXPECT(abs(s1[j].iterations - s2[j].iterations) <= spread && e < 1e-6,
             "%s column %d: block %d iterations, alone %d; solutions differ by %.2e", label, j + 1,
             s2[j].iterations, s1[j].iterations, e);
    }
  }
  /* the same block and column 1 alone with the columns in another
     numbering: entry i of the caller's is the operator's entry perm[i].
     Not for BiCGSTAB: the permutation is the vector backend's, the same for
     every method, and these solves half again the test's time (the GPU's
     run under ctest -j4 had reached its timeout) */
  if (meth != EM_KSP_BICGSTAB) {
    int32_t *perm = malloc((size_t)n * sizeof *perm);
    unsigned long long r = 11;
    for (int32_t i = 0; i < n; i++) perm[i] = i;
    for (int32_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
      int32_t q = (int32_t)(em_test_rand(&r) * (i + 1)), t = perm[i];
      if (q > i) q = i;
      perm[i] = perm[q], perm[q] = t;
    }
    em_cplx *Bp = calloc((size_t)K * n, sizeof *Bp), *Xp = calloc((size_t)K * n, sizeof *Xp);
    for (int j = 0; j < K; j++)
      for (int32_t i = 0; i < n; i++) {
        Bp[(size_t)j * n + i] = B[(size_t)j * n + perm[i]];
        Xp[(size_t)j * n + i] = X0[(size_t)j * n + perm[i]];
      }
    em_ksp_opts op = o;
    op.perm = perm;
    em_ksp_stats s3[K], s4;
    EXPECT_OK(em_ksp_solve_multi(A, pc, K, Bp, n, Xp, n, &op, s3));
    /* back into the operator's numbering, compared column by column */
    em_cplx *back = calloc((size_t)K * n, sizeof *back);
    for (int j = 0; j < K; j++)
      for (int32_t i = 0; i < n; i++) back[(size_t)j * n + perm[i]] = Xp[(size_t)j * n + i];
    double worst = 0;
    for (int j = 0; j < K; j++)
      worst = fmax(worst, test_rel_err(back + (size_t)j * n, X2 + (size_t)j * n, n));
    int same = !memcmp(back, X2, (size_t)K * n * sizeof *back);
    EXPECT(be == EM_BACKEND_CPU ? same : worst < 1e-6,
           "%s: the block in another numbering: %s (%.2e)", label,
           same ? "the same bits" : "differs", worst);
    em_cplx *x1p = calloc((size_t)n, sizeof *x1p), *x1 = calloc((size_t)n, sizeof *x1);
    for (int32_t i = 0; i < n; i++) x1p[i] = X0[perm[i]];
    EXPECT_OK(em_ksp_solve(A, pc, Bp, x1p, &op, &s4));
    for (int32_t i = 0; i < n; i++) x1[perm[i]] = x1p[i];
    double e1 = test_rel_err(x1, X1, n);
    EXPECT(be == EM_BACKEND_CPU ? !memcmp(x1, X1, (size_t)n * sizeof *x1) : e1 < 1e-6,
           "%s: column 1 alone in another numbering differs by %.2e", label, e1);
    free(perm), free(Bp), free(Xp), free(x1p), free(x1), free(back);
  }
  /* the time of the block is shared among its columns */
  double t = 0;
  for (int j = 0; j < K; j++) t += s2[j].t_total;
  EXPECT(t > 0 && s2[0].n_spmv > 0, "%s: block time %.3g s, %lld products", label, t,
         (long long)s2[0].n_spmv);
  free(B), free(X0), free(X1), free(X2);
}

static void run(const em_csr *Ah, const em_operator *A, em_pc_type type, const em_pc_opts *base,
                em_backend be, const char *what) {
  em_pc_opts po = *base;
  po.type = type;
  po.backend = be;
  if (type == EM_PC_DIRECT || type == EM_PC_PMG) po.ordering = EM_ORDERING_ND;
  em_pc *pc = NULL;
  REQUIRE_OK(em_pc_create(Ah, &po, NULL, &pc));
  char label[96];
  snprintf(label, sizeof label, "%s, %s", what, em_pc_type_name(type));
  check_pc_apply(pc, be, Ah->n_rows, label);
  static const em_ksp_method M[] = {EM_KSP_BICGSTAB, EM_KSP_COCG, EM_KSP_GMRES};
  for (size_t m = 0; m < sizeof M / sizeof M[0]; m++) {
    if (type == EM_PC_ILU0 && M[m] == EM_KSP_COCG) continue;    /* not symmetric here */
    if (type != EM_PC_DIRECT && M[m] == EM_KSP_GMRES) continue; /* its fallback, once */
    char l2[128];
    snprintf(l2, sizeof l2, "%s, %s", label, em_ksp_method_name(M[m]));
    check_solve(A, pc, Ah, M[m], be, l2);
  }
  em_pc_destroy(&pc);
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  EXPECT(em_ksp_has_block(EM_KSP_BICGSTAB) && em_ksp_has_block(EM_KSP_COCG) &&
             !em_ksp_has_block(EM_KSP_GMRES),
         "lockstep methods");
  /* order 1: curl-curl, the CSR operator */
  em_csr *A1 = NULL;
  REQUIRE_OK(prob_curlcurl(4, 9.0, 0.02, &A1));
  test_op t1;
  REQUIRE_OK(test_op_create(A1, be, EM_PREC_DOUBLE, &t1));
  em_pc_opts po;
  em_pc_opts_default(&po);
  static const em_pc_type T1[] = {EM_PC_NONE, EM_PC_JACOBI, EM_PC_ILU0, EM_PC_DIRECT};
  for (size_t t = 0; t < sizeof T1 / sizeof T1[0]; t++)
    run(A1, &t1.op, T1[t], &po, be, "curl-curl order 1");
  /* order 3: the nine-block operator (multi-vector products of its
     blocks), pmg with its residuals from it */
  em_blockmat *B = order3();
  em_csr *A3 = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A3));
  em_blockop_opts bo;
  em_blockop_opts_default(&bo);
  bo.backend = be;
  em_blockop *op = NULL;
  REQUIRE_OK(em_blockop_create(B, &bo, &op));
  em_operator A;
  REQUIRE_OK(em_blockop_operator(op, &A));
  po.pmg.nb = B->nb;
  memcpy(po.pmg.offset, B->offset, sizeof po.pmg.offset);
  po.pmg.coarse = 1;
  po.pmg.smoother = EM_PMG_BLOCK;
  po.pmg.sweeps = 2;
  po.pmg.op = &A;
  run(A3, &A, EM_PC_PMG, &po, be, "box order 3 (blocks)");
  run(A3, &A, EM_PC_DIRECT, &po, be, "box order 3 (blocks)");
  /* bad input */
  em_ksp_opts o;
  em_ksp_opts_default(&o);
  em_ksp_stats st[EM_KSP_MAX_BLOCK + 1];
  em_cplx *b = calloc((size_t)(EM_KSP_MAX_BLOCK + 1) * A1->n_rows, sizeof *b);
  em_cplx *x = calloc((size_t)(EM_KSP_MAX_BLOCK + 1) * A1->n_rows, sizeof *x);
  EXPECT_ERR(
      em_ksp_solve_multi(&t1.op, NULL, EM_KSP_MAX_BLOCK + 1, b, A1->n_rows, x, A1->n_rows, &o, st),
      EM_ERR_ARG);
  EXPECT_ERR(em_ksp_solve_multi(&t1.op, NULL, 2, b, A1->n_rows - 1, x, A1->n_rows, &o, st),
             EM_ERR_ARG);
  free(b), free(x);
  em_blockop_destroy(&op);
  em_blockmat_destroy(&B);
  em_csr_destroy(&A3);
  test_op_destroy(&t1);
  em_csr_destroy(&A1);
  return TEST_RESULT();
}
