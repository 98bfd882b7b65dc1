/* dist.c - the front end of em_dist.h: the implementation chosen once at
 * start (MPI under an MPI launcher, else serial), arguments checked, then
 * handed to the ops table (dist_impl.h).  A NULL em_dist is the serial rank
 * 0 of 1, so that code written for P ranks runs unchanged without MPI. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dist_impl.h"

size_t em_dist_type_size(em_dist_type t) {
  static const size_t size[EM_DIST_TYPE_COUNT] = {1,
                                                  sizeof(int),
                                                  sizeof(int64_t),
                                                  sizeof(double),
                                                  sizeof(float),
                                                  2 * sizeof(double),
                                                  2 * sizeof(float)};
  return (unsigned)t < EM_DIST_TYPE_COUNT ? size[t] : 0;
}

static const em_dist serial_ = {
    &em_dist_serial_ops, {0, 1, 0, 1, -1, -1, 0, 0, 0, "", "serial"}, NULL};

static const em_dist *of(const em_dist *d) {
  return d ? d : &serial_;
}

em_err em_dist_init(int *argc, char ***argv, int bind_gpu, em_dist **out) {
  *out = NULL;
  em_dist *d = NULL;
  EM_TRY(em_calloc(&d, 1, sizeof *d, "distributed layer"));
  em_dist_place *p = &d->place;
  *p = serial_.place;
  d->ops = &em_dist_serial_ops;
  gethostname(p->node, sizeof p->node - 1);
  int use_mpi = em_dist_launched(), bound = 0;
  if (!use_mpi) { /* a plain run: device 0, the GPUs not counted */
    *out = d;
    return EM_OK;
  }
  /* the GPU before MPI starts: a CUDA-aware MPI may make a context on every
     GPU it sees */
  em_dist_env_local(&p->local_rank, &p->local_size);
  if (bind_gpu && p->local_rank >= 0) em_dist_bind_gpu(p), bound = 1;
#ifdef EM_HAVE_MPI
  em_err err = em_dist_mpi_start(argc, argv, d);
  if (err) {
    em_free(&d);
    return err;
  }
  if (bind_gpu && !bound) em_dist_bind_gpu(p); /* the local rank is known now */
#else
  (void)argc, (void)argv, (void)bound;
  int n = em_dist_env_size();
  if (n > 1) {
    em_free(&d);
    return EM_RAISE(EM_ERR_UNSUPPORTED,
                    "started by an MPI launcher as one of %d ranks, but this emsolve was built "
                    "without MPI: every rank would run the whole case (install MPI, "
                    "libopenmpi-dev, and configure again; or run it without mpirun)",
                    n);
  }
  p->local_rank = 0, p->local_size = 1;
#endif
  *out = d;
  return EM_OK;
}

int em_dist_mpi_built(void) {
#ifdef EM_HAVE_MPI
  return 1;
#else
  return 0;
#endif
}

void em_dist_finalize(em_dist **d) {
  if (!d || !*d) return;
  if ((*d)->ops->finalize) (*d)->ops->finalize(*d);
  em_free(d);
}

void em_dist_abort(const em_dist *d, int code) {
  of(d)->ops->abort(of(d), code);
}

int em_dist_rank(const em_dist *d) {
  return of(d)->place.rank;
}

int em_dist_size(const em_dist *d) {
  return of(d)->place.size;
}

const em_dist_place *em_dist_where(const em_dist *d) {
  return &of(d)->place;
}

em_err em_dist_barrier(const em_dist *d) {
  return of(d)->ops->barrier(of(d));
}

static em_err check_root(const em_dist *d, int root, const char *what) {
  EM_CHECK(root >= 0 && root < d->place.size, EM_ERR_ARG, "%s: root %d of %d ranks", what, root,
           d->place.size);
  return EM_OK;
}

