/* bitmap_lu_cuda.cu - the bitmap LU without pivoting on the GPU, A = L U
 * (L unit lower, U upper, returned as one bitmap L + U - I): the same
 * algorithm, fill pattern and update order as the CPU reference
 * bitmap_lu.c, rows processed by warps in parallel.
 *
 * Row i needs the finished rows k < i of its own L pattern, so the rows
 * form a DAG that is only known while factoring (fill adds rows to it).
 * Each warp takes the next row from an atomic ticket and waits (spins) on
 * the done flag of every row k it meets.  The tickets are handed out in
 * ascending order to warps that are already running, so every row a warp
 * waits on belongs to a running warp that only waits on smaller rows: the
 * smallest unfinished row always progresses (no deadlock whatever the
 * grid).  Rows written by other warps are read through L2 (ld.cg) after
 * their flag, published after a __threadfence.
 *
 * Two kernels, like the CPU's two passes over one row merged:
 *  symbolic  row i's pattern = A(i, :) OR the U parts (columns > k) of the
 *            rows k < i in its pattern, ascending k, fill included (the
 *            CPU's ORs); a dense mask of n / 64 words per warp (only the
 *            touched range [lo, hi] is scanned and cleared); the row's
 *            words go to a pool (atomic allocation, grown and rerun on
 *            overflow) and are compacted in row order afterwards.
 *  numeric   the pattern is final, so the values live in place: a(i, j)
 *            is at woff[word] + popcount of the word's bits below j, with
 *            woff the scan of the words' popcounts.  Row i: zero, scatter
 *            A(i, :), then for each k of L(i, :) ascending
 *              l_ik = a_ik / u_kk,  a_ij -= l_ik u_kj  (u_kj stored, j > k)
 *            with the lanes over the words of U(k, :) (distinct words,
 *            distinct targets, no atomics).
 * A row whose diagonal bit is not in its pattern, or whose pivot is exactly
 * zero, is a zero pivot: the smallest such row is reported, as the CPU
 * (which stops at the first) does; rows from the first structural zero on
 * are not factored numerically. */

#include "bitmap_gpu.h"
#include "fmt_cuda.cuh"

#define LU_WARPS 4 /* warps per block */
#define LU_THREADS (32 * LU_WARPS)

typedef unsigned long long u64;

/* spin until flag[k] is set (lane 0 spins, the warp then proceeds); a
 * fence so that row k's data, written before its flag, is seen after it */
__device__ __forceinline__ void lu_wait(const int *flag, int32_t k) {
  if ((threadIdx.x & 31) == 0)
    while (*(volatile const int *)(flag + k) == 0) __nanosleep(32);
  __syncwarp();
  __threadfence();
}

/* publish row i: its data first, then the flag */
__device__ __forceinline__ void lu_publish(int *flag, int32_t i) {
  __threadfence();
  __syncwarp();
  if ((threadIdx.x & 31) == 0) atomicExch(flag + i, 1);
}

/* the next row of this warp (ascending tickets) */
__device__ __forceinline__ int32_t lu_ticket(int *ticket) {
  int32_t r = 0;
  if ((threadIdx.x & 31) == 0) r = atomicAdd(ticket, 1);
  return __shfl_sync(EM_FULL_WARP, r, 0);
}

/* bits of word w of row i that lie left of the diagonal (w <= i / 64) */
__device__ __forceinline__ u64 lu_below(int32_t w, int32_t i) {
  return w < (i >> 6) ? ~0ull : ((1ull << (i & 63)) - 1);
}

/* first position in [lo, hi) whose word index is >= w (hi when none) */
__device__ __forceinline__ int64_t lu_find(const int32_t *widx, int64_t lo, int64_t hi, int32_t w) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (widx[mid] < w)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* the symbolic factorization's device state */
struct lu_sym {
  int32_t n, nw;      /* rows, words per row */
  const int64_t *awp; /* A's word pointers, indices, masks */
  const int32_t *awi;
  const u64 *am;
  u64 *scratch;  /* [slots][nw] dense masks, zero between rows */
  int32_t *pw;   /* pool: word indices */
  u64 *pm;       /* pool: masks */
  int64_t cap;   /* pool capacity (words) */
  int64_t *used; /* pool words handed out */
  int *overflow; /* set when the pool was too small */
  int64_t *ps;   /* [n] row i's first pool word */
  int64_t *pu;   /* [n] row i's first pool word at or right of its diagonal word */
  int64_t *pc;   /* [n + 1] row i's word count (pc[n] = 0 for the scan) */
  int *flag;     /* [n] row done */
  int *ticket;   /* next row */
  int32_t *bad;  /* smallest row without a diagonal bit */
};

