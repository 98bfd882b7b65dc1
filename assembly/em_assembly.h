/* em_assembly.h - hierarchical Nedelec elements of order 1..3 and the
 * assembly of the time-harmonic curl-curl system
 *
 *   curl(nu curl E) - k0^2 eps E = f        in the volume
 *   n x E = n x E_D                         on fixed (Dirichlet / PEC) faces
 *   n x (nu curl E) + gamma n x (n x E) = U on Robin faces (ports, ABC)
 *
 * with nu = mu_r^-1 and eps = eps_r diagonal complex tensors.  Weak form:
 *   int nu curl E . curl w - k0^2 int eps E . w + gamma oint (n x E).(n x w)
 *     = int f . w + oint g . w        (g = -U, given per Robin boundary)
 *
 * Unknowns are grouped by basis order (order 1, then 2, then 3) so the matrix
 * splits into the 3x3 em_blockmat.  Fixed DOFs are eliminated: they are not
 * unknowns, their values move to the right-hand side, and the matrix stays
 * complex symmetric.
 */
#ifndef EM_ASSEMBLY_H
#define EM_ASSEMBLY_H

#include "em_core.h"
#include "em_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ basis */

enum { EM_ENT_EDGE = 0, EM_ENT_FACE = 1, EM_ENT_CELL = 2 };

/* One local basis function: which mesh entity carries it, which of that
 * entity's DOFs it is, and its order group (1..3). */
typedef struct em_basis_fn {
  int8_t kind;   /* EM_ENT_EDGE / FACE / CELL */
  int8_t entity; /* local edge 0..5, local face 0..3, or 0 */
  int8_t slot;   /* index among the entity's DOFs (0 .. dofs-1) */
  int8_t group;  /* order group 1..3 */
} em_basis_fn;

/* Functions on a tet at complete order p: p(p+2)(p+3)/2 = 6, 20, 45. */
int em_basis_count(int p);
/* DOFs per entity at order p: edge p, face p(p-1), cell p(p-1)(p-2)/2. */
int em_basis_entity_dofs(int p, int kind);
/* The local functions in their local order: group 1 first, then 2, then 3,
 * so the first em_basis_count(q) functions are the order-q set (q <= p). */
const em_basis_fn *em_basis_table(int p);

/* Values and curls of all em_basis_count(p) functions at a point given by
 * barycentric coordinates lam[4], with grad[4][3] the gradients of the
 * barycentric functions of the tet (constant per tet).  w[i] and curl[i]
 * are 3-vectors; curl may be NULL. */
void em_basis_eval(int p, const double lam[4], const double grad[4][3], double (*w)[3],
                   double (*curl)[3]);

/* ------------------------------------------------------------- quadrature */

/* A rule on the reference simplex in barycentric coordinates; weights sum
 * to 1 (multiply by the volume / area). */
typedef struct em_quad {
  int n;             /* points */
  int degree;        /* exact for polynomials of this total degree */
  const double *lam; /* [n x 4] for tets, [n x 3] for triangles */
  const double *w;   /* [n] */
} em_quad;

/* The cheapest stored rule exact to at least `degree` (error if none). */
em_err em_quad_tet(int degree, em_quad *q);
em_err em_quad_tri(int degree, em_quad *q);
/* Gauss-Legendre on [0,1] with n >= 1 points, exact to degree 2n-1:
 * nodes s[i] ascending in (0,1), weights w[i] summing to 1. */
void em_quad_line(int n, double *s, double *w);

/* ---------------------------------------------------------------- geometry */

/* One tet.  The affine part (x, grad, vol) is that of the straight tet on
 * the four vertices.  A curved tet (second-order mesh, em_mesh.edge_mid)
 * maps the reference tet by the quadratic
 *   x(lam) = sum_a lam_a (2 lam_a - 1) x_a + sum_e 4 lam_a lam_b xm_e
 * (edge e = (a, b) of EM_TET_EDGE); there the barycentric gradients and the
 * volume element vary from point to point: em_tet_geom_at. */
