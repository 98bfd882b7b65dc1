/* dfsys_ahead.c - rank 0's coarse analysis ahead of the values (issue 27,
 * Solver/overlap 1): the distributed V-cycle gathers its coarse level A_CC
 * (the first PMG/coarse order groups and the PML's unknowns, dfsys.c) to
 * rank 0 and factors it there; the factor's fill-reducing ordering and
 * symbolic factorization depend on A_CC's pattern alone, and the mesh and
 * the DOF map give that pattern before any value exists (two unknowns
 * couple iff a tet holds both: assembly/pattern.c's rule; fsys_coarse.c,
 * shared with the one-rank V-cycle's analysis ahead).  So rank 0
 * builds it and analyses it on a thread of its own (its own OpenMP team)
 * while the ranks take their parts and assemble, instead of after every
 * rank's rows reached it, with the others waiting (1.4-1.7 s at 385k
 * coarse unknowns).
 *
 * The factor is the in-order one bit for bit: the V-cycle takes the
 * analysis only when the gathered A_CC has the same pattern hash
 * (em_dmat_pmg_ahead), and the nested dissection is a function of the
 * graph (graph/nd_tree.c); when the thread failed (its error is logged),
 * the coarse set or the order groups differ, rank 0 analyses in order, so
 * any error is the sequential run's.  Each frequency of a sweep starts its
 * own (the distributed pc is built per frequency). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fsys_impl.h"

struct em_dfsys_ahead {
  em_beside *bs;    /* the thread (core/beside.c) */
  const em_mesh *m; /* read only by both threads */
  const em_dofmap *dofs;
  uint8_t *cg;   /* [n_dof] the coarse set analysed */
  int nb;        /* the order groups assumed (the pc's choice depends on them) */
  em_pc_opts co; /* the coarse factor's options (em_dmat_pmg_coarse_opts) */
  int threads;
  /* what the thread made */
  em_dmat_coarse_ahead ah;
};

/* The thread: the pattern, its hash, the analysis (log: the thread's). */
static em_err dahead_main(void *arg, const em_log *log) {
  em_dfsys_ahead *h = arg;
  em_csr *P = NULL;
  em_stage_begin(log, EM_STAGE_ORDERING);
  em_err err = em_fsys_coarse_pattern(h->m, h->dofs, h->cg, NULL, &P); /* fsys_coarse.c */
  em_stage_end(log, EM_STAGE_ORDERING, "the coarse level's pattern from the mesh");
  if (!err) h->ah.pattern = em_spmat_pattern_hash(P);
  if (!err) err = em_pc_direct_analyse(P, &h->co, log, &h->ah.F);
  em_csr_destroy(&P);
  return err;
}

em_err em_fsys_dahead_start(em_fsys *s, const em_log *log) {
  const em_fsys_desc *d = &s->d;
  em_fsys_dahead_free(s); /* a failed solve's */
  if (!em_fsys_distributed(s) || em_dist_rank(d->dist) != 0 || d->periodic || !d->solve->overlap)
    return EM_OK;
  em_pc_opts pco;
  int nb = d->dofs->order; /* the assembled blocks' groups (assembly/pattern.c) */
  em_fsys_dpc_opts(s, nb, &pco);
  if (pco.type != EM_PC_PMG) return EM_OK;
  /* a failure here leaves the analysis to pmg() in order, which meets the
     same error after the ranks' agreement (rank 0 returning here would
     leave the others waiting in it) */
  em_dfsys_ahead *h = NULL;
  if (em_calloc(&h, 1, sizeof *h, "coarse analysis ahead") || em_fsys_dcoarse(s, &pco, &h->cg)) {
    em_log_verbose(log, "overlap: no coarse analysis ahead (%s); it runs in order",
                   em_error_message());
    em_error_clear();
    em_free(&h);
    return EM_OK;
  }
  h->m = d->mesh, h->dofs = d->dofs, h->nb = nb;
  em_dmat_pmg_coarse_opts(&pco, d->backend, &h->co);
#ifdef _OPENMP
  h->threads = omp_get_max_threads();
#endif
  h->bs = em_beside_start(dahead_main, h, h->threads, log);
  if (!h->bs) { /* no thread: in order */
    em_log_verbose(log, "overlap: no thread for the coarse analysis; it runs in order");
    em_free(&h->cg);
    em_free(&h);
    return EM_OK;
  }
  s->dahead = h;
  em_log_verbose(log,
                 "overlap: the coarse level's ordering and symbolic analysis begin on a "
                 "thread of their own on rank 0 beside the parts and the assembly");
  return EM_OK;
}

static void dahead_drop(em_dfsys_ahead **hp) {
  em_dfsys_ahead *h = *hp;
  em_direct_destroy(&h->ah.F);
  em_free(&h->cg);
  em_free(hp);
}

void em_fsys_dahead_take(em_fsys *s, int nb, const uint8_t *cg, const em_log *log,
                         em_dmat_coarse_ahead *ah) {
  memset(ah, 0, sizeof *ah);
  em_dfsys_ahead *h = s->dahead;
  if (!h) return;
  s->dahead = NULL;
  double waited;
  char msg[256] = "";
  em_err err = em_beside_join(&h->bs, log, &waited, msg, sizeof msg);
  if (waited > 0.05) em_log_verbose(log, "overlap: waited %.2f s for the coarse analysis", waited);
  const char *why = NULL;
  if (err)
    why = msg;
  else if (nb != h->nb)
    why = "the order groups differ from the assumed ones";
  else if (memcmp(cg, h->cg, (size_t)s->d.dofs->n_dof))
    why = "the coarse set differs";
  if (why) {
    em_log_verbose(
        log, "overlap: the coarse analysis made ahead is not used (%s); it runs in order", why);
  } else {
    *ah = h->ah;
    h->ah.F = NULL;
  }
  dahead_drop(&h);
}

void em_fsys_dahead_free(em_fsys *s) {
  if (!s->dahead) return;
  em_beside_drop(&s->dahead->bs); /* an error path: the thread's table is dropped */
  dahead_drop(&s->dahead);
}
