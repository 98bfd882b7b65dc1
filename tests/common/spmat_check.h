/* spmat_check.h - the checks every CSR / ELL-family format test runs on
 * each backend: awkward random matrices and FEM patterns, y = A x and
 * y += A x in complex double and single against em_csr_spmv_ref, outputs
 * poisoned before each run and guard slots after the end checked untouched.
 *
 * Tolerance: |y_i - ref_i| <= tol * (sum_k |a_ik| |x_k| (+ |y0_i|)), with
 * the reference computed in double from the values the format stores (for
 * single precision: A, x and y0 rounded to float first), so only the
 * summation order and precision differ: 1e-13 (double), 1e-5 (single). */
#ifndef EM_SPMAT_CHECK_H
#define EM_SPMAT_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "em_formats.h"
#include "em_test.h"
#include "fem_pattern.h"

#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define GUARD 40 /* extra output slots after n_rows that must stay poisoned */

/* ------------------------------------------------------------ matrices */

typedef struct tcase {
  char name[64];
  em_csr *A;
} tcase;

/* m x n with row lengths uniform in 0..maxlen (capped at n), a fraction of
 * rows forced empty, and optionally row long_row of long_len entries;
 * distinct sorted columns by a partial Fisher-Yates shuffle. */
static inline em_csr *rand_csr(int32_t m, int32_t n, int maxlen, double empty, int32_t long_row,
                               int32_t long_len, unsigned long long seed) {
  unsigned long long s = seed;
  int32_t *len = calloc((size_t)m + 1, sizeof *len), *idx = calloc((size_t)n + 1, sizeof *idx);
  int64_t nnz = 0;
  for (int32_t i = 0; i < m; i++) {
    int32_t l = (int32_t)(em_test_rand(&s) * (maxlen + 1));
    if (em_test_rand(&s) < empty) l = 0;
    if (i == long_row) l = long_len;
    len[i] = l < n ? l : n;
    nnz += len[i];
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(m, n, nnz, &A));
  for (int32_t j = 0; j < n; j++) idx[j] = j;
  for (int32_t i = 0; i < m; i++) {
    int64_t b = A->rowptr[i];
    A->rowptr[i + 1] = b + len[i];
    for (int32_t k = 0; k < len[i]; k++) {
      int32_t r = k + (int32_t)(em_test_rand(&s) * (n - k));
      if (r >= n) r = n - 1;
      int32_t t = idx[k];
      idx[k] = idx[r];
      idx[r] = t;
      A->colind[b + k] = idx[k];
    }
    /* insertion sort of the row (rows are short except one) */
    for (int64_t k = b + 1; k < b + len[i]; k++) {
      int32_t c = A->colind[k];
      int64_t q = k - 1;
      while (q >= b && A->colind[q] > c) {
        A->colind[q + 1] = A->colind[q];
        q--;
      }
      A->colind[q + 1] = c;
    }
    for (int64_t k = b; k < b + len[i]; k++)
      A->val[k] = (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
  }
  free(len);
  free(idx);
  REQUIRE_OK(em_csr_check(A, "random test matrix"));
  return A;
}

static inline em_csr *one_by_one(int with_entry) {
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(1, 1, with_entry, &A));
  A->rowptr[1] = with_entry;
  if (with_entry) {
    A->colind[0] = 0;
    A->val[0] = 0.75 - 0.5 * I;
  }
  return A;
}

/* Every format with default and awkward parameters (0 / -1: the
 * default): the formats the conformance and refill suites run. */
typedef struct fcase {
  em_format f;
  int T, S, K;
} fcase;

static const fcase FORMATS[] __attribute__((unused)) = {
    {EM_FMT_CSR, 0, 0, -1},    {EM_FMT_CSR_VECTOR, 0, 0, -1}, {EM_FMT_CSR_VECTOR, 32, 0, -1},
    {EM_FMT_ELL, 0, 0, -1},    {EM_FMT_ELLR, 0, 0, -1},       {EM_FMT_ELLRT, 0, 0, -1},
    {EM_FMT_ELLRT, 8, 0, -1},  {EM_FMT_SELLRT, 0, 0, -1},     {EM_FMT_SELLRT, 4, 7, -1},
    {EM_FMT_SELLRT, 1, 1, -1}, {EM_FMT_HYB, 0, 0, -1},        {EM_FMT_HYB, 0, 0, 0},
    {EM_FMT_HYB, 0, 0, 3},     {EM_FMT_HEC, 0, 0, -1},        {EM_FMT_HEC, 0, 0, 5},
    {EM_FMT_BITMAP, 0, 0, -1}, {EM_FMT_AUTO, 0, 0, -1},
};

