/* pack.c - a mesh as one buffer of bytes and back (a distributed solve's
 * rank 0 meshes and sends it to the others, issue 27, docs/mpi.md).
 *
 * Layout (native byte order: the ranks of one run share the build):
 *   header: magic, version, n_vert, n_tet, n_tri, n_group, n_edge,
 *           has_mid, unit
 *   xyz [3 n_vert] double, tet [4 n_tet], tet_group [n_tet], tri [3 n_tri],
 *   tri_group [n_tri] int32, then per group: tag, dim, name length (with
 *   its NUL) int32 and the name; edge_mid [3 n_edge] double when has_mid.
 * The edges and faces are not sent: em_mesh_from_tets builds them again
 * from the tets, already numbered and oriented (no reordering), into the
 * same numbering (the unpacked mesh's edge count is checked). */
#include <string.h>

#include "em_mesh.h"

#define PACK_MAGIC 0x6d656d65 /* "emem" */
#define PACK_VERSION 1

typedef struct pack_head {
  int32_t magic, version, n_vert, n_tet, n_tri, n_group, n_edge, has_mid;
  double unit;
} pack_head;

/* a cursor over the buffer: put copies in (or counts with buf NULL) */
typedef struct cursor {
  char *buf;
  size_t at, n;
} cursor;

static void put(cursor *c, const void *p, size_t bytes) {
  if (c->buf && bytes) memcpy(c->buf + c->at, p, bytes);
  c->at += bytes;
}

static em_err take(cursor *c, void *p, size_t bytes, const char *what) {
  EM_CHECK(bytes <= c->n - c->at, EM_ERR_INPUT,
           "packed mesh: %zu bytes short in its %s (a truncated message?)", bytes - (c->n - c->at),
           what);
  if (bytes) memcpy(p, c->buf + c->at, bytes);
  c->at += bytes;
  return EM_OK;
}

static void put_all(const em_mesh *m, cursor *c) {
  pack_head h = {PACK_MAGIC, PACK_VERSION, m->n_vert,           m->n_tet, m->n_tri,
                 m->n_group, m->n_edge,    m->edge_mid != NULL, m->unit};
  put(c, &h, sizeof h);
  put(c, m->xyz, 3 * (size_t)m->n_vert * sizeof *m->xyz);
  put(c, m->tet, 4 * (size_t)m->n_tet * sizeof *m->tet);
  put(c, m->tet_group, (size_t)m->n_tet * sizeof *m->tet_group);
  put(c, m->tri, 3 * (size_t)m->n_tri * sizeof *m->tri);
  put(c, m->tri_group, (size_t)m->n_tri * sizeof *m->tri_group);
  for (int g = 0; g < m->n_group; g++) {
    int32_t v[3] = {m->group[g].tag, m->group[g].dim, (int32_t)strlen(m->group[g].name) + 1};
    put(c, v, sizeof v);
    put(c, m->group[g].name, (size_t)v[2]);
  }
  if (m->edge_mid) put(c, m->edge_mid, 3 * (size_t)m->n_edge * sizeof *m->edge_mid);
}

em_err em_mesh_pack(const em_mesh *m, void **buf, size_t *bytes) {
  EM_CHECK(m && buf && bytes, EM_ERR_ARG, "em_mesh_pack: NULL argument");
  *buf = NULL;
  cursor c = {NULL, 0, 0};
  put_all(m, &c); /* the size */
  EM_TRY(em_calloc(&c.buf, c.at, 1, "packed mesh"));
  *bytes = c.at;
  c.at = 0;
  put_all(m, &c);
  *buf = c.buf;
  return EM_OK;
}

/* the arrays of the header's sizes, the groups' names allocated */
typedef struct unpacked {
  double *xyz, *mid;
  int32_t *tet, *tet_group, *tri, *tri_group;
  em_group *group;
  int n_group;
} unpacked;

static void unpacked_free(unpacked *u) {
  em_free(&u->xyz), em_free(&u->mid), em_free(&u->tet), em_free(&u->tet_group);
  em_free(&u->tri), em_free(&u->tri_group);
  for (int g = 0; u->group && g < u->n_group; g++) em_free(&u->group[g].name);
  em_free(&u->group);
}

