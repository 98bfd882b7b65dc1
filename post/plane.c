/* plane.c - E, H and the Poynting vector on a regular grid of a plane
 * x_axis = at, as CSV and legacy VTK STRUCTURED_POINTS (em_post.h).  The
 * points are located among the tets that cross the plane only, through a
 * bucket grid over the plane; the tets are taken straight (a curved mesh's
 * map is not inverted: its points are those of the straight tets). */
#include <math.h>
#include <string.h>

#include "em_post.h"
#include "post_impl.h"

/* lam of x in straight tet t (Cramer); 1 when inside (tolerance 1e-10) */
static int barycentric(const em_mesh *m, int32_t t, const double x[3], double lam[4]) {
  const double *p0 = m->xyz + 3 * (size_t)m->tet[4 * (size_t)t];
  double a[3][3], r[3];
  for (int k = 0; k < 3; k++) {
    const double *p = m->xyz + 3 * (size_t)m->tet[4 * (size_t)t + k + 1];
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

/* The grid's points located: tet[k] (-1 outside) and lam[4 k ..], point k =
 * j n_u + i at u_i, v_j.  Buckets: nb x nb cells over the grid's extent,
 * each listing the tets crossing the plane whose projected box meets it. */
static em_err locate(const em_mesh *m, const em_plane *p, int32_t *tet, double *lam) {
  int ax = p->axis, du = (ax + 1) % 3, dv = (ax + 2) % 3;
  int32_t n_on = 0, *on = NULL, *start = NULL, *list = NULL;
  double *box = NULL; /* projected boxes of the tets on the plane */
  em_err err = EM_OK;
  EM_TRY(em_calloc(&on, (size_t)m->n_tet + 1, sizeof *on, "plane tets"));
  EM_TRY_GOTO(err, em_calloc(&box, 4 * (size_t)m->n_tet + 4, sizeof *box, "plane tets"), done);
  for (int32_t t = 0; t < m->n_tet; t++) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) {
        double c = m->xyz[3 * (size_t)m->tet[4 * (size_t)t + a] + d];
        lo[d] = fmin(lo[d], c), hi[d] = fmax(hi[d], c);
      }
    double pad = 1e-12 * (hi[ax] - lo[ax]);
    if (p->at < lo[ax] - pad || p->at > hi[ax] + pad) continue;
    double *b = box + 4 * (size_t)n_on;
    b[0] = lo[du], b[1] = hi[du], b[2] = lo[dv], b[3] = hi[dv];
    on[n_on++] = t;
  }
  int nb = (int)fmax(1, fmin(1024, sqrt((double)n_on / 4)));
  double su = (p->hi[0] - p->lo[0]) / nb, sv = (p->hi[1] - p->lo[1]) / nb;
  EM_TRY_GOTO(err, em_calloc(&start, (size_t)nb * nb + 1, sizeof *start, "plane buckets"), done);
  for (int pass = 0; pass < 2; pass++) { /* count, then fill */
    for (int32_t k = 0; k < n_on; k++) {
      const double *b = box + 4 * (size_t)k;
      int i0 = (int)floor((b[0] - p->lo[0]) / su), i1 = (int)floor((b[1] - p->lo[0]) / su);
      int j0 = (int)floor((b[2] - p->lo[1]) / sv), j1 = (int)floor((b[3] - p->lo[1]) / sv);
      i0 = i0 < 0 ? 0 : i0, j0 = j0 < 0 ? 0 : j0;
      i1 = i1 >= nb ? nb - 1 : i1, j1 = j1 >= nb ? nb - 1 : j1;
      for (int j = j0; j <= j1; j++)
        for (int i = i0; i <= i1; i++) {
          if (pass == 0)
            start[j * nb + i + 1]++;
          else
            list[start[j * nb + i]++] = on[k];
        }
    }
    if (pass == 0) {
      for (int c = 0; c < nb * nb; c++) start[c + 1] += start[c];
      EM_TRY_GOTO(err, em_calloc(&list, (size_t)start[nb * nb] + 1, sizeof *list, "plane buckets"),
                  done);
    } else {
      for (int c = nb * nb; c > 0; c--) start[c] = start[c - 1];
      start[0] = 0;
    }
  }
  for (int j = 0; j < p->n_v; j++)
    for (int i = 0; i < p->n_u; i++) {
      size_t k = (size_t)j * p->n_u + i;
      double x[3];
      x[ax] = p->at;
      x[du] = p->lo[0] + (p->hi[0] - p->lo[0]) * i / (p->n_u - 1);
      x[dv] = p->lo[1] + (p->hi[1] - p->lo[1]) * j / (p->n_v - 1);
      int bi = (int)floor((x[du] - p->lo[0]) / su), bj = (int)floor((x[dv] - p->lo[1]) / sv);
      bi = bi < 0 ? 0 : bi >= nb ? nb - 1 : bi;
      bj = bj < 0 ? 0 : bj >= nb ? nb - 1 : bj;
      tet[k] = -1;
      for (int32_t q = start[bj * nb + bi]; q < start[bj * nb + bi + 1]; q++)
        if (barycentric(m, list[q], x, lam + 4 * k)) {
          tet[k] = list[q];
          break;
        }
    }
done:
  em_free(&on);
  em_free(&box);
  em_free(&start);
  em_free(&list);
  return err;
}

