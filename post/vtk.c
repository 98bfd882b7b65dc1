/* vtk.c - fields for ParaView: our own legacy VTK writer.
 *
 * DATASET UNSTRUCTURED_GRID, ASCII or BINARY (big-endian).  Each parent tet
 * is split into s^3 sub-tets on the barycentric lattice of denominator s
 * (vtk_lattice.c) and the field is sampled at the lattice points of every
 * parent separately: points are not shared between parents, because the
 * normal component of E jumps across material interfaces.
 *
 * The field is sampled for the whole mesh before anything but the header is
 * written (E_re, E_im and E_abs are three separate arrays after the cells;
 * with an H sampler H_re, H_im, H_abs and the Poynting vector S follow),
 * so a sampler error or a NaN leaves no file at all: the temporary file is
 * removed and the final name never appears.  With thread-safe samplers
 * (o->parallel, o->tet) the tets are sampled by all threads; the points
 * are placed and every array encoded by all threads (vtk_array.c): the
 * same bytes for any number of threads. */
#include "em_post.h"
#include "post_impl.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define VTK_TETRA 10
/* The legacy reader takes at most 256 characters for the title line; keep
 * clear of the edge (content + '\n' <= 255). */
#define VTK_TITLE_CAP 255

/* "emsolve <title>: groups 0=air 1=dra ...", one line, cut with "..." so
 * that it fits the legacy limit. */
static void make_title(char line[VTK_TITLE_CAP], const em_mesh *m, const char *title) {
  char full[4 * VTK_TITLE_CAP];
  size_t n = (size_t)snprintf(full, sizeof full, "emsolve%s%s:", title && *title ? " " : "",
                              title ? title : "");
  int any = 0;
  for (int g = 0; g < m->n_group && n < sizeof full; g++) {
    if (m->group[g].dim != 3) continue;
    n += (size_t)snprintf(full + n, sizeof full - n, "%s %d=%s", any ? "" : " groups", g,
                          m->group[g].name ? m->group[g].name : "?");
    any = 1;
  }
  if (!any && n < sizeof full) n += (size_t)snprintf(full + n, sizeof full - n, " no groups");
  /* n counts what did not fit in full too; control characters map 1:1 */
  if (n < VTK_TITLE_CAP && em_post_copy_line(line, VTK_TITLE_CAP, full) == n) return;
  size_t k = em_post_copy_line(line, VTK_TITLE_CAP - 3, full);
  memcpy(line + k, "...", 4);
}

/* The error indicator, finite and within the reals written. */
static em_err check_error(const char *path, const em_mesh *m, const em_vtk_opts *o,
                          const double *error) {
  for (int32_t t = 0; error && t < m->n_tet; t++)
    EM_CHECK(isfinite(error[t]) && fabs(error[t]) <= (o->single ? FLT_MAX : DBL_MAX),
             EM_ERR_NUMERIC, "VTK %s: the error indicator of tet %d is %g", path, t, error[t]);
  return EM_OK;
}

/* Checks that need no file: arguments, group ids, and the counts of the
 * output against the 32-bit ints of the legacy format. */
static em_err check_args(const char *path, const em_mesh *m, em_field_sampler E,
                         const em_vtk_opts *o) {
  EM_CHECK(path && *path, EM_ERR_ARG, "VTK output path is NULL or empty");
  EM_CHECK(m && o && (E || o->tet), EM_ERR_ARG, "VTK %s: NULL %s", path,
           !m   ? "mesh"
           : !o ? "options"
                : "field sampler");
  EM_CHECK(o->subdiv >= 1 && o->subdiv <= 64, EM_ERR_ARG, "VTK %s: subdiv %d outside 1..64", path,
           o->subdiv);
  EM_CHECK(m->n_tet > 0 && m->tet && m->xyz && m->tet_group, EM_ERR_ARG,
           "VTK %s: the mesh has no tets", path);
  int64_t s = o->subdiv, np = (s + 1) * (s + 2) * (s + 3) / 6;
  EM_CHECK((int64_t)m->n_tet * np <= INT32_MAX && 5 * (int64_t)m->n_tet * s * s * s <= INT32_MAX,
           EM_ERR_ARG, "VTK %s: %d tets at subdiv %d exceed the legacy format's 32-bit counts",
           path, m->n_tet, o->subdiv);
  for (int32_t t = 0; t < m->n_tet; t++)
    EM_CHECK(m->tet_group[t] >= 0 && m->tet_group[t] < m->n_group, EM_ERR_ARG,
             "VTK %s: tet %d has group %d, outside 0..%d", path, t, m->tet_group[t],
             m->n_group - 1);
  return check_error(path, m, o, o->error);
}

