/* spmv_bench_gpu.c - the GPU half of the SpMV benchmark: copy bandwidth,
 * every emsolve format and T, cuSPARSE CSR and sliced ELL, the block
 * operator modes.  Each variant: build, poison y, one SpMV, check every
 * element (and the guard slots past the end) against the CPU reference,
 * and only then time it: warm-up, then `reps` runs between CUDA events,
 * median. */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "spmv_bench.h"

#define GUARD 32 /* poisoned slots after y that no kernel may touch */

/* ------------------------------------------------------------ helpers */

/* Median milliseconds of `reps` runs, each between two events on the
 * default stream, after 3 warm-up runs.  Before each run the flush buffer
 * is overwritten (outside the events, queued without a host wait so the
 * run starts right after it): every run starts with a cold L2, as an SpMV
 * inside a Krylov iteration does, and pays for x from memory once. */
static em_err time_events(const bench_ctx *c, spmv_fn fn, void *ctx, const void *x, void *y,
                          int reps, double *ms) {
  cudaEvent_t a = NULL, b = NULL;
  double *t = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&t, (size_t)reps, sizeof *t, "timings"));
  EM_TRY_GOTO(err, em_cuda_status(cudaEventCreate(&a), "cudaEventCreate", __FILE__, __LINE__),
              done);
  EM_TRY_GOTO(err, em_cuda_status(cudaEventCreate(&b), "cudaEventCreate", __FILE__, __LINE__),
              done);
  for (int k = 0; k < 3; k++) EM_TRY_GOTO(err, fn(ctx, x, y), done);
  for (int k = 0; k < reps; k++) {
    float f = 0;
    if (c->flush)
      EM_TRY_GOTO(err,
                  em_cuda_status(cudaMemsetAsync(c->flush, k & 0xFF, c->flush_bytes, 0), "L2 flush",
                                 __FILE__, __LINE__),
                  done);
    EM_TRY_GOTO(err, em_cuda_status(cudaEventRecord(a, 0), "cudaEventRecord", __FILE__, __LINE__),
                done);
    EM_TRY_GOTO(err, fn(ctx, x, y), done);
    EM_TRY_GOTO(err, em_cuda_status(cudaEventRecord(b, 0), "cudaEventRecord", __FILE__, __LINE__),
                done);
    EM_TRY_GOTO(err, em_cuda_status(cudaEventSynchronize(b), "SpMV run", __FILE__, __LINE__), done);
    EM_TRY_GOTO(
        err,
        em_cuda_status(cudaEventElapsedTime(&f, a, b), "cudaEventElapsedTime", __FILE__, __LINE__),
        done);
    t[k] = f;
  }
  *ms = bench_median(t, reps);
done:
  if (a) cudaEventDestroy(a);
  if (b) cudaEventDestroy(b);
  em_free(&t);
  return err;
}

/* Median milliseconds per run over batches of 10 runs timed on the host
 * between device synchronisations: for the block operator, whose launches
 * go to streams of its own that events on the default stream may not
 * bracket. */
static em_err time_host(const bench_ctx *c, spmv_fn fn, void *ctx, const void *x, void *y, int reps,
                        double *ms) {
  (void)c;
  int nb = reps / 10 > 5 ? reps / 10 : 5;
  double *t = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&t, (size_t)nb, sizeof *t, "timings"));
  for (int k = 0; k < 3; k++) EM_TRY_GOTO(err, fn(ctx, x, y), done);
  for (int b = 0; b < nb; b++) {
    EM_TRY_GOTO(err, em_cuda_status(cudaDeviceSynchronize(), "sync", __FILE__, __LINE__), done);
    double t0 = em_wtime();
    for (int k = 0; k < 10; k++) EM_TRY_GOTO(err, fn(ctx, x, y), done);
    EM_TRY_GOTO(err, em_cuda_status(cudaDeviceSynchronize(), "SpMV runs", __FILE__, __LINE__),
                done);
    t[b] = (em_wtime() - t0) * 1e3 / 10;
  }
  *ms = bench_median(t, nb);
