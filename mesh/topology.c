/* topology.c - edges, faces and adjacency of a tet mesh, numbered so that
 * orientation follows ascending global vertex ids (see em_mesh.h). */
#include "em_mesh.h"

#include <stdlib.h>
#include <string.h>

const int EM_TET_EDGE[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
const int EM_TET_FACE[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};

void em_mesh_destroy(em_mesh **m) {
  if (!*m) return;
  em_mesh *M = *m;
  em_free(&M->xyz);
  em_free(&M->tet);
  em_free(&M->tet_group);
  em_free(&M->edge);
  em_free(&M->tet_edge);
  em_free(&M->face);
  em_free(&M->tet_face);
  em_free(&M->face_tet);
  em_free(&M->tri);
  em_free(&M->tri_face);
  em_free(&M->tri_group);
  em_free(&M->edge_mid);
  for (int g = 0; g < M->n_group; g++) em_free(&M->group[g].name);
  em_free(&M->group);
  em_free(m);
}

int em_mesh_group_find(const em_mesh *m, const char *name, int dim) {
  for (int g = 0; g < m->n_group; g++)
    if (m->group[g].dim == dim && !strcmp(m->group[g].name, name)) return g;
  return -1;
}

static void sort_ints(int32_t *v, int n) {
  for (int i = 1; i < n; i++) {
    int32_t x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

/* Vertex graph of the tets as CSR adjacency lists (sorted, no self loops). */
static em_err vertex_graph(int32_t nv, int32_t nt, const int32_t *tet, int64_t **ptr_out,
                           int32_t **adj_out) {
  em_err err = EM_OK;
  int64_t *ptr = NULL;
  int32_t *adj = NULL, *fill = NULL;
  EM_TRY(em_calloc(&ptr, (size_t)nv + 1, sizeof *ptr, "vertex graph"));
  /* over-allocate with duplicates (3 neighbours per vertex per tet) then compact */
  for (int32_t t = 0; t < nt; t++)
    for (int a = 0; a < 4; a++) ptr[tet[4 * t + a] + 1] += 3;
  for (int32_t v = 0; v < nv; v++) ptr[v + 1] += ptr[v];
  EM_TRY_GOTO(err, em_calloc(&adj, (size_t)ptr[nv], sizeof *adj, "vertex graph"), fail);
  EM_TRY_GOTO(err, em_calloc(&fill, (size_t)nv, sizeof *fill, "vertex graph"), fail);
  for (int32_t t = 0; t < nt; t++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++)
        if (a != b) {
          int32_t va = tet[4 * t + a];
          adj[ptr[va] + fill[va]++] = tet[4 * t + b];
        }
  /* sort + unique each list, compacting in place */
  int64_t w = 0;
  for (int32_t v = 0; v < nv; v++) {
    int64_t b = ptr[v], e = ptr[v + 1];
    int32_t *row = adj + b;
    int n = (int)(e - b);
    /* rows are short (~15-30): insertion sort is fine */
    sort_ints(row, n);
    ptr[v] = w;
    for (int k = 0; k < n; k++)
      if (k == 0 || row[k] != row[k - 1]) adj[w++] = row[k];
  }
  ptr[nv] = w;
  em_free(&fill);
  *ptr_out = ptr;
  *adj_out = adj;
  return EM_OK;
fail:
  em_free(&ptr);
  em_free(&adj);
  em_free(&fill);
  return err;
}

typedef struct {
  int32_t v[3];
  int32_t tet, local;
} face_rec;

static int face_cmp(const void *pa, const void *pb) {
  const face_rec *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->v[i] != b->v[i]) return a->v[i] < b->v[i] ? -1 : 1;
  return 0;
}

static int32_t find_face(const em_mesh *m, const int32_t v[3]) {
  int32_t lo = 0, hi = m->n_face - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    const int32_t *f = m->face + 3 * mid;
    int c = 0;
    for (int i = 0; i < 3 && !c; i++) c = (f[i] > v[i]) - (f[i] < v[i]);
    if (!c) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Edges: the upper half (b > a) of the vertex graph, numbered in CSR order,
 * which is lexicographic in (a, b). */
static em_err build_edges(em_mesh *m, const int64_t *ptr, const int32_t *adj) {
  int64_t ne = 0;
  for (int32_t a = 0; a < m->n_vert; a++)
    for (int64_t k = ptr[a]; k < ptr[a + 1]; k++) ne += adj[k] > a;
  EM_CHECK(ne < INT32_MAX, EM_ERR_INPUT, "mesh too large: %lld edges", (long long)ne);
  m->n_edge = (int32_t)ne;
  EM_TRY(em_calloc(&m->edge, 2 * (size_t)ne, sizeof *m->edge, "mesh edges"));
  EM_TRY(em_calloc(&m->tet_edge, 6 * (size_t)m->n_tet, sizeof *m->tet_edge, "mesh edges"));
  int64_t *first = NULL; /* first edge id of vertex a */
  EM_TRY(em_calloc(&first, (size_t)m->n_vert + 1, sizeof *first, "edge index"));
  int32_t e = 0;
  for (int32_t a = 0; a < m->n_vert; a++) {
    first[a] = e;
    for (int64_t k = ptr[a]; k < ptr[a + 1]; k++)
      if (adj[k] > a) {
        m->edge[2 * e] = a;
        m->edge[2 * e + 1] = adj[k];
        e++;
      }
  }
  first[m->n_vert] = e;
  for (int32_t t = 0; t < m->n_tet; t++) {
    for (int le = 0; le < 6; le++) {
      int32_t a = m->tet[4 * t + EM_TET_EDGE[le][0]], b = m->tet[4 * t + EM_TET_EDGE[le][1]];
      int64_t lo = first[a], hi = first[a + 1] - 1, id = -1;
      while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        if (m->edge[2 * mid + 1] == b) {
          id = mid;
          break;
        }
        if (m->edge[2 * mid + 1] < b)
          lo = mid + 1;
        else
          hi = mid - 1;
      }
      m->tet_edge[6 * t + le] = (int32_t)id;
    }
  }
  em_free(&first);
  return EM_OK;
}

static em_err build_faces(em_mesh *m) {
  face_rec *r = NULL;
  size_t n = 4 * (size_t)m->n_tet;
  EM_TRY(em_calloc(&r, n, sizeof *r, "face records"));
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int f = 0; f < 4; f++) {
      face_rec *x = r + 4 * (size_t)t + f;
      for (int i = 0; i < 3; i++) x->v[i] = m->tet[4 * t + EM_TET_FACE[f][i]];
      x->tet = t;
      x->local = f;
    }
  qsort(r, n, sizeof *r, face_cmp);
  int32_t nf = 0;
  for (size_t k = 0; k < n; k++) nf += k == 0 || face_cmp(r + k, r + k - 1) != 0;
  m->n_face = nf;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&m->face, 3 * (size_t)nf, sizeof *m->face, "mesh faces"), done);
  EM_TRY_GOTO(err, em_calloc(&m->face_tet, 2 * (size_t)nf, sizeof *m->face_tet, "mesh faces"),
              done);
  EM_TRY_GOTO(err, em_calloc(&m->tet_face, 4 * (size_t)m->n_tet, sizeof *m->tet_face, "mesh faces"),
              done);
  int32_t f = -1;
  int count = 0;
  for (size_t k = 0; k < n; k++) {
    if (k == 0 || face_cmp(r + k, r + k - 1) != 0) {
      f++;
      count = 0;
      memcpy(m->face + 3 * (size_t)f, r[k].v, sizeof r[k].v);
      m->face_tet[2 * f] = r[k].tet;
      m->face_tet[2 * f + 1] = -1;
    } else if (count == 1) {
      m->face_tet[2 * f + 1] = r[k].tet;
    } else {
      err = EM_RAISE(EM_ERR_INPUT,
                     "non-manifold mesh: face (%d, %d, %d) is shared by more than two tets "
                     "(overlapping volumes?)",
                     r[k].v[0], r[k].v[1], r[k].v[2]);
      goto done;
    }
    count++;
    m->tet_face[4 * r[k].tet + r[k].local] = f;
  }
