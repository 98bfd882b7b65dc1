/* em_model.h - the problem of a case: its parameters (the one table and
 * the typed view every later stage reads), its physics on a mesh (media,
 * PML, ports, face roles, the plane wave, the eigen pencil), the problem
 * object of a fixed mesh (fsys), what a run builds once per mesh
 * (em_model), and the frequency model of a sweep: minimal rational
 * interpolation of solution snapshots and the greedy adaptive sweep built
 * on it (docs/sweeps.md). */
#ifndef EM_MODEL_H
#define EM_MODEL_H

#include "em_assembly.h"
#include "em_core.h"
#include "em_formats.h"
#include "em_mesh.h"
#include "em_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------- the case's parameters
 *
 * Every parameter emsolve knows is one row of params.c: name, type,
 * default (or required), unit, meaning.  mesh/ keeps the case's values
 * (the ONELAB parameters read through Gmsh, the -setnumber / -setstring
 * overrides, these defaults: em_case_open takes the table as data); this
 * module alone gives them a meaning: the typed view below is read once, in
 * SI units and checked, and the stages read it, not the names. */
const em_param_spec *em_params_specs(int *n);
/* --list-params: every parameter of case c with its value, unit and source,
 * then the per-group ones ('*'). */
void em_params_list(const em_case *c, FILE *f);
/* The unit of parameter `name` of case c as a reader wants it: a length in
 * model units (Geometry/, Ports/ * /deembed, ...) as "mm", "m", ... from
 * Geometry/unit; a spec's own unit; "" none known.  Returns buf. */
const char *em_params_unit(const em_case *c, const char *name, char *buf, size_t n);

/* Symmetry and image planes of the far field (Farfield/mirror_*). */
typedef enum em_mirror { EM_MIRROR_NONE = 0, EM_MIRROR_PEC, EM_MIRROR_PMC } em_mirror;

/* The solver's settings (config_solver.c): handed whole to the problem
 * object (em_fsys_desc.solve). */
typedef struct em_solve_opts {
  em_ksp_opts ksp;
  int rhs_block; /* Solver/rhs_block: excitations solved together as one block (shared
                    products and preconditioner applies): 0 all, 1 one after another */
  em_pc_opts pc;
  int pc_auto;        /* Solver/preconditioner auto: direct, pmg / ilu0 when it fits nowhere */
  int ordering_auto;  /* Solver/ordering auto: nd for direct, rcm for ilu0 */
  int pmg_pml_coarse; /* PMG/pml_coarse: the PML unknowns of orders 1..N in the coarse solve
                         (-1: auto, N = the highest order of the PML's tets) */
  int pmg_pml_block;  /* PMG/pml_smoother: every PML unknown in a block level smoothed by
                         1 ILU(0), 2 a direct factor (0: none) */
  em_blockop_opts bop;
  int distributed;   /* Solver/distributed: 0 off, 1 on, 2 auto (docs/mpi.md; app/ decides) */
  int overlap;       /* Solver/overlap: 1 the direct factor's analysis on a thread of its own
                        while the first frequency assembles (model/fsys_overlap.c) and a
                        sweep's outputs beside the next solve (app/sweep_post.c), 0 in turn */
  int ahead_threads; /* Solver/ahead_threads: OpenMP threads of a sweep's work beside the
                        solve (next assembly, last outputs): -1 auto, 0 all, N */
} em_solve_opts;

/* The OpenMP team of the work a sweep runs beside its solve on a thread
 * of its own (model/fsys_next.c's assembly, app/'s outputs), the run's
 * own team having `threads`: Solver/ahead_threads N, all with 0, half
 * (at least 1) with -1 (auto) so that the solve's host part (the direct
 * factor's value checks and equilibration, the operator's refill) keeps
 * half the cores. */
int em_ahead_threads(const em_solve_opts *o, int threads);

