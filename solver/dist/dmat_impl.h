/* dmat_impl.h - the distributed operator's state (private to solver/dist/). */
#ifndef EM_SOLVER_DMAT_IMPL_H
#define EM_SOLVER_DMAT_IMPL_H

#include "em_dist.h"
#include "vec_impl.h"

struct em_dmat {
  const em_dist *d;
  int rank, size;
  em_backend backend;
  int32_t n_own, n_ghost, n_send, n_glob;
  int nb;
  int32_t offset[EM_MAX_ORDER + 1]; /* the local order groups */
  int32_t *l2g;                     /* [n_own] global unknown of each local row */
  int32_t *ghost_gid;               /* [n_ghost] global unknown of each ghost */
  em_blockmat *D;                   /* owned x owned, by order group, local numbering */
  em_blockop *op;                   /* D in the backend's formats (NULL: deferred) */
  em_blockop_opts bop;              /* their options */
  em_spmat *O;                      /* owned x ghost couplings (NULL: none) */
  em_csr *Oh;                       /* the same on the host */
  em_spmat *S;                      /* the send gather: n_send x n_own selection (NULL: none) */
  em_vec *vs, *vg;                  /* backends of the send and ghost buffers */
  void *send_b, *ghost_b;           /* the buffers in the backend */
  em_cplx *send_h, *ghost_h;        /* and on the host (MPI) */
  int pinned[2];                    /* send_h, ghost_h page-locked (em_dmat_pin) */
  int n_nb;                         /* neighbour ranks */
  int *nb_rank;
  int64_t *send_off, *recv_off; /* [n_nb + 1] */
  /* root: every rank's l2g one after the other (em_dmat_gather) */
  int32_t *all_l2g;
  int64_t *all_count;
  double t_halo_wait; /* seconds waited in em_dist_halo_finish */
  double t_build[4];  /* em_dmat_info.t_build */
  int64_t applies;
};

/* a ghost: its global index and owner */
typedef struct em_dmat_ghost {
  int32_t id, owner;
} em_dmat_ghost;

/* entries [b, e) of a row of ghost couplings sorted by column, the values
 * along (insertion: rows are short; equal columns keep their order) */
static inline void em_dmat_sort_row(int32_t *col, em_cplx *val, int64_t b, int64_t e) {
  for (int64_t p = b + 1; p < e; p++)
    for (int64_t s = p; s > b && col[s - 1] > col[s]; s--) {
      int32_t c = col[s];
      em_cplx v = val[s];
      col[s] = col[s - 1], val[s] = val[s - 1];
      col[s - 1] = c, val[s - 1] = v;
    }
}

/* mark[j] = 1 from any thread (an atomic read, then write when unset) */
static inline void em_dmat_mark(uint8_t *mark, int32_t j) {
  uint8_t m;
#pragma omp atomic read
  m = mark[j];
  if (!m) {
#pragma omp atomic write
    mark[j] = 1;
  }
}

/* Host buffer h [n] page-locked when the backend offers it (a device's
 * transfers of it faster each product or V-cycle): 1 when done; undone by
 * em_dmat_unpin before h is freed. */
int em_dmat_pin(em_backend b, void *h, size_t n);
void em_dmat_unpin(em_backend b, int pinned, void *h);

/* The communication plan (dmat_plan.c), collective: the ghosts of the
 * owned rows R (global columns; M->n_ghost), sorted by owner then global
 * index; R split into D (owned columns, local numbering g2l) and O (ghost
 * columns); the neighbours (M->n_nb, nb_rank, send_off, recv_off) and what
 * each needs from this rank, *send_idx [M->n_send] local rows. */
em_err em_dmat_plan(em_dmat *M, const em_csr *R, const int32_t *owner, const int32_t *g2l,
                    em_csr **D, em_csr **O, int32_t **send_idx);
/* The ghosts marked in mark[n_glob] (!= 0), listed by owner then global
 * index into *g (allocated, M->n_ghost set); gidx[j] = ghost index of j. */
em_err em_dmat_ghosts(em_dmat *M, const uint8_t *mark, const int32_t *owner, int32_t *gidx,
                      em_dmat_ghost **g);
/* Collective: the neighbours (M->n_nb, nb_rank, send_off, recv_off) from
 * the ghosts g, and what each needs from this rank, *send_idx [M->n_send]
 * rows in the numbering g2l. */
em_err em_dmat_exchange(em_dmat *M, const em_dmat_ghost *g, const int32_t *g2l, int32_t **send_idx);
/* The local part straight from the assembled blocks (dmat_blocks.c): *A
 * (block row g: this rank's unknowns of global group g, ascending; block
 * column h: global columns goff[h] + col) split into M->D (permuted as
 * bop's formats want), O (ghost columns, rows in M's order), the ghosts,
 * the halo plan and *send; M->l2g permuted.  *A is freed once split. */
em_err em_dmat_split_blocks(em_dmat *M, em_blockmat **A, const int32_t *goff, const int32_t *owner,
                            const int32_t *g2l, const em_blockop_opts *bop, em_csr **O,
                            int32_t **send);

#endif
