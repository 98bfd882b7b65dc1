/* symbolic_bench.c - the analysis of the sparse direct solver phase by
 * phase: the graph of A, the supervariables, the nested dissection of the
 * quotient graph, then the symbolic factorization's phases (elimination
 * tree, postorder, column counts, supernodes, row structure, positions in
 * the parent, front statistics), and a hash of the result (permutation,
 * supernodes, row structure) that must not change with the thread count.
 *
 *   symbolic_bench --matrix FILE [--threads T] [--repeat R] [--symbolic-only]
 *                  [--whole-graph]
 *
 * FILE: `emsolve --dump-matrix` (e.g. pmg's coarse set); --threads: OpenMP
 * threads (default OpenMP's); --repeat: the median of R runs of every
 * phase; --symbolic-only: order once, repeat the symbolic factorization;
 * --whole-graph: the symbolic factorization on A's graph, not on the
 * supervariables (the analysis before issue 24; the same result).
 * Prints one line per phase (median wall seconds) and the result. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_util.h"
#include "direct_impl.h"

#define NPH 11

static uint64_t fnv(uint64_t h, const void *p, size_t bytes) {
  const unsigned char *c = p;
  for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}

/* FNV-1a over the structure of the analysis */
static uint64_t hash_of(const em_dsym *S) {
  uint64_t h = 14695981039346656037ULL;
  h = fnv(h, S->perm, (size_t)S->n * sizeof *S->perm);
  h = fnv(h, S->super, ((size_t)S->ns + 1) * sizeof *S->super);
  h = fnv(h, S->sparent, (size_t)S->ns * sizeof *S->sparent);
  h = fnv(h, S->rptr, ((size_t)S->ns + 1) * sizeof *S->rptr);
  h = fnv(h, S->rows, (size_t)S->rptr[S->ns] * sizeof *S->rows);
  h = fnv(h, S->prel, (size_t)S->rptr[S->ns] * sizeof *S->prel);
  h = fnv(h, S->lptr, ((size_t)S->ns + 1) * sizeof *S->lptr);
  return h;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int repeat = 1, threads = 0, symb_only = 0, full = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--matrix") && i + 1 < argc)
      path = argv[++i];
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--symbolic-only"))
      symb_only = 1;
    else if (!strcmp(argv[i], "--whole-graph"))
      full = 1;
    else {
      fprintf(stderr,
              "usage: symbolic_bench --matrix FILE [--threads T] [--repeat R] "
              "[--symbolic-only] [--whole-graph]\n");
      return 2;
    }
  }
  if (!path || repeat < 1 || repeat > 64) {
    fprintf(stderr, "symbolic_bench: --matrix FILE is required, --repeat 1..64\n");
    return 2;
  }
#ifdef _OPENMP
  if (threads > 0) omp_set_num_threads(threads);
  threads = omp_get_max_threads();
#else
  threads = 1;
#endif
  em_blockmat *B = NULL;
  em_csr *A = NULL;
  em_cplx *b = NULL;
  int nrhs = 0;
  em_err err = em_matfile_read(path, &B, &nrhs, &b);
  if (!err) err = em_blockmat_to_csr(B, &A);
  em_blockmat_destroy(&B);
  em_free(&b);
  if (err) {
    em_error_print(stderr);
    return 1;
  }
  printf("# %s: n = %d, nnz = %lld, %d threads\n", path, A->n_rows, (long long)A->nnz, threads);
  static const char *names[NPH] = {"graph of A",  "supervariables", "nd + expansion",
                                   "etree",       "postorder",      "column counts",
                                   "supernodes",  "row structure",  "parent positions",
                                   "front stats", "symbolic total"};
  double t[NPH][64];
  int32_t *perm = NULL;
  em_dsym S = {0};
  em_nd_info ndi = {0};
  em_graph_quot q = {0};
  uint64_t h0 = 0;
  int differ = 0;
  if (em_calloc(&perm, (size_t)A->n_rows + 1, sizeof *perm, "ordering")) goto fail;
  for (int r = 0; r < repeat; r++) {
    em_graph g = {0};
    double t0 = em_wtime();
    if ((err = em_graph_of(A, &g))) goto fail;
    t[0][r] = em_wtime() - t0;
    if (!symb_only || r == 0) {
      em_nd_opts o;
      em_nd_opts_default(&o);
      em_graph_quot_free(&q);
      if ((err = em_order_nd_quot(g.n, g.ptr, g.adj, &o, perm, &ndi, &q))) goto fail;
    }
    t[1][r] = ndi.t_compress;
    t[2][r] = ndi.t_metis;
    t0 = em_wtime();
    err = full ? em_dsym_build(&g, perm, &S) : em_dsym_build_quot(&g, &q, perm, &S);
    t[10][r] = em_wtime() - t0;
    em_graph_free(&g);
    if (err) goto fail;
    double ph[7] = {S.t.etree, S.t.postorder, S.t.counts, S.t.supernodes,
                    S.t.rows,  S.t.positions, S.t.stats};
    for (int k = 0; k < 7; k++) t[3 + k][r] = ph[k];
    uint64_t h = hash_of(&S);
    if (r == 0) h0 = h;
    differ |= h != h0;
    if (r < repeat - 1) em_dsym_free(&S);
  }
  for (int k = 0; k < NPH; k++) printf("%-18s %9.3f s\n", names[k], bench_median(t[k], repeat));
  printf(
      "n %d, supervariables %d, supernodes %d, nnz(L) %lld, stored %lld, row indices %lld, "
      "%.2f GFlop\n",
      S.n, ndi.n_sv, S.ns, (long long)S.nnz_l, (long long)S.lptr[S.ns], (long long)S.rptr[S.ns],
      S.flops * 1e-9);
  printf("structure hash %016llx%s\n", (unsigned long long)h0,
         differ ? " (DIFFERED between repeats)" : "");
  em_dsym_free(&S);
  em_graph_quot_free(&q);
  em_free(&perm);
  em_csr_destroy(&A);
  return differ;
fail:
  em_error_print(stderr);
  em_dsym_free(&S);
  em_graph_quot_free(&q);
  em_free(&perm);
  em_csr_destroy(&A);
  return 1;
}
