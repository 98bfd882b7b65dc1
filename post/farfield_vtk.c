/* farfield_vtk.c - a radiation pattern (or RCS) as a closed surface for
 * ParaView: legacy VTK POLYDATA, ASCII, one point per (theta, phi) grid
 * node, quads between neighbours (phi wraps around; the pole rows give
 * degenerate quads, which ParaView draws as triangles). */
#include <math.h>
#include <string.h>

#include "em_post.h"
#include "post_impl.h"

/* r = radius max(0, 1 + (v - v_max) / range) along (theta, phi) from centre */
em_err em_ff_vtk_write(const char *path, const em_ff_grid *g, const double *v_db, const char *name,
                       double range_db, const double centre[3], double radius, const char *title) {
  EM_CHECK(path && g && v_db && name && centre, EM_ERR_ARG, "pattern VTK: NULL argument");
  EM_CHECK(isfinite(range_db) && range_db > 0 && isfinite(radius) && radius > 0, EM_ERR_ARG,
           "pattern VTK %s: range %g dB, radius %g m", path, range_db, radius);
  int nt = g->n_theta, np = g->n_phi, n = nt * np;
  double vmax = -INFINITY;
  for (int k = 0; k < n; k++)
    if (isfinite(v_db[k])) vmax = fmax(vmax, v_db[k]);
  EM_CHECK(isfinite(vmax), EM_ERR_NUMERIC, "pattern VTK %s: no finite value", path);
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  char line[200];
  em_post_copy_line(line, sizeof line, title ? title : "");
  fprintf(f,
          "# vtk DataFile Version 3.0\nemsolve pattern %s: %s, radius %g m at 0 dB, %g dB range\n",
          name, line, radius, range_db);
  fprintf(f, "ASCII\nDATASET POLYDATA\nPOINTS %d double\n", n);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < np; j++) {
      double th = i * g->dtheta * M_PI / 180, ph = j * g->dphi * M_PI / 180;
      double v = v_db[i * np + j], s = isfinite(v) ? fmax(0.0, 1 + (v - vmax) / range_db) : 0;
      double r = radius * s;
      fprintf(f, "%.9g %.9g %.9g\n", centre[0] + r * sin(th) * cos(ph),
              centre[1] + r * sin(th) * sin(ph), centre[2] + r * cos(th));
    }
  int nq = (nt - 1) * np;
  fprintf(f, "POLYGONS %d %d\n", nq, 5 * nq);
  for (int i = 0; i + 1 < nt; i++)
    for (int j = 0; j < np; j++) {
      int j1 = (j + 1) % np;
      fprintf(f, "4 %d %d %d %d\n", i * np + j, (i + 1) * np + j, (i + 1) * np + j1, i * np + j1);
    }
  fprintf(f, "POINT_DATA %d\nSCALARS %s double 1\nLOOKUP_TABLE default\n", n, name);
  for (int k = 0; k < n; k++) {
    char buf[EM_POST_NUM_LEN];
    /* ParaView reads "-inf" poorly: clip the dB of a zero to the range floor */
    em_post_fmt_double(buf, isfinite(v_db[k]) ? v_db[k] : vmax - range_db);
    fprintf(f, "%s\n", buf);
  }
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}
