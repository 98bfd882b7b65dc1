/* nf2ff.c - the closed surface of the near-to-far-field transform and the
 * equivalent currents on it (formulas in em_post.h, docs/farfield.md). */
#include <math.h>
#include <string.h>

#include "em_post.h"

static const char *surface_name(const em_mesh *m, const em_nf2ff_opts *o) {
  return o->group >= 0 ? m->group[o->group].name : "the boundary of the non-PML region";
}

static int is_pml(const em_mesh *m, const em_nf2ff_opts *o, int32_t t) {
  return o->medium[m->tet_group[t]].is_pml;
}

static void tet_centroid(const em_mesh *m, int32_t t, double c[3]) {
  c[0] = c[1] = c[2] = 0;
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) c[d] += 0.25 * m->xyz[3 * (size_t)m->tet[4 * t + a] + d];
}

/* Exterior face f lies on a side of the mesh's bounding box. */
static int on_bbox(const em_mesh *m, const double bb[6], int32_t f) {
  double size = fmax(bb[1] - bb[0], fmax(bb[3] - bb[2], bb[5] - bb[4])), tol = 1e-9 * size;
  for (int d = 0; d < 3; d++)
    for (int side = 0; side < 2; side++) {
      int all = 1;
      for (int a = 0; a < 3; a++)
        all &= fabs(m->xyz[3 * (size_t)m->face[3 * f + a] + d] - bb[2 * d + side]) <= tol;
      if (all) return 1;
    }
  return 0;
}

static void bbox(const em_mesh *m, double bb[6]) {
  for (int d = 0; d < 3; d++) bb[2 * d] = INFINITY, bb[2 * d + 1] = -INFINITY;
  for (int32_t v = 0; v < m->n_vert; v++)
    for (int d = 0; d < 3; d++) {
      bb[2 * d] = fmin(bb[2 * d], m->xyz[3 * (size_t)v + d]);
      bb[2 * d + 1] = fmax(bb[2 * d + 1], m->xyz[3 * (size_t)v + d]);
    }
}

/* side[t] = 1 for tets outside a surface group: reached from the PML tets
 * (or from tets with a face on the outer bounding box) through faces that
 * are not in the group. */
static em_err outside_of_group(const em_mesh *m, const em_nf2ff_opts *o, uint8_t *side) {
  em_err err = EM_OK;
  uint8_t *cut = NULL;
  int32_t *queue = NULL;
  EM_TRY(em_calloc(&cut, (size_t)m->n_face, 1, "NF2FF surface"));
  EM_TRY_GOTO(err, em_calloc(&queue, (size_t)m->n_tet + 1, sizeof *queue, "NF2FF surface"), done);
  for (int32_t k = 0; k < m->n_tri; k++)
    if (m->tri_group[k] == o->group) cut[m->tri_face[k]] = 1;
  int any_pml = 0;
  for (int32_t t = 0; t < m->n_tet && !any_pml; t++) any_pml = is_pml(m, o, t);
  double bb[6];
  bbox(m, bb);
  int32_t head = 0, tail = 0;
  memset(side, 0, (size_t)m->n_tet);
  for (int32_t t = 0; t < m->n_tet; t++) {
    int seed = 0;
    if (any_pml) {
      seed = is_pml(m, o, t);
    } else {
      for (int lf = 0; lf < 4 && !seed; lf++) {
        int32_t f = m->tet_face[4 * (size_t)t + lf];
        seed = m->face_tet[2 * f + 1] < 0 && !cut[f] && on_bbox(m, bb, f);
      }
    }
    if (seed) side[t] = 1, queue[tail++] = t;
  }
  while (head < tail) {
    int32_t t = queue[head++];
    for (int lf = 0; lf < 4; lf++) {
      int32_t f = m->tet_face[4 * (size_t)t + lf];
      if (cut[f]) continue;
      int32_t u = m->face_tet[2 * f] == t ? m->face_tet[2 * f + 1] : m->face_tet[2 * f];
      if (u >= 0 && !side[u]) side[u] = 1, queue[tail++] = u;
    }
  }
done:
  em_free(&cut);
  em_free(&queue);
  return err;
}

