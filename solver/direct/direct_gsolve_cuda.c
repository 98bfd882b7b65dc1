/* direct_gsolve_cuda.c - x = A^-1 b on the GPU from the device factor
 * (em_direct_solve_cuda): y = R P b, then level by level up the supernodal
 * tree the forward sweep y_s = L11^-1 y_s, y(below) -= L21 y_s, then
 * y = D^-1 y, then down the tree y_s = L11^-T (y_s - L21^T y(below)),
 * x = R P^T y.  The supernodes of one level are independent (each writes
 * its own rows; rows below belong to ancestors, on higher levels, and are
 * updated by atomics): those under EM_DG_SOLVE_BIG columns by one level
 * kernel, the big ones each by the triangle in cuBLAS (TRSM on a complex
 * single copy of y_s for a single factor) and their products.
 *
 * The variants (em_direct_gsolve, F->opts.gsolve, read at each solve):
 * interleave (y row-major: the transposed problem for cuBLAS, X^T L11^T =
 * Y^T by TRSM from the right), big_own (the products by own kernels with
 * the gather / scatter fused in, instead of GEMM between a gather and a
 * scatter; 3: the backward one only, for blocks), streams (a level's big supernodes on the other
 * streams beside its level kernel, joined by events before the next level), profile (CUDA events
 * around every launch, direct_gprof_cuda.c), trinv (the triangle by a GEMM with the stored L11^-1,
 * direct_ginv_cuda.c: a product reads the block once for all columns where TRSM's cost grows with
 * them; counted as the TRSM part of the profile), col_streams (with several columns, each wide
 * triangle's columns by one-column TRSMs on streams of their own, side by side). */
#include "direct_gpu_state.h"

/* One solve's context. */
typedef struct gs {
  const em_direct *F;
  em_dgpu *g;
  int nrhs;
  em_direct_gsolve o;
  em_dg_yl l;  /* the layout of y */
  int own_bwd; /* big_own 3 with several columns: the backward product by
                  the own kernel, the forward one by GEMM */
} gs;

/* CUDA events around a launch when the profile is on (end 0: before it). */
static em_err mark(const gs *c, cudaStream_t st, int part, int level, int end) {
  return c->o.profile ? em_dgp_mark(c->g, st, part, level, end) : EM_OK;
}

/* y for nrhs columns; the work of stream slot i: t (the rows below of the
 * widest big supernode, GEMM path), ys (its y_s in single) and yi (trinv:
 * the product L11^-1 y_s). */
static em_err solve_work(const gs *c, int slot) {
  em_dgpu *g = c->g;
  const em_dsym *S = &c->F->S;
  int64_t ny = (int64_t)S->n * c->nrhs;
  if (ny > g->y_cap) {
    em_dev_free(&g->y);
    g->y_cap = 0;
    EM_TRY(em_dgpu_alloc(g, &g->y, NULL, 16 * (size_t)ny, "solve vectors"));
    g->y_cap = ny;
  }
  if (slot < 0) return EM_OK;
  if (g->big_k < 0) { /* once per factor */
    g->big_nb = g->big_k = 0;
    for (int32_t s = 0; s < S->ns; s++) {
      int64_t k = S->super[s + 1] - S->super[s], nb = S->rptr[s + 1] - S->rptr[s] - k;
      if (k >= EM_DG_SOLVE_BIG && nb > g->big_nb) g->big_nb = nb;
      if (k >= EM_DG_SOLVE_BIG && k > g->big_k) g->big_k = k;
    }
  }
  int64_t nt = c->o.big_own ? 0 : g->big_nb * c->nrhs;
  int64_t nk = g->single ? g->big_k * c->nrhs : 0;
  if (nt > g->t_cap[slot]) {
    em_dev_free(&g->t[slot]);
    g->t_cap[slot] = 0;
    EM_TRY(em_dgpu_alloc(g, &g->t[slot], NULL, 16 * (size_t)nt, "solve work"));
    g->t_cap[slot] = nt;
  }
  if (nk > g->ys_cap[slot]) {
    em_dev_free(&g->ys[slot]);
    g->ys_cap[slot] = 0;
    EM_TRY(em_dgpu_alloc(g, &g->ys[slot], NULL, 8 * (size_t)nk, "solve work"));
    g->ys_cap[slot] = nk;
  }
  int64_t ni = c->o.trinv ? g->big_k * c->nrhs : 0;
  if (ni > g->yi_cap[slot]) {
    em_dev_free(&g->yi[slot]);
    g->yi_cap[slot] = 0;
    EM_TRY(em_dgpu_alloc(g, &g->yi[slot], NULL, 16 * (size_t)ni, "solve work (trinv)"));
    g->yi_cap[slot] = ni;
  }
  return EM_OK;
}