/* symbolic: row i's pattern into the pool, one warp per row */
__global__ void __launch_bounds__(LU_THREADS) lu_symbolic(lu_sym s) {
  const int lane = threadIdx.x & 31;
  const int64_t slot = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  u64 *M = s.scratch + slot * s.nw;
  if (lane == 0 && slot == 0) s.pc[s.n] = 0;
  for (int32_t i = lu_ticket(s.ticket); i < s.n; i = lu_ticket(s.ticket)) {
    const int64_t a0 = s.awp[i], a1 = s.awp[i + 1];
    const int32_t iw = i >> 6;
    if (a0 == a1) { /* empty row: no pivot */
      if (lane == 0) {
        s.ps[i] = s.pu[i] = 0;
        s.pc[i] = 0;
        atomicMin(s.bad, i);
      }
      lu_publish(s.flag, i);
      continue;
    }
    const int32_t lo = s.awi[a0];
    int32_t hi = s.awi[a1 - 1];
    for (int64_t w = a0 + lane; w < a1; w += 32) M[s.awi[w]] = s.am[w];
    __syncwarp();
    /* columns k < i in ascending order, fill included (as bitmap_lu.c) */
    int32_t cur = lo;
    u64 done = 0;
    while (cur <= iw) {
      const u64 m = M[cur] & lu_below(cur, i) & ~done;
      if (!m) { /* the next word left of the diagonal with a bit set */
        int32_t next = iw + 1;
        for (int32_t base = cur + 1; base <= iw; base += 32) {
          const int32_t w = base + lane;
          const u64 x = w <= iw ? M[w] & lu_below(w, i) : 0;
          const unsigned b = __ballot_sync(EM_FULL_WARP, x != 0);
          if (b) {
            next = base + __ffs(b) - 1;
            break;
          }
        }
        cur = next;
        done = 0;
        continue;
      }
      const u64 bit = m & (~m + 1);
      done |= bit;
      const int32_t k = cur * 64 + __ffsll((long long)bit) - 1;
      lu_wait(s.flag, k);
      const int64_t u0 = __ldcg(s.pu + k), u1 = __ldcg(s.ps + k) + __ldcg(s.pc + k);
      __syncwarp(); /* every lane has read M[cur] before it changes */
      for (int64_t q = u0 + lane; q < u1; q += 32) {
        const int32_t wj = __ldcg(s.pw + q);
        u64 mm = __ldcg(s.pm + q);
        if (wj == cur) mm &= ~(bit | (bit - 1)); /* columns > k only */
        M[wj] |= mm;
        hi = max(hi, wj);
      }
      __syncwarp();
    }
    hi = __reduce_max_sync(EM_FULL_WARP, hi);
    const int diag = (int)((M[iw] >> (i & 63)) & 1);
    /* count the row's words, allocate them in the pool, write and clear */
    int64_t cnt = 0, left = 0;
    for (int32_t base = lo; base <= hi; base += 32) {
      const int32_t w = base + lane;
      const bool nz = w <= hi && M[w] != 0;
      cnt += __popc(__ballot_sync(EM_FULL_WARP, nz));
      left += __popc(__ballot_sync(EM_FULL_WARP, nz && w < iw));
    }
    int64_t at = 0;
    if (lane == 0) at = (int64_t)atomicAdd((unsigned long long *)s.used, (u64)cnt);
    at = __shfl_sync(EM_FULL_WARP, at, 0);
    const bool fits = at + cnt <= s.cap;
    int64_t pos = at;
    for (int32_t base = lo; base <= hi; base += 32) {
      const int32_t w = base + lane;
      const u64 x = w <= hi ? M[w] : 0;
      const unsigned b = __ballot_sync(EM_FULL_WARP, x != 0);
      if (x) {
        const int64_t p = pos + __popc(b & ((1u << lane) - 1));
        if (fits) {
          s.pw[p] = w;
          s.pm[p] = x;
        }
        M[w] = 0;
      }
      pos += __popc(b);
    }
    __syncwarp();
    if (lane == 0) {
      s.ps[i] = fits ? at : 0;
      s.pu[i] = fits ? at + left : 0;
      s.pc[i] = fits ? cnt : 0;
      if (!fits) atomicExch(s.overflow, 1);
      if (!diag) atomicMin(s.bad, i);
    }
    lu_publish(s.flag, i);
  }
}

