/* config.c - the typed view of a case's parameters (em_run_config): the
 * frequencies, the mesh sizing, the problem, the boundary, the PML and the
 * outputs, each read once, checked, in SI units; the solver's settings are
 * config_solver.c's, the far field's config_ff.c's.  The rest of emsolve
 * reads these fields, never a parameter by name. */
#include <math.h>
#include <string.h>

#include "config_impl.h"

static em_err read_frequencies(const em_case *c, em_run_config *cfg) {
  const em_param *single = em_case_param_find(c, "Solver/frequency");
  const em_param *f0 = em_case_param_find(c, "Solver/f_start");
  const em_param *f1 = em_case_param_find(c, "Solver/f_stop");
  EM_CHECK(single || (f0 && f1), EM_ERR_INPUT,
           "case %s sets no frequency: define Solver/frequency, or Solver/f_start and "
           "Solver/f_stop (e.g. -setnumber Solver/frequency 5e9)",
           em_case_path(c));
  EM_CHECK(!f0 == !f1, EM_ERR_INPUT,
           "case %s sets %s but not %s: a sweep needs both (or use Solver/frequency)",
           em_case_path(c), f0 ? "Solver/f_start" : "Solver/f_stop",
           f0 ? "Solver/f_stop" : "Solver/f_start");
  /* both defined: the one set on the command line wins (a case with a sweep
     asked for one frequency, or the reverse); else the sweep */
  int cl_single = single && !strcmp(single->source, "command line");
  int cl_sweep =
      (f0 && !strcmp(f0->source, "command line")) || (f1 && !strcmp(f1->source, "command line"));
  if (f0 && f1 && !(cl_single && !cl_sweep)) {
    double a, b;
    int n;
    EM_TRY(em_cfg_number(c, "Solver/f_start", &a));
    EM_TRY(em_cfg_number(c, "Solver/f_stop", &b));
    EM_TRY(em_cfg_integer(c, "Solver/n_freq", 1, 100000, &n));
    EM_CHECK(a > 0 && b >= a, EM_ERR_INPUT,
             "frequency sweep %g .. %g Hz: need 0 < Solver/f_start <= Solver/f_stop", a, b);
    EM_CHECK(n == 1 || b > a, EM_ERR_INPUT,
             "frequency sweep %g .. %g Hz with Solver/n_freq = %d: the frequencies must differ "
             "(Solver/f_stop > Solver/f_start, or Solver/n_freq 1)",
             a, b, n);
    EM_TRY(em_calloc(&cfg->freq, (size_t)n, sizeof *cfg->freq, "frequency list"));
    cfg->n_freq = n;
    for (int i = 0; i < n; i++) cfg->freq[i] = n == 1 ? a : a + (b - a) * i / (n - 1);
  } else {
    double f;
    EM_TRY(em_cfg_number(c, "Solver/frequency", &f));
    EM_CHECK(f > 0, EM_ERR_INPUT, "Solver/frequency = %g Hz must be > 0", f);
    EM_TRY(em_calloc(&cfg->freq, 1, sizeof *cfg->freq, "frequency list"));
    cfg->n_freq = 1;
    cfg->freq[0] = f;
  }
  return EM_OK;
}

/* Eigen/...: the frequency list becomes one frequency, the one the mesh
 * is sized for. */
static em_err read_frequencies(const em_case *c, em_run_config *cfg);

