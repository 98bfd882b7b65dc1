/* ell_cuda_impl.cuh - device helpers of the CSR and ELL-family kernels:
 * complex arithmetic on double2 / float2 (the layout of em_cplx / em_cplxf),
 * the load paths, the warp-shuffle reduction over the T lanes of a row, and
 * the launch geometry. */
#ifndef EM_ELL_CUDA_IMPL_CUH
#define EM_ELL_CUDA_IMPL_CUH

#include <cuda_runtime.h>

#include "ell_impl.h"

/* Threads per block of every kernel here; a multiple of 32 so the T lanes
 * of a row never straddle a warp. */
#define EM_FMT_BLOCK 256
/* Independent slots each thread loads before it uses the first. */
#define EM_FMT_UNROLL 4

/* s += a b (complex), in fused multiply-adds. */
static __device__ __forceinline__ void em_cfma(double2 &s, double2 a, double2 b) {
  s.x = fma(a.x, b.x, s.x);
  s.x = fma(-a.y, b.y, s.x);
  s.y = fma(a.x, b.y, s.y);
  s.y = fma(a.y, b.x, s.y);
}
static __device__ __forceinline__ void em_cfma(float2 &s, float2 a, float2 b) {
  s.x = fmaf(a.x, b.x, s.x);
  s.x = fmaf(-a.y, b.y, s.x);
  s.y = fmaf(a.x, b.y, s.y);
  s.y = fmaf(a.y, b.x, s.y);
}

template <typename V>
static __device__ __forceinline__ V em_czero() {
  V z;
  z.x = 0;
  z.y = 0;
  return z;
}

/* Matrix streams (values, columns) are read once per SpMV: load them
 * "evict first" (ld.global.cs) so they do not push x out of L1/L2; x is
 * gathered through the read-only path and stays cached. */
template <typename P>
static __device__ __forceinline__ P em_ld_stream(const P *p) {
  return __ldcs(p);
}
template <typename V>
static __device__ __forceinline__ V em_ld_x(const V *p) {
  return __ldg(p);
}

/* Sum of s over the T lanes of a row (lanes T*m .. T*m+T-1 of the warp);
 * every lane of the warp must call it (full mask). The result is in the
 * first lane of each group. */
template <int T, typename V>
static __device__ __forceinline__ V em_row_reduce(V s) {
#pragma unroll
  for (int off = T / 2; off > 0; off /= 2) {
    s.x += __shfl_down_sync(0xffffffffu, s.x, off, T);
    s.y += __shfl_down_sync(0xffffffffu, s.y, off, T);
  }
  return s;
}

/* y_i = sum, or y_i += sum when acc. */
template <typename V>
static __device__ __forceinline__ void em_row_store(V *y, int32_t i, V sum, int acc) {
  if (acc) {
    const V old = y[i];
    sum.x += old.x;
    sum.y += old.y;
  }
  y[i] = sum;
}

/* Blocks for `threads` threads, at most cap (the kernels stride beyond). */
static inline unsigned em_fmt_blocks(int64_t threads, int cap) {
  int64_t b = (threads + EM_FMT_BLOCK - 1) / EM_FMT_BLOCK;
  return (unsigned)(b < cap ? b : cap);
}

#endif