/* The typed view of a case's parameters, read once (config.c). */
typedef struct em_run_config {
  double unit; /* metres per model unit */
  int n_freq;
  double *freq;               /* Hz */
  int order;                  /* 1..3: Solver/order, the basis order of a volume without its
                                 own (the DOF map carries the highest: em_dofmap.order) */
  int geometry_order;         /* Mesh/geometry_order: 1 straight, 2 curved tets */
  int hxt;                    /* Mesh/algorithm3d: 0 delaunay, 1 hxt */
  int apart;                  /* Mesh/volume_meshing: 0 auto, 1 apart, -1 together */
  double epw;                 /* elements per wavelength used */
  double mesh_freq;           /* Hz: the wavelength that sizes the mesh */
  const char *mesh_freq_from; /* which parameter gave it (log, summary.json) */
  char *mesh_file;            /* Mesh/file: the .msh solved on instead of meshing (NULL: mesh) */
  int sweep_adaptive;         /* Solver/sweep adaptive */
  double sweep_tol;           /* Solver/sweep_tol, on S */
  int sweep_max_solves;       /* Solver/sweep_max_solves */
  em_solve_opts solve;        /* Solver/ *, PMG/ * */
  int outer_abc;              /* exterior faces: 0 PEC, 1 first-order ABC */
  int pml_order;              /* grading exponent m */
  double pml_reflection;      /* normal-incidence reflection target */
  int pml_elements;           /* elements across the thinnest PML layer (0: from the wavelength) */
  int pml_basis_order;   /* PML/basis_order: the PML's basis order (0: Solver/order, -1: auto) */
  int pml_elements_only; /* PML/elements_only: the layer sized by PML/elements alone */
  int fields;            /* 0 none, 1 first frequency, 2 all, 3 middle (n_freq / 2) */
  int vtk_binary;
  int subdiv;
  double touchstone_z0;     /* ohm: the Touchstone file's reference (0: each port's own) */
  int line_points;          /* E along a line: points (0: none) */
  int interp_points;        /* S splined onto this many frequencies (0: none) */
  double line[6];           /* from xyz, to xyz (metres) */
  int eigen;                /* Solver/problem: 0 driven, 1 eigen */
  double eig_target;        /* Eigen/target, Hz */
  int eig_n;                /* Eigen/n */
  double eig_tol;           /* Eigen/tolerance */
  int eig_ncv;              /* Eigen/subspace (0: automatic) */
  int eig_restarts;         /* Eigen/max_restarts */
  int eig_ports;            /* Eigen/ports: 0 open (PMC), 1 short (PEC), 2 matched */
  int h_field;              /* Output/h_field: H and S beside E in fields_<f>.vtk */
  int surface_current;      /* Output/surface_current: surface_<f>.vtk */
  int plane_axis;           /* Output/plane_normal: -1 none, 0 x, 1 y, 2 z */
  double plane_at;          /* metres */
  int plane_points;         /* along the longer side */
  int plane_csv, plane_vtk; /* Output/plane_format */
} em_run_config;

em_err em_run_config_read(const em_case *c, em_run_config *cfg);
void em_run_config_free(em_run_config *cfg);
/* The checks before meshing (config_check.c): geometry numbers (sizes > 0,
 * others >= 0 unless the case declares a Min), frequencies in 1 kHz .. 10
 * THz (Eigen/target too), every physical group made of entities that exist
 * (em_case_check_groups), no Geometry/ value on the command line over a
 * loaded mesh (Mesh/file), Mesh/elements_per_wavelength >= 2, the
 * spelling of Excitation/ports. */
em_err em_run_config_check(const em_case *c, const em_run_config *cfg);

/* ---------------------------------------------------- the case physics
 *
 * What the case's groups mean (case_setup.c).  Volumes: Materials/<group>/
 * eps_r (required), mu_r, tan_delta; a volume named pml* is a PML layer
 * (its medium the background, eps_r optional).  Surfaces: pec* (tangential
 * E = 0), pmc* (the natural condition: a magnetic wall), portN (a port,
 * Ports/portN/type coax | waveguide | lumped, z0, deembed, dir_*).  An
 * exterior face in no group is PEC, or with outer_abc, when it lies on the
 * bounding box, the first-order ABC.  Precedence on a face in several
 * groups: pec > port > pmc. */
typedef enum em_face_role {
  EM_FACE_NONE = 0,  /* interior, or a natural boundary of no group */
  EM_FACE_PEC,       /* fixed: pec* groups and bare exterior faces */
  EM_FACE_PORT,      /* a port's face (natural; the port adds its Robin term) */
  EM_FACE_PMC,       /* pmc*: natural, nothing added */
  EM_FACE_ABC,       /* exterior on the bounding box with Boundary/outer abc */
  EM_FACE_IMPEDANCE, /* a conductor's surface impedance (Boundary/<g>/sigma) */
  EM_FACE_LUMPED,    /* a lumped R, L, C sheet (Boundary/<g>/type rlc) */
  EM_FACE_PERIODIC   /* a side of a periodic pair (natural; tied by the solve) */
} em_face_role;

/* A surface boundary of a case group (case_surface.c, docs/physics.md):
 *   impedance: Leontovich's condition E_t = Z_s H x n (n into the metal) on
 *     the surface of a good conductor, Z_s = (1 + j) K sqrt(w mu0 / (2 sigma))
 *     with Hammerstad's roughness factor K = 1 + (2/pi) atan(1.4 (D/delta)^2)
 *     (D the rms roughness, delta the skin depth; K = 1 without roughness);
 *   lumped: a sheet of width w and length l (its current along v) carrying
 *     the element impedance Z = R + j w L + 1 / (j w C) (series) or
 *     1 / Z = 1 / R + 1 / (j w L) + j w C (parallel); a value 0 leaves that
 *     element out.  Its sheet impedance is Z w / l.
 * Both are the Robin term gamma oint E_t . w_t (lumped: along v only) with
 * gamma = j k0 Z0 / Z_sheet, Z_sheet = Z_s or Z w / l. */
typedef enum em_surface_kind { EM_SURFACE_IMPEDANCE = 1, EM_SURFACE_LUMPED } em_surface_kind;

