/* csr_cuda.cu - CSR SpMV on the GPU: T lanes per row (T = 1 is the scalar
 * kernel, one thread per row), warp-shuffle sum, complex double and single
 * from one template. */
#include "csr_impl.h"
#include "fmt_cuda.cuh"

/* y_i = sum_{k in row i} val[k] x[colind[k]] (+ y_i).  Lane l of row i
 * reads entries rowptr[i] + l, + l + T, ...: the T lanes of a row read T
 * consecutive entries at a time.  Grid-stride over n_rows*T threads with a
 * block-uniform loop bound, so every lane reaches the shuffle. */
template <typename V, int T>
__global__ void __launch_bounds__(EM_FMT_BLOCK, 4)
    csr_spmv_kernel(int32_t n_rows, const int64_t *__restrict__ rowptr,
                    const int32_t *__restrict__ colind, const V *__restrict__ val,
                    const V *__restrict__ x, V *__restrict__ y, int acc) {
  const int64_t total = (int64_t)n_rows * T;
  for (int64_t g0 = (int64_t)blockIdx.x * blockDim.x; g0 < total;
       g0 += (int64_t)gridDim.x * blockDim.x) {
    const int64_t g = g0 + threadIdx.x;
    const int32_t lane = (int32_t)(g % T);
    const int32_t i = (int32_t)(g / T);
    V sum = em_czero<V>();
    if (g < total) {
      const int64_t end = __ldg(rowptr + i + 1);
      int64_t k = __ldg(rowptr + i) + lane;
      for (; k + (EM_FMT_UNROLL - 1) * T < end; k += EM_FMT_UNROLL * T) {
        int32_t c[EM_FMT_UNROLL];
        V a[EM_FMT_UNROLL];
#pragma unroll
        for (int u = 0; u < EM_FMT_UNROLL; u++) {
          c[u] = em_ld_stream(colind + k + u * T);
          a[u] = em_ld_stream(val + k + u * T);
        }
#pragma unroll
        for (int u = 0; u < EM_FMT_UNROLL; u++) em_cacc(sum, a[u], em_ldg(x + c[u]));
      }
      for (; k < end; k += T)
        em_cacc(sum, em_ld_stream(val + k), em_ldg(x + em_ld_stream(colind + k)));
    }
    sum = em_row_reduce<T>(sum);
    if (g < total && lane == 0) em_row_store(y, i, sum, acc);
  }
}

template <typename V, int T>
static void csr_launch(const em_csrx *A, int32_t n, const void *x, void *y, int acc,
                       cudaStream_t st) {
  unsigned blocks = em_fmt_blocks((int64_t)n * T, A->grid_cap);
  csr_spmv_kernel<V, T><<<blocks, EM_FMT_BLOCK, 0, st>>>(n, A->rowptr, A->colind, (const V *)A->val,
                                                         (const V *)x, (V *)y, acc);
}

template <typename V>
static int csr_dispatch(const em_csrx *A, int32_t n, const void *x, void *y, int acc,
                        cudaStream_t st) {
  switch (A->T) {
    case 1:
      csr_launch<V, 1>(A, n, x, y, acc, st);
      return 1;
    case 2:
      csr_launch<V, 2>(A, n, x, y, acc, st);
      return 1;
    case 4:
      csr_launch<V, 4>(A, n, x, y, acc, st);
      return 1;
    case 8:
      csr_launch<V, 8>(A, n, x, y, acc, st);
      return 1;
    case 16:
      csr_launch<V, 16>(A, n, x, y, acc, st);
      return 1;
    case 32:
      csr_launch<V, 32>(A, n, x, y, acc, st);
      return 1;
    default:
      return 0;
  }
}

