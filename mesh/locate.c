/* locate.c - which tet holds a point: a brute-force search for a few
 * probes, and a grid of buckets (em_locator) for many. */
#include <math.h>
#include <stdlib.h>

#include "em_mesh.h"

/* lam_1..3 solve [x1-x0 x2-x0 x3-x0] lam = x - x0 (Cramer), lam_0 = 1 - sum. */
static int barycentric(const em_mesh *m, int32_t t, const double x[3], double lam[4]) {
  const double *p0 = m->xyz + 3 * (size_t)m->tet[4 * t];
  double a[3][3], r[3];
  for (int k = 0; k < 3; k++) {
    const double *p = m->xyz + 3 * (size_t)m->tet[4 * t + k + 1];
    for (int d = 0; d < 3; d++) a[d][k] = p[d] - p0[d];
  }
  for (int d = 0; d < 3; d++) r[d] = x[d] - p0[d];
  double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
               a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  if (det == 0) return 0;
  for (int k = 0; k < 3; k++) {
    double b[3][3];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) b[i][j] = j == k ? r[i] : a[i][j];
    lam[k + 1] = (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
                  b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                  b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0])) /
                 det;
  }
  lam[0] = 1 - lam[1] - lam[2] - lam[3];
  const double tol = -1e-10;
  return lam[0] >= tol && lam[1] >= tol && lam[2] >= tol && lam[3] >= tol;
}

void em_mesh_locate(const em_mesh *m, const double x[3], int32_t *t, double lam[4]) {
  *t = -1;
  for (int32_t k = 0; k < m->n_tet; k++) {
    int out = 0;
    for (int d = 0; d < 3 && !out; d++) {
      double lo = INFINITY, hi = -INFINITY;
      for (int a = 0; a < 4; a++) {
        double c = m->xyz[3 * (size_t)m->tet[4 * k + a] + d];
        lo = fmin(lo, c), hi = fmax(hi, c);
      }
      double pad = 1e-12 * (hi - lo);
      out = x[d] < lo - pad || x[d] > hi + pad;
    }
    if (!out && barycentric(m, k, x, lam)) {
      *t = k;
      return;
    }
  }
}

/* ------------------------------------------------------------ the grid */

#define LOC_MAX_AXIS 256 /* cells per axis at most */

struct em_locator {
  const em_mesh *m;
  double lo[3], dx[3]; /* the grid's corner and cell sizes, metres */
  int n[3];            /* cells per axis */
  int64_t *ptr;        /* [cells + 1] into tets */
  int32_t *tets;       /* the tets whose bounding box meets each cell */
};

static void tet_box(const em_mesh *m, int32_t t, double lo[3], double hi[3]) {
  for (int d = 0; d < 3; d++) lo[d] = INFINITY, hi[d] = -INFINITY;
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) {
      double c = m->xyz[3 * (size_t)m->tet[4 * (size_t)t + a] + d];
      lo[d] = fmin(lo[d], c), hi[d] = fmax(hi[d], c);
    }
}

/* Cell index of coordinate c along axis d, clamped to the grid. */
static int cell_of(const em_locator *L, int d, double c) {
  double s = floor((c - L->lo[d]) / L->dx[d]);
  return s < 0 ? 0 : s >= L->n[d] ? L->n[d] - 1 : (int)s;
}

/* Cells of about the mean tet's volume over the mesh's bounding box; each
 * tet listed in every cell its bounding box meets (two passes: count, fill). */
