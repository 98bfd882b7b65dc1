/* bitmap_cuda.cu - bitmap SpMV on the GPU: a warp per row, a word per lane.
 * Each lane's values start at vptr[i] plus the set bits of the row's earlier
 * words, an exclusive warp scan of the popcounts; the lane then walks its
 * word's bits.  One template for double2 and float2. */
#include "bitmap_impl.h"
#include "fmt_cuda.cuh"

/* y_i = (acc ? y_i : 0) + sum over the row's set bits of val[p] x[64 w + b]. */
template <typename V>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    bitmap_spmv(int32_t n, const int64_t *__restrict__ wptr, const int32_t *__restrict__ widx,
                const uint64_t *__restrict__ mask, const int64_t *__restrict__ vptr,
                const V *__restrict__ val, const V *__restrict__ x, V *__restrict__ y, int acc) {
  const int lane = threadIdx.x & 31;
  const int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (i >= n) return; /* the whole warp leaves together */
  const int64_t wend = __ldg(wptr + i + 1);
  int64_t voff = __ldg(vptr + i); /* first value of this round's words */
  V s = em_czero<V>();
  for (int64_t wb = __ldg(wptr + i); wb < wend; wb += 32) { /* warp-uniform loop */
    const int64_t w = wb + lane;
    uint64_t m = 0;
    int64_t col0 = 0;
    if (w < wend) {
      m = __ldg(reinterpret_cast<const unsigned long long *>(mask) + w);
      col0 = (int64_t)__ldg(widx + w) * 64;
    }
    const int c = __popcll(m);
    int inc = c; /* inclusive scan of the popcounts */
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int t = __shfl_up_sync(EM_FULL_WARP, inc, d);
      if (lane >= d) inc += t;
    }
    int64_t p = voff + inc - c;
    for (; m; m &= m - 1)
      s = em_cfma(em_ldg(val + p++), em_ldg(x + col0 + __ffsll((long long)m) - 1), s);
    voff += __shfl_sync(EM_FULL_WARP, inc, 31);
  }
  s = em_warp_sum(s);
  if (lane == 0) y[i] = acc ? em_cadd(y[i], s) : s;
}

/* One warp per row; nothing to launch for 0 rows. */
template <typename V>
static em_err bitmap_launch(const em_bitmap *bm, const V *x, V *y, int acc, cudaStream_t st) {
  if (bm->n_rows == 0) return EM_OK;
  bitmap_spmv<V><<<em_grid(bm->n_rows, 32, EM_FMT_BLOCK), EM_FMT_BLOCK, 0, st>>>(
      bm->n_rows, bm->wptr, bm->widx, bm->mask, bm->vptr, (const V *)bm->val, x, y, acc);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

/* Dispatch on the precision. */
static em_err bitmap_spmv_cuda(const em_spmat *M, const void *x, void *y, int accumulate,
                               void *stream) {
  const em_bitmap *bm = (const em_bitmap *)M->data;
  cudaStream_t st = (cudaStream_t)stream;
  if (M->info.prec == EM_PREC_SINGLE)
    EM_TRY(bitmap_launch<float2>(bm, (const float2 *)x, (float2 *)y, accumulate, st));
  else
    EM_TRY(bitmap_launch<double2>(bm, (const double2 *)x, (double2 *)y, accumulate, st));
  return EM_OK;
}

/* A warp per row: reported as T = 32. */
static em_err bitmap_setup_cuda(em_spmat *M) {
  M->info.threads_per_row = 32;
  return EM_OK;
}

const em_spmat_ops em_fmt_bitmap_cuda = {bitmap_setup_cuda, bitmap_spmv_cuda, em_bitmap_destroy,
                                         NULL, NULL};
