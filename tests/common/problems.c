/* problems.c - the test systems of problems.h. */
#include "problems.h"

#include <math.h>
#include <stdlib.h>

#include "em_mesh.h"

/* Triplet list that grows. */
typedef struct trip {
  int64_t n, cap;
  int32_t *i, *j;
  em_cplx *v;
} trip;

static em_err trip_add(trip *t, int32_t i, int32_t j, em_cplx v) {
  if (t->n == t->cap) {
    int64_t cap = t->cap ? 2 * t->cap : 1024;
    EM_TRY(em_realloc(&t->i, (size_t)cap, sizeof *t->i, "triplets"));
    EM_TRY(em_realloc(&t->j, (size_t)cap, sizeof *t->j, "triplets"));
    EM_TRY(em_realloc(&t->v, (size_t)cap, sizeof *t->v, "triplets"));
    t->cap = cap;
  }
  t->i[t->n] = i;
  t->j[t->n] = j;
  t->v[t->n] = v;
  t->n++;
  return EM_OK;
}

static em_err trip_done(trip *t, int32_t n, em_csr **A) {
  em_err err = em_csr_from_triplets(n, n, t->n, t->i, t->j, t->v, A);
  em_free(&t->i);
  em_free(&t->j);
  em_free(&t->v);
  return err;
}

em_err prob_laplace2d(int nx, int ny, em_cplx shift, em_csr **A) {
  trip t = {0};
  for (int y = 0; y < ny; y++)
    for (int x = 0; x < nx; x++) {
      int32_t r = x + nx * y;
      EM_TRY(trip_add(&t, r, r, 4 - shift));
      if (x > 0) EM_TRY(trip_add(&t, r, r - 1, -1));
      if (x + 1 < nx) EM_TRY(trip_add(&t, r, r + 1, -1));
      if (y > 0) EM_TRY(trip_add(&t, r, r - nx, -1));
      if (y + 1 < ny) EM_TRY(trip_add(&t, r, r + nx, -1));
    }
  return trip_done(&t, nx * ny, A);
}

em_err prob_laplace3d(int nx, int ny, int nz, em_cplx shift, em_csr **A) {
  trip t = {0};
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        int32_t r = x + nx * (y + ny * z);
        EM_TRY(trip_add(&t, r, r, 6 - shift));
        if (x > 0) EM_TRY(trip_add(&t, r, r - 1, -1));
        if (x + 1 < nx) EM_TRY(trip_add(&t, r, r + 1, -1));
        if (y > 0) EM_TRY(trip_add(&t, r, r - nx, -1));
        if (y + 1 < ny) EM_TRY(trip_add(&t, r, r + nx, -1));
        if (z > 0) EM_TRY(trip_add(&t, r, r - nx * ny, -1));
        if (z + 1 < nz) EM_TRY(trip_add(&t, r, r + nx * ny, -1));
      }
  return trip_done(&t, nx * ny * nz, A);
}

/* gradients of the barycentric coordinates of tet t and its volume */
static double tet_grads(const em_mesh *m, int32_t t, double g[4][3]) {
  const double *p[4];
  for (int a = 0; a < 4; a++) p[a] = m->xyz + 3 * (size_t)m->tet[4 * (size_t)t + a];
  double J[3][3], inv[3][3];
  for (int r = 0; r < 3; r++)
    for (int d = 0; d < 3; d++) J[d][r] = p[r + 1][d] - p[0][d]; /* columns x_r - x_0 */
  double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
               J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      inv[c][r] = (J[r1][c1] * J[r2][c2] - J[r1][c2] * J[r2][c1]) / det;
    }
  for (int a = 1; a < 4; a++)
    for (int d = 0; d < 3; d++) g[a][d] = inv[a - 1][d]; /* rows of J^-1 */
  for (int d = 0; d < 3; d++) g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
  return fabs(det) / 6;
}

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