done:
  em_free(&t);
  return err;
}

/* Check, then time one variant into a new result row.  mem: bytes the
 * variant holds; host_timing: time_host instead of events. */
void bench_run_variant(bench_ctx *c, bench_out *out, gpu_vecs *v, const char *name, spmv_fn fn,
                       void *ctx, const order_ref *o, size_t mem, int64_t stored, int host_timing) {
  em_prec p = v->p;
  bench_row *r = bench_add(out, name, p);
  if (!r) return;
  int32_t n = c->A->n_rows;
  size_t es = em_prec_size(p), ny = ((size_t)n + GUARD) * es;
  em_err err = EM_OK;
  r->mem_rel = (double)mem / (double)em_csr_bytes(c->A, p);
  r->stored = stored;
  EM_TRY_GOTO(err, em_cuda_status(cudaMemset(v->y, 0xFF, ny), "poison y", __FILE__, __LINE__),
              done);
  EM_TRY_GOTO(err, fn(ctx, o->x, v->y), done);
  EM_TRY_GOTO(err, em_cuda_status(cudaDeviceSynchronize(), name, __FILE__, __LINE__), done);
  EM_TRY_GOTO(err,
              em_cuda_status(cudaMemcpy(v->hy, v->y, ny, cudaMemcpyDeviceToHost), "download y",
                             __FILE__, __LINE__),
              done);
  for (int g = 0; g < GUARD; g++) {
    const unsigned char *b = (const unsigned char *)v->hy + ((size_t)n + g) * es;
    for (size_t k = 0; k < es; k++)
      if (b[k] != 0xFF) {
        r->status = "WRONG";
        snprintf(r->note, sizeof r->note, "wrote past the last row (slot %d)", n + g);
        goto report;
      }
  }
  r->max_err = bench_rel_err(v->hy, p, o->ref, o->scale, n);
  if (!(r->max_err <= (p == EM_PREC_DOUBLE ? 1e-13 : 1e-5))) {
    r->status = "WRONG";
    snprintf(r->note, sizeof r->note, "differs from the CPU reference: not timed");
    goto report;
  }
  EM_TRY_GOTO(err, (host_timing ? time_host : time_events)(c, fn, ctx, o->x, v->y, c->reps, &r->ms),
              done);
  r->gbs = bench_min_bytes(c->A, p) / (r->ms * 1e6);
  double copy = c->copy_memcpy > c->copy_kernel ? c->copy_memcpy : c->copy_kernel;
  r->frac_copy = copy > 0 ? r->gbs / copy : 0;
  r->status = "ok";
done:
  if (err) {
    snprintf(r->note, sizeof r->note, "%s", em_error_message());
    em_error_clear();
  }
report:
  printf("  %-30s %-6s %-8s %9.4f ms %8.1f GB/s %6.1f%% copy  %s\n", r->name,
         p == EM_PREC_DOUBLE ? "double" : "single", r->status, r->ms, r->gbs, 100 * r->frac_copy,
         r->note);
  fflush(stdout);
}

/* -------------------------------------------------------- copy bandwidth */

static em_err memcpy_run(void *ctx, const void *src, void *dst) {
  size_t bytes = *(const size_t *)ctx;
  EM_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
  return EM_OK;
}

static em_err kernel_run(void *ctx, const void *src, void *dst) {
  size_t bytes = *(const size_t *)ctx;
  EM_TRY(bench_copy_kernel(dst, src, bytes / 16, NULL));
  return EM_OK;
}

