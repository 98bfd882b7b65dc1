/* blockop_impl.h - the nine-block operator, private to formats/.
 *
 * Block row i of y = A x is y_i = sum_j A_ij x_j.  The blocks of one row
 * write the same range of y, so they run one after another: the first
 * stored block of the row writes (accumulate = 0), the next ones add
 * (accumulate = 1) once the previous one is done.  Rows are independent, so
 * on the GPU the rows' chains run concurrently (EM_BLOCKOP_STREAMS: one
 * stream per block, events between the blocks of a row; EM_BLOCKOP_GRAPH:
 * the same launches captured once per (x, y) pair and replayed).  A row's
 * chain starts with its diagonal block and goes on cyclically (A_ii,
 * A_i,i+1, ...), so at each step the rows read different x ranges.
 * Blocks without entries are not stored and cost nothing; a block row whose
 * blocks are all empty is zeroed. */
#ifndef EM_BLOCKOP_IMPL_H
#define EM_BLOCKOP_IMPL_H

#include "formats_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct em_blockop_cuda em_blockop_cuda;
typedef struct em_blockop_vmap em_blockop_vmap; /* blockop_values.c */

/* How a backend schedules the blocks (em_fmt_backend.blockop). */
struct em_blockop_ops {
  em_err (*init)(em_blockop *op); /* after the blocks exist (NULL: nothing) */
  /* y = A x in op's mode, vectors in backend memory, sizes checked */
  em_err (*apply)(em_blockop *op, const void *x, void *y);
  void (*free)(em_blockop *op); /* what init made, any part of it (NULL: nothing) */
  /* y[j] = A x[j], 1 <= k <= EM_SPMM_GROUP, the same schedule with
     multi-vector products */
  em_err (*apply_multi)(em_blockop *op, int k, const void *const *x, void *const *y);
  /* block rows i0 .. i1-1 of y[j] = A x[j], 1 <= k <= EM_SPMM_GROUP (k = 1:
     the blocks' SpMVs, as apply) */
  em_err (*apply_rows)(em_blockop *op, int i0, int i1, int k, const void *const *x, void *const *y);
};

extern const em_blockop_ops em_blockop_ops_cpu; /* blockop.c */
#ifdef EM_HAVE_CUDA
extern const em_blockop_ops em_blockop_ops_cuda; /* blockop_cuda.c */
#endif

struct em_blockop {
  em_blockop_opts opts;                      /* as given (formats may be AUTO) */
  const em_blockop_ops *ops;                 /* the backend's schedule */
  int nb;                                    /* order groups, 1..3 */
  int32_t offset[EM_MAX_ORDER + 1];          /* group g = offset[g]..offset[g+1]-1 */
  size_t elem;                               /* bytes of one vector element */
  em_spmat *blk[EM_MAX_ORDER][EM_MAX_ORDER]; /* NULL: block without entries */
  em_spmat *whole;                           /* EM_BLOCKOP_ONE_MATRIX only */
  int n_in_row[EM_MAX_ORDER];                /* stored blocks of block row i */
  int order[EM_MAX_ORDER][EM_MAX_ORDER];     /* their column groups, in chain order */
  em_blockop_cuda *cuda;                     /* streams, events, graphs (CUDA,
                                                STREAMS and GRAPH modes) */
  em_blockop_vmap *vmap;                     /* em_blockop_refill_values' map, made by its
                                                first call; NULL before */
  int il;                                    /* the k-vector products gather x from an
                                                interleaved copy: opts.interleave and
                                                every stored block has such kernels */
  void *xi;                                  /* CUDA: that copy, n x k (grown to the
                                                widest k asked), NULL before */
  size_t xi_bytes;
};

/* The value map of em_blockop_refill_values (blockop_values.c): entry q
 * of the operator's CSR goes to code[q] = seg << shift | offset, offset in
 * value segment seg (a stored spmat's value array: its first, or the
 * tail of HYB / HEC), all stored spmats' segments numbered in turn. */
