/* hyb_cuda.cuh - complex arithmetic, read-only loads and warp shuffles on
 * double2 / float2, shared by the HYB, HEC and bitmap kernels.  The device
 * value arrays are em_cplx / em_cplxf on the host side: the same layout as
 * double2 / float2 (two reals, re first). */
#ifndef EM_HYB_CUDA_CUH
#define EM_HYB_CUDA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#define EM_FULL_WARP 0xffffffffu

template <typename V>
__device__ __forceinline__ V em_czero();
template <>
__device__ __forceinline__ double2 em_czero<double2>() {
  return make_double2(0.0, 0.0);
}
template <>
__device__ __forceinline__ float2 em_czero<float2>() {
  return make_float2(0.f, 0.f);
}

/* c + a b */
__device__ __forceinline__ double2 em_cfma(double2 a, double2 b, double2 c) {
  c.x = fma(a.x, b.x, c.x);
  c.x = fma(-a.y, b.y, c.x);
  c.y = fma(a.x, b.y, c.y);
  c.y = fma(a.y, b.x, c.y);
  return c;
}
__device__ __forceinline__ float2 em_cfma(float2 a, float2 b, float2 c) {
  c.x = fmaf(a.x, b.x, c.x);
  c.x = fmaf(-a.y, b.y, c.x);
  c.y = fmaf(a.x, b.y, c.y);
  c.y = fmaf(a.y, b.x, c.y);
  return c;
}

/* a + b */
__device__ __forceinline__ double2 em_cadd(double2 a, double2 b) {
  return make_double2(a.x + b.x, a.y + b.y);
}
__device__ __forceinline__ float2 em_cadd(float2 a, float2 b) {
  return make_float2(a.x + b.x, a.y + b.y);
}

/* One 16-byte (8-byte) load through the read-only path. */
__device__ __forceinline__ double2 em_ldg(const double2 *p) {
  return __ldg(p);
}
__device__ __forceinline__ float2 em_ldg(const float2 *p) {
  return __ldg(p);
}

/* Warp shuffles of a complex value, component by component. */
__device__ __forceinline__ double2 em_shfl_up(double2 v, int d) {
  return make_double2(__shfl_up_sync(EM_FULL_WARP, v.x, d), __shfl_up_sync(EM_FULL_WARP, v.y, d));
}
__device__ __forceinline__ float2 em_shfl_up(float2 v, int d) {
  return make_float2(__shfl_up_sync(EM_FULL_WARP, v.x, d), __shfl_up_sync(EM_FULL_WARP, v.y, d));
}
__device__ __forceinline__ double2 em_shfl(double2 v, int lane) {
  return make_double2(__shfl_sync(EM_FULL_WARP, v.x, lane), __shfl_sync(EM_FULL_WARP, v.y, lane));
}
__device__ __forceinline__ float2 em_shfl(float2 v, int lane) {
  return make_float2(__shfl_sync(EM_FULL_WARP, v.x, lane), __shfl_sync(EM_FULL_WARP, v.y, lane));
}
__device__ __forceinline__ double2 em_shfl_xor(double2 v, int m) {
  return make_double2(__shfl_xor_sync(EM_FULL_WARP, v.x, m), __shfl_xor_sync(EM_FULL_WARP, v.y, m));
}
__device__ __forceinline__ float2 em_shfl_xor(float2 v, int m) {
  return make_float2(__shfl_xor_sync(EM_FULL_WARP, v.x, m), __shfl_xor_sync(EM_FULL_WARP, v.y, m));
}

/* Sum over the 32 lanes by a butterfly: a fixed order, so the same result
 * on every run; every lane ends with the sum. */
template <typename V>
__device__ __forceinline__ V em_warp_sum(V s) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) s = em_cadd(s, em_shfl_xor(s, m));
  return s;
}

/* Blocks of `threads` threads for `items` items of `per` threads each;
 * 0 when there is nothing to do (a launch of 0 blocks is an error). */
static inline unsigned em_grid(int64_t items, int per, int threads) {
  return (unsigned)((items * per + threads - 1) / threads);
}

#endif
