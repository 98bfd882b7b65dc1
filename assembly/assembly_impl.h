/* assembly_impl.h - private pieces shared by the assembly files. */
#ifndef EM_ASSEMBLY_IMPL_H
#define EM_ASSEMBLY_IMPL_H

#include "em_assembly.h"

#define EM_NB_MAX 45 /* em_basis_count(EM_MAX_ORDER) */

/* Reference element tensors for a constant material.  With w_i = J^-T w^_i
 * and curl w_i = J c^_i / det J (covariant Piola), for a pair (k, l) of
 * reference directions R_kl[i][j] = avg_ref w^_i,k w^_j,l and likewise for
 * the curls.  The element matrices are then
 *   T = vol sum_kl (g_k . eps g_l) R_kl,
 *   S = vol sum_kl (e_k . nu e_l) / D^2 C_kl
 * with g_k the barycentric gradients (k = 1..3), e_k = x_k - x_0 and
 * D = det J.  Only the symmetric parts are stored: pair r = 0..5 is
 * (0,0) (1,1) (2,2) (0,1) (0,2) (1,2), and for k != l the stored matrix is
 * R_kl + R_lk, so T_ij = vol sum_r M_r R_r[ij]. */
typedef struct em_element_ref {
  int p;         /* order */
  int n;         /* em_basis_count(p) */
  int64_t npack; /* n (n + 1) / 2: packed upper triangle, row by row */
  double *mass;  /* [npack x 6] R_r of the values, pair index fastest */
  double *stiff; /* [npack x 6] the same for the curls */
} em_element_ref;

em_err em_element_ref_create(int p, em_element_ref **ref);
void em_element_ref_destroy(em_element_ref **ref);
/* A = S - k0^2 T (packed upper triangle) of a straight tet (g->curved == 0:
 * the assembly sends curved ones to em_element_matrices) with constant
 * material. */
void em_element_ref_apply(const em_element_ref *ref, const em_tet_geom *g, const em_material *mat,
                          double k0, em_cplx *A);
/* Its parts: S and T (packed, T without the factor -k0^2). */
void em_element_ref_split(const em_element_ref *ref, const em_tet_geom *g, const em_material *mat,
                          em_cplx *S, em_cplx *T);

/* Check that a material value is finite (names the tet on failure). */
em_err em_material_check(const em_material *mat, int32_t t);

/* Fixed DOF values: zero (PEC) or the projection-based interpolant of the
 * Dirichlet data.  fixed has d->n_fixed entries. */
em_err em_dirichlet_values(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                           em_cplx *fixed);

/* Symmetric pattern of the unknowns split into blocks, with the per-entity
 * column lists that locate entries during the numeric phase. */
typedef struct em_pattern {
  int p;                /* order */
  int32_t n_ent;        /* entities: edges, then faces, then cells (p = 3) */
  int32_t face0, cell0; /* first face / cell entity index */
  int64_t *ptr;         /* [n_ent + 1] start of each entity's column list */
  int32_t *col;         /* unknown codes in ascending order */
  int32_t *gstart;      /* [3 per entity] list position where group g begins */
  int32_t *edge_ptr;    /* [n_edge + 1] tets around each edge */
  int32_t *edge_tet;
  /* the rows assembled: every unknown's (row = code), or a part's
     (em_pattern_build_part: a distributed solve's rank) */
  int32_t n_row;                     /* rows: n_dof, or the part's unknowns */
  int32_t row_off[EM_MAX_ORDER + 1]; /* first row of each order group */
  int32_t *row;                      /* NULL: every unknown; else [n_dof] the row of each
                                        unknown, ascending with it, -1: not the part's */
  int32_t *row_dof;                  /* [n_row] the unknown of each row (a part only) */
  uint8_t *tet_in;                   /* [n_tet] the tets that hold a row (a part only) */
  int32_t n_tet_in;                  /* their count (n_tet for the whole) */
} em_pattern;

em_err em_pattern_build(const em_mesh *m, const em_dofmap *d, em_pattern **pat);
/* The pattern of a part's rows: the unknowns c with owner[c] == part; only
 * their entities get column lists (each the whole star's, global codes). */
em_err em_pattern_build_part(const em_mesh *m, const em_dofmap *d, const int32_t *owner, int part,
                             em_pattern **pat);
/* The row of unknown c, -1 when the pattern's part does not hold it; its
 * row in the block of order group g is that minus row_off[g]. */
static inline int32_t em_pattern_row(const em_pattern *pat, int32_t c) {
  return pat->row ? pat->row[c] : c;
}
void em_pattern_destroy(em_pattern **pat);
/* The block matrix with the pattern's structure and zero values. */
em_err em_pattern_blockmat(const em_pattern *pat, const em_mesh *m, const em_dofmap *d,
                           em_blockmat **A);

/* Greedy colouring of the tets so that no two tets of one colour share an
 * edge (hence no DOF): colour_ptr[c] .. colour_ptr[c+1]-1 index colour_tet. */
