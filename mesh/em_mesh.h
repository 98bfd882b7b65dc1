/* em_mesh.h - case files, Gmsh meshing, tetrahedral topology, orderings.
 *
 * A case is one Gmsh .geo or .msh file.  em_case_open parses it through the
 * Gmsh C API with the command-line overrides applied as ONELAB values, and
 * em_case_mesh returns an em_mesh: plain arrays, metres, no Gmsh types.
 * Gmsh keeps global state, so one em_case is open at a time.
 *
 * Orientation rule: every tet and triangle lists its vertices in ascending
 * global id, so a local edge (a, b) with a < b and a local face (a, b, c)
 * with a < b < c have the same orientation in every element that shares
 * them.  The hierarchical basis relies on this (assembly/).
 */
#ifndef EM_MESH_H
#define EM_MESH_H

#include "em_core.h"
#include "em_graph.h" /* em_order_rcm for the vertex numbering */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- the mesh */

/* A Gmsh physical group. */
typedef struct em_group {
  char *name; /* "air", "dra", "pml_xp", "pec", "port1", ... */
  int tag;    /* Gmsh physical tag */
  int dim;    /* 3: volume, 2: surface */
} em_group;

/* Local numbering inside a tet (vertices 0..3 in ascending global id):
 *   edge e: (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)      -> EM_TET_EDGE[e]
 *   face f: the face opposite vertex f: (1,2,3) (0,2,3) (0,1,3) (0,1,2)
 *                                                     -> EM_TET_FACE[f] */
extern const int EM_TET_EDGE[6][2];
extern const int EM_TET_FACE[4][3];

typedef struct em_mesh {
  int32_t n_vert;
  double *xyz; /* [x0 y0 z0 x1 ...] in metres */
  int32_t n_tet;
  int32_t *tet;       /* [4 per tet] vertex ids, ascending */
  int32_t *tet_group; /* volume group of each tet (index into group[]) */
  int32_t n_edge;
  int32_t *edge;     /* [2 per edge] vertex ids, ascending */
  int32_t *tet_edge; /* [6 per tet] global edge of each local edge */
  int32_t n_face;
  int32_t *face;     /* [3 per face] vertex ids, ascending */
  int32_t *tet_face; /* [4 per tet] global face of each local face */
  int32_t *face_tet; /* [2 per face] adjacent tets; second is -1 on the
                        outer boundary of the meshed domain */
  int32_t n_tri;
  int32_t *tri;       /* [3 per tri] vertex ids, ascending: the triangles
                         of the surface groups (one row per group it is in) */
  int32_t *tri_face;  /* global face of each triangle */
  int32_t *tri_group; /* surface group of each triangle (index into group[]) */
  int n_group;
  em_group *group;  /* all physical groups, volumes and surfaces */
  double unit;      /* metres per model unit of the case geometry */
  double *edge_mid; /* [3 per edge] the mid-edge node of a second-order
                       (curved, Mesh/geometry_order 2) mesh, metres: tet t
                       maps x(lam) = sum_a lam_a (2 lam_a - 1) x_a +
                       sum_(a,b) 4 lam_a lam_b x_ab; NULL: straight tets */
} em_mesh;

/* Build a mesh from tets (any vertex order) and optional group triangles:
 * copies everything, sorts vertex ids (orientation rule), builds edges,
 * faces, face adjacency, maps each triangle onto its face (error if it is not
 * a face of some tet).  With reorder != 0 the vertices are first renumbered
 * by reverse Cuthill-McKee so that edges and faces, numbered in
 * lexicographic order of their vertices, inherit locality. */
em_err em_mesh_from_tets(int32_t n_vert, const double *xyz, int32_t n_tet, const int32_t *tet,
                         const int32_t *tet_group, int32_t n_tri, const int32_t *tri,
                         const int32_t *tri_group, int n_group, const em_group *group, int reorder,
                         em_mesh **m);

/* A structured mesh of the box [0,lx] x [0,ly] x [0,lz], n cells a side, six
 * tets per cell, for tests without Gmsh.  jitter (0 .. 0.3) moves interior
 * vertices randomly by that fraction of a cell (deterministic from seed).
 * One volume group "box" (index 0); six surface groups "xmin", "xmax",
 * "ymin", "ymax", "zmin", "zmax" (indices 1..6) hold the boundary triangles. */
em_err em_mesh_box(int nx, int ny, int nz, double lx, double ly, double lz, double jitter,
                   unsigned seed, em_mesh **m);

void em_mesh_destroy(em_mesh **m);

