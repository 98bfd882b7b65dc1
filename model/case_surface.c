/* case_surface.c - surface boundaries of a case's groups: the surface
 * impedance of a good conductor (Boundary/<g>/sigma) and lumped R, L, C
 * sheets (Boundary/<g>/type rlc); their Robin terms and the power they
 * dissipate.  Formulas in em_model.h, docs/physics.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "em_model.h"

/* The conductor's Z_s = (1 + j) K R_s, R_s = sqrt(w mu0 / (2 sigma)) =
 * 1 / (sigma delta), delta = sqrt(2 / (w mu0 sigma)) (exp(+j w t): the wave
 * inside decays as exp(-(1 + j) z / delta), Z = w mu0 / k = (1 + j) R_s).
 * K = 1 + (2/pi) atan(1.4 (D / delta)^2): Hammerstad and Jensen's
 * roughness factor, 1 for a smooth surface and 2 for D >> delta. */
static em_cplx impedance_zs(const em_surface *s, double k0) {
  double w = k0 * EM_C0, mu0 = EM_Z0 / EM_C0;
  double rs = sqrt(w * mu0 / (2 * s->sigma)), delta = sqrt(2 / (w * mu0 * s->sigma));
  double q = s->roughness / delta, K = 1 + (2 / M_PI) * atan(1.4 * q * q);
  return (1 + I) * K * rs;
}

/* Z of the R, L, C element at w = k0 c0: series R + j w L + 1 / (j w C),
 * parallel 1 / (1/R + 1/(j w L) + j w C); a 0 value is absent. */
static em_cplx lumped_z(const em_surface *s, double k0) {
  double w = k0 * EM_C0;
  if (!s->parallel) {
    em_cplx z = s->R + I * w * s->L;
    if (s->C > 0) z += 1 / (I * w * s->C);
    return z;
  }
  em_cplx y = I * w * s->C;
  if (s->R > 0) y += 1 / s->R;
  if (s->L > 0) y += 1 / (I * w * s->L);
  return 1 / y;
}

em_cplx em_surface_sheet(const em_surface *s, double k0, em_cplx *z_elem) {
  if (s->kind == EM_SURFACE_IMPEDANCE) {
    em_cplx z = impedance_zs(s, k0);
    if (z_elem) *z_elem = z;
    return z;
  }
  em_cplx z = lumped_z(s, k0);
  if (z_elem) *z_elem = z;
  return z * s->w / s->l;
}

/* A sheet current J_s = E_t / Z_sheet enters -j k0 Z0 int J . w on the
 * right; moved to the left it is j k0 Z0 / Z_sheet oint E_t . w_t. */
void em_surface_robin(const em_surface *s, double k0, em_robin *r) {
  memset(r, 0, sizeof *r);
  r->group = -1;
  r->faces = s->face;
  r->n_faces = s->n_face;
  r->gamma = I * k0 * EM_Z0 / em_surface_sheet(s, k0, NULL);
  r->dir = s->kind == EM_SURFACE_LUMPED ? s->v : NULL;
}

em_err em_setup_surface_robins(const em_setup *s, double k0, em_robin *rb, int cap, int *n) {
  *n = 0;
  EM_CHECK(s->n_surface <= cap, EM_ERR_INPUT,
           "%d impedance / lumped boundaries: at most %d with the ports and ABC media",
           s->n_surface, cap);
  for (int i = 0; i < s->n_surface; i++) em_surface_robin(&s->surface[i], k0, &rb[i]);
  *n = s->n_surface;
  return EM_OK;
}

/* P = 1/2 Re(E_t . J_s*) = 1/2 Re(1 / Z_sheet) |E_t|^2 per unit area (the
 * power the Robin term takes out of the discrete field), by a triangle
 * rule of degree 2p on each face, E from the tet on the meshed side. */
em_err em_surface_loss(const em_surface *s, const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                       const em_cplx *fixed, double k0, double *p) {
  EM_CHECK(s && m && d && x && p, EM_ERR_ARG, "surface loss: NULL argument");
  double g = creal(1 / em_surface_sheet(s, k0, NULL));
  em_quad q;
  EM_TRY(em_quad_tri(m->edge_mid ? 8 : 2 * d->order, &q));
  double total = 0, *part = NULL; /* the faces' parts added in order: any thread count */
  EM_TRY(em_calloc(&part, (size_t)s->n_face + 1, sizeof *part, "surface loss"));
#pragma omp parallel for schedule(dynamic, 64)
  for (int32_t i = 0; i < s->n_face; i++) {
    int32_t f = s->face[i], t = m->face_tet[2 * (size_t)f];
    int lf = em_tet_local_face(m, t, f);
    em_tet_geom geo; /* a curved face: its own points, normal, area element */
    em_tet_geom_make(m, t, &geo);
    double sum = 0;
    for (int k = 0; k < q.n; k++) {
      double lam[4], xq[3], grad[4][3], da, n[3];
      em_tet_face_at(&geo, lf, q.lam + 3 * k, lam, xq, grad, &da, n, NULL);
      em_cplx E[3];
      em_field_eval(m, d, x, fixed, t, lam, E, NULL);
      double e2s = 0;
      if (s->kind == EM_SURFACE_LUMPED) {
        em_cplx ev = E[0] * s->v[0] + E[1] * s->v[1] + E[2] * s->v[2];
        e2s = creal(ev * conj(ev));
      } else {
        em_cplx en = E[0] * n[0] + E[1] * n[1] + E[2] * n[2];
        for (int c = 0; c < 3; c++) {
          em_cplx et = E[c] - en * n[c];
          e2s += creal(et * conj(et));
        }
      }
      sum += q.w[k] * da * e2s;
    }
    part[i] = 0.5 * g * sum;
  }
  for (int32_t i = 0; i < s->n_face; i++) total += part[i];
  em_free(&part);
  EM_CHECK(isfinite(total), EM_ERR_NUMERIC, "surface '%s': the dissipated power is not finite",
           m->group[s->group].name);
  *p = total;
  return EM_OK;
}

