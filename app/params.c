/* params.c - the parameters emsolve knows, their defaults, and the run
 * configuration read from a case.  Material and port parameters use '*'
 * for the group name (see docs/case-files.md). */
#include <math.h>
#include <string.h>

#include "app_ff.h"

#define NUM(n, v, u, h) \
  { n, 0, v, NULL, 1, h, u, 0 }
#define NUM_REQ(n, u, h) \
  { n, 0, 0, NULL, 0, h, u, 0 }
#define STR(n, v, h) \
  { n, 1, 0, v, 1, h, NULL, 0 }
#define STR_REQ(n, h) \
  { n, 1, 0, NULL, 0, h, NULL, 0 }
/* a parameter of one volume (3) / surface (2) group: the '*' must name a
   group of the case */
#define GNUM(d, n, v, u, h) \
  { n, 0, v, NULL, 1, h, u, d }
#define GNUM_REQ(d, n, h) \
  { n, 0, 0, NULL, 0, h, NULL, d }
#define GSTR_REQ(d, n, h) \
  { n, 1, 0, NULL, 0, h, NULL, d }

static const em_param_spec SPECS[] = {
    NUM("Geometry/unit", 1e-3, "m", "metres per model unit (1e-3: the geometry is in mm)"),
    NUM_REQ("Solver/frequency", "Hz", "frequency in Hz (one frequency)"),
    NUM_REQ("Solver/f_start", "Hz", "first frequency of a sweep, Hz"),
    NUM_REQ("Solver/f_stop", "Hz", "last frequency of a sweep, Hz"),
    NUM("Solver/n_freq", 11, NULL, "number of frequencies of a sweep"),
    NUM("Solver/order", 1, NULL,
        "basis order p: 1, 2 or 3 (of every volume without its own Materials/*/order)"),
    STR("Solver/sweep", "uniform",
        "sweep: uniform (a full solve at each of the n_freq frequencies) or adaptive (a rational "
        "model of the ports from a few full solves, evaluated at the n_freq frequencies)"),
    NUM("Solver/sweep_tol", 1e-3, NULL, "adaptive sweep: target error of the model on S"),
    NUM("Solver/sweep_max_solves", 20, NULL, "adaptive sweep: full solves at most (3..256)"),
    STR("Solver/problem", "driven",
        "driven (excited by ports or a plane wave) or eigen (resonant modes, docs/eigen.md)"),
    NUM("Eigen/target", 0, "Hz",
        "eigen: the modes nearest this frequency are found, Hz (required)"),
    NUM("Eigen/n", 4, NULL, "eigen: number of modes"),
    NUM("Eigen/tolerance", 1e-10, NULL, "eigen: Ritz residual target, relative"),
    NUM("Eigen/subspace", 0, NULL, "eigen: Krylov subspace size (0: max(2 n + 10, 20))"),
    NUM("Eigen/max_restarts", 300, NULL, "eigen: Krylov-Schur restarts before giving up"),
    STR("Eigen/ports", "open",
        "eigen: port planes open (PMC: the poles of Zin), short (PEC) or matched (loaded)"),
    STR("Solver/method", "bicgstab", "Krylov method: bicgstab, cocg, cocr, gmres, fgmres"),
    STR("Solver/preconditioner", "auto",
        "preconditioner: auto (direct: on the GPU when it fits there, else the host; pmg, or ilu0 "
        "at order 1, when it fits nowhere), direct "
        "(sparse LDL^T), pmg (V-cycle over the basis orders), ilu0, jacobi, none"),
    STR("Solver/ordering", "auto",
        "ordering of the factors: auto (nd for direct, rcm for ilu0), natural, rcm, nd, mc, bmc"),
    NUM("Solver/memory_limit", 0, "GiB",
        "GiB the direct factorization may use (0: the memory available; auto falls back to "
        "ilu0 beyond)"),
    NUM("Solver/pc_shift", 0, NULL,
        "ILU of A + j s |diag A| (s > 0 damps tiny pivots of indefinite systems)"),
    STR("Solver/trsv", "auto", "GPU triangular solves of ILU: auto, levels, syncfree, cusparse"),
    STR("Solver/precision", "double",
        "preconditioner precision: double, or mixed (= single: factors and smoothers in complex "
        "single inside the Krylov method in double)"),
    NUM("Solver/tolerance", 1e-8, NULL, "relative residual target"),
    NUM("Solver/max_iterations", 5000, NULL, "iteration limit"),
    NUM("Solver/restart", 50, NULL, "GMRES restart length"),
    STR("Solver/format", "auto",
        "matrix format: auto, csr, ell, ellr, ellr-t, sellr-t, hyb, hec, ..."),
    STR("Solver/blocks", "streams",
        "nine-block SpMV: streams, sequential, graph, rows (each block row fused), one"),
    NUM("PMG/coarse", 1, NULL, "pmg: order groups solved exactly by the direct factor (1 or 2)"),
    STR("PMG/smoother", "block",
        "pmg smoother: block (entity-block Jacobi), jacobi (point), ilu0 (of the diagonal block)"),
    NUM("PMG/sweeps", 2, NULL, "pmg: smoothing steps per level before and after the coarse solve"),
    NUM("PMG/damping", 0, NULL, "pmg: smoother damping omega (0: 0.5 for Jacobi, 1 for ilu0)"),
    STR("PMG/smooth", "group", "pmg: a level smooths its own order group, or all its DOFs"),
    NUM("PMG/shift", 0, NULL,
        "pmg: smoothers from A + j s |diag A| (s > 0 damps the indefinite part)"),
    STR("PMG/pml_coarse", "auto",
        "pmg: the PML unknowns of orders 1..N join the exact coarse solve: auto (N = the PML's "
        "own basis order, PML/basis_order: all of its space, the neighbours' higher-order "
        "functions on its interface smoothed), 3 (every PML unknown), 2, 1 or 0 (the PML above "
        "order N only smoothed: stalls, for comparison)"),
    STR("PMG/pml_smoother", "none",
        "pmg: every PML unknown (all orders) in one more level smoothed by ilu0 or direct (its "
        "exact factor), visited first and last; none: the PML rows stay in their order groups"),
    NUM("Mesh/elements_per_wavelength", 0, "per wavelength",
        "target elements per wavelength at the highest frequency (0: by order, 12/7/5)"),
    NUM("Mesh/frequency", 0, "Hz",
        "Hz whose wavelength sizes the mesh (0: the case file's own Solver/f_stop, else its "
        "Solver/frequency, or the run's highest frequency when that is higher): a sub-band or "
        "one frequency of the case meshes as its full sweep does"),
    STR("Mesh/file", "",
        "a .msh to solve on instead of meshing the case (one --save-mesh wrote; a relative path "
        "set in the case file is taken from the case's folder; \"\": mesh the case)"),
    NUM("Mesh/reorder", 1, NULL, "renumber vertices by reverse Cuthill-McKee (1) or not (0)"),
    NUM("Mesh/geometry_order", 1, NULL,
        "1: straight-sided tets; 2: curved (quadratic, isoparametric) tets whose mid-edge "
        "nodes lie on the CAD surfaces (Solver/problem eigen without ports or ABC only)"),
    GNUM_REQ(3, "Materials/*/eps_r", "relative permittivity of volume '*' (required)"),
    GNUM(3, "Materials/*/mu_r", 1, NULL, "relative permeability of volume '*'"),
    GNUM(3, "Materials/*/tan_delta", 0, NULL, "dielectric loss tangent of volume '*'"),
    GNUM(3, "Materials/*/order", 0, NULL,
         "basis order of volume '*' (0: PML/basis_order for a pml* volume, else Solver/order); "
         "an edge or face shared with a higher-order volume takes the higher order"),
    GSTR_REQ(2, "Ports/*/type", "port type: coax, waveguide or lumped (required per port)"),
    GNUM(2, "Ports/*/z0", 0, "ohm", "reference impedance for S, ohm (0: the port's own impedance)"),
    GNUM(2, "Ports/*/deembed", 0, "model units",
         "move the reference plane this far into the structure (model units)"),
    GNUM(2, "Ports/*/dir_x", 0, NULL, "lumped port: E direction x (0,0,0: along the shorter side)"),
    GNUM(2, "Ports/*/dir_y", 0, NULL, "lumped port: E direction y"),
    GNUM(2, "Ports/*/dir_z", 0, NULL, "lumped port: E direction z"),
    NUM("PML/order", 2, NULL, "PML grading exponent m in sigma(xi) ~ (xi/L)^m"),
    NUM("PML/reflection", 1e-6, NULL, "PML normal-incidence reflection target R0"),
    NUM("PML/elements_only", 0, NULL,
        "1: the PML layer is meshed with PML/elements elements across however fine the rest "
        "(not sized by the wavelength); 0: at least that many"),
    NUM("PML/basis_order", 0, NULL,
        "basis order of the pml* volumes (0: Solver/order; their Materials/*/order wins)"),
    NUM("PML/elements", 3, NULL,
        "elements across the thinnest PML layer at least (0: sized from the wavelength only; "
        "fewer than 3 let the DRA's answer move with the box, docs/validation.md)"),
    STR("Boundary/outer", "pec",
        "outer box faces without a group: pec, or abc (first-order absorbing)"),
    STR("Output/fields", "auto",
        "fields .vtk: auto (= middle: the one frequency, or the middle of a sweep), all, first, "
        "none"),
    NUM("Output/touchstone_z0", 50, "ohm",
        "reference impedance of the Touchstone file: S renormalised to it at every port and "
        "frequency (the ports' own impedances are in ports.csv)"),
    STR("Output/vtk", "binary", "VTK encoding: binary or ascii"),
    NUM("Output/subdiv", 0, NULL, "VTK subdivision of each tet (0: the basis order)"),
    NUM("Output/interp_points", 0, NULL,
        "S splined onto this many frequencies, <case>_interp.sNp (0: none; needs a sweep)"),
    NUM("Output/line_points", 0, NULL,
        "E along a line to line_<n>.csv: number of points (0: none)"),
    NUM("Output/line_from_x", 0, "model units", "line start x (model units)"),
    NUM("Output/line_from_y", 0, "model units", "line start y"),
    NUM("Output/line_from_z", 0, "model units", "line start z"),
    NUM("Output/line_to_x", 0, "model units", "line end x (model units)"),
    NUM("Output/line_to_y", 0, "model units", "line end y"),
    NUM("Output/line_to_z", 0, "model units", "line end z"),
    EM_APP_FF_SPECS /* app_ff.h */
};

