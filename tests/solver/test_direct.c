/* The sparse direct solver against dense LU (LAPACK zgesv) on complex
 * symmetric indefinite matrices of many shapes: sizes 0, 1, 2 and odd
 * sizes, diagonal, tridiagonal, random sparse, dense, a dense row,
 * disconnected components, order-1 and order-2 Nedelec FEM patterns; three
 * right-hand sides with leading dimensions above n and in place; natural,
 * RCM and ND orderings; own and BLAS kernels.  The symbolic factorization
 * against a plain dense symbolic elimination (nnz(L), every supernode's
 * rows); refactorization with new values; the symmetric part of a
 * non-symmetric matrix; badly scaled rows (equilibration); bad input: empty and zero rows/columns,
 * non-finite entries, entries outside the analysed pattern, zero pivots. */
#include <complex.h>
#include <string.h>

#include "direct_impl.h"
#include "em_test.h"
#include "fem_pattern.h"
#include "problems.h"

void zgesv_(const int *n, const int *nrhs, em_cplx *a, const int *lda, int *ipiv, em_cplx *b,
            const int *ldb, int *info);

/* ---------------------------------------------------------- matrices */

typedef enum shape {
  DIAG,     /* diagonal */
  TRIDIAG,  /* tridiagonal */
  SPARSE,   /* random, ~6 entries per row */
  DENSE,    /* every entry */
  ARROW,    /* sparse + a dense row/column in the middle */
  TWO_COMP, /* two disconnected random blocks */
  FEM1,     /* order-1 Nedelec pattern, 2^3 box */
  FEM2      /* order-2 Nedelec pattern, 2^3 box */
} shape;

static const char *const SHAPES[] = {"diagonal", "tridiagonal",    "sparse",      "dense",
                                     "arrow",    "two components", "fem order 1", "fem order 2"};

static em_cplx rnd(unsigned long long *s) {
  return (em_test_rand(s) - 0.5) * 2 + I * (em_test_rand(s) - 0.5) * 2;
}

/* Add a(i,j) = a(j,i) = v to the dense matrix D (n x n, column-major) */
static void put(em_cplx *D, int32_t n, int32_t i, int32_t j, em_cplx v) {
  D[i + (size_t)j * n] = v;
  D[j + (size_t)i * n] = v;
}

/* Complex symmetric, indefinite, diagonally dominant (well conditioned)
 * or not (dom = 0: random diagonal too), as a dense column-major array. */
static em_cplx *make_dense(shape sh, int32_t n, double dom, unsigned long long seed) {
  em_cplx *D = calloc((size_t)n * n + 1, sizeof *D);
  unsigned long long s = seed;
  if (sh == FEM1 || sh == FEM2) {
    em_csr *A = NULL;
    REQUIRE_OK(em_fem_pattern_box(2, sh == FEM1 ? 1 : 2, (unsigned)seed, &A, NULL));
    for (int32_t i = 0; i < A->n_rows && i < n; i++)
      for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        if (A->colind[p] < n) D[i + (size_t)A->colind[p] * n] = A->val[p];
    em_csr_destroy(&A);
  } else {
    int32_t half = n / 2;
    for (int32_t i = 0; i < n; i++) {
      if (sh == TRIDIAG && i + 1 < n) put(D, n, i, i + 1, rnd(&s));
      if (sh == DENSE)
        for (int32_t j = i + 1; j < n; j++) put(D, n, i, j, rnd(&s));
      if (sh == SPARSE || sh == ARROW || sh == TWO_COMP)
        for (int t = 0; t < 3; t++) {
          int32_t j = (int32_t)(em_test_rand(&s) * n);
          if (sh == TWO_COMP) /* stay in i's half */
            j = i < half ? (int32_t)(em_test_rand(&s) * half)
                         : half + (int32_t)(em_test_rand(&s) * (n - half));
          if (j != i && j < n) put(D, n, i, j, rnd(&s));
        }
      if (sh == ARROW && i != half) put(D, n, i, half, rnd(&s));
    }
  }
  for (int32_t i = 0; i < n; i++) { /* indefinite: both signs, complex */
    double sum = 0;
    for (int32_t j = 0; j < n; j++)
      if (j != i) sum += cabs(D[i + (size_t)j * n]);
    double sign = em_test_rand(&s) < 0.5 ? -1 : 1;
    D[i + (size_t)i * n] =
        dom > 0 ? sign * (dom * sum + 1) + 0.3 * I * (em_test_rand(&s) - 0.5) : rnd(&s) + sign;
  }
  return D;
}

