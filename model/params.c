/* params.c - every parameter emsolve knows, in one table: its name, type,
 * default (or none: required), unit and what it means.  The case layer
 * (mesh/) takes the table as data to fill the defaults and refuse unknown
 * names; config.c, config_solver.c and config_ff.c read the typed view from
 * it; --list-params prints it.  Material and port parameters use '*' for
 * the group name (docs/case-files.md).  A new parameter is a row here, a
 * field of the typed view (em_model.h) and its line in docs/case-files.md. */
#include <math.h>
#include <string.h>

#include "em_model.h"

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
#define GSTR(d, n, v, h) \
  { n, 1, 0, v, 1, h, NULL, d }

static const em_param_spec SPECS[] = {
    NUM("Geometry/unit", 1e-3, "m", "metres per model unit (1e-3: the geometry is in mm)"),
    NUM_REQ(
        "Solver/frequency", "Hz",
        "one frequency, Hz (on the command line: instead of the case's f_start .. f_stop sweep)"),
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
    NUM("Solver/adapt", 0, NULL,
        "adaptive refinement before the sweep: 1 solves at Adapt/frequency, estimates the error "
        "per element and refines until S settles (docs/adapt.md); 0 off"),
    NUM("Adapt/max_passes", 10, NULL, "adaptive refinement: solves at most (1..50)"),
    NUM("Adapt/delta_s", 0.02, NULL,
        "adaptive refinement: converged when max |S_ij(pass k) - S_ij(pass k-1)| < delta_s"),
    NUM("Adapt/fraction", 0.5, NULL,
        "adaptive refinement: share of the estimated error (sum of eta_T^2) refined per pass, "
        "Doerfler marking (0 < fraction <= 1)"),
    NUM("Adapt/frequency", 0, "Hz",
        "adaptive refinement: the frequency the passes solve at (0: the middle of the sweep)"),
    STR("Adapt/kind", "h",
        "adaptive refinement: h (smaller elements: the case meshed again with a size field), "
        "p (marked elements one order higher) or hp"),
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
    NUM("Solver/rhs_block", 0, NULL,
        "excitations (ports) solved together as one block sharing every matrix product and "
        "preconditioner application (bicgstab, cocg): 0 all of them, 1 one after another, N "
        "groups of N"),
    NUM("Solver/overlap", 1, NULL,
        "1: independent set-up stages overlap (the direct factor's ordering and symbolic "
        "analysis, or the V-cycle's coarse level's (on rank 0 of a distributed solve), on a "
        "thread of their own while the values are assembled, a distributed operator's formats "
        "beside the V-cycle's set-up, the fields file's error estimate beside the far field; "
        "docs/solvers.md, \"Overlapped set-up\"; a sweep's outputs of each frequency "
        "beside the next solve, docs/sweeps.md); 0: one after another (the same results, bit "
        "for bit)"),
    NUM("Solver/ahead_threads", 0, NULL,
        "OpenMP threads of the work a sweep runs beside each solve (the next frequency's "
        "assembly, the previous frequency's outputs): 0 all of them, -1 half the run's "
        "threads, N; the results do not depend on it (docs/sweeps.md)"),
    STR("Solver/format", "auto",
        "matrix format: auto, csr, ell, ellr, ellr-t, sellr-t, hyb, hec, ..."),
    STR("Solver/blocks", "streams",
        "nine-block SpMV: streams, sequential, graph, rows (each block row fused), one"),
    STR("Solver/distributed", "auto",
        "under mpirun: on solves each frequency with every rank (the mesh's unknowns split "
        "among them, docs/mpi.md), off shares the frequencies, auto: on when there are fewer "
        "frequencies than ranks"),
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
    STR("Mesh/orders", "",
        "a file of basis orders per tet (--save-mesh of a p or hp adaptive run writes "
        "<mesh>.orders beside the mesh): with Mesh/file, that run's unknowns (\"\": the "
        "case's orders)"),
    NUM("Mesh/reorder", 1, NULL, "renumber vertices by reverse Cuthill-McKee (1) or not (0)"),
    STR("Mesh/algorithm3d", "delaunay",
        "3D mesher: delaunay (Gmsh's default; the same mesh every run) or hxt (Gmsh's HXT, on "
        "one thread in Gmsh 4.8, ~3x faster on the DRA; it differs from run to run)"),
    STR("Mesh/volume_meshing", "auto",
        "delaunay: apart (the surfaces, then the volumes, each meshed alone in a child process, "
        "as many at once as threads; the same mesh for any number), together (Gmsh meshes all "
        "in one call on one thread: the meshes of emsolve before 2026-11-28) or auto (apart "
        "when the wavelength sizes imply >= 50000 tets, else together)"),
    NUM("Mesh/geometry_order", 1, NULL,
        "1: straight-sided tets; 2: curved (quadratic, isoparametric) tets whose mid-edge "
        "nodes lie on the CAD surfaces"),
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
    GSTR(2, "Boundary/*/type", "auto",
         "surface group '*': auto (a surface impedance when sigma > 0), impedance, or rlc (a "
         "lumped R, L, C sheet over the group's rectangle)"),
    GNUM(2, "Boundary/*/sigma", 0, "S/m",
         "conductivity of the metal behind surface group '*' (Leontovich surface impedance; "
         "0: none, the group keeps its name's role)"),
    GNUM(2, "Boundary/*/roughness", 0, "um",
         "rms surface roughness of group '*', micrometres (Hammerstad's loss factor)"),
    GNUM(2, "Boundary/*/R", 0, "ohm", "rlc group '*': resistance, ohm (0: none)"),
    GNUM(2, "Boundary/*/L", 0, "H", "rlc group '*': inductance, henry (0: none)"),
    GNUM(2, "Boundary/*/C", 0, "F", "rlc group '*': capacitance, farad (0: none)"),
    GSTR(2, "Boundary/*/circuit", "series", "rlc group '*': R, L, C in series or parallel"),
    GNUM(2, "Boundary/*/dir_x", 0, NULL,
         "rlc group '*': current direction x (0,0,0: along the shorter side)"),
    GNUM(2, "Boundary/*/dir_y", 0, NULL, "rlc group '*': current direction y"),
    GNUM(2, "Boundary/*/dir_z", 0, NULL, "rlc group '*': current direction z"),
    GSTR(2, "Boundary/*/periodic", "",
         "periodic pair: the surface group that is group '*' translated (its slave side; the "
         "mesh periodic), with the Floquet phase of the plane wave or of Periodic/theta, phi"),
    NUM("Periodic/theta", 0, "deg",
        "periodic cells driven by ports: scan direction, polar angle in degrees (a plane wave "
        "sets its own)"),
    NUM("Periodic/phi", 0, "deg", "periodic cells driven by ports: scan direction, azimuth"),
    NUM("PML/order", 2, NULL, "PML grading exponent m in sigma(xi) ~ (xi/L)^m"),
    NUM("PML/reflection", 1e-6, NULL, "PML normal-incidence reflection target R0"),
    NUM("PML/elements_only", 0, NULL,
        "1: the PML layer is meshed with PML/elements elements across however fine the rest "
        "(not sized by the wavelength); 0: at least that many"),
    NUM("PML/basis_order", 0, NULL,
        "basis order of the pml* volumes (0: Solver/order; -1: auto, 2 at Solver/order 3, else "
        "Solver/order; their Materials/*/order wins)"),
    NUM("PML/elements", 3, NULL,
        "elements across the thinnest PML layer at least (0: sized from the wavelength only; "
        "fewer than 3 let the DRA's answer move with the box, docs/validation.md)"),
    STR("Boundary/outer", "pec",
        "outer box faces without a group: pec, or abc (first-order absorbing)"),
    STR("Output/fields", "auto",
        "fields .vtk: auto (= middle: the one frequency, or the middle of a sweep), all, first, "
        "none"),
    NUM("Output/touchstone_z0", 0, "ohm",
        "reference impedance of the Touchstone file: 0 (the default) S on each port's own "
        "impedance (generalised S; Touchstone 2.0 [Reference] when they differ), R > 0 S "
        "renormalised to R at every port and frequency"),
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
    NUM("Output/h_field", 1, NULL,
        "1: H (A/m) and the Poynting vector S = 1/2 Re(E x H*) beside E in fields_<f>.vtk"),
    NUM("Output/surface_current", 1, NULL,
        "1: the surface current J_s = n x H on metal (PEC and impedance faces) in "
        "surface_<f>.vtk, at the frequencies of the fields"),
    STR("Output/plane_normal", "none",
        "E, H and S on the plane normal to x, y or z (none: no plane) at the frequencies of the "
        "fields: plane_<f>.csv / .vtk"),
    NUM("Output/plane_at", 0, "model units", "coordinate of the plane (model units)"),
    NUM("Output/plane_points", 101, NULL,
        "plane: points along the longer side of the mesh's (non-PML) extent"),
    STR("Output/plane_format", "both", "plane: csv, vtk or both"),
    STR("Farfield/compute", "auto",
        "far field and antenna figures / RCS at every frequency: auto (when the case has a PML "
        "or a plane wave), on, off"),
    NUM("Farfield/theta_step", 5, "deg", "far-field grid step in theta, degrees (divides 180)"),
    NUM("Farfield/phi_step", 5, "deg", "far-field grid step in phi, degrees (divides 360)"),
    STR("Farfield/surface", "auto",
        "NF2FF surface: auto (the surface group 'nf2ff' if any, else the boundary of the "
        "non-PML region), or the name of a closed surface group"),
    STR("Farfield/method", "volume",
        "NF2FF: volume (E and curl E weighted over a layer of tets one ring inside the surface; "
        "far less sensitive to the fields' errors) or surface (the traces on it)"),
    STR("Farfield/mirror_x", "none", "symmetry plane x = mirror_x_at: none, pec or pmc"),
    STR("Farfield/mirror_y", "none", "symmetry plane y = mirror_y_at: none, pec or pmc"),
    STR("Farfield/mirror_z", "none", "symmetry plane z = mirror_z_at: none, pec or pmc"),
    NUM("Farfield/mirror_x_at", 0, "model units", "x of the symmetry plane (model units)"),
    NUM("Farfield/mirror_y_at", 0, "model units", "y of the symmetry plane (model units)"),
    NUM("Farfield/mirror_z_at", 0, "model units",
        "z of the symmetry plane or ground (model units)"),
    NUM("Farfield/infinite_ground", 0, NULL,
        "1: the z mirror (pec) is an infinite ground plane: far field above it only"),
    STR("Excitation/type", "port",
        "what drives the structure: port (each port in turn) or "
        "planewave (scattering; ports, if any, are matched loads)"),
    STR("Excitation/ports", "all",
        "the ports driven, each in turn (port excitation): all, or their numbers comma-separated "
        "(\"1\", \"1,6\"); the others are matched loads.  Only those columns of S are solved "
        "(S_ij for every i, j driven): no Touchstone file then (ports.csv has them), no active "
        "reflection"),
    NUM("Excitation/theta", 0, "deg",
        "plane wave: direction of travel, polar angle in degrees (0: along +z)"),
    NUM("Excitation/phi", 0, "deg", "plane wave: direction of travel, azimuth in degrees"),
    NUM("Excitation/polarization", 0, "deg",
        "plane wave: E at this angle (degrees) from theta_hat towards phi_hat"),
    NUM("Excitation/amplitude", 1, "V/m", "plane wave: |E_inc|, V/m"),
    NUM("Output/plots", 0, NULL, "1: write PNG and SVG plots to <out>/plots (scripts/emplot.py)"),
    STR("Array/weights", "",
        "array excitation: the incident wave of each port as amp@deg, comma-separated "
        "(amplitude relative to 1 W; \"\": the scan of Array/scan_theta, scan_phi)"),
    NUM("Array/scan_theta", 0, "deg",
        "array: scan direction, polar angle (progressive phase from the port centres)"),
    NUM("Array/scan_phi", 0, "deg", "array: scan direction, azimuth"),
    NUM("Array/scan_step", 2, "deg",
        "array: active reflection every this many degrees of scan (divides 90)"),
};

