// trsv_kernels.cu - GPU kernels of the preconditioners: the ILU(0)
// triangular solves (one launch per wide level, one-block kernels for runs
// of thin levels, and a single-launch synchronisation-free solve), the
// gather / scatter between the operator's and the pc's numbering, and the
// Jacobi product.
//
// Every triangular kernel computes, for a row i of a factor stored row by
// row at schedule position t (i = rows ? rows[t] : t),
//     y_i = (y_i - sum_k val[k] y[col[k]]) * dinv_i     (dinv NULL: 1)
// with val and dinv in complex double or single ("single" below), y and the
// arithmetic in complex double, a group of T lanes per row (T consecutive
// lanes of one warp) and a shuffle reduction.  All lanes of a warp reach every shuffle (rows past
// the end contribute 0), so the full mask is always right.
#include <cuComplex.h>
#include <cuda/atomic>
#include <cuda_runtime.h>

#include "cuda_impl.h"

namespace {

// ---------------------------------------------------- complex arithmetic
__device__ inline cuDoubleComplex cmul(cuDoubleComplex a, cuDoubleComplex b) {
  return cuCmul(a, b);
}
__device__ inline cuFloatComplex cmul(cuFloatComplex a, cuFloatComplex b) {
  return cuCmulf(a, b);
}
__device__ inline cuDoubleComplex csub(cuDoubleComplex a, cuDoubleComplex b) {
  return cuCsub(a, b);
}
// s + a b
__device__ inline cuDoubleComplex cfma(cuDoubleComplex a, cuDoubleComplex b, cuDoubleComplex s) {
  s.x = fma(a.x, b.x, fma(-a.y, b.y, s.x));
  s.y = fma(a.x, b.y, fma(a.y, b.x, s.y));
  return s;
}
template <typename V>
__device__ inline V czero();
template <>
__device__ inline cuDoubleComplex czero<cuDoubleComplex>() {
  return make_cuDoubleComplex(0, 0);
}

// conversions between the two entry types
template <typename D, typename S>
__device__ inline D cconv(S a);
template <>
__device__ inline cuDoubleComplex cconv(cuDoubleComplex a) {
  return a;
}
template <>
__device__ inline cuFloatComplex cconv(cuFloatComplex a) {
  return a;
}
template <>
__device__ inline cuDoubleComplex cconv(cuFloatComplex a) {
  return make_cuDoubleComplex(a.x, a.y);
}
template <>
__device__ inline cuFloatComplex cconv(cuDoubleComplex a) {
  return make_cuFloatComplex((float)a.x, (float)a.y);
}

// sum over the T lanes of a group (T a power of two <= 32)
template <int T>
__device__ inline cuDoubleComplex group_sum(cuDoubleComplex s) {
  for (int o = T / 2; o > 0; o >>= 1) {
    s.x += __shfl_xor_sync(0xffffffffu, s.x, o, T);
    s.y += __shfl_xor_sync(0xffffffffu, s.y, o, T);
  }
  return s;
}

// the triangular solves work on y in complex double whatever the factor
// storage: rounded factors are still a fixed linear operator
typedef cuDoubleComplex Z;

int grid_for(int64_t threads, int block) {
  int64_t b = (threads + block - 1) / block;
  return b < 1 ? 1 : (int)b;
}

// -------------------------------------------------------- level kernels

// one row per group of T lanes, rows t0..t1-1 of one level
template <typename V, int T>
__global__ void trsv_level_kernel(int32_t t0, int32_t t1, const int64_t *__restrict__ ptr,
                                  const int32_t *__restrict__ col, const V *__restrict__ val,
                                  const int32_t *__restrict__ rows, const V *__restrict__ dinv,
                                  Z *y) {
  int64_t t = t0 + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / T;
  int lane = threadIdx.x & (T - 1);
  bool valid = t < t1;
  Z s = czero<Z>();
  int32_t i = 0;
  if (valid) {
    i = rows ? rows[t] : (int32_t)t;
    for (int64_t k = ptr[t] + lane; k < ptr[t + 1]; k += T)
      s = cfma(cconv<Z>(val[k]), y[col[k]], s);
  }
  s = group_sum<T>(s);
  if (valid && lane == 0) {
    Z v = csub(y[i], s);
    if (dinv) v = cmul(v, cconv<Z>(dinv[i]));
    y[i] = v;
  }
}

// levels l0..l1-1 (rows lev[l]..lev[l+1]-1) in one block, a barrier between
// levels: __syncthreads makes the block's global writes visible to it, and
// every value a row reads is final before it is read
template <typename V, int T>
__global__ void __launch_bounds__(1024)
    trsv_thin_kernel(int32_t l0, int32_t l1, const int32_t *__restrict__ lev,
                     const int64_t *__restrict__ ptr, const int32_t *__restrict__ col,
                     const V *__restrict__ val, const int32_t *__restrict__ rows,
                     const V *__restrict__ dinv, Z *y) {
  int lane = threadIdx.x & (T - 1), g = threadIdx.x / T, G = blockDim.x / T;
  for (int32_t l = l0; l < l1; l++) {
    int32_t a = lev[l], b = lev[l + 1];
    for (int32_t base = a; base < b; base += G) { /* uniform over the block */
      int32_t t = base + g;
      bool valid = t < b;
      Z s = czero<Z>();
      int32_t i = 0;
      if (valid) {
        i = rows ? rows[t] : t;
        for (int64_t k = ptr[t] + lane; k < ptr[t + 1]; k += T)
          s = cfma(cconv<Z>(val[k]), y[col[k]], s);
      }
      s = group_sum<T>(s);
      if (valid && lane == 0) {
        Z v = csub(y[i], s);
        if (dinv) v = cmul(v, cconv<Z>(dinv[i]));
        y[i] = v;
      }
    }
    __syncthreads();
  }
}

template <typename V>
int launch_level(int32_t t0, int32_t t1, const int64_t *ptr, const int32_t *col, const void *val,
                 const int32_t *rows, const void *dinv, void *y, int T, cudaStream_t s) {
  if (t1 <= t0) return 0;
  const int B = 256;
  int grid = grid_for((int64_t)(t1 - t0) * T, B);
  const V *v = (const V *)val, *d = (const V *)dinv;
  Z *yy = (Z *)y;
  switch (T) {
    case 2:
      trsv_level_kernel<V, 2><<<grid, B, 0, s>>>(t0, t1, ptr, col, v, rows, d, yy);
      break;
    case 4:
      trsv_level_kernel<V, 4><<<grid, B, 0, s>>>(t0, t1, ptr, col, v, rows, d, yy);
      break;
    case 8:
      trsv_level_kernel<V, 8><<<grid, B, 0, s>>>(t0, t1, ptr, col, v, rows, d, yy);
      break;
    case 16:
      trsv_level_kernel<V, 16><<<grid, B, 0, s>>>(t0, t1, ptr, col, v, rows, d, yy);
      break;
    case 32:
      trsv_level_kernel<V, 32><<<grid, B, 0, s>>>(t0, t1, ptr, col, v, rows, d, yy);
      break;
    default:
      return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

template <typename V>
int launch_thin(int32_t l0, int32_t l1, const int32_t *lev, const int64_t *ptr, const int32_t *col,
                const void *val, const int32_t *rows, const void *dinv, void *y, int T,
                cudaStream_t s) {
  if (l1 <= l0) return 0;
  const int B = 1024;
  const V *v = (const V *)val, *d = (const V *)dinv;
  Z *yy = (Z *)y;
  switch (T) {
    case 2:
      trsv_thin_kernel<V, 2><<<1, B, 0, s>>>(l0, l1, lev, ptr, col, v, rows, d, yy);
      break;
    case 4:
      trsv_thin_kernel<V, 4><<<1, B, 0, s>>>(l0, l1, lev, ptr, col, v, rows, d, yy);
      break;
    case 8:
      trsv_thin_kernel<V, 8><<<1, B, 0, s>>>(l0, l1, lev, ptr, col, v, rows, d, yy);
      break;
    case 16:
      trsv_thin_kernel<V, 16><<<1, B, 0, s>>>(l0, l1, lev, ptr, col, v, rows, d, yy);
      break;
    case 32:
      trsv_thin_kernel<V, 32><<<1, B, 0, s>>>(l0, l1, lev, ptr, col, v, rows, d, yy);
      break;
    default:
      return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

// ---------------------------------------------------- sync-free solve

constexpr int SF_THREADS = 256;  // 8 warps: 8 rows per ticket
constexpr int SF_ROWS = SF_THREADS / 32;
constexpr long long SF_TIMEOUT = 2000000000LL;  // clock cycles, about a second

// wait until row j is final; false when the solve gave up (fail set: the
// caller computes on regardless, so every waiter behind it runs out fast)
__device__ bool sf_wait(int *flags, int32_t j, int *fail, int32_t row) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(flags[j]);
  if (f.load(cuda::memory_order_relaxed)) return true;
  cuda::atomic_ref<int, cuda::thread_scope_device> bad(*fail);
  long long t0 = clock64();
  for (unsigned spin = 1;; spin++) {
    __nanosleep(64);
    if (f.load(cuda::memory_order_relaxed)) return true;
    if ((spin & 63) == 0) {
      if (bad.load(cuda::memory_order_relaxed)) return false;  // another row gave up: run out
      if (clock64() - t0 > SF_TIMEOUT) {
        int expected = 0;
        bad.compare_exchange_strong(expected, row + 1, cuda::memory_order_relaxed);
        return false;
      }
    }
  }
}

// Liu et al. (2016) style: a block takes the next SF_ROWS schedule positions
// by an atomic ticket (so a waited-on row always belongs to a block that is
// running), a warp per row waits for the flags of the rows it reads, then
// computes.  Release/acquire through fences around relaxed flag accesses;
// y is read through L2 (ld.cg): other SMs wrote it.
template <typename V>
__global__ void __launch_bounds__(SF_THREADS)
    trsv_syncfree_kernel(int32_t n, const int64_t *__restrict__ ptr,
                         const int32_t *__restrict__ col, const V *__restrict__ val,
                         const int32_t *__restrict__ rows, const V *__restrict__ dinv, Z *y,
                         int *flags, unsigned *ticket, int *fail) {
  __shared__ int32_t chunk;
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (;;) {
    if (threadIdx.x == 0) chunk = (int32_t)atomicAdd(ticket, (unsigned)SF_ROWS);
    __syncthreads();
    int32_t base = chunk;
    __syncthreads();  // everyone has read chunk before thread 0 overwrites it
    if (base >= n) return;
    int32_t t = base + w;
    if (t >= n) continue;  // whole warps only: t is uniform over a warp
    int32_t i = rows ? rows[t] : t;
    int64_t b = ptr[t], e = ptr[t + 1];
    for (int64_t k = b + lane; k < e; k += 32) sf_wait(flags, col[k], fail, i);
    __threadfence();  // acquire: the flags seen above order the y loads below
    Z s = czero<Z>();
    for (int64_t k = b + lane; k < e; k += 32) s = cfma(cconv<Z>(val[k]), __ldcg(y + col[k]), s);
    s = group_sum<32>(s);
    if (lane == 0) {
      Z v = csub(__ldcg(y + i), s);
      if (dinv) v = cmul(v, cconv<Z>(dinv[i]));
      __stcg(y + i, v);
      __threadfence();  // release: y_i before its flag
      cuda::atomic_ref<int, cuda::thread_scope_device> f(flags[i]);
      f.store(1, cuda::memory_order_relaxed);
    }
  }
}

// ------------------------------------------------ gather, scatter, Jacobi

template <typename R, typename Y>
__global__ void gather_kernel(int32_t n, const int32_t *__restrict__ iperm, const R *__restrict__ r,
                              Y *__restrict__ y) {
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n;
       p += (int64_t)gridDim.x * blockDim.x)
    y[p] = cconv<Y>(r[iperm ? iperm[p] : p]);
}

template <typename Y, typename O>
__global__ void scatter_kernel(int32_t n, const int32_t *__restrict__ perm, const Y *__restrict__ y,
                               O *__restrict__ z) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    z[i] = cconv<O>(y[perm ? perm[i] : i]);
}

template <typename D, typename V>
__global__ void pointwise_kernel(int32_t n, const D *__restrict__ d, const V *__restrict__ r,
                                 V *__restrict__ z) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    z[i] = cmul(cconv<V>(d[i]), r[i]);
}

int blocks_1d(int32_t n) {
  int64_t b = ((int64_t)n + 255) / 256;
  if (b > 65535) b = 65535;
  return b < 1 ? 1 : (int)b;
}

}  // namespace