em_err em_tet_colour(const em_mesh *m, const em_pattern *pat, int *n_colour, int32_t **colour_ptr,
                     int32_t **colour_tet);
/* The same colouring by stamps over the tets around each edge (the
 * reference of the bitmap one, colour.c). */
em_err em_tet_colour_stamps(const em_mesh *m, const em_pattern *pat, int *n_colour,
                            int32_t **colour_ptr, int32_t **colour_tet);
/* The colour lists cut to the tets with keep[t] != 0 (in place; the
 * colours and their order kept, so that every entry's sum runs in the
 * order of the whole mesh's). */
void em_tet_colour_keep(int n_colour, int32_t *colour_ptr, int32_t *colour_tet,
                        const uint8_t *keep);

/* Entity index (in the pattern's numbering) of local function i of tet t. */
static inline int32_t em_pattern_entity(const em_pattern *pat, const em_mesh *m, int32_t t,
                                        const em_basis_fn *fn) {
  if (fn->kind == EM_ENT_EDGE) return m->tet_edge[6 * (size_t)t + fn->entity];
  if (fn->kind == EM_ENT_FACE) return pat->face0 + m->tet_face[4 * (size_t)t + fn->entity];
  return pat->cell0 + t;
}

/* Robin terms into the matrix and the right-hand side. */
em_err em_robin_add(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                    const em_pattern *pat, em_system *sys);

/* Position of unknown code c in entity k's column list (group gj range),
 * -1 when absent. */
int32_t em_pattern_find(const em_pattern *pat, int32_t k, int gj, int32_t c);

/* Where tet t's element matrix goes in the pattern (codes from
 * em_dofmap_tet): per basis function i its local entity le[i] (0..5
 * edges, 6..9 faces, 10 cell), its order group grp[i] (-1: fixed), the
 * entities ent[e], and pos[e][j] = the position of unknown code[j] in
 * entity e's column list (-1: fixed).  Entry (i, j) of block (gi, gj) is
 * val[rowptr[code[i] - offset[gi]] - gstart[3 ent[le[i]] + gj] +
 * pos[le[i]][j]]: one search per (entity, unknown), not per entry. */
typedef struct em_tet_slots {
  int32_t ent[11], le[EM_NB_MAX], pos[11][EM_NB_MAX];
  int grp[EM_NB_MAX];
} em_tet_slots;
void em_tet_slots_make(const em_mesh *m, const em_dofmap *d, const em_pattern *pat, int32_t t,
                       const int32_t *code, em_tet_slots *s);

/* Add value v at (row code r, column code c) of the block matrix, both
 * unknowns, r one of the pattern's rows, through the entity list of r's
 * entity (ent). */
em_err em_pattern_add(const em_pattern *pat, em_blockmat *A, int32_t ent, int32_t r, int32_t c,
                      em_cplx v);

/* Group (0-based) of unknown code c. */
static inline int em_dof_group(const em_dofmap *d, int32_t c) {
  int g = 0;
  while (g + 1 < d->order && c >= d->offset[g + 1]) g++;
  return g;
}

/* Small dense SPD solve M x = b (M real n x n row-major, overwritten by its
 * Cholesky factor; b complex, overwritten by x).  EM_ERR_NUMERIC on a
 * non-positive pivot, naming `what`. */
em_err em_small_spd_solve(int n, double *M, em_cplx *b, const char *what, int32_t id);

/* The frequency-independent part of the assembly (kcache.c): the sums of
 * S_e and T_e over the tets whose centroid material is kept. */
typedef struct em_kcache em_kcache;
/* Keep every tet not marked varying by prob nor evicted (evicted may be
 * NULL), with its material at this pass; ref[q]: the reference tensors of
 * element order q. */
em_err em_kcache_build(const em_mesh *m, const em_dofmap *d, const em_pattern *pat,
                       em_element_ref *const *ref, int n_colour, const int32_t *cptr,
                       const int32_t *ctet, const em_problem *prob, const uint8_t *evicted,
                       em_kcache **c);
void em_kcache_destroy(em_kcache **c);
/* Tets kept, and the memory held (MiB). */
int32_t em_kcache_kept(const em_kcache *c);
double em_kcache_mib(const em_kcache *c);
/* dyn[t] = 1 for the tets assembled per pass; dptr/dtet: those by colour. */
const uint8_t *em_kcache_dynamic(const em_kcache *c, const int32_t **dptr, const int32_t **dtet);
/* changed[t] = 1 for kept tets whose material at this pass differs from
 * the kept one (or that prob marks varying); their count. */
em_err em_kcache_check(const em_kcache *c, const em_mesh *m, const em_problem *prob,
                       uint8_t *changed, int32_t *n_changed);
/* A new block matrix on the pattern with values S - k0^2 T. */
em_err em_kcache_matrix(const em_kcache *c, double k0, em_blockmat **A);
/* b[:, col] -= (S_uf - k0^2 T_uf) fixed for every column (n_row rows). */
void em_kcache_lift(const em_kcache *c, double k0, const em_cplx *fixed, int n_rhs, int32_t n_row,
                    em_cplx *b);

#endif
