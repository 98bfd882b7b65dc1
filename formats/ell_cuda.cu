/* ell_cuda.cu - SpMV of the ELL-family layout (ell_impl.h) on the GPU:
 * ELL (all slots, column -1 skipped), and ELLR / ELLR-T / sliced ELLR-T (row
 * lengths, T lanes per row, warp-shuffle sum), in complex double and single
 * from one template. */
#include "ell_impl.h"
#include "fmt_cuda.cuh"

/* y_i = sum_k val[q] x[col[q]] (+ y_i) with q = slot(i, k), k = lane + jT.
 * Thread g serves row i = g / T as lane g % T and starts at slot(i, lane);
 * its next slot is S*T further (the layout formula).  The grid strides over
 * the n_rows*T threads; the loop bound is uniform per block, so every lane
 * reaches the shuffle.  EM_FMT_UNROLL columns and values are loaded before
 * the first x gather, to keep that many independent loads in flight. */
template <typename V, int T, bool ROWLEN>
__global__ void __launch_bounds__(EM_FMT_BLOCK, 4)
    ellx_spmv_kernel(int32_t n_rows, int32_t S, int32_t width,
                     const int64_t *__restrict__ slice_ptr, const int32_t *__restrict__ rowlen,
                     const int32_t *__restrict__ col, const V *__restrict__ val,
                     const V *__restrict__ x, V *__restrict__ y, int acc) {
  const int64_t total = (int64_t)n_rows * T;
  const int64_t step = (int64_t)S * T;
  for (int64_t g0 = (int64_t)blockIdx.x * blockDim.x; g0 < total;
       g0 += (int64_t)gridDim.x * blockDim.x) {
    const int64_t g = g0 + threadIdx.x;
    const int32_t lane = (int32_t)(g % T);
    const int32_t i = (int32_t)(g / T);
    V sum = em_czero<V>();
    if (g < total) {
      const int32_t len = ROWLEN ? __ldg(rowlen + i) : width;
      const int32_t cnt = len > lane ? (len - lane + T - 1) / T : 0;
      int64_t q = em_ellx_slot(slice_ptr, S, T, i, lane);
      int32_t j = 0;
      for (; j + EM_FMT_UNROLL <= cnt; j += EM_FMT_UNROLL) {
        int32_t c[EM_FMT_UNROLL];
        V a[EM_FMT_UNROLL];
#pragma unroll
        for (int u = 0; u < EM_FMT_UNROLL; u++) {
          c[u] = em_ld_stream(col + q + u * step);
          a[u] = em_ld_stream(val + q + u * step);
        }
#pragma unroll
        for (int u = 0; u < EM_FMT_UNROLL; u++)
          if (ROWLEN || c[u] >= 0) em_cacc(sum, a[u], em_ldg(x + c[u]));
        q += EM_FMT_UNROLL * step;
      }
      for (; j < cnt; j++, q += step) {
        const int32_t c = em_ld_stream(col + q);
        const V a = em_ld_stream(val + q);
        if (ROWLEN || c >= 0) em_cacc(sum, a, em_ldg(x + c));
      }
    }
    sum = em_row_reduce<T>(sum);
    if (g < total && lane == 0) em_row_store(y, i, sum, acc);
  }
}

template <typename V, int T, bool ROWLEN>
static void ellx_launch(const em_ellx *E, const void *x, void *y, int acc, cudaStream_t st) {
  unsigned blocks = em_fmt_blocks((int64_t)E->n_rows * T, E->grid_cap);
  ellx_spmv_kernel<V, T, ROWLEN>
      <<<blocks, EM_FMT_BLOCK, 0, st>>>(E->n_rows, E->S, E->width, E->slice_ptr, E->rowlen, E->col,
                                        (const V *)E->val, (const V *)x, (V *)y, acc);
}