/* The column streams of every slot (variant col_streams), once per factor. */
static em_err col_streams_create(em_dgpu *g) {
  if (g->cst_ok) return EM_OK;
  for (int i = 0; i <= EM_DG_STREAMS; i++) {
    if (!g->cfork[i]) EM_CUDA(cudaEventCreateWithFlags(&g->cfork[i], cudaEventDisableTiming));
    for (int q = 0; q < EM_DG_COLS; q++) {
      if (!g->cst[i][q]) EM_CUDA(cudaStreamCreateWithFlags(&g->cst[i][q], cudaStreamNonBlocking));
      if (!g->cjoin[i][q])
        EM_CUDA(cudaEventCreateWithFlags(&g->cjoin[i][q], cudaEventDisableTiming));
    }
  }
  g->cst_ok = 1;
  return EM_OK;
}

/* B = op(L11)^-1 B (left, y column-major: B k x nrhs) or B = B op(L11)^-1
 * (right, interleaved: B nrhs x k), L11 unit lower, ld m. */
static em_err trsm(em_dgpu *g, int right, int trans, int k, int nrhs, const void *L, int m, void *B,
                   int ldb) {
  cublasSideMode_t side = right ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
  cublasOperation_t op = trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  int M = right ? nrhs : k, N = right ? k : nrhs;
  if (g->single) {
    const cuComplex one = {1, 0};
    EM_CUBLAS(cublasCtrsm(g->blas, side, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_UNIT, M, N, &one,
                          L, m, B, ldb));
  } else {
    const cuDoubleComplex one = {1, 0};
    EM_CUBLAS(cublasZtrsm(g->blas, side, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_UNIT, M, N, &one,
                          L, m, B, ldb));
  }
  return EM_OK;
}

/* C = alpha op(A) op(B) + beta C in the factor's precision (alpha +-1,
 * beta 0 or 1). */
static em_err gemm(em_dgpu *g, int ta, int tb, int M, int N, int K, double alpha, const void *A,
                   int lda, const void *B, int ldb, double beta, void *C, int ldc) {
  cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (g->single) {
    const cuComplex a = {(float)alpha, 0}, b = {(float)beta, 0};
    EM_CUBLAS(cublasCgemm(g->blas, oa, ob, M, N, K, &a, A, lda, B, ldb, &b, C, ldc));
  } else {
    const cuDoubleComplex a = {alpha, 0}, b = {beta, 0};
    EM_CUBLAS(cublasZgemm(g->blas, oa, ob, M, N, K, &a, A, lda, B, ldb, &b, C, ldc));
  }
  return EM_OK;
}

/* B = op(L11)^-1 B column by column, B k x nrhs column-major (entries of
 * esz bytes, ld ldb): column j on slot's column stream j mod EM_DG_COLS,
 * forked from and joined into st.  cuBLAS's TRSM of a few columns walks
 * the triangle's blocks one after another as for one column, so its time
 * grows with the columns; one-column triangles on their own streams run
 * side by side (issue 28: four columns of the array's factor). */
static em_err trsm_cols(em_dgpu *g, int slot, int trans, int k, int nrhs, const void *L, int m,
                        void *B, int ldb, size_t esz) {
  cudaStream_t st = g->st[slot];
  int nc = nrhs < EM_DG_COLS ? nrhs : EM_DG_COLS;
  EM_CUDA(cudaEventRecord(g->cfork[slot], st));
  for (int q = 0; q < nc; q++) EM_CUDA(cudaStreamWaitEvent(g->cst[slot][q], g->cfork[slot], 0));
  for (int j = 0; j < nrhs; j++) {
    EM_CUBLAS(cublasSetStream(g->blas, g->cst[slot][j % nc]));
    EM_TRY(trsm(g, 0, trans, k, 1, L, m, (char *)B + esz * (size_t)j * (size_t)ldb, ldb));
  }
  for (int q = 0; q < nc; q++) {
    EM_CUDA(cudaEventRecord(g->cjoin[slot][q], g->cst[slot][q]));
    EM_CUDA(cudaStreamWaitEvent(st, g->cjoin[slot][q], 0));
  }
  EM_CUBLAS(cublasSetStream(g->blas, st));
  return EM_OK;
}