static em_err check_type(em_dist_type t, const char *what) {
  EM_CHECK(em_dist_type_size(t) > 0, EM_ERR_ARG, "%s: unknown element type %d", what, (int)t);
  return EM_OK;
}

em_err em_dist_bcast(const em_dist *d, void *buf, size_t n, em_dist_type t, int root) {
  d = of(d);
  EM_TRY(check_root(d, root, "em_dist_bcast"));
  EM_TRY(check_type(t, "em_dist_bcast"));
  EM_CHECK(buf || !n, EM_ERR_ARG, "em_dist_bcast: no buffer");
  return d->ops->bcast(d, buf, n, t, root);
}

em_err em_dist_allreduce(const em_dist *d, void *buf, size_t n, em_dist_type t, em_dist_op op) {
  d = of(d);
  EM_TRY(check_type(t, "em_dist_allreduce"));
  EM_CHECK(buf || !n, EM_ERR_ARG, "em_dist_allreduce: no buffer");
  EM_CHECK(t != EM_DIST_BYTE, EM_ERR_ARG, "em_dist_allreduce: bytes do not reduce");
  EM_CHECK(op == EM_DIST_SUM || (t != EM_DIST_CPLX && t != EM_DIST_CPLXF), EM_ERR_ARG,
           "em_dist_allreduce: complex numbers have no max or min");
  return d->ops->allreduce(d, buf, n, t, op);
}

em_err em_dist_gather(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv,
                      int root) {
  d = of(d);
  EM_TRY(check_root(d, root, "em_dist_gather"));
  EM_TRY(check_type(t, "em_dist_gather"));
  EM_CHECK((send || !n) && (recv || !n || d->place.rank != root), EM_ERR_ARG,
           "em_dist_gather: no buffer");
  return d->ops->gather(d, send, n, t, recv, root);
}

em_err em_dist_allgather(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv) {
  d = of(d);
  EM_TRY(check_type(t, "em_dist_allgather"));
  EM_CHECK((send && recv) || !n, EM_ERR_ARG, "em_dist_allgather: no buffer");
  return d->ops->allgather(d, send, n, t, recv);
}

/* The counts to root, then each rank's part as one message (any size). */
em_err em_dist_gatherv(const em_dist *d, const void *send, size_t n, em_dist_type t, void **recv,
                       int64_t *counts, int root) {
  d = of(d);
  *recv = NULL;
  EM_TRY(check_root(d, root, "em_dist_gatherv"));
  EM_TRY(check_type(t, "em_dist_gatherv"));
  EM_CHECK(send || !n, EM_ERR_ARG, "em_dist_gatherv: no buffer");
  int P = d->place.size, me = d->place.rank;
  size_t es = em_dist_type_size(t);
  int64_t mine = (int64_t)n, *cnt = NULL;
  EM_TRY(em_calloc(&cnt, (size_t)P, sizeof *cnt, "gather counts"));
  em_err err = em_dist_gather(d, &mine, 1, EM_DIST_INT64, cnt, root);
  if (!err && me != root) err = em_dist_send(d, send, n * es, root, EM_DIST_TAG_GATHERV);
  if (!err && me == root) {
    size_t total = 0;
    for (int k = 0; k < P; k++) total += (size_t)cnt[k];
    char *all = NULL;
    err = em_calloc(&all, total * es + 1, 1, "gathered values");
    size_t off = 0;
    for (int k = 0; k < P && !err; off += (size_t)cnt[k++] * es) {
      if (k == me) {
        if (n) memcpy(all + off, send, n * es);
      } else {
        err = em_dist_recv(d, all + off, (size_t)cnt[k] * es, k, EM_DIST_TAG_GATHERV, NULL, NULL);
      }
    }
    if (err)
      em_free(&all);
    else
      *recv = all;
    if (!err && counts) memcpy(counts, cnt, (size_t)P * sizeof *cnt);
  }
  em_free(&cnt);
  return err;
}

