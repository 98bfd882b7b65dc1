/* em_formats.h - sparse storage formats with CPU and CUDA SpMV, the
 * nine-block operator, and the operator handed to the Krylov solvers.
 *
 * One interface, several backends (libCEED style): em_spmat is an opaque
 * handle with an ops table; em_spmat_create converts a host CSR into the
 * requested format on the requested backend (CPU: host arrays, OpenMP
 * kernels; CUDA: device arrays, CUDA kernels).  SpMV vectors live where the
 * matrix lives (host pointers for CPU, device pointers for CUDA) and are in
 * the matrix's precision (em_cplx or em_cplxf).
 */
#ifndef EM_FORMATS_H
#define EM_FORMATS_H

#include "em_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum em_format {
  EM_FMT_AUTO = -1,  /* chosen from the row-length statistics */
  EM_FMT_CSR = 0,    /* CSR, one thread per row ("scalar") */
  EM_FMT_CSR_VECTOR, /* CSR, T threads per row ("vector") */
  EM_FMT_ELL,        /* ELLPACK, column-major, padded to the longest row */
  EM_FMT_ELLR,       /* ELLPACK-R: ELL plus row lengths, padding skipped */
  EM_FMT_ELLRT,      /* ELLR-T: T threads per row, rows padded to 16 */
  EM_FMT_SELLRT,     /* sliced ELLR-T: slices of S rows, own width each */
  EM_FMT_HYB,        /* ELL (width K) + COO remainder */
  EM_FMT_HEC,        /* ELL (width K) + CSR remainder */
  EM_FMT_BITMAP,     /* per-row bitmaps of non-empty 64-column words */
  EM_FMT_COUNT
} em_format;

/* "csr", "csr-vector", "ell", "ellr", "ellr-t", "sellr-t", "hyb", "hec",
 * "bitmap", "auto". */
const char *em_format_name(em_format f);
em_err em_format_parse(const char *s, em_format *f);

typedef struct em_spmat_opts {
  em_format format;
  em_backend backend;
  em_prec prec;
  int threads_per_row; /* T in 1,2,4,8,16,32 for CSR-vector / ELLR-T /
                          sliced ELLR-T, and the GPU lanes of the ELL part
                          of HYB / HEC (above 8 taken as 8); 0 = chosen
                          from the row lengths */
  int slice_rows;      /* S for sliced ELLR-T; 0 = default */
  int ell_width;       /* K for HYB / HEC; -1 = the rule "grow K while the
                          nonzeros in the first K columns exceed half of
                          the K*n slots" */
} em_spmat_opts;

void em_spmat_opts_default(em_spmat_opts *o); /* AUTO, CPU, double, 0, 0, -1 */

typedef struct em_spmat em_spmat;

/* What a matrix costs and how it was laid out. */
typedef struct em_spmat_info {
  em_format format;
  em_backend backend;
  em_prec prec;
  int32_t n_rows, n_cols;
  int64_t nnz;         /* true nonzeros */
  int64_t stored;      /* stored slots including padding */
  size_t bytes;        /* exact bytes of every array the format holds */
  int threads_per_row; /* T (0 when not applicable) */
  int slice_rows;      /* S (0 when not applicable) */
  int ell_width;       /* K (0 when not applicable) */
} em_spmat_info;

em_err em_spmat_create(const em_csr *A, const em_spmat_opts *o, em_spmat **M);
/* y = A x, or y += A x when accumulate != 0.  stream: a cudaStream_t for the
 * CUDA backend (NULL = default stream), ignored on the CPU.  The CUDA launch
 * is asynchronous on that stream. */
