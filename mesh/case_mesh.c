/* case_mesh.c - the tet mesh of a case: generate it (.geo) or take it as
 * read (.msh), copy the tets of the physical volumes and the triangles of
 * the physical surfaces out of Gmsh, and build the topology. */
#include <gmshc.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "case_impl.h"

/* Gmsh element types: 3-node triangle, 4-node tet, and their second-order
 * (6- and 10-node) forms of Mesh/geometry_order 2 */
enum { TYPE_TRI = 2, TYPE_TET = 4, TYPE_TRI6 = 9, TYPE_TET10 = 11 };

/* Nodes per element of a type, and how many of them are vertices. */
static int type_nodes(int type) {
  return type == TYPE_TET10 ? 10 : type == TYPE_TRI6 ? 6 : type == TYPE_TET ? 4 : 3;
}
static int type_vertices(int type) {
  return type == TYPE_TET10 || type == TYPE_TET ? 4 : 3;
}

/* Growable array of node tags. */
typedef struct {
  size_t *v;  /* tags */
  size_t n;   /* used */
  size_t cap; /* allocated */
} tag_vec;

static em_err push_tags(tag_vec *a, const size_t *src, size_t k) {
  if (a->n + k > a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 1024;
    while (cap < a->n + k) cap *= 2;
    EM_TRY(em_realloc(&a->v, cap, sizeof *a->v, "element nodes"));
    a->cap = cap;
  }
  memcpy(a->v + a->n, src, k * sizeof *src);
  a->n += k;
  return EM_OK;
}

/* Node tag -> index, by binary search in (tag, index) pairs sorted by tag
 * (tags from a .msh need not be dense). */
typedef struct {
  size_t tag;
  int32_t idx;
} node_key;

static int key_cmp(const void *a, const void *b) {
  size_t x = ((const node_key *)a)->tag, y = ((const node_key *)b)->tag;
  return (x > y) - (x < y);
}

static int32_t node_index(const node_key *k, size_t n, size_t tag) {
  node_key key = {tag, 0};
  const node_key *f = bsearch(&key, k, n, sizeof *k, key_cmp);
  return f ? f->idx : -1;
}

/* The elements of one entity: all of type `want`, their vertices appended
 * to out and (second-order types) their other nodes to mid. */
static em_err entity_elements(const em_case *c, const char *group, int dim, int tag, int want,
                              tag_vec *out, tag_vec *mid) {
  em_err err = EM_OK;
  int *types = NULL, ierr = 0;
  size_t n_types = 0, *et = NULL, n_et = 0, *nt = NULL, n_nt = 0;
  size_t mark = c->log_mark;
  gmshModelMeshGetElementTypes(&types, &n_types, dim, tag, &ierr);
  if (ierr)
    return EM_GMSH_RAISE(mark, "case '%s': cannot read the elements of group '%s'", c->path, group);
  for (size_t k = 0; k < n_types; k++)
    if (types[k] != want) {
      char *name = NULL;
      int d, order, nn, np;
      double *lc = NULL;
      size_t n_lc = 0;
      gmshModelMeshGetElementProperties(types[k], &name, &d, &order, &nn, &lc, &n_lc, &np, &ierr);
      err = EM_RAISE(EM_ERR_INPUT,
                     "case '%s': %s group '%s' holds elements of type %d (%s); emsolve takes "
                     "%s-order %s here (Mesh/geometry_order %d)",
                     c->path, dim == 3 ? "volume" : "surface", group, types[k],
                     !ierr && name ? name : "?", type_nodes(want) > 4 ? "second" : "first",
                     dim == 3 ? "tetrahedra" : "triangles", type_nodes(want) > 4 ? 2 : 1);
      gmshFree(name);
      gmshFree(lc);
      goto done;
    }
  if (n_types) {
    gmshModelMeshGetElementsByType(want, &et, &n_et, &nt, &n_nt, tag, 0, 1, &ierr);
    if (ierr) {
      err =
          EM_GMSH_RAISE(mark, "case '%s': cannot read the elements of group '%s'", c->path, group);
      goto done;
    }
    int nn = type_nodes(want), nv = type_vertices(want);
    for (size_t e = 0; e + (size_t)nn <= n_nt; e += (size_t)nn) {
      EM_TRY_GOTO(err, push_tags(out, nt + e, (size_t)nv), done);
      if (mid && nn > nv) EM_TRY_GOTO(err, push_tags(mid, nt + e + nv, (size_t)(nn - nv)), done);
    }
  }
done:
  gmshFree(types);
  gmshFree(et);
  gmshFree(nt);
  return err;
}

