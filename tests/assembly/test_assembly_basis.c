/* Hierarchical Nedelec basis: counts and table layout, hierarchy (the
 * order-q set is the first em_basis_count(q) functions of the order-3 set),
 * closed-form curls against central differences of the values, gradient
 * functions against differences of their scalar potentials, and vanishing
 * tangential traces on every face that does not contain the function's
 * entity (the local half of conformity). */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"

/* A random non-degenerate tet and its barycentric gradients. */
static void random_tet(unsigned long long *s, em_tet_geom *g) {
  static const double ref[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (;;) {
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) g->x[a][d] = 0.3 + ref[a][d] + 0.35 * (2 * em_test_rand(s) - 1);
    double e[3][3], D;
    for (int i = 0; i < 3; i++)
      for (int d = 0; d < 3; d++) e[i][d] = g->x[i + 1][d] - g->x[0][d];
    D = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
        e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
        e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    if (fabs(D) > 0.2) break;
  }
  /* grad lam through a tiny mesh: exercises em_tet_geom_make as well */
  double xyz[12];
  int32_t tet[4] = {0, 1, 2, 3}, grp = 0;
  for (int a = 0; a < 4; a++) memcpy(xyz + 3 * a, g->x[a], sizeof g->x[a]);
  em_group gr = {"v", 1, 3};
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_from_tets(4, xyz, 1, tet, &grp, 0, NULL, NULL, 1, &gr, 0, &m));
  em_tet_geom_make(m, 0, g);
  em_mesh_destroy(&m);
}

/* Barycentrics of point x in tet g: lam_k = 1/4 + g_k . (x - centroid). */
static void bary(const em_tet_geom *g, const double x[3], double lam[4]) {
  double c[3] = {0, 0, 0};
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) c[d] += 0.25 * g->x[a][d];
  for (int k = 0; k < 4; k++) {
    lam[k] = 0.25;
    for (int d = 0; d < 3; d++) lam[k] += g->grad[k][d] * (x[d] - c[d]);
  }
}

static void test_counts(void) {
  EXPECT(em_basis_count(1) == 6 && em_basis_count(2) == 20 && em_basis_count(3) == 45,
         "counts %d %d %d", em_basis_count(1), em_basis_count(2), em_basis_count(3));
  EXPECT(em_basis_count(0) == 0 && em_basis_count(4) == 0 && em_basis_table(0) == NULL,
         "out-of-range orders must give 0 / NULL");
  for (int p = 1; p <= 3; p++) {
    int n = 6 * em_basis_entity_dofs(p, EM_ENT_EDGE) + 4 * em_basis_entity_dofs(p, EM_ENT_FACE) +
            em_basis_entity_dofs(p, EM_ENT_CELL);
    EXPECT(n == em_basis_count(p), "p=%d: entity DOFs sum to %d", p, n);
    const em_basis_fn *tab = em_basis_table(p);
    int seen[3][6][6] = {{{0}}};
    for (int i = 0; i < em_basis_count(p); i++) {
      const em_basis_fn *f = tab + i;
      EXPECT(f->group >= 1 && f->group <= p, "p=%d fn %d group %d", p, i, f->group);
      EXPECT(i == 0 || tab[i - 1].group <= f->group, "p=%d fn %d: groups not ascending", p, i);
      EXPECT(f->slot >= 0 && f->slot < em_basis_entity_dofs(p, f->kind), "p=%d fn %d slot %d", p, i,
             f->slot);
      seen[f->kind][f->entity][f->slot]++;
      /* group of a slot: edge slot s -> s+1; face slots 0,1 -> 2, 2..5 -> 3 */
      int g = f->kind == EM_ENT_EDGE   ? f->slot + 1
              : f->kind == EM_ENT_FACE ? (f->slot < 2 ? 2 : 3)
                                       : 3;
      EXPECT(g == f->group, "p=%d fn %d: slot %d of kind %d in group %d", p, i, f->slot, f->kind,
             f->group);
    }
    for (int k = 0; k < 3; k++)
      for (int e = 0; e < 6; e++)
        for (int s = 0; s < 6; s++) EXPECT(seen[k][e][s] <= 1, "duplicate (%d,%d,%d)", k, e, s);
  }
  /* the documented local order */
  const em_basis_fn *t = em_basis_table(3);
  for (int e = 0; e < 6; e++) {
    EXPECT(t[e].kind == EM_ENT_EDGE && t[e].entity == e && t[e].slot == 0, "fn %d", e);
    EXPECT(t[6 + e].kind == EM_ENT_EDGE && t[6 + e].entity == e && t[6 + e].slot == 1, "fn %d",
           6 + e);
    EXPECT(t[20 + e].kind == EM_ENT_EDGE && t[20 + e].entity == e && t[20 + e].slot == 2, "fn %d",
           20 + e);
  }
  for (int f = 0; f < 4; f++)
    for (int s = 0; s < 2; s++) {
      int i = 12 + 2 * f + s;
      EXPECT(t[i].kind == EM_ENT_FACE && t[i].entity == f && t[i].slot == s, "fn %d", i);
    }
  for (int f = 0; f < 4; f++)
    for (int s = 0; s < 4; s++) {
      int i = 26 + 4 * f + s;
      EXPECT(t[i].kind == EM_ENT_FACE && t[i].entity == f && t[i].slot == 2 + s, "fn %d", i);
    }
  for (int s = 0; s < 3; s++)
    EXPECT(t[42 + s].kind == EM_ENT_CELL && t[42 + s].slot == s, "fn %d", 42 + s);
}

