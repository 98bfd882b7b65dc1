/* tridiag_cuda.cu - tridiagonal systems on the GPU by the split (partition)
 * method, the algorithm of tridiag_tmpl.h with a thread per block of rows:
 *
 *   1. sweep:  each thread eliminates its block (rows s..e) down and up, so
 *              that every row but e reads  f_i x_{s-1} + bb_i x_i + g_i x_e;
 *   2. reduce: the dependency on the next block's first row is eliminated
 *              beforehand, leaving one row per block that couples x_{e_k}
 *              to x_{e_{k-1}} and x_{e_{k+1}} only: a tridiagonal system of
 *              p rows, solved by the same method (recursion) until p = 1;
 *   3. back:   x_i = (dd_i - f_i x_{s-1} - g_i x_e) / bb_i.
 *
 * Rows per block: the batch's blocks fill the GPU's resident threads
 * (multiprocessors x threads per multiprocessor), at least TDG_MIN_BLOCK.
 * The workspace of a level is interleaved (row j of every block together),
 * so the sweeps read and write it coalesced.  A zero pivot is written to a
 * host-mapped word: the host reads it after the synchronization that ends
 * the solve, without a copy.
 *
 * Two variants of a plan (flags of em_tridiag_gpu_create_opts):
 *   EM_TRIDIAG_ORIGINAL: the original split method (Wang 1981) as the
 *     baseline: one level, the reduced system of each system solved
 *     serially (Thomas) by one thread, the inter-block phase not parallel;
 *   EM_TRIDIAG_MAPPED: the first level's workspace in host-mapped (pinned,
 *     zero-copy) memory and the arrays of the solve in host memory, read
 *     and written by the kernels over the bus: no device copy of the
 *     system, so a system larger than the GPU's memory is solved. */
#include <cuComplex.h>
#include <cuda_runtime.h>

#include "em_linalg.h"

#define TDG_THREADS 128
#define TDG_MIN_BLOCK 8
#define TDG_MAX_LEVELS 32

__device__ __forceinline__ double tmul(double a, double b) {
  return a * b;
}
__device__ __forceinline__ double tdiv(double a, double b) {
  return a / b;
}
__device__ __forceinline__ double tsub(double a, double b) {
  return a - b;
}
__device__ __forceinline__ double tneg(double a) {
  return -a;
}
__device__ __forceinline__ bool tzero(double a) {
  return a == 0;
}
__device__ __forceinline__ cuDoubleComplex tmul(cuDoubleComplex a, cuDoubleComplex b) {
  return cuCmul(a, b);
}
__device__ __forceinline__ cuDoubleComplex tdiv(cuDoubleComplex a, cuDoubleComplex b) {
  return cuCdiv(a, b);
}
__device__ __forceinline__ cuDoubleComplex tsub(cuDoubleComplex a, cuDoubleComplex b) {
  return cuCsub(a, b);
}
__device__ __forceinline__ cuDoubleComplex tneg(cuDoubleComplex a) {
  return make_cuDoubleComplex(-a.x, -a.y);
}
__device__ __forceinline__ bool tzero(cuDoubleComplex a) {
  return a.x == 0 && a.y == 0;
}
template <typename T>
__device__ __forceinline__ T tnull();
template <>
__device__ __forceinline__ double tnull<double>() {
  return 0;
}
template <>
__device__ __forceinline__ cuDoubleComplex tnull<cuDoubleComplex>() {
  return make_cuDoubleComplex(0, 0);
}

/* One level: n rows per system, p blocks of m rows (the last one takes the
 * rest, fewer than 2m), nt = batch p threads; ws[j * nt + t] is row j of
 * thread t's block. */
struct tdg_level {
  int64_t n, m, p, nt;
  void *f, *bb, *g, *dd; /* workspace, (longest block) x nt */
  void *R[5];            /* reduced system dl, d, du, b and solution x, batch p */
};

struct em_tridiag_gpu {
  int64_t n, batch;
  int is_complex, n_level, flags;
  tdg_level lv[TDG_MAX_LEVELS];
  void *ws_h[4];        /* EM_TRIDIAG_MAPPED: the first level's host-mapped workspace */
  int *flag_h, *flag_d; /* host-mapped word: 1 after a zero pivot */
};

__device__ __forceinline__ void tdg_flag(int *flag) {
  atomicCAS(flag, 0, 1);
}

