/* ilu0_cuda.c - ILU(0) applied on the GPU with our own triangular solves,
 * on the factors and schedules computed on the host (ilu0.c):
 *   levels:   one kernel per wide level, one-block kernels for runs of thin
 *             levels, the whole sequence captured once in a CUDA graph and
 *             replayed (launch cost ~1 us per node instead of ~3 us);
 *   syncfree: one kernel per triangle, rows in schedule order by ticket,
 *             waiting on completion flags (trsv_kernels.cu).
 * The apply is: gather r into the pc numbering (in complex double: the
 * factors may be stored in single, the solve runs in double), L solve,
 * U solve, scatter to z; all on the legacy default
 * stream (the graph is launched there too), so it orders with the Krylov
 * vector work without extra synchronisation. */
#include <cuda_runtime.h>

#include "cuda_impl.h"
#include "ilu_impl.h"
#include "pc_impl.h"

/* threads of the one-block kernels of thin levels */
#define THIN_THREADS 1024

typedef struct ilu0_cuda {
  int single; /* factors in complex single */
  int32_t n;
  int32_t *perm, *iperm; /* device: perm[old] = pc, iperm[pc] = old */
  int64_t *lptr;         /* device: L (strict lower, unit diagonal), pc rows */
  int32_t *lcol;
  void *lval;
  int64_t *uptr; /* device: U (strict upper), U schedule order */
  int32_t *ucol;
  void *uval;
  int32_t *urow;            /* device: pc row of each U schedule position */
  void *dinv;               /* device: 1 / U_ii */
  void *y;                  /* device: work vector, factor precision */
  int32_t *lev_l, *lev_u;   /* device: level boundaries (thin kernels) */
  int32_t *hlev_l, *hlev_u; /* host copies (wide level launches) */
  em_seg *seg_l, *seg_u;    /* host: segments of each solve */
  int ns_l, ns_u;
  int T_l, T_u;         /* threads per row of each factor */
  cudaStream_t capture; /* stream the graph was captured on */
  cudaGraphExec_t exec; /* levels: the replayable L + U sequence */
  int *flags;           /* syncfree: 2n flags, 2 tickets, 1 fail word */
  int blocks;           /* syncfree: resident blocks */
  size_t bytes;         /* device bytes */
} ilu0_cuda;

/* threads per row: the power of two nearest half the mean row length */
static int threads_per_row(int64_t nnz, int32_t n) {
  double mean = n > 0 ? (double)nnz / n : 0;
  int T = 2;
  while (T < 32 && T < mean / 2) T *= 2;
  return T;
}

/* the launches of one triangle's segments on stream s */
static em_err launch_solve(const ilu0_cuda *c, int upper, cudaStream_t s) {
  const em_seg *seg = upper ? c->seg_u : c->seg_l;
  int ns = upper ? c->ns_u : c->ns_l, T = upper ? c->T_u : c->T_l;
  const int32_t *hlev = upper ? c->hlev_u : c->hlev_l, *dlev = upper ? c->lev_u : c->lev_l;
  const int64_t *ptr = upper ? c->uptr : c->lptr;
  const int32_t *col = upper ? c->ucol : c->lcol, *rows = upper ? c->urow : NULL;
  const void *val = upper ? c->uval : c->lval, *dinv = upper ? c->dinv : NULL;
  for (int k = 0; k < ns; k++) {
    if (seg[k].thin)
      EM_TRY(em_sv_cuda_trsv_thin(seg[k].l0, seg[k].l1, dlev, ptr, col, val, rows, dinv, c->y,
                                  c->single, T, s));
    else
      EM_TRY(em_sv_cuda_trsv_level(hlev[seg[k].l0], hlev[seg[k].l1], ptr, col, val, rows, dinv,
                                   c->y, c->single, T, s));
  }
  return EM_OK;
}

