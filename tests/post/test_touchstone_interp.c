/* Touchstone with S splined between the solved frequencies: a 2-port
 * with S11 = 0.5 exp(-2 pi j f tau), S21 = S12 = 0.8 exp(-2 pi j f 2 tau),
 * S22 = 0.3 (tau = 1 ns), solved at 11 points of 1..2 GHz, written on 101:
 * the file read back has 101 rows from 1 to 2 GHz, the solved points
 * unchanged, the rest within the spline's error of the analytic S (0.008
 * observed: (omega h)^4 / 384 with omega h = 1.26 for S21), and a
 * comment saying the values are interpolated. */
#include <complex.h>
#include <string.h>
#include <unistd.h>

#include "em_post.h"
#include "em_test.h"

static em_cplx exact(int ij, double f) {
  const double tau = 1e-9;
  if (ij == 0) return 0.5 * cexp(-2 * M_PI * I * f * tau);
  if (ij == 3) return 0.3;
  return 0.8 * cexp(-2 * M_PI * I * f * 2 * tau);
}

int main(void) {
  char dir[] = "/tmp/em_ts_interp_XXXXXX", path[256];
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  snprintf(path, sizeof path, "%s/t.s2p", dir);
  double f[11];
  em_cplx S[11 * 4];
  for (int k = 0; k < 11; k++) {
    f[k] = 1e9 + 1e8 * k;
    for (int ij = 0; ij < 4; ij++) S[4 * k + ij] = exact(ij, f[k]);
  }
  double z50[2] = {50, 50};
  REQUIRE_OK(em_touchstone_write_interp(path, 2, 11, f, S, z50, "test", 101, EM_BACKEND_CPU));
  FILE *fp = fopen(path, "r");
  REQUIRE_OK(fp ? EM_OK : EM_ERR_IO);
  char line[1024];
  int rows = 0, said = 0;
  double e_knot = 0, e_mid = 0, f_first = 0, f_last = 0;
  while (fgets(line, sizeof line, fp)) {
    if (line[0] == '!') {
      said += strstr(line, "interpolated") != NULL;
      continue;
    }
    if (line[0] == '#') continue;
    double v[9];
    if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7], &v[8]) != 9)
      continue;
    if (rows == 0) f_first = v[0];
    f_last = v[0];
    /* column-wise: S11 S21 S12 S22 */
    const int order[4] = {0, 2, 1, 3};
    for (int q = 0; q < 4; q++) {
      double e = cabs(v[1 + 2 * q] + I * v[2 + 2 * q] - exact(order[q], v[0]));
      if (rows % 10 == 0)
        e_knot = fmax(e_knot, e);
      else if (rows > 20 && rows < 80)
        e_mid = fmax(e_mid, e);
    }
    rows++;
  }
  fclose(fp);
  unlink(path);
  rmdir(dir);
  EXPECT(rows == 101 && f_first == 1e9 && f_last == 2e9, "%d rows from %g to %g Hz", rows, f_first,
         f_last);
  EXPECT(said == 1, "%d comment lines say interpolated", said);
  EXPECT(e_knot < 1e-14, "at the solved frequencies: error %.3g", e_knot);
  EXPECT(e_mid < 1e-2, "between them (interior): error %.3g", e_mid);
  printf("error at the solved points %.3g, between them %.3g\n", e_knot, e_mid);
  EXPECT_ERR(em_touchstone_write_interp(path, 2, 1, f, S, z50, NULL, 101, EM_BACKEND_CPU),
             EM_ERR_ARG);
  return TEST_RESULT();
}