done:
  em_free(&r);
  return err;
}

static em_err build_tris(em_mesh *m, int32_t n_tri, const int32_t *tri, const int32_t *tri_group,
                         const int32_t *vmap) {
  m->n_tri = n_tri;
  EM_TRY(em_calloc(&m->tri, 3 * (size_t)n_tri, sizeof *m->tri, "group triangles"));
  EM_TRY(em_calloc(&m->tri_face, (size_t)n_tri, sizeof *m->tri_face, "group triangles"));
  EM_TRY(em_calloc(&m->tri_group, (size_t)n_tri, sizeof *m->tri_group, "group triangles"));
  for (int32_t k = 0; k < n_tri; k++) {
    int32_t v[3];
    for (int i = 0; i < 3; i++) {
      EM_CHECK(tri[3 * k + i] >= 0 && tri[3 * k + i] < m->n_vert, EM_ERR_INPUT,
               "triangle %d has vertex %d outside 0..%d", k, tri[3 * k + i], m->n_vert - 1);
      v[i] = vmap ? vmap[tri[3 * k + i]] : tri[3 * k + i];
    }
    sort_ints(v, 3);
    int g = tri_group[k];
    EM_CHECK(g >= 0 && g < m->n_group && m->group[g].dim == 2, EM_ERR_INPUT,
             "triangle %d belongs to group %d, which is not a surface group", k, g);
    int32_t f = find_face(m, v);
    EM_CHECK(f >= 0, EM_ERR_INPUT,
             "surface group '%s': a triangle is not a face of any tet (the surface is not "
             "embedded in the volume mesh)",
             m->group[g].name);
    memcpy(m->tri + 3 * (size_t)k, v, sizeof v);
    m->tri_face[k] = f;
    m->tri_group[k] = g;
  }
  return EM_OK;
}