#define EM_VMAP_MAX_SEG (2 * EM_MAX_ORDER * EM_MAX_ORDER)
struct em_blockop_vmap {
  uint64_t pattern;           /* em_spmat_pattern_hash of the CSR mapped */
  int64_t nnz;                /* its entries */
  int nseg;                   /* value segments */
  int shift;                  /* 27 (uint32 codes on the GPU) or 40 (int64) */
  void *seg[EM_VMAP_MAX_SEG]; /* their arrays (the spmats' own) */
  int64_t *code;              /* host codes [nnz] (CPU backend) */
  void *dcode;                /* CUDA: the codes on the GPU (uint32 when
                                 shift is 27, else int64) */
  void *pin[2];               /* CUDA: pinned host staging of the
                                 uploads, kept between refills (both or none) */
  int pin_tried;              /* CUDA: their allocation tried (once) */
  void *stage;                /* CUDA: the device staging of one chunk, kept */
  void *stream;               /* CUDA: the uploads' stream (cudaStream_t), kept */
  void *ev[2];                /* CUDA: the pinned buffers' upload events, kept */
};
void em_blockop_vmap_free(em_blockop *op);
#ifdef EM_HAVE_CUDA
/* blockop_values_cuda.cu: the nnz values v (host, complex double) uploaded
 * in chunks and scattered through vm's device codes into its segments in
 * precision p.  Synchronous. */
em_err em_blockop_values_cuda(em_blockop_vmap *vm, em_prec p, const em_cplx *v);
/* dst[0..n) = src[0..n) by all threads (blockop_values.c: the staging
 * copies of em_blockop_values_cuda, compiled with OpenMP) */
void em_blockop_values_copy(em_cplx *dst, const em_cplx *src, int64_t n);
/* what em_blockop_values_cuda keeps in vm (the pinned staging) freed */
void em_blockop_values_cuda_free(em_blockop_vmap *vm);
#endif

/* Block row i as one CSR over all columns (EM_BLOCKOP_ROWS). */
em_err em_blockop_row_csr(const em_blockmat *B, int i, em_csr **out);
/* The source of an operator's blocks (blockop.c): the nine blocks B, or
 * one CSR A split by the groups' offsets, a block copied out only while
 * its spmat is made or refilled. */
typedef struct em_blockop_src {
  const em_blockmat *B; /* or NULL */
  const em_csr *A;      /* when B is NULL */
  int nb;
  const int32_t *offset;
} em_blockop_src;
/* Block (i, j): *M (B's own, or *tmp, a copy out of A to destroy). */
em_err em_blockop_src_block(const em_blockop_src *s, int i, int j, const em_csr **M, em_csr **tmp);
/* Block row i over all columns (a new CSR to destroy). */
em_err em_blockop_src_row(const em_blockop_src *s, int i, em_csr **row);
/* The whole matrix: *M (A itself, or *tmp made from B, to destroy). */
em_err em_blockop_src_whole(const em_blockop_src *s, const em_csr **M, em_csr **tmp);
em_err em_blockop_csr_check(const em_csr *A, int nb, const int32_t *offset);

/* y_i (+)= A_ij x_j on `stream`: block (i, j) with the vectors offset to its
 * groups. */
em_err em_blockop_block_spmv(const em_blockop *op, int i, int j, const void *x, void *y,
                             int accumulate, void *stream);
/* The same for k <= EM_SPMM_GROUP vectors (one multi-vector product). */
em_err em_blockop_block_spmm(const em_blockop *op, int i, int j, int k, const void *const *x,
                             void *const *y, int accumulate, void *stream);
/* The same with x also interleaved in xi (n x k for the whole operator;
 * NULL: from the columns). */
em_err em_blockop_block_spmm_il(const em_blockop *op, int i, int j, int k, const void *const *x,
                                const void *xi, void *const *y, int accumulate, void *stream);

#ifdef __cplusplus
}
#endif
#endif