typedef struct em_tet_geom {
  double x[4][3];    /* vertex coordinates, metres */
  double grad[4][3]; /* gradients of the barycentric coordinates (straight) */
  double vol;        /* |volume| of the straight tet */
  int curved;        /* 1: xm are mid-edge nodes off the straight midpoints */
  double xm[6][3];   /* mid-edge nodes by local edge (curved only) */
} em_tet_geom;

/* A tet is curved when a mid-edge node lies further than this fraction of
 * its edge from the straight midpoint; below it the straight map is used
 * (the difference is of that relative size). */
#define EM_CURVED_TOL 1e-10

void em_tet_geom_make(const em_mesh *m, int32_t t, em_tet_geom *g);
/* The map at the reference point lam: x the image point, grad[4][3] the
 * gradients of the barycentric coordinates there (J^-T times the reference
 * ones: the covariant Piola map of the Nedelec functions), *dv the volume
 * element |det J| / 6, so that int_tet f = sum_k w_k f(x_k) dv_k with the
 * reference weights w_k (sum 1).  A straight tet gives the affine values
 * (dv = vol).  Returns 0, or -1 where det J does not keep the sign of the
 * straight tet's (a folded curved tet; grad and dv are then not usable). */
int em_tet_geom_at(const em_tet_geom *g, const double lam[4], double x[3], double grad[4][3],
                   double *dv);

/* Straighten the edges of every curved tet whose map folds (det J changes
 * sign at a quadrature point, a vertex or the centroid): their mid nodes go
 * to the midpoints, for every tet around those edges; *n_edges edges
 * straightened (counted per tet, so shared edges may count twice). */
em_err em_curved_unfold(em_mesh *m, int32_t *n_edges);
/* Local index (0..3) of global face f in tet t, -1 when it is not one. */
int em_tet_local_face(const em_mesh *m, int32_t t, int32_t f);
/* A point of local face lf (the face opposite vertex lf, vertices
 * EM_TET_FACE[lf] in that order) given by its barycentrics mu[3] on them:
 * the tet barycentrics lam, the mapped point x and gradients (as
 * em_tet_geom_at), the area element *da per unit quadrature weight (a rule
 * on the reference triangle with weights summing to 1: int_F f dA =
 * sum_k w_k f(x_k) da_k; the area on a flat face), the unit normal n out
 * of the tet there, and (tan may be NULL) the covariant tangents dx/ds,
 * dx/dt of the parametrisation lam_b = s, lam_c = t. */
void em_tet_face_at(const em_tet_geom *g, int lf, const double mu[3], double lam[4], double x[3],
                    double grad[4][3], double *da, double n[3], double tan[2][3]);

/* -------------------------------------------------------------- materials */

/* Diagonal tensors at a point: eps_r and nu = mu_r^-1 (for a PML these are
 * eps_r Lambda and (mu_r Lambda)^-1). */
typedef struct em_material {
  em_cplx eps[3];
  em_cplx nu[3];
} em_material;

/* Material at point x (metres) inside tet t. */
typedef em_err (*em_material_fn)(void *ctx, int32_t t, const double x[3], em_material *mat);

/* --------------------------------------------------------------- elements */

/* Element matrices of tet t at order p (n = em_basis_count(p), row-major
 * n x n):  S_ij = int curl w_i . nu curl w_j,  T_ij = int w_i . eps w_j.
 * With vary == 0 the material is evaluated once at the centroid; otherwise
 * at every quadrature point (graded PML). */
em_err em_element_matrices(int p, const em_tet_geom *g, em_material_fn mat, void *ctx, int32_t t,
                           int vary, em_cplx *S, em_cplx *T);

/* ---------------------------------------------------------------- DOF map */

