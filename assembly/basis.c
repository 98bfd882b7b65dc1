/* basis.c - hierarchical first-kind Nedelec basis of complete order 1..3 on
 * tetrahedra, in barycentric coordinates lam and their gradients g.
 *
 * With W_ab = lam_a g_b - lam_b g_a (Whitney, curl W_ab = 2 g_a x g_b) and
 * local edge (a, b), face (a, b, c), vertices in ascending global id:
 *   group 1: edge slot 0   W_ab
 *   group 2: edge slot 1   grad(lam_a lam_b)
 *            face slot 0   lam_c W_ab        face slot 1   lam_a W_bc
 *   group 3: edge slot 2   grad(lam_a lam_b (lam_b - lam_a))
 *            face slot 2   grad(lam_a lam_b lam_c)
 *            face slot 3   lam_b lam_c W_ab  face slot 4   lam_c lam_a W_bc
 *            face slot 5   lam_a lam_b W_ca
 *            cell slot k   lam_c lam_d W_0m  (m = k + 1, {c, d} = {1,2,3} \ {m})
 * Every factor set {x, y} u {u, v} of a product lam_x lam_y W_uv covers the
 * vertices of its entity, so its tangential trace vanishes on every face that
 * does not contain the entity; traces on a shared face depend only on that
 * face's barycentrics, hence conformity without sign flips.  See
 * docs/basis.md for the span proof (tests/assembly/test_assembly_span.c). */
#include "em_assembly.h"

#include <string.h>

/* Local order of the 45 functions: index = position in the order-3 set. */
static const em_basis_fn TABLE[45] = {
    /* group 1: Whitney */
    {EM_ENT_EDGE, 0, 0, 1},
    {EM_ENT_EDGE, 1, 0, 1},
    {EM_ENT_EDGE, 2, 0, 1},
    {EM_ENT_EDGE, 3, 0, 1},
    {EM_ENT_EDGE, 4, 0, 1},
    {EM_ENT_EDGE, 5, 0, 1},
    /* group 2 */
    {EM_ENT_EDGE, 0, 1, 2},
    {EM_ENT_EDGE, 1, 1, 2},
    {EM_ENT_EDGE, 2, 1, 2},
    {EM_ENT_EDGE, 3, 1, 2},
    {EM_ENT_EDGE, 4, 1, 2},
    {EM_ENT_EDGE, 5, 1, 2},
    {EM_ENT_FACE, 0, 0, 2},
    {EM_ENT_FACE, 0, 1, 2},
    {EM_ENT_FACE, 1, 0, 2},
    {EM_ENT_FACE, 1, 1, 2},
    {EM_ENT_FACE, 2, 0, 2},
    {EM_ENT_FACE, 2, 1, 2},
    {EM_ENT_FACE, 3, 0, 2},
    {EM_ENT_FACE, 3, 1, 2},
    /* group 3 */
    {EM_ENT_EDGE, 0, 2, 3},
    {EM_ENT_EDGE, 1, 2, 3},
    {EM_ENT_EDGE, 2, 2, 3},
    {EM_ENT_EDGE, 3, 2, 3},
    {EM_ENT_EDGE, 4, 2, 3},
    {EM_ENT_EDGE, 5, 2, 3},
    {EM_ENT_FACE, 0, 2, 3},
    {EM_ENT_FACE, 0, 3, 3},
    {EM_ENT_FACE, 0, 4, 3},
    {EM_ENT_FACE, 0, 5, 3},
    {EM_ENT_FACE, 1, 2, 3},
    {EM_ENT_FACE, 1, 3, 3},
    {EM_ENT_FACE, 1, 4, 3},
    {EM_ENT_FACE, 1, 5, 3},
    {EM_ENT_FACE, 2, 2, 3},
    {EM_ENT_FACE, 2, 3, 3},
    {EM_ENT_FACE, 2, 4, 3},
    {EM_ENT_FACE, 2, 5, 3},
    {EM_ENT_FACE, 3, 2, 3},
    {EM_ENT_FACE, 3, 3, 3},
    {EM_ENT_FACE, 3, 4, 3},
    {EM_ENT_FACE, 3, 5, 3},
    {EM_ENT_CELL, 0, 0, 3},
    {EM_ENT_CELL, 0, 1, 3},
    {EM_ENT_CELL, 0, 2, 3}};

/* p(p+2)(p+3)/2: the dimension of the first-kind Nedelec space of order p. */
int em_basis_count(int p) {
  if (p < 1 || p > EM_MAX_ORDER) return 0;
  return p * (p + 2) * (p + 3) / 2;
}

/* Interior DOFs of an entity at order p: edge p, face p(p-1), cell
 * p(p-1)(p-2)/2 (6p + 4p(p-1) + p(p-1)(p-2)/2 = em_basis_count). */
int em_basis_entity_dofs(int p, int kind) {
  if (p < 1 || p > EM_MAX_ORDER) return 0;
  switch (kind) {
    case EM_ENT_EDGE:
      return p;
    case EM_ENT_FACE:
      return p * (p - 1);
    case EM_ENT_CELL:
      return p * (p - 1) * (p - 2) / 2;
    default:
      return 0;
  }
}

/* The table is one list for every order: hierarchy makes the order-p set the
 * first em_basis_count(p) entries. */
const em_basis_fn *em_basis_table(int p) {
  if (p < 1 || p > EM_MAX_ORDER) return NULL;
  return TABLE;
}

