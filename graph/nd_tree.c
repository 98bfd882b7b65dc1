/* nd_tree.c - nested dissection in parallel: the top levels of the
 * dissection tree are METIS vertex separators, the subgraphs below them
 * are ordered by METIS_NodeND, independent subtrees on separate threads
 * (OpenMP tasks).  Each subgraph takes the positions [off, off + n0) for
 * part 0, [off + n0, off + n0 + n1) for part 1 and the rest for its
 * separator, as METIS' own recursion numbers them, so the ordering is
 * METIS' nested dissection with the recursion split between threads.
 * Where METIS tries `seps` separators one after another and keeps the
 * lightest, the top levels here run the trials (seeds 4321 + t) at once.
 *
 * The depth depends on the graph only (not on the threads): the ordering
 * is the same on any machine.  METIS 5.1 draws its random numbers from
 * libc's rand(), one stream per process that concurrent calls would
 * interleave (the ordering then depending on thread timing): rand and
 * srand below are glibc's own generator (random_r, the same TYPE_3 stream
 * and seeding) kept per thread, which the dynamic linker hands to METIS in
 * place of libc's.  Each METIS call seeds it (InitRandom), so each call is
 * a function of its input, as in a single-threaded process, and a
 * single-threaded user of rand() (Gmsh) sees glibc's exact sequence. */
#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "em_graph.h"

static __thread struct random_data rand_data;
static __thread char rand_state[128]; /* 128 bytes: TYPE_3, glibc's default */
static __thread int rand_ready;

void srand(unsigned int seed) {
  if (!rand_ready) {
    initstate_r(seed, rand_state, sizeof rand_state, &rand_data);
    rand_ready = 1;
  } else {
    srandom_r(seed, &rand_data);
  }
}

int rand(void) {
  if (!rand_ready) srand(1); /* glibc: an unseeded stream is seed 1's */
  int32_t r;
  random_r(&rand_data, &r);
  return r;
}

/* A subgraph in METIS' arrays; vid: its vertices' numbers in the graph
 * being ordered. */
typedef struct {
  idx_t n;
  idx_t *xadj, *adj, *w;
  int32_t *vid;
} ndsub;

static void sub_free(ndsub *s) {
  free(s->xadj);
  free(s->adj);
  free(s->w);
  free(s->vid);
  memset(s, 0, sizeof *s);
}

/* s = the subgraph of g induced by the vertices with part[i] == p
 * (loc: scratch, g->n entries); 0 on success, -1 out of memory. */
static int sub_induce(const ndsub *g, const idx_t *part, idx_t p, idx_t *loc, ndsub *s) {
  memset(s, 0, sizeof *s);
  idx_t n = 0, m = 0;
  for (idx_t i = 0; i < g->n; i++) loc[i] = part[i] == p ? n++ : -1;
  for (idx_t i = 0; i < g->n; i++)
    if (part[i] == p)
      for (idx_t k = g->xadj[i]; k < g->xadj[i + 1]; k++) m += loc[g->adj[k]] >= 0;
  s->n = n;
  s->xadj = malloc(((size_t)n + 1) * sizeof *s->xadj);
  s->adj = malloc(((size_t)m + 1) * sizeof *s->adj);
  s->w = malloc(((size_t)n + 1) * sizeof *s->w);
  s->vid = malloc(((size_t)n + 1) * sizeof *s->vid);
  if (!s->xadj || !s->adj || !s->w || !s->vid) {
    sub_free(s);
    return -1;
  }
  m = 0;
  for (idx_t i = 0; i < g->n; i++) {
    if (part[i] != p) continue;
    idx_t j = loc[i];
    s->xadj[j] = m;
    s->w[j] = g->w[i];
    s->vid[j] = g->vid[i];
    for (idx_t k = g->xadj[i]; k < g->xadj[i + 1]; k++)
      if (loc[g->adj[k]] >= 0) s->adj[m++] = loc[g->adj[k]];
  }
  s->xadj[n] = m;
  return 0;
}

/* pos[vid] = off + METIS_NodeND's position, for the vertices of g */
static int leaf(ndsub *g, int seps, int32_t off, int32_t *pos) {
  if (g->n == 0) return METIS_OK;
  idx_t *perm = malloc(((size_t)g->n + 1) * sizeof *perm);
  idx_t *iperm = malloc(((size_t)g->n + 1) * sizeof *iperm);
  int st = METIS_ERROR_MEMORY;
  if (perm && iperm) {
    idx_t opts[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opts);
    if (seps > 0) opts[METIS_OPTION_NSEPS] = seps;
    st = METIS_NodeND(&g->n, g->xadj, g->adj, g->w, opts, perm, iperm);
    if (st == METIS_OK)
      for (idx_t i = 0; i < g->n; i++) pos[g->vid[i]] = off + (int32_t)iperm[i];
  }
  free(perm);
  free(iperm);
  return st;
}

/* part = METIS' vertex separator of g (2 marks it), the lightest of
 * `trials` runs with different seeds, run as parallel tasks (METIS' own
 * NSEPS tries them one after another); ties go to the first. */