typedef struct em_surface {
  int group; /* surface group (index into mesh->group) */
  em_surface_kind kind;
  double sigma;     /* impedance: conductivity, S/m */
  double roughness; /* impedance: rms roughness, m (0: smooth) */
  double R, L, C;   /* lumped: ohm, H, F (0: left out) */
  int parallel;     /* lumped: 1 parallel, 0 series */
  double v[3];      /* lumped: unit current direction in the sheet */
  double w, l;      /* lumped: width across v and length along v (m) */
  int32_t n_face;
  int32_t *face; /* the group's faces with this role, ascending */
} em_surface;

/* Z_s (impedance) or Z w / l (lumped) in ohm at k0 (rad/m); the element
 * impedance Z itself with *z_elem (may be NULL). */
em_cplx em_surface_sheet(const em_surface *s, double k0, em_cplx *z_elem);
/* The surface's Robin term at k0 (gamma = j k0 Z0 / Z_sheet; no source). */
void em_surface_robin(const em_surface *s, double k0, em_robin *r);
/* Time-averaged power the surface dissipates for the solution x:
 *   P = 1/2 Re(1 / Z_sheet) oint |E_t|^2   (lumped: |E . v|^2),
 * E_t from the tet on the face's meshed side. */
em_err em_surface_loss(const em_surface *s, const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                       const em_cplx *fixed, double k0, double *p);

typedef struct em_setup_opts {
  int outer_abc;         /* bare exterior faces on the bounding box: 0 PEC, 1 ABC */
  int pml_order;         /* PML grading exponent m */
  double pml_reflection; /* PML normal-incidence reflection target R0 */
  int basis_order;       /* Solver/order: a volume's basis order unless set */
  int pml_basis_order;   /* PML/basis_order: the pml* volumes' (0: basis_order; -1:
                           auto, 2 at basis_order 3, else basis_order) */
} em_setup_opts;

typedef struct em_setup {
  em_medium *medium; /* per mesh group (volumes used) */
  int has_pml;
  em_pml pml;
  int n_port;
  em_port *port;       /* port1 .. portN */
  uint8_t *face_role;  /* per face: em_face_role */
  uint8_t *face_fixed; /* per face: tangential E prescribed (EM_FACE_PEC) */
  int32_t n_abc;
  int32_t *abc_face; /* the EM_FACE_ABC faces, ascending */
  int8_t *order;     /* per mesh group: the basis order of a volume (0:
                        none given, or not a volume) */
  int n_surface;
  em_surface *surface; /* impedance and lumped boundaries, by group */
} em_setup;

/* The medium of volume `name` (is_pml: eps_r may be absent, then 1);
 * errors name the material and the parameter to define. */
em_err em_setup_medium_of(const em_case *c, const char *name, int is_pml, em_medium *med);
/* sqrt(|eps_r mu_r|) of a volume group (ctx: the em_case; 1 when its
 * medium is incomplete): em_mesh_opts.index_of. */
double em_setup_index_of(void *ctx, const char *group_name);
/* Media, PML (em_pml_detect), ports, face roles of case c on mesh m; log
 * gets the PML box and the ports' geometry. */
em_err em_setup_build(const em_case *c, const em_mesh *m, const em_setup_opts *o, const em_log *log,
                      em_setup *s);
/* The surface boundaries of the case's surface groups (Boundary/<g>/...)
 * into s->surface, their faces' roles into role (called by em_setup_build
 * after the pec / port / pmc roles); em_setup_surfaces_free frees them. */
em_err em_setup_surfaces(const em_case *c, const em_mesh *m, em_setup *s, uint8_t *role);
void em_setup_surfaces_free(em_setup *s);
/* The Robin terms of the surface boundaries at k0 into rb (at most cap;
 * they borrow the setup's face lists). */
em_err em_setup_surface_robins(const em_setup *s, double k0, em_robin *rb, int cap, int *n);
/* Power dissipated by all surface boundaries of kind (0: all). */
em_err em_setup_surface_loss(const em_setup *s, const em_mesh *m, const em_dofmap *d,
                             const em_cplx *x, const em_cplx *fixed, double k0, int kind,
                             double *p);
/* The port planes become PEC (an eigen run with Eigen/ports short). */
void em_setup_short_ports(const em_mesh *m, em_setup *s);
/* Every port at every frequency of freq[]: a waveguide port below its
 * cut-off is an error naming it (before any solve or output). */
em_err em_setup_check_band(em_setup *s, const double *freq, int n_freq);
void em_setup_free(em_setup *s);
/* Order per region (region_order.c, docs/physics.md): a volume's basis
 * order is Materials/<volume>/order when the case sets it (1..3), else
 * PML/basis_order for a pml* volume when set (-1, auto: 2 at Solver/order
 * 3, else Solver/order), else Solver/order.  Fills
 * s->order (called by em_setup_build). */
em_err em_setup_orders(const em_case *c, const em_mesh *m, const em_setup_opts *o, em_setup *s);
/* The order of the volume named `name` by that rule (before meshing). */
em_err em_setup_order_of(const em_case *c, const char *name, const em_setup_opts *o, int *order);
/* Unknowns of pmg's exact coarse level (PMG/coarse = coarse groups,
 * PMG/pml_coarse = pml_coarse, -1: auto, the PML volumes' highest order):
 * the groups 1 .. coarse and the PML's unknowns of the groups above up to
 * pml_coarse. */
