/* ell_impl.h - the layout of the ELL-family formats (private to formats/),
 * shared by their builder, CPU kernel and CUDA kernels.
 *
 * ELL, ELLR, ELLR-T and sliced ELLR-T are one layout ("ellx"): rows cut into
 * slices of S rows; a slice of width W stores W/T steps, each step holding
 * slot k = j*T + t of every row r of the slice at
 *
 *     slice_base[s] + j*(S*T) + r*T + t          (k = j*T + t, i = s*S + r)
 *
 * so at step j the S*T threads of a slice (T per row) read S*T consecutive
 * slots: coalesced.  ELL is one slice of S = n_pad rows with T = 1 (plain
 * column-major); ELLR adds the row lengths; ELLR-T interleaves T slots;
 * sliced ELLR-T has one base and width per slice.  Padding slots hold
 * column -1 and value 0. */
#ifndef EM_ELL_IMPL_H
#define EM_ELL_IMPL_H

#include "formats_impl.h"

#ifdef __CUDACC__
#define EM_HD static __host__ __device__ __forceinline__
#else
#define EM_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Rows of the one-slice formats are padded to a multiple of this, so every
 * step of a warp starts on a 32-slot boundary (512 bytes in complex double). */
#define EM_ELL_ROW_ALIGN 32
/* ELLR-T widths are padded to a multiple of max(this, T) (see docs/formats.md). */
#define EM_ELLRT_WIDTH_ALIGN 16
/* Default rows per slice of sliced ELLR-T: one warp of rows at T = 1. */
#define EM_SELLRT_DEFAULT_S 32
/* Largest slice height accepted (a slice pads every row to its widest). */
#define EM_SELLRT_MAX_S 65536

/* ELL-family arrays, host or device (see the layout above). */
typedef struct em_ellx {
  int32_t n_rows;     /* rows of the matrix (not padded) */
  int32_t S;          /* rows per slice (n_pad for the one-slice formats) */
  int32_t T;          /* slots interleaved per row per step */
  int32_t width;      /* one-slice formats: slots per row; sliced: widest slice */
  int64_t n_slices;   /* number of slices */
  int64_t stored;     /* slots including padding */
  int64_t *slice_ptr; /* sliced: n_slices + 1 slot offsets of the slices;
                         NULL for one slice starting at 0 */
  int32_t *rowlen;    /* n_rows lengths (ELLR, ELLR-T, sliced); NULL for ELL,
                         whose kernel reads all `width` slots */
  int32_t *col;       /* stored column indices, -1 in padding */
  void *val;          /* stored values (em_cplx or em_cplxf), 0 in padding */
  int grid_cap;       /* CUDA: most blocks per launch (grid-stride beyond) */
} em_ellx;

/* Slot of entry k of row i (the layout formula above).  The CUDA kernels
 * start at em_ellx_slot(i, t) and step by S*T, which is the same formula. */
EM_HD int64_t em_ellx_slot(const int64_t *slice_ptr, int32_t S, int32_t T, int32_t i, int32_t k) {
  int32_t s = i / S, r = i - s * S;
  int64_t base = slice_ptr ? slice_ptr[s] : 0;
  return base + (int64_t)(k / T) * ((int64_t)S * T) + (int64_t)r * T + (k % T);
}

/* Host layout from a CSR (values in double).  kind: EM_FMT_ELL, EM_FMT_ELLR,
 * EM_FMT_ELLRT or EM_FMT_SELLRT; T and S as given (S ignored for the
 * one-slice formats).  Arrays are em_calloc'ed; free with em_ellx_free_host. */
em_err em_ellx_layout(const em_csr *A, em_format kind, int T, int S, em_ellx *E, em_cplx **val);
void em_ellx_free_host(em_ellx *E);
/* Exact bytes of the arrays of E in precision p. */
size_t em_ellx_bytes(const em_ellx *E, em_prec p);
/* Frees the arrays where they live (ell_build.c). */
void em_ellx_destroy(em_spmat *M);

extern const em_spmat_ops em_fmt_ellx_cpu; /* ell_cpu.c */
#ifdef EM_HAVE_CUDA
extern const em_spmat_ops em_fmt_ellx_cuda; /* ell_cuda.cu */
/* cudaFuncAttributePreferredSharedMemoryCarveout = percent on the SpMV
 * kernel of (p, T, rowlen) (ell_cuda.cu; arguments checked by carveout.c). */
em_err em_ellx_cuda_carveout(em_prec p, int T, int rowlen, int percent);
#endif

#ifdef __cplusplus
}
#endif
#endif