static int separator(ndsub *g, int trials, idx_t *part) {
  if (trials < 1) trials = 1;
  if (trials > 4) trials = 4;
  idx_t *tp[4] = {part, NULL, NULL, NULL}, sep[4] = {0};
  int st[4] = {METIS_OK, METIS_OK, METIS_OK, METIS_OK}, best = 0;
  for (int t = 1; t < trials; t++)
    if (!(tp[t] = malloc(((size_t)g->n + 1) * sizeof *tp[t]))) st[0] = METIS_ERROR_MEMORY;
  if (st[0] == METIS_OK) {
    for (int t = 0; t < trials; t++) {
#pragma omp task shared(g, tp, sep, st) firstprivate(t)
      {
        idx_t opts[METIS_NOPTIONS];
        METIS_SetDefaultOptions(opts);
        opts[METIS_OPTION_NSEPS] = 1;
        if (t > 0) opts[METIS_OPTION_SEED] = 4321 + t; /* trial 0: METIS' default seed */
        st[t] = METIS_ComputeVertexSeparator(&g->n, g->xadj, g->adj, g->w, opts, &sep[t], tp[t]);
      }
    }
#pragma omp taskwait
    for (int t = 0; t < trials; t++)
      if (st[t] != METIS_OK)
        st[0] = st[t];
      else if (sep[t] < sep[best])
        best = t;
    if (st[0] == METIS_OK && best > 0) memcpy(part, tp[best], (size_t)g->n * sizeof *part);
  }
  for (int t = 1; t < trials; t++) free(tp[t]);
  return st[0];
}

/* Orders g (freed here) into positions off.. of pos; depth: separator
 * levels still to split.  *status: the first failure (METIS status). */
static void dissect(ndsub *g, int depth, int seps, int32_t off, int32_t *pos, int *status) {
  int st = METIS_OK;
  if (depth == 0 || g->n < 2000) {
    st = leaf(g, seps, off, pos);
  } else {
    idx_t *part = malloc(((size_t)g->n + 1) * sizeof *part);
    idx_t *loc = malloc(((size_t)g->n + 1) * sizeof *loc);
    ndsub s0, s1;
    st = part && loc ? separator(g, seps, part) : METIS_ERROR_MEMORY;
    if (st == METIS_OK && sub_induce(g, part, 0, loc, &s0)) st = METIS_ERROR_MEMORY;
    if (st == METIS_OK && sub_induce(g, part, 1, loc, &s1)) {
      sub_free(&s0);
      st = METIS_ERROR_MEMORY;
    }
    if (st == METIS_OK) {
      int32_t at = off + (int32_t)(s0.n + s1.n); /* the separator last, in input order */
      for (idx_t i = 0; i < g->n; i++)
        if (part[i] == 2) pos[g->vid[i]] = at++;
      int32_t off1 = off + (int32_t)s0.n;
      free(part);
      free(loc);
      part = loc = NULL;
      sub_free(g);
#pragma omp task shared(pos, status) firstprivate(s0)
      dissect(&s0, depth - 1, seps, off, pos, status);
#pragma omp task shared(pos, status) firstprivate(s1)
      dissect(&s1, depth - 1, seps, off1, pos, status);
#pragma omp taskwait
    }
    free(part);
    free(loc);
  }
  sub_free(g);
  if (st != METIS_OK) {
#pragma omp critical(em_nd_status)
    if (*status == METIS_OK) *status = st;
  }
}

/* Separator levels for a graph of n vertices: leaves of ~8000 vertices,
 * at most 64 of them; a function of n only. */
static int tree_depth(int32_t n) {
  int d = 0;
  while (d < 6 && ((int64_t)n >> d) > 16000) d++;
  return d;
}

em_err em_nd_tree(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *w, int seps,
                  int32_t *perm) {
  if (n == 0) return EM_OK;
  EM_CHECK(ptr[n] < (int64_t)INT32_MAX, EM_ERR_UNSUPPORTED,
           "nested dissection: the graph has %lld edges, more than METIS' 32-bit indices hold",
           (long long)ptr[n]);
  ndsub g = {n, NULL, NULL, NULL, NULL};
  g.xadj = malloc(((size_t)n + 1) * sizeof *g.xadj);
  g.adj = malloc(((size_t)ptr[n] + 1) * sizeof *g.adj);
  g.w = malloc(((size_t)n + 1) * sizeof *g.w);
  g.vid = malloc(((size_t)n + 1) * sizeof *g.vid);
  if (!g.xadj || !g.adj || !g.w || !g.vid) {
    sub_free(&g);
    return EM_RAISE(EM_ERR_MEMORY, "out of host memory for the nested dissection of %d vertices",
                    n);
  }
  idx_t k = 0; /* METIS wants no self loops */
  for (int32_t i = 0; i < n; i++) {
    g.xadj[i] = k;
    g.w[i] = w ? w[i] : 1;
    g.vid[i] = i;
    for (int64_t q = ptr[i]; q < ptr[i + 1]; q++)
      if (adj[q] != i) g.adj[k++] = adj[q];
  }
  g.xadj[n] = k;
  int status = METIS_OK, depth = tree_depth(n);
#pragma omp parallel if (depth > 0)
#pragma omp single
  dissect(&g, depth, seps, 0, perm, &status);
  if (status != METIS_OK)
    return EM_RAISE(status == METIS_ERROR_MEMORY ? EM_ERR_MEMORY : EM_ERR_INTERNAL,
                    "METIS failed with status %d ordering a graph of %d vertices", status, n);
  return EM_OK;
}
