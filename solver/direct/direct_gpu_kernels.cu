// direct_gpu_kernels.cu - the kernels of the GPU LDL^T (direct_gpu_impl.h):
// scatter of A into the fronts, the small fronts of a level (one thread
// block each: extend-add, partial LDL^T, update matrix), the pieces of the
// big fronts that are not BLAS (extend-add with atomics, the diagonal block
// of a panel, column scaling, the unit triangle), and the supernodal
// triangular solves by level.
//
// Every kernel is written once for the factor type F (cuDoubleComplex or
// cuFloatComplex); arithmetic of the solves is in double.  A front's
// update matrix U is nb x nb column-major, lower triangle used.
#include <climits>
#include <cuComplex.h>
#include <cuda_runtime.h>

#include "cuda_cplx.cuh"
#include "direct_gpu_impl.h"

namespace {

// ------------------------------------------------- complex arithmetic
template <typename F>
__device__ inline F cadd(F a, F b) {
  a.x += b.x;
  a.y += b.y;
  return a;
}
template <typename F>
__device__ inline F csub(F a, F b) {
  a.x -= b.x;
  a.y -= b.y;
  return a;
}
template <typename F>
__device__ inline F cmul(F a, F b) {
  F c;
  c.x = a.x * b.x - a.y * b.y;
  c.y = a.x * b.y + a.y * b.x;
  return c;
}
// s - a b
template <typename F>
__device__ inline F cfms(F s, F a, F b) {
  s.x -= a.x * b.x - a.y * b.y;
  s.y -= a.x * b.y + a.y * b.x;
  return s;
}
__device__ inline double2 cdiv(double2 a, double2 b) {
  return cuCdiv(a, b);
}
__device__ inline void atomic_add(double2 *p, double2 v) {
  atomicAdd(&p->x, v.x);
  atomicAdd(&p->y, v.y);
}
__device__ inline void atomic_add(float2 *p, float2 v) {
  atomicAdd(&p->x, v.x);
  atomicAdd(&p->y, v.y);
}

// Pivot after the static perturbation (direct_front.c): |d| < tau becomes
// tau d / |d| (tau for 0); a non-finite pivot, or zero with tau = 0, is
// recorded as bad (column c) and replaced by 1 so the kernels run out.
__device__ double2 pivot(double2 d, double tau, long long c, em_dg_piv *piv) {
  double a = hypot(d.x, d.y);
  if (!isfinite(d.x) || !isfinite(d.y) || (a == 0 && tau == 0)) {
    atomicMin(&piv->bad, c);
    if (a == 0) piv->bad_zero = 1;
    return make_double2(1, 0);
  }
  if (a >= tau && a > 0) return d;
  atomicAdd(&piv->perturbed, 1ULL);
  return a > 0 ? make_double2(d.x * (tau / a), d.y * (tau / a)) : make_double2(tau, 0);
}

// Front of supernode s.
struct front {
  int32_t c0;
  int64_t k, m, nb;
};
__device__ inline front front_of(const em_dg_sym &S, int32_t s) {
  front f;
  f.c0 = S.super[s];
  f.k = S.super[s + 1] - f.c0;
  f.m = S.rptr[s + 1] - S.rptr[s];
  f.nb = f.m - f.k;
  return f;
}

// Entry (ii, jj >= ii... lower: ii >= jj) of child c's update matrix U goes
// to front row rel[ii], column rel[jj] of the parent (k pivot columns in L,
// ld m; the rest in its update matrix P, ld nb).
template <typename F, bool ATOMIC>
__device__ inline void extend_entry(const F *U, int64_t nbc, const int32_t *rel, int64_t ii,
                                    int64_t jj, F *L, int64_t m, int64_t k, F *P) {
  F u = U[ii + jj * nbc];
  int64_t pr = rel[ii], pc = rel[jj];
  F *dst = pc < k ? L + pr + pc * m : P + (pr - k) + (pc - k) * (m - k);
  if (ATOMIC)
    atomic_add(dst, u);
  else
    *dst = cadd(*dst, u);
}

// All children of s into its front; the block's threads share the entries.
template <typename F, bool ATOMIC>
__device__ void extend_children(const em_dg_sym &S, int32_t s, F *L, int64_t m, int64_t k, F *P,
                                F *const *cb, int tid, int nthr) {
  for (int32_t c = s - 1; c >= S.first[s]; c = S.first[c] - 1) {
    int64_t kc = S.super[c + 1] - S.super[c], nbc = S.rptr[c + 1] - S.rptr[c] - kc;
    if (nbc == 0) continue;
    const int32_t *rel = S.prel + S.rptr[c] + kc;
    const F *U = cb[c];
    for (int64_t t = tid; t < nbc * nbc; t += nthr) {
      int64_t ii = t % nbc, jj = t / nbc;
      if (ii >= jj) extend_entry<F, ATOMIC>(U, nbc, rel, ii, jj, L, m, k, P);
    }
    if (!ATOMIC) __syncthreads();  // the next child may touch the same entries
  }
}

// ------------------------------------------------------------- scatter
template <typename F>
__global__ void scatter_kernel(int64_t n, const int64_t *dest, const double2 *v, F *L) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x)
    L[dest[q]] = em_sv_from_z<F>(v[q]);
}