static em_err read_eigen(const em_case *c, em_run_config *cfg) {
  EM_TRY(em_cfg_number(c, "Eigen/target", &cfg->eig_target));
  EM_CHECK(cfg->eig_target > 0, EM_ERR_INPUT,
           "Solver/problem eigen needs Eigen/target > 0 (Hz), the frequency the modes are "
           "sought near (e.g. -setnumber Eigen/target 6e9); it is %g",
           cfg->eig_target);
  EM_TRY(em_cfg_integer(c, "Eigen/n", 1, 200, &cfg->eig_n));
  EM_TRY(em_cfg_number(c, "Eigen/tolerance", &cfg->eig_tol));
  EM_CHECK(cfg->eig_tol > 0 && cfg->eig_tol < 1, EM_ERR_INPUT,
           "Eigen/tolerance = %g must be in (0, 1)", cfg->eig_tol);
  EM_TRY(em_cfg_integer(c, "Eigen/subspace", 0, 256, &cfg->eig_ncv));
  EM_CHECK(cfg->eig_ncv == 0 || cfg->eig_ncv >= cfg->eig_n + 2, EM_ERR_INPUT,
           "Eigen/subspace = %d must be 0 or at least Eigen/n + 2 = %d", cfg->eig_ncv,
           cfg->eig_n + 2);
  EM_TRY(em_cfg_integer(c, "Eigen/max_restarts", 0, 100000, &cfg->eig_restarts));
  static const char *const ports[] = {"open", "short", "matched"};
  EM_TRY(em_cfg_choice(c, "Eigen/ports", ports, 3, &cfg->eig_ports));
  /* the mesh: sized for the case's highest frequency when it has a sweep
     (the same mesh as its driven run), else for the target */
  double fmesh = cfg->eig_target;
  if (em_case_param_find(c, "Solver/frequency") ||
      (em_case_param_find(c, "Solver/f_start") && em_case_param_find(c, "Solver/f_stop"))) {
    EM_TRY(read_frequencies(c, cfg));
    if (cfg->freq[cfg->n_freq - 1] > fmesh) fmesh = cfg->freq[cfg->n_freq - 1];
    em_free(&cfg->freq);
  }
  EM_TRY(em_calloc(&cfg->freq, 1, sizeof *cfg->freq, "frequency list"));
  cfg->n_freq = 1;
  cfg->freq[0] = fmesh;
  return EM_OK;
}

/* The frequency that sizes the mesh: fixed by the case, not by the band a
 * run asks for, so that -setnumber Solver/frequency f solves on the mesh of
 * the case's sweep; raised to the run's highest frequency (never fewer
 * elements per wavelength than asked) when the run goes above it. */
static em_err read_mesh_frequency(const em_case *c, em_run_config *cfg) {
  double fm, top = cfg->freq[cfg->n_freq - 1];
  EM_TRY(em_cfg_number(c, "Mesh/frequency", &fm));
  EM_CHECK(fm >= 0, EM_ERR_INPUT, "Mesh/frequency = %g Hz must be >= 0 (0: the case's own)", fm);
  if (fm > 0) {
    cfg->mesh_freq = fm;
    cfg->mesh_freq_from = "Mesh/frequency";
    return EM_OK;
  }
  /* the case file's own value, also when the command line overrides it
     (a sub-band -setnumber Solver/f_stop meshes as the case's sweep) */
  static const char *const own[2] = {"Solver/f_stop", "Solver/frequency"};
  for (int k = 0; k < 2; k++) {
    const em_param *p = em_case_param_find(c, own[k]);
    if (!p || !p->in_file || !(p->file_number > 0)) continue;
    if (p->file_number >= top) {
      cfg->mesh_freq = p->file_number;
      cfg->mesh_freq_from =
          k ? "the case file's Solver/frequency" : "the case file's Solver/f_stop";
      return EM_OK;
    }
    break;
  }
  cfg->mesh_freq = top;
  cfg->mesh_freq_from = "the highest frequency of the run";
  return EM_OK;
}

/* Mesh/file: "" none; a relative path from the case file is taken from the
 * case's folder (the case travels with its mesh), from the command line
 * (--load-mesh, -setstring) as given. */
static em_err read_mesh_file(const em_case *c, em_run_config *cfg) {
  const char *f = NULL;
  EM_TRY(em_case_string(c, "Mesh/file", &f));
  if (!f || !f[0]) return EM_OK;
  const em_param *p = em_case_param_find(c, "Mesh/file");
  const char *cp = em_case_path(c), *slash = strrchr(cp, '/');
  int rel = f[0] != '/' && p && !strcmp(p->source, "case file") && slash;
  size_t n = strlen(f) + (rel ? (size_t)(slash - cp) + 2 : 1);
  EM_TRY(em_calloc(&cfg->mesh_file, n, 1, "mesh file name"));
  if (rel)
    snprintf(cfg->mesh_file, n, "%.*s/%s", (int)(slash - cp), cp, f);
  else
    snprintf(cfg->mesh_file, n, "%s", f);
  return EM_OK;
}