static em_csr *to_csr(const em_cplx *D, int32_t n) {
  int64_t nnz = 0;
  for (size_t p = 0; p < (size_t)n * n; p++) nnz += D[p] != 0;
  int32_t *ti = calloc((size_t)nnz + 1, sizeof *ti), *tj = calloc((size_t)nnz + 1, sizeof *tj);
  em_cplx *tv = calloc((size_t)nnz + 1, sizeof *tv);
  int64_t q = 0;
  for (int32_t j = 0; j < n; j++)
    for (int32_t i = 0; i < n; i++)
      if (D[i + (size_t)j * n] != 0) ti[q] = i, tj[q] = j, tv[q++] = D[i + (size_t)j * n];
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_from_triplets(n, n, nnz, ti, tj, tv, &A));
  free(ti), free(tj), free(tv);
  return A;
}

/* X = D^-1 B by zgesv (B, X column-major n x nrhs) */
static void dense_solve(const em_cplx *D, int32_t n, int nrhs, const em_cplx *B, em_cplx *X) {
  if (n == 0) return;
  int nn = n, nr = nrhs, info = 0;
  em_cplx *W = malloc((size_t)n * n * sizeof *W);
  int *ipiv = malloc((size_t)n * sizeof *ipiv);
  memcpy(W, D, (size_t)n * n * sizeof *W);
  memcpy(X, B, (size_t)n * nrhs * sizeof *X);
  zgesv_(&nn, &nr, W, &nn, ipiv, X, &nn, &info);
  if (info != 0) {
    fprintf(stderr, "zgesv: info %d\n", info);
    exit(1);
  }
  free(W), free(ipiv);
}

/* ------------------------------------------------- symbolic reference */

/* The filled pattern of P A P^T by dense elimination: F[i + j n] = 1 for
 * L(i,j) != 0, i >= j.  Returns nnz(L). */
static int64_t dense_symbolic(const em_csr *A, const int32_t *perm, char *Fp) {
  int32_t n = A->n_rows;
  memset(Fp, 0, (size_t)n * n);
  for (int32_t i = 0; i < n; i++) {
    Fp[perm[i] + (size_t)perm[i] * n] = 1;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int32_t a = perm[i], b = perm[A->colind[p]];
      Fp[a + (size_t)b * n] = Fp[b + (size_t)a * n] = 1;
    }
  }
  int64_t nnz = 0;
  for (int32_t k = 0; k < n; k++)
    for (int32_t i = k; i < n; i++) {
      if (!Fp[i + (size_t)k * n]) continue;
      nnz++;
      for (int32_t j = k + 1; j <= i; j++)
        if (Fp[j + (size_t)k * n]) Fp[i + (size_t)j * n] = Fp[j + (size_t)i * n] = 1;
    }
  return nnz;
}

/* nnz(L) and every supernode's rows against the dense elimination */
static void check_symbolic(const char *what, const em_csr *A, const em_direct *F) {
  const em_dsym *S = &F->S;
  int32_t n = S->n;
  char *Fp = calloc((size_t)n * n + 1, 1);
  int64_t nnz = dense_symbolic(A, S->perm, Fp);
  EXPECT(nnz == S->nnz_l, "%s: nnz(L) = %lld, dense elimination %lld", what, (long long)S->nnz_l,
         (long long)nnz);
  int bad = 0;
  for (int32_t s = 0; s < S->ns && !bad; s++) {
    int32_t c0 = S->super[s], c1 = S->super[s + 1];
    char *in = calloc((size_t)n + 1, 1);
    for (int64_t p = S->rptr[s]; p < S->rptr[s + 1]; p++) {
      if (p > S->rptr[s] && S->rows[p] <= S->rows[p - 1]) bad = 1; /* ascending */
      in[S->rows[p]] = 1;
    }
    for (int32_t j = c0; j < c1; j++) EXPECT(S->rows[S->rptr[s] + j - c0] == j, "own columns");
    for (int32_t i = c1; i < n; i++) { /* below rows = union of the columns' structures */
      int any = 0;
      for (int32_t j = c0; j < c1; j++) any |= Fp[i + (size_t)j * n];
      if (any != in[i]) bad = 1;
    }
    free(in);
    EXPECT(!bad, "%s: rows of supernode %d (columns %d..%d) differ from the filled pattern", what,
           s, c0, c1 - 1);
  }
  int32_t covered = 0;
  for (int32_t s = 0; s < S->ns; s++) covered += S->super[s + 1] - S->super[s];
  EXPECT(covered == n && (S->ns == 0 || S->super[0] == 0), "%s: supernodes cover %d of %d", what,
         covered, n);
  for (int32_t s = 0; s < S->ns; s++)
    EXPECT(S->sparent[s] == -1 || S->sparent[s] > s, "%s: parent of %d is %d", what, s,
           S->sparent[s]);
  free(Fp);
}

/* ----------------------------------------------------------- checks */

static double max_abs(const em_cplx *x, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, cabs(x[i]));
  return m;
}