/* Is face f of the surface, and which tet is inside (-1: not a face of S)? */
static em_err classify(const em_mesh *m, const em_nf2ff_opts *o, const uint8_t *outside,
                       const uint8_t *in_group, int any_pml, const double bb[6], int32_t f,
                       int32_t *inside) {
  int32_t a = m->face_tet[2 * f], b = m->face_tet[2 * f + 1];
  *inside = -1;
  if (o->group >= 0) {
    if (!in_group[f]) return EM_OK;
    const double *v = m->xyz + 3 * (size_t)m->face[3 * f];
    EM_CHECK(b >= 0, EM_ERR_INPUT,
             "NF2FF surface '%s' has a face on the outer boundary of the mesh (near (%g, %g, "
             "%g) m): the surface must lie inside the domain",
             m->group[o->group].name, v[0], v[1], v[2]);
    EM_CHECK(outside[a] != outside[b], EM_ERR_INPUT,
             "NF2FF surface '%s' is not closed: the face near (%g, %g, %g) m has the %s on both "
             "sides",
             m->group[o->group].name, v[0], v[1], v[2], outside[a] ? "outside" : "inside");
    *inside = outside[a] ? b : a;
    return EM_OK;
  }
  if (any_pml) {
    if (b >= 0 && is_pml(m, o, a) != is_pml(m, o, b)) *inside = is_pml(m, o, a) ? b : a;
    return EM_OK;
  }
  if (b < 0 && on_bbox(m, bb, f)) *inside = a;
  return EM_OK;
}

/* Outward unit normal of face f seen from tet t. */
static void face_normal(const em_mesh *m, int32_t f, int32_t t, double n[3]) {
  const double *p0 = m->xyz + 3 * (size_t)m->face[3 * f],
               *p1 = m->xyz + 3 * (size_t)m->face[3 * f + 1],
               *p2 = m->xyz + 3 * (size_t)m->face[3 * f + 2];
  double e1[3], e2[3], c[3], fc[3];
  for (int d = 0; d < 3; d++) {
    e1[d] = p1[d] - p0[d];
    e2[d] = p2[d] - p0[d];
    fc[d] = (p0[d] + p1[d] + p2[d]) / 3;
  }
  n[0] = e1[1] * e2[2] - e1[2] * e2[1];
  n[1] = e1[2] * e2[0] - e1[0] * e2[2];
  n[2] = e1[0] * e2[1] - e1[1] * e2[0];
  double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  tet_centroid(m, t, c);
  double s = (fc[0] - c[0]) * n[0] + (fc[1] - c[1]) * n[1] + (fc[2] - c[2]) * n[2];
  for (int d = 0; d < 3; d++) n[d] *= (s < 0 ? -1 : 1) / nn;
}

/* With mirror planes the model lies on their + side: faces on the other
 * side (or in a plane) are dropped; one that crosses a plane is an error. */
static em_err beyond_mirrors(const em_mesh *m, const em_nf2ff_opts *o, double size, int32_t f,
                             int *keep) {
  static const char AX[3] = {'x', 'y', 'z'};
  double tol = 1e-9 * size;
  *keep = 1;
  for (int d = 0; d < 3; d++) {
    if (o->mirror[d] == EM_MIRROR_NONE) continue;
    int above = 0, below = 0;
    for (int a = 0; a < 3; a++) {
      double v = m->xyz[3 * (size_t)m->face[3 * f + a] + d];
      above += v > o->mirror_at[d] + tol;
      below += v < o->mirror_at[d] - tol;
    }
    EM_CHECK(!(above && below), EM_ERR_INPUT,
             "NF2FF: a face of the surface crosses the mirror plane %c = %g m (the model must lie "
             "on the + side of its mirror planes)",
             AX[d], o->mirror_at[d]);
    if (!above) *keep = 0;
  }
  return EM_OK;
}