template <typename T>
__global__ void __launch_bounds__(TDG_THREADS)
    tdg_sweep(int64_t n, int64_t m, int64_t p, int64_t nt, const T *__restrict__ dl,
              const T *__restrict__ d, const T *__restrict__ du, const T *__restrict__ b,
              T *__restrict__ f, T *__restrict__ bb, T *__restrict__ g, T *__restrict__ dd,
              int *flag) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  const int64_t k = t % p, s = k * m, len = k == p - 1 ? n - s : m, o = (t / p) * n + s;
  /* downward: r = dl_i / bb_{i-1}, f_i = -r f_{i-1}, bb_i = d_i - r du_{i-1}, dd_i = b_i - r
   * dd_{i-1} */
  T fp = k > 0 ? dl[o] : tnull<T>(), bp = d[o], dp = b[o], up = du[o];
  f[t] = fp;
  bb[t] = bp;
  dd[t] = dp;
  for (int64_t j = 1; j < len; j++) {
    if (tzero(bp)) {
      tdg_flag(flag);
      return;
    }
    const T r = tdiv(dl[o + j], bp);
    fp = tneg(tmul(r, fp));
    bp = tsub(d[o + j], tmul(r, up));
    dp = tsub(b[o + j], tmul(r, dp));
    up = du[o + j];
    f[j * nt + t] = fp;
    bb[j * nt + t] = bp;
    dd[j * nt + t] = dp;
  }
  if (len < 2) return;
  /* upward from row e-1: r = du_i / bb_{i+1}, f_i -= r f_{i+1}, g_i = -r g_{i+1}, dd_i -= r
   * dd_{i+1} */
  const int64_t j1 = len - 2;
  T fn = f[j1 * nt + t], gn = du[o + j1], dn = dd[j1 * nt + t], bn = bb[j1 * nt + t];
  g[j1 * nt + t] = gn;
  for (int64_t j = j1 - 1; j >= 0; j--) {
    const T r = tdiv(du[o + j], bn);
    bn = bb[j * nt + t];
    fn = tsub(f[j * nt + t], tmul(r, fn));
    gn = tneg(tmul(r, gn));
    dn = tsub(dd[j * nt + t], tmul(r, dn));
    f[j * nt + t] = fn;
    g[j * nt + t] = gn;
    dd[j * nt + t] = dn;
  }
}

/* Block k's reduced row (x_{e_k}), r = du_e / bb_s' (s' the next block's
 * first row): A = f_e, B = bb_e - r f_s', C = -r g_s', D = dd_e - r dd_s'.
 * With p = 1 the reduced system is B x_e = D, solved here. */
template <typename T>
__global__ void __launch_bounds__(TDG_THREADS)
    tdg_reduce(int64_t n, int64_t m, int64_t p, int64_t nt, const T *__restrict__ du,
               const T *__restrict__ f, const T *__restrict__ bb, const T *__restrict__ g,
               const T *__restrict__ dd, T *A, T *B, T *C, T *D, T *X, int *flag) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  const int64_t k = t % p, s = k * m, len = k == p - 1 ? n - s : m, je = (len - 1) * nt + t;
  T a = f[je], bv = bb[je], c = tnull<T>(), dv = dd[je];
  if (k < p - 1) {
    const T bs = bb[t + 1];
    if (tzero(bs)) {
      tdg_flag(flag);
      return;
    }
    const T r = tdiv(du[(t / p) * n + s + len - 1], bs);
    bv = tsub(bv, tmul(r, f[t + 1]));
    c = tneg(tmul(r, g[t + 1]));
    dv = tsub(dv, tmul(r, dd[t + 1]));
  }
  if (p == 1) {
    if (tzero(bv))
      tdg_flag(flag);
    else
      X[t] = tdiv(dv, bv);
    return;
  }
  A[t] = a;
  B[t] = bv;
  C[t] = c;
  D[t] = dv;
}

/* x_e from the reduced solution, then x_i = (dd_i - f_i x_{s-1} - g_i x_e) / bb_i. */
template <typename T>
__global__ void __launch_bounds__(TDG_THREADS)
    tdg_back(int64_t n, int64_t m, int64_t p, int64_t nt, const T *__restrict__ f,
             const T *__restrict__ bb, const T *__restrict__ g, const T *__restrict__ dd,
             const T *__restrict__ X, T *__restrict__ x) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  const int64_t k = t % p, s = k * m, len = k == p - 1 ? n - s : m, o = (t / p) * n + s;
  const T xl = k > 0 ? X[t - 1] : tnull<T>(), xe = X[t];
  for (int64_t j = 0; j < len - 1; j++) {
    const int64_t w = j * nt + t;
    x[o + j] = tdiv(tsub(tsub(dd[w], tmul(f[w], xl)), tmul(g[w], xe)), bb[w]);
  }
  x[o + len - 1] = xe;
}