extern "C" em_err em_sv_cuda_trsv_level(int32_t t0, int32_t t1, const int64_t *ptr,
                                        const int32_t *col, const void *val, const int32_t *rows,
                                        const void *dinv, void *y, int single, int T,
                                        void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (single) {
    EM_CUDA(launch_level<cuFloatComplex>(t0, t1, ptr, col, val, rows, dinv, y, T, s));
    return EM_OK;
  }
  EM_CUDA(launch_level<cuDoubleComplex>(t0, t1, ptr, col, val, rows, dinv, y, T, s));
  return EM_OK;
}

extern "C" em_err em_sv_cuda_trsv_thin(int32_t l0, int32_t l1, const int32_t *lev,
                                       const int64_t *ptr, const int32_t *col, const void *val,
                                       const int32_t *rows, const void *dinv, void *y, int single,
                                       int T, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (single) {
    EM_CUDA(launch_thin<cuFloatComplex>(l0, l1, lev, ptr, col, val, rows, dinv, y, T, s));
    return EM_OK;
  }
  EM_CUDA(launch_thin<cuDoubleComplex>(l0, l1, lev, ptr, col, val, rows, dinv, y, T, s));
  return EM_OK;
}

extern "C" em_err em_sv_cuda_trsv_syncfree(int32_t n, const int64_t *ptr, const int32_t *col,
                                           const void *val, const int32_t *rows, const void *dinv,
                                           void *y, int single, int *flags, unsigned *ticket,
                                           int *fail, int blocks, void *stream) {
  if (n == 0) return EM_OK;
  cudaStream_t s = (cudaStream_t)stream;
  if (single)
    trsv_syncfree_kernel<cuFloatComplex>
        <<<blocks, SF_THREADS, 0, s>>>(n, ptr, col, (const cuFloatComplex *)val, rows,
                                       (const cuFloatComplex *)dinv, (Z *)y, flags, ticket, fail);
  else
    trsv_syncfree_kernel<cuDoubleComplex>
        <<<blocks, SF_THREADS, 0, s>>>(n, ptr, col, (const cuDoubleComplex *)val, rows,
                                       (const cuDoubleComplex *)dinv, (Z *)y, flags, ticket, fail);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_sv_cuda_syncfree_blocks(int single, int *blocks) {
  int dev = 0, sms = 0, per = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess)
    e = single ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                     &per, trsv_syncfree_kernel<cuFloatComplex>, SF_THREADS, 0)
               : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                     &per, trsv_syncfree_kernel<cuDoubleComplex>, SF_THREADS, 0);
  *blocks = per * sms > 0 ? per * sms : 1;
  EM_CUDA((int)e);
  return EM_OK;
}

