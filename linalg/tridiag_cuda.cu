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
 * the solve, without a copy. */
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
  int is_complex, n_level;
  tdg_level lv[TDG_MAX_LEVELS];
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

extern "C" em_err em_tridiag_gpu_create(int64_t n, int64_t batch, int is_complex,
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
      err = em_dev_alloc(ws[q], NULL, es * (size_t)(longest * L->nt), NULL,
                         "tridiagonal split workspace");
    for (int q = 0; q < 5 && !err; q++)
      err = em_dev_alloc(&L->R[q], NULL, es * (size_t)L->nt, NULL, "tridiagonal reduced system");
    if (p == 1) break;
    nl = p;
  }
  if (err) {
    em_tridiag_gpu_destroy(&t);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  *tp = t;
  return EM_OK;
}

extern "C" em_err em_tridiag_gpu_solve(em_tridiag_gpu *t, const void *dl, const void *d,
                                       const void *du, const void *b, void *x) {
  EM_CHECK(t && dl && d && du && b && x, EM_ERR_ARG, "GPU tridiagonal solve: a NULL argument");
  *(volatile int *)t->flag_h = 0;
  if (t->is_complex)
    EM_TRY(tdg_solve<cuDoubleComplex>(t, (const cuDoubleComplex *)dl, (const cuDoubleComplex *)d,
                                      (const cuDoubleComplex *)du, (const cuDoubleComplex *)b,
                                      (cuDoubleComplex *)x));
  else
    EM_TRY(tdg_solve<double>(t, (const double *)dl, (const double *)d, (const double *)du,
                             (const double *)b, (double *)x));
  return EM_OK;
}

extern "C" void em_tridiag_gpu_shape(const em_tridiag_gpu *t, int64_t *block, int *levels) {
  *block = t->lv[0].m;
  *levels = t->n_level;
}

extern "C" void em_tridiag_gpu_destroy(em_tridiag_gpu **tp) {
  if (!tp || !*tp) return;
  em_tridiag_gpu *t = *tp;
  for (int l = 0; l < t->n_level; l++) {
    em_dev_free(&t->lv[l].f);
    em_dev_free(&t->lv[l].bb);
    em_dev_free(&t->lv[l].g);
    em_dev_free(&t->lv[l].dd);
    for (int q = 0; q < 5; q++) em_dev_free(&t->lv[l].R[q]);
  }
  if (t->flag_h) cudaFreeHost(t->flag_h);
  em_free(tp);
}
