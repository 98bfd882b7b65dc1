/* direct_sched.c - running a function over the supernodal tree on OpenMP
 * threads, children before parents (factorization, forward solve) or
 * parents before children (backward solve).
 *
 * Subtrees whose work is at most total / (8 threads) run as one task each,
 * sequentially in (reverse) postorder.  Bottom-up, a supernode above them
 * is processed by the thread that finishes its last child (an atomic count
 * of pending children), so no thread waits on a tree dependency and deep
 * trees need no recursion.  Top-down, a supernode spawns tasks for its
 * children but one, which it continues with in the same task.  fn may
 * create tasks of its own (tiles of a big front). */
#include <stdatomic.h>
#include <stdlib.h>

#include "direct_impl.h"

/* A task root: a subtree run sequentially (small) or one supernode. */
typedef struct root_item {
  double work; /* of the subtree */
  int32_t s;
  int small;
} root_item;

static int cmp_root(const void *a, const void *b) {
  double x = ((const root_item *)a)->work, y = ((const root_item *)b)->work;
  return (x < y) - (x > y);
}

/* Subtree work and the threshold of a sequential subtree. */
static em_err subtree_work(const em_dsym *S, const double *work, int nt, double **sub,
                           double *thresh) {
  EM_TRY(em_calloc(sub, (size_t)S->ns + 1, sizeof **sub, "subtree work"));
  double total = 0;
  for (int32_t s = 0; s < S->ns; s++) {
    (*sub)[s] += work[s];
    total += work[s];
    if (S->sparent[s] != -1) (*sub)[S->sparent[s]] += (*sub)[s];
  }
  *thresh = total / (8.0 * nt);
  return EM_OK;
}

typedef struct up_state {
  const em_dsym *S;
  em_dtree_fn fn;
  void *ctx;
  atomic_int *pending; /* children not yet done, for the supernodes above the tasks */
} up_state;

/* after s: the supernodes above it whose last child this was */
static void climb(up_state *u, int32_t s) {
  for (int32_t p = u->S->sparent[s]; p != -1; p = u->S->sparent[p]) {
    if (atomic_fetch_sub(&u->pending[p], 1) != 1) return;
    u->fn(u->ctx, p);
  }
}

em_err em_dtree_up(const em_dsym *S, const double *work, int nt, em_dtree_fn fn, void *ctx) {
  if (nt <= 1) {
    for (int32_t s = 0; s < S->ns; s++) fn(ctx, s);
    return EM_OK;
  }
  em_err err = EM_OK;
  double *sub = NULL, thresh = 0;
  root_item *roots = NULL;
  up_state u = {S, fn, ctx, NULL};
  EM_TRY(subtree_work(S, work, nt, &sub, &thresh));
  EM_TRY_GOTO(err, em_calloc(&roots, (size_t)S->ns + 1, sizeof *roots, "task roots"), done);
  EM_TRY_GOTO(err, em_calloc(&u.pending, (size_t)S->ns + 1, sizeof *u.pending, "tree counts"),
              done);
  int32_t nr = 0;
  for (int32_t s = 0; s < S->ns; s++) {
    int32_t p = S->sparent[s], nch = 0;
    int small = sub[s] <= thresh, parent_small = p != -1 && sub[p] <= thresh;
    if (!small) /* its children are task roots or above them */
      for (int32_t c = s - 1; c >= S->first[s]; c = S->first[c] - 1) nch++;
    atomic_init(&u.pending[s], nch);
    if ((!small && nch == 0) || (small && !parent_small))
      roots[nr++] = (root_item){sub[s], s, small};
  }
  qsort(roots, (size_t)nr, sizeof *roots, cmp_root); /* biggest first */
#pragma omp parallel num_threads(nt)
#pragma omp single
  for (int32_t r = 0; r < nr; r++) {
    root_item it = roots[r];
#pragma omp task firstprivate(it)
    {
      if (it.small)
        for (int32_t t = S->first[it.s]; t <= it.s; t++) fn(ctx, t);
      else
        fn(ctx, it.s);
      climb(&u, it.s);
    }
  }
done:
  em_free(&sub);
  em_free(&roots);
  em_free(&u.pending);
  return err;
}

typedef struct down_state {
  const em_dsym *S;
  const double *sub;
  double thresh;
  em_dtree_fn fn;
  void *ctx;
} down_state;

/* s and everything below it, parents first */
static void descend(const down_state *w, int32_t s) {
  const em_dsym *S = w->S;
  for (;;) {
    if (w->sub[s] <= w->thresh) { /* the whole subtree here, reverse postorder */
      for (int32_t t = s; t >= S->first[s]; t--) w->fn(w->ctx, t);
      return;
    }
    w->fn(w->ctx, s);
    int32_t last = s - 1;           /* the last child continues here, the others are tasks */
    if (last < S->first[s]) return; /* a leaf */
    for (int32_t c = S->first[last] - 1; c >= S->first[s]; c = S->first[c] - 1) {
#pragma omp task firstprivate(c)
      descend(w, c);
    }
    s = last;
  }
}

em_err em_dtree_down(const em_dsym *S, const double *work, int nt, em_dtree_fn fn, void *ctx) {
  if (nt <= 1) {
    for (int32_t s = S->ns - 1; s >= 0; s--) fn(ctx, s);
    return EM_OK;
  }
  down_state w = {S, NULL, 0, fn, ctx};
  double *sub = NULL;
  EM_TRY(subtree_work(S, work, nt, &sub, &w.thresh));
  w.sub = sub;
#pragma omp parallel num_threads(nt)
#pragma omp single
  for (int32_t s = 0; s < S->ns; s++)
    if (S->sparent[s] == -1) {
#pragma omp task firstprivate(s)
      descend(&w, s);
    }
  em_free(&sub);
  return EM_OK;
}
