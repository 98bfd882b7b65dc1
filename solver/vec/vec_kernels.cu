// vec_kernels.cu - the fused vector kernels of the CUDA vector backend:
// set, axpby, axpbypcz, several dot products in one pass, precision
// conversion.  cuBLAS does the rest (vec_cuda.c).
#include <cuComplex.h>
#include <cuda_runtime.h>

#include "cuda_cplx.cuh"
#include "cuda_impl.h"

namespace {

// complex arithmetic on both entry types: through double for the scalars
// (cuda_cplx.cuh)

int blocks_for(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  if (b > 65535) b = 65535;  // grid-stride loops cover the rest
  return b < 1 ? 1 : (int)b;
}

// x = a
template <typename V>
__global__ void set_kernel(int32_t n, cuDoubleComplex a, V *x) {
  V s = em_sv_from_z<V>(a);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    x[i] = s;
}

// y = a x + b y (b == 0 never reads y: it may hold garbage), over the
// blocks of the grid's x dimension: axpby's and each pair of caxpby's
template <typename V>
__device__ inline void axpby_body(int32_t n, cuDoubleComplex a, const V *x, cuDoubleComplex b,
                                  V *y) {
  bool read_y = b.x != 0 || b.y != 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    cuDoubleComplex s = cuCmul(a, em_sv_to_z(x[i]));
    if (read_y) s = cuCadd(s, cuCmul(b, em_sv_to_z(y[i])));
    y[i] = em_sv_from_z<V>(s);
  }
}

template <typename V>
__global__ void axpby_kernel(int32_t n, cuDoubleComplex a, const V *x, cuDoubleComplex b, V *y) {
  axpby_body(n, a, x, b, y);
}

// z = a x + b y + c z (c == 0 never reads z), likewise: axpbypcz's and each
// triple of caxpbypcz's
template <typename V>
__device__ inline void axpbypcz_body(int32_t n, cuDoubleComplex a, const V *x, cuDoubleComplex b,
                                     const V *y, cuDoubleComplex c, V *z) {
  bool read_z = c.x != 0 || c.y != 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    cuDoubleComplex s = cuCadd(cuCmul(a, em_sv_to_z(x[i])), cuCmul(b, em_sv_to_z(y[i])));
    if (read_z) s = cuCadd(s, cuCmul(c, em_sv_to_z(z[i])));
    z[i] = em_sv_from_z<V>(s);
  }
}

template <typename V>
__global__ void axpbypcz_kernel(int32_t n, cuDoubleComplex a, const V *x, cuDoubleComplex b,
                                const V *y, cuDoubleComplex c, V *z) {
  axpbypcz_body(n, a, x, b, y, c, z);
}

// sum of a double2 over the block (all threads get it in lane 0 of warp 0)
__device__ inline double2 block_sum(double2 v, double2 *sh) {
  for (int o = 16; o > 0; o >>= 1) {
    v.x += __shfl_down_sync(0xffffffffu, v.x, o);
    v.y += __shfl_down_sync(0xffffffffu, v.y, o);
  }
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // sh may still be read from the previous call
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? sh[lane] : make_double2(0, 0);
    for (int o = 16; o > 0; o >>= 1) {
      v.x += __shfl_down_sync(0xffffffffu, v.x, o);
      v.y += __shfl_down_sync(0xffffffffu, v.y, o);
    }
  }
  return v;
}

// K (<= EM_VEC_MAX_DOTS, 4) dot products of each of up to EM_SV_COLS column
// sets (set j: x[j*K + i]); one set is em_sv_cuda_dots.
#define EM_SV_COLS 16
template <typename V>
struct cdot_args {
  const V *x[EM_SV_COLS * 4];
  const V *y[EM_SV_COLS * 4];
  int conj[4];
};