/* Every 256 tets of a pass: a cancel request (a signal) stops the writer. */
static em_err cancel_poll(const char *path, const em_cancel *c, int64_t t) {
  EM_CHECK(t % 256 || !em_cancelled(c), EM_ERR_CANCELLED, "VTK %s: cancelled at tet %lld", path,
           (long long)t);
  return EM_OK;
}

/* The value of point p of tet t is finite (and fits a float when single):
 * else an error naming the tet. */
static em_err check_value(const char *path, const em_vtk_lattice *L, int single, int32_t t, int p,
                          const em_cplx *e) {
  double lim = single ? FLT_MAX : DBL_MAX;
  const double *lam = L->lam + 4 * (size_t)p;
  for (int c = 0; c < 3; c++)
    EM_CHECK(fabs(creal(e[c])) <= lim && fabs(cimag(e[c])) <= lim, EM_ERR_NUMERIC,
             "VTK %s: field at tet %d, lam (%g %g %g %g) is %g%+gj (component %d): %s", path, t,
             lam[0], lam[1], lam[2], lam[3], creal(e[c]), cimag(e[c]), c,
             single ? "not finite or beyond float range" : "not finite");
  return EM_OK;
}

/* E at every lattice point of every parent: Ev[3 (t n_pt + p) + c].  A value
 * that is not finite (or would not fit a float) is an error naming the tet. */
static em_err sample(const char *path, const em_mesh *m, const em_vtk_lattice *L,
                     em_field_sampler E, void *ctx, const em_vtk_opts *o, em_cplx *Ev) {
  for (int32_t t = 0; t < m->n_tet; t++) {
    EM_TRY(cancel_poll(path, o->cancel, t));
    for (int p = 0; p < L->n_pt; p++) {
      em_cplx *e = Ev + 3 * ((size_t)t * L->n_pt + p);
      EM_TRY(E(ctx, t, L->lam + 4 * (size_t)p, e));
      EM_TRY(check_value(path, L, o->single, t, p, e));
    }
  }
  return EM_OK;
}

/* The lattice points of tet t, E into e and (H not NULL) H into h: o->tet,
 * or E and H point by point. */
static em_err sample_tet(const em_vtk_lattice *L, em_field_sampler E, void *ctx,
                         const em_vtk_opts *o, int32_t t, em_cplx *e, em_cplx *h) {
  if (o->tet) return o->tet(ctx, t, L->n_pt, L->lam, e, h);
  for (int p = 0; p < L->n_pt; p++) EM_TRY(E(ctx, t, L->lam + 4 * (size_t)p, e + 3 * (size_t)p));
  for (int p = 0; h && p < L->n_pt; p++)
    EM_TRY(o->H(ctx, t, L->lam + 4 * (size_t)p, h + 3 * (size_t)p));
  return EM_OK;
}

/* E (and H, Hv not NULL) of every tet by all threads.  A worker's error
 * trace is its own, so the first failing tet is sampled again here for its
 * message; the values are then checked in order, E before H, as the serial
 * passes do. */
static em_err sample_parallel(const char *path, const em_mesh *m, const em_vtk_lattice *L,
                              em_field_sampler E, void *ctx, const em_vtk_opts *o, em_cplx *Ev,
                              em_cplx *Hv) {
  int32_t bad = INT32_MAX, stop = 0;
  size_t np = (size_t)L->n_pt;
#pragma omp parallel for schedule(dynamic, 16)
  for (int32_t t = 0; t < m->n_tet; t++) {
    int halt;
#pragma omp atomic read
    halt = stop;
    if (halt) continue;
    if (t % 256 == 0 && em_cancelled(o->cancel)) {
#pragma omp atomic write
      stop = 1;
      continue;
    }
    if (sample_tet(L, E, ctx, o, t, Ev + 3 * np * t, Hv ? Hv + 3 * np * t : NULL)) {
#pragma omp critical(em_vtk_bad)
      if (t < bad) bad = t;
    }
  }
  EM_CHECK(!stop, EM_ERR_CANCELLED, "VTK %s: cancelled while sampling", path);
  if (bad < INT32_MAX) {
    em_error_clear();
    EM_TRY(sample_tet(L, E, ctx, o, bad, Ev + 3 * np * bad, Hv ? Hv + 3 * np * bad : NULL));
    return EM_RAISE(EM_ERR_INTERNAL, "VTK %s: tet %d failed in a worker thread", path, bad);
  }
  for (int pass = 0; pass < (Hv ? 2 : 1); pass++)
    for (int32_t t = 0; t < m->n_tet; t++)
      for (int p = 0; p < L->n_pt; p++)
        EM_TRY(check_value(path, L, o->single, t, p, (pass ? Hv : Ev) + 3 * (np * t + p)));
  return EM_OK;
}

