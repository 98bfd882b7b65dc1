/* The scattered-field sources against the total field.  A block of a
 * lossy magnetic dielectric (eps_r 3 - 0.5j, mu_r 2 - 0.3j) inside a box
 * of vacuum, a plane wave E_inc in oblique incidence:
 *   total field:     E = E_inc on the outer walls, no source;
 *   scattered field: E_s = 0 on the outer walls, the sources of
 *                    em_scatter_source (f = k0^2 (eps - 1) E_inc,
 *                    h = -(1/mu - 1) curl E_inc, the curl term in weak form).
 * Both describe the same field, E = E_s + E_inc, and the discrete solutions
 * differ only by discretisation error: at order 3 on this mesh the
 * difference must be below 5e-4 of the scattered field in L2 (a wrong sign
 * or a missing h term gives O(1)); at order 1 and 2 it must fall with the
 * order.  Then the same for a PEC block: em_scatter_dirichlet (E_s = -E_inc
 * on the block, 0 on the outer wall beyond the "PML" box) against the
 * total field with E = 0 on the block and E_inc outside. */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"
#include "ff_common.h"

typedef struct wall_ctx {
  const em_planewave *pw;
  double wall; /* |x_d| >= wall: the outer wall */
} wall_ctx;

/* total-field data: E_inc on the outer wall, 0 on the PEC block */
static em_err total_data(void *ctx, const double x[3], em_cplx E[3]) {
  const wall_ctx *w = ctx;
  int outer = 0;
  for (int d = 0; d < 3; d++) outer |= fabs(x[d]) > w->wall - 1e-9;
  if (outer) {
    em_planewave_field(w->pw, x, E, NULL);
  } else {
    E[0] = E[1] = E[2] = 0;
  }
  return EM_OK;
}

/* || E_tot - (E_s + E_inc) || / || E_s || over the tets */
static double compare(const em_mesh *m, const em_dofmap *d, const em_cplx *xt, const em_cplx *ft,
                      const em_cplx *xs, const em_cplx *fs, const em_planewave *pw) {
  em_quad q;
  REQUIRE_OK(em_quad_tet(2 * d->order + 2, &q));
  double num = 0, den = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    for (int k = 0; k < q.n; k++) {
      const double *lam = q.lam + 4 * k;
      double x[3] = {0, 0, 0};
      for (int a = 0; a < 4; a++)
        for (int c = 0; c < 3; c++) x[c] += lam[a] * g.x[a][c];
      em_cplx Et[3], Es[3], Ei[3];
      em_field_eval(m, d, xt, ft, t, lam, Et, NULL);
      em_field_eval(m, d, xs, fs, t, lam, Es, NULL);
      em_planewave_field(pw, x, Ei, NULL);
      for (int c = 0; c < 3; c++) {
        em_cplx diff = Et[c] - Es[c] - Ei[c];
        num += q.w[k] * g.vol * creal(diff * conj(diff));
        den += q.w[k] * g.vol * creal(Es[c] * conj(Es[c]));
      }
    }
  }
  return sqrt(num / den);
}

static double run(int p, int pec, const em_mesh *m, em_medium *med) {
  const double k0 = 3.0;
  em_planewave pw;
  REQUIRE_OK(em_planewave_make(k0, 0.6, 0.4, 0.3, 1, 1, 1, &pw));
  /* fixed faces: the outer wall, and the block's faces when it is PEC */
  uint8_t *fixed = calloc((size_t)m->n_face, 1);
  for (int32_t f = 0; f < m->n_face; f++) {
    int32_t a = m->face_tet[2 * f], b = m->face_tet[2 * f + 1];
    fixed[f] = b < 0 || (pec && (m->tet_group[a] == 1) != (m->tet_group[b] == 1));
  }
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, fixed, &d));
  em_media media = {m, med, NULL, k0};
  /* the scattered field sees a "PML" box just inside the outer wall, so
   * that em_scatter_dirichlet gives 0 there and -E_inc on the block */
  em_pml box = {.inner = {-0.49, 0.49, -0.49, 0.49, -0.49, 0.49}};
  em_scatter sc = {&pw, m, med, &box};
  wall_ctx wc = {&pw, 0.5};
  em_problem tot = {.k0 = k0,
                    .material = em_media_material,
                    .material_ctx = &media,
                    .dirichlet = total_data,
                    .dirichlet_ctx = &wc,
                    .n_rhs = 1};
  em_problem sca = tot;
  sca.dirichlet = pec ? em_scatter_dirichlet : NULL;
  sca.dirichlet_ctx = &sc;
  sca.tet_source = em_scatter_source;
  sca.tet_source_ctx = &sc;
  em_system *st = NULL, *ss = NULL;
  REQUIRE_OK(em_assemble(m, d, &tot, NULL, &st));
  REQUIRE_OK(em_assemble(m, d, &sca, NULL, &ss));
  em_cplx *xt = calloc((size_t)d->n_dof + 1, sizeof *xt),
          *xs = calloc((size_t)d->n_dof + 1, sizeof *xs);
  double res, secs;
  REQUIRE_OK(ff_solve(st, xt, &res, &secs));
  REQUIRE_OK(ff_solve(ss, xs, &res, &secs));
  double e = compare(m, d, xt, st->fixed, xs, ss->fixed, &pw);
  printf("  %s block, order %d: %d unknowns, ||E_tot - E_s - E_inc|| / ||E_s|| = %.3e\n",
         pec ? "PEC" : "eps 3-0.5j, mu 2-0.3j", p, d->n_dof, e);
  free(xt);
  free(xs);
  free(fixed);
  em_system_destroy(&st);
  em_system_destroy(&ss);
  em_dofmap_destroy(&d);
  return e;
}

int main(void) {
  double node[9], *nodes[3] = {node, node, node}, w[3] = {1, 1, 1}, blk[3] = {0.25, 0.25, 0.25};
  for (int i = 0; i < 9; i++) node[i] = -0.5 + i / 8.0;
  int n[3] = {9, 9, 9};
  em_mesh *m = NULL;
  REQUIRE_OK(ff_box_mesh(n, nodes, w, blk, NULL, &m));
  em_medium med[3] = {{1, 1, 0}, {3 - 0.5 * I, 2 - 0.3 * I, 0}, {1, 1, 0}};
  double e[4];
  for (int p = 1; p <= 3; p++) e[p] = run(p, 0, m, med);
  EXPECT(e[3] < 5e-4, "order 3: total and scattered fields differ by %g", e[3]);
  EXPECT(e[2] < e[1] && e[3] < e[2], "no convergence with the order: %g %g %g", e[1], e[2], e[3]);
  double ep = run(3, 1, m, med);
  EXPECT(ep < 5e-5, "PEC block: total and scattered fields differ by %g", ep);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