/* Global numbering of the DOFs.  A code c >= 0 is an unknown; EM_DOF_NONE
 * marks a function absent from the space (an entity of lower order than
 * the arrays' slots); any other c < 0 is the fixed DOF number -c-1.
 * Unknowns are grouped by order: offset[g-1] .. offset[g]-1 hold group g;
 * inside a group they follow mesh locality.
 *
 * Order per element (docs/basis.md, "Order per element"): every tet t asks
 * for an order tet_order[t]; an edge or face takes the highest order of
 * the tets around it (so the space stays conforming: both sides of a face
 * see the same trace functions) and carries that order's slots, the cell
 * its tet's own.  A tet's element matrices are computed at elem_order[t],
 * the highest order of its entities (>= tet_order[t]), the functions of
 * entities of lower order dropped: the hierarchical basis makes the local
 * space of an order the first functions of the next. */
#define EM_DOF_NONE INT32_MIN

/* c is a fixed DOF (not an unknown, not absent). */
static inline int em_dof_fixed(int32_t c) {
  return c < 0 && c != EM_DOF_NONE;
}

typedef struct em_dofmap {
  int order;       /* p: the highest order of any tet (the arrays' slots) */
  int uniform;     /* every tet at order p */
  int32_t n_dof;   /* unknowns */
  int32_t n_fixed; /* eliminated (Dirichlet / PEC) DOFs */
  int32_t offset[EM_MAX_ORDER + 1];
  int32_t *edge_dof;   /* [p per edge] codes, slot order */
  int32_t *face_dof;   /* [p(p-1) per face] */
  int32_t *cell_dof;   /* [p(p-1)(p-2)/2 per tet] */
  int8_t *fixed_group; /* [n_fixed] order group of each fixed DOF */
  int8_t *tet_order;   /* [n_tet] the order asked of each tet (its cell's) */
  int8_t *elem_order;  /* [n_tet] the highest order of its entities */
  int8_t *edge_order;  /* [n_edge] the highest tet order around the edge */
  int8_t *face_order;  /* [n_face] the highest of its one or two tets */
} em_dofmap;

/* face_fixed[f] != 0 marks faces whose tangential field is prescribed; their
 * edges and faces become fixed DOFs.  NULL: nothing fixed.  Every tet at
 * `order`. */
em_err em_dofmap_build(const em_mesh *m, int order, const uint8_t *face_fixed, em_dofmap **d);
/* The same with an order per tet (1..EM_MAX_ORDER each, copied); d->order
 * is the highest. */
em_err em_dofmap_build_orders(const em_mesh *m, const int8_t *tet_order, const uint8_t *face_fixed,
                              em_dofmap **d);
void em_dofmap_destroy(em_dofmap **d);
/* Codes of the local functions of tet t: code[i] for the first
 * em_basis_count(elem_order[t]) functions, EM_DOF_NONE for the absent ones
 * and for i up to em_basis_count(d->order).  Returns elem_order[t]. */
int em_dofmap_tet(const em_dofmap *d, const em_mesh *m, int32_t t, int32_t *code);
/* Unknowns per volume group and order group: count[g * EM_MAX_ORDER + k]
 * for mesh group g (m->n_group of them) and order group k+1.  An unknown
 * counts for the region its entity took its order from: the tet of the
 * highest order around it (the lowest group index among equals). */
em_err em_dofmap_region_counts(const em_dofmap *d, const em_mesh *m, int32_t *count);

/* ---------------------------------------------------------------- problem */

typedef em_err (*em_vector_fn)(void *ctx, const double x[3], em_cplx v[3]);

/* A volume source given per tet: the right-hand side gets
 *   int f . w + int h . curl w
 * (the h term is the weak form of a source -curl h, e.g. the scattered-field
 * source of a magnetic scatterer, which has no pointwise value on material
 * interfaces).  f and h are zero on entry; leave them for no source. */
typedef em_err (*em_tet_source_fn)(void *ctx, int32_t t, const double x[3], em_cplx f[3],
                                   em_cplx h[3]);

/* A Robin boundary: gamma oint (n x E).(n x w) added to the matrix over the
 * triangles of a surface group, and oint g . w added to right-hand side
 * column `rhs` when g is set (w's tangential trace: only the tangential part
 * of g counts).  With dir set (a unit vector in the faces' plane) the term
 * is anisotropic, gamma oint (E . dir)(w . dir): a sheet whose current flows
 * along dir only (a lumped element). */