em_err em_spmat_spmv(const em_spmat *M, const void *x, void *y, int accumulate, void *stream);
void em_spmat_get_info(const em_spmat *M, em_spmat_info *info);
void em_spmat_destroy(em_spmat **M);
/* Y = A X (accumulate 0) or Y += A X for k vectors: y[j] = A x[j], each
 * column exactly as em_spmat_spmv computes it (the same sums in the same
 * order, so bit for bit the same), the matrix read once for every group of
 * up to EM_SPMM_GROUP columns.  x[j], y[j] live where M lives, in M's
 * precision; the y[j] are distinct and none is an x.  CSR, CSR-vector and
 * the ELL family (ELL, ELLR, ELLR-T, sliced ELLR-T) have multi-vector
 * kernels on both backends; HYB, HEC and bitmap run k SpMVs. */
#define EM_SPMM_GROUP 8
em_err em_spmat_spmm(const em_spmat *M, int k, const void *const *x, void *const *y, int accumulate,
                     void *stream);
/* 1 when M's format has a multi-vector kernel on its backend. */
int em_spmat_has_spmm(const em_spmat *M);
/* The k <= EM_SPMM_GROUP vectors x[j] of length n as one interleaved
 * (row-major n x k) block: xi[c k + j] = x[j][c], in backend be's memory
 * and precision p, asynchronous on stream (CUDA; NULL: the default
 * stream). */
em_err em_vecs_interleave(em_backend be, em_prec p, int32_t n, int k, const void *const *x,
                          void *xi, void *stream);
/* em_spmat_spmm for k <= EM_SPMM_GROUP vectors given both as columns x[j]
 * and interleaved in xi (em_vecs_interleave of the x[j], n_cols x k):
 * where M's format has such kernels (CSR and the ELL family on CUDA) a
 * product of 2 or more columns reads each matrix entry once and gathers
 * the k values it multiplies from one place (one or two 32-byte sectors
 * instead of k), each column bit for bit em_spmat_spmm's.  xi NULL or no
 * such kernel: em_spmat_spmm. */
em_err em_spmat_spmm_il(const em_spmat *M, int k, const void *const *x, const void *xi,
                        void *const *y, int accumulate, void *stream);
/* 1 when M's format has interleaved multi-vector kernels on its backend. */
int em_spmat_has_spmm_il(const em_spmat *M);
/* New values, same pattern (the next frequency of a sweep): A's values
 * written into M's existing layout, where M lives (host arrays, or device
 * arrays on CUDA), converted to M's precision; the SpMV afterwards is bit
 * for bit that of em_spmat_create(A).  A must have the pattern M was built
 * from (sizes, nnz, row pointers, columns): anything else is EM_ERR_ARG
 * with a message, and M is unchanged.  The first refill makes the slot map
 * (once per matrix; on CUDA it stays in GPU memory, 4 bytes per entry);
 * every format has one (docs/formats.md, "Refill"). */
em_err em_spmat_refill(em_spmat *M, const em_csr *A);
/* A hash of A's sizes, row pointers and columns (not its values): equal
 * patterns give equal hashes; a refill compares it with the creator's. */
uint64_t em_spmat_pattern_hash(const em_csr *A);

/* The L1 / shared-memory split of the GPU SpMV kernel of an ELL-family
 * format (ELL, ELLR, ELLR-T, sliced ELLR-T) for precision p and T lanes per
 * row: cudaFuncAttributePreferredSharedMemoryCarveout of that kernel, the
 * percent (0..100) of the unified L1 / shared memory carved out as shared
 * memory, or -1 for the driver's choice (the default).  These kernels use
 * no shared memory, so 0 leaves the most to L1, where the gathers of x
 * hit (seed 002's "16 KB shared / 48 KB L1" of Fermi; docs/formats.md).
 * The attribute belongs to the kernel in this process's CUDA context: every
 * matrix of that format, precision and T sees it (the SpMV's result does
 * not change).  EM_ERR_ARG for a T or percent out of range,
 * EM_ERR_UNSUPPORTED for other formats or a build without CUDA. */
em_err em_spmat_cuda_carveout(em_format f, em_prec p, int T, int percent);