/* sqrt(|Ex|^2 + |Ey|^2 + |Ez|^2), scaled when the squares would overflow. */
static double norm3(const em_cplx *e) {
  double a[6] = {creal(e[0]), cimag(e[0]), creal(e[1]), cimag(e[1]), creal(e[2]), cimag(e[2])};
  double s = 0, mx = 0;
  for (int i = 0; i < 6; i++) s += a[i] * a[i];
  if (isfinite(s)) return sqrt(s);
  for (int i = 0; i < 6; i++) mx = fmax(mx, fabs(a[i]));
  s = 0;
  for (int i = 0; i < 6; i++) s += (a[i] / mx) * (a[i] / mx);
  return mx * sqrt(s);
}

/* 6 x signed volume, (x1-x0) . ((x2-x0) x (x3-x0)): VTK wants it positive. */
static double tet_det(const em_mesh *m, int32_t t) {
  const double *p[4];
  double e[3][3];
  for (int a = 0; a < 4; a++) p[a] = m->xyz + 3 * (size_t)m->tet[4 * (size_t)t + a];
  for (int k = 0; k < 3; k++)
    for (int d = 0; d < 3; d++) e[k][d] = p[k + 1][d] - p[0][d];
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

/* POINTS: x = sum_i lam_i x_i for every lattice point of every parent, or
 * on a curved tet its quadratic map x(lam) (em_tet_geom_at): the field
 * sampled at lam sits where it belongs.  X[3 (t n_pt + p) + c], by all
 * threads. */
static void place_points(const em_mesh *m, const em_vtk_lattice *L, double *X) {
#pragma omp parallel for schedule(static)
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    for (int p = 0; p < L->n_pt; p++) {
      double grad[4][3], dv;
      em_tet_geom_at(&g, L->lam + 4 * (size_t)p, X + 3 * ((size_t)t * L->n_pt + p), grad, &dv);
    }
  }
}

/* What the arrays' records are made of (vtk_array.c's get functions). */
typedef struct arrays {
  const em_mesh *m;
  const em_vtk_lattice *L;
  const em_vtk_opts *o;
  const double *X;
  const em_cplx *F, *G; /* the field of the array written (F), H for S (G) */
  const double *error;  /* o->error, or what o->error_late gave */
} arrays;

static void get_point(const void *ctx, int64_t i, double *v) {
  const arrays *a = ctx;
  memcpy(v, a->X + 3 * i, 3 * sizeof *v);
}

/* CELLS: "4 a b c d" per sub-tet; the lattice is oriented like the parent's
 * vertex order, so a parent of negative det gets its sub-tets' 1 and 2
 * swapped. */
static void get_cell(const void *ctx, int64_t i, int32_t *rec) {
  const arrays *a = ctx;
  int32_t t = (int32_t)(i / a->L->n_sub), base = t * a->L->n_pt;
  const int32_t *v = a->L->sub + 4 * (size_t)(i % a->L->n_sub);
  int flip = tet_det(a->m, t) < 0;
  rec[0] = 4;
  rec[1] = base + v[0];
  rec[2] = base + v[flip ? 2 : 1];
  rec[3] = base + v[flip ? 1 : 2];
  rec[4] = base + v[3];
}

static void get_tetra(const void *ctx, int64_t i, int32_t *v) {
  (void)ctx, (void)i;
  *v = VTK_TETRA;
}

static void get_material(const void *ctx, int64_t i, int32_t *v) {
  const arrays *a = ctx;
  *v = a->m->tet_group[i / a->L->n_sub];
}

