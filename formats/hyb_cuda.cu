/* hyb_cuda.cu - HYB / HEC SpMV on the GPU: the ELL part (thread per row,
 * coalesced column-major slots), then the tail on the same stream: the COO
 * tail by a deterministic segmented reduction over chunks (warp per chunk,
 * then one thread per boundary row), the HEC tail by a warp per row.
 * One template per kernel for double2 and float2. */
#include "fmt_cuda.cuh"
#include "hyb_impl.h"

/* y_i = (acc ? y_i : 0) + sum_{k < len_i} val[k pitch + i] x[col[k pitch + i]];
 * consecutive threads read consecutive slots of each ELL column. */
template <typename V>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    hyb_ell_spmv(int32_t n, int64_t pitch, const int32_t *__restrict__ len,
                 const int32_t *__restrict__ col, const V *__restrict__ val,
                 const V *__restrict__ x, V *__restrict__ y, int acc) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  V s = acc ? y[i] : em_czero<V>();
  const int32_t L = __ldg(len + i);
#pragma unroll 4
  for (int32_t k = 0; k < L; k++) {
    const int64_t p = (int64_t)k * pitch + i;
    s = em_cfma(em_ldg(val + p), em_ldg(x + __ldg(col + p)), s);
  }
  y[i] = s;
}

/* COO tail, pass 1: warp w sums entries [256 w, 256 w + 256) in 8 rounds of
 * 32.  Each round: products, segmented inclusive scan by row across the
 * lanes (rows are sorted, so equal rows are contiguous), the carry of the
 * previous round added to the lanes of its row.  The lane that ends a row's
 * run writes: nothing when the row goes on in the next round (it becomes the
 * carry); carry[2w] for the chunk's first row, carry[2w+1] for its last;
 * y[r] += sum for a row inside the chunk (no other warp touches it). */
template <typename V>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    hyb_coo_chunks(int64_t nnz, int64_t n_chunk, const int32_t *__restrict__ row,
                   const int32_t *__restrict__ col, const V *__restrict__ val,
                   const V *__restrict__ x, V *__restrict__ y, V *__restrict__ carry) {
  const int lane = threadIdx.x & 31;
  const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (w >= n_chunk) return; /* the whole warp leaves together */
  const int64_t begin = w * EM_HYB_CHUNK;
  const int64_t end = nnz - begin < EM_HYB_CHUNK ? nnz : begin + EM_HYB_CHUNK;
  const int32_t fr = __ldg(row + begin), lr = __ldg(row + end - 1);
  if (lane == 0 && fr == lr) carry[2 * w + 1] = em_czero<V>();
  int32_t crow = -1; /* row carried into this round, -1: none */
  V cval = em_czero<V>();
  for (int64_t base = begin; base < end; base += 32) { /* warp-uniform loop */
    const int64_t k = base + lane;
    const bool valid = k < end;
    const int32_t r = valid ? __ldg(row + k) : -1;
    V p =
        valid ? em_cfma(em_ldg(val + k), em_ldg(x + __ldg(col + k)), em_czero<V>()) : em_czero<V>();
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int32_t rd = __shfl_up_sync(EM_FULL_WARP, r, d);
      const V pd = em_shfl_up(p, d);
      if (lane >= d && rd == r) p = em_cadd(p, pd);
    }
    if (valid && r == crow) p = em_cadd(p, cval);
    const int32_t rn = __shfl_down_sync(EM_FULL_WARP, r, 1);
    const int32_t next = base + 32 < end ? __ldg(row + base + 32) : -1;
    const int32_t r31 = __shfl_sync(EM_FULL_WARP, r, 31);
    const V p31 = em_shfl(p, 31);
    if (valid && (lane == 31 || rn != r) && !(lane == 31 && r == next)) {
      if (r == fr)
        carry[2 * w] = p;
      else if (r == lr)
        carry[2 * w + 1] = p;
      else
        y[r] = em_cadd(y[r], p);
    }
    if (next >= 0 && r31 == next) {
      crow = r31;
      cval = p31;
    } else {
      crow = -1;
      cval = em_czero<V>();
    }
  }
}

