/* blockop_cuda.c - scheduling the nine blocks on the GPU.
 *
 * The caller's work runs on the legacy default stream (stream 0: cuBLAS
 * vector work, the previous apply).  apply never waits on the host:
 *   SEQUENTIAL  the row chains one after another on stream 0;
 *   STREAMS     fork: an event recorded on stream 0 is waited on by the first
 *               block of every row, each block on its own non-blocking
 *               stream; the next block of a row waits on the event of the
 *               previous one (they write the same y range); join: stream 0
 *               waits on the event of every block, so later work sees all of
 *               y;
 *   GRAPH       the same fork / chains / join captured from a private origin
 *               stream once per (x, y) pair (kernel arguments are baked into
 *               a graph), the executable graphs kept in a small LRU cache,
 *               and replayed on stream 0 by one cudaGraphLaunch.
 * Events and streams are reused by every apply: a wait binds to the event's
 * latest record at the time the wait is issued, so back-to-back applies are
 * ordered correctly without host synchronisation. */
#include <cuda_runtime.h>

#include "blockop_impl.h"

#define BLOCKOP_GRAPHS 8 /* cached (x, y) pairs: a Krylov method uses a handful */

typedef struct {
  const void *x;        /* input vector the graph reads */
  void *y;              /* output vector it writes */
  cudaGraphExec_t exec; /* NULL: free slot */
  uint64_t used;        /* last use, for eviction */
} blockop_graph;

struct em_blockop_cuda {
  cudaStream_t s[EM_MAX_ORDER][EM_MAX_ORDER];   /* one stream per block */
  cudaEvent_t done[EM_MAX_ORDER][EM_MAX_ORDER]; /* block (i, j) done; done[i][i] also
                                                   marks the zeroing of an empty row */
  cudaEvent_t entry;                            /* the origin reached this apply */
  cudaStream_t cap;                             /* capture origin (GRAPH) */
  blockop_graph graph[BLOCKOP_GRAPHS];
  uint64_t clock; /* apply counter for the LRU */
};

/* STREAMS, GRAPH and ROWS: a non-blocking stream and an event per block,
 * the fork event, and the capture origin for GRAPH. */
static em_err blockop_cuda_init(em_blockop *op) {
  em_blockop_mode m = op->opts.mode;
  if (m != EM_BLOCKOP_STREAMS && m != EM_BLOCKOP_GRAPH && m != EM_BLOCKOP_ROWS) return EM_OK;
  em_blockop_cuda *C = NULL;
  EM_TRY(em_calloc(&C, 1, sizeof *C, "block operator streams"));
  op->cuda = C; /* from here on, blockop_cuda_free releases what exists */
  for (int i = 0; i < op->nb; i++)
    for (int j = 0; j < op->nb; j++) {
      EM_CUDA(cudaStreamCreateWithFlags(&C->s[i][j], cudaStreamNonBlocking));
      EM_CUDA(cudaEventCreateWithFlags(&C->done[i][j], cudaEventDisableTiming));
    }
  EM_CUDA(cudaEventCreateWithFlags(&C->entry, cudaEventDisableTiming));
  if (op->opts.mode == EM_BLOCKOP_GRAPH)
    EM_CUDA(cudaStreamCreateWithFlags(&C->cap, cudaStreamNonBlocking));
  return EM_OK;
}

/* Release what init created (any subset of it, after a failed init). */
static void blockop_cuda_free(em_blockop *op) {
  em_dev_free(&op->xi);
  op->xi_bytes = 0;
  em_blockop_cuda *C = op->cuda;
  if (!C) return;
  /* destroying streams, events and graphs with work in flight is allowed:
   * CUDA releases them when that work completes */
  for (int k = 0; k < BLOCKOP_GRAPHS; k++)
    if (C->graph[k].exec) cudaGraphExecDestroy(C->graph[k].exec);
  for (int i = 0; i < EM_MAX_ORDER; i++)
    for (int j = 0; j < EM_MAX_ORDER; j++) {
      if (C->s[i][j]) cudaStreamDestroy(C->s[i][j]);
      if (C->done[i][j]) cudaEventDestroy(C->done[i][j]);
    }
  if (C->entry) cudaEventDestroy(C->entry);
  if (C->cap) cudaStreamDestroy(C->cap);
  em_free(&op->cuda);
}

/* The k >= 2 columns of x interleaved into op->xi on `origin` (before the
 * fork, so every block's product reads it): *xi = the block, or NULL when
 * the operator gathers from the columns (interleave off, a block without
 * such kernels, k = 1, or no device memory for the copy: then as before,
 * and the allocation is not tried again).  A larger block than the last
 * replaces it (the free waits for the products still reading it: cudaFree
 * synchronises the device). */
