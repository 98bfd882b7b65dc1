/* excitation.c - the plane wave of Excitation/type planewave as the
 * problem object's extra excitation (em_fsys_desc.prepare): at each k0 the
 * incident wave in the background medium (the one the PML continues) and
 * its scattered-field sources, f = k0^2 (eps_r - eps_b) E_inc in the
 * scatterer and E_s = -E_inc on its PEC (assembly/planewave.c). */
#include <math.h>

#include "em_model.h"

em_err em_pw_source_prepare(void *ctx, double k0, em_problem *prob) {
  em_pw_source *src = ctx;
  const em_ff_config *ff = src->ff;
  const em_setup *s = src->setup;
  if (!ff->planewave) return EM_OK;
  em_cplx eps = 1, mu = 1;
  for (int g = 0; g < src->mesh->n_group; g++)
    if (src->mesh->group[g].dim == 3 && s->medium[g].is_pml) {
      eps = s->medium[g].eps_r;
      mu = s->medium[g].mu_r;
    }
  EM_TRY(
      em_planewave_make(k0, ff->pw_theta, ff->pw_phi, ff->pw_psi, ff->pw_amp, eps, mu, &src->pw));
  src->sc = (em_scatter){&src->pw, src->mesh, s->medium, &s->pml};
  prob->n_rhs = 1;
  prob->tet_source = em_scatter_source;
  prob->tet_source_ctx = &src->sc;
  prob->dirichlet = em_scatter_dirichlet;
  prob->dirichlet_ctx = &src->sc;
  return EM_OK;
}

/* A port of a plane-wave run is a matched load of the total field
 * (em_port_robin_load, set by em_fsys_solve): its Robin term gets the
 * scattered field's source g from E_inc (em_scatter_port_source). */
em_err em_pw_port_source(void *ctx, double k0, int port, em_robin *r) {
  em_pw_source *src = ctx;
  (void)k0; /* src->sc holds this frequency's wave (em_pw_source_prepare) */
  em_scatter_port *sp = &src->sport[port];
  *sp = (em_scatter_port){&src->sc, &src->setup->port[port], r->gamma};
  r->g = em_scatter_port_source;
  r->g_ctx = sp;
  r->rhs = 0;
  return EM_OK;
}
