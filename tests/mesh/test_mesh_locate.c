/* Point location: random points of a jittered box are found in a tet whose
 * barycentric coordinates reproduce the point; points outside are not. */
#include "em_mesh.h"
#include "em_test.h"

int main(void) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(4, 3, 5, 1.0, 0.75, 1.25, 0.2, 3, &m));
  unsigned long long s = 99;
  for (int i = 0; i < 200; i++) {
    double x[3] = {em_test_rand(&s), 0.75 * em_test_rand(&s), 1.25 * em_test_rand(&s)}, lam[4];
    int32_t t;
    em_mesh_locate(m, x, &t, lam);
    EXPECT(t >= 0, "point %d (%g %g %g) not found", i, x[0], x[1], x[2]);
    if (t < 0) continue;
    double y[3] = {0, 0, 0}, sum = 0;
    for (int a = 0; a < 4; a++) {
      sum += lam[a];
      EXPECT(lam[a] >= -1e-10, "negative barycentric %g", lam[a]);
      for (int d = 0; d < 3; d++) y[d] += lam[a] * m->xyz[3 * m->tet[4 * t + a] + d];
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
    for (int d = 0; d < 3; d++) EXPECT_NEAR(y[d], x[d], 1e-12);
  }
  double out[3] = {1.01, 0.3, 0.3}, lam[4];
  int32_t t;
  em_mesh_locate(m, out, &t, lam);
  EXPECT(t == -1, "outside point found in tet %d", t);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