// -------------------------------------------------------- small fronts
// One block per front: zero U, extend-add the children, right-looking
// LDL^T of the k pivot columns, U -= L21 D L21^T, unit triangle.
template <typename F>
__global__ void small_fronts_kernel(em_dg_sym S, const int32_t *sn, F *lval, F *d, F *const *cb,
                                    double tau, em_dg_piv *piv) {
  __shared__ double2 dsh[EM_DIRECT_GPU_SMALL_MAX];
  int32_t s = sn[blockIdx.x];
  front f = front_of(S, s);
  int tid = threadIdx.x, nthr = blockDim.x;
  F *L = lval + S.lptr[s];
  F *P = f.nb > 0 ? cb[s] : nullptr;
  for (int64_t t = tid; t < f.nb * f.nb; t += nthr) P[t] = em_sv_from_z<F>(make_double2(0, 0));
  __syncthreads();
  extend_children<F, false>(S, s, L, f.m, f.k, P, cb, tid, nthr);
  __syncthreads();
  for (int64_t j = 0; j < f.k; j++) {
    if (tid == 0) dsh[j] = pivot(em_sv_to_z(L[j + j * f.m]), tau, f.c0 + j, piv);
    __syncthreads();
    double2 dj = dsh[j], inv = cdiv(make_double2(1, 0), dj);
    for (int64_t i = j + 1 + tid; i < f.m; i += nthr)
      L[i + j * f.m] = em_sv_from_z<F>(cmul(em_sv_to_z(L[i + j * f.m]), inv));
    __syncthreads();
    // L(r, c) -= l_rj d_j l_cj for j < c < k, c <= r < m
    int64_t nc = f.k - j - 1, nr = f.m - j - 1;
    for (int64_t t = tid; t < nc * nr; t += nthr) {
      int64_t c = j + 1 + t / nr, r = j + 1 + t % nr;
      if (r < c) continue;
      double2 lc = cmul(em_sv_to_z(L[c + j * f.m]), dj);
      L[r + c * f.m] =
          em_sv_from_z<F>(cfms(em_sv_to_z(L[r + c * f.m]), em_sv_to_z(L[r + j * f.m]), lc));
    }
    __syncthreads();
  }
  // U(a, b) -= sum_j L21(a, j) d_j L21(b, j), a >= b
  for (int64_t t = tid; t < f.nb * f.nb; t += nthr) {
    int64_t a = t % f.nb, b = t / f.nb;
    if (a < b) continue;
    double2 acc = em_sv_to_z(P[t]);
    for (int64_t j = 0; j < f.k; j++)
      acc = cfms(acc, em_sv_to_z(L[f.k + a + j * f.m]),
                 cmul(dsh[j], em_sv_to_z(L[f.k + b + j * f.m])));
    P[t] = em_sv_from_z<F>(acc);
  }
  for (int64_t t = tid; t < f.k * f.k; t += nthr) {
    int64_t i = t % f.k, j = t / f.k;
    if (i < j) L[i + j * f.m] = em_sv_from_z<F>(make_double2(0, 0));
    if (i == j) L[i + j * f.m] = em_sv_from_z<F>(make_double2(1, 0));
  }
  for (int64_t j = tid; j < f.k; j += nthr) d[f.c0 + j] = em_sv_from_z<F>(dsh[j]);
}

// ------------------------------------------------------ big-front pieces
template <typename F>
__global__ void extend_add_kernel(em_dg_sym S, int32_t s, F *lval, F *const *cb) {
  front f = front_of(S, s);
  F *P = f.nb > 0 ? cb[s] : nullptr;
  extend_children<F, true>(S, s, lval + S.lptr[s], f.m, f.k, P, cb,
                           blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
}

// One warp: unblocked LDL^T of the b x b block P (lower triangle, b <=
// EM_DG_PB = 32) in shared memory, lane i owning row i: a warp barrier per
// column instead of a block barrier (this kernel is on the critical path
// of every big front, once per panel).
template <typename F>
__global__ void diag_ldlt_kernel(F *P, int64_t ld, int b, F *d, int64_t c0, double tau,
                                 em_dg_piv *piv) {
  __shared__ double2 a[EM_DG_PB][EM_DG_PB + 1];  // a[row][col], padded
  __shared__ double2 dj_sh;
  int i = threadIdx.x;
  if (i < b)
    for (int c = 0; c <= i; c++) a[i][c] = em_sv_to_z(P[i + c * ld]);
  __syncwarp();
  for (int j = 0; j < b; j++) {
    if (i == j) dj_sh = pivot(a[j][j], tau, c0 + j, piv);
    __syncwarp();
    double2 dj = dj_sh;
    if (i > j && i < b) a[i][j] = cmul(a[i][j], cdiv(make_double2(1, 0), dj));
    __syncwarp();
    if (i > j && i < b) {
      double2 lij = a[i][j];
      for (int c = j + 1; c <= i; c++) a[i][c] = cfms(a[i][c], lij, cmul(dj, a[c][j]));
    }
    if (i == j) {
      d[j] = em_sv_from_z<F>(dj);
      a[j][j] = dj;
    }
    __syncwarp();
  }
  if (i < b)
    for (int c = 0; c < i; c++) P[i + c * ld] = em_sv_from_z<F>(a[i][c]);
}

template <typename F>
__global__ void scale_cols_kernel(int64_t M, int b, F *X, int64_t ldx, const F *d, F *W,
                                  int64_t ldw) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < M * b;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t i = t % M, j = t / M;
    double2 x = em_sv_to_z(X[i + j * ldx]);
    W[i + j * ldw] = em_sv_from_z<F>(x);
    X[i + j * ldx] = em_sv_from_z<F>(cdiv(x, em_sv_to_z(d[j])));
  }
}

template <typename F>
__global__ void make_w_kernel(int64_t nb, int64_t k, const F *L21, int64_t m, const F *d, F *W) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < nb * k;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t i = t % nb, j = t / nb;
    W[i + j * nb] = em_sv_from_z<F>(cmul(em_sv_to_z(L21[i + j * m]), em_sv_to_z(d[j])));
  }
}

template <typename F>
__global__ void clean_l11_kernel(int64_t k, int64_t m, F *L) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < k * k;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t i = t % k, j = t / k;
    if (i < j) L[i + j * m] = em_sv_from_z<F>(make_double2(0, 0));
    if (i == j) L[i + j * m] = em_sv_from_z<F>(make_double2(1, 0));
  }
}