/* COO tail, pass 2: boundary row b adds its carry slots in order. */
template <typename V>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    hyb_coo_boundaries(int64_t n_bnd, const int32_t *__restrict__ bnd_row,
                       const int64_t *__restrict__ bnd_ptr, const V *__restrict__ carry,
                       V *__restrict__ y) {
  const int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= n_bnd) return;
  V s = em_czero<V>();
  for (int64_t p = bnd_ptr[b]; p < bnd_ptr[b + 1]; p++) s = em_cadd(s, carry[p]);
  const int32_t r = bnd_row[b];
  y[r] = em_cadd(y[r], s);
}

/* HEC tail: warp q sums row rem_row[q]'s tail, lane 0 adds it to y. */
template <typename V>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    hec_tail_spmv(int32_t n_rem, const int32_t *__restrict__ rem_row,
                  const int64_t *__restrict__ rem_ptr, const int32_t *__restrict__ col,
                  const V *__restrict__ val, const V *__restrict__ x, V *__restrict__ y) {
  const int lane = threadIdx.x & 31;
  const int64_t q = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (q >= n_rem) return; /* the whole warp leaves together */
  V s = em_czero<V>();
  const int64_t e = __ldg(rem_ptr + q + 1);
  for (int64_t k = __ldg(rem_ptr + q) + lane; k < e; k += 32)
    s = em_cfma(em_ldg(val + k), em_ldg(x + __ldg(col + k)), s);
  s = em_warp_sum(s);
  if (lane == 0) {
    const int32_t r = __ldg(rem_row + q);
    y[r] = em_cadd(y[r], s);
  }
}

/* The launches, in stream order: ELL (writes or accumulates every row),
 * then the tail kernels (add to y). */
template <typename V>
static em_err hyb_launch(const em_hyb *H, const V *x, V *y, int acc, cudaStream_t st) {
  if (H->n_rows > 0 && (!acc || H->K > 0)) {
    hyb_ell_spmv<V><<<em_grid(H->n_rows, 1, EM_FMT_BLOCK), EM_FMT_BLOCK, 0, st>>>(
        H->n_rows, H->pitch, H->ell_len, H->ell_col, (const V *)H->ell_val, x, y, acc);
    EM_CUDA_LAUNCHED();
  }
  if (H->tail_nnz == 0) return EM_OK;
  if (H->hec) {
    hec_tail_spmv<V><<<em_grid(H->n_rem, 32, EM_FMT_BLOCK), EM_FMT_BLOCK, 0, st>>>(
        H->n_rem, H->rem_row, H->rem_ptr, H->rem_col, (const V *)H->rem_val, x, y);
    EM_CUDA_LAUNCHED();
    return EM_OK;
  }
  hyb_coo_chunks<V><<<em_grid(H->n_chunk, 32, EM_FMT_BLOCK), EM_FMT_BLOCK, 0, st>>>(
      H->tail_nnz, H->n_chunk, H->coo_row, H->coo_col, (const V *)H->coo_val, x, y, (V *)H->carry);
  EM_CUDA_LAUNCHED();
  hyb_coo_boundaries<V><<<em_grid(H->n_bnd, 1, EM_FMT_BLOCK), EM_FMT_BLOCK, 0, st>>>(
      H->n_bnd, H->bnd_row, H->bnd_ptr, (const V *)H->carry, y);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

/* Dispatch on the precision. */
static em_err hyb_spmv_cuda(const em_spmat *M, const void *x, void *y, int accumulate,
                            void *stream) {
  const em_hyb *H = (const em_hyb *)M->data;
  cudaStream_t st = (cudaStream_t)stream;
  if (M->info.prec == EM_PREC_SINGLE)
    EM_TRY(hyb_launch<float2>(H, (const float2 *)x, (float2 *)y, accumulate, st));
  else
    EM_TRY(hyb_launch<double2>(H, (const double2 *)x, (double2 *)y, accumulate, st));
  return EM_OK;
}

const em_spmat_ops em_fmt_hyb_cuda = {NULL, hyb_spmv_cuda, em_hyb_destroy, NULL};
