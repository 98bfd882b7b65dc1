/* formats_impl.h - what every storage format provides (private to formats/).
 *
 * A format is one builder that converts a host CSR into its own layout on
 * the requested backend and installs an ops table.  Kernels live in small
 * files: <fmt>_cpu.c (OpenMP) and <fmt>_cuda.cu (extern "C" launchers). */
#ifndef EM_FORMATS_IMPL_H
#define EM_FORMATS_IMPL_H

#include "em_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct em_spmat_ops {
  /* y = A x (accumulate == 0) or y += A x, vectors in M's memory/precision */
  em_err (*spmv)(const em_spmat *M, const void *x, void *y, int accumulate, void *stream);
  /* free M->data and everything it owns (host or device) */
  void (*destroy)(em_spmat *M);
} em_spmat_ops;

struct em_spmat {
  em_spmat_info info; /* filled by the dispatcher (generic fields) and
                         the builder (stored, bytes, T, S, K) */
  const em_spmat_ops *ops;
  void *data; /* the format's own layout */
};

/* Builders: o->format is already concrete (never AUTO); info's generic
 * fields (format, backend, prec, sizes, nnz) are already set. */
em_err em_fmt_csr_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M); /* CSR, CSR_VECTOR */
em_err em_fmt_ell_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M); /* ELL, ELLR */
em_err em_fmt_ellrt_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M);  /* ELLRT */
em_err em_fmt_sellrt_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M); /* SELLRT */
em_err em_fmt_hyb_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M);    /* HYB, HEC */
em_err em_fmt_bitmap_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M); /* BITMAP */

/* Device memory helpers shared by the CUDA builders (devmem_cuda.c). */
#ifdef EM_HAVE_CUDA
/* *d = device copy of `bytes` bytes at h (NULL when bytes == 0). */
em_err em_fmt_dev_upload(void **d, const void *h, size_t bytes, const char *what);
/* *d = device array of n complex values in precision p (converted on the
 * host when p is single). */
em_err em_fmt_dev_upload_vals(void **d, const em_cplx *h, size_t n, em_prec p, const char *what);
void em_fmt_dev_free(void **d);
#endif

/* Pick a concrete format and T for A from its row-length statistics. */
void em_fmt_choose(const em_csr *A, const em_spmat_opts *o, em_spmat_opts *chosen);
/* Would AUTO choose sliced ELLR-T for A once its rows are sorted by length?
 * (em_fmt_choose also refuses a given order that pads badly; a caller that
 * is about to sort asks this instead.)  T as in o (0: automatic). */
int em_fmt_choose_sliced_sorted(const em_csr *A, const em_spmat_opts *o);

#ifdef __cplusplus
}
#endif
#endif
