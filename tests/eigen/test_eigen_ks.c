/* test_eigen_ks.c - shift-and-invert Krylov-Schur on pencils with known
 * spectra: S = Q^T diag(m lambda) Q, T = Q^T diag(m) Q with Q a real
 * orthogonal (two Householder reflections, dense), so both are complex
 * symmetric, T is not the identity, and the eigenvalues are exactly the
 * lambda given.  A block of lambda = 0 plays the gradient null space.
 * Usage: test_eigen_ks cpu|gpu (where S - sigma T is factored). */
#include <complex.h>
#include <string.h>

#include "em_eigen.h"
#include "em_test.h"

/* Dense n x n as CSR (full pattern). */
static em_csr *dense_csr(int n, const em_cplx *A) {
  em_csr *C = NULL;
  if (em_csr_create(n, n, (int64_t)n * n, &C)) return NULL;
  for (int i = 0; i < n; i++) {
    C->rowptr[i + 1] = (int64_t)(i + 1) * n;
    for (int j = 0; j < n; j++) {
      C->colind[(size_t)i * n + j] = j;
      C->val[(size_t)i * n + j] = A[(size_t)i * n + j];
    }
  }
  return C;
}

/* Q = H2 H1, H = I - 2 v v^T / v^T v. */
static void orthogonal(int n, double *Q) {
  memset(Q, 0, sizeof(double) * n * n);
  for (int i = 0; i < n; i++) Q[i * n + i] = 1;
  for (int h = 0; h < 2; h++) {
    double v[512], vv = 0;
    for (int i = 0; i < n; i++) v[i] = sin(1.0 + (h + 1) * 0.7 * i) + 0.1 * h, vv += v[i] * v[i];
    for (int j = 0; j < n; j++) { /* Q <- H Q, column by column */
      double s = 0;
      for (int i = 0; i < n; i++) s += v[i] * Q[i * n + j];
      for (int i = 0; i < n; i++) Q[i * n + j] -= 2 * v[i] * s / vv;
    }
  }
}

static void pencil(int n, const em_cplx *lam, const double *mass, em_csr **S, em_csr **T) {
  double *Q = malloc(sizeof(double) * n * n);
  em_cplx *A = malloc(sizeof(em_cplx) * n * n), *B = malloc(sizeof(em_cplx) * n * n);
  orthogonal(n, Q);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      em_cplx a = 0, b = 0;
      for (int k = 0; k < n; k++) {
        a += Q[k * n + i] * mass[k] * lam[k] * Q[k * n + j];
        b += Q[k * n + i] * mass[k] * Q[k * n + j];
      }
      A[i * n + j] = a;
      B[i * n + j] = b;
    }
  *S = dense_csr(n, A);
  *T = dense_csr(n, B);
  free(Q);
  free(A);
  free(B);
}