em_err em_setup_surface_loss(const em_setup *s, const em_mesh *m, const em_dofmap *d,
                             const em_cplx *x, const em_cplx *fixed, double k0, int kind,
                             double *p) {
  *p = 0;
  for (int i = 0; i < s->n_surface; i++) {
    if (kind && (int)s->surface[i].kind != kind) continue;
    double pi = 0;
    EM_TRY(em_surface_loss(&s->surface[i], m, d, x, fixed, k0, &pi));
    *p += pi;
  }
  return EM_OK;
}

/* Boundary/<group>/<what>; absent (a caller whose parameter table lacks
 * it): 0, or "auto" / "series" for the strings */
static em_err bparam(const em_case *c, const char *group, const char *what, double *v) {
  char p[256];
  int k = snprintf(p, sizeof p, "Boundary/%s/%s", group, what);
  EM_CHECK(k > 0 && (size_t)k < sizeof p, EM_ERR_INPUT, "group name '%s' is too long", group);
  *v = 0;
  if (!em_case_param_find(c, p)) return EM_OK;
  EM_TRY(em_case_number(c, p, v));
  EM_CHECK(isfinite(*v), EM_ERR_INPUT, "%s = %g is not a finite number", p, *v);
  return EM_OK;
}

static em_err bstring(const em_case *c, const char *group, const char *what, const char **v) {
  char p[256];
  int k = snprintf(p, sizeof p, "Boundary/%s/%s", group, what);
  EM_CHECK(k > 0 && (size_t)k < sizeof p, EM_ERR_INPUT, "group name '%s' is too long", group);
  *v = !strcmp(what, "circuit") ? "series" : !strcmp(what, "periodic") ? "" : "auto";
  if (!em_case_param_find(c, p)) return EM_OK;
  return em_case_string(c, p, v);
}

/* The parameters of surface group g: *kind 0 when it has none. */
static em_err read_surface(const em_case *c, const em_mesh *m, const em_medium *med, int g,
                           em_surface *s, int *kind) {
  const char *name = m->group[g].name, *type, *circ;
  memset(s, 0, sizeof *s);
  s->group = g;
  *kind = 0;
  EM_TRY(bstring(c, name, "type", &type));
  EM_TRY(bparam(c, name, "sigma", &s->sigma));
  EM_TRY(bparam(c, name, "roughness", &s->roughness));
  EM_CHECK(s->sigma >= 0 && s->roughness >= 0, EM_ERR_INPUT,
           "Boundary/%s/sigma = %g S/m and roughness = %g um must be >= 0", name, s->sigma,
           s->roughness);
  s->roughness *= 1e-6;
  if (!strcmp(type, "auto") || !strcmp(type, "impedance")) {
    if (!strcmp(type, "auto") && s->sigma == 0) return EM_OK;
    EM_CHECK(s->sigma > 0, EM_ERR_INPUT,
             "Boundary/%s/type impedance needs a conductivity: set Boundary/%s/sigma (S/m, "
             "copper 5.8e7)",
             name, name);
    s->kind = EM_SURFACE_IMPEDANCE;
    *kind = 1;
    return EM_OK;
  }
  EM_CHECK(!strcmp(type, "rlc"), EM_ERR_INPUT,
           "Boundary/%s/type = '%s': use auto, impedance or rlc", name, type);
  EM_CHECK(s->sigma == 0, EM_ERR_INPUT,
           "Boundary/%s: a lumped rlc sheet takes R, L, C, not sigma (%g S/m)", name, s->sigma);
  s->kind = EM_SURFACE_LUMPED;
  *kind = 2;
  EM_TRY(bparam(c, name, "R", &s->R));
  EM_TRY(bparam(c, name, "L", &s->L));
  EM_TRY(bparam(c, name, "C", &s->C));
  EM_TRY(bstring(c, name, "circuit", &circ));
  EM_CHECK(!strcmp(circ, "series") || !strcmp(circ, "parallel"), EM_ERR_INPUT,
           "Boundary/%s/circuit = '%s': use series or parallel", name, circ);
  s->parallel = !strcmp(circ, "parallel");
  EM_CHECK(s->R >= 0 && s->L >= 0 && s->C >= 0, EM_ERR_INPUT,
           "Boundary/%s: R = %g ohm, L = %g H, C = %g F must be >= 0", name, s->R, s->L, s->C);
  EM_CHECK(s->R > 0 || s->L > 0 || s->C > 0, EM_ERR_INPUT,
           "Boundary/%s/type rlc: all of R, L, C are 0 (%s): give at least one element", name,
           s->parallel ? "an open circuit" : "a short: use a pec group");
  double dir[3];
  EM_TRY(bparam(c, name, "dir_x", &dir[0]));
  EM_TRY(bparam(c, name, "dir_y", &dir[1]));
  EM_TRY(bparam(c, name, "dir_z", &dir[2]));
  em_port geo; /* the lumped port's rectangle: width w across, length l along v */
  EM_TRY(em_port_setup(m, g, EM_PORT_LUMPED, med, dir, &geo));
  memcpy(s->v, geo.v, sizeof s->v);
  s->w = geo.a;
  s->l = geo.b;
  return EM_OK;
}

