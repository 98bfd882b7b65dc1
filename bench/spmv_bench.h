/* spmv_bench.h - shared state of the SpMV benchmark (bench/README.md):
 * the matrix in its two row orders, the reference products, and one result
 * row per measured variant. */
#ifndef SPMV_BENCH_H
#define SPMV_BENCH_H

#include "bench_util.h"
#include "em_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_MAX_ROWS 128

/* What one run measures on. */
typedef struct bench_ctx {
  const char *source; /* "fem-box 21 order 3" or the matrix file */
  int reps;           /* timed repetitions per variant */
  int quick;          /* only the variants AUTO chooses between */
  double max_gb;      /* skip layouts larger than this (GB) */
  int n_prec;         /* precisions to run */
  em_prec precs[2];
  em_csr *A;              /* the matrix, rows as given */
  em_csr *As;             /* the same sorted by row length (P A P^T) */
  int32_t *perm;          /* As = P A P^T, perm[old] = new */
  em_blockmat *B;         /* the matrix by order group (NULL: none) */
  em_cplx *x;             /* input vector (rows as given) */
  em_cplx *y_ref;         /* A x, serial reference in double */
  em_cplx *x_s, *y_ref_s; /* the same, sorted order */
  double *scale;          /* sum_k |a_ik| |x_k| per row (error scale) */
  double *scale_s;        /* the same, sorted order */
  char device[128];       /* GPU name, or "" */
  double copy_memcpy;     /* GB/s, cudaMemcpy D2D, read + write */
  double copy_kernel;     /* GB/s, copy kernel, read + write */
  int cpu_threads;        /* OpenMP threads of the CPU run */
  int32_t *bperm;         /* block operator: last plan permutation ... */
  em_blockmat *Bp;        /* ... B permuted by it (kept: permuting is slow) */
  em_cplx *x_b, *y_ref_b; /* x and A x in that order */
  double *scale_b;        /* error scale in that order */
  void *flush;            /* GPU scratch written before each timed run so
                             that no run finds x left in L2 by the last */
  size_t flush_bytes;     /* twice the L2 size */
} bench_ctx;

/* One measured variant. */
typedef struct bench_row {
  char name[48]; /* "sellr-t T=4 sorted", "cusparse csr", ... */
  em_prec prec;
  const char *status; /* "ok", "WRONG", "skipped", "unsupported", "error" */
  char note[96];      /* why skipped / the error */
  double ms;          /* median time per SpMV */
  double gbs;         /* minimal bytes / time */
  double frac_copy;   /* gbs / copy bandwidth */
  double mem_rel;     /* bytes held / CSR bytes */
  double max_err;     /* max_i |y_i - ref_i| / scale_i */
  int64_t stored;     /* slots incl. padding (0: n/a) */
} bench_row;

typedef struct bench_out {
  int n;
  bench_row row[BENCH_MAX_ROWS];
} bench_out;

/* Minimal bytes of one SpMV: CSR arrays + x + y, each once. */
double bench_min_bytes(const em_csr *A, em_prec p);
/* Max over rows of |y_i - ref_i| / scale_i (0/0 = 0; NaN = unwritten -> inf). */
double bench_rel_err(const void *y, em_prec p, const em_cplx *ref, const double *scale, int32_t n);
bench_row *bench_add(bench_out *out, const char *name, em_prec p);

/* GPU part (spmv_bench_gpu.c): copy bandwidth, every format and T, the
 * cuSPARSE baselines, the block operator modes. */
em_err bench_gpu(bench_ctx *c, bench_out *out);
/* Copy kernel (spmv_bench_copy.cu): dst = src over n double2, on stream. */
em_err bench_copy_kernel(void *dst, const void *src, size_t n16, void *stream);

/* Output (spmv_bench_out.c): table on stdout, JSON and markdown in dir. */
void bench_print(const bench_ctx *c, const bench_out *out);
em_err bench_write(const bench_ctx *c, const bench_out *out, const char *dir);

#ifdef __cplusplus
}
#endif
#endif
