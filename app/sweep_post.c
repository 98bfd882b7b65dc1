/* sweep_post.c - a uniform sweep's per-frequency outputs on a thread of
 * their own while the next frequency solves (issue 24: at the default
 * order-3 DRA on an H200 the far field, the port quantities and their
 * files took 0.23 s of each frequency's 0.93 s, the GPU idle meanwhile).
 *
 * em_post_frequency reads the solution, the fixed values and the model,
 * and writes row fi of the results and its files; the next solve writes
 * row fi + 1 and touches none of what the outputs read but the ports,
 * which it sets to its own frequency (model/fsys_next.c's em_fsys_problem):
 * the thread gets a shallow copy of the model whose setup holds copies of
 * the ports (the error estimate sets them too).  So the outputs are the
 * same function of the same inputs, only computed later: the same bytes
 * (the far field's sums do not depend on the thread count: post/farfield.c).
 * The loop (sweep.c) joins the thread after the next solve, or before it
 * stops for any reason, and only then logs the frequency and journals it:
 * the journal never names a frequency whose files are not complete, and
 * an error of the next solve does not lose this one's.  The thread's
 * stages (post, far field, writing) keep their own durations in the run's
 * table, their lines marked "(overlapped)" (em_stages_join).
 *
 * Not for a plane wave (its source's state is the solve's, which the
 * outputs read), a Floquet cell, a distributed or adaptive sweep, the last
 * frequency (nothing to overlap), Solver/overlap 0: those post-process in
 * turn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "app_sweep.h"

struct em_sweep_post {
  em_beside *bs; /* the thread (core/beside.c) */
  em_run *r;
  int fi;
  em_model m;                 /* the run's, but for the ports */
  em_port port[EM_MAX_PORTS]; /* copies at frequency fi */
  em_system *sys;             /* the solve's fixed values (owned) */
  em_cplx *x;                 /* its solutions (owned) */
  int threads; /* the caller's OpenMP threads (a new thread starts from the defaults) */
};

int em_sweep_post_may(const em_run *r) {
  const em_model *m = &r->m;
  return m->cfg.solve.overlap && !m->ff.planewave && !m->periodic && !r->dsolve && !r->peer &&
         m->setup.n_port <= EM_MAX_PORTS;
}

/* The thread (log: the run's on its own stage table). */
static em_err post_main(void *arg, const em_log *log) {
  em_sweep_post *h = arg;
  em_run *r = h->r;
  return em_post_frequency(&h->m, &r->res, &r->out, log, h->fi, h->x, h->sys->fixed);
}

static void post_free(em_sweep_post **hp) {
  em_sweep_post *h = *hp;
  if (!h) return;
  em_system_destroy(&h->sys);
  em_free(&h->x);
  em_free(hp);
}

em_err em_sweep_post_start(em_run *r, int fi, em_system **sys, em_cplx **x, em_sweep_post **out) {
  *out = NULL;
  em_sweep_post *h = NULL;
  if (em_calloc(&h, 1, sizeof *h, "overlapped outputs")) { /* in turn, then */
    em_error_clear();
    return EM_OK;
  }
  h->r = r;
  h->fi = fi;
  h->m = r->m;
  memcpy(h->port, r->m.setup.port, (size_t)r->m.setup.n_port * sizeof *h->port);
  h->m.setup.port = h->port;
  h->threads = 1;
#ifdef _OPENMP
  h->threads = omp_get_max_threads();
#endif
  h->threads = em_ahead_threads(&r->m.cfg.solve, h->threads); /* Solver/ahead_threads */
  h->sys = *sys;
  h->x = *x;
  h->bs = em_beside_start(post_main, h, h->threads, r->log);
  if (!h->bs) { /* no thread: the caller, in turn */
    h->sys = NULL;
    h->x = NULL;
    em_free(&h);
    return EM_OK;
  }
  *sys = NULL; /* the thread's now */
  *x = NULL;
  *out = h;
  return EM_OK;
}

em_err em_sweep_post_join(em_run *r, em_sweep_post **hp, int *fi) {
  em_sweep_post *h = *hp;
  *fi = -1;
  if (!h) return EM_OK;
  em_err err = em_beside_join(&h->bs, r->log, NULL, NULL, 0); /* its error raised here */
  if (!err) {
    *fi = h->fi;
    em_app_log_frequency(r, h->fi); /* app/face.c */
  }
  post_free(hp);
  return err;
}
