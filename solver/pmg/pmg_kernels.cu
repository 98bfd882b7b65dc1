// pmg_kernels.cu - the two fused vector kernels of the V-cycle: c = a - b
// and y += w x, complex double, on the legacy default stream.
#include <cuda_runtime.h>
#include <stdint.h>

#include "em_core.h"

namespace {

__global__ void sub_kernel(int32_t n, const double2 *a, const double2 *b, double2 *c) {
  for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = make_double2(a[i].x - b[i].x, a[i].y - b[i].y);
}

__global__ void axpy_kernel(int32_t n, double w, const double2 *x, double2 *y) {
  for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = make_double2(y[i].x + w * x[i].x, y[i].y + w * x[i].y);
}

unsigned grid(int32_t n) {
  int32_t g = (n + 255) / 256;
  return g < 1 ? 1 : g > 8192 ? 8192 : (unsigned)g;
}

}  // namespace

extern "C" em_err em_pmg_cuda_sub(int32_t n, const void *a, const void *b, void *c) {
  if (n == 0) return EM_OK;
  sub_kernel<<<grid(n), 256>>>(n, (const double2 *)a, (const double2 *)b, (double2 *)c);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_pmg_cuda_axpy(int32_t n, double w, const void *x, void *y) {
  if (n == 0) return EM_OK;
  axpy_kernel<<<grid(n), 256>>>(n, w, (const double2 *)x, (double2 *)y);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}
