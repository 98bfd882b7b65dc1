/* release.c - the problem object of the mesh (its matrix, operator and
 * factor: gigabytes on the host and the GPU at a million unknowns)
 * released on a thread of its own once the run's last solve is made and
 * the operator's blocks recorded, while the post-processing runs (issue
 * 24: the release otherwise followed summary.json, outside every stage).
 * Only for the uniform sweep of one process (app/sweep.c says which solve
 * is the last); nothing reads the object after it.  The thread is joined
 * at the end of the run. */
#include <pthread.h>

#include "app_sweep.h"

static void *release_main(void *arg) {
  em_run *r = arg;
  double t0 = em_wtime();
  em_fsys_destroy(&r->rel_fsys);
  r->t_rel = em_wtime() - t0;
  return NULL;
}

void em_app_release_start(em_run *r) {
  em_model *m = &r->m;
  if (r->rel_on || !r->last_solve || !m->fsys || r->dsolve || r->peer) return;
  r->rel_fsys = m->fsys;
  m->fsys = NULL;
  if (pthread_create(&r->rel_th, NULL, release_main, r)) { /* at the end, as before */
    m->fsys = r->rel_fsys;
    r->rel_fsys = NULL;
    return;
  }
  r->rel_on = 1;
}

void em_app_release_join(em_run *r) {
  if (!r->rel_on) return;
  double t0 = em_wtime();
  pthread_join(r->rel_th, NULL);
  r->rel_on = 0;
  em_log_verbose(r->log,
                 "run: the solver's memory released beside the post-processing in %.2f s "
                 "(waited %.2f s)",
                 r->t_rel, em_wtime() - t0);
}
