/* dpmg_impl.h - the distributed V-cycle's state (private to solver/dist/:
 * dpmg.c the cycle, dpmg_coarse.c its coarse level). */
#ifndef EM_SOLVER_DPMG_IMPL_H
#define EM_SOLVER_DPMG_IMPL_H

#include "dmat_impl.h"
#include "pc_impl.h"
#include "pmg_impl.h"

#define TAG_COARSE 32702    /* rank 0 -> rank: its part of the coarse solution */
#define TAG_COARSE_UP 32703 /* rank -> rank 0: its coarse residual rows */

typedef struct dpmg {
  em_dmat *M;
  em_operator A;
  int nb, coarse, sweeps;
  double omega;
  int32_t off[EM_MAX_ORDER + 1];
  em_pc *sm[EM_MAX_ORDER];      /* level g's ILU(0) smoother (g >= coarse), or */
  em_spmat *dinv[EM_MAX_ORDER]; /* omega times its block-diagonal inverse */
  em_vec *vl[EM_MAX_ORDER];     /* vectors of level g's length: its slices */
  em_vec *v;                    /* the rank's whole length */
  void *W;                      /* res, t */
  int32_t n_cl;                 /* this rank's coarse rows */
  em_spmat *Sc, *ScT;           /* gather of the coarse rows and its transpose */
  em_vec *vc;                   /* the coarse slice in the backend (not CPU) */
  void *cb;
  em_cplx *ch;
  int pinned[2]; /* ch, all page-locked (em_dmat_pin) in backend: */
  em_backend backend;
  int64_t n_c;          /* coarse unknowns of all ranks */
  int64_t *cnt;         /* root: each rank's coarse rows */
  int32_t *cg_all;      /* root: global coarse index of each gathered value */
  em_cplx *cs;          /* root: the coarse vector, global coarse order */
  em_cplx *all;         /* root: the ranks' coarse rows one after the other */
  em_pc *F;             /* root: the direct factor of A_CC (the pc's precision:
                           complex single with Solver/precision mixed on a GPU) */
  em_vec *vcs;          /* root: its right-hand side and solution in the backend */
  void *dcs;            /* (not CPU): three columns of n_c: the rows as gathered,
                           the right-hand side, the solution */
  em_spmat *Pin, *Pout; /* root (not CPU): the gathered rows into the coarse
                           order and back (permutations, on the device) */
  double t_smooth, t_coarse, t_res;
  double t_csolve; /* root: the coarse solves themselves, within t_coarse */
} dpmg;

/* The coarse level (dpmg_coarse.c), collective: p->n_c, n_cl, Sc, ScT, the
 * buffers, and on rank 0 cnt, cg_all, cs and the factor F (on ah's
 * analysis when it fits, see em_dmat_pmg_ahead); *bytes = rank 0's factor
 * (0 elsewhere). */
em_err em_dpmg_coarse_build(dpmg *p, const uint8_t *coarse_glob, const em_pc_opts *o,
                            em_dmat_coarse_ahead *ah, const em_log *log, size_t *bytes);

#endif