typedef struct em_robin {
  int group;            /* surface group (index into mesh->group), or -1:
                           the faces listed below */
  const int32_t *faces; /* with group == -1: mesh faces (on the boundary) */
  int32_t n_faces;
  em_cplx gamma;
  em_vector_fn g; /* NULL: no source */
  void *g_ctx;
  int rhs;           /* right-hand side column for g */
  const double *dir; /* NULL: isotropic (n x E).(n x w); else (E.dir)(w.dir) */
} em_robin;

/* All callbacks (material, source, dirichlet, Robin g) are called from
 * several OpenMP threads at once during em_assemble: they must be
 * thread-safe (pure functions of their arguments and a read-only ctx).
 * The Dirichlet lift -A_uf E_fixed enters every right-hand side column, so
 * each column is a complete problem with the same fixed values. */
typedef struct em_problem {
  double k0;               /* free-space wavenumber, rad/m (the basis order is the DOF
                              map's: em_dofmap.order) */
  em_material_fn material; /* required */
  void *material_ctx;
  const uint8_t *tet_vary; /* [n_tet] nonzero where the material varies in
                              the tet (PML); NULL: constant everywhere */
  /* optional: 1 when material(x - dl e_axis) and material(x + dl e_axis)
     of tet t are the same bits (the material does not vary along the axis
     there: a PML tet outside that axis's layers); the error estimate's
     central differences then skip both calls (their difference is 0) */
  int (*material_flat)(void *ctx, int32_t t, const double x[3], int axis, double dl);
  em_vector_fn source; /* f in the volume (column 0), NULL: none */
  void *source_ctx;
  em_tet_source_fn tet_source; /* f and h per tet (column 0, added to
                                  source's), NULL: none */
  void *tet_source_ctx;
  em_vector_fn dirichlet; /* E_D on fixed faces, NULL: zero (PEC) */
  void *dirichlet_ctx;
  int n_robin;
  const em_robin *robin;
  int n_rhs; /* right-hand side columns (>= 1) */
} em_problem;

/* The assembled system: of every unknown, or of a part's rows
 * (em_assembler_create_part): then A's block (g, h) holds the rows of the
 * part's unknowns of order group g, in ascending order, and the columns of
 * the whole group h (A->offset: the whole problem's groups, the columns';
 * em_blockmat functions that take A as square do not apply). */
typedef struct em_system {
  em_blockmat *A; /* rows x unknowns, by order group */
  int n_rhs;
  int32_t n_row;     /* rows of A and b: n_dof, or the part's unknowns */
  int32_t *row;      /* NULL: every unknown (row i = unknown i); a part's:
                        [n_row] the unknown of each row, ascending */
  em_cplx *b;        /* [n_row x n_rhs], column-major */
  em_cplx *fixed;    /* [n_fixed] values of the fixed DOFs (all of them) */
  double t_assembly; /* seconds */
} em_system;

em_err em_assemble(const em_mesh *m, const em_dofmap *d, const em_problem *prob, const em_log *log,
                   em_system **sys);
/* The pattern, the colouring of the tets and the reference element depend
 * on the mesh and the DOF map only: a sweep makes them once and assembles
 * each frequency with em_assemble_with (em_assemble = create + with +
 * destroy).  m and d must outlive the assembler. */
typedef struct em_assembler em_assembler;
em_err em_assembler_create(const em_mesh *m, const em_dofmap *d, em_assembler **a);
/* The assembler of a part (a distributed solve's rank, issue 27,
 * docs/mpi.md): the rows of the unknowns c with owner[c] == part, from the
 * tets that hold one (the part's tets and the layer around them); its
 * pattern, cache and Robin terms those rows' only; the colouring the whole
 * mesh's cut to those tets, so every entry sums the same element values in
 * the same order: each row is the whole assembly's row bit for bit (when
 * both keep the frequency-independent cache, or neither does).  The
 * fixed values are computed whole (the lift of any row may need them, and
 * the post-processing does). */