/* The node tags of the elements of one physical group (one row per element,
 * `want` gives the type), appending the group index once per element. */
static em_err group_elements(const em_case *c, const em_group *g, int32_t gi, int want,
                             tag_vec *nodes, tag_vec *mid, int32_t **elem_group, size_t *n_elem) {
  em_err err = EM_OK;
  int *ent = NULL, ierr = 0;
  size_t n_ent = 0, per = (size_t)type_vertices(want), before = nodes->n;
  size_t mark = c->log_mark;
  gmshModelGetEntitiesForPhysicalGroup(g->dim, g->tag, &ent, &n_ent, &ierr);
  if (ierr) return EM_GMSH_RAISE(mark, "case '%s': cannot read group '%s'", c->path, g->name);
  for (size_t e = 0; e < n_ent; e++)
    EM_TRY_GOTO(err, entity_elements(c, g->name, g->dim, ent[e], want, nodes, mid), done);
  size_t added = (nodes->n - before) / per;
  if (g->dim == 3 && added == 0) {
    err = EM_RAISE(EM_ERR_INPUT,
                   "case '%s': physical volume '%s' has no tetrahedra (does it name existing "
                   "volumes?)",
                   c->path, g->name);
    goto done;
  }
  EM_TRY_GOTO(err,
              em_realloc(elem_group, *n_elem + added + 1, sizeof **elem_group, "element groups"),
              done);
  for (size_t k = 0; k < added; k++) (*elem_group)[*n_elem + k] = gi;
  *n_elem += added;
done:
  gmshFree(ent);
  return err;
}

/* The physical volumes (first) and surfaces; curves and points are not
 * solver groups. */
static em_err read_groups(const em_case *c, em_group **out, int *n_out, int *n_vol) {
  em_err err = EM_OK;
  int *dt = NULL, ierr = 0, n = 0;
  size_t n_dt = 0;
  em_group *g = NULL;
  size_t mark = c->log_mark;
  gmshModelGetPhysicalGroups(&dt, &n_dt, -1, &ierr);
  if (ierr) return EM_GMSH_RAISE(mark, "case '%s': cannot list its physical groups", c->path);
  EM_TRY_GOTO(err, em_calloc(&g, n_dt / 2, sizeof *g, "mesh groups"), done);
  for (int dim = 3; dim >= 2; dim--) {
    for (size_t k = 0; k < n_dt; k += 2) {
      if (dt[k] != dim) continue;
      g[n].dim = dim;
      g[n].tag = dt[k + 1];
      EM_TRY_GOTO(err, em_case_group_name(c, dim, dt[k + 1], &g[n].name), done);
      n++;
    }
    if (dim == 3) *n_vol = n;
  }
done:
  gmshFree(dt);
  if (err) {
    for (int i = 0; i < n; i++) em_free(&g[i].name);
    em_free(&g);
    n = 0;
  }
  *out = g;
  *n_out = n;
  return err;
}

/* The nodes used by the tets, renumbered 0.. in Gmsh's order, coordinates
 * in metres; vmap[i] = new index of Gmsh node i, or -1. */
typedef struct {
  size_t n_all;   /* nodes Gmsh listed */
  node_key *key;  /* sorted (tag, Gmsh index) */
  int32_t *vmap;  /* Gmsh index -> mesh vertex, -1 when no tet uses it */
  int32_t n_vert; /* vertices used by tets */
  double *xyz;    /* their coordinates, metres */
  double *mid;    /* second-order: [3 per mid tag] coordinates, metres */
} node_table;

static void node_table_free(node_table *t) {
  em_free(&t->key);
  em_free(&t->vmap);
  em_free(&t->xyz);
  em_free(&t->mid);
}

/* Coordinate d of Gmsh node i in metres, refusing a non-finite one (a broken
 * .msh: named here, not as a bent port later). */
static em_err node_coord(const em_case *c, const size_t *tags, const double *xyz, size_t i, int d,
                         double unit, double *x) {
  *x = xyz[3 * i + d] * unit;
  EM_CHECK(isfinite(*x), EM_ERR_INPUT, "case '%s': node %zu has coordinate %c = %g", c->path,
           tags[i], "xyz"[d], xyz[3 * i + d]);
  return EM_OK;
}

/* The vertices the tets use (renumbered) and, with mids, the coordinates
 * of the second-order nodes in mids' order. */
