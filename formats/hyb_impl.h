/* hyb_impl.h - HYB (ELL + COO) and HEC (ELL + CSR) layouts, private to
 * formats/.
 *
 * Both formats keep the first K entries of every row in a column-major ELL
 * part (slot k of row i at k * pitch + i, pitch = n_rows rounded up to 32 so
 * that every ELL column starts on a 128-byte boundary) with the row's ELL
 * length beside it, so padding is never read.  The entries past K form the
 * tail: a COO list sorted by row (HYB) or a CSR over the overflowing rows
 * only (HEC).
 *
 * The COO tail is summed by a segmented reduction over fixed chunks of
 * EM_HYB_CHUNK entries (one GPU warp, or one CPU task, per chunk), so one
 * very long row is spread over many workers.  A row that lies inside one
 * chunk is added to y by that chunk alone.  The first and the last row of
 * every chunk may continue in a neighbouring chunk: their partial sums go to
 * carry slots 2w (first row) and 2w + 1 (last row; 0 when the chunk holds
 * one row), and a second pass adds, for each such boundary row, its slots in
 * order.  No atomics, so the result is the same on every run.
 *
 * Every pointer is a host pointer on the CPU backend and a device pointer on
 * the CUDA backend; the layout is the same on both, so the CPU tests check
 * the arrays the GPU kernels read. */
#ifndef EM_HYB_IMPL_H
#define EM_HYB_IMPL_H

#include "formats_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EM_HYB_PITCH 32  /* ELL column stride is a multiple of this */
#define EM_HYB_CHUNK 256 /* COO entries per chunk: one warp, 8 rounds of 32 */
#define EM_HYB_MAX_T                                   \
  8 /* lanes per row of the ELL part: 32 / T rows of a \
       warp read 32 / T consecutive slots of a column, \
       a 32-byte sector or more up to T = 8 */

typedef struct em_hyb {
  int hec;          /* 0: HYB (COO tail), 1: HEC (CSR tail) */
  int32_t n_rows;   /* rows of the matrix */
  int32_t K;        /* ELL width */
  int32_t T;        /* GPU: lanes per row of the ELL part (1, 2, 4, 8) */
  int32_t TT;       /* GPU, HEC: lanes per overflowing row of the tail
                       (4, 8, 16, 32) */
  int64_t pitch;    /* ELL column stride: n_rows rounded up to EM_HYB_PITCH */
  int32_t *ell_len; /* [n_rows] min(row length, K): ELL slots in use */
  int32_t *ell_col; /* [K * pitch] column of slot k of row i at k * pitch + i
                       (0 in padding) */
  void *ell_val;    /* [K * pitch] values, em_cplx or em_cplxf (0 in padding) */
  int64_t tail_nnz; /* entries past the first K of their row */

  /* HYB: COO tail, sorted by row, then column */
  int32_t *coo_row; /* [tail_nnz] row of each entry */
  int32_t *coo_col; /* [tail_nnz] column of each entry */
  void *coo_val;    /* [tail_nnz] value of each entry */
  int64_t n_chunk;  /* ceil(tail_nnz / EM_HYB_CHUNK) */
  int64_t n_bnd;    /* boundary rows: first or last row of some chunk */
  int32_t *bnd_row; /* [n_bnd] each boundary row, ascending */
  int64_t *bnd_ptr; /* [n_bnd + 1] boundary row b sums carry slots
                       bnd_ptr[b] .. bnd_ptr[b+1]-1 */
  void *carry;      /* [2 * n_chunk] partial sums of the chunk's first and
                       last rows: scratch written by every SpMV */

  /* HEC: CSR tail over the rows longer than K */
  int32_t n_rem;    /* rows with entries past K */
  int32_t *rem_row; /* [n_rem] those rows, ascending */
  int64_t *rem_ptr; /* [n_rem + 1] row q's tail is rem_ptr[q]..rem_ptr[q+1]-1 */
  int32_t *rem_col; /* [tail_nnz] columns */
  void *rem_val;    /* [tail_nnz] values */
} em_hyb;

/* *K = the ELL width of the rule "grow K while the nonzeros in the first K
 * ELL columns exceed half of the K * n slots", from the row lengths. */
em_err em_hyb_auto_width(const em_csr *A, int32_t *K);

/* Frees the arrays where they live (hyb.c). */
void em_hyb_destroy(em_spmat *M);

extern const em_spmat_ops em_fmt_hyb_cpu; /* hyb_cpu.c */
#ifdef EM_HAVE_CUDA
extern const em_spmat_ops em_fmt_hyb_cuda; /* hyb_cuda.cu */
#endif

#ifdef __cplusplus
}
#endif
#endif
