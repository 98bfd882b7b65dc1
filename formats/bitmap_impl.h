/* bitmap_impl.h - the bitmap format, private to formats/.
 *
 * Row i keeps one 64-bit word per non-empty 64-column block it touches: the
 * block's index c / 64 and a mask with bit c % 64 set for each stored column
 * c.  Values are stored in column order, row after row; row i's first value
 * is val[vptr[i]].  So a(i, j) is val[vptr[i] + (bits set in the row's
 * earlier words) + (bits of j's word below bit j % 64)]: a binary search for
 * the word and popcounts, no column index per entry (12 bytes per word
 * instead of 4 bytes per entry), and unions / products of patterns are ORs
 * of masks.
 *
 * Host pointers on the CPU backend, device pointers on the CUDA backend. */
#ifndef EM_BITMAP_IMPL_H
#define EM_BITMAP_IMPL_H

#include "formats_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct em_bitmap {
  int32_t n_rows;  /* rows */
  int32_t n_cols;  /* columns */
  int64_t nnz;     /* stored entries = set bits */
  int64_t n_words; /* stored words, all rows */
  int64_t *wptr;   /* [n_rows + 1] row i's words are wptr[i] .. wptr[i+1]-1 */
  int32_t *widx;   /* [n_words] column block c / 64 of each word, ascending
                      within a row */
  uint64_t *mask;  /* [n_words] bit b set: column 64 widx + b is stored */
  int64_t *vptr;   /* [n_rows + 1] row i's values start at vptr[i] */
  void *val;       /* [nnz] values (em_cplx or em_cplxf), column order */
} em_bitmap;

/* The bitmap's own operations on one backend (em_fmt_backend.bitmap).  The
 * public em_bitmap_get / add / mul / to_csr (bitmap.c) check their
 * arguments (format, bounds, sizes, one backend and one precision for both
 * operands) and hand over to these.  The CPU table is bitmap_ops.c's; a GPU
 * table goes beside the CUDA kernels and into backend_cuda.c. */
struct em_bitmap_xops {
  em_err (*get)(const em_spmat *M, int32_t i, int32_t j, em_cplx *a);
  em_err (*add)(const em_spmat *A, const em_spmat *B, em_spmat **C);
  em_err (*mul)(const em_spmat *A, const em_spmat *B, em_spmat **C);
  em_err (*to_csr)(const em_spmat *M, em_csr **A);
};

/* Exact bytes of the arrays of a bitmap in precision p. */
size_t em_bitmap_bytes(const em_bitmap *bm, em_prec p);
/* A CPU spmat that takes over the host bitmap *bm (freed, *bm = NULL,
 * on failure too). */
em_err em_bitmap_wrap(em_bitmap **bm, em_prec p, em_spmat **M);
/* Free a host bitmap and its arrays. */
void em_bitmap_free(em_bitmap **bm);
/* The host bitmap of a CPU bitmap spmat, or an error naming `who` when M is
 * not one (bitmap.c; the GPU extras and the LU take host bitmaps). */
em_err em_bitmap_host(const em_spmat *M, const char *who, const em_bitmap **bm);
/* Frees the arrays where they live (bitmap.c). */
void em_bitmap_destroy(em_spmat *M);

extern const em_spmat_ops em_fmt_bitmap_cpu;    /* bitmap_cpu.c */
extern const em_bitmap_xops em_bitmap_xops_cpu; /* bitmap_ops.c */
#ifdef EM_HAVE_CUDA
extern const em_spmat_ops em_fmt_bitmap_cuda; /* bitmap_cuda.cu */
#endif

#ifdef __cplusplus
}
#endif
#endif