em_err em_setup_coarse_count(const em_setup *s, const em_mesh *m, const em_dofmap *d, int coarse,
                             int pml_coarse, int32_t *n);
/* The DOF map of the setup's orders (an entity shared by regions takes
 * the highest: docs/basis.md) and fixed faces. */
em_err em_setup_dofmap(const em_setup *s, const em_mesh *m, em_dofmap **d);
/* The log's account: per volume its order and unknowns by order group
 * (an unknown counts for the region its entity took its order from). */
em_err em_setup_log_orders(const em_setup *s, const em_mesh *m, const em_dofmap *d,
                           const em_log *log);
/* <|E|^2> over the PML tets on the outer wall / over those on the
 * interface with the interior (volume-weighted means, E at the centroids)
 * for the solution x (fixed: the fixed DOFs' values, NULL zero): the
 * round-trip reflection estimate of the layer (pml_wall.c); NaN without a
 * PML or without field at the interface. */
double em_setup_pml_wall(const em_mesh *m, const em_dofmap *d, const em_setup *s, const em_cplx *x,
                         const em_cplx *fixed);

/* The mesh and set-up options of a configuration (config.c): one place
 * for a run and a design sweep's estimate, so that both mesh alike. */
em_mesh_opts em_run_config_mesh_opts(const em_run_config *cfg, const em_case *cs);
em_setup_opts em_run_config_setup_opts(const em_run_config *cfg);
/* After the setup, before the first solve (config_check.c): the PML's
 * thickness, every point of the line probe inside the mesh. */
em_err em_run_config_check_mesh(const em_case *c, const em_run_config *cfg, const em_mesh *m,
                                const em_setup *s);

/* The array outputs of a case with several wave ports (Array/ *,
 * config_array.c; written by post/ff_array.c, docs/farfield.md "Arrays"):
 * every port's embedded pattern, the array's pattern and figures for the
 * weights (Array/weights, or the scan to Array/scan_theta, scan_phi), the
 * active reflection against scan angle. */
typedef struct em_array_config {
  int enabled;             /* far field on, >= 2 ports, all wave ports */
  int scan;                /* 1: the weights from the scan direction */
  double scan_theta;       /* radians */
  double scan_phi;         /* radians */
  double scan_step;        /* degrees: active reflection every this much */
  em_cplx w[EM_MAX_PORTS]; /* Array/weights (scan 0) */
  char weights[256];       /* Array/weights as written (the log) */
  int lumped;              /* far field on, >= 2 ports, some lumped: no array outputs */
} em_array_config;

/* Array/ * into a (config_array.c), after the far field's settings: enabled
 * when the far field is on without a plane wave and the case has two or
 * more wave ports; weights given for a case without them are an error. */
em_err em_array_config_read(const em_case *c, int ff_enabled, int planewave, const em_setup *s,
                            em_array_config *a);
/* "amp@deg, amp@deg, ..." (or plain amplitudes, phase 0) into a[0..n-1]:
 * each a_i relative to the 1 W of port i's own solve; exactly n weights,
 * not all zero; errors name the weight (config_array.c). */
em_err em_array_parse_weights(const char *s, int n, em_cplx *a);

/* The far field and the excitation (config_ff.c, docs/farfield.md): read
 * once the mesh and the setup exist (the surface is a mesh group; auto
 * asks for a PML).  Angles in radians, positions in metres. */
typedef struct em_ff_config {
  int enabled;                             /* compute the far field at each frequency */
  int compute_auto;                        /* Farfield/compute auto (not on) */
  int planewave;                           /* Excitation/type planewave (ports: loads) */
  double theta_step, phi_step;             /* degrees */
  int group;                               /* NF2FF surface group, -1: PML boundary */
  em_mirror mirror[3];                     /* Farfield/mirror_x|y|z */
  double mirror_at[3];                     /* metres */
  int half_space;                          /* Farfield/infinite_ground */
  double pw_theta, pw_phi, pw_psi, pw_amp; /* radians, V/m */
  int plots;                               /* Output/plots */
  em_array_config arr;                     /* several wave ports (Array/ *) */
  int volume;                              /* Farfield/method: 1 volume form, 0 surface */
} em_ff_config;

em_err em_ff_config_read(const em_case *c, const em_run_config *cfg, const em_mesh *m,
                         const em_setup *s, em_ff_config *ff);

/* The plane wave as the problem object's extra excitation (excitation.c):
 * em_pw_source_prepare is an em_fsys_desc.prepare with ctx = the source;
 * without Excitation/type planewave it adds nothing. */
typedef struct em_pw_source {
  const em_mesh *mesh;
  const em_setup *setup;
  const em_ff_config *ff;
  em_planewave pw;                     /* at the current frequency */
  em_scatter sc;                       /* its scattered-field sources */
  em_scatter_port sport[EM_MAX_PORTS]; /* the ports as its loads */
} em_pw_source;