static void put_row(FILE *f, const double *v, int n) {
  char buf[EM_POST_NUM_LEN];
  for (int i = 0; i < n; i++) {
    em_post_fmt_double(buf, v[i]);
    if (i) fputc(',', f);
    fputs(buf, f);
  }
  fputc('\n', f);
}

static em_err write_csv(const char *path, const em_plane *p, const double *X, const int32_t *tet,
                        const em_cplx *E, const em_cplx *H, const char *title) {
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  char t[200];
  em_post_copy_line(t, sizeof t, title ? title : "");
  fprintf(o.f, "# fields on the plane %c = %.9g m: %s\n", "xyz"[p->axis], p -> at, t);
  fputs("x_m,y_m,z_m,inside,Ex_re,Ex_im,Ey_re,Ey_im,Ez_re,Ez_im", o.f);
  if (H) fputs(",Hx_re,Hx_im,Hy_re,Hy_im,Hz_re,Hz_im,Sx,Sy,Sz", o.f);
  fputc('\n', o.f);
  size_t n = (size_t)p->n_u * p->n_v;
  for (size_t k = 0; k < n; k++) {
    double row[22];
    int c = 0;
    for (int d = 0; d < 3; d++) row[c++] = X[3 * k + d];
    row[c++] = tet[k] >= 0;
    const em_cplx *e = E + 3 * k;
    for (int d = 0; d < 3; d++) row[c++] = creal(e[d]), row[c++] = cimag(e[d]);
    if (H) {
      const em_cplx *h = H + 3 * k;
      for (int d = 0; d < 3; d++) row[c++] = creal(h[d]), row[c++] = cimag(h[d]);
      for (int d = 0; d < 3; d++) {
        int a = (d + 1) % 3, b = (d + 2) % 3;
        row[c++] = 0.5 * creal(e[a] * conj(h[b]) - e[b] * conj(h[a]));
      }
    }
    put_row(o.f, row, c);
  }
  return em_outfile_commit(&o);
}

static void vtk_vectors(em_vtk_stream *s, const char *name, const em_cplx *V, size_t n, int im) {
  char line[64];
  snprintf(line, sizeof line, "VECTORS %s double\n", name);
  em_vtk_stream_text(s, line);
  for (size_t k = 0; k < n; k++) {
    double v[3];
    for (int d = 0; d < 3; d++) v[d] = im ? cimag(V[3 * k + d]) : creal(V[3 * k + d]);
    em_vtk_stream_reals(s, v, 3);
  }
  em_vtk_stream_end_array(s);
}