// --------------------------------------------------------------- solves
// The solve's block y (n x nrhs, complex double): entry (i, c) at
// y[i * rs + c * cs], column-major (rs 1, cs ld) or interleaved (rs nrhs,
// cs 1: a row's values contiguous).  A grid-stride index t walks the
// contiguous dimension fastest.
using yl = em_dg_yl;
__device__ inline int64_t yat(yl l, int64_t i, int64_t c) {
  return i * l.rs + c * l.cs;
}
// (i, c) of item t of an nr x nc block walked in l's memory order.
__device__ inline void split(yl l, int64_t t, int64_t nr, int64_t nc, int64_t *i, int64_t *c) {
  if (l.rs == 1) {
    *i = t % nr;
    *c = t / nr;
  } else {
    *i = t / nc;
    *c = t % nc;
  }
}

template <typename V>
__global__ void permute_in_kernel(int32_t n, int nrhs, const int32_t *perm, const double *r,
                                  const V *b, int64_t ldb, double2 *y, yl l) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < (int64_t)n * nrhs;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t i = t % n, c = t / n;
    double2 v = em_sv_to_z(b[i + c * ldb]);
    y[yat(l, perm[i], c)] = make_double2(v.x * r[i], v.y * r[i]);
  }
}

template <typename V>
__global__ void permute_out_kernel(int32_t n, int nrhs, const int32_t *perm, const double *r,
                                   const double2 *y, yl l, V *x, int64_t ldx) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < (int64_t)n * nrhs;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t i = t % n, c = t / n;
    double2 v = y[yat(l, perm[i], c)];
    x[i + c * ldx] = em_sv_from_z<V>(make_double2(v.x * r[i], v.y * r[i]));
  }
}

// The level kernels of the solves take the right-hand sides RB at a time:
// a supernode's own entries x (k < EM_DG_SOLVE_BIG rows, RB columns) sit
// in shared memory, column c at xs + c * EM_DG_SOLVE_BIG, so every step of
// the triangle updates all RB columns between two barriers and every entry
// of L read from memory serves all of them.  One right-hand side or RB
// cost the same number of barriers and reads of L.

// xs = y(c0 .. c0 + k, r0 .. r0 + nr) or back (store).
template <bool STORE>
__device__ inline void xs_copy(double2 *xs, double2 *y, yl l, int64_t c0, int64_t k, int r0, int nr,
                               int tid, int nthr) {
  for (int64_t q = tid; q < k * nr; q += nthr) {
    int64_t i, c;
    split(l, q, k, nr, &i, &c);
    double2 *p = y + yat(l, c0 + i, r0 + c);
    if (STORE)
      *p = xs[c * EM_DG_SOLVE_BIG + i];
    else
      xs[c * EM_DG_SOLVE_BIG + i] = *p;
  }
}

// Forward, one block per supernode: x = L11^-1 y_s (a barrier per column
// of L11), then y(rows below) -= L21 x (a thread per row of L21, RB sums).
template <typename F, int RB>
__global__ void fwd_level_kernel(em_dg_sym S, const int32_t *sn, const F *lval, int nrhs,
                                 double2 *y, yl l) {
  __shared__ double2 xs[RB * EM_DG_SOLVE_BIG];
  int32_t s = sn[blockIdx.x];
  front f = front_of(S, s);
  const F *L = lval + S.lptr[s];
  const int32_t *below = S.rows + S.rptr[s] + f.k;
  int tid = threadIdx.x, nthr = blockDim.x;
  for (int r0 = 0; r0 < nrhs; r0 += RB) {
    int nr = nrhs - r0 < RB ? nrhs - r0 : RB;
    xs_copy<false>(xs, y, l, f.c0, f.k, r0, nr, tid, nthr);
    for (int64_t j = 0; j < f.k; j++) {
      __syncthreads();
      for (int64_t i = j + 1 + tid; i < f.k; i += nthr) {
        double2 lij = em_sv_to_z(L[i + j * f.m]);
#pragma unroll
        for (int c = 0; c < RB; c++)
          if (c < nr)
            xs[c * EM_DG_SOLVE_BIG + i] =
                cfms(xs[c * EM_DG_SOLVE_BIG + i], lij, xs[c * EM_DG_SOLVE_BIG + j]);
      }
    }
    __syncthreads();
    xs_copy<true>(xs, y, l, f.c0, f.k, r0, nr, tid, nthr);
    for (int64_t a = tid; a < f.nb; a += nthr) {
      double2 t[RB];
#pragma unroll
      for (int c = 0; c < RB; c++) t[c] = make_double2(0, 0);
      for (int64_t j = 0; j < f.k; j++) {
        double2 la = em_sv_to_z(L[f.k + a + j * f.m]);
#pragma unroll
        for (int c = 0; c < RB; c++)
          if (c < nr) t[c] = cfms(t[c], la, xs[c * EM_DG_SOLVE_BIG + j]);
      }
      double2 *ya = y + yat(l, below[a], r0);
#pragma unroll
      for (int c = 0; c < RB; c++)
        if (c < nr) atomic_add(ya + c * l.cs, t[c]);  // y -= L21 x
    }
    __syncthreads();  // xs is read above before the next columns overwrite it
  }
}

