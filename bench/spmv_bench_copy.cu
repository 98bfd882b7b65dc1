/* spmv_bench_copy.cu - the copy kernel whose bandwidth (read + write) is the
 * ceiling the SpMV kernels are measured against: 16-byte loads and stores,
 * grid-stride, a few waves of blocks. */
#include <cuda_runtime.h>

#include "spmv_bench.h"

/* dst[i] = src[i], i < n (double2 = 16 bytes). */
__global__ void __launch_bounds__(256)
    copy16_kernel(double2 *__restrict__ dst, const double2 *__restrict__ src, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = __ldcs(src + i);
}

extern "C" em_err bench_copy_kernel(void *dst, const void *src, size_t n16, void *stream) {
  int dev = 0, sms = 0;
  EM_CUDA(cudaGetDevice(&dev));
  EM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  size_t want = (n16 + 255) / 256, cap = (size_t)sms * 8 * 4;
  unsigned blocks = (unsigned)(want < cap ? want : cap);
  if (blocks == 0) return EM_OK;
  copy16_kernel<<<blocks, 256, 0, (cudaStream_t)stream>>>((double2 *)dst, (const double2 *)src,
                                                          n16);
  EM_CUDA(cudaGetLastError());
  return EM_OK;
}
