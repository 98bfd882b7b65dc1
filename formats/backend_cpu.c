/* backend_cpu.c - the CPU backend of the formats: arrays in host memory
 * (em_calloc), the OpenMP kernels of every format. */
#include <string.h>

#include "bitmap_impl.h"
#include "blockop_impl.h"
#include "csr_impl.h"
#include "ell_impl.h"
#include "hyb_impl.h"

static em_err cpu_copy(void **dst, const void *h, size_t bytes, const char *what) {
  EM_TRY(em_calloc(dst, bytes, 1, what));
  if (bytes) memcpy(*dst, h, bytes);
  return EM_OK;
}

/* n values in precision p: a copy, or converted to single. */
static em_err cpu_copy_vals(void **dst, const em_cplx *h, size_t n, em_prec p, const char *what) {
  if (p == EM_PREC_DOUBLE) return cpu_copy(dst, h, n * sizeof *h, what);
  EM_TRY(em_calloc(dst, n, sizeof(em_cplxf), what));
  em_cplxf *s = (em_cplxf *)*dst;
  for (size_t k = 0; k < n; k++) s[k] = (em_cplxf)h[k];
  return EM_OK;
}

const em_fmt_backend em_fmt_backend_cpu = {
    .id = EM_BACKEND_CPU,
    .host = 1,
    .copy = cpu_copy,
    .copy_vals = cpu_copy_vals,
    .release = em_free,
    .ops = {[EM_FMT_CSR] = &em_fmt_csr_cpu,
            [EM_FMT_CSR_VECTOR] = &em_fmt_csr_cpu,
            [EM_FMT_ELL] = &em_fmt_ellx_cpu,
            [EM_FMT_ELLR] = &em_fmt_ellx_cpu,
            [EM_FMT_ELLRT] = &em_fmt_ellx_cpu,
            [EM_FMT_SELLRT] = &em_fmt_ellx_cpu,
            [EM_FMT_HYB] = &em_fmt_hyb_cpu,
            [EM_FMT_HEC] = &em_fmt_hyb_cpu,
            [EM_FMT_BITMAP] = &em_fmt_bitmap_cpu},
    .bitmap = &em_bitmap_xops_cpu,
    .blockop = &em_blockop_ops_cpu,
    .interleave = em_fmt_cpu_interleave,
};
