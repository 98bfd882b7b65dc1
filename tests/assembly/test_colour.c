/* The tet colouring of the assembly (assembly/colour.c): the patent-bitmap
 * colouring (edges x colours flag words) against the definition - no two
 * tets of one colour share an edge, and each tet of colour c meets, among
 * the tets before it, every colour below c (the greedy rule) - and equal
 * to the stamp colouring (the reference) list for list.  On a jittered box
 * of 3 x 5 x 7 cells and on the star of one edge with 70 tets around it
 * (70 colours: the flag rows widen past one 64-bit word). */
#include <math.h>
#include <string.h>

#include "assembly_impl.h"
#include "em_assembly.h"
#include "em_test.h"

static void check(const em_mesh *m, int want_colours) {
  em_dofmap *d = NULL;
  em_pattern *pat = NULL;
  REQUIRE_OK(em_dofmap_build(m, 1, NULL, &d));
  REQUIRE_OK(em_pattern_build(m, d, &pat));
  int nc = 0, ns = 0;
  int32_t *cp = NULL, *ct = NULL, *sp = NULL, *st = NULL;
  REQUIRE_OK(em_tet_colour(m, pat, &nc, &cp, &ct));
  REQUIRE_OK(em_tet_colour_stamps(m, pat, &ns, &sp, &st));
  EXPECT(nc == ns && !memcmp(cp, sp, (size_t)(nc + 1) * sizeof *cp) &&
             !memcmp(ct, st, (size_t)m->n_tet * sizeof *ct),
         "bitmap colouring (%d colours) differs from the stamps' (%d)", nc, ns);
  if (want_colours) EXPECT(nc == want_colours, "%d colours, expected %d", nc, want_colours);
  int32_t *col = calloc((size_t)m->n_tet + 1, sizeof *col);
  for (int c = 0; c < nc; c++)
    for (int32_t k = cp[c]; k < cp[c + 1]; k++) col[ct[k]] = c;
  int clash = 0, lazy = 0;
  uint8_t *seen = calloc((size_t)nc + 1, 1);
  for (int32_t t = 0; t < m->n_tet; t++) {
    memset(seen, 0, (size_t)nc + 1);
    for (int le = 0; le < 6; le++) {
      int32_t e = m->tet_edge[6 * (size_t)t + le];
      for (int32_t k = pat->edge_ptr[e]; k < pat->edge_ptr[e + 1]; k++) {
        int32_t u = pat->edge_tet[k];
        if (u == t) continue;
        clash |= col[u] == col[t];
        if (u < t) seen[col[u]] = 1;
      }
    }
    for (int c = 0; c < col[t]; c++) lazy |= !seen[c];
  }
  EXPECT(!clash, "two tets of one colour share an edge");
  EXPECT(!lazy, "a tet's colour is not the lowest free one");
  free(col);
  free(seen);
  em_free(&cp), em_free(&ct), em_free(&sp), em_free(&st);
  em_pattern_destroy(&pat);
  em_dofmap_destroy(&d);
}

int main(void) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(3, 5, 7, 1, 1, 1, 0.2, 3, &m));
  check(m, 0);
  em_mesh_destroy(&m);
  enum { K = 70 }; /* the star of edge (0, 1): K tets, K colours */
  double xyz[3 * (K + 2)] = {0, 0, -1, 0, 0, 1};
  int32_t tet[4 * K], grp[K];
  for (int k = 0; k < K; k++) {
    xyz[3 * (k + 2)] = cos(2 * M_PI * k / K);
    xyz[3 * (k + 2) + 1] = sin(2 * M_PI * k / K);
    xyz[3 * (k + 2) + 2] = 0;
    int32_t v[4] = {0, 1, k + 2, (k + 1) % K + 2};
    if (v[2] > v[3]) v[2] = 2, v[3] = K + 1;
    memcpy(tet + 4 * k, v, sizeof v);
    grp[k] = 0;
  }
  em_group g = {.name = "star", .tag = 1, .dim = 3};
  REQUIRE_OK(em_mesh_from_tets(K + 2, xyz, K, tet, grp, 0, NULL, NULL, 1, &g, 0, &m));
  check(m, K);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