/* Instantiate the kernel for the layout's T (ELL: T = 1 without lengths). */
template <typename V>
static int ellx_dispatch(const em_ellx *E, const void *x, void *y, int acc, cudaStream_t st) {
  if (!E->rowlen) {
    if (E->T != 1) return 0;
    ellx_launch<V, 1, false>(E, x, y, acc, st);
    return 1;
  }
  switch (E->T) {
    case 1:
      ellx_launch<V, 1, true>(E, x, y, acc, st);
      return 1;
    case 2:
      ellx_launch<V, 2, true>(E, x, y, acc, st);
      return 1;
    case 4:
      ellx_launch<V, 4, true>(E, x, y, acc, st);
      return 1;
    case 8:
      ellx_launch<V, 8, true>(E, x, y, acc, st);
      return 1;
    case 16:
      ellx_launch<V, 16, true>(E, x, y, acc, st);
      return 1;
    case 32:
      ellx_launch<V, 32, true>(E, x, y, acc, st);
      return 1;
    default:
      return 0;
  }
}

/* y (+)= A x on the stream: the kernel of the layout's T and precision. */
static em_err ellx_spmv_cuda(const em_spmat *M, const void *x, void *y, int accumulate,
                             void *stream) {
  const em_ellx *E = (const em_ellx *)M->data;
  if (E->n_rows == 0) return EM_OK;
  EM_CHECK(E->grid_cap > 0, EM_ERR_INTERNAL, "ELL-family SpMV: no launch geometry");
  cudaStream_t st = (cudaStream_t)stream;
  int ok = M->info.prec == EM_PREC_DOUBLE ? ellx_dispatch<double2>(E, x, y, accumulate, st)
                                          : ellx_dispatch<float2>(E, x, y, accumulate, st);
  EM_CHECK(ok, EM_ERR_INTERNAL, "ELL-family SpMV: no kernel for T = %d%s", E->T,
           E->rowlen ? "" : " without row lengths");
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

/* The carveout attribute of one SpMV kernel instance. */
template <typename V, int T, bool ROWLEN>
static cudaError_t ellx_carve(int percent) {
  return cudaFuncSetAttribute(ellx_spmv_kernel<V, T, ROWLEN>,
                              cudaFuncAttributePreferredSharedMemoryCarveout, percent);
}

template <typename V>
static cudaError_t ellx_carve_t(int T, int rowlen, int percent) {
  if (!rowlen) return ellx_carve<V, 1, false>(percent);
  switch (T) {
    case 1:
      return ellx_carve<V, 1, true>(percent);
    case 2:
      return ellx_carve<V, 2, true>(percent);
    case 4:
      return ellx_carve<V, 4, true>(percent);
    case 8:
      return ellx_carve<V, 8, true>(percent);
    case 16:
      return ellx_carve<V, 16, true>(percent);
    default:
      return ellx_carve<V, 32, true>(percent);
  }
}

extern "C" em_err em_ellx_cuda_carveout(em_prec p, int T, int rowlen, int percent) {
  EM_CUDA(p == EM_PREC_DOUBLE ? ellx_carve_t<double2>(T, rowlen, percent)
                              : ellx_carve_t<float2>(T, rowlen, percent));
  return EM_OK;
}

/* The launch geometry of the current GPU. */
static em_err ellx_setup_cuda(em_spmat *M) {
  EM_TRY(em_fmt_cuda_grid_cap(&((em_ellx *)M->data)->grid_cap));
  return EM_OK;
}

/* The SpMV kernel for K vectors: each slot (value, column) loaded once,
 * column j's sum built in exactly the SpMV's order (bit for bit its
 * result), the K sums reduced over the T lanes of the row; IL: x gathered
 * from the interleaved block (em_vecs), the same values. */
template <typename V, int T, bool ROWLEN, int K, bool IL>
__global__ void __launch_bounds__(EM_FMT_BLOCK, 2)
    ellx_spmm_kernel(int32_t n_rows, int32_t S, int32_t width,
                     const int64_t *__restrict__ slice_ptr, const int32_t *__restrict__ rowlen,
                     const int32_t *__restrict__ col, const V *__restrict__ val, em_vecs<V, K> v,
                     int acc) {
  const int64_t total = (int64_t)n_rows * T;
  const int64_t step = (int64_t)S * T;
  for (int64_t g0 = (int64_t)blockIdx.x * blockDim.x; g0 < total;
       g0 += (int64_t)gridDim.x * blockDim.x) {
    const int64_t g = g0 + threadIdx.x;
    const int32_t lane = (int32_t)(g % T);
    const int32_t i = (int32_t)(g / T);
    V sum[K];
#pragma unroll
    for (int j = 0; j < K; j++) sum[j] = em_czero<V>();
    if (g < total) {
      const int32_t len = ROWLEN ? __ldg(rowlen + i) : width;
      const int32_t cnt = len > lane ? (len - lane + T - 1) / T : 0;
      int64_t q = em_ellx_slot(slice_ptr, S, T, i, lane);
      int32_t s = 0;
      for (; s + EM_FMT_UNROLL <= cnt; s += EM_FMT_UNROLL) {
        int32_t c[EM_FMT_UNROLL];
        V a[EM_FMT_UNROLL];
#pragma unroll
        for (int u = 0; u < EM_FMT_UNROLL; u++) {
          c[u] = em_ld_stream(col + q + u * step);
          a[u] = em_ld_stream(val + q + u * step);
        }
#pragma unroll
        for (int u = 0; u < EM_FMT_UNROLL; u++)
          if (ROWLEN || c[u] >= 0) {
#pragma unroll
            for (int j = 0; j < K; j++) em_cacc(sum[j], a[u], em_xget<IL>(v, j, c[u]));
          }
        q += EM_FMT_UNROLL * step;
      }
      for (; s < cnt; s++, q += step) {
        const int32_t c = em_ld_stream(col + q);
        const V a = em_ld_stream(val + q);
        if (ROWLEN || c >= 0) {
#pragma unroll
          for (int j = 0; j < K; j++) em_cacc(sum[j], a, em_xget<IL>(v, j, c));
        }
      }
    }
#pragma unroll
    for (int j = 0; j < K; j++) sum[j] = em_row_reduce<T>(sum[j]);
    if (g < total && lane == 0) {
#pragma unroll
      for (int j = 0; j < K; j++) em_row_store(v.y[j], i, sum[j], acc);
    }
  }
}

template <typename V, int T, bool ROWLEN, int K>
static void ellx_mlaunch(const em_ellx *E, const void *const *x, const void *xi, int ld,
                         void *const *y, int acc, cudaStream_t st) {
  em_vecs<V, K> v;
  for (int j = 0; j < K; j++) {
    v.x[j] = x ? (const V *)x[j] : NULL;
    v.y[j] = (V *)y[j];
  }
  v.xi = (const V *)xi;
  v.ld = ld;
  unsigned blocks = em_fmt_blocks((int64_t)E->n_rows * T, E->grid_cap);
  if (xi)
    ellx_spmm_kernel<V, T, ROWLEN, K, true><<<blocks, EM_FMT_BLOCK, 0, st>>>(
        E->n_rows, E->S, E->width, E->slice_ptr, E->rowlen, E->col, (const V *)E->val, v, acc);
  else
    ellx_spmm_kernel<V, T, ROWLEN, K, false><<<blocks, EM_FMT_BLOCK, 0, st>>>(
        E->n_rows, E->S, E->width, E->slice_ptr, E->rowlen, E->col, (const V *)E->val, v, acc);
}

/* K columns x (or xi, interleaved with stride ld, NULL: the columns). */
template <typename V, int K>
static int ellx_mdispatch(const em_ellx *E, const void *const *x, const void *xi, int ld,
                          void *const *y, int acc, cudaStream_t st) {
  if (!E->rowlen) {
    if (E->T != 1) return 0;
    ellx_mlaunch<V, 1, false, K>(E, x, xi, ld, y, acc, st);
    return 1;
  }
  switch (E->T) {
    case 1:
      ellx_mlaunch<V, 1, true, K>(E, x, xi, ld, y, acc, st);
      return 1;
    case 2:
      ellx_mlaunch<V, 2, true, K>(E, x, xi, ld, y, acc, st);
      return 1;
    case 4:
      ellx_mlaunch<V, 4, true, K>(E, x, xi, ld, y, acc, st);
      return 1;
    case 8:
      ellx_mlaunch<V, 8, true, K>(E, x, xi, ld, y, acc, st);
      return 1;
    case 16:
      ellx_mlaunch<V, 16, true, K>(E, x, xi, ld, y, acc, st);
      return 1;
    case 32:
      ellx_mlaunch<V, 32, true, K>(E, x, xi, ld, y, acc, st);
      return 1;
    default:
      return 0;
  }
}

/* k <= EM_SPMM_GROUP vectors as launches of 8, 4, 3, 2 or 1 (the SpMV on
 * column x[j]); xi (or NULL): the same k columns interleaved (ld = k),
 * read by the launches of 2 or more. */
template <typename V>
static int ellx_mgroups(const em_ellx *E, int k, const void *const *x, const void *xi,
                        void *const *y, int acc, cudaStream_t st) {
  for (int j = 0; j < k;) {
    int w = em_spmm_next(k - j), ok = 0;
    const void *const *xj = x ? x + j : NULL;
    const void *xij = xi ? (const V *)xi + j : NULL;
    if (w == 1)
      ok = ellx_dispatch<V>(E, x[j], y[j], acc, st);
    else if (w == 2)
      ok = ellx_mdispatch<V, 2>(E, xj, xij, k, y + j, acc, st);
    else if (w == 3)
      ok = ellx_mdispatch<V, 3>(E, xj, xij, k, y + j, acc, st);
    else if (w == 4)
      ok = ellx_mdispatch<V, 4>(E, xj, xij, k, y + j, acc, st);
    else
      ok = ellx_mdispatch<V, 8>(E, xj, xij, k, y + j, acc, st);
    if (!ok) return 0;
    j += w;
  }
  return 1;
}

/* y[j] (+)= A x[j]; xi: the x[j] interleaved (or NULL). */
static em_err ellx_spmm_any(const em_spmat *M, int k, const void *const *x, const void *xi,
                            void *const *y, int accumulate, void *stream) {
  const em_ellx *E = (const em_ellx *)M->data;
  if (E->n_rows == 0 || k == 0) return EM_OK;
  EM_CHECK(E->grid_cap > 0, EM_ERR_INTERNAL, "ELL-family SpMM: no launch geometry");
  cudaStream_t st = (cudaStream_t)stream;
  int ok = M->info.prec == EM_PREC_DOUBLE ? ellx_mgroups<double2>(E, k, x, xi, y, accumulate, st)
                                          : ellx_mgroups<float2>(E, k, x, xi, y, accumulate, st);
  EM_CHECK(ok, EM_ERR_INTERNAL, "ELL-family SpMM: no kernel for T = %d%s", E->T,
           E->rowlen ? "" : " without row lengths");
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

static em_err ellx_spmm_cuda(const em_spmat *M, int k, const void *const *x, void *const *y,
                             int accumulate, void *stream) {
  return ellx_spmm_any(M, k, x, NULL, y, accumulate, stream);
}

static em_err ellx_spmm_il_cuda(const em_spmat *M, int k, const void *const *x, const void *xi,
                                void *const *y, int accumulate, void *stream) {
  return ellx_spmm_any(M, k, x, xi, y, accumulate, stream);
}

const em_spmat_ops em_fmt_ellx_cuda = {ellx_setup_cuda, ellx_spmv_cuda, em_ellx_destroy,
                                       ellx_spmm_cuda, ellx_spmm_il_cuda};
