/* comm_mpi.c - em_dist's MPI implementation (built when CMake finds MPI):
 * a duplicate of MPI_COMM_WORLD whose errors return (MPI_ERRORS_RETURN) and
 * become EM_ERR_MPI with MPI's message; counts beyond MPI's int split into
 * chunks (collectives) or one derived type (point to point), so a message
 * of any size is one message. */
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT */
#endif
#include <string.h>

#include "dist_impl.h"

struct em_dist_req {
  MPI_Request r;
  MPI_Datatype type; /* freed with the request when own_type */
  int own_type;
};

typedef struct mpi_data {
  MPI_Comm comm;
} mpi_data;

static MPI_Comm comm_of(const em_dist *d) {
  return ((const mpi_data *)d->data)->comm;
}

static em_err mpi_status(int rc, const char *call, const char *file, int line) {
  if (rc == MPI_SUCCESS) return EM_OK;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error %d", rc);
  return em_error_raise(EM_ERR_MPI, file, line, "%s: %s", call, msg);
}
#define MPI_TRY(call) EM_TRY(mpi_status((call), #call, __FILE__, __LINE__))

static MPI_Datatype mtype(em_dist_type t) {
  switch (t) {
    case EM_DIST_INT:
      return MPI_INT;
    case EM_DIST_INT64:
      return MPI_INT64_T;
    case EM_DIST_DOUBLE:
      return MPI_DOUBLE;
    case EM_DIST_FLOAT:
      return MPI_FLOAT;
    case EM_DIST_CPLX:
      return MPI_C_DOUBLE_COMPLEX;
    case EM_DIST_CPLXF:
      return MPI_C_FLOAT_COMPLEX;
    default:
      return MPI_BYTE;
  }
}

static MPI_Op mop(em_dist_op op) {
  return op == EM_DIST_MAX ? MPI_MAX : op == EM_DIST_MIN ? MPI_MIN : MPI_SUM;
}

/* elements per collective call: well inside int */
#define CHUNK ((size_t)1 << 28)

em_err em_dist_mpi_start(int *argc, char ***argv, em_dist *d) {
  int provided = 0, flag = 0;
  MPI_TRY(MPI_Initialized(&flag));
  EM_CHECK(!flag, EM_ERR_INTERNAL, "MPI started twice");
  /* one thread at a time calls MPI: the main one, or rank 0's work-queue
     server while the main one computes (OpenMP threads never talk) */
  MPI_TRY(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mpi_data *m = NULL;
  EM_TRY(em_calloc(&m, 1, sizeof *m, "MPI state"));
  d->data = m;
  d->ops = &em_dist_mpi_ops;
  MPI_TRY(MPI_Comm_dup(MPI_COMM_WORLD, &m->comm));
  MPI_TRY(MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN));
  em_dist_place *p = &d->place;
  p->threads = provided >= MPI_THREAD_SERIALIZED;
  MPI_TRY(MPI_Comm_rank(m->comm, &p->rank));
  MPI_TRY(MPI_Comm_size(m->comm, &p->size));
  /* the ranks of this node: those that can share memory */
  MPI_Comm node;
  MPI_TRY(MPI_Comm_split_type(m->comm, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL, &node));
  int lr = 0, ls = 1;
  MPI_Comm_rank(node, &lr);
  MPI_Comm_size(node, &ls);
  MPI_Comm_free(&node);
  p->local_rank = lr, p->local_size = ls;
  char ver[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(ver, &len);
  ver[strcspn(ver, ",\n")] = '\0'; /* "Open MPI v4.1.4" */
  snprintf(p->impl, sizeof p->impl, "MPI (%.80s)", ver);
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  p->cuda_aware = MPIX_Query_cuda_support() == 1; /* built for it, and on now */
#endif
  return EM_OK;
}

static void finalize(em_dist *d) {
  mpi_data *m = d->data;
  if (m) MPI_Comm_free(&m->comm);
  em_free(&d->data);
  MPI_Finalize();
}

static void abort_(const em_dist *d, int code) {
  fflush(stdout);
  fflush(stderr);
  MPI_Abort(d->data ? comm_of(d) : MPI_COMM_WORLD, code);
  exit(code); /* not reached */
}

static em_err barrier(const em_dist *d) {
  MPI_TRY(MPI_Barrier(comm_of(d)));
  return EM_OK;
}

static em_err bcast(const em_dist *d, void *buf, size_t n, em_dist_type t, int root) {
  size_t es = em_dist_type_size(t);
  for (size_t o = 0; o < n; o += CHUNK) {
    int c = (int)(n - o < CHUNK ? n - o : CHUNK);
    MPI_TRY(MPI_Bcast((char *)buf + o * es, c, mtype(t), root, comm_of(d)));
  }
  return EM_OK;
}

static em_err allreduce(const em_dist *d, void *buf, size_t n, em_dist_type t, em_dist_op op) {
  size_t es = em_dist_type_size(t);
  for (size_t o = 0; o < n; o += CHUNK) {
    int c = (int)(n - o < CHUNK ? n - o : CHUNK);
    MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, (char *)buf + o * es, c, mtype(t), mop(op), comm_of(d)));
  }
  return EM_OK;
}

