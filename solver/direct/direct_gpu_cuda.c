/* direct_gpu_cuda.c - the numeric LDL^T on the GPU (direct_gpu_impl.h):
 * the device copy of the symbolic structure, the level schedule, the
 * scatter map of A into the fronts (built once per pattern), the per-level
 * loop over small fronts (one kernel) and big fronts (cuBLAS on streams),
 * the memory estimate.  The solves: direct_gsolve_cuda.c.
 *
 * A big front of k pivot columns and m rows, in panels of PB columns:
 *
 *   P11 = L11 D L11^T              own kernel (b x b, unblocked)
 *   X   = P21 L11^-T  (= L21 D)     ZTRSM
 *   W   = X,  L21 = X D^-1          own kernel
 *   F(trailing pivot columns) -= W L21(top)^T          ZGEMM
 *
 * and at the end the update matrix U -= (L21 D) L21^T by ZSYRKX (complex
 * symmetric: transposes, never conjugates). */
#include <complex.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct_gpu_state.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* struct em_dgpu: direct_gpu_state.h */

/* ------------------------------------------------------------ schedule */

/* lfree[l] = the level after which level l's small update matrices (fronts
 * of order <= small, in one buffer per level) can go: the last level of
 * their parents, l when none. */
static void small_free_levels(const em_dsym *S, const int32_t *level, int32_t nlev, int small,
                              int32_t *lfree) {
  for (int32_t l = 0; l < nlev; l++) lfree[l] = l;
  for (int32_t s = 0; s < S->ns; s++)
    if (S->sparent[s] >= 0 && S->rptr[s + 1] - S->rptr[s] <= small &&
        level[S->sparent[s]] > lfree[level[s]])
      lfree[level[s]] = level[S->sparent[s]];
}

/* Levels (height in the supernodal tree) and the per-level lists. */
static em_err build_levels(const em_dsym *S, em_dgpu *g) {
  int32_t ns = S->ns;
  EM_TRY(em_calloc(&g->level, (size_t)ns + 1, sizeof *g->level, "supernode levels"));
  int32_t nlev = 0;
  for (int32_t s = 0; s < ns; s++) { /* postorder: children first */
    int32_t l = 0;
    for (int32_t c = s - 1; c >= S->first[s]; c = S->first[c] - 1)
      if (g->level[c] + 1 > l) l = g->level[c] + 1;
    g->level[s] = l;
    if (l + 1 > nlev) nlev = l + 1;
  }
  g->nlev = nlev;
  EM_TRY(em_calloc(&g->lev_ptr, (size_t)nlev + 2, sizeof *g->lev_ptr, "levels"));
  EM_TRY(em_calloc(&g->n_small, (size_t)nlev + 1, sizeof *g->n_small, "levels"));
  EM_TRY(em_calloc(&g->n_solve_small, (size_t)nlev + 1, sizeof *g->n_solve_small, "levels"));
  EM_TRY(em_calloc(&g->lev_sn, (size_t)ns + 1, sizeof *g->lev_sn, "levels"));
  EM_TRY(em_calloc(&g->solve_small, (size_t)ns + 1, sizeof *g->solve_small, "levels"));
  EM_TRY(em_calloc(&g->lev_free, (size_t)nlev + 1, sizeof *g->lev_free, "levels"));
  for (int32_t s = 0; s < ns; s++) g->lev_ptr[g->level[s] + 1]++;
  for (int32_t l = 0; l < nlev; l++) g->lev_ptr[l + 1] += g->lev_ptr[l];
  /* small fronts first, then big; the solve lists: small supernodes first */
  int32_t *fill = NULL;
  EM_TRY(em_calloc(&fill, (size_t)nlev + 1, sizeof *fill, "levels"));
  for (int pass = 0; pass < 2; pass++)
    for (int32_t s = 0; s < ns; s++) {
      int32_t l = g->level[s];
      int64_t m = S->rptr[s + 1] - S->rptr[s];
      int small = m <= g->small;
      if (small != (pass == 0)) continue;
      g->lev_sn[g->lev_ptr[l] + fill[l]++] = s;
      if (small) g->n_small[l]++;
    }
  memset(fill, 0, ((size_t)nlev + 1) * sizeof *fill);
  for (int pass = 0; pass < 2; pass++)
    for (int32_t s = 0; s < ns; s++) {
      int32_t l = g->level[s];
      int small = S->super[s + 1] - S->super[s] < EM_DG_SOLVE_BIG;
      if (small != (pass == 0)) continue;
      g->solve_small[g->lev_ptr[l] + fill[l]++] = s;
      if (small) g->n_solve_small[l]++;
    }
  em_free(&fill);
  small_free_levels(S, g->level, nlev, g->small, g->lev_free);
  return EM_OK;
}

/* The order up to which fronts go by the one-block kernel. */
static int small_max(const em_direct *F) {
  int v = F->opts.gpu_small;
  return v <= 0 ? EM_DG_SMALL : v > EM_DIRECT_GPU_SMALL_MAX ? EM_DIRECT_GPU_SMALL_MAX : v;
}

/* Entries of the workspace W of a big front (order > small): max(m NB, nb k). */
static int64_t w_entries(const em_dsym *S, int small) {
  int64_t w = 0;
  for (int32_t s = 0; s < S->ns; s++) {
    int64_t k = S->super[s + 1] - S->super[s], m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
    if (m <= small) continue;
    int64_t a = m * EM_DG_NB, b = nb * k;
    if (a > w) w = a;
    if (b > w) w = b;
  }
  return w;
}

/* Peak entries of update matrices alive under the level schedule: the one
 * of a big front (order > small) from its level until its parent's level
 * is done; a small front's lives in its level's one buffer, freed after
 * the last parent of that level's small fronts (small_free_levels). */