static em_err read_nodes(const em_case *c, double unit, const tag_vec *tets, const tag_vec *mids,
                         node_table *t) {
  em_err err = EM_OK;
  size_t *tags = NULL, n = 0, n_xyz = 0, n_par = 0;
  double *xyz = NULL, *par = NULL;
  int ierr = 0;
  size_t mark = c->log_mark;
  gmshModelMeshGetNodes(&tags, &n, &xyz, &n_xyz, &par, &n_par, -1, -1, 0, 0, &ierr);
  if (ierr) return EM_GMSH_RAISE(mark, "case '%s': cannot read the mesh nodes", c->path);
  if (n >= INT32_MAX || n_xyz != 3 * n) {
    err = EM_RAISE(EM_ERR_INPUT, "case '%s': %zu nodes with %zu coordinates", c->path, n, n_xyz);
    goto done;
  }
  t->n_all = n;
  EM_TRY_GOTO(err, em_calloc(&t->key, n, sizeof *t->key, "node tags"), done);
  EM_TRY_GOTO(err, em_calloc(&t->vmap, n, sizeof *t->vmap, "node map"), done);
  for (size_t i = 0; i < n; i++) {
    t->key[i].tag = tags[i];
    t->key[i].idx = (int32_t)i;
    t->vmap[i] = -1;
  }
  qsort(t->key, n, sizeof *t->key, key_cmp);
  for (size_t k = 0; k < tets->n; k++) {
    int32_t i = node_index(t->key, n, tets->v[k]);
    if (i < 0) {
      err = EM_RAISE(EM_ERR_INPUT,
                     "case '%s': a tetrahedron uses node %zu, which the mesh does not have",
                     c->path, tets->v[k]);
      goto done;
    }
    t->vmap[i] = 0;
  }
  int32_t nv = 0;
  for (size_t i = 0; i < n; i++)
    if (t->vmap[i] >= 0) t->vmap[i] = nv++;
  t->n_vert = nv;
  EM_TRY_GOTO(err, em_calloc(&t->xyz, 3 * (size_t)nv, sizeof *t->xyz, "mesh vertices"), done);
  for (size_t i = 0; i < n; i++)
    if (t->vmap[i] >= 0)
      for (int d = 0; d < 3; d++)
        EM_TRY_GOTO(err, node_coord(c, tags, xyz, i, d, unit, &t->xyz[3 * (size_t)t->vmap[i] + d]),
                    done);
  if (mids && mids->n) {
    EM_TRY_GOTO(err, em_calloc(&t->mid, 3 * mids->n, sizeof *t->mid, "second-order nodes"), done);
    for (size_t k = 0; k < mids->n; k++) {
      int32_t i = node_index(t->key, n, mids->v[k]);
      if (i < 0) {
        err = EM_RAISE(EM_ERR_INPUT,
                       "case '%s': a tetrahedron uses node %zu, which the mesh does not have",
                       c->path, mids->v[k]);
        goto done;
      }
      for (int d = 0; d < 3; d++)
        EM_TRY_GOTO(err, node_coord(c, tags, xyz, (size_t)i, d, unit, &t->mid[3 * k + d]), done);
    }
  }
done:
  gmshFree(tags);
  gmshFree(xyz);
  gmshFree(par);
  return err;
}

/* Node tags -> mesh vertex ids.  The tets define which nodes are used, so
 * only a triangle can meet an unused node: it is not part of the volume mesh. */
static em_err map_nodes(const em_case *c, const node_table *t, const tag_vec *tags, int32_t *ids,
                        const int32_t *elem_group, const em_group *g, int per) {
  for (size_t k = 0; k < tags->n; k++) {
    int32_t i = node_index(t->key, t->n_all, tags->v[k]);
    EM_CHECK(i >= 0, EM_ERR_INPUT,
             "case '%s': an element uses node %zu, which the mesh does not have", c->path,
             tags->v[k]);
    EM_CHECK(t->vmap[i] >= 0, EM_ERR_INPUT,
             "case '%s': surface group '%s': a triangle is not a face of any tet (the surface is "
             "not embedded in the volume mesh)",
             c->path, g[elem_group[k / (size_t)per]].name);
    ids[k] = t->vmap[i];
  }
  return EM_OK;
}

