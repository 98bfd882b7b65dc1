/* The FEM-pattern generator against closed forms.  A row of an entity holds
 * every DOF of the tets around it: with v tets around an edge, the union has
 * 3v+1 edges, 3v faces and v cells (interior edge: a closed ring) or 3v+3,
 * 3v+1, v (boundary edge: an open fan); a face has 2 tets (9 edges, 7 faces,
 * 2 cells) or 1 on the boundary (6, 4, 1); a cell 6, 4, 1.  The row length
 * is p|E| + p(p-1)|F| + p(p-1)(p-2)/2 |C|.  Also: DOF counts and group
 * offsets, the documented numbering, complex symmetry, the block split. */
#include <string.h>

#include "fem_pattern.h"
#include "em_test.h"

static int64_t row_len(int p, int64_t ne, int64_t nf, int64_t nc) {
  return p * ne + p * (p - 1) * nf + p * (p - 1) * (p - 2) / 2 * nc;
}

static int64_t len_of(const em_csr *A, int32_t i) {
  return A->rowptr[i + 1] - A->rowptr[i];
}

/* A(i, j) or NAN when not stored (binary search). */
static em_cplx entry(const em_csr *A, int32_t i, int32_t j) {
  int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if (A->colind[mid] == j) return A->val[mid];
    if (A->colind[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NAN;
}

static void check_order(const em_mesh *m, int p) {
  em_csr *A = NULL;
  em_blockmat *B = NULL;
  REQUIRE_OK(em_fem_pattern(m, p, 5, &A, &B));
  EXPECT_OK(em_csr_check(A, "FEM pattern"));
  int32_t E = m->n_edge, F = m->n_face, C = m->n_tet;
  /* group sizes: edges 1 DOF per group, faces 0/2/4, cells 0/0/3 */
  int32_t want[4] = {0, E, E + E + 2 * F, E + E + 2 * F + E + 4 * F + 3 * C};
  EXPECT(A->n_rows == want[p] && B->nb == p, "order %d: %d DOFs, expected %d", p, A->n_rows,
         want[p]);
  for (int g = 0; g <= p; g++)
    EXPECT(B->offset[g] == want[g], "order %d: group offset %d = %d, expected %d", p, g,
           B->offset[g], want[g]);
  /* valence and boundary of the edges */
  int *val = calloc((size_t)E, sizeof *val), *bnd = calloc((size_t)E, sizeof *bnd);
  for (int32_t t = 0; t < C; t++) {
    for (int e = 0; e < 6; e++) val[m->tet_edge[6 * t + e]]++;
    for (int f = 0; f < 4; f++) {
      if (m->face_tet[2 * m->tet_face[4 * t + f] + 1] >= 0) continue;
      for (int e = 0; e < 6; e++)
        if (EM_TET_EDGE[e][0] != f && EM_TET_EDGE[e][1] != f) bnd[m->tet_edge[6 * t + e]] = 1;
    }
  }
  int bad = 0;
  /* documented numbering: group g starts with one slot of every edge */
  for (int g = 0; g < p; g++)
    for (int32_t e = 0; e < E && bad < 5; e++) {
      int v = val[e];
      int64_t L = bnd[e] ? row_len(p, 3 * v + 3, 3 * v + 1, v) : row_len(p, 3 * v + 1, 3 * v, v);
      if (len_of(A, want[g] + e) != L) {
        bad++;
        EXPECT(0, "order %d: edge %d (valence %d%s) slot %d row length %lld, expected %lld", p, e,
               v, bnd[e] ? ", boundary" : "", g, (long long)len_of(A, want[g] + e), (long long)L);
      }
    }
  /* then the face slots of the group, then (group 3) the cell slots */
  for (int g = 1; g < p; g++) {
    int per = g == 1 ? 2 : 4;
    for (int32_t f = 0; f < F && bad < 5; f++) {
      int inner = m->face_tet[2 * f + 1] >= 0;
      int64_t L = inner ? row_len(p, 9, 7, 2) : row_len(p, 6, 4, 1);
      for (int s = 0; s < per; s++)
        if (len_of(A, want[g] + E + per * f + s) != L) {
          bad++;
          EXPECT(0, "order %d: face %d slot %d row length %lld, expected %lld", p, f, s,
                 (long long)len_of(A, want[g] + E + per * f + s), (long long)L);
        }
    }
  }
  if (p == 3)
    for (int32_t r = want[2] + E + 4 * F; r < want[3]; r++)
      if (len_of(A, r) != 45 && bad++ < 5)
        EXPECT(0, "cell row %d has %lld entries", r, (long long)len_of(A, r));
  /* complex symmetric, values in [-1, 1) */
  for (int32_t i = 0; i < A->n_rows && bad < 5; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      em_cplx a = A->val[k], b = entry(A, A->colind[k], i);
      if (a != b || fabs(creal(a)) > 1 || fabs(cimag(a)) > 1) {
        bad++;
        EXPECT(0, "order %d: A(%d,%d) = %g%+gi but A(%d,%d) = %g%+gi", p, i, A->colind[k], creal(a),
               cimag(a), A->colind[k], i, creal(b), cimag(b));
        break;
      }
    }
  /* the block split puts back together to A */
  em_csr *A2 = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A2));
  EXPECT(A2->nnz == A->nnz &&
             !memcmp(A2->rowptr, A->rowptr, ((size_t)A->n_rows + 1) * sizeof *A->rowptr) &&
             !memcmp(A2->colind, A->colind, (size_t)A->nnz * sizeof *A->colind) &&
             !memcmp(A2->val, A->val, (size_t)A->nnz * sizeof *A->val),
         "order %d: blocks do not reassemble to the matrix", p);
  printf("order %d: %d DOFs, %lld entries, %.1f per row\n", p, A->n_rows, (long long)A->nnz,
         (double)A->nnz / A->n_rows);
  free(val);
  free(bnd);
  em_csr_destroy(&A);
  em_csr_destroy(&A2);
  em_blockmat_destroy(&B);
}

int main(void) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(3, 2, 4, 1.0, 0.5, 2.0, 0.2, 3, &m));
  for (int p = 1; p <= 3; p++) check_order(m, p);
  em_csr *A = NULL;
  EXPECT_ERR(em_fem_pattern(m, 0, 1, &A, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_fem_pattern(m, 4, 1, &A, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_fem_pattern(m, 2, 1, NULL, NULL), EM_ERR_ARG);
  EXPECT(A == NULL, "failed call left a matrix");
  /* the box helper: same counts as the mesh it builds */
  em_blockmat *B = NULL;
  REQUIRE_OK(em_fem_pattern_box(2, 3, 9, &A, &B));
  EXPECT(A->n_rows == B->offset[3] && A->n_rows > 0, "box pattern: %d rows", A->n_rows);
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
