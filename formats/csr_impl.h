/* csr_impl.h - the CSR format's arrays (private to formats/): a copy of the
 * caller's CSR in the matrix precision, on the host or the GPU. */
#ifndef EM_CSR_IMPL_H
#define EM_CSR_IMPL_H

#include "formats_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct em_csrx {
  int64_t *rowptr; /* n_rows + 1 offsets */
  int32_t *colind; /* nnz column indices */
  void *val;       /* nnz values, em_cplx or em_cplxf by precision */
  int T;           /* threads per row of the kernel (1 = scalar) */
  int grid_cap;    /* CUDA: most blocks per launch (grid-stride beyond) */
} em_csrx;

/* Frees the arrays where they live (csr_build.c). */
void em_csrx_destroy(em_spmat *M);

extern const em_spmat_ops em_fmt_csr_cpu; /* csr_cpu.c */
#ifdef EM_HAVE_CUDA
extern const em_spmat_ops em_fmt_csr_cuda; /* csr_cuda.cu */
#endif

#ifdef __cplusplus
}
#endif
#endif
