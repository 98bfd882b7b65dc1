/* validate.c - before meshing, the mesh the parameters imply against this
 * machine: an absurd estimate (a frequency typed in GHz as Hz, a density
 * far too high; a material that shortens the wavelength is named) and a
 * frequency far from the band the case was made for are errors unless
 * --force.  A mistake found here costs seconds; found after the solve it
 * costs the run.  The parameters' own checks are model/config_check.c's. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "app_run.h"

#define TET_MAX 2e8 /* tetrahedra beyond which no single machine assembles */
#define BAND_FACTOR 100

/* Physical memory in bytes (0 when unknown). */
static double host_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

/* Unknowns per tet: ~1.2 edges (order 1), + 2 faces x 2 + edges (order 2),
 * ... from the counts of a Delaunay mesh: E ~ 1.2 T, F ~ 2 T. */
static double dofs_per_tet(int order) {
  return order == 1 ? 1.2 : order == 2 ? 2 * 1.2 + 2 * 2 : 3 * 1.2 + 6 * 2 + 3;
}

/* The estimate per volume at its own order (order per region), and the
 * share pmg would factor exactly: the first PMG/coarse groups, in a PML
 * those up to PMG/pml_coarse. */
typedef struct estimate {
  const em_case *c;
  em_setup_opts so;
  int coarse, pml_coarse;
  double n, n_coarse;
} estimate;

static void estimate_volume(void *ctx, const char *name, double tets) {
  estimate *e = ctx;
  int q = e->so.basis_order;
  if (em_setup_order_of(e->c, name, &e->so, &q)) em_error_clear(); /* named at setup */
  int pc = e->pml_coarse < 0 ? q : e->pml_coarse;                  /* auto: the PML's own order */
  int qc = strncmp(name, "pml", 3) ? e->coarse : pc > e->coarse ? pc : e->coarse;
  e->n += tets * dofs_per_tet(q);
  e->n_coarse += tets * dofs_per_tet(qc < q ? qc : q);
}

/* The band the case file was made for: the lowest and highest of the
 * frequencies it sets itself (Solver/frequency, f_start, f_stop,
 * Eigen/target); 0 when it sets none. */
static int case_band(const em_case *c, double *lo, double *hi) {
  static const char *const names[] = {"Solver/frequency", "Solver/f_start", "Solver/f_stop",
                                      "Eigen/target"};
  *lo = INFINITY, *hi = 0;
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    const em_param *p = em_case_param_find(c, names[k]);
    if (!p || p->is_string || strcmp(p->source, "case file") || !(p->number > 0)) continue;
    *lo = fmin(*lo, p->number);
    *hi = fmax(*hi, p->number);
  }
  return *hi > 0;
}

/* A frequency given on the command line more than BAND_FACTOR from the
 * case's own band is a unit slip (MHz, GHz typed as Hz) far more often
 * than a wish: refused with the value it probably meant, unless --force. */
static em_err check_band(const em_run *r, const char *name, double f) {
  const em_param *p = em_case_param_find(r->m.cs, name);
  double lo, hi;
  if (!p || strcmp(p->source, "command line") || !case_band(r->m.cs, &lo, &hi)) return EM_OK;
  if (f >= lo / BAND_FACTOR && f <= hi * BAND_FACTOR) return EM_OK;
  char hint[96] = "";
  for (int e = 3; e <= 9; e += 3) { /* kHz, MHz, GHz typed as Hz */
    double g = f * pow(10, e);
    if (g >= lo / 10 && g <= hi * 10)
      snprintf(hint, sizeof hint, " (for %g %s write %ge%d)", f,
               e == 3   ? "kHz"
               : e == 6 ? "MHz"
                        : "GHz",
               f, e);
  }
  if (r->args->force) {
    em_log_warn(r->log, "%s = %g Hz lies far from the case's band %g .. %g GHz; going on (--force)",
                name, f, lo * 1e-9, hi * 1e-9);
    return EM_OK;
  }
  return EM_RAISE(EM_ERR_INPUT,
                  "%s = %g Hz lies far from the band case %s was made for (%g .. %g GHz): "
                  "frequencies are in Hz%s; --force runs it anyway",
                  name, f, em_case_path(r->m.cs), lo * 1e-9, hi * 1e-9, hint);
}

/* A mesh read from a file (Mesh/file, --load-mesh): the values that size a
 * mesh, set on the command line, have no effect (a geometry value is
 * refused, model/config_check.c). */
static void warn_loaded_mesh(const em_run *r) {
  static const char *const sizing[] = {"Mesh/elements_per_wavelength", "Mesh/frequency",
                                       "PML/elements", "PML/elements_only", "Mesh/geometry_order"};
  for (int i = 0; i < em_case_param_count(r->m.cs); i++) {
    const em_param *p = em_case_param_at(r->m.cs, i);
    if (strcmp(p->source, "command line")) continue;
    for (size_t k = 0; k < sizeof sizing / sizeof sizing[0]; k++)
      if (!strcmp(p->name, sizing[k]))
        em_log_warn(r->log, "%s has no effect: the mesh is read from %s (Mesh/file)", p->name,
                    r->m.cfg.mesh_file);
  }
}