static void get_order(const void *ctx, int64_t i, int32_t *v) {
  const arrays *a = ctx;
  *v = a->o->order[i / a->L->n_sub];
}

static void get_error(const void *ctx, int64_t i, double *v) {
  const arrays *a = ctx;
  *v = a->error[i / a->L->n_sub];
}

static void get_re(const void *ctx, int64_t i, double *v) {
  const em_cplx *e = ((const arrays *)ctx)->F + 3 * i;
  for (int c = 0; c < 3; c++) v[c] = creal(e[c]);
}

static void get_im(const void *ctx, int64_t i, double *v) {
  const em_cplx *e = ((const arrays *)ctx)->F + 3 * i;
  for (int c = 0; c < 3; c++) v[c] = cimag(e[c]);
}

static void get_abs(const void *ctx, int64_t i, double *v) {
  *v = norm3(((const arrays *)ctx)->F + 3 * i);
}

/* S = 1/2 Re(E x H*): the time-averaged Poynting vector (W/m^2) */
static void get_poynting(const void *ctx, int64_t i, double *v) {
  const arrays *a = ctx;
  const em_cplx *e = a->F + 3 * i, *h = a->G + 3 * i;
  v[0] = 0.5 * creal(e[1] * conj(h[2]) - e[2] * conj(h[1]));
  v[1] = 0.5 * creal(e[2] * conj(h[0]) - e[0] * conj(h[2]));
  v[2] = 0.5 * creal(e[0] * conj(h[1]) - e[1] * conj(h[0]));
}

/* One data array: its header line, the records, the end; a cancel request
 * is an error naming the array. */
static em_err reals(em_vtk_stream *s, const char *head, int64_t n, int width, em_vtk_real_fn get,
                    const arrays *a, const char *path) {
  em_vtk_stream_text(s, head);
  EM_CHECK(!em_vtk_stream_real_array(s, n, width, get, a, a->o->cancel), EM_ERR_CANCELLED,
           "VTK %s: cancelled while writing %.40s", path, head);
  em_vtk_stream_end_array(s);
  return EM_OK;
}

static em_err ints(em_vtk_stream *s, const char *head, int64_t n, int width, em_vtk_int_fn get,
                   const arrays *a, const char *path) {
  em_vtk_stream_text(s, head);
  EM_CHECK(!em_vtk_stream_int_array(s, n, width, get, a, a->o->cancel), EM_ERR_CANCELLED,
           "VTK %s: cancelled while writing %.40s", path, head);
  em_vtk_stream_end_array(s);
  return EM_OK;
}

/* <name>_re, <name>_im (vectors) and <name>_abs (scalar) of a complex field */
static em_err write_point_data(em_vtk_stream *s, arrays *a, const em_cplx *F, int64_t n_pts,
                               const char *type, const char *name, const char *path) {
  char line[128];
  a->F = F;
  snprintf(line, sizeof line, "VECTORS %s_re %s\n", name, type);
  EM_TRY(reals(s, line, n_pts, 3, get_re, a, path));
  snprintf(line, sizeof line, "VECTORS %s_im %s\n", name, type);
  EM_TRY(reals(s, line, n_pts, 3, get_im, a, path));
  snprintf(line, sizeof line, "SCALARS %s_abs %s 1\nLOOKUP_TABLE default\n", name, type);
  return reals(s, line, n_pts, 1, get_abs, a, path);
}