/* The awkward random cases, then FEM patterns of orders 1..3 (box n = 2, 3). */
static inline int suite_build(tcase *c, int fem) {
  int n = 0;
#define ADD(label, expr)                                \
  do {                                                  \
    snprintf(c[n].name, sizeof c[n].name, "%s", label); \
    c[n].A = (expr);                                    \
    n++;                                                \
  } while (0)
  em_csr *Z = NULL;
  REQUIRE_OK(em_csr_create(0, 0, 0, &Z));
  ADD("0x0", Z);
  ADD("1x1", one_by_one(1));
  ADD("1x1 empty", one_by_one(0));
  ADD("529x529 empty rows", rand_csr(529, 529, 40, 0.15, -1, 0, 11));
  ADD("100x6000 long row", rand_csr(100, 6000, 20, 0.1, 17, 5000, 12));
  ADD("37x2000 wide", rand_csr(37, 2000, 90, 0.05, -1, 0, 13));
  ADD("2000x37 tall", rand_csr(2000, 37, 9, 0.2, -1, 0, 14));
  ADD("65x65 all empty", rand_csr(65, 65, 0, 1.0, -1, 0, 15));
  ADD("10x0 no columns", rand_csr(10, 0, 0, 1.0, -1, 0, 16));
  ADD("33x33 dense", rand_csr(33, 33, 33, 0.0, 0, 33, 17));
  if (fem) {
    for (int p = 1; p <= 3; p++) {
      em_csr *F = NULL;
      REQUIRE_OK(em_fem_pattern_box(p == 3 ? 2 : 3, p, 7u + (unsigned)p, &F, NULL));
      char label[32];
      snprintf(label, sizeof label, "FEM order %d", p);
      ADD(label, F);
    }
  }
#undef ADD
  return n;
}

static inline void suite_free(tcase *c, int n) {
  for (int i = 0; i < n; i++) em_csr_destroy(&c[i].A);
}

/* ------------------------------------------------------------- backends */

/* test_backend (em_test.h): "cpu" or "gpu" from argv. */

/* n complex values to precision p at dst (host). */
static inline void to_prec(const em_cplx *src, size_t n, em_prec p, void *dst) {
  if (p == EM_PREC_DOUBLE) {
    memcpy(dst, src, n * sizeof *src);
    return;
  }
  for (size_t i = 0; i < n; i++) ((em_cplxf *)dst)[i] = (em_cplxf)src[i];
}

static inline em_cplx prec_at(const void *v, size_t i, em_prec p) {
  return p == EM_PREC_DOUBLE ? ((const em_cplx *)v)[i] : (em_cplx)((const em_cplxf *)v)[i];
}

/* One SpMV of M on backend b: x (host, precision p) in, y (host, n_rows +
 * GUARD slots, precision p) in/out; on the GPU through device copies.  The
 * caller fills y: NaN poison (accumulate = 0) or y0. */
static inline em_err run_spmv(const em_spmat *M, em_backend b, em_prec p, const void *x, void *y,
                              int32_t m, int32_t n, int accumulate) {
  if (b == EM_BACKEND_CPU) return em_spmat_spmv(M, x, y, accumulate, NULL);
#ifdef EM_HAVE_CUDA
  size_t es = em_prec_size(p), ny = ((size_t)m + GUARD) * es, nx = (size_t)n * es;
  void *dx = NULL, *dy = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_dev_alloc(&dx, x, nx, NULL, "test vector x"), done);
  EM_TRY_GOTO(err, em_dev_alloc(&dy, y, ny, NULL, "test vector y and its guard"), done);
  err = em_spmat_spmv(M, dx, dy, accumulate, NULL);
  if (err) goto done;
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    err = EM_RAISE(EM_ERR_CUDA, "SpMV kernel failed: %s", cudaGetErrorString(e));
    goto done;
  }
  if (cudaMemcpy(y, dy, ny, cudaMemcpyDeviceToHost) != cudaSuccess)
    err = EM_RAISE(EM_ERR_CUDA, "test download");