// partial[(j*nb + b)*K + i] = block b's share of dot i of set j = blockIdx.y,
// accumulated in double: a grid-stride loop over the set's gridDim.x = nb
// blocks and a block sum, so every set's values are bit for bit what the
// set alone gives
template <typename V, int K>
__global__ void cdots_kernel(int32_t n, cdot_args<V> a, double2 *partial) {
  __shared__ double2 sh[32];
  const int set = blockIdx.y;
  double2 acc[K];
  for (int j = 0; j < K; j++) acc[j] = make_double2(0, 0);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    for (int j = 0; j < K; j++) {
      cuDoubleComplex u = em_sv_to_z(a.x[set * K + j][i]), v = em_sv_to_z(a.y[set * K + j][i]);
      if (a.conj[j]) u = cuConj(u);
      acc[j].x += u.x * v.x - u.y * v.y;
      acc[j].y += u.x * v.y + u.y * v.x;
    }
  }
  double2 *part = partial + (size_t)set * gridDim.x * K;
  for (int j = 0; j < K; j++) {
    double2 s = block_sum(acc[j], sh);
    if (threadIdx.x == 0) part[blockIdx.x * K + j] = s;
  }
}

// result[j*K + i] = sum over blocks of set j = blockIdx.x's partials: one
// block per set, fixed order
template <int K>
__global__ void cdots_final(int nb, const double2 *partial, double2 *result) {
  __shared__ double2 sh[32];
  const double2 *part = partial + (size_t)blockIdx.x * nb * K;
  for (int j = 0; j < K; j++) {
    double2 v = make_double2(0, 0);
    for (int b = threadIdx.x; b < nb; b += blockDim.x) {
      v.x += part[b * K + j].x;
      v.y += part[b * K + j].y;
    }
    v = block_sum(v, sh);
    if (threadIdx.x == 0) result[blockIdx.x * K + j] = v;
  }
}

template <typename V, int K>
int launch_cdots(int32_t n, int m, const void *const *x, const void *const *y, const int *conj,
                 void *partial, void *result) {
  cdot_args<V> a = {};
  for (int q = 0; q < m * K; q++) {
    a.x[q] = (const V *)x[q];
    a.y[q] = (const V *)y[q];
  }
  for (int j = 0; j < K; j++) a.conj[j] = conj[j];
  int nb = blocks_for(n, EM_SV_RED_THREADS);
  if (nb > EM_SV_RED_BLOCKS) nb = EM_SV_RED_BLOCKS;
  cdots_kernel<V, K><<<dim3(nb, m), EM_SV_RED_THREADS>>>(n, a, (double2 *)partial);
  cdots_final<K><<<m, EM_SV_RED_THREADS>>>(nb, (const double2 *)partial, (double2 *)result);
  return (int)cudaGetLastError();
}

template <typename V>
int cdots_for_k(int32_t n, int m, int k, const void *const *x, const void *const *y,
                const int *conj, void *partial, void *result) {
  switch (k) {
    case 1:
      return launch_cdots<V, 1>(n, m, x, y, conj, partial, result);
    case 2:
      return launch_cdots<V, 2>(n, m, x, y, conj, partial, result);
    case 3:
      return launch_cdots<V, 3>(n, m, x, y, conj, partial, result);
    case 4:
      return launch_cdots<V, 4>(n, m, x, y, conj, partial, result);
  }
  return (int)cudaErrorInvalidValue;
}

// y_j = a_j x_j + b_j y_j for the pairs j = blockIdx.y (b_j == 0: y_j not read)
template <typename V>
struct caxpby_args {
  const V *x[EM_SV_COLS];
  V *y[EM_SV_COLS];
  cuDoubleComplex a[EM_SV_COLS], b[EM_SV_COLS];
};

template <typename V>
__global__ void caxpby_kernel(int32_t n, caxpby_args<V> p) {
  const int j = blockIdx.y;
  axpby_body(n, p.a[j], p.x[j], p.b[j], p.y[j]);
}

template <typename V>
void launch_caxpby(int32_t n, int m, const double *ab, const void *const *x, void *const *y) {
  caxpby_args<V> p = {};
  for (int j = 0; j < m; j++) {
    p.x[j] = (const V *)x[j];
    p.y[j] = (V *)y[j];
    p.a[j] = make_cuDoubleComplex(ab[4 * j], ab[4 * j + 1]);
    p.b[j] = make_cuDoubleComplex(ab[4 * j + 2], ab[4 * j + 3]);
  }
  // a few blocks per pair: the m pairs fill the GPU together
  int nb = blocks_for(n, 256);
  int cap = 4096 / m > 64 ? 4096 / m : 64;
  caxpby_kernel<V><<<dim3(nb < cap ? nb : cap, m), 256>>>(n, p);
}