static int64_t cb_peak_levels(const em_dsym *S, const int32_t *level, int32_t nlev, int small) {
  int64_t *delta = NULL;
  int32_t *lfree = NULL;
  if (em_calloc(&delta, (size_t)nlev + 2, sizeof *delta, "update matrix peak") ||
      em_calloc(&lfree, (size_t)nlev + 1, sizeof *lfree, "update matrix peak")) {
    em_error_clear();
    em_free(&delta);
    return (int64_t)S->cb_peak * 4; /* a pessimistic guess */
  }
  small_free_levels(S, level, nlev, small, lfree);
  for (int32_t s = 0; s < S->ns; s++) {
    int64_t k = S->super[s + 1] - S->super[s], nb = S->rptr[s + 1] - S->rptr[s] - k;
    if (nb == 0) continue;
    int32_t until = S->rptr[s + 1] - S->rptr[s] <= small ? lfree[level[s]]
                    : S->sparent[s] >= 0                 ? level[S->sparent[s]]
                                                         : level[s];
    delta[level[s]] += nb * nb;
    delta[until + 1] -= nb * nb;
  }
  int64_t cur = 0, peak = 0;
  for (int32_t l = 0; l <= nlev; l++) {
    cur += delta[l];
    if (cur > peak) peak = cur;
  }
  em_free(&delta);
  em_free(&lfree);
  return peak;
}

double em_dgpu_estimate(const em_direct *F, em_prec prec, int64_t nnz_a) {
  const em_dsym *S = &F->S;
  double esz = prec == EM_PREC_SINGLE ? 8 : 16;
  int32_t *level = NULL;
  int32_t nlev = 0;
  double cb = 0;
  if (!em_calloc(&level, (size_t)S->ns + 1, sizeof *level, "levels")) {
    for (int32_t s = 0; s < S->ns; s++) {
      int32_t l = 0;
      for (int32_t c = s - 1; c >= S->first[s]; c = S->first[c] - 1)
        if (level[c] + 1 > l) l = level[c] + 1;
      level[s] = l;
      if (l + 1 > nlev) nlev = l + 1;
    }
    cb = (double)cb_peak_levels(S, level, nlev, small_max(F));
    em_free(&level);
  } else {
    em_error_clear();
    cb = 4.0 * (double)S->cb_peak;
  }
  double factor = esz * ((double)S->lptr[S->ns] + S->n);
  double sym = 8.0 * (double)S->rptr[S->ns] + 32.0 * S->ns + 12.0 * S->n;
  double work = esz * (double)EM_DG_STREAMS * (double)w_entries(S, small_max(F));
  /* half the entries: dest (their values' staging, 16 B each, is gone
     before the fronts: factor + values < factor + update matrices) */
  double avals = 8.0 * (double)(nnz_a + S->n) / 2;
  double solve = 16.0 * 2 * (double)S->n;
  /* variant trinv 1: the wide supernodes' inverse diagonal blocks (they live
     after the fronts, counted on top all the same); with trinv 2 they are
     built at the first solve of several columns if the memory is there
     (direct_gsolve_cuda.c), so a run of one-column solves is not refused
     for them */
  const em_direct_gsolve *go = &F->opts.gsolve;
  double inv = go->trinv == 1 ? esz * (double)em_dgpu_linv_entries(S, go->trinv_max) : 0;
  return factor + sym + esz * cb + work + avals + solve + inv;
}

/* ------------------------------------------------------------- set-up */

void em_dgpu_destroy(em_dgpu **gp) {
  em_dgpu *g = *gp;
  if (!g) return;
  cudaDeviceSynchronize();
  for (int i = 0; i < 6; i++) em_dev_free(&g->sym[i]);
  em_dev_free(&g->perm);
  em_dev_free(&g->r_old);
  em_dev_free(&g->lval);
  em_dev_free(&g->d);
  em_dev_free(&g->piv);
  em_dev_free(&g->d_lev_sn);
  em_dev_free(&g->d_solve_sn);
  em_dev_free(&g->cb_dev);
  em_dev_free(&g->dest);
  em_dev_free(&g->vals);
  em_dev_free(&g->y);
  em_dgpu_linv_free(g);
  for (int i = 0; i <= EM_DG_STREAMS; i++) {
    em_dev_free(&g->W[i]);
    em_dev_free(&g->t[i]);
    em_dev_free(&g->ys[i]);
    em_dev_free(&g->yi[i]);
    if (g->join[i]) cudaEventDestroy(g->join[i]);
    if (g->fblas[i]) cublasDestroy(g->fblas[i]);
    if (g->st[i]) cudaStreamDestroy(g->st[i]);
    if (g->cfork[i]) cudaEventDestroy(g->cfork[i]);
    for (int q = 0; q < EM_DG_COLS; q++) {
      if (g->cjoin[i][q]) cudaEventDestroy(g->cjoin[i][q]);
      if (g->cst[i][q]) cudaStreamDestroy(g->cst[i][q]);
    }
  }
  em_dgp_destroy(g);
  if (g->cb_host) cudaFreeHost(g->cb_host);
  for (int i = 0; i < EM_DG_RING; i++) {
    if (g->ring[i]) cudaFreeHost(g->ring[i]);
    if (g->ring_ev[i]) cudaEventDestroy(g->ring_ev[i]);
  }
  if (g->blas) cublasDestroy(g->blas);
  em_free(&g->lev_ptr);
  em_free(&g->n_small);
  em_free(&g->n_solve_small);
  em_free(&g->lev_sn);
  em_free(&g->solve_small);
  em_free(&g->level);
  em_free(&g->lev_buf);
  em_free(&g->lev_free);
  em_free(&g->sel_cnt);
  (void)cudaGetLastError();
  em_free(gp);
}

em_err em_dgpu_alloc(em_dgpu *g, void **p, const void *h, size_t bytes, const char *what) {
  return em_dev_alloc(p, h, bytes, &g->bytes, what);
}