/* Read + write bandwidth of a large device-to-device copy, both ways. */
static em_err copy_bandwidth(bench_ctx *c) {
  size_t free_b = 0, total = 0, bytes = (size_t)1 << 30;
  EM_CUDA(cudaMemGetInfo(&free_b, &total));
  while (bytes > ((size_t)64 << 20) && 2 * bytes > free_b / 2) bytes /= 2;
  void *src = NULL, *dst = NULL;
  em_err err = EM_OK;
  double ms = 0;
  EM_TRY_GOTO(err, em_cuda_status(cudaMalloc(&src, bytes), "copy buffer", __FILE__, __LINE__),
              done);
  EM_TRY_GOTO(err, em_cuda_status(cudaMalloc(&dst, bytes), "copy buffer", __FILE__, __LINE__),
              done);
  EM_TRY_GOTO(err, em_cuda_status(cudaMemset(src, 0x3C, bytes), "copy buffer", __FILE__, __LINE__),
              done);
  EM_TRY_GOTO(err, time_events(c, memcpy_run, &bytes, src, dst, 20, &ms), done);
  c->copy_memcpy = 2.0 * bytes / (ms * 1e6);
  EM_TRY_GOTO(err, time_events(c, kernel_run, &bytes, src, dst, 20, &ms), done);
  c->copy_kernel = 2.0 * bytes / (ms * 1e6);
done:
  cudaFree(src);
  cudaFree(dst);
  return err;
}

/* ----------------------------------------------------- emsolve formats */

em_err bench_spmat_run(void *ctx, const void *x, void *y) {
  return em_spmat_spmv((const em_spmat *)ctx, x, y, 0, NULL);
}

/* Bytes a one-slice ELL-family layout would hold (for the size guard). */
static double padded_bytes(const em_csr *A, em_format f, int T, em_prec p) {
  int64_t w = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
  int64_t al = f == EM_FMT_ELLRT ? (T > 16 ? T : 16) : 1;
  w = (w + al - 1) / al * al;
  return (double)((int64_t)A->n_rows + 31) / 32 * 32 * w * (em_prec_size(p) + 4);
}

static void run_format(bench_ctx *c, bench_out *out, gpu_vecs *v, em_format f, int T, int sorted) {
  char name[48];
  const em_csr *A = sorted ? c->As : c->A;
  if (f == EM_FMT_AUTO)
    snprintf(name, sizeof name, "auto%s", sorted ? " sorted" : "");
  else if (T)
    snprintf(name, sizeof name, "%s T=%d%s", em_format_name(f), T, sorted ? " sorted" : "");
  else
    snprintf(name, sizeof name, "%s%s", em_format_name(f), sorted ? " sorted" : "");
  if (f == EM_FMT_ELL || f == EM_FMT_ELLR || f == EM_FMT_ELLRT) {
    double b = padded_bytes(A, f, T, v->p);
    size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
      (void)cudaGetLastError();
      free_b = 0;
    }
    if (b > c->max_gb * 1e9 || b > 0.7 * (double)free_b) {
      bench_row *r = bench_add(out, name, v->p);
      if (r) {
        r->status = "skipped";
        snprintf(r->note, sizeof r->note, "layout of %.1f GB (--max-gb %.1f)", b / 1e9, c->max_gb);
      }
      return;
    }
  }
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.backend = EM_BACKEND_CUDA;
  o.prec = v->p;
  o.format = f;
  o.threads_per_row = T;
  em_spmat *M = NULL;
  em_err err = em_spmat_create(A, &o, &M);
  if (err) {
    bench_row *r = bench_add(out, name, v->p);
    if (r) snprintf(r->note, sizeof r->note, "%s", em_error_message());
    em_error_clear();
    return;
  }
  em_spmat_info info;
  em_spmat_get_info(M, &info);
  if (f == EM_FMT_AUTO)
    snprintf(name, sizeof name, "auto: %s T=%d%s", em_format_name(info.format),
             info.threads_per_row, sorted ? " sorted" : "");
  else if (!T && info.threads_per_row) /* T from the rule: say which */
    snprintf(name, sizeof name, "%s T=%d (rule)%s", em_format_name(f), info.threads_per_row,
             sorted ? " sorted" : "");
  order_ref ord = {sorted ? v->x_s : v->x, sorted ? c->y_ref_s : c->y_ref,
                   sorted ? c->scale_s : c->scale};
  bench_run_variant(c, out, v, name, bench_spmat_run, M, &ord, info.bytes, info.stored, 0);
  em_spmat_destroy(&M);
}