/* the pool's rows in row order: row i's words to wptr[i] */
__global__ void __launch_bounds__(LU_THREADS)
    lu_compact(int32_t n, const int64_t *ps, const int64_t *wptr, const int32_t *pw, const u64 *pm,
               int32_t *widx, u64 *mask) {
  const int lane = threadIdx.x & 31;
  const int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (i >= n) return;
  const int64_t c = wptr[i + 1] - wptr[i];
  for (int64_t q = lane; q < c; q += 32) {
    widx[wptr[i] + q] = pw[ps[i] + q];
    mask[wptr[i] + q] = pm[ps[i] + q];
  }
}

/* pc[w] = popcount(mask[w]), pc[n_words] = 0 (for the scan to woff) */
__global__ void lu_popcount(int64_t n_words, const u64 *mask, int64_t *pc) {
  const int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (w <= n_words) pc[w] = w < n_words ? __popcll(mask[w]) : 0;
}

/* vptr[i] = woff[wptr[i]] */
__global__ void lu_vptr(int32_t n, const int64_t *wptr, const int64_t *woff, int64_t *vptr) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) vptr[i] = woff[wptr[i]];
}

/* x / y, scaled by the larger part of y (no overflow for large y) */
__device__ __forceinline__ double2 lu_cdiv(double2 x, double2 y) {
  if (fabs(y.x) >= fabs(y.y)) {
    const double r = y.y / y.x, d = y.x + y.y * r;
    return make_double2((x.x + x.y * r) / d, (x.y - x.x * r) / d);
  }
  const double r = y.x / y.y, d = y.x * r + y.y;
  return make_double2((x.x * r + x.y) / d, (x.y * r - x.x) / d);
}

/* the numeric factorization's device state (the LU pattern is final) */
struct lu_num {
  int32_t n, limit;          /* rows; rows >= limit are not factored */
  const int64_t *awp, *aoff; /* A: word pointers, value offset of each word */
  const int32_t *awi;
  const u64 *am;
  const double2 *av;
  const int64_t *wptr, *woff; /* LU: word pointers, value offset of each word */
  const int32_t *widx;
  const u64 *mask;
  double2 *val;
  int64_t *dpos; /* [n] position of u_ii */
  int *flag;     /* [n] row done */
  int *ticket;   /* next row */
  int32_t *bad;  /* smallest row with u_ii = 0 */
};