static void test_hierarchy_and_curls(unsigned long long *s) {
  for (int trial = 0; trial < 20; trial++) {
    em_tet_geom g;
    random_tet(s, &g);
    double lam[4], sum = 0;
    for (int k = 0; k < 4; k++) sum += lam[k] = 0.05 + em_test_rand(s);
    for (int k = 0; k < 4; k++) lam[k] /= sum;
    double w3[45][3], c3[45][3], w[45][3], c[45][3];
    em_basis_eval(3, lam, g.grad, w3, c3);
    for (int p = 1; p <= 2; p++) {
      em_basis_eval(p, lam, g.grad, w, c);
      for (int i = 0; i < em_basis_count(p); i++)
        EXPECT(!memcmp(w[i], w3[i], sizeof w[i]) && !memcmp(c[i], c3[i], sizeof c[i]),
               "order-%d function %d differs from the order-3 one", p, i);
    }
    /* curl by central differences at the physical point of lam */
    double x[3] = {0, 0, 0}, h = 2e-6;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) x[d] += lam[a] * g.x[a][d];
    double J[45][3][3]; /* J[i][comp][dir] = d w_i,comp / d x_dir */
    for (int dir = 0; dir < 3; dir++) {
      double xp[3], xm[3], lp[4], lm[4], wp[45][3], wm[45][3];
      memcpy(xp, x, sizeof x);
      memcpy(xm, x, sizeof x);
      xp[dir] += h;
      xm[dir] -= h;
      bary(&g, xp, lp);
      bary(&g, xm, lm);
      em_basis_eval(3, lp, g.grad, wp, NULL);
      em_basis_eval(3, lm, g.grad, wm, NULL);
      for (int i = 0; i < 45; i++)
        for (int k = 0; k < 3; k++) J[i][k][dir] = (wp[i][k] - wm[i][k]) / (2 * h);
    }
    for (int i = 0; i < 45; i++) {
      double fd[3] = {J[i][2][1] - J[i][1][2], J[i][0][2] - J[i][2][0], J[i][1][0] - J[i][0][1]};
      double scale = 1 + fabs(c3[i][0]) + fabs(c3[i][1]) + fabs(c3[i][2]);
      for (int k = 0; k < 3; k++)
        EXPECT(fabs(fd[k] - c3[i][k]) < 1e-7 * scale, "fn %d curl[%d]: closed form %.12g, FD %.12g",
               i, k, c3[i][k], fd[k]);
    }
    /* gradient functions against differences of their potentials */
    for (int dir = 0; dir < 3; dir++) {
      double xp[3], xm[3], lp[4], lm[4];
      memcpy(xp, x, sizeof x);
      memcpy(xm, x, sizeof x);
      xp[dir] += h;
      xm[dir] -= h;
      bary(&g, xp, lp);
      bary(&g, xm, lm);
      for (int e = 0; e < 6; e++) {
        int a = EM_TET_EDGE[e][0], b = EM_TET_EDGE[e][1];
        double d2 = (lp[a] * lp[b] - lm[a] * lm[b]) / (2 * h);
        double d3 = (lp[a] * lp[b] * (lp[b] - lp[a]) - lm[a] * lm[b] * (lm[b] - lm[a])) / (2 * h);
        EXPECT(fabs(d2 - w3[6 + e][dir]) < 1e-8, "edge %d slot 1 is not grad(lam_a lam_b)", e);
        EXPECT(fabs(d3 - w3[20 + e][dir]) < 1e-8,
               "edge %d slot 2 is not its gradient (%.12g vs %.12g)", e, d3, w3[20 + e][dir]);
      }
      for (int f = 0; f < 4; f++) {
        int a = EM_TET_FACE[f][0], b = EM_TET_FACE[f][1], cc = EM_TET_FACE[f][2];
        double d = (lp[a] * lp[b] * lp[cc] - lm[a] * lm[b] * lm[cc]) / (2 * h);
        EXPECT(fabs(d - w3[26 + 4 * f][dir]) < 1e-8,
               "face %d slot 2 is not grad(lam_a lam_b lam_c)", f);
      }
    }
  }
}