em_err prob_curlcurl(int n, double k0, double tan_delta, em_csr **A) {
  em_mesh *m = NULL;
  em_err err = EM_OK;
  int32_t *dof = NULL;
  trip t = {0};
  EM_TRY(em_mesh_box(n, n, n, 1, 1, 1, 0.2, 7, &m));
  EM_TRY_GOTO(err, em_calloc(&dof, (size_t)m->n_edge, sizeof *dof, "edge dofs"), done);
  /* PEC: the edges of boundary faces carry no DOF */
  for (int32_t tt = 0; tt < m->n_tet; tt++)
    for (int lf = 0; lf < 4; lf++) {
      int32_t f = m->tet_face[4 * (size_t)tt + lf];
      if (m->face_tet[2 * f + 1] >= 0) continue;
      for (int e = 0; e < 6; e++) /* the three edges not touching vertex lf */
        if (EM_TET_EDGE[e][0] != lf && EM_TET_EDGE[e][1] != lf)
          dof[m->tet_edge[6 * (size_t)tt + e]] = -1;
    }
  int32_t nd = 0;
  for (int32_t e = 0; e < m->n_edge; e++) dof[e] = dof[e] < 0 ? -1 : nd++;
  em_cplx eps = 1 - I * tan_delta;
  for (int32_t tt = 0; tt < m->n_tet; tt++) {
    double g[4][3], c[6][3];
    double vol = tet_grads(m, tt, g);
    for (int e = 0; e < 6; e++) cross3(g[EM_TET_EDGE[e][0]], g[EM_TET_EDGE[e][1]], c[e]);
    for (int e = 0; e < 6; e++) {
      int32_t ie = dof[m->tet_edge[6 * (size_t)tt + e]];
      if (ie < 0) continue;
      int a = EM_TET_EDGE[e][0], b = EM_TET_EDGE[e][1];
      for (int f = 0; f < 6; f++) {
        int32_t jf = dof[m->tet_edge[6 * (size_t)tt + f]];
        if (jf < 0) continue;
        int cc = EM_TET_EDGE[f][0], d = EM_TET_EDGE[f][1];
        /* curl N_e = 2 grad l_a x grad l_b;  int l_i l_j = vol (1 + d_ij) / 20 */
        double K = 4 * vol * dot3(c[e], c[f]);
        double M = vol / 20 *
                   ((1 + (a == cc)) * dot3(g[b], g[d]) - (1 + (a == d)) * dot3(g[b], g[cc]) -
                    (1 + (b == cc)) * dot3(g[a], g[d]) + (1 + (b == d)) * dot3(g[a], g[cc]));
        EM_TRY_GOTO(err, trip_add(&t, ie, jf, K - k0 * k0 * eps * M), done);
      }
    }
  }
  err = trip_done(&t, nd, A);
  if (err) em_error_trace(err, __FILE__, __LINE__);
done:
  em_free(&t.i);
  em_free(&t.j);
  em_free(&t.v);
  em_free(&dof);
  em_mesh_destroy(&m);
  return err;
}

em_err prob_random_sym(int32_t n, int deg, double dom, unsigned long long seed, em_csr **A) {
  trip t = {0};
  unsigned long long s = seed | 1;
  double *rowsum = NULL;
  EM_TRY(em_calloc(&rowsum, (size_t)n + 1, sizeof *rowsum, "row sums"));
  for (int32_t i = 0; i < n; i++)
    for (int k = 0; k < deg / 2; k++) {
      s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
      int32_t j = (int32_t)((s * 2685821657736338717ULL >> 11) % (unsigned long long)n);
      if (j == i) continue;
      double re = (double)((s >> 20) & 1023) / 1023 - 0.5,
             im = (double)((s >> 40) & 1023) / 1023 - 0.5;
      em_cplx v = re + I * im;
      EM_TRY(trip_add(&t, i, j, v));
      EM_TRY(trip_add(&t, j, i, v));
      rowsum[i] += cabs(v);
      rowsum[j] += cabs(v);
    }
  for (int32_t i = 0; i < n; i++) EM_TRY(trip_add(&t, i, i, dom * rowsum[i] + 1 + 0.5 * I));
  em_free(&rowsum);
  return trip_done(&t, n, A);
}

void prob_rhs(const em_csr *A, em_cplx *x_true, em_cplx *b) {
  for (int32_t i = 0; i < A->n_rows; i++) x_true[i] = cexp(I * 0.01 * i) * (1 + 0.001 * i);
  em_csr_spmv_ref(A, 1, x_true, 0, b);
}
