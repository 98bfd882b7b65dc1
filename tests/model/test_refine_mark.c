/* Marking for adaptive refinement (model/refine_mark.c) on a 3^3 box of
 * 162 tets with indicators of known order: Doerfler's rule takes the
 * fewest largest (ties by index), h shrinks exactly their vertices, p
 * raises exactly their orders and skips tets at the highest order, hp
 * splits those and raises the others; grow_min adds tets beyond theta,
 * grow_max stops before it (one tet is refined whatever); the predicted
 * growth follows its formula; bad input is refused. */
#include <string.h>

#include "em_model.h"
#include "em_test.h"

static em_mesh *m;
static double eta2[162];
static int8_t order[162], nord[162];
static double vs[1000];

/* 1 on the tets of hot[], 0 elsewhere */
static void set_eta(const int32_t *hot, int n) {
  for (int32_t t = 0; t < m->n_tet; t++) eta2[t] = 0;
  for (int i = 0; i < n; i++) eta2[hot[i]] = 1;
}

/* vshrink is o->shrink exactly on the vertices of the tets with want[t] */
static int shrunk_as(const uint8_t *want, double shrink) {
  static double expect[1000];
  for (int32_t v = 0; v < m->n_vert; v++) expect[v] = 1;
  for (int32_t t = 0; t < m->n_tet; t++)
    if (want[t])
      for (int a = 0; a < 4; a++) expect[m->tet[4 * t + a]] = shrink;
  for (int32_t v = 0; v < m->n_vert; v++)
    if (vs[v] != expect[v]) return 0;
  return 1;
}

int main(void) {
  REQUIRE_OK(em_mesh_box(3, 3, 3, 1.0, 1.0, 1.0, 0.0, 1, &m));
  EXPECT(m->n_tet == 162, "%d tets", m->n_tet);
  const int32_t hot[10] = {150, 3, 77, 40, 41, 9, 120, 100, 60, 12};
  uint8_t want[162];
  em_refine_stats st;

  /* h: theta 0.5 of ten equal indicators = the five of lowest index */
  set_eta(hot, 10);
  em_refine_opts o = {EM_REFINE_H, 0.5, 0.5, 1.0, 1e9};
  EXPECT_OK(em_refine_mark(m, eta2, &o, NULL, NULL, vs, &st));
  memset(want, 0, sizeof want);
  const int32_t first5[5] = {3, 9, 12, 40, 41};
  for (int i = 0; i < 5; i++) want[first5[i]] = 1;
  EXPECT(st.n_h == 5 && st.n_p == 0, "h: %d split, %d raised (want 5, 0)", st.n_h, st.n_p);
  EXPECT(shrunk_as(want, 0.5), "h: the vertices of tets 3 9 12 40 41 at 0.5, the rest at 1");
  EXPECT(fabs(st.share - 0.5) < 1e-15, "h: share %.6f", st.share);
  /* predicted growth: sum_T (mean_a 1/s_a)^3 over the tets / 162 (order 1) */
  double U = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    double r = 0;
    for (int a = 0; a < 4; a++) r += 0.25 / vs[m->tet[4 * t + a]];
    U += r * r * r;
  }
  EXPECT(fabs(st.growth - U / 162) < 1e-12, "h: growth %.6f, formula %.6f", st.growth, U / 162);

  /* theta 1 takes all ten (the zeros add nothing) ... */
  o.fraction = 1;
  EXPECT_OK(em_refine_mark(m, eta2, &o, NULL, NULL, vs, &st));
  EXPECT(st.n_h == 10 && st.share == 1, "theta 1: %d split", st.n_h);
  /* ... unless grow_max stops it: 1.01 admits the first tet only */
  o.grow_max = 1.01;
  EXPECT_OK(em_refine_mark(m, eta2, &o, NULL, NULL, vs, &st));
  memset(want, 0, sizeof want);
  want[3] = 1;
  EXPECT(st.n_h == 1 && shrunk_as(want, 0.5), "grow_max 1.01: %d split (want tet 3 alone)", st.n_h);
  /* grow_min goes beyond theta: 0.1 would take one tet, growth 2 more */
  o = (em_refine_opts){EM_REFINE_H, 0.1, 0.5, 2.0, 1e9};
  EXPECT_OK(em_refine_mark(m, eta2, &o, NULL, NULL, vs, &st));
  EXPECT(st.n_h > 1 && st.growth >= 2.0, "grow_min 2: %d split, growth %.3f", st.n_h, st.growth);

  /* p: orders 2 everywhere, 3 on tets 3 and 9: raised 40 41 12 (the next
     three) and 3, 9 skipped; theta 0.5 needs five raised ones */
  set_eta(hot, 10);
  for (int32_t t = 0; t < m->n_tet; t++) order[t] = 2;
  order[3] = order[9] = 3;
  o = (em_refine_opts){EM_REFINE_P, 0.5, 0.5, 1.0, 1e9};
  EXPECT_OK(em_refine_mark(m, eta2, &o, order, nord, vs, &st));
  int ok = st.n_p == 5 && st.n_h == 0;
  const int32_t raised[5] = {12, 40, 41, 60, 77};
  for (int32_t t = 0; t < m->n_tet; t++) {
    int r = 0;
    for (int i = 0; i < 5; i++) r |= raised[i] == t;
    ok &= nord[t] == order[t] + r;
  }
  for (int32_t v = 0; v < m->n_vert; v++) ok &= vs[v] == 1;
  EXPECT(ok, "p: %d raised (want 12 40 41 60 77 from 2 to 3, 3 and 9 left at 3)", st.n_p);
  /* every tet at 3: nothing to do */
  for (int32_t t = 0; t < m->n_tet; t++) order[t] = 3;
  EXPECT_OK(em_refine_mark(m, eta2, &o, order, nord, vs, &st));
  EXPECT(st.n_p == 0 && st.n_h == 0 && st.share == 0, "p at order 3: %d raised", st.n_p);

  /* hp: 3 and 9 at order 3 are split, 12 40 41 raised */
  for (int32_t t = 0; t < m->n_tet; t++) order[t] = 2;
  order[3] = order[9] = 3;
  o.kind = EM_REFINE_HP;
  EXPECT_OK(em_refine_mark(m, eta2, &o, order, nord, vs, &st));
  memset(want, 0, sizeof want);
  want[3] = want[9] = 1;
  ok = st.n_h == 2 && st.n_p == 3 && shrunk_as(want, 0.5) && nord[12] == 3 && nord[40] == 3 &&
       nord[41] == 3 && nord[3] == 3 && nord[60] == 2;
  EXPECT(ok, "hp: %d split, %d raised (want 3 9 split, 12 40 41 raised)", st.n_h, st.n_p);

  /* refused */
  eta2[7] = -1;
  EXPECT_ERR(em_refine_mark(m, eta2, &o, order, nord, vs, &st), EM_ERR_ARG);
  eta2[7] = NAN;
  EXPECT_ERR(em_refine_mark(m, eta2, &o, order, nord, vs, &st), EM_ERR_ARG);
  eta2[7] = 0;
  o.fraction = 0;
  EXPECT_ERR(em_refine_mark(m, eta2, &o, order, nord, vs, &st), EM_ERR_ARG);
  o = (em_refine_opts){EM_REFINE_P, 0.5, 0.5, 1.0, 1e9};
  EXPECT_ERR(em_refine_mark(m, eta2, &o, NULL, NULL, vs, &st), EM_ERR_ARG);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
