/* gf2_cuda.cu - Gaussian elimination over GF(2) on the GPU, one bit per
 * element in 32-bit words.  Per column c, two kernels:
 *
 *   pivot: one block searches rows r, r+1, ... (in the current row order
 *          perm) 1024 at a time; each thread that reads a 1 in column c
 *          takes atomicMin on a shared-memory cell, and when the cell stays
 *          empty the block tries the next 1024 rows.  The first such row is
 *          swapped (in perm) into position r;
 *   elim:  a warp per row with a 1 in column c XORs the pivot row into it,
 *          one XOR per word from word c / 32 on (the pivot row is zero to
 *          the left).  Rows above r are left alone unless reduced.
 *
 * The study of issue 31 (seed 003, gf2_bench --sparse) varies the threads
 * of both kernels; a search of one thread is the serial pivot search (rows
 * read one after the other), the baseline of the parallel one.
 *
 * The rows never move in memory: perm is the row order, applied once when
 * the result is copied back.  Same rule as the CPU reference (gf2.c), so
 * the echelon forms agree bit for bit. */
#include <cuda_runtime.h>

#include <climits>
#include <cstring>

#include "em_linalg.h"

#define GF2_SEARCH 1024 /* default threads of the pivot search */
#define GF2_ELIM 256    /* default threads per block of the elimination */
#define GF2_SEARCH_MAX 1024

struct gf2_state {
  int r;   /* rows eliminated so far (the rank) */
  int piv; /* physical row of this column's pivot, -1: none */
};

__global__ void __launch_bounds__(GF2_SEARCH_MAX)
    gf2_pivot(int rows, int W, int c, const uint32_t *__restrict__ w, int *__restrict__ perm,
              unsigned char *__restrict__ used, int *__restrict__ pivcol, gf2_state *st) {
  __shared__ int cell;
  const int r = st->r;
  if (threadIdx.x == 0) cell = INT_MAX;
  __syncthreads();
  const uint32_t bit = 1u << (c % 32);
  for (int base = r; base < rows; base += blockDim.x) {
    const int i = base + (int)threadIdx.x;
    if (i < rows && (w[(int64_t)perm[i] * W + c / 32] & bit)) atomicMin(&cell, i);
    __syncthreads();
    const int found = cell != INT_MAX;
    __syncthreads(); /* every thread has read cell before the next round */
    if (found) break;
  }
  if (threadIdx.x != 0) return;
  if (cell == INT_MAX) {
    st->piv = -1;
    return;
  }
  const int p = perm[cell];
  perm[cell] = perm[r];
  perm[r] = p;
  used[p] = 1;
  pivcol[r] = c;
  st->piv = p;
  st->r = r + 1;
}

/* row_i ^= row_piv over words c/32 .. W-1 for every row i != piv with a 1
 * in column c (and not an earlier pivot row unless reduced). */
__global__ void __launch_bounds__(GF2_SEARCH_MAX)
    gf2_elim(int rows, int W, int c, int reduced, uint32_t *__restrict__ w,
             const unsigned char *__restrict__ used, const gf2_state *st) {
  const int lane = threadIdx.x & 31;
  const int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int piv = st->piv;
  if (i >= rows || piv < 0 || i == piv || (!reduced && used[i])) return;
  uint32_t *q = w + i * W;
  const int w0 = c / 32;
  const uint32_t head = __shfl_sync(0xffffffffu, lane == 0 ? q[w0] : 0u, 0);
  if (!(head & (1u << (c % 32)))) return;
  const uint32_t *p = w + (int64_t)piv * W;
  for (int k = w0 + lane; k < W; k += 32) q[k] ^= p[k];
}

#define GF2_TRY(call, what)                                                \
  do {                                                                     \
    if (!err) err = em_cuda_status((int)(call), what, __FILE__, __LINE__); \
  } while (0)

extern "C" em_err em_gf2_echelon_cuda(em_gf2 *A, int reduced, int32_t *rank, int32_t *pivcol,
                                      double *ms) {
  return em_gf2_echelon_cuda_opts(A, reduced, rank, pivcol, ms, GF2_SEARCH, GF2_ELIM);
}

