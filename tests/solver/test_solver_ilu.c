/* ILU(0) against a dense reference: for every ordering (natural, RCM, ND,
 * MC, BMC), precision and triangular solve, z = M^-1 r from the pc equals
 * U^-1 L^-1 r with L, U the dense ILU(0) of the ordered matrix (the level
 * sort inside the pc must not change the factors).  Awkward inputs: a
 * diagonal matrix, an arrow (one full row and column), a nonsymmetric
 * pattern, 1x1, 0x0.  Zero pivots and missing diagonals name the row.
 * Usage: test_solver_ilu cpu|gpu. */
#include "ilu_impl.h"
#include "solver_test.h"

/* z = U^-1 L^-1 r with L, U the dense ILU(0) of B = P (A + j shift |diag A|) P^T
 * (perm[old] = new), returned in the old numbering */
static void dense_ilu_apply(const em_csr *A, const int32_t *perm, double shift, const em_cplx *r,
                            em_cplx *z) {
  size_t n = (size_t)A->n_rows;
  em_cplx *D = calloc(n * n + 1, sizeof *D), *y = calloc(n + 1, sizeof *y);
  char *P = calloc(n * n + 1, 1);
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      size_t pi = (size_t)perm[i], pj = (size_t)perm[A->colind[k]];
      D[pi * n + pj] = A->val[k] + (pi == pj ? I * shift * cabs(A->val[k]) : 0);
      P[pi * n + pj] = 1;
    }
  for (size_t i = 1; i < n; i++)
    for (size_t k = 0; k < i; k++) {
      if (!P[i * n + k]) continue;
      D[i * n + k] /= D[k * n + k];
      for (size_t j = k + 1; j < n; j++)
        if (P[i * n + j]) D[i * n + j] -= D[i * n + k] * D[k * n + j];
    }
  for (size_t i = 0; i < n; i++) y[perm[i]] = r[i];
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < i; k++) y[i] -= D[i * n + k] * y[k];
  for (size_t i = n; i-- > 0;) {
    for (size_t j = i + 1; j < n; j++) y[i] -= D[i * n + j] * y[j];
    y[i] /= D[i * n + i];
  }
  for (size_t i = 0; i < n; i++) z[i] = y[perm[i]];
  free(D), free(y), free(P);
}

/* the ordering alone (before the pc's level sort), from the same code */
static void ordering_perm(const em_csr *A, em_pc_ordering o, int block, int32_t *perm) {
  em_graph g;
  int colors;
  REQUIRE_OK(em_graph_of(A, &g));
  REQUIRE_OK(em_graph_order(&g, o, block, perm, &colors));
  em_graph_free(&g);
}

static void check_matrix(const char *name, const em_csr *A, em_backend be) {
  int32_t n = A->n_rows;
  em_cplx *r = calloc((size_t)n + 1, sizeof *r), *z = calloc((size_t)n + 1, sizeof *z);
  em_cplx *zr = calloc((size_t)n + 1, sizeof *zr);
  int32_t *perm = calloc((size_t)n + 1, sizeof *perm);
  unsigned long long s = 5;
  for (int32_t i = 0; i < n; i++) r[i] = em_test_rand(&s) - 0.5 + I * em_test_rand(&s);
  em_pc_trsv trsv[3];
  int nt = test_trsv_list(be, trsv);
  struct {
    em_pc_ordering o;
    int block;
    double shift;
  } ords[] = {{EM_ORDERING_NATURAL, 0, 0},   {EM_ORDERING_RCM, 0, 0}, {EM_ORDERING_ND, 0, 0},
              {EM_ORDERING_MC, 0, 0},        {EM_ORDERING_BMC, 4, 0}, {EM_ORDERING_BMC, 16, 0},
              {EM_ORDERING_NATURAL, 0, 0.1}, {EM_ORDERING_ND, 0, 0.3}};
  for (size_t oi = 0; oi < sizeof ords / sizeof *ords; oi++) {
    ordering_perm(A, ords[oi].o, ords[oi].block, perm);
    dense_ilu_apply(A, perm, ords[oi].shift, r, zr);
    for (int t = 0; t < nt; t++)
      for (int p = 0; p < 2; p++)
        for (int vp = 0; vp < 2; vp++) {
          em_pc_opts o;
          em_pc_opts_default(&o);
          o.type = EM_PC_ILU0;
          o.ordering = ords[oi].o;
          o.block_size = ords[oi].block;
          o.shift = ords[oi].shift;
          o.backend = be;
          o.prec = p ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
          o.trsv = trsv[t];
          em_pc *pc = NULL;
          EXPECT_OK(em_pc_create(A, &o, NULL, &pc));
          if (!pc) continue;
          em_pc_info info;
          em_pc_get_info(pc, &info);
          EXPECT_OK(test_pc_apply_host(pc, be, vp ? EM_PREC_SINGLE : EM_PREC_DOUBLE, n, r, z));
          double e = test_rel_err(z, zr, n), tol = p || vp ? 2e-5 : 1e-12;
          EXPECT(e <= tol,
                 "%s, %s ordering (block %d, shift %g), %s factors, %s vectors, %s: error %.2e",
                 name, em_ordering_name(o.ordering), o.block_size, o.shift, p ? "single" : "double",
                 vp ? "single" : "double", info.impl, e);
          EXPECT(info.shift == o.shift, "%s: shift %g reported as %g", name, o.shift, info.shift);
          EXPECT(info.levels_lower >= (n > 0) && info.levels_lower <= n &&
                     info.levels_upper >= (n > 0) && info.levels_upper <= n,
                 "%s: levels %d / %d for n = %d", name, info.levels_lower, info.levels_upper, n);
          if (o.ordering == EM_ORDERING_MC)
            EXPECT(info.colors >= 1 || n == 0 ? info.levels_lower <= info.colors : 0,
                   "%s: MC gives %d levels for %d colours", name, info.levels_lower, info.colors);
          if (o.ordering == EM_ORDERING_BMC)
            EXPECT(info.levels_lower <= info.colors * o.block_size,
                   "%s: BMC gives %d levels for %d colours of blocks of %d", name,
                   info.levels_lower, info.colors, o.block_size);
          EXPECT(info.bytes > 0 || n == 0, "%s: no bytes reported", name);
          em_pc_destroy(&pc);
        }
  }
  free(r), free(z), free(zr), free(perm);
}