/* max |x - y| / max |y| over nrhs columns of leading dimensions ldx, n */
static double rel_diff(const em_cplx *x, int64_t ldx, const em_cplx *y, int32_t n, int nrhs) {
  double e = 0, s = 0;
  for (int r = 0; r < nrhs; r++)
    for (int32_t i = 0; i < n; i++) {
      e = fmax(e, cabs(x[r * ldx + i] - y[(size_t)r * n + i]));
      s = fmax(s, cabs(y[(size_t)r * n + i]));
    }
  return s > 0 ? e / s : e;
}

/* A system and its dense solution: 3 right-hand sides, ld n + 2 */
typedef struct sys {
  int32_t n;
  const em_cplx *D;
  em_csr *A;
  em_cplx *B, *Bd, *Xd; /* B with ld n + 2; Bd, Xd = D^-1 Bd with ld n */
} sys;

enum { NRHS = 3 };

static sys sys_make(const em_cplx *D, int32_t n) {
  sys y = {n, D, to_csr(D, n), NULL, NULL, NULL};
  int64_t ld = n + 2;
  y.B = calloc((size_t)ld * NRHS + 1, sizeof *y.B);
  y.Bd = calloc((size_t)n * NRHS + 1, sizeof *y.Bd);
  y.Xd = calloc((size_t)n * NRHS + 1, sizeof *y.Xd);
  unsigned long long s = 99;
  for (int r = 0; r < NRHS; r++)
    for (int32_t i = 0; i < n; i++) y.B[r * ld + i] = y.Bd[(size_t)r * n + i] = rnd(&s);
  dense_solve(D, n, NRHS, y.Bd, y.Xd);
  return y;
}

static void sys_free(sys *y) {
  em_csr_destroy(&y->A);
  free(y->B), free(y->Bd), free(y->Xd);
}

/* Factor the system with options o, solve its right-hand sides, compare
 * with zgesv, again in place; check the symbolic factorization.  Returns
 * the factor (or NULL). */
static em_direct *check_solve(const char *what, const sys *y, const em_direct_opts *o, double tol) {
  int32_t n = y->n;
  int64_t ld = n + 2;
  em_cplx *X = calloc((size_t)ld * NRHS + 1, sizeof *X),
          *B = calloc((size_t)ld * NRHS + 1, sizeof *B);
  memcpy(B, y->B, (size_t)ld * NRHS * sizeof *B);
  em_direct *F = NULL;
  EXPECT_OK(em_direct_create(y->A, o, NULL, &F));
  if (F) {
    EXPECT_OK(em_direct_solve(F, NRHS, B, ld, X, ld));
    double e = rel_diff(X, ld, y->Xd, n, NRHS);
    EXPECT(e <= tol, "%s (%s, %s): error %.2e to zgesv", what, em_ordering_name(o->ordering),
           F->info.kernels, e);
    EXPECT(F->info.perturbed == 0, "%s: %lld pivots perturbed", what, (long long)F->info.perturbed);
    EXPECT_OK(em_direct_solve(F, NRHS, B, ld, B, ld)); /* in place */
    e = rel_diff(B, ld, y->Xd, n, NRHS);
    EXPECT(e <= tol, "%s: in-place error %.2e", what, e);
    check_symbolic(what, y->A, F);
  }
  free(X), free(B);
  return F;
}

/* every shape, size, ordering; own vs BLAS kernels agree */
static void test_shapes(void) {
  static const int32_t sizes[] = {1, 2, 3, 7, 31, 64, 65, 101, 200};
  static const em_pc_ordering ords[] = {EM_ORDERING_NATURAL, EM_ORDERING_RCM, EM_ORDERING_ND};
  for (int sh = DIAG; sh <= FEM2; sh++)
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
      int32_t n = sizes[z];
      if ((sh == FEM1 || sh == FEM2) && n < 31) continue;
      if (sh == FEM1 && n > 56) n = 56; /* the whole 2^3 box at order 1 */
      em_cplx *D = make_dense((shape)sh, n, 1.2, 1000 + 17 * sh + n);
      sys y = sys_make(D, n);
      char what[64];
      snprintf(what, sizeof what, "%s n=%d", SHAPES[sh], n);
      for (size_t o = 0; o < 3; o++) {
        em_direct_opts opts;
        em_direct_opts_default(&opts);
        opts.ordering = ords[o];
        opts.kernels = EM_DIRECT_OWN;
        em_direct *F = check_solve(what, &y, &opts, 1e-11);
        if (F && em_direct_blas_built()) { /* the same factor through BLAS */
          opts.kernels = EM_DIRECT_BLAS;
          em_direct *G = check_solve(what, &y, &opts, 1e-11);
          if (G) {
            int64_t nl = F->S.lptr[F->S.ns];
            double e = 0, sc = max_abs(F->lval, (size_t)nl);
            for (int64_t p = 0; p < nl; p++) e = fmax(e, cabs(F->lval[p] - G->lval[p]));
            for (int32_t i = 0; i < n; i++) e = fmax(e, cabs(F->d[i] - G->d[i]) / cabs(F->d[i]));
            EXPECT(e <= 1e-12 * fmax(1, sc), "%s: own and BLAS factors differ by %.2e", what, e);
          }
          em_direct_destroy(&G);
        }
        em_direct_destroy(&F);
      }
      sys_free(&y);
      free(D);
    }
}