/* The mesh as one buffer (*buf, *bytes; em_free it) and back (mesh/pack.c):
 * vertices, tets, triangles, groups, unit and mid-edge nodes; unpack builds
 * the edges and faces again, numbered as the packed mesh's.  A distributed
 * solve's rank 0 sends its mesh so (docs/mpi.md).  Unpack errors name a
 * truncated or foreign buffer. */
em_err em_mesh_pack(const em_mesh *m, void **buf, size_t *bytes);
em_err em_mesh_unpack(const void *buf, size_t bytes, em_mesh **m);

/* Make the mesh second-order (curved): tet t of m, built by
 * em_mesh_from_tets from tets[4 t ..] over the vertex coordinates xyz (the
 * arrays passed there, before any renumbering), gets the six mid-edge nodes
 * mid[18 t + 3 k ..] in Gmsh's 10-node order (node 4 + k on the edge of
 * vertices (0,1) (1,2) (2,0) (3,0) (3,2) (3,1)).  Vertices are matched by
 * their coordinates, so renumbering does not matter.  Errors: a mid node
 * nearer another edge's midpoint than its own (not Gmsh's order), or
 * further than a quarter of its edge's length from the straight midpoint
 * (a map this bent folds the element). */
em_err em_mesh_attach_midnodes(em_mesh *m, const double *xyz, const int32_t *tets,
                               const double *mid);
/* Of a second-order mesh: the edges whose mid node lies off the straight
 * midpoint by more than 1e-10 of the edge (*n_bent) and the largest such
 * offset over its edge's length (*max_bend); 0 and 0 for a straight mesh. */
void em_mesh_bent_edges(const em_mesh *m, int32_t *n_bent, double *max_bend);

/* Index of the group called name with dimension dim, or -1. */
int em_mesh_group_find(const em_mesh *m, const char *name, int dim);

typedef struct em_mesh_stats {
  int32_t n_vert, n_tet, n_edge, n_face, n_tri, n_boundary_face;
  double q_min, q_mean; /* quality 3 r_in / r_circ: 1 regular, 0 flat */
  double h_min, h_max;  /* shortest and longest edge, metres */
  double volume;        /* total, cubic metres */
  double bbox[6];       /* xmin xmax ymin ymax zmin zmax, metres */
} em_mesh_stats;

void em_mesh_stats_compute(const em_mesh *m, em_mesh_stats *s);
/* Quality 3 r_in / r_circ of one tet. */
double em_tet_quality(const em_mesh *m, int32_t t);
/* Signed volume of one tet (sign follows the ascending vertex order). */
double em_tet_volume(const em_mesh *m, int32_t t);

/* The tet containing point x (metres) and its barycentric coordinates
 * there; *t = -1 when x lies outside the mesh.  Brute force with a bounding
 * box test: meant for a few hundred probe points, not for millions.  The
 * tets are taken straight (their vertices): on a curved mesh (edge_mid)
 * the answer is that of the straight tets, so its callers (line probes,
 * the driven mesh check) are not run with Mesh/geometry_order 2. */
void em_mesh_locate(const em_mesh *m, const double x[3], int32_t *t, double lam[4]);

/* Point location for many points (adaptive refinement's size field, the
 * transfer of orders between meshes): a grid of about one cell per tet
 * over the bounding box, each cell listing the tets whose bounding box
 * meets it.  m must outlive the locator; straight tets (as above). */
typedef struct em_locator em_locator;
em_err em_locator_create(const em_mesh *m, em_locator **L);
void em_locator_destroy(em_locator **L);
/* 1: tet *t holds x, lam its barycentric coordinates there.  0: x lies
 * outside the mesh (a node on a curved CAD surface just off the facets, a
 * point in a hole): *t is the nearest tet found around x (the largest
 * smallest barycentric coordinate), lam clamped onto it (>= 0, sum 1).
 * Thread-safe (reads only). */
int em_locator_find(const em_locator *L, const double x[3], int32_t *t, double lam[4]);

/* ------------------------------------------------------------------- cases */

/* A parameter emsolve itself knows.  A '*' in the name matches one path
 * element: "Materials/ * /eps_r" (without the spaces) matches every
 * material. */
typedef struct em_param_spec {
  const char *name;
  int is_string;
  double number;      /* default (numbers), used when the case is silent */
  const char *string; /* default (strings); NULL: no default */
  int has_default;    /* 0: the parameter must come from the case/CLI */
  const char *help;   /* one line */
  const char *unit;   /* "Hz", "mm", "ohm" ... ; NULL: none (a count, a word) */
  int group_dim;      /* 3 / 2: the '*' names a volume / surface group of the
                         case, which must exist; 0: no group in the name */
} em_param_spec;

