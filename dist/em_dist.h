/* em_dist.h - the distributed layer: every MPI call of emsolve sits behind
 * this interface (docs/architecture.md, "dist/").
 *
 * Two implementations behind one ops table (dist_impl.h): MPI
 * (dist/comm_mpi.c, built when CMake finds MPI and EMSOLVE_MPI is not OFF)
 * and serial (dist/serial.c, always built: one rank, rank 0 of 1).  Which one
 * a process gets is decided once, at em_dist_init: MPI when an MPI launcher
 * started it (mpirun / mpiexec / srun set their environment) or
 * EMSOLVE_DIST=mpi, else serial; a plain `emsolve CASE` in an MPI build never
 * calls MPI at all and behaves as the build without it.
 *
 * Buffers are host memory (a CUDA-aware MPI, em_dist_place.cuda_aware,
 * takes device ones too, except in the serial copies).  Counts are element counts of `type`;
 * messages of any size (beyond MPI's int counts) are split inside.  Every call returns em_err; an
 * MPI error is EM_ERR_MPI with MPI's own message. */
#ifndef EM_DIST_H
#define EM_DIST_H

#include "em_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct em_dist em_dist; /* the communicator of the run: opaque */

typedef enum em_dist_type {
  EM_DIST_BYTE = 0,
  EM_DIST_INT,    /* int */
  EM_DIST_INT64,  /* int64_t */
  EM_DIST_DOUBLE, /* double */
  EM_DIST_FLOAT,  /* float */
  EM_DIST_CPLX,   /* em_cplx: two doubles */
  EM_DIST_CPLXF,  /* em_cplxf: two floats */
  EM_DIST_TYPE_COUNT
} em_dist_type;

typedef enum em_dist_op { EM_DIST_SUM = 0, EM_DIST_MAX, EM_DIST_MIN } em_dist_op;

enum {
  EM_DIST_ANY = -1,            /* any source (em_dist_recv, em_dist_probe) */
  EM_DIST_TAG_QUEUE = 32765,   /* tags of the layer itself: callers' are below */
  EM_DIST_TAG_ANSWER = 32766,  /* (em_dist_queue_*) */
  EM_DIST_TAG_GATHERV = 32767, /* (em_dist_gatherv) */
  EM_DIST_TAG_MAX = 32767
};

/* Bytes of one element of t. */
size_t em_dist_type_size(em_dist_type t);

/* ------------------------------------------------------------- the run */

/* What a process is told about its place, decided before MPI starts (a
 * CUDA context made by MPI's own start-up would otherwise sit on GPU 0 of
 * every rank). */
typedef struct em_dist_place {
  int rank, size;             /* in the whole run */
  int local_rank, local_size; /* among the ranks of this node */
  int n_gpu;                  /* GPUs this node shows (CUDA_VISIBLE_DEVICES or the driver) */
  int gpu;                    /* the GPU of this rank (index among those shown), -1: none */
  int bound;                  /* 1: CUDA_VISIBLE_DEVICES set to this rank's GPU */
  int cuda_aware;             /* MPI takes device buffers (Open MPI's
                                 MPIX_Query_cuda_support); 0 serial */
  int threads;                /* MPI allows a second thread (em_dist_queue) */
  char node[64];              /* the host name */
  char impl[96];              /* "serial" or "MPI: Open MPI v4.1.4 ..." */
} em_dist_place;

/* Start the distributed layer (MPI_Init under an MPI launcher, else the
 * serial implementation).  With bind_gpu, each rank of a node with more
 * than one rank is given one GPU: local rank i takes the i-th GPU the node
 * shows (CUDA_VISIBLE_DEVICES narrowed to it before MPI starts); ranks beyond
 * the GPUs get none (gpu = -1: they compute on the host).  EMSOLVE_GPU_BIND=
 * none leaves CUDA_VISIBLE_DEVICES as the launcher set it. */
em_err em_dist_init(int *argc, char ***argv, int bind_gpu, em_dist **d);
/* 1 when this build has the MPI implementation. */
int em_dist_mpi_built(void);
/* End it: MPI_Finalize (NULL-safe; *d = NULL). */
void em_dist_finalize(em_dist **d);
/* Stop every rank at once with this exit code (MPI_Abort; serial: exit). */
void em_dist_abort(const em_dist *d, int code);

/* The place of this process; a NULL d is the serial rank 0 of 1. */
int em_dist_rank(const em_dist *d);
int em_dist_size(const em_dist *d);
const em_dist_place *em_dist_where(const em_dist *d);

/* ------------------------------------------------------ collectives
 * Every rank calls these, in the same order. */

em_err em_dist_barrier(const em_dist *d);
/* buf [n] of root to every rank */
em_err em_dist_bcast(const em_dist *d, void *buf, size_t n, em_dist_type t, int root);
/* buf[i] = op over the ranks of buf[i], on every rank (in place) */
em_err em_dist_allreduce(const em_dist *d, void *buf, size_t n, em_dist_type t, em_dist_op op);
/* root: recv [size][n] = every rank's send [n], in rank order (recv is
 * ignored elsewhere) */