em_err em_assembler_create_part(const em_mesh *m, const em_dofmap *d, const int32_t *owner,
                                int part, em_assembler **a);
void em_assembler_destroy(em_assembler **a);
em_err em_assemble_with(em_assembler *a, const em_problem *prob, const em_log *log,
                        em_system **sys);
/* An assembler keeps, from its first pass, the sums of S_e and T_e over
 * the tets whose material is constant in the tet and the same at every
 * pass (checked bit for bit at the centroid each pass: a tet whose
 * material changes with k0 leaves the cache), and assembles every pass as
 * S - k0^2 T plus the other tets (PML) and the Robin terms: the same
 * matrix as em_assemble's plain pass up to rounding, and the same bits at
 * a frequency whichever passes came before (with materials that do not
 * change).  The number of tets kept (0: none). */
int32_t em_assembler_cached_tets(const em_assembler *a);
/* No cache: every pass assembles every tet (passes of different problems
 * on one pattern, eigen's S and T, where a cache is built for nothing). */
void em_assembler_no_cache(em_assembler *a);
/* The assembler's pattern as a block matrix of zeros: the structure every
 * em_assemble_with gives A (read only: another thread may build it while
 * this one assembles, to order the unknowns before the values exist). */
em_err em_assembler_pattern(const em_assembler *a, em_blockmat **A);
void em_system_destroy(em_system **sys);

/* ------------------------------------------------------------------ fields */

/* E and curl E (either may be NULL) at barycentric point lam of tet t, from
 * the unknowns x and the fixed values (fixed == NULL: all zero, PEC). */
void em_field_eval(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                   int32_t t, const double lam[4], em_cplx E[3], em_cplx curlE[3]);
/* The same at n points lam[4 k ..] of tet t at once (E[3 k ..], curlE[3 k ..];
 * either may be NULL): em_field_eval's values, the tet's geometry and
 * codes made once.  Reads only: safe from several threads. */
void em_field_eval_tet(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                       int32_t t, int n, const double *lam, em_cplx *E, em_cplx *curlE);

/* ||E - E_ex||_L2 and ||curl(E - E_ex)||_L2 over the mesh, by quadrature of
 * degree 2p+2 (curl_ex may be NULL: then *curl_err is not computed). */
em_err em_field_error(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                      em_vector_fn E_ex, em_vector_fn curl_ex, void *ctx, double *l2_err,
                      double *curl_err);

/* ---------------------------------------------------------- media, PML */

/* The medium of a volume group: eps_r (with loss: eps_r (1 - j tan_delta))
 * and mu_r.  A PML volume keeps its background medium here and is marked. */
typedef struct em_medium {
  em_cplx eps_r;
  em_cplx mu_r;
  int is_pml;
} em_medium;

/* Cartesian uniaxial PML by complex coordinate stretching.  Beyond the
 * interior box on side d the coordinate stretch is
 *   s_d(xi) = 1 - j (sigma0_d / k0) (xi / L_d)^m,
 *   sigma0_d = (m + 1) ln(1/R0) / (2 L_d),
 * xi the depth into a layer of thickness L_d, so that a plane wave at normal
 * incidence on the continuous layer (PEC behind it) returns R0 at every
 * frequency; oblique and evanescent waves see exp(-2 k_n/k0 sigma0 L/(m+1)).
 * Materials become eps Lambda and (mu Lambda)^-1 with
 *   Lambda = diag(s_y s_z / s_x, s_x s_z / s_y, s_x s_y / s_z). */
typedef struct em_pml {
  double inner[6]; /* interior box: xmin xmax ymin ymax zmin zmax (m) */
  double thick[6]; /* layer thickness beyond each of the six sides (0: none) */
  int order;       /* grading exponent m */
  double R0;       /* normal-incidence reflection of the continuous layer */
} em_pml;

/* Interior box = bounding box of the non-PML tets; thickness per side from
 * the PML tets.  Errors name the PML group: a PML tet inside the interior
 * box, a PML group that touches no interior tet (through PML tets). */
