/* The symbolic factorization on the supervariables (direct_symbolic.c,
 * direct_rows.c) against the filled pattern of dense elimination and
 * against the same analysis on the whole graph:
 * - an order-3 FEM pattern (fem_pattern) under its compressed nested
 *   dissection: nnz(L) and every supernode's rows equal dense elimination's;
 *   the analysis on the supervariables equals the whole graph's entry for
 *   entry (permutation, supernodes, rows, positions, offsets, work), on 1, 2
 *   and 3 threads;
 * - a grid whose vertices are copied 1..4 times, half of them with self
 *   loops: the same equalities;
 * - an ordering that splits supervariables (a shuffle): the analysis falls
 *   back to the whole graph and gives its result. */
#include <omp.h>
#include <string.h>

#include "direct_impl.h"
#include "em_test.h"
#include "fem_pattern.h"

/* The filled pattern of P A P^T by dense elimination (F[i + j n] = 1 for
 * L(i,j) != 0, i >= j) from the graph g; returns nnz(L). */
static int64_t dense_symbolic(const em_graph *g, const int32_t *perm, char *F) {
  int32_t n = g->n;
  memset(F, 0, (size_t)n * n);
  for (int32_t i = 0; i < n; i++) {
    F[perm[i] + (size_t)perm[i] * n] = 1;
    for (int64_t p = g->ptr[i]; p < g->ptr[i + 1]; p++) {
      int32_t a = perm[i], b = perm[g->adj[p]];
      F[a + (size_t)b * n] = F[b + (size_t)a * n] = 1;
    }
  }
  int64_t nnz = 0;
  for (int32_t k = 0; k < n; k++)
    for (int32_t i = k; i < n; i++) {
      if (!F[i + (size_t)k * n]) continue;
      nnz++;
      for (int32_t j = k + 1; j <= i; j++)
        if (F[j + (size_t)k * n]) F[i + (size_t)j * n] = F[j + (size_t)i * n] = 1;
    }
  return nnz;
}

static void check_dense(const char *what, const em_graph *g, const em_dsym *S) {
  int32_t n = S->n;
  char *F = calloc((size_t)n * n + 1, 1), *in = calloc((size_t)n + 1, 1);
  int64_t nnz = dense_symbolic(g, S->perm, F), nnz_a = n;
  EXPECT(nnz == S->nnz_l, "%s: nnz(L) %lld, dense elimination %lld", what, (long long)S->nnz_l,
         (long long)nnz);
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = g->ptr[i]; p < g->ptr[i + 1]; p++) nnz_a += S->perm[g->adj[p]] > S->perm[i];
  EXPECT(nnz_a == S->nnz_a, "%s: nnz(tril A) %lld, counted %lld", what, (long long)S->nnz_a,
         (long long)nnz_a);
  int bad = -1;
  for (int32_t s = 0; s < S->ns && bad < 0; s++) {
    int32_t c0 = S->super[s], c1 = S->super[s + 1];
    memset(in, 0, (size_t)n);
    for (int64_t p = S->rptr[s]; p < S->rptr[s + 1]; p++) {
      if (p > S->rptr[s] && S->rows[p] <= S->rows[p - 1]) bad = s;
      in[S->rows[p]] = 1;
    }
    for (int32_t j = c0; j < c1; j++)
      if (S->rows[S->rptr[s] + j - c0] != j) bad = s;
    for (int32_t i = c1; i < n; i++) {
      int any = 0;
      for (int32_t j = c0; j < c1; j++) any |= F[i + (size_t)j * n];
      if (any != in[i]) bad = s;
    }
  }
  EXPECT(bad < 0, "%s: rows of supernode %d differ from the filled pattern", what, bad);
  free(F);
  free(in);
}

