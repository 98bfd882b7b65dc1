/* launch.c - what the launcher says before MPI starts: whether one started
 * this process, its local rank, and the GPU of each rank of a node.
 *
 * The GPU is chosen before MPI_Init on purpose: a CUDA-aware MPI (UCX with
 * its CUDA transports) makes a context on the GPUs it sees when it starts,
 * so every rank would sit on GPU 0.  Narrowing CUDA_VISIBLE_DEVICES to one
 * GPU per rank first is the usual cure (mpirun's own wrapper scripts do the
 * same); the code above then uses "device 0" as in a serial run. */
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

/* The variables MPI launchers set in each process they start: Open MPI's
 * mpirun, PMIx (Open MPI 5, srun --mpi=pmix), PMI-1/2 (MPICH's Hydra,
 * srun --mpi=pmi2). */
static const char *const LAUNCHER_VARS[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                            "PMI_SIZE", "MPI_LOCALNRANKS"};

int em_dist_launched(void) {
  const char *e = getenv("EMSOLVE_DIST");
  if (e && !strcmp(e, "serial")) return 0;
  if (e && !strcmp(e, "mpi")) return 1;
  for (size_t i = 0; i < sizeof LAUNCHER_VARS / sizeof LAUNCHER_VARS[0]; i++)
    if (getenv(LAUNCHER_VARS[i])) return 1;
  return 0;
}

static int env_int(const char *name) {
  const char *v = getenv(name);
  char *end = NULL;
  long n = v ? strtol(v, &end, 10) : -1;
  return v && end != v && *end == '\0' && n >= 0 && n < 1 << 20 ? (int)n : -1;
}

void em_dist_env_local(int *local_rank, int *local_size) {
  /* Open MPI (mpirun, prterun), MPICH's Hydra, Slurm's srun */
  static const char *const pair[][2] = {
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"}};
  *local_rank = *local_size = -1;
  for (size_t i = 0; i < sizeof pair / sizeof pair[0]; i++)
    if (env_int(pair[i][0]) >= 0) {
      *local_rank = env_int(pair[i][0]);
      *local_size = env_int(pair[i][1]);
      return;
    }
}

/* The k-th entry of CUDA_VISIBLE_DEVICES ("0,1,2", or GPU-/MIG- UUIDs), or
 * the index k when it is not set. */
static void shown_gpu(int k, char *buf, size_t n) {
  const char *v = getenv("CUDA_VISIBLE_DEVICES");
  if (!v) {
    snprintf(buf, n, "%d", k);
    return;
  }
  for (int i = 0; i < k && v; i++) {
    v = strchr(v, ',');
    if (v) v++;
  }
  size_t len = v ? strcspn(v, ",") : 0;
  if (len >= n) len = n - 1;
  if (v) memcpy(buf, v, len);
  buf[len] = '\0';
}

void em_dist_bind_gpu(em_dist_place *p) {
  const char *mode = getenv("EMSOLVE_GPU_BIND");
  p->n_gpu = em_cuda_count_devices(); /* in a child: this process's CUDA is untouched */
  p->gpu = p->n_gpu > 0 ? 0 : -1;
  p->bound = 0;
  int alone = p->local_size == 1 && p->local_rank == 0;
  if (p->n_gpu <= 0 || alone || (mode && !strcmp(mode, "none"))) return;
  if (p->local_rank >= p->n_gpu) { /* more ranks than GPUs: this one uses the host */
    p->gpu = -1;
    return;
  }
  char id[128];
  shown_gpu(p->local_rank, id, sizeof id);
  if (!id[0] || setenv("CUDA_VISIBLE_DEVICES", id, 1)) return;
  p->gpu = p->local_rank;
  p->bound = 1;
}

int em_dist_env_size(void) {
  static const char *const var[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_NRANKS",
                                    "SLURM_NTASKS"};
  for (size_t i = 0; i < sizeof var / sizeof var[0]; i++)
    if (env_int(var[i]) > 0) return env_int(var[i]);
  return -1;
}
