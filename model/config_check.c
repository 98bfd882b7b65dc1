/* config_check.c - the checks of the typed view that cost seconds and save
 * a run: the frequencies in range (before meshing), and what needs the mesh (the PML's thickness,
 * the line probe inside the mesh) before the first solve.  The sizes the mesh implies against the
 * memory are the command's (app/validate.c: --force). */
#include <math.h>
#include <string.h>

#include "em_model.h"

#define F_MIN 1e3  /* Hz: below, the case is quasi-static (or GHz typed as Hz) */
#define F_MAX 1e13 /* Hz: above, the geometry is optical and the mesh absurd */

static em_err check_frequencies(const em_case *c, const em_run_config *cfg) {
  for (int i = 0; i < cfg->n_freq; i++) {
    double f = cfg->freq[i];
    const char *name =
        cfg->n_freq > 1 ? "the sweep Solver/f_start .. Solver/f_stop" : "Solver/frequency";
    EM_CHECK(f >= F_MIN, EM_ERR_INPUT,
             "%s has %g Hz, below 1 kHz: frequencies are in Hz (for %g GHz write %ge9) "
             "(case %s)",
             name, f, f, f, em_case_path(c));
    EM_CHECK(f <= F_MAX, EM_ERR_INPUT,
             "%s has %g Hz, above 10 THz: frequencies are in Hz, and a wavelength of %.3g um "
             "is no microwave case (case %s)",
             name, f, EM_C0 / f * 1e6, em_case_path(c));
  }
  return EM_OK;
}

/* The geometry numbers (sizes > 0, the case's Min / Max) are checked by the
 * case layer as it opens the case, before the geometry is built with them
 * (mesh/case_meta.c). */
em_err em_run_config_check(const em_case *c, const em_run_config *cfg) {
  return check_frequencies(c, cfg);
}

em_err em_run_config_check_mesh(const em_case *c, const em_run_config *cfg, const em_mesh *m,
                                const em_setup *s) {
  if (s->has_pml)
    for (int k = 0; k < 6; k++)
      EM_CHECK(!(s->pml.thick[k] < 0), EM_ERR_INPUT,
               "case %s: the PML has thickness %g mm on side %d: it must be > 0", em_case_path(c),
               s->pml.thick[k] * 1e3, k);
  for (int i = 0; cfg->line_points > 0 && i < cfg->line_points; i++) {
    int n = cfg->line_points;
    double u = n > 1 ? (double)i / (n - 1) : 0, p[3], lam[4];
    for (int d = 0; d < 3; d++) p[d] = cfg->line[d] + u * (cfg->line[3 + d] - cfg->line[d]);
    int32_t t;
    em_mesh_locate(m, p, &t, lam);
    EM_CHECK(t >= 0, EM_ERR_INPUT,
             "Output/line_from_* .. Output/line_to_*: the point (%g, %g, %g) mm of the line is "
             "outside the mesh",
             p[0] * 1e3, p[1] * 1e3, p[2] * 1e3);
  }
  return EM_OK;
}