em_err em_pml_detect(const em_mesh *m, const em_medium *med, int order, double R0, em_pml *p);
/* Stretch factors s[3] at x. */
void em_pml_stretch(const em_pml *p, double k0, const double x[3], em_cplx s[3]);

/* The em_material_fn context for em_problem.material. */
typedef struct em_media {
  const em_mesh *mesh;
  const em_medium *medium; /* per mesh group (volume groups are read) */
  const em_pml *pml;       /* NULL: no PML */
  double k0;
} em_media;

em_err em_media_material(void *ctx, int32_t t, const double x[3], em_material *mat);
/* em_problem.material_flat of em_media_material (ctx an em_media) */
int em_media_flat(void *ctx, int32_t t, const double x[3], int axis, double dl);

/* ------------------------------------------------------------ plane wave */

/* An incident plane wave in a lossless background medium (eps_b, mu_b):
 *   E_inc(x) = E0 p exp(-j k khat . x),   k = k0 sqrt(eps_b mu_b),
 *   khat = (sin th cos ph, sin th sin ph, cos th)   (direction of travel),
 *   p = cos(psi) theta_hat + sin(psi) phi_hat       (theta_hat, phi_hat at th, ph),
 * phase zero at the origin; curl E_inc = -j k khat x E_inc.  The default
 * th = 0, psi = 0 travels along +z with E along +x. */
typedef struct em_planewave {
  double k0, k;       /* free-space and background wavenumbers, rad/m */
  double khat[3];     /* unit direction of travel */
  em_cplx e0[3];      /* E0 p, V/m */
  double amplitude;   /* E0, V/m */
  double eps_b, mu_b; /* background medium (real, > 0) */
} em_planewave;

/* Angles in radians; errors for a non-finite angle, amplitude <= 0 or a
 * background that is not real and positive. */
em_err em_planewave_make(double k0, double theta, double phi, double psi, double amplitude,
                         em_cplx eps_b, em_cplx mu_b, em_planewave *pw);
/* E_inc and curl E_inc at x (curlE may be NULL). */
void em_planewave_field(const em_planewave *pw, const double x[3], em_cplx E[3], em_cplx curlE[3]);

/* Scattered-field formulation: the unknown is E_s = E - E_inc.  Where the
 * medium differs from the background,
 *   curl nu curl E_s - k0^2 eps E_s = k0^2 (eps - eps_b) E_inc - curl((nu - nu_b) curl E_inc),
 * so em_scatter_source gives f = k0^2 (eps_r - eps_b) E_inc and
 * h = -(1/mu_r - 1/mu_b) curl E_inc in every non-PML tet (zero in the PML,
 * which absorbs the outgoing E_s), and em_scatter_dirichlet gives
 * E_s = -E_inc on fixed (PEC) faces inside the PML's interior box and 0
 * on the walls beyond it (everywhere -E_inc when pml is NULL).  Scatterers
 * must lie inside the interior box; the PML media must be the background. */
typedef struct em_scatter {
  const em_planewave *pw;
  const em_mesh *mesh;
  const em_medium *medium; /* per mesh group */
  const em_pml *pml;       /* NULL: no PML */
} em_scatter;

em_err em_scatter_source(void *ctx, int32_t t, const double x[3], em_cplx f[3], em_cplx h[3]);
em_err em_scatter_dirichlet(void *ctx, const double x[3], em_cplx E[3]);

/* ------------------------------------------------------------------ ports */

/* Ports of one case at most: the S matrix is at most this square. */
#define EM_MAX_PORTS 16

typedef enum em_port_type { EM_PORT_COAX = 0, EM_PORT_WAVEGUIDE, EM_PORT_LUMPED } em_port_type;

/* A port on a planar surface group "portN".  Wave ports (coax: TEM, known in
 * closed form; rectangular waveguide: TE10) sit on the outer boundary and
 * are matched for their mode by the Robin condition
 *   n x (nu curl E) + j beta nu n x (n x E) = -2 j beta nu e_inc;
 * a lumped port is a gap of width w and length l driven by a uniform 1 A
 * current along v (open when another port is driven); its reference
 * resistance R = z_ref enters only the circuit algebra of S. */
