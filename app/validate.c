/* validate.c - the checks made before the work starts: every number of the
 * case meaningful, the frequencies in range, the mesh they imply possible
 * on this machine (before meshing), and what needs the mesh to be checked
 * (the line probe inside it) before the first solve.  A mistake found here
 * costs seconds; found after the solve it costs the run and leaves files. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "app_run.h"

#define F_MIN 1e3   /* Hz: below, the case is quasi-static (or GHz typed as Hz) */
#define F_MAX 1e13  /* Hz: above, the geometry is optical and the mesh absurd */
#define TET_MAX 2e8 /* tetrahedra beyond which no single machine assembles */

/* Geometry/<name>: a length that must be > 0 (a thickness, a radius, ...). */
static int is_size(const char *name) {
  static const char *const words[] = {"thickness", "radius", "height", "length",
                                      "width",     "size",   "side",   "diameter"};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (strstr(name, words[k])) return 1;
  return 0;
}

/* Geometry numbers: sizes > 0, others >= 0, unless the case declares a Min
 * (an offset that may be negative, a width where 0 means "all of it"). */
static em_err check_geometry(const em_case *c) {
  for (int i = 0; i < em_case_param_count(c); i++) {
    const em_param *p = em_case_param_at(c, i);
    if (p->is_string || strncmp(p->name, "Geometry/", 9) || !strcmp(p->name, "Geometry/unit"))
      continue;
    double v = p->number;
    EM_CHECK(isfinite(v), EM_ERR_INPUT, "parameter %s = %g is not a finite number", p->name, v);
    if (p->has_min) continue; /* the declared range governs (checked on opening) */
    EM_CHECK(v > 0 || (v == 0 && !is_size(p->name + 9)), EM_ERR_INPUT,
             "parameter %s = %g (%s): a %s must be %s (declare Min in its DefineConstant to "
             "allow a negative value)",
             p->name, v, p->source, is_size(p->name + 9) ? "size" : "geometry value",
             is_size(p->name + 9) ? "> 0" : ">= 0");
  }
  return EM_OK;
}

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

em_err em_app_validate_case(em_run *r) {
  const em_run_config *cfg = &r->cfg;
  EM_TRY(check_geometry(r->cs));
  EM_TRY(check_frequencies(r->cs, cfg));
  if (cfg->mesh_file) return EM_OK; /* no mesh to estimate: it is read as it is */
  double tets = 0, h = 0;
  em_mesh_opts mo = em_run_mesh_opts(r); /* the options the run meshes with */
  if (!(mo.freq_max > 0)) mo.freq_max = cfg->freq[cfg->n_freq - 1];
  estimate est = {r->cs, em_run_setup_opts(cfg), cfg->pc.pmg.coarse, cfg->pmg_pml_coarse, 0, 0};
  EM_TRY(em_case_estimate_each(r->cs, &mo, estimate_volume, &est, &tets, &h));
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
    char msg[512];
    snprintf(msg, sizeof msg,
             "the mesh implied is absurd: about %.3g tetrahedra (h = %.3g mm at %.6g GHz, "
             "Mesh/elements_per_wavelength %g, order %d), ~%.3g GiB against %.3g GiB of memory",
             tets, h * 1e3, mo.freq_max * 1e-9, cfg->epw, cfg->order, bytes / (1 << 30),
             mem / (1 << 30));
    if (!r->args->force)
      return EM_RAISE(EM_ERR_INPUT,
                      "%s; check the frequency (Hz) and the mesh density, or run "
                      "with --force",
                      msg);
    em_log_warn(r->log, "%s; going on (--force)", msg);
  }
  return EM_OK;
}

em_err em_app_validate_mesh(em_run *r) {
  const em_run_config *cfg = &r->cfg;
  if (r->setup.has_pml)
    for (int k = 0; k < 6; k++)
      EM_CHECK(!(r->setup.pml.thick[k] < 0), EM_ERR_INPUT,
               "case %s: the PML has thickness %g mm on side %d: it must be > 0",
               em_case_path(r->cs), r->setup.pml.thick[k] * 1e3, k);
  for (int i = 0; cfg->line_points > 0 && i < cfg->line_points; i++) {
    int n = cfg->line_points;
    double s = n > 1 ? (double)i / (n - 1) : 0, p[3], lam[4];
    for (int d = 0; d < 3; d++) p[d] = cfg->line[d] + s * (cfg->line[3 + d] - cfg->line[d]);
    int32_t t;
    em_mesh_locate(r->mesh, p, &t, lam);
    EM_CHECK(t >= 0, EM_ERR_INPUT,
             "Output/line_from_* .. Output/line_to_*: the point (%g, %g, %g) mm of the line is "
             "outside the mesh",
             p[0] * 1e3, p[1] * 1e3, p[2] * 1e3);
  }
  return EM_OK;
}
