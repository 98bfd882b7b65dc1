/* formats_impl.h - what every storage format and every backend provides
 * (private to formats/).
 *
 * libCEED's shape: a matrix is an opaque handle with one ops table per
 * (format, backend) and a pointer to its backend.  A format is one builder
 * that converts a host CSR into its own layout and hands each array over to
 * the backend (em_fmt_place: kept as it is on the host, uploaded for CUDA),
 * so a builder never asks which backend it builds for.  The kernels of a
 * format live in <fmt>_cpu.c (OpenMP) and <fmt>_cuda.cu (CUDA); each of
 * those files defines that backend's ops table of the format.  A backend is
 * one table (backend_cpu.c, backend_cuda.c) listing how its memory is
 * handled and the ops of every format on it; em_fmt_backend_of (spmat.c) is
 * the one place that knows which backends this build has.
 *
 * Adding a format: a builder, a CPU ops table, a CUDA ops table (or NULL in
 * backend_cuda.c until it has kernels), a row in each backend table and in
 * spmat.c's BUILD table, a name in em_formats.h (docs/architecture.md). */
#ifndef EM_FORMATS_IMPL_H
#define EM_FORMATS_IMPL_H

#include "em_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host loops with less work than this (entries or slots) stay on one thread:
 * an OpenMP region costs more than they do, and far more when the cores are
 * oversubscribed and idle OpenMP threads spin. */
#define EM_FMT_OMP_MIN 32768

/* Threads per block of every format's CUDA kernels (and the unit of the
 * grid cap); a multiple of 32 so the T lanes of a row never straddle a
 * warp. */
#define EM_FMT_BLOCK 256

/* CPU kernels: (sr, si) += a b for complex a, b, in real arithmetic (C's
 * complex `*` calls the Annex G routine __muldc3, several times slower). */
#define EM_CMAC(sr, si, A, B)                                      \
  do {                                                             \
    __typeof__(A) a_ = (A);                                        \
    __typeof__(B) b_ = (B);                                        \
    (sr) += __real__ a_ * __real__ b_ - __imag__ a_ * __imag__ b_; \
    (si) += __real__ a_ * __imag__ b_ + __imag__ a_ * __real__ b_; \
  } while (0)

typedef struct em_fmt_backend em_fmt_backend;
typedef struct em_bitmap_xops em_bitmap_xops; /* bitmap_impl.h */
typedef struct em_blockop_ops em_blockop_ops; /* blockop_impl.h */

/* The operations of one format on one backend. */
typedef struct em_spmat_ops {
  /* after the build: what only this backend needs (CUDA: the launch
     geometry of the current GPU); NULL: nothing */
  em_err (*setup)(em_spmat *M);
  /* y = A x (accumulate == 0) or y += A x, vectors in M's memory/precision */
  em_err (*spmv)(const em_spmat *M, const void *x, void *y, int accumulate, void *stream);
  /* free every array of M->data through M->be->release, then M->data; a
     matrix whose build failed half-way is freed the same way */
  void (*destroy)(em_spmat *M);
  /* y[j] (+)= A x[j] for 1 <= k <= EM_SPMM_GROUP vectors, each column bit
     for bit the spmv's; NULL: em_spmat_spmm runs k spmvs */
  em_err (*spmm)(const em_spmat *M, int k, const void *const *x, void *const *y, int accumulate,
                 void *stream);
  /* the same with the k columns also given interleaved, xi[c k + j] =
     x[j][c] (em_spmat_spmm_il): the kernels of 2 or more columns gather
     from xi, each value as spmm's; NULL: spmm from the columns */
  em_err (*spmm_il)(const em_spmat *M, int k, const void *const *x, const void *xi, void *const *y,
                    int accumulate, void *stream);
} em_spmat_ops;

/* A backend: where the arrays of its matrices live and the ops of every
 * format on it (NULL: the format has no kernels on this backend). */
struct em_fmt_backend {
  em_backend id;
  int host; /* 1: arrays in host memory (a host array a builder made is kept) */
  /* *dst = a copy of the `bytes` bytes at h in this backend's memory */
  em_err (*copy)(void **dst, const void *h, size_t bytes, const char *what);
  /* *dst = the n complex double values h in precision p in this memory */
  em_err (*copy_vals)(void **dst, const em_cplx *h, size_t n, em_prec p, const char *what);
  /* free an array of this memory (pptr: its address; NULL is fine) */
  void (*release)(void *pptr);
  const em_spmat_ops *ops[EM_FMT_COUNT];
  const em_bitmap_xops *bitmap;  /* the bitmap's own operations (get, add,
                                    mul, to CSR); NULL: none here */
  const em_blockop_ops *blockop; /* how the nine blocks are scheduled */
  /* xi[c k + j] = x[j][c], c < n, j < k, in precision p, on stream
     (em_vecs_interleave) */
  em_err (*interleave)(em_prec p, int32_t n, int k, const void *const *x, void *xi, void *stream);
};

extern const em_fmt_backend em_fmt_backend_cpu; /* backend_cpu.c */
#ifdef EM_HAVE_CUDA
extern const em_fmt_backend em_fmt_backend_cuda; /* backend_cuda.c */
/* Blocks of 256 threads that fill the current GPU a few times over (the
 * cap of the grid-stride kernels). */