/* The device state of F: symbolic arrays, schedule, factor storage. */
static em_err dgpu_create(em_direct *F, em_prec prec, em_dgpu **out) {
  const em_dsym *S = &F->S;
  em_err err = EM_OK;
  em_dgpu *g = NULL;
  EM_TRY(em_calloc(&g, 1, sizeof *g, "GPU factor"));
  g->single = prec == EM_PREC_SINGLE;
  g->esz = g->single ? 8 : 16;
  g->big_nb = g->big_k = -1;
  g->small = small_max(F);
  int dev = 0;
  g->sms = 132;
  if (cudaGetDevice(&dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    g->sms = 132;
  em_dg_level_limits(g->single, g->lev_lim); /* once: not at every solve's launch */
  EM_CUBLAS_GOTO(err, cublasCreate(&g->blas), fail);
  for (int i = 0; i <= EM_DG_STREAMS; i++) {
    EM_CUDA_GOTO(err, cudaStreamCreateWithFlags(&g->st[i], cudaStreamNonBlocking), fail);
    EM_CUDA_GOTO(err, cudaEventCreateWithFlags(&g->join[i], cudaEventDisableTiming), fail);
    if (i > 0) {
      EM_CUBLAS_GOTO(err, cublasCreate(&g->fblas[i]), fail);
      EM_CUBLAS_GOTO(err, cublasSetStream(g->fblas[i], g->st[i]), fail);
    }
  }
  int32_t ns = S->ns;
  int64_t nr = S->rptr[ns];
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->sym[0], S->super, 4 * ((size_t)ns + 1), "supernodes"),
              fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->sym[1], S->first, 4 * ((size_t)ns + 1), "subtrees"), fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->sym[2], S->rptr, 8 * ((size_t)ns + 1), "row offsets"),
              fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->sym[3], S->rows, 4 * (size_t)nr, "row indices"), fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->sym[4], S->prel, 4 * (size_t)nr, "relative rows"), fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->sym[5], S->lptr, 8 * ((size_t)ns + 1), "block offsets"),
              fail);
  g->S = (em_dg_sym){g->sym[0], g->sym[1], g->sym[2], g->sym[3], g->sym[4], g->sym[5]};
  EM_TRY_GOTO(err, em_dgpu_alloc(g, (void **)&g->perm, S->perm, 4 * (size_t)S->n, "permutation"),
              fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, (void **)&g->r_old, NULL, 8 * (size_t)S->n, "equilibration"),
              fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->lval, NULL, g->esz * (size_t)S->lptr[ns], "factor L"),
              fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->d, NULL, g->esz * (size_t)S->n, "factor D"), fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, (void **)&g->piv, NULL, sizeof(em_dg_piv), "pivot statistics"),
              fail);
  EM_TRY_GOTO(err, build_levels(S, g), fail);
  EM_TRY_GOTO(err,
              em_dgpu_alloc(g, (void **)&g->d_lev_sn, g->lev_sn, 4 * ((size_t)ns + 1), "levels"),
              fail);
  EM_TRY_GOTO(err,
              em_dgpu_alloc(g, (void **)&g->d_solve_sn, g->solve_small, 4 * ((size_t)ns + 1),
                            "solve levels"),
              fail);
  EM_CUDA_GOTO(err, cudaMallocHost((void **)&g->cb_host, sizeof(void *) * ((size_t)ns + 1)), fail);
  memset(g->cb_host, 0, sizeof(void *) * ((size_t)ns + 1));
  EM_TRY_GOTO(err,
              em_dgpu_alloc(g, (void **)&g->cb_dev, g->cb_host, sizeof(void *) * ((size_t)ns + 1),
                            "update matrix table"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&g->lev_buf, (size_t)g->nlev + 1, sizeof *g->lev_buf, "levels"), fail);
  g->w_entries = (size_t)w_entries(S, g->small);
  for (int i = 1; i <= EM_DG_STREAMS && g->w_entries > 0; i++)
    EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->W[i], NULL, g->esz * g->w_entries, "front workspace"),
                fail);
  *out = g;
  return EM_OK;
fail:
  em_dgpu_destroy(&g);
  return err;
}

/* The pinned ring of the uploads (made once per factor). */
static em_err ring_make(em_dgpu *g) {
  for (int i = 0; i < EM_DG_RING; i++) {
    if (!g->ring[i]) EM_CUDA(cudaMallocHost(&g->ring[i], EM_DG_RING_BYTES));
    if (!g->ring_ev[i]) EM_CUDA(cudaEventCreateWithFlags(&g->ring_ev[i], cudaEventDisableTiming));
  }
  return EM_OK;
}

/* The next ring buffer, once its last copy is done. */
static em_err ring_take(em_dgpu *g, int *b, void **buf) {
  *b = (*b + 1) % EM_DG_RING;
  EM_CUDA(cudaEventSynchronize(g->ring_ev[*b]));
  *buf = g->ring[*b];
  return EM_OK;
}

/* dst[0 .. n) = src on the device, through the ring: each chunk copied
 * into a pinned buffer by the host threads while the one before goes over
 * the bus (a pageable copy stages through the driver's own buffer, one
 * thread; a pinned copy of the whole wants a pinned allocation as large,
 * ~0.3 s a GB to make). */
static em_err ring_upload(em_dgpu *g, void *dst, const void *src, size_t n, cudaStream_t st) {
  EM_TRY(ring_make(g));
  int b = -1;
  for (size_t o = 0; o < n; o += EM_DG_RING_BYTES) {
    size_t m = n - o < EM_DG_RING_BYTES ? n - o : EM_DG_RING_BYTES;
    void *buf = NULL;
    EM_TRY(ring_take(g, &b, &buf));
#pragma omp parallel for schedule(static) if (m > ((size_t)1 << 20))
    for (int k = 0; k < 16; k++) {
      size_t k0 = m * k / 16, k1 = m * (k + 1) / 16;
      memcpy((char *)buf + k0, (const char *)src + o + k0, k1 - k0);
    }
    EM_CUDA(cudaMemcpyAsync((char *)dst + o, buf, m, cudaMemcpyHostToDevice, st));
    EM_CUDA(cudaEventRecord(g->ring_ev[b], st));
  }
  return EM_OK;
}

/* The scaled values of the selected entries in the map's order (row u by
 * row, each row's entries in order: what build_map counted) into g->vals,
 * through the ring, a chunk of whole rows at a time: A_up (r_u r_p). */