/* Variant trinv: the triangle by a product with the stored inverse Li =
 * L11^-1 (k x k, ld k, explicit zeros above: direct_ginv_cuda.c), into yi:
 *   column-major y_s (k x nrhs):    yi = Li y_s (forward), Li^T y_s (backward)
 *   interleaved y_s^T (nrhs x k):   yi = y_s^T Li^T (forward), y_s^T Li (backward)
 * GEMM, not TRMM: on an H200 (the DRA's order-3 factor, one column)
 * cuBLAS TRMM was slower than the TRSM it replaced (the forward triangles
 * 7.0 -> 24.2 ms summed over the streams; the solve 15.5 -> 23.0 ms),
 * while a GEMM reads Li once at the bandwidth with no chain of dependent
 * blocks; it costs the zeros above the diagonal (twice the triangle's
 * bytes). */
static em_err trinv_gemm(em_dgpu *g, int il, int forward, int k, int nrhs, const void *Li,
                         const void *ys, int ldys, void *yi) {
  if (il) return gemm(g, 0, forward, nrhs, k, k, 1, ys, ldys, Li, k, 0, yi, nrhs);
  return gemm(g, !forward, 0, k, nrhs, k, 1, Li, k, ys, ldys, 0, yi, k);
}

/* y_s (k rows from c0, in y's layout) to or from its single copy ys
 * (k x nrhs, ld k; interleaved: nrhs x k, ld nrhs: one run). */
static em_err ys_copy(const gs *c, int64_t c0, int64_t k, void *ys, int to_single,
                      cudaStream_t st) {
  em_dgpu *g = c->g;
  int64_t n = c->F->S.n;
  void *yss = (char *)g->y + 16 * (size_t)(c0 * c->l.rs);
  if (c->o.interleave) {
    int64_t len = k * c->nrhs;
    return to_single ? em_dg_convert(len, yss, 0, ys, 1, st)
                     : em_dg_convert(len, ys, 1, yss, 0, st);
  }
  return to_single ? em_dg_copy2d(k, c->nrhs, yss, n, 0, ys, k, 1, st)
                   : em_dg_copy2d(k, c->nrhs, ys, k, 1, yss, n, 0, st);
}

/* Big supernode s's product by the own kernel, in double on y (the
 * profile's prod part): forward y(below) -= L21 y_s, backward y_s -= L21^T
 * y(below). */
static em_err own_prod(const gs *c, int32_t s, int forward, cudaStream_t st, int lev) {
  em_dgpu *g = c->g;
  const em_dsym *S = &c->F->S;
  int64_t c0 = S->super[s], k = S->super[s + 1] - c0, m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
  if (nb == 0) return EM_OK;
  int part = forward ? EM_DGP_FWD_PROD : EM_DGP_BWD_PROD;
  EM_TRY(mark(c, st, part, lev, 0));
  EM_TRY(em_dg_big_prod(forward, k, nb, AT(g->lval, S->lptr[s] + k), m, g->S.rows + S->rptr[s] + k,
                        c0, c->nrhs, g->y, c->l, g->single, st));
  return mark(c, st, part, lev, 1);
}

/* Variant trinv_own: big supernode s with the own kernels throughout, all
 * in double on y: backward y_s -= L21^T y(below), then y_s = Li^T y_s;
 * forward y_s = Li y_s, then y(below) -= L21 y_s (Li = L11^-1, stored).
 * The triangle's product goes into yi, then back into y_s. */