/* not diagonally dominant: dense random and FEM values as they come */
static void test_not_dominant(void) {
  for (int32_t n = 5; n <= 120; n += 23) {
    em_cplx *D = make_dense(DENSE, n, 0, 7 + n);
    sys y = sys_make(D, n);
    em_direct_opts o;
    em_direct_opts_default(&o);
    em_direct *F = check_solve("dense, not dominant", &y, &o, 1e-8);
    em_direct_destroy(&F);
    sys_free(&y);
    free(D);
  }
  em_cplx *D = make_dense(FEM2, 150, 0, 3);
  sys y = sys_make(D, 150);
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F = check_solve("fem order 2, not dominant", &y, &o, 1e-8);
  em_direct_destroy(&F);
  sys_free(&y);
  free(D);
}

/* n = 0 and a 1 x 1 system */
static void test_tiny(void) {
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(0, 0, 0, &A));
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F = NULL;
  EXPECT_OK(em_direct_create(A, &o, NULL, &F));
  EXPECT(F && F->info.nnz_l == 0, "0 x 0: nnz(L)");
  em_cplx dummy = 0;
  if (F) EXPECT_OK(em_direct_solve(F, 1, &dummy, 0, &dummy, 0));
  em_direct_destroy(&F);
  em_csr_destroy(&A);
  em_cplx a = 2 - 3 * I, b = 1 + I, x = 0;
  REQUIRE_OK(em_csr_from_triplets(1, 1, 1, &(int32_t){0}, &(int32_t){0}, &a, &A));
  EXPECT_OK(em_direct_create(A, &o, NULL, &F));
  if (F) {
    EXPECT_OK(em_direct_solve(F, 1, &b, 1, &x, 1));
    EXPECT(cabs(x - b / a) < 1e-15, "1 x 1: x = %g%+gi", creal(x), cimag(x));
  }
  em_direct_destroy(&F);
  em_csr_destroy(&A);
}

/* Refactorization with new values on the analysed pattern (a frequency
 * sweep); an entry outside the pattern is EM_ERR_ARG. */
static void test_refactor(void) {
  int32_t n = 80;
  em_cplx *D1 = make_dense(SPARSE, n, 1.2, 5), *D2 = make_dense(SPARSE, n, 1.2, 5);
  for (size_t p = 0; p < (size_t)n * n; p++)
    if (D2[p] != 0) D2[p] *= 1.5 - 0.5 * I; /* same pattern, other values */
  em_csr *A1 = to_csr(D1, n), *A2 = to_csr(D2, n);
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F = NULL;
  REQUIRE_OK(em_direct_create(A1, &o, NULL, &F));
  EXPECT_OK(em_direct_factor(F, A2, NULL));
  em_cplx *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x),
          *xd = calloc((size_t)n, sizeof *xd);
  for (int32_t i = 0; i < n; i++) b[i] = i + 1;
  dense_solve(D2, n, 1, b, xd);
  EXPECT_OK(em_direct_solve(F, 1, b, n, x, n));
  EXPECT(rel_diff(x, n, xd, n, 1) < 1e-12, "refactorization: error %.2e", rel_diff(x, n, xd, n, 1));
  /* fill a position that is zero in L for this ordering: find one */
  const em_dsym *S = &F->S;
  int32_t fi = -1, fj = -1;
  for (int32_t j = 0; j < n && fi < 0; j++) {
    int32_t s = 0;
    while (S->super[s + 1] <= j) s++;
    char *in = calloc((size_t)n, 1);
    for (int64_t p = S->rptr[s]; p < S->rptr[s + 1]; p++) in[S->rows[p]] = 1;
    for (int32_t i = j + 1; i < n && fi < 0; i++)
      if (!in[i]) fi = S->iperm[i], fj = S->iperm[j];
    free(in);
  }
  if (fi >= 0) {
    put(D2, n, fi, fj, 0.5);
    em_csr *A3 = to_csr(D2, n);
    EXPECT_ERR(em_direct_factor(F, A3, NULL), EM_ERR_ARG);
    EXPECT_ERR(em_direct_solve(F, 1, b, n, x, n), EM_ERR_ARG); /* no factor after a failure */
    em_csr_destroy(&A3);
  }
  em_direct_destroy(&F);
  em_csr_destroy(&A1);
  em_csr_destroy(&A2);
  free(D1), free(D2), free(b), free(x), free(xd);
}

