/* The multi-vector product (em_spmat_spmm, em_blockop_apply_multi,
 * em_operator_apply_multi) on one backend: every format of the conformance
 * suite (those with a multi-vector kernel and those that fall back to
 * SpMVs), its default and awkward parameters, the awkward random matrices
 * and the FEM patterns of orders 1-3, both precisions, k = 1, 2, 3, 5, 8
 * and 11 vectors (groups of 8, 4, 3, 2, 1 and more than one group), y = A x
 * and y += A x:
 *   - every column within 1e-13 (double) / 1e-5 (single) of the plain CPU
 *     reference em_csr_spmv_ref (relative to the row's sum of |a_ik x_k|);
 *   - every column bit for bit what em_spmat_spmv gives it (the documented
 *     promise that lets a block of Krylov solves equal the separate ones);
 *   - nothing written past the last row of any column (poisoned guards).
 * The same for the product from an interleaved x (em_vecs_interleave +
 * em_spmat_spmm_il: the GPU's CSR and ELL-family kernels that gather an
 * entry's k values from one place; the others, and the CPU, fall back),
 * and the interleaved block itself against a host loop.
 * Then the nine-block operator of an order-3 FEM pattern in every mode,
 * with and without its interleaved copy of x, k = 2, 3, 4, 5, 8: each
 * column of em_blockop_apply_multi equals em_blockop_apply's bit for bit.
 * Arguments: cpu (default) or gpu (exit 77: no GPU); then "quick" (for
 * compute-sanitizer): CSR-vector and two sliced ELLR-T layouts only,
 * k = 1, 3, 5, 8. */
#include "spmat_check.h"

#define KMAX 11

/* y[c] = A x[c] (acc 0) or += on backend b through device copies: x and y
 * are host arrays of k columns, x with ldx entries, y with m + GUARD. */
/* multi: 0 k SpMVs, 1 em_spmat_spmm, 2 em_spmat_spmm_il from the columns
 * interleaved (em_vecs_interleave) per group of at most EM_SPMM_GROUP. */
static em_err run_spmm(const em_spmat *M, em_backend b, em_prec p, int k, const void *x, size_t ldx,
                       void *y, size_t ldy, int acc, int multi) {
  size_t es = em_prec_size(p);
  const void *xs[KMAX];
  void *ys[KMAX];
  void *xi = NULL; /* the interleaved groups, where M lives */
#ifdef EM_HAVE_CUDA
  void *dx = NULL, *dy = NULL; /* the device copies */
#endif
  em_err err = EM_OK;
  const char *hx = x;
  char *hy = y;
  size_t xib = (size_t)EM_SPMM_GROUP * ldx * es;
  if (b == EM_BACKEND_CUDA) {
#ifdef EM_HAVE_CUDA
    EM_TRY_GOTO(err, em_dev_alloc(&dx, x, (size_t)k * ldx * es + es, NULL, "test X"), done);
    EM_TRY_GOTO(err, em_dev_alloc(&dy, y, (size_t)k * ldy * es, NULL, "test Y"), done);
    if (multi == 2) EM_TRY_GOTO(err, em_dev_alloc(&xi, NULL, xib, NULL, "test XI"), done);
    hx = dx;
    hy = dy;
#else
    return EM_RAISE(EM_ERR_UNSUPPORTED, "no CUDA in this build");
#endif
  } else if (multi == 2) {
    EM_TRY(em_calloc(&xi, xib, 1, "test XI"));
  }
  for (int c = 0; c < k; c++) {
    xs[c] = hx + (size_t)c * ldx * es;
    ys[c] = hy + (size_t)c * ldy * es;
  }
  em_spmat_info info;
  em_spmat_get_info(M, &info);
  if (multi == 2)
    for (int j = 0; j < k && !err; j += EM_SPMM_GROUP) {
      int g = k - j < EM_SPMM_GROUP ? k - j : EM_SPMM_GROUP;
      err = em_vecs_interleave(b, p, info.n_cols, g, xs + j, xi, NULL);
      if (!err) err = em_spmat_spmm_il(M, g, xs + j, xi, ys + j, acc, NULL);
    }
  else if (multi)
    err = em_spmat_spmm(M, k, xs, ys, acc, NULL);
  else
    for (int c = 0; c < k && !err; c++) err = em_spmat_spmv(M, xs[c], ys[c], acc, NULL);
#ifdef EM_HAVE_CUDA
  if (!err && b == EM_BACKEND_CUDA) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(y, dy, (size_t)k * ldy * es, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) err = EM_RAISE(EM_ERR_CUDA, "SpMM test: %s", cudaGetErrorString(e));
  }
