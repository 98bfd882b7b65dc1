/* direct_gpu_state.h - the device state of a GPU factor (struct em_dgpu;
 * private to the CUDA files of solver/direct: the factorization in
 * direct_gpu_cuda.c, the solves in direct_gsolve_cuda.c, their profile in
 * direct_gprof_cuda.c). */
#ifndef EM_SOLVER_DIRECT_GPU_STATE_H
#define EM_SOLVER_DIRECT_GPU_STATE_H

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda_impl.h"
#include "direct_gpu_impl.h"

#define EM_DG_RING 2
#define EM_DG_RING_BYTES ((size_t)32 << 20)

struct em_dgpu {
  int single;     /* factor in complex single */
  int sms;        /* the device's multiprocessors (the level kernels' threads) */
  int lev_lim[6]; /* the level kernels' most threads per block (em_dg_level_limits) */
  int small;      /* fronts of order <= small by the one-block kernel (gpu_small) */
  size_t esz;     /* bytes of one factor entry */
  cublasHandle_t blas;
  cudaStream_t st[EM_DG_STREAMS + 1];      /* st[0]: small fronts and solves */
  cublasHandle_t fblas[EM_DG_STREAMS + 1]; /* the big fronts of stream i issued
                                              from host thread i: a handle each */
  /* symbolic structure on the device */
  void *sym[6];
  em_dg_sym S;
  int32_t *perm;  /* old -> new */
  double *r_old;  /* equilibration, old numbering */
  void *lval, *d; /* the factor */
  em_dg_piv *piv; /* pivot statistics */
  /* level schedule: level l holds lev_sn[lev_ptr[l] .. lev_ptr[l+1]), its
     small fronts first (n_small[l] of them) */
  int nlev;
  int32_t *lev_ptr, *n_small, *lev_sn; /* host */
  int32_t *level;                      /* host: level of each supernode */
  int32_t *d_lev_sn;                   /* device copy of lev_sn */
  int32_t *solve_small;                /* host: per level, supernodes of the
                                          solve kernels first (count below) */
  int32_t *n_solve_small, *d_solve_sn;
  /* update matrices */
  void **cb_host;    /* pinned host table */
  void **cb_dev;     /* device table */
  void **lev_buf;    /* per level: the buffer of its small fronts' update
                        matrices (NULL when none) */
  int32_t *lev_free; /* per level: the level after which lev_buf can go */
  /* workspaces of the big fronts, one per stream */
  void *W[EM_DG_STREAMS + 1];
  size_t w_entries;
  /* the scatter map of A (pattern fingerprint, selected entries) */
  uint64_t pattern_hash;
  int64_t nnz_pattern, n_sel;
  int64_t *sel_cnt; /* host [n + 1]: selected entries of the rows before
                       row u (old numbering): the map runs row by row */
  int64_t *dest;    /* device: its place in lval */
  void *vals;       /* device */
  /* the uploads' pinned staging: a ring of EM_DG_RING buffers of
     EM_DG_RING_BYTES each, filled by the host threads while the previous
     one copies (kept for the refactorizations) */
  void *ring[EM_DG_RING];
  cudaEvent_t ring_ev[EM_DG_RING];
  /* solve work: y (n x nrhs); per stream slot the big supernodes' t
     (their rows below, gathered), ys (a complex single copy of y_s) and
     yi (trinv: L11^-1 y_s, the GEMM's output, in the factor's precision) */
  void *y, *t[EM_DG_STREAMS + 1], *ys[EM_DG_STREAMS + 1], *yi[EM_DG_STREAMS + 1];
  int64_t y_cap, t_cap[EM_DG_STREAMS + 1], ys_cap[EM_DG_STREAMS + 1], yi_cap[EM_DG_STREAMS + 1];
  int64_t big_nb, big_k;               /* most rows below, columns of the
                                          solves' big supernodes (-1: not
                                          known yet) */
  cudaEvent_t join[EM_DG_STREAMS + 1]; /* stream joins of the solves */
  /* variant col_streams (off by default: measured slower): per stream slot EM_DG_COLS streams that
     solve the wide triangles' columns side by side, forked from and joined into the slot's stream
     by the events (created at the first solve that asks) */
  cudaStream_t cst[EM_DG_STREAMS + 1][EM_DG_COLS];
  cudaEvent_t cfork[EM_DG_STREAMS + 1], cjoin[EM_DG_STREAMS + 1][EM_DG_COLS];
  int cst_ok;
  struct em_dgp *prof; /* the solves' profile (NULL: none yet) */
  /* variant trinv: the inverses of the wide supernodes' L11, k x k (ld k)
     each at linv + linv_off[s] (host; -1: none: not wide, or wider than
     trinv_max), direct_ginv_cuda.c */
  void *linv;
  int64_t *linv_off, linv_entries;
  int linv_ok;    /* 1: built from the current factor */
  int linv_kmax;  /* the trinv_max they were built with */
  int linv_nofit; /* trinv 2: no room for them with this factor (not tried again
                     until the next factorization) */
  size_t bytes;   /* device bytes held */
};

/* Byte address of entry off of an array in the factor's precision. */
#define AT(base, off) ((void *)((char *)(base) + (size_t)(off)*g->esz))

/* Device memory counted in g->bytes. */
em_err em_dgpu_alloc(em_dgpu *g, void **p, const void *h, size_t bytes, const char *what);

/* Entries of the inverses of the wide supernodes' diagonal blocks (sum of
 * k^2 over supernodes of k >= EM_DG_SOLVE_BIG columns). */
int64_t em_dgpu_linv_entries(const em_dsym *S, int kmax);
/* Build them from the current factor (nothing when linv_ok), or release
 * them (a refactorization, the factor's end). */
em_err em_dgpu_linv(const em_dsym *S, em_dgpu *g, int kmax);
void em_dgpu_linv_free(em_dgpu *g);
/* What the solves of nrhs columns use, made now (direct_gsolve_cuda.c): the
 * inverses when trinv asks for nrhs columns, the work space.  Called at the
 * end of a factorization (trinv 1, or em_direct_opts.block_columns > 1),
 * so the set-up carries it instead of the first solve. */
em_err em_dgpu_solve_prepare(const em_direct *F, int nrhs);

/* The profile of the solves (direct_gprof_cuda.c): with
 * F->opts.gsolve.profile on, a solve calls begin (its stream), mark around
 * every launch (part, level: -1 for none; the event pair on the launch's
 * stream), end after its last launch, then collect once its stream is
 * synchronised. */
em_err em_dgp_begin(em_dgpu *g, cudaStream_t st, int nrhs);
em_err em_dgp_mark(em_dgpu *g, cudaStream_t st, int part, int level, int end);
em_err em_dgp_end(em_dgpu *g, cudaStream_t st);
em_err em_dgp_collect(em_dgpu *g);
void em_dgp_destroy(em_dgpu *g);

#endif