/* capture L then U into one graph, instantiate it */
static em_err capture_graph(ilu0_cuda *c) {
  em_err err = EM_OK;
  cudaGraph_t g = NULL;
  EM_CUDA(cudaStreamCreateWithFlags(&c->capture, cudaStreamNonBlocking));
  EM_CUDA(cudaStreamBeginCapture(c->capture, cudaStreamCaptureModeThreadLocal));
  err = launch_solve(c, 0, c->capture);
  if (!err) err = launch_solve(c, 1, c->capture);
  cudaError_t e = cudaStreamEndCapture(c->capture, &g); /* always end the capture */
  if (err) {
    if (g) cudaGraphDestroy(g);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  EM_TRY(em_cuda_status((int)e, "cudaStreamEndCapture(triangular solves)", __FILE__, __LINE__));
  e = cudaGraphInstantiate(&c->exec, g, 0);
  cudaGraphDestroy(g);
  EM_TRY(em_cuda_status((int)e, "cudaGraphInstantiate(triangular solves)", __FILE__, __LINE__));
  return EM_OK;
}

static em_err ilu0_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  ilu0_cuda *c = pc->data;
  int32_t n = c->n;
  int vs = vec_prec == EM_PREC_SINGLE;
  if (n == 0) return EM_OK;
  EM_TRY(em_sv_cuda_gather(n, c->iperm, r, vs, c->y, 0, NULL)); /* y = P r */
  if (pc->opts.trsv == EM_TRSV_LEVELS) {
    EM_CUDA(cudaGraphLaunch(c->exec, 0)); /* y = U^-1 L^-1 y */
  } else {
    int *fail = c->flags + 2 * (size_t)n + 2;
    unsigned *ticket = (unsigned *)(c->flags + 2 * (size_t)n);
    EM_CUDA(cudaMemsetAsync(c->flags, 0, (2 * (size_t)n + 3) * sizeof(int), 0));
    EM_TRY(em_sv_cuda_trsv_syncfree(n, c->lptr, c->lcol, c->lval, NULL, NULL, c->y, c->single,
                                    c->flags, ticket, fail, c->blocks, NULL));
    EM_TRY(em_sv_cuda_trsv_syncfree(n, c->uptr, c->ucol, c->uval, c->urow, c->dinv, c->y, c->single,
                                    c->flags + n, ticket + 1, fail, c->blocks, NULL));
    int failed = 0; /* the copy waits for both solves */
    EM_CUDA(cudaMemcpy(&failed, fail, sizeof failed, cudaMemcpyDeviceToHost));
    EM_CHECK(!failed, EM_ERR_INTERNAL,
             "sync-free triangular solve: row %d (pc numbering) waited more than a second on a "
             "dependency; use the 'levels' triangular solve and report this",
             failed - 1);
  }
  EM_TRY(em_sv_cuda_scatter(n, c->perm, c->y, 0, z, vs, NULL)); /* z = P^T y */
  return EM_OK;
}

static void ilu0_destroy(em_pc *pc) {
  ilu0_cuda *c = pc->data;
  if (!c) return;
  if (c->exec) cudaGraphExecDestroy(c->exec);
  if (c->capture) cudaStreamDestroy(c->capture);
  void *dev[] = {c->perm, c->iperm, c->lptr, c->lcol, c->lval,  c->uptr,  c->ucol,
                 c->uval, c->urow,  c->dinv, c->y,    c->lev_l, c->lev_u, c->flags};
  for (size_t k = 0; k < sizeof dev / sizeof *dev; k++) em_dev_free(&dev[k]);
  em_free(&c->hlev_l);
  em_free(&c->hlev_u);
  em_free(&c->seg_l);
  em_free(&c->seg_u);
  em_free(&pc->data);
}

static const em_pc_ops ILU0_CUDA = {ilu0_apply, ilu0_destroy, NULL, NULL};

