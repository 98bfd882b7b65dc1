/* vtk_lattice.c - the regular subdivision of a tetrahedron into s^3 tets.
 *
 * In "ordered" integer coordinates (a, b, c) the parent is the Kuhn simplex
 * s >= a >= b >= c >= 0 with corners (0,0,0), (s,0,0), (s,s,0), (s,s,s),
 * i.e. lam = ((s-a)/s, (a-b)/s, (b-c)/s, c/s).  The Freudenthal triangulation
 * of the unit-cube grid (6 tets per cube, one per path 0 -> e_i -> e_i+e_j ->
 * 1) is cut by every plane a-b = k, b-c = k, so each of its tets lies wholly
 * inside or outside the simplex; the s^3 inside are the sub-tets.  They are
 * congruent in the ordered coordinates, so none degenerates as s grows. */
#include "post_impl.h"

#include <string.h>

static const int PERM[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

/* det of the edge vectors of a sub-tet in (lam1, lam2, lam3) coordinates,
 * scaled by s^3: the sign of its volume relative to the parent. */
static long ref_det(const int (*abc)[3]) {
  long e[3][3];
  for (int k = 0; k < 3; k++) {
    const int *p = abc[k + 1], *o = abc[0];
    e[k][0] = (p[0] - p[1]) - (o[0] - o[1]);
    e[k][1] = (p[1] - p[2]) - (o[1] - o[2]);
    e[k][2] = p[2] - o[2];
  }
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

em_err em_vtk_lattice_create(int s, em_vtk_lattice **out) {
  EM_CHECK(out, EM_ERR_ARG, "NULL lattice output");
  *out = NULL;
  EM_CHECK(s >= 1 && s <= 64, EM_ERR_ARG, "VTK subdivision %d outside 1..64", s);
  em_err err = EM_OK;
  em_vtk_lattice *L = NULL;
  int32_t *index = NULL; /* (s+1)^3 table: ordered coordinates -> point */
  int s1 = s + 1;
  EM_TRY(em_calloc(&L, 1, sizeof *L, "VTK lattice"));
  L->s = s;
  L->n_pt = s1 * (s + 2) * (s + 3) / 6;
  L->n_sub = s * s * s;
  EM_TRY_GOTO(err, em_calloc(&L->lam, 4 * (size_t)L->n_pt, sizeof *L->lam, "VTK lattice"), done);
  EM_TRY_GOTO(err, em_calloc(&L->sub, 4 * (size_t)L->n_sub, sizeof *L->sub, "VTK lattice"), done);
  EM_TRY_GOTO(err, em_calloc(&index, (size_t)s1 * s1 * s1, sizeof *index, "VTK lattice"), done);
  int n = 0;
  for (int a = 0; a <= s; a++)
    for (int b = 0; b <= a; b++)
      for (int c = 0; c <= b; c++) {
        double *lam = L->lam + 4 * (size_t)n;
        lam[0] = (double)(s - a) / s;
        lam[1] = (double)(a - b) / s;
        lam[2] = (double)(b - c) / s;
        lam[3] = (double)c / s;
        index[(a * s1 + b) * s1 + c] = n++;
      }
  int k = 0;
  for (int p = 0; p < s; p++)
    for (int q = 0; q < s; q++)
      for (int r = 0; r < s; r++)
        for (int perm = 0; perm < 6; perm++) {
          int abc[4][3] = {{p, q, r}};
          int inside = p >= q && q >= r;
          for (int v = 1; v < 4; v++) {
            memcpy(abc[v], abc[v - 1], sizeof abc[v]);
            abc[v][PERM[perm][v - 1]]++;
            inside &= abc[v][0] >= abc[v][1] && abc[v][1] >= abc[v][2];
          }
          if (!inside) continue;
          if (k == L->n_sub) {
            err = EM_RAISE(EM_ERR_INTERNAL, "lattice of %d has more than %d sub-tets", s, L->n_sub);
            goto done;
          }
          int32_t *t = L->sub + 4 * (size_t)k++;
          for (int v = 0; v < 4; v++) t[v] = index[(abc[v][0] * s1 + abc[v][1]) * s1 + abc[v][2]];
          if (ref_det((const int(*)[3])abc) < 0) {
            int32_t tmp = t[1];
            t[1] = t[2];
            t[2] = tmp;
          }
        }
  if (n != L->n_pt || k != L->n_sub)
    err = EM_RAISE(EM_ERR_INTERNAL, "lattice of %d: %d points, %d sub-tets", s, n, k);
done:
  em_free(&index);
  if (err)
    em_vtk_lattice_destroy(&L);
  else
    *out = L;
  return err;
}

void em_vtk_lattice_destroy(em_vtk_lattice **L) {
  if (!L || !*L) return;
  em_free(&(*L)->lam);
  em_free(&(*L)->sub);
  em_free(L);
}