// z_j = a_j x_j + b_j y_j + c_j z_j for the triples j = blockIdx.y, each
// value axpbypcz_kernel's (c_j == 0: z_j not read)
template <typename V>
struct caxpbypcz_args {
  const V *x[EM_SV_COLS];
  const V *y[EM_SV_COLS];
  V *z[EM_SV_COLS];
  cuDoubleComplex a[EM_SV_COLS], b[EM_SV_COLS], c[EM_SV_COLS];
};

template <typename V>
__global__ void caxpbypcz_kernel(int32_t n, caxpbypcz_args<V> p) {
  const int j = blockIdx.y;
  axpbypcz_body(n, p.a[j], p.x[j], p.b[j], p.y[j], p.c[j], p.z[j]);
}

template <typename V>
void launch_caxpbypcz(int32_t n, int m, const double *abc, const void *const *x,
                      const void *const *y, void *const *z) {
  caxpbypcz_args<V> p = {};
  for (int j = 0; j < m; j++) {
    p.x[j] = (const V *)x[j];
    p.y[j] = (const V *)y[j];
    p.z[j] = (V *)z[j];
    p.a[j] = make_cuDoubleComplex(abc[6 * j], abc[6 * j + 1]);
    p.b[j] = make_cuDoubleComplex(abc[6 * j + 2], abc[6 * j + 3]);
    p.c[j] = make_cuDoubleComplex(abc[6 * j + 4], abc[6 * j + 5]);
  }
  int nb = blocks_for(n, 256);
  int cap = 4096 / m > 64 ? 4096 / m : 64;
  caxpbypcz_kernel<V><<<dim3(nb < cap ? nb : cap, m), 256>>>(n, p);
}

// gather: dst[i] = src[perm[i]]; else dst[perm[i]] = src[i]
template <typename V>
__global__ void permute_kernel(int32_t n, const int32_t *perm, const V *src, V *dst, int gather) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    if (gather)
      dst[i] = src[perm[i]];
    else
      dst[perm[i]] = src[i];
  }
}

template <typename S, typename D>
__global__ void convert_kernel(int64_t n, const S *src, D *dst) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = em_sv_from_z<D>(em_sv_to_z(src[i]));
}

}  // namespace