em_err em_app_validate_band(const em_run *r) {
  const em_run_config *cfg = &r->m.cfg;
  if (cfg->mesh_file) warn_loaded_mesh(r);
  if (cfg->eigen) return check_band(r, "Eigen/target", cfg->eig_target);
  static const char *const names[] = {"Solver/frequency", "Solver/f_start", "Solver/f_stop"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    const em_param *p = em_case_param_find(r->m.cs, names[k]);
    if (p && !p->is_string) EM_TRY(check_band(r, names[k], p->number));
  }
  return EM_OK;
}

/* The volume group whose material gives the shortest wavelength (highest
 * refractive index sqrt(|eps_r (1 - j tan_delta) mu_r|)): its name; the
 * index, 1 when no material says more. */
static double densest(const em_case *c, char *grp, size_t n) {
  double best = 1;
  grp[0] = '\0';
  for (int i = 0; i < em_case_param_count(c); i++) {
    const char *name = em_case_param_at(c, i)->name, *last = strrchr(name, '/');
    if (strncmp(name, "Materials/", 10) || !last || strcmp(last, "/eps_r")) continue;
    char g[128];
    snprintf(g, sizeof g, "%.*s", (int)(last - name - 10), name + 10);
    double x = em_setup_index_of((void *)c, g);
    em_error_clear();
    if (x > best) best = x, snprintf(grp, n, "%s", g);
  }
  return best;
}

em_err em_app_validate_size(const em_run *r) {
  const em_run_config *cfg = &r->m.cfg;
  if (cfg->mesh_file) return EM_OK; /* no mesh to estimate: it is read as it is */
  double tets = 0, h = 0;
  em_mesh_opts mo = em_run_config_mesh_opts(cfg, r->m.cs); /* the options the run meshes with */
  if (!(mo.freq_max > 0)) mo.freq_max = cfg->freq[cfg->n_freq - 1];
  estimate est = {r->m.cs,
                  em_run_config_setup_opts(cfg),
                  cfg->solve.pc.pmg.coarse,
                  cfg->solve.pmg_pml_coarse,
                  0,
                  0};
  EM_TRY(em_case_estimate_each(r->m.cs, &mo, estimate_volume, &est, &tets, &h));
  if (tets <= 0) return EM_OK;
  /* a direct factor of a 3-D mesh grows faster than the unknowns; count
     ~2 KB per unknown for the matrix, vectors and an iterative solve */
  double n = est.n, bytes = n * 2048, mem = host_memory();
  em_log_verbose(r->log,
                 "mesh estimate: ~%.3g tets (h %.3g mm), ~%.3g unknowns (pmg coarse level ~%.3g, "
                 "%.0f %%), ~%.3g GiB",
                 tets, h * 1e3, n, est.n_coarse, n > 0 ? 100 * est.n_coarse / n : 0,
                 bytes / (1 << 30));
  if (tets > TET_MAX || (mem > 0 && bytes > mem)) {
    char msg[1024], grp[128], why[512] = "";
    double idx = densest(r->m.cs, grp, sizeof grp);
    if (idx > 3) { /* a material shortens the wavelength: name it, it is the likelier slip */
      char pre[160];
      double eps = 1, mu = 1, tand = 0;
      snprintf(pre, sizeof pre, "Materials/%s/", grp);
      const em_param *p;
      char nm[200];
      snprintf(nm, sizeof nm, "%seps_r", pre);
      if ((p = em_case_param_find(r->m.cs, nm)) && !p->is_string) eps = p->number;
      snprintf(nm, sizeof nm, "%smu_r", pre);
      if ((p = em_case_param_find(r->m.cs, nm)) && !p->is_string) mu = p->number;
      snprintf(nm, sizeof nm, "%stan_delta", pre);
      if ((p = em_case_param_find(r->m.cs, nm)) && !p->is_string) tand = p->number;
      const char *cause = tand > 1 ? "tan_delta" : fabs(mu) > fabs(eps) ? "mu_r" : "eps_r";
      snprintf(why, sizeof why,
               "%s%s = %g makes the wavelength in '%s' %.3g times shorter than in vacuum (eps_r "
               "%g, mu_r %g, tan_delta %g); ",
               pre, cause,
               !strcmp(cause, "tan_delta") ? tand
               : !strcmp(cause, "mu_r")    ? mu
                                           : eps,
               grp, idx, eps, mu, tand);
    }
    snprintf(msg, sizeof msg,
             "%sthe mesh implied is absurd: about %.3g tetrahedra (h = %.3g mm at %.6g GHz, "
             "Mesh/elements_per_wavelength %g, order %d), ~%.3g GiB against %.3g GiB of memory",
             why, tets, h * 1e3, mo.freq_max * 1e-9, cfg->epw, cfg->order, bytes / (1 << 30),
             mem / (1 << 30));
    if (!r->args->force)
      return EM_RAISE(EM_ERR_INPUT, "%s; check %s, or run with --force", msg,
                      why[0] ? "the material, the frequency (Hz) and the mesh density"
                             : "the frequency (Hz) and the mesh density");
    em_log_warn(r->log, "%s; going on (--force)", msg);
  }
  return EM_OK;
}