/* The inside medium must be one and lossless. */
static em_err check_media(const em_mesh *m, const em_nf2ff_opts *o, int32_t n, const int32_t *in) {
  const em_medium *m0 = &o->medium[m->tet_group[in[0]]];
  for (int32_t i = 0; i < n; i++) {
    int g = m->tet_group[in[i]];
    const em_medium *md = &o->medium[g];
    EM_CHECK(!md->is_pml, EM_ERR_INPUT, "NF2FF surface %s: its inside touches the PML '%s'",
             surface_name(m, o), m->group[g].name);
    EM_CHECK(md->eps_r == m0->eps_r && md->mu_r == m0->mu_r, EM_ERR_INPUT,
             "NF2FF surface %s crosses two media ('%s' and '%s'): it must lie in one "
             "homogeneous medium",
             surface_name(m, o), m->group[m->tet_group[in[0]]].name, m->group[g].name);
  }
  EM_CHECK(cimag(m0->eps_r) == 0 && cimag(m0->mu_r) == 0, EM_ERR_INPUT,
           "NF2FF surface %s lies in the lossy medium '%s': the far field needs a lossless one",
           surface_name(m, o), m->group[m->tet_group[in[0]]].name);
  return EM_OK;
}

em_err em_nf2ff_surface(const em_mesh *m, const em_nf2ff_opts *o, int32_t *n_face, int32_t **face,
                        int32_t **in_tet, double **normal) {
  EM_CHECK(m && o && o->medium && n_face && face && in_tet && normal, EM_ERR_ARG,
           "NF2FF surface: NULL argument");
  EM_CHECK(o->group < m->n_group && (o->group < 0 || m->group[o->group].dim == 2), EM_ERR_ARG,
           "NF2FF surface: group %d is not a surface group", o->group);
  *n_face = 0;
  *face = *in_tet = NULL;
  *normal = NULL;
  em_err err = EM_OK;
  uint8_t *outside = NULL, *in_group = NULL;
  int32_t *fl = NULL, *tl = NULL;
  double *nl = NULL, bb[6];
  bbox(m, bb);
  double size = fmax(bb[1] - bb[0], fmax(bb[3] - bb[2], bb[5] - bb[4]));
  int any_pml = 0;
  for (int32_t t = 0; t < m->n_tet && !any_pml; t++) any_pml = is_pml(m, o, t);
  if (o->group >= 0) {
    EM_TRY_GOTO(err, em_calloc(&outside, (size_t)m->n_tet, 1, "NF2FF surface"), done);
    EM_TRY_GOTO(err, em_calloc(&in_group, (size_t)m->n_face, 1, "NF2FF surface"), done);
    EM_TRY_GOTO(err, outside_of_group(m, o, outside), done);
    for (int32_t k = 0; k < m->n_tri; k++)
      if (m->tri_group[k] == o->group) in_group[m->tri_face[k]] = 1;
  }
  int32_t n = 0;
  for (int pass = 0; pass < 2; pass++) {
    n = 0;
    for (int32_t f = 0; f < m->n_face; f++) {
      int32_t t;
      EM_TRY_GOTO(err, classify(m, o, outside, in_group, any_pml, bb, f, &t), done);
      if (t < 0) continue;
      int keep = 1;
      EM_TRY_GOTO(err, beyond_mirrors(m, o, size, f, &keep), done);
      if (!keep) continue;
      if (pass == 1) {
        fl[n] = f;
        tl[n] = t;
        face_normal(m, f, t, nl + 3 * (size_t)n);
      }
      n++;
    }
    if (pass == 0) {
      if (!(n > 0)) {
        err = EM_RAISE(EM_ERR_INPUT,
                       "NF2FF surface %s has no faces%s (a far field needs a PML around the "
                       "structure, a closed surface group, or an absorbing outer boundary)",
                       surface_name(m, o),
                       o->mirror[0] || o->mirror[1] || o->mirror[2]
                           ? " on the + side of the mirror planes"
                           : "");
        goto done;
      }
      EM_TRY_GOTO(err, em_calloc(&fl, (size_t)n, sizeof *fl, "NF2FF faces"), done);
      EM_TRY_GOTO(err, em_calloc(&tl, (size_t)n, sizeof *tl, "NF2FF faces"), done);
      EM_TRY_GOTO(err, em_calloc(&nl, 3 * (size_t)n, sizeof *nl, "NF2FF faces"), done);
    }
  }
  EM_TRY_GOTO(err, check_media(m, o, n, tl), done);
  *n_face = n;
  *face = fl;
  *in_tet = tl;
  *normal = nl;
  fl = tl = NULL;
  nl = NULL;
done:
  em_free(&outside);
  em_free(&in_group);
  em_free(&fl);
  em_free(&tl);
  em_free(&nl);
  return err;
}

