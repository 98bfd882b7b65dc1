/* The preconditioner interface (em_pc), every type on one backend, factors
 * in double and single, vectors in double and single: the conformance
 * suite a new preconditioner must pass before its own test.  On a 1-D
 * chain (tridiagonal: ILU(0) has no fill there), a shifted 3-D Laplacian
 * (210 rows, not a multiple of 32), a random complex symmetric matrix and a
 * 1x1 system, each (type, factor precision, vector precision) must
 *   - build and report its type and precision;
 *   - give a finite z = M^-1 r, the same again after em_pc_update with the
 *     same matrix;
 *   - be linear: M^-1 (r1 + a r2) = M^-1 r1 + a M^-1 r2;
 *   - be complex symmetric where the type promises it (none, Jacobi,
 *     direct, pmg): r1^T M^-1 r2 = r2^T M^-1 r1;
 *   - be what it is: none z = r, Jacobi z = r / diag(A), direct A z = r,
 *     ILU(0) on the chain A z = r (the factors are exact without fill);
 * or refuse the combination with EM_ERR_UNSUPPORTED (pmg takes complex
 * double vectors only), never fail otherwise.  Tolerances: 1e-11 with
 * double factors and vectors, 2e-5 where either is single (rounding of
 * inputs and factors, linear in n here).  On the GPU every triangular solve
 * of ILU(0) (levels, sync-free, cuSPARSE) is run.
 * Usage: test_pc_conformance cpu|gpu. */
#include "solver_test.h"

typedef struct pcase {
  const char *name;
  em_csr *A;
  int chain; /* 1: no fill, ILU(0) is exact */
} pcase;

static unsigned long long seed = 4242;

static void rand_vec(em_cplx *v, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    v[i] = (2 * em_test_rand(&seed) - 1) + I * (2 * em_test_rand(&seed) - 1);
}

static double norm_inf(const em_cplx *v, int32_t n) {
  double m = 0;
  for (int32_t i = 0; i < n; i++) m = fmax(m, cabs(v[i]));
  return m;
}

/* The chain -1, 2 - s, -1: a 1-D Laplacian, tridiagonal. */
static em_csr *chain(int32_t n) {
  em_csr *A = NULL;
  REQUIRE_OK(prob_laplace2d(n, 1, 0.3 - 0.2 * I, &A));
  return A;
}

/* Options of one combination; the pmg groups: the first half coarse. */
static void opts_of(em_pc_type t, em_backend be, em_prec fp, em_pc_trsv trsv, int32_t n,
                    em_pc_opts *o) {
  em_pc_opts_default(o);
  o->type = t;
  o->backend = be;
  o->prec = fp;
  o->trsv = trsv;
  o->mem_limit = 1e9;
  if (t == EM_PC_PMG) {
    o->pmg.nb = 2;
    o->pmg.offset[0] = 0;
    o->pmg.offset[1] = n / 2;
    o->pmg.offset[2] = n;
    o->pmg.coarse = 1;
    o->pmg.smoother = EM_PMG_JACOBI;
    o->pmg.sweeps = 2;
  }
}

/* z = M^-1 r; 1 when the combination is refused as unsupported. */
static int apply(em_pc *pc, em_backend be, em_prec vp, int32_t n, const em_cplx *r, em_cplx *z,
                 const char *label) {
  em_err e = test_pc_apply_host(pc, be, vp, n, r, z);
  if (e == EM_ERR_UNSUPPORTED) {
    em_error_clear();
    return 1;
  }
  if (e) {
    EXPECT(0, "%s: apply failed", label);
    em_error_print(stderr);
    em_error_clear();
    return 1;
  }
  return 0;
}

