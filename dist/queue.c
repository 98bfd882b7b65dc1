/* queue.c - items 0 .. n-1 handed out to the ranks as they ask: the next
 * one to whichever rank asks first, so that ranks whose items take longer
 * get fewer (a design sweep's points of different sizes).
 *
 * Rank 0 computes like every rank; a thread of its own serves the others
 * (asleep between requests: an idle probe) while its main thread takes
 * items through a mutex.  Only that thread calls MPI while the queue lives
 * (MPI_THREAD_SERIALIZED suffices).  Where the MPI library gives no such
 * thread level, the items are dealt in turn instead (rank r: r, r + P, ...). */
#include <pthread.h>
#include <string.h>

#include "dist_impl.h"

struct em_dist_queue {
  const em_dist *d;
  int n, next;       /* items; the next to hand out (rank 0) */
  int dealt, served; /* no thread: items taken by this rank; ranks told "none" */
  int threaded;      /* rank 0 serves from a thread */
  pthread_t thread;
  pthread_mutex_t lock;
  em_err err; /* the thread's */
};

static int take(em_dist_queue *q) {
  pthread_mutex_lock(&q->lock);
  int item = q->next < q->n ? q->next++ : -1;
  pthread_mutex_unlock(&q->lock);
  return item;
}

/* Rank 0's server: a request is an int from rank k, the answer the item
 * (-1: none left); it ends when every other rank was told none. */
static void *serve(void *arg) {
  em_dist_queue *q = arg;
  int P = em_dist_size(q->d);
  while (q->served < P - 1) {
    int from, ask;
    em_err err = em_dist_probe(q->d, EM_DIST_ANY, EM_DIST_TAG_QUEUE, EM_DIST_IDLE, &from, NULL);
    if (!err) err = em_dist_recv(q->d, &ask, sizeof ask, from, EM_DIST_TAG_QUEUE, NULL, NULL);
    int item = err ? -1 : take(q);
    if (!err) err = em_dist_send(q->d, &item, sizeof item, from, EM_DIST_TAG_ANSWER);
    if (err) {
      q->err = err;
      break;
    }
    q->served += item < 0;
  }
  return NULL;
}

em_err em_dist_queue_create(const em_dist *d, int n, em_dist_queue **out) {
  *out = NULL;
  EM_CHECK(n >= 0, EM_ERR_ARG, "a queue of %d items", n);
  em_dist_queue *q = NULL;
  EM_TRY(em_calloc(&q, 1, sizeof *q, "work queue"));
  q->d = d;
  q->n = n;
  const em_dist_place *p = em_dist_where(d);
  q->threaded = p->size > 1 && p->threads;
  pthread_mutex_init(&q->lock, NULL);
  if (q->threaded && p->rank == 0 && pthread_create(&q->thread, NULL, serve, q)) {
    pthread_mutex_destroy(&q->lock);
    em_free(&q);
    return EM_RAISE(EM_ERR_MEMORY, "cannot start the work queue's thread");
  }
  *out = q;
  return EM_OK;
}

em_err em_dist_queue_next(em_dist_queue *q, int *item) {
  const em_dist_place *p = em_dist_where(q->d);
  if (!q->threaded) { /* in turn: this rank's r, r + P, ... */
    int k = p->rank + q->dealt * p->size;
    *item = k < q->n ? k : -1;
    q->dealt += *item >= 0;
    return EM_OK;
  }
  if (p->rank == 0) {
    *item = take(q);
    return EM_OK;
  }
  int ask = 1, from;
  EM_TRY(em_dist_send(q->d, &ask, sizeof ask, 0, EM_DIST_TAG_QUEUE));
  EM_TRY(em_dist_probe(q->d, 0, EM_DIST_TAG_ANSWER, EM_DIST_IDLE, &from, NULL));
  return em_dist_recv(q->d, item, sizeof *item, 0, EM_DIST_TAG_ANSWER, NULL, NULL);
}

em_err em_dist_queue_destroy(em_dist_queue **pq) {
  em_dist_queue *q = pq ? *pq : NULL;
  if (!q) return EM_OK;
  em_err err = EM_OK;
  if (q->threaded && em_dist_rank(q->d) == 0) {
    pthread_join(q->thread, NULL); /* every other rank has been told none */
    err = q->err;
  }
  pthread_mutex_destroy(&q->lock);
  em_free(pq);
  return err;
}
