/* backend_cuda.c - the CUDA backend of the formats: arrays in GPU memory
 * (core's em_dev_alloc), the kernels of every format (the *_cuda.cu files),
 * and the launch geometry they share. */
#include <cuda_runtime.h>

#include "bitmap_impl.h"
#include "blockop_impl.h"
#include "csr_impl.h"
#include "ell_impl.h"
#include "hyb_impl.h"

static em_err cuda_copy(void **dst, const void *h, size_t bytes, const char *what) {
  return em_dev_alloc(dst, h, bytes, NULL, what);
}

static em_err cuda_copy_vals(void **dst, const em_cplx *h, size_t n, em_prec p, const char *what) {
  return em_dev_upload_vals(dst, h, n, p, NULL, what);
}

/* A few waves of full-occupancy blocks: enough to hide the tail, few enough
 * that the grid-stride loop, not the block scheduler, spreads long rows. */
em_err em_fmt_cuda_grid_cap(int *cap) {
  int dev = 0, sms = 0, threads = 0;
  EM_CUDA(cudaGetDevice(&dev));
  EM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  EM_CUDA(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  *cap = sms * (threads / EM_FMT_BLOCK) * 4;
  EM_CHECK(*cap > 0, EM_ERR_CUDA, "GPU %d reports %d SMs of %d threads", dev, sms, threads);
  return EM_OK;
}

const em_fmt_backend em_fmt_backend_cuda = {
    .id = EM_BACKEND_CUDA,
    .host = 0,
    .copy = cuda_copy,
    .copy_vals = cuda_copy_vals,
    .release = em_dev_free,
    .ops = {[EM_FMT_CSR] = &em_fmt_csr_cuda,
            [EM_FMT_CSR_VECTOR] = &em_fmt_csr_cuda,
            [EM_FMT_ELL] = &em_fmt_ellx_cuda,
            [EM_FMT_ELLR] = &em_fmt_ellx_cuda,
            [EM_FMT_ELLRT] = &em_fmt_ellx_cuda,
            [EM_FMT_SELLRT] = &em_fmt_ellx_cuda,
            [EM_FMT_HYB] = &em_fmt_hyb_cuda,
            [EM_FMT_HEC] = &em_fmt_hyb_cuda,
            [EM_FMT_BITMAP] = &em_fmt_bitmap_cuda},
    .bitmap = NULL, /* get / add / mul / to CSR: CPU bitmaps only so far */
    .blockop = &em_blockop_ops_cuda,
    .interleave = em_fmt_cuda_interleave,
};
