/* hyb_cuda.cu - HYB / HEC SpMV on the GPU: the ELL part (thread per row,
 * coalesced column-major slots; T lanes per row on long rows), then the tail
 * on the same stream: the COO tail by a deterministic segmented reduction
 * over chunks (warp per chunk, then one thread per boundary row), the HEC
 * tail by TT lanes per row.
 * One template per kernel for double2 and float2. */
#include "fmt_cuda.cuh"
#include "hyb_impl.h"

/* y_i = (acc ? y_i : 0) + sum_{k < len_i} val[k pitch + i] x[col[k pitch + i]],
 * T lanes per row: lane t takes the slots k = t, t + T, ...; the 32 / T
 * rows of a warp are consecutive, so each load of the warp reads T runs of
 * 32 / T consecutive slots (full 32-byte sectors up to T = 8).  The matrix
 * streams load evict-first, EM_FMT_UNROLL slots before the first x gather
 * (as the ELL family's kernel); the T partial sums are added by shuffles,
 * so every thread of the grid (n T, in whole blocks) reaches them. */
template <typename V, int T>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    hyb_ell_spmv(int32_t n, int64_t pitch, const int32_t *__restrict__ len,
                 const int32_t *__restrict__ col, const V *__restrict__ val,
                 const V *__restrict__ x, V *__restrict__ y, int acc) {
  const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t i = g / T;
  const int32_t lane = (int32_t)(g % T);
  V s = em_czero<V>();
  if (i < n) {
    const int32_t L = __ldg(len + i);
    int32_t k = lane;
    for (; k + (EM_FMT_UNROLL - 1) * T < L; k += EM_FMT_UNROLL * T) {
      int32_t c[EM_FMT_UNROLL];
      V a[EM_FMT_UNROLL];
#pragma unroll
      for (int u = 0; u < EM_FMT_UNROLL; u++) {
        const int64_t p = (int64_t)(k + u * T) * pitch + i;
        c[u] = em_ld_stream(col + p);
        a[u] = em_ld_stream(val + p);
      }
#pragma unroll
      for (int u = 0; u < EM_FMT_UNROLL; u++) s = em_cfma(a[u], em_ldg(x + c[u]), s);
    }
    for (; k < L; k += T) {
      const int64_t p = (int64_t)k * pitch + i;
      s = em_cfma(em_ld_stream(val + p), em_ldg(x + em_ld_stream(col + p)), s);
    }
  }
  s = em_row_reduce<T>(s);
  if (i < n && lane == 0) em_row_store(y, (int32_t)i, s, acc);
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

/* HEC tail: TT lanes per overflowing row (TT = 4 .. 32, a power of two),
 * row q = g / TT of the tail list; the lanes stride over its entries and
 * their sums are added by shuffles in a fixed order; lane 0 adds the row's
 * sum to y.  The grid holds whole blocks, every lane reaches the shuffles. */
template <typename V, int TT>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    hec_tail_spmv(int32_t n_rem, const int32_t *__restrict__ rem_row,
                  const int64_t *__restrict__ rem_ptr, const int32_t *__restrict__ col,
                  const V *__restrict__ val, const V *__restrict__ x, V *__restrict__ y) {
  const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t q = g / TT;
  const int lane = (int)(g % TT);
  V s = em_czero<V>();
  if (q < n_rem) {
    const int64_t e = __ldg(rem_ptr + q + 1);
    for (int64_t k = __ldg(rem_ptr + q) + lane; k < e; k += TT)
      s = em_cfma(em_ld_stream(val + k), em_ldg(x + em_ld_stream(col + k)), s);
  }
  s = em_row_reduce<TT>(s);
  if (q < n_rem && lane == 0) {
    const int32_t r = __ldg(rem_row + q);
    y[r] = em_cadd(y[r], s);
  }
}

/* The ELL kernel of the layout's T. */
template <typename V>
static void hyb_ell_launch(const em_hyb *H, const V *x, V *y, int acc, cudaStream_t st) {
  const unsigned b = em_grid(H->n_rows, H->T, EM_FMT_BLOCK);
  const int32_t n = H->n_rows;
  const int64_t pt = H->pitch;
  const V *v = (const V *)H->ell_val;
  switch (H->T) {
    case 1:
      hyb_ell_spmv<V, 1><<<b, EM_FMT_BLOCK, 0, st>>>(n, pt, H->ell_len, H->ell_col, v, x, y, acc);
      break;
    case 2:
      hyb_ell_spmv<V, 2><<<b, EM_FMT_BLOCK, 0, st>>>(n, pt, H->ell_len, H->ell_col, v, x, y, acc);
      break;
    case 4:
      hyb_ell_spmv<V, 4><<<b, EM_FMT_BLOCK, 0, st>>>(n, pt, H->ell_len, H->ell_col, v, x, y, acc);
      break;
    default:
      hyb_ell_spmv<V, 8><<<b, EM_FMT_BLOCK, 0, st>>>(n, pt, H->ell_len, H->ell_col, v, x, y, acc);
  }
}

/* The HEC tail kernel of the layout's TT. */
template <typename V>
static void hec_tail_launch(const em_hyb *H, const V *x, V *y, cudaStream_t st) {
  const unsigned b = em_grid(H->n_rem, H->TT, EM_FMT_BLOCK);
  const V *v = (const V *)H->rem_val;
  switch (H->TT) {
    case 4:
      hec_tail_spmv<V, 4>
          <<<b, EM_FMT_BLOCK, 0, st>>>(H->n_rem, H->rem_row, H->rem_ptr, H->rem_col, v, x, y);
      break;
    case 8:
      hec_tail_spmv<V, 8>
          <<<b, EM_FMT_BLOCK, 0, st>>>(H->n_rem, H->rem_row, H->rem_ptr, H->rem_col, v, x, y);
      break;
    case 16:
      hec_tail_spmv<V, 16>
          <<<b, EM_FMT_BLOCK, 0, st>>>(H->n_rem, H->rem_row, H->rem_ptr, H->rem_col, v, x, y);
      break;
    default:
      hec_tail_spmv<V, 32>
          <<<b, EM_FMT_BLOCK, 0, st>>>(H->n_rem, H->rem_row, H->rem_ptr, H->rem_col, v, x, y);
  }
}

/* The launches, in stream order: ELL (writes or accumulates every row),
 * then the tail kernels (add to y). */
template <typename V>
static em_err hyb_launch(const em_hyb *H, const V *x, V *y, int acc, cudaStream_t st) {
  if (H->n_rows > 0 && (!acc || H->K > 0)) {
    hyb_ell_launch<V>(H, x, y, acc, st);
    EM_CUDA_LAUNCHED();
  }
  if (H->tail_nnz == 0) return EM_OK;
  if (H->hec) {
    hec_tail_launch<V>(H, x, y, st);
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

const em_spmat_ops em_fmt_hyb_cuda = {NULL, hyb_spmv_cuda, em_hyb_destroy, NULL, NULL};