/* numeric: row i of L + U - I in place, one warp per row */
__global__ void __launch_bounds__(LU_THREADS) lu_numeric(lu_num s) {
  const int lane = threadIdx.x & 31;
  for (int32_t i = lu_ticket(s.ticket); i < s.limit; i = lu_ticket(s.ticket)) {
    const int64_t c0 = s.wptr[i], c1 = s.wptr[i + 1];
    const int32_t iw = i >> 6;
    for (int64_t p = s.woff[c0] + lane; p < s.woff[c1]; p += 32) s.val[p] = make_double2(0, 0);
    __syncwarp();
    for (int64_t w = s.awp[i] + lane; w < s.awp[i + 1]; w += 32) { /* scatter A(i, :) */
      const int64_t q = lu_find(s.widx, c0, c1, s.awi[w]);
      const u64 cm = s.mask[q];
      int64_t p = s.aoff[w];
      for (u64 m = s.am[w]; m; m &= m - 1)
        s.val[s.woff[q] + __popcll(cm & ((m & (~m + 1)) - 1))] = s.av[p++];
    }
    __syncwarp();
    for (int64_t q = c0; q < c1 && s.widx[q] <= iw; q++) {
      const int32_t wq = s.widx[q];
      for (u64 m = s.mask[q] & lu_below(wq, i); m; m &= m - 1) {
        const u64 bit = m & (~m + 1);
        const int32_t k = wq * 64 + __ffsll((long long)bit) - 1;
        lu_wait(s.flag, k);
        const int64_t pik = s.woff[q] + __popcll(s.mask[q] & (bit - 1));
        const double2 l = lu_cdiv(s.val[pik], __ldcg(s.val + __ldcg(s.dpos + k)));
        __syncwarp(); /* every lane has read a_ik */
        if (lane == 0) s.val[pik] = l;
        const int64_t k1 = s.wptr[k + 1];
        const double2 ml = make_double2(-l.x, -l.y);
        for (int64_t r = lu_find(s.widx, s.wptr[k], k1, wq) + lane; r < k1; r += 32) {
          const int32_t wj = s.widx[r];
          const u64 km = s.mask[r];
          const u64 um = wj == wq ? km & ~(bit | (bit - 1)) : km; /* columns > k */
          if (!um) continue;
          const int64_t t = lu_find(s.widx, q, c1, wj); /* U(k, :) is in row i's pattern */
          const u64 tm = s.mask[t];
          for (u64 b = um; b; b &= b - 1) {
            const u64 lb = (b & (~b + 1)) - 1;
            const double2 u = __ldcg(s.val + s.woff[r] + __popcll(km & lb));
            double2 *e = s.val + s.woff[t] + __popcll(tm & lb);
            *e = em_cfma(ml, u, *e);
          }
        }
        __syncwarp();
      }
    }
    const int64_t d = lu_find(s.widx, c0, c1, iw); /* the diagonal is in the pattern */
    const int64_t dp = s.woff[d] + __popcll(s.mask[d] & ((1ull << (i & 63)) - 1));
    if (lane == 0) {
      s.dpos[i] = dp;
      const double2 u = s.val[dp];
      if (u.x == 0 && u.y == 0) atomicMin(s.bad, i);
    }
    lu_publish(s.flag, i);
  }
}

/* ----------------------------------------------------------- the host side */

