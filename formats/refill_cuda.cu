/* refill_cuda.cu - the GPU half of em_spmat_refill (refill.c): the new CSR
 * values go up as they are, in chunks through one staging buffer, and a
 * kernel writes each to its slot (through the map, or in order for CSR and
 * bitmap), converting to single where the matrix is single.  A contiguous
 * upload runs at the PCIe rate; the scatter on the GPU costs a small
 * fraction of it, where the same scatter on the host would cost more than
 * the upload (random writes) and need a host copy of the layout. */
#include "fmt_cuda.cuh"

/* Entries per upload: 64 MB of complex double staging at most. */
#define REFILL_CHUNK ((int64_t)1 << 22)

/* Entry k0 + t (t < n) of the CSR: q = slot[k0 + t] (or k0 + t when slot is
 * NULL); a0[q] or a1[q - l0] = src[t]. */
template <typename V, typename I>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    refill_scatter(int64_t n, int64_t k0, const double2 *__restrict__ src,
                   const I *__restrict__ slot, int64_t l0, V *__restrict__ a0, V *__restrict__ a1) {
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t q = slot ? (int64_t)slot[k0 + t] : k0 + t;
    if (q < l0)
      em_store_val(a0, q, src[t]);
    else
      em_store_val(a1, q - l0, src[t]);
  }
}

template <typename V, typename I>
static void scatter_launch(int64_t n, int64_t k0, const double2 *src, const void *slot, int64_t l0,
                           void *a0, void *a1, int cap) {
  unsigned blocks = em_fmt_blocks(n, cap);
  refill_scatter<V, I><<<blocks, EM_FMT_BLOCK>>>(n, k0, src, (const I *)slot, l0, (V *)a0, (V *)a1);
}

/* Identity in double: one copy into the array.  Otherwise chunks: upload,
 * scatter (legacy default stream, so the copies and kernels are ordered and
 * every later launch on a blocking stream sees the new values). */
extern "C" em_err em_fmt_refill_cuda(const em_spmat *M, const em_fmt_refill *rf, void *const *arr,
                                     const em_cplx *v, int64_t nnz) {
  int dbl = M->info.prec == EM_PREC_DOUBLE;
  if (rf->identity && dbl) {
    EM_CUDA(cudaMemcpy(arr[0], v, (size_t)nnz * sizeof *v, cudaMemcpyHostToDevice));
    return EM_OK;
  }
  int cap = 0;
  EM_TRY(em_fmt_cuda_grid_cap(&cap));
  int64_t chunk = nnz < REFILL_CHUNK ? nnz : REFILL_CHUNK;
  void *stage = NULL;
  EM_TRY(em_dev_alloc(&stage, NULL, (size_t)chunk * sizeof *v, NULL, "refill staging"));
  em_err err = EM_OK;
  const void *slot = rf->identity ? NULL : rf->dslot;
  for (int64_t k0 = 0; k0 < nnz; k0 += chunk) {
    int64_t n = nnz - k0 < chunk ? nnz - k0 : chunk;
    EM_CUDA_GOTO(err, cudaMemcpy(stage, v + k0, (size_t)n * sizeof *v, cudaMemcpyHostToDevice),
                 done);
    const double2 *s = (const double2 *)stage;
    if (dbl && rf->wide)
      scatter_launch<double2, int64_t>(n, k0, s, slot, rf->seg_len[0], arr[0], arr[1], cap);
    else if (dbl)
      scatter_launch<double2, int32_t>(n, k0, s, slot, rf->seg_len[0], arr[0], arr[1], cap);
    else if (rf->wide)
      scatter_launch<float2, int64_t>(n, k0, s, slot, rf->seg_len[0], arr[0], arr[1], cap);
    else
      scatter_launch<float2, int32_t>(n, k0, s, slot, rf->seg_len[0], arr[0], arr[1], cap);
    EM_CUDA_GOTO(err, cudaGetLastError(), done);
  }
  EM_CUDA_GOTO(err, cudaDeviceSynchronize(), done);
done:
  em_dev_free(&stage);
  return err;
}
