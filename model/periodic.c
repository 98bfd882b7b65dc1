/* periodic.c - periodic boundaries with a Floquet phase (docs/physics.md).
 *
 * A pair of planar surface groups, master and slave = master translated by
 * d (Boundary/<master>/periodic = "<slave>"; the mesh periodic: Gmsh's
 * Periodic Surface), up to three pairs.  The field obeys
 *   E(x + d) = E(x) exp(-j k_t . d)
 * with k_t the Floquet wavevector (a plane wave's own; the scan direction
 * with ports).  The DOFs of the slave side are those of the master side
 * times the phase: with P the map from the reduced unknowns to all of them
 * (x_k = p_k x_red[r(k)], p_k = exp(-j k_t . s_k), s_k the lattice shift of
 * DOF k from its root), the Galerkin test functions satisfy the conjugate
 * condition (their slave side is 1 / p = conj(p) of the master's, so that
 * the boundary terms of the two sides cancel), and the reduced system is
 *   A_red = P^H A P,   b_red = P^H b,
 * A the assembled matrix of the whole mesh with the periodic faces natural.
 * A_red is not complex symmetric for k_t != 0 (A(k_t)^T = A(-k_t)): a
 * Krylov method for general matrices solves it (the direct factor, used as
 * the preconditioner, takes its symmetric part).
 *
 * The slave DOF of a slot maps to the master DOF of the same slot only
 * when the translation keeps the order of the vertex ids (the hierarchical
 * basis is oriented by them): em_periodic_mesh renumbers the vertices by
 * (id of the root image, id), which does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "em_model.h"

#include "periodic_impl.h"

static em_err group_plane(const em_mesh *m, int g, double c[3], double n[3], double *area) {
  double acc[3] = {0, 0, 0}, ref[3] = {0, 0, 0};
  *area = 0;
  c[0] = c[1] = c[2] = 0;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != g) continue;
    const double *p0 = m->xyz + 3 * (size_t)m->tri[3 * k],
                 *p1 = m->xyz + 3 * (size_t)m->tri[3 * k + 1],
                 *p2 = m->xyz + 3 * (size_t)m->tri[3 * k + 2];
    double e1[3], e2[3], t[3];
    for (int d = 0; d < 3; d++) e1[d] = p1[d] - p0[d], e2[d] = p2[d] - p0[d];
    t[0] = e1[1] * e2[2] - e1[2] * e2[1];
    t[1] = e1[2] * e2[0] - e1[0] * e2[2];
    t[2] = e1[0] * e2[1] - e1[1] * e2[0];
    if (ref[0] == 0 && ref[1] == 0 && ref[2] == 0) memcpy(ref, t, sizeof t);
    double sg = t[0] * ref[0] + t[1] * ref[1] + t[2] * ref[2] >= 0 ? 1 : -1;
    double A = 0.5 * sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    *area += A;
    for (int d = 0; d < 3; d++) {
      acc[d] += sg * t[d];
      c[d] += A * (p0[d] + p1[d] + p2[d]) / 3;
    }
  }
  EM_CHECK(*area > 0, EM_ERR_INPUT, "periodic group '%s' has no triangles", m->group[g].name);
  double nn = sqrt(acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2]);
  for (int d = 0; d < 3; d++) c[d] /= *area, n[d] = acc[d] / nn;
  double dev = 0;
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] != g) continue;
    for (int a = 0; a < 3; a++) {
      const double *p = m->xyz + 3 * (size_t)m->tri[3 * k + a];
      dev = fmax(dev, fabs((p[0] - c[0]) * n[0] + (p[1] - c[1]) * n[1] + (p[2] - c[2]) * n[2]));
    }
  }
  EM_CHECK(dev <= 1e-6 * sqrt(*area), EM_ERR_INPUT,
           "periodic group '%s' is not planar (a vertex %g m off its plane)", m->group[g].name,
           dev);
  return EM_OK;
}

em_err em_periodic_create(const em_case *c, const em_mesh *m, em_periodic **out) {
  *out = NULL;
  em_periodic *p = NULL;
  em_err err = EM_OK;
  for (int g = 0; g < m->n_group; g++) {
    if (m->group[g].dim != 2) continue;
    char name[256];
    const char *partner;
    int k = snprintf(name, sizeof name, "Boundary/%s/periodic", m->group[g].name);
    if (k <= 0 || (size_t)k >= sizeof name || !em_case_param_find(c, name)) continue;
    EM_TRY_GOTO(err, em_case_string(c, name, &partner), fail);
    if (!partner || !partner[0]) continue;
    if (!p) EM_TRY(em_calloc(&p, 1, sizeof *p, "periodic boundaries"));
    if (p->n_pair >= MAX_PAIR) {
      err = EM_RAISE(EM_ERR_INPUT, "%s: at most %d periodic pairs", name, MAX_PAIR);
      goto fail;
    }
    int s = em_mesh_group_find(m, partner, 2);
    if (s < 0 || s == g) {
      err =
          EM_RAISE(EM_ERR_INPUT, "%s = '%s': not another surface group of the case", name, partner);
      goto fail;
    }
    double cm[3], nm[3], am, cs[3], ns[3], as;
    EM_TRY_GOTO(err, group_plane(m, g, cm, nm, &am), fail);
    EM_TRY_GOTO(err, group_plane(m, s, cs, ns, &as), fail);
    double cross = fabs(nm[0] * ns[0] + nm[1] * ns[1] + nm[2] * ns[2]);
    if (cross < 1 - 1e-9 || fabs(am - as) > 1e-6 * am) {
      err = EM_RAISE(EM_ERR_INPUT,
                     "%s: '%s' and '%s' are not translates (normals %.6g apart, areas %g and %g "
                     "m^2)",
                     name, m->group[g].name, partner, 1 - cross, am, as);
      goto fail;
    }
    int i = p->n_pair++;
    p->master[i] = g;
    p->slave[i] = s;
    for (int d = 0; d < 3; d++) p->d[i][d] = cs[d] - cm[d];
  }
  *out = p;
  return EM_OK;
fail:
  em_periodic_destroy(&p);
  return err;
}

void em_periodic_destroy(em_periodic **pp) {
  em_periodic *p = *pp;
  if (!p) return;
  for (int i = 0; i < MAX_PAIR; i++) em_free(&p->vimg[i]);
  em_direct_destroy(&p->F);
  em_free(&p->red);
  em_free(&p->shift);
  em_free(pp);
}

int em_periodic_pairs(const em_periodic *p) {
  return p ? p->n_pair : 0;
}

typedef struct {
  double x[3];
  int32_t v;
} vrec;

static int vrec_cmp(const void *a, const void *b) {
  const vrec *u = a, *w = b;
  return (u->x[0] > w->x[0]) - (u->x[0] < w->x[0]);
}

/* vpar of every vertex of the slave groups: the master vertex at x - d
 * (tolerance 1e-9 of the mesh size); every slave vertex must have one. */