void em_nf2ff_destroy(em_nf2ff **nf) {
  if (!*nf) return;
  em_free(&(*nf)->x);
  em_free(&(*nf)->J);
  em_free(&(*nf)->M);
  em_free(nf);
}

static void cross_c(const double a[3], const em_cplx b[3], em_cplx c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* One face: points, J = n x H and M = -n x E times the weights, and
 * 1/2 Re (E x H*) . n integrated; a curved face (second-order mesh) with
 * its own points, normal and area element (em_tet_face_at). */
static double face_currents(const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                            const em_cplx *fixed, const em_quad *q, int32_t f, int32_t t,
                            const double n0[3], em_cplx h_of_curl, double *xp, em_cplx *J,
                            em_cplx *M) {
  em_tet_geom g;
  em_tet_geom_make(m, t, &g);
  int lf = em_tet_local_face(m, t, f);
  double power = 0;
  for (int k = 0; k < q->n; k++) {
    double lam[4], grad[4][3], da, n[3];
    em_tet_face_at(&g, lf, q->lam + 3 * k, lam, xp + 3 * k, grad, &da, n, NULL);
    if (!g.curved) memcpy(n, n0, sizeof n); /* the face's own (flat) normal */
    em_cplx E[3], C[3], H[3];
    em_field_eval(m, d, x, fixed, t, lam, E, C);
    for (int c = 0; c < 3; c++) H[c] = h_of_curl * C[c];
    double w = q->w[k] * da;
    em_cplx nH[3], nE[3];
    cross_c(n, H, nH);
    cross_c(n, E, nE);
    for (int c = 0; c < 3; c++) {
      J[3 * k + c] = w * nH[c];
      M[3 * k + c] = -w * nE[c];
    }
    /* (E x H*) . n = E . (H* x n) = -E . conj(n x H) */
    em_cplx s = -(E[0] * conj(nH[0]) + E[1] * conj(nH[1]) + E[2] * conj(nH[2]));
    power += 0.5 * w * creal(s);
  }
  return power;
}

/* The volume form of the transform.  For a radiating E (curl curl E = k^2 E
 * outside the sources) and the plane wave w = q exp(j k r.y), q _|_ r, the
 * field P = curl E x w + E x curl w is divergence-free, so the surface
 * integral of F . q = 1/(4 pi) oint n . P dS does not depend on S; with a
 * cut-off phi (1 inside, 0 on S and beyond) it equals
 *   F . q = -1/(4 pi) int grad(phi) . P dV
 * over the layer where phi varies: the surface currents J dS = n x H dS,
 * M dS = -n x E dS become -grad(phi) x H dV and grad(phi) x E dV at the
 * points of a tet rule.  phi is the P1 function that is 0 at the vertices
 * of S, 1 at the other vertices of the inside tets: the layer is the inside
 * tets that touch S.  A weighted volume average of E and curl E is far less
 * sensitive to the discretisation error of the fields at one surface than
 * the traces are (docs/farfield.md, the large sphere). */
static double tet_currents(const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                           const em_cplx *fixed, const em_quad *q, int32_t t, const uint8_t *zero,
                           em_cplx h_of_curl, double *xp, em_cplx *J, em_cplx *M) {
  em_tet_geom g;
  em_tet_geom_make(m, t, &g);
  double phi[4], power = 0;
  for (int a = 0; a < 4; a++) phi[a] = zero[m->tet[4 * (size_t)t + a]] ? 0 : 1;
  for (int k = 0; k < q->n; k++) {
    double grad[4][3], dv, gp[3] = {0, 0, 0};
    em_tet_geom_at(&g, q->lam + 4 * k, xp + 3 * k, grad, &dv);
    for (int a = 0; a < 4; a++)
      for (int c = 0; c < 3; c++) gp[c] += phi[a] * grad[a][c];
    em_cplx E[3], C[3], H[3], gH[3], gE[3];
    em_field_eval(m, d, x, fixed, t, q->lam + 4 * k, E, C);
    for (int c = 0; c < 3; c++) H[c] = h_of_curl * C[c];
    cross_c(gp, H, gH);
    cross_c(gp, E, gE);
    double w = q->w[k] * dv;
    for (int c = 0; c < 3; c++) {
      J[3 * k + c] = -w * gH[c];
      M[3 * k + c] = w * gE[c];
    }
    /* 1/2 Re oint (E x H*) . n dS -> -1/2 Re int grad(phi) . (E x H*) dV */
    em_cplx s = E[0] * conj(gH[0]) + E[1] * conj(gH[1]) + E[2] * conj(gH[2]);
    power += 0.5 * w * creal(s); /* E . (grad phi x H)* = -grad phi . (E x H*) */
  }
  return power;
}

/* The layer of the volume form: the inside tets (the in_tet of the faces of
 * S and every tet reachable from them without crossing S) that have a
 * vertex on S; zero[v] marks the vertices of S. */
static em_err volume_layer(const em_mesh *m, int32_t nf, const int32_t *face, const int32_t *tin,
                           int shift, const em_medium *medium_of, const em_medium *lay,
                           uint8_t *zero, int32_t **layer, int32_t *n_layer) {
  em_err err = EM_OK;
  uint8_t *cut = NULL, *in = NULL;
  int32_t *queue = NULL;
  size_t ncut = (size_t)(m->n_face > m->n_vert ? m->n_face : m->n_vert);
  EM_TRY(em_calloc(&cut, ncut, 1, "NF2FF layer"));
  EM_TRY_GOTO(err, em_calloc(&in, (size_t)m->n_tet, 1, "NF2FF layer"), done);
  EM_TRY_GOTO(err, em_calloc(&queue, (size_t)m->n_tet + 1, sizeof *queue, "NF2FF layer"), done);
  int32_t head = 0, tail = 0;
  for (int32_t i = 0; i < nf; i++) {
    cut[face[i]] = 1;
    for (int a = 0; a < 3; a++) zero[m->face[3 * (size_t)face[i] + a]] = 1;
    if (!in[tin[i]]) in[tin[i]] = 1, queue[tail++] = tin[i];
  }
  while (head < tail) {
    int32_t t = queue[head++];
    for (int lf = 0; lf < 4; lf++) {
      int32_t f = m->tet_face[4 * (size_t)t + lf];
      if (cut[f]) continue;
      int32_t u = m->face_tet[2 * f] == t ? m->face_tet[2 * f + 1] : m->face_tet[2 * f];
      if (u >= 0 && !in[u] && !medium_of[m->tet_group[u]].is_pml) in[u] = 1, queue[tail++] = u;
    }
  }
  /* the layer one ring of tets in from S: the inside tets that touch S get
     phi = 0 at all their vertices (those next to a PML carry its
     discretisation's error); a ring that would reach the structure (a
     vertex of a boundary face inside the mesh's box, of a tet of another
     medium) is not taken */
  double bb[6];
  bbox(m, bb);
  uint8_t *keep = NULL;
  EM_TRY_GOTO(err, em_calloc(&keep, (size_t)m->n_vert, 1, "NF2FF layer"), done);
  for (int ring = 0; ring < shift; ring++) {
    memcpy(keep, zero, (size_t)m->n_vert);
    uint8_t *grow = cut; /* reused as a vertex mark (sized for both) */
    memset(grow, 0, ncut);
    for (int32_t k = 0; k < tail; k++) {
      int32_t t = queue[k], touch = 0;
      for (int a = 0; a < 4; a++) touch |= zero[m->tet[4 * (size_t)t + a]];
      if (touch)
        for (int a = 0; a < 4; a++) grow[m->tet[4 * (size_t)t + a]] = 1;
    }
    for (int32_t v = 0; v < m->n_vert; v++) zero[v] |= grow[v];
    int bad = 0;
    for (int32_t f = 0; f < m->n_face && !bad; f++)
      if (m->face_tet[2 * f + 1] < 0 && !on_bbox(m, bb, f))
        for (int a = 0; a < 3; a++) bad |= zero[m->face[3 * (size_t)f + a]];
    for (int32_t t = 0; t < m->n_tet && !bad; t++)
      if (medium_of[m->tet_group[t]].eps_r != lay->eps_r ||
          medium_of[m->tet_group[t]].mu_r != lay->mu_r)
        for (int a = 0; a < 4; a++) bad |= zero[m->tet[4 * (size_t)t + a]];
    if (bad) { /* this ring reaches the structure: the one before */
      memcpy(zero, keep, (size_t)m->n_vert);
      break;
    }
  }
  em_free(&keep);
  int32_t n = 0;
  for (int32_t k = 0; k < tail; k++) {
    int32_t t = queue[k], nz = 0;
    for (int a = 0; a < 4; a++) nz += zero[m->tet[4 * (size_t)t + a]];
    if (nz > 0 && nz < 4) queue[n++] = t; /* phi varies in it */
  }
  *layer = queue;
  *n_layer = n;
  queue = NULL;
done:
  em_free(&cut);
  em_free(&in);
  em_free(&queue);
  return err;
}

em_err em_nf2ff_create(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                       const em_nf2ff_opts *o, em_nf2ff **out) {
  EM_CHECK(m && d && x && o && out, EM_ERR_ARG, "NF2FF: NULL argument");
  EM_CHECK(isfinite(o->k0) && o->k0 > 0, EM_ERR_ARG, "NF2FF: wavenumber %g must be > 0", o->k0);
  for (int d = 0; d < 3; d++)
    EM_CHECK(o->mirror[d] >= EM_MIRROR_NONE && o->mirror[d] <= EM_MIRROR_PMC &&
                 (o->mirror[d] == EM_MIRROR_NONE || isfinite(o->mirror_at[d])),
             EM_ERR_ARG, "NF2FF: mirror plane %d: kind %d at %g m", d, (int)o->mirror[d],
             o->mirror_at[d]);
  EM_CHECK(!o->half_space || o->mirror[2] == EM_MIRROR_PEC, EM_ERR_INPUT,
           "NF2FF: an infinite ground (half space) needs a PEC mirror plane z = const");
  *out = NULL;
  em_err err = EM_OK;
  int32_t nf = 0, *face = NULL, *tin = NULL;
  double *normal = NULL;
  em_nf2ff *r = NULL;
  EM_TRY(em_nf2ff_surface(m, o, &nf, &face, &tin, &normal));
  int deg = 2 * d->order + 2 > 8 || m->edge_mid ? 8 : 2 * d->order + 2;
  em_quad q;
  EM_TRY_GOTO(err, em_quad_tri(deg, &q), done);
  EM_TRY_GOTO(err, em_calloc(&r, 1, sizeof *r, "NF2FF"), done);
  const em_medium *med = &o->medium[m->tet_group[tin[0]]];
  double eps = creal(med->eps_r), mu = creal(med->mu_r);
  if (!(eps > 0 && mu > 0)) {
    err = EM_RAISE(EM_ERR_INPUT, "NF2FF: the medium '%s' on the surface has eps_r %g, mu_r %g",
                   m->group[m->tet_group[tin[0]]].name, eps, mu);
    goto done;
  }
  r->k0 = o->k0;
  r->k = o->k0 * sqrt(eps * mu);
  r->eta = EM_Z0 * sqrt(mu / eps);
  int copies = 1;
  for (int d = 0; d < 3; d++) {
    r->mirror[d] = o->mirror[d];
    r->mirror_at[d] = o->mirror_at[d];
    if (o->mirror[d] != EM_MIRROR_NONE) copies *= 2;
  }
  r->half_space = o->half_space;
  r->n_face = nf;
  int vol = o->volume;
  int32_t *layer = NULL, n_layer = 0;
  uint8_t *zero = NULL;
  em_quad qv;
  if (vol) {
    EM_TRY_GOTO(err, em_quad_tet(o->volume_degree > 0 ? o->volume_degree : 6, &qv), done);
    EM_TRY_GOTO(err, em_calloc(&zero, (size_t)m->n_vert, 1, "NF2FF layer"), done);
    EM_TRY_GOTO(
        err,
        volume_layer(m, nf, face, tin, o->volume_shift, o->medium, med, zero, &layer, &n_layer),
        done);
    for (int32_t i = 0; i < n_layer; i++)
      if (o->medium[m->tet_group[layer[i]]].eps_r != med->eps_r ||
          o->medium[m->tet_group[layer[i]]].mu_r != med->mu_r) {
        err = EM_RAISE(EM_ERR_INPUT,
                       "NF2FF (volume form): the layer of tets inside %s touches '%s', another "
                       "medium: keep the surface one element away from other media",
                       surface_name(m, o), m->group[m->tet_group[layer[i]]].name);
        em_free(&layer);
        em_free(&zero);
        goto done;
      }
    r->n = (int64_t)n_layer * qv.n;
  } else {
    r->n = (int64_t)nf * q.n;
  }
  EM_TRY_GOTO(err, em_calloc(&r->x, 3 * (size_t)r->n, sizeof *r->x, "NF2FF points"), done);
  EM_TRY_GOTO(err, em_calloc(&r->J, 3 * (size_t)r->n, sizeof *r->J, "NF2FF currents"), done);
  EM_TRY_GOTO(err, em_calloc(&r->M, 3 * (size_t)r->n, sizeof *r->M, "NF2FF currents"), done);
  /* H = j curl E / (k0 Z0 mu_r) */
  em_cplx h_of_curl = I / (o->k0 * EM_Z0 * mu);
  /* the power of each tet / face by all threads, added in order: the same
     bits for any number of threads */
  double power = 0, *part = NULL;
  int32_t n_part = vol ? n_layer : nf;
  err = em_calloc(&part, (size_t)n_part + 1, sizeof *part, "NF2FF power");
  if (err) {
    em_free(&layer);
    em_free(&zero);
    goto done;
  }
  if (vol) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int32_t i = 0; i < n_layer; i++) {
      size_t o3 = 3 * (size_t)i * qv.n;
      part[i] = tet_currents(m, d, x, fixed, &qv, layer[i], zero, h_of_curl, r->x + o3, r->J + o3,
                             r->M + o3);
    }
    em_free(&layer);
    em_free(&zero);
  } else {
#pragma omp parallel for schedule(dynamic, 64)
    for (int32_t i = 0; i < nf; i++) {
      size_t o3 = 3 * (size_t)i * q.n;
      part[i] = face_currents(m, d, x, fixed, &q, face[i], tin[i], normal + 3 * (size_t)i,
                              h_of_curl, r->x + o3, r->J + o3, r->M + o3);
    }
  }
  for (int32_t i = 0; i < n_part; i++) power += part[i];
  em_free(&part);
  /* the whole surface: S and its images (the ground's image is not real) */
  r->p_surface = power * (o->half_space ? copies / 2 : copies);
  /* bounding box of S and its images */
  double bb[6] = {INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY, -INFINITY};
  for (int64_t i = 0; i < r->n; i++)
    for (int c = 0; c < 3; c++) {
      double v = r->x[3 * i + c];
      bb[2 * c] = fmin(bb[2 * c], v);
      bb[2 * c + 1] = fmax(bb[2 * c + 1], v);
      if (o->mirror[c] != EM_MIRROR_NONE) {
        double w = 2 * o->mirror_at[c] - v;
        bb[2 * c] = fmin(bb[2 * c], w);
        bb[2 * c + 1] = fmax(bb[2 * c + 1], w);
      }
    }
  for (int c = 0; c < 3; c++) r->centre[c] = 0.5 * (bb[2 * c] + bb[2 * c + 1]);
  double r2 = 0, area = 0;
  for (int64_t i = 0; i < r->n; i++)
    for (int c = 0; c < 3; c++) r->x[3 * i + c] -= r->centre[c];
  for (int c = 0; c < 3; c++) {
    double h = 0.5 * (bb[2 * c + 1] - bb[2 * c]);
    r2 += h * h;
  }
  for (int32_t i = 0; i < nf; i++) {
    const int32_t *fv = m->face + 3 * (size_t)face[i];
    const double *p0 = m->xyz + 3 * (size_t)fv[0], *p1 = m->xyz + 3 * (size_t)fv[1],
                 *p2 = m->xyz + 3 * (size_t)fv[2];
    double e1[3], e2[3];
    for (int c = 0; c < 3; c++) e1[c] = p1[c] - p0[c], e2[c] = p2[c] - p0[c];
    double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
           cz = e1[0] * e2[1] - e1[1] * e2[0];
    area += 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
  }
  r->radius = sqrt(r2);
  r->area = area;
  if (!(isfinite(power))) {
    err = EM_RAISE(EM_ERR_NUMERIC,
                   "NF2FF: the fields on the surface are not finite (did the solve fail?)");
    goto done;
  }
  *out = r;
  r = NULL;
done:
  em_nf2ff_destroy(&r);
  em_free(&face);
  em_free(&tin);
  em_free(&normal);
  return err;
}
