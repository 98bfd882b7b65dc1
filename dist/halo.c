/* halo.c - the exchange of a distributed operator's ghost values: to each
 * neighbour rank[i] its slice send[send_off[i] .. send_off[i+1]), from it
 * recv[recv_off[i] .. recv_off[i+1]).  _start posts every receive, then
 * every send, and returns (the local product runs meanwhile); _finish waits.
 * A slice to this rank itself is a copy, made at once. */
#include <string.h>

#include "dist_impl.h"

static em_err check_plan(const em_dist_halo *h, int size) {
  EM_CHECK(h->n >= 0 && (h->n == 0 || (h->rank && h->send_off && h->recv_off)), EM_ERR_ARG,
           "halo exchange: %d neighbours without their lists", h->n);
  for (int i = 0; i < h->n; i++) {
    EM_CHECK(h->rank[i] >= 0 && h->rank[i] < size, EM_ERR_ARG,
             "halo exchange: neighbour %d is rank %d of %d", i, h->rank[i], size);
    for (int j = 0; j < i; j++)
      EM_CHECK(h->rank[j] != h->rank[i], EM_ERR_ARG, "halo exchange: rank %d listed twice",
               h->rank[i]);
    EM_CHECK(h->send_off[i + 1] >= h->send_off[i] && h->recv_off[i + 1] >= h->recv_off[i] &&
                 h->send_off[0] >= 0 && h->recv_off[0] >= 0,
             EM_ERR_ARG, "halo exchange: the offsets of neighbour %d decrease", i);
  }
  return EM_OK;
}

em_err em_dist_halo_start(const em_dist *d, const em_dist_halo *h, em_dist_type t, const void *send,
                          void *recv, em_dist_xchg **out) {
  *out = NULL;
  const em_dist_place *p = em_dist_where(d);
  size_t es = em_dist_type_size(t);
  EM_CHECK(es > 0, EM_ERR_ARG, "halo exchange: unknown element type %d", (int)t);
  EM_TRY(check_plan(h, p->size));
  em_dist_xchg *x = NULL;
  EM_TRY(em_calloc(&x, 1, sizeof *x, "halo exchange"));
  em_err err = em_calloc(&x->req, (size_t)(2 * h->n + 1), sizeof *x->req, "halo requests");
  x->n = h->n;
  char *rb = recv;
  const char *sb = send;
  for (int i = 0; i < h->n && !err; i++) { /* receives first: no unexpected messages */
    size_t bytes = (size_t)(h->recv_off[i + 1] - h->recv_off[i]) * es;
    if (h->rank[i] == p->rank) {
      size_t sbytes = (size_t)(h->send_off[i + 1] - h->send_off[i]) * es;
      if (sbytes != bytes)
        err = EM_RAISE(EM_ERR_ARG, "halo exchange: rank %d sends itself %zu bytes into %zu",
                       p->rank, sbytes, bytes);
      else if (bytes)
        memcpy(rb + h->recv_off[i] * es, sb + h->send_off[i] * es, bytes);
      continue;
    }
    err = d->ops->irecv_bytes(d, rb + h->recv_off[i] * es, bytes, h->rank[i], h->tag, &x->req[i]);
  }
  for (int i = 0; i < h->n && !err; i++) {
    if (h->rank[i] == p->rank) continue;
    size_t bytes = (size_t)(h->send_off[i + 1] - h->send_off[i]) * es;
    err = d->ops->isend(d, sb + h->send_off[i] * es, bytes, h->rank[i], h->tag, &x->req[h->n + i]);
  }
  if (err) {
    em_dist_halo_finish(d, &x); /* what was posted completes or fails */
    return em_error_trace(err, __FILE__, __LINE__);
  }
  *out = x;
  return EM_OK;
}

em_err em_dist_halo_finish(const em_dist *d, em_dist_xchg **px) {
  em_dist_xchg *x = px ? *px : NULL;
  if (!x) return EM_OK;
  em_err err = EM_OK;
  for (int i = 0; x->req && i < 2 * x->n; i++) {
    em_err e = em_dist_wait(d, &x->req[i], EM_DIST_BLOCK);
    if (!err) err = e;
  }
  em_free(&x->req);
  em_free(px);
  return err;
}