/* The original split method's inter-block phase: system q's reduced rows
 * (A, B, C, D at q p .. q p + p - 1) by Thomas on one thread, C
 * overwritten by c'_k = C_k / (B_k - A_k c'_{k-1}). */
template <typename T>
__global__ void __launch_bounds__(TDG_THREADS)
    tdg_serial(int64_t p, int64_t batch, const T *__restrict__ A, const T *__restrict__ B,
               T *__restrict__ C, T *__restrict__ D, T *__restrict__ X, int *flag) {
  const int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= batch) return;
  const int64_t o = q * p;
  T cp = tnull<T>(), yp = tnull<T>();
  for (int64_t k = 0; k < p; k++) {
    const T a = k > 0 ? A[o + k] : tnull<T>(), den = tsub(B[o + k], tmul(a, cp));
    if (tzero(den)) {
      tdg_flag(flag);
      return;
    }
    cp = k + 1 < p ? tdiv(C[o + k], den) : tnull<T>();
    C[o + k] = cp;
    yp = tdiv(tsub(D[o + k], tmul(a, yp)), den);
    X[o + k] = yp;
  }
  for (int64_t k = p - 2; k >= 0; k--) X[o + k] = tsub(X[o + k], tmul(C[o + k], X[o + k + 1]));
}

static int tdg_grid(int64_t nt) {
  return (int)((nt + TDG_THREADS - 1) / TDG_THREADS);
}

template <typename T>
static em_err tdg_solve(em_tridiag_gpu *t, const T *dl, const T *d, const T *du, const T *b, T *x) {
  const T *in[4] = {dl, d, du, b};
  for (int l = 0; l < t->n_level; l++) { /* sweep and reduce, level by level */
    tdg_level *L = &t->lv[l];
    tdg_sweep<T><<<tdg_grid(L->nt), TDG_THREADS>>>(L->n, L->m, L->p, L->nt, in[0], in[1], in[2],
                                                   in[3], (T *)L->f, (T *)L->bb, (T *)L->g,
                                                   (T *)L->dd, t->flag_d);
    tdg_reduce<T><<<tdg_grid(L->nt), TDG_THREADS>>>(
        L->n, L->m, L->p, L->nt, in[2], (const T *)L->f, (const T *)L->bb, (const T *)L->g,
        (const T *)L->dd, (T *)L->R[0], (T *)L->R[1], (T *)L->R[2], (T *)L->R[3], (T *)L->R[4],
        t->flag_d);
    for (int q = 0; q < 4; q++) in[q] = (const T *)L->R[q];
  }
  const tdg_level *L0 = &t->lv[0];
  if ((t->flags & EM_TRIDIAG_ORIGINAL) && L0->p > 1) /* the serial inter-block phase */
    tdg_serial<T><<<tdg_grid(t->batch), TDG_THREADS>>>(L0->p, t->batch, (const T *)L0->R[0],
                                                       (const T *)L0->R[1], (T *)L0->R[2],
                                                       (T *)L0->R[3], (T *)L0->R[4], t->flag_d);
  for (int l = t->n_level - 1; l >= 0; l--) { /* back substitution, coarse to fine */
    tdg_level *L = &t->lv[l];
    tdg_back<T><<<tdg_grid(L->nt), TDG_THREADS>>>(
        L->n, L->m, L->p, L->nt, (const T *)L->f, (const T *)L->bb, (const T *)L->g,
        (const T *)L->dd, (const T *)L->R[4], l == 0 ? x : (T *)t->lv[l - 1].R[4]);
  }
  EM_CUDA(cudaGetLastError());
  EM_CUDA(cudaDeviceSynchronize());
  /* the flag lives in host-mapped memory: read it, no copy */
  EM_CHECK(*(volatile int *)t->flag_h == 0, EM_ERR_NUMERIC,
           "tridiagonal solve on the GPU: zero pivot (no pivoting)");
  return EM_OK;
}

/* The first level's workspace q: device memory, or host-mapped memory for
 * EM_TRIDIAG_MAPPED (its device alias in *d). */
static em_err tdg_ws_alloc(em_tridiag_gpu *t, int l, int q, size_t bytes, void **d) {
  if (l > 0 || !(t->flags & EM_TRIDIAG_MAPPED))
    return em_dev_alloc(d, NULL, bytes, NULL, "tridiagonal split workspace");
  EM_CUDA(cudaHostAlloc(&t->ws_h[q], bytes ? bytes : 1, cudaHostAllocMapped));
  EM_CUDA(cudaHostGetDevicePointer(d, t->ws_h[q], 0));
  return EM_OK;
}