extern "C" em_err em_sv_cuda_gather(int32_t n, const int32_t *iperm, const void *r, int r_single,
                                    void *y, int y_single, void *stream) {
  if (n == 0) return EM_OK;
  cudaStream_t s = (cudaStream_t)stream;
  int g = blocks_1d(n);
  if (!r_single && !y_single)
    gather_kernel<<<g, 256, 0, s>>>(n, iperm, (const cuDoubleComplex *)r, (cuDoubleComplex *)y);
  else if (!r_single)
    gather_kernel<<<g, 256, 0, s>>>(n, iperm, (const cuDoubleComplex *)r, (cuFloatComplex *)y);
  else if (!y_single)
    gather_kernel<<<g, 256, 0, s>>>(n, iperm, (const cuFloatComplex *)r, (cuDoubleComplex *)y);
  else
    gather_kernel<<<g, 256, 0, s>>>(n, iperm, (const cuFloatComplex *)r, (cuFloatComplex *)y);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_sv_cuda_scatter(int32_t n, const int32_t *perm, const void *y, int y_single,
                                     void *z, int z_single, void *stream) {
  if (n == 0) return EM_OK;
  cudaStream_t s = (cudaStream_t)stream;
  int g = blocks_1d(n);
  if (!y_single && !z_single)
    scatter_kernel<<<g, 256, 0, s>>>(n, perm, (const cuDoubleComplex *)y, (cuDoubleComplex *)z);
  else if (!y_single)
    scatter_kernel<<<g, 256, 0, s>>>(n, perm, (const cuDoubleComplex *)y, (cuFloatComplex *)z);
  else if (!z_single)
    scatter_kernel<<<g, 256, 0, s>>>(n, perm, (const cuFloatComplex *)y, (cuDoubleComplex *)z);
  else
    scatter_kernel<<<g, 256, 0, s>>>(n, perm, (const cuFloatComplex *)y, (cuFloatComplex *)z);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

extern "C" em_err em_sv_cuda_pointwise(int32_t n, const void *d, int d_single, const void *r,
                                       void *z, int v_single, void *stream) {
  if (n == 0) return EM_OK;
  cudaStream_t s = (cudaStream_t)stream;
  int g = blocks_1d(n);
  if (!d_single && !v_single)
    pointwise_kernel<<<g, 256, 0, s>>>(n, (const cuDoubleComplex *)d, (const cuDoubleComplex *)r,
                                       (cuDoubleComplex *)z);
  else if (!d_single)
    pointwise_kernel<<<g, 256, 0, s>>>(n, (const cuDoubleComplex *)d, (const cuFloatComplex *)r,
                                       (cuFloatComplex *)z);
  else if (!v_single)
    pointwise_kernel<<<g, 256, 0, s>>>(n, (const cuFloatComplex *)d, (const cuDoubleComplex *)r,
                                       (cuDoubleComplex *)z);
  else
    pointwise_kernel<<<g, 256, 0, s>>>(n, (const cuFloatComplex *)d, (const cuFloatComplex *)r,
                                       (cuFloatComplex *)z);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}
