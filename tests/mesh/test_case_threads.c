/* Gmsh sets the process-wide OpenMP thread count when it starts and meshes;
 * the case layer must hand our count back, or every OpenMP loop after the
 * mesher would run on one thread. */
#include <omp.h>

#include "em_mesh.h"
#include "em_test.h"

int main(void) {
  omp_set_num_threads(3); /* not Gmsh's default of 1, whatever the machine */
  em_case *c = NULL;
  REQUIRE_OK(em_case_open("tests/data/case_box.geo", 0, NULL, 0, NULL, NULL, &c));
  EXPECT(omp_get_max_threads() == 3, "after open: %d threads", omp_get_max_threads());
  em_mesh_opts o = {.unit = 1e-3, .freq_max = 1e9, .reorder = 1};
  em_mesh *m = NULL;
  EXPECT_OK(em_case_mesh(c, &o, NULL, &m));
  EXPECT(omp_get_max_threads() == 3, "after meshing: %d threads", omp_get_max_threads());
  em_mesh_destroy(&m);
  em_case_close(&c);
  EXPECT(omp_get_max_threads() == 3, "after close: %d threads", omp_get_max_threads());
  return TEST_RESULT();
}
