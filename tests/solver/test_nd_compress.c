/* Nested dissection on supervariables (graph/compress.c, nd.c, nd_tree.c):
 * - compression finds exactly the planted supervariables of an expanded
 *   grid (every vertex copied 1..4 times, with and without self loops),
 *   and does not merge vertices with equal open but different closed
 *   neighbourhoods (the opposite corners of a 4-cycle);
 * - the ordering is a permutation with each supervariable's members
 *   consecutive, the same for 1 and 4 threads, and its fill is close to
 *   the whole-graph ordering's;
 * - on a small order-3 FEM system (fem_pattern, made diagonally dominant)
 *   the direct solve with the compressed ordering gives the solution of
 *   the whole-graph ordering and the planted one. */
#include <omp.h>
#include <string.h>

#include "em_graph.h"
#include "em_solver.h"
#include "em_test.h"
#include "fem_pattern.h"

#define NX 30 /* base grid NX^3: 27000 supervariables, one separator level */

static int copies(int32_t v) {
  return 1 + (int)((v * 7u) % 4u);
}

/* The NX^3 7-point grid with vertex v copied copies(v) times; copies of v
 * and of its neighbours are all adjacent (the same closed neighbourhood);
 * even base vertices carry self loops.  base[i]: the grid vertex of i. */
static em_err expanded_grid(em_graph *g, int32_t **base) {
  int32_t nb = NX * NX * NX, n = 0;
  int32_t *first = NULL;
  EM_TRY(em_calloc(&first, (size_t)nb + 1, sizeof *first, "first copies"));
  for (int32_t v = 0; v < nb; v++) first[v + 1] = first[v] + copies(v);
  n = first[nb];
  g->n = n;
  g->owned = 1;
  EM_TRY(em_calloc(&g->ptr, (size_t)n + 1, sizeof *g->ptr, "graph"));
  EM_TRY(em_calloc(&g->adj, (size_t)n * 32, sizeof *g->adj, "graph"));
  EM_TRY(em_calloc(base, (size_t)n, sizeof **base, "base"));
  int64_t p = 0;
  for (int32_t v = 0; v < nb; v++) {
    int x = v % NX, y = (v / NX) % NX, z = v / (NX * NX);
    int32_t nbr[7], m = 0;
    int d[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int k = 0; k < 7; k++) { /* ascending vertex numbers */
      int a = x + d[k][0], b = y + d[k][1], c = z + d[k][2];
      if (a >= 0 && a < NX && b >= 0 && b < NX && c >= 0 && c < NX)
        nbr[m++] = a + NX * (b + NX * c);
    }
    for (int32_t i = first[v]; i < first[v + 1]; i++) {
      (*base)[i] = v;
      g->ptr[i] = p;
      for (int k = 0; k < m; k++)
        for (int32_t j = first[nbr[k]]; j < first[nbr[k] + 1]; j++)
          if (j != i || v % 2 == 0) g->adj[p++] = j;
    }
  }
  g->ptr[n] = p;
  em_free(&first);
  return EM_OK;
}

static int is_perm(const int32_t *p, int32_t n) {
  char *seen = calloc((size_t)n, 1);
  int ok = 1;
  for (int32_t i = 0; i < n && ok; i++) {
    ok = p[i] >= 0 && p[i] < n && !seen[p[i]];
    if (ok) seen[p[i]] = 1;
  }
  free(seen);
  return ok;
}