static em_err upload_values(em_dgpu *g, const em_dsym *S, const em_csr *M, const double *r,
                            cudaStream_t st) {
  EM_TRY(ring_make(g));
  const int64_t *cnt = g->sel_cnt, cap = (int64_t)(EM_DG_RING_BYTES / sizeof(em_cplx));
  const int32_t *perm = S->perm;
  int32_t n = M->n_rows, u0 = 0;
  int b = -1;
  while (u0 < n) {
    int32_t lo = u0 + 1, hi = n; /* the most rows from u0 whose entries fit */
    EM_CHECK(cnt[u0 + 1] - cnt[u0] <= cap, EM_ERR_INTERNAL,
             "direct factorization (GPU): row %d has %lld entries, over the staging's %lld", u0,
             (long long)(cnt[u0 + 1] - cnt[u0]), (long long)cap);
    while (lo < hi) {
      int32_t mid = lo + (hi - lo + 1) / 2;
      if (cnt[mid] - cnt[u0] <= cap)
        lo = mid;
      else
        hi = mid - 1;
    }
    int32_t u1 = lo;
    int64_t q0 = cnt[u0];
    em_cplx *h = NULL;
    EM_TRY(ring_take(g, &b, (void **)&h));
#pragma omp parallel for schedule(dynamic, 512) if (cnt[u1] - q0 > 100000)
    for (int32_t u = u0; u < u1; u++) {
      int64_t q = cnt[u] - q0;
      for (int64_t p = M->rowptr[u]; p < M->rowptr[u + 1]; p++) {
        int32_t c = M->colind[p];
        if (perm[c] < perm[u]) continue;
        h[q++] = M->val[p] * (r[u] * r[c]);
      }
    }
    EM_CUDA(cudaMemcpyAsync((em_cplx *)g->vals + q0, h, (size_t)(cnt[u1] - q0) * sizeof(em_cplx),
                            cudaMemcpyHostToDevice, st));
    EM_CUDA(cudaEventRecord(g->ring_ev[b], st));
    u0 = u1;
  }
  return EM_OK;
}

/* The entries of A in the lower triangle of P A P^T and their places in
 * L: the count per row (sel_cnt) on the host, dest on the device. */
static em_err build_map(em_direct *F, em_dgpu *g, const em_csr *A) {
  const em_dsym *S = &F->S;
  em_err err = EM_OK;
  int32_t n = S->n, *iperm = NULL;
  int64_t *cnt = NULL, *dest = NULL;
  em_free(&g->sel_cnt);
  em_dev_free(&g->dest);
  em_dev_free(&g->vals);
  EM_TRY(em_calloc(&iperm, (size_t)n + 1, sizeof *iperm, "inverse permutation"));
#pragma omp parallel for schedule(static) if (n > 100000)
  for (int32_t u = 0; u < n; u++) iperm[S->perm[u]] = u;
  /* in parallel: at 1M unknowns the count runs over 110M entries with a
     random read of perm each */
  EM_TRY_GOTO(err, em_calloc(&cnt, (size_t)n + 1, sizeof *cnt, "scatter counts"), done);
#pragma omp parallel for schedule(dynamic, 256) if (n > 10000)
  for (int32_t u = 0; u < n; u++) {
    int64_t c = 0;
    for (int64_t p = A->rowptr[u]; p < A->rowptr[u + 1]; p++)
      c += S->perm[A->colind[p]] >= S->perm[u];
    cnt[u + 1] = c;
  }
  for (int32_t u = 0; u < n; u++) cnt[u + 1] += cnt[u];
  int64_t nsel = cnt[n];
  EM_TRY_GOTO(err, em_calloc(&dest, (size_t)nsel + 1, sizeof *dest, "scatter map"), done);
  int bad = 0, nomem = 0;
  /* supernode by supernode, each thread with a table pos[row] = 1 + the
     row's place among the supernode's m rows (set for them, cleared
     after): an entry's place in one read, where a binary search per entry
     took ~0.7 s for the 1M DRA's 55.7M entries on 16 threads */
#pragma omp parallel reduction(| : bad, nomem) if (n > 10000)
  {
    int32_t *pos = NULL;
    if (em_calloc(&pos, (size_t)n + 1, sizeof *pos, "scatter map rows")) pos = NULL;
#pragma omp for schedule(dynamic, 16)
    for (int32_t s = 0; s < S->ns; s++) {
      if (!pos) {
        nomem = 1;
        continue;
      }
      int64_t m = S->rptr[s + 1] - S->rptr[s];
      const int32_t *rows = S->rows + S->rptr[s];
      for (int64_t t = 0; t < m; t++) pos[rows[t]] = (int32_t)t + 1;
      for (int32_t j = S->super[s]; j < S->super[s + 1]; j++) {
        int32_t u = iperm[j];
        int64_t q = cnt[u];
        for (int64_t p = A->rowptr[u]; p < A->rowptr[u + 1]; p++) {
          int32_t i = S->perm[A->colind[p]];
          if (i < j) continue;
          if (!pos[i]) {
            bad = 1;
            continue;
          }
          dest[q++] = S->lptr[s] + (pos[i] - 1) + (int64_t)(j - S->super[s]) * m;
        }
      }
      for (int64_t t = 0; t < m; t++) pos[rows[t]] = 0;
    }
    em_free(&pos);
  }
  if (nomem) {
    err = EM_RAISE(EM_ERR_MEMORY,
                   "direct factorization (GPU): no memory for the scatter map's row tables (one "
                   "of %d rows per thread)",
                   n);
    goto done;
  }
  if (bad) {
    err = EM_RAISE(EM_ERR_ARG,
                   "direct factorization (GPU): the matrix has entries outside the analysed "
                   "pattern (analyse the new pattern first)");
    goto done;
  }
  g->n_sel = nsel;
  EM_TRY_GOTO(err, em_dgpu_alloc(g, (void **)&g->dest, NULL, 8 * (size_t)nsel, "scatter map"),
              done);
  EM_TRY_GOTO(err, ring_upload(g, g->dest, dest, 8 * (size_t)nsel, g->st[0]), done);
  /* the ring's copies read pinned buffers only: dest may go now */
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &g->vals, NULL, 16 * (size_t)nsel, "values of A"), done);
  g->sel_cnt = cnt, cnt = NULL;
  g->pattern_hash = em_spmat_pattern_hash(A); /* the map is rebuilt when it changes */
  g->nnz_pattern = A->nnz;