extern "C" em_err em_gf2_echelon_cuda_opts(em_gf2 *A, int reduced, int32_t *rank, int32_t *pivcol,
                                           double *ms, int search_threads, int elim_threads) {
  EM_CHECK(A && rank, EM_ERR_ARG, "GF(2) echelon on the GPU: NULL matrix or rank");
  EM_CHECK(search_threads >= 1 && search_threads <= GF2_SEARCH_MAX && elim_threads >= 32 &&
               elim_threads <= GF2_SEARCH_MAX && elim_threads % 32 == 0,
           EM_ERR_ARG, "GF(2) echelon on the GPU: %d search and %d elimination threads",
           search_threads, elim_threads);
  const int rows = A->n_rows, W = A->words;
  const size_t bytes = (size_t)rows * (size_t)W * sizeof(uint32_t);
  *rank = 0;
  if (ms) *ms = 0;
  if (rows == 0 || A->n_cols == 0) return EM_OK;
  uint32_t *w = NULL;
  int *perm = NULL, *pc = NULL, *hperm = NULL;
  unsigned char *used = NULL;
  gf2_state *st = NULL, hst = {0, -1};
  cudaEvent_t ev[2] = {NULL, NULL};
  em_err err = em_calloc(&hperm, (size_t)rows, sizeof *hperm, "GF(2) row order");
  for (int i = 0; !err && i < rows; i++) hperm[i] = i;
  if (!err) err = em_dev_alloc((void **)&w, A->w, bytes, NULL, "GF(2) matrix");
  if (!err) err = em_dev_alloc((void **)&perm, hperm, rows * sizeof(int), NULL, "GF(2) row order");
  if (!err) err = em_dev_alloc((void **)&pc, NULL, rows * sizeof(int), NULL, "GF(2) pivot columns");
  if (!err) err = em_dev_alloc((void **)&used, NULL, (size_t)rows, NULL, "GF(2) pivot rows");
  if (!err) err = em_dev_alloc((void **)&st, NULL, sizeof *st, NULL, "GF(2) state");
  GF2_TRY(cudaMemset(used, 0, (size_t)rows), "cudaMemset(GF(2) pivot rows)");
  GF2_TRY(cudaMemcpy(st, &hst, sizeof hst, cudaMemcpyHostToDevice), "cudaMemcpy(GF(2) state)");
  GF2_TRY(cudaEventCreate(&ev[0]), "cudaEventCreate");
  GF2_TRY(cudaEventCreate(&ev[1]), "cudaEventCreate");
  GF2_TRY(cudaEventRecord(ev[0]), "cudaEventRecord");
  const int grid = (int)(((int64_t)rows * 32 + elim_threads - 1) / elim_threads);
  for (int c = 0; !err && c < A->n_cols; c++) {
    gf2_pivot<<<1, search_threads>>>(rows, W, c, w, perm, used, pc, st);
    gf2_elim<<<grid, elim_threads>>>(rows, W, c, reduced, w, used, st);
    if ((c & 1023) == 1023) { /* stop once every row is a pivot row */
      GF2_TRY(cudaMemcpy(&hst, st, sizeof hst, cudaMemcpyDeviceToHost), "cudaMemcpy(GF(2) state)");
      if (hst.r >= rows) break;
    }
  }
  GF2_TRY(cudaGetLastError(), "GF(2) elimination kernels");
  GF2_TRY(cudaEventRecord(ev[1]), "cudaEventRecord");
  GF2_TRY(cudaEventSynchronize(ev[1]), "GF(2) elimination");
  float t = 0;
  GF2_TRY(cudaEventElapsedTime(&t, ev[0], ev[1]), "cudaEventElapsedTime");
  GF2_TRY(cudaMemcpy(&hst, st, sizeof hst, cudaMemcpyDeviceToHost), "cudaMemcpy(GF(2) state)");
  GF2_TRY(cudaMemcpy(hperm, perm, rows * sizeof(int), cudaMemcpyDeviceToHost),
          "cudaMemcpy(GF(2) row order)");
  if (!err && pivcol && hst.r > 0)
    GF2_TRY(cudaMemcpy(pivcol, pc, hst.r * sizeof(int), cudaMemcpyDeviceToHost),
            "cudaMemcpy(GF(2) pivot columns)");
  uint32_t *hw = NULL; /* row i of the result is physical row perm[i] */
  if (!err) err = em_calloc(&hw, bytes / sizeof *hw, sizeof *hw, "GF(2) copy back");
  GF2_TRY(cudaMemcpy(hw, w, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(GF(2) matrix)");
  for (int i = 0; !err && i < rows; i++)
    memcpy(A->w + (int64_t)i * W, hw + (int64_t)hperm[i] * W, W * sizeof(uint32_t));
  em_free(&hw);
  if (!err) {
    *rank = hst.r;
    if (ms) *ms = t;
  }
  for (int q = 0; q < 2; q++)
    if (ev[q]) cudaEventDestroy(ev[q]);
  em_dev_free(&w);
  em_dev_free(&perm);
  em_dev_free(&pc);
  em_dev_free(&used);
  em_dev_free(&st);
  em_free(&hperm);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
