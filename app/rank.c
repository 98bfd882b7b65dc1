/* rank.c - this process's place in an MPI run, for the app: the log tag,
 * the device of a rank without a GPU, the host threads per rank, rank 0 as
 * the run's voice (docs/mpi.md, "Ranks, GPUs and threads"). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_dist.h"

void em_app_rank_tag(const em_dist *d, int point, em_log *log) {
  log->tag[0] = '\0';
  if (em_dist_size(d) <= 1) return;
  if (point >= 0)
    snprintf(log->tag, sizeof log->tag, "[rank %d, point %d] ", em_dist_rank(d), point);
  else
    snprintf(log->tag, sizeof log->tag, "[rank %d] ", em_dist_rank(d));
}

/* Host threads of a rank: OMP_NUM_THREADS when given; else the node's
 * cores split evenly among its ranks, within the cores the launcher bound
 * the rank to (Open MPI binds to a core for 2 ranks, to a socket above:
 * mpirun --bind-to none leaves the split to emsolve). */
static int rank_threads(const em_dist_place *p, int *bound_cpus) {
  int online = (int)sysconf(_SC_NPROCESSORS_ONLN), mine = omp_get_num_procs();
  *bound_cpus = mine < online ? mine : 0;
  if (getenv("OMP_NUM_THREADS")) return omp_get_max_threads();
  int share = online / (p->local_size > 0 ? p->local_size : 1);
  if (share < 1) share = 1;
  return share < mine ? share : mine;
}

void em_app_rank_setup(em_app_args *a, em_log *log) {
  const em_dist *d = a->dist;
  if (em_dist_size(d) <= 1) return;
  const em_dist_place *p = em_dist_where(d);
  em_app_rank_tag(d, -1, log);
  /* rank 0 speaks for the run: tables and results on its stdout only */
  if (p->rank > 0 && !freopen("/dev/null", "w", stdout))
    em_log_warn(log, "cannot silence this rank's stdout");
  char gpu[96] = "";
  if (p->n_gpu > 0 && p->gpu < 0 && strcmp(a->device, "cpu")) {
    a->device = "cpu"; /* more ranks than GPUs: this one on the host */
    snprintf(gpu, sizeof gpu, "no GPU of its own (%d on the node for %d ranks): the host", p->n_gpu,
             p->local_size);
  } else if (p->gpu >= 0 && strcmp(a->device, "cpu")) {
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    snprintf(gpu, sizeof gpu, "GPU %d of %d (CUDA_VISIBLE_DEVICES=%s)", p->gpu, p->n_gpu,
             cvd ? cvd : "unset");
  } else {
    snprintf(gpu, sizeof gpu, "--device %s", a->device);
  }
  int bound = 0, t = rank_threads(p, &bound);
  omp_set_num_threads(t);
  char bind[64] = "";
  if (bound) snprintf(bind, sizeof bind, " (bound by the launcher to %d cores)", bound);
  em_log_info(log, "%s%s: rank %d of %d on %s (local %d of %d), %s, %d host threads%s", p->impl,
              p->cuda_aware ? ", CUDA-aware" : "", p->rank, p->size, p->node, p->local_rank,
              p->local_size, gpu, t, bind);
  if (bound == 1 && !getenv("OMP_NUM_THREADS") && sysconf(_SC_NPROCESSORS_ONLN) > p->local_size)
    em_log_warn(log,
                "the launcher bound this rank to one core: meshing and assembly run on one "
                "thread (mpirun --bind-to none lets emsolve split the node's cores)");
}

int em_app_rank_finish(const em_dist *d, int code) {
  int P = em_dist_size(d);
  if (P <= 1) return code;
  fflush(stdout);
  if (em_dist_rank(d) == 0) {
    for (int k = 1; k < P; k++)
      if (em_dist_send(d, &code, sizeof code, k, EM_TAG_EXIT)) {
        fprintf(stderr, "error: %s\n", em_error_message());
        em_dist_abort(d, code ? code : EM_EXIT_ERROR);
      }
    return code;
  }
  int c = code, from;
  if (em_dist_probe(d, 0, EM_TAG_EXIT, EM_DIST_IDLE, &from, NULL) ||
      em_dist_recv(d, &c, sizeof c, 0, EM_TAG_EXIT, NULL, NULL)) {
    fprintf(stderr, "error: [rank %d] %s\n", em_dist_rank(d), em_error_message());
    em_dist_abort(d, EM_EXIT_ERROR);
  }
  return c;
}