extern "C" em_err em_sv_cuda_set(int32_t n, int single, double ar, double ai, void *x) {
  if (n == 0) return EM_OK;
  cuDoubleComplex a = make_cuDoubleComplex(ar, ai);
  if (single)
    set_kernel<<<blocks_for(n, 256), 256>>>(n, a, (cuFloatComplex *)x);
  else
    set_kernel<<<blocks_for(n, 256), 256>>>(n, a, (cuDoubleComplex *)x);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_sv_cuda_axpby(int32_t n, int single, double ar, double ai, const void *x,
                                   double br, double bi, void *y) {
  if (n == 0) return EM_OK;
  cuDoubleComplex a = make_cuDoubleComplex(ar, ai), b = make_cuDoubleComplex(br, bi);
  if (single)
    axpby_kernel<<<blocks_for(n, 256), 256>>>(n, a, (const cuFloatComplex *)x, b,
                                              (cuFloatComplex *)y);
  else
    axpby_kernel<<<blocks_for(n, 256), 256>>>(n, a, (const cuDoubleComplex *)x, b,
                                              (cuDoubleComplex *)y);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_sv_cuda_axpbypcz(int32_t n, int single, const double *abc, const void *x,
                                      const void *y, void *z) {
  if (n == 0) return EM_OK;
  cuDoubleComplex a = make_cuDoubleComplex(abc[0], abc[1]);
  cuDoubleComplex b = make_cuDoubleComplex(abc[2], abc[3]);
  cuDoubleComplex c = make_cuDoubleComplex(abc[4], abc[5]);
  if (single)
    axpbypcz_kernel<<<blocks_for(n, 256), 256>>>(n, a, (const cuFloatComplex *)x, b,
                                                 (const cuFloatComplex *)y, c, (cuFloatComplex *)z);
  else
    axpbypcz_kernel<<<blocks_for(n, 256), 256>>>(
        n, a, (const cuDoubleComplex *)x, b, (const cuDoubleComplex *)y, c, (cuDoubleComplex *)z);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

// one set of column-set dots
extern "C" em_err em_sv_cuda_dots(int32_t n, int single, int k, const void *const *x,
                                  const void *const *y, const int *conj, void *partial,
                                  void *result) {
  if (single) {
    EM_CUDA(cdots_for_k<cuFloatComplex>(n, 1, k, x, y, conj, partial, result));
    return EM_OK;
  }
  EM_CUDA(cdots_for_k<cuDoubleComplex>(n, 1, k, x, y, conj, partial, result));
  return EM_OK;
}

extern "C" em_err em_sv_cuda_cdots(int32_t n, int single, int m, int k, const void *const *x,
                                   const void *const *y, const int *conj, void *partial,
                                   void *result) {
  if (m < 1 || m > EM_SV_COLS)
    return EM_RAISE(EM_ERR_INTERNAL, "%d column sets of dot products in one launch", m);
  if (single) {
    EM_CUDA(cdots_for_k<cuFloatComplex>(n, m, k, x, y, conj, partial, result));
    return EM_OK;
  }
  EM_CUDA(cdots_for_k<cuDoubleComplex>(n, m, k, x, y, conj, partial, result));
  return EM_OK;
}

extern "C" em_err em_sv_cuda_caxpby(int32_t n, int single, int m, const double *ab,
                                    const void *const *x, void *const *y) {
  if (n == 0 || m == 0) return EM_OK;
  if (m > EM_SV_COLS) return EM_RAISE(EM_ERR_INTERNAL, "%d axpby pairs in one launch", m);
  if (single)
    launch_caxpby<cuFloatComplex>(n, m, ab, x, y);
  else
    launch_caxpby<cuDoubleComplex>(n, m, ab, x, y);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_sv_cuda_caxpbypcz(int32_t n, int single, int m, const double *abc,
                                       const void *const *x, const void *const *y, void *const *z) {
  if (n == 0 || m == 0) return EM_OK;
  if (m > EM_SV_COLS) return EM_RAISE(EM_ERR_INTERNAL, "%d axpbypcz triples in one launch", m);
  if (single)
    launch_caxpbypcz<cuFloatComplex>(n, m, abc, x, y, z);
  else
    launch_caxpbypcz<cuDoubleComplex>(n, m, abc, x, y, z);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_sv_cuda_permute(int32_t n, int single, const int32_t *perm, const void *src,
                                     void *dst, int gather) {
  if (n == 0) return EM_OK;
  if (single)
    permute_kernel<<<blocks_for(n, 256), 256>>>(n, perm, (const cuFloatComplex *)src,
                                                (cuFloatComplex *)dst, gather);
  else
    permute_kernel<<<blocks_for(n, 256), 256>>>(n, perm, (const cuDoubleComplex *)src,
                                                (cuDoubleComplex *)dst, gather);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_sv_cuda_convert(int64_t n, const void *src, int src_single, void *dst,
                                     int dst_single, void *stream) {
  if (n == 0) return EM_OK;
  cudaStream_t s = (cudaStream_t)stream;
  int nb = blocks_for(n, 256);
  if (src_single && dst_single)
    convert_kernel<<<nb, 256, 0, s>>>(n, (const cuFloatComplex *)src, (cuFloatComplex *)dst);
  else if (src_single)
    convert_kernel<<<nb, 256, 0, s>>>(n, (const cuFloatComplex *)src, (cuDoubleComplex *)dst);
  else if (dst_single)
    convert_kernel<<<nb, 256, 0, s>>>(n, (const cuDoubleComplex *)src, (cuFloatComplex *)dst);
  else
    convert_kernel<<<nb, 256, 0, s>>>(n, (const cuDoubleComplex *)src, (cuDoubleComplex *)dst);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}
