/* case_setup.c - the case physics: what the case's groups mean.  Media of
 * the volumes (Materials/<group>/...), the PML (volumes named pml*), the
 * ports (surfaces portN, Ports/portN/...) and which faces carry which
 * boundary condition (pec*, pmc*, the exterior: PEC or the first-order
 * ABC).  Everything is checked here, before anything is assembled or
 * written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "em_model.h"

/* s begins with p (group names: pec*, pmc*, pml*). */
static int starts_with(const char *s, const char *p) {
  return !strncmp(s, p, strlen(p));
}

/* N of "portN" (digits only after "port"), 0 for any other name. */
static int port_number(const char *name) {
  if (!starts_with(name, "port") || !name[4]) return 0;
  for (const char *p = name + 4; *p; p++)
    if (*p < '0' || *p > '9') return 0;
  return atoi(name + 4);
}

/* "a/b/c" into buf; a group name too long for it is an input error. */
static em_err param_name(char *buf, size_t n, const char *a, const char *b, const char *c) {
  int k = snprintf(buf, n, "%s/%s/%s", a, b, c);
  EM_CHECK(k > 0 && (size_t)k < n, EM_ERR_INPUT, "group name '%s' is too long", b);
  return EM_OK;
}

/* eps_r = eps (1 - j tan_delta), mu_r from Materials/<name>/...; a PML
 * volume without eps_r keeps vacuum (its stretch does the work). */
em_err em_setup_medium_of(const em_case *c, const char *name, int is_pml, em_medium *med) {
  char p[256];
  double eps = 1, mu = 1, tand = 0;
  EM_TRY(param_name(p, sizeof p, "Materials", name, "eps_r"));
  if (!is_pml || em_case_param_find(c, p)) {
    EM_CHECK(em_case_param_find(c, p), EM_ERR_INPUT,
             "material '%s' has no eps_r: define %s in the case (DefineConstant[ er = {4.5, "
             "Name \"%s\"} ];) or pass -setnumber %s VALUE",
             name, p, p, p);
    EM_TRY(em_case_number(c, p, &eps));
  }
  EM_TRY(param_name(p, sizeof p, "Materials", name, "mu_r"));
  EM_TRY(em_case_number(c, p, &mu));
  EM_TRY(param_name(p, sizeof p, "Materials", name, "tan_delta"));
  EM_TRY(em_case_number(c, p, &tand));
  EM_CHECK(eps > 0 && mu > 0 && tand >= 0, EM_ERR_INPUT,
           "material '%s': need eps_r > 0, mu_r > 0, tan_delta >= 0 (got %g, %g, %g)", name, eps,
           mu, tand);
  med->eps_r = eps * (1 - I * tand);
  med->mu_r = mu;
  med->is_pml = is_pml;
  return EM_OK;
}

/* Refractive index sqrt(|eps_r mu_r|) of a volume for the mesher's local
 * wavelength (ctx: the em_case). */
double em_setup_index_of(void *ctx, const char *group_name) {
  em_medium med;
  if (em_setup_medium_of(ctx, group_name, starts_with(group_name, "pml"), &med)) {
    em_error_clear(); /* reported properly when the media are set up */
    return 1;
  }
  return sqrt(cabs(med.eps_r * med.mu_r));
}

/* The ports port1 .. portN: type, E direction, reference impedance and
 * de-embedding from Ports/portN/..., the geometry from the triangles. */
static em_err setup_ports(const em_case *c, const em_mesh *m, em_setup *s) {
  for (int g = 0; g < m->n_group; g++)
    if (m->group[g].dim == 2 && port_number(m->group[g].name) > 0) s->n_port++;
  if (!s->n_port) return EM_OK;
  EM_TRY(em_calloc(&s->port, (size_t)s->n_port, sizeof *s->port, "ports"));
  for (int i = 1; i <= s->n_port; i++) {
    char name[32];
    snprintf(name, sizeof name, "port%d", i);
    int g = em_mesh_group_find(m, name, 2);
    EM_CHECK(g >= 0, EM_ERR_INPUT,
             "the case has %d port groups but no '%s': number ports port1 .. port%d", s->n_port,
             name, s->n_port);
    char p[256];
    const char *type;
    EM_TRY(param_name(p, sizeof p, "Ports", name, "type"));
    EM_CHECK(em_case_param_find(c, p), EM_ERR_INPUT,
             "%s has no type: define %s (coax, waveguide or lumped)", name, p);
    EM_TRY(em_case_string(c, p, &type));
    em_port_type t;
    if (!strcmp(type, "coax"))
      t = EM_PORT_COAX;
    else if (!strcmp(type, "waveguide"))
      t = EM_PORT_WAVEGUIDE;
    else if (!strcmp(type, "lumped"))
      t = EM_PORT_LUMPED;
    else
      return EM_RAISE(EM_ERR_INPUT, "%s = '%s': use coax, waveguide or lumped", p, type);
    double dir[3], z0, deembed;
    const char *dn[3] = {"dir_x", "dir_y", "dir_z"};
    for (int d = 0; d < 3; d++) {
      EM_TRY(param_name(p, sizeof p, "Ports", name, dn[d]));
      EM_TRY(em_case_number(c, p, &dir[d]));
    }
    EM_TRY(param_name(p, sizeof p, "Ports", name, "z0"));
    EM_TRY(em_case_number(c, p, &z0));
    EM_CHECK(z0 >= 0, EM_ERR_INPUT, "%s = %g ohm must be >= 0", p, z0);
    EM_TRY(param_name(p, sizeof p, "Ports", name, "deembed"));
    EM_TRY(em_case_number(c, p, &deembed));
    em_port *pt = &s->port[i - 1];
    EM_TRY(em_port_setup(m, g, t, s->medium, dir, pt));
    pt->z_ref = z0;
    pt->deembed = deembed * m->unit;
  }
  return EM_OK;
}

