/* dfsys_opbeside.c - each rank's share of the distributed operator built
 * beside the V-cycle's set-up (issue 27; fsys_opbeside.c on one rank).  A
 * rank's operator stage ends with its local blocks' formats (built on the
 * host and uploaded: 0.9-2.4 s a rank on the H200s at 1.2-3.2M unknowns a
 * rank), then the distributed pmg's set-up runs (its block smoothers, the
 * coarse rows gathered to rank 0 and factored there: 1-3 s).  The set-up
 * reads the dmat's host blocks (D, Oh), its numbering (l2g, ghost_gid,
 * offset) and its communicator only, and applies the operator only in the
 * V-cycles; so the formats (em_dmat_make_op of the split blocks, no MPI:
 * every collective stays on the calling thread) go on a thread of their
 * own (its own OpenMP team, half the rank's) while this one sets the
 * V-cycle up, and are joined into the dmat before the first product.
 *
 * The operator is the in-order one bit for bit: the same call on the same
 * read-only blocks.  On the GPU the thread uses the rank's device: a
 * process computes on its CUDA device 0 only (em_device_open; a rank's
 * GPU is bound by CUDA_VISIBLE_DEVICES, dist/launch.c), which is every new
 * thread's current device too.  The formats go beside the set-up when they
 * take at most an eighth of the free device memory (as on one rank: the
 * set-up's peak is not known before it runs) and their host copies fit
 * (em_fsys_fits_host); else, or when no thread starts, they are built in
 * order in the operator stage as before.  When the thread fails (its
 * error stays on its thread and is logged) they are built in order at the
 * join, so any error is the in-order run's.  Its stage line is marked
 * "(overlapped)"; the dmat's t_build[2] is the thread's time.
 * Solver/overlap 0 or EMSOLVE_OPBESIDE=0 keeps the order. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fsys_impl.h"

struct em_dfsys_opb {
  em_beside *bs;    /* the thread (core/beside.c) */
  const em_dmat *M; /* read only by both threads while it runs */
  double t;         /* the thread's seconds */
  em_blockop *op;   /* what it made */
};

/* The thread (log: its own): the local part's formats. */
static em_err dopb_main(void *arg, const em_log *log) {
  em_dfsys_opb *h = arg;
  double t0 = em_wtime();
  em_stage_begin(log, EM_STAGE_OPERATOR);
  em_err err = em_dmat_make_op(h->M, &h->op);
  em_stage_end(log, EM_STAGE_OPERATOR, "the blocks' formats beside the V-cycle's set-up");
  h->t = em_wtime() - t0;
  if (err) em_blockop_destroy(&h->op);
  return err;
}

int em_fsys_dopb_wanted(int pmg) {
  const char *ab = getenv("EMSOLVE_OPBESIDE");
  return pmg && !(ab && !strcmp(ab, "0"));
}

/* the formats in order, timed as em_dmat_create times them */
static em_err in_order(em_fsys *s) {
  em_blockop *op = NULL;
  double t0 = em_wtime();
  EM_TRY(em_dmat_make_op(s->dm, &op));
  em_dmat_set_op(s->dm, op, em_wtime() - t0);
  return EM_OK;
}

em_err em_fsys_dopb_start(em_fsys *s, const em_log *log) {
  em_dmat_info in;
  em_dmat_get_info(s->dm, &in);
  double nnz = (double)in.nnz_local, gib = 1024.0 * 1024.0 * 1024.0;
  if (s->d.backend == EM_BACKEND_CUDA) {
    /* ~20 device bytes an entry measured, 32 with the upload's staging
       (fsys_opbeside.c) */
    double opb = 32.0 * nnz + 64.0 * (double)in.n_own, free_b = (double)em_device_mem_free();
    if (opb > free_b / 8) {
      em_log_verbose(log,
                     "operator: the blocks' formats built in order (~%.2f GiB of %.2f GiB free)",
                     opb / gib, free_b / gib);
      return in_order(s);
    }
  }
  em_dfsys_opb *h = NULL;
  if (!em_fsys_fits_host(nnz, 24) || em_calloc(&h, 1, sizeof *h, "operator beside the set-up")) {
    em_error_clear();
    return in_order(s);
  }
  h->M = s->dm;
  int threads = 1;
#ifdef _OPENMP
  /* half the rank's team: the set-up's smoothers use the rest */
  threads = omp_get_max_threads() / 2 > 0 ? omp_get_max_threads() / 2 : 1;
#endif
  h->bs = em_beside_start(dopb_main, h, threads, log);
  if (!h->bs) {
    em_free(&h);
    return in_order(s);
  }
  s->dopb = h;
  return EM_OK;
}

em_err em_fsys_dopb_take(em_fsys *s, const em_log *log) {
  em_dfsys_opb *h = s->dopb;
  if (!h) return EM_OK;
  s->dopb = NULL;
  double waited;
  char msg[256] = "";
  em_err err = em_beside_join(&h->bs, log, &waited, msg, sizeof msg);
  if (!err) {
    em_dmat_set_op(s->dm, h->op, h->t);
    em_log_verbose(log,
                   "operator: %.2f s the blocks' formats on a thread beside the V-cycle's set-up "
                   "(overlapped), the join waited %.2f s",
                   h->t, waited);
  } else {
    em_log_verbose(log,
                   "operator: the thread building the blocks' formats beside the V-cycle's set-up "
                   "failed (%s); built in order",
                   msg);
  }
  em_free(&h);
  return err ? in_order(s) : EM_OK;
}

void em_fsys_dopb_free(em_fsys *s) {
  em_dfsys_opb *h = s->dopb;
  if (!h) return;
  s->dopb = NULL;
  em_beside_drop(&h->bs); /* an error path: the thread's table is dropped */
  em_blockop_destroy(&h->op);
  em_free(&h);
}