/* A non-symmetric matrix: its symmetric part is factored */
static void test_nonsymmetric(void) {
  int32_t n = 60;
  em_cplx *D = make_dense(SPARSE, n, 1.2, 8), *Ds = malloc((size_t)n * n * sizeof *Ds);
  D[3 + 10 * (size_t)n] = 0.25; /* one entry without its mirror */
  D[5 + 9 * (size_t)n] += 0.1;  /* one asymmetric pair */
  for (int32_t j = 0; j < n; j++)
    for (int32_t i = 0; i < n; i++)
      Ds[i + (size_t)j * n] = 0.5 * (D[i + (size_t)j * n] + D[j + (size_t)i * n]);
  em_csr *A = to_csr(D, n);
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F = NULL;
  EXPECT_OK(em_direct_create(A, &o, NULL, &F));
  double amax = 0, dmax = 0; /* expected: max |a_ij - a_ji| / max |a_ij| */
  for (int32_t j = 0; j < n; j++)
    for (int32_t i = 0; i < n; i++) {
      dmax = fmax(dmax, cabs(D[i + (size_t)j * n] - D[j + (size_t)i * n]));
      amax = fmax(amax, cabs(D[i + (size_t)j * n]));
    }
  if (F) {
    EXPECT(fabs(F->info.asymmetry - dmax / amax) < 1e-14 && dmax > 0,
           "asymmetry %.6g, expected %.6g", F->info.asymmetry, dmax / amax);
    em_cplx *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x),
            *xd = calloc((size_t)n, sizeof *xd);
    for (int32_t i = 0; i < n; i++) b[i] = 1 - 0.1 * i * I;
    dense_solve(Ds, n, 1, b, xd);
    EXPECT_OK(em_direct_solve(F, 1, b, n, x, n));
    EXPECT(rel_diff(x, n, xd, n, 1) < 1e-12, "symmetric part: error %.2e",
           rel_diff(x, n, xd, n, 1));
    free(b), free(x), free(xd);
  }
  em_direct_destroy(&F);
  em_csr_destroy(&A);
  free(D), free(Ds);
}

/* A refactorization's symmetry test through the transposed entries the
 * first test kept (issue 24): the same pattern, values symmetric, then not
 * (one pair), then symmetric again: each time max |a_ij - a_ji| / ||A||_max
 * as the dense matrix gives it, and the factor of the symmetric part. */
static void test_refactor_asymmetry(void) {
  int32_t n = 60;
  em_cplx *D = make_dense(SPARSE, n, 1.2, 9), *Ds = malloc((size_t)n * n * sizeof *Ds);
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F = NULL;
  em_csr *A = to_csr(D, n);
  EXPECT_OK(em_direct_create(A, &o, NULL, &F));
  em_csr_destroy(&A);
  int32_t pi = -1, pj = -1; /* an off-diagonal pair of the pattern */
  for (int32_t j = 0; j < n && pi < 0; j++)
    for (int32_t i = j + 3; i < n && pi < 0; i++)
      if (D[i + (size_t)j * n] != 0) pi = i, pj = j;
  EXPECT(pi >= 0, "an off-diagonal pair in the pattern");
  em_cplx a0 = pi >= 0 ? D[pi + (size_t)pj * n] : 0;
  for (int v = 0; v < 3 && F && pi >= 0; v++) {
    D[pi + (size_t)pj * n] = v == 1 ? a0 + 0.3 - 0.2 * I : a0;
    A = to_csr(D, n);
    EXPECT_OK(em_direct_factor(F, A, NULL));
    double amax = 0, dmax = 0;
    for (int32_t j = 0; j < n; j++)
      for (int32_t i = 0; i < n; i++) {
        dmax = fmax(dmax, cabs(D[i + (size_t)j * n] - D[j + (size_t)i * n]));
        amax = fmax(amax, cabs(D[i + (size_t)j * n]));
        Ds[i + (size_t)j * n] = 0.5 * (D[i + (size_t)j * n] + D[j + (size_t)i * n]);
      }
    EXPECT(fabs(F->info.asymmetry - dmax / amax) < 1e-14 && (dmax > 0) == (v == 1),
           "refactor %d: asymmetry %.6g, expected %.6g", v, F->info.asymmetry, dmax / amax);
    em_cplx *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x),
            *xd = calloc((size_t)n, sizeof *xd);
    for (int32_t i = 0; i < n; i++) b[i] = 1 + 0.05 * i * I;
    dense_solve(Ds, n, 1, b, xd);
    EXPECT_OK(em_direct_solve(F, 1, b, n, x, n));
    EXPECT(rel_diff(x, n, xd, n, 1) < 1e-12, "refactor %d: error %.2e", v,
           rel_diff(x, n, xd, n, 1));
    free(b), free(x), free(xd);
    em_csr_destroy(&A);
  }
  em_direct_destroy(&F);
  free(D), free(Ds);
}

