/* order.c - the orderings by name: natural, RCM, nested dissection, and
 * (block) multicolouring, applied by the sparse solvers. */
#include "em_graph.h"

static const char *const ORDERINGS[] = {"natural", "rcm", "nd", "mc", "bmc"};
#define N_ORDERINGS ((int)(sizeof ORDERINGS / sizeof ORDERINGS[0]))

const char *em_ordering_name(em_ordering o) {
  return em_name_of(ORDERINGS, N_ORDERINGS, (int)o);
}

em_err em_ordering_parse(const char *s, em_ordering *o) {
  int i;
  EM_TRY(em_name_parse(ORDERINGS, N_ORDERINGS, s, "Solver/ordering", &i));
  *o = (em_ordering)i;
  return EM_OK;
}

em_err em_graph_order(const em_graph *g, em_ordering o, int block, int32_t *perm, int *colors) {
  *colors = 0;
  switch (o) {
    case EM_ORDERING_NATURAL:
      for (int32_t i = 0; i < g->n; i++) perm[i] = i;
      return EM_OK;
    case EM_ORDERING_RCM:
      EM_TRY(em_order_rcm(g->n, g->ptr, g->adj, perm));
      return EM_OK;
    case EM_ORDERING_ND:
      EM_TRY(em_order_nd(g->n, g->ptr, g->adj, perm));
      return EM_OK;
    case EM_ORDERING_MC:
      EM_TRY(em_order_color(g, 1, perm, colors));
      return EM_OK;
    case EM_ORDERING_BMC:
      EM_TRY(em_order_color(g, block, perm, colors));
      return EM_OK;
  }
  return EM_RAISE(EM_ERR_ARG, "unknown ordering %d", (int)o);
}
