/* interleave_cuda.cu - k columns into one interleaved block on the GPU,
 * xi[c k + j] = x[j][c] (the input of the interleaved SpMM kernels, which
 * then gather an entry's k values from one or two 32-byte sectors). */
#include "fmt_cuda.cuh"

/* Thread t writes xi[t] = x[t % K][t / K]: the writes of a warp are
 * consecutive, its reads K runs of 32 / K consecutive entries. */
template <typename V, int K>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    interleave_kernel(int64_t total, em_vecs<V, K> v, V *__restrict__ xi) {
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (int64_t)gridDim.x * blockDim.x)
    xi[t] = __ldg(v.x[t % K] + t / K);
}

template <typename V, int K>
static void interleave_launch(int32_t n, const void *const *x, void *xi, cudaStream_t st) {
  em_vecs<V, K> v = {};
  for (int j = 0; j < K; j++) v.x[j] = (const V *)x[j];
  const int64_t total = (int64_t)n * K;
  int64_t b = (total + EM_FMT_BLOCK - 1) / EM_FMT_BLOCK;
  if (b > 65535) b = 65535; /* the grid-stride loop covers the rest */
  interleave_kernel<V, K><<<(unsigned)b, EM_FMT_BLOCK, 0, st>>>(total, v, (V *)xi);
}

template <typename V>
static int interleave_k(int32_t n, int k, const void *const *x, void *xi, cudaStream_t st) {
  switch (k) {
    case 1:
      interleave_launch<V, 1>(n, x, xi, st);
      return 1;
    case 2:
      interleave_launch<V, 2>(n, x, xi, st);
      return 1;
    case 3:
      interleave_launch<V, 3>(n, x, xi, st);
      return 1;
    case 4:
      interleave_launch<V, 4>(n, x, xi, st);
      return 1;
    case 5:
      interleave_launch<V, 5>(n, x, xi, st);
      return 1;
    case 6:
      interleave_launch<V, 6>(n, x, xi, st);
      return 1;
    case 7:
      interleave_launch<V, 7>(n, x, xi, st);
      return 1;
    case 8:
      interleave_launch<V, 8>(n, x, xi, st);
      return 1;
    default:
      return 0;
  }
}

extern "C" em_err em_fmt_cuda_interleave(em_prec p, int32_t n, int k, const void *const *x,
                                         void *xi, void *stream) {
  if (n == 0) return EM_OK;
  cudaStream_t st = (cudaStream_t)stream;
  int ok = p == EM_PREC_DOUBLE ? interleave_k<double2>(n, k, x, xi, st)
                               : interleave_k<float2>(n, k, x, xi, st);
  EM_CHECK(ok, EM_ERR_INTERNAL, "interleave: %d columns (1..%d)", k, EM_SPMM_GROUP);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}
