/* dist_impl.h - the implementations behind em_dist.h (private to dist/).
 *
 * One ops table per implementation (serial.c, comm_mpi.c), chosen once by
 * em_dist_init (dist.c); the front end (dist.c) checks arguments and hands
 * over.  Counts reaching an ops function are already in elements of their
 * type; the MPI implementation splits what exceeds MPI's int counts. */
#ifndef EM_DIST_IMPL_H
#define EM_DIST_IMPL_H

#include "em_dist.h"

typedef struct em_dist_ops {
  const char *name; /* "serial", "MPI" */
  void (*finalize)(em_dist *d);
  void (*abort)(const em_dist *d, int code);
  em_err (*barrier)(const em_dist *d);
  em_err (*bcast)(const em_dist *d, void *buf, size_t n, em_dist_type t, int root);
  em_err (*allreduce)(const em_dist *d, void *buf, size_t n, em_dist_type t, em_dist_op op);
  em_err (*gather)(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv,
                   int root);
  em_err (*allgather)(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv);
  em_err (*isend)(const em_dist *d, const void *buf, size_t bytes, int dest, int tag,
                  em_dist_req **req);
  em_err (*test)(const em_dist *d, em_dist_req *req, int block, int *done);
  em_err (*probe)(const em_dist *d, int src, int tag, int block, int *from, size_t *bytes);
  em_err (*recv)(const em_dist *d, void *buf, size_t cap, int src, int tag, int *from,
                 size_t *bytes);
  /* post the receives and sends of one neighbour each (never this rank) */
  em_err (*irecv_bytes)(const em_dist *d, void *buf, size_t bytes, int src, int tag,
                        em_dist_req **req);
} em_dist_ops;

struct em_dist {
  const em_dist_ops *ops;
  em_dist_place place;
  void *data; /* the implementation's state (the MPI communicator) */
};

/* An exchange in flight: its requests (halo.c). */
struct em_dist_xchg {
  int n;
  em_dist_req **req; /* [2 n]: receives, then sends */
};

extern const em_dist_ops em_dist_serial_ops;
#ifdef EM_HAVE_MPI
extern const em_dist_ops em_dist_mpi_ops;
/* MPI_Init and the communicator of the run (comm_mpi.c) */
em_err em_dist_mpi_start(int *argc, char ***argv, em_dist *d);
#endif

/* launch.c: before any MPI call.  Whether an MPI launcher started this
 * process (or EMSOLVE_DIST=mpi asks for MPI), and what it says of the
 * local rank (-1 unknown). */
int em_dist_launched(void);
void em_dist_env_local(int *local_rank, int *local_size);
/* The number of ranks the launcher says it started (-1 unknown). */
int em_dist_env_size(void);
/* This rank's GPU among those the node shows: CUDA_VISIBLE_DEVICES narrowed
 * to it (p->bound) when several ranks share the node. */
void em_dist_bind_gpu(em_dist_place *p);

#endif