static em_err blockop_pack(em_blockop *op, int k, const void *const *x, cudaStream_t origin,
                           const void **xi) {
  *xi = NULL;
  if (!op->il || k < 2) return EM_OK;
  size_t bytes = (size_t)op->offset[op->nb] * (size_t)k * op->elem;
  if (bytes > op->xi_bytes) {
    em_dev_free(&op->xi);
    op->xi_bytes = 0;
    if (em_dev_alloc(&op->xi, NULL, bytes, NULL, "interleaved x of the block operator")) {
      em_error_clear(); /* not an error: the products gather from the columns */
      op->il = 0;
      return EM_OK;
    }
    op->xi_bytes = bytes;
  }
  EM_TRY(em_vecs_interleave(op->opts.backend, op->opts.prec, op->offset[op->nb], k, x, op->xi,
                            origin));
  *xi = op->xi;
  return EM_OK;
}

/* Fork from `origin`, the chains of block rows i0 .. i1-1 on the block
 * streams, join into origin; k vectors (x[c] -> y[c]), each block one
 * multi-vector product (k = 1: its SpMV). */
static em_err blockop_issue(em_blockop *op, int i0, int i1, int k, const void *const *x,
                            void *const *y, cudaStream_t origin) {
  em_blockop_cuda *C = op->cuda;
  cudaEvent_t joins[EM_MAX_ORDER * EM_MAX_ORDER];
  int n_join = 0;
  const void *xi = NULL;
  EM_TRY(blockop_pack(op, k, x, origin, &xi));
  EM_CUDA(cudaEventRecord(C->entry, origin));
  for (int i = i0; i < i1; i++) {
    size_t rows = (size_t)(op->offset[i + 1] - op->offset[i]);
    if (rows == 0) continue;
    if (op->n_in_row[i] == 0) { /* no stored block: y_i = 0 */
      cudaStream_t st = C->s[i][i];
      EM_CUDA(cudaStreamWaitEvent(st, C->entry, 0));
      for (int c = 0; c < k; c++)
        EM_CUDA(cudaMemsetAsync((char *)y[c] + (size_t)op->offset[i] * op->elem, 0, rows * op->elem,
                                st));
      EM_CUDA(cudaEventRecord(C->done[i][i], st));
      joins[n_join++] = C->done[i][i];
      continue;
    }
    for (int t = 0; t < op->n_in_row[i]; t++) {
      int j = op->order[i][t];
      cudaStream_t st = C->s[i][j];
      EM_CUDA(cudaStreamWaitEvent(st, t == 0 ? C->entry : C->done[i][op->order[i][t - 1]], 0));
      if (k == 1)
        EM_TRY(em_blockop_block_spmv(op, i, j, x[0], y[0], t > 0, st));
      else
        EM_TRY(em_blockop_block_spmm_il(op, i, j, k, x, xi, y, t > 0, st));
      EM_CUDA(cudaEventRecord(C->done[i][j], st));
      joins[n_join++] = C->done[i][j];
    }
  }
  /* every block stream joins the origin directly (the capture rules want
   * each forked stream joined; the extra edges cost nothing) */
  for (int q = 0; q < n_join; q++) EM_CUDA(cudaStreamWaitEvent(origin, joins[q], 0));
  return EM_OK;
}

/* Capture the fork / chains / join for (x, y) into an executable graph.  The
 * capture is always ended, also after a failure, so the streams stay usable. */
static em_err blockop_capture(em_blockop *op, const void *x, void *y, cudaGraphExec_t *exec) {
  em_blockop_cuda *C = op->cuda;
  *exec = NULL;
  EM_CUDA(cudaStreamBeginCapture(C->cap, cudaStreamCaptureModeThreadLocal));
  em_err err = blockop_issue(op, 0, op->nb, 1, &x, &y, C->cap);
  cudaGraph_t g = NULL;
  cudaError_t ce = cudaStreamEndCapture(C->cap, &g);
  if (err)
    em_error_trace(err, __FILE__, __LINE__);
  else if (ce != cudaSuccess)
    err = em_cuda_status(ce, "cudaStreamEndCapture(block operator)", __FILE__, __LINE__);
  else
    err = em_cuda_status(cudaGraphInstantiate(exec, g, 0), "cudaGraphInstantiate(block operator)",
                         __FILE__, __LINE__);
  if (g) cudaGraphDestroy(g);
  if (err) {
    *exec = NULL;
    (void)cudaGetLastError();
  }
  return err;
}