/* Whether face f lies on a side of the mesh's bounding box: the outer
 * boundary, not the wall of unmeshed metal inside it. */
static int on_bbox(const em_mesh *m, const em_mesh_stats *st, int32_t f) {
  double size = 0;
  for (int d = 0; d < 3; d++) size = fmax(size, st->bbox[2 * d + 1] - st->bbox[2 * d]);
  double tol = 1e-9 * size;
  for (int d = 0; d < 3; d++)
    for (int side = 0; side < 2; side++) {
      int all = 1;
      for (int a = 0; a < 3; a++)
        all &= fabs(m->xyz[3 * (size_t)m->face[3 * f + a] + d] - st->bbox[2 * d + side]) <= tol;
      if (all) return 1;
    }
  return 0;
}

/* Face roles: pec* groups win over ports, ports over pmc*; an exterior
 * face in no group is PEC, or with outer_abc the ABC when it lies on the
 * bounding box.  Fixed (tangential E = 0): PEC faces.  Ports and pmc*
 * faces keep the natural condition (a magnetic wall unless a Robin term is
 * added). */
static em_err setup_faces(const em_case *c, const em_mesh *m, int outer_abc, em_setup *s) {
  em_mesh_stats st;
  em_mesh_stats_compute(m, &st);
  EM_TRY(em_calloc(&s->face_role, (size_t)m->n_face, 1, "face roles"));
  EM_TRY(em_calloc(&s->face_fixed, (size_t)m->n_face, 1, "fixed faces"));
  uint8_t *role = s->face_role;
  for (int32_t k = 0; k < m->n_tri; k++) {
    const char *name = m->group[m->tri_group[k]].name;
    int32_t f = m->tri_face[k];
    if (starts_with(name, "pec"))
      role[f] = EM_FACE_PEC;
    else if (port_number(name) > 0 && role[f] != EM_FACE_PEC)
      role[f] = EM_FACE_PORT;
    else if (starts_with(name, "pmc") && !role[f])
      role[f] = EM_FACE_PMC;
  }
  EM_TRY(em_setup_surfaces(c, m, s, role)); /* case_surface.c: sigma, rlc */
  s->n_abc = 0;
  for (int32_t f = 0; f < m->n_face; f++) {
    if (m->face_tet[2 * f + 1] >= 0 || role[f] != EM_FACE_NONE) continue; /* not bare exterior */
    role[f] = outer_abc && on_bbox(m, &st, f) ? EM_FACE_ABC : EM_FACE_PEC;
    s->n_abc += role[f] == EM_FACE_ABC;
  }
  for (int32_t f = 0; f < m->n_face; f++) s->face_fixed[f] = role[f] == EM_FACE_PEC;
  if (s->n_abc) {
    EM_TRY(em_calloc(&s->abc_face, (size_t)s->n_abc, sizeof *s->abc_face, "ABC faces"));
    int32_t n = 0;
    for (int32_t f = 0; f < m->n_face; f++)
      if (role[f] == EM_FACE_ABC) s->abc_face[n++] = f;
  }
  return EM_OK;
}