em_err em_case_extract(const em_case *c, const em_mesh_opts *opts, em_mesh **m) {
  em_err err = EM_OK;
  em_group *g = NULL;
  int n_group = 0, n_vol = 0;
  tag_vec tet_tags = {0}, tri_tags = {0}, mid_tags = {0};
  int curved = opts->geometry_order == 2;
  int32_t *tet_group = NULL, *tri_group = NULL, *tet = NULL, *tri = NULL;
  size_t n_tet = 0, n_tri = 0;
  node_table nodes = {0};
  EM_TRY(read_groups(c, &g, &n_group, &n_vol));
  for (int i = 0; i < n_group; i++) {
    int vol = i < n_vol;
    EM_TRY_GOTO(
        err,
        group_elements(c, &g[i], i,
                       vol ? (curved ? TYPE_TET10 : TYPE_TET) : (curved ? TYPE_TRI6 : TYPE_TRI),
                       vol ? &tet_tags : &tri_tags, vol && curved ? &mid_tags : NULL,
                       vol ? &tet_group : &tri_group, vol ? &n_tet : &n_tri),
        done);
  }
  /* edge and face maps index 6 and 4 entries per tet in int32 */
  if (n_tet >= INT32_MAX / 6 || n_tri >= INT32_MAX) {
    err = EM_RAISE(EM_ERR_INPUT, "case '%s': %zu tetrahedra and %zu triangles are too many",
                   c->path, n_tet, n_tri);
    goto done;
  }
  EM_TRY_GOTO(err, read_nodes(c, opts->unit, &tet_tags, &mid_tags, &nodes), done);
  EM_TRY_GOTO(err, em_calloc(&tet, 4 * n_tet, sizeof *tet, "mesh tets"), done);
  EM_TRY_GOTO(err, em_calloc(&tri, 3 * n_tri, sizeof *tri, "group triangles"), done);
  EM_TRY_GOTO(err, map_nodes(c, &nodes, &tet_tags, tet, tet_group, g, 4), done);
  EM_TRY_GOTO(err, map_nodes(c, &nodes, &tri_tags, tri, tri_group, g, 3), done);
  err = em_mesh_from_tets(nodes.n_vert, nodes.xyz, (int32_t)n_tet, tet, tet_group, (int32_t)n_tri,
                          tri, tri_group, n_group, g, opts->reorder, m);
  if (err) { /* the topology's message does not know the file: add it */
    char msg[768];
    snprintf(msg, sizeof msg, "%s", em_error_message());
    err = EM_RAISE(err, "case '%s': %s", c->path, msg);
    goto done;
  }
  (*m)->unit = opts->unit;
  if (curved) { /* tets keep their order in the mesh: mid nodes 6 per tet */
    err = mid_tags.n == 6 * n_tet
              ? em_mesh_attach_midnodes(*m, nodes.xyz, tet, nodes.mid)
              : EM_RAISE(EM_ERR_INPUT, "case '%s': %zu second-order nodes for %zu tets", c->path,
                         mid_tags.n, n_tet);
    if (err) {
      em_mesh_destroy(m);
      goto done;
    }
  }
done:
  for (int i = 0; i < n_group; i++) em_free(&g[i].name);
  em_free(&g);
  em_free(&tet_tags.v);
  em_free(&tri_tags.v);
  em_free(&mid_tags.v);
  em_free(&tet_group);
  em_free(&tri_group);
  em_free(&tet);
  em_free(&tri);
  node_table_free(&nodes);
  return err;
}

/* Generate the 3D mesh of a .geo case with the wavelength sizes (and the
 * size field bg) installed for the duration; a mesh already there (an
 * earlier call, or "Mesh 3;" in the file) is cleared first so that the
 * sizes apply. */
