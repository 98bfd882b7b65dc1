/* case_size.c - element sizes from the wavelength.
 *
 * In each physical volume h = c0 / (f_max n) / N, n its refractive index and
 * N the elements per wavelength, in model units (divided by metres/unit).
 * The size of a surface, curve or point is the smallest h of the volumes it
 * bounds or is embedded in, so an interface takes the finer side and the
 * coarser volume grows away from it as Gmsh interpolates from the boundary.
 *
 * Gmsh 4.8.4 has no "Constant" field and its "Restrict" field ignores the
 * boundary of the listed volumes, so the sizes are given per entity through
 * the size callback.  Gmsh takes the minimum of the callback, the case's own
 * sizes (point sizes, Mesh.MeshSizeMax, its background field) and its
 * defaults, so a case that asks for smaller elements somewhere gets them.
 *
 * A PML shell (volume groups pml*) is thin next to the wavelength: at
 * lambda / N its layer would be one or two elements thick, too few to
 * follow the field's decay, so there h = t / pml_elements, t the thinnest
 * layer (bounding boxes of all volumes and of the non-PML ones).  With
 * pml_elements_only that is the PML's only size: a finer interior does not
 * refine the layer (its unknowns would otherwise grow with the interior's
 * and dominate an iterative solver's exact coarse level).
 *
 * Adaptive refinement (em_case_remesh) adds a size field h(x) given in
 * metres: the callback returns the smaller of the entity's size and it. */
#include <gmshc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case_impl.h"

#define NO_SIZE 1e22 /* Gmsh's MAX_LC: no constraint from this source */

struct em_case_size {
  int max_tag[4]; /* largest entity tag of each dimension */
  double *h[4];   /* h[dim][tag]: size on that entity, model units; NO_SIZE if free */
  em_size_fn bg;  /* a size field in metres at a point in metres, or NULL */
  void *bg_ctx;
  double unit; /* metres per model unit */
};

/* Called by Gmsh for every point it places, from its meshing threads: the
 * table is read-only by then. */
static double size_callback(int dim, int tag, double x, double y, double z, void *data) {
  const em_case_size *s = data;
  double h = dim < 0 || dim > 3 || tag < 0 || tag > s->max_tag[dim] ? NO_SIZE : s->h[dim][tag];
  if (s->bg) {
    double p[3] = {x * s->unit, y * s->unit, z * s->unit}, b = s->bg(s->bg_ctx, p) / s->unit;
    if (b > 0 && b < h) h = b;
  }
  return h;
}

void em_case_size_clear(em_case_size **ps) {
  if (!*ps) return;
  int ierr = 0;
  gmshModelMeshRemoveSizeCallback(&ierr);
  for (int d = 0; d < 4; d++) em_free(&(*ps)->h[d]);
  em_free(ps);
}

static void lower(em_case_size *s, int dim, int tag, double h) {
  if (dim >= 0 && dim <= 3 && tag >= 0 && tag <= s->max_tag[dim] && h < s->h[dim][tag])
    s->h[dim][tag] = h;
}

/* One table per dimension, indexed by tag, all free. */
static em_err alloc_tables(em_case_size *s, size_t mark) {
  for (int d = 0; d < 4; d++) {
    int *dt = NULL, ierr = 0;
    size_t n = 0;
    gmshModelGetEntities(&dt, &n, d, &ierr);
    if (ierr) return EM_GMSH_RAISE(mark, "cannot list the entities of dimension %d", d);
    s->max_tag[d] = 0;
    for (size_t k = 0; k < n; k += 2)
      if (dt[k + 1] > s->max_tag[d]) s->max_tag[d] = dt[k + 1];
    gmshFree(dt);
    EM_TRY(em_calloc(&s->h[d], (size_t)s->max_tag[d] + 1, sizeof *s->h[d], "mesh sizes"));
    for (int t = 0; t <= s->max_tag[d]; t++) s->h[d][t] = NO_SIZE;
  }
  return EM_OK;
}

/* What a walk over the physical volumes hands each one: the case and the
 * Gmsh log mark (for messages), the sizes, and the walker's own state. */
typedef struct volume_walk {
  const em_case *c;
  size_t mark;
  em_case_size *s;
  const em_mesh_opts *o;
  const em_log *log;
  double lambda0;       /* volume_sizes: the wavelength, metres */
  double h;             /* pml_sizes: the PML element size */
  double all[6], in[6]; /* pml_boxes: boxes of all volumes and of the rest */
  int n_pml;            /* pml_boxes: PML volumes */
} volume_walk;