/* Tangential trace on face F (lam_F = 0) of every function whose entity is
 * not contained in F must vanish. */
static void test_traces(unsigned long long *s) {
  const em_basis_fn *tab = em_basis_table(3);
  for (int trial = 0; trial < 10; trial++) {
    em_tet_geom g;
    random_tet(s, &g);
    for (int F = 0; F < 4; F++) {
      double lam[4], sum = 0, w[45][3], n[3];
      for (int k = 0; k < 4; k++) sum += lam[k] = k == F ? 0 : 0.05 + em_test_rand(s);
      for (int k = 0; k < 4; k++) lam[k] /= sum;
      double gn = sqrt(g.grad[F][0] * g.grad[F][0] + g.grad[F][1] * g.grad[F][1] +
                       g.grad[F][2] * g.grad[F][2]);
      for (int d = 0; d < 3; d++) n[d] = g.grad[F][d] / gn; /* normal of face F */
      em_basis_eval(3, lam, g.grad, w, NULL);
      for (int i = 0; i < 45; i++) {
        int on = tab[i].kind == EM_ENT_EDGE
                     ? EM_TET_EDGE[tab[i].entity][0] != F && EM_TET_EDGE[tab[i].entity][1] != F
                 : tab[i].kind == EM_ENT_FACE ? tab[i].entity == F
                                              : 0;
        double wn = w[i][0] * n[0] + w[i][1] * n[1] + w[i][2] * n[2], tt = 0, ww = 0;
        for (int d = 0; d < 3; d++) {
          double td = w[i][d] - wn * n[d];
          tt += td * td;
          ww += w[i][d] * w[i][d];
        }
        if (!on)
          EXPECT(sqrt(tt) < 1e-13 * (1 + sqrt(ww)), "fn %d has trace %g on face %d", i, sqrt(tt),
                 F);
        else
          EXPECT(sqrt(tt) > 1e-6, "fn %d has no trace on its own face %d", i, F);
      }
    }
  }
}

int main(void) {
  unsigned long long s = 12345;
  test_counts();
  test_hierarchy_and_curls(&s);
  test_traces(&s);
  return TEST_RESULT();
}