/* A gather of n elements each as one contiguous type of n elements: the
 * count per rank is then 1 whatever n is. */
static em_err block_type(size_t n, em_dist_type t, MPI_Datatype *bt) {
  size_t bytes = n * em_dist_type_size(t);
  EM_CHECK(bytes <= (size_t)INT_MAX, EM_ERR_ARG, "a gather of %zu bytes per rank (at most %d)",
           bytes, INT_MAX);
  MPI_TRY(MPI_Type_contiguous((int)bytes, MPI_BYTE, bt));
  MPI_TRY(MPI_Type_commit(bt));
  return EM_OK;
}

static em_err gather(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv,
                     int root) {
  if (!n) return EM_OK;
  MPI_Datatype bt;
  EM_TRY(block_type(n, t, &bt));
  int rc = MPI_Gather(send, 1, bt, recv, 1, bt, root, comm_of(d));
  MPI_Type_free(&bt);
  return mpi_status(rc, "MPI_Gather", __FILE__, __LINE__);
}

static em_err allgather(const em_dist *d, const void *send, size_t n, em_dist_type t, void *recv) {
  if (!n) return EM_OK;
  MPI_Datatype bt;
  EM_TRY(block_type(n, t, &bt));
  int rc = MPI_Allgather(send, 1, bt, recv, 1, bt, comm_of(d));
  MPI_Type_free(&bt);
  return mpi_status(rc, "MPI_Allgather", __FILE__, __LINE__);
}

/* `bytes` as (type, count): MPI_BYTE up to INT_MAX, else one struct of
 * 1 GiB blocks and the rest (a single message either way). */
static em_err byte_type(size_t bytes, MPI_Datatype *type, int *count, int *own) {
  *own = 0;
  if (bytes <= (size_t)INT_MAX) {
    *type = MPI_BYTE;
    *count = (int)bytes;
    return EM_OK;
  }
  const size_t G = (size_t)1 << 30;
  MPI_Datatype blk;
  MPI_TRY(MPI_Type_contiguous((int)G, MPI_BYTE, &blk));
  int len[2] = {(int)(bytes / G), (int)(bytes % G)};
  MPI_Aint disp[2] = {0, (MPI_Aint)(bytes / G * G)};
  MPI_Datatype parts[2] = {blk, MPI_BYTE};
  int rc = MPI_Type_create_struct(2, len, disp, parts, type);
  MPI_Type_free(&blk);
  MPI_TRY(rc);
  MPI_TRY(MPI_Type_commit(type));
  *count = 1;
  *own = 1;
  return EM_OK;
}