/* an n x n matrix from a dense description (0 = no entry unless diag) */
static em_csr *small(int32_t n, const em_cplx *d, int keep_zero_diag) {
  int32_t *ti = calloc((size_t)n * n + 1, sizeof *ti), *tj = calloc((size_t)n * n + 1, sizeof *tj);
  em_cplx *tv = calloc((size_t)n * n + 1, sizeof *tv);
  int64_t m = 0;
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < n; j++)
      if (d[i * n + j] != 0 || (keep_zero_diag && i == j))
        ti[m] = i, tj[m] = j, tv[m++] = d[i * n + j];
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(n, n, m, ti, tj, tv, &A));
  free(ti), free(tj), free(tv);
  return A;
}

static void check_errors(em_backend be) {
  em_pc_opts o;
  em_pc_opts_default(&o);
  o.type = EM_PC_ILU0;
  o.backend = be;
  em_pc *pc = NULL;
  em_pc_trsv trsv[3];
  int nt = test_trsv_list(be, trsv);
  const em_cplx swap[4] = {0, 1, 1, 0}, sing[4] = {1, 1, 1, 1};
  em_csr *A0 = small(2, swap, 1), *A1 = small(2, swap, 0), *A2 = small(2, sing, 0);
  for (int t = 0; t < nt; t++) {
    o.trsv = trsv[t];
    EXPECT_ERR(em_pc_create(A0, &o, NULL, &pc), EM_ERR_NUMERIC); /* zero pivot at row 0 */
    EXPECT(pc == NULL, "no pc after an error");
    em_error_clear();
    em_err e = em_pc_create(A1, &o, NULL, &pc); /* no diagonal */
    EXPECT(e == EM_ERR_NUMERIC && strstr(em_error_message(), "row 0"), "missing diagonal: %s '%s'",
           em_err_name(e), em_error_message());
    em_error_clear();
    e = em_pc_create(A2, &o, NULL, &pc); /* u_11 = 1 - 1 = 0 */
    EXPECT(e == EM_ERR_NUMERIC && strstr(em_error_message(), "row 1"),
           "eliminated zero pivot: %s '%s'", em_err_name(e), em_error_message());
    em_error_clear();
  }
  o.type = EM_PC_JACOBI; /* Jacobi on a zero diagonal names the row too */
  em_err e = em_pc_create(A0, &o, NULL, &pc);
  EXPECT(e == EM_ERR_NUMERIC && strstr(em_error_message(), "row 0"), "Jacobi zero diagonal: '%s'",
         em_error_message());
  em_error_clear();
  o.type = EM_PC_ILU0; /* non-square, bad options */
  em_csr *R = NULL;
  REQUIRE_OK(em_csr_create(2, 3, 0, &R));
  EXPECT_ERR(em_pc_create(R, &o, NULL, &pc), EM_ERR_ARG);
  o.ordering = (em_pc_ordering)42;
  EXPECT_ERR(em_pc_create(A2, &o, NULL, &pc), EM_ERR_ARG);
  o.ordering = EM_ORDERING_NATURAL;
  o.backend = EM_BACKEND_CPU;
  o.trsv = EM_TRSV_SYNCFREE;
  EXPECT_ERR(em_pc_create(A2, &o, NULL, &pc), EM_ERR_ARG);
  em_csr_destroy(&A0), em_csr_destroy(&A1), em_csr_destroy(&A2), em_csr_destroy(&R);
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  em_csr *A = NULL;
  REQUIRE_OK(prob_random_sym(61, 8, 1.2, 3, &A));
  check_matrix("random symmetric", A, be);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_laplace2d(9, 7, 0.5 + 0.3 * I, &A));
  check_matrix("shifted 2D Laplacian", A, be);
  em_csr_destroy(&A);
  REQUIRE_OK(prob_curlcurl(3, 2.0, 0.05, &A));
  check_matrix("curl-curl", A, be);
  em_csr_destroy(&A);
  /* diagonal only; an arrow: row and column 0 full; 1x1; 0x0 */
  int32_t n = 37;
  em_cplx *d = calloc((size_t)n * n, sizeof *d);
  for (int32_t i = 0; i < n; i++) d[i * n + i] = 2 + i + I;
  A = small(n, d, 0);
  check_matrix("diagonal", A, be);
  em_csr_destroy(&A);
  for (int32_t i = 1; i < n; i++) d[i] = d[i * n] = 0.3 - 0.1 * I * i;
  d[0] = 40;
  A = small(n, d, 0);
  check_matrix("arrow", A, be);
  em_csr_destroy(&A);
  for (int32_t i = 2; i < n; i += 3) d[i * n + i - 1] = 0.25; /* nonsymmetric pattern */
  A = small(n, d, 0);
  check_matrix("nonsymmetric pattern", A, be);
  em_csr_destroy(&A);
  A = small(1, d, 0);
  check_matrix("1x1", A, be);
  em_csr_destroy(&A);
  REQUIRE_OK(em_csr_create(0, 0, 0, &A));
  check_matrix("0x0", A, be);
  em_csr_destroy(&A);
  free(d);
  check_errors(be);
  return TEST_RESULT();
}