/* Sliced ELLR-T stores rows sorted by length; the sort is applied once to
 * the system (symmetrically), not gathered on every SpMV.  perm[old] = new,
 * longest rows first, stable. */
em_err em_sellrt_sort_perm(const em_csr *A, int32_t *perm);

/* Bitmap format extras (CPU backend): O(1)-ish random access by popcount,
 * element-wise sum and product of two bitmap matrices, back to CSR. */
em_err em_bitmap_get(const em_spmat *M, int32_t i, int32_t j, em_cplx *a);
em_err em_bitmap_add(const em_spmat *A, const em_spmat *B, em_spmat **C);
em_err em_bitmap_mul(const em_spmat *A, const em_spmat *B, em_spmat **C);
em_err em_bitmap_to_csr(const em_spmat *M, em_csr **A);

/* ------------------------------------------------------------ block operator */

typedef enum em_blockop_mode {
  EM_BLOCKOP_STREAMS = 0, /* nine blocks in their own CUDA streams, concurrently */
  EM_BLOCKOP_SEQUENTIAL,  /* nine blocks one after another on one stream */
  EM_BLOCKOP_GRAPH,       /* the concurrent launches captured in a CUDA graph */
  EM_BLOCKOP_ONE_MATRIX,  /* the whole matrix as one spmat (for comparison) */
  EM_BLOCKOP_ROWS         /* the blocks of a block row fused into one spmat
                             [A_i1 A_i2 A_i3] (format[i][0], T[i][0]), the
                             block rows concurrently in their own streams */
} em_blockop_mode;

typedef struct em_blockop_opts {
  em_backend backend;
  em_prec prec;
  em_blockop_mode mode;
  em_format format[EM_MAX_ORDER][EM_MAX_ORDER];    /* EM_FMT_AUTO: per block */
  int threads_per_row[EM_MAX_ORDER][EM_MAX_ORDER]; /* 0: per block */
  em_format whole_format;                          /* for EM_BLOCKOP_ONE_MATRIX (AUTO allowed) */
  /* 1: a k-vector apply (k >= 2) on CUDA packs x once into an
     interleaved n x k block (em_vecs_interleave) that every block's
     product reads (em_spmat_spmm_il); 0 (default: the packed x measured
     slower, docs/formats.md): each block gathers from the k columns (the
     results are the same bit for bit) */
  int interleave;
} em_blockop_opts;

void em_blockop_opts_default(em_blockop_opts *o);

typedef struct em_blockop em_blockop;

/* Build the operator from the block matrix (already permuted as wished). */
em_err em_blockop_create(const em_blockmat *B, const em_blockop_opts *o, em_blockop **op);
/* The same from one CSR A (sorted columns) split by the groups' offsets
 * (offset[0] = 0 .. offset[nb] = n): each block is copied out of A only
 * while its spmat is made, so the host holds A plus one block, not A and
 * a second copy in blocks (formats/blockop.c). */
em_err em_blockop_create_csr(const em_csr *A, int nb, const int32_t *offset,
                             const em_blockop_opts *o, em_blockop **op);
/* y = A x over the full vectors (length offset[nb]), in backend memory. */
em_err em_blockop_apply(em_blockop *op, const void *x, void *y);
/* y[j] = A x[j] for k vectors: every block as one multi-vector product
 * (em_spmat_spmm) in the mode's schedule (GRAPH runs as STREAMS); each
 * column equals em_blockop_apply's bit for bit. */
em_err em_blockop_apply_multi(em_blockop *op, int k, const void *const *x, void *const *y);
/* The rows r0 .. r1-1 of y[j] = A x[j] (k >= 1 vectors): the block rows
 * covering them are computed as em_blockop_apply(_multi) computes them (bit
 * for bit); the other block rows of y[j] are not written (ONE_MATRIX: the
 * whole product).  A residual needed on one order group reads that group's
 * blocks only. */
em_err em_blockop_apply_rows(em_blockop *op, int32_t r0, int32_t r1, int k, const void *const *x,
                             void *const *y);