done:
  em_dev_free(&dx);
  em_dev_free(&dy);
  return err;
#else
  (void)p, (void)x, (void)y, (void)m, (void)n, (void)accumulate;
  return EM_RAISE(EM_ERR_UNSUPPORTED, "no CUDA in this build");
#endif
}

/* ---------------------------------------------------------------- check */

/* Build A in format o on backend o->backend and check y = A x and
 * y += A x against the reference; returns the spmat's info (or zeros). */
static inline em_spmat_info check_format(const em_csr *A, const em_spmat_opts *o, const char *label,
                                         unsigned long long seed) {
  em_spmat_info info;
  memset(&info, 0, sizeof info);
  em_prec p = o->prec;
  int32_t m = A->n_rows, n = A->n_cols;
  double tol = p == EM_PREC_DOUBLE ? 1e-13 : 1e-5;
  size_t es = em_prec_size(p);
  em_csr *Ar = NULL; /* A as stored: values rounded to p */
  REQUIRE_OK(em_csr_copy(A, &Ar));
  em_cplx *x = calloc((size_t)n + 1, sizeof *x), *y0 = calloc((size_t)m + 1, sizeof *y0);
  em_cplx *ref = calloc((size_t)m + 1, sizeof *ref);
  double *scale = calloc((size_t)m + 1, sizeof *scale);
  void *xp = calloc((size_t)n + 1, es), *yp = calloc((size_t)m + GUARD, es);
  unsigned long long s = seed;
  for (int32_t j = 0; j < n; j++)
    x[j] = (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
  for (int32_t i = 0; i < m; i++)
    y0[i] = (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
  if (p == EM_PREC_SINGLE) {
    for (int64_t k = 0; k < Ar->nnz; k++) Ar->val[k] = (em_cplxf)Ar->val[k];
    for (int32_t j = 0; j < n; j++) x[j] = (em_cplxf)x[j];
    for (int32_t i = 0; i < m; i++) y0[i] = (em_cplxf)y0[i];
  }
  em_csr_spmv_ref(Ar, 1, x, 0, ref);
  for (int32_t i = 0; i < m; i++)
    for (int64_t k = Ar->rowptr[i]; k < Ar->rowptr[i + 1]; k++)
      scale[i] += cabs(Ar->val[k]) * cabs(x[Ar->colind[k]]);
  to_prec(x, (size_t)n, p, xp);

  em_spmat *M = NULL;
  em_err err = em_spmat_create(A, o, &M);
  if (err) {
    EXPECT(0, "%s: create %s failed", label, em_format_name(o->format));
    em_error_print(stderr);
    em_error_clear();
    goto done;
  }
  em_spmat_get_info(M, &info);
  EXPECT(info.n_rows == m && info.n_cols == n && info.nnz == A->nnz && info.prec == p &&
             info.backend == o->backend && info.stored >= A->nnz,
         "%s: info of %s wrong", label, em_format_name(info.format));
  for (int acc = 0; acc <= 1; acc++) {
    /* poison: all bits set is a NaN in double and single */
    memset(yp, 0xFF, ((size_t)m + GUARD) * es);
    if (acc) to_prec(y0, (size_t)m, p, yp);
    err = run_spmv(M, o->backend, p, xp, yp, m, n, acc);
    if (err) {
      EXPECT(0, "%s: %s SpMV failed", label, em_format_name(info.format));
      em_error_print(stderr);
      em_error_clear();
      continue;
    }
    int bad = 0;
    for (int32_t i = 0; i < m && bad < 5; i++) {
      em_cplx want = ref[i] + (acc ? y0[i] : 0), got = prec_at(yp, (size_t)i, p);
      double lim = tol * (scale[i] + (acc ? cabs(y0[i]) : 0));
      if (!(cabs(got - want) <= lim)) {
        bad++;
        EXPECT(0, "%s: %s T=%d S=%d %s %s row %d: got %.15g%+.15gi want %.15g%+.15gi", label,
               em_format_name(info.format), info.threads_per_row, info.slice_rows,
               p == EM_PREC_DOUBLE ? "double" : "single", acc ? "y+=Ax" : "y=Ax", i, creal(got),
               cimag(got), creal(want), cimag(want));
      }
    }
    for (int g = 0; g < GUARD; g++) {
      em_cplx v = prec_at(yp, (size_t)m + g, p);
      if (!isnan(creal(v)) || !isnan(cimag(v))) {
        EXPECT(0, "%s: %s wrote past the last row (slot %d)", label, em_format_name(info.format),
               m + g);
        break;
      }
    }
  }
done:
  em_spmat_destroy(&M);
  em_csr_destroy(&Ar);
  free(x);
  free(y0);
  free(ref);
  free(scale);
  free(xp);
  free(yp);
  return info;
}

/* ------------------------------------------------ independent formulas */

static inline int64_t t_round(int64_t a, int64_t m) {
  return (a + m - 1) / m * m;
}

static inline int64_t t_longest(const em_csr *A, int32_t from, int32_t to) {
  int64_t w = 0;
  for (int32_t i = from; i < to && i < A->n_rows; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
  return w;
}

/* Slots and bytes the formats must report (docs/formats.md). */
static inline void t_expected(const em_csr *A, em_format f, int T, int S, em_prec p,
                              int64_t *stored, size_t *bytes) {
  size_t vs = em_prec_size(p), n = (size_t)A->n_rows;
  int64_t n_pad = t_round(A->n_rows, 32), w = t_longest(A, 0, A->n_rows);
  switch (f) {
    case EM_FMT_CSR:
    case EM_FMT_CSR_VECTOR:
      *stored = A->nnz;
      *bytes = (size_t)A->nnz * (vs + 4) + (n + 1) * 8;
      return;
    case EM_FMT_ELL:
      *stored = n_pad * w;
      *bytes = (size_t)*stored * (vs + 4);
      return;
    case EM_FMT_ELLR:
      *stored = n_pad * w;
      *bytes = (size_t)*stored * (vs + 4) + n * 4;
      return;
    case EM_FMT_ELLRT:
      *stored = n_pad * t_round(w, T > 16 ? T : 16);
      *bytes = (size_t)*stored * (vs + 4) + n * 4;
      return;
    default: { /* sliced */
      int64_t ns = ((int64_t)A->n_rows + S - 1) / S, st = 0;
      for (int64_t s = 0; s < ns; s++)
        st += (int64_t)S * t_round(t_longest(A, (int32_t)(s * S), (int32_t)((s + 1) * S)), T);
      *stored = st;
      *bytes = (size_t)st * (vs + 4) + n * 4 + ((size_t)ns + 1) * 8;
    }
  }
}

/* Check a format on one matrix in both precisions, memory included. */
static inline void check_both(const em_csr *A, em_backend b, em_format f, int T, int S,
                              const char *name) {
  for (int pi = 0; pi < 2; pi++) {
    em_spmat_opts o;
    em_spmat_opts_default(&o);
    o.backend = b;
    o.format = f;
    o.prec = pi ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
    o.threads_per_row = T;
    o.slice_rows = S;
    em_spmat_info info = check_format(A, &o, name, 1000u + (unsigned)(7 * T + S + pi));
    if (info.n_rows != A->n_rows || info.format != f) continue;
    int has_t = f == EM_FMT_CSR_VECTOR || f == EM_FMT_ELLRT || f == EM_FMT_SELLRT;
    EXPECT(has_t ? (T == 0 ? info.threads_per_row >= 1 : info.threads_per_row == T)
                 : info.threads_per_row == 0,
           "%s: %s reports T = %d (asked %d)", name, em_format_name(f), info.threads_per_row, T);
    EXPECT(f == EM_FMT_SELLRT ? info.slice_rows == (S ? S : 32) : info.slice_rows == 0,
           "%s: %s reports S = %d (asked %d)", name, em_format_name(f), info.slice_rows, S);
    int64_t st;
    size_t by;
    t_expected(A, f, info.threads_per_row ? info.threads_per_row : 1,
               info.slice_rows ? info.slice_rows : 32, o.prec, &st, &by);
    EXPECT(info.stored == st && info.bytes == by,
           "%s: %s T=%d S=%d memory %lld slots %zu bytes, expected %lld / %zu", name,
           em_format_name(f), T, S, (long long)info.stored, info.bytes, (long long)st, by);
  }
}

#endif