em_err em_locator_create(const em_mesh *m, em_locator **out) {
  EM_CHECK(m && out && m->n_tet > 0, EM_ERR_ARG, "locator: no mesh or no tets");
  em_locator *L = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&L, 1, sizeof *L, "locator"));
  L->m = m;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, v = 1;
  for (int32_t i = 0; i < m->n_vert; i++)
    for (int d = 0; d < 3; d++)
      lo[d] = fmin(lo[d], m->xyz[3 * (size_t)i + d]),
      hi[d] = fmax(hi[d], m->xyz[3 * (size_t)i + d]);
  for (int d = 0; d < 3; d++) v *= fmax(hi[d] - lo[d], 1e-30);
  double h = cbrt(v / m->n_tet);
  int64_t cells = 1;
  for (int d = 0; d < 3; d++) {
    double w = fmax(hi[d] - lo[d], 1e-30);
    L->n[d] = (int)fmin(fmax(1, ceil(w / h)), LOC_MAX_AXIS);
    L->lo[d] = lo[d];
    L->dx[d] = w / L->n[d];
    cells *= L->n[d];
  }
  EM_TRY_GOTO(err, em_calloc(&L->ptr, (size_t)cells + 1, sizeof *L->ptr, "locator cells"), fail);
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t t = 0; t < m->n_tet; t++) {
      double a[3], b[3];
      tet_box(m, t, a, b);
      int i0[3], i1[3];
      for (int d = 0; d < 3; d++) i0[d] = cell_of(L, d, a[d]), i1[d] = cell_of(L, d, b[d]);
      for (int i = i0[0]; i <= i1[0]; i++)
        for (int j = i0[1]; j <= i1[1]; j++)
          for (int k = i0[2]; k <= i1[2]; k++) {
            int64_t c = ((int64_t)k * L->n[1] + j) * L->n[0] + i;
            if (pass)
              L->tets[L->ptr[c]++] = t;
            else
              L->ptr[c + 1]++;
          }
    }
    if (pass) { /* ptr[c] moved to the next cell's start: shift back */
      for (int64_t c = cells; c > 0; c--) L->ptr[c] = L->ptr[c - 1];
      L->ptr[0] = 0;
      break;
    }
    for (int64_t c = 0; c < cells; c++) L->ptr[c + 1] += L->ptr[c];
    EM_TRY_GOTO(err,
                em_calloc(&L->tets, (size_t)L->ptr[cells] + 1, sizeof *L->tets, "locator lists"),
                fail);
  }
  *out = L;
  return EM_OK;
fail:
  em_locator_destroy(&L);
  return err;
}

void em_locator_destroy(em_locator **L) {
  if (!*L) return;
  em_free(&(*L)->ptr);
  em_free(&(*L)->tets);
  em_free(L);
}

/* The tets of the cells at Chebyshev distance r from cell c0: one holding
 * x ends the search; else the best (largest smallest lam) so far. */
static int ring(const em_locator *L, const int c0[3], int r, const double x[3], int32_t *best,
                double *best_min, double lam[4]) {
  for (int i = c0[0] - r; i <= c0[0] + r; i++)
    for (int j = c0[1] - r; j <= c0[1] + r; j++)
      for (int k = c0[2] - r; k <= c0[2] + r; k++) {
        if (i < 0 || j < 0 || k < 0 || i >= L->n[0] || j >= L->n[1] || k >= L->n[2]) continue;
        if (abs(i - c0[0]) != r && abs(j - c0[1]) != r && abs(k - c0[2]) != r) continue;
        int64_t c = ((int64_t)k * L->n[1] + j) * L->n[0] + i;
        for (int64_t q = L->ptr[c]; q < L->ptr[c + 1]; q++) {
          double l[4] = {-1e300, -1e300, -1e300, -1e300}; /* a flat tet leaves it */
          int32_t t = L->tets[q];
          int in = barycentric(L->m, t, x, l);
          double mn = fmin(fmin(l[0], l[1]), fmin(l[2], l[3]));
          if (mn > *best_min || *best < 0) {
            *best = t, *best_min = mn;
            for (int a = 0; a < 4; a++) lam[a] = l[a];
          }
          if (in) return 1;
        }
      }
  return 0;
}

int em_locator_find(const em_locator *L, const double x[3], int32_t *t, double lam[4]) {
  int c0[3], rmax = 0;
  for (int d = 0; d < 3; d++) {
    c0[d] = cell_of(L, d, x[d]);
    rmax = c0[d] > rmax ? c0[d] : rmax;
    rmax = L->n[d] - 1 - c0[d] > rmax ? L->n[d] - 1 - c0[d] : rmax;
  }
  double best_min = -INFINITY;
  *t = -1;
  for (int a = 0; a < 4; a++) lam[a] = 0.25;
  /* rings outwards; outside the mesh the nearest tet lies within a ring or
     two of the first non-empty one */
  int found_at = -1;
  for (int r = 0; r <= rmax; r++) {
    if (ring(L, c0, r, x, t, &best_min, lam)) return 1;
    if (*t >= 0 && found_at < 0) found_at = r;
    if (found_at >= 0 && r >= found_at + 2) break;
  }
  double s = 0; /* clamped onto the tet */
  for (int a = 0; a < 4; a++) lam[a] = fmax(lam[a], 0), s += lam[a];
  for (int a = 0; a < 4; a++) lam[a] = s > 0 ? lam[a] / s : 0.25;
  return 0;
}
