/* line.c - the field along a straight line, as CSV: a probe for standing
 * waves, decay in a PML, propagation constants. */
#include <math.h>

#include "run_impl.h"

em_err em_post_line_write(const em_model *m, double f, const em_cplx *x, const em_cplx *fixed,
                          const char *path) {
  const em_run_config *cfg = &m->cfg;
  int n = cfg->line_points;
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  fprintf(o.f, "# E along the line, excitation %s, f = %.9g Hz\n",
          m->setup.n_port && !m->ff.planewave ? m->setup.port[0].name
                                              : "the plane wave (scattered field)",
          f);
  fprintf(o.f, "s_m,x_m,y_m,z_m,Ex_re,Ex_im,Ey_re,Ey_im,Ez_re,Ez_im\n");
  double len = sqrt(pow(cfg->line[3] - cfg->line[0], 2) + pow(cfg->line[4] - cfg->line[1], 2) +
                    pow(cfg->line[5] - cfg->line[2], 2));
  for (int i = 0; i < n; i++) {
    double s = n > 1 ? (double)i / (n - 1) : 0, p[3], lam[4];
    for (int d = 0; d < 3; d++) p[d] = cfg->line[d] + s * (cfg->line[3 + d] - cfg->line[d]);
    int32_t t;
    em_mesh_locate(m->mesh, p, &t, lam);
    if (t < 0) {
      em_outfile_abort(&o);
      return EM_RAISE(EM_ERR_INPUT,
                      "Output/line: the point (%g, %g, %g) m of the line is outside the mesh", p[0],
                      p[1], p[2]);
    }
    em_cplx E[3];
    em_field_eval(m->mesh, m->dofs, x, fixed, t, lam, E, NULL);
    fprintf(o.f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", s * len, p[0],
            p[1], p[2], creal(E[0]), cimag(E[0]), creal(E[1]), cimag(E[1]), creal(E[2]),
            cimag(E[2]));
  }
  return em_outfile_commit(&o);
}