done:
  em_free(&iperm);
  em_free(&cnt);
  em_free(&dest);
  return err;
}

/* ------------------------------------------------------------ numeric */

/* cuBLAS of the factor's precision. */
static em_err trsm_right(const em_dgpu *g, cublasHandle_t h, int M, int b, const void *P, int ld,
                         void *X) {
  if (g->single) {
    const cuComplex one = {1, 0};
    EM_CUBLAS(cublasCtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                          CUBLAS_DIAG_UNIT, M, b, &one, P, ld, X, ld));
  } else {
    const cuDoubleComplex one = {1, 0};
    EM_CUBLAS(cublasZtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                          CUBLAS_DIAG_UNIT, M, b, &one, P, ld, X, ld));
  }
  return EM_OK;
}

/* C -= A B^T (C M x N, A M x K, B N x K) */
static em_err gemm_nt(const em_dgpu *g, cublasHandle_t h, int M, int N, int K, const void *A,
                      int lda, const void *B, int ldb, void *C, int ldc) {
  if (g->single) {
    const cuComplex one = {1, 0}, mone = {-1, 0};
    EM_CUBLAS(
        cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, M, N, K, &mone, A, lda, B, ldb, &one, C, ldc));
  } else {
    const cuDoubleComplex one = {1, 0}, mone = {-1, 0};
    EM_CUBLAS(
        cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, M, N, K, &mone, A, lda, B, ldb, &one, C, ldc));
  }
  return EM_OK;
}

/* C (lower) -= A B^T, C N x N, A and B N x K, result symmetric */
static em_err syrkx(const em_dgpu *g, cublasHandle_t h, int N, int K, const void *A, int lda,
                    const void *B, int ldb, void *C, int ldc) {
  if (g->single) {
    const cuComplex one = {1, 0}, mone = {-1, 0};
    EM_CUBLAS(cublasCsyrkx(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, N, K, &mone, A, lda, B, ldb,
                           &one, C, ldc));
  } else {
    const cuDoubleComplex one = {1, 0}, mone = {-1, 0};
    EM_CUBLAS(cublasZsyrkx(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, N, K, &mone, A, lda, B, ldb,
                           &one, C, ldc));
  }
  return EM_OK;
}

/* Big front s on stream slot i (its update matrix allocated already):
 * blocks of NB pivot columns, each factored in panels of PB that update
 * only the block's own columns; the columns right of a block get its
 * update in one ZGEMM of inner dimension NB. */
static em_err big_front(em_direct *F, em_dgpu *g, int32_t s, int i, double tau) {
  const em_dsym *S = &F->S;
  cudaStream_t st = g->st[i];
  int64_t c0 = S->super[s], k = S->super[s + 1] - c0, m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
  void *L = AT(g->lval, S->lptr[s]), *W = g->W[i], *cb = g->cb_host[s];
  cublasHandle_t h = g->fblas[i]; /* bound to st */
  EM_TRY(em_dg_extend_add(g->S, s, g->lval, g->cb_dev, g->single, st));
  for (int64_t J0 = 0; J0 < k; J0 += EM_DG_NB) {
    int64_t Bk = k - J0 < EM_DG_NB ? k - J0 : EM_DG_NB, J1 = J0 + Bk;
    for (int64_t j0 = J0; j0 < J1; j0 += EM_DG_PB) {
      int b = (int)(J1 - j0 < EM_DG_PB ? J1 - j0 : EM_DG_PB);
      int64_t M = m - j0 - b, N = J1 - j0 - b;
      void *P = AT(L, j0 + j0 * m);
      EM_TRY(em_dg_diag_ldlt(P, m, b, AT(g->d, c0 + j0), c0 + j0, tau, g->piv, g->single, st));
      if (M == 0) continue;
      void *X = AT(P, b);
      EM_TRY(trsm_right(g, h, (int)M, b, P, (int)m, X));
      EM_TRY(em_dg_scale_cols(M, b, X, m, AT(g->d, c0 + j0), W, M, g->single, st));
      if (N > 0)
        EM_TRY(gemm_nt(g, h, (int)M, (int)N, b, W, (int)M, X, (int)m, AT(X, b * m), (int)m));
    }
    int64_t M = m - J1, N = k - J1;
    if (N > 0) { /* F(J1.., J1..k) -= (L D)(J1.., J0..J1) L(J1..k, J0..J1)^T */
      void *Lb = AT(L, J1 + J0 * m);
      EM_TRY(em_dg_make_w(M, Bk, Lb, m, AT(g->d, c0 + J0), W, g->single, st));
      EM_TRY(gemm_nt(g, h, (int)M, (int)N, (int)Bk, W, (int)M, Lb, (int)m, AT(L, J1 + J1 * m),
                     (int)m));
    }
  }
  if (nb > 0) {
    EM_TRY(em_dg_make_w(nb, k, AT(L, k), m, AT(g->d, c0), W, g->single, st));
    EM_TRY(syrkx(g, h, (int)nb, (int)k, W, (int)nb, AT(L, k), (int)m, cb, (int)nb));
  }
  EM_TRY(em_dg_clean_l11(k, m, L, g->single, st));
  return EM_OK;
}

/* The big fronts lev_sn[q0..q1) of one level, front q on stream slot
 * 1 + (q - q0) % EM_DG_STREAMS (where its update matrix was allocated),
 * each slot's fronts issued by a host thread of its own with its own
 * cuBLAS handle: a level of a thousand fronts of ~20 launches each is
 * bound by one thread's launch rate (the 1M DRA's middle levels: 70-180
 * ms each from one thread for ~1-40 ms of GPU work).  The first error of
 * a thread is raised again here with its message (errors are per
 * thread). */