em_err em_pw_source_prepare(void *ctx, double k0, em_problem *prob);
/* An em_fsys_desc.port_source (ctx = the source): port i's load term gets
 * the scattered field's Robin source (em_scatter_port_source). */
em_err em_pw_port_source(void *ctx, double k0, int port, em_robin *r);

/* Solver/problem eigen (eigen_pair.c): S (k0 = 0 with the ABC and, when
 * matched, the ports' Robin terms) and T (the mass, k0 = 1 with nu = 0,
 * sign flipped) as CSR in the DOF map's numbering, the PML and the ABC
 * frozen at the target wavenumber kt. */
em_err em_setup_eigen_pair(const em_mesh *m, const em_dofmap *d, em_setup *s, int matched,
                           double kt, const em_log *log, em_csr **S, em_csr **T);

/* ------------------------------------------------ periodic boundaries
 *
 * Pairs of planar surface groups, Boundary/<master>/periodic = "<slave>"
 * (the slave the master translated by d; at most three pairs), with the
 * Floquet condition E(x + d) = E(x) exp(-j k_t . d) (periodic.c,
 * docs/physics.md).  The slave side's unknowns are the master side's times
 * the phase; the solve works on A_red = P^H A P, b_red = P^H b (not complex
 * symmetric for k_t != 0: periodic_solve.c), and the solution is expanded
 * to every DOF. */
typedef struct em_periodic em_periodic;

/* The pairs of case c on mesh m; *p NULL when the case has none.  Errors:
 * an unknown partner, groups that are not planar translates. */
em_err em_periodic_create(const em_case *c, const em_mesh *m, em_periodic **p);
void em_periodic_destroy(em_periodic **p);
int em_periodic_pairs(const em_periodic *p);
/* The mesh with its vertices renumbered by (root image, id), so that the
 * translations keep the vertex order (and with it the basis orientation);
 * every slave vertex must have its image (a periodic mesh). */
em_err em_periodic_mesh(em_periodic *p, const em_mesh *m, em_mesh **out);
/* The slave DOFs of the DOF map d on the periodic mesh m tied to their
 * masters; the reduced numbering keeps the order groups. */
em_err em_periodic_dofs(em_periodic *p, const em_mesh *m, const em_dofmap *d);
/* k_t = k0 kdir (kdir: the plane wave's k / k0, or the scan direction). */
void em_periodic_set_k(em_periodic *p, const double kdir[3]);
int32_t em_periodic_n_red(const em_periodic *p);
/* Solve the assembled (whole-mesh) system sys at k0 for every right-hand
 * side: A_red by the LDL^T of the complex symmetric M = P^T A P and a
 * Woodbury correction of the rows where they differ, refined against
 * A_red (periodic_solve.c).  x: [n_rhs][n_dof] expanded to every DOF; st
 * per right-hand side (iterations = refinement steps). */
em_err em_periodic_solve(em_periodic *p, double k0, const em_system *sys, const em_log *log,
                         em_cplx *x, em_ksp_stats *st);

/* ------------------------------------------------ adaptive marking
 *
 * Which tets a pass of adaptive refinement refines and how
 * (refine_mark.c, docs/adapt.md): Doerfler marking of eta_T^2 with the
 * predicted growth of the unknowns held between grow_min and grow_max. */
typedef enum em_refine_kind { EM_REFINE_H = 0, EM_REFINE_P, EM_REFINE_HP } em_refine_kind;

typedef struct em_refine_opts {
  int kind;        /* em_refine_kind: h splits, p raises the order, hp raises
                      below EM_MAX_ORDER and splits at it */
  double fraction; /* Doerfler's theta: share of sum eta_T^2 to refine */
  double shrink;   /* a split tet's vertices ask for this share of their size */
  double grow_min; /* predicted unknowns after / before: at least this ... */
  double grow_max; /* ... and at most this (one tet is refined whatever) */
} em_refine_opts;

typedef struct em_refine_stats {
  int32_t n_p, n_h; /* tets raised, tets split */
  double share;     /* of sum eta_T^2 in them */
  double growth;    /* predicted unknowns after / before */
} em_refine_stats;

/* From eta2 [n_tet]: new_order [n_tet] (p, hp: order with the raised tets
 * one higher; order and new_order NULL for h) and vshrink [n_vert] (the
 * factor on each vertex's size, 1 where nothing is split). */
em_err em_refine_mark(const em_mesh *m, const double *eta2, const em_refine_opts *o,
                      const int8_t *order, int8_t *new_order, double *vshrink, em_refine_stats *st);

/* ------------------------------------------- minimal rational interpolation
 *
 * Samples (z_j, u_j, y_j), j = 1..k: u_j a snapshot (the solution vectors of
 * every excitation at z_j, length n_u), y_j what is measured on it (length
 * n_y, linear in u_j).  The surrogate is the barycentric rational function
 *
 *   u~(z) = sum_j w_j u_j / (z - z_j)  /  sum_j w_j / (z - z_j),
 *
 * which interpolates every sample for any weights w_j != 0; MRI (Pradovera,
 * SIAM J. Numer. Anal. 58, 2020) takes the w, |w| = 1, that minimises
 * |sum_j w_j u_j|: the numerator's leading coefficient, so u~ is of type
 * [k-2 / k-1].  w is the right singular vector of the smallest singular
 * value of R in U = Q R (the Gramian U^H U = R^H R, never formed).  y~(z) is
 * the same barycentric sum over y_j: what u~(z) would measure. */
