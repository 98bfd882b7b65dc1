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
  int study_cache;    /* --study cache: seed 002's carveout and T study only */
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

/* Device vectors of one precision (GPU part). */
typedef struct gpu_vecs {
  em_prec p;
  void *x, *x_s; /* x in the given and in the sorted row order */
  void *y;       /* n + GUARD outputs */
  void *hy;      /* host copy of y */
} gpu_vecs;

/* One SpMV y = A x of some variant. */
typedef em_err (*spmv_fn)(void *ctx, const void *x, void *y);

/* The row order a variant works in: its x on the device, the reference
 * product and the error scale in that order. */
typedef struct order_ref {
  const void *x;
  const em_cplx *ref;
  const double *scale;
} order_ref;

/* Check one variant against the reference, then time it (median of reps),
 * into a new row (spmv_bench_gpu.c).  mem: bytes it holds; host_timing:
 * batches timed on the host (the block operator's own streams). */
void bench_run_variant(bench_ctx *c, bench_out *out, gpu_vecs *v, const char *name, spmv_fn fn,
                       void *ctx, const order_ref *o, size_t mem, int64_t stored, int host_timing);
em_err bench_spmat_run(void *ctx, const void *x, void *y);   /* ctx: em_spmat */
em_err bench_blockop_run(void *ctx, const void *x, void *y); /* ctx: em_blockop */
/* c->Bp, x_b, y_ref_b, scale_b for the block permutation perm (cached). */
em_err bench_blockop_order(bench_ctx *c, const int32_t *perm);
/* cuSPARSE CSR (handle: a cusparseHandle_t) into a new row. */
em_err bench_cusparse_csr(bench_ctx *c, bench_out *out, gpu_vecs *v, void *handle);
/* seed 002 (spmv_bench_cache.c): sliced ELLR-T under each L1 / shared
 * carveout and T, the nine blocks with T per block against one T. */
void bench_cache(bench_ctx *c, bench_out *out, gpu_vecs *v);

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