static em_err big_fronts(em_direct *F, em_dgpu *g, int32_t q0, int32_t q1, double tau) {
  int32_t nbig = q1 - q0;
  int nthr = nbig < EM_DG_STREAMS ? (int)nbig : EM_DG_STREAMS;
  if (nthr <= 1) {
    for (int32_t q = q0; q < q1; q++) EM_TRY(big_front(F, g, g->lev_sn[q], 1, tau));
    return EM_OK;
  }
  em_err errs[EM_DG_STREAMS] = {EM_OK};
  char msg[EM_DG_STREAMS][512];
#pragma omp parallel for num_threads(nthr) schedule(static, 1)
  for (int t = 0; t < nthr; t++) {
    /* nthr == EM_DG_STREAMS, or one front per thread: slot 1 + t either way */
    for (int32_t q = q0 + t; q < q1 && !errs[t]; q += nthr)
      errs[t] = big_front(F, g, g->lev_sn[q], 1 + t, tau);
    if (errs[t]) { /* the message moves to the caller's thread */
      snprintf(msg[t], sizeof msg[t], "%s", em_error_message());
      em_error_clear();
    }
  }
  for (int t = 0; t < nthr; t++)
    if (errs[t]) return EM_RAISE(errs[t], "%s", msg[t]);
  return EM_OK;
}

/* Release the update matrices of the children of s (big children only: the
 * small ones go with their level's buffer). */
static void free_children(const em_dsym *S, em_dgpu *g, int32_t s, cudaStream_t st) {
  for (int32_t c = s - 1; c >= S->first[s]; c = S->first[c] - 1)
    if (S->rptr[c + 1] - S->rptr[c] > g->small && g->cb_host[c]) {
      cudaFreeAsync(g->cb_host[c], st);
      g->cb_host[c] = NULL;
    }
}

static em_err sync_all(em_dgpu *g) {
  for (int i = 0; i <= EM_DG_STREAMS; i++) EM_CUDA(cudaStreamSynchronize(g->st[i]));
  return EM_OK;
}

/* *p = `bytes` from the stream-ordered pool on st; an error names the
 * array (what, id) and the size.  The update matrices do not go through
 * em_dev_alloc: each lives from its front's level until its parent has
 * added it, then goes back with cudaFreeAsync on the stream, and the pool
 * hands that memory to the next level without the device-wide
 * synchronisation of cudaMalloc / cudaFree. */
static em_err pool_alloc(void **p, size_t bytes, cudaStream_t st, const char *what, int32_t id) {
  char call[128];
  snprintf(call, sizeof call, "cudaMallocAsync of %zu bytes for %s %d", bytes, what, (int)id);
  EM_TRY(em_cuda_status((int)cudaMallocAsync(p, bytes, st), call, __FILE__, __LINE__));
  return EM_OK;
}

/* The device's default memory pool (the update matrices' cudaMallocAsync)
 * keeps what the levels free while they run: with its default release
 * threshold 0 every level's synchronisation hands the freed memory back
 * to the driver and the next level's allocations ask for it again (the
 * 1M DRA's level 0: 44 ms around a 1.3 ms kernel).  pool_release trims it
 * and restores the threshold: the memory goes back for the solver and
 * the rest of the run.  A failure here only costs that time. */
static void pool_keep(cudaMemPool_t *pool, uint64_t *old) {
  int dev = 0;
  *pool = NULL;
  uint64_t keep = UINT64_MAX;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetDefaultMemPool(pool, dev) != cudaSuccess ||
      cudaMemPoolGetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, old) != cudaSuccess ||
      cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
    *pool = NULL;
    (void)cudaGetLastError();
  }
}

static void pool_release(cudaMemPool_t pool, uint64_t old) {
  if (!pool) return;
  if (cudaMemPoolTrimTo(pool, 0) != cudaSuccess ||
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &old) != cudaSuccess)
    (void)cudaGetLastError();
}

/* One level: the small fronts in one launch, the big ones on the streams;
 * its time in the verbose log (the small fronts' kernel timed by events). */