const em_param_spec *em_params_specs(int *n) {
  *n = (int)(sizeof SPECS / sizeof SPECS[0]);
  return SPECS;
}

/* "mm" for a model unit of 1e-3 m, ... */
static const char *length_unit(const em_case *c, char *buf, size_t n) {
  double u = 1e-3;
  const em_param *p = em_case_param_find(c, "Geometry/unit");
  if (p && !p->is_string && p->number > 0) u = p->number;
  static const struct {
    double m;
    const char *name;
  } known[] = {{1, "m"}, {1e-2, "cm"}, {1e-3, "mm"}, {1e-6, "um"}, {2.54e-5, "mil"}};
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
    if (fabs(u - known[k].m) <= 1e-12 * known[k].m) {
      snprintf(buf, n, "%s", known[k].name);
      return buf;
    }
  snprintf(buf, n, "%g m", u);
  return buf;
}

const char *em_params_unit(const em_case *c, const char *name, char *buf, size_t n) {
  const em_param_spec *s = em_case_spec_of(c, name);
  buf[0] = '\0';
  if ((!strncmp(name, "Geometry/", 9) && strcmp(name, "Geometry/unit")) ||
      (s && s->unit && !strcmp(s->unit, "model units")))
    return length_unit(c, buf, n);
  if (s && s->unit) snprintf(buf, n, "%s", s->unit);
  return buf;
}