/* The graph of (x, y): from the cache, or captured into the least recently
 * used slot. */
static em_err blockop_graph_for(em_blockop *op, const void *x, void *y, cudaGraphExec_t *exec) {
  em_blockop_cuda *C = op->cuda;
  blockop_graph *slot = &C->graph[0];
  C->clock++;
  for (int k = 0; k < BLOCKOP_GRAPHS; k++) {
    blockop_graph *g = &C->graph[k];
    if (g->exec && g->x == x && g->y == y) {
      g->used = C->clock;
      *exec = g->exec;
      return EM_OK;
    }
    if ((g->exec ? g->used : 0) < (slot->exec ? slot->used : 0)) slot = g;
  }
  if (slot->exec) {
    cudaGraphExec_t old = slot->exec;
    slot->exec = NULL;
    EM_CUDA(cudaGraphExecDestroy(old));
  }
  EM_TRY(blockop_capture(op, x, y, &slot->exec));
  slot->x = x;
  slot->y = y;
  slot->used = C->clock;
  *exec = slot->exec;
  return EM_OK;
}

/* SEQUENTIAL: the chains of block rows i0 .. i1-1 on stream 0, no events
 * needed; k vectors as in blockop_issue. */
static em_err blockop_sequential(em_blockop *op, int i0, int i1, int k, const void *const *x,
                                 void *const *y) {
  const void *xi = NULL;
  EM_TRY(blockop_pack(op, k, x, 0, &xi));
  for (int i = i0; i < i1; i++) {
    size_t rows = (size_t)(op->offset[i + 1] - op->offset[i]);
    if (rows == 0) continue;
    if (op->n_in_row[i] == 0)
      for (int c = 0; c < k; c++)
        EM_CUDA(cudaMemsetAsync((char *)y[c] + (size_t)op->offset[i] * op->elem, 0, rows * op->elem,
                                0));
    for (int t = 0; t < op->n_in_row[i]; t++) {
      if (k == 1)
        EM_TRY(em_blockop_block_spmv(op, i, op->order[i][t], x[0], y[0], t > 0, NULL));
      else
        EM_TRY(em_blockop_block_spmm_il(op, i, op->order[i][t], k, x, xi, y, t > 0, NULL));
    }
  }
  return EM_OK;
}

/* The mode's schedule, all asynchronous on stream 0's timeline. */
static em_err blockop_cuda_apply(em_blockop *op, const void *x, void *y) {
  if (op->whole) return em_spmat_spmv(op->whole, x, y, 0, NULL);
  switch (op->opts.mode) {
    case EM_BLOCKOP_SEQUENTIAL:
      EM_TRY(blockop_sequential(op, 0, op->nb, 1, &x, &y));
      break;
    case EM_BLOCKOP_STREAMS:
    case EM_BLOCKOP_ROWS:
      EM_TRY(blockop_issue(op, 0, op->nb, 1, &x, &y, 0));
      break;
    case EM_BLOCKOP_GRAPH: {
      cudaGraphExec_t exec = NULL;
      EM_TRY(blockop_graph_for(op, x, y, &exec));
      EM_CUDA(cudaGraphLaunch(exec, 0));
      break;
    }
    default:
      return EM_RAISE(EM_ERR_INTERNAL, "block operator: mode %d on CUDA", (int)op->opts.mode);
  }
  return EM_OK;
}

/* k vectors: GRAPH issues like STREAMS (a graph per set of k pointers
 * would rarely be replayed). */
static em_err blockop_cuda_apply_multi(em_blockop *op, int k, const void *const *x,
                                       void *const *y) {
  if (op->whole) return em_spmat_spmm(op->whole, k, x, y, 0, NULL);
  if (op->opts.mode == EM_BLOCKOP_SEQUENTIAL) return blockop_sequential(op, 0, op->nb, k, x, y);
  return blockop_issue(op, 0, op->nb, k, x, y, 0);
}

/* Block rows i0 .. i1-1: the mode's schedule on those rows (GRAPH issues
 * like STREAMS: its graphs hold every row). */
static em_err blockop_cuda_rows(em_blockop *op, int i0, int i1, int k, const void *const *x,
                                void *const *y) {
  if (op->opts.mode == EM_BLOCKOP_SEQUENTIAL) return blockop_sequential(op, i0, i1, k, x, y);
  return blockop_issue(op, i0, i1, k, x, y, 0);
}

const em_blockop_ops em_blockop_ops_cuda = {blockop_cuda_init, blockop_cuda_apply,
                                            blockop_cuda_free, blockop_cuda_apply_multi,
                                            blockop_cuda_rows};
