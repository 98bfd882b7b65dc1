/* meshreuse.c - the mesh of a run, or of a design sweep's point: a copy of
 * the previous point's mesh when only non-geometry parameters changed
 * (docs/sweeps.md, "Mesh reuse").
 *
 * The sweep (psweep.c) gives each point a key, its values of the
 * parameters that may change the mesh, and the material values the mesh is
 * sized with: the sweep's largest eps_r, mu_r and tan_delta of each swept
 * material, so the elements per wavelength asked hold at every point and
 * the mesh does not depend on which point of the group meshed it.  A copy
 * is taken only when the key, the geometry's fingerprint and the sizing
 * (mesh frequency, elements per wavelength, unit, PML elements) all match. */
#include <math.h>
#include <string.h>

#include "app_run.h"

/* Refractive index sqrt(|eps_r mu_r|) of a volume with the sweep's sizing
 * values of its material in place of the point's (em_setup_index_of
 * otherwise). */
static double sized_index(void *ctx, const char *group) {
  const em_mesh_cache *mc = ctx;
  em_medium med;
  int pml = !strncmp(group, "pml", 3);
  if (em_setup_medium_of(mc->cs, group, pml, &med)) {
    em_error_clear(); /* reported properly when the media are set up */
    return 1;
  }
  double eps = creal(med.eps_r), tand = eps != 0 ? -cimag(med.eps_r) / eps : 0;
  double mu = creal(med.mu_r);
  char pre[300];
  int n = snprintf(pre, sizeof pre, "Materials/%s/", group);
  for (int i = 0; i < mc->n_size; i++) {
    const em_param_override *o = &mc->size_over[i];
    if (o->is_string || strncmp(o->name, pre, (size_t)n)) continue;
    const char *what = o->name + n;
    if (!strcmp(what, "eps_r")) eps = o->number;
    if (!strcmp(what, "mu_r")) mu = o->number;
    if (!strcmp(what, "tan_delta")) tand = o->number;
  }
  return sqrt(cabs(eps * (1 - I * tand) * mu));
}

/* A deep copy through the mesh builder, vertex numbering kept (the source
 * is already numbered and oriented: edges and faces come out the same). */
static em_err mesh_copy(const em_mesh *m, em_mesh **out) {
  EM_TRY(em_mesh_from_tets(m->n_vert, m->xyz, m->n_tet, m->tet, m->tet_group, m->n_tri, m->tri,
                           m->tri_group, m->n_group, m->group, 0, out));
  (*out)->unit = m->unit; /* not the builder's: de-embedding lengths use it */
  return EM_OK;
}

em_err em_app_mesh(em_run *r, em_mesh_opts *mo) {
  em_mesh_cache *mc = r->args->mesh_cache;
  if (!mc) return em_case_mesh(r->m.cs, mo, &r->detail, &r->m.mesh);
  mc->cs = r->m.cs;
  mo->index_of = sized_index;
  mo->index_ctx = mc;
  uint64_t hash;
  EM_TRY(em_case_geometry_hash(r->m.cs, &hash));
  mc->reused = mc->mesh && !strcmp(mc->key, mc->mesh_key) && hash == mc->mesh_hash &&
               mc->mesh_freq == mo->freq_max && mc->epw == mo->elements_per_wavelength &&
               mc->unit == mo->unit && mc->pml_elements == mo->pml_elements &&
               mc->pml_elements_only == mo->pml_elements_only &&
               mo->geometry_order < 2; /* a curved mesh's mid nodes are not copied */
  if (mc->reused) {
    em_log_info(r->log, "mesh: reused from the previous point (only non-geometry values changed)");
    return mesh_copy(mc->mesh, &r->m.mesh);
  }
  if (mc->mesh && !strcmp(mc->key, mc->mesh_key) && hash != mc->mesh_hash)
    em_log_warn(r->log,
                "mesh: the geometry changed although only non-geometry parameters did (the case "
                "uses one in its geometry): meshing again");
  EM_TRY(em_case_mesh(r->m.cs, mo, &r->detail, &r->m.mesh));
  mc->n_meshed++;
  em_mesh_destroy(&mc->mesh);
  EM_TRY(mesh_copy(r->m.mesh, &mc->mesh));
  snprintf(mc->mesh_key, sizeof mc->mesh_key, "%s", mc->key);
  mc->mesh_hash = hash;
  mc->mesh_freq = mo->freq_max;
  mc->epw = mo->elements_per_wavelength;
  mc->unit = mo->unit;
  mc->pml_elements = mo->pml_elements;
  mc->pml_elements_only = mo->pml_elements_only;
  return EM_OK;
}