#define SAME(f, cnt) \
  EXPECT(!memcmp(A->f, B->f, (size_t)(cnt) * sizeof *A->f), "%s: %s differ", what, #f)

/* A and B equal in every array and figure */
static void check_same(const char *what, const em_dsym *A, const em_dsym *B) {
  EXPECT(A->n == B->n && A->ns == B->ns, "%s: n %d / %d, supernodes %d / %d", what, A->n, B->n,
         A->ns, B->ns);
  if (A->n != B->n || A->ns != B->ns) return;
  int64_t nr = A->rptr[A->ns];
  EXPECT(nr == B->rptr[B->ns], "%s: %lld / %lld row indices", what, (long long)nr,
         (long long)B->rptr[B->ns]);
  if (nr != B->rptr[B->ns]) return;
  SAME(perm, A->n);
  SAME(iperm, A->n);
  SAME(super, A->ns + 1);
  SAME(sparent, A->ns);
  SAME(first, A->ns);
  SAME(rptr, A->ns + 1);
  SAME(rows, nr);
  SAME(prel, nr);
  SAME(lptr, A->ns + 1);
  SAME(work, A->ns);
  SAME(swork, A->ns);
  EXPECT(A->nnz_a == B->nnz_a && A->nnz_l == B->nnz_l && A->flops == B->flops &&
             A->solve_flops == B->solve_flops && A->cb_peak == B->cb_peak &&
             A->cb_max == B->cb_max && A->max_front == B->max_front && A->max_cols == B->max_cols,
         "%s: the figures differ", what);
}

/* g under its compressed ND: whole graph vs supervariables on 1..3 threads;
 * dense: also against dense elimination */
static void check_graph(const char *what, const em_graph *g, int dense) {
  int32_t n = g->n, *perm = calloc((size_t)n + 1, sizeof *perm);
  em_graph_quot q = {0};
  em_nd_info in;
  REQUIRE_OK(em_order_nd_quot(n, g->ptr, g->adj, NULL, perm, &in, &q));
  EXPECT(q.sv && q.g.n < n / 2, "%s: %d supervariables of %d vertices", what, q.g.n, n);
  em_dsym W, Q;
  REQUIRE_OK(em_dsym_build(g, perm, &W));
  if (dense) check_dense(what, g, &W);
  for (int t = 1; t <= 3; t++) {
    char w[128];
    snprintf(w, sizeof w, "%s, supervariables, %d threads", what, t);
    omp_set_num_threads(t);
    REQUIRE_OK(em_dsym_build_quot(g, &q, perm, &Q));
    check_same(w, &W, &Q);
    if (dense && t == 1) check_dense(w, g, &Q);
    em_dsym_free(&Q);
  }
  /* a shuffled ordering splits the supervariables: the whole graph's result */
  unsigned long long s = 12345;
  for (int32_t i = n - 1; i > 0; i--) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    int32_t j = (int32_t)((s >> 33) % (unsigned long long)(i + 1)), x = perm[i];
    perm[i] = perm[j];
    perm[j] = x;
  }
  em_dsym_free(&W);
  REQUIRE_OK(em_dsym_build(g, perm, &W));
  REQUIRE_OK(em_dsym_build_quot(g, &q, perm, &Q));
  check_same("shuffled ordering", &W, &Q);
  omp_set_num_threads(2);
  em_dsym_free(&W);
  em_dsym_free(&Q);
  em_graph_quot_free(&q);
  free(perm);
}

/* The m^3 7-point grid with vertex v copied 1 + (7v mod 4) times, every
 * copy adjacent to its vertex's and its neighbours' copies; the copies of
 * even vertices carry self loops. */
static void copied_grid(int m, em_graph *g) {
  int32_t nb = m * m * m, *first = calloc((size_t)nb + 1, sizeof *first);
  for (int32_t v = 0; v < nb; v++) first[v + 1] = first[v] + 1 + (int32_t)((v * 7u) % 4u);
  int32_t n = first[nb];
  *g = (em_graph){n, calloc((size_t)n + 1, sizeof *g->ptr), calloc((size_t)n * 32, sizeof *g->adj),
                  1};
  int64_t p = 0;
  for (int32_t v = 0; v < nb; v++) {
    int x = v % m, y = (v / m) % m, z = v / (m * m),
        d[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int32_t i = first[v]; i < first[v + 1]; i++) {
      g->ptr[i] = p;
      for (int k = 0; k < 7; k++) { /* ascending vertex numbers */
        int a = x + d[k][0], b = y + d[k][1], c = z + d[k][2];
        if (a < 0 || a >= m || b < 0 || b >= m || c < 0 || c >= m) continue;
        int32_t u = a + m * (b + m * c);
        for (int32_t j = first[u]; j < first[u + 1]; j++)
          if (j != i || v % 2 == 0) g->adj[p++] = j;
      }
    }
  }
  g->ptr[n] = p;
  free(first);
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  em_csr *A = NULL;
  REQUIRE_OK(em_fem_pattern_box(2, 3, 11, &A, NULL));
  em_graph g;
  REQUIRE_OK(em_graph_of(A, &g));
  check_graph("order-3 FEM pattern", &g, 1);
  em_graph_free(&g);
  em_csr_destroy(&A);
  REQUIRE_OK(em_fem_pattern_box(5, 3, 12, &A, NULL));
  REQUIRE_OK(em_graph_of(A, &g));
  check_graph("order-3 FEM pattern, 5^3 cells", &g, 0);
  em_graph_free(&g);
  em_csr_destroy(&A);
  copied_grid(10, &g);
  check_graph("copied grid", &g, 1);
  em_graph_free(&g);
  copied_grid(24, &g);
  check_graph("copied grid 24^3", &g, 0);
  em_graph_free(&g);
  return TEST_RESULT();
}