/* device copies of the factors and schedules of F */
static em_err upload_factors(ilu0_cuda *c, const em_ilu0 *F) {
  size_t n = (size_t)F->n, es = em_prec_size(F->prec), *b = &c->bytes;
  size_t nl = (size_t)F->lptr[n], nu = (size_t)F->uptr[n];
  EM_TRY(em_dev_alloc((void **)&c->perm, F->perm, n * sizeof(int32_t), b, "ILU permutation"));
  EM_TRY(em_dev_alloc((void **)&c->iperm, F->iperm, n * sizeof(int32_t), b, "ILU permutation"));
  EM_TRY(em_dev_alloc((void **)&c->lptr, F->lptr, (n + 1) * sizeof(int64_t), b, "ILU L offsets"));
  EM_TRY(em_dev_alloc((void **)&c->lcol, F->lcol, nl * sizeof(int32_t), b, "ILU L columns"));
  EM_TRY(em_dev_alloc(&c->lval, F->lval, nl * es, b, "ILU L values"));
  EM_TRY(em_dev_alloc((void **)&c->uptr, F->uptr, (n + 1) * sizeof(int64_t), b, "ILU U offsets"));
  EM_TRY(em_dev_alloc((void **)&c->ucol, F->ucol, nu * sizeof(int32_t), b, "ILU U columns"));
  EM_TRY(em_dev_alloc(&c->uval, F->uval, nu * es, b, "ILU U values"));
  EM_TRY(em_dev_alloc((void **)&c->urow, F->urow, n * sizeof(int32_t), b, "ILU U schedule"));
  EM_TRY(em_dev_alloc(&c->dinv, F->dinv, n * es, b, "ILU inverse diagonal"));
  EM_TRY(em_dev_alloc(&c->y, NULL, n * sizeof(em_cplx), b, "ILU work vector"));
  c->T_l = threads_per_row((int64_t)nl, F->n);
  c->T_u = threads_per_row((int64_t)nu, F->n);
  return EM_OK;
}

em_err em_pc_ilu0_build_cuda(em_ilu0 *F, em_pc *pc) {
  ilu0_cuda *c = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&c, 1, sizeof *c, "GPU ILU(0) preconditioner"), done);
  pc->data = c;
  pc->ops = &ILU0_CUDA; /* from here on, destroy frees whatever was made */
  c->n = F->n;
  c->single = F->prec == EM_PREC_SINGLE;
  EM_TRY_GOTO(err, upload_factors(c, F), done);
  if (pc->opts.trsv == EM_TRSV_LEVELS) {
    pc->info.impl = "cuda-levels";
    size_t nl = (size_t)F->lev_l.n_levels + 1, nu = (size_t)F->lev_u.n_levels + 1;
    EM_TRY_GOTO(err, em_dev_alloc((void **)&c->lev_l, F->lev_l.ptr, nl * 4, &c->bytes, "L levels"),
                done);
    EM_TRY_GOTO(err, em_dev_alloc((void **)&c->lev_u, F->lev_u.ptr, nu * 4, &c->bytes, "U levels"),
                done);
    c->hlev_l = F->lev_l.ptr; /* keep the host copies: the launches read them */
    c->hlev_u = F->lev_u.ptr;
    F->lev_l.ptr = F->lev_u.ptr = NULL;
    /* a level no bigger than one pass of the one-block kernel is thin */
    EM_TRY_GOTO(err,
                em_levels_segments(&(em_levels){F->lev_l.n_levels, c->hlev_l},
                                   THIN_THREADS / c->T_l, &c->seg_l, &c->ns_l),
                done);
    EM_TRY_GOTO(err,
                em_levels_segments(&(em_levels){F->lev_u.n_levels, c->hlev_u},
                                   THIN_THREADS / c->T_u, &c->seg_u, &c->ns_u),
                done);
    if (c->n > 0) EM_TRY_GOTO(err, capture_graph(c), done);
  } else {
    pc->info.impl = "cuda-syncfree";
    EM_TRY_GOTO(err,
                em_dev_alloc((void **)&c->flags, NULL, (2 * (size_t)c->n + 3) * sizeof(int),
                             &c->bytes, "sync-free flags"),
                done);
    EM_TRY_GOTO(err, em_sv_cuda_syncfree_blocks(c->single, &c->blocks), done);
  }
  pc->info.bytes = c->bytes;
done:
  em_ilu0_destroy(&F);
  return err;
}