em_err em_vtk_write(const char *path, const em_mesh *m, em_field_sampler E, void *ctx,
                    const em_vtk_opts *o) {
  EM_TRY(check_args(path, m, E, o));
  em_err err = EM_OK;
  em_vtk_lattice *L = NULL;
  em_cplx *Ev = NULL, *Hv = NULL;
  double *X = NULL;
  em_outfile out = {0};
  em_vtk_stream s = {0};
  const char *type = o->single ? "float" : "double";
  char title[VTK_TITLE_CAP], line[160];
  int with_h = o->tet ? o->tet_h : o->H != NULL;
  EM_TRY(em_vtk_lattice_create(o->subdiv, &L));
  int64_t n_pts = (int64_t)m->n_tet * L->n_pt, n_cells = (int64_t)m->n_tet * L->n_sub;
  EM_TRY_GOTO(err, em_calloc(&Ev, 3 * (size_t)n_pts, sizeof *Ev, "VTK field samples"), done);
  if (with_h)
    EM_TRY_GOTO(err, em_calloc(&Hv, 3 * (size_t)n_pts, sizeof *Hv, "VTK field samples"), done);
  EM_TRY_GOTO(err, em_outfile_open(&out, path, 1), done);
  EM_TRY_GOTO(err, em_vtk_stream_init(&s, out.f, o->binary, o->single), done);
  if (o->parallel || o->tet) {
    EM_TRY_GOTO(err, sample_parallel(path, m, L, E, ctx, o, Ev, Hv), done);
  } else {
    EM_TRY_GOTO(err, sample(path, m, L, E, ctx, o, Ev), done);
    if (Hv) EM_TRY_GOTO(err, sample(path, m, L, o->H, ctx, o, Hv), done);
  }
  EM_TRY_GOTO(err, cancel_poll(path, o->cancel, 0), done);
  EM_TRY_GOTO(err, em_calloc(&X, 3 * (size_t)n_pts, sizeof *X, "VTK points"), done);
  place_points(m, L, X);
  arrays a = {.m = m, .L = L, .o = o, .X = X};

  make_title(title, m, o->title);
  em_vtk_stream_text(&s, "# vtk DataFile Version 3.0\n");
  em_vtk_stream_text(&s, title);
  em_vtk_stream_text(&s, o->binary ? "\nBINARY\n" : "\nASCII\n");
  snprintf(line, sizeof line, "DATASET UNSTRUCTURED_GRID\nPOINTS %lld %s\n", (long long)n_pts,
           type);
  EM_TRY_GOTO(err, reals(&s, line, n_pts, 3, get_point, &a, path), done);
  em_free(&X);
  a.X = NULL;
  snprintf(line, sizeof line, "CELLS %lld %lld\n", (long long)n_cells, 5 * (long long)n_cells);
  EM_TRY_GOTO(err, ints(&s, line, n_cells, 5, get_cell, &a, path), done);
  EM_TRY_GOTO(err, em_vtk_stream_flush(&s, path), done);

  snprintf(line, sizeof line, "CELL_TYPES %lld\n", (long long)n_cells);
  EM_TRY_GOTO(err, ints(&s, line, n_cells, 1, get_tetra, &a, path), done);
  snprintf(line, sizeof line, "CELL_DATA %lld\nSCALARS material int 1\nLOOKUP_TABLE default\n",
           (long long)n_cells);
  EM_TRY_GOTO(err, ints(&s, line, n_cells, 1, get_material, &a, path), done);
  if (o->order) /* order per region: the basis order of each parent tet */
    EM_TRY_GOTO(
        err,
        ints(&s, "SCALARS order int 1\nLOOKUP_TABLE default\n", n_cells, 1, get_order, &a, path),
        done);
  a.error = o->error;
  if (o->error_late) { /* made beside the sampling: here it is needed */
    a.error = o->error_late(o->error_ctx);
    EM_TRY_GOTO(err, check_error(path, m, o, a.error), done);
  }
  if (a.error) { /* the error indicator of each parent tet */
    snprintf(line, sizeof line, "SCALARS error %s 1\nLOOKUP_TABLE default\n", type);
    EM_TRY_GOTO(err, reals(&s, line, n_cells, 1, get_error, &a, path), done);
  }
  EM_TRY_GOTO(err, cancel_poll(path, o->cancel, 0), done);
  snprintf(line, sizeof line, "POINT_DATA %lld\n", (long long)n_pts);
  em_vtk_stream_text(&s, line);
  EM_TRY_GOTO(err, write_point_data(&s, &a, Ev, n_pts, type, "E", path), done);
  if (Hv) {
    EM_TRY_GOTO(err, write_point_data(&s, &a, Hv, n_pts, type, "H", path), done);
    a.F = Ev, a.G = Hv;
    snprintf(line, sizeof line, "VECTORS S %s\n", type);
    EM_TRY_GOTO(err, reals(&s, line, n_pts, 3, get_poynting, &a, path), done);
  }
  EM_TRY_GOTO(err, em_vtk_stream_flush(&s, path), done);
  EM_TRY_GOTO(err, em_outfile_commit(&out), done);
done:
  if (err) em_outfile_abort(&out);
  em_vtk_stream_free(&s);
  em_free(&Ev);
  em_free(&Hv);
  em_free(&X);
  em_vtk_lattice_destroy(&L);
  return err;
}