typedef struct em_mri em_mri;

/* z in Hz; the fit works in t = (z - zc) / zs (zs > 0: half the band). */
em_err em_mri_create(int64_t n_u, int n_y, int cap, double zc, double zs, em_mri **m);
void em_mri_destroy(em_mri **m);
/* Add a sample (u is only read: its R column is kept, Q grows by one
 * column) and refit w; the weights before are kept for em_mri_eval_prev. */
em_err em_mri_add(em_mri *m, double z, const em_cplx *u, const em_cplx *y);
int em_mri_count(const em_mri *m);
/* y~(z) of the current fit, and of the fit before the last sample (k >= 2). */
void em_mri_eval(const em_mri *m, double z, em_cplx *y);
void em_mri_eval_prev(const em_mri *m, double z, em_cplx *y);
/* Where the current fit is least reliable: 1 / |sum_j w_j / (t - t_j)|
 * (u~ - u = sum_j w_j (u_j - u) / (t - t_j) over that sum: the numerator is
 * smooth, the error follows the inverse of the denominator), 0 at samples. */
double em_mri_indicator(const em_mri *m, double z);
/* The snapshot u~(z) = Q R c(z) (fields from the model). */
void em_mri_eval_snapshot(const em_mri *m, double z, em_cplx *u);
/* Smallest and largest singular value of R (diagnostics). */
void em_mri_sigma(const em_mri *m, double *smin, double *smax);

/* ------------------------------------------------------- adaptive sweep
 *
 * Greedy over the band [f0, f1]: full solves at f0, f1 and the middle, then
 * repeatedly at the test frequency where em_mri_indicator is largest; the
 * error is estimated by how much the surrogates of the last two sample sets
 * differ in the outputs s (the S-parameters) over the test frequencies, and
 * checked at each new sample (what the surrogate predicted there against
 * the solve).  Stops when both are below tol, or at max_solves. */
typedef struct em_adaptive {
  double f0, f1;  /* Hz */
  double tol;     /* on |s| */
  int max_solves; /* >= 3 */
  int n_test;     /* test frequencies, uniform over [f0, f1] */
  int64_t n_u;    /* snapshot length */
  int n_y;        /* measured quantities per sample */
  int n_s;        /* outputs compared per frequency */
  /* a full solve at f: the snapshot u and its measurements y */
  em_err (*solve)(void *ctx, double f, em_cplx *u, em_cplx *y);
  /* the outputs s (S-parameters) from measurements y at f */
  em_err (*output)(void *ctx, double f, const em_cplx *y, em_cplx *s);
  void *ctx;
  const em_log *log;
} em_adaptive;

typedef struct em_adaptive_result {
  int n_solves;
  int converged;   /* estimate and check below tol */
  double estimate; /* last max over test frequencies of the estimate */
  double check;    /* last |s~ - s| at a new sample, before it was added */
  double f[64];    /* the sampled frequencies, in the order solved */
} em_adaptive_result;

/* Build the surrogate; *m is the fitted MRI (em_mri_eval gives y at any f). */
em_err em_adaptive_run(const em_adaptive *a, em_mri **m, em_adaptive_result *res);

/* ------------------------------------------------ the frequency system
 *
 * The problem object of a fixed mesh: what does not change with frequency is
 * built once (the PML tets, the ABC faces by medium, the matrix pattern and
 * the colouring of the assembly, the operator's row
 * permutation, the pmg coarse set, the preconditioner's ordering and
 * analysis); each em_fsys_solve sets the ports and the Robin terms to the
 * frequency, assembles, permutes, builds the operator, refactors on the kept
 * analysis and solves every excitation. */
typedef struct em_fsys_desc {
  const em_mesh *mesh;
  const em_dofmap *dofs;      /* the unknowns and the basis order */
  const em_setup *setup;      /* media, PML, ports (their frequency state is set by
                                 em_fsys_solve), the ABC faces, the surface
                                 impedances and lumped sheets (their Robin terms) */
  const em_solve_opts *solve; /* format, preconditioner, Krylov method */
  em_periodic *periodic;      /* Floquet pairs: solved by em_periodic_solve
                                 instead of the operator and the Krylov method
                                 (NULL: none) */
  em_backend backend;
  /* optional: another excitation (a plane wave) into prob at k0 */
  em_err (*prepare)(void *ctx, double k0, em_problem *prob);
  void *prepare_ctx;
  /* more than one rank: every solve distributed over them (dfsys.c, issue
     27): rank 0 calls em_fsys_solve, the others em_fsys_serve; NULL or one
     rank: the solve of this process alone */
  const struct em_dist *dist;
  /* optional, with a plane wave: the ports are matched loads (no port
     excitation; em_port_robin_load) and this sets the Robin source of port
     i's term r for the scattered field (after prepare, same ctx) */
  em_err (*port_source)(void *ctx, double k0, int port, em_robin *r);
  /* 1: the assembled matrix stays in the returned system (--dump-matrix);
     0: em_fsys_solve consumes it block by block into its own copy (the
     host then holds the matrix once, not twice) and the system comes back
     with A NULL */
  int keep_matrix;
  /* the ports excited (em_model.excite; 0: every port): one right-hand
     side each, in ascending port order; the others are matched loads */
  uint32_t excite;
  /* 1: the run makes one solve on this mesh (one frequency, no adaptive
     sweep): the assembler keeps no frequency-independent part for later
     passes (its sums cost a plain pass's work again and ~30 bytes an
     entry: 1.7 s and 3.9 GiB at 1.36M unknowns) */
  int one_solve;
} em_fsys_desc;

