/* config_check.c - the checks of the typed view that cost seconds and save
 * a run: the frequencies in range (Eigen/target too), every physical group
 * made of entities that exist, no geometry value over a loaded mesh, at
 * least 2 elements per wavelength (before meshing), and what needs the mesh
 * (the PML's thickness, the line probe inside the mesh) before the first
 * solve.  The geometry numbers (sizes > 0, the case's Min / Max) are checked
 * by the case layer as it opens the case (mesh/case_meta.c).  The sizes the
 * mesh implies against the memory are the command's (app/validate.c: --force). */
#include <math.h>
#include <string.h>

#include "em_model.h"

#define F_MIN 1e3   /* Hz: below, the case is quasi-static (or GHz typed as Hz) */
#define F_MAX 1e13  /* Hz: above, the geometry is optical and the mesh absurd */
#define EPW_MIN 2.0 /* elements per wavelength below which no wave is represented */

static em_err check_frequencies(const em_case *c, const em_run_config *cfg) {
  /* an eigen run's target first, by its name (the run's frequency list is
     the mesh's: the case's band or the target) */
  if (cfg->eigen) {
    double f = cfg->eig_target;
    EM_CHECK(f >= F_MIN, EM_ERR_INPUT,
             "Eigen/target has %g Hz, below 1 kHz: frequencies are in Hz (for %g GHz write "
             "%ge9) (case %s)",
             f, f, f, em_case_path(c));
    EM_CHECK(f <= F_MAX, EM_ERR_INPUT, "Eigen/target has %g Hz, above 10 THz (case %s)", f,
             em_case_path(c));
  }
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

/* A mesh read from a file (Mesh/file, --load-mesh) has the geometry it was
 * made with: a geometry value set on the command line cannot act on it
 * (the result would belong to the old geometry while summary.json names
 * the new). */
static em_err check_loaded_mesh(const em_case *c, const em_run_config *cfg) {
  if (!cfg->mesh_file) return EM_OK;
  for (int i = 0; i < em_case_param_count(c); i++) {
    const em_param *p = em_case_param_at(c, i);
    EM_CHECK(strcmp(p->source, "command line") || strncmp(p->name, "Geometry/", 9), EM_ERR_INPUT,
             "%s is set on the command line, but the mesh is read from %s (Mesh/file, "
             "--load-mesh) with the geometry it was made with: the value cannot act on it; "
             "drop it, or mesh the case (without --load-mesh)",
             p->name, cfg->mesh_file);
  }
  return EM_OK;
}

em_err em_run_config_check(const em_case *c, const em_run_config *cfg) {
  EM_TRY(check_frequencies(c, cfg));
  EM_TRY(em_case_check_groups(c)); /* a physical group of entities that do not exist */
  EM_TRY(check_loaded_mesh(c, cfg));
  /* fewer than 2 elements per wavelength do not sample the wave: the mesh
     is then the geometry's alone, and the answer moves with the number */
  EM_CHECK(cfg->mesh_file || cfg->epw >= EPW_MIN, EM_ERR_INPUT,
           "Mesh/elements_per_wavelength = %g: at least %g are needed to represent the wave "
           "(the basis order's default, 12 / 7 / 5, is what 0 gives)",
           cfg->epw, EPW_MIN);
  /* Excitation/ports' spelling now; its port numbers once the ports are
     known (em_excite_setup) */
  const char *ex;
  uint32_t mask;
  EM_TRY(em_case_string(c, "Excitation/ports", &ex));
  EM_TRY(em_excite_parse(ex, -1, &mask));
  return EM_OK;
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
  if (cfg->plane_axis >= 0) { /* the plane output crosses the interior */
    int ax = cfg->plane_axis;
    em_mesh_stats st;
    em_mesh_stats_compute(m, &st);
    const double *bb = s->has_pml ? s->pml.inner : st.bbox;
    EM_CHECK(cfg->plane_at >= bb[2 * ax] && cfg->plane_at <= bb[2 * ax + 1], EM_ERR_INPUT,
             "Output/plane_at: the plane %c = %g m misses the %s extent [%g, %g] m", "xyz"[ax],
             cfg -> plane_at, s -> has_pml ? "interior (non-PML)" : "mesh's", bb[2 * ax],
             bb[2 * ax + 1]);
  }
  return EM_OK;
}
