/* serial.c - em_dist's implementation for one rank (the build without MPI,
 * and a plain run of the MPI build): collectives are copies, there is no
 * other rank to talk to. */
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

static void finalize(em_dist *d) {
  (void)d;
}

static void abort_(const em_dist *d, int code) {
  (void)d;
  fflush(stdout);
  fflush(stderr);
  exit(code);
}

static em_err barrier(const em_dist *d) {
  (void)d;
  return EM_OK;
}

static em_err bcast(const em_dist *d, void *buf, size_t n, em_dist_type t, int root) {
  (void)d, (void)buf, (void)n, (void)t, (void)root;
  return EM_OK;
}

static em_err allreduce(const em_dist *d, void *buf, size_t n, em_dist_type t, em_dist_op op) {
  (void)d, (void)buf, (void)n, (void)t, (void)op;
  return EM_OK; /* the reduction over one rank is the value itself */
}

static em_err gather(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv,
                     int root) {
  (void)d, (void)root;
  if (n && recv != send) memmove(recv, send, n * em_dist_type_size(t));
  return EM_OK;
}

static em_err allgather(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv) {
  return gather(d, send, n, t, recv, 0);
}

/* One rank has no peer: the front end refuses every point-to-point call
 * (check_peer) before it gets here. */
static em_err isend(const em_dist *d, const void *buf, size_t bytes, int dest, int tag,
                    em_dist_req **req) {
  (void)d, (void)buf, (void)bytes, (void)tag, (void)req;
  return EM_RAISE(EM_ERR_INTERNAL, "serial run: no rank %d to send to", dest);
}

static em_err test(const em_dist *d, em_dist_req *req, int block, int *done) {
  (void)d, (void)req, (void)block;
  *done = 1;
  return EM_OK;
}

static em_err probe(const em_dist *d, int src, int tag, int block, int *from, size_t *bytes) {
  (void)d, (void)src, (void)tag, (void)block, (void)bytes;
  *from = -1;
  return EM_RAISE(EM_ERR_INTERNAL, "serial run: no other rank");
}

static em_err recv(const em_dist *d, void *buf, size_t cap, int src, int tag, int *from,
                   size_t *bytes) {
  (void)d, (void)buf, (void)cap, (void)tag, (void)from, (void)bytes;
  return EM_RAISE(EM_ERR_INTERNAL, "serial run: no rank %d to receive from", src);
}

static em_err irecv_bytes(const em_dist *d, void *buf, size_t bytes, int src, int tag,
                          em_dist_req **req) {
  (void)d, (void)buf, (void)bytes, (void)tag, (void)req;
  return EM_RAISE(EM_ERR_INTERNAL, "serial run: no rank %d to receive from", src);
}

const em_dist_ops em_dist_serial_ops = {"serial",  finalize, abort_,     barrier, bcast,
                                        allreduce, gather,   allgather,  isend,   test,
                                        probe,     recv,     irecv_bytes};