em_err em_fmt_cuda_grid_cap(int *cap);
/* interleave_cuda.cu: the CUDA backend's interleave */
em_err em_fmt_cuda_interleave(em_prec p, int32_t n, int k, const void *const *x, void *xi,
                              void *stream);
#endif
/* spmm.c: the CPU backend's interleave */
em_err em_fmt_cpu_interleave(em_prec p, int32_t n, int k, const void *const *x, void *xi,
                             void *stream);
/* The backend's table, or NULL when this build does not have it. */
const em_fmt_backend *em_fmt_backend_of(em_backend b);

typedef struct em_fmt_refill em_fmt_refill; /* refill.c */

struct em_spmat {
  em_spmat_info info;       /* filled by the dispatcher (generic fields) and
                               the builder (stored, bytes, T, S, K) */
  const em_spmat_ops *ops;  /* this format on this backend */
  const em_fmt_backend *be; /* where the arrays live */
  void *data;               /* the format's own layout */
  uint64_t pattern;         /* em_csr_pattern_hash of the CSR it was built
                               from: a refill must bring the same */
  em_fmt_refill *rf;        /* slot map of em_spmat_refill, made by the
                               first refill; NULL before */
};

/* The slot map of a refill (refill.c): entry k of the CSR goes to slot
 * slot[k] of the format's value arrays taken end to end (seg_len[0] slots
 * of the first, then the second: HYB / HEC's tail).  identity: slot k = k
 * (CSR and bitmap keep the CSR's order), no map stored. */
struct em_fmt_refill {
  int identity;
  int nseg;           /* value arrays: 1, or 2 for HYB / HEC with a tail */
  int64_t seg_len[2]; /* slots of each */
  int64_t *slot;      /* host map [nnz] (CPU backend) */
  void *dslot;        /* CUDA: the map in device memory, int32 or int64 */
  int wide;           /* dslot holds int64 (more than 2^31 - 1 slots) */
};

/* The value arrays of M's layout (addresses of the pointer fields) and
 * their slots; returns how many (1 or 2).  refill.c. */
int em_fmt_value_arrays(em_spmat *M, void ***arr, int64_t *len);
void em_fmt_refill_free(em_spmat *M);
/* *slot = the slot of each of A's entries in M's layout (A: M's pattern),
 * the value arrays taken end to end as em_fmt_refill's, from a CPU twin;
 * NULL for the formats that keep the CSR's order (CSR, bitmap).  A new
 * host array (em_free).  refill.c. */
em_err em_fmt_slot_map(const em_spmat *M, const em_csr *A, int64_t **slot);
#ifdef EM_HAVE_CUDA
/* Device side of a refill (refill_cuda.cu): the nnz values v (host,
 * complex double) uploaded in chunks and scattered through rf's device map
 * (or copied in order when identity) into the arrays arr[0..nseg), in M's
 * precision.  Synchronous: done when it returns. */
em_err em_fmt_refill_cuda(const em_spmat *M, const em_fmt_refill *rf, void *const *arr,
                          const em_cplx *v, int64_t nnz);
#endif

/* Hand an array a builder made on the host (h: its address) over to M's
 * backend: kept as it is on the host, else copied there and freed.  *h is
 * NULL afterwards; on failure *dst is NULL too. */
em_err em_fmt_place(const em_spmat *M, void *h, size_t bytes, void *dst, const char *what);
/* The same for n complex double values, converted to M's precision. */
em_err em_fmt_place_vals(const em_spmat *M, em_cplx **h, size_t n, void *dst, const char *what);

/* Builders: o->format is already concrete (never AUTO); M->info's generic
 * fields (format, backend, prec, sizes, nnz), M->ops and M->be are set. */
em_err em_fmt_csr_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M); /* CSR, CSR_VECTOR */
em_err em_fmt_ellx_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M);   /* ELL family */
em_err em_fmt_hyb_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M);    /* HYB, HEC */
em_err em_fmt_bitmap_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M); /* BITMAP */

/* Pick a concrete format and T for A from its row-length statistics.  On
 * the GPU, a long tail (the longest row has at least EM_CHOOSE_TAIL_MIN
 * entries and EM_CHOOSE_TAIL_RATIO times the mean row) goes to HYB when
 * that row is at least EM_CHOOSE_HYB_STEPS times CSR-vector's T long, else
 * to CSR-vector; without one, sliced ELLR-T or CSR-vector (choose.c; the
 * measurements behind the numbers in docs/formats.md). */
#define EM_CHOOSE_TAIL_MIN 2048
#define EM_CHOOSE_TAIL_RATIO 16
#define EM_CHOOSE_HYB_STEPS 256
void em_fmt_choose(const em_csr *A, const em_spmat_opts *o, em_spmat_opts *chosen);
/* Would AUTO choose sliced ELLR-T for A once its rows are sorted by length?
 * (em_fmt_choose also refuses a given order that pads badly; a caller that
 * is about to sort asks this instead.)  T as in o (0: automatic). */
int em_fmt_choose_sliced_sorted(const em_csr *A, const em_spmat_opts *o);
/* T for a format chosen by em_fmt_choose's rule when the caller gave 0. */
int em_fmt_choose_threads(const em_csr *A, em_format f, em_backend b);

#ifdef __cplusplus
}
#endif
#endif
