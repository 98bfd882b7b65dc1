/* fmt_cuda.cuh - device helpers of every format's kernels: complex
 * arithmetic on double2 / float2 (the layout of em_cplx / em_cplxf: two
 * reals, re first), the load paths, warp shuffles and reductions, and the
 * launch geometry. */
#ifndef EM_FMT_CUDA_CUH
#define EM_FMT_CUDA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "formats_impl.h"

/* Independent slots each thread loads before it uses the first. */
#define EM_FMT_UNROLL 4
#define EM_FULL_WARP 0xffffffffu

/* Host-side steps of a launcher that keeps the first error in a local
 * em_err err: a CUDA call checked (what names it), a device array of
 * `bytes` (em_dev_alloc: an error names `what`); later steps are skipped. */
#define EM_FMT_TRY(call, what)                                             \
  do {                                                                     \
    if (!err) err = em_cuda_status((int)(call), what, __FILE__, __LINE__); \
  } while (0)
#define EM_FMT_ALLOC(ptr, bytes, what)                                          \
  do {                                                                          \
    if (!err) err = em_dev_alloc((void **)&(ptr), NULL, (bytes), NULL, (what)); \
  } while (0)

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

/* c + a b (complex), in fused multiply-adds. */
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
/* s += a b: the same fused multiply-adds in the same order. */
template <typename V>
__device__ __forceinline__ void em_cacc(V &s, V a, V b) {
  s = em_cfma(a, b, s);
}

/* a + b */
__device__ __forceinline__ double2 em_cadd(double2 a, double2 b) {
  return make_double2(a.x + b.x, a.y + b.y);
}
__device__ __forceinline__ float2 em_cadd(float2 a, float2 b) {
  return make_float2(a.x + b.x, a.y + b.y);
}

/* Matrix streams (values, columns) of the CSR / ELL kernels are read once
 * per SpMV: load them "evict first" (ld.global.cs) so they do not push x
 * out of L1/L2 ... */
template <typename P>
__device__ __forceinline__ P em_ld_stream(const P *p) {
  return __ldcs(p);
}
/* ... while x is gathered through the read-only path and stays cached. */
template <typename P>
__device__ __forceinline__ P em_ldg(const P *p) {
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

/* Sum of s over the T lanes of a row (lanes T*m .. T*m+T-1 of the warp);
 * every lane of the warp must call it (full mask).  The result is in the
 * first lane of each group. */
template <int T, typename V>
__device__ __forceinline__ V em_row_reduce(V s) {
#pragma unroll
  for (int off = T / 2; off > 0; off /= 2) {
    s.x += __shfl_down_sync(EM_FULL_WARP, s.x, off, T);
    s.y += __shfl_down_sync(EM_FULL_WARP, s.y, off, T);
  }
  return s;
}

/* y_i = sum, or y_i += sum when acc. */
template <typename V>
__device__ __forceinline__ void em_row_store(V *y, int32_t i, V sum, int acc) {
  if (acc) {
    const V old = y[i];
    sum.x += old.x;
    sum.y += old.y;
  }
  y[i] = sum;
}

/* The k vectors of a multi-vector product (SpMM), passed by value: the
 * outputs y[j], and the inputs as columns x[j] or, when the kernel is
 * instantiated with IL, as one interleaved block xi (column j of entry c
 * at xi[c ld + j], ld >= K): the K values an entry multiplies then lie
 * side by side (one or two 32-byte sectors), where K columns cost K
 * sectors per gather. */
template <typename V, int K>
struct em_vecs {
  const V *x[K];
  V *y[K];
  const V *xi;
  int32_t ld;
};

/* x_j[c] from the columns or from the interleaved block. */
template <bool IL, typename V, int K>
__device__ __forceinline__ V em_xget(const em_vecs<V, K> &v, int j, int32_t c) {
  return IL ? em_ldg(v.xi + (int64_t)c * v.ld + j) : em_ldg(v.x[j] + c);
}

/* Column groups of a multi-vector kernel: k = 1..EM_SPMM_GROUP columns as
 * launches of K in {1, 2, 3, 4, 8} columns (1 is the SpMV); returns the
 * width of the next launch. */
static inline int em_spmm_next(int k) {
  return k >= 8 ? 8 : k > 4 ? 4 : k;
}

/* Blocks for `threads` threads, at most cap (the kernels stride beyond). */
static inline unsigned em_fmt_blocks(int64_t threads, int cap) {
  int64_t b = (threads + EM_FMT_BLOCK - 1) / EM_FMT_BLOCK;
  return (unsigned)(b < cap ? b : cap);
}

/* Blocks of `threads` threads for `items` items of `per` threads each;
 * 0 when there is nothing to do (a launch of 0 blocks is an error). */
static inline unsigned em_grid(int64_t items, int per, int threads) {
  return (unsigned)((items * per + threads - 1) / threads);
}

/* A complex double value into a double or single value array (a refill's
 * store: round to nearest in single, as the host's conversion). */
__device__ __forceinline__ void em_store_val(double2 *a, int64_t q, double2 v) {
  a[q] = v;
}
__device__ __forceinline__ void em_store_val(float2 *a, int64_t q, double2 v) {
  a[q] = make_float2((float)v.x, (float)v.y); /* round to nearest, as the host's conversion */
}

#endif