static em_err write_vtk(const char *path, const em_plane *p, const int32_t *tet, const em_cplx *E,
                        const em_cplx *H, const char *title) {
  em_outfile o = {0};
  em_vtk_stream s = {0};
  em_err err = EM_OK;
  EM_TRY(em_outfile_open(&o, path, 1));
  EM_TRY_GOTO(err, em_vtk_stream_init(&s, o.f, 1, 0), done);
  int ax = p->axis, du = (ax + 1) % 3, dv = (ax + 2) % 3, dim[3], n_u = p->n_u, n_v = p->n_v;
  double org[3], sp[3];
  dim[ax] = 1, dim[du] = n_u, dim[dv] = n_v;
  org[ax] = p->at, org[du] = p->lo[0], org[dv] = p->lo[1];
  sp[ax] = 1, sp[du] = (p->hi[0] - p->lo[0]) / (n_u - 1),
  sp[dv] = (p->hi[1] - p->lo[1]) / (n_v - 1);
  char t[200], line[512];
  em_post_copy_line(t, sizeof t, title ? title : "");
  size_t n = (size_t)n_u * n_v;
  snprintf(line, sizeof line,
           "# vtk DataFile Version 3.0\nemsolve %s\nBINARY\nDATASET STRUCTURED_POINTS\n"
           "DIMENSIONS %d %d %d\nORIGIN %.17g %.17g %.17g\nSPACING %.17g %.17g %.17g\n"
           "POINT_DATA %zu\nSCALARS inside int 1\nLOOKUP_TABLE default\n",
           t, dim[0], dim[1], dim[2], org[0], org[1], org[2], sp[0], sp[1], sp[2], n);
  em_vtk_stream_text(&s, line);
  /* VTK's x-fastest order: the points are stored u-fastest; for the x
   * plane (u = y, v = z) and the z plane (u = x, v = y) that is x-fastest
   * already; for the y plane (u = z, v = x) it is transposed */
  size_t *perm = NULL;
  EM_TRY_GOTO(err, em_calloc(&perm, n + 1, sizeof *perm, "plane VTK order"), done);
  for (int j = 0; j < n_v; j++)
    for (int i = 0; i < n_u; i++) {
      size_t k = (size_t)j * n_u + i;
      perm[ax == 1 ? (size_t)i * n_v + j : k] = k;
    }
  em_cplx *buf = NULL;
  err = em_calloc(&buf, 3 * n + 3, sizeof *buf, "plane VTK");
  if (err) {
    em_free(&perm);
    goto done;
  }
  for (size_t q = 0; q < n; q++) {
    int32_t in = tet[perm[q]] >= 0;
    em_vtk_stream_ints(&s, &in, 1);
  }
  em_vtk_stream_end_array(&s);
  for (int f = 0; f < (H ? 2 : 1); f++) {
    const em_cplx *V = f ? H : E;
    for (size_t q = 0; q < n; q++)
      for (int d = 0; d < 3; d++) buf[3 * q + d] = V[3 * perm[q] + d];
    vtk_vectors(&s, f ? "H_re" : "E_re", buf, n, 0);
    vtk_vectors(&s, f ? "H_im" : "E_im", buf, n, 1);
  }
  if (H) {
    for (size_t q = 0; q < n; q++) {
      const em_cplx *e = E + 3 * perm[q], *h = H + 3 * perm[q];
      for (int d = 0; d < 3; d++) {
        int a = (d + 1) % 3, b = (d + 2) % 3;
        buf[3 * q + d] = 0.5 * creal(e[a] * conj(h[b]) - e[b] * conj(h[a]));
      }
    }
    vtk_vectors(&s, "S", buf, n, 0);
  }
  em_free(&buf);
  em_free(&perm);
  EM_TRY_GOTO(err, em_vtk_stream_flush(&s, path), done);
  EM_TRY_GOTO(err, em_outfile_commit(&o), done);
done:
  if (err) em_outfile_abort(&o);
  em_vtk_stream_free(&s);
  return err;
}

