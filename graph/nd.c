/* nd.c - nested dissection through METIS_NodeND: the fill-reducing
 * ordering of the sparse direct factorization.  perm[old] = new.
 *
 * By default on the quotient graph of supervariables (compress.c), each
 * weighted by its size, expanded with each supervariable's members
 * numbered consecutively: METIS sees a graph 4x smaller in vertices and
 * ~20x in edges on order-3 FEM systems.  METIS compresses too, but on one
 * core after a copy of the whole graph; here the detection runs on every
 * core and the quotient's dissection is split between threads
 * (nd_tree.c).  Two separators are tried per bisection, as METIS does
 * once its own compression found supervariables: the fill stays that of
 * the whole-graph ordering (order_bench; docs/solvers.md). */
#include <metis.h>
#include <string.h>

#include "em_graph.h"

void em_nd_opts_default(em_nd_opts *o) {
  memset(o, 0, sizeof *o);
  o->compress = 1;
  o->tree = 1;
  o->seps = 2; /* METIS' own choice once it has compressed a graph */
  o->min_ratio = 1.2;
}

/* METIS_NodeND on (n, ptr, adj) without self loops, vertex weights w
 * (NULL: 1), seps separators tried per bisection (0: METIS' choice);
 * perm[old] = new. */
static em_err metis_nd(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *w,
                       int seps, int32_t *perm) {
  em_err err = EM_OK;
  idx_t nv = n, *xadj = NULL, *adjncy = NULL, *mperm = NULL, *iperm = NULL, *vw = NULL;
  EM_CHECK(ptr[n] < (int64_t)INT32_MAX, EM_ERR_UNSUPPORTED,
           "nested dissection: the graph has %lld edges, more than METIS' 32-bit indices hold",
           (long long)ptr[n]);
  EM_TRY(em_calloc(&xadj, (size_t)n + 1, sizeof *xadj, "METIS graph"));
  EM_TRY_GOTO(err, em_calloc(&adjncy, (size_t)ptr[n] + 1, sizeof *adjncy, "METIS graph"), done);
  EM_TRY_GOTO(err, em_calloc(&mperm, (size_t)n, sizeof *mperm, "METIS permutation"), done);
  EM_TRY_GOTO(err, em_calloc(&iperm, (size_t)n, sizeof *iperm, "METIS permutation"), done);
  if (w) {
    EM_TRY_GOTO(err, em_calloc(&vw, (size_t)n, sizeof *vw, "METIS weights"), done);
    for (int32_t i = 0; i < n; i++) vw[i] = w[i];
  }
  /* METIS wants no self loops */
  idx_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    xadj[i] = k;
    for (int64_t q = ptr[i]; q < ptr[i + 1]; q++)
      if (adj[q] != i) adjncy[k++] = adj[q];
  }
  xadj[n] = k;
  idx_t opts[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opts);
  if (seps > 0) opts[METIS_OPTION_NSEPS] = seps;
  int st = METIS_NodeND(&nv, xadj, adjncy, vw, opts, mperm, iperm);
  if (st != METIS_OK) {
    err = EM_RAISE(st == METIS_ERROR_MEMORY ? EM_ERR_MEMORY : EM_ERR_INTERNAL,
                   "METIS_NodeND failed with status %d on a graph of %d vertices", st, n);
    goto done;
  }
  /* METIS: A' = A(perm, perm), i.e. perm[new] = old and iperm[old] = new */
  for (int32_t i = 0; i < n; i++) perm[i] = (int32_t)iperm[i];
done:
  em_free(&xadj);
  em_free(&adjncy);
  em_free(&mperm);
  em_free(&iperm);
  em_free(&vw);
  return err;
}

em_err em_order_nd_quot(int32_t n, const int64_t *ptr, const int32_t *adj, const em_nd_opts *o,
                        int32_t *perm, em_nd_info *info, em_graph_quot *keep) {
  em_nd_opts def;
  if (!o) {
    em_nd_opts_default(&def);
    o = &def;
  }
  em_nd_info in = {n, n, 0, 0};
  if (info) *info = in;
  if (keep) memset(keep, 0, sizeof *keep);
  if (n == 0) return EM_OK;
  double t0 = em_wtime();
  em_graph g = {n, (int64_t *)ptr, (int32_t *)adj, 0}, *gp = &g;
  em_graph_quot q = {0};
  em_err err = EM_OK;
  int32_t *qperm = NULL;
  if (o->compress) {
    EM_TRY(em_graph_compress(&g, &q));
    in.n_sv = q.g.n;
    if ((double)n < o->min_ratio * q.g.n) em_graph_quot_free(&q); /* too little gained */
  }
  in.t_compress = em_wtime() - t0;
  t0 = em_wtime();
  if (!q.sv) { /* the whole graph: METIS as it was, or its tree when it did not compress
                  (one separator per level then, as METIS on a graph it cannot compress) */
    in.n_sv = n;
    err = o->compress && o->tree
              ? em_nd_tree(n, gp->ptr, gp->adj, NULL, 1, perm)
              : metis_nd(n, gp->ptr, gp->adj, NULL, o->compress ? o->seps : 0, perm);
  } else {
    int32_t ns = q.g.n;
    EM_TRY_GOTO(err, em_calloc(&qperm, (size_t)ns + 1, sizeof *qperm, "quotient ordering"), done);
    if (o->tree)
      EM_TRY_GOTO(err, em_nd_tree(ns, q.g.ptr, q.g.adj, q.wgt, o->seps, qperm), done);
    else
      EM_TRY_GOTO(err, metis_nd(ns, q.g.ptr, q.g.adj, q.wgt, o->seps, qperm), done);
    /* supervariable s goes to position qperm[s]: its members there, in a row */
    int32_t *at = NULL; /* the first new index of each position (q.wgt is kept) */
    EM_TRY_GOTO(err, em_calloc(&at, (size_t)ns + 1, sizeof *at, "quotient ordering"), done);
    for (int32_t s = 0; s < ns; s++) at[qperm[s]] = q.wgt[s];
    for (int32_t p = 0, next = 0; p < ns; p++) {
      int32_t c = at[p];
      at[p] = next;
      next += c;
    }
    for (int32_t s = 0; s < ns; s++)
      for (int32_t k = q.start[s]; k < q.start[s + 1]; k++)
        perm[q.member[k]] = at[qperm[s]] + (k - q.start[s]);
    em_free(&at);
  }
done:
  in.t_metis = em_wtime() - t0;
  if (info) *info = in;
  em_free(&qperm);
  if (!err && keep && q.sv)
    *keep = q; /* the caller's now */
  else
    em_graph_quot_free(&q);
  return err;
}

em_err em_order_nd_ex(int32_t n, const int64_t *ptr, const int32_t *adj, const em_nd_opts *o,
                      int32_t *perm, em_nd_info *info) {
  return em_order_nd_quot(n, ptr, adj, o, perm, info, NULL);
}

em_err em_order_nd(int32_t n, const int64_t *ptr, const int32_t *adj, int32_t *perm) {
  return em_order_nd_ex(n, ptr, adj, NULL, perm, NULL);
}
