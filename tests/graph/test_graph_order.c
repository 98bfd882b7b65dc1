/* RCM and nested dissection return permutations; RCM shrinks the bandwidth
 * of a scrambled grid graph back to about its natural width. */
#include <string.h>

#include "em_graph.h"
#include "em_test.h"

#define NX 20
#define N (NX * NX)

static int bandwidth(const int64_t *ptr, const int32_t *adj, const int32_t *perm) {
  int bw = 0;
  for (int i = 0; i < N; i++)
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
      int d = abs(perm[i] - perm[adj[k]]);
      if (d > bw) bw = d;
    }
  return bw;
}

static int is_perm(const int32_t *p, int n) {
  static char seen[N];
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] >= n || seen[p[i]]) return 0;
    seen[p[i]] = 1;
  }
  return 1;
}

int main(void) {
  /* a 2D grid graph with vertices scrambled by a multiplicative map */
  int32_t scr[N], inv[N];
  for (int i = 0; i < N; i++) scr[i] = (int32_t)((i * 151L) % N), inv[scr[i]] = i;
  int64_t ptr[N + 1];
  int32_t adj[4 * N];
  int64_t p = 0;
  for (int v = 0; v < N; v++) {
    ptr[v] = p;
    int i = inv[v] % NX, j = inv[v] / NX;
    int nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
    for (int k = 0; k < 4; k++)
      if (nb[k][0] >= 0 && nb[k][0] < NX && nb[k][1] >= 0 && nb[k][1] < NX)
        adj[p++] = scr[nb[k][0] + NX * nb[k][1]];
  }
  ptr[N] = p;
  int32_t id[N], perm[N];
  for (int i = 0; i < N; i++) id[i] = i;
  int bw0 = bandwidth(ptr, adj, id);
  REQUIRE_OK(em_order_rcm(N, ptr, adj, perm));
  EXPECT(is_perm(perm, N), "RCM result is not a permutation");
  int bw1 = bandwidth(ptr, adj, perm);
  EXPECT(bw1 <= 2 * NX, "RCM bandwidth %d (scrambled %d)", bw1, bw0);
  REQUIRE_OK(em_order_nd(N, ptr, adj, perm));
  EXPECT(is_perm(perm, N), "ND result is not a permutation");
  /* a graph of two components and an isolated vertex */
  int64_t p2[6] = {0, 1, 2, 3, 4, 4};
  int32_t a2[4] = {1, 0, 3, 2};
  int32_t perm2[5];
  REQUIRE_OK(em_order_rcm(5, p2, a2, perm2));
  int seen[5] = {0};
  for (int i = 0; i < 5; i++) seen[perm2[i]]++;
  for (int i = 0; i < 5; i++) EXPECT(seen[i] == 1, "component permutation");
  return TEST_RESULT();
}