const em_param_spec *em_app_specs(int *n) {
  *n = (int)(sizeof SPECS / sizeof SPECS[0]);
  return SPECS;
}

static em_err num(const em_case *c, const char *name, double *v) {
  EM_TRY(em_case_number(c, name, v));
  EM_CHECK(isfinite(*v), EM_ERR_INPUT, "parameter %s is not a finite number", name);
  return EM_OK;
}

static em_err integer(const em_case *c, const char *name, int lo, int hi, int *v) {
  double d;
  EM_TRY(num(c, name, &d));
  EM_CHECK(d == floor(d) && d >= lo && d <= hi, EM_ERR_INPUT,
           "parameter %s = %g must be an integer in %d..%d", name, d, lo, hi);
  *v = (int)d;
  return EM_OK;
}

static em_err choice(const em_case *c, const char *name, const char *const *opts, int n, int *v) {
  const char *s;
  EM_TRY(em_case_string(c, name, &s));
  EM_TRY(em_name_parse(opts, n, s, name, v));
  return EM_OK;
}

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
    EM_TRY(num(c, "Solver/f_start", &a));
    EM_TRY(num(c, "Solver/f_stop", &b));
    EM_TRY(integer(c, "Solver/n_freq", 1, 100000, &n));
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
    EM_TRY(num(c, "Solver/frequency", &f));
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
  EM_TRY(num(c, "Eigen/target", &cfg->eig_target));
  EM_CHECK(cfg->eig_target > 0, EM_ERR_INPUT,
           "Solver/problem eigen needs Eigen/target > 0 (Hz), the frequency the modes are "
           "sought near (e.g. -setnumber Eigen/target 6e9); it is %g",
           cfg->eig_target);
  EM_TRY(integer(c, "Eigen/n", 1, 200, &cfg->eig_n));
  EM_TRY(num(c, "Eigen/tolerance", &cfg->eig_tol));
  EM_CHECK(cfg->eig_tol > 0 && cfg->eig_tol < 1, EM_ERR_INPUT,
           "Eigen/tolerance = %g must be in (0, 1)", cfg->eig_tol);
  EM_TRY(integer(c, "Eigen/subspace", 0, 256, &cfg->eig_ncv));
  EM_CHECK(cfg->eig_ncv == 0 || cfg->eig_ncv >= cfg->eig_n + 2, EM_ERR_INPUT,
           "Eigen/subspace = %d must be 0 or at least Eigen/n + 2 = %d", cfg->eig_ncv,
           cfg->eig_n + 2);
  EM_TRY(integer(c, "Eigen/max_restarts", 0, 100000, &cfg->eig_restarts));
  static const char *const ports[] = {"open", "short", "matched"};
  EM_TRY(choice(c, "Eigen/ports", ports, 3, &cfg->eig_ports));
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
  EM_TRY(num(c, "Mesh/frequency", &fm));
  EM_CHECK(fm >= 0, EM_ERR_INPUT, "Mesh/frequency = %g Hz must be >= 0 (0: the case's own)", fm);
  if (fm > 0) {
    cfg->mesh_freq = fm;
    cfg->mesh_freq_from = "Mesh/frequency";
    return EM_OK;
  }
  static const char *const own[2] = {"Solver/f_stop", "Solver/frequency"};
  for (int k = 0; k < 2; k++) {
    const em_param *p = em_case_param_find(c, own[k]);
    if (!p || strcmp(p->source, "case file") || !(p->number > 0)) continue;
    if (p->number >= top) {
      cfg->mesh_freq = p->number;
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

static em_err read_solver(const em_case *c, em_run_config *cfg) {
  const char *s;
  em_ksp_opts_default(&cfg->ksp);
  EM_TRY(em_case_string(c, "Solver/method", &s));
  EM_TRY(em_ksp_method_parse(s, &cfg->ksp.method));
  EM_TRY(num(c, "Solver/tolerance", &cfg->ksp.tol));
  EM_CHECK(cfg->ksp.tol > 0 && cfg->ksp.tol < 1, EM_ERR_INPUT,
           "Solver/tolerance = %g must be in (0, 1)", cfg->ksp.tol);
  EM_TRY(integer(c, "Solver/max_iterations", 1, 100000000, &cfg->ksp.max_it));
  EM_TRY(integer(c, "Solver/restart", 1, 10000, &cfg->ksp.restart));
  em_pc_opts_default(&cfg->pc);
  EM_TRY(em_case_string(c, "Solver/preconditioner", &s));
  cfg->pc_auto = strcmp(s, "auto") == 0;
  if (cfg->pc_auto) s = "direct";
  EM_TRY(em_pc_type_parse(s, &cfg->pc.type));
  EM_TRY(em_case_string(c, "Solver/ordering", &s));
  cfg->ordering_auto = strcmp(s, "auto") == 0;
  if (cfg->ordering_auto)
    s = cfg->pc.type == EM_PC_DIRECT || cfg->pc.type == EM_PC_PMG ? "nd" : "rcm";
  EM_TRY(em_ordering_parse(s, &cfg->pc.ordering));
  static const char *const prec[] = {"double", "single", "mixed"};
  int p;
  EM_TRY(choice(c, "Solver/precision", prec, 3, &p));
  cfg->pc.prec = p ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
  EM_TRY(num(c, "Solver/pc_shift", &cfg->pc.shift));
  EM_TRY(num(c, "Solver/memory_limit", &cfg->pc.mem_limit));
  EM_CHECK(cfg->pc.mem_limit >= 0, EM_ERR_INPUT, "Solver/memory_limit = %g must be >= 0",
           cfg->pc.mem_limit);
  cfg->pc.mem_limit *= 1024.0 * 1024.0 * 1024.0;
  EM_CHECK(cfg->pc.shift >= 0, EM_ERR_INPUT, "Solver/pc_shift = %g must be >= 0", cfg->pc.shift);
  em_pmg_opts *g = &cfg->pc.pmg;
  EM_TRY(integer(c, "PMG/coarse", 1, 2, &g->coarse));
  EM_TRY(em_case_string(c, "PMG/smoother", &s));
  EM_TRY(em_pmg_smoother_parse(s, &g->smoother));
  EM_TRY(integer(c, "PMG/sweeps", 1, 100, &g->sweeps));
  EM_TRY(num(c, "PMG/damping", &g->damping));
  EM_CHECK(g->damping >= 0 && g->damping <= 2, EM_ERR_INPUT, "PMG/damping = %g must be in [0, 2]",
           g->damping);
  static const char *const smooth[] = {"group", "all"};
  EM_TRY(choice(c, "PMG/smooth", smooth, 2, &g->all));
  EM_TRY(num(c, "PMG/shift", &g->shift));
  static const char *const pml_co[] = {"auto", "0", "1", "2", "3"};
  EM_TRY(choice(c, "PMG/pml_coarse", pml_co, 5, &cfg->pmg_pml_coarse));
  cfg->pmg_pml_coarse--; /* auto: -1 */
  static const char *const pml_sm[] = {"none", "ilu0", "direct"};
  EM_TRY(choice(c, "PMG/pml_smoother", pml_sm, 3, &cfg->pmg_pml_block));
  EM_CHECK(g->shift >= 0, EM_ERR_INPUT, "PMG/shift = %g must be >= 0", g->shift);
  EM_TRY(em_case_string(c, "Solver/trsv", &s));
  EM_TRY(em_pc_trsv_parse(s, &cfg->pc.trsv));
  em_blockop_opts_default(&cfg->bop);
  em_format fmt;
  EM_TRY(em_case_string(c, "Solver/format", &s));
  EM_TRY(em_format_parse(s, &fmt));
  for (int i = 0; i < EM_MAX_ORDER; i++)
    for (int j = 0; j < EM_MAX_ORDER; j++) cfg->bop.format[i][j] = fmt;
  cfg->bop.whole_format = fmt;
  static const char *const modes[] = {"streams", "sequential", "graph", "one", "rows"};
  static const em_blockop_mode mode_of[] = {EM_BLOCKOP_STREAMS, EM_BLOCKOP_SEQUENTIAL,
                                            EM_BLOCKOP_GRAPH, EM_BLOCKOP_ONE_MATRIX,
                                            EM_BLOCKOP_ROWS};
  int m;
  EM_TRY(choice(c, "Solver/blocks", modes, 5, &m));
  cfg->bop.mode = mode_of[m];
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

em_err em_run_config_read(const em_case *c, em_run_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  EM_TRY(num(c, "Geometry/unit", &cfg->unit));
  EM_CHECK(cfg->unit > 0, EM_ERR_INPUT, "Geometry/unit = %g must be > 0", cfg->unit);
  EM_TRY(read_mesh_file(c, cfg));
  static const char *const problem[] = {"driven", "eigen"};
  EM_TRY(choice(c, "Solver/problem", problem, 2, &cfg->eigen));
  if (cfg->eigen) {
    EM_TRY(read_eigen(c, cfg));
    cfg->mesh_freq = cfg->freq[0]; /* read_eigen: the case's sweep top or the target */
    cfg->mesh_freq_from = "the case's sweep or Eigen/target";
  } else {
    EM_TRY(read_frequencies(c, cfg));
    EM_TRY(read_mesh_frequency(c, cfg));
    if (cfg->mesh_file) cfg->mesh_freq_from = "none: read from Mesh/file, not sized";
    static const char *const sweeps[] = {"uniform", "adaptive"};
    EM_TRY(choice(c, "Solver/sweep", sweeps, 2, &cfg->sweep_adaptive));
    EM_TRY(num(c, "Solver/sweep_tol", &cfg->sweep_tol));
    EM_CHECK(cfg->sweep_tol > 0 && cfg->sweep_tol < 1, EM_ERR_INPUT,
             "Solver/sweep_tol = %g must be in (0, 1)", cfg->sweep_tol);
    EM_TRY(integer(c, "Solver/sweep_max_solves", 3, 256, &cfg->sweep_max_solves));
    EM_CHECK(!cfg->sweep_adaptive || cfg->n_freq >= 2, EM_ERR_INPUT,
             "Solver/sweep adaptive needs a band: Solver/f_start < Solver/f_stop and "
             "Solver/n_freq >= 2 (%d frequency given)",
             cfg->n_freq);
  }
  EM_TRY(integer(c, "Solver/order", 1, 3, &cfg->order));
  EM_TRY(integer(c, "Mesh/geometry_order", 1, 2, &cfg->geometry_order));
  EM_TRY(num(c, "Mesh/elements_per_wavelength", &cfg->epw));
  EM_CHECK(cfg->epw >= 0, EM_ERR_INPUT, "Mesh/elements_per_wavelength = %g must be >= 0", cfg->epw);
  if (cfg->epw == 0) cfg->epw = cfg->order == 1 ? 12 : cfg->order == 2 ? 7 : 5;
  EM_TRY(read_solver(c, cfg));
  static const char *const outer[] = {"pec", "abc"};
  EM_TRY(choice(c, "Boundary/outer", outer, 2, &cfg->outer_abc));
  EM_TRY(integer(c, "PML/order", 0, 8, &cfg->pml_order));
  EM_TRY(num(c, "PML/reflection", &cfg->pml_reflection));
  EM_TRY(integer(c, "PML/elements", 0, 50, &cfg->pml_elements));
  EM_TRY(integer(c, "PML/basis_order", 0, 3, &cfg->pml_basis_order));
  EM_TRY(integer(c, "PML/elements_only", 0, 1, &cfg->pml_elements_only));
  EM_CHECK(cfg->pml_reflection > 0 && cfg->pml_reflection < 1, EM_ERR_INPUT,
           "PML/reflection = %g must be in (0, 1)", cfg->pml_reflection);
  /* curved tets: only the volume terms follow the quadratic map; what
     integrates over straight triangles (port modes and their Robin terms,
     the ABC, far-field surfaces) or locates points in straight tets (plane
     waves, line probes, the mesh check of a driven run) is not mixed in */
  EM_CHECK(cfg->geometry_order == 1 || cfg->eigen, EM_ERR_INPUT,
           "Mesh/geometry_order 2 (curved tets) is supported for Solver/problem eigen only: a "
           "driven run's ports, plane wave, ABC and far-field surfaces assume straight tets");
  EM_CHECK(cfg->geometry_order == 1 || !cfg->outer_abc, EM_ERR_INPUT,
           "Mesh/geometry_order 2 (curved tets) does not support Boundary/outer abc (its Robin "
           "faces are integrated as straight triangles): use a PML or geometry_order 1");
  EM_CHECK(cfg->geometry_order == 1 || cfg->eig_ports != 2, EM_ERR_INPUT,
           "Mesh/geometry_order 2 (curved tets) does not support Eigen/ports matched (the port's "
           "mode and Robin term live on straight triangles): use open or short");
  static const char *const fields[] = {"auto", "all", "first", "none", "middle"};
  int f;
  EM_TRY(choice(c, "Output/fields", fields, 5, &f));
  /* auto: the one frequency, or the middle of a sweep (the band a sweep is
     centred on is where the fields are worth a look) */
  cfg->fields = f == 0 ? 3 : f == 1 ? 2 : f == 2 ? 1 : f == 3 ? 0 : 3;
  static const char *const vtk[] = {"ascii", "binary"};
  EM_TRY(choice(c, "Output/vtk", vtk, 2, &cfg->vtk_binary));
  EM_TRY(integer(c, "Output/subdiv", 0, 8, &cfg->subdiv));
  if (cfg->subdiv == 0) cfg->subdiv = cfg->order;
  EM_TRY(num(c, "Output/touchstone_z0", &cfg->touchstone_z0));
  EM_CHECK(cfg->touchstone_z0 > 0, EM_ERR_INPUT, "Output/touchstone_z0 = %g ohm must be > 0",
           cfg->touchstone_z0);
  EM_TRY(integer(c, "Output/line_points", 0, 1000000, &cfg->line_points));
  EM_TRY(integer(c, "Output/interp_points", 0, 1000000, &cfg->interp_points));
  static const char *const ends[6] = {"Output/line_from_x", "Output/line_from_y",
                                      "Output/line_from_z", "Output/line_to_x",
                                      "Output/line_to_y",   "Output/line_to_z"};
  for (int i = 0; i < 6; i++) {
    EM_TRY(num(c, ends[i], &cfg->line[i]));
    cfg->line[i] *= cfg->unit;
  }
  return EM_OK;
}

void em_run_config_free(em_run_config *cfg) {
  em_free(&cfg->mesh_file);
  em_free(&cfg->freq);
}

/* One line per parameter: value, unit, where the value came from, then
 * what it is (the case's Help, else emsolve's description) with the range,
 * choices and loop level the case declares. */
void em_app_list_params(const em_case *c, FILE *f) {
  int n = em_case_param_count(c);
  fprintf(f, "%-34s %-14s %-11s %-12s %s\n", "parameter", "value", "unit", "source",
          "description [declared range] {choices} Loop");
  for (int i = 0; i < n; i++) {
    const em_param *p = em_case_param_at(c, i);
    const em_param_spec *s = em_case_spec_of(c, p->name);
    char val[64], extra[160] = "";
    if (p->is_string)
      snprintf(val, sizeof val, "\"%s\"", p->string ? p->string : "");
    else
      snprintf(val, sizeof val, "%.10g", p->number);
    size_t k = 0;
    if (p->has_min || p->has_max) {
      char lo[32] = "-inf", hi[32] = "inf";
      if (p->has_min) snprintf(lo, sizeof lo, "%g", p->min);
      if (p->has_max) snprintf(hi, sizeof hi, "%g", p->max);
      k += (size_t)snprintf(extra + k, sizeof extra - k, " [%s .. %s]", lo, hi);
    }
    if (p->choices && p->choices[0] && k < sizeof extra)
      k += (size_t)snprintf(extra + k, sizeof extra - k, " {%s}", p->choices);
    if (p->loop > 0 && k < sizeof extra) /* a sweep the case declares (psweep_loop.c) */
      snprintf(extra + k, sizeof extra - k, " Loop %d%s", p->loop,
               p->step > 0  ? ""
               : p->choices ? ""
                            : " (no Step)");
    const char *help = p->help && p->help[0] ? p->help : s && s->help ? s->help : "";
    const char *unit = s && s->unit ? s->unit : "";
    fprintf(f, "%-34s %-14s %-11s %-12s %s%s\n", p->name, val, unit, p->source, help, extra);
  }
  int ns;
  const em_param_spec *s = em_app_specs(&ns);
  fprintf(f, "\nper-group parameters ('*' = a volume or port group name of the case):\n");
  for (int i = 0; i < ns; i++)
    if (strchr(s[i].name, '*'))
      fprintf(f, "  %-32s %-11s %s\n", s[i].name, s[i].unit ? s[i].unit : "", s[i].help);
}