done:
  em_dev_free(&dx);
  em_dev_free(&dy);
  if (b == EM_BACKEND_CUDA) em_dev_free(&xi);
#endif
  if (b == EM_BACKEND_CPU) em_free(&xi);
  return err;
}

/* One format, one matrix, one precision: every k, both accumulate modes. */
static void check_spmm(const em_csr *A, const em_spmat_opts *o, const char *label,
                       unsigned long long seed, int quick) {
  /* launches of 1; 2; 3; 4; 4 + 1; 8; 8 + 3 columns (quick: 1; 3; 4 + 1; 8;
     the CPU, whose kernels take any K: 1; 2; 4 + 1; 8 + 3) */
  static const int KS_ALL[] = {1, 2, 3, 4, 5, 8, 11}, KS_QUICK[] = {1, 3, 5, 8};
  static const int KS_CPU[] = {1, 2, 5, 11};
  const int *KS = quick ? KS_QUICK : o->backend == EM_BACKEND_CPU ? KS_CPU : KS_ALL;
  size_t nks = quick                          ? sizeof KS_QUICK / sizeof *KS_QUICK
               : o->backend == EM_BACKEND_CPU ? sizeof KS_CPU / sizeof *KS_CPU
                                              : sizeof KS_ALL / sizeof *KS_ALL;
  em_prec p = o->prec;
  int32_t m = A->n_rows, n = A->n_cols;
  size_t es = em_prec_size(p), ldx = (size_t)n + 1, ldy = (size_t)m + GUARD;
  double tol = p == EM_PREC_DOUBLE ? 1e-13 : 1e-5;
  em_spmat *M = NULL;
  if (em_spmat_create(A, o, &M)) {
    EXPECT(0, "%s: create failed", label);
    em_error_print(stderr);
    em_error_clear();
    return;
  }
  em_csr *Ar = NULL;
  REQUIRE_OK(em_csr_copy(A, &Ar));
  if (p == EM_PREC_SINGLE)
    for (int64_t q = 0; q < Ar->nnz; q++) Ar->val[q] = (em_cplxf)Ar->val[q];
  em_cplx *x = calloc(KMAX * ldx, sizeof *x), *y0 = calloc(KMAX * ldy, sizeof *y0);
  em_cplx *ref = calloc(KMAX * ldy, sizeof *ref);    /* A x_c, every column */
  double *scale = calloc(KMAX * ldy, sizeof *scale); /* sum |a_ik| |x_c,k| */
  void *xp = calloc(KMAX * ldx, es), *ym = calloc(KMAX * ldy, es), *yv = calloc(KMAX * ldy, es);
  void *yi = calloc(KMAX * ldy, es);
  unsigned long long s = seed;
  for (size_t q = 0; q < KMAX * ldx; q++) {
    x[q] = (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
    if (p == EM_PREC_SINGLE) x[q] = (em_cplxf)x[q];
  }
  for (size_t q = 0; q < KMAX * ldy; q++) {
    y0[q] = (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
    if (p == EM_PREC_SINGLE) y0[q] = (em_cplxf)y0[q];
  }
  to_prec(x, KMAX * ldx, p, xp);
  for (int c = 0; c < KMAX; c++) {
    const em_cplx *xc = x + (size_t)c * ldx;
    em_csr_spmv_ref(Ar, 1, xc, 0, ref + (size_t)c * ldy);
    for (int32_t i = 0; i < m; i++)
      for (int64_t q = Ar->rowptr[i]; q < Ar->rowptr[i + 1]; q++)
        scale[(size_t)c * ldy + i] += cabs(Ar->val[q]) * cabs(xc[Ar->colind[q]]);
  }
  for (size_t ki = 0; ki < nks; ki++) {
    int k = KS[ki];
    for (int acc = 0; acc <= 1; acc++) {
      /* pass 0: SpMM, 1: k SpMVs, 2: SpMM from the interleaved block
         (where there is no such kernel, em_spmat_spmm_il's fallback once,
         k = 5; else pass 0's result stands in) */
      for (int pass = 0; pass < 3; pass++) {
        void *y = pass == 2 ? yi : pass ? yv : ym;
        if (pass == 2 && !em_spmat_has_spmm_il(M) && k != 5) {
          memcpy(yi, ym, KMAX * ldy * es);
          continue;
        }
        memset(y, 0xFF, KMAX * ldy * es);
        if (acc)
          for (int c = 0; c < k; c++)
            to_prec(y0 + (size_t)c * ldy, (size_t)m, p, (char *)y + (size_t)c * ldy * es);
        em_err err = run_spmm(M, o->backend, p, k, xp, ldx, y, ldy, acc,
                              pass == 1 ? 0
                              : pass    ? 2
                                        : 1);
        if (err) {
          EXPECT(0, "%s: k = %d %s failed", label, k,
                 pass == 2 ? "SpMM-IL"
                 : pass    ? "SpMV"
                           : "SpMM");
          em_error_print(stderr);
          em_error_clear();
        }
      }
      int bad = 0;
      for (int c = 0; c < k && bad < 3; c++) {
        for (int32_t i = 0; i < m && bad < 3; i++) {
          size_t at = (size_t)c * ldy + i;
          em_cplx want = ref[at] + (acc ? y0[at] : 0), got = prec_at(ym, at, p);
          em_cplx spmv = prec_at(yv, at, p), il = prec_at(yi, at, p);
          if (memcmp(&il, &spmv, sizeof il) != 0) {
            bad++;
            EXPECT(0, "%s: k = %d %s column %d row %d: SpMM-IL %.17g%+.17gi, SpMV %.17g%+.17gi",
                   label, k, acc ? "y+=Ax" : "y=Ax", c, i, creal(il), cimag(il), creal(spmv),
                   cimag(spmv));
          }
          if (!(cabs(got - want) <= tol * (scale[at] + (acc ? cabs(y0[at]) : 0)))) {
            bad++;
            EXPECT(0, "%s: k = %d %s column %d row %d: %.15g%+.15gi, reference %.15g%+.15gi", label,
                   k, acc ? "y+=Ax" : "y=Ax", c, i, creal(got), cimag(got), creal(want),
                   cimag(want));
          }
          if (memcmp(&got, &spmv, sizeof got) != 0) {
            bad++;
            EXPECT(0, "%s: k = %d %s column %d row %d: SpMM %.17g%+.17gi, SpMV %.17g%+.17gi", label,
                   k, acc ? "y+=Ax" : "y=Ax", c, i, creal(got), cimag(got), creal(spmv),
                   cimag(spmv));
          }
        }
        for (int g = 0; g < GUARD; g++) {
          em_cplx v = prec_at(ym, (size_t)c * ldy + (size_t)m + g, p);
          em_cplx vi = prec_at(yi, (size_t)c * ldy + (size_t)m + g, p);
          if (!isnan(creal(v)) || !isnan(cimag(v)) || !isnan(creal(vi)) || !isnan(cimag(vi))) {
            EXPECT(0, "%s: k = %d column %d written past the last row", label, k, c);
            bad++;
            break;
          }
        }
      }
    }
  }
  em_spmat_destroy(&M);
  em_csr_destroy(&Ar);
  free(x);
  free(y0);
  free(ref);
  free(scale);
  free(xp);
  free(ym);
  free(yv);
  free(yi);
}

/* The nine-block operator, every mode, with and without the interleaved
 * copy of x, k = 2, 3, 4, 5, 8: apply_multi == apply, bit for bit. */
static void check_blockop(em_backend b) {
  em_blockmat *B = NULL;
  REQUIRE_OK(em_fem_pattern_box(2, 3, 21u, NULL, &B));
  int32_t n = B->offset[B->nb];
  enum { K = 8 };
  static const int KS[] = {2, 3, 4, 5, 8};
  size_t bytes = (size_t)n * sizeof(em_cplx);
  em_cplx *x = calloc((size_t)K * n, sizeof *x), *y1 = calloc((size_t)K * n, sizeof *y1);
  em_cplx *y2 = calloc((size_t)K * n, sizeof *y2);
  unsigned long long s = 99;
  for (size_t q = 0; q < (size_t)K * n; q++)
    x[q] = (2 * em_test_rand(&s) - 1) + I * (2 * em_test_rand(&s) - 1);
  for (int mode = EM_BLOCKOP_STREAMS; mode <= EM_BLOCKOP_ROWS; mode++)
    for (int il = 0; il <= 1; il++) {
      em_blockop_opts o;
      em_blockop_opts_default(&o);
      o.backend = b;
      o.mode = (em_blockop_mode)mode;
      o.interleave = il;
      if (mode == EM_BLOCKOP_SEQUENTIAL && il) /* a fallback format among the blocks */
        o.format[0][1] = o.format[1][0] = EM_FMT_HYB;
      if (mode == EM_BLOCKOP_GRAPH && il) /* the CSR kernels */
        for (int i = 0; i < EM_MAX_ORDER; i++)
          for (int j = 0; j < EM_MAX_ORDER; j++) o.format[i][j] = EM_FMT_CSR_VECTOR;
      em_blockop *op = NULL;
      REQUIRE_OK(em_blockop_create(B, &o, &op));
      em_operator A;
      REQUIRE_OK(em_blockop_operator(op, &A));
      void *dx = x, *d1 = y1, *d2 = y2;
#ifdef EM_HAVE_CUDA
      if (b == EM_BACKEND_CUDA) {
        REQUIRE_OK(em_dev_alloc(&dx, x, K * bytes, NULL, "X"));
        REQUIRE_OK(em_dev_alloc(&d1, NULL, K * bytes, NULL, "Y1"));
        REQUIRE_OK(em_dev_alloc(&d2, NULL, K * bytes, NULL, "Y2"));
      }
#endif
      const void *xs[K];
      void *ys[K];
      for (int c = 0; c < K; c++) {
        xs[c] = (char *)dx + c * bytes;
        EXPECT_OK(em_blockop_apply(op, xs[c], (char *)d1 + c * bytes));
      }
      for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++) {
        int k = KS[ki];
        for (int c = 0; c < k; c++) ys[c] = (char *)d2 + c * bytes;
        EXPECT_OK(em_operator_apply_multi(&A, k, xs, ys));
        EXPECT_ERR(em_blockop_apply_multi(op, 2, xs, (void *const *)xs), EM_ERR_ARG);
#ifdef EM_HAVE_CUDA
        if (b == EM_BACKEND_CUDA) {
          REQUIRE_OK(cudaDeviceSynchronize() == cudaSuccess ? EM_OK : EM_ERR_CUDA);
          cudaMemcpy(y1, d1, K * bytes, cudaMemcpyDeviceToHost);
          cudaMemcpy(y2, d2, k * bytes, cudaMemcpyDeviceToHost);
        }
#endif
        EXPECT(memcmp(y1, y2, k * bytes) == 0,
               "block operator mode %d%s, k = %d: apply_multi differs from apply", mode,
               il ? " (interleaved x)" : "", k);
      }
#ifdef EM_HAVE_CUDA
      if (b == EM_BACKEND_CUDA) {
        em_dev_free(&dx);
        em_dev_free(&d1);
        em_dev_free(&d2);
      }
#endif
      em_blockop_destroy(&op);
    }
  em_blockmat_destroy(&B);
  free(x);
  free(y1);
  free(y2);
}

/* em_vecs_interleave against a host loop: k = 1..8 columns of awkward
 * lengths (0, 1, 31, 529), bit for bit; bad arguments refused. */
static void check_interleave(em_backend b) {
  static const int32_t NS[] = {0, 1, 31, 529};
  for (int pi = 0; pi < 2; pi++) {
    em_prec p = pi ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
    size_t es = em_prec_size(p);
    for (size_t ni = 0; ni < sizeof NS / sizeof NS[0]; ni++)
      for (int k = 1; k <= EM_SPMM_GROUP; k++) {
        int32_t n = NS[ni];
        size_t bytes = (size_t)n * es;
        unsigned char *h = malloc((size_t)k * bytes + 1), *want = malloc((size_t)k * bytes + 1);
        unsigned char *got = malloc((size_t)k * bytes + 1);
        for (size_t q = 0; q < (size_t)k * bytes; q++) h[q] = (unsigned char)(q * 131 + 7 * k);
        for (int32_t c = 0; c < n; c++)
          for (int j = 0; j < k; j++)
            memcpy(want + ((size_t)c * k + j) * es, h + (size_t)j * bytes + (size_t)c * es, es);
        void *dh = h, *dxi = got;
#ifdef EM_HAVE_CUDA
        if (b == EM_BACKEND_CUDA) {
          REQUIRE_OK(em_dev_alloc(&dh, h, (size_t)k * bytes, NULL, "X"));
          REQUIRE_OK(em_dev_alloc(&dxi, NULL, (size_t)k * bytes, NULL, "XI"));
        }
#endif
        const void *xs[EM_SPMM_GROUP];
        for (int j = 0; j < k; j++) xs[j] = (char *)dh + (size_t)j * bytes;
        EXPECT_OK(em_vecs_interleave(b, p, n, k, xs, dxi, NULL));
#ifdef EM_HAVE_CUDA
        if (b == EM_BACKEND_CUDA) {
          REQUIRE_OK(cudaDeviceSynchronize() == cudaSuccess ? EM_OK : EM_ERR_CUDA);
          if (bytes) cudaMemcpy(got, dxi, (size_t)k * bytes, cudaMemcpyDeviceToHost);
          em_dev_free(&dh);
          em_dev_free(&dxi);
        }
#endif
        EXPECT(memcmp(got, want, (size_t)k * bytes) == 0,
               "interleave of %d columns of %d entries (%s) differs from the host loop", k, n,
               pi ? "single" : "double");
        free(h);
        free(want);
        free(got);
      }
  }
  const void *none[1] = {NULL};
  char buf[16];
  EXPECT_ERR(em_vecs_interleave(b, EM_PREC_DOUBLE, 4, 9, none, buf, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_vecs_interleave(b, EM_PREC_DOUBLE, 4, 1, none, buf, NULL), EM_ERR_ARG);
}

int main(int argc, char **argv) {
  em_backend b = test_backend(argc, argv);
  int quick = argc > 2 && !strcmp(argv[2], "quick");
  tcase c[32];
  int n = suite_build(c, 1), runs = 0;
  int nf = (int)(sizeof FORMATS / sizeof FORMATS[0]);
  for (int fi = 0; fi < nf; fi++) {
    const fcase *F = &FORMATS[fi];
    if (quick && !(F->f == EM_FMT_CSR_VECTOR && F->T == 0) &&
        !(F->f == EM_FMT_SELLRT && (F->T == 0 || F->T == 4)))
      continue;
    for (int pi = 0; pi < 2; pi++)
      for (int i = 0; i < n; i++) {
        em_spmat_opts o;
        em_spmat_opts_default(&o);
        o.backend = b;
        o.format = F->f;
        o.prec = pi ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
        o.threads_per_row = F->T;
        o.slice_rows = F->S;
        o.ell_width = F->K;
        char label[128];
        snprintf(label, sizeof label, "%.63s [%.15s T=%d S=%d K=%d %s]", c[i].name,
                 em_format_name(F->f), F->T, F->S, F->K, pi ? "single" : "double");
        check_spmm(c[i].A, &o, label, 700u + (unsigned)(31 * fi + pi), quick);
        runs++;
      }
  }
  /* the multi-vector kernels exist where the docs say */
  static const em_format with[] = {EM_FMT_CSR,  EM_FMT_CSR_VECTOR, EM_FMT_ELL,
                                   EM_FMT_ELLR, EM_FMT_ELLRT,      EM_FMT_SELLRT};
  for (size_t f = 0; f < sizeof with / sizeof with[0]; f++) {
    em_spmat_opts o;
    em_spmat_opts_default(&o);
    o.backend = b;
    o.format = with[f];
    em_spmat *M = NULL;
    REQUIRE_OK(em_spmat_create(c[3].A, &o, &M));
    EXPECT(em_spmat_has_spmm(M), "%s has no multi-vector kernel", em_format_name(with[f]));
    em_spmat_destroy(&M);
  }
  check_blockop(b);
  check_interleave(b);
  printf("%d formats x 2 precisions x %d matrices: %d SpMM checks on the %s\n", nf, n, runs,
         b == EM_BACKEND_CPU ? "CPU" : "GPU");
  suite_free(c, n);
  return TEST_RESULT();
}