static em_err solve_big_own(const gs *c, int32_t s, int forward, int slot, int lev) {
  em_dgpu *g = c->g;
  const em_dsym *S = &c->F->S;
  cudaStream_t st = g->st[slot];
  int64_t c0 = S->super[s], k = S->super[s + 1] - c0;
  int nrhs = c->nrhs, il = c->o.interleave, sg = g->single;
  void *yss = (char *)g->y + 16 * (size_t)(c0 * c->l.rs);
  em_dg_yl wl = il ? (em_dg_yl){nrhs, 1} : (em_dg_yl){1, k};
  int P_TRSM = forward ? EM_DGP_FWD_TRSM : EM_DGP_BWD_TRSM;
  if (!forward) EM_TRY(own_prod(c, s, 0, st, lev));
  EM_TRY(mark(c, st, P_TRSM, lev, 0));
  EM_TRY(em_dg_tri_prod(forward, k, AT(g->linv, g->linv_off[s]), c0, nrhs, g->y, c->l, g->yi[slot],
                        wl, sg, st));
  if (il) /* one run of k nrhs values */
    EM_CUDA(
        cudaMemcpyAsync(yss, g->yi[slot], 16 * (size_t)(k * nrhs), cudaMemcpyDeviceToDevice, st));
  else
    EM_TRY(em_dg_copy2d(k, nrhs, g->yi[slot], k, 0, yss, S->n, 0, st));
  EM_TRY(mark(c, st, P_TRSM, lev, 1));
  return forward ? own_prod(c, s, 1, st, lev) : EM_OK;
}

/* Forward or backward part of big supernode s on stream slot `slot`. */
static em_err solve_big(const gs *c, int32_t s, int forward, int slot, int lev) {
  if (c->o.trinv_own && c->o.trinv && c->o.big_own && c->g->linv_off[s] >= 0)
    return solve_big_own(c, s, forward, slot, lev);
  em_dgpu *g = c->g;
  const em_dsym *S = &c->F->S;
  cudaStream_t st = g->st[slot];
  int64_t c0 = S->super[s], k = S->super[s + 1] - c0, m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
  const void *L = AT(g->lval, S->lptr[s]), *L21 = AT(L, k);
  const int32_t *below = g->S.rows + S->rptr[s] + k;
  int nrhs = c->nrhs, il = c->o.interleave, sg = g->single;
  int own = c->o.big_own || (!forward && c->own_bwd);
  /* y_s where the triangle works: in y (double factor) or its single copy */
  void *ys = sg ? g->ys[slot] : (char *)g->y + 16 * (size_t)(c0 * c->l.rs);
  int ldys = il ? nrhs : sg ? (int)k : (int)S->n;
  em_dg_yl tl = il ? (em_dg_yl){nrhs, 1} : (em_dg_yl){1, nb};
  void *t = g->t[slot];
  int P_COPY = forward ? EM_DGP_FWD_COPY : EM_DGP_BWD_COPY;
  int P_TRSM = forward ? EM_DGP_FWD_TRSM : EM_DGP_BWD_TRSM;
  int P_PROD = forward ? EM_DGP_FWD_PROD : EM_DGP_BWD_PROD;
  EM_CUBLAS(cublasSetStream(g->blas, st));
  if (!forward && own) EM_TRY(own_prod(c, s, 0, st, lev)); /* y_s -= L21^T y(below) */
  if (sg) {
    EM_TRY(mark(c, st, P_COPY, lev, 0));
    EM_TRY(ys_copy(c, c0, k, ys, 1, st));
    EM_TRY(mark(c, st, P_COPY, lev, 1));
  }
  if (!forward && nb > 0 && !own) { /* t = y(below); y_s -= L21^T t */
    EM_TRY(mark(c, st, EM_DGP_BWD_GATHER, lev, 0));
    EM_TRY(em_dg_gather(nb, nrhs, below, g->y, c->l, t, tl, sg, st));
    EM_TRY(mark(c, st, EM_DGP_BWD_GATHER, lev, 1));
    EM_TRY(mark(c, st, P_PROD, lev, 0));
    if (il)
      EM_TRY(gemm(g, 0, 0, nrhs, (int)k, (int)nb, -1, t, nrhs, L21, (int)m, 1, ys, ldys));
    else
      EM_TRY(gemm(g, 1, 0, (int)k, nrhs, (int)nb, -1, L21, (int)m, t, (int)nb, 1, ys, ldys));
    EM_TRY(mark(c, st, P_PROD, lev, 1));
  }
  EM_TRY(mark(c, st, P_TRSM, lev, 0));
  if (c->o.trinv && g->linv_off[s] >= 0) { /* y_s = Li y_s (forward), Li^T y_s (backward),
                                               Li = L11^-1 */
    EM_TRY(trinv_gemm(g, il, forward, (int)k, nrhs, AT(g->linv, g->linv_off[s]), ys, ldys,
                      g->yi[slot]));
    if (sg) /* the single copy moves to yi (same layout) */
      ys = g->yi[slot];
    else if (il) /* back into y: one run of k nrhs values */
      EM_CUDA(
          cudaMemcpyAsync(ys, g->yi[slot], 16 * (size_t)(k * nrhs), cudaMemcpyDeviceToDevice, st));
    else
      EM_TRY(em_dg_copy2d(k, nrhs, g->yi[slot], k, 0, ys, S->n, 0, st));
  } else if (c->o.col_streams)
    EM_TRY(trsm_cols(g, slot, !forward, (int)k, nrhs, L, (int)m, ys, ldys, sg ? 8 : 16));
  else
    EM_TRY(trsm(g, il, il ? forward : !forward, (int)k, nrhs, L, (int)m, ys, ldys));
  EM_TRY(mark(c, st, P_TRSM, lev, 1));
  if (forward && nb > 0 && !own) { /* t = L21 x; y(below) -= t */
    EM_TRY(mark(c, st, P_PROD, lev, 0));
    if (il)
      EM_TRY(gemm(g, 0, 1, nrhs, (int)nb, (int)k, 1, ys, ldys, L21, (int)m, 0, t, nrhs));
    else
      EM_TRY(gemm(g, 0, 0, (int)nb, nrhs, (int)k, 1, L21, (int)m, ys, ldys, 0, t, (int)nb));
    EM_TRY(mark(c, st, P_PROD, lev, 1));
    EM_TRY(mark(c, st, EM_DGP_FWD_SCATTER, lev, 0));
    EM_TRY(em_dg_scatter_sub(nb, nrhs, below, t, tl, sg, g->y, c->l, st));
    EM_TRY(mark(c, st, EM_DGP_FWD_SCATTER, lev, 1));
  }
  if (sg) {
    EM_TRY(mark(c, st, P_COPY, lev, 0));
    EM_TRY(ys_copy(c, c0, k, ys, 0, st));
    EM_TRY(mark(c, st, P_COPY, lev, 1));
  }
  if (forward && own) EM_TRY(own_prod(c, s, 1, st, lev)); /* y(below) -= L21 x */
  return EM_OK;
}