static em_err take_all(cursor *c, const pack_head *h, unpacked *u) {
  EM_TRY(em_calloc(&u->xyz, 3 * (size_t)h->n_vert + 1, sizeof *u->xyz, "packed mesh"));
  EM_TRY(em_calloc(&u->tet, 4 * (size_t)h->n_tet + 1, sizeof *u->tet, "packed mesh"));
  EM_TRY(em_calloc(&u->tet_group, (size_t)h->n_tet + 1, sizeof *u->tet_group, "packed mesh"));
  EM_TRY(em_calloc(&u->tri, 3 * (size_t)h->n_tri + 1, sizeof *u->tri, "packed mesh"));
  EM_TRY(em_calloc(&u->tri_group, (size_t)h->n_tri + 1, sizeof *u->tri_group, "packed mesh"));
  EM_TRY(em_calloc(&u->group, (size_t)h->n_group + 1, sizeof *u->group, "packed mesh"));
  EM_TRY(take(c, u->xyz, 3 * (size_t)h->n_vert * sizeof *u->xyz, "coordinates"));
  EM_TRY(take(c, u->tet, 4 * (size_t)h->n_tet * sizeof *u->tet, "tets"));
  EM_TRY(take(c, u->tet_group, (size_t)h->n_tet * sizeof *u->tet_group, "tet groups"));
  EM_TRY(take(c, u->tri, 3 * (size_t)h->n_tri * sizeof *u->tri, "triangles"));
  EM_TRY(take(c, u->tri_group, (size_t)h->n_tri * sizeof *u->tri_group, "triangle groups"));
  for (int g = 0; g < h->n_group; g++) {
    int32_t v[3];
    EM_TRY(take(c, v, sizeof v, "groups"));
    EM_CHECK(v[2] >= 1 && v[2] <= 4096, EM_ERR_INPUT, "packed mesh: group %d's name of %d bytes", g,
             v[2]);
    u->group[g].tag = v[0], u->group[g].dim = v[1];
    EM_TRY(em_calloc(&u->group[g].name, (size_t)v[2], 1, "group name"));
    u->n_group = g + 1; /* freed from here on */
    EM_TRY(take(c, u->group[g].name, (size_t)v[2], "group names"));
    EM_CHECK(u->group[g].name[v[2] - 1] == '\0', EM_ERR_INPUT,
             "packed mesh: group %d's name is not terminated", g);
  }
  if (h->has_mid) {
    EM_TRY(em_calloc(&u->mid, 3 * (size_t)h->n_edge + 1, sizeof *u->mid, "packed mesh"));
    EM_TRY(take(c, u->mid, 3 * (size_t)h->n_edge * sizeof *u->mid, "mid-edge nodes"));
  }
  EM_CHECK(c->at == c->n, EM_ERR_INPUT, "packed mesh: %zu bytes beyond its end", c->n - c->at);
  return EM_OK;
}

em_err em_mesh_unpack(const void *buf, size_t bytes, em_mesh **out) {
  EM_CHECK(buf && out, EM_ERR_ARG, "em_mesh_unpack: NULL argument");
  *out = NULL;
  cursor c = {(char *)buf, 0, bytes};
  pack_head h;
  EM_TRY(take(&c, &h, sizeof h, "header"));
  EM_CHECK(h.magic == PACK_MAGIC && h.version == PACK_VERSION, EM_ERR_INPUT,
           "packed mesh: not a mesh of this emsolve (magic %x, version %d)", (unsigned)h.magic,
           h.version);
  EM_CHECK(h.n_vert >= 0 && h.n_tet >= 0 && h.n_tri >= 0 && h.n_group >= 0 && h.n_edge >= 0,
           EM_ERR_INPUT, "packed mesh: negative sizes");
  unpacked u;
  memset(&u, 0, sizeof u);
  em_err err = take_all(&c, &h, &u);
  if (!err)
    err = em_mesh_from_tets(h.n_vert, u.xyz, h.n_tet, u.tet, u.tet_group, h.n_tri, u.tri,
                            u.tri_group, h.n_group, u.group, 0, out);
  if (!err && (*out)->n_edge != h.n_edge)
    err = EM_RAISE(EM_ERR_INTERNAL, "packed mesh: %d edges built again, %d sent", (*out)->n_edge,
                   h.n_edge);
  if (!err) {
    (*out)->unit = h.unit;
    (*out)->edge_mid = u.mid, u.mid = NULL; /* the same edge numbering */
  }
  if (err) em_mesh_destroy(out);
  unpacked_free(&u);
  return err;
}