/* Rows and columns 10..19 scaled by 1e-6 (diagonal 1e-12, below
 * pivot_eps ||A||_max): the equilibration makes them ordinary rows, no
 * pivot is perturbed and the solution is exact. */
static void test_badly_scaled(void) {
  int32_t n = 60;
  em_cplx *D = make_dense(SPARSE, n, 1.2, 12);
  for (int32_t j = 0; j < n; j++)
    for (int32_t i = 0; i < n; i++)
      D[i + (size_t)j * n] *= (i >= 10 && i < 20 ? 1e-6 : 1) * (j >= 10 && j < 20 ? 1e-6 : 1);
  sys y = sys_make(D, n);
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F = check_solve("badly scaled", &y, &o, 1e-10);
  em_direct_destroy(&F);
  sys_free(&y);
  free(D);
}

/* error message of the last failure contains s */
static void expect_message(const char *s, const char *what) {
  EXPECT(strstr(em_error_message(), s) != NULL, "%s: message '%s' lacks '%s'", what,
         em_error_message(), s);
}

/* bad input: every failure names its culprit */
static void test_errors(void) {
  int32_t n = 20;
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F = NULL;
  /* structurally singular: row 7 holds no entry at all */
  em_cplx *D = make_dense(TRIDIAG, n, 1.2, 4);
  for (int32_t j = 0; j < n; j++) D[7 + (size_t)j * n] = D[j + 7 * (size_t)n] = 0;
  em_csr *A = to_csr(D, n);
  EXPECT(em_direct_create(A, &o, NULL, &F) == EM_ERR_NUMERIC, "empty row");
  expect_message("row 7 ", "empty row");
  em_error_clear();
  EXPECT(F == NULL, "no factor on failure");
  em_csr_destroy(&A);
  free(D);
  /* numerically singular: row and column 7 stored, all zeros */
  D = make_dense(TRIDIAG, n, 1.2, 4);
  A = to_csr(D, n);
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (i == 7 || A->colind[p] == 7) A->val[p] = 0;
  EXPECT(em_direct_create(A, &o, NULL, &F) == EM_ERR_NUMERIC, "zero row");
  expect_message("row 7 of the matrix is zero", "zero row");
  em_error_clear();
  /* a zero column alone (row 7 keeps a non-zero) */
  for (int64_t p = A->rowptr[7]; p < A->rowptr[8]; p++)
    if (A->colind[p] == 8) A->val[p] = 1;
  for (int64_t p = A->rowptr[8]; p < A->rowptr[9]; p++)
    if (A->colind[p] == 7) A->val[p] = 0;
  EXPECT(em_direct_create(A, &o, NULL, &F) == EM_ERR_NUMERIC, "zero column");
  expect_message("column 7 of the matrix is zero", "zero column");
  em_error_clear();
  /* a non-finite entry */
  A->val[A->rowptr[3]] = NAN;
  EXPECT(em_direct_create(A, &o, NULL, &F) == EM_ERR_NUMERIC, "NaN");
  expect_message("entry (3, ", "NaN");
  em_error_clear();
  em_csr_destroy(&A);
  free(D);
  /* a zero pivot with the perturbation off names its row; with it on the
   * pivot is perturbed and counted */
  D = make_dense(TRIDIAG, n, 1.2, 4);
  D[0] = 0;
  put(D, n, 0, 1, 1);
  D[1 + (size_t)n] = 1; /* [0 1; 1 1]: pivot 1 becomes 1 - 1/tau after the perturbed 0 */
  A = to_csr(D, n);
  o.ordering = EM_ORDERING_NATURAL;
  o.pivot_eps = 0;
  EXPECT(em_direct_create(A, &o, NULL, &F) == EM_ERR_NUMERIC, "zero pivot");
  expect_message("zero pivot at row 0", "zero pivot");
  em_error_clear();
  o.pivot_eps = 1e-8;
  EXPECT_OK(em_direct_create(A, &o, NULL, &F));
  EXPECT(F && F->info.perturbed == 1, "perturbed %lld", F ? (long long)F->info.perturbed : -1LL);
  em_direct_destroy(&F);
  em_csr_destroy(&A);
  free(D);
  /* arguments */
  REQUIRE_OK(em_csr_create(3, 4, 0, &A));
  EXPECT_ERR(em_direct_analyse(A, &o, NULL, &F), EM_ERR_ARG);
  em_csr_destroy(&A);
  D = make_dense(TRIDIAG, n, 1.2, 4);
  A = to_csr(D, n);
  o.pivot_eps = -1;
  EXPECT_ERR(em_direct_analyse(A, &o, NULL, &F), EM_ERR_ARG);
  em_direct_opts_default(&o);
  o.ordering = (em_pc_ordering)42;
  EXPECT_ERR(em_direct_analyse(A, &o, NULL, &F), EM_ERR_ARG);
  em_direct_opts_default(&o);
  if (!em_direct_blas_built()) {
    o.kernels = EM_DIRECT_BLAS;
    EXPECT_ERR(em_direct_analyse(A, &o, NULL, &F), EM_ERR_UNSUPPORTED);
    o.kernels = EM_DIRECT_AUTO;
  }
  o.mem_limit = 1000; /* the estimate is checked before allocating */
  EXPECT(em_direct_analyse(A, &o, NULL, &F) == EM_ERR_MEMORY, "memory limit");
  expect_message("direct factorization needs ", "memory limit");
  expect_message("nnz(L) = ", "memory limit");
  em_error_clear();
  em_direct_opts_default(&o);
  REQUIRE_OK(em_direct_analyse(A, &o, NULL, &F));
  em_cplx b[20] = {0};
  EXPECT_ERR(em_direct_solve(F, 1, b, n, b, n), EM_ERR_ARG); /* not factored yet */
  REQUIRE_OK(em_direct_factor(F, A, NULL));
  EXPECT_ERR(em_direct_solve(F, 1, b, n - 1, b, n), EM_ERR_ARG); /* leading dimension */
  EXPECT_ERR(em_direct_solve(F, -1, b, n, b, n), EM_ERR_ARG);
  em_csr *A2 = NULL;
  REQUIRE_OK(em_csr_create(n + 1, n + 1, 0, &A2));
  EXPECT_ERR(em_direct_factor(F, A2, NULL), EM_ERR_ARG); /* other order */
  em_csr_destroy(&A2);
  em_direct_destroy(&F);
  em_csr_destroy(&A);
  free(D);
}