/* Threads per block of a level kernel over count supernodes
 * (em_direct_gsolve.level_threads): 0: 128; -1: 512 for a level of fewer
 * supernodes than twice the SMs, whose blocks then run alone on their SMs
 * and wait on their barriers, else 128; -2, graded: 1024 below the SMs,
 * 512 below twice, 256 below 8 times. */
static int level_threads(const gs *c, int32_t count) {
  int want = c->o.level_threads, sms = c->g->sms;
  if (want > 0) return want;
  if (want == 0) return 128;
  if (want == -2) return count < sms ? 1024 : count < 2 * sms ? 512 : count < 8 * sms ? 256 : 128;
  return count < 2 * sms ? 512 : 128;
}

/* Level l of the forward or backward sweep: its level kernel on st[0] and
 * its big supernodes after it on st[0] (forward; before it backward), or
 * with streams on st[1..] beside it, joined into st[0] afterwards. */
static em_err solve_level(const gs *c, int32_t l, int forward) {
  em_dgpu *g = c->g;
  int32_t p0 = g->lev_ptr[l], p1 = g->lev_ptr[l + 1], cs = g->n_solve_small[l];
  int32_t nbig = p1 - p0 - cs;
  int streams = c->o.streams && nbig > 0, used = nbig < EM_DG_STREAMS ? nbig : EM_DG_STREAMS;
  cudaStream_t s0 = g->st[0];
  int part = forward ? EM_DGP_FWD_LEVEL : EM_DGP_BWD_LEVEL;
  if (streams) {
    EM_CUDA(cudaEventRecord(g->join[0], s0));
    for (int i = 1; i <= used; i++) EM_CUDA(cudaStreamWaitEvent(g->st[i], g->join[0], 0));
  }
  for (int pass = 0; pass < 2; pass++) {
    if (pass == (forward || streams ? 0 : 1) && cs > 0) { /* the level kernel */
      EM_TRY(mark(c, s0, part, l, 0));
      if (forward)
        EM_TRY(em_dg_fwd_level(g->S, g->d_solve_sn + p0, cs, g->lval, c->nrhs, g->y, c->l,
                               g->single, level_threads(c, cs), g->lev_lim, s0));
      else
        EM_TRY(em_dg_bwd_level(g->S, g->d_solve_sn + p0, cs, g->lval, c->nrhs, g->y, c->l,
                               g->single, level_threads(c, cs), g->lev_lim + 3, s0));
      EM_TRY(mark(c, s0, part, l, 1));
    }
    if (pass == (forward || streams ? 1 : 0))
      for (int32_t q = p0 + cs; q < p1; q++)
        EM_TRY(solve_big(c, g->solve_small[q], forward,
                         streams ? 1 + (q - p0 - cs) % EM_DG_STREAMS : 0, l));
  }
  if (streams)
    for (int i = 1; i <= used; i++) {
      EM_CUDA(cudaEventRecord(g->join[i], g->st[i]));
      EM_CUDA(cudaStreamWaitEvent(s0, g->join[i], 0));
    }
  return EM_OK;
}

