/* direct_etree.c - elimination tree, postorder and column counts of the
 * Cholesky-like factor L of P A P^T, from the symmetric graph of A (Liu
 * 1986; Gilbert, Ng & Peyton 1994, as presented in Davis, "Direct Methods
 * for Sparse Linear Systems", SIAM 2006, ch. 4).  The graph is in the old
 * numbering; perm / iperm map it to the new one on the fly, so no permuted
 * copy of A is made. */
#include "direct_impl.h"

/* parent[j] = min { i > j : L(i,j) != 0 }.  Liu's algorithm: for each
 * column k, every i < k coupled to k climbs its (path-compressed) ancestor
 * chain; the root it reaches, if not k already, becomes a child of k. */
em_err em_dsym_etree(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *perm,
                     const int32_t *iperm, int32_t *parent) {
  int32_t *anc = NULL;
  EM_TRY(em_calloc(&anc, (size_t)n + 1, sizeof *anc, "elimination tree ancestors"));
  for (int32_t k = 0; k < n; k++) {
    parent[k] = -1;
    anc[k] = -1;
    int32_t u = iperm[k];
    for (int64_t p = ptr[u]; p < ptr[u + 1]; p++) {
      int32_t i = perm[adj[p]];
      while (i != -1 && i < k) { /* climb from i towards the root */
        int32_t next = anc[i];
        anc[i] = k; /* path compression */
        if (next == -1) parent[i] = k;
        i = next;
      }
    }
  }
  em_free(&anc);
  return EM_OK;
}

/* Depth-first postorder without recursion (trees can be paths of length
 * n): children lists in increasing order, an explicit stack. */
em_err em_dsym_postorder(int32_t n, const int32_t *parent, int32_t *post) {
  em_err err = EM_OK;
  int32_t *head = NULL, *next = NULL, *stack = NULL;
  EM_TRY(em_calloc(&head, (size_t)n + 1, sizeof *head, "postorder lists"));
  EM_TRY_GOTO(err, em_calloc(&next, (size_t)n + 1, sizeof *next, "postorder lists"), done);
  EM_TRY_GOTO(err, em_calloc(&stack, (size_t)n + 1, sizeof *stack, "postorder stack"), done);
  for (int32_t j = 0; j < n; j++) head[j] = -1;
  for (int32_t j = n - 1; j >= 0; j--) { /* push front: lists end up ascending */
    if (parent[j] == -1) continue;
    next[j] = head[parent[j]];
    head[parent[j]] = j;
  }
  int32_t k = 0;
  for (int32_t r = 0; r < n; r++) {
    if (parent[r] != -1) continue;
    int32_t top = 0;
    stack[0] = r;
    while (top >= 0) {
      int32_t p = stack[top], c = head[p];
      if (c == -1) { /* all children done: p is next */
        top--;
        post[k++] = p;
      } else {
        head[p] = next[c]; /* detach c, descend */
        stack[++top] = c;
      }
    }
  }
  if (k != n) err = EM_RAISE(EM_ERR_INTERNAL, "postorder reached %d of %d nodes", k, n);
done:
  em_free(&head);
  em_free(&next);
  em_free(&stack);
  return err;
}

/* Find the root of i's set with path halving (the disjoint sets of the
 * skeleton-leaf method: a node joins its parent's set when it is done). */
static int32_t set_find(int32_t *anc, int32_t i) {
  while (anc[i] != i) {
    anc[i] = anc[anc[i]];
    i = anc[i];
  }
  return i;
}

/* count[j] = sum of w[i] over i in struct L(:,j).  Row i of L is the row
 * subtree spanned by the leaves j with A(i,j) != 0 whose subtree does not
 * contain an earlier such leaf; each leaf adds w[i] along its path to i,
 * and the path of a second leaf overlaps the previous one above their least
 * common ancestor q.  As differences: delta[j] += w[i] for a leaf, delta[q]
 * -= w[i] for the overlap, delta[parent(i)] -= w[i] once per non-root i,
 * plus w[i] at each leaf i of the tree (its row is the diagonal alone);
 * summing delta over subtrees gives the counts.  Needs a postordered tree:
 * parent[j] > j and subtree(j) = first[j] .. j. */
em_err em_dsym_colcounts(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *perm,
                         const int32_t *iperm, const int32_t *parent, const int32_t *w,
                         int64_t *count) {
  em_err err = EM_OK;
  int32_t *first = NULL, *maxfirst = NULL, *prevleaf = NULL, *anc = NULL;
  EM_TRY(em_calloc(&first, (size_t)n + 1, sizeof *first, "column count work"));
  EM_TRY_GOTO(err, em_calloc(&maxfirst, (size_t)n + 1, sizeof *maxfirst, "column count work"),
              done);
  EM_TRY_GOTO(err, em_calloc(&prevleaf, (size_t)n + 1, sizeof *prevleaf, "column count work"),
              done);
  EM_TRY_GOTO(err, em_calloc(&anc, (size_t)n + 1, sizeof *anc, "column count work"), done);
  for (int32_t j = 0; j < n; j++) {
    first[j] = -1;
    maxfirst[j] = -1;
    prevleaf[j] = -1;
    anc[j] = j;
  }
  for (int32_t k = 0; k < n; k++) /* first descendant, postorder */
    for (int32_t j = k; j != -1 && first[j] == -1; j = parent[j]) first[j] = k;
  for (int32_t j = 0; j < n; j++) count[j] = first[j] == j ? (w ? w[j] : 1) : 0; /* leaves */
  for (int32_t j = 0; j < n; j++) {
    if (parent[j] != -1) count[parent[j]] -= w ? w[j] : 1;
    int32_t u = iperm[j];
    for (int64_t p = ptr[u]; p < ptr[u + 1]; p++) {
      int32_t i = perm[adj[p]];
      if (i <= j || first[j] <= maxfirst[i]) continue; /* j not a leaf of row i */
      maxfirst[i] = first[j];
      int32_t jprev = prevleaf[i], wi = w ? w[i] : 1;
      prevleaf[i] = j;
      count[j] += wi;
      if (jprev != -1) count[set_find(anc, jprev)] -= wi; /* overlap above the LCA */
    }
    if (parent[j] != -1) anc[j] = parent[j];
  }
  for (int32_t j = 0; j < n; j++)
    if (parent[j] != -1) count[parent[j]] += count[j];
done:
  em_free(&first);
  em_free(&maxfirst);
  em_free(&prevleaf);
  em_free(&anc);
  return err;
}