static em_err match_vertices(em_periodic *p, const em_mesh *m) {
  em_err err = EM_OK;
  vrec *r = NULL;
  uint8_t *on = NULL;
  p->n_vert = m->n_vert;
  for (int i = 0; i < p->n_pair; i++) {
    em_free(&p->vimg[i]);
    EM_TRY(em_calloc(&p->vimg[i], (size_t)m->n_vert, sizeof *p->vimg[i], "periodic vertices"));
    for (int32_t v = 0; v < m->n_vert; v++) p->vimg[i][v] = -1;
  }
  double size = 0;
  for (int i = 0; i < p->n_pair; i++)
    size = fmax(size,
                sqrt(p->d[i][0] * p->d[i][0] + p->d[i][1] * p->d[i][1] + p->d[i][2] * p->d[i][2]));
  double tol = 1e-9 * size + 1e-15;
  EM_TRY_GOTO(err, em_calloc(&on, (size_t)m->n_vert, 1, "periodic vertices"), done);
  EM_TRY_GOTO(err, em_calloc(&r, (size_t)m->n_vert + 1, sizeof *r, "periodic vertices"), done);
  for (int i = 0; i < p->n_pair; i++) {
    memset(on, 0, (size_t)m->n_vert);
    int32_t n = 0;
    for (int32_t k = 0; k < m->n_tri; k++)
      if (m->tri_group[k] == p->master[i])
        for (int a = 0; a < 3; a++) on[m->tri[3 * k + a]] = 1;
    for (int32_t v = 0; v < m->n_vert; v++)
      if (on[v]) {
        memcpy(r[n].x, m->xyz + 3 * (size_t)v, sizeof r[n].x);
        r[n++].v = v;
      }
    qsort(r, (size_t)n, sizeof *r, vrec_cmp);
    memset(on, 0, (size_t)m->n_vert);
    for (int32_t k = 0; k < m->n_tri; k++)
      if (m->tri_group[k] == p->slave[i])
        for (int a = 0; a < 3; a++) on[m->tri[3 * k + a]] = 1;
    for (int32_t v = 0; v < m->n_vert; v++) {
      if (!on[v]) continue;
      double x[3];
      for (int d = 0; d < 3; d++) x[d] = m->xyz[3 * (size_t)v + d] - p->d[i][d];
      int32_t lo = 0, hi = n; /* first record with x[0] >= x - tol */
      while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (r[mid].x[0] < x[0] - tol)
          lo = mid + 1;
        else
          hi = mid;
      }
      int32_t hit = -1;
      for (int32_t q = lo; q < n && r[q].x[0] <= x[0] + tol && hit < 0; q++)
        if (fabs(r[q].x[1] - x[1]) <= tol && fabs(r[q].x[2] - x[2]) <= tol) hit = r[q].v;
      if (hit < 0) {
        err = EM_RAISE(EM_ERR_INPUT,
                       "periodic pair '%s' -> '%s': the vertex (%g, %g, %g) m has no image on "
                       "'%s' (mesh it periodic: Periodic Surface{...} = {...} Translate{...})",
                       m->group[p->master[i]].name, m->group[p->slave[i]].name, x[0] + p->d[i][0],
                       x[1] + p->d[i][1], x[2] + p->d[i][2], m->group[p->master[i]].name);
        goto done;
      }
      p->vimg[i][v] = hit;
    }
  }