static inline void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Shared values at one point: W_ab and curl W_ab = 2 g_a x g_b per edge. */
typedef struct basis_pt {
  const double *lam;    /* barycentrics */
  const double (*g)[3]; /* their gradients */
  double W[4][4][3];    /* W_ab for a != b (W_ba = -W_ab) */
  double cW[4][4][3];   /* curl W_ab */
} basis_pt;

/* phi W_uv with phi = lam_x lam_y (y < 0: phi = lam_x):
 * curl(phi W) = grad phi x W + phi curl W. */
static void prod_w(const basis_pt *b, int x, int y, int u, int v, double w[3], double c[3]) {
  const double *lam = b->lam;
  double phi = y < 0 ? lam[x] : lam[x] * lam[y], gphi[3];
  for (int d = 0; d < 3; d++) {
    gphi[d] = y < 0 ? b->g[x][d] : lam[y] * b->g[x][d] + lam[x] * b->g[y][d];
    w[d] = phi * b->W[u][v][d];
  }
  if (!c) return;
  cross(gphi, b->W[u][v], c);
  for (int d = 0; d < 3; d++) c[d] += phi * b->cW[u][v][d];
}

static void zero3(double *c) {
  if (c) c[0] = c[1] = c[2] = 0;
}

/* The functions of the list above evaluated at one point; curl may be NULL.
 * Gradient functions have zero curl by construction (exactly, not to
 * rounding), which keeps the discrete gradients in the kernel of S. */
void em_basis_eval(int p, const double lam[4], const double grad[4][3], double (*w)[3],
                   double (*curl)[3]) {
  if (p < 1 || p > EM_MAX_ORDER) return;
  basis_pt b;
  b.lam = lam;
  b.g = grad;
  for (int e = 0; e < 6; e++) {
    int a = EM_TET_EDGE[e][0], c = EM_TET_EDGE[e][1];
    double gx[3];
    cross(grad[a], grad[c], gx);
    for (int d = 0; d < 3; d++) {
      b.W[a][c][d] = lam[a] * grad[c][d] - lam[c] * grad[a][d];
      b.W[c][a][d] = -b.W[a][c][d];
      b.cW[a][c][d] = 2 * gx[d];
      b.cW[c][a][d] = -2 * gx[d];
    }
  }
#define CURL(i) (curl ? curl[i] : NULL)
  /* group 1 */
  for (int e = 0; e < 6; e++) {
    int a = EM_TET_EDGE[e][0], c = EM_TET_EDGE[e][1];
    memcpy(w[e], b.W[a][c], sizeof w[e]);
    if (curl) memcpy(curl[e], b.cW[a][c], sizeof curl[e]);
  }
  if (p < 2) return;
  /* group 2: grad(lam_a lam_b) = lam_a g_b + lam_b g_a */
  for (int e = 0; e < 6; e++) {
    int a = EM_TET_EDGE[e][0], c = EM_TET_EDGE[e][1];
    for (int d = 0; d < 3; d++) w[6 + e][d] = lam[a] * grad[c][d] + lam[c] * grad[a][d];
    zero3(CURL(6 + e));
  }
  for (int f = 0; f < 4; f++) {
    int a = EM_TET_FACE[f][0], c = EM_TET_FACE[f][1], e = EM_TET_FACE[f][2];
    prod_w(&b, e, -1, a, c, w[12 + 2 * f], CURL(12 + 2 * f)); /* lam_c W_ab */
    prod_w(&b, a, -1, c, e, w[13 + 2 * f], CURL(13 + 2 * f)); /* lam_a W_bc */
  }
  if (p < 3) return;
  /* group 3: grad(lam_a lam_b^2 - lam_a^2 lam_b)
   *        = (lam_b^2 - 2 lam_a lam_b) g_a + (2 lam_a lam_b - lam_a^2) g_b */
  for (int e = 0; e < 6; e++) {
    int a = EM_TET_EDGE[e][0], c = EM_TET_EDGE[e][1];
    double la = lam[a], lb = lam[c];
    double ca = lb * lb - 2 * la * lb, cb = 2 * la * lb - la * la;
    for (int d = 0; d < 3; d++) w[20 + e][d] = ca * grad[a][d] + cb * grad[c][d];
    zero3(CURL(20 + e));
  }
  for (int f = 0; f < 4; f++) {
    int a = EM_TET_FACE[f][0], c = EM_TET_FACE[f][1], e = EM_TET_FACE[f][2];
    int i = 26 + 4 * f;
    /* grad(lam_a lam_b lam_c) */
    for (int d = 0; d < 3; d++)
      w[i][d] = lam[c] * lam[e] * grad[a][d] + lam[a] * lam[e] * grad[c][d] +
                lam[a] * lam[c] * grad[e][d];
    zero3(CURL(i));
    prod_w(&b, c, e, a, c, w[i + 1], CURL(i + 1)); /* lam_b lam_c W_ab */
    prod_w(&b, e, a, c, e, w[i + 2], CURL(i + 2)); /* lam_c lam_a W_bc */
    prod_w(&b, a, c, e, a, w[i + 3], CURL(i + 3)); /* lam_a lam_b W_ca */
  }
  /* cell: lam_c lam_d W_0m; the variant lam_0 lam_m W_cd would be dependent
   * (sum_m +-lam_0 lam_m W_cd = lam_0 (zero-sum face triple) = 0) */
  prod_w(&b, 2, 3, 0, 1, w[42], CURL(42));
  prod_w(&b, 1, 3, 0, 2, w[43], CURL(43));
  prod_w(&b, 1, 2, 0, 3, w[44], CURL(44));
#undef CURL
}