/* A long host factorization says how far it is (em_log_progress): with
 * progress_s = 0 after every front, the last line at 100 % of the flops,
 * on a log whose own level is quiet (a run's detail log at the default
 * level); with the default 10 s, nothing from a factorization of
 * milliseconds. */
static void test_progress(void) {
  em_cplx *D = make_dense(FEM2, 200, 0.5, 7);
  sys y = sys_make(D, 200);
  for (int every = 0; every <= 1; every++) {
    FILE *f = tmpfile();
    EXPECT(f, "tmpfile");
    if (!f) break;
    em_log log;
    em_log_init(&log, f, EM_LOG_QUIET);
    log.progress = 1;
    em_direct_opts o;
    em_direct_opts_default(&o);
    if (!every) o.progress_s = 0;
    em_direct *F = NULL;
    EXPECT_OK(em_direct_create(y.A, &o, &log, &F));
    char line[512], last[512] = "";
    int n = 0;
    rewind(f);
    while (fgets(line, sizeof line, f))
      if (strstr(line, "numeric factorization") && strstr(line, "% of")) {
        n++;
        snprintf(last, sizeof last, "%s", line);
      }
    if (!every)
      EXPECT(n >= 2 && strstr(last, " 100 % of"), "progress_s 0: %d lines, the last '%s'", n, last);
    else
      EXPECT(n == 0, "progress_s 10: %d progress lines for a factorization of milliseconds", n);
    em_direct_destroy(&F);
    fclose(f);
  }
  sys_free(&y);
  free(D);
}

/* The caller's word that the pattern is symmetric (pattern_symmetric, the
 * assembler's): the analysis without its check makes the same ordering and
 * factor as with it (a FEM pattern); given for a pattern that is not
 * symmetric, the factorization refuses it (EM_ERR_INTERNAL) instead of
 * factoring a wrong structure. */
static void test_pattern_word(void) {
  int32_t n = 200;
  em_cplx *D = make_dense(FEM2, n, 1.2, 4242);
  sys y = sys_make(D, n);
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_direct *F = check_solve("FEM2 checked", &y, &o, 1e-11);
  o.pattern_symmetric = 1;
  em_direct *G = check_solve("FEM2 on the word", &y, &o, 1e-11);
  if (F && G) {
    EXPECT(F->S.n == G->S.n && !memcmp(F->S.perm, G->S.perm, (size_t)n * sizeof *F->S.perm),
           "the word changed the ordering");
    EXPECT(F->info.nnz_l == G->info.nnz_l && F->info.flops == G->info.flops,
           "nnz(L) %lld / %lld, flops %.0f / %.0f", (long long)F->info.nnz_l,
           (long long)G->info.nnz_l, F->info.flops, G->info.flops);
    int64_t nl = F->S.lptr[F->S.ns];
    EXPECT(!memcmp(F->lval, G->lval, (size_t)nl * sizeof *F->lval), "the factors differ");
  }
  em_direct_destroy(&F);
  em_direct_destroy(&G);
  sys_free(&y);
  free(D);
  /* a word that is wrong: one entry without its mirror */
  n = 40;
  D = make_dense(TRIDIAG, n, 1.2, 7);
  D[3 + 10 * (size_t)n] = 0.25;
  em_csr *A = to_csr(D, n);
  o.ordering = EM_ORDERING_NATURAL;
  em_err err = em_direct_create(A, &o, NULL, &F);
  EXPECT(err == EM_ERR_INTERNAL && !F, "a wrong word: error %d", (int)err);
  em_error_clear();
  em_direct_destroy(&F);
  em_csr_destroy(&A);
  free(D);
}