/* What a solve did. */
typedef struct em_fsys_stats {
  double t_assembly, t_operator, t_pc, t_solve; /* seconds */
  em_pc_info pc;
  em_ksp_stats ksp[EM_MAX_PORTS]; /* per excitation */
  int n_solve;
  int converged;
} em_fsys_stats;

typedef struct em_fsys em_fsys;

/* One block A_ij of the operator: its size, entries and longest row. */
typedef struct em_fsys_block {
  int32_t rows, cols, row_max;
  int64_t nnz;
} em_fsys_block;

em_err em_fsys_create(const em_fsys_desc *d, em_fsys **s);
void em_fsys_destroy(em_fsys **s);
/* The frequency the next em_fsys_solve will be at (0: none; read by the
 * next solve only).  That solve's assembly then runs on a second host
 * thread while this one's preconditioner refactors (the GPU's work), on
 * the host's cores the factorization leaves idle, into a system of its
 * own; a solve at another frequency drops it.  The results are the same
 * bits (the same assembly, only earlier).  Only for a problem whose
 * prepare and port_source keep no state (no plane wave): the caller
 * says so by naming the frequency (model/fsys_next.c). */
void em_fsys_set_next(em_fsys *s, double f_next);
/* Solve at f (Hz).  *x [n_solve][n_dof] in the DOF numbering and *sys (the
 * assembled system: its fixed values, its matrix) go to the caller.  log:
 * the stages' progress (NULL silent); a not converged solve is a warning.
 * A distributed solve: *sys holds this rank's rows (em_system.row; the
 * matrix already freed into the operator) and the whole fixed values, *x
 * is rank 0's only (NULL on the others). */
em_err em_fsys_solve(em_fsys *s, double f, const em_log *log, em_fsys_stats *st, em_system **sys,
                     em_cplx **x);
/* A distributed solve (desc.dist of P > 1 ranks): a rank other than 0
 * serves rank 0's solves, each em_fsys_solve of rank 0 running here with
 * this rank's share (rank 0 sends the frequency), until rank 0 releases
 * it: then EM_OK.  A rank that meshed otherwise than rank 0 is an error. */
em_err em_fsys_serve(em_fsys *s, const em_log *log);
/* Rank 0: release the serving ranks (at the end of the run, once, whether
 * or not a solve was made); elsewhere nothing. */
em_err em_fsys_release(const struct em_dist *d);
/* The sizes of the operator's blocks (nb of them per side; NULL op: no
 * operator, a periodic cell's own solve) and the operator of the last
 * solve (a distributed solve: this rank's local part). */
void em_fsys_operator(const em_fsys *s, int *nb, em_fsys_block blk[EM_MAX_ORDER][EM_MAX_ORDER],
                      const em_blockop **op);
/* Whether the preconditioner exists (a solve was made). */
int em_fsys_ready(const em_fsys *s);

/* The first-order ABC j k0 sqrt(eps_r mu_r) / mu_r n x (n x E) on the listed
 * exterior faces: one Robin term per medium that touches them (faces[t]
 * lists that medium's faces, freed with em_abc_free).  Returns the number of
 * terms in *n (at most cap). */
em_err em_abc_robins(const em_mesh *m, const em_medium *medium, const int32_t *abc_face,
                     int32_t n_abc, double k0, em_robin *rb, int cap, int *n);
void em_abc_free(em_robin *rb, int n);

/* The parts of a distributed solve (dpart.c, issue 27): tet_part[t] in
 * 0..P-1 by METIS k-way on the tets' dual graph, each tet weighted by its
 * unknowns; owner[i] = the lowest part among the tets that hold unknown i.
 * The same mesh gives the same parts on every rank. */
em_err em_dpart_build(const em_mesh *m, const em_dofmap *d, int P, int32_t *tet_part,
                      int32_t *owner);
/* The same over the ranks of dist, collective: rank 0 alone runs METIS and
 * sends tet_part [n_tet]; every rank derives owner [n_dof] (em_dpart_build's
 * parts and owners, without every rank repeating the partition). */
em_err em_dpart_share(const struct em_dist *dist, const em_mesh *m, const em_dofmap *d,
                      int32_t *tet_part, int32_t *owner);