/* ----------------------------------------------------------- cuSPARSE */

typedef struct cs_ctx {
  cusparseHandle_t h;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t x, y;
  cusparseSpMVAlg_t alg;
  cudaDataType dt;
  void *buf;
} cs_ctx;

static em_err cs_run(void *ctx, const void *x, void *y) {
  cs_ctx *s = (cs_ctx *)ctx;
  em_cplx one = 1, zero = 0;
  em_cplxf onef = 1, zerof = 0;
  const void *al = s->dt == CUDA_C_64F ? (const void *)&one : (const void *)&onef;
  const void *be = s->dt == CUDA_C_64F ? (const void *)&zero : (const void *)&zerof;
  (void)x, (void)y; /* bound in the descriptors */
  EM_CUSPARSE(cusparseSpMV(s->h, CUSPARSE_OPERATION_NON_TRANSPOSE, al, s->A, s->x, be, s->y, s->dt,
                           s->alg, s->buf));
  return EM_OK;
}

/* Vector descriptors, buffer and preprocessing of a cuSPARSE matrix. */
static em_err cs_prepare(cs_ctx *s, int32_t n, const void *x, void *y) {
  size_t size = 0;
  em_cplx one = 1, zero = 0;
  em_cplxf onef = 1, zerof = 0;
  const void *al = s->dt == CUDA_C_64F ? (const void *)&one : (const void *)&onef;
  const void *be = s->dt == CUDA_C_64F ? (const void *)&zero : (const void *)&zerof;
  EM_CUSPARSE(cusparseCreateDnVec(&s->x, n, (void *)x, s->dt));
  EM_CUSPARSE(cusparseCreateDnVec(&s->y, n, y, s->dt));
  EM_CUSPARSE(cusparseSpMV_bufferSize(s->h, CUSPARSE_OPERATION_NON_TRANSPOSE, al, s->A, s->x, be,
                                      s->y, s->dt, s->alg, &size));
  EM_CUDA(cudaMalloc(&s->buf, size ? size : 16));
  /* optional: a failure here only means no preprocessing for this format */
  if (cusparseSpMV_preprocess(s->h, CUSPARSE_OPERATION_NON_TRANSPOSE, al, s->A, s->x, be, s->y,
                              s->dt, s->alg, s->buf) != CUSPARSE_STATUS_SUCCESS)
    (void)cudaGetLastError();
  return EM_OK;
}

static void cs_release(cs_ctx *s) {
  if (s->A) cusparseDestroySpMat(s->A);
  if (s->x) cusparseDestroyDnVec(s->x);
  if (s->y) cusparseDestroyDnVec(s->y);
  if (s->buf) cudaFree(s->buf);
  s->A = NULL;
  s->x = s->y = NULL;
  s->buf = NULL;
}

/* Host values of A in precision p (em_calloc'ed). */
static em_err vals_prec(const em_cplx *v, int64_t n, em_prec p, void **out) {
  EM_TRY(em_calloc(out, (size_t)n + 1, em_prec_size(p), "values"));
  for (int64_t k = 0; k < n; k++) {
    if (p == EM_PREC_DOUBLE)
      ((em_cplx *)*out)[k] = v[k];
    else
      ((em_cplxf *)*out)[k] = (em_cplxf)v[k];
  }
  return EM_OK;
}

