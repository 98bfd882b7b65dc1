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

/* Physical constants (SI, CODATA 2018). */
#define EM_C0 299792458.0
#define EM_MU0 1.25663706212e-6
#define EM_EPS0 8.8541878128e-12
#define EM_Z0 376.730313668

/* ------------------------------------------------------------------ basis */

enum { EM_ENT_EDGE = 0, EM_ENT_FACE = 1, EM_ENT_CELL = 2 };

/* One local basis function: which mesh entity carries it, which of that
 * entity's DOFs it is, and its order group (1..3). */
typedef struct em_basis_fn {
  int8_t kind;    /* EM_ENT_EDGE / FACE / CELL */
  int8_t entity;  /* local edge 0..5, local face 0..3, or 0 */
  int8_t slot;    /* index among the entity's DOFs (0 .. dofs-1) */
  int8_t group;   /* order group 1..3 */
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
  int n;               /* points */
  int degree;          /* exact for polynomials of this total degree */
  const double *lam;   /* [n x 4] for tets, [n x 3] for triangles */
  const double *w;     /* [n] */
} em_quad;

/* The cheapest stored rule exact to at least `degree` (error if none). */
em_err em_quad_tet(int degree, em_quad *q);
em_err em_quad_tri(int degree, em_quad *q);

/* ---------------------------------------------------------------- geometry */

typedef struct em_tet_geom {
  double x[4][3];      /* vertex coordinates, metres */
  double grad[4][3];   /* gradients of the barycentric coordinates */
  double vol;          /* |volume| */
} em_tet_geom;

void em_tet_geom_make(const em_mesh *m, int32_t t, em_tet_geom *g);

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

/* Global numbering of the DOFs.  A code c >= 0 is an unknown; c < 0 is the
 * fixed DOF number -c-1.  Unknowns are grouped by order: offset[g-1] ..
 * offset[g]-1 hold group g; inside a group they follow mesh locality. */
typedef struct em_dofmap {
  int order;                 /* p */
  int32_t n_dof;             /* unknowns */
  int32_t n_fixed;           /* eliminated (Dirichlet / PEC) DOFs */
  int32_t offset[EM_MAX_ORDER + 1];
  int32_t *edge_dof;         /* [p per edge] codes, slot order */
  int32_t *face_dof;         /* [p(p-1) per face] */
  int32_t *cell_dof;         /* [p(p-1)(p-2)/2 per tet] */
  int8_t *fixed_group;       /* [n_fixed] order group of each fixed DOF */
} em_dofmap;

/* face_fixed[f] != 0 marks faces whose tangential field is prescribed; their
 * edges and faces become fixed DOFs.  NULL: nothing fixed. */
em_err em_dofmap_build(const em_mesh *m, int order, const uint8_t *face_fixed, em_dofmap **d);
void em_dofmap_destroy(em_dofmap **d);
/* Codes of the em_basis_count(p) local functions of tet t. */
void em_dofmap_tet(const em_dofmap *d, const em_mesh *m, int32_t t, int32_t *code);

/* ---------------------------------------------------------------- problem */

typedef em_err (*em_vector_fn)(void *ctx, const double x[3], em_cplx v[3]);

/* A Robin boundary: gamma oint (n x E).(n x w) added to the matrix over the
 * triangles of a surface group, and oint g . w added to right-hand side
 * column `rhs` when g is set (w's tangential trace: only the tangential part
 * of g counts). */
typedef struct em_robin {
  int group;           /* surface group (index into mesh->group) */
  em_cplx gamma;
  em_vector_fn g;      /* NULL: no source */
  void *g_ctx;
  int rhs;             /* right-hand side column for g */
} em_robin;

/* All callbacks (material, source, dirichlet, Robin g) are called from
 * several OpenMP threads at once during em_assemble: they must be
 * thread-safe (pure functions of their arguments and a read-only ctx).
 * The Dirichlet lift -A_uf E_fixed enters every right-hand side column, so
 * each column is a complete problem with the same fixed values. */
typedef struct em_problem {
  double k0;                 /* free-space wavenumber, rad/m */
  int order;                 /* 1..3 */
  em_material_fn material;   /* required */
  void *material_ctx;
  const uint8_t *tet_vary;   /* [n_tet] nonzero where the material varies in
                                the tet (PML); NULL: constant everywhere */
  em_vector_fn source;       /* f in the volume (column 0), NULL: none */
  void *source_ctx;
  em_vector_fn dirichlet;    /* E_D on fixed faces, NULL: zero (PEC) */
  void *dirichlet_ctx;
  int n_robin;
  const em_robin *robin;
  int n_rhs;                 /* right-hand side columns (>= 1) */
} em_problem;

/* The assembled system. */
typedef struct em_system {
  em_blockmat *A;            /* unknowns x unknowns, by order group */
  int n_rhs;
  em_cplx *b;                /* [n_dof x n_rhs], column-major */
  em_cplx *fixed;            /* [n_fixed] values of the fixed DOFs */
  double t_assembly;         /* seconds */
} em_system;

em_err em_assemble(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                   const em_log *log, em_system **sys);
void em_system_destroy(em_system **sys);

/* ------------------------------------------------------------------ fields */

/* E and curl E (either may be NULL) at barycentric point lam of tet t, from
 * the unknowns x and the fixed values (fixed == NULL: all zero, PEC). */
void em_field_eval(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                   int32_t t, const double lam[4], em_cplx E[3], em_cplx curlE[3]);

/* ||E - E_ex||_L2 and ||curl(E - E_ex)||_L2 over the mesh, by quadrature of
 * degree 2p+2 (curl_ex may be NULL: then *curl_err is not computed). */
em_err em_field_error(const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                      const em_cplx *fixed, em_vector_fn E_ex, em_vector_fn curl_ex, void *ctx,
                      double *l2_err, double *curl_err);

#ifdef __cplusplus
}
#endif
#endif /* EM_ASSEMBLY_H */