typedef struct em_port {
  char name[32]; /* "port1" */
  int number;    /* N of portN */
  int group;     /* surface group (index into mesh->group) */
  em_port_type type;
  double center[3];    /* coax axis point / rectangle centre (m) */
  double normal[3];    /* unit normal pointing into the meshed domain */
  double u[3], v[3];   /* in-plane axes: waveguide u along a, v along b (the
                          TE10 E direction); lumped u along w, v along E */
  double a, b;         /* coax: inner, outer radius; waveguide: broad, narrow
                          side; lumped: width w, length l (m) */
  double area;         /* area of the port's triangles (m^2) */
  em_cplx eps_r, mu_r; /* filling, from the adjacent volume */
  double z_ref;        /* reference impedance of S (ohm); 0 = mode impedance */
  double deembed;      /* reference plane moved this far inward (m) */
  /* per frequency (em_port_set_frequency) */
  double k0;
  em_cplx beta;   /* propagation constant (rad/m) */
  em_cplx z_mode; /* coax Z0 = eta ln(b/a) / 2 pi; TE10 Z_TE = k eta / beta;
                     lumped: z_ref */
  double norm;    /* mode amplitude that carries 1 W (peak phasors) */
} em_port;

/* Geometry of the port from its triangles: planarity, inward normal,
 * coax radii / rectangle sides and axes, filling medium.  dir: lumped E
 * direction (NULL or zero: along the shorter side).  Errors name the port. */
em_err em_port_setup(const em_mesh *m, int group, em_port_type type, const em_medium *med,
                     const double dir[3], em_port *p);
/* beta, mode impedance and normalisation at k0; a waveguide port below its
 * TE10 cut-off is an error naming the port and the cut-off frequency. */
em_err em_port_set_frequency(em_port *p, double k0);
/* The mode's transverse field e(x) (unit power), real, in the port plane. */
void em_port_mode(const em_port *p, const double x[3], double e[3]);
/* The port's Robin boundary; with excite the incident wave (wave ports) or
 * the 1 A source current (lumped) goes into right-hand side column rhs. */
void em_port_robin(em_port *p, int excite, int rhs, em_robin *r);
/* What the port sees of a solution: wave ports c = oint E.e / oint e.e (the
 * total modal amplitude on the port plane); lumped the voltage
 * V = -(1/w) oint E.v (positive terminal at +v). */
em_err em_port_measure(const em_port *p, const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                       const em_cplx *fixed, em_cplx *c);
/* The same measure of a given field E(x) (an incident plane wave) instead of
 * a solution: the port's triangles on their own map. */
em_err em_port_measure_fn(const em_port *p, const em_mesh *m, int order, em_vector_fn E, void *ctx,
                          em_cplx *c);
/* A port as a matched load (plane-wave runs with ports, issue 30): a wave
 * port keeps its own Robin term (it absorbs its mode); a lumped port becomes
 * a resistive sheet of its reference R = z_ref (50 ohm when 0) across the
 * gap, gamma = j k0 Z0 l / (R w) along v.  No source. */
void em_port_robin_load(em_port *p, em_robin *r);

/* The Robin source of a port terminating the total field in a
 * scattered-field run (em_scatter_port_source, ctx an em_scatter_port):
 * g = n x nu curl E_inc + gamma n x (n x E_inc) (wave port, n out of the
 * domain), g = -gamma (E_inc . v) v (lumped load). */
typedef struct em_scatter_port {
  const em_scatter *sc;
  const em_port *port;
  em_cplx gamma; /* the port's Robin gamma (em_port_robin / em_port_robin_load) */
} em_scatter_port;
em_err em_scatter_port_source(void *ctx, const double x[3], em_cplx g[3]);

#ifdef __cplusplus
}
#endif
#endif /* EM_ASSEMBLY_H */