/* A -setnumber / -setstring from the command line. */
typedef struct em_param_override {
  const char *name;
  int is_string;
  double number;
  const char *string;
} em_param_override;

/* One parameter as the case sees it after parsing. */
typedef struct em_param {
  char *name;
  int is_string;
  double number;
  char *string;
  const char *source; /* "case file", "command line" or "default" */
  /* what the case declares about it (ONELAB attributes of its
     DefineConstant; NULL / 0 when it declares nothing or is not the case's) */
  char *help;         /* Help "..." */
  char *choices;      /* Choices{...}, joined with ", " */
  int has_min;        /* Min declared: values below min are refused */
  int has_max;        /* Max declared */
  double min, max;    /* the declared range */
  int read_only;      /* ReadOnly 1 */
  int loop;           /* Loop 1 / 2 / 3 (ONELAB: outer to inner): the case declares
                         a sweep over Min:Step:Max or its Choices; 0: none */
  double step;        /* Step (0: none declared) */
  int in_file;        /* the case file defines it (a DefineConstant) */
  double file_number; /* its number in the case file, before any override: a
                         -setnumber of it does not hide the case's own value */
} em_param;

typedef struct em_case em_case;

/* Open a .geo (parsed, OpenCASCADE allowed) or .msh (loaded) file with the
 * overrides applied as ONELAB values before parsing.  Errors, each naming
 * the culprit: an override whose name neither the case defines nor specs
 * knows (with the closest known name: "did you mean ..."); an override of a
 * group parameter (spec group_dim) whose group the case does not have; a
 * number outside the Min / Max its DefineConstant declares, or not finite;
 * a missing file, a parse error (Gmsh's message), a case that calls Exit, a
 * model with no volume.  A case-file parameter for a group that does not
 * exist is a warning. */
em_err em_case_open(const char *path, int n_over, const em_param_override *over, int n_spec,
                    const em_param_spec *spec, const em_log *log, em_case **c);
void em_case_close(em_case **c);

/* Case name: the file's base name without extension ("dra"). */
const char *em_case_name(const em_case *c);
const char *em_case_path(const em_case *c);

/* Parameters: case-file ONELAB parameters (Gmsh's internal "Gmsh/..." ones
 * excluded), overrides, and spec defaults that the case does not define. */
int em_case_param_count(const em_case *c);
const em_param *em_case_param_at(const em_case *c, int i);
/* NULL when no parameter of that name (and type) exists. */
const em_param *em_case_param_find(const em_case *c, const char *name);
/* The spec that knows a name (exact first, then a wildcard match), or NULL. */
const em_param_spec *em_case_spec_of(const em_case *c, const char *name);
/* The closest known parameter name to `name` (case parameters, plain specs,
 * group specs with the case's group names), or NULL when none is close. */
const char *em_case_suggest(const em_case *c, const char *name, char *buf, size_t n);

/* Whether a parameter name could be set on this case (as an override
 * would be): EM_ERR_INPUT for a name neither the case nor the specs know
 * ("did you mean ...") or a group parameter of a group the case lacks
 * (naming its groups).  A design sweep checks its names with it before any
 * point runs. */
em_err em_case_check_name(const em_case *c, const char *name, const em_log *log);

/* A physical group the .geo declares whose entities do not exist
 * (Physical Volume("dra") = {99} without a volume 99: Gmsh keeps the name,
 * drops the group, and a run would solve without that material):
 * EM_ERR_INPUT naming it.  Made after the parameters are checked (a
 * degenerate geometry empties groups too, and its value is the better
 * message). */
em_err em_case_check_groups(const em_case *c);

/* Value of a number / string parameter; EM_ERR_INPUT naming the parameter and
 * the case when absent or of the other type. */
em_err em_case_number(const em_case *c, const char *name, double *v);
em_err em_case_string(const em_case *c, const char *name, const char **s);