static em_err check_peer(const em_dist *d, int peer, int any, int tag, const char *what) {
  EM_CHECK((peer >= 0 && peer < d->place.size && peer != d->place.rank) ||
               (any && peer == EM_DIST_ANY && d->place.size > 1),
           EM_ERR_ARG, "%s: rank %d cannot talk to rank %d (%d ranks)", what, d->place.rank, peer,
           d->place.size);
  EM_CHECK(tag >= 0 && tag <= EM_DIST_TAG_MAX, EM_ERR_ARG, "%s: tag %d (0 to %d)", what, tag,
           EM_DIST_TAG_MAX);
  return EM_OK;
}

em_err em_dist_isend(const em_dist *d, const void *buf, size_t bytes, int dest, int tag,
                     em_dist_req **req) {
  d = of(d);
  *req = NULL;
  EM_TRY(check_peer(d, dest, 0, tag, "em_dist_isend"));
  EM_CHECK(buf || !bytes, EM_ERR_ARG, "em_dist_isend: no buffer");
  return d->ops->isend(d, buf, bytes, dest, tag, req);
}

em_err em_dist_test(const em_dist *d, em_dist_req **req, int *done) {
  d = of(d);
  *done = 1;
  if (!*req) return EM_OK;
  EM_TRY(d->ops->test(d, *req, 0, done));
  if (*done) *req = NULL; /* the implementation freed it */
  return EM_OK;
}

static void nap(long *ns) { /* 1 ms, doubling up to 20 ms */
  nanosleep(&(struct timespec){0, *ns}, NULL);
  if (*ns < 20000000) *ns *= 2;
}

em_err em_dist_wait(const em_dist *d, em_dist_req **req, em_dist_wait_mode mode) {
  d = of(d);
  if (!req || !*req) return EM_OK;
  int done = 0;
  if (mode == EM_DIST_IDLE)
    for (long ns = 1000000;; nap(&ns)) {
      EM_TRY(em_dist_test(d, req, &done));
      if (done) return EM_OK;
    }
  em_err err = d->ops->test(d, *req, 1, &done);
  *req = NULL;
  return err;
}

em_err em_dist_send(const em_dist *d, const void *buf, size_t bytes, int dest, int tag) {
  em_dist_req *r = NULL;
  EM_TRY(em_dist_isend(d, buf, bytes, dest, tag, &r));
  return em_dist_wait(d, &r, EM_DIST_BLOCK);
}

/* Idle: a look every 1 ms at first, then every 20 ms (a message is seen
 * within 20 ms, and a waiting rank costs its node nothing). */
em_err em_dist_probe(const em_dist *d, int src, int tag, em_dist_wait_mode mode, int *from,
                     size_t *bytes) {
  d = of(d);
  *from = -1;
  if (bytes) *bytes = 0;
  EM_TRY(check_peer(d, src, 1, tag, "em_dist_probe"));
  size_t b = 0;
  if (mode != EM_DIST_IDLE) {
    EM_TRY(d->ops->probe(d, src, tag, mode == EM_DIST_BLOCK, from, &b));
  } else {
    for (long ns = 1000000;; nap(&ns)) {
      EM_TRY(d->ops->probe(d, src, tag, 0, from, &b));
      if (*from >= 0) break;
    }
  }
  if (bytes) *bytes = b;
  return EM_OK;
}

em_err em_dist_recv(const em_dist *d, void *buf, size_t cap, int src, int tag, int *from,
                    size_t *bytes) {
  d = of(d);
  EM_TRY(check_peer(d, src, 1, tag, "em_dist_recv"));
  EM_CHECK(buf || !cap, EM_ERR_ARG, "em_dist_recv: no buffer");
  int f = -1;
  size_t b = 0;
  EM_TRY(d->ops->recv(d, buf, cap, src, tag, &f, &b));
  if (from) *from = f;
  if (bytes) *bytes = b;
  return EM_OK;
}
