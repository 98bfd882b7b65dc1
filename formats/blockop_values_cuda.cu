/* blockop_values_cuda.cu - the GPU half of em_blockop_refill_values
 * (blockop_values.c): the operator CSR's values go up as they are, in
 * chunks through one staging buffer, and a kernel writes each to its slot
 * in its spmat's value array (the code of its segment and offset),
 * converting to single where the operator is single (as a build does). */
#include "blockop_impl.h"
#include "fmt_cuda.cuh"

/* Entries per upload: 64 MB of complex double staging at most. */
#define VALUES_CHUNK ((int64_t)1 << 22)

/* The segments' arrays, passed by value to the kernel. */
typedef struct vseg_table {
  void *p[EM_VMAP_MAX_SEG];
} vseg_table;

/* Entry q0 + t (t < n): code c = code[q0 + t], segment c >> shift, offset
 * c & mask; src[t] there. */
template <typename V, typename I>
__global__ void __launch_bounds__(EM_FMT_BLOCK)
    vmap_scatter(int64_t n, int64_t q0, const double2 *__restrict__ src, const I *__restrict__ code,
                 int shift, vseg_table seg) {
  const int64_t mask = ((int64_t)1 << shift) - 1;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t c = (int64_t)code[q0 + t];
    em_store_val((V *)seg.p[c >> shift], c & mask, src[t]);
  }
}

template <typename V, typename I>
static void scatter_launch(int64_t n, int64_t q0, const double2 *src, const void *code, int shift,
                           const vseg_table &seg, int cap, cudaStream_t st) {
  unsigned blocks = em_fmt_blocks(n, cap);
  vmap_scatter<V, I><<<blocks, EM_FMT_BLOCK, 0, st>>>(n, q0, src, (const I *)code, shift, seg);
}

void em_blockop_values_cuda_free(em_blockop_vmap *vm) {
  if (vm->stream) cudaStreamSynchronize((cudaStream_t)vm->stream);
  for (int b = 0; b < 2; b++) {
    if (vm->pin[b]) cudaFreeHost(vm->pin[b]), vm->pin[b] = NULL;
    if (vm->ev[b]) cudaEventDestroy((cudaEvent_t)vm->ev[b]), vm->ev[b] = NULL;
  }
  if (vm->stream) cudaStreamDestroy((cudaStream_t)vm->stream), vm->stream = NULL;
  em_dev_free(&vm->stage);
}

/* What every refill uses, made by the first and kept in the map (issue 24:
 * a 64 MB cudaMalloc, a stream and two events per frequency before): the
 * device staging of one chunk, the stream, the events, and the two pinned
 * host buffers unless v itself is page-locked (em_host_pin: the chunks go
 * up from it directly).  The pinned buffers are tried once; both or none
 * are kept (one alone would not overlap the copy with the upload). */
static em_err values_setup(em_blockop_vmap *vm, size_t cbytes, int direct) {
  if (!vm->stage) EM_TRY(em_dev_alloc(&vm->stage, NULL, cbytes, NULL, "operator value staging"));
  if (!vm->stream) {
    cudaStream_t st = NULL;
    EM_CUDA(cudaStreamCreate(&st));
    vm->stream = st;
  }
  for (int b = 0; b < 2; b++)
    if (!vm->ev[b]) {
      cudaEvent_t e = NULL;
      EM_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      vm->ev[b] = e;
    }
  if (direct || vm->pin_tried) return EM_OK;
  vm->pin_tried = 1;
  for (int b = 0; b < 2; b++)
    if (cudaMallocHost(&vm->pin[b], cbytes) != cudaSuccess) {
      cudaGetLastError(); /* not sticky: go on pageable */
      vm->pin[b] = NULL;
    }
  if (!vm->pin[0] || !vm->pin[1]) /* one alone: none */
    for (int b = 0; b < 2; b++)
      if (vm->pin[b]) cudaFreeHost(vm->pin[b]), vm->pin[b] = NULL;
  return EM_OK;
}

/* Chunks through the kept device staging buffer on the kept stream (so
 * the upload of a chunk waits for the scatter of the one before).  From v
 * itself when it is page-locked; else through the two pinned host buffers
 * (the host copies chunk c + 1 into one, all threads, while the GPU
 * uploads chunk c from the other and scatters it); else pageable, from v.
 * Synchronous: the stream is drained before the return, so every later
 * launch sees the new values. */
extern "C" em_err em_blockop_values_cuda(em_blockop_vmap *vm, em_prec p, const em_cplx *v) {
  int cap = 0;
  EM_TRY(em_fmt_cuda_grid_cap(&cap));
  vseg_table seg;
  for (int s = 0; s < EM_VMAP_MAX_SEG; s++) seg.p[s] = vm->seg[s];
  /* the kept buffers: one size for every call (the map's nnz is fixed) */
  int64_t nnz = vm->nnz, chunk = nnz < VALUES_CHUNK ? nnz : VALUES_CHUNK;
  size_t cbytes = (size_t)chunk * sizeof *v;
  int direct = em_host_pinned(v);
  EM_TRY(values_setup(vm, cbytes, direct));
  int pinned = !direct && vm->pin[0] && vm->pin[1];
  cudaStream_t st = (cudaStream_t)vm->stream;
  void *stage = vm->stage;
  em_err err = EM_OK;
  int dbl = p == EM_PREC_DOUBLE, narrow = vm->shift == 27;
  /* nothing launched before (any stream) still reads the old values (a
     wait for nothing when the device is idle, as between two solves) */
  EM_CUDA_GOTO(err, cudaDeviceSynchronize(), done);
  for (int64_t q0 = 0, c = 0; q0 < nnz; q0 += chunk, c++) {
    int64_t n = nnz - q0 < chunk ? nnz - q0 : chunk;
    const void *from = v + q0;
    cudaEvent_t ev = (cudaEvent_t)vm->ev[c & 1];
    if (pinned) {
      em_cplx *h = (em_cplx *)vm->pin[c & 1];
      if (c >= 2) EM_CUDA_GOTO(err, cudaEventSynchronize(ev), done); /* its upload done */
      em_blockop_values_copy(h, v + q0, n);
      from = h;
    }
    EM_CUDA_GOTO(
        err, cudaMemcpyAsync(stage, from, (size_t)n * sizeof *v, cudaMemcpyHostToDevice, st), done);
    EM_CUDA_GOTO(err, cudaEventRecord(ev, st), done);
    const double2 *s = (const double2 *)stage;
    if (dbl && narrow)
      scatter_launch<double2, uint32_t>(n, q0, s, vm->dcode, vm->shift, seg, cap, st);
    else if (dbl)
      scatter_launch<double2, int64_t>(n, q0, s, vm->dcode, vm->shift, seg, cap, st);
    else if (narrow)
      scatter_launch<float2, uint32_t>(n, q0, s, vm->dcode, vm->shift, seg, cap, st);
    else
      scatter_launch<float2, int64_t>(n, q0, s, vm->dcode, vm->shift, seg, cap, st);
    EM_CUDA_GOTO(err, cudaGetLastError(), done);
  }
  EM_CUDA_GOTO(err, cudaStreamSynchronize(st), done);
done:
  if (err) cudaStreamSynchronize(st); /* nothing left in flight on the kept staging */
  return err;
}
