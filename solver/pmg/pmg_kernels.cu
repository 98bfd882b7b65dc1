// pmg_kernels.cu - the fused vector kernels of the V-cycle, complex double,
// on the legacy default stream, k <= EM_PMG_COLS columns per launch (their
// addresses passed by value): zero, the gather c = a(idx) - b(idx or all)
// of a level's residual and the scatter y(idx) += w x of its correction.
#include <cuda_runtime.h>
#include <stdint.h>

#include "em_core.h"

#define EM_PMG_COLS 16 /* pmg_impl.h */

namespace {

struct cols {
  double2 *p[EM_PMG_COLS];
};
struct ccols {
  const double2 *p[EM_PMG_COLS];
};

__global__ void zero_kernel(int32_t n, int k, cols x) {
  for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    for (int j = 0; j < k; j++) x.p[j][i] = make_double2(0, 0);
}

__global__ void gather_sub_kernel(int32_t n, const int32_t *idx, int k, ccols a, ccols b, int has_b,
                                  int bidx, cols c) {
  for (int32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < n; q += gridDim.x * blockDim.x) {
    int32_t i = idx[q], ib = bidx ? i : q;
    for (int j = 0; j < k; j++) {
      double2 v = a.p[j][i];
      if (has_b) v = make_double2(v.x - b.p[j][ib].x, v.y - b.p[j][ib].y);
      c.p[j][q] = v;
    }
  }
}

__global__ void scatter_add_kernel(int32_t n, const int32_t *idx, int k, double w, ccols x,
                                   cols y) {
  for (int32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < n; q += gridDim.x * blockDim.x) {
    int32_t i = idx[q];
    for (int j = 0; j < k; j++) {
      double2 u = y.p[j][i], v = x.p[j][q];
      y.p[j][i] = make_double2(u.x + w * v.x, u.y + w * v.y);
    }
  }
}

unsigned grid(int32_t n) {
  int32_t g = (n + 255) / 256;
  return g < 1 ? 1 : g > 8192 ? 8192 : (unsigned)g;
}

cols out_cols(int k, void *const *v) {
  cols t = {};
  for (int j = 0; j < k; j++) t.p[j] = (double2 *)v[j];
  return t;
}
ccols in_cols(int k, const void *const *v) {
  ccols t = {};
  for (int j = 0; j < k && v; j++) t.p[j] = (const double2 *)v[j];
  return t;
}

}  // namespace

extern "C" em_err em_pmg_cuda_zero(int32_t n, int k, void *const *x) {
  if (n == 0 || k == 0) return EM_OK;
  if (k > EM_PMG_COLS) return EM_RAISE(EM_ERR_INTERNAL, "pmg: %d columns in one launch", k);
  zero_kernel<<<grid(n), 256>>>(n, k, out_cols(k, x));
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_pmg_cuda_gather_sub(int32_t n, const int32_t *idx, int k, const void *const *a,
                                         const void *const *b, int bidx, void *const *c) {
  if (n == 0 || k == 0) return EM_OK;
  if (k > EM_PMG_COLS) return EM_RAISE(EM_ERR_INTERNAL, "pmg: %d columns in one launch", k);
  gather_sub_kernel<<<grid(n), 256>>>(n, idx, k, in_cols(k, a), in_cols(k, b), b != NULL, bidx,
                                      out_cols(k, c));
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_pmg_cuda_scatter_add(int32_t n, const int32_t *idx, int k, double w,
                                          const void *const *x, void *const *y) {
  if (n == 0 || k == 0) return EM_OK;
  if (k > EM_PMG_COLS) return EM_RAISE(EM_ERR_INTERNAL, "pmg: %d columns in one launch", k);
  scatter_add_kernel<<<grid(n), 256>>>(n, idx, k, w, in_cols(k, x), out_cols(k, y));
  EM_CUDA_LAUNCHED();
  return EM_OK;
}
