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
 * removed and the final name never appears. */
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

/* Checks that need no file: arguments, group ids, and the counts of the
 * output against the 32-bit ints of the legacy format. */
static em_err check_args(const char *path, const em_mesh *m, em_field_sampler E,
                         const em_vtk_opts *o) {
  EM_CHECK(path && *path, EM_ERR_ARG, "VTK output path is NULL or empty");
  EM_CHECK(m && E && o, EM_ERR_ARG, "VTK %s: NULL %s", path,
           !m   ? "mesh"
           : !E ? "field sampler"
                : "options");
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
  for (int32_t t = 0; o->error && t < m->n_tet; t++)
    EM_CHECK(isfinite(o->error[t]) && fabs(o->error[t]) <= (o->single ? FLT_MAX : DBL_MAX),
             EM_ERR_NUMERIC, "VTK %s: the error indicator of tet %d is %g", path, t, o->error[t]);
  return EM_OK;
}

/* Every 256 tets of a pass: a cancel request (a signal) stops the writer. */
static em_err cancel_poll(const char *path, const em_cancel *c, int64_t t) {
  EM_CHECK(t % 256 || !em_cancelled(c), EM_ERR_CANCELLED, "VTK %s: cancelled at tet %lld", path,
           (long long)t);
  return EM_OK;
}

/* E at every lattice point of every parent: Ev[3 (t n_pt + p) + c].  A value
 * that is not finite (or would not fit a float) is an error naming the tet. */