/* opts.interleave switched on (1) or off (0) for the next applies (the
 * benches' A/B in one run); returns 1 when the k-vector products now read
 * an interleaved x (every stored block has such kernels: CSR and the ELL
 * family on CUDA), else 0. */
int em_blockop_set_interleave(em_blockop *op, int on);
/* Layout of block (i, j) (or of the whole for ONE_MATRIX: i = j = 0). */
void em_blockop_block_info(const em_blockop *op, int i, int j, em_spmat_info *info);
size_t em_blockop_bytes(const em_blockop *op);
void em_blockop_destroy(em_blockop **op);
/* New values, same pattern: every stored block (or the whole, or the block
 * rows, by mode) refilled in place by em_spmat_refill, streams, events and
 * captured graphs kept (they hold the same arrays).  B must be the block
 * matrix the operator was built from with other values: other groups,
 * another pattern, or entries in a block that was empty are EM_ERR_ARG
 * with a message naming the block; the operator may then hold a mix of old
 * and new values and must be re-created. */
em_err em_blockop_refill(em_blockop *op, const em_blockmat *B);
/* The same for a sweep, per frequency: A's values written straight to
 * their slots in every stored spmat through a map from A's entries made by
 * the first call (on CUDA: A's values uploaded once, in chunks, and
 * scattered on the GPU), without copying any block out of A.  The first
 * call checks each block's pattern as em_blockop_refill does; later
 * calls check A's size and the hash of its whole pattern against the
 * mapped one (another pattern: EM_ERR_ARG, values unchanged).  The
 * operator applies bit for bit as one built from A (blockop_values.c). */
em_err em_blockop_refill_values(em_blockop *op, const em_csr *A);
/* The map of em_blockop_refill_values made now for A's pattern (its
 * values untouched, the operator's too), so that the first refill only
 * writes values: a sweep makes it beside its first factorization
 * (model/fsys_opbeside.c).  A map already made: nothing. */
em_err em_blockop_values_map(em_blockop *op, const em_csr *A);

/* The symmetric permutation the chosen formats want (rows sorted by length
 * inside each order group for sliced ELLR-T; identity otherwise):
 * perm[old] = new, every DOF kept in its group. */
em_err em_blockop_plan_perm(const em_blockmat *B, const em_blockop_opts *o, int32_t *perm);

/* ----------------------------------------------------- operator for Krylov */

/* y = A x for vectors in `backend` memory and `prec` precision. */
typedef struct em_operator {
  int32_t n;
  em_backend backend;
  em_prec prec;
  void *ctx;
  em_err (*apply)(void *ctx, const void *x, void *y);
  /* y[j] = A x[j] for k vectors at once (NULL: k applies) */
  em_err (*apply_multi)(void *ctx, int k, const void *const *x, void *const *y);
  /* NULL: the whole operator.  Else the rows this rank owns of an operator
     distributed over the ranks of dist (em_dist.h; solver/dist/): n is the
     rank's share, and the Krylov methods sum their dot products over the
     ranks. */
  const struct em_dist *dist;
  /* rows r0 .. r1-1 of y[j] = A x[j] for k vectors, each as apply /
     apply_multi gives it; the other rows of y[j] may or may not be written
     (NULL: not offered, a whole product instead; the block operator offers
     it) */
  em_err (*apply_rows)(void *ctx, int32_t r0, int32_t r1, int k, const void *const *x,
                       void *const *y);
} em_operator;

em_err em_spmat_operator(em_spmat *M, em_operator *op);
em_err em_blockop_operator(em_blockop *B, em_operator *op);
/* y[j] = A x[j], j < k: op->apply_multi, or k calls of op->apply. */
em_err em_operator_apply_multi(const em_operator *op, int k, const void *const *x, void *const *y);

#ifdef __cplusplus
}
#endif
#endif /* EM_FORMATS_H */