em_err em_dist_gather(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv,
                      int root);
/* every rank: recv [size][n] = every rank's send [n] */
em_err em_dist_allgather(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv);
/* root: every rank's send [n_r] (n_r may differ, any size) one after the
 * other in rank order; *recv allocated there (em_free it), counts[size]
 * (NULL: not wanted) the n_r.  Elsewhere *recv = NULL. */
em_err em_dist_gatherv(const em_dist *d, const void *send, size_t n, em_dist_type t, void **recv,
                       int64_t *counts, int root);

/* ----------------------------------------------------- point to point
 * A message is bytes of any length with a tag 0..32764 (the tags above
 * are the layer's own).  em_dist_send
 * returns when the buffer may be reused; em_dist_isend at once (the buffer
 * stays untouched until the send completes: em_dist_test, em_dist_wait).
 * Messages between two ranks with the same tag arrive in the order sent.
 * A rank never sends to itself. */

typedef struct em_dist_req em_dist_req; /* a transfer in flight */

/* How a rank waits: not at all, in MPI's own blocking call (which keeps a
 * core busy polling), or idle (a look every few ms, asleep between: for a
 * rank with nothing to do while others compute on the same node). */
typedef enum em_dist_wait_mode { EM_DIST_LOOK = 0, EM_DIST_BLOCK, EM_DIST_IDLE } em_dist_wait_mode;

em_err em_dist_send(const em_dist *d, const void *buf, size_t bytes, int dest, int tag);
em_err em_dist_isend(const em_dist *d, const void *buf, size_t bytes, int dest, int tag,
                     em_dist_req **req);
/* *done = 1 when the transfer is complete (then freed, *req = NULL). */
em_err em_dist_test(const em_dist *d, em_dist_req **req, int *done);
/* Complete a transfer (NULL-safe; *req = NULL); mode EM_DIST_BLOCK or
 * EM_DIST_IDLE. */
em_err em_dist_wait(const em_dist *d, em_dist_req **req, em_dist_wait_mode mode);
/* Whether a message from src (or EM_DIST_ANY) with tag waits: *from its
 * source, *bytes its length; *from = -1 when none (EM_DIST_LOOK only). */
em_err em_dist_probe(const em_dist *d, int src, int tag, em_dist_wait_mode mode, int *from,
                     size_t *bytes);
/* Receive one message of at most cap bytes from src (or EM_DIST_ANY) with
 * tag; *from (may be NULL) its source, *bytes (may be NULL) its length.  A
 * longer message is EM_ERR_MPI naming both lengths (and stays unreceived). */
em_err em_dist_recv(const em_dist *d, void *buf, size_t cap, int src, int tag, int *from,
                    size_t *bytes);

/* -------------------------------------------------------- work queue
 * Items 0 .. n-1 handed out to the ranks as they ask (the next to whichever
 * rank asks first): rank 0 serves from a thread of its own, asleep between
 * requests, while it takes items too.  Between _create and _destroy (both
 * collective) rank 0's main thread makes no other em_dist call.  Without a
 * thread level for it the items are dealt in turn (rank r: r, r + P ...). */
typedef struct em_dist_queue em_dist_queue;

em_err em_dist_queue_create(const em_dist *d, int n, em_dist_queue **q);
/* The next item for this rank; -1 when none is left (then keep asking
 * never again). */
em_err em_dist_queue_next(em_dist_queue *q, int *item);
/* After this rank got -1: rank 0 waits for its thread. */
em_err em_dist_queue_destroy(em_dist_queue **q);

/* ----------------------------------------------------- halo exchange
 * For a distributed operator (issue 27): each rank sends slices of its
 * send buffer to its neighbours and receives theirs into slices of its
 * receive buffer; _start posts every transfer and returns, so the local
 * product can run meanwhile, _finish waits.  Offsets are in elements. */
typedef struct em_dist_halo {
  int n;                   /* neighbour ranks */
  const int *rank;         /* [n], each at most once; this rank may be one (a copy) */
  const int64_t *send_off; /* [n + 1]: send[send_off[i] .. send_off[i+1]) goes to rank[i] */
  const int64_t *recv_off; /* [n + 1]: recv[recv_off[i] .. recv_off[i+1]) comes from rank[i] */
  int tag;                 /* distinguishes concurrent exchanges */
} em_dist_halo;

typedef struct em_dist_xchg em_dist_xchg; /* an exchange in flight */

em_err em_dist_halo_start(const em_dist *d, const em_dist_halo *h, em_dist_type t, const void *send,
                          void *recv, em_dist_xchg **x);
em_err em_dist_halo_finish(const em_dist *d, em_dist_xchg **x);

#ifdef __cplusplus
}
#endif

#endif