typedef em_err (*volume_fn)(volume_walk *w, const char *name, const int *ent, size_t n_ent);

/* fn(w, name, entities) for every physical volume of the case, in Gmsh's
 * order; the first error ends the walk. */
static em_err each_volume(volume_walk *w, volume_fn fn) {
  em_err err = EM_OK;
  int *dt = NULL, *ent = NULL, ierr = 0;
  size_t n = 0, n_ent = 0;
  char *name = NULL;
  gmshModelGetPhysicalGroups(&dt, &n, 3, &ierr);
  if (ierr)
    return EM_GMSH_RAISE(w->mark, "case '%s': cannot list its physical volumes", w->c->path);
  for (size_t k = 0; k < n && !err; k += 2) {
    EM_TRY_GOTO(err, em_case_group_name(w->c, 3, dt[k + 1], &name), done);
    gmshModelGetEntitiesForPhysicalGroup(3, dt[k + 1], &ent, &n_ent, &ierr);
    if (ierr)
      err = EM_GMSH_RAISE(w->mark, "case '%s': cannot read volume group '%s'", w->c->path, name);
    else
      err = fn(w, name, ent, n_ent);
    gmshFree(ent);
    ent = NULL;
    em_free(&name);
  }
done:
  gmshFree(dt);
  em_free(&name);
  return err;
}

static int is_pml(const char *name) {
  return !strncmp(name, "pml", 3);
}

/* h = lambda0 / n / N on the volume's entities (not on a PML sized by its
 * elements alone); logs it. */
static em_err volume_size(volume_walk *w, const char *name, const int *ent, size_t n_ent) {
  const em_mesh_opts *o = w->o;
  if (o->pml_elements_only && o->pml_elements > 0 && is_pml(name)) return EM_OK;
  double idx = o->index_of ? o->index_of(o->index_ctx, name) : 1.0;
  EM_CHECK(idx > 0 && isfinite(idx), EM_ERR_INPUT,
           "case '%s': volume group '%s' has refractive index %g", w->c->path, name, idx);
  double h = w->lambda0 / idx / o->elements_per_wavelength; /* metres */
  em_log_info(w->log, "  %-16s n = %-8.4g h = %.4g mm", name, idx, h * 1e3);
  for (size_t e = 0; e < n_ent; e++) lower(w->s, 3, ent[e], h / o->unit);
  return EM_OK;
}

/* The volume's bounding box joins the box of all volumes and, outside the
 * PML, the interior one. */
static em_err volume_box(volume_walk *w, const char *name, const int *ent, size_t n_ent) {
  int pml = is_pml(name), ierr = 0;
  w->n_pml += pml;
  for (size_t e = 0; !ierr && e < n_ent; e++) {
    double b[6];
    gmshModelGetBoundingBox(3, ent[e], b, b + 1, b + 2, b + 3, b + 4, b + 5, &ierr);
    for (int d = 0; !ierr && d < 3; d++) {
      w->all[d] = fmin(w->all[d], b[d]), w->all[d + 3] = fmax(w->all[d + 3], b[d + 3]);
      if (!pml) w->in[d] = fmin(w->in[d], b[d]), w->in[d + 3] = fmax(w->in[d + 3], b[d + 3]);
    }
  }
  if (ierr)
    return EM_GMSH_RAISE(w->mark, "case '%s': cannot read volume group '%s'", w->c->path, name);
  return EM_OK;
}

/* h = w->h on a PML volume's entities. */
static em_err pml_size(volume_walk *w, const char *name, const int *ent, size_t n_ent) {
  if (is_pml(name))
    for (size_t e = 0; e < n_ent; e++) lower(w->s, 3, ent[e], w->h);
  return EM_OK;
}

/* h of every physical volume's entities; logs the sizes. */
static em_err volume_sizes(volume_walk *w) {
  w->lambda0 = EM_C0 / w->o->freq_max;
  em_log_info(w->log, "mesh sizes from the wavelength at %.6g GHz, %g elements per wavelength:",
              w->o->freq_max * 1e-9, w->o->elements_per_wavelength);
  return each_volume(w, volume_size);
}