static em_err check_input(int32_t n_vert, int32_t n_tet, const int32_t *tet,
                          const int32_t *tet_group, int n_group, const em_group *group) {
  for (int32_t t = 0; t < n_tet; t++) {
    for (int a = 0; a < 4; a++) {
      int32_t v = tet[4 * t + a];
      EM_CHECK(v >= 0 && v < n_vert, EM_ERR_INPUT, "tet %d has vertex %d outside 0..%d", t, v,
               n_vert - 1);
      for (int b = 0; b < a; b++)
        EM_CHECK(tet[4 * t + b] != v, EM_ERR_INPUT, "tet %d repeats vertex %d", t, v);
    }
    int g = tet_group[t];
    EM_CHECK(g >= 0 && g < n_group && group[g].dim == 3, EM_ERR_INPUT,
             "tet %d belongs to group %d, which is not a volume group", t, g);
  }
  return EM_OK;
}

em_err em_mesh_from_tets(int32_t n_vert, const double *xyz, int32_t n_tet, const int32_t *tet,
                         const int32_t *tet_group, int32_t n_tri, const int32_t *tri,
                         const int32_t *tri_group, int n_group, const em_group *group, int reorder,
                         em_mesh **out) {
  em_err err = EM_OK;
  em_mesh *m = NULL;
  int64_t *ptr = NULL;
  int32_t *adj = NULL, *vmap = NULL;
  *out = NULL;
  EM_CHECK(n_tet > 0, EM_ERR_INPUT, "the mesh has no tetrahedra");
  EM_TRY(check_input(n_vert, n_tet, tet, tet_group, n_group, group));
  EM_TRY(em_calloc(&m, 1, sizeof *m, "mesh"));
  m->unit = 1.0;
  m->n_vert = n_vert;
  m->n_tet = n_tet;
  m->n_group = n_group;
  EM_TRY_GOTO(err, em_calloc(&m->group, (size_t)n_group, sizeof *m->group, "mesh groups"), fail);
  for (int g = 0; g < n_group; g++) {
    m->group[g] = group[g];
    m->group[g].name = NULL;
    EM_TRY_GOTO(err, em_strdup(&m->group[g].name, group[g].name), fail);
  }
  EM_TRY_GOTO(err, em_calloc(&m->xyz, 3 * (size_t)n_vert, sizeof *m->xyz, "mesh vertices"), fail);
  EM_TRY_GOTO(err, em_calloc(&m->tet, 4 * (size_t)n_tet, sizeof *m->tet, "mesh tets"), fail);
  EM_TRY_GOTO(err, em_calloc(&m->tet_group, (size_t)n_tet, sizeof *m->tet_group, "mesh tets"),
              fail);
  memcpy(m->tet_group, tet_group, (size_t)n_tet * sizeof *tet_group);
  EM_TRY_GOTO(err, vertex_graph(n_vert, n_tet, tet, &ptr, &adj), fail);
  if (reorder) {
    EM_TRY_GOTO(err, em_calloc(&vmap, (size_t)n_vert, sizeof *vmap, "vertex ordering"), fail);
    EM_TRY_GOTO(err, em_order_rcm(n_vert, ptr, adj, vmap), fail);
  }
  for (int32_t v = 0; v < n_vert; v++) {
    int32_t nv = vmap ? vmap[v] : v;
    memcpy(m->xyz + 3 * (size_t)nv, xyz + 3 * (size_t)v, 3 * sizeof *xyz);
  }
  for (int32_t t = 0; t < n_tet; t++) {
    for (int a = 0; a < 4; a++) m->tet[4 * t + a] = vmap ? vmap[tet[4 * t + a]] : tet[4 * t + a];
    sort_ints(m->tet + 4 * (size_t)t, 4);
  }
  if (vmap) { /* the graph must be in the new numbering for the edge pass */
    em_free(&ptr);
    em_free(&adj);
    EM_TRY_GOTO(err, vertex_graph(n_vert, n_tet, m->tet, &ptr, &adj), fail);
  }
  EM_TRY_GOTO(err, build_edges(m, ptr, adj), fail);
  EM_TRY_GOTO(err, build_faces(m), fail);
  EM_TRY_GOTO(err, build_tris(m, n_tri, tri, tri_group, vmap), fail);
  em_free(&ptr);
  em_free(&adj);
  em_free(&vmap);
  *out = m;
  return EM_OK;
fail:
  em_free(&ptr);
  em_free(&adj);
  em_free(&vmap);
  em_mesh_destroy(&m);
  return err;
}