// Backward, one block per supernode: u = y_s - L21^T y(below) (a warp per
// column of L21, RB sums), then x = L11^-T u, last column first.
template <typename F, int RB>
__global__ void bwd_level_kernel(em_dg_sym S, const int32_t *sn, const F *lval, int nrhs,
                                 double2 *y, yl l) {
  __shared__ double2 xs[RB * EM_DG_SOLVE_BIG];
  int32_t s = sn[blockIdx.x];
  front f = front_of(S, s);
  const F *L = lval + S.lptr[s];
  const int32_t *below = S.rows + S.rptr[s] + f.k;
  int tid = threadIdx.x, nthr = blockDim.x, lane = tid & 31, warp = tid >> 5, nw = nthr >> 5;
  for (int r0 = 0; r0 < nrhs; r0 += RB) {
    int nr = nrhs - r0 < RB ? nrhs - r0 : RB;
    xs_copy<false>(xs, y, l, f.c0, f.k, r0, nr, tid, nthr);
    __syncthreads();
    for (int64_t j = warp; j < f.k; j += nw) {  // a warp per column: dots of length nb
      double2 t[RB];
#pragma unroll
      for (int c = 0; c < RB; c++) t[c] = make_double2(0, 0);
      for (int64_t a = lane; a < f.nb; a += 32) {
        double2 la = em_sv_to_z(L[f.k + a + j * f.m]);
        const double2 *ya = y + yat(l, below[a], r0);
#pragma unroll
        for (int c = 0; c < RB; c++)
          if (c < nr) t[c] = cfms(t[c], la, ya[c * l.cs]);
      }
#pragma unroll
      for (int c = 0; c < RB; c++) {
        if (c >= nr) continue;
        for (int o = 16; o > 0; o >>= 1) {
          t[c].x += __shfl_down_sync(0xffffffffu, t[c].x, o);
          t[c].y += __shfl_down_sync(0xffffffffu, t[c].y, o);
        }
        if (lane == 0) xs[c * EM_DG_SOLVE_BIG + j] = cadd(xs[c * EM_DG_SOLVE_BIG + j], t[c]);
      }
    }
    for (int64_t j = f.k - 1; j >= 0; j--) {
      __syncthreads();
      for (int64_t i = tid; i < j; i += nthr) {
        double2 lji = em_sv_to_z(L[j + i * f.m]);
#pragma unroll
        for (int c = 0; c < RB; c++)
          if (c < nr)
            xs[c * EM_DG_SOLVE_BIG + i] =
                cfms(xs[c * EM_DG_SOLVE_BIG + i], lji, xs[c * EM_DG_SOLVE_BIG + j]);
      }
    }
    __syncthreads();
    xs_copy<true>(xs, y, l, f.c0, f.k, r0, nr, tid, nthr);
    __syncthreads();  // before the next columns overwrite xs
  }
}

// The products of a big supernode (k >= EM_DG_SOLVE_BIG columns, nb rows
// below) by own kernels: L21 read once per RB columns, in the factor's
// precision, the sums in double, the gather / scatter of y(below) fused.
#define EM_DG_BIG_KC 128  // columns of L21 per block (forward)
#define EM_DG_BIG_AC 512  // rows of L21 per block (backward)

// The shared steps of the big supernodes' product kernels and the
// inverse's (below).  xs (kc x nr, column c at xs + c EM_DG_BIG_KC) =
// y(row0 .. row0 + kc, r0 .. r0 + nr), by the block's threads.
__device__ inline void chunk_load(double2 *xs, const double2 *y, yl l, int64_t row0, int64_t kc,
                                  int r0, int nr) {
  for (int64_t q = threadIdx.x; q < kc * nr; q += blockDim.x) {
    int64_t i, c;
    split(l, q, kc, nr, &i, &c);
    xs[c * EM_DG_BIG_KC + i] = y[yat(l, row0 + i, r0 + c)];
  }
}
// t[c] -= sum_{j < cnt} A[j stride] xs(j, c), c < nr, in double.
template <typename F, int RB>
__device__ inline void chunk_dot(double2 *t, const F *A, int64_t stride, int64_t cnt,
                                 const double2 *xs, int nr) {
#pragma unroll
  for (int c = 0; c < RB; c++) t[c] = make_double2(0, 0);
#pragma unroll 4
  for (int64_t j = 0; j < cnt; j++) {
    double2 a = em_sv_to_z(A[j * stride]);
#pragma unroll
    for (int c = 0; c < RB; c++)
      if (c < nr) t[c] = cfms(t[c], a, xs[c * EM_DG_BIG_KC + j]);
  }
}
// The RB sums of a warp's lanes into lane 0 (shuffles), c < nr.
template <int RB>
__device__ inline void warp_sums(double2 *t, int nr) {
#pragma unroll
  for (int c = 0; c < RB; c++) {
    if (c >= nr) continue;
    for (int o = 16; o > 0; o >>= 1) {
      t[c].x += __shfl_down_sync(0xffffffffu, t[c].x, o);
      t[c].y += __shfl_down_sync(0xffffffffu, t[c].y, o);
    }
  }
}

// Forward: y(below[a], c) -= sum_j L21(a, j) y(c0 + j, c).  Block (bx, by):
// 128 rows a, columns j of chunk by (EM_DG_BIG_KC, their x in shared
// memory); a thread per row, RB sums, atomics into y (the chunks add up).
template <typename F, int RB>
__global__ void big_fwd_kernel(int64_t k, int64_t nb, const F *L21, int64_t m, const int32_t *below,
                               int64_t c0, int nrhs, double2 *y, yl l) {
  __shared__ double2 xs[RB * EM_DG_BIG_KC];
  int64_t j0 = (int64_t)blockIdx.y * EM_DG_BIG_KC,
          kc = k - j0 < EM_DG_BIG_KC ? k - j0 : EM_DG_BIG_KC;
  int64_t a = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (int r0 = 0; r0 < nrhs; r0 += RB) {
    int nr = nrhs - r0 < RB ? nrhs - r0 : RB;
    __syncthreads();  // the previous columns' xs read
    chunk_load(xs, y, l, c0 + j0, kc, r0, nr);
    __syncthreads();
    if (a >= nb) continue;
    double2 t[RB];
    chunk_dot<F, RB>(t, L21 + a + j0 * m, m, kc, xs, nr);
    double2 *ya = y + yat(l, below[a], r0);
#pragma unroll
    for (int c = 0; c < RB; c++)
      if (c < nr) atomic_add(ya + c * l.cs, t[c]);
  }
}