static em_err factor_level(em_direct *F, em_dgpu *g, int32_t l, double tau, const em_log *log) {
  double tw = em_wtime();
  const em_dsym *S = &F->S;
  int32_t p0 = g->lev_ptr[l], ns_small = g->n_small[l], p1 = g->lev_ptr[l + 1];
  /* one buffer for the small fronts' update matrices */
  int64_t tot = 0;
  for (int32_t q = p0; q < p0 + ns_small; q++) {
    int32_t s = g->lev_sn[q];
    int64_t k = S->super[s + 1] - S->super[s], nb = S->rptr[s + 1] - S->rptr[s] - k;
    tot += nb * nb;
  }
  int32_t lo = INT32_MAX, hi = -1;
  if (tot > 0) {
    EM_TRY(pool_alloc(&g->lev_buf[l], (size_t)tot * g->esz, g->st[0],
                      "the small fronts' update matrices of level", l));
    int64_t off = 0;
    for (int32_t q = p0; q < p0 + ns_small; q++) {
      int32_t s = g->lev_sn[q];
      int64_t k = S->super[s + 1] - S->super[s], nb = S->rptr[s + 1] - S->rptr[s] - k;
      g->cb_host[s] = nb > 0 ? AT(g->lev_buf[l], off) : NULL;
      off += nb * nb;
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
  }
  for (int32_t q = p0 + ns_small; q < p1; q++) { /* big fronts' update matrices */
    int32_t s = g->lev_sn[q];
    int64_t k = S->super[s + 1] - S->super[s], nb = S->rptr[s + 1] - S->rptr[s] - k;
    cudaStream_t st = g->st[1 + (q - p0 - ns_small) % EM_DG_STREAMS];
    g->cb_host[s] = NULL;
    if (nb > 0) {
      EM_TRY(pool_alloc(&g->cb_host[s], (size_t)(nb * nb) * g->esz, st,
                        "the update matrix of supernode", s));
      EM_CUDA(cudaMemsetAsync(g->cb_host[s], 0, (size_t)(nb * nb) * g->esz, st));
    }
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  if (hi >= lo) { /* publish the new table entries (pinned: waits for nothing) */
    EM_CUDA(cudaMemcpyAsync(g->cb_dev + lo, g->cb_host + lo, sizeof(void *) * (size_t)(hi - lo + 1),
                            cudaMemcpyHostToDevice, g->st[0]));
    EM_CUDA(cudaStreamSynchronize(g->st[0]));
  }
  cudaEvent_t ev[2] = {NULL, NULL};
  int timed = log && log->level >= EM_LOG_VERBOSE;
  if (timed) {
    cudaEventCreate(&ev[0]);
    cudaEventCreate(&ev[1]);
    cudaEventRecord(ev[0], g->st[0]);
  }
  EM_TRY(em_dg_small_fronts(g->S, g->d_lev_sn + p0, ns_small, g->lval, g->d, g->cb_dev, tau, g->piv,
                            g->single, g->st[0]));
  if (timed) cudaEventRecord(ev[1], g->st[0]);
  EM_TRY(big_fronts(F, g, p0 + ns_small, p1, tau));
  EM_TRY(sync_all(g));
  if (timed) {
    float ms = 0;
    cudaEventElapsedTime(&ms, ev[0], ev[1]);
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    double fs = 0, fb = 0;
    for (int32_t q = p0; q < p1; q++) *(q < p0 + ns_small ? &fs : &fb) += S->work[g->lev_sn[q]];
    em_log_verbose(log,
                   "direct GPU level %2d: %6d small fronts %8.2f GFlop %8.2f ms | %4d big "
                   "%9.2f GFlop | level %8.2f ms",
                   l, ns_small, fs * 1e-9, ms, p1 - p0 - ns_small, fb * 1e-9,
                   (em_wtime() - tw) * 1e3);
  }
  /* children consumed: free what no later level needs */
  for (int32_t q = p0; q < p1; q++) free_children(S, g, g->lev_sn[q], g->st[0]);
  for (int32_t m = 0; m <= l; m++)
    if (g->lev_buf[m] && g->lev_free[m] <= l) {
      EM_CUDA(cudaFreeAsync(g->lev_buf[m], g->st[0]));
      g->lev_buf[m] = NULL;
    }
  return EM_OK;
}

em_err em_direct_numeric_cuda(em_direct *F, const em_csr *M, const double *r, double smax,
                              const em_log *log) {
  const em_dsym *S = &F->S;
  em_err err = EM_OK;
  double t_setup = em_wtime();
  int fresh = !F->gpu;
  cudaMemPool_t pool = NULL; /* kept while the levels run (pool_keep) */
  uint64_t pool_old = 0;
  if (!F->gpu) {
    size_t free_b = 0, total_b = 0;
    EM_CUDA(cudaMemGetInfo(&free_b, &total_b));
    double need = em_dgpu_estimate(F, F->opts.prec, M->nnz);
    F->info.bytes_gpu = (size_t)need;
    if (need > 0.92 * (double)free_b)
      return EM_RAISE(EM_ERR_GPU_MEMORY,
                      "direct factorization on the GPU needs ~%.2f GiB, %.2f GiB of %.2f GiB "
                      "are free",
                      need / GIB, (double)free_b / GIB, (double)total_b / GIB);
    EM_TRY(dgpu_create(F, F->opts.prec, &F->gpu));
    em_log_info(log,
                "direct: GPU factor in complex %s, %d levels, ~%.2f GiB of device memory (%.2f "
                "GiB free); its structure on the GPU in %.2f s",
                F->gpu->single ? "single" : "double", F->gpu->nlev, need / GIB,
                (double)free_b / GIB, em_wtime() - t_setup);
    /* the solves' split: level kernels (up to 8 columns a pass) and the
       wide supernodes' cuBLAS calls (one after another, per column block) */
    int32_t small = 0, wide_max = 0;
    for (int32_t l = 0; l < F->gpu->nlev; l++) small += F->gpu->n_solve_small[l];
    for (int32_t s = 0; s < S->ns; s++)
      if (S->super[s + 1] - S->super[s] > wide_max) wide_max = S->super[s + 1] - S->super[s];
    em_log_verbose(log,
                   "direct: GPU solves: %d supernodes by the level kernels, %d of %d to %d "
                   "columns through cuBLAS",
                   small, S->ns - small, EM_DG_SOLVE_BIG, wide_max);
  }
  em_dgpu *g = F->gpu;
  em_dgpu_linv_free(g); /* trinv: the inverses of the old factor */
  g->linv_nofit = 0;
  double t_vals = em_wtime();
  for (int i = 1; i <= EM_DG_STREAMS && g->w_entries > 0; i++) /* freed after the last one */
    if (!g->W[i])
      EM_TRY(em_dgpu_alloc(g, &g->W[i], NULL, g->esz * g->w_entries, "front workspace"));
  double t_map = 0;
  if (!g->dest || g->nnz_pattern != M->nnz || g->pattern_hash != em_spmat_pattern_hash(M)) {
    t_map = em_wtime();
    EM_TRY(build_map(F, g, M));
    t_map = em_wtime() - t_map;
  }
  cudaStream_t s0 = g->st[0];
  /* the values' device staging lives only until they are scattered into L:
     not during the fronts (the update matrices' peak) nor the solves */
  size_t vbytes = 16 * (size_t)g->n_sel;
  if (!g->vals) EM_TRY(em_dgpu_alloc(g, &g->vals, NULL, vbytes, "values of A"));
  EM_CUDA(cudaMemcpyAsync(g->r_old, r, 8 * (size_t)S->n, cudaMemcpyHostToDevice, s0));
  /* the scaled values of the selected entries, row by row through the ring */
  EM_TRY(upload_values(g, S, M, r, s0));
  EM_CUDA(cudaMemsetAsync(g->lval, 0, g->esz * (size_t)S->lptr[S->ns], s0));
  EM_TRY(em_dg_scatter(g->n_sel, g->dest, g->vals, g->lval, g->single, s0));
  em_dg_piv piv0 = {0, LLONG_MAX, 0};
  EM_CUDA(cudaMemcpyAsync(g->piv, &piv0, sizeof piv0, cudaMemcpyHostToDevice, s0));
  EM_CUDA(cudaStreamSynchronize(s0));
  em_dev_free(&g->vals);
  g->bytes -= vbytes;
  /* a line of its own: the map's build (first factorization), the scaling
     and the upload take a second at 1M unknowns, before the first level */
  char why[64] = "";
  if (t_map > 0) snprintf(why, sizeof why, " (the scatter map's build %.2f s)", t_map);
  (fresh ? em_log_info : em_log_verbose)(log,
                                         "direct: %lld values of A scaled, uploaded and scattered "
                                         "into the factor's fronts in %.2f s%s",
                                         (long long)g->n_sel, em_wtime() - t_vals, why);
  double tau = F->opts.pivot_eps * smax;
  pool_keep(&pool, &pool_old);
  for (int32_t l = 0; l < g->nlev; l++) {
    if (em_cancelled(F->opts.cancel)) { /* a signal: stop between levels */
      err = EM_RAISE(EM_ERR_CANCELLED, "direct factorization (GPU): cancelled at level %d of %d", l,
                     g->nlev);
      goto fail;
    }
    EM_TRY_GOTO(err, factor_level(F, g, l, tau, log), fail);
  }
  EM_CUDA_GOTO(err, cudaStreamSynchronize(g->st[0]), fail); /* the last frees */
  pool_release(pool, pool_old); /* every update matrix was freed by its parent's level */
  pool = NULL;
  em_dg_piv piv;
  EM_CUDA(cudaMemcpy(&piv, g->piv, sizeof piv, cudaMemcpyDeviceToHost));
  F->info.perturbed = (int64_t)piv.perturbed;
  /* the big fronts' workspaces (EM_DG_STREAMS of them) are not needed by
     the solves: they go until the next factorization */
  for (int i = 1; i <= EM_DG_STREAMS; i++)
    if (g->W[i]) {
      em_dev_free(&g->W[i]);
      g->bytes -= g->esz * g->w_entries;
    }
  if (piv.bad != LLONG_MAX) {
    if (piv.bad_zero)
      return EM_RAISE(EM_ERR_NUMERIC,
                      "direct factorization: zero pivot at row %d (pivot perturbation is off: "
                      "pivot_eps = 0)",
                      S->iperm[piv.bad]);
    return EM_RAISE(EM_ERR_NUMERIC,
                    "direct factorization: the pivot of row %d is not finite (overflow or a "
                    "non-finite entry; LDL^T without pivoting cannot factor this matrix)",
                    S->iperm[piv.bad]);
  }
  /* trinv 1: L11^-1 of the wide supernodes for every solve; a block of
     columns the caller announced (block_columns): what its solves use
     (trinv 2's inverses, the work space) made now, in the set-up, rather
     than at the first block solve */
  int nb = F->opts.block_columns > 1 ? F->opts.block_columns : 1;
  if (F->opts.gsolve.trinv == 1 || nb > 1) {
    double t_inv = em_wtime();
    EM_TRY(em_dgpu_solve_prepare(F, nb));
    em_log_verbose(log,
                   "direct: GPU solves of %d column(s) prepared in %.2f s (inverse diagonal "
                   "blocks, trinv: %.2f GiB%s)",
                   nb, em_wtime() - t_inv, (double)g->linv_entries * (double)g->esz / GIB,
                   g->linv_nofit ? "; no room for them: TRSM" : "");
  }
  return EM_OK;
fail: /* release the update matrices still held */
  cudaDeviceSynchronize();
  for (int32_t s = 0; s < S->ns; s++)
    if (S->rptr[s + 1] - S->rptr[s] > g->small && g->cb_host[s])
      cudaFreeAsync(g->cb_host[s], g->st[0]); /* back to the pool they came from */
  for (int32_t l = 0; l < g->nlev; l++)
    if (g->lev_buf[l]) cudaFreeAsync(g->lev_buf[l], g->st[0]);
  cudaStreamSynchronize(g->st[0]);
  memset(g->cb_host, 0, sizeof(void *) * (size_t)S->ns);
  memset(g->lev_buf, 0, sizeof(void *) * (size_t)g->nlev);
  (void)cudaGetLastError();
  pool_release(pool, pool_old);
  return err;
}

em_err em_direct_download(const em_direct *F, em_cplx **lval, em_cplx **d) {
  em_dgpu *g = F->gpu;
  *lval = NULL;
  *d = NULL;
  EM_CHECK(g, EM_ERR_ARG, "em_direct_download: no factor on the GPU");
  const em_dsym *S = &F->S;
  int64_t nl = S->lptr[S->ns];
  em_err err = EM_OK;
  void *tmp = NULL;
  EM_TRY(em_calloc(lval, (size_t)nl + 1, sizeof **lval, "downloaded L"));
  EM_TRY_GOTO(err, em_calloc(d, (size_t)S->n + 1, sizeof **d, "downloaded D"), fail);
  EM_TRY_GOTO(err, em_dgpu_alloc(g, &tmp, NULL, 16 * ((size_t)nl + S->n), "download buffer"), fail);
  EM_TRY_GOTO(err, em_dg_convert(nl, g->lval, g->single, tmp, 0, 0), fail);
  EM_TRY_GOTO(err, em_dg_convert(S->n, g->d, g->single, (char *)tmp + 16 * nl, 0, 0), fail);
  EM_CUDA_GOTO(err, cudaMemcpy(*lval, tmp, 16 * (size_t)nl, cudaMemcpyDeviceToHost), fail);
  EM_CUDA_GOTO(
      err, cudaMemcpy(*d, (char *)tmp + 16 * nl, 16 * (size_t)S->n, cudaMemcpyDeviceToHost), fail);
  em_dev_free(&tmp);
  g->bytes -= 16 * ((size_t)nl + S->n);
  return EM_OK;
fail:
  em_dev_free(&tmp);
  em_free(lval);
  em_free(d);
  return err;
}
