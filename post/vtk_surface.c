/* vtk_surface.c - a complex vector field on mesh faces for ParaView (the
 * surface current J_s = n x H on metal): legacy VTK UNSTRUCTURED_GRID of
 * triangles.  Each face is split into s^2 sub-triangles on the lattice of
 * denominator s, lam = ((s - i - j) / s, i / s, j / s) on its three
 * vertices; points are not shared between faces (the current jumps at
 * edges).  Everything is sampled before the file opens, so a sampler error
 * or a value that is not finite leaves no file.  With o->parallel the faces
 * are sampled by all threads, and the arrays are encoded by all threads
 * (vtk_array.c): the same bytes for any number of threads. */
#include <math.h>
#include <string.h>

#include "em_post.h"
#include "post_impl.h"

#define VTK_TRIANGLE 5

static int lattice_index(int s, int i, int j) { /* rows of j = 0..s, i = 0..s-j */
  return j * (s + 1) - j * (j - 1) / 2 + i;
}

/* The points and values of face k (np lattice points) into X and V. */
static em_err sample_face(int s, int32_t k, em_face_sampler fn, void *ctx, double *X, em_cplx *V) {
  size_t np = (size_t)(s + 1) * (s + 2) / 2;
  for (int j = 0; j <= s; j++)
    for (int i = 0; i + j <= s; i++) {
      double lam[3] = {(double)(s - i - j) / s, (double)i / s, (double)j / s};
      size_t p = (size_t)k * np + (size_t)lattice_index(s, i, j);
      EM_TRY(fn(ctx, k, lam, X + 3 * p, V + 3 * p));
    }
  return EM_OK;
}

/* Every face sampled (by all threads with o->parallel; a worker's error
 * trace is its own, so the first failing face is sampled again here for
 * its message), then the values checked in face order. */
static em_err sample_all(const char *path, const em_mesh *m, int32_t n_face, const int32_t *face,
                         em_face_sampler fn, void *ctx, const char *name, const em_vtk_opts *o,
                         double *X, em_cplx *V) {
  int s = o->subdiv;
  size_t np = (size_t)(s + 1) * (s + 2) / 2;
  for (int32_t k = 0; k < n_face; k++)
    EM_CHECK(face[k] >= 0 && face[k] < m->n_face, EM_ERR_ARG, "surface VTK %s: face %d of 0..%d",
             path, face[k], m->n_face - 1);
  if (o->parallel) {
    int32_t bad = INT32_MAX;
#pragma omp parallel for schedule(dynamic, 64)
    for (int32_t k = 0; k < n_face; k++)
      if (sample_face(s, k, fn, ctx, X, V)) {
#pragma omp critical(em_vtk_surface_bad)
        if (k < bad) bad = k;
      }
    if (bad < INT32_MAX) {
      em_error_clear();
      EM_TRY(sample_face(s, bad, fn, ctx, X, V));
      return EM_RAISE(EM_ERR_INTERNAL, "surface VTK %s: face %d failed in a worker thread", path,
                      face[bad]);
    }
  }
  for (int32_t k = 0; k < n_face; k++) {
    if (!o->parallel) EM_TRY(sample_face(s, k, fn, ctx, X, V));
    for (size_t p = (size_t)k * np; p < (size_t)(k + 1) * np; p++)
      for (int c = 0; c < 3; c++)
        EM_CHECK(isfinite(creal(V[3 * p + c])) && isfinite(cimag(V[3 * p + c])) &&
                     isfinite(X[3 * p + c]),
                 EM_ERR_NUMERIC, "surface VTK %s: %s at face %d is not finite", path, name,
                 face[k]);
  }
  return EM_OK;
}

/* What the arrays' records are made of (vtk_array.c's get functions). */
typedef struct surf {
  int s, np, nt;
  const double *X;
  const em_cplx *V;
  const int32_t *tag;
} surf;

static void get_point(const void *ctx, int64_t p, double *v) {
  memcpy(v, ((const surf *)ctx)->X + 3 * p, 3 * sizeof *v);
}

/* CELLS: the sub-triangles of face c / s^2 in the order of the rows of j,
 * then i: the "up" triangle, then (but on the row's last) the "down" one. */
static void get_cell(const void *ctx, int64_t c, int32_t *rec) {
  const surf *a = ctx;
  int s = a->s, r = (int)(c % a->nt);
  int32_t b = (int32_t)(c / a->nt) * a->np;
  int j = 0;
  while (r >= 2 * (s - j) - 1) r -= 2 * (s - j) - 1, j++; /* row j has 2 (s - j) - 1 */
  int i = r / 2, dn = r % 2;
  rec[0] = 3;
  if (!dn) {
    rec[1] = b + lattice_index(s, i, j);
    rec[2] = b + lattice_index(s, i + 1, j);
    rec[3] = b + lattice_index(s, i, j + 1);
  } else {
    rec[1] = b + lattice_index(s, i + 1, j);
    rec[2] = b + lattice_index(s, i + 1, j + 1);
    rec[3] = b + lattice_index(s, i, j + 1);
  }
}