// Backward: y(c0 + j, c) -= sum_a L21(a, j) y(below[a], c).  A warp per
// column j, its lanes over the rows of chunk blockIdx.y (EM_DG_BIG_AC),
// RB sums reduced by shuffles, atomics into y (the chunks add up).
template <typename F, int RB>
__global__ void big_bwd_kernel(int64_t k, int64_t nb, const F *L21, int64_t m, const int32_t *below,
                               int64_t c0, int nrhs, double2 *y, yl l) {
  int64_t j = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (j >= k) return;  // whole warps: k warps in all
  int64_t a0 = (int64_t)blockIdx.y * EM_DG_BIG_AC;
  int64_t a1 = nb - a0 < EM_DG_BIG_AC ? nb : a0 + EM_DG_BIG_AC;
  const F *Lj = L21 + j * m;
  for (int r0 = 0; r0 < nrhs; r0 += RB) {
    int nr = nrhs - r0 < RB ? nrhs - r0 : RB;
    double2 t[RB];
#pragma unroll
    for (int c = 0; c < RB; c++) t[c] = make_double2(0, 0);
    for (int64_t a = a0 + lane; a < a1; a += 32) {
      double2 la = em_sv_to_z(Lj[a]);
      const double2 *ya = y + yat(l, below[a], r0);
#pragma unroll
      for (int c = 0; c < RB; c++)
        if (c < nr) t[c] = cfms(t[c], la, ya[c * l.cs]);
    }
    warp_sums<RB>(t, nr);
#pragma unroll
    for (int c = 0; c < RB; c++)
      if (c < nr && lane == 0) atomic_add(y + yat(l, c0 + j, r0 + c), t[c]);
  }
}

// The triangle of a big supernode by its stored inverse Li = L11^-1 (k x k,
// ld k, unit lower, explicit zeros above: direct_ginv_cuda.c), in double
// from y itself (no single copy of y_s) and over the lower triangle only,
// into w (k x nrhs, layout wl, zeroed; the chunks add up by atomics):
//   forward   w(i, c) = sum_{j <= i} Li(i, j) y(c0 + j, c)
//   backward  w(i, c) = sum_{j >= i} Li(j, i) y(c0 + j, c)
// Forward as big_fwd_kernel (a thread per row i, the chunk's y_s in shared
// memory; a block wholly above the diagonal returns), backward as
// big_bwd_kernel (a warp per column i of Li, contiguous, its lanes over
// the chunk's rows j >= i).
template <typename F, int RB>
__global__ void tri_fwd_kernel(int64_t k, const F *Li, int64_t c0, int nrhs, const double2 *y, yl l,
                               double2 *w, yl wl) {
  __shared__ double2 xs[RB * EM_DG_BIG_KC];
  int64_t j0 = (int64_t)blockIdx.y * EM_DG_BIG_KC,
          kc = k - j0 < EM_DG_BIG_KC ? k - j0 : EM_DG_BIG_KC;
  int64_t i0 = (int64_t)blockIdx.x * blockDim.x, i = i0 + threadIdx.x;
  if (j0 > i0 + (int64_t)blockDim.x - 1) return;   // the whole block above the diagonal
  int64_t jn = i - j0 + 1 < kc ? i - j0 + 1 : kc;  // this row's columns in the chunk
  for (int r0 = 0; r0 < nrhs; r0 += RB) {
    int nr = nrhs - r0 < RB ? nrhs - r0 : RB;
    __syncthreads();  // the previous columns' xs read
    chunk_load(xs, y, l, c0 + j0, kc, r0, nr);
    __syncthreads();
    if (i >= k || jn <= 0) continue;
    double2 t[RB];
    chunk_dot<F, RB>(t, Li + i + j0 * k, k, jn, xs, nr);
#pragma unroll
    for (int c = 0; c < RB; c++)
      if (c < nr) atomic_add(w + yat(wl, i, r0 + c), make_double2(-t[c].x, -t[c].y));
  }
}

template <typename F, int RB>
__global__ void tri_bwd_kernel(int64_t k, const F *Li, int64_t c0, int nrhs, const double2 *y, yl l,
                               double2 *w, yl wl) {
  int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (i >= k) return;  // whole warps: k warps in all
  int64_t a0 = (int64_t)blockIdx.y * EM_DG_BIG_AC;
  int64_t a1 = k - a0 < EM_DG_BIG_AC ? k : a0 + EM_DG_BIG_AC;
  if (a1 <= i) return;  // the chunk wholly above row i: zeros
  if (a0 < i) a0 = i;
  const F *Lc = Li + i * k;
  for (int r0 = 0; r0 < nrhs; r0 += RB) {
    int nr = nrhs - r0 < RB ? nrhs - r0 : RB;
    double2 t[RB];
#pragma unroll
    for (int c = 0; c < RB; c++) t[c] = make_double2(0, 0);
    for (int64_t j = a0 + lane; j < a1; j += 32) {
      double2 a = em_sv_to_z(Lc[j]);
      const double2 *yj = y + yat(l, c0 + j, r0);
#pragma unroll
      for (int c = 0; c < RB; c++)
        if (c < nr) t[c] = cfms(t[c], a, yj[c * l.cs]);
    }
    warp_sums<RB>(t, nr);
#pragma unroll
    for (int c = 0; c < RB; c++)
      if (c < nr && lane == 0) atomic_add(w + yat(wl, i, r0 + c), make_double2(-t[c].x, -t[c].y));
  }
}

template <typename F>
__global__ void diag_solve_kernel(int32_t n, int nrhs, const F *d, double2 *y, yl l) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < (int64_t)n * nrhs;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t i, c;
    split(l, t, n, nrhs, &i, &c);
    y[yat(l, i, c)] = cdiv(y[yat(l, i, c)], em_sv_to_z(d[i]));
  }
}

// t (nb x nrhs in layout tl) = y(rows, :), or y(rows, :) -= t (atomics)
template <typename T>
__global__ void gather_kernel(int64_t nb, int nrhs, const int32_t *rows, const double2 *y, yl l,
                              T *t, yl tl) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nb * nrhs;
       q += (int64_t)gridDim.x * blockDim.x) {
    int64_t a, c;
    split(tl, q, nb, nrhs, &a, &c);
    t[yat(tl, a, c)] = em_sv_from_z<T>(y[yat(l, rows[a], c)]);
  }
}

template <typename T>
__global__ void scatter_sub_kernel(int64_t nb, int nrhs, const int32_t *rows, const T *t, yl tl,
                                   double2 *y, yl l) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nb * nrhs;
       q += (int64_t)gridDim.x * blockDim.x) {
    int64_t a, c;
    split(tl, q, nb, nrhs, &a, &c);
    double2 v = em_sv_to_z(t[yat(tl, a, c)]);
    atomic_add(y + yat(l, rows[a], c), make_double2(-v.x, -v.y));
  }
}