/* h = t / pml_elements in the PML volumes, t the thinnest layer (from the
 * bounding boxes, model units). */
static em_err pml_sizes(volume_walk *w) {
  const em_mesh_opts *o = w->o;
  if (o->pml_elements <= 0) return EM_OK;
  for (int d = 0; d < 3; d++)
    w->all[d] = w->in[d] = INFINITY, w->all[d + 3] = w->in[d + 3] = -INFINITY;
  w->n_pml = 0;
  EM_TRY(each_volume(w, volume_box));
  if (!w->n_pml) return EM_OK;
  const double *all = w->all, *in = w->in;
  double size = 0, t = INFINITY;
  for (int d = 0; d < 3; d++) size = fmax(size, all[d + 3] - all[d]);
  for (int d = 0; d < 3; d++) { /* OCC boxes are padded by ~1e-7: a layer is > 1e-6 size */
    double lo = in[d] - all[d], hi = all[d + 3] - in[d + 3];
    if (lo > 1e-6 * size) t = fmin(t, lo);
    if (hi > 1e-6 * size) t = fmin(t, hi);
  }
  if (!isfinite(t)) return EM_OK; /* no layer outside the interior box */
  w->h = t / o->pml_elements;
  em_log_info(w->log, "  %-16s layer %.4g mm: h = %.4g mm (%d elements across%s)", "pml*",
              t * o->unit * 1e3, w->h * o->unit * 1e3, o->pml_elements,
              o->pml_elements_only ? ", not sized by the wavelength" : "");
  return each_volume(w, pml_size);
}

/* From volumes down to points: each entity passes its size to its boundary
 * (one dimension down) and to the entities embedded in it. */
static em_err spread_down(em_case_size *s, size_t mark) {
  for (int d = 3; d >= 1; d--)
    for (int t = 0; t <= s->max_tag[d]; t++) {
      double h = s->h[d][t];
      if (h >= NO_SIZE) continue;
      int *up = NULL, *down = NULL, *emb = NULL, ierr = 0;
      size_t n_up = 0, n_down = 0, n_emb = 0;
      gmshModelGetAdjacencies(d, t, &up, &n_up, &down, &n_down, &ierr);
      if (!ierr) gmshModelMeshGetEmbedded(d, t, &emb, &n_emb, &ierr);
      for (size_t k = 0; !ierr && k < n_down; k++) lower(s, d - 1, abs(down[k]), h);
      for (size_t k = 0; !ierr && k + 1 < n_emb; k += 2) lower(s, emb[k], emb[k + 1], h);
      gmshFree(up);
      gmshFree(down);
      gmshFree(emb);
      if (ierr) return EM_GMSH_RAISE(mark, "cannot read the boundary of entity (%d, %d)", d, t);
    }
  return EM_OK;
}

em_err em_case_size_install(const em_case *c, const em_mesh_opts *o, em_size_fn bg, void *bg_ctx,
                            const em_log *log, em_case_size **out) {
  em_err err = EM_OK;
  em_case_size *s = NULL;
  *out = NULL;
  int wave = o->elements_per_wavelength > 0;
  if (!wave && !bg) return EM_OK;
  EM_CHECK(!wave || isfinite(o->elements_per_wavelength), EM_ERR_INPUT,
           "case '%s': elements per wavelength %g", c->path, o->elements_per_wavelength);
  EM_CHECK(!wave || (o->freq_max > 0 && isfinite(o->freq_max)), EM_ERR_INPUT,
           "case '%s': sizing from the wavelength needs a frequency > 0, not %g Hz", c->path,
           o->freq_max);
  size_t mark = c->log_mark;
  EM_TRY(em_calloc(&s, 1, sizeof *s, "mesh sizes"));
  s->bg = bg, s->bg_ctx = bg_ctx, s->unit = o->unit;
  EM_TRY_GOTO(err, alloc_tables(s, mark), fail);
  volume_walk w = {.c = c, .mark = mark, .s = s, .o = o, .log = log};
  if (wave) {
    EM_TRY_GOTO(err, volume_sizes(&w), fail);
    EM_TRY_GOTO(err, pml_sizes(&w), fail);
    EM_TRY_GOTO(err, spread_down(s, mark), fail);
  }
  int ierr = 0;
  gmshModelMeshSetSizeCallback(size_callback, s, &ierr);
  if (ierr) {
    err = EM_GMSH_RAISE(mark, "case '%s': cannot install the mesh size callback", c->path);
    goto fail;
  }
  *out = s;
  return EM_OK;
fail:
  em_case_size_clear(&s);
  return err;
}

