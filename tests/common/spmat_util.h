/* spmat_util.h - inputs and checks shared by the HYB / HEC, bitmap and
 * block operator tests: awkward random matrices, a small FEM-pattern block
 * matrix from em_mesh_box with the order-p Nedelec DOF layout, SpMV through
 * an em_spmat in either precision and backend with the output poisoned
 * first, and the comparison with em_csr_spmv_ref.
 *
 * The comparison is per row and scaled by what the row's sum can lose to
 * rounding: |y_i - ref_i| <= tol (sum_k |a_ik| |x_k| + |y0_i|), with
 * |z| = |re z| + |im z|.  A row that
 * should be zero must be exactly zero, and a NaN left by the poison fails. */
#ifndef EM_SPMAT_UTIL_H
#define EM_SPMAT_UTIL_H

#include <string.h>

#include "em_formats.h"
#include "em_mesh.h"
#include "em_test.h"
#include "fem_pattern.h"
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static inline em_cplx tu_rand_cplx(unsigned long long *s) {
  return (em_test_rand(s) - 0.5) + I * (em_test_rand(s) - 0.5);
}

/* A random n_rows x n_cols matrix: row lengths uniform in 0..maxlen (capped
 * at n_cols), every empty_every-th row empty (0: none), row long_row (-1:
 * none) with long_len entries; distinct sorted columns by selection
 * sampling. */
static inline em_csr *tu_rand_csr(int32_t nr, int32_t nc, int maxlen, int empty_every,
                                  int32_t long_row, int32_t long_len, unsigned long long seed) {
  unsigned long long s = seed * 2654435761ULL + 1;
  int64_t *len = calloc((size_t)nr + 1, sizeof *len), nnz = 0;
  for (int32_t i = 0; i < nr; i++) {
    int64_t l = (int64_t)(em_test_rand(&s) * (maxlen + 1));
    if (empty_every > 0 && i % empty_every == empty_every - 1) l = 0;
    if (i == long_row) l = long_len;
    if (l > nc) l = nc;
    len[i] = l;
    nnz += l;
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(nr, nc, nnz, &A));
  int64_t p = 0;
  for (int32_t i = 0; i < nr; i++) {
    A->rowptr[i] = p;
    int64_t need = len[i];
    for (int32_t c = 0; c < nc && need > 0; c++)
      if (em_test_rand(&s) * (nc - c) < need) {
        A->colind[p] = c;
        A->val[p++] = tu_rand_cplx(&s);
        need--;
      }
  }
  A->rowptr[nr] = p;
  free(len);
  REQUIRE_OK(em_csr_check(A, "random test matrix"));
  return A;
}

/* The FEM pattern of an order-p Nedelec discretisation of an n^3-cell box
 * split into its order blocks (fem_pattern.h: the one generator). */
static inline void tu_fem_blockmat(int ncell, int p, unsigned long long seed, em_blockmat **B) {
  REQUIRE_OK(em_fem_pattern_box(ncell, p, (unsigned)seed, NULL, B));
}

/* |re| + |im|: within a factor sqrt(2) of |z|, much cheaper than cabs. */
static inline double tu_abs1(em_cplx z) {
  return fabs(creal(z)) + fabs(cimag(z));
}

/* Worst scaled error of y against y0 + A x (y0 NULL: A x); INFINITY on NaN. */
static inline double tu_err(const em_csr *A, const em_cplx *x, const em_cplx *y0,
                            const em_cplx *y) {
  double worst = 0;
  em_cplx *r = calloc((size_t)A->n_rows + 1, sizeof *r);
  if (y0) memcpy(r, y0, sizeof *r * (size_t)A->n_rows);
  em_csr_spmv_ref(A, 1, x, y0 ? 1 : 0, r);
  for (int32_t i = 0; i < A->n_rows; i++) {
    double scale = y0 ? tu_abs1(y0[i]) : 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      scale += tu_abs1(A->val[k]) * tu_abs1(x[A->colind[k]]);
    double e = tu_abs1(y[i] - r[i]);
    if (isnan(e)) {
      worst = INFINITY;
      break;
    }
    if (e > 0) e = scale > 0 ? e / scale : INFINITY;
    if (e > worst) worst = e;
  }
  free(r);
  return worst;
}

/* x rounded to the precision: what a single-precision SpMV actually sees. */
static inline void tu_round(em_cplx *x, size_t n, em_prec p) {
  if (p == EM_PREC_SINGLE)
    for (size_t k = 0; k < n; k++) x[k] = (em_cplxf)x[k];
}

