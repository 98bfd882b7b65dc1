/* vtk_surface.c - a complex vector field on mesh faces for ParaView (the
 * surface current J_s = n x H on metal): legacy VTK UNSTRUCTURED_GRID of
 * triangles.  Each face is split into s^2 sub-triangles on the lattice of
 * denominator s, lam = ((s - i - j) / s, i / s, j / s) on its three
 * vertices; points are not shared between faces (the current jumps at
 * edges).  Everything is sampled before the file opens, so a sampler error
 * or a value that is not finite leaves no file. */
#include <math.h>
#include <string.h>

#include "em_post.h"
#include "post_impl.h"

#define VTK_TRIANGLE 5

static int lattice_index(int s, int i, int j) { /* rows of j = 0..s, i = 0..s-j */
  return j * (s + 1) - j * (j - 1) / 2 + i;
}

em_err em_vtk_surface_write(const char *path, const em_mesh *m, int32_t n_face, const int32_t *face,
                            const int32_t *tag, em_face_sampler fn, void *ctx, const char *name,
                            const em_vtk_opts *o) {
  EM_CHECK(path && *path && m && fn && o && name, EM_ERR_ARG, "surface VTK: NULL argument");
  EM_CHECK(n_face >= 0 && (n_face == 0 || face), EM_ERR_ARG, "surface VTK %s: no face list", path);
  EM_CHECK(o->subdiv >= 1 && o->subdiv <= 64, EM_ERR_ARG, "surface VTK %s: subdiv %d outside 1..64",
           path, o->subdiv);
  int s = o->subdiv, np = (s + 1) * (s + 2) / 2, nt = s * s;
  EM_CHECK((int64_t)n_face * np <= INT32_MAX / 4, EM_ERR_ARG,
           "surface VTK %s: %d faces at subdiv %d exceed the legacy format's counts", path, n_face,
           s);
  int64_t n_pts = (int64_t)n_face * np, n_cells = (int64_t)n_face * nt;
  em_err err = EM_OK;
  double *X = NULL;
  em_cplx *V = NULL;
  em_outfile out = {0};
  em_vtk_stream st = {0};
  EM_TRY_GOTO(err, em_calloc(&X, 3 * (size_t)n_pts + 1, sizeof *X, "surface VTK points"), done);
  EM_TRY_GOTO(err, em_calloc(&V, 3 * (size_t)n_pts + 1, sizeof *V, "surface VTK values"), done);
  for (int32_t k = 0; k < n_face; k++) {
    EM_CHECK(face[k] >= 0 && face[k] < m->n_face, EM_ERR_ARG, "surface VTK %s: face %d of 0..%d",
             path, face[k], m->n_face - 1);
    for (int j = 0; j <= s; j++)
      for (int i = 0; i + j <= s; i++) {
        double lam[3] = {(double)(s - i - j) / s, (double)i / s, (double)j / s};
        size_t p = (size_t)k * np + (size_t)lattice_index(s, i, j);
        EM_TRY_GOTO(err, fn(ctx, k, lam, X + 3 * p, V + 3 * p), done);
        for (int c = 0; c < 3; c++)
          if (!isfinite(creal(V[3 * p + c])) || !isfinite(cimag(V[3 * p + c])) ||
              !isfinite(X[3 * p + c])) {
            err = EM_RAISE(EM_ERR_NUMERIC, "surface VTK %s: %s at face %d is not finite", path,
                           name, face[k]);
            goto done;
          }
      }
  }
  const char *type = o->single ? "float" : "double";
  char line[256];
  EM_TRY_GOTO(err, em_outfile_open(&out, path, 1), done);
  EM_TRY_GOTO(err, em_vtk_stream_init(&st, out.f, o->binary, o->single), done);
  char title[200]; /* one line, control characters replaced */
  em_post_copy_line(title, sizeof title, o->title ? o->title : "");
  snprintf(line, sizeof line, "# vtk DataFile Version 3.0\nemsolve %s\n%s\n", title,
           o->binary ? "BINARY" : "ASCII");
  em_vtk_stream_text(&st, line);
  snprintf(line, sizeof line, "DATASET UNSTRUCTURED_GRID\nPOINTS %lld %s\n", (long long)n_pts,
           type);
  em_vtk_stream_text(&st, line);
  for (int64_t p = 0; p < n_pts; p++) em_vtk_stream_reals(&st, X + 3 * p, 3);
  em_vtk_stream_end_array(&st);
  snprintf(line, sizeof line, "CELLS %lld %lld\n", (long long)n_cells, 4 * (long long)n_cells);
  em_vtk_stream_text(&st, line);
  for (int32_t k = 0; k < n_face; k++) {
    int32_t b = k * np;
    for (int j = 0; j < s; j++)
      for (int i = 0; i + j < s; i++) {
        int32_t up[4] = {3, b + lattice_index(s, i, j), b + lattice_index(s, i + 1, j),
                         b + lattice_index(s, i, j + 1)};
        em_vtk_stream_ints(&st, up, 4);
        if (i + j < s - 1) {
          int32_t dn[4] = {3, b + lattice_index(s, i + 1, j), b + lattice_index(s, i + 1, j + 1),
                           b + lattice_index(s, i, j + 1)};
          em_vtk_stream_ints(&st, dn, 4);
        }
      }
  }
  em_vtk_stream_end_array(&st);
  snprintf(line, sizeof line, "CELL_TYPES %lld\n", (long long)n_cells);
  em_vtk_stream_text(&st, line);
  const int32_t tri = VTK_TRIANGLE;
  for (int64_t c = 0; c < n_cells; c++) em_vtk_stream_ints(&st, &tri, 1);
  em_vtk_stream_end_array(&st);
  if (tag) {
    snprintf(line, sizeof line, "CELL_DATA %lld\nSCALARS group int 1\nLOOKUP_TABLE default\n",
             (long long)n_cells);
    em_vtk_stream_text(&st, line);
    for (int32_t k = 0; k < n_face; k++)
      for (int c = 0; c < nt; c++) em_vtk_stream_ints(&st, &tag[k], 1);
    em_vtk_stream_end_array(&st);
  }
  snprintf(line, sizeof line, "POINT_DATA %lld\nVECTORS %.32s_re %s\n", (long long)n_pts, name,
           type);
  em_vtk_stream_text(&st, line);
  for (int64_t p = 0; p < n_pts; p++) {
    double v[3] = {creal(V[3 * p]), creal(V[3 * p + 1]), creal(V[3 * p + 2])};
    em_vtk_stream_reals(&st, v, 3);
  }
  em_vtk_stream_end_array(&st);
  snprintf(line, sizeof line, "VECTORS %.32s_im %s\n", name, type);
  em_vtk_stream_text(&st, line);
  for (int64_t p = 0; p < n_pts; p++) {
    double v[3] = {cimag(V[3 * p]), cimag(V[3 * p + 1]), cimag(V[3 * p + 2])};
    em_vtk_stream_reals(&st, v, 3);
  }
  em_vtk_stream_end_array(&st);
  snprintf(line, sizeof line, "SCALARS %.32s_abs %s 1\nLOOKUP_TABLE default\n", name, type);
  em_vtk_stream_text(&st, line);
  for (int64_t p = 0; p < n_pts; p++) {
    const em_cplx *v = V + 3 * p;
    double a = sqrt(creal(v[0] * conj(v[0])) + creal(v[1] * conj(v[1])) + creal(v[2] * conj(v[2])));
    em_vtk_stream_reals(&st, &a, 1);
  }
  em_vtk_stream_end_array(&st);
  EM_TRY_GOTO(err, em_vtk_stream_flush(&st, path), done);
  EM_TRY_GOTO(err, em_outfile_commit(&out), done);
done:
  if (err) em_outfile_abort(&out);
  em_vtk_stream_free(&st);
  em_free(&X);
  em_free(&V);
  return err;
}
