/* estimate_setup.c - the error indicator of a case's solutions: the
 * problem em_fsys_solve assembles at f (media, PML, each port's Robin term
 * and excitation, the ABC, the surface impedances and lumped sheets)
 * handed to em_estimate once per excitation, the indicators summed (every
 * port drives 1 W or 1 A, so the excitations weigh alike). */
#include <math.h>
#include <string.h>

#include "em_model.h"

#define EST_MAX_ROBIN 48

em_err em_setup_estimate(const em_mesh *m, const em_dofmap *d, const em_setup *s, double f,
                         em_err (*prepare)(void *, double, em_problem *), void *prepare_ctx,
                         const em_cplx *x, int n_sol, const em_cplx *fixed, double *eta2,
                         em_estimate_info *info) {
  return em_setup_estimate_ports(m, d, s, f, prepare, prepare_ctx, 0, x, n_sol, fixed, eta2, info);
}

/* the ports of `excite` drive (0: all), one column each, as em_fsys_solve */
em_err em_setup_estimate_ports(const em_mesh *m, const em_dofmap *d, const em_setup *s, double f,
                               em_err (*prepare)(void *, double, em_problem *), void *prepare_ctx,
                               uint32_t excite, const em_cplx *x, int n_sol, const em_cplx *fixed,
                               double *eta2, em_estimate_info *info) {
  EM_CHECK(m && d && s && x && eta2 && info, EM_ERR_ARG, "error estimate: NULL argument");
  EM_CHECK(s->n_port <= EM_MAX_PORTS, EM_ERR_ARG, "error estimate: %d ports", s->n_port);
  double k0 = 2 * M_PI * f / EM_C0, t0 = em_wtime();
  int np = s->n_port, n_abc = 0;
  em_robin rb[EST_MAX_ROBIN];
  uint8_t *vary = NULL;
  em_err err = EM_OK;
  memset(info, 0, sizeof *info);
  uint32_t ex = excite ? excite : em_excite_all(np);
  for (int i = 0; i < np; i++) {
    int col = em_excite_column(ex, i);
    EM_TRY(em_port_set_frequency(&s->port[i], k0));
    em_port_robin(&s->port[i], col >= 0, col, &rb[i]);
  }
  EM_TRY(
      em_abc_robins(m, s->medium, s->abc_face, s->n_abc, k0, rb + np, EST_MAX_ROBIN - np, &n_abc));
  int n_rb = np + n_abc; /* then the surface impedances and lumped sheets, as fsys.c */
  if (n_rb + s->n_surface > EST_MAX_ROBIN) {
    em_abc_free(rb + np, n_abc);
    return EM_RAISE(EM_ERR_INPUT, "error estimate: %d surface boundaries, too many Robin terms",
                    s->n_surface);
  }
  for (int i = 0; i < s->n_surface; i++) em_surface_robin(&s->surface[i], k0, &rb[n_rb++]);
  if (s->has_pml) {
    EM_TRY_GOTO(err, em_calloc(&vary, (size_t)m->n_tet, 1, "PML tets"), done);
    for (int32_t t = 0; t < m->n_tet; t++) vary[t] = (uint8_t)s->medium[m->tet_group[t]].is_pml;
  }
  em_media media = {m, s->medium, s->has_pml ? &s->pml : NULL, k0};
  em_problem prob = {.k0 = k0,
                     .material = em_media_material,
                     .material_ctx = &media,
                     .material_flat = em_media_flat,
                     .tet_vary = vary,
                     .n_robin = n_rb,
                     .robin = rb,
                     .n_rhs = em_excite_count(ex)};
  if (prepare) EM_TRY_GOTO(err, prepare(prepare_ctx, k0, &prob), done);
  if (n_sol != prob.n_rhs) {
    err =
        EM_RAISE(EM_ERR_ARG, "error estimate: %d solutions for %d excitations", n_sol, prob.n_rhs);
    goto done;
  }
  for (int32_t t = 0; t < m->n_tet; t++) eta2[t] = 0;
  double e2 = 0, n2 = 0;
  for (int e = 0; e < n_sol; e++) {
    em_estimate_info one;
    EM_TRY_GOTO(
        err,
        em_estimate(m, d, &prob, s->face_fixed, x + (size_t)e * d->n_dof, fixed, e, eta2, &one),
        done);
    e2 += one.eta * one.eta;
    n2 += one.energy * one.energy;
  }
  info->eta = sqrt(e2);
  info->energy = sqrt(n2);
  info->t = em_wtime() - t0;
done:
  em_abc_free(rb + np, n_abc);
  em_free(&vary);
  return err;
}
