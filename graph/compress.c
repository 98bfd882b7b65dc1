/* compress.c - supervariables: vertices with the same closed neighbourhood
 * adj(i) + {i} are indistinguishable for elimination (George and Liu 1989;
 * what AMD and METIS detect), so a fill-reducing ordering of the quotient
 * graph, each supervariable weighted by its size, expanded with the members
 * of a supervariable numbered consecutively, is an ordering of the whole.
 * The unknowns of one mesh edge, face or cell share their pattern, so the
 * order-3 FEM graph shrinks about 4x in vertices and 20x in edges.
 *
 * Detection (rows in parallel): h(i) = sum of mix(j) over adj(i) + {i}
 * (order-free, so self loops need no care); the vertices sorted by (h,
 * index) in buckets of the hash's top bits, each bucket sorted on its own
 * thread; in a run of equal hashes, the first vertex not yet placed starts
 * a supervariable and takes every later one whose closed neighbourhood
 * is equal (compared entry by entry: hashes only propose).  Supervariables
 * are numbered by their smallest member, so the quotient graph does not
 * depend on the thread count. */
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "em_graph.h"

#define BUCKET_BITS 10

static uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* |adj(i) + {i}| */
static int64_t closed_degree(const em_graph *g, int32_t i) {
  int64_t d = g->ptr[i + 1] - g->ptr[i] + 1;
  for (int64_t k = g->ptr[i]; k < g->ptr[i + 1]; k++)
    if (g->adj[k] == i) d--;
  return d;
}

/* The k-th entry of the sorted closed neighbourhood walk: adj(i) with i
 * merged in at its place (once). */
typedef struct {
  const int32_t *a, *e;
  int32_t self;
  int self_done;
} nbr_walk;

static int walk_next(nbr_walk *w, int32_t *out) {
  while (w->a < w->e && *w->a == w->self) w->a++; /* a self loop: merged below */
  if (!w->self_done && (w->a == w->e || w->self < *w->a)) {
    w->self_done = 1;
    *out = w->self;
    return 1;
  }
  if (w->a == w->e) return 0;
  *out = *w->a++;
  return 1;
}

/* adj(i) + {i} == adj(j) + {j} (both adjacency lists sorted) */
static int same_closed(const em_graph *g, int32_t i, int32_t j) {
  nbr_walk a = {g->adj + g->ptr[i], g->adj + g->ptr[i + 1], i, 0};
  nbr_walk b = {g->adj + g->ptr[j], g->adj + g->ptr[j + 1], j, 0};
  int32_t x, y;
  for (;;) {
    int ha = walk_next(&a, &x), hb = walk_next(&b, &y);
    if (ha != hb) return 0;
    if (!ha) return 1;
    if (x != y) return 0;
  }
}

/* rep[i] = the smallest vertex indistinguishable from i */
static em_err find_reps(const em_graph *g, int32_t *rep) {
  int32_t n = g->n;
  em_err err = EM_OK;
  uint64_t *h = NULL, *key = NULL;
  int64_t *deg = NULL, *bstart = NULL;
  const int nb = 1 << BUCKET_BITS;
  EM_TRY(em_calloc(&h, (size_t)n + 1, sizeof *h, "supervariable hashes"));
  EM_TRY_GOTO(err, em_calloc(&deg, (size_t)n + 1, sizeof *deg, "supervariable degrees"), done);
  EM_TRY_GOTO(err, em_calloc(&key, (size_t)n + 1, sizeof *key, "supervariable keys"), done);
  EM_TRY_GOTO(err, em_calloc(&bstart, (size_t)nb + 1, sizeof *bstart, "hash buckets"), done);
#pragma omp parallel for schedule(dynamic, 4096) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    uint64_t s = mix((uint64_t)i);
    for (int64_t k = g->ptr[i]; k < g->ptr[i + 1]; k++)
      if (g->adj[k] != i) s += mix((uint64_t)g->adj[k]);
    h[i] = s;
    deg[i] = closed_degree(g, i);
    rep[i] = -1;
  }
  /* bucket by the top bits, then (top 32 bits of h, index) sorted per bucket */
  for (int32_t i = 0; i < n; i++) bstart[(h[i] >> (64 - BUCKET_BITS)) + 1]++;
  for (int b = 0; b < nb; b++) bstart[b + 1] += bstart[b];
  for (int32_t i = 0; i < n; i++) {
    uint64_t b = h[i] >> (64 - BUCKET_BITS);
    key[bstart[b]++] = (h[i] & 0xffffffff00000000ULL) | (uint64_t)i;
  }
  for (int b = nb; b > 0; b--) bstart[b] = bstart[b - 1];
  bstart[0] = 0;
#pragma omp parallel for schedule(dynamic, 1) if (n > 20000)
  for (int b = 0; b < nb; b++) {
    em_sort_u64(key + bstart[b], bstart[b + 1] - bstart[b]);
    /* runs of equal top hash bits inside the bucket */
    for (int64_t s = bstart[b], e; s < bstart[b + 1]; s = e) {
      for (e = s + 1; e < bstart[b + 1] && (key[e] >> 32) == (key[s] >> 32); e++) {
      }
      for (int64_t p = s; p < e; p++) {
        int32_t a = (int32_t)(key[p] & 0xffffffffu);
        if (rep[a] >= 0) continue;
        rep[a] = a; /* the smallest: indices ascend within a run */
        for (int64_t q = p + 1; q < e; q++) {
          int32_t c = (int32_t)(key[q] & 0xffffffffu);
          if (rep[c] < 0 && h[c] == h[a] && deg[c] == deg[a] && same_closed(g, a, c)) rep[c] = a;
        }
      }
    }
  }