// dst (rows x cols, ld ldd) = src (ld lds), converted
template <typename D, typename S>
__global__ void copy2d_kernel(int64_t rows, int cols, const S *src, int64_t lds, D *dst,
                              int64_t ldd) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < rows * cols;
       q += (int64_t)gridDim.x * blockDim.x) {
    int64_t i = q % rows, c = q / rows;
    dst[i + c * ldd] = em_sv_from_z<D>(em_sv_to_z(src[i + c * lds]));
  }
}

template <typename D, typename S>
__global__ void convert_kernel(int64_t n, const S *src, D *dst) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x)
    dst[q] = em_sv_from_z<D>(em_sv_to_z(src[q]));
}

// Grid of a grid-stride kernel over n items.
inline unsigned grid_for(int64_t n) {
  int64_t g = (n + 255) / 256;
  if (g < 1) g = 1;
  if (g > 65535 * 4) g = 65535 * 4;
  return (unsigned)g;
}

inline cudaStream_t st(void *s) {
  return (cudaStream_t)s;
}

// A level kernel with RB columns per pass: 1 for one right-hand side, 4 up
// to four, else 8 (several passes beyond eight); lim[r] the most threads
// its registers allow (r = 0, 1, 2 for RB = 1, 4, 8: em_dg_level_limits).
template <typename F, int RB>
void level_run(bool fwd, em_dg_sym S, const int32_t *sn, int32_t count, const void *lval, int nrhs,
               double2 *y, yl l, int threads, const int *lim, cudaStream_t s) {
  int max = lim[RB == 1 ? 0 : RB == 4 ? 1 : 2];
  if (threads > 256 && threads > max) threads = max & ~31;
  if (fwd)
    fwd_level_kernel<F, RB><<<count, threads, 0, s>>>(S, sn, (const F *)lval, nrhs, y, l);
  else
    bwd_level_kernel<F, RB><<<count, threads, 0, s>>>(S, sn, (const F *)lval, nrhs, y, l);
}
template <typename F, bool FWD>
void level_launch(em_dg_sym S, const int32_t *sn, int32_t count, const void *lval, int nrhs,
                  double2 *y, yl l, int threads, const int *lim, cudaStream_t s) {
  if (nrhs == 1)
    level_run<F, 1>(FWD, S, sn, count, lval, nrhs, y, l, threads, lim, s);
  else if (nrhs <= 4)
    level_run<F, 4>(FWD, S, sn, count, lval, nrhs, y, l, threads, lim, s);
  else
    level_run<F, 8>(FWD, S, sn, count, lval, nrhs, y, l, threads, lim, s);
}

// kernel's most threads per block (INT_MAX when the query fails: no clamp)
template <typename K>
int max_threads(K kernel) {
  cudaFuncAttributes a;
  if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return INT_MAX;
  }
  return a.maxThreadsPerBlock;
}
template <typename F>
void level_limits(int lim[6]) {
  lim[0] = max_threads(fwd_level_kernel<F, 1>);
  lim[1] = max_threads(fwd_level_kernel<F, 4>);
  lim[2] = max_threads(fwd_level_kernel<F, 8>);
  lim[3] = max_threads(bwd_level_kernel<F, 1>);
  lim[4] = max_threads(bwd_level_kernel<F, 4>);
  lim[5] = max_threads(bwd_level_kernel<F, 8>);
}

// The big supernode's product kernels, RB as the level kernels'.
template <typename F, int RB>
void big_run(bool fwd, int64_t k, int64_t nb, const void *L21, int64_t m, const int32_t *below,
             int64_t c0, int nrhs, double2 *y, yl l, cudaStream_t s) {
  if (fwd) {
    dim3 grid((unsigned)((nb + 127) / 128), (unsigned)((k + EM_DG_BIG_KC - 1) / EM_DG_BIG_KC));
    big_fwd_kernel<F, RB><<<grid, 128, 0, s>>>(k, nb, (const F *)L21, m, below, c0, nrhs, y, l);
  } else {
    dim3 grid((unsigned)((k + 3) / 4), (unsigned)((nb + EM_DG_BIG_AC - 1) / EM_DG_BIG_AC));
    big_bwd_kernel<F, RB><<<grid, 128, 0, s>>>(k, nb, (const F *)L21, m, below, c0, nrhs, y, l);
  }
}
template <typename F>
void big_launch(bool fwd, int64_t k, int64_t nb, const void *L21, int64_t m, const int32_t *below,
                int64_t c0, int nrhs, double2 *y, yl l, cudaStream_t s) {
  if (nrhs == 1)
    big_run<F, 1>(fwd, k, nb, L21, m, below, c0, nrhs, y, l, s);
  else if (nrhs <= 4)
    big_run<F, 4>(fwd, k, nb, L21, m, below, c0, nrhs, y, l, s);
  else
    big_run<F, 8>(fwd, k, nb, L21, m, below, c0, nrhs, y, l, s);
}

// The inverse's product kernels, RB as the level kernels'.
template <typename F, int RB>
void tri_run(bool fwd, int64_t k, const void *Li, int64_t c0, int nrhs, const double2 *y, yl l,
             double2 *w, yl wl, cudaStream_t s) {
  if (fwd) {
    dim3 grid((unsigned)((k + 127) / 128), (unsigned)((k + EM_DG_BIG_KC - 1) / EM_DG_BIG_KC));
    tri_fwd_kernel<F, RB><<<grid, 128, 0, s>>>(k, (const F *)Li, c0, nrhs, y, l, w, wl);
  } else {
    dim3 grid((unsigned)((k + 3) / 4), (unsigned)((k + EM_DG_BIG_AC - 1) / EM_DG_BIG_AC));
    tri_bwd_kernel<F, RB><<<grid, 128, 0, s>>>(k, (const F *)Li, c0, nrhs, y, l, w, wl);
  }
}
template <typename F>
void tri_launch(bool fwd, int64_t k, const void *Li, int64_t c0, int nrhs, const double2 *y, yl l,
                double2 *w, yl wl, cudaStream_t s) {
  if (nrhs == 1)
    tri_run<F, 1>(fwd, k, Li, c0, nrhs, y, l, w, wl, s);
  else if (nrhs <= 4)
    tri_run<F, 4>(fwd, k, Li, c0, nrhs, y, l, w, wl, s);
  else
    tri_run<F, 8>(fwd, k, Li, c0, nrhs, y, l, w, wl, s);
}

}  // namespace