extern "C" em_err em_tridiag_gpu_create(int64_t n, int64_t batch, int is_complex,
                                        em_tridiag_gpu **tp) {
  return em_tridiag_gpu_create_opts(n, batch, is_complex, 0, tp);
}

extern "C" em_err em_tridiag_gpu_create_opts(int64_t n, int64_t batch, int is_complex, int flags,
                                             em_tridiag_gpu **tp) {
  EM_CHECK(tp && n >= 1 && batch >= 1, EM_ERR_ARG,
           "GPU tridiagonal plan: %lld systems of %lld rows", (long long)batch, (long long)n);
  *tp = NULL;
  int dev = 0, sms = 0, per_sm = 0;
  EM_CUDA(cudaGetDevice(&dev));
  EM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  EM_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  const int64_t resident = (int64_t)sms * per_sm;
  const size_t es = is_complex ? sizeof(cuDoubleComplex) : sizeof(double);
  em_tridiag_gpu *t = NULL;
  EM_TRY(em_calloc(&t, 1, sizeof *t, "GPU tridiagonal plan"));
  t->n = n;
  t->batch = batch;
  t->is_complex = is_complex;
  t->flags = flags;
  em_err err =
      em_cuda_status((int)cudaHostAlloc((void **)&t->flag_h, sizeof(int), cudaHostAllocMapped),
                     "cudaHostAlloc(zero-pivot flag)", __FILE__, __LINE__);
  if (!err)
    err = em_cuda_status((int)cudaHostGetDevicePointer((void **)&t->flag_d, t->flag_h, 0),
                         "cudaHostGetDevicePointer", __FILE__, __LINE__);
  for (int64_t nl = n; !err;) {         /* levels until one block per system */
    if (t->n_level >= TDG_MAX_LEVELS) { /* not a return: the plan is freed below */
      err = EM_RAISE(EM_ERR_INTERNAL, "split method: too many levels");
      break;
    }
    tdg_level *L = &t->lv[t->n_level++];
    int64_t m = (nl * batch + resident - 1) / resident;
    if (m < TDG_MIN_BLOCK) m = TDG_MIN_BLOCK;
    const int64_t p = nl >= 2 * m ? nl / m : 1;
    if (p == 1) m = nl;
    const int64_t longest = nl - (p - 1) * m;
    L->n = nl;
    L->m = m;
    L->p = p;
    L->nt = batch * p;
    void **ws[4] = {&L->f, &L->bb, &L->g, &L->dd};
    for (int q = 0; q < 4 && !err; q++)
      err = tdg_ws_alloc(t, t->n_level - 1, q, es * (size_t)(longest * L->nt), ws[q]);
    for (int q = 0; q < 5 && !err; q++)
      err = em_dev_alloc(&L->R[q], NULL, es * (size_t)L->nt, NULL, "tridiagonal reduced system");
    if (p == 1 || (flags & EM_TRIDIAG_ORIGINAL)) break; /* original: one level */
    nl = p;
  }
  if (err) {
    em_tridiag_gpu_destroy(&t);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  *tp = t;
  return EM_OK;
}

/* The device alias of host array h (bytes long): h pinned and mapped by
 * its owner (cudaHostAlloc) or registered here for the solve (*reg = 1,
 * unregistered after it); device memory is used as it is. */
static em_err tdg_map(const void *h, size_t bytes, void **d, int *reg) {
  cudaPointerAttributes a;
  *reg = 0;
  EM_CUDA(cudaPointerGetAttributes(&a, h));
  if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) {
    *d = (void *)h;
    return EM_OK;
  }
  if (a.type != cudaMemoryTypeHost) {
    EM_CUDA(cudaHostRegister((void *)h, bytes, cudaHostRegisterMapped));
    *reg = 1;
  }
  em_err err = em_cuda_status((int)cudaHostGetDevicePointer(d, (void *)h, 0),
                              "cudaHostGetDevicePointer(tridiagonal system)", __FILE__, __LINE__);
  if (err && *reg) {
    cudaHostUnregister((void *)h);
    *reg = 0;
  }
  return err;
}