/* Volume (model units^3) of volume entity `tag`: its OpenCASCADE mass
 * when the OCC model holds it (occ: the OCC volume tags, n of them), else
 * its bounding box (a shell such as a PML layer then counts as the whole
 * box it wraps). */
static double entity_volume(int tag, const int *occ, size_t n, int *ierr) {
  for (size_t k = 0; k + 1 < n; k += 2)
    if (occ[k + 1] == tag) {
      double mass = 0;
      gmshModelOccGetMass(3, tag, &mass, ierr);
      if (!*ierr && mass > 0) return mass;
      *ierr = 0;
      break;
    }
  double b[6];
  gmshModelGetBoundingBox(3, tag, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], ierr);
  return (b[3] - b[0]) * (b[4] - b[1]) * (b[5] - b[2]);
}

/* tets ~ sum over physical volumes of V / (h^3 / (6 sqrt 2)), the volume
 * of a regular tetrahedron of edge h; V the volume of the group's entities
 * (OpenCASCADE's, else their bounding boxes; model units^3 -> m^3). */
em_err em_case_estimate(em_case *c, const em_mesh_opts *o, double *tets, double *h_min) {
  return em_case_estimate_each(c, o, NULL, NULL, tets, h_min);
}

em_err em_case_estimate_each(em_case *c, const em_mesh_opts *o,
                             void (*each)(void *ctx, const char *name, double tets), void *ctx,
                             double *tets, double *h_min) {
  em_err err = EM_OK;
  int *dt = NULL, *ent = NULL, ierr = 0;
  size_t n = 0, n_ent = 0;
  char *name = NULL;
  *tets = 0;
  *h_min = 0;
  if (c->is_msh || o->elements_per_wavelength <= 0) return EM_OK;
  EM_CHECK(o->freq_max > 0 && isfinite(o->freq_max) && isfinite(o->elements_per_wavelength),
           EM_ERR_INPUT, "case '%s': mesh sizes from %g Hz, %g elements per wavelength", c->path,
           o->freq_max, o->elements_per_wavelength);
  size_t mark = c->log_mark;
  double lambda0 = EM_C0 / o->freq_max, total = 0, hmin = INFINITY;
  int *occ = NULL;
  size_t n_occ = 0;
  gmshModelOccGetEntities(&occ, &n_occ, 3, &ierr);
  if (ierr) occ = NULL, n_occ = 0, ierr = 0; /* a built-in geometry: boxes only */
  gmshModelGetPhysicalGroups(&dt, &n, 3, &ierr);
  if (ierr) {
    gmshFree(occ);
    return EM_GMSH_RAISE(mark, "case '%s': cannot list its physical volumes", c->path);
  }
  for (size_t k = 0; k < n; k += 2) {
    EM_TRY_GOTO(err, em_case_group_name(c, 3, dt[k + 1], &name), done);
    double idx = o->index_of ? o->index_of(o->index_ctx, name) : 1.0;
    if (!(idx > 0 && isfinite(idx))) idx = 1.0;            /* the mesher names it */
    double h = lambda0 / idx / o->elements_per_wavelength; /* metres */
    hmin = fmin(hmin, h);
    gmshModelGetEntitiesForPhysicalGroup(3, dt[k + 1], &ent, &n_ent, &ierr);
    double group = 0;
    for (size_t e = 0; !ierr && e < n_ent; e++) {
      double u = o->unit, vol = entity_volume(ent[e], occ, n_occ, &ierr) * u * u * u;
      if (ierr) break;
      if (isfinite(vol) && vol > 0) group += vol / (h * h * h / (6 * sqrt(2.0)));
    }
    total += group;
    if (each && !ierr) each(ctx, name, group);
    gmshFree(ent);
    ent = NULL;
    em_free(&name);
    if (ierr) {
      err = EM_GMSH_RAISE(mark, "case '%s': cannot read the extent of its volumes", c->path);
      goto done;
    }
  }
  *tets = total;
  *h_min = isfinite(hmin) ? hmin : 0;
done:
  gmshFree(dt);
  gmshFree(ent);
  gmshFree(occ);
  em_free(&name);
  em_case_restore_threads(c);
  return err;
}