em_err em_plane_write(const char *csv, const char *vtk, const em_mesh *m, const em_plane *p,
                      em_field_sampler E, em_field_sampler H, void *ctx, const char *title) {
  EM_CHECK(m && p && E, EM_ERR_ARG, "plane output: NULL argument");
  EM_CHECK(p->axis >= 0 && p->axis < 3 && p->n_u >= 2 && p->n_v >= 2 && p->n_u <= 100000 &&
               p->n_v <= 100000 && (double)p->n_u * p->n_v <= 1e8,
           EM_ERR_INPUT, "plane output: axis %d, %d x %d points (2..100000 a side, 1e8 in all)",
           p->axis, p->n_u, p->n_v);
  EM_CHECK(isfinite(p->at) && p->hi[0] > p->lo[0] && p->hi[1] > p->lo[1], EM_ERR_INPUT,
           "plane output: the plane %c = %g m, extent [%g, %g] x [%g, %g] m is empty",
           "xyz"[p->axis], p -> at, p -> lo[0], p -> hi[0], p -> lo[1], p -> hi[1]);
  size_t n = (size_t)p->n_u * p->n_v;
  int32_t *tet = NULL;
  double *lam = NULL, *X = NULL;
  em_cplx *Ev = NULL, *Hv = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&tet, n, sizeof *tet, "plane points"), done);
  EM_TRY_GOTO(err, em_calloc(&lam, 4 * n, sizeof *lam, "plane points"), done);
  EM_TRY_GOTO(err, em_calloc(&X, 3 * n, sizeof *X, "plane points"), done);
  EM_TRY_GOTO(err, em_calloc(&Ev, 3 * n, sizeof *Ev, "plane fields"), done);
  if (H) EM_TRY_GOTO(err, em_calloc(&Hv, 3 * n, sizeof *Hv, "plane fields"), done);
  EM_TRY_GOTO(err, locate(m, p, tet, lam), done);
  int ax = p->axis, du = (ax + 1) % 3, dv = (ax + 2) % 3;
  for (int j = 0; j < p->n_v; j++)
    for (int i = 0; i < p->n_u; i++) {
      size_t k = (size_t)j * p->n_u + i;
      X[3 * k + ax] = p->at;
      X[3 * k + du] = p->lo[0] + (p->hi[0] - p->lo[0]) * i / (p->n_u - 1);
      X[3 * k + dv] = p->lo[1] + (p->hi[1] - p->lo[1]) * j / (p->n_v - 1);
      if (tet[k] < 0) continue;
      EM_TRY_GOTO(err, E(ctx, tet[k], lam + 4 * k, Ev + 3 * k), done);
      if (H) EM_TRY_GOTO(err, H(ctx, tet[k], lam + 4 * k, Hv + 3 * k), done);
      for (int d = 0; d < 3; d++)
        if (!isfinite(creal(Ev[3 * k + d])) || !isfinite(cimag(Ev[3 * k + d])) ||
            (H && (!isfinite(creal(Hv[3 * k + d])) || !isfinite(cimag(Hv[3 * k + d]))))) {
          err = EM_RAISE(EM_ERR_NUMERIC, "plane output: the field at (%g, %g, %g) m is not finite",
                         X[3 * k], X[3 * k + 1], X[3 * k + 2]);
          goto done;
        }
    }
  if (csv) EM_TRY_GOTO(err, write_csv(csv, p, X, tet, Ev, Hv, title), done);
  if (vtk) EM_TRY_GOTO(err, write_vtk(vtk, p, tet, Ev, Hv, title), done);
done:
  em_free(&tet);
  em_free(&lam);
  em_free(&X);
  em_free(&Ev);
  em_free(&Hv);
  return err;
}
