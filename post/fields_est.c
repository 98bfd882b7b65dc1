/* fields_est.c - the error indicator of the fields file (model/estimate.c,
 * the VTK's cell field "error"), in order or on a thread of its own that
 * em_post_frequency starts before the far field (issue 24: ~1 s at 1.4M
 * unknowns on 16 cores, after the solve and before the VTK).
 *
 * The thread computes exactly what the in-order call does (the same
 * function on the same inputs; each tet and face is its own work item and
 * the sum runs in tet order, so the bits do not depend on the thread or the
 * thread count), with an OpenMP team of most of the caller's threads: the
 * caller keeps about a third (em_post_est_share) for the far field and the
 * fields file's sampling, which run meanwhile; the fields file takes the
 * indicator only when it writes it (em_vtk_opts.error_late), and the
 * caller gets its threads back then.
 * It reads the mesh, the unknowns, the media and the solution, which
 * nothing writes while it runs; the ports it sets to the frequency are
 * copies of the setup's (the main thread reads the originals meanwhile).
 * Only without a plane wave (whose source state the estimate prepares
 * again: in order, as before) and on straight tets (the estimate's
 * domain); Solver/overlap 0: never.
 * Its stage (post) carries its own time into the run's table, its line
 * marked "(overlapped)"; the wait for it is taken off the caller's. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "run_impl.h"

/* eta2 of the solutions x at f (the setup s: the model's, or the thread's
 * copy of it) */
static em_err estimate(const em_model *m, const em_setup *s, double f, const em_cplx *x,
                       const em_cplx *fixed, double **eta, em_estimate_info *info) {
  /* the ports driven (Excitation/ports), or the plane wave */
  uint32_t ex = m->ff.planewave ? 0 : em_post_excited(m);
  int ns = !m->ff.planewave ? em_excite_count(ex) : s->n_port ? s->n_port : 1;
  EM_TRY(em_calloc(eta, (size_t)m->mesh->n_tet, sizeof **eta, "error indicators"));
  return em_setup_estimate_ports(m->mesh, m->dofs, s, f, em_pw_source_prepare, (void *)&m->pw, ex,
                                 x, ns, fixed, *eta, info);
}

struct em_post_est {
  em_beside *bs; /* the thread (core/beside.c) */
  const em_model *m;
  double f;
  const em_cplx *x, *fixed;
  em_setup setup; /* the model's, with ports of its own */
  em_port port[EM_MAX_PORTS];
  int threads;     /* its OpenMP threads */
  int share;       /* the caller's meanwhile (em_post_est_share) */
  int all;         /* the caller's before */
  atomic_int done; /* the thread's work is over (em_post_est_done) */
  double *eta;     /* what the thread made */
  em_estimate_info info;
};

/* The thread (log: its own). */
static em_err est_main(void *arg, const em_log *log) {
  em_post_est *h = arg;
  em_stage_begin(log, EM_STAGE_POST);
  em_err err = estimate(h->m, &h->setup, h->f, h->x, h->fixed, &h->eta, &h->info);
  em_stage_end(log, EM_STAGE_POST, "error estimate");
  atomic_store(&h->done, 1);
  return err;
}

em_post_est *em_post_est_start(const em_model *m, const em_log *log, double f, const em_cplx *x,
                               const em_cplx *fixed) {
  if (!m->cfg.solve.overlap || m->ff.planewave || m->mesh->edge_mid ||
      m->setup.n_port > EM_MAX_PORTS)
    return NULL;
  em_post_est *h = NULL;
  if (em_calloc(&h, 1, sizeof *h, "error estimate thread")) {
    em_error_clear(); /* in order, as before */
    return NULL;
  }
  h->m = m, h->f = f, h->x = x, h->fixed = fixed;
  h->setup = m->setup;
  if (m->setup.n_port) memcpy(h->port, m->setup.port, (size_t)m->setup.n_port * sizeof *h->port);
  h->setup.port = h->port;
#ifdef _OPENMP
  /* the cores split between the two teams by their work (measured on the
     CPU, extrapolated to 1.4M unknowns at order 3: the far field ~1.5
     core-s and the fields file's sampling ~0.6 beside the estimate's ~5):
     a third to the caller, the rest to the estimate, one each on two
     cores (on one, both share it); EMSOLVE_POST_SHARE=n gives the caller
     n (the device's A/B: scripts/device-postspeed.sh) */
  int all = h->all = omp_get_max_threads();
  h->share = (all + 1) / 3 < 1 ? 1 : (all + 1) / 3;
  const char *sh = getenv("EMSOLVE_POST_SHARE");
  if (sh && atoi(sh) > 0) h->share = atoi(sh) < all ? atoi(sh) : all;
  h->threads = all - h->share > 0 ? all - h->share : 1;
#else
  h->share = h->threads = h->all = 1;
#endif
  h->bs = em_beside_start(est_main, h, h->threads, log);
  if (!h->bs) em_free(&h); /* in order, as before */
  return h;
}

int em_post_est_share(const em_post_est *h, int *all) {
  if (all) *all = h->all;
  return h->share;
}

int em_post_est_done(const em_post_est *h) {
  return atomic_load(&((em_post_est *)h)->done);
}

void em_post_est_free(em_post_est **hp) {
  em_post_est *h = *hp;
  if (!h) return;
  em_beside_drop(&h->bs); /* an error path: its stage is dropped */
  em_free(&h->eta);
  em_free(hp);
}

double *em_post_est_take(em_post_est **hp, const em_model *m, const em_log *log, double f,
                         const em_cplx *x, const em_cplx *fixed) {
  double *eta = NULL;
  em_estimate_info info;
  em_err err;
  em_post_est *h = hp ? *hp : NULL;
  if (h) { /* the thread's, its stage joined into the run's table */
    err = em_beside_join(&h->bs, log, NULL, NULL, 0); /* its error raised here */
    eta = h->eta, h->eta = NULL;
    info = h->info;
    em_free(hp);
  } else {
    err = estimate(m, &m->setup, f, x, fixed, &eta, &info);
  }
  if (err) {
    em_log_warn(log, "%s; the VTK file has no error field", em_error_message());
    em_error_clear();
    em_free(&eta);
    return NULL;
  }
  for (int32_t t = 0; t < m->mesh->n_tet; t++) eta[t] = sqrt(eta[t]);
  em_log_verbose(log, "error estimate %.3e of the energy norm (%.2f s)",
                 info.energy > 0 ? info.eta / info.energy : info.eta, info.t);
  return eta;
}
