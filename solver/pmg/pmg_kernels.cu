// pmg_kernels.cu - the fused vector kernels of the V-cycle, complex double,
// on the legacy default stream: c = a - b, the gather c = a(idx) - b of a
// level's residual and the scatter y(idx) += w x of its correction.
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

__global__ void sub_kernel(int32_t n, const double2 *a, const double2 *b, double2 *c) {
  for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = make_double2(a[i].x - b[i].x, a[i].y - b[i].y);
}

__global__ void gather_sub_kernel(int32_t n, const int32_t *idx, const double2 *a, const double2 *b,
                                  double2 *c) {
  for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    double2 v = a[idx[k]];
    if (b) v = make_double2(v.x - b[k].x, v.y - b[k].y);
    c[k] = v;
  }
}

__global__ void scatter_add_kernel(int32_t n, const int32_t *idx, double w, const double2 *x,
                                   double2 *y) {
  for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    int32_t i = idx[k];
    y[i] = make_double2(y[i].x + w * x[k].x, y[i].y + w * x[k].y);
  }
}

unsigned grid(int32_t n) {
  int32_t g = (n + 255) / 256;
  return g < 1 ? 1 : g > 8192 ? 8192 : (unsigned)g;
}

}  // namespace

extern "C" int em_pmg_cuda_sub(int32_t n, const void *a, const void *b, void *c) {
  if (n == 0) return 0;
  sub_kernel<<<grid(n), 256>>>(n, (const double2 *)a, (const double2 *)b, (double2 *)c);
  return (int)cudaGetLastError();
}

extern "C" int em_pmg_cuda_gather_sub(int32_t n, const int32_t *idx, const void *a, const void *b,
                                      void *c) {
  if (n == 0) return 0;
  gather_sub_kernel<<<grid(n), 256>>>(n, idx, (const double2 *)a, (const double2 *)b, (double2 *)c);
  return (int)cudaGetLastError();
}

extern "C" int em_pmg_cuda_scatter_add(int32_t n, const int32_t *idx, double w, const void *x,
                                       void *y) {
  if (n == 0) return 0;
  scatter_add_kernel<<<grid(n), 256>>>(n, idx, w, (const double2 *)x, (double2 *)y);
  return (int)cudaGetLastError();
}