/* How the mesher sizes elements. */
typedef struct em_mesh_opts {
  double unit;                    /* metres per model unit */
  double freq_max;                /* Hz: the wavelength is taken here */
  double elements_per_wavelength; /* <= 0: only the case's own sizes */
  /* refractive index sqrt(|eps_r mu_r|) of each volume group by name, for the
   * local wavelength; NULL or an unknown name means 1 */
  double (*index_of)(void *ctx, const char *group_name);
  void *index_ctx;
  int reorder; /* RCM vertex renumbering (default 1) */
  /* > 0: volume groups named pml* get at most (thinnest layer) / pml_elements,
   * so that the layer is that many elements thick (with the wavelength
   * sizing only); the layer is the bounding box of every volume less that
   * of the non-PML volumes, side by side */
  int pml_elements;
  int geometry_order;    /* 2: second-order (curved) tets, the mid-edge nodes
                            on the CAD geometry (em_mesh.edge_mid); 0 or 1:
                            straight-sided */
  int hxt;               /* 1: Gmsh's HXT 3D mesher, all volumes together, on one
                            thread (~3x faster than Delaunay on the DRA, but
                            Gmsh 4.8 orders its points by memory address: the
                            mesh differs from run to run); 0: its Delaunay
                            mesher, reproducible (the default) */
  int pml_elements_only; /* 1 (with pml_elements > 0): the pml* volumes are
                            sized by t / pml_elements alone, not by the
                            wavelength: the layer keeps that many elements
                            across however fine the rest (its faces shared
                            with the interior still take the finer size) */
  int apart;             /* a .geo's surfaces, then its volumes, each meshed alone
                            in child processes, as many at once as OpenMP threads
                            (the same mesh for any number; case_apart.c): 1
                            always, -1 never (Gmsh meshes all in one call on one
                            thread: the meshes of emsolve before
                            Mesh/volume_meshing), 0 (auto) when the wavelength
                            sizes imply at least EM_MESH_APART_TETS tets */
} em_mesh_opts;

/* The estimate (em_case_estimate) from which em_mesh_opts.apart 0 meshes
 * apart: below it meshing takes under a second or two on one core and the
 * processes gain little. */
#define EM_MESH_APART_TETS 5e4

/* Before meshing: about how many tetrahedra the wavelength sizes imply
 * (the bounding-box volume of each physical volume's entities over the
 * volume of a regular tet of size h; the case's own finer sizes can only
 * add to it, so this is a lower bound up to the box factor), and the
 * smallest such h in metres.  0 tets when the sizes do not come from the
 * wavelength (a .msh, elements_per_wavelength <= 0). */
em_err em_case_estimate(em_case *c, const em_mesh_opts *opts, double *tets, double *h_min);
/* The same, calling each(ctx, name, tets) per physical volume with its
 * share (each may be NULL). */
em_err em_case_estimate_each(em_case *c, const em_mesh_opts *opts,
                             void (*each)(void *ctx, const char *name, double tets), void *ctx,
                             double *tets, double *h_min);

/* A fingerprint of the case's geometry (entities, their bounding boxes,
 * physical groups): equal for two parameter sets that build the same model
 * (a design sweep's check before it reuses a mesh). */
em_err em_case_geometry_hash(const em_case *c, uint64_t *hash);

/* Generate (for .geo) or read (for .msh) the tet mesh, and build the
 * topology.  Logs meshing progress and the statistics. */
em_err em_case_mesh(em_case *c, const em_mesh_opts *opts, const em_log *log, em_mesh **m);

/* Write the mesh of the case (after em_case_mesh or em_case_load_mesh) to
 * path, a .msh: Gmsh MSH 4.1 binary (coordinates exact), the elements of
 * the physical groups, written to a temporary name beside it and renamed. */
em_err em_case_save_mesh(em_case *c, const char *path, const em_log *log);

/* Mesh a .geo case again (adaptive h-refinement): the sizes of opts as in
 * em_case_mesh and, where smaller, the size field that interpolates
 * vsize[v] (metres, per vertex of old, linear in each of old's tets; off
 * old's facets the nearest tet's value) over the earlier mesh old.  The
 * case's own sizes still apply.  *m is the new mesh (old is not touched);
 * the Gmsh model holds it (em_case_save_mesh writes it).  A .msh case or a
 * loaded mesh is refused: no geometry. */
em_err em_case_remesh(em_case *c, const em_mesh_opts *opts, const em_mesh *old, const double *vsize,
                      const em_log *log, em_mesh **m);

/* Instead of em_case_mesh: read the mesh from path (a .msh, e.g. written by
 * em_case_save_mesh) into a Gmsh model of its own, coordinates times
 * opts->unit, and build the topology.  Errors name the file: missing or
 * unreadable, not a .msh, Gmsh's parse error, a volume or surface group of
 * the case that the file lacks or one it has that the case does not
 * define, elements that are not first-order tets / triangles.  Once per
 * case. */
em_err em_case_load_mesh(em_case *c, const char *path, const em_mesh_opts *opts, const em_log *log,
                         em_mesh **m);

#ifdef __cplusplus
}
#endif
#endif /* EM_MESH_H */
