/* ff_common.c - graded box meshes with a PML shell, and a direct solve
 * (see the header). */
#include "ff_common.h"

#include <math.h>
#include <string.h>

#include "em_solver.h"

/* One half: cells from the centre outwards, then the PML. */
int ff_axis_nodes(const ff_axis *a, double *node, int cap) {
  double half[512];
  int n = 0;
  double x = a->centre ? a->h0 / 2 : 0, h = a->h0;
  half[n++] = x;
  while (x + h < a->w - 1e-12) {
    double rest = a->w - x;
    if (h >= a->h_max) {
      /* equal cells up to w */
      int k = (int)ceil(rest / a->h_max - 1e-9);
      for (int i = 1; i <= k; i++) half[n++] = x + rest * i / k;
      x = a->w;
      break;
    }
    x += h;
    half[n++] = x;
    h = fmin(h * a->growth, a->h_max);
  }
  if (x < a->w - 1e-12) half[n++] = a->w; /* last cell up to w */
  for (int i = 1; i <= a->n_pml; i++) half[n++] = a->w + a->t * i / a->n_pml;
  int total = a->centre ? 2 * n : 2 * n - 1;
  if (total > cap) return -1;
  int k = 0;
  for (int i = n - 1; i >= (a->centre ? 0 : 1); i--) node[k++] = -half[i];
  for (int i = 0; i < n; i++) node[k++] = half[i];
  return total;
}

/* Centroid of tet t strictly inside the box |x_d| < s_d. */
static int inside_box(const em_mesh *m, int32_t t, const double *s) {
  int in = 1;
  for (int d = 0; d < 3; d++) {
    double c = 0;
    for (int a = 0; a < 4; a++) c += 0.25 * m->xyz[3 * (size_t)m->tet[4 * t + a] + d];
    in &= fabs(c) < s[d];
  }
  return in;
}

/* The faces between tets inside and outside the box s as group 3. */
static em_err add_surface(em_mesh **m, const double *s) {
  em_mesh *a = *m, *b = NULL;
  int32_t n = 0, *tri = NULL, *tg = NULL;
  for (int pass = 0; pass < 2; pass++) {
    n = 0;
    for (int32_t f = 0; f < a->n_face; f++) {
      int32_t t0 = a->face_tet[2 * f], t1 = a->face_tet[2 * f + 1];
      if (t1 < 0 || inside_box(a, t0, s) == inside_box(a, t1, s)) continue;
      if (pass) {
        for (int k = 0; k < 3; k++) tri[3 * n + k] = a->face[3 * f + k];
        tg[n] = 3;
      }
      n++;
    }
    if (!pass) {
      EM_TRY(em_calloc(&tri, 3 * (size_t)n + 3, sizeof *tri, "surface"));
      EM_TRY(em_calloc(&tg, (size_t)n + 1, sizeof *tg, "surface"));
    }
  }
  em_group groups[4] = {{"air", 1, 3}, {"src", 2, 3}, {"pml", 3, 3}, {"nf2ff", 4, 2}};
  em_err err = em_mesh_from_tets(a->n_vert, a->xyz, a->n_tet, a->tet, a->tet_group, n, tri, tg, 4,
                                 groups, 0, &b);
  em_free(&tri);
  em_free(&tg);
  EM_TRY(err);
  em_mesh_destroy(m);
  *m = b;
  return EM_OK;
}

em_err ff_box_mesh(int n[3], double *node[3], const double w[3], const double *src,
                   const double *surf, em_mesh **out) {
  em_err err = EM_OK;
  em_mesh *box = NULL;
  double *xyz = NULL;
  int32_t *grp = NULL;
  int nc[3] = {n[0] - 1, n[1] - 1, n[2] - 1};
  EM_TRY(em_mesh_box(nc[0], nc[1], nc[2], nc[0], nc[1], nc[2], 0, 1, &box));
  EM_TRY_GOTO(err, em_calloc(&xyz, 3 * (size_t)box->n_vert, sizeof *xyz, "mesh"), done);
  EM_TRY_GOTO(err, em_calloc(&grp, (size_t)box->n_tet, sizeof *grp, "mesh"), done);
  for (int32_t v = 0; v < box->n_vert; v++)
    for (int d = 0; d < 3; d++) xyz[3 * v + d] = node[d][lround(box->xyz[3 * v + d])];
  for (int32_t t = 0; t < box->n_tet; t++) {
    double c[3] = {0, 0, 0};
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) c[d] += 0.25 * xyz[3 * (size_t)box->tet[4 * t + a] + d];
    int pml = 0, in_src = src != NULL;
    for (int d = 0; d < 3; d++) {
      pml |= fabs(c[d]) > w[d];
      if (src) in_src &= fabs(c[d]) < src[d];
    }
    grp[t] = pml ? 2 : in_src ? 1 : 0;
  }
  em_group groups[3] = {{"air", 1, 3}, {"src", 2, 3}, {"pml", 3, 3}};
  EM_TRY_GOTO(err,
              em_mesh_from_tets(box->n_vert, xyz, box->n_tet, box->tet, grp, 0, NULL, NULL, 3,
                                groups, 1, out),
              done);
  if (surf) EM_TRY_GOTO(err, add_surface(out, surf), done);
done:
  em_mesh_destroy(&box);
  em_free(&xyz);
  em_free(&grp);
  return err;
}

em_err ff_solve(const em_system *sys, em_cplx *x, double *res, double *seconds) {
  em_err err = EM_OK;
  em_csr *A = NULL;
  em_direct *F = NULL;
  em_cplx *r = NULL, *dx = NULL;
  double t0 = em_wtime();
  EM_TRY(em_blockmat_to_csr(sys->A, &A));
  int32_t n = A->n_rows;
  em_direct_opts o;
  em_direct_opts_default(&o);
  EM_TRY_GOTO(err, em_direct_create(A, &o, NULL, &F), done);
  EM_TRY_GOTO(err, em_calloc(&r, (size_t)n + 1, sizeof *r, "residual"), done);
  EM_TRY_GOTO(err, em_calloc(&dx, (size_t)n + 1, sizeof *dx, "correction"), done);
  EM_TRY_GOTO(err, em_direct_solve(F, 1, sys->b, n, x, n), done);
  double nb = 0;
  for (int32_t i = 0; i < n; i++) nb += creal(sys->b[i] * conj(sys->b[i]));
  for (int it = 0; it < 3; it++) {
    memcpy(r, sys->b, (size_t)n * sizeof *r);
    em_csr_spmv_ref(A, -1, x, 1, r); /* r = b - A x */
    double nr = 0;
    for (int32_t i = 0; i < n; i++) nr += creal(r[i] * conj(r[i]));
    *res = sqrt(nr / nb);
    if (it == 2) break;
    EM_TRY_GOTO(err, em_direct_solve(F, 1, r, n, dx, n), done);
    for (int32_t i = 0; i < n; i++) x[i] += dx[i];
  }
  *seconds = em_wtime() - t0;
done:
  em_csr_destroy(&A);
  em_direct_destroy(&F);
  em_free(&r);
  em_free(&dx);
  return err;
}