/* ------------------------------------------------ the problem of a mesh
 *
 * What a run builds once before its first frequency and every later stage
 * reads (app/ builds it stage by stage, post/ writes from it): the case
 * and its typed parameters, the mesh, the physics on it, the far field's
 * settings, the unknowns, the device, the problem object, and the layout
 * the operator took at the first solve. */
typedef struct em_block_stat {
  int32_t rows, cols;
  int64_t nnz;
  double row_mean;
  int32_t row_max;
  em_spmat_info info; /* format chosen for the block */
} em_block_stat;

typedef struct em_model {
  em_case *cs;
  em_periodic *periodic; /* Floquet pairs (periodic.c), NULL: none */
  em_run_config cfg;
  em_mesh *mesh;
  em_mesh_stats mstats;
  double t_mesh; /* s */
  em_setup setup;
  em_ff_config ff;
  em_pw_source pw; /* the plane-wave excitation (ff.planewave) */
  em_dofmap *dofs;
  em_device dev;
  em_fsys *fsys; /* made at the first solve */
  int n_block;   /* order groups, 0 until the first solve */
  em_block_stat block[EM_MAX_ORDER][EM_MAX_ORDER];
  size_t operator_bytes;
  uint32_t excite; /* the ports driven (bit p: port p + 1; Excitation/ports), every port's
                      bit when all are (em_excite_setup); the solutions' columns */
} em_model;

/* ------------------------------------------------ Excitation/ports
 *
 * The ports a port-driven run excites (excite.c): a bit set, bit p for
 * port p + 1; the solutions x [k][n_dof] hold the excited ports' columns
 * in ascending port order. */
uint32_t em_excite_all(int n_port);
int em_excite_count(uint32_t mask);
/* the port (0-based) of solution column col; -1 none */
int em_excite_port(uint32_t mask, int col);
/* the solution column of port (0-based); -1 when it is not excited */
int em_excite_column(uint32_t mask, int port);
/* "all" or port numbers comma-separated: each 1..n_port (n_port < 0: the
 * ports are not known yet, 1..EM_MAX_PORTS), none twice; errors name the
 * value and the number of ports. */
em_err em_excite_parse(const char *s, int n_port, uint32_t *mask);
/* m->excite from Excitation/ports after the setup and the far field's
 * settings: a subset needs wave ports on their own reference, no plane
 * wave, and every port of a nonzero Array/weights excited; what a subset
 * leaves out (the Touchstone file, active.csv) goes on log. */
em_err em_excite_setup(em_model *m, const em_log *log);

/* The blocks' sizes, row lengths and formats, and the operator's bytes,
 * from the problem object after its first solve (problem.c); each block
 * on the log (verbose). */
void em_model_record_blocks(em_model *m, const em_log *log);
/* Everything m holds, in the reverse order of its making. */
void em_model_free(em_model *m);

/* ------------------------------------------------ a posteriori error
 *
 * A residual indicator per tet for the driven problem (estimate.c,
 * docs/adapt.md): the element residual of curl(nu curl E) - k0^2 eps E
 * and of its divergence, the jumps of the tangential n x (nu curl E) and
 * of the normal eps E . n across interior faces and the Robin residual on
 * port / ABC faces, h-weighted (Beck, Hiptmair, Hoppe, Wohlmuth, M2AN 34,
 * 2000), in the units of the energy norm squared.  Straight tets only. */
typedef struct em_estimate_info {
  double eta;    /* sqrt(sum_T eta_T^2) */
  double energy; /* the energy norm of E_h: sqrt(sum_T a_T ||curl E_h||^2 + b_T ||E_h||^2) */
  double t;      /* seconds */
} em_estimate_info;

/* eta2[t] += eta_T^2 of solution x (with the fixed values, NULL zero) of
 * prob's right-hand side column `column` (the Robin g of that column, the
 * volume sources with column 0); face_fixed marks the PEC faces (NULL:
 * none).  Host cores (OpenMP). */
em_err em_estimate(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                   const uint8_t *face_fixed, const em_cplx *x, const em_cplx *fixed, int column,
                   double *eta2, em_estimate_info *info);
/* The indicator of a case's n_sol solutions x [n_sol][n_dof] at f (Hz):
 * the problem em_fsys_solve assembles (prepare: the same optional extra
 * excitation), eta2[t] = the sum over the excitations (set, not added). */
em_err em_setup_estimate(const em_mesh *m, const em_dofmap *d, const em_setup *s, double f,
                         em_err (*prepare)(void *, double, em_problem *), void *prepare_ctx,
                         const em_cplx *x, int n_sol, const em_cplx *fixed, double *eta2,
                         em_estimate_info *info);
/* The same with the ports of the bit set excite driven (Excitation/ports;
 * 0: every port): x holds their n_sol columns in ascending port order. */
em_err em_setup_estimate_ports(const em_mesh *m, const em_dofmap *d, const em_setup *s, double f,
                               em_err (*prepare)(void *, double, em_problem *), void *prepare_ctx,
                               uint32_t excite, const em_cplx *x, int n_sol, const em_cplx *fixed,
                               double *eta2, em_estimate_info *info);

#ifdef __cplusplus
}
#endif

#endif