/* woff[0..n_words] = value offset of each word (scan of popcounts) */
static em_err lu_woff(int64_t n_words, const u64 *mask, int64_t *woff) {
  int64_t *pc = NULL;
  em_err err = EM_OK;
  EM_FMT_ALLOC(pc, (size_t)(n_words + 1) * 8, "bitmap LU popcounts");
  if (!err) lu_popcount<<<(unsigned)((n_words + 256) / 256), 256>>>(n_words, mask, pc);
  EM_FMT_TRY(cudaGetLastError(), "bitmap LU popcount kernel");
  if (!err) err = em_bitmap_scan_cuda(pc, woff, n_words);
  em_dev_free(&pc);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* warps resident at once, capped so that the dense masks (nw words each)
 * stay under 512 MiB, and not more than rows */
static int lu_blocks(int32_t n, int32_t nw) {
  int dev = 0, sms = 1;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  int64_t warps = (int64_t)sms * 16 * LU_WARPS;
  const int64_t by_mem = ((int64_t)512 << 20) / ((int64_t)nw * 8);
  if (warps > by_mem) warps = by_mem;
  if (warps > n) warps = n;
  if (warps < 1) warps = 1;
  return (int)((warps + LU_WARPS - 1) / LU_WARPS);
}

/* a host bitmap's arrays on the device */
struct lu_dev {
  int64_t *wptr, *vptr, *woff;
  int32_t *widx;
  u64 *mask;
  double2 *val;
};

static void lu_dev_free(lu_dev *d) {
  em_dev_free(&d->wptr);
  em_dev_free(&d->vptr);
  em_dev_free(&d->woff);
  em_dev_free(&d->widx);
  em_dev_free(&d->mask);
  em_dev_free(&d->val);
  memset(d, 0, sizeof *d);
}

static em_err lu_upload(const em_bitmap *h, lu_dev *d) {
  memset(d, 0, sizeof *d);
  const size_t np = ((size_t)h->n_rows + 1) * 8;
  EM_TRY(em_dev_alloc((void **)&d->wptr, NULL, np, NULL, "bitmap LU: A's word pointers"));
  EM_TRY(em_dev_alloc((void **)&d->widx, NULL, (size_t)h->n_words * 4 + 4, NULL,
                      "bitmap LU: A's word indices"));
  EM_TRY(em_dev_alloc((void **)&d->mask, NULL, (size_t)h->n_words * 8 + 8, NULL,
                      "bitmap LU: A's masks"));
  EM_TRY(em_dev_alloc((void **)&d->woff, NULL, (size_t)h->n_words * 8 + 8, NULL,
                      "bitmap LU: A's word offsets"));
  EM_TRY(em_dev_alloc((void **)&d->val, NULL, (size_t)h->nnz * 16 + 16, NULL,
                      "bitmap LU: A's values"));
  EM_CUDA(cudaMemcpy(d->wptr, h->wptr, np, cudaMemcpyHostToDevice));
  EM_CUDA(cudaMemcpy(d->widx, h->widx, (size_t)h->n_words * 4, cudaMemcpyHostToDevice));
  EM_CUDA(cudaMemcpy(d->mask, h->mask, (size_t)h->n_words * 8, cudaMemcpyHostToDevice));
  EM_CUDA(cudaMemcpy(d->val, h->val, (size_t)h->nnz * 16, cudaMemcpyHostToDevice));
  EM_TRY(lu_woff(h->n_words, d->mask, d->woff));
  return EM_OK;
}

/* the symbolic pass until the pool holds every row: the LU's word
 * pointers, indices and masks in c (device), the smallest row without a
 * diagonal in *bad (n when none) */
static em_err lu_pattern(const em_bitmap *a, const lu_dev *da, lu_dev *c, int64_t *n_words,
                         int32_t *bad) {
  const int32_t n = a->n_rows, nw = (a->n_cols + 63) / 64;
  const int blocks = lu_blocks(n, nw);
  lu_sym s;
  memset(&s, 0, sizeof s);
  s.n = n;
  s.nw = nw;
  s.awp = da->wptr;
  s.awi = da->widx;
  s.am = da->mask;
  int64_t cap = 2 * a->n_words + 2 * (int64_t)n + 1024;
  int *flags = NULL; /* flag[n], ticket, overflow, bad (int32) */
  em_err err = EM_OK;
  const size_t np = ((size_t)n + 1) * 8;
  EM_FMT_ALLOC(s.scratch, (size_t)blocks * LU_WARPS * nw * 8, "bitmap LU dense row masks");
  EM_FMT_TRY(cudaMemset(s.scratch, 0, (size_t)blocks * LU_WARPS * nw * 8), "cudaMemset(LU masks)");
  EM_FMT_ALLOC(s.ps, np, "bitmap LU pool row starts");
  EM_FMT_ALLOC(s.pu, np, "bitmap LU pool diagonal words");
  EM_FMT_ALLOC(s.pc, np, "bitmap LU row word counts");
  EM_FMT_ALLOC(s.used, 8, "bitmap LU pool fill");
  EM_FMT_ALLOC(flags, ((size_t)n + 3) * sizeof(int), "bitmap LU symbolic flags");
  for (int overflow = 1; !err && overflow;) {
    s.cap = cap;
    s.flag = flags;
    s.ticket = flags + n;
    s.overflow = flags + n + 1;
    s.bad = (int32_t *)(flags + n + 2);
    EM_FMT_ALLOC(s.pw, (size_t)cap * 4, "bitmap LU pool words");
    EM_FMT_ALLOC(s.pm, (size_t)cap * 8, "bitmap LU pool masks");
    EM_FMT_TRY(cudaMemset(flags, 0, ((size_t)n + 2) * sizeof(int)), "cudaMemset(LU flags)");
    EM_FMT_TRY(cudaMemcpy(s.bad, &n, 4, cudaMemcpyHostToDevice), "cudaMemcpy(LU flags)");
    EM_FMT_TRY(cudaMemset(s.used, 0, 8), "cudaMemset(LU pool)");
    if (!err) lu_symbolic<<<blocks, LU_THREADS>>>(s);
    EM_FMT_TRY(cudaGetLastError(), "bitmap LU symbolic kernel");
    int64_t used = 0;
    EM_FMT_TRY(cudaMemcpy(&overflow, s.overflow, 4, cudaMemcpyDeviceToHost),
               "cudaMemcpy(LU flags)");
    EM_FMT_TRY(cudaMemcpy(&used, s.used, 8, cudaMemcpyDeviceToHost), "cudaMemcpy(LU pool)");
    if (!err && overflow) { /* rerun with room for at least twice as much */
      em_dev_free(&s.pw);
      em_dev_free(&s.pm);
      cap = 2 * (used > cap ? used : cap);
    }
  }
  EM_FMT_TRY(cudaMemcpy(bad, s.bad, 4, cudaMemcpyDeviceToHost), "cudaMemcpy(LU flags)");
  EM_FMT_ALLOC(c->wptr, np, "bitmap LU word pointers");
  if (!err) err = em_bitmap_scan_cuda(s.pc, c->wptr, n);
  EM_FMT_TRY(cudaMemcpy(n_words, c->wptr + n, 8, cudaMemcpyDeviceToHost), "cudaMemcpy(LU words)");
  EM_FMT_ALLOC(c->widx, (size_t)*n_words * 4 + 4, "bitmap LU word indices");
  EM_FMT_ALLOC(c->mask, (size_t)*n_words * 8 + 8, "bitmap LU masks");
  if (!err && n > 0)
    lu_compact<<<(unsigned)(((int64_t)n * 32 + LU_THREADS - 1) / LU_THREADS), LU_THREADS>>>(
        n, s.ps, c->wptr, s.pw, s.pm, c->widx, c->mask);
  EM_FMT_TRY(cudaGetLastError(), "bitmap LU compaction kernel");
  EM_FMT_TRY(cudaDeviceSynchronize(), "bitmap LU symbolic");
  em_dev_free(&s.scratch);
  em_dev_free(&s.ps);
  em_dev_free(&s.pu);
  em_dev_free(&s.pc);
  em_dev_free(&s.used);
  em_dev_free(&s.pw);
  em_dev_free(&s.pm);
  em_dev_free(&flags);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* the device LU as a CPU bitmap */
static em_err lu_download(const lu_dev *c, int32_t n, int64_t n_words, int64_t nnz, em_spmat **LU) {
  em_bitmap *h = NULL;
  const size_t np = (size_t)n + 1;
  em_err err = em_calloc(&h, 1, sizeof *h, "LU header");
  if (!err) {
    h->n_rows = h->n_cols = n;
    h->n_words = n_words;
    h->nnz = nnz;
    err = em_calloc(&h->wptr, np, sizeof *h->wptr, "LU word pointers");
  }
  if (!err) err = em_calloc(&h->vptr, np, sizeof *h->vptr, "LU value offsets");
  if (!err) err = em_calloc(&h->widx, (size_t)n_words + 1, sizeof *h->widx, "LU word indices");
  if (!err) err = em_calloc(&h->mask, (size_t)n_words + 1, sizeof *h->mask, "LU masks");
  if (!err) err = em_calloc(&h->val, (size_t)nnz + 1, 16, "LU values");
  EM_FMT_TRY(cudaMemcpy(h->wptr, c->wptr, np * 8, cudaMemcpyDeviceToHost), "cudaMemcpy(LU wptr)");
  EM_FMT_TRY(cudaMemcpy(h->vptr, c->vptr, np * 8, cudaMemcpyDeviceToHost), "cudaMemcpy(LU vptr)");
  EM_FMT_TRY(cudaMemcpy(h->widx, c->widx, (size_t)n_words * 4, cudaMemcpyDeviceToHost),
             "cudaMemcpy(LU widx)");
  EM_FMT_TRY(cudaMemcpy(h->mask, c->mask, (size_t)n_words * 8, cudaMemcpyDeviceToHost),
             "cudaMemcpy(LU masks)");
  EM_FMT_TRY(cudaMemcpy(h->val, c->val, (size_t)nnz * 16, cudaMemcpyDeviceToHost),
             "cudaMemcpy(LU values)");
  if (err) {
    em_bitmap_free(&h);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  EM_TRY(em_bitmap_wrap(&h, EM_PREC_DOUBLE, LU));
  return EM_OK;
}

extern "C" em_err em_bitmap_lu_cuda(const em_spmat *A, em_spmat **LU, double *ms) {
  const em_bitmap *a = NULL;
  EM_CHECK(LU, EM_ERR_ARG, "em_bitmap_lu_cuda: NULL output");
  *LU = NULL;
  if (ms) *ms = 0;
  EM_TRY(em_bitmap_host(A, "em_bitmap_lu_cuda", &a));
  EM_CHECK(a->n_rows == a->n_cols, EM_ERR_ARG,
           "em_bitmap_lu_cuda: the matrix is %d x %d, not square", a->n_rows, a->n_cols);
  EM_CHECK(A->info.prec == EM_PREC_DOUBLE, EM_ERR_UNSUPPORTED,
           "em_bitmap_lu_cuda: complex double only (the matrix is single)");
  const int32_t n = a->n_rows;
  lu_dev da, c;
  memset(&c, 0, sizeof c);
  int64_t n_words = 0, nnz = 0, *dpos = NULL;
  int32_t bad_sym = n, bad_num = n;
  int *flags = NULL;
  cudaEvent_t e[2] = {NULL, NULL};
  em_err err = lu_upload(a, &da);
  const size_t np = ((size_t)n + 1) * 8;
  EM_FMT_TRY(cudaEventCreate(&e[0]), "cudaEventCreate");
  EM_FMT_TRY(cudaEventCreate(&e[1]), "cudaEventCreate");
  EM_FMT_TRY(cudaEventRecord(e[0]), "cudaEventRecord");
  if (!err) err = lu_pattern(a, &da, &c, &n_words, &bad_sym);
  EM_FMT_ALLOC(c.woff, (size_t)n_words * 8 + 8, "bitmap LU word offsets");
  if (!err) err = lu_woff(n_words, c.mask, c.woff);
  EM_FMT_ALLOC(c.vptr, np, "bitmap LU value offsets");
  if (!err) lu_vptr<<<(unsigned)((n + 256) / 256), 256>>>(n, c.wptr, c.woff, c.vptr);
  EM_FMT_TRY(cudaGetLastError(), "bitmap LU vptr kernel");
  EM_FMT_TRY(cudaMemcpy(&nnz, c.woff + n_words, 8, cudaMemcpyDeviceToHost), "cudaMemcpy(LU nnz)");
  EM_FMT_ALLOC(c.val, (size_t)nnz * 16 + 16, "bitmap LU values");
  EM_FMT_ALLOC(dpos, np, "bitmap LU pivot positions");
  EM_FMT_ALLOC(flags, ((size_t)n + 2) * sizeof(int), "bitmap LU numeric flags");
  EM_FMT_TRY(cudaMemset(flags, 0, ((size_t)n + 1) * sizeof(int)), "cudaMemset(LU flags)");
  EM_FMT_TRY(cudaMemcpy(flags + n + 1, &n, 4, cudaMemcpyHostToDevice), "cudaMemcpy(LU flags)");
  if (!err && bad_sym > 0) {
    lu_num s = {
        n,      bad_sym, da.wptr, da.woff, da.widx, da.mask, da.val,    c.wptr,
        c.woff, c.widx,  c.mask,  c.val,   dpos,    flags,   flags + n, (int32_t *)(flags + n + 1)};
    lu_numeric<<<lu_blocks(bad_sym, 1), LU_THREADS>>>(s);
  }
  EM_FMT_TRY(cudaGetLastError(), "bitmap LU numeric kernel");
  EM_FMT_TRY(cudaEventRecord(e[1]), "cudaEventRecord");
  EM_FMT_TRY(cudaMemcpy(&bad_num, flags + n + 1, 4, cudaMemcpyDeviceToHost),
             "cudaMemcpy(LU flags)");
  if (!err && ms) {
    float t = 0;
    cudaEventElapsedTime(&t, e[0], e[1]);
    *ms = t;
  }
  const int32_t bad = bad_sym < bad_num ? bad_sym : bad_num;
  if (!err && bad < n)
    err = EM_RAISE(EM_ERR_NUMERIC, "bitmap LU: zero pivot at row %d (no pivoting)", bad);
  if (!err) err = lu_download(&c, n, n_words, nnz, LU);
  for (int q = 0; q < 2; q++)
    if (e[q]) cudaEventDestroy(e[q]);
  em_dev_free(&dpos);
  em_dev_free(&flags);
  lu_dev_free(&da);
  lu_dev_free(&c);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