/* cuSPARSE CSR (32-bit indices, CUSPARSE_SPMV_CSR_ALG1) on the given order. */
em_err bench_cusparse_csr(bench_ctx *c, bench_out *out, gpu_vecs *v, void *handle) {
  cusparseHandle_t h = (cusparseHandle_t)handle;
  const em_csr *A = c->A;
  em_prec p = v->p;
  size_t es = em_prec_size(p);
  cs_ctx s = {
      h,   NULL, NULL, NULL, CUSPARSE_SPMV_CSR_ALG1, p == EM_PREC_DOUBLE ? CUDA_C_64F : CUDA_C_32F,
      NULL};
  int32_t *rp = NULL;
  void *hv = NULL, *drp = NULL, *dci = NULL, *dv = NULL;
  em_err err = EM_OK;
  if (A->nnz > INT32_MAX) {
    bench_row *r = bench_add(out, "cusparse csr", p);
    if (r) {
      r->status = "skipped";
      snprintf(r->note, sizeof r->note, "nnz over 2^31 (32-bit indices)");
    }
    return EM_OK;
  }
  EM_TRY_GOTO(err, em_calloc(&rp, (size_t)A->n_rows + 1, sizeof *rp, "row pointers"), done);
  for (int32_t i = 0; i <= A->n_rows; i++) rp[i] = (int32_t)A->rowptr[i];
  EM_TRY_GOTO(err, vals_prec(A->val, A->nnz, p, &hv), done);
  EM_TRY_GOTO(err,
              em_dev_alloc(&drp, rp, ((size_t)A->n_rows + 1) * 4, NULL, "cuSPARSE CSR row offsets"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc(&dci, A->colind, (size_t)A->nnz * 4, NULL, "cuSPARSE CSR columns"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc(&dv, hv, (size_t)A->nnz * es, NULL, "cuSPARSE CSR values"), done);
  err = em_cusparse_status(
      cusparseCreateCsr(&s.A, A->n_rows, A->n_cols, A->nnz, drp, dci, dv, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, s.dt),
      "cusparseCreateCsr", __FILE__, __LINE__);
  if (!err) err = cs_prepare(&s, A->n_rows, v->x, v->y);
  if (err) {
    bench_row *r = bench_add(out, "cusparse csr", p);
    if (r) snprintf(r->note, sizeof r->note, "%s", em_error_message());
    em_error_clear();
    err = EM_OK;
    goto done;
  }
  order_ref ord = {v->x, c->y_ref, c->scale};
  bench_run_variant(c, out, v, "cusparse csr", cs_run, &s, &ord,
                    (size_t)A->nnz * (es + 4) + ((size_t)A->n_rows + 1) * 4, A->nnz, 0);
done:
  cs_release(&s);
  cudaFree(drp);
  cudaFree(dci);
  cudaFree(dv);
  em_free(&rp);
  em_free(&hv);
  return err;
}

/* cuSPARSE sliced ELL (slices of 32 rows, column-major inside a slice,
 * padding column -1, CUSPARSE_SPMV_SELL_ALG1). */
static em_err cusparse_sell(bench_ctx *c, bench_out *out, gpu_vecs *v, cusparseHandle_t h,
                            int sorted) {
  const em_csr *A = sorted ? c->As : c->A;
  const char *name = sorted ? "cusparse sell sorted" : "cusparse sell";
  em_prec p = v->p;
  size_t es = em_prec_size(p);
  const int S = 32;
  int64_t ns = ((int64_t)A->n_rows + S - 1) / S, stored = 0;
  cs_ctx s = {
      h,   NULL, NULL, NULL, CUSPARSE_SPMV_SELL_ALG1, p == EM_PREC_DOUBLE ? CUDA_C_64F : CUDA_C_32F,
      NULL};
  int32_t *off = NULL, *col = NULL;
  em_cplx *val = NULL;
  void *hv = NULL, *doff = NULL, *dcol = NULL, *dv = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&off, (size_t)ns + 1, sizeof *off, "SELL slice offsets"), done);
  for (int64_t sl = 0; sl < ns; sl++) {
    int64_t w = 0;
    for (int64_t i = sl * S; i < (sl + 1) * S && i < A->n_rows; i++)
      if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
    stored += w * S;
    if (stored > INT32_MAX) {
      bench_row *r = bench_add(out, name, p);
      if (r) {
        r->status = "skipped";
        snprintf(r->note, sizeof r->note, "over 2^31 slots (32-bit offsets)");
      }
      goto done;
    }
    off[sl + 1] = (int32_t)stored;
  }
  EM_TRY_GOTO(err, em_calloc(&col, (size_t)stored + 1, sizeof *col, "SELL columns"), done);
  EM_TRY_GOTO(err, em_calloc(&val, (size_t)stored + 1, sizeof *val, "SELL values"), done);
  for (int64_t k = 0; k < stored; k++) col[k] = -1;
  for (int32_t i = 0; i < A->n_rows; i++) {
    int64_t sl = i / S, r = i % S;
    for (int64_t k = 0; k < A->rowptr[i + 1] - A->rowptr[i]; k++) {
      col[off[sl] + k * S + r] = A->colind[A->rowptr[i] + k];
      val[off[sl] + k * S + r] = A->val[A->rowptr[i] + k];
    }
  }
  EM_TRY_GOTO(err, vals_prec(val, stored, p, &hv), done);
  EM_TRY_GOTO(err,
              em_dev_alloc(&doff, off, ((size_t)ns + 1) * 4, NULL, "cuSPARSE SELL slice offsets"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc(&dcol, col, (size_t)stored * 4, NULL, "cuSPARSE SELL columns"),
              done);
  EM_TRY_GOTO(err, em_dev_alloc(&dv, hv, (size_t)stored * es, NULL, "cuSPARSE SELL values"), done);
  err = em_cusparse_status(
      cusparseCreateSlicedEll(&s.A, A->n_rows, A->n_cols, A->nnz, stored, S, doff, dcol, dv,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                              s.dt),
      "cusparseCreateSlicedEll", __FILE__, __LINE__);
  if (!err) err = cs_prepare(&s, A->n_rows, sorted ? v->x_s : v->x, v->y);
  if (err) {
    bench_row *r = bench_add(out, name, p);
    if (r) {
      r->status = em_error_code() == EM_ERR_CUSPARSE ? "unsupported" : "error";
      snprintf(r->note, sizeof r->note, "%s", em_error_message());
    }
    em_error_clear();
    err = EM_OK;
    goto done;
  }
  order_ref ord = {sorted ? v->x_s : v->x, sorted ? c->y_ref_s : c->y_ref,
                   sorted ? c->scale_s : c->scale};
  bench_run_variant(c, out, v, name, cs_run, &s, &ord,
                    (size_t)stored * (es + 4) + ((size_t)ns + 1) * 4, stored, 0);
done:
  cs_release(&s);
  cudaFree(doff);
  cudaFree(dcol);
  cudaFree(dv);
  em_free(&off);
  em_free(&col);
  em_free(&val);
  em_free(&hv);
  return err;
}

/* ------------------------------------------------------ block operator */

em_err bench_blockop_run(void *ctx, const void *x, void *y) {
  return em_blockop_apply((em_blockop *)ctx, x, y);
}

/* B permuted by perm, with x, A x and the error scale in the same order,
 * cached in c: the modes usually plan the same permutation. */
em_err bench_blockop_order(bench_ctx *c, const int32_t *perm) {
  int32_t n = c->A->n_rows;
  if (c->bperm && !memcmp(c->bperm, perm, (size_t)n * sizeof *perm)) return EM_OK;
  em_free(&c->bperm);
  em_blockmat_destroy(&c->Bp);
  em_free(&c->x_b);
  em_free(&c->y_ref_b);
  em_free(&c->scale_b);
  EM_TRY(em_blockmat_permute(c->B, perm, &c->Bp));
  EM_TRY(em_calloc(&c->x_b, (size_t)n + 1, sizeof *c->x_b, "x"));
  EM_TRY(em_calloc(&c->y_ref_b, (size_t)n + 1, sizeof *c->y_ref_b, "reference"));
  EM_TRY(em_calloc(&c->scale_b, (size_t)n + 1, sizeof *c->scale_b, "error scale"));
  for (int32_t i = 0; i < n; i++) {
    c->x_b[perm[i]] = c->x[i];
    c->y_ref_b[perm[i]] = c->y_ref[i];
    c->scale_b[perm[i]] = c->scale[i];
  }
  EM_TRY(em_calloc(&c->bperm, (size_t)n + 1, sizeof *c->bperm, "block permutation"));
  memcpy(c->bperm, perm, (size_t)n * sizeof *perm);
  return EM_OK;
}

/* Whole matrix vs the nine blocks in streams, in sequence, in a graph:
 * each on the block matrix permuted as em_blockop_plan_perm asks. */
static void bench_blockop(bench_ctx *c, bench_out *out, gpu_vecs *v) {
  static const struct {
    em_blockop_mode mode;
    const char *name;
  } modes[] = {{EM_BLOCKOP_ONE_MATRIX, "blockop one-matrix"},
               {EM_BLOCKOP_STREAMS, "blockop streams"},
               {EM_BLOCKOP_SEQUENTIAL, "blockop sequential"},
               {EM_BLOCKOP_GRAPH, "blockop graph"},
               {EM_BLOCKOP_ROWS, "blockop rows (fused)"}};
  int32_t n = c->A->n_rows;
  for (int m = 0; m < 5; m++) {
    em_blockop_opts o;
    em_blockop_opts_default(&o);
    o.backend = EM_BACKEND_CUDA;
    o.prec = v->p;
    o.mode = modes[m].mode;
    int32_t *perm = NULL;
    em_blockop *op = NULL;
    void *dx = NULL;
    em_err err = EM_OK;
    EM_TRY_GOTO(err, em_calloc(&perm, (size_t)n + 1, sizeof *perm, "block permutation"), done);
    EM_TRY_GOTO(err, em_blockop_plan_perm(c->B, &o, perm), done);
    EM_TRY_GOTO(err, bench_blockop_order(c, perm), done);
    EM_TRY_GOTO(err, em_blockop_create(c->Bp, &o, &op), done);
    EM_TRY_GOTO(err, em_dev_upload_vals(&dx, c->x_b, (size_t)n, v->p, NULL, "x in the block order"),
                done);
    order_ref ord = {dx, c->y_ref_b, c->scale_b};
    bench_run_variant(c, out, v, modes[m].name, bench_blockop_run, op, &ord, em_blockop_bytes(op),
                      0, 0);
  done:
    if (err) {
      bench_row *r = bench_add(out, modes[m].name, v->p);
      if (r) {
        r->status = em_error_code() == EM_ERR_UNSUPPORTED ? "unsupported" : "error";
        snprintf(r->note, sizeof r->note, "%s", em_error_message());
        printf("  %-30s %s: %s\n", modes[m].name, r->status, r->note);
      }
      em_error_clear();
    }
    em_blockop_destroy(&op);
    cudaFree(dx);
    em_free(&perm);
  }
}

/* ----------------------------------------------------------- the run */

static void vecs_free(gpu_vecs *v) {
  cudaFree(v->x);
  cudaFree(v->x_s);
  cudaFree(v->y);
  em_free(&v->hy);
}

/* Every variant in one precision. */
static em_err bench_prec(bench_ctx *c, bench_out *out, em_prec p, cusparseHandle_t h) {
  gpu_vecs v = {p, NULL, NULL, NULL, NULL};
  int32_t n = c->A->n_rows;
  size_t ny = ((size_t)n + GUARD) * em_prec_size(p);
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_dev_upload_vals(&v.x, c->x, (size_t)n, p, NULL, "x"), done);
  EM_TRY_GOTO(err,
              em_dev_upload_vals(&v.x_s, c->x_s, (size_t)n, p, NULL, "x in the sorted row order"),
              done);
  EM_TRY_GOTO(err, em_cuda_status(cudaMalloc(&v.y, ny), "cudaMalloc(y)", __FILE__, __LINE__), done);
  EM_TRY_GOTO(err, em_calloc(&v.hy, ny, 1, "y"), done);
  printf("%s precision:\n", p == EM_PREC_DOUBLE ? "double" : "single");
  if (c->study_cache) { /* seed 002: cuSPARSE CSR, then the carveout and T study */
    EM_TRY_GOTO(err, bench_cusparse_csr(c, out, &v, h), done);
    bench_cache(c, out, &v);
    goto done;
  }
  if (c->quick) {
    /* what AUTO chooses between, T from the rule, and cuSPARSE CSR */
    static const em_format q[] = {EM_FMT_CSR, EM_FMT_CSR_VECTOR, EM_FMT_SELLRT, EM_FMT_HYB,
                                  EM_FMT_HEC, EM_FMT_BITMAP,     EM_FMT_AUTO};
    for (size_t k = 0; k < sizeof q / sizeof *q; k++) run_format(c, out, &v, q[k], 0, 0);
    run_format(c, out, &v, EM_FMT_SELLRT, 0, 1);
    run_format(c, out, &v, EM_FMT_AUTO, 0, 1);
    EM_TRY_GOTO(err, bench_cusparse_csr(c, out, &v, h), done);
    goto done;
  }
  run_format(c, out, &v, EM_FMT_CSR, 0, 0);
  for (int T = 2; T <= 32; T *= 2) run_format(c, out, &v, EM_FMT_CSR_VECTOR, T, 0);
  run_format(c, out, &v, EM_FMT_ELL, 0, 0);
  run_format(c, out, &v, EM_FMT_ELLR, 0, 0);
  for (int T = 1; T <= 32; T *= 2) run_format(c, out, &v, EM_FMT_ELLRT, T, 0);
  for (int T = 1; T <= 32; T *= 2) run_format(c, out, &v, EM_FMT_SELLRT, T, 0);
  for (int T = 1; T <= 32; T *= 2) run_format(c, out, &v, EM_FMT_SELLRT, T, 1);
  run_format(c, out, &v, EM_FMT_AUTO, 0, 1);
  /* ELL + tail and the bitmap (AUTO's first two steps) */
  run_format(c, out, &v, EM_FMT_HYB, 0, 0);
  run_format(c, out, &v, EM_FMT_HEC, 0, 0);
  run_format(c, out, &v, EM_FMT_BITMAP, 0, 0);
  EM_TRY_GOTO(err, bench_cusparse_csr(c, out, &v, h), done);
  EM_TRY_GOTO(err, cusparse_sell(c, out, &v, h, 0), done);
  EM_TRY_GOTO(err, cusparse_sell(c, out, &v, h, 1), done);
  if (c->B) bench_blockop(c, out, &v);
done:
  vecs_free(&v);
  return err;
}