/* y (+)= A x on the stream: T lanes per row, the precision's kernel. */
static em_err csr_spmv_cuda(const em_spmat *M, const void *x, void *y, int accumulate,
                            void *stream) {
  const em_csrx *A = (const em_csrx *)M->data;
  int32_t n_rows = M->info.n_rows;
  if (n_rows == 0) return EM_OK;
  EM_CHECK(A->grid_cap > 0, EM_ERR_INTERNAL, "CSR SpMV: no launch geometry");
  cudaStream_t st = (cudaStream_t)stream;
  int ok = M->info.prec == EM_PREC_DOUBLE ? csr_dispatch<double2>(A, n_rows, x, y, accumulate, st)
                                          : csr_dispatch<float2>(A, n_rows, x, y, accumulate, st);
  EM_CHECK(ok, EM_ERR_INTERNAL, "CSR SpMV: no kernel for T = %d", A->T);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

/* The launch geometry of the current GPU. */
static em_err csr_setup_cuda(em_spmat *M) {
  EM_TRY(em_fmt_cuda_grid_cap(&((em_csrx *)M->data)->grid_cap));
  return EM_OK;
}

/* The SpMV kernel for K vectors: each entry (value, column) loaded once,
 * column j's sum built in exactly the SpMV's order (so bit for bit its
 * result), the K sums reduced over the T lanes of the row; IL: x gathered
 * from the interleaved block (em_vecs), the same values. */
template <typename V, int T, int K, bool IL>
__global__ void __launch_bounds__(EM_FMT_BLOCK, 2)
    csr_spmm_kernel(int32_t n_rows, const int64_t *__restrict__ rowptr,
                    const int32_t *__restrict__ colind, const V *__restrict__ val, em_vecs<V, K> v,
                    int acc) {
  const int64_t total = (int64_t)n_rows * T;
  for (int64_t g0 = (int64_t)blockIdx.x * blockDim.x; g0 < total;
       g0 += (int64_t)gridDim.x * blockDim.x) {
    const int64_t g = g0 + threadIdx.x;
    const int32_t lane = (int32_t)(g % T);
    const int32_t i = (int32_t)(g / T);
    V sum[K];
#pragma unroll
    for (int j = 0; j < K; j++) sum[j] = em_czero<V>();
    if (g < total) {
      const int64_t end = __ldg(rowptr + i + 1);
      int64_t k = __ldg(rowptr + i) + lane;
      for (; k + (EM_FMT_UNROLL - 1) * T < end; k += EM_FMT_UNROLL * T) {
        int32_t c[EM_FMT_UNROLL];
        V a[EM_FMT_UNROLL];
#pragma unroll
        for (int u = 0; u < EM_FMT_UNROLL; u++) {
          c[u] = em_ld_stream(colind + k + u * T);
          a[u] = em_ld_stream(val + k + u * T);
        }
#pragma unroll
        for (int u = 0; u < EM_FMT_UNROLL; u++)
#pragma unroll
          for (int j = 0; j < K; j++) em_cacc(sum[j], a[u], em_xget<IL>(v, j, c[u]));
      }
      for (; k < end; k += T) {
        const V a = em_ld_stream(val + k);
        const int32_t c = em_ld_stream(colind + k);
#pragma unroll
        for (int j = 0; j < K; j++) em_cacc(sum[j], a, em_xget<IL>(v, j, c));
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

template <typename V, int T, int K>
static void csr_mlaunch(const em_csrx *A, int32_t n, const void *const *x, const void *xi, int ld,
                        void *const *y, int acc, cudaStream_t st) {
  em_vecs<V, K> v;
  for (int j = 0; j < K; j++) {
    v.x[j] = x ? (const V *)x[j] : NULL;
    v.y[j] = (V *)y[j];
  }
  v.xi = (const V *)xi;
  v.ld = ld;
  unsigned blocks = em_fmt_blocks((int64_t)n * T, A->grid_cap);
  if (xi)
    csr_spmm_kernel<V, T, K, true>
        <<<blocks, EM_FMT_BLOCK, 0, st>>>(n, A->rowptr, A->colind, (const V *)A->val, v, acc);
  else
    csr_spmm_kernel<V, T, K, false>
        <<<blocks, EM_FMT_BLOCK, 0, st>>>(n, A->rowptr, A->colind, (const V *)A->val, v, acc);
}

/* K columns x (or xi, interleaved with stride ld, NULL: the columns). */
template <typename V, int K>
static int csr_mdispatch(const em_csrx *A, int32_t n, const void *const *x, const void *xi, int ld,
                         void *const *y, int acc, cudaStream_t st) {
  switch (A->T) {
    case 1:
      csr_mlaunch<V, 1, K>(A, n, x, xi, ld, y, acc, st);
      return 1;
    case 2:
      csr_mlaunch<V, 2, K>(A, n, x, xi, ld, y, acc, st);
      return 1;
    case 4:
      csr_mlaunch<V, 4, K>(A, n, x, xi, ld, y, acc, st);
      return 1;
    case 8:
      csr_mlaunch<V, 8, K>(A, n, x, xi, ld, y, acc, st);
      return 1;
    case 16:
      csr_mlaunch<V, 16, K>(A, n, x, xi, ld, y, acc, st);
      return 1;
    case 32:
      csr_mlaunch<V, 32, K>(A, n, x, xi, ld, y, acc, st);
      return 1;
    default:
      return 0;
  }
}

/* k <= EM_SPMM_GROUP vectors as launches of 8, 4, 3, 2 or 1 (the SpMV on
 * column x[j]); xi (or NULL): the same k columns interleaved (ld = k),
 * read by the launches of 2 or more. */
template <typename V>
static int csr_mgroups(const em_csrx *A, int32_t n, int k, const void *const *x, const void *xi,
                       void *const *y, int acc, cudaStream_t st) {
  for (int j = 0; j < k;) {
    int w = em_spmm_next(k - j), ok = 0;
    const void *const *xj = x ? x + j : NULL;
    const void *xij = xi ? (const V *)xi + j : NULL;
    if (w == 1)
      ok = csr_dispatch<V>(A, n, x[j], y[j], acc, st);
    else if (w == 2)
      ok = csr_mdispatch<V, 2>(A, n, xj, xij, k, y + j, acc, st);
    else if (w == 3)
      ok = csr_mdispatch<V, 3>(A, n, xj, xij, k, y + j, acc, st);
    else if (w == 4)
      ok = csr_mdispatch<V, 4>(A, n, xj, xij, k, y + j, acc, st);
    else
      ok = csr_mdispatch<V, 8>(A, n, xj, xij, k, y + j, acc, st);
    if (!ok) return 0;
    j += w;
  }
  return 1;
}

/* y[j] (+)= A x[j]; xi: the x[j] interleaved (or NULL). */
static em_err csr_spmm_any(const em_spmat *M, int k, const void *const *x, const void *xi,
                           void *const *y, int accumulate, void *stream) {
  const em_csrx *A = (const em_csrx *)M->data;
  int32_t n_rows = M->info.n_rows;
  if (n_rows == 0 || k == 0) return EM_OK;
  EM_CHECK(A->grid_cap > 0, EM_ERR_INTERNAL, "CSR SpMM: no launch geometry");
  cudaStream_t st = (cudaStream_t)stream;
  int ok = M->info.prec == EM_PREC_DOUBLE
               ? csr_mgroups<double2>(A, n_rows, k, x, xi, y, accumulate, st)
               : csr_mgroups<float2>(A, n_rows, k, x, xi, y, accumulate, st);
  EM_CHECK(ok, EM_ERR_INTERNAL, "CSR SpMM: no kernel for T = %d", A->T);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

static em_err csr_spmm_cuda(const em_spmat *M, int k, const void *const *x, void *const *y,
                            int accumulate, void *stream) {
  return csr_spmm_any(M, k, x, NULL, y, accumulate, stream);
}

static em_err csr_spmm_il_cuda(const em_spmat *M, int k, const void *const *x, const void *xi,
                               void *const *y, int accumulate, void *stream) {
  return csr_spmm_any(M, k, x, xi, y, accumulate, stream);
}

const em_spmat_ops em_fmt_csr_cuda = {csr_setup_cuda, csr_spmv_cuda, em_csrx_destroy, csr_spmm_cuda,
                                      csr_spmm_il_cuda};