done:
  em_free(&h);
  em_free(&deg);
  em_free(&key);
  em_free(&bstart);
  return err;
}

/* The quotient graph's adjacency of supervariable s (representative r):
 * the supervariables of adj(r) other than s, sorted, unique, into out
 * (room for deg(r)); returns their number. */
static int64_t quotient_row(const em_graph *g, const int32_t *sv, int32_t s, int32_t r,
                            uint64_t *buf) {
  int64_t m = 0;
  for (int64_t k = g->ptr[r]; k < g->ptr[r + 1]; k++)
    if (sv[g->adj[k]] != s) buf[m++] = (uint64_t)sv[g->adj[k]];
  em_sort_u64(buf, m);
  int64_t u = 0;
  for (int64_t k = 0; k < m; k++)
    if (u == 0 || buf[k] != buf[u - 1]) buf[u++] = buf[k];
  return u;
}

em_err em_graph_compress(const em_graph *g, em_graph_quot *q) {
  memset(q, 0, sizeof *q);
  int32_t n = g->n;
  em_err err = EM_OK;
  int32_t *rep = NULL;
  uint64_t *buf = NULL;
  int64_t longest = 0;
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  q->g.owned = 1;
  EM_TRY_GOTO(err, em_calloc(&q->sv, (size_t)n + 1, sizeof *q->sv, "supervariables"), fail);
  EM_TRY_GOTO(err, em_calloc(&rep, (size_t)n + 1, sizeof *rep, "supervariables"), fail);
  EM_TRY_GOTO(err, find_reps(g, rep), fail);
  int32_t ns = 0;
  for (int32_t i = 0; i < n; i++) /* numbered by the smallest member */
    q->sv[i] = rep[i] == i ? ns++ : q->sv[rep[i]];
  q->g.n = ns;
  EM_TRY_GOTO(err, em_calloc(&q->start, (size_t)ns + 1, sizeof *q->start, "supervariables"), fail);
  EM_TRY_GOTO(err, em_calloc(&q->member, (size_t)n + 1, sizeof *q->member, "supervariables"), fail);
  EM_TRY_GOTO(err, em_calloc(&q->wgt, (size_t)ns + 1, sizeof *q->wgt, "supervariable weights"),
              fail);
  for (int32_t i = 0; i < n; i++) q->wgt[q->sv[i]]++;
  for (int32_t s = 0; s < ns; s++) q->start[s + 1] = q->start[s] + q->wgt[s];
  memset(rep, 0, ((size_t)n + 1) * sizeof *rep); /* reused as a cursor per supervariable */
  for (int32_t i = 0; i < n; i++) q->member[q->start[q->sv[i]] + rep[q->sv[i]]++] = i;
  for (int32_t i = 0; i < n; i++)
    if (g->ptr[i + 1] - g->ptr[i] > longest) longest = g->ptr[i + 1] - g->ptr[i];
  EM_TRY_GOTO(
      err, em_calloc(&buf, (size_t)nt * (size_t)(longest + 1), sizeof *buf, "quotient rows"), fail);
  EM_TRY_GOTO(err, em_calloc(&q->g.ptr, (size_t)ns + 1, sizeof *q->g.ptr, "quotient graph"), fail);
#pragma omp parallel if (ns > 20000)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    uint64_t *b = buf + (size_t)t * (size_t)(longest + 1);
#pragma omp for schedule(dynamic, 1024)
    for (int32_t s = 0; s < ns; s++)
      q->g.ptr[s + 1] = quotient_row(g, q->sv, s, q->member[q->start[s]], b);
  }
  for (int32_t s = 0; s < ns; s++) q->g.ptr[s + 1] += q->g.ptr[s];
  EM_TRY_GOTO(err,
              em_calloc(&q->g.adj, (size_t)q->g.ptr[ns] + 1, sizeof *q->g.adj, "quotient graph"),
              fail);
#pragma omp parallel if (ns > 20000)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    uint64_t *b = buf + (size_t)t * (size_t)(longest + 1);
#pragma omp for schedule(dynamic, 1024)
    for (int32_t s = 0; s < ns; s++) {
      int64_t m = quotient_row(g, q->sv, s, q->member[q->start[s]], b);
      for (int64_t k = 0; k < m; k++) q->g.adj[q->g.ptr[s] + k] = (int32_t)b[k];
    }
  }
  em_free(&rep);
  em_free(&buf);
  return EM_OK;
fail:
  em_free(&rep);
  em_free(&buf);
  em_graph_quot_free(q);
  return err;
}

void em_graph_quot_free(em_graph_quot *q) {
  em_graph_free(&q->g);
  em_free(&q->sv);
  em_free(&q->wgt);
  em_free(&q->start);
  em_free(&q->member);
}