/* The help of a group parameter with its group named: "relative
 * permittivity of volume '*'" -> "... of volume 'dra'". */
static void group_help(const char *help, const char *pattern, const char *name, char *out,
                       size_t n) {
  const char *star = strchr(pattern, '*'), *at = strstr(help, "'*'");
  size_t pre = star ? (size_t)(star - pattern) : 0, len = 0;
  if (!star || !at || strncmp(pattern, name, pre)) {
    snprintf(out, n, "%s", help);
    return;
  }
  const char *g = name + pre, *end = strchr(g, '/');
  len = end ? (size_t)(end - g) : strlen(g);
  snprintf(out, n, "%.*s'%.*s'%s", (int)(at - help), help, (int)len, g, at + 3);
}

/* One line per parameter: value, unit, where the value came from, then
 * what it is (the case's Help, else emsolve's description) with the range,
 * choices and loop level the case declares; then the parameters emsolve
 * knows that nothing sets (those without a default: Solver/frequency when
 * the case sweeps), and the per-group parameters. */
void em_params_list(const em_case *c, FILE *f) {
  int n = em_case_param_count(c);
  fprintf(f, "%-34s %-14s %-14s %-12s %s\n", "parameter", "value", "unit", "source",
          "description [declared range] {choices} Loop");
  for (int i = 0; i < n; i++) {
    const em_param *p = em_case_param_at(c, i);
    const em_param_spec *s = em_case_spec_of(c, p->name);
    char val[64], extra[160] = "", unit[32], help[512];
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
    if (p->help && p->help[0])
      snprintf(help, sizeof help, "%s", p->help);
    else if (s && s->help)
      group_help(s->help, s->name, p->name, help, sizeof help);
    else
      help[0] = '\0';
    em_params_unit(c, p->name, unit, sizeof unit);
    fprintf(f, "%-34s %-14s %-14s %-12s %s%s\n", p->name, val, unit, p->source, help, extra);
  }
  int ns;
  const em_param_spec *s = em_params_specs(&ns);
  for (int i = 0; i < ns; i++) {
    char unit[32];
    if (s[i].has_default || strchr(s[i].name, '*') || em_case_param_find(c, s[i].name)) continue;
    em_params_unit(c, s[i].name, unit, sizeof unit);
    fprintf(f, "%-34s %-14s %-14s %-12s %s\n", s[i].name, "-", unit, "not set", s[i].help);
  }
  fprintf(f, "\nper-group parameters ('*' = a volume or port group name of the case):\n");
  for (int i = 0; i < ns; i++)
    if (strchr(s[i].name, '*')) {
      char unit[32];
      em_params_unit(c, s[i].name, unit, sizeof unit);
      fprintf(f, "  %-32s %-14s %s\n", s[i].name, unit, s[i].help);
    }
}