static em_err isend(const em_dist *d, const void *buf, size_t bytes, int dest, int tag,
                    em_dist_req **req) {
  em_dist_req *r = NULL;
  EM_TRY(em_calloc(&r, 1, sizeof *r, "MPI request"));
  int count = 0;
  em_err err = byte_type(bytes, &r->type, &count, &r->own_type);
  if (!err)
    err = mpi_status(MPI_Isend(buf, count, r->type, dest, tag, comm_of(d), &r->r), "MPI_Isend",
                     __FILE__, __LINE__);
  if (err) {
    if (r->own_type) MPI_Type_free(&r->type);
    em_free(&r);
    return err;
  }
  *req = r;
  return EM_OK;
}

static em_err irecv_bytes(const em_dist *d, void *buf, size_t bytes, int src, int tag,
                          em_dist_req **req) {
  em_dist_req *r = NULL;
  EM_TRY(em_calloc(&r, 1, sizeof *r, "MPI request"));
  int count = 0;
  em_err err = byte_type(bytes, &r->type, &count, &r->own_type);
  if (!err)
    err = mpi_status(MPI_Irecv(buf, count, r->type, src, tag, comm_of(d), &r->r), "MPI_Irecv",
                     __FILE__, __LINE__);
  if (err) {
    if (r->own_type) MPI_Type_free(&r->type);
    em_free(&r);
    return err;
  }
  *req = r;
  return EM_OK;
}

/* Complete (block) or look (test); a completed request is freed. */
static em_err test(const em_dist *d, em_dist_req *r, int block, int *done) {
  (void)d;
  int flag = 1, rc;
  if (block)
    rc = MPI_Wait(&r->r, MPI_STATUS_IGNORE);
  else
    rc = MPI_Test(&r->r, &flag, MPI_STATUS_IGNORE);
  *done = flag || rc != MPI_SUCCESS;
  if (*done) {
    if (r->own_type) MPI_Type_free(&r->type);
    em_free(&r);
  }
  return mpi_status(rc, block ? "MPI_Wait" : "MPI_Test", __FILE__, __LINE__);
}

static em_err length_of(MPI_Status *st, size_t *bytes) {
  MPI_Count n = 0;
  MPI_TRY(MPI_Get_elements_x(st, MPI_BYTE, &n));
  EM_CHECK(n != MPI_UNDEFINED && n >= 0, EM_ERR_MPI, "a message of undefined length");
  *bytes = (size_t)n;
  return EM_OK;
}

static em_err probe(const em_dist *d, int src, int tag, int block, int *from, size_t *bytes) {
  MPI_Status st;
  int flag = 1, s = src == EM_DIST_ANY ? MPI_ANY_SOURCE : src;
  if (block)
    MPI_TRY(MPI_Probe(s, tag, comm_of(d), &st));
  else
    MPI_TRY(MPI_Iprobe(s, tag, comm_of(d), &flag, &st));
  *from = -1;
  *bytes = 0;
  if (!flag) return EM_OK;
  *from = st.MPI_SOURCE;
  return length_of(&st, bytes);
}

/* The length first (a probe), then the message from the source the probe
 * matched: a message longer than cap is refused, not truncated. */
static em_err recv(const em_dist *d, void *buf, size_t cap, int src, int tag, int *from,
                   size_t *bytes) {
  EM_TRY(probe(d, src, tag, 1, from, bytes));
  EM_CHECK(*bytes <= cap, EM_ERR_MPI, "a message of %zu bytes from rank %d (tag %d) for %zu",
           *bytes, *from, tag, cap);
  MPI_Datatype type;
  int count = 0, own = 0;
  EM_TRY(byte_type(*bytes, &type, &count, &own));
  int rc = MPI_Recv(buf, count, type, *from, tag, comm_of(d), MPI_STATUS_IGNORE);
  if (own) MPI_Type_free(&type);
  return mpi_status(rc, "MPI_Recv", __FILE__, __LINE__);
}

const em_dist_ops em_dist_mpi_ops = {"MPI",     finalize, abort_,     barrier, bcast,
                                     allreduce, gather,   allgather,  isend,   test,
                                     probe,     recv,     irecv_bytes};