done:
  em_free(&on);
  em_free(&r);
  return err;
}

/* root image of vertex v (the images taken pair by pair, the lowest
 * first: every order reaches the same corner) and the lattice shift */
static int32_t vroot(const em_periodic *p, int32_t v, int shift[3]) {
  shift[0] = shift[1] = shift[2] = 0;
  for (int hop = 0; hop < 64; hop++) {
    int i = 0;
    while (i < p->n_pair && p->vimg[i][v] < 0) i++;
    if (i == p->n_pair) break;
    shift[i]++;
    v = p->vimg[i][v];
  }
  return v;
}

typedef struct {
  int32_t root, v;
} okey;

static int okey_cmp(const void *a, const void *b) {
  const okey *u = a, *w = b;
  if (u->root != w->root) return (u->root > w->root) - (u->root < w->root);
  return (u->v > w->v) - (u->v < w->v);
}

em_err em_periodic_mesh(em_periodic *p, const em_mesh *m, em_mesh **out) {
  *out = NULL;
  em_err err = EM_OK;
  okey *key = NULL;
  int32_t *newid = NULL, *tet = NULL, *tri = NULL;
  double *xyz = NULL, *mid = NULL;
  EM_TRY(match_vertices(p, m));
  EM_TRY_GOTO(err, em_calloc(&key, (size_t)m->n_vert, sizeof *key, "periodic order"), done);
  EM_TRY_GOTO(err, em_calloc(&newid, (size_t)m->n_vert, sizeof *newid, "periodic order"), done);
  for (int32_t v = 0; v < m->n_vert; v++) {
    int s[3];
    key[v].root = vroot(p, v, s);
    key[v].v = v;
  }
  qsort(key, (size_t)m->n_vert, sizeof *key, okey_cmp);
  for (int32_t i = 0; i < m->n_vert; i++) newid[key[i].v] = i;
  EM_TRY_GOTO(err, em_calloc(&xyz, 3 * (size_t)m->n_vert, sizeof *xyz, "periodic mesh"), done);
  EM_TRY_GOTO(err, em_calloc(&tet, 4 * (size_t)m->n_tet, sizeof *tet, "periodic mesh"), done);
  EM_TRY_GOTO(err, em_calloc(&tri, 3 * (size_t)m->n_tri + 1, sizeof *tri, "periodic mesh"), done);
  for (int32_t v = 0; v < m->n_vert; v++)
    memcpy(xyz + 3 * (size_t)newid[v], m->xyz + 3 * (size_t)v, 3 * sizeof *xyz);
  for (size_t k = 0; k < 4 * (size_t)m->n_tet; k++) tet[k] = newid[m->tet[k]];
  for (size_t k = 0; k < 3 * (size_t)m->n_tri; k++) tri[k] = newid[m->tri[k]];
  EM_TRY_GOTO(err,
              em_mesh_from_tets(m->n_vert, xyz, m->n_tet, tet, m->tet_group, m->n_tri, tri,
                                m->tri_group, m->n_group, m->group, 0, out),
              done);
  (*out)->unit = m->unit;
  if (m->edge_mid) { /* curved: the mid nodes in Gmsh's 10-node order of tet[] */
    static const int GE[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
    EM_TRY_GOTO(err, em_calloc(&mid, 18 * (size_t)m->n_tet, sizeof *mid, "periodic mesh"), done);
    for (int32_t t = 0; t < m->n_tet; t++)
      for (int k = 0; k < 6; k++) {
        int a = GE[k][0], b = GE[k][1], le = 0;
        if (a > b) a ^= b, b ^= a, a ^= b;
        while (EM_TET_EDGE[le][0] != a || EM_TET_EDGE[le][1] != b) le++;
        int32_t e = m->tet_edge[6 * (size_t)t + le];
        memcpy(mid + 18 * (size_t)t + 3 * k, m->edge_mid + 3 * (size_t)e, 3 * sizeof *mid);
      }
    EM_TRY_GOTO(err, em_mesh_attach_midnodes(*out, xyz, tet, mid), done);
  }
  EM_TRY_GOTO(err, match_vertices(p, *out), done);
done:
  if (err) em_mesh_destroy(out);
  em_free(&key);
  em_free(&newid);
  em_free(&xyz);
  em_free(&tet);
  em_free(&tri);
  em_free(&mid);
  return err;
}

static int32_t find_edge(const em_mesh *m, int32_t a, int32_t b) {
  int32_t lo = 0, hi = m->n_edge - 1;
  while (lo <= hi) {
    int32_t mid = (lo + hi) / 2;
    const int32_t *e = m->edge + 2 * (size_t)mid;
    int c = e[0] != a ? (e[0] > a) - (e[0] < a) : (e[1] > b) - (e[1] < b);
    if (!c) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int32_t find_face(const em_mesh *m, const int32_t v[3]) {
  int32_t lo = 0, hi = m->n_face - 1;
  while (lo <= hi) {
    int32_t mid = (lo + hi) / 2;
    const int32_t *f = m->face + 3 * (size_t)mid;
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

/* parent[c_s] = c_m for the slots of one slave entity and its master */
static em_err link(int32_t cs, int32_t cm, int pair, int32_t *parent, int8_t *ppair,
                   const char *what) {
  if (cs < 0 && cm < 0) return EM_OK; /* both fixed (PEC at the pair's rim) */
  EM_CHECK(cs >= 0 && cm >= 0, EM_ERR_INPUT,
           "periodic boundary: a %s is fixed (PEC) on one side of the pair and free on the other",
           what);
  parent[cs] = cm;
  ppair[cs] = (int8_t)pair;
  return EM_OK;
}

em_err em_periodic_dofs(em_periodic *p, const em_mesh *m, const em_dofmap *d) {
  EM_CHECK(p->n_vert == m->n_vert && p->vimg[0], EM_ERR_ARG,
           "periodic: the DOF map's mesh is not the periodic mesh");
  int32_t n = d->n_dof, *parent = NULL;
  int8_t *ppair = NULL;
  em_err err = EM_OK;
  int ne = d->order, nf = d->order * (d->order - 1);
  em_free(&p->red);
  em_free(&p->shift);
  p->n_full = n;
  EM_TRY(em_calloc(&parent, (size_t)n + 1, sizeof *parent, "periodic DOFs"));
  EM_TRY_GOTO(err, em_calloc(&ppair, (size_t)n + 1, 1, "periodic DOFs"), done);
  EM_TRY_GOTO(err, em_calloc(&p->red, (size_t)n + 1, sizeof *p->red, "periodic DOFs"), done);
  EM_TRY_GOTO(err, em_calloc(&p->shift, 3 * (size_t)n + 3, 1, "periodic DOFs"), done);
  for (int32_t k = 0; k < n; k++) parent[k] = -1;
  for (int32_t k = 0; k < m->n_tri; k++) {
    int pair = -1;
    for (int i = 0; i < p->n_pair; i++)
      if (m->tri_group[k] == p->slave[i]) pair = i;
    if (pair < 0) continue;
    const int32_t *sv = m->face + 3 * (size_t)m->tri_face[k];
    int32_t mv[3];
    for (int a = 0; a < 3; a++) {
      mv[a] = sv[a];
      /* the image through this pair (a rim vertex may be a slave of another pair too) */
      if (p->vimg[pair][sv[a]] >= 0) {
        mv[a] = p->vimg[pair][sv[a]];
      } else {
        err = EM_RAISE(EM_ERR_INTERNAL, "periodic: vertex %d of a slave face has no image", sv[a]);
        goto done;
      }
    }
    for (int a = 0; a < 2; a++)
      if (mv[a] >= mv[a + 1]) {
        err = EM_RAISE(EM_ERR_INTERNAL, "periodic: the translation does not keep vertex order");
        goto done;
      }
    int32_t fm = find_face(m, mv), fs = m->tri_face[k];
    if (fm < 0) {
      const double *x = m->xyz + 3 * (size_t)sv[0];
      err =
          EM_RAISE(EM_ERR_INPUT,
                   "periodic pair '%s' -> '%s': the face at (%g, %g, %g) m has no image face "
                   "(mesh it periodic: Periodic Surface)",
                   m->group[p->master[pair]].name, m->group[p->slave[pair]].name, x[0], x[1], x[2]);
      goto done;
    }
    for (int s = 0; s < nf; s++)
      EM_TRY_GOTO(err,
                  link(d->face_dof[(size_t)fs * nf + s], d->face_dof[(size_t)fm * nf + s], pair,
                       parent, ppair, "face"),
                  done);
    static const int FE[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int e = 0; e < 3; e++) {
      int32_t es = find_edge(m, sv[FE[e][0]], sv[FE[e][1]]),
              em = find_edge(m, mv[FE[e][0]], mv[FE[e][1]]);
      if (es < 0 || em < 0) {
        err = EM_RAISE(EM_ERR_INTERNAL, "periodic: an edge of a face is missing");
        goto done;
      }
      for (int s = 0; s < ne; s++)
        EM_TRY_GOTO(err,
                    link(d->edge_dof[(size_t)es * ne + s], d->edge_dof[(size_t)em * ne + s], pair,
                         parent, ppair, "edge"),
                    done);
    }
  }
  /* roots, shifts, the reduced numbering (ascending, so groups stay whole) */
  p->n_red = 0;
  for (int32_t k = 0; k < n; k++) {
    int32_t r = k;
    int8_t *sh = p->shift + 3 * (size_t)k;
    for (int hop = 0; parent[r] >= 0; hop++) {
      if (hop > 8) {
        err = EM_RAISE(EM_ERR_INPUT,
                       "periodic: the pairs chain in a loop (a group is the "
                       "master of one pair and the slave of another?)");
        goto done;
      }
      sh[ppair[r]]++;
      r = parent[r];
    }
    p->red[k] = r == k ? p->n_red++ : -1 - r;
  }
  for (int32_t k = 0; k < n; k++)
    if (p->red[k] < 0) p->red[k] = p->red[-1 - p->red[k]];
done:
  em_free(&parent);
  em_free(&ppair);
  return err;
}

void em_periodic_set_k(em_periodic *p, const double kdir[3]) {
  memcpy(p->kdir, kdir, sizeof p->kdir);
}

int32_t em_periodic_n_red(const em_periodic *p) {
  return p->n_red;
}

/* p_k = exp(-j k_t . sum_i shift_i d_i) */
em_cplx em_periodic_phase(const em_periodic *p, double k0, int32_t k) {
  double s = 0;
  for (int i = 0; i < p->n_pair; i++)
    for (int c = 0; c < 3; c++) s += p->shift[3 * (size_t)k + i] * p->d[i][c] * p->kdir[c];
  return cexp(-I * k0 * s);
}