extern "C" em_err em_tridiag_gpu_solve(em_tridiag_gpu *t, const void *dl, const void *d,
                                       const void *du, const void *b, void *x) {
  EM_CHECK(t && dl && d && du && b && x, EM_ERR_ARG, "GPU tridiagonal solve: a NULL argument");
  *(volatile int *)t->flag_h = 0;
  const void *in[5] = {dl, d, du, b, x};
  void *dp[5] = {0};
  int reg[5] = {0};
  em_err err = EM_OK;
  const size_t bytes =
      (size_t)(t->n * t->batch) * (t->is_complex ? sizeof(cuDoubleComplex) : sizeof(double));
  for (int q = 0; q < 5 && !err; q++) /* mapped: the device aliases of host arrays */
    err = (t->flags & EM_TRIDIAG_MAPPED) ? tdg_map(in[q], bytes, &dp[q], &reg[q])
                                         : (dp[q] = (void *)in[q], EM_OK);
  if (!err && t->is_complex)
    err = tdg_solve<cuDoubleComplex>(t, (const cuDoubleComplex *)dp[0],
                                     (const cuDoubleComplex *)dp[1], (const cuDoubleComplex *)dp[2],
                                     (const cuDoubleComplex *)dp[3], (cuDoubleComplex *)dp[4]);
  else if (!err)
    err = tdg_solve<double>(t, (const double *)dp[0], (const double *)dp[1], (const double *)dp[2],
                            (const double *)dp[3], (double *)dp[4]);
  for (int q = 0; q < 5; q++)
    if (reg[q]) cudaHostUnregister((void *)in[q]);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

extern "C" void em_tridiag_gpu_shape(const em_tridiag_gpu *t, int64_t *block, int *levels) {
  *block = t->lv[0].m;
  *levels = t->n_level;
}

extern "C" void em_tridiag_gpu_destroy(em_tridiag_gpu **tp) {
  if (!tp || !*tp) return;
  em_tridiag_gpu *t = *tp;
  for (int l = 0; l < t->n_level; l++) {
    void **ws[4] = {&t->lv[l].f, &t->lv[l].bb, &t->lv[l].g, &t->lv[l].dd};
    for (int q = 0; q < 4; q++) /* a mapped workspace is freed below, as host memory */
      if (l > 0 || !t->ws_h[q]) em_dev_free(ws[q]);
    for (int q = 0; q < 5; q++) em_dev_free(&t->lv[l].R[q]);
  }
  for (int q = 0; q < 4; q++)
    if (t->ws_h[q]) cudaFreeHost(t->ws_h[q]);
  if (t->flag_h) cudaFreeHost(t->flag_h);
  em_free(tp);
}

/* The CUDA row of em_tridiag_solve: host arrays in, host x out.  The
 * system and the first level's workspace take about 9 N scalars of device
 * memory (N = n batch); with less than that free (or force_mapped), the
 * plan is a mapped one and the kernels read the host arrays directly. */
extern "C" em_err em_tridiag_solve_cuda(int is_complex, int64_t n, int64_t batch, const void *dl,
                                        const void *d, const void *du, const void *b, void *x,
                                        int force_mapped, int *used) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
    cudaGetLastError(); /* clear the sticky-free error of a missing driver */
    return EM_RAISE(EM_ERR_UNSUPPORTED, "tridiagonal solve on the GPU: no GPU");
  }
  const size_t es = is_complex ? sizeof(cuDoubleComplex) : sizeof(double);
  const size_t bytes = es * (size_t)(n * batch);
  size_t free_b = 0, total_b = 0;
  EM_CUDA(cudaMemGetInfo(&free_b, &total_b));
  const int mapped = force_mapped || 9 * bytes > free_b / 10 * 9;
  em_tridiag_gpu *t = NULL;
  EM_TRY(em_tridiag_gpu_create_opts(n, batch, is_complex, mapped ? EM_TRIDIAG_MAPPED : 0, &t));
  em_err err = EM_OK;
  if (mapped) {
    err = em_tridiag_gpu_solve(t, dl, d, du, b, x);
  } else {
    const void *in[4] = {dl, d, du, b};
    void *dv[5] = {0};
    for (int q = 0; q < 5 && !err; q++)
      err = em_dev_alloc(&dv[q], q < 4 ? in[q] : NULL, bytes, NULL, "tridiagonal system");
    if (!err) err = em_tridiag_gpu_solve(t, dv[0], dv[1], dv[2], dv[3], dv[4]);
    if (!err)
      err = em_cuda_status((int)cudaMemcpy(x, dv[4], bytes, cudaMemcpyDeviceToHost),
                           "cudaMemcpy(tridiagonal solution)", __FILE__, __LINE__);
    for (int q = 0; q < 5; q++) em_dev_free(&dv[q]);
  }
  em_tridiag_gpu_destroy(&t);
  if (!err && used) *used = mapped ? EM_TRIDIAG_PATH_MAPPED : EM_TRIDIAG_PATH_GPU;
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