/* The context of a solve of nrhs columns: the variants as they apply to
 * nrhs (the "2: with several columns only" ones resolved), the inverses
 * built when trinv asks (once per factor; trinv 2, not in the memory
 * estimate, falls back to TRSM for the rest of this factor's solves when
 * the device has no room for them), the work space allocated. */
static em_err solve_setup(const em_direct *F, int nrhs, gs *c) {
  em_dgpu *g = F->gpu;
  int32_t n = F->S.n;
  *c = (gs){F, g, nrhs, F->opts.gsolve, {1, n}, 0};
  if (c->o.interleave == 2) c->o.interleave = nrhs > 1; /* 2: for blocks only */
  if (c->o.big_own == 3) { /* the forward products stay GEMM (t is allocated) */
    c->own_bwd = nrhs > 1;
    c->o.big_own = 0;
  }
  if (c->o.big_own == 2) c->o.big_own = nrhs > 1;
  if (c->o.interleave) c->l = (em_dg_yl){nrhs, 1};
  if (c->o.trinv == 2) c->o.trinv = nrhs > 1;
  if (c->o.trinv_own == 2) c->o.trinv_own = nrhs > 1;
  /* the column streams for column-major blocks solved by TRSM */
  c->o.col_streams = c->o.col_streams && nrhs > 1 && !c->o.interleave && !c->o.trinv;
  if (c->o.col_streams) EM_TRY(col_streams_create(g));
  int lt = c->o.level_threads;
  EM_CHECK(lt == -1 || lt == -2 || (lt >= 0 && lt <= 1024 && lt % 32 == 0), EM_ERR_ARG,
           "GPU solve: level_threads = %d (0, -1, -2 or a multiple of 32 up to 1024)", lt);
  if (c->o.trinv && F->opts.gsolve.trinv == 2 && g->linv_nofit) c->o.trinv = 0;
  if (c->o.trinv && F->opts.gsolve.trinv == 2 && !(g->linv_ok && g->linv_kmax == c->o.trinv_max)) {
    /* trinv 2 is not in the memory estimate: its inverses only where a
       tenth of the device stays free beside them (the Krylov block's
       vectors may come after them, when the set-up builds them) */
    size_t fr = 0, tot = 0;
    EM_CUDA(cudaMemGetInfo(&fr, &tot));
    double need = (double)g->esz * (double)em_dgpu_linv_entries(&F->S, c->o.trinv_max);
    if ((double)fr < need + 0.1 * (double)tot) {
      g->linv_nofit = 1;
      c->o.trinv = 0;
    }
  }
  if (c->o.trinv) {
    em_err e = em_dgpu_linv(&F->S, g, c->o.trinv_max);
    if (e == EM_ERR_GPU_MEMORY && F->opts.gsolve.trinv == 2) {
      em_error_clear();
      em_dgpu_linv_free(g);
      g->linv_nofit = 1;
      c->o.trinv = 0;
    } else
      EM_TRY(e);
  }
  EM_TRY(solve_work(c, -1));
  if (c->o.streams)
    for (int i = 1; i <= EM_DG_STREAMS; i++) EM_TRY(solve_work(c, i));
  else
    EM_TRY(solve_work(c, 0));
  return EM_OK;
}