int main(int argc, char **argv) {
  /* the factor of S - sigma T on the backend named by argv[1] (cpu, gpu) */
  em_backend be = test_backend(argc, argv);
  if (!em_eigen_built()) { /* a missing dependency fails (tests/CMakeLists.txt) */
    fprintf(stderr, "FAIL: em_eigen was built without LAPACK (liblapack-dev)\n");
    return 1;
  }
  enum { N = 240, NULLD = 80 };
  em_cplx lam[N];
  double mass[N];
  /* null space first, then lambda_k = k (1 + 0.02 j (k mod 3)): complex,
     the ones with the same Re at most 0.04 apart in Im */
  for (int k = 0; k < N; k++) {
    lam[k] = k < NULLD ? 0 : (k - NULLD + 1) * (1 + 0.02 * I * ((k % 3) - 1));
    mass[k] = 1 + 0.5 * sin(k);
  }
  em_csr *S, *T;
  pencil(N, lam, mass, &S, &T);
  EXPECT(S && T, "pencil built");

  /* sigma = 12.3: the 6 nearest are 12, 13, 11, 14, 10, 15 (by |lambda -
     sigma| with their small imaginary parts); lambda = 0 is nearer than
     none of them, but with sigma = 2.2 and nev 6 the null space (distance
     2.2) is nearer than 5 (2.8) and 6 (3.8): it must still be left out */
  double sig[2] = {12.3, 2.2};
  for (int c = 0; c < 2; c++) {
    em_eigen_opts o;
    em_eigen_opts_default(&o);
    o.direct.backend = be;
    o.nev = 6;
    o.sigma = sig[c];
    o.tol = 1e-12;
    em_eigen_result r;
    EXPECT_OK(em_eigen_solve(S, T, &o, &r));
    EXPECT(r.converged && r.n == 6, "sigma %g: %d pairs, converged %d", sig[c], r.n, r.converged);
    /* the reference: the 6 nonzero lambda nearest sigma, by brute force */
    int used[N] = {0};
    for (int i = 0; i < r.n; i++) {
      int best = -1;
      for (int k = NULLD; k < N; k++)
        if (!used[k] && (best < 0 || cabs(lam[k] - sig[c]) < cabs(lam[best] - sig[c]))) best = k;
      used[best] = 1;
      EXPECT(cabs(r.lambda[i] - lam[best]) < 1e-9 * cabs(lam[best]),
             "sigma %g, pair %d: %.12g%+.12gj, expected %.12g%+.12gj", sig[c], i,
             creal(r.lambda[i]), cimag(r.lambda[i]), creal(lam[best]), cimag(lam[best]));
      EXPECT(r.resid[i] < 1e-12, "sigma %g, pair %d: residual %.3g", sig[c], i, r.resid[i]);
      EXPECT(cabs(r.lambda[i]) > 0.5, "sigma %g, pair %d: the null space came out", sig[c], i);
    }
    em_eigen_result_free(&r);
  }

  /* awkward: more pairs than a 5 x 5 problem can give a Krylov space for */
  {
    em_cplx l5[5] = {1, 2, 3, 4, 5};
    double m5[5] = {1, 2, 1, 2, 1};
    em_csr *S5, *T5;
    pencil(5, l5, m5, &S5, &T5);
    em_eigen_opts o;
    em_eigen_opts_default(&o);
    o.direct.backend = be;
    o.nev = 10;
    o.sigma = 2.6;
    em_eigen_result r;
    EXPECT_OK(em_eigen_solve(S5, T5, &o, &r));
    EXPECT(r.n == 4, "5 x 5: %d pairs (the space holds 4 wanted)", r.n);
    for (int i = 0; i < r.n; i++)
      EXPECT(fabs(creal(r.lambda[i]) - round(creal(r.lambda[i]))) < 1e-10 &&
                 fabs(cimag(r.lambda[i])) < 1e-10,
             "5 x 5 pair %d: %.12g%+.3gj", i, creal(r.lambda[i]), cimag(r.lambda[i]));
    em_eigen_result_free(&r);
    em_csr_destroy(&S5);
    em_csr_destroy(&T5);
  }

  /* a cancel request (emsolve's signal flag): the restarts stop with
     EM_ERR_CANCELLED, the factor too when it is set before (issue 32) */
  {
    em_cancel flag = 15;
    em_eigen_opts o;
    em_eigen_opts_default(&o);
    o.nev = 6;
    o.sigma = 12.3;
    o.cancel = &flag;
    em_eigen_result r;
    memset(&r, 0, sizeof r);
    em_err e = em_eigen_solve(S, T, &o, &r);
    EXPECT(e == EM_ERR_CANCELLED, "eigen, flag set: %s (%s)", em_err_name(e), em_error_message());
    em_error_clear();
    em_eigen_result_free(&r);
    o.cancel = NULL;
    o.direct.cancel = &flag;
    e = em_eigen_solve(S, T, &o, &r);
    EXPECT(e == EM_ERR_CANCELLED, "eigen, factor's flag set: %s", em_err_name(e));
    em_error_clear();
    em_eigen_result_free(&r);
  }

  /* bad input: different patterns, nev 0 */
  {
    em_eigen_opts o;
    em_eigen_opts_default(&o);
    o.direct.backend = be;
    o.sigma = 1;
    em_eigen_result r;
    o.nev = 0;
    EXPECT_ERR(em_eigen_solve(S, T, &o, &r), EM_ERR_ARG);
    o.nev = 2;
    em_csr *T2 = NULL;
    EXPECT_OK(em_csr_create(3, 3, 3, &T2));
    for (int i = 0; i < 3; i++) T2->rowptr[i + 1] = i + 1, T2->colind[i] = i, T2->val[i] = 1;
    EXPECT_ERR(em_eigen_solve(S, T2, &o, &r), EM_ERR_ARG);
    em_csr_destroy(&T2);
  }
  em_csr_destroy(&S);
  em_csr_destroy(&T);
  return em_test_failures_ ? 1 : 0;
}
