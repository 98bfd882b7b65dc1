/* rcm.c - reverse Cuthill-McKee: a breadth-first numbering from a
 * pseudo-peripheral vertex, reversed, for locality (small bandwidth).
 * perm[old] = new. */
#include "em_graph.h"

/* Breadth-first search from `start` over unvisited vertices, appending the
 * visit order to q (neighbours by increasing degree, Cuthill-McKee), and
 * returning the number of levels.  Marks visited with `mark`. */
static int bfs(int32_t start, const int64_t *ptr, const int32_t *adj, int32_t *vis, int32_t mark,
               int32_t *q, int32_t *qn, int32_t *last_level_start) {
  int32_t head = *qn, levels = 0;
  q[(*qn)++] = start;
  vis[start] = mark;
  while (head < *qn) {
    int32_t level_end = *qn;
    *last_level_start = head;
    levels++;
    for (; head < level_end; head++) {
      int32_t v = q[head], first = *qn;
      for (int64_t k = ptr[v]; k < ptr[v + 1]; k++) {
        int32_t u = adj[k];
        if (u == v || vis[u] == mark) continue;
        vis[u] = mark;
        q[(*qn)++] = u;
      }
      /* sort the newly added neighbours by degree (insertion: short lists) */
      for (int32_t i = first + 1; i < *qn; i++) {
        int32_t u = q[i];
        int64_t du = ptr[u + 1] - ptr[u];
        int32_t j = i - 1;
        while (j >= first && ptr[q[j] + 1] - ptr[q[j]] > du) {
          q[j + 1] = q[j];
          j--;
        }
        q[j + 1] = u;
      }
    }
  }
  return levels;
}

em_err em_order_rcm(int32_t n, const int64_t *ptr, const int32_t *adj, int32_t *perm) {
  if (n == 0) return EM_OK;
  em_err err = EM_OK;
  int32_t *vis = NULL, *q = NULL;
  EM_TRY(em_calloc(&vis, (size_t)n, sizeof *vis, "RCM marks"));
  EM_TRY_GOTO(err, em_calloc(&q, (size_t)n, sizeof *q, "RCM queue"), done);
  int32_t qn = 0, mark = 1;
  for (int32_t s = 0; s < n; s++) {
    if (vis[s] == 1) continue; /* negative marks are scratch */
    /* pseudo-peripheral start: repeat BFS from a min-degree vertex of the
     * last level while the depth grows (George-Liu), on scratch marks */
    int32_t start = s, depth = 0;
    for (int it = 0; it < 5; it++) {
      int32_t qn2 = qn, lls = qn;
      int32_t d = bfs(start, ptr, adj, vis, -(++mark), q, &qn2, &lls);
      int32_t best = q[lls];
      for (int32_t i = lls; i < qn2; i++)
        if (ptr[q[i] + 1] - ptr[q[i]] < ptr[best + 1] - ptr[best]) best = q[i];
      if (d <= depth) break;
      depth = d;
      start = best;
    }
    int32_t lls = qn;
    bfs(start, ptr, adj, vis, 1, q, &qn, &lls);
  }
  if (qn != n) {
    err = EM_RAISE(EM_ERR_INTERNAL, "RCM visited %d of %d vertices", qn, n);
    goto done;
  }
  for (int32_t i = 0; i < n; i++) perm[q[i]] = n - 1 - i;
done:
  em_free(&vis);
  em_free(&q);
  return err;
}