/* What a frequency writes beside E (post/fields.c): H and S, the surface
 * current, E and H on a plane. */
static em_err read_field_outputs(const em_case *c, em_run_config *cfg) {
  EM_TRY(em_cfg_integer(c, "Output/h_field", 0, 1, &cfg->h_field));
  EM_TRY(em_cfg_integer(c, "Output/surface_current", 0, 1, &cfg->surface_current));
  static const char *const axes[] = {"none", "x", "y", "z"};
  int k;
  EM_TRY(em_cfg_choice(c, "Output/plane_normal", axes, 4, &k));
  cfg->plane_axis = k - 1;
  EM_TRY(em_cfg_number(c, "Output/plane_at", &cfg->plane_at));
  cfg->plane_at *= cfg->unit;
  EM_TRY(em_cfg_integer(c, "Output/plane_points", 2, 10000, &cfg->plane_points));
  static const char *const fmts[] = {"csv", "vtk", "both"};
  EM_TRY(em_cfg_choice(c, "Output/plane_format", fmts, 3, &k));
  cfg->plane_csv = k != 1;
  cfg->plane_vtk = k != 0;
  return EM_OK;
}

em_err em_run_config_read(const em_case *c, em_run_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  EM_TRY(em_cfg_number(c, "Geometry/unit", &cfg->unit));
  EM_CHECK(cfg->unit > 0, EM_ERR_INPUT, "Geometry/unit = %g must be > 0", cfg->unit);
  EM_TRY(read_mesh_file(c, cfg));
  static const char *const problem[] = {"driven", "eigen"};
  EM_TRY(em_cfg_choice(c, "Solver/problem", problem, 2, &cfg->eigen));
  if (cfg->eigen) {
    EM_TRY(read_eigen(c, cfg));
    cfg->mesh_freq = cfg->freq[0]; /* read_eigen: the case's sweep top or the target */
    cfg->mesh_freq_from = "the case's sweep or Eigen/target";
  } else {
    EM_TRY(read_frequencies(c, cfg));
    EM_TRY(read_mesh_frequency(c, cfg));
    if (cfg->mesh_file) cfg->mesh_freq_from = "none: read from Mesh/file, not sized";
    static const char *const sweeps[] = {"uniform", "adaptive"};
    EM_TRY(em_cfg_choice(c, "Solver/sweep", sweeps, 2, &cfg->sweep_adaptive));
    EM_TRY(em_cfg_number(c, "Solver/sweep_tol", &cfg->sweep_tol));
    EM_CHECK(cfg->sweep_tol > 0 && cfg->sweep_tol < 1, EM_ERR_INPUT,
             "Solver/sweep_tol = %g must be in (0, 1)", cfg->sweep_tol);
    EM_TRY(em_cfg_integer(c, "Solver/sweep_max_solves", 3, 256, &cfg->sweep_max_solves));
    EM_CHECK(!cfg->sweep_adaptive || cfg->n_freq >= 2, EM_ERR_INPUT,
             "Solver/sweep adaptive needs a band: Solver/f_start < Solver/f_stop and "
             "Solver/n_freq >= 2 (%d frequency given)",
             cfg->n_freq);
  }
  EM_TRY(em_cfg_integer(c, "Solver/order", 1, 3, &cfg->order));
  EM_TRY(em_cfg_integer(c, "Mesh/geometry_order", 1, 2, &cfg->geometry_order));
  static const char *const mesher[] = {"delaunay", "hxt"};
  EM_TRY(em_cfg_choice(c, "Mesh/algorithm3d", mesher, 2, &cfg->hxt));
  static const char *const apart[] = {"auto", "apart", "together"};
  int a = 0;
  EM_TRY(em_cfg_choice(c, "Mesh/volume_meshing", apart, 3, &a));
  cfg->apart = a == 2 ? -1 : a;
  EM_TRY(em_cfg_number(c, "Mesh/elements_per_wavelength", &cfg->epw));
  EM_CHECK(cfg->epw >= 0, EM_ERR_INPUT, "Mesh/elements_per_wavelength = %g must be >= 0", cfg->epw);
  if (cfg->epw == 0) cfg->epw = cfg->order == 1 ? 12 : cfg->order == 2 ? 7 : 5;
  EM_TRY(em_cfg_read_solver(c, &cfg->solve));
  static const char *const outer[] = {"pec", "abc"};
  EM_TRY(em_cfg_choice(c, "Boundary/outer", outer, 2, &cfg->outer_abc));
  EM_TRY(em_cfg_integer(c, "PML/order", 0, 8, &cfg->pml_order));
  EM_TRY(em_cfg_number(c, "PML/reflection", &cfg->pml_reflection));
  EM_TRY(em_cfg_integer(c, "PML/elements", 0, 50, &cfg->pml_elements));
  EM_TRY(em_cfg_integer(c, "PML/basis_order", -1, 3, &cfg->pml_basis_order));
  EM_TRY(em_cfg_integer(c, "PML/elements_only", 0, 1, &cfg->pml_elements_only));
  EM_CHECK(cfg->pml_reflection > 0 && cfg->pml_reflection < 1, EM_ERR_INPUT,
           "PML/reflection = %g must be in (0, 1)", cfg->pml_reflection);
  static const char *const fields[] = {"auto", "all", "first", "none", "middle"};
  int f;
  EM_TRY(em_cfg_choice(c, "Output/fields", fields, 5, &f));
  /* auto: the one frequency, or the middle of a sweep (the band a sweep is
     centred on is where the fields are worth a look) */
  cfg->fields = f == 0 ? 3 : f == 1 ? 2 : f == 2 ? 1 : f == 3 ? 0 : 3;
  static const char *const vtk[] = {"ascii", "binary"};
  EM_TRY(em_cfg_choice(c, "Output/vtk", vtk, 2, &cfg->vtk_binary));
  EM_TRY(em_cfg_integer(c, "Output/subdiv", 0, 8, &cfg->subdiv));
  if (cfg->subdiv == 0) cfg->subdiv = cfg->order;
  EM_TRY(em_cfg_number(c, "Output/touchstone_z0", &cfg->touchstone_z0));
  EM_CHECK(cfg->touchstone_z0 >= 0 && isfinite(cfg->touchstone_z0), EM_ERR_INPUT,
           "Output/touchstone_z0 = %g ohm must be >= 0 (0: each port's own impedance)",
           cfg->touchstone_z0);
  EM_TRY(em_cfg_integer(c, "Output/line_points", 0, 1000000, &cfg->line_points));
  EM_TRY(em_cfg_integer(c, "Output/interp_points", 0, 1000000, &cfg->interp_points));
  static const char *const ends[6] = {"Output/line_from_x", "Output/line_from_y",
                                      "Output/line_from_z", "Output/line_to_x",
                                      "Output/line_to_y",   "Output/line_to_z"};
  for (int i = 0; i < 6; i++) {
    EM_TRY(em_cfg_number(c, ends[i], &cfg->line[i]));
    cfg->line[i] *= cfg->unit;
  }
  EM_TRY(read_field_outputs(c, cfg));
  return EM_OK;
}

void em_run_config_free(em_run_config *cfg) {
  em_free(&cfg->mesh_file);
  em_free(&cfg->freq);
}

em_mesh_opts em_run_config_mesh_opts(const em_run_config *cfg, const em_case *cs) {
  em_mesh_opts mo = {.unit = cfg->unit,
                     .freq_max = cfg->mesh_freq,
                     .elements_per_wavelength = cfg->epw,
                     .index_of = em_setup_index_of,
                     .index_ctx = (void *)cs,
                     .reorder = 1,
                     .pml_elements = cfg->pml_elements,
                     .geometry_order = cfg->geometry_order,
                     .hxt = cfg->hxt,
                     .pml_elements_only = cfg->pml_elements_only,
                     .apart = cfg->apart};
  return mo;
}

em_setup_opts em_run_config_setup_opts(const em_run_config *cfg) {
  em_setup_opts so = {cfg->outer_abc, cfg->pml_order, cfg->pml_reflection, cfg->order,
                      cfg->pml_basis_order};
  return so;
}