/* The media, PML, ports and face roles of case c on mesh m. */
em_err em_setup_build(const em_case *c, const em_mesh *m, const em_setup_opts *o, const em_log *log,
                      em_setup *s) {
  memset(s, 0, sizeof *s);
  int n_interior = 0;
  EM_TRY(em_calloc(&s->medium, (size_t)m->n_group, sizeof *s->medium, "media"));
  for (int g = 0; g < m->n_group; g++) {
    if (m->group[g].dim != 3) continue;
    int pml = starts_with(m->group[g].name, "pml");
    EM_TRY(em_setup_medium_of(c, m->group[g].name, pml, &s->medium[g]));
    s->has_pml |= pml;
    n_interior += !pml;
  }
  EM_CHECK(n_interior > 0, EM_ERR_INPUT, "case %s has only PML volumes", em_case_path(c));
  EM_TRY(em_setup_orders(c, m, o, s));
  if (s->has_pml) {
    EM_TRY(em_pml_detect(m, s->medium, o->pml_order, o->pml_reflection, &s->pml));
    em_log_info(log,
                "PML: interior box [%.4g, %.4g] x [%.4g, %.4g] x [%.4g, %.4g] mm, "
                "layers %.3g/%.3g/%.3g/%.3g/%.3g/%.3g mm, m = %d, R0 = %g",
                s->pml.inner[0] * 1e3, s->pml.inner[1] * 1e3, s->pml.inner[2] * 1e3,
                s->pml.inner[3] * 1e3, s->pml.inner[4] * 1e3, s->pml.inner[5] * 1e3,
                s->pml.thick[0] * 1e3, s->pml.thick[1] * 1e3, s->pml.thick[2] * 1e3,
                s->pml.thick[3] * 1e3, s->pml.thick[4] * 1e3, s->pml.thick[5] * 1e3, s->pml.order,
                s->pml.R0);
  }
  EM_TRY(setup_ports(c, m, s));
  for (int i = 0; i < s->n_port; i++) {
    const em_port *p = &s->port[i];
    if (p->type == EM_PORT_COAX)
      em_log_info(log, "%s: coax, radii %.4g / %.4g mm, eps_r %.4g", p->name, p->a * 1e3,
                  p->b * 1e3, creal(p->eps_r));
    else
      em_log_info(log, "%s: %s, %.4g x %.4g mm", p->name,
                  p->type == EM_PORT_WAVEGUIDE ? "waveguide" : "lumped", p->a * 1e3, p->b * 1e3);
  }
  EM_TRY(setup_faces(c, m, o->outer_abc, s));
  for (int i = 0; i < s->n_surface; i++) {
    const em_surface *sf = &s->surface[i];
    if (sf->kind == EM_SURFACE_IMPEDANCE)
      em_log_info(log, "%s: surface impedance, sigma %.4g S/m, roughness %.3g um, %d faces",
                  m->group[sf->group].name, sf->sigma, sf->roughness * 1e6, sf->n_face);
    else
      em_log_info(log, "%s: lumped %s R %.4g ohm, L %.4g H, C %.4g F over %.4g x %.4g mm",
                  m->group[sf->group].name, sf->parallel ? "parallel" : "series", sf->R, sf->L,
                  sf->C, sf->w * 1e3, sf->l * 1e3);
  }
  for (int g = 0; g < m->n_group; g++) {
    const char *n = m->group[g].name;
    int surf = 0;
    for (int i = 0; i < s->n_surface; i++) surf |= s->surface[i].group == g;
    for (int32_t k = 0; k < m->n_tri && !surf; k++)
      surf = m->tri_group[k] == g && s->face_role[m->tri_face[k]] == EM_FACE_PERIODIC;
    if (m->group[g].dim == 2 && !surf && !starts_with(n, "pec") && !starts_with(n, "pmc") &&
        !port_number(n))
      em_log_verbose(log,
                     "surface group '%s' has no boundary role (names: pec*, pmc*, portN; "
                     "Boundary/%s/sigma or type rlc)",
                     n, n);
  }
  return EM_OK;
}

/* Eigen/ports short: the port planes become PEC (fixed). */
void em_setup_short_ports(const em_mesh *m, em_setup *s) {
  for (int32_t k = 0; k < m->n_tri; k++)
    for (int i = 0; i < s->n_port; i++)
      if (m->tri_group[k] == s->port[i].group) {
        s->face_fixed[m->tri_face[k]] = 1;
        s->face_role[m->tri_face[k]] = EM_FACE_PEC;
      }
}

/* Every port at every frequency: a waveguide below its cut-off fails here,
 * naming the port and the cut-off. */
em_err em_setup_check_band(em_setup *s, const double *freq, int n_freq) {
  for (int i = 0; i < n_freq; i++)
    for (int p = 0; p < s->n_port; p++)
      EM_TRY(em_port_set_frequency(&s->port[p], 2 * M_PI * freq[i] / EM_C0));
  return EM_OK;
}

/* Frees every array; the struct may be partly built (a failed build). */
void em_setup_free(em_setup *s) {
  em_free(&s->face_role);
  em_free(&s->medium);
  em_free(&s->port);
  em_free(&s->face_fixed);
  em_free(&s->abc_face);
  em_free(&s->order);
  em_setup_surfaces_free(s);
}