static void get_triangle(const void *ctx, int64_t c, int32_t *v) {
  (void)ctx, (void)c;
  *v = VTK_TRIANGLE;
}

static void get_tag(const void *ctx, int64_t c, int32_t *v) {
  const surf *a = ctx;
  *v = a->tag[c / a->nt];
}

static void get_re(const void *ctx, int64_t p, double *v) {
  const em_cplx *x = ((const surf *)ctx)->V + 3 * p;
  for (int c = 0; c < 3; c++) v[c] = creal(x[c]);
}

static void get_im(const void *ctx, int64_t p, double *v) {
  const em_cplx *x = ((const surf *)ctx)->V + 3 * p;
  for (int c = 0; c < 3; c++) v[c] = cimag(x[c]);
}

static void get_abs(const void *ctx, int64_t p, double *a) {
  const em_cplx *v = ((const surf *)ctx)->V + 3 * p;
  *a = sqrt(creal(v[0] * conj(v[0])) + creal(v[1] * conj(v[1])) + creal(v[2] * conj(v[2])));
}

static void reals(em_vtk_stream *st, const char *head, int64_t n, int width, em_vtk_real_fn get,
                  const surf *a) {
  em_vtk_stream_text(st, head);
  em_vtk_stream_real_array(st, n, width, get, a, NULL);
  em_vtk_stream_end_array(st);
}

static void ints(em_vtk_stream *st, const char *head, int64_t n, int width, em_vtk_int_fn get,
                 const surf *a) {
  em_vtk_stream_text(st, head);
  em_vtk_stream_int_array(st, n, width, get, a, NULL);
  em_vtk_stream_end_array(st);
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
  EM_TRY_GOTO(err, sample_all(path, m, n_face, face, fn, ctx, name, o, X, V), done);
  const char *type = o->single ? "float" : "double";
  char line[256];
  surf a = {.s = s, .np = np, .nt = nt, .X = X, .V = V, .tag = tag};
  EM_TRY_GOTO(err, em_outfile_open(&out, path, 1), done);
  EM_TRY_GOTO(err, em_vtk_stream_init(&st, out.f, o->binary, o->single), done);
  char title[200]; /* one line, control characters replaced */
  em_post_copy_line(title, sizeof title, o->title ? o->title : "");
  snprintf(line, sizeof line, "# vtk DataFile Version 3.0\nemsolve %s\n%s\n", title,
           o->binary ? "BINARY" : "ASCII");
  em_vtk_stream_text(&st, line);
  snprintf(line, sizeof line, "DATASET UNSTRUCTURED_GRID\nPOINTS %lld %s\n", (long long)n_pts,
           type);
  reals(&st, line, n_pts, 3, get_point, &a);
  snprintf(line, sizeof line, "CELLS %lld %lld\n", (long long)n_cells, 4 * (long long)n_cells);
  ints(&st, line, n_cells, 4, get_cell, &a);
  snprintf(line, sizeof line, "CELL_TYPES %lld\n", (long long)n_cells);
  ints(&st, line, n_cells, 1, get_triangle, &a);
  if (tag) {
    snprintf(line, sizeof line, "CELL_DATA %lld\nSCALARS group int 1\nLOOKUP_TABLE default\n",
             (long long)n_cells);
    ints(&st, line, n_cells, 1, get_tag, &a);
  }
  snprintf(line, sizeof line, "POINT_DATA %lld\nVECTORS %.32s_re %s\n", (long long)n_pts, name,
           type);
  reals(&st, line, n_pts, 3, get_re, &a);
  snprintf(line, sizeof line, "VECTORS %.32s_im %s\n", name, type);
  reals(&st, line, n_pts, 3, get_im, &a);
  snprintf(line, sizeof line, "SCALARS %.32s_abs %s 1\nLOOKUP_TABLE default\n", name, type);
  reals(&st, line, n_pts, 1, get_abs, &a);
  EM_TRY_GOTO(err, em_vtk_stream_flush(&st, path), done);
  EM_TRY_GOTO(err, em_outfile_commit(&out), done);
done:
  if (err) em_outfile_abort(&out);
  em_vtk_stream_free(&st);
  em_free(&X);
  em_free(&V);
  return err;
}
