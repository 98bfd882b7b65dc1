/* pmg_impl.h - the order-group V-cycle (private to solver/pmg): levels,
 * their smoothers, the coarse factor, and the few vector operations the
 * cycle needs on each backend.
 *
 * Numbering: the operator's (DOFs by order group, permuted inside groups
 * only), so group g is the row range offset[g] .. offset[g+1]-1 and the
 * restriction to the first groups is a leading sub-vector. */
#ifndef EM_SOLVER_PMG_IMPL_H
#define EM_SOLVER_PMG_IMPL_H

#include "pc_impl.h"

/* Largest entity block of the block-Jacobi smoother. */
#define EM_PMG_MAX_BLOCK 8

/* Columns of one V-cycle of a k-vector apply (more go in groups). */
#define EM_PMG_COLS 16

/* Vector operations on the pc's backend, complex double, on k <= EM_PMG_COLS
 * columns at once (x[j] the columns; one launch on the GPU for all). */
typedef struct pmg_vops {
  em_err (*zero)(int32_t n, int k, void *const *x); /* x_j = 0 */
  /* c_j[q] = a_j[idx[q]] - b_j[bidx ? idx[q] : q] (b NULL: - 0); idx in the
     pc's memory */
  em_err (*gather_sub)(int32_t n, const int32_t *idx, int k, const void *const *a,
                       const void *const *b, int bidx, void *const *c);
  /* y_j[idx[q]] += w x_j[q] (distinct indices) */
  em_err (*scatter_add)(int32_t n, const int32_t *idx, int k, double w, const void *const *x,
                        void *const *y);
  /* a time stamp of the pc's queue, *s made at the first call (a CUDA
     event; on the CPU the wall clock) and recorded now */
  em_err (*stamp)(void **s);
  /* ms from stamp a to stamp b, waiting for b */
  em_err (*stamp_ms)(void *a, void *b, double *ms);
  void (*stamp_free)(void **s);
  /* *x = an array of `bytes` bytes in the pc's memory, a copy of h when h
     is not NULL (work vectors, row lists) */
  em_err (*alloc)(size_t bytes, const void *h, void **x);
  void (*release)(void **x); /* free it; *x = NULL */
} pmg_vops;

extern const pmg_vops em_pmg_vops_cpu;  /* pmg_vops.c */
extern const pmg_vops em_pmg_vops_cuda; /* pmg_vops_cuda.c */
/* Launchers of pmg_kernels.cu (complex double, legacy default stream). */
em_err em_pmg_cuda_zero(int32_t n, int k, void *const *x);
em_err em_pmg_cuda_gather_sub(int32_t n, const int32_t *idx, int k, const void *const *a,
                              const void *const *b, int bidx, void *const *c);
em_err em_pmg_cuda_scatter_add(int32_t n, const int32_t *idx, int k, double w, const void *const *x,
                               void *const *y);

/* A set of rows: their list in the pc's memory and on the host. */
typedef struct pmg_rows {
  int32_t n;
  int32_t lo, hi; /* the rows lie in lo .. hi-1 (lo = hi = 0 when none) */
  int32_t *h;     /* host list, ascending */
  int32_t *idx;   /* a copy in the pc's memory (pmg_vops.alloc) */
} pmg_rows;

/* One smoothed level: its rows L (a group, or groups 1..g, minus the
 * rows of the coarse set). */
typedef struct pmg_level {
  pmg_rows L;
  em_spmat *rows; /* A(L, :), for the level's residual (NULL with opts.op) */
  em_spmat *dinv; /* omega times the inverse of the block diagonal of
                     A(L, L) (Jacobi, block); NULL with ILU(0) */
  em_pc *ilu;     /* ILU(0) of A(L, L) */
  double omega;
  int32_t blocks; /* diagonal blocks found (block Jacobi) */
} pmg_level;

typedef struct em_pmg {
  em_pmg_opts o;
  int32_t n;
  int nlev; /* smoothed levels, the highest first (the block level first) */
  pmg_level lev[EM_MAX_ORDER + 1];
  pmg_rows C;         /* the coarse set: the first groups and the rows
                         marked in opts.coarse_rows */
  em_spmat *crows;    /* A(C, :) (NULL with opts.op) */
  em_pc *coarse;      /* direct factor of A(C, C) */
  void *t, *w, *u;    /* work vectors, n entries each */
  int cap_k;          /* columns of the block work vectors below (0: none yet) */
  void *tk, *wk, *uk; /* k-vector applies: n x cap_k each */
  struct {            /* bytes by component (em_pc_info) */
    size_t rows, smoother, index, work, factor;
  } mem;
  const pmg_vops *v;
  em_backend be;
  /* the stamps of the current V-cycle (pmg_stamp.c): stamp i ends an
     interval of part st_part[i] on level st_lev[i] (-1: the coarse set);
     st_cap of them, a cycle's (em_pmg_stamps_per_cycle), made at the
     first cycle */
  void **st;
  int *st_part, *st_lev;
  int st_cap, nst;
  em_pmg_profile prof;
} em_pmg;

/* pmg_stamp.c: the cycle's first stamp; a stamp ending a step of `part` on
 * level lev (the stamps go to pc->info's timers and p->prof when the cycle
 * ends or the list is full); the cycle's end: its stamps read (one wait). */
em_err em_pmg_stamp_begin(em_pmg *p);
/* The stamps of one V-cycle of nlev levels and `sweeps` sweeps: the first,
 * zero, 4 per smoothing step (product, gather, smoother, scatter; the
 * first step's product is skipped: z = 0), the coarse product, gather,
 * solve and scatter: 5 + 8 nlev sweeps (77 for 3 levels of 3 sweeps). */
int em_pmg_stamps_per_cycle(int nlev, int sweeps);
em_err em_pmg_stamp(em_pc *pc, em_pmg *p, em_pmg_part part, int lev);
em_err em_pmg_stamp_end(em_pc *pc, em_pmg *p, int k);
void em_pmg_stamp_free(em_pmg *p);

/* The block-diagonal inverse of A(L, L) + j shift |diag|, times omega, as
 * a CSR in the local indices of the rows L (rows[0..m), ascending): blocks
 * of the rows with identical patterns (at most EM_PMG_MAX_BLOCK; 1 for
 * point Jacobi).  EM_ERR_NUMERIC names a singular block. */
em_err em_pmg_block_inverse(const em_csr *A, const int32_t *rows, int32_t m, int block,
                            double shift, double omega, em_csr **Dinv, int32_t *n_blocks);

/* The block level (pmg_block.c): the rows of opts.block_rows (at least
 * one), their ILU(0) or direct factor, into L. */
em_err em_pmg_block_level(em_pmg *p, const em_csr *A, pmg_level *L, const em_log *log);

/* A(R, C) as a CSR in local indices: rows R = rows[0..m) (ascending), all
 * columns (cols NULL) or the columns of the same list (cols = rows). */
em_err em_pmg_submatrix(const em_csr *A, const int32_t *rows, int32_t m, const int32_t *cols,
                        em_csr **B);

#endif
