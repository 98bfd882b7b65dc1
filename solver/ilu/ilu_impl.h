/* ilu_impl.h - ILU(0) internals (private to solver/): the adjacency graph,
 * orderings, level schedules, the factors, and the triangular solves.
 *
 * Numbering.  "old" is the operator's numbering.  The ordering option gives
 * an ordered numbering; the rows are then sorted by their level in the L
 * solve (stable), which keeps the order of every pair of coupled rows, so
 * the factors are exactly those of the ordered matrix, but each level is a
 * contiguous range of rows: the "pc numbering", perm[old] = pc.  The U
 * solve runs over a second schedule, rows sorted by their U level. */
#ifndef EM_SOLVER_ILU_IMPL_H
#define EM_SOLVER_ILU_IMPL_H

#include "em_solver.h"

/* Levels of a schedule: level l holds positions ptr[l] .. ptr[l+1]-1. */
typedef struct em_levels {
  int n_levels;
  int32_t *ptr; /* n_levels + 1 */
} em_levels;

/* A stretch of a schedule: one wide level (split over all workers) or a
 * run of thin levels done by one worker (a CPU thread, one GPU block) with
 * a cheap barrier between levels instead of a launch or a team barrier. */
typedef struct em_seg {
  int32_t l0, l1; /* levels l0 .. l1-1 */
  int thin;       /* 1: one worker */
} em_seg;

/* Segments of a schedule: levels of at most thin_max rows are thin, and
 * consecutive thin levels merge. */
em_err em_levels_segments(const em_levels *lv, int32_t thin_max, em_seg **seg, int *n_seg);
void em_levels_free(em_levels *lv);

/* The ILU(0) factors.  Values are em_cplx or em_cplxf (prec). */
typedef struct em_ilu0 {
  int32_t n;
  int32_t *perm;   /* perm[old] = pc */
  int32_t *iperm;  /* iperm[pc] = old */
  int colors;      /* of the MC / BMC ordering */
  em_csr *Apc;     /* P A P^T; factored in place, freed by the split */
  int64_t *diag;   /* position of each row's diagonal in Apc */
  em_levels lev_l; /* L levels: ranges of pc rows */
  em_levels lev_u; /* U levels: ranges of the U schedule */
  int32_t *urow;   /* U schedule: position t holds pc row urow[t] */
  em_prec prec;    /* of lval, uval, dinv */
  int64_t *lptr;   /* strict lower part L (unit diagonal implied), pc rows */
  int32_t *lcol;
  void *lval;
  int64_t *uptr; /* strict upper part U, rows in U schedule order */
  int32_t *ucol;
  void *uval;
  void *dinv; /* 1 / U_ii, pc order */
} em_ilu0;

/* B = P A P^T (perm[old] = new, iperm its inverse), rows sorted, built
 * row-parallel. */
em_err em_ilu0_permute(const em_csr *A, const int32_t *perm, const int32_t *iperm, em_csr **B);
/* Ordering, level schedules and P A P^T (no numbers computed yet). */
em_err em_ilu0_analyse(const em_csr *A, em_pc_ordering o, int block, em_ilu0 **F);
/* ILU(0) of Apc in place, rows of a level in parallel.  A zero or
 * non-finite pivot is EM_ERR_NUMERIC naming the row in the old numbering. */
em_err em_ilu0_factorize(em_ilu0 *F);
/* Apc -> L, U (schedule order), 1/diag in precision prec; frees Apc. */
em_err em_ilu0_split(em_ilu0 *F, em_prec prec);
/* Bytes of the split factors and schedules. */
size_t em_ilu0_bytes(const em_ilu0 *F);
void em_ilu0_destroy(em_ilu0 **F);

/* CPU triangular solves on the split factors, in place on y (complex
 * double whatever the factor storage), following the segments:
 *   lower: y_i -= sum_{k<i} L_ik y_k over pc rows;
 *   upper: y_i = (y_i - sum_{j>i} U_ij y_j) / U_ii over the U schedule. */
void em_trsv_lower_cpu(const em_ilu0 *F, const em_seg *seg, int n_seg, void *y);
void em_trsv_upper_cpu(const em_ilu0 *F, const em_seg *seg, int n_seg, void *y);
/* The same on kc <= EM_ILU_COLS columns stored row by row (entry (i, j) at
 * y[i kc + j]): the factors read once for all, each column's arithmetic
 * that of the one-column solve. */
#define EM_ILU_COLS 8
void em_trsv_lower_cpu_k(const em_ilu0 *F, const em_seg *seg, int n_seg, int kc, em_cplx *y);
void em_trsv_upper_cpu_k(const em_ilu0 *F, const em_seg *seg, int n_seg, int kc, em_cplx *y);

/* The pc builders of each implementation (rows of the backend tables,
 * backend_cpu.c and backend_cuda.c; ilu0_pc.c calls them). */
em_err em_pc_ilu0_build_cpu(em_ilu0 *F, em_pc *pc);
em_err em_pc_ilu0_build_cuda(em_ilu0 *F, em_pc *pc);
em_err em_pc_ilu0_build_cusparse(em_ilu0 *F, em_pc *pc);

#endif