/* y = M x (y0 NULL) or y = y0 + M x through the spmat in its precision and
 * backend; x, y0, y are complex double host arrays.  The output starts as
 * NaN (all bits set) where it should be overwritten. */
static inline em_err tu_spmv(const em_spmat *M, const em_cplx *x, const em_cplx *y0, em_cplx *y) {
  em_spmat_info in;
  em_spmat_get_info(M, &in);
  size_t nr = (size_t)in.n_rows, nc = (size_t)in.n_cols, s = em_prec_size(in.prec);
  char *hx = calloc(nc + 1, s), *hy = calloc(nr + 1, s);
  for (size_t k = 0; k < nc; k++) {
    if (in.prec == EM_PREC_SINGLE)
      ((em_cplxf *)hx)[k] = (em_cplxf)x[k];
    else
      ((em_cplx *)hx)[k] = x[k];
  }
  for (size_t k = 0; k < nr; k++) {
    if (!y0)
      memset(hy + k * s, 0xff, s);
    else if (in.prec == EM_PREC_SINGLE)
      ((em_cplxf *)hy)[k] = (em_cplxf)y0[k];
    else
      ((em_cplx *)hy)[k] = y0[k];
  }
  em_err err = EM_OK;
  if (in.backend == EM_BACKEND_CPU) {
    err = em_spmat_spmv(M, hx, hy, y0 != NULL, NULL);
  } else {
#ifdef EM_HAVE_CUDA
    void *dx = NULL, *dy = NULL;
    if (cudaMalloc(&dx, nc * s + 16) || cudaMalloc(&dy, nr * s + 16) ||
        cudaMemcpy(dx, hx, nc * s, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dy, hy, nr * s, cudaMemcpyHostToDevice)) {
      err = EM_RAISE(EM_ERR_CUDA, "test vectors");
    } else {
      err = em_spmat_spmv(M, dx, dy, y0 != NULL, NULL);
      if (!err && (cudaDeviceSynchronize() || cudaMemcpy(hy, dy, nr * s, cudaMemcpyDeviceToHost)))
        err = EM_RAISE(EM_ERR_CUDA, "SpMV run or copy back: %s",
                       cudaGetErrorString(cudaGetLastError()));
    }
    cudaFree(dx);
    cudaFree(dy);
#else
    err = EM_RAISE(EM_ERR_UNSUPPORTED, "no CUDA");
#endif
  }
  for (size_t k = 0; k < nr; k++)
    y[k] = in.prec == EM_PREC_SINGLE ? (em_cplx)((em_cplxf *)hy)[k] : ((em_cplx *)hy)[k];
  free(hx);
  free(hy);
  return err;
}

/* Check M against A for y = A x and y = y0 + A x; returns the worst error. */
static inline double tu_check_spmat(const em_spmat *M, const em_csr *A, unsigned long long seed) {
  em_spmat_info in;
  em_spmat_get_info(M, &in);
  unsigned long long s = seed;
  size_t nr = (size_t)A->n_rows, nc = (size_t)A->n_cols;
  em_cplx *x = calloc(nc + 1, sizeof *x), *y0 = calloc(nr + 1, sizeof *y0),
          *y = calloc(nr + 1, sizeof *y);
  for (size_t k = 0; k < nc; k++) x[k] = tu_rand_cplx(&s);
  for (size_t k = 0; k < nr; k++) y0[k] = tu_rand_cplx(&s);
  tu_round(x, nc, in.prec);
  tu_round(y0, nr, in.prec);
  double worst = INFINITY;
  if (!tu_spmv(M, x, NULL, y)) {
    worst = tu_err(A, x, NULL, y);
    if (!tu_spmv(M, x, y0, y)) {
      double e = tu_err(A, x, y0, y);
      if (!(e <= worst)) worst = e;
    } else {
      em_error_print(stderr);
      em_error_clear();
      worst = INFINITY;
    }
  } else {
    em_error_print(stderr);
    em_error_clear();
  }
  free(x), free(y0), free(y);
  return worst;
}

/* The tolerance of a precision: 1e-13 double, 1e-5 single. */
static inline double tu_tol(em_prec p) {
  return p == EM_PREC_SINGLE ? 1e-5 : 1e-13;
}

/* 1 when a GPU answers, else prints why and returns 0 (the test skips). */
static inline int tu_gpu_available(void) {
  em_device dev;
  if (em_device_open("gpu", NULL, &dev)) {
    fprintf(stderr, "skipped: %s\n", em_error_message());
    em_error_clear();
    return 0;
  }
  return 1;
}

#endif