em_err em_case_generate(em_case *c, const em_mesh_opts *opts, em_size_fn bg, void *bg_ctx,
                        const em_log *log) {
  em_err err = EM_OK;
  em_case_size *size = NULL;
  int ierr = 0;
  size_t mark = c->log_mark;
  gmshModelMeshClear(NULL, 0, &ierr);
  if (ierr) return EM_GMSH_RAISE(mark, "case '%s': cannot clear its mesh", c->path);
  if (opts->hxt) { /* HXT (algorithm 10): Gmsh 4.8 caps Mesh.MaxNumThreads3D at the OpenMP
                      count, which stays 1 while Gmsh runs (case_open.c), so one thread */
    gmshOptionSetNumber("Mesh.Algorithm3D", 10, &ierr);
    if (ierr) return EM_GMSH_RAISE(mark, "case '%s': cannot choose the HXT 3D mesher", c->path);
    em_log_info(log,
                "3D mesher: HXT on one thread (not reproducible from run to run: Gmsh 4.8 "
                "orders its points by memory address; --save-mesh keeps a mesh)");
  }
  EM_TRY(em_case_size_install(c, opts, bg, bg_ctx, log, &size)); /* checks the sizing */
  int apart = !opts->hxt && opts->apart > 0;
  if (!opts->hxt && opts->apart == 0) { /* auto: by the size of the mesh */
    double tets = 0, h_min = 0;
    err = em_case_estimate(c, opts, &tets, &h_min);
    omp_set_num_threads(1); /* the estimate gave the caller's back (case_open.c) */
    if (err) {
      em_case_size_clear(&size);
      return err;
    }
    apart = tets >= EM_MESH_APART_TETS;
    if (apart)
      em_log_verbose(log, "surfaces and volumes meshed apart (~%.3g tets expected, >= %.3g)", tets,
                     EM_MESH_APART_TETS);
  }
  double t0 = em_wtime();
  if (apart) { /* curves here, the rest apart (case_apart.c) */
    gmshModelMeshGenerate(1, &ierr);
    if (ierr) err = EM_GMSH_RAISE(mark, "meshing the curves of case '%s' failed", c->path);
    if (!err) err = em_case_mesh_surfaces(c, log);
    if (!err) err = em_case_mesh_volumes(c, log);
  } else { /* Gmsh's own way: all in one call */
    gmshModelMeshGenerate(3, &ierr);
    if (ierr) err = EM_GMSH_RAISE(mark, "meshing case '%s' failed", c->path);
  }
  if (!err && opts->geometry_order == 2) { /* mid-edge nodes on the CAD surfaces */
    gmshModelMeshSetOrder(2, &ierr);
    if (ierr) err = EM_GMSH_RAISE(mark, "case '%s': second-order mesh failed", c->path);
  }
  em_case_size_clear(&size);
  /* Gmsh's messages are kept while it works and forwarded now: first how
     long it took (the log's timestamps are the forwarding's) */
  em_log_verbose(log, "Gmsh meshed in %.2f s; its messages:", em_wtime() - t0);
  em_gmsh_forward_warnings(log, &c->log_mark);
  return err;
}

em_err em_case_mesh(em_case *c, const em_mesh_opts *opts, const em_log *log, em_mesh **m) {
  EM_CHECK(m, EM_ERR_ARG, "em_case_mesh without an output");
  *m = NULL;
  EM_CHECK(c && opts, EM_ERR_ARG, "em_case_mesh without a case or options");
  EM_CHECK(!c->mesh_loaded, EM_ERR_ARG,
           "case '%s': its mesh was loaded from a file (em_case_load_mesh); open the case again "
           "to mesh it",
           c->path);
  EM_CHECK(opts->unit > 0 && isfinite(opts->unit), EM_ERR_INPUT,
           "case '%s': the unit must be > 0 metres, not %g", c->path, opts->unit);
  double t0 = em_wtime();
  omp_set_num_threads(1); /* Gmsh's loops are not thread-safe (case_open.c) */
  em_err err = EM_OK;
  if (c->is_msh) {
    em_log_info(log, "reading the mesh of %s ...", c->name);
    if (opts->elements_per_wavelength > 0)
      em_log_verbose(log,
                     "the mesh of a .msh case is used as it is: no sizes from the "
                     "wavelength");
    if (opts->geometry_order == 2) { /* a .msh has no CAD: straight mid nodes */
      int ierr = 0;
      size_t mark = c->log_mark;
      gmshModelMeshSetOrder(2, &ierr);
      if (ierr) err = EM_GMSH_RAISE(mark, "case '%s': second-order mesh failed", c->path);
    }
  } else {
    em_log_info(log, "meshing %s ...", c->name);
    err = em_case_generate(c, opts, NULL, NULL, log);
    if (!err) em_log_info(log, "meshed %s in %.2f s", c->name, em_wtime() - t0);
  }
  if (!err) err = em_case_extract(c, opts, m);
  em_case_restore_threads(c);
  EM_TRY(err);
  em_mesh_stats s;
  em_mesh_stats_compute(*m, &s);
  em_log_info(log,
              "mesh: %d tets, %d vertices, %d edges, %d faces; quality min %.3f mean %.3f; "
              "h %.3g .. %.3g mm",
              s.n_tet, s.n_vert, s.n_edge, s.n_face, s.q_min, s.q_mean, s.h_min * 1e3,
              s.h_max * 1e3);
  return EM_OK;
}