static em_err sample(const char *path, const em_mesh *m, const em_vtk_lattice *L,
                     em_field_sampler E, void *ctx, const em_vtk_opts *o, em_cplx *Ev) {
  double lim = o->single ? FLT_MAX : DBL_MAX;
  int single = o->single;
  for (int32_t t = 0; t < m->n_tet; t++) {
    EM_TRY(cancel_poll(path, o->cancel, t));
    for (int p = 0; p < L->n_pt; p++) {
      em_cplx *e = Ev + 3 * ((size_t)t * L->n_pt + p);
      const double *lam = L->lam + 4 * (size_t)p;
      EM_TRY(E(ctx, t, lam, e));
      for (int c = 0; c < 3; c++)
        EM_CHECK(fabs(creal(e[c])) <= lim && fabs(cimag(e[c])) <= lim, EM_ERR_NUMERIC,
                 "VTK %s: field at tet %d, lam (%g %g %g %g) is %g%+gj (component %d): %s", path, t,
                 lam[0], lam[1], lam[2], lam[3], creal(e[c]), cimag(e[c]), c,
                 single ? "not finite or beyond float range" : "not finite");
    }
  }
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
 * sampled at lam sits where it belongs. */
static em_err write_points(em_vtk_stream *s, const em_mesh *m, const em_vtk_lattice *L,
                           const char *path, const em_cancel *c) {
  for (int32_t t = 0; t < m->n_tet; t++) {
    EM_TRY(cancel_poll(path, c, t));
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    for (int p = 0; p < L->n_pt; p++) {
      double y[3], grad[4][3], dv;
      em_tet_geom_at(&g, L->lam + 4 * (size_t)p, y, grad, &dv);
      em_vtk_stream_reals(s, y, 3);
    }
  }
  em_vtk_stream_end_array(s);
  return EM_OK;
}

/* CELLS: "4 a b c d" per sub-tet; the lattice is oriented like the parent's
 * vertex order, so a parent of negative det gets its sub-tets' 1 and 2
 * swapped. */
static em_err write_cells(em_vtk_stream *s, const em_mesh *m, const em_vtk_lattice *L,
                          const char *path, const em_cancel *c) {
  for (int32_t t = 0; t < m->n_tet; t++) {
    EM_TRY(cancel_poll(path, c, t));
    int32_t base = t * L->n_pt;
    int flip = tet_det(m, t) < 0;
    for (int k = 0; k < L->n_sub; k++) {
      const int32_t *v = L->sub + 4 * (size_t)k;
      int32_t rec[5] = {4, base + v[0], base + v[flip ? 2 : 1], base + v[flip ? 1 : 2],
                        base + v[3]};
      em_vtk_stream_ints(s, rec, 5);
    }
  }
  em_vtk_stream_end_array(s);
  return EM_OK;
}

/* <name>_re, <name>_im (vectors) and <name>_abs (scalar) of a complex field */
static em_err write_point_data(em_vtk_stream *s, const em_cplx *Ev, int64_t n_pts, const char *type,
                               const char *name, const char *path, const em_cancel *c) {
  char line[128];
  snprintf(line, sizeof line, "VECTORS %s_re %s\n", name, type);
  em_vtk_stream_text(s, line);
  for (int64_t i = 0; i < n_pts; i++) {
    if (i % 4096 == 0) EM_TRY(cancel_poll(path, c, 0));
    double v[3] = {creal(Ev[3 * i]), creal(Ev[3 * i + 1]), creal(Ev[3 * i + 2])};
    em_vtk_stream_reals(s, v, 3);
  }
  em_vtk_stream_end_array(s);
  snprintf(line, sizeof line, "VECTORS %s_im %s\n", name, type);
  em_vtk_stream_text(s, line);
  for (int64_t i = 0; i < n_pts; i++) {
    if (i % 4096 == 0) EM_TRY(cancel_poll(path, c, 0));
    double v[3] = {cimag(Ev[3 * i]), cimag(Ev[3 * i + 1]), cimag(Ev[3 * i + 2])};
    em_vtk_stream_reals(s, v, 3);
  }
  em_vtk_stream_end_array(s);
  snprintf(line, sizeof line, "SCALARS %s_abs %s 1\nLOOKUP_TABLE default\n", name, type);
  em_vtk_stream_text(s, line);
  for (int64_t i = 0; i < n_pts; i++) {
    if (i % 4096 == 0) EM_TRY(cancel_poll(path, c, 0));
    double v = norm3(Ev + 3 * i);
    em_vtk_stream_reals(s, &v, 1);
  }
  em_vtk_stream_end_array(s);
  return EM_OK;
}

/* S = 1/2 Re(E x H*): the time-averaged Poynting vector (W/m^2) */
static void write_poynting(em_vtk_stream *s, const em_cplx *Ev, const em_cplx *Hv, int64_t n_pts,
                           const char *type) {
  char line[128];
  snprintf(line, sizeof line, "VECTORS S %s\n", type);
  em_vtk_stream_text(s, line);
  for (int64_t i = 0; i < n_pts; i++) {
    const em_cplx *e = Ev + 3 * i, *h = Hv + 3 * i;
    double v[3] = {0.5 * creal(e[1] * conj(h[2]) - e[2] * conj(h[1])),
                   0.5 * creal(e[2] * conj(h[0]) - e[0] * conj(h[2])),
                   0.5 * creal(e[0] * conj(h[1]) - e[1] * conj(h[0]))};
    em_vtk_stream_reals(s, v, 3);
  }
  em_vtk_stream_end_array(s);
}

em_err em_vtk_write(const char *path, const em_mesh *m, em_field_sampler E, void *ctx,
                    const em_vtk_opts *o) {
  EM_TRY(check_args(path, m, E, o));
  em_err err = EM_OK;
  em_vtk_lattice *L = NULL;
  em_cplx *Ev = NULL, *Hv = NULL;
  em_outfile out = {0};
  em_vtk_stream s = {0};
  const char *type = o->single ? "float" : "double";
  char title[VTK_TITLE_CAP], line[160];
  EM_TRY(em_vtk_lattice_create(o->subdiv, &L));
  int64_t n_pts = (int64_t)m->n_tet * L->n_pt, n_cells = (int64_t)m->n_tet * L->n_sub;
  EM_TRY_GOTO(err, em_calloc(&Ev, 3 * (size_t)n_pts, sizeof *Ev, "VTK field samples"), done);
  EM_TRY_GOTO(err, em_outfile_open(&out, path, 1), done);
  EM_TRY_GOTO(err, em_vtk_stream_init(&s, out.f, o->binary, o->single), done);
  EM_TRY_GOTO(err, sample(path, m, L, E, ctx, o, Ev), done);
  if (o->H) {
    EM_TRY_GOTO(err, em_calloc(&Hv, 3 * (size_t)n_pts, sizeof *Hv, "VTK field samples"), done);
    EM_TRY_GOTO(err, sample(path, m, L, o->H, ctx, o, Hv), done);
  }

  make_title(title, m, o->title);
  em_vtk_stream_text(&s, "# vtk DataFile Version 3.0\n");
  em_vtk_stream_text(&s, title);
  em_vtk_stream_text(&s, o->binary ? "\nBINARY\n" : "\nASCII\n");
  snprintf(line, sizeof line, "DATASET UNSTRUCTURED_GRID\nPOINTS %lld %s\n", (long long)n_pts,
           type);
  em_vtk_stream_text(&s, line);
  EM_TRY_GOTO(err, write_points(&s, m, L, path, o->cancel), done);
  snprintf(line, sizeof line, "CELLS %lld %lld\n", (long long)n_cells, 5 * (long long)n_cells);
  em_vtk_stream_text(&s, line);
  EM_TRY_GOTO(err, write_cells(&s, m, L, path, o->cancel), done);
  EM_TRY_GOTO(err, em_vtk_stream_flush(&s, path), done);

  snprintf(line, sizeof line, "CELL_TYPES %lld\n", (long long)n_cells);
  em_vtk_stream_text(&s, line);
  const int32_t tetra = VTK_TETRA;
  for (int64_t c = 0; c < n_cells; c++) em_vtk_stream_ints(&s, &tetra, 1);
  em_vtk_stream_end_array(&s);
  snprintf(line, sizeof line, "CELL_DATA %lld\nSCALARS material int 1\nLOOKUP_TABLE default\n",
           (long long)n_cells);
  em_vtk_stream_text(&s, line);
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int k = 0; k < L->n_sub; k++) em_vtk_stream_ints(&s, &m->tet_group[t], 1);
  em_vtk_stream_end_array(&s);
  if (o->order) { /* order per region: the basis order of each parent tet */
    em_vtk_stream_text(&s, "SCALARS order int 1\nLOOKUP_TABLE default\n");
    for (int32_t t = 0; t < m->n_tet; t++) {
      int32_t q = o->order[t];
      for (int k = 0; k < L->n_sub; k++) em_vtk_stream_ints(&s, &q, 1);
    }
    em_vtk_stream_end_array(&s);
  }
  if (o->error) { /* the error indicator of each parent tet */
    snprintf(line, sizeof line, "SCALARS error %s 1\nLOOKUP_TABLE default\n", type);
    em_vtk_stream_text(&s, line);
    for (int32_t t = 0; t < m->n_tet; t++)
      for (int k = 0; k < L->n_sub; k++) em_vtk_stream_reals(&s, &o->error[t], 1);
    em_vtk_stream_end_array(&s);
  }
  EM_TRY_GOTO(err, cancel_poll(path, o->cancel, 0), done);
  snprintf(line, sizeof line, "POINT_DATA %lld\n", (long long)n_pts);
  em_vtk_stream_text(&s, line);
  EM_TRY_GOTO(err, write_point_data(&s, Ev, n_pts, type, "E", path, o->cancel), done);
  if (Hv) {
    EM_TRY_GOTO(err, write_point_data(&s, Hv, n_pts, type, "H", path, o->cancel), done);
    write_poynting(&s, Ev, Hv, n_pts, type);
  }
  EM_TRY_GOTO(err, em_vtk_stream_flush(&s, path), done);
  EM_TRY_GOTO(err, em_outfile_commit(&out), done);
done:
  if (err) em_outfile_abort(&out);
  em_vtk_stream_free(&s);
  em_free(&Ev);
  em_free(&Hv);
  em_vtk_lattice_destroy(&L);
  return err;
}