/* role[f] and the face lists of the surfaces: a surface takes its group's
 * faces unless a port holds them; an impedance lies on the outer boundary
 * of the mesh (the surface of unmeshed metal). */
em_err em_setup_surfaces(const em_case *c, const em_mesh *m, em_setup *s, uint8_t *role) {
  int n = 0;
  for (int g = 0; g < m->n_group; g++) n += m->group[g].dim == 2;
  if (!n) return EM_OK;
  EM_TRY(em_calloc(&s->surface, (size_t)n, sizeof *s->surface, "surface boundaries"));
  int32_t *owner = NULL;
  EM_TRY(em_calloc(&owner, (size_t)m->n_face, sizeof *owner, "surface boundaries"));
  em_err err = EM_OK;
  for (int g = 0; g < m->n_group; g++) { /* the sides of periodic pairs: natural */
    const char *partner;
    if (m->group[g].dim != 2) continue;
    EM_TRY_GOTO(err, bstring(c, m->group[g].name, "periodic", &partner), done);
    if (!partner[0]) continue;
    int q = em_mesh_group_find(m, partner, 2);
    for (int32_t k = 0; k < m->n_tri; k++)
      if ((m->tri_group[k] == g || m->tri_group[k] == q) && role[m->tri_face[k]] != EM_FACE_PEC)
        role[m->tri_face[k]] = EM_FACE_PERIODIC;
  }
  for (int g = 0; g < m->n_group; g++) {
    if (m->group[g].dim != 2) continue;
    em_surface *sf = &s->surface[s->n_surface];
    int kind;
    EM_TRY_GOTO(err, read_surface(c, m, s->medium, g, sf, &kind), done);
    if (!kind) continue;
    s->n_surface++;
    for (int32_t k = 0; k < m->n_tri; k++) {
      int32_t f = m->tri_face[k];
      if (m->tri_group[k] != g || role[f] == EM_FACE_PORT) continue;
      if (owner[f] && owner[f] != g + 1) {
        err = EM_RAISE(EM_ERR_INPUT,
                       "surface groups '%s' and '%s' share a face and both set Boundary/*/sigma "
                       "or type rlc: give each face one surface boundary",
                       m->group[owner[f] - 1].name, m->group[g].name);
        goto done;
      }
      if (kind == 1 && m->face_tet[2 * (size_t)f + 1] >= 0) {
        const double *x = m->xyz + 3 * (size_t)m->face[3 * (size_t)f];
        err = EM_RAISE(EM_ERR_INPUT,
                       "Boundary/%s/sigma: the face near (%g, %g, %g) m has the meshed volume on "
                       "both sides; a surface impedance is the surface of unmeshed metal (a "
                       "hole in the volume mesh), not a sheet inside it",
                       m->group[g].name, x[0], x[1], x[2]);
        goto done;
      }
      if (!owner[f]) sf->n_face++;
      owner[f] = g + 1;
      role[f] = kind == 1 ? EM_FACE_IMPEDANCE : EM_FACE_LUMPED;
    }
    if (!sf->n_face) {
      err = EM_RAISE(EM_ERR_INPUT,
                     "Boundary/%s: the group has no face of its own (all are port faces)",
                     m->group[g].name);
      goto done;
    }
    EM_TRY_GOTO(err, em_calloc(&sf->face, (size_t)sf->n_face, sizeof *sf->face, "surface faces"),
                done);
    int32_t j = 0;
    for (int32_t f = 0; f < m->n_face; f++)
      if (owner[f] == g + 1) sf->face[j++] = f;
  }
done:
  em_free(&owner);
  return err;
}

void em_setup_surfaces_free(em_setup *s) {
  for (int i = 0; i < s->n_surface; i++) em_free(&s->surface[i].face);
  em_free(&s->surface);
  s->n_surface = 0;
}