extern "C" {

em_err em_dg_scatter(int64_t n, const int64_t *dest, const void *v, void *L, int single, void *s) {
  if (n == 0) return EM_OK;
  if (single)
    scatter_kernel<<<grid_for(n), 256, 0, st(s)>>>(n, dest, (const double2 *)v, (float2 *)L);
  else
    scatter_kernel<<<grid_for(n), 256, 0, st(s)>>>(n, dest, (const double2 *)v, (double2 *)L);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_small_fronts(em_dg_sym S, const int32_t *sn, int32_t count, void *lval, void *d,
                          void *const *cb, double tau, em_dg_piv *piv, int single, void *s) {
  if (count == 0) return EM_OK;
  if (single)
    small_fronts_kernel<float2><<<count, 256, 0, st(s)>>>(S, sn, (float2 *)lval, (float2 *)d,
                                                          (float2 *const *)cb, tau, piv);
  else
    small_fronts_kernel<double2><<<count, 256, 0, st(s)>>>(S, sn, (double2 *)lval, (double2 *)d,
                                                           (double2 *const *)cb, tau, piv);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_extend_add(em_dg_sym S, int32_t sn, void *lval, void *const *cb, int single, void *s) {
  if (single)
    extend_add_kernel<float2><<<264, 256, 0, st(s)>>>(S, sn, (float2 *)lval, (float2 *const *)cb);
  else
    extend_add_kernel<double2>
        <<<264, 256, 0, st(s)>>>(S, sn, (double2 *)lval, (double2 *const *)cb);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_diag_ldlt(void *P, int64_t ld, int b, void *d, int64_t c0, double tau, em_dg_piv *piv,
                       int single, void *s) {
  if (single)
    diag_ldlt_kernel<float2><<<1, 256, 0, st(s)>>>((float2 *)P, ld, b, (float2 *)d, c0, tau, piv);
  else
    diag_ldlt_kernel<double2>
        <<<1, 256, 0, st(s)>>>((double2 *)P, ld, b, (double2 *)d, c0, tau, piv);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_scale_cols(int64_t M, int b, void *X, int64_t ldx, const void *d, void *W, int64_t ldw,
                        int single, void *s) {
  if (M * b == 0) return EM_OK;
  if (single)
    scale_cols_kernel<float2><<<grid_for(M * b), 256, 0, st(s)>>>(
        M, b, (float2 *)X, ldx, (const float2 *)d, (float2 *)W, ldw);
  else
    scale_cols_kernel<double2><<<grid_for(M * b), 256, 0, st(s)>>>(
        M, b, (double2 *)X, ldx, (const double2 *)d, (double2 *)W, ldw);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_make_w(int64_t nb, int64_t k, const void *L21, int64_t m, const void *d, void *W,
                    int single, void *s) {
  if (nb * k == 0) return EM_OK;
  if (single)
    make_w_kernel<float2><<<grid_for(nb * k), 256, 0, st(s)>>>(nb, k, (const float2 *)L21, m,
                                                               (const float2 *)d, (float2 *)W);
  else
    make_w_kernel<double2><<<grid_for(nb * k), 256, 0, st(s)>>>(nb, k, (const double2 *)L21, m,
                                                                (const double2 *)d, (double2 *)W);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_clean_l11(int64_t k, int64_t m, void *L, int single, void *s) {
  if (k == 0) return EM_OK;
  if (single)
    clean_l11_kernel<float2><<<grid_for(k * k), 256, 0, st(s)>>>(k, m, (float2 *)L);
  else
    clean_l11_kernel<double2><<<grid_for(k * k), 256, 0, st(s)>>>(k, m, (double2 *)L);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_permute_in(int32_t n, int nrhs, const int32_t *perm, const double *r, const void *b,
                        int64_t ldb, int b_single, void *y, em_dg_yl l, void *s) {
  int64_t tot = (int64_t)n * nrhs;
  if (tot == 0) return EM_OK;
  if (b_single)
    permute_in_kernel<float2><<<grid_for(tot), 256, 0, st(s)>>>(n, nrhs, perm, r, (const float2 *)b,
                                                                ldb, (double2 *)y, l);
  else
    permute_in_kernel<double2><<<grid_for(tot), 256, 0, st(s)>>>(
        n, nrhs, perm, r, (const double2 *)b, ldb, (double2 *)y, l);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_permute_out(int32_t n, int nrhs, const int32_t *perm, const double *r, const void *y,
                         em_dg_yl l, void *x, int64_t ldx, int x_single, void *s) {
  int64_t tot = (int64_t)n * nrhs;
  if (tot == 0) return EM_OK;
  if (x_single)
    permute_out_kernel<float2><<<grid_for(tot), 256, 0, st(s)>>>(
        n, nrhs, perm, r, (const double2 *)y, l, (float2 *)x, ldx);
  else
    permute_out_kernel<double2><<<grid_for(tot), 256, 0, st(s)>>>(
        n, nrhs, perm, r, (const double2 *)y, l, (double2 *)x, ldx);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

void em_dg_level_limits(int single, int lim[6]) {
  if (single)
    level_limits<float2>(lim);
  else
    level_limits<double2>(lim);
}

em_err em_dg_fwd_level(em_dg_sym S, const int32_t *sn, int32_t count, const void *lval, int nrhs,
                       void *y, em_dg_yl l, int single, int threads, const int *lim, void *s) {
  if (count == 0 || nrhs == 0) return EM_OK;
  if (single)
    level_launch<float2, true>(S, sn, count, lval, nrhs, (double2 *)y, l, threads, lim, st(s));
  else
    level_launch<double2, true>(S, sn, count, lval, nrhs, (double2 *)y, l, threads, lim, st(s));
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_diag_solve(int32_t n, int nrhs, const void *d, void *y, em_dg_yl l, int single,
                        void *s) {
  int64_t tot = (int64_t)n * nrhs;
  if (tot == 0) return EM_OK;
  if (single)
    diag_solve_kernel<float2>
        <<<grid_for(tot), 256, 0, st(s)>>>(n, nrhs, (const float2 *)d, (double2 *)y, l);
  else
    diag_solve_kernel<double2>
        <<<grid_for(tot), 256, 0, st(s)>>>(n, nrhs, (const double2 *)d, (double2 *)y, l);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_bwd_level(em_dg_sym S, const int32_t *sn, int32_t count, const void *lval, int nrhs,
                       void *y, em_dg_yl l, int single, int threads, const int *lim, void *s) {
  if (count == 0 || nrhs == 0) return EM_OK;
  if (single)
    level_launch<float2, false>(S, sn, count, lval, nrhs, (double2 *)y, l, threads, lim, st(s));
  else
    level_launch<double2, false>(S, sn, count, lval, nrhs, (double2 *)y, l, threads, lim, st(s));
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_big_prod(int forward, int64_t k, int64_t nb, const void *L21, int64_t m,
                      const int32_t *below, int64_t c0, int nrhs, void *y, em_dg_yl l, int single,
                      void *s) {
  if (k == 0 || nb == 0 || nrhs == 0) return EM_OK;
  if (single)
    big_launch<float2>(forward, k, nb, L21, m, below, c0, nrhs, (double2 *)y, l, st(s));
  else
    big_launch<double2>(forward, k, nb, L21, m, below, c0, nrhs, (double2 *)y, l, st(s));
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_tri_prod(int forward, int64_t k, const void *Li, int64_t c0, int nrhs, const void *y,
                      em_dg_yl l, void *w, em_dg_yl wl, int single, void *s) {
  if (k == 0 || nrhs == 0) return EM_OK;
  EM_CUDA(cudaMemsetAsync(w, 0, 16 * (size_t)(k * nrhs), st(s))); /* w: k x nrhs in wl */
  if (single)
    tri_launch<float2>(forward, k, Li, c0, nrhs, (const double2 *)y, l, (double2 *)w, wl, st(s));
  else
    tri_launch<double2>(forward, k, Li, c0, nrhs, (const double2 *)y, l, (double2 *)w, wl, st(s));
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_gather(int64_t nb, int nrhs, const int32_t *rows, const void *y, em_dg_yl l, void *t,
                    em_dg_yl tl, int t_single, void *s) {
  if (nb * nrhs == 0) return EM_OK;
  if (t_single)
    gather_kernel<float2><<<grid_for(nb * nrhs), 256, 0, st(s)>>>(
        nb, nrhs, rows, (const double2 *)y, l, (float2 *)t, tl);
  else
    gather_kernel<double2><<<grid_for(nb * nrhs), 256, 0, st(s)>>>(
        nb, nrhs, rows, (const double2 *)y, l, (double2 *)t, tl);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_scatter_sub(int64_t nb, int nrhs, const int32_t *rows, const void *t, em_dg_yl tl,
                         int t_single, void *y, em_dg_yl l, void *s) {
  if (nb * nrhs == 0) return EM_OK;
  if (t_single)
    scatter_sub_kernel<float2><<<grid_for(nb * nrhs), 256, 0, st(s)>>>(
        nb, nrhs, rows, (const float2 *)t, tl, (double2 *)y, l);
  else
    scatter_sub_kernel<double2><<<grid_for(nb * nrhs), 256, 0, st(s)>>>(
        nb, nrhs, rows, (const double2 *)t, tl, (double2 *)y, l);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_copy2d(int64_t rows, int cols, const void *src, int64_t lds, int src_single, void *dst,
                    int64_t ldd, int dst_single, void *s) {
  int64_t n = rows * cols;
  if (n == 0) return EM_OK;
  if (src_single && !dst_single)
    copy2d_kernel<double2, float2>
        <<<grid_for(n), 256, 0, st(s)>>>(rows, cols, (const float2 *)src, lds, (double2 *)dst, ldd);
  else if (!src_single && dst_single)
    copy2d_kernel<float2, double2>
        <<<grid_for(n), 256, 0, st(s)>>>(rows, cols, (const double2 *)src, lds, (float2 *)dst, ldd);
  else if (src_single)
    copy2d_kernel<float2, float2>
        <<<grid_for(n), 256, 0, st(s)>>>(rows, cols, (const float2 *)src, lds, (float2 *)dst, ldd);
  else
    copy2d_kernel<double2, double2><<<grid_for(n), 256, 0, st(s)>>>(
        rows, cols, (const double2 *)src, lds, (double2 *)dst, ldd);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

em_err em_dg_convert(int64_t n, const void *src, int src_single, void *dst, int dst_single,
                     void *s) {
  if (n == 0) return EM_OK;
  if (src_single && dst_single)
    convert_kernel<float2, float2>
        <<<grid_for(n), 256, 0, st(s)>>>(n, (const float2 *)src, (float2 *)dst);
  else if (src_single)
    convert_kernel<double2, float2>
        <<<grid_for(n), 256, 0, st(s)>>>(n, (const float2 *)src, (double2 *)dst);
  else if (dst_single)
    convert_kernel<float2, double2>
        <<<grid_for(n), 256, 0, st(s)>>>(n, (const double2 *)src, (float2 *)dst);
  else
    convert_kernel<double2, double2>
        <<<grid_for(n), 256, 0, st(s)>>>(n, (const double2 *)src, (double2 *)dst);
  EM_CUDA_LAUNCHED();
  return EM_OK;
}

}  // extern "C"