em_err bench_gpu(bench_ctx *c, bench_out *out) {
  em_device dev;
  if (em_device_open("gpu", NULL, &dev)) {
    printf("GPU: %s; GPU rows skipped\n", em_error_message());
    em_error_clear();
    return EM_OK;
  }
  snprintf(c->device, sizeof c->device, "%s", dev.name);
  int l2 = 0;
  EM_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev.cuda_id));
  c->flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
  EM_CUDA(cudaMalloc(&c->flush, c->flush_bytes));
  em_err err = copy_bandwidth(c);
  if (err) {
    cudaFree(c->flush);
    c->flush = NULL;
    return em_error_trace(err, __FILE__, __LINE__);
  }
  printf("GPU %s: copy bandwidth (read + write) %.0f GB/s cudaMemcpy, %.0f GB/s kernel\n",
         c->device, c->copy_memcpy, c->copy_kernel);
  cusparseHandle_t h = NULL;
  err = em_cusparse_status(cusparseCreate(&h), "cusparseCreate", __FILE__, __LINE__);
  for (int pi = 0; pi < c->n_prec && !err; pi++) err = bench_prec(c, out, c->precs[pi], h);
  if (h) cusparseDestroy(h);
  cudaFree(c->flush);
  c->flush = NULL;
  if (err) return em_error_trace(err, __FILE__, __LINE__);
  return EM_OK;
}