static void test_compress(void) {
  em_graph g = {0};
  int32_t *base = NULL;
  REQUIRE_OK(expanded_grid(&g, &base));
  em_graph_quot q;
  REQUIRE_OK(em_graph_compress(&g, &q));
  EXPECT(q.g.n == NX * NX * NX, "%d supervariables, planted %d", q.g.n, NX * NX * NX);
  int bad = 0;
  for (int32_t s = 0; s < q.g.n && !bad; s++) {
    int32_t v = base[q.member[q.start[s]]];
    bad = q.wgt[s] != copies(v) || q.start[s + 1] - q.start[s] != q.wgt[s];
    for (int32_t k = q.start[s]; k < q.start[s + 1]; k++) bad |= base[q.member[k]] != v;
    for (int64_t k = q.g.ptr[s]; k < q.g.ptr[s + 1]; k++) bad |= q.g.adj[k] == s; /* no loops */
  }
  EXPECT(!bad, "a supervariable is not one grid vertex's copies");
  /* quotient edges: the grid's (each edge both ways) */
  int64_t grid_edges = 2 * 3 * (int64_t)NX * NX * (NX - 1);
  EXPECT(q.g.ptr[q.g.n] == grid_edges, "quotient has %lld edge entries, the grid %lld",
         (long long)q.g.ptr[q.g.n], (long long)grid_edges);

  /* the ordering: a permutation, members consecutive, thread-independent */
  int32_t *p1 = calloc((size_t)g.n, sizeof *p1), *p4 = calloc((size_t)g.n, sizeof *p4);
  em_nd_info in;
  omp_set_num_threads(1);
  REQUIRE_OK(em_order_nd_ex(g.n, g.ptr, g.adj, NULL, p1, &in));
  omp_set_num_threads(4);
  REQUIRE_OK(em_order_nd_ex(g.n, g.ptr, g.adj, NULL, p4, &in));
  omp_set_num_threads(2);
  EXPECT(in.n_sv == q.g.n, "the ordering saw %d supervariables", in.n_sv);
  EXPECT(is_perm(p1, g.n), "the compressed ordering is not a permutation");
  EXPECT(!memcmp(p1, p4, (size_t)g.n * sizeof *p1), "1 and 4 threads order differently");
  int apart = 0;
  for (int32_t s = 0; s < q.g.n; s++) {
    int32_t lo = p1[q.member[q.start[s]]], hi = lo;
    for (int32_t k = q.start[s]; k < q.start[s + 1]; k++) {
      if (p1[q.member[k]] < lo) lo = p1[q.member[k]];
      if (p1[q.member[k]] > hi) hi = p1[q.member[k]];
    }
    apart += hi - lo + 1 != q.wgt[s];
  }
  EXPECT(!apart, "%d supervariables not numbered consecutively", apart);
  free(p1);
  free(p4);
  em_graph_quot_free(&q);
  em_graph_free(&g);
  em_free(&base);

  /* a 4-cycle: opposite corners share open neighbourhoods, not closed ones */
  int64_t cp[5] = {0, 2, 4, 6, 8};
  int32_t ca[8] = {1, 3, 0, 2, 1, 3, 0, 2};
  em_graph c = {4, cp, ca, 0};
  REQUIRE_OK(em_graph_compress(&c, &q));
  EXPECT(q.g.n == 4, "the 4-cycle compressed to %d vertices", q.g.n);
  em_graph_quot_free(&q);
}

/* x with A x = b by the direct factor, ND on supervariables or not */
static em_err solve(const em_csr *A, const em_cplx *b, int compress, em_cplx *x,
                    em_direct_info *in) {
  em_direct_opts o;
  em_direct_opts_default(&o);
  o.nd.compress = compress;
  em_direct *F = NULL;
  EM_TRY(em_direct_create(A, &o, NULL, &F));
  em_err err = em_direct_solve(F, 1, b, A->n_rows, x, A->n_rows);
  em_direct_get_info(F, in);
  em_direct_destroy(&F);
  return err;
}

static void test_solution(void) {
  em_csr *A = NULL;
  REQUIRE_OK(em_fem_pattern_box(3, 3, 7, &A, NULL));
  int32_t n = A->n_rows;
  for (int32_t i = 0; i < n; i++) { /* diagonally dominant: no pivoting needed */
    double rs = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) rs += cabs(A->val[p]);
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->colind[p] == i) A->val[p] += 2 * rs;
  }
  em_cplx *xt = calloc((size_t)n, sizeof *xt), *b = calloc((size_t)n, sizeof *b);
  em_cplx *x0 = calloc((size_t)n, sizeof *x0), *x1 = calloc((size_t)n, sizeof *x1);
  for (int32_t i = 0; i < n; i++) xt[i] = sin(0.37 * i) + I * cos(1.3 * i);
  em_csr_spmv_ref(A, 1, xt, 0, b);
  em_direct_info i0, i1;
  REQUIRE_OK(solve(A, b, 0, x0, &i0));
  REQUIRE_OK(solve(A, b, 1, x1, &i1));
  EXPECT(i1.n_sv < n / 3, "order 3: %d supervariables of %d rows", i1.n_sv, n);
  EXPECT(i0.n_sv == n, "the whole-graph ordering reports %d vertices of %d", i0.n_sv, n);
  double d01 = 0, dt = 0, nx = 0;
  for (int32_t i = 0; i < n; i++) {
    d01 = fmax(d01, cabs(x1[i] - x0[i]));
    dt = fmax(dt, cabs(x1[i] - xt[i]));
    nx = fmax(nx, cabs(xt[i]));
  }
  EXPECT(d01 <= 1e-12 * nx, "compressed vs whole ordering: solutions differ by %.3g", d01);
  EXPECT(dt <= 1e-12 * nx, "compressed ordering: error %.3g against the planted solution", dt);
  EXPECT(i1.nnz_l <= 1.1 * (double)i0.nnz_l, "nnz(L) %lld compressed, %lld whole",
         (long long)i1.nnz_l, (long long)i0.nnz_l);
  free(xt);
  free(b);
  free(x0);
  free(x1);
  em_csr_destroy(&A);
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  test_compress();
  test_solution();
  return TEST_RESULT();
}