em_err em_dgpu_solve_prepare(const em_direct *F, int nrhs) {
  EM_CHECK(F->gpu, EM_ERR_ARG, "em_dgpu_solve_prepare: no factor on the GPU");
  gs c;
  return F->S.n > 0 && nrhs > 0 ? solve_setup(F, nrhs, &c) : EM_OK;
}

em_err em_direct_solve_cuda(const em_direct *F, int nrhs, const void *b, int64_t ldb, void *x,
                            int64_t ldx, int v_single) {
  em_dgpu *g = F->gpu;
  EM_CHECK(g && F->factored, EM_ERR_ARG, "em_direct_solve_cuda: no factor on the GPU");
  int32_t n = F->S.n;
  if (n == 0 || nrhs == 0) return EM_OK;
  gs c;
  EM_TRY(solve_setup(F, nrhs, &c));
  cudaStream_t st = g->st[0];
  /* the caller's vectors come from the legacy default stream */
  EM_CUDA(cudaStreamSynchronize(0));
  if (c.o.profile) EM_TRY(em_dgp_begin(g, st, nrhs));
  EM_TRY(mark(&c, st, EM_DGP_PERMUTE_IN, -1, 0));
  EM_TRY(em_dg_permute_in(n, nrhs, g->perm, g->r_old, b, ldb, v_single, g->y, c.l, st));
  EM_TRY(mark(&c, st, EM_DGP_PERMUTE_IN, -1, 1));
  for (int32_t l = 0; l < g->nlev; l++) EM_TRY(solve_level(&c, l, 1));
  EM_TRY(mark(&c, st, EM_DGP_DIAG, -1, 0));
  EM_TRY(em_dg_diag_solve(n, nrhs, g->d, g->y, c.l, g->single, st));
  EM_TRY(mark(&c, st, EM_DGP_DIAG, -1, 1));
  for (int32_t l = g->nlev - 1; l >= 0; l--) EM_TRY(solve_level(&c, l, 0));
  EM_TRY(mark(&c, st, EM_DGP_PERMUTE_OUT, -1, 0));
  EM_TRY(em_dg_permute_out(n, nrhs, g->perm, g->r_old, g->y, c.l, x, ldx, v_single, st));
  EM_TRY(mark(&c, st, EM_DGP_PERMUTE_OUT, -1, 1));
  if (c.o.profile) EM_TRY(em_dgp_end(g, st));
  EM_CUDA(cudaStreamSynchronize(st));
  if (c.o.profile) EM_TRY(em_dgp_collect(g));
  return EM_OK;
}

em_err em_direct_solve_gpu_host(const em_direct *F, int nrhs, const em_cplx *b, int64_t ldb,
                                em_cplx *x, int64_t ldx) {
  int32_t n = F->S.n;
  if (n == 0 || nrhs == 0) return EM_OK;
  em_err err = EM_OK;
  void *db = NULL;
  size_t bytes = 16 * (size_t)n * (size_t)nrhs;
  EM_TRY(em_dev_alloc(&db, NULL, bytes, NULL, "solve right-hand sides"));
  for (int r = 0; r < nrhs; r++)
    EM_CUDA_GOTO(err,
                 cudaMemcpy((char *)db + 16 * (size_t)n * r, b + r * ldb, 16 * (size_t)n,
                            cudaMemcpyHostToDevice),
                 done);
  EM_TRY_GOTO(err, em_direct_solve_cuda(F, nrhs, db, n, db, n, 0), done);
  for (int r = 0; r < nrhs; r++)
    EM_CUDA_GOTO(err,
                 cudaMemcpy(x + r * ldx, (char *)db + 16 * (size_t)n * r, 16 * (size_t)n,
                            cudaMemcpyDeviceToHost),
                 done);
done:
  em_dev_free(&db);
  return err;
}