/* The value checks and the symmetry test beside the numeric phase
 * (direct_beside.c; EMSOLVE_CHECKS_BESIDE=1 takes it on the host, as the
 * GPU factor does by default) against the same in order, bit for bit:
 * symmetric FEM values, values and a pattern that are not symmetric (a
 * fresh factor and a refactorization after symmetric values), and a
 * non-finite entry: the same error and message, no factor left. */
static em_direct *factor_env(const char *env, const em_csr *A, em_direct *F, em_err *err) {
  setenv("EMSOLVE_CHECKS_BESIDE", env, 1);
  em_direct_opts o;
  em_direct_opts_default(&o);
  *err = F ? em_direct_factor(F, A, NULL) : em_direct_create(A, &o, NULL, &F);
  unsetenv("EMSOLVE_CHECKS_BESIDE");
  return F;
}

static int same_factor(const em_direct *F, const em_direct *G) {
  return F && G && F->S.n == G->S.n && F->info.asymmetry == G->info.asymmetry &&
         !memcmp(F->lval, G->lval, (size_t)F->S.lptr[F->S.ns] * sizeof *F->lval) &&
         !memcmp(F->d, G->d, (size_t)F->S.n * sizeof *F->d);
}

static void test_checks_beside(void) {
  int32_t n = 101;
  em_cplx *D = make_dense(FEM2, n, 1.2, 77), *Da = malloc((size_t)n * n * sizeof *Da);
  memcpy(Da, D, (size_t)n * n * sizeof *Da);
  Da[3 + 10 * (size_t)n] = 0.25;                           /* one entry without its mirror */
  Da[5 + 9 * (size_t)n] += 0.1;                            /* one asymmetric pair */
  em_csr *A = to_csr(D, n), *B = to_csr(Da, n), *C = NULL; /* C: A's pattern */
  REQUIRE_OK(em_csr_copy(A, &C));
  for (int64_t p = C->rowptr[5]; p < C->rowptr[6]; p++)
    if (C->colind[p] != 5) {
      C->val[p] += 0.1 - 0.05 * I;
      break;
    }
  em_err e1, e2;
  for (int c = 0; c < 2; c++) {
    const em_csr *M = c ? B : A;
    em_direct *F = factor_env("0", M, NULL, &e1), *G = factor_env("1", M, NULL, &e2);
    EXPECT(!e1 && !e2 && same_factor(F, G), "case %d: beside and in order differ", c);
    EXPECT(!c || (G && G->info.asymmetry > 0), "case %d: no asymmetry found beside", c);
    if (c && G) { /* a refactorization: symmetric values, then C's (not symmetric) */
      em_direct *H = factor_env("1", A, NULL, &e1), *K = factor_env("0", C, NULL, &e2);
      EXPECT(!e1 && !e2 && K && K->info.asymmetry > 0, "C in order");
      EXPECT(factor_env("1", C, H, &e2) == H && !e2 && same_factor(K, H),
             "refactorization beside: the factors differ");
      em_direct_destroy(&H);
      em_direct_destroy(&K);
    }
    em_direct_destroy(&F);
    em_direct_destroy(&G);
  }
  /* a NaN entry: the in-order error and message */
  for (int64_t p = A->rowptr[40]; p < A->rowptr[41]; p++)
    if (A->colind[p] == 40) A->val[p] = NAN;
  char want[256];
  em_direct *F = factor_env("0", A, NULL, &e1);
  snprintf(want, sizeof want, "%s", em_error_message());
  em_error_clear();
  em_direct *G = factor_env("1", B, NULL, &e2); /* a factor, then the bad values beside */
  EXPECT(!e2 && G, "a factor before the bad values");
  if (G) {
    factor_env("1", A, G, &e2);
    EXPECT(
        e1 == EM_ERR_NUMERIC && e2 == e1 && strstr(em_error_message(), want) && !F && !G->factored,
        "NaN: beside %s '%s', in order %s '%s'", em_err_name(e2), em_error_message(),
        em_err_name(e1), want);
    em_error_clear();
  }
  em_direct_destroy(&F);
  em_direct_destroy(&G);
  em_csr_destroy(&A);
  em_csr_destroy(&B);
  em_csr_destroy(&C);
  free(D), free(Da);
}

int main(void) {
  test_progress();
  test_tiny();
  test_shapes();
  test_not_dominant();
  test_refactor();
  test_nonsymmetric();
  test_pattern_word();
  test_checks_beside();
  test_refactor_asymmetry();
  test_badly_scaled();
  test_errors();
  return TEST_RESULT();
}