static void check(const pcase *c, em_pc_type t, em_backend be, em_prec fp, em_prec vp,
                  em_pc_trsv trsv, int *runs, int *refused) {
  const em_csr *A = c->A;
  int32_t n = A->n_rows;
  char label[160];
  snprintf(label, sizeof label, "%s [%s %s factors, %s vectors, trsv %d]", c->name,
           em_pc_type_name(t), fp == EM_PREC_DOUBLE ? "double" : "single",
           vp == EM_PREC_DOUBLE ? "double" : "single", (int)trsv);
  double tol = fp == EM_PREC_DOUBLE && vp == EM_PREC_DOUBLE ? 1e-11 : 2e-5;
  em_pc_opts o;
  opts_of(t, be, fp, trsv, n, &o);
  if (t == EM_PC_PMG && n < 2) return; /* two groups need two rows */
  em_pc *pc = NULL;
  em_err e = em_pc_create(A, &o, NULL, &pc);
  if (e == EM_ERR_UNSUPPORTED) {
    em_error_clear();
    (*refused)++;
    return;
  }
  if (e) {
    EXPECT(0, "%s: create failed", label);
    em_error_print(stderr);
    em_error_clear();
    return;
  }
  em_pc_info info;
  em_pc_get_info(pc, &info);
  EXPECT(info.type == t, "%s: reports type %s", label, em_pc_type_name(info.type));
  size_t sz = (size_t)n + 1;
  em_cplx *r1 = calloc(sz, sizeof *r1), *r2 = calloc(sz, sizeof *r2), *r3 = calloc(sz, sizeof *r3);
  em_cplx *z1 = calloc(sz, sizeof *z1), *z2 = calloc(sz, sizeof *z2), *z3 = calloc(sz, sizeof *z3);
  em_cplx *w = calloc(sz, sizeof *w);
  rand_vec(r1, n);
  rand_vec(r2, n);
  em_cplx a = 0.7 - 0.4 * I;
  for (int32_t i = 0; i < n; i++) r3[i] = r1[i] + a * r2[i];
  if (apply(pc, be, vp, n, r1, z1, label)) {
    (*refused)++;
    goto done;
  }
  (*runs)++;
  EXPECT(apply(pc, be, vp, n, r2, z2, label) == 0, "%s: second apply", label);
  EXPECT(apply(pc, be, vp, n, r3, z3, label) == 0, "%s: third apply", label);
  int finite = 1;
  for (int32_t i = 0; i < n; i++) finite &= isfinite(creal(z1[i])) && isfinite(cimag(z1[i]));
  EXPECT(finite, "%s: z not finite", label);
  /* linearity */
  for (int32_t i = 0; i < n; i++) w[i] = z1[i] + a * z2[i];
  double zs = fmax(norm_inf(z1, n) + cabs(a) * norm_inf(z2, n), 1e-300);
  for (int32_t i = 0; i < n; i++) w[i] -= z3[i];
  EXPECT(norm_inf(w, n) <= tol * zs, "%s: not linear (%.3g)", label, norm_inf(w, n) / zs);
  /* symmetry */
  if (t != EM_PC_ILU0) {
    em_cplx s12 = 0, s21 = 0;
    double m = 0;
    for (int32_t i = 0; i < n; i++) {
      s12 += r1[i] * z2[i];
      s21 += r2[i] * z1[i];
      m += cabs(r1[i]) * cabs(z2[i]) + cabs(r2[i]) * cabs(z1[i]);
    }
    EXPECT(cabs(s12 - s21) <= tol * fmax(m, 1e-300), "%s: not symmetric (%.3g)", label,
           cabs(s12 - s21) / m);
  }
  /* what it is */
  if (t == EM_PC_NONE || t == EM_PC_JACOBI) {
    double err = 0, sc = 0;
    for (int32_t i = 0; i < n; i++) {
      em_cplx d = 1;
      if (t == EM_PC_JACOBI)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
          if (A->colind[k] == i) d = A->val[k];
      err = fmax(err, cabs(z1[i] - r1[i] / d));
      sc = fmax(sc, cabs(r1[i] / d));
    }
    EXPECT(err <= tol * sc, "%s: z != D^-1 r (%.3g)", label, err / sc);
  }
  if (t == EM_PC_DIRECT || (t == EM_PC_ILU0 && c->chain)) {
    em_csr_spmv_ref(A, 1, z1, 0, w);
    double err = 0, sc = 0;
    for (int32_t i = 0; i < n; i++) {
      err = fmax(err, cabs(w[i] - r1[i]));
      sc = fmax(sc, cabs(r1[i]));
    }
    /* the residual of an exact inverse grows with the condition; these are
       well conditioned (shifted, diagonally dominant) */
    EXPECT(err <= 100 * tol * sc, "%s: A M^-1 r != r (%.3g)", label, err / sc);
  }
  /* update with the same matrix: the same operator */
  e = em_pc_update(pc, A, NULL);
  if (e) {
    EXPECT(0, "%s: update failed", label);
    em_error_print(stderr);
    em_error_clear();
  } else if (!apply(pc, be, vp, n, r1, w, label)) {
    for (int32_t i = 0; i < n; i++) w[i] -= z1[i];
    EXPECT(norm_inf(w, n) <= tol * fmax(norm_inf(z1, n), 1e-300),
           "%s: z changed after em_pc_update (%.3g)", label, norm_inf(w, n) / norm_inf(z1, n));
  }
done:
  em_pc_destroy(&pc);
  free(r1), free(r2), free(r3), free(z1), free(z2), free(z3), free(w);
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  pcase c[4] = {{"chain 97", chain(97), 1},
                {"laplace3d 7x6x5", NULL, 0},
                {"random sym 201", NULL, 0},
                {"1x1", chain(1), 1}};
  REQUIRE_OK(prob_laplace3d(7, 6, 5, 0.5 - 0.3 * I, &c[1].A));
  REQUIRE_OK(prob_random_sym(201, 6, 2.0, 17, &c[2].A));
  static const em_pc_type TYPES[] = {EM_PC_NONE, EM_PC_JACOBI, EM_PC_ILU0, EM_PC_DIRECT, EM_PC_PMG};
  em_pc_trsv trsv[3];
  int ntrsv = test_trsv_list(be, trsv), runs = 0, refused = 0;
  for (int ci = 0; ci < 4; ci++)
    for (int ti = 0; ti < 5; ti++)
      for (int fp = 0; fp < 2; fp++)
        for (int vp = 0; vp < 2; vp++)
          for (int k = 0; k < (TYPES[ti] == EM_PC_ILU0 ? ntrsv : 1); k++)
            check(&c[ci], TYPES[ti], be, fp ? EM_PREC_SINGLE : EM_PREC_DOUBLE,
                  vp ? EM_PREC_SINGLE : EM_PREC_DOUBLE,
                  TYPES[ti] == EM_PC_ILU0 ? trsv[k] : EM_TRSV_AUTO, &runs, &refused);
  printf("%d combinations checked, %d refused as unsupported, on the %s\n", runs, refused,
         be == EM_BACKEND_CPU ? "CPU" : "GPU");
  EXPECT(runs > 0, "nothing ran");
  for (int ci = 0; ci < 4; ci++) em_csr_destroy(&c[ci].A);
  return TEST_RESULT();
}
